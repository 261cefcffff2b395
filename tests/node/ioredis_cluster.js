'use strict';
// ioredis Cluster against a three-master cluster whose first node listens
// on $PORT (test_node_clients.sh forms one of goblin-core nodes and one of
// redis-server nodes with redis-cli --cluster create). Prints a transcript
// (lib.js); node addresses are replaced by their index in $CLUSTER_PORTS.

const Redis = require('ioredis');
const {
  assert, PORT, HOST, check, rejection, until, done,
} = require('./lib');

const PORTS = process.env.CLUSTER_PORTS.split(',').map(Number);
const byAddress = (text) => text.replace(/127\.0\.0\.1:(\d+)/g, (_, port) => `node${PORTS.indexOf(Number(port)) + 1}`);

async function main() {
  const cluster = new Redis.Cluster([{ host: HOST, port: PORT }], { enableAutoPipelining: true });
  cluster.on('error', () => {});
  const direct = new Redis({ host: HOST, port: PORTS[0] });
  const others = [];

  await check('cluster-connect', async () => {
    await new Promise((resolve) => (cluster.status === 'ready' ? resolve() : cluster.once('ready', resolve)));
    const masters = cluster.nodes('master');
    await Promise.all(masters.map((node) => node.flushall()));
    return { masters: masters.length, ping: await cluster.ping() };
  });

  await check('cluster-keys', async () => {
    const writes = [];
    for (let i = 0; i < 2000; i++) writes.push(cluster.set(`ck:${i}`, String(i)));
    assert.ok((await Promise.all(writes)).every((x) => x === 'OK'));
    const reads = [];
    for (let i = 0; i < 2000; i++) reads.push(cluster.get(`ck:${i}`));
    (await Promise.all(reads)).forEach((value, i) => assert.equal(value, String(i)));
    const sizes = await Promise.all(cluster.nodes('master').map((node) => node.dbsize()));
    assert.equal(sizes.reduce((a, b) => a + b, 0), 2000);
    assert.ok(sizes.every((n) => n > 0), `every master holds keys: ${sizes}`);
    const counts = await Promise.all(cluster.nodes('master').map((node) => new Promise((resolve, reject) => {
      let n = 0;
      const stream = node.scanStream({ match: 'ck:*', count: 200 });
      stream.on('data', (keys) => { n += keys.length; });
      stream.on('end', () => resolve(n));
      stream.on('error', reject);
    })));
    return { sizes: sizes.sort(), scanned: counts.reduce((a, b) => a + b, 0) };
  });

  await check('cluster-same-slot', async () => {
    const pipe = await cluster.pipeline().set('{u1}:a', '1').incr('{u1}:b').mget('{u1}:a', '{u1}:b').exec();
    const multi = await cluster.multi().incr('{u1}:b').get('{u1}:a').exec();
    const evaluated = await cluster.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", 1, '{u1}:b', 10);
    return {
      pipe, multi, evaluated, slot: await cluster.cluster('KEYSLOT', '{u1}:a'),
      crossSlot: await rejection(cluster.call('MGET', 'ck:1', 'ck:2')),
    };
  });

  await check('cluster-redirections', async () => {
    const moved = [];
    for (const key of ['ck:1', 'ck:2', 'ck:3', 'ck:4', 'foo', 'bar']) {
      moved.push(byAddress(String(await direct.get(key).catch((e) => `${e.constructor.name}: ${e.message}`))));
    }
    const slots = (await direct.cluster('SLOTS')).map(([from, to, [host, port]]) => [from, to, byAddress(`${host}:${port}`)]);
    return { moved, slots: slots.sort((a, b) => a[0] - b[0]) };
  });

  await check('cluster-pubsub', async () => {
    const sub = cluster.duplicate();
    others.push(sub);
    sub.on('error', () => {});
    const got = [];
    sub.on('message', (channel, message) => got.push([channel, message]));
    await sub.subscribe('cluster-news');
    // PUBLISH on every node: the cluster bus carries it to the subscriber's.
    const receivers = [];
    for (const node of cluster.nodes('master')) receivers.push(await node.publish('cluster-news', 'hi'));
    await until(() => got.length === 3);
    return { got };
  });

  direct.disconnect();
  for (const client of others) client.disconnect();
  cluster.disconnect();
  done();
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
