'use strict';
// node-redis v4 (RESP2) against the server on $PORT: what applications do
// with it. Prints a transcript (lib.js) that test_node_clients.sh compares
// between goblin-core and redis-server.

const { createClient, commandOptions, defineScript } = require('redis');
const {
  assert, PORT, HOST, check, rejection, once, until, sha1, summarizeInfo, done, withoutTimes,
  generatedId,
} = require('./lib');

const clients = [];
async function connect(options = {}) {
  const client = createClient({
    socket: { host: HOST, port: PORT, reconnectStrategy: () => 50 },
    ...options,
  });
  client.on('error', () => {}); // reconnects are tested; errors surface on commands
  clients.push(client);
  await client.connect();
  return client;
}

const ADD_TWICE = "return redis.call('INCRBY', KEYS[1], ARGV[1]) + redis.call('INCRBY', KEYS[1], ARGV[1])";

async function main() {
  const c = await connect({
    scripts: {
      addTwice: defineScript({
        NUMBER_OF_KEYS: 1,
        SCRIPT: ADD_TWICE,
        transformArguments: (key, by) => [key, String(by)],
        transformReply: (reply) => reply,
      }),
    },
  });
  const other = await connect();

  await check('connect', async () => {
    await c.flushAll();
    const hello = await c.hello({ protover: 2 });
    assert.equal(typeof hello.id, 'number');
    delete hello.id;
    return { isReady: c.isReady, hello, ping: await c.ping(), echo: await c.echo('hé') };
  });

  await check('types', async () => {
    const out = [];
    out.push(await c.set('s', 'v', { EX: 100, NX: true }), await c.get('s'), await c.ttl('s'));
    out.push(await c.set('s', 'w', { GET: true }), await c.incrBy('n', 5), await c.incrByFloat('n', 0.5));
    out.push(await c.mSet({ a: '1', b: '2' }), await c.mGet(['a', 'b', 'none']), await c.getDel('a'));
    out.push(await c.hSet('h', { f1: 'v1', f2: 2 }), await c.hGetAll('h'), await c.hIncrBy('h', 'f2', 3));
    out.push(await c.hmGet('h', ['f1', 'nope']), await c.hGetAll('nohash'));
    out.push(await c.rPush('l', ['a', 'b', 'c']), await c.lRange('l', 0, -1), await c.lPop('l'));
    out.push(await c.lPos('l', 'c'), await c.lMove('l', 'l2', 'RIGHT', 'LEFT'), await c.lLen('l'));
    out.push(await c.sAdd('set', ['x', 'y', 'z']), (await c.sMembers('set')).sort(), await c.sIsMember('set', 'y'));
    out.push(await c.smIsMember('set', ['x', 'q']), await c.sCard('set'), await c.sRem('set', 'x'));
    out.push(await c.zAdd('z', [{ score: 1, value: 'a' }, { score: 2.5, value: 'b' }, { score: -1, value: 'c' }]));
    out.push(await c.zRangeWithScores('z', 0, -1), await c.zRangeByScore('z', 0, '+inf', { LIMIT: { offset: 0, count: 1 } }));
    out.push(await c.zScore('z', 'b'), await c.zIncrBy('z', 2, 'a'), await c.zRank('z', 'a'), await c.zPopMax('z'));
    out.push(await c.zRange('z', 0, 1, { REV: true }), await c.zmScore('z', ['a', 'nope']), await c.zCard('z'));
    out.push(await c.exists(['s', 'h', 'nope']), await c.type('z'), await c.del(['l2', 'nope']));
    out.push(await c.expire('h', 100), await c.persist('h'), await c.ttl('h'));
    return out;
  });

  await check('auto-pipelining-10k', async () => {
    const writes = [];
    for (let i = 0; i < 10000; i++) writes.push(c.set(`p:${i}`, String(i)));
    const reads = [];
    for (let i = 0; i < 10000; i++) reads.push(c.incr(`p:${i}`));
    const w = await Promise.all(writes);
    const r = await Promise.all(reads);
    assert.ok(w.every((x) => x === 'OK'));
    r.forEach((value, i) => assert.equal(value, i + 1));
    return { writes: w.length, digest: sha1(JSON.stringify(r)) };
  });

  await check('multi-and-pipeline', async () => {
    const exec = await c.multi().set('m', '1').incr('m').get('m').lPush('m', 'x').exec()
      .catch((e) => [e.constructor.name, e.message, e.replies && e.replies.map(String)]);
    const pipeline = await c.multi().set('m', '5').incr('m').incr('m').execAsPipeline();
    const queued = await rejection(c.multi().addCommand(['SET', 'm']).get('m').exec());
    return { exec, pipeline, queued };
  });

  await check('watch', async () => {
    const conflicted = await c.executeIsolated(async (isolated) => {
      await isolated.watch('w');
      await other.set('w', 'theirs');
      return rejection(isolated.multi().set('w', 'mine').exec());
    });
    const clean = await c.executeIsolated(async (isolated) => {
      await isolated.watch('w');
      const value = await isolated.get('w');
      return isolated.multi().set('w', `${value}+mine`).exec();
    });
    return { conflicted, clean, w: await c.get('w') };
  });

  await check('pubsub', async () => {
    const sub = c.duplicate();
    sub.on('error', () => {});
    clients.push(sub);
    await sub.connect();
    const got = [];
    await sub.subscribe(['ch1', 'ch2'], (message, channel) => got.push(['message', channel, message]));
    await sub.pSubscribe('news.*', (message, channel) => got.push(['pmessage', channel, message]));
    let big = null;
    await sub.subscribe('bin', (message) => { big = message; }, true);
    // A shard channel on a connection of its own, as node-redis's cluster
    // client does.
    const shardSub = sub.duplicate();
    shardSub.on('error', () => {});
    clients.push(shardSub);
    await shardSub.connect();
    await shardSub.sSubscribe('shard', (message, channel) => got.push(['smessage', channel, message]));
    const receivers = [];
    receivers.push(await other.publish('ch1', 'one'), await other.publish('news.tech', 'two'));
    receivers.push(await other.publish('nobody', 'x'), await other.sPublish('shard', 'three'));
    receivers.push(await other.pubSubNumSub(['ch1', 'nobody']), await other.pubSubNumPat());
    receivers.push((await other.pubSubChannels()).sort(), await other.pubSubShardChannels());
    await until(() => got.length === 3);
    const payload = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7919) & 0xff;
    receivers.push(await other.publish('bin', payload));
    await until(() => big !== null);
    await sub.unsubscribe('ch1');
    // Like ioredis, node-redis 4.7 waits forever on a PUNSUBSCRIBE without
    // arguments (with either server): name the pattern.
    await sub.pUnsubscribe('news.*');
    await shardSub.sUnsubscribe();
    receivers.push(await other.publish('ch1', 'gone'), await other.publish('ch2', 'still'));
    await until(() => got.length === 4);
    await sub.unsubscribe();
    return {
      receivers, got: got.sort((a, b) => (a.join() < b.join() ? -1 : 1)),
      big: [Buffer.isBuffer(big), big.length, sha1(big) === sha1(payload)],
    };
  });

  await check('tracking-redirect', async () => {
    // RESP2 client-side caching: invalidations go to a subscriber.
    const sub = c.duplicate();
    sub.on('error', () => {});
    clients.push(sub);
    await sub.connect();
    const subId = await sub.clientId();
    const invalidated = [];
    await sub.subscribe('__redis__:invalidate', (message) => invalidated.push(message));
    const tracked = await connect();
    const on = await tracked.sendCommand(['CLIENT', 'TRACKING', 'ON', 'REDIRECT', String(subId)]);
    await tracked.set('cached', 'v1');
    const first = await tracked.get('cached');
    await other.set('cached', 'v2');
    await until(() => invalidated.length === 1);
    const info = await tracked.sendCommand(['CLIENT', 'TRACKINGINFO']);
    info[3] = typeof info[3];
    return { on, first, invalidated, info, after: await tracked.get('cached') };
  });

  await check('scan-iterators', async () => {
    const multi = c.multi();
    for (let i = 0; i < 1000; i++) multi.set(`scan:${i}`, String(i));
    for (let i = 0; i < 300; i++) {
      multi.sAdd('scanset', `m${i}`).hSet('scanhash', `f${i}`, String(i)).zAdd('scanz', { score: i, value: `z${i}` });
    }
    await multi.execAsPipeline();
    const keys = new Set();
    for await (const key of c.scanIterator({ MATCH: 'scan:*', COUNT: 100 })) keys.add(key);
    const typed = new Set();
    for await (const key of c.scanIterator({ TYPE: 'hash', COUNT: 1000 })) typed.add(key);
    const members = new Set();
    for await (const member of c.sScanIterator('scanset', { COUNT: 30 })) members.add(member);
    const fields = {};
    for await (const { field, value } of c.hScanIterator('scanhash', { MATCH: 'f2?' })) fields[field] = value;
    let scoreSum = 0;
    let zcount = 0;
    for await (const { score } of c.zScanIterator('scanz', { COUNT: 30 })) {
      scoreSum += score;
      zcount++;
    }
    assert.equal(keys.size, 1000);
    assert.equal(members.size, 300);
    assert.equal(zcount, 300);
    return { keys: keys.size, typed: [...typed].sort(), members: members.size, fields, scoreSum };
  });

  await check('blocking', async () => {
    const iso = commandOptions({ isolated: true });
    const timedOut = await c.blPop(iso, 'bl:empty', 0.1);
    const pending = c.brPop(iso, ['bl:a', 'bl:b'], 5);
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    const pushed = await other.lPush('bl:b', ['x', 'y']);
    const woken = await pending;
    const zpending = c.bzPopMin(iso, 'bl:z', 5);
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    await other.zAdd('bl:z', [{ score: 2, value: 'two' }, { score: 1, value: 'one' }]);
    return { timedOut, pushed, woken, zwoken: await zpending };
  });

  await check('streams', async () => {
    // The typed stream API: its reply transforms read Redis 7.0's field
    // names and shapes (XINFO, XPENDING, XAUTOCLAIM), so a missing or
    // misnamed field shows here.
    const iso = commandOptions({ isolated: true });
    const out = [generatedId(await c.xAdd('st:auto', '*', { f: 'v' }))];
    for (let i = 1; i <= 5; i++) out.push(await c.xAdd('st', `${i}-0`, { job: `j${i}`, n: `${i}` }));
    out.push(await c.xAdd('st', '6-0', { job: 'j6' }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: 100 } }));
    out.push(await c.xAdd('st:none', '*', { f: 'v' }, { NOMKSTREAM: true }));
    out.push(await c.xLen('st'), await c.xRange('st', '-', '+', { COUNT: 2 }), await c.xRevRange('st', '+', '-', { COUNT: 2 }));
    out.push(await c.xGroupCreate('st', 'g', '0'), await c.xGroupCreate('st:mk', 'g', '$', { MKSTREAM: true }));
    out.push(await c.xGroupCreateConsumer('st', 'g', 'spare'));
    out.push(await c.xReadGroup('g', 'alice', { key: 'st', id: '>' }, { COUNT: 2 }));
    out.push(await c.xReadGroup('g', 'bob', [{ key: 'st', id: '>' }], { COUNT: 2 }));
    out.push(await c.xPending('st', 'g'));
    out.push(withoutTimes(await c.xPendingRange('st', 'g', '-', '+', 10)));
    out.push(withoutTimes(await c.xPendingRange('st', 'g', '-', '+', 10, { consumer: 'bob' })));
    out.push(await c.xAck('st', 'g', ['1-0', '9-9']), await c.xClaim('st', 'g', 'carol', 0, '3-0'));
    out.push(await c.xClaimJustId('st', 'g', 'carol', 0, ['4-0']));
    out.push(await c.xDel('st', '4-0'), await c.xAutoClaim('st', 'g', 'dave', 0, '0-0', { COUNT: 5 }));
    out.push(await c.xAutoClaimJustId('st', 'g', 'dave', 0, '0-0'));
    out.push(await c.xInfoStream('st'), await c.xInfoGroups('st'), withoutTimes(await c.xInfoConsumers('st', 'g')));
    out.push(await c.xReadGroup('g', 'erin', { key: 'st', id: '>' })); // the rest: the next read blocks
    const pending = c.xReadGroup(iso, 'g', 'erin', { key: 'st', id: '>' }, { BLOCK: 5000, COUNT: 5 });
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    out.push(await other.multi().xAdd('st', '7-0', { job: 'j7' }).xAdd('st', '8-0', { job: 'j8' }).exec());
    out.push(await pending, await c.xReadGroup(iso, 'g', 'erin', { key: 'st', id: '>' }, { BLOCK: 50 }));
    const reader = c.xRead(iso, [{ key: 'st', id: '$' }, { key: 'st:mk', id: '$' }], { BLOCK: 5000 });
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    out.push(await other.xAdd('st:mk', '1-0', { f: 'v' }), await reader);
    out.push(await c.xRead({ key: 'st', id: '6-0' }, { COUNT: 1 }));
    out.push(await c.xTrim('st', 'MINID', '3-0'), await c.xTrim('st', 'MAXLEN', 100, { strategyModifier: '~' }));
    out.push(await c.xGroupSetId('st', 'g', '0'), await c.xGroupDelConsumer('st', 'g', 'dave'));
    out.push(await c.xGroupDestroy('st', 'g'), await c.xInfoGroups('st'));
    out.push(await rejection(c.xAdd('st', '1-0', { f: 'v' })));
    out.push(await rejection(c.xReadGroup('nog', 'x', { key: 'st', id: '>' })));
    out.push(await rejection(c.xInfoStream('st:missing')));
    return out;
  });

  await check('lua-scripts', async () => {
    await c.scriptFlush();
    await c.configResetStat();
    const first = await c.addTwice('lua:k', 5);
    const second = await c.addTwice('lua:k', 1);
    const stats = {};
    for (const line of (await c.info('commandstats')).split('\r\n')) {
      const m = /^cmdstat_(eval|evalsha):calls=(\d+),.*rejected_calls=(\d+),failed_calls=(\d+)/.exec(line);
      if (m) stats[m[1]] = [Number(m[2]), Number(m[3]), Number(m[4])];
    }
    return {
      first, second, eval: stats.eval, evalsha: stats.evalsha,
      exists: await c.scriptExists(sha1(ADD_TWICE)),
      evaluated: await c.eval("return {KEYS[1], ARGV[1], redis.call('GET', KEYS[1])}", { keys: ['lua:k'], arguments: ['a'] }),
      error: await rejection(c.eval("return redis.error_reply('MY error')")),
      noscript: await rejection(c.evalSha('ffffffffffffffffffffffffffffffffffffffff')),
    };
  });

  await check('info', async () => summarizeInfo(await c.info()));

  await check('name-and-database', async () => {
    const named = await connect({ name: 'app-two', database: 5 });
    await named.set('in5', 'v');
    const line = (await other.clientList()).find((client) => client.name === 'app-two');
    const moved = await other.sendCommand(['SELECT', '5']).then(() => other.get('in5'));
    await other.sendCommand(['SELECT', '0']);
    return { name: await named.clientGetName(), db: line.db, moved, info: (await named.clientInfo()).name };
  });

  await check('reconnect-after-kill', async () => {
    const victim = await connect({ name: 'victim', database: 2 });
    await victim.set('k', 'before');
    const id = await victim.clientId();
    const reconnecting = once(victim, 'reconnecting');
    const ready = once(victim, 'ready');
    const killed = await other.clientKill({ filter: 'ID', id });
    await reconnecting;
    const queued = victim.get('k'); // offline queue, sent once reconnected
    await ready;
    return {
      killed, value: await queued, name: await victim.clientGetName(),
      newConnection: (await victim.clientId()) !== id,
    };
  });

  await check('errors', async () => {
    await c.set('str', 'abc');
    await c.rPush('alist', 'x');
    const out = [
      await rejection(c.incr('str')),
      await rejection(c.get('alist')),
      await rejection(c.sendCommand(['NOSUCHCMD', 'a'])),
      await rejection(c.sendCommand(['GET'])),
      await rejection(c.sendCommand(['SET', 'k', 'v', 'XX', 'NX'])),
      await rejection(c.zAdd('zerr', { score: NaN, value: 'm' })),
      await rejection(c.sendCommand(['SELECT', '99'])),
      await rejection(c.configSet('nosuchparam', '1')),
    ];
    out.push(await c.incr('str').catch((e) => e instanceof require('redis').ErrorReply));
    return out;
  });

  for (const client of clients) await client.disconnect().catch(() => {});
  done();
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
