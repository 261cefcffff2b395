'use strict';
// BullMQ 5 (a job queue built on Lua scripts, sorted sets, lists and a
// stream of events per queue) against the server on $PORT, as an
// application runs it: jobs that succeed and fail, retries with backoff,
// delayed and prioritised jobs, a flow (parent waiting for its children),
// QueueEvents read from the events stream (XREAD BLOCK), pause/resume and
// clean. Prints a transcript (lib.js) that test_node_clients.sh compares
// between goblin-core and redis-server.

const { Queue, Worker, QueueEvents, FlowProducer } = require('bullmq');
const { assert, PORT, HOST, check, until, done } = require('./lib');

const connection = { host: HOST, port: PORT };

async function main() {
  const queue = new Queue('goblin', { connection });
  const events = new QueueEvents('goblin', { connection });
  await events.waitUntilReady();
  await queue.obliterate({ force: true });
  const seen = { completed: [], failed: [] };
  events.on('completed', ({ jobId, returnvalue }) => seen.completed.push([jobId, returnvalue]));
  events.on('failed', ({ jobId, failedReason }) => seen.failed.push([jobId, failedReason]));
  const attempts = {};
  const worker = new Worker(
    'goblin',
    async (job) => {
      attempts[job.id] = (attempts[job.id] || 0) + 1;
      if (job.name === 'flaky' && job.attemptsMade < 2) throw new Error(`flaky ${job.attemptsMade}`);
      if (job.name === 'bad') throw new Error('bad job');
      if (job.name === 'parent') {
        const children = await job.getChildrenValues();
        return Object.values(children).sort();
      }
      return job.data.n * 2;
    },
    { connection, concurrency: 4 },
  );

  await check('jobs', async () => {
    const ids = [];
    for (let n = 0; n < 20; n++) ids.push((await queue.add('double', { n }, { jobId: `d${n}` })).id);
    await queue.add('bad', { n: -1 }, { jobId: 'bad1' });
    await queue.add('flaky', { n: 7 }, { jobId: 'flaky1', attempts: 3, backoff: { type: 'fixed', delay: 50 } });
    await queue.add('double', { n: 100 }, { jobId: 'late', delay: 200 });
    await queue.add('double', { n: 200 }, { jobId: 'prio', priority: 3 });
    await until(async () => (await queue.getJobCounts('completed')).completed === 23);
    await until(async () => seen.completed.length === 23 && seen.failed.length === 1);
    const counts = await queue.getJobCounts();
    const results = {};
    for (const id of ids.concat(['flaky1', 'late', 'prio'])) results[id] = (await queue.getJob(id)).returnvalue;
    const bad = await queue.getJob('bad1');
    return {
      counts,
      results,
      bad: [bad.failedReason, bad.attemptsMade, await bad.getState()],
      flakyAttempts: attempts.flaky1,
      events: [seen.completed.map(([id]) => id).sort(), seen.failed],
    };
  });

  await check('flow', async () => {
    const flow = new FlowProducer({ connection });
    const tree = await flow.add({
      name: 'parent',
      queueName: 'goblin',
      data: { n: 0 },
      opts: { jobId: 'parent1' },
      children: [1, 2, 3].map((n) => ({ name: 'double', queueName: 'goblin', data: { n }, opts: { jobId: `c${n}` } })),
    });
    assert.equal(tree.job.id, 'parent1');
    await until(async () => (await queue.getJob('parent1')).returnvalue !== null);
    const parent = await queue.getJob('parent1');
    await flow.close();
    return [parent.returnvalue, await parent.getState(), await parent.getDependenciesCount()];
  });

  await check('pause, clean, events stream', async () => {
    await queue.pause();
    await queue.add('double', { n: 5 }, { jobId: 'paused1' });
    const paused = [await queue.isPaused(), (await queue.getJobCounts('paused', 'wait')), await (await queue.getJob('paused1')).getState()];
    await queue.resume();
    await until(async () => (await (await queue.getJob('paused1')).getState()) === 'completed');
    const cleaned = await queue.clean(0, 100, 'completed');
    const client = await queue.client;
    const stream = await client.xlen(`bull:goblin:events`);
    assert.ok(stream > 0, 'the events stream has entries');
    return { paused, cleaned: cleaned.length, counts: await queue.getJobCounts() };
  });

  await worker.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  done();
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
