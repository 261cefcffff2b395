'use strict';
// Shared by the client scripts in this folder (run by
// tests/integration/test_node_clients.sh, once against goblin-core and once
// against redis-server, whose transcripts must be identical).
//
// check(name, fn) runs one case and prints "name<TAB>JSON of its result" on
// stdout: the transcript. A case returns only what is deterministic for a
// given server (no ids, timings or addresses) and asserts what must hold
// whatever the server (node:assert). A failed assertion, an unexpected
// exception or a case that takes over CASE_TIMEOUT_MS counts as a failure:
// the script then exits 1 after printing all cases.

const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const PORT = Number(process.env.PORT);
const HOST = '127.0.0.1';
const CASE_TIMEOUT_MS = 15000;
let failures = 0;
let cases = 0;

function errorText(err) {
  return `${err.constructor.name}: ${err.message}`;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Buffers and Maps/Sets (RESP3 replies) as JSON-comparable values.
function replacer(key, value) {
  if (value && value.type === 'Buffer' && Array.isArray(value.data)) {
    return { buffer: Buffer.from(value.data).toString('hex') };
  }
  if (value instanceof Map) return { map: [...value.entries()] };
  if (value instanceof Set) return { set: [...value.values()] };
  if (typeof value === 'bigint') return { bigint: value.toString() };
  return value;
}

async function check(name, fn) {
  cases++;
  let line;
  try {
    const value = await withTimeout(Promise.resolve().then(fn), CASE_TIMEOUT_MS, name);
    line = JSON.stringify(value === undefined ? null : value, replacer);
  } catch (err) {
    failures++;
    line = `FAILED ${err instanceof assert.AssertionError ? err.message : errorText(err)}`;
    process.stderr.write(`${name}: ${line}\n${err.stack}\n`);
  }
  process.stdout.write(`${name}\t${line}\n`);
}

// The error a promise rejects with, as "Class: message"; fails the case when
// the promise resolves instead.
async function rejection(promise) {
  try {
    const value = await promise;
    assert.fail(`expected an error reply, got ${JSON.stringify(value, replacer)}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return errorText(err);
  }
}

// Resolves with the first emission of event on emitter (optionally the
// first for which accept(...args) is true).
function once(emitter, event, accept = () => true) {
  return new Promise((resolve) => {
    const listener = (...args) => {
      if (!accept(...args)) return;
      emitter.removeListener(event, listener);
      resolve(args);
    };
    emitter.on(event, listener);
  });
}

// Polls cond() every 20 ms until it is true (or the case times out).
async function until(cond) {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 20));
}

function sha1(data) {
  return crypto.createHash('sha1').update(data).digest('hex');
}

// INFO text as { section: { field: value } }, the way applications parse it.
function parseInfo(text) {
  const sections = {};
  let current = null;
  for (const raw of text.split('\r\n')) {
    if (raw === '') continue;
    if (raw.startsWith('# ')) {
      current = raw.slice(2).toLowerCase();
      sections[current] = {};
      continue;
    }
    const colon = raw.indexOf(':');
    assert.ok(current !== null && colon > 0, `INFO line outside a section or without ':': ${raw}`);
    sections[current][raw.slice(0, colon)] = raw.slice(colon + 1);
  }
  return sections;
}

// The INFO fields applications and client libraries read, each reduced to
// its kind (values differ between servers and runs; keyspace counts do not).
const INFO_FIELDS = {
  server: ['redis_version', 'redis_mode', 'os', 'arch_bits', 'process_id', 'run_id', 'tcp_port',
    'uptime_in_seconds'],
  clients: ['connected_clients', 'blocked_clients', 'maxclients'],
  memory: ['used_memory', 'used_memory_human', 'used_memory_peak', 'used_memory_rss', 'maxmemory',
    'maxmemory_policy', 'mem_fragmentation_ratio'],
  persistence: ['loading', 'rdb_changes_since_last_save', 'rdb_bgsave_in_progress', 'aof_enabled'],
  stats: ['total_connections_received', 'total_commands_processed', 'instantaneous_ops_per_sec',
    'keyspace_hits', 'keyspace_misses', 'expired_keys', 'evicted_keys', 'pubsub_channels',
    'pubsub_patterns'],
  replication: ['role', 'connected_slaves', 'master_replid', 'master_repl_offset'],
  cluster: ['cluster_enabled'],
};

function kindOf(value) {
  if (value === undefined) return 'missing';
  if (/^-?\d+$/.test(value)) return 'integer';
  if (/^-?\d+\.\d+$/.test(value)) return 'float';
  return 'string';
}

function summarizeInfo(text) {
  const info = parseInfo(text);
  const out = { sections: Object.keys(info) };
  for (const [section, fields] of Object.entries(INFO_FIELDS)) {
    for (const field of fields) out[field] = kindOf((info[section] || {})[field]);
  }
  out.role = (info.replication || {}).role;
  out.redis_mode = (info.server || {}).redis_mode;
  out.keyspace = {};
  for (const [db, value] of Object.entries(info.keyspace || {})) {
    out.keyspace[db] = value.replace(/,avg_ttl=\d+/, '');
  }
  return out;
}

// Stream replies with their clock readings (idle times, seen and
// delivery times) replaced by 'T': the rest of a reply is the same on both
// servers. Keys are matched in flat RESP2 arrays ([..., 'idle', 5, ...]),
// objects and Maps, recursively.
const TIME_FIELDS = new Set(['idle', 'inactive', 'seen-time', 'active-time', 'seenTime',
  'millisecondsSinceLastDelivery']);
function withoutTimes(value) {
  const timeKey = (k) => (typeof k === 'string' || Buffer.isBuffer(k)) && TIME_FIELDS.has(String(k));
  if (Array.isArray(value)) return value.map((v, i) => (i > 0 && timeKey(value[i - 1]) ? 'T' : withoutTimes(v)));
  if (value instanceof Map) {
    return new Map([...value.entries()].map(([k, v]) => [k, timeKey(k) ? 'T' : withoutTimes(v)]));
  }
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = timeKey(k) ? 'T' : withoutTimes(v);
    return out;
  }
  return value;
}

// An entry ID a server generated ("<ms>-<seq>" from XADD *), checked and
// replaced by 'ID' (its value is the clock's).
function generatedId(id) {
  assert.match(String(id), /^\d{13}-\d+$/);
  return 'ID';
}

function done() {
  process.stderr.write(`${cases - failures} passed, ${failures} failed\n`);
  process.exit(failures === 0 ? 0 : 1);
}

module.exports = {
  assert, PORT, HOST, check, rejection, once, until, sha1, parseInfo, summarizeInfo, done,
  errorText, withoutTimes, generatedId,
};
