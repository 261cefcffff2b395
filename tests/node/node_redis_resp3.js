'use strict';
// node-redis v5 with RESP: 3 (HELLO 3 on connect) against the server on
// $PORT: RESP3 reply types as the client maps them, push messages, and the
// client-side cache (CLIENT TRACKING with invalidation pushes). Prints a
// transcript (lib.js) that test_node_clients.sh compares between
// goblin-core and redis-server.

const { createClient } = require('redis5');
const {
  assert, PORT, HOST, check, rejection, until, sha1, summarizeInfo, done, withoutTimes,
} = require('./lib');

const clients = [];
async function connect(options = {}) {
  const client = createClient({
    RESP: 3,
    socket: { host: HOST, port: PORT, reconnectStrategy: () => 50 },
    ...options,
  });
  client.on('error', () => {});
  clients.push(client);
  await client.connect();
  return client;
}

async function main() {
  const c = await connect();
  const other = await connect({ RESP: 2 });

  await check('hello3', async () => {
    await c.flushAll();
    const hello = await c.hello();
    assert.equal(hello.proto, 3);
    delete hello.id;
    return { hello, ping: await c.ping() };
  });

  await check('resp3-types', async () => {
    const out = [];
    out.push(await c.hSet('h', { a: '1', b: '2' }), await c.hGetAll('h'));
    out.push(await c.zAdd('z', [{ score: 1.5, value: 'x' }, { score: -2, value: 'y' }]));
    out.push(await c.zRangeWithScores('z', 0, -1), await c.zScore('z', 'x'), await c.zIncrBy('z', 1, 'y'));
    out.push(await c.sAdd('s', ['p', 'q']), (await c.sMembers('s')).sort(), await c.get('nokey'));
    out.push(await c.incrByFloat('f', 1.25), await c.configGet('maxmemory-policy'));
    out.push(await c.sendCommand(['HRANDFIELD', 'h', '-5', 'WITHVALUES']).then((r) => r.length));
    out.push(await c.sendCommand(['ZRANDMEMBER', 'z', '1', 'WITHSCORES']).then((r) => r.length));
    out.push(await c.sendCommand(['ZPOPMIN', 'z']), await c.sendCommand(['LPOS', 'nolist', 'a']));
    return out;
  });

  await check('resp3-multi', async () => {
    const exec = await c.multi().set('m', '1').incr('m').hGetAll('h').zScore('z', 'x').exec();
    const error = await rejection(c.incr('h'));
    return { exec, error };
  });

  await check('resp3-pubsub', async () => {
    const sub = c.duplicate();
    sub.on('error', () => {});
    clients.push(sub);
    await sub.connect();
    const got = [];
    await sub.subscribe('ch', (message, channel) => got.push([channel, message]));
    await sub.pSubscribe('p.*', (message, channel) => got.push([channel, message]));
    const receivers = [await other.publish('ch', 'one'), await other.publish('p.x', 'two')];
    await until(() => got.length === 2);
    const big = Buffer.alloc(1024 * 1024, 'b');
    let bigGot = null;
    await sub.subscribe('big', (message) => { bigGot = message; }, true);
    receivers.push(await other.publish('big', big));
    await until(() => bigGot !== null);
    // RESP3 lets a subscribed connection run ordinary commands.
    const ping = await sub.ping();
    // Channels named: node-redis waits forever on an UNSUBSCRIBE without
    // arguments here (with either server).
    await sub.unsubscribe(['ch', 'big']);
    await sub.pUnsubscribe('p.*');
    const after = await other.publish('ch', 'gone');
    return { receivers, got, big: sha1(bigGot) === sha1(big), ping, after };
  });

  await check('resp3-streams', async () => {
    // RESP3 maps from the stream family (XREAD/XREADGROUP keyed by stream,
    // XINFO as maps) as node-redis 5 turns them into values. Its XREAD and
    // XREADGROUP want unstableResp3 for RESP3 (the raw map then).
    const s3 = await connect({ unstableResp3: true });
    const out = [await c.xGroupCreate('rs', 'g', '$', { MKSTREAM: true })];
    for (let i = 1; i <= 3; i++) out.push(await c.xAdd('rs', `${i}-0`, { job: `j${i}` }));
    out.push(await s3.xRead([{ key: 'rs', id: '0' }, { key: 'rs:none', id: '0' }], { COUNT: 2 }));
    out.push(await s3.xReadGroup('g', 'a', { key: 'rs', id: '>' }, { COUNT: 2 }));
    const blocked = s3.duplicate();
    blocked.on('error', () => {});
    clients.push(blocked);
    await blocked.connect();
    out.push(await blocked.xReadGroup('g', 'b', { key: 'rs', id: '>' }));
    const pending = blocked.xReadGroup('g', 'b', { key: 'rs', id: '>' }, { BLOCK: 5000 });
    await until(async () => (await other.info('clients')).includes('blocked_clients:1'));
    out.push(await other.xAdd('rs', '4-0', { job: 'j4' }), await pending);
    out.push(await blocked.xRead({ key: 'rs', id: '$' }, { BLOCK: 50 }));
    out.push(await c.xPending('rs', 'g'), await c.xAutoClaim('rs', 'g', 'c', 0, '0-0', { COUNT: 1 }));
    out.push(await c.xInfoStream('rs'), await c.xInfoGroups('rs'), withoutTimes(await c.xInfoConsumers('rs', 'g')));
    const full = withoutTimes(await c.sendCommand(['XINFO', 'STREAM', 'rs', 'FULL']));
    for (const g of full.groups) { // delivery times: [id, consumer, T, n], [id, T, n]
      for (const e of g.pending) e[2] = 'T';
      for (const consumer of g.consumers) for (const e of consumer.pending) e[1] = 'T';
    }
    out.push(full);
    out.push(await rejection(c.xAdd('rs', '1-0', { f: 'v' })));
    return out;
  });

  await check('client-side-cache', async () => {
    const cached = await connect({ clientSideCache: { ttl: 0, maxEntries: 0 } });
    await other.set('csc', 'v1');
    const reads = [await cached.get('csc'), await cached.get('csc')];
    const afterTwo = cached.clientSideCache.stats();
    await other.set('csc', 'v2');
    await until(async () => (await cached.get('csc')) === 'v2');
    const tracking = await cached.sendCommand(['CLIENT', 'TRACKINGINFO']);
    return {
      reads, hits: afterTwo.hitCount, misses: afterTwo.missCount,
      final: await cached.get('csc'), tracking,
    };
  });

  await check('resp3-info', async () => summarizeInfo(await c.info()));

  for (const client of clients) client.destroy();
  done();
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
