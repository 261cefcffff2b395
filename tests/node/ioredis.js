'use strict';
// ioredis against the server on $PORT: what applications do with it. Prints
// a transcript (lib.js) that test_node_clients.sh compares between
// goblin-core and redis-server.

const Redis = require('ioredis');
const {
  assert, PORT, HOST, check, rejection, once, until, sha1, summarizeInfo, done, withoutTimes,
  generatedId,
} = require('./lib');

const clients = [];
function connect(options = {}) {
  const client = new Redis({ host: HOST, port: PORT, ...options });
  client.on('error', () => {}); // reconnects are tested; errors surface on commands
  clients.push(client);
  return client;
}

async function main() {
  const r = connect();
  const other = connect();

  await check('connect', async () => {
    await r.flushall();
    const hello = await r.call('HELLO', '2');
    const fields = {};
    for (let i = 0; i < hello.length; i += 2) fields[hello[i]] = hello[i + 1];
    assert.equal(typeof fields.id, 'number');
    delete fields.id;
    return { status: r.status, hello: fields, ping: await r.ping(), echo: await r.echo('hé') };
  });

  await check('strings', async () => {
    const out = [];
    out.push(await r.set('s:a', 'hello'), await r.get('s:a'), await r.append('s:a', ' world'));
    out.push(await r.getrange('s:a', 0, 4), await r.setrange('s:a', 6, 'W'), await r.strlen('s:a'));
    out.push(await r.set('s:n', 10), await r.incr('s:n'), await r.incrby('s:n', 5), await r.decrby('s:n', 3));
    out.push(await r.incrbyfloat('s:n', 1.5), await r.incrbyfloat('s:n', '5.0e3'));
    out.push(await r.mset({ 's:x': 1, 's:y': 2 }), await r.mget('s:x', 's:y', 's:missing'));
    out.push(await r.set('s:a', 'v', 'NX'), await r.set('s:new', 'v', 'EX', 100, 'NX'));
    out.push(await r.ttl('s:new'), await r.set('s:new', 'w', 'GET'), await r.getdel('s:new'));
    out.push(await r.getex('s:x', 'PX', 50000), await r.pttl('s:x') > 49000);
    out.push(await r.setex('s:e', 100, 'v'), await r.persist('s:e'), await r.ttl('s:e'));
    out.push(await r.msetnx('s:x', 9, 's:z', 9), await r.exists('s:x', 's:y', 's:z', 's:nope'));
    out.push(await r.getBuffer('s:a'), await r.type('s:a'), await r.del('s:a', 's:nope'));
    return out;
  });

  await check('hashes', async () => {
    const out = [];
    out.push(await r.hset('h', { name: 'ada', age: 36, city: 'london' }));
    out.push(await r.hgetall('h'), await r.hget('h', 'name'), await r.hmget('h', 'name', 'nope', 'age'));
    out.push(await r.hincrby('h', 'age', 1), await r.hincrbyfloat('h', 'score', 2.5));
    out.push(await r.hsetnx('h', 'name', 'x'), await r.hexists('h', 'city'), await r.hdel('h', 'city', 'x'));
    out.push((await r.hkeys('h')).sort(), (await r.hvals('h')).sort(), await r.hlen('h'));
    out.push(await r.hstrlen('h', 'name'), (await r.hrandfield('h', 10)).sort());
    out.push(await r.hgetall('nohash'));
    return out;
  });

  await check('lists', async () => {
    const out = [];
    out.push(await r.rpush('l', 'a', 'b', 'c'), await r.lpush('l', 'z'), await r.lrange('l', 0, -1));
    out.push(await r.linsert('l', 'BEFORE', 'b', 'a2'), await r.lindex('l', 2), await r.lset('l', 0, 'y'));
    out.push(await r.rpush('l', 'a', 'a'), await r.lpos('l', 'a', 'COUNT', 0), await r.lrem('l', -2, 'a'));
    out.push(await r.lpop('l'), await r.rpop('l', 2), await r.llen('l'), await r.lrange('l', 0, -1));
    out.push(await r.lmove('l', 'l2', 'LEFT', 'RIGHT'), await r.ltrim('l', 0, 0), await r.lrange('l2', 0, -1));
    out.push(await r.lpushx('nolist', 'a'), await r.lpop('nolist'), await r.lmpop(2, 'nolist', 'l', 'LEFT'));
    return out;
  });

  await check('sets', async () => {
    const out = [];
    out.push(await r.sadd('set1', 'a', 'b', 'c', 'd'), await r.sadd('set2', 'c', 'd', 'e'));
    out.push((await r.smembers('set1')).sort(), await r.sismember('set1', 'a'), await r.smismember('set1', 'a', 'x'));
    out.push((await r.sinter('set1', 'set2')).sort(), (await r.sunion('set1', 'set2')).sort());
    out.push((await r.sdiff('set1', 'set2')).sort(), await r.sinterstore('set3', 'set1', 'set2'));
    out.push(await r.scard('set3'), await r.srem('set1', 'a', 'zz'), await r.smove('set1', 'set2', 'b'));
    out.push(await r.sintercard(2, 'set1', 'set2'), (await r.spop('set3', 5)).sort(), await r.exists('set3'));
    out.push(await r.sadd('ints', 1, 2, 3), (await r.smembers('ints')).sort(), await r.srandmember('none'));
    return out;
  });

  await check('zsets', async () => {
    const out = [];
    out.push(await r.zadd('z', 1, 'a', 2, 'b', 3, 'c', 2.5, 'd'), await r.zrange('z', 0, -1, 'WITHSCORES'));
    out.push(await r.zrangebyscore('z', '(1', '+inf', 'LIMIT', 0, 2), await r.zrevrange('z', 0, 1));
    out.push(await r.zincrby('z', 0.25, 'a'), await r.zscore('z', 'd'), await r.zrank('z', 'c'));
    out.push(await r.zcount('z', 2, 3), await r.zmscore('z', 'a', 'nope'), await r.zpopmin('z'));
    out.push(await r.zadd('z', 'GT', 'CH', 1, 'b', 9, 'c'), await r.zadd('z', 'INCR', 1, 'b'));
    out.push(await r.zadd('zz', 1, 'b', 5, 'x'), await r.zunionstore('zu', 2, 'z', 'zz', 'WEIGHTS', 1, 2));
    out.push(await r.zrange('zu', 0, -1, 'WITHSCORES'), await r.zinter(2, 'z', 'zz', 'WITHSCORES'));
    out.push(await r.zadd('lex', 0, 'apple', 0, 'banana', 0, 'cherry'), await r.zrange('lex', '[b', '+', 'BYLEX'));
    out.push(await r.zrangestore('zs', 'z', 0, 0), await r.zrevrangebyscore('z', '+inf', '-inf', 'WITHSCORES'));
    out.push(await r.zrem('z', 'b', 'nope'), await r.zcard('z'), await r.zadd('zinf', '-inf', 'm', '+inf', 'n'));
    out.push(await r.zrange('zinf', 0, -1, 'WITHSCORES'), await r.zscore('z', 'nope'));
    return out;
  });

  await check('pipeline-10k', async () => {
    const pipe = r.pipeline();
    for (let i = 0; i < 10000; i++) {
      if (i % 3 === 0) pipe.set(`p:${i}`, i);
      else if (i % 3 === 1) pipe.incr(`p:${i - 1}`);
      else pipe.get(`p:${i - 2}`);
    }
    const results = await pipe.exec();
    assert.equal(results.length, 10000);
    for (let i = 0; i < 10000; i++) {
      const [err, value] = results[i];
      assert.equal(err, null);
      const want = i % 3 === 0 ? 'OK' : i % 3 === 1 ? i : String(i - 1);
      assert.equal(value, want, `command ${i}`);
    }
    return { count: results.length, digest: sha1(JSON.stringify(results)) };
  });

  await check('pipeline-errors', async () => {
    const results = await r.pipeline().set('pe', 'x').incr('pe').get('pe').lpush('pe', 1)
      .call('NOSUCHCOMMAND', 'a').exec();
    return results.map(([err, value]) => (err ? `${err.name}: ${err.message}` : value));
  });

  await check('multi-exec', async () => {
    const ok = await r.multi().set('m', 1).incr('m').get('m').lpush('m', 1).exec();
    const queued = await rejection(r.multi().set('m').get('m').exec());
    const previous = await r.multi().set('m').exec().catch((e) => e.previousErrors.map((x) => x.message));
    const discarded = await r.multi().set('m', 5).call('DISCARD').exec().catch((e) => e.message);
    return {
      ok: ok.map(([err, value]) => (err ? `${err.name}: ${err.message}` : value)),
      queued, previous, discarded, m: await r.get('m'),
    };
  });

  await check('watch', async () => {
    const a = connect();
    await a.set('w', 1);
    await a.watch('w');
    await other.set('w', 2);
    const conflicted = await a.multi().set('w', 3).exec();
    await a.watch('w');
    const clean = await a.multi().incr('w').exec();
    await a.watch('w');
    await other.expire('w', 100);
    const expiredTouch = await a.multi().get('w').exec();
    await a.watch('w');
    await a.unwatch();
    await other.set('w', 10);
    const unwatched = await a.multi().get('w').exec();
    return { conflicted, clean, expiredTouch, unwatched };
  });

  await check('pubsub', async () => {
    const sub = connect();
    const got = [];
    sub.on('message', (channel, message) => got.push(['message', channel, message]));
    sub.on('pmessage', (pattern, channel, message) => got.push(['pmessage', pattern, channel, message]));
    const counts = [await sub.subscribe('ch1', 'ch2'), await sub.psubscribe('news.*')];
    const receivers = [];
    receivers.push(await other.publish('ch1', 'one'), await other.publish('news.tech', 'two'));
    receivers.push(await other.publish('nobody', 'x'), await other.publish('ch2', ''));
    receivers.push(await other.pubsub('NUMSUB', 'ch1', 'nobody'), await other.pubsub('NUMPAT'));
    receivers.push((await other.pubsub('CHANNELS')).sort());
    await until(() => got.length === 3);
    const small = got.slice();
    const big = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
    const bigArrived = once(sub, 'messageBuffer');
    receivers.push(await other.publish('ch2', big));
    const [channel, message] = await bigArrived;
    // ioredis waits forever on a PUNSUBSCRIBE without arguments (with
    // either server): name the pattern.
    counts.push(await sub.unsubscribe('ch1'), await sub.punsubscribe('news.*'), await sub.unsubscribe());
    const pinged = await sub.ping();
    return { counts, receivers, got: small, big: [channel.toString(), message.length, sha1(message) === sha1(big)], pinged };
  });

  await check('scan-streams', async () => {
    const pipe = r.pipeline();
    for (let i = 0; i < 1000; i++) pipe.set(`scan:${i}`, i);
    for (let i = 0; i < 500; i++) pipe.sadd('scanset', `m${i}`).hset('scanhash', `f${i}`, i).zadd('scanz', i, `z${i}`);
    await pipe.exec();
    const collect = (stream) => new Promise((resolve, reject) => {
      const items = [];
      stream.on('data', (batch) => items.push(...batch));
      stream.on('end', () => resolve(items));
      stream.on('error', reject);
    });
    const keys = new Set(await collect(r.scanStream({ match: 'scan:*', count: 100 })));
    const typed = new Set(await collect(r.scanStream({ type: 'zset', count: 1000 })));
    const members = new Set(await collect(r.sscanStream('scanset', { count: 50 })));
    const hash = await collect(r.hscanStream('scanhash', { match: 'f1*', count: 50 }));
    const zset = await collect(r.zscanStream('scanz', { count: 50 }));
    const hashPairs = {};
    for (let i = 0; i < hash.length; i += 2) hashPairs[hash[i]] = hash[i + 1];
    const zPairs = {};
    for (let i = 0; i < zset.length; i += 2) zPairs[zset[i]] = zset[i + 1];
    assert.equal(keys.size, 1000);
    assert.equal(members.size, 500);
    assert.equal(Object.keys(zPairs).length, 500);
    return {
      keys: keys.size, typed: [...typed].sort(), members: members.size,
      hash: Object.entries(hashPairs).sort(), zsetDigest: sha1(JSON.stringify(Object.entries(zPairs).sort())),
    };
  });

  await check('blocking', async () => {
    const blocker = connect();
    const timedOut = await blocker.blpop('bl:empty', 0.1);
    const pending = blocker.brpop('bl:a', 'bl:b', 5);
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    const pushed = await other.lpush('bl:b', 'x', 'y');
    const woken = await pending;
    const ready = [await other.rpush('bl:c', 1), await blocker.blpop('bl:c', 1)];
    const zpending = blocker.bzpopmin('bl:z', 5);
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    await other.zadd('bl:z', 3, 'three', 1, 'one');
    const zwoken = await zpending;
    const movePending = blocker.blmove('bl:src', 'bl:dst', 'LEFT', 'RIGHT', 5);
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    await other.rpush('bl:src', 'm');
    return { timedOut, pushed, woken, ready, zwoken, moved: await movePending, left: await other.lrange('bl:b', 0, -1) };
  });

  await check('streams', async () => {
    const out = [];
    out.push(generatedId(await r.xadd('st:auto', '*', 'f', 'v')), await r.xlen('st:auto'));
    for (let i = 1; i <= 6; i++) out.push(await r.xadd('st', `${i}-1`, 'task', `t${i}`, 'n', i));
    out.push(await r.xadd('st', 'MAXLEN', '~', 1000, '7-*', 'task', 't7'));
    out.push(await r.xadd('st:none', 'NOMKSTREAM', '*', 'f', 'v'));
    out.push(await r.xrange('st', '-', '+', 'COUNT', 3), await r.xrevrange('st', '+', '(5-1'));
    out.push(await r.xdel('st', '2-1', '99-1'), await r.xlen('st'));
    out.push(await r.xgroup('CREATE', 'st', 'workers', '0'), await r.xgroup('CREATECONSUMER', 'st', 'workers', 'spare'));
    out.push(await r.xreadgroup('GROUP', 'workers', 'w1', 'COUNT', 2, 'STREAMS', 'st', '>'));
    out.push(await r.xreadgroup('GROUP', 'workers', 'w2', 'COUNT', 2, 'STREAMS', 'st', '>'));
    out.push(await r.xreadgroup('GROUP', 'workers', 'w1', 'STREAMS', 'st', '0'));
    out.push(await r.xpending('st', 'workers'));
    out.push(withoutTimes((await r.xpending('st', 'workers', '-', '+', 10)).map(([id, c, , n]) => [id, c, n])));
    out.push(await r.xack('st', 'workers', '1-1', '42-0'));
    out.push(await r.xclaim('st', 'workers', 'w3', 0, '3-1', 'RETRYCOUNT', 5));
    out.push(await r.xautoclaim('st', 'workers', 'w3', 0, '0-0', 'COUNT', 10, 'JUSTID'));
    out.push(await r.xdel('st', '5-1'), await r.xautoclaim('st', 'workers', 'w4', 0, '0-0'));
    out.push(await r.xinfo('GROUPS', 'st'), withoutTimes(await r.xinfo('CONSUMERS', 'st', 'workers')));
    const full = withoutTimes(await r.xinfo('STREAM', 'st', 'FULL', 'COUNT', 3));
    for (const g of full[full.indexOf('groups') + 1]) { // delivery times: [id, consumer, T, n], [id, T, n]
      for (const e of g[g.indexOf('pending') + 1]) e[2] = 'T';
      for (const c of g[g.indexOf('consumers') + 1]) for (const e of c[c.indexOf('pending') + 1]) e[1] = 'T';
    }
    out.push(await r.xinfo('STREAM', 'st'), full);
    out.push(await r.xtrim('st', 'MINID', '4-0'), await r.xsetid('st', '100-0'), await r.type('st'));
    out.push(await r.xgroup('SETID', 'st', 'workers', '$'), await r.xgroup('DELCONSUMER', 'st', 'workers', 'w4'));
    out.push(await r.xgroup('DESTROY', 'st', 'workers'), await r.xinfo('GROUPS', 'st'));
    out.push(await rejection(r.xadd('st', '1-1', 'f', 'v')));
    out.push(await rejection(r.xreadgroup('GROUP', 'nogroup', 'c', 'STREAMS', 'st', '>')));
    out.push(await rejection(r.xgroup('CREATE', 'st:missing', 'g', '$')));
    out.push(await r.rpush('st:list', 'x'), await rejection(r.xadd('st:list', '*', 'f', 'v')));
    return out;
  });

  await check('streams-job-queue', async () => {
    // A job queue's shape: jobs enqueued by a Lua script and by MULTI
    // (XADD next to the job's hash), workers reading with BLOCK, results
    // stored with XADD inside MULTI, a crashed worker's job reclaimed.
    const enqueue = "local id = redis.call('XADD', KEYS[1], ARGV[1], 'job', ARGV[2]) " +
      "redis.call('HSET', KEYS[2], 'state', 'waiting', 'id', id) return id";
    const out = [await r.xgroup('CREATE', 'q', 'workers', '$', 'MKSTREAM')];
    const worker = connect();
    const crashed = connect();
    const pending = worker.xreadgroup('GROUP', 'workers', 'w', 'COUNT', 10, 'BLOCK', 5000, 'STREAMS', 'q', '>');
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    out.push(await other.eval(enqueue, 2, 'q', 'job:1', '1-1', 'one'));
    out.push(await other.multi().xadd('q', '2-1', 'job', 'two').hset('job:2', 'state', 'waiting').exec());
    out.push(await pending);
    out.push(await other.multi().xadd('q', '3-1', 'job', 'three').xadd('q', '4-1', 'job', 'four').exec());
    out.push(await crashed.xreadgroup('GROUP', 'workers', 'gone', 'COUNT', 1, 'BLOCK', 100, 'STREAMS', 'q', '>'));
    crashed.disconnect();
    out.push(await worker.xreadgroup('GROUP', 'workers', 'w', 'BLOCK', 100, 'STREAMS', 'q', '>'));
    for (const id of ['1-1', '3-1', '4-1']) {
      out.push(await worker.multi().xadd('results', id, 'out', `done ${id}`).hset(`job:${id[0]}`, 'state', 'done')
        .xack('q', 'workers', id).exec());
    }
    out.push(await worker.xreadgroup('GROUP', 'workers', 'w', 'BLOCK', 50, 'STREAMS', 'q', '>'));
    out.push(await r.xpending('q', 'workers'));
    out.push(await r.xautoclaim('q', 'workers', 'rescuer', 0, '0-0', 'COUNT', 10));
    out.push(await r.xack('q', 'workers', '2-1'), await r.xpending('q', 'workers'));
    out.push(await r.xrange('results', '-', '+'), await r.hgetall('job:1'), await r.hgetall('job:2'));
    out.push(await r.xread('COUNT', 2, 'STREAMS', 'q', 'results', '0', '2-1'));
    const reader = worker.xread('BLOCK', 5000, 'STREAMS', 'q', 'results', '$', '$');
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    out.push(await other.xadd('results', '9-1', 'out', 'late'), await reader);
    out.push(await worker.xread('BLOCK', 50, 'STREAMS', 'q', '$'));
    return out;
  });

  await check('lua-define-command', async () => {
    r.defineCommand('addTwice', {
      numberOfKeys: 1,
      lua: "return redis.call('INCRBY', KEYS[1], ARGV[1]) + redis.call('INCRBY', KEYS[1], ARGV[1])",
    });
    r.defineCommand('echoArgs', { lua: 'return {KEYS[1], ARGV[1], #KEYS, #ARGV}' });
    await r.script('FLUSH');
    await r.config('RESETSTAT');
    const first = await r.addTwice('lua:k', 5);
    const second = await r.addTwice('lua:k', 1);
    const sha = sha1("return redis.call('INCRBY', KEYS[1], ARGV[1]) + redis.call('INCRBY', KEYS[1], ARGV[1])");
    const stats = {};
    for (const line of (await r.info('commandstats')).split('\r\n')) {
      const m = /^cmdstat_(eval|evalsha):calls=(\d+),.*rejected_calls=(\d+),failed_calls=(\d+)/.exec(line);
      if (m) stats[`${m[1]}`] = { calls: Number(m[2]), rejected: Number(m[3]), failed: Number(m[4]) };
    }
    const piped = await r.pipeline().addTwice('lua:p', 2).echoArgs(2, 'k1', 'k2', 'a1').exec();
    return {
      first, second, exists: await r.script('EXISTS', sha), eval: stats.eval, evalsha: stats.evalsha,
      piped: piped.map(([err, value]) => (err ? err.message : value)),
    };
  });

  await check('lua-eval-replies', async () => {
    const out = [];
    out.push(await r.eval("return {1, 'two', {3, 'four'}, redis.status_reply('OK'), 3.99, true, false}", 0));
    out.push(await rejection(r.eval("return redis.error_reply('MY custom error')", 0)));
    out.push(await rejection(r.eval("return redis.call('INCR', KEYS[1])", 1, 'h')));
    out.push(await rejection(r.eval("return redis.call('HGET', KEYS[1])", 1, 'h')));
    out.push(await rejection(r.eval("return redis.pcall('LPUSH', KEYS[1], 'x')", 1, 'h')));
    out.push(await rejection(r.eval('return nosuchfunction()', 0)));
    out.push(await rejection(r.evalsha('0000000000000000000000000000000000000000', 0)));
    out.push(await r.eval("return redis.call('GET', KEYS[1])", 1, 'nokey'));
    return out;
  });

  await check('info', async () => {
    await r.select(0);
    return summarizeInfo(await r.info());
  });

  await check('connection-name-db-prefix', async () => {
    const named = connect({ connectionName: 'app-one', db: 3 });
    const prefixed = connect({ keyPrefix: 'pfx:' });
    await named.set('indb3', 'v');
    const name = await named.client('GETNAME');
    const list = (await r.client('LIST')).split('\n').find((line) => line.includes('name=app-one'));
    await prefixed.set('a', 1);
    await prefixed.mset({ b: 2, c: 3 });
    const prefixedRead = await prefixed.pipeline().mget('a', 'b', 'c').incr('a').exec();
    await prefixed.rpush('pl', 'x');
    const raw = await r.mget('pfx:a', 'pfx:b', 'a');
    await r.select(3);
    const inDb3 = await r.get('indb3');
    await r.select(0);
    return {
      name, listed: /(^| )db=3( |$)/.test(list) && / cmd=/.test(list), prefixedRead,
      raw, inDb3, prefixedList: await r.lrange('pfx:pl', 0, -1),
    };
  });

  await check('reconnect-after-kill', async () => {
    const victim = connect({ connectionName: 'victim', db: 2, retryStrategy: () => 50 });
    await victim.set('k', 'before');
    const id = await victim.client('ID');
    const reconnected = once(victim, 'ready');
    const closed = once(victim, 'close');
    const killed = await r.client('KILL', 'ID', id);
    await closed;
    const queued = victim.get('k'); // offline queue, sent once reconnected
    await reconnected;
    const newId = await victim.client('ID');
    return {
      killed, value: await queued, name: await victim.client('GETNAME'), newConnection: newId !== id,
      killAgain: await r.client('KILL', 'ID', id).catch((e) => e.message),
    };
  });

  await check('resubscribe-after-kill', async () => {
    const sub = connect({ retryStrategy: () => 50 });
    const got = [];
    sub.on('message', (channel, message) => got.push([channel, message]));
    const id = await sub.client('ID');
    await sub.subscribe('resub');
    const ready = once(sub, 'ready');
    await other.client('KILL', 'ID', id);
    await ready;
    await until(async () => (await other.pubsub('NUMSUB', 'resub'))[1] === 1);
    const receivers = await other.publish('resub', 'after');
    await until(() => got.length === 1);
    return { receivers, got };
  });

  await check('errors', async () => {
    await r.set('str', 'abc');
    await r.rpush('alist', 'x');
    return [
      await rejection(r.incr('str')),
      await rejection(r.get('alist')),
      await rejection(r.call('NOSUCHCMD', 'a', 'b')),
      await rejection(r.call('GET')),
      await rejection(r.set('k', 'v', 'XX', 'NX')),
      await rejection(r.expire('k', 'soon')),
      await rejection(r.zadd('zerr', 'nan', 'm')),
      await rejection(r.hincrbyfloat('h', 'name', 1)),
      await rejection(r.select(99)),
      await rejection(r.lset('nolist', 0, 'x')),
      await rejection(r.config('SET', 'nosuchparam', 1)),
      await r.incr('str').catch((e) => [e instanceof Redis.ReplyError, e.command && e.command.name]),
    ];
  });

  for (const client of clients) client.disconnect();
  done();
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
