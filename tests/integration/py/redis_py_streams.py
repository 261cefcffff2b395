"""redis-py's stream API and a stream job queue against 127.0.0.1:PORT.

Run by test_redis_py.sh with Debian's python3-redis, once against
goblin-core and once against redis-server 7.0: it prints a transcript (one
line per step: what redis-py returned, clock readings replaced by "T" and
generated IDs by "ID") that must be the same for both, and asserts what
must hold whatever the server.

The job queue is shaped like the Python workers that keep their queues in
streams: jobs enqueued by a Lua script (XADD beside the job's hash) and by
pipeline(transaction=True), workers in one consumer group reading with
XREADGROUP BLOCK and storing each result with XADD, HSET and XACK inside
MULTI/EXEC, a worker that dies holding a job, and a reaper that finds it
with XPENDING and takes it over with XAUTOCLAIM.
"""
import re
import sys
import threading
import time

import redis

port = int(sys.argv[1])


def connect():
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True)


r = connect()
r.flushall()
TIME_KEYS = {"idle", "seen-time", "time_since_delivered"}


def untimed(v):
    """v with the clock readings redis-py returns replaced by "T"."""
    if isinstance(v, dict):
        return {k: "T" if k in TIME_KEYS else untimed(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [("T" if i and str(v[i - 1]) in TIME_KEYS else untimed(x)) for i, x in enumerate(v)]
    return v


def full_untimed(info):
    """XINFO STREAM FULL as redis-py parses it, clock readings as "T"."""
    info = untimed(info)
    for g in info["groups"]:
        for e in g["pending"]:  # [id, consumer, delivery time, deliveries]
            e[2] = "T"
        for c in g["consumers"]:  # flat [name, n, seen-time, T, pel-count, n, pending, [...]]
            for e in c[c.index("pending") + 1]:  # [id, delivery time, deliveries]
                e[1] = "T"
    return info


def generated(id_):
    assert re.fullmatch(r"\d{13}-\d+", id_), id_
    return "ID"


def show(step, value):
    print(f"{step}\t{value!r}")


def wait_blocked(n):
    for _ in range(2000):
        if r.info("clients")["blocked_clients"] == n:
            return
        time.sleep(0.005)
    raise AssertionError(f"never {n} blocked clients")


# --- the typed API -------------------------------------------------------
show("xadd-auto", generated(r.xadd("auto", {"f": "v"})))
show("xadd", [r.xadd("s", {"task": f"t{i}", "n": i}, id=f"{i}-0") for i in range(1, 7)])
show("xadd-trim", r.xadd("s", {"task": "t7"}, id="7-*", maxlen=1000, approximate=True))
show("xadd-nomkstream", r.xadd("none", {"f": "v"}, nomkstream=True))
show("xrange", [r.xrange("s", count=2), r.xrevrange("s", "+", "(5-0"), r.xlen("s")])
show("xdel", [r.xdel("s", "2-0", "99-0"), r.xlen("s")])
show("xgroup", [r.xgroup_create("s", "g", id="0"), r.xgroup_create("mk", "g", mkstream=True),
                r.xgroup_createconsumer("s", "g", "spare")])
show("xreadgroup", [r.xreadgroup("g", "alice", {"s": ">"}, count=2),
                    r.xreadgroup("g", "bob", {"s": ">"}, count=2),
                    r.xreadgroup("g", "alice", {"s": "0"})])
show("xpending", [r.xpending("s", "g"), untimed(r.xpending_range("s", "g", "-", "+", 10)),
                  untimed(r.xpending_range("s", "g", "-", "+", 10, consumername="bob"))])
show("xack-xclaim", [r.xack("s", "g", "1-0", "42-0"), r.xclaim("s", "g", "carol", 0, ["3-0"]),
                     r.xclaim("s", "g", "carol", 0, ["4-0"], justid=True)])
show("xautoclaim", [r.xdel("s", "4-0"), r.xautoclaim("s", "g", "dave", 0, "0-0", count=5),
                    r.xautoclaim("s", "g", "dave", 0, "0-0", justid=True)])
show("xinfo", [r.xinfo_stream("s"), r.xinfo_groups("s"), untimed(r.xinfo_consumers("s", "g"))])
show("xinfo-full", full_untimed(r.xinfo_stream("s", full=True)))
show("xread", [r.xread({"s": "5-0", "mk": "0"}, count=1), r.xread({"s": "$"}, block=20)])
show("xtrim", [r.xtrim("s", minid="3-0", approximate=False), r.xtrim("s", maxlen=100)])
show("xgroup-admin", [r.xgroup_setid("s", "g", "0"), r.xgroup_delconsumer("s", "g", "dave"),
                      r.xgroup_destroy("s", "g"), r.xinfo_groups("s")])
for name, call in [("xadd-small-id", lambda: r.xadd("s", {"f": "v"}, id="1-0")),
                   ("nogroup", lambda: r.xreadgroup("nog", "c", {"s": ">"})),
                   ("wrongtype", lambda: r.set("str", "x") and r.xadd("str", {"f": "v"}))]:
    try:
        call()
        raise AssertionError(f"{name}: no error")
    except redis.ResponseError as e:
        show(name, str(e))

# --- a job queue ----------------------------------------------------------
JOBS = 40
r.xgroup_create("jobs", "workers", id="$", mkstream=True)
enqueue = r.register_script(
    "local id = redis.call('XADD', KEYS[1], ARGV[1], 'job', ARGV[2]) "
    "redis.call('HSET', KEYS[2], 'state', 'queued', 'entry', id) return id")
done = {}
done_lock = threading.Lock()
stop = threading.Event()


def worker(name, die_after=None):
    c = connect()
    taken = 0
    while not stop.is_set():
        got = c.xreadgroup("workers", name, {"jobs": ">"}, count=1, block=100)
        for _, entries in got:
            for entry_id, fields in entries:
                taken += 1
                if die_after is not None and taken > die_after:
                    return  # dies holding the job: it stays pending
                job = fields["job"]
                with c.pipeline(transaction=True) as p:
                    p.xadd("results", {"job": job, "out": str(int(job) * 2)})
                    p.hset(f"job:{job}", "state", "done")
                    p.xack("jobs", "workers", entry_id)
                    res = p.execute()
                assert generated(res[0]) and res[2] == 1, res
                with done_lock:
                    done[job] = name


# The worker that dies blocks first, so it is served the first job.
threads = [threading.Thread(target=worker, args=("doomed", 0))]
threads[0].start()
wait_blocked(1)
threads += [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(3)]
for t in threads[1:]:
    t.start()
wait_blocked(4)
for i in range(JOBS):
    if i % 2:
        enqueue(keys=["jobs", f"job:{i}"], args=["*", str(i)])
    else:
        with r.pipeline(transaction=True) as p:
            p.xadd("jobs", {"job": str(i)}, maxlen=10000, approximate=True)
            p.hset(f"job:{i}", "state", "queued")
            assert generated(p.execute()[0])
threads[0].join()
for _ in range(2000):
    if len(done) == JOBS - 1:
        break
    time.sleep(0.005)
stop.set()
for t in threads[1:]:
    t.join()
summary = r.xpending("jobs", "workers")
show("stuck", [summary["pending"], summary["consumers"]])
stuck = r.xpending_range("jobs", "workers", "-", "+", 10)
assert len(stuck) == 1 and stuck[0]["consumer"] == "doomed", stuck
cursor, claimed, deleted = r.xautoclaim("jobs", "workers", "reaper", 0, "0-0", count=10)
show("reclaimed", [cursor, [f for _, f in claimed], deleted])
for entry_id, fields in claimed:
    with r.pipeline(transaction=True) as p:
        p.xadd("results", {"job": fields["job"], "out": str(int(fields["job"]) * 2)})
        p.hset(f"job:{fields['job']}", "state", "done")
        p.xack("jobs", "workers", entry_id)
        p.execute()
results = sorted((f["job"], f["out"]) for _, f in r.xrange("results"))
show("results", results)
assert results == sorted((str(i), str(2 * i)) for i in range(JOBS)), results
show("states", sorted({r.hget(f"job:{i}", "state") for i in range(JOBS)}))
groups = r.xinfo_groups("jobs")
show("group", [(g["name"], g["pending"], g["entries-read"], g["lag"]) for g in groups])
show("consumers", sorted((c["name"], c["pending"]) for c in r.xinfo_consumers("jobs", "workers")))
show("lengths", [r.xlen("jobs"), r.xlen("results")])
