"""Every maxmemory-policy against a running goblin-core (port in argv[1]):
fill, put maxmemory at the used memory, write more, and check that the keys
evicted follow the policy's order within sampling error. Prints "ok" or
raises. Run by test_eviction.sh with Debian's python3-redis."""
import sys
import time

import redis

r = redis.Redis(port=int(sys.argv[1]), decode_responses=True)
VALUE = "v" * 100
N = 4000  # keys of the first fill: the dict never crosses a doubling below 8192


def info(field, section):
    return int(r.info(section)[field])


def fill(prefix, count, ttl=None, ttl_of=None):
    p = r.pipeline(transaction=False)
    for i in range(count):
        key = f"{prefix}:{i}"
        if ttl_of:
            p.set(key, VALUE, ex=ttl_of(i))
        elif ttl:
            p.set(key, VALUE, ex=ttl)
        else:
            p.set(key, VALUE)
        if i % 200 == 199:
            p.execute()
    p.execute()


def touch(keys, times=1):
    p = r.pipeline(transaction=False)
    for _ in range(times):
        for k in keys:
            p.get(k)
    p.execute()


def present(keys):
    p = r.pipeline(transaction=False)
    for k in keys:
        p.exists(k)
    return [k for k, e in zip(keys, p.execute()) if e]


def limit_here():
    """maxmemory at the memory in use now (plus a little slack for the
    client's buffers): every further write evicts about one key."""
    used = info("used_memory", "memory")
    r.config_set("maxmemory", used + 16 * 1024)


def reset(policy):
    r.config_set("maxmemory", 0)
    r.flushall()
    r.config_set("maxmemory-policy", policy)
    r.config_resetstat()


def write_past_limit(count):
    before = info("evicted_keys", "stats")
    fill("new", count)
    evicted = info("evicted_keys", "stats") - before
    assert evicted > count // 4, f"{evicted} evicted for {count} writes past the limit"
    used, maxmemory = info("used_memory", "memory"), info("maxmemory", "memory")
    # Eviction runs before a command: the last write (and this INFO's own
    # buffers) may stand over the limit by a key or so, never more.
    assert used <= maxmemory + 16 * 1024, f"used_memory {used} > maxmemory {maxmemory}"
    return evicted


def keys_of(prefix, count):
    return [f"{prefix}:{i}" for i in range(count)]


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


# allkeys-lru: keys read after the others went idle survive.
reset("allkeys-lru")
fill("a", N)
time.sleep(2.2)  # the LRU clock has a one-second resolution
hot, cold = keys_of("a", N)[: N // 2], keys_of("a", N)[N // 2:]
touch(hot)
limit_here()
evicted = write_past_limit(N // 4)
lost_hot = N // 2 - len(present(hot))
lost_cold = N // 2 - len(present(cold))
check(lost_hot <= evicted // 20, f"allkeys-lru: {lost_hot} recently read keys evicted, "
      f"{lost_cold} idle ones ({evicted} evictions)")

# allkeys-lfu: keys read often survive; counters are exact with factor 0.
reset("allkeys-lfu")
r.config_set("lfu-log-factor", 0)
r.config_set("lfu-decay-time", 0)  # no decay if a minute ends meanwhile
fill("a", N)
touch(hot, times=5)
check(r.object("freq", hot[0]) == 10, "allkeys-lfu: five reads of a new key")
limit_here()
evicted = write_past_limit(N // 4)
lost_hot = N // 2 - len(present(hot))
check(lost_hot <= evicted // 20, f"allkeys-lfu: {lost_hot} frequently read keys evicted "
      f"({evicted} evictions)")
r.config_set("lfu-log-factor", 10)
r.config_set("lfu-decay-time", 1)

# allkeys-random: both halves lose keys, in proportion.
reset("allkeys-random")
fill("a", N)
touch(hot)
limit_here()
evicted = write_past_limit(N // 4)
lost_hot = N // 2 - len(present(hot))
lost_cold = N // 2 - len(present(cold))
check(lost_hot > evicted // 10 and lost_cold > evicted // 10,
      f"allkeys-random: {lost_hot} / {lost_cold} evicted from each half")

# volatile-*: keys without a TTL are never evicted; once no volatile key is
# left, writes get the OOM error.
for policy in ("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"):
    reset(policy)
    fill("p", N // 2)
    fill("t", N // 4, ttl=100000)
    limit_here()
    evicted = write_past_limit(N // 8)
    check(len(present(keys_of("p", N // 2))) == N // 2,
          f"{policy}: a key without a TTL was evicted")
    check(len(present(keys_of("t", N // 4))) < N // 4, f"{policy}: no volatile key evicted")
    try:
        fill("more", N // 2)
        raise AssertionError(f"{policy}: writes succeeded with no volatile key left")
    except redis.exceptions.ResponseError as e:
        check("OOM command not allowed when used memory" in str(e), f"{policy}: {e}")
    check(len(present(keys_of("p", N // 2))) == N // 2,
          f"{policy}: a key without a TTL was evicted at the end")
    check(r.get("p:0") == VALUE, f"{policy}: reads fail under OOM")
    check(r.delete("p:0") == 1, f"{policy}: deletes fail under OOM")

# volatile-ttl: the shortest TTLs go first.
reset("volatile-ttl")
r.config_set("maxmemory-samples", 10)
fill("t", N, ttl_of=lambda i: 10000 + 10 * i)  # t:0 expires first
limit_here()
evicted = write_past_limit(N // 4)
alive = set(present(keys_of("t", N)))
gone = [i for i, k in enumerate(keys_of("t", N)) if k not in alive]
early = sum(1 for i in gone if i < N // 2)
check(early >= 0.9 * len(gone), f"volatile-ttl: {early} of {len(gone)} evicted keys "
      f"were in the shorter-TTL half")
r.config_set("maxmemory-samples", 5)

# volatile-lru orders by idle time among volatile keys.
reset("volatile-lru")
fill("t", N // 2, ttl=100000)
fill("p", N // 2)
time.sleep(2.2)
vhot, vcold = keys_of("t", N // 2)[: N // 4], keys_of("t", N // 2)[N // 4:]
touch(vhot)
limit_here()
evicted = write_past_limit(N // 8)
lost_hot = N // 4 - len(present(vhot))
check(lost_hot <= evicted // 20, f"volatile-lru: {lost_hot} recently read volatile keys evicted")

# An evicted key is a modified key for WATCH.
reset("volatile-ttl")
fill("p", N // 2)
r.set("watched", VALUE, ex=1000)  # the only key that may go
limit_here()
w = r.pipeline(transaction=True)
w.watch("watched")
try:
    fill("new", 200)
except redis.exceptions.ResponseError as e:  # nothing left to evict
    check("OOM command not allowed" in str(e), str(e))
check(r.exists("watched") == 0, "WATCH: the only volatile key was not evicted")
r.config_set("maxmemory", 0)  # so SET is queued, not refused
w.multi()
w.set("watched", "again")
try:
    w.execute()
    raise AssertionError("WATCH: EXEC ran although the watched key was evicted")
except redis.exceptions.WatchError:
    pass

# noeviction: writes refused, reads and deletes run, nothing evicted.
reset("noeviction")
fill("a", N // 4)
r.config_set("maxmemory", 1)
try:
    r.set("x", "y")
    raise AssertionError("noeviction: SET accepted over maxmemory")
except redis.exceptions.ResponseError as e:
    check(str(e) == "OOM command not allowed when used memory > 'maxmemory'.", str(e))
check(r.get("a:0") == VALUE and r.delete("a:0") == 1, "noeviction: read or delete refused")
check(info("evicted_keys", "stats") == 0, "noeviction evicted keys")
r.config_set("maxmemory", 0)

# OBJECT IDLETIME follows the LRU clock.
reset("allkeys-lru")
r.set("idle", "x")
time.sleep(2.2)
check(r.object("idletime", "idle") >= 1, "OBJECT IDLETIME did not grow")
r.get("idle")
check(r.object("idletime", "idle") <= 1, "a read did not reset OBJECT IDLETIME")
# RSS stays within maxmemory: 100 MB written through a 16 MB limit.
reset("allkeys-random")
rss_before = info("used_memory_rss", "memory")
r.config_set("maxmemory", 16 * 1024 * 1024)
big = "x" * 1000
p = r.pipeline(transaction=False)
for i in range(100000):
    p.set(f"big:{i}", big)
    if i % 1000 == 999:
        p.execute()
check(info("used_memory", "memory") <= 16 * 1024 * 1024 + 64 * 1024, "used_memory over 16 MB")
rss_after = info("used_memory_rss", "memory")
check(rss_after - rss_before < 40 * 1024 * 1024,
      f"RSS grew from {rss_before} to {rss_after} under maxmemory 16mb")
r.config_set("maxmemory", 0)
print("ok")
