#!/usr/bin/python3
"""Redis Cluster replicas, driven by test_cluster_replicas.sh (docs/scale-out.md).

    cluster_replicas.py DIR goblin   six goblin-core nodes
    cluster_replicas.py DIR redis    six redis-server nodes (the reference shapes)
    cluster_replicas.py DIR mixed    three of each

Every run: `redis-cli --cluster create ... --cluster-replicas 1`, `--cluster
check` OK, every replica synced, writes read back on the replicas after
READONLY (MOVED without it, and for writes), CLUSTER REPLICAS/SLAVES, then
kill -9 of a master under a WAIT-acknowledged write load: its replica takes
over, no slot stays uncovered, no acknowledged write is lost, and the old
master, restarted, becomes a replica of the new one.

goblin: also CLUSTER FAILOVER (default, FORCE, TAKEOVER) swapping roles.
mixed: replicas rearranged so a redis-server replica follows a goblin-core
master and a goblin-core replica a redis-server master; every reply of the
CLUSTER REPLICATE/REPLICAS/SLAVES/FAILOVER refusals compared byte for byte
between a goblin-core and a redis-server node; CLUSTER NODES, SLOTS and SHARDS
of one goblin-core and one redis-server node of the same cluster compared
(times and offsets masked); both kinds of master killed in turn.
The goblin and redis runs write their masked shapes to DIR/shape.<kind>, which
the shell test compares.
"""
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time

import redis

GOBLIN = os.environ["GOBLIN_SERVER"]
REDIS = os.environ.get("REDIS_SERVER", "redis-server")
DIR, MODE = sys.argv[1], sys.argv[2]
TIMEOUT_MS = 2000


def fail(msg):
    print("cluster_replicas.py (%s): FAIL: %s" % (MODE, msg), file=sys.stderr)
    for n in NODES:
        try:
            with open(n.log) as f:
                tail = f.readlines()[-25:]
            print("--- %s:%d log ---\n%s" % (n.kind, n.port, "".join(tail)), file=sys.stderr)
        except OSError:
            pass
    for n in NODES:
        n.kill()
    sys.exit(1)


def note(msg):
    print("cluster_replicas.py (%s): %s" % (MODE, msg), file=sys.stderr)


def wait_until(what, fn, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if fn():
                return
        except (redis.RedisError, OSError):
            pass
        time.sleep(0.1)
    fail("timed out waiting for " + what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# ---- a raw RESP2 client: the replies exactly as sent ----

def raw(port, *args):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    s.sendall(out)
    f = s.makefile("rb")

    def read():
        line = f.readline()
        kind, rest = line[:1], line[1:-2]
        if kind in (b"+", b"-", b":"):
            return line
        if kind == b"$":
            n = int(rest)
            return line if n < 0 else line + f.read(n + 2)
        if kind == b"*":
            n = int(rest)
            return line + b"".join(read() for _ in range(max(n, 0)))
        raise OSError("bad reply %r" % line)

    reply = read()
    s.close()
    return reply


class Node:
    def __init__(self, kind, name):
        self.kind, self.name = kind, name
        self.dir = os.path.join(DIR, name)
        os.makedirs(self.dir, exist_ok=True)
        self.log = os.path.join(self.dir, "log")
        self.proc = None
        self.port = self.cport = None

    def start(self):
        for _ in range(10):
            if self.port is None or self.proc is not None:
                self.port, self.cport = free_port(), free_port()
            common = ["--port", str(self.port), "--cluster-enabled", "yes",
                      "--cluster-port", str(self.cport), "--dir", self.dir, "--save", "",
                      "--cluster-node-timeout", str(TIMEOUT_MS),
                      "--repl-diskless-sync-delay", "0"]
            if self.kind == "goblin":
                argv = [GOBLIN] + common
            else:
                argv = [REDIS] + common + ["--bind", "127.0.0.1", "--appendonly", "no"]
            logf = open(self.log, "a")
            self.proc = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT)
            for _ in range(200):
                if self.proc.poll() is not None:
                    break
                try:
                    if self.r().ping():
                        return
                except redis.RedisError:
                    pass
                time.sleep(0.05)
            if self.proc.poll() is None:
                fail("%s did not answer PING" % self.name)
            self.proc = None if "Address already in use" not in open(self.log).read() else self.proc
            if self.proc is None:
                fail("%s exited at startup" % self.name)
            self.port = None
        fail("could not start " + self.name)

    def restart(self):
        """Again, on the same ports, from its nodes.conf."""
        self.proc = None
        logf = open(self.log, "a")
        common = ["--port", str(self.port), "--cluster-enabled", "yes",
                  "--cluster-port", str(self.cport), "--dir", self.dir, "--save", "",
                  "--cluster-node-timeout", str(TIMEOUT_MS), "--repl-diskless-sync-delay", "0"]
        argv = ([GOBLIN] + common) if self.kind == "goblin" else (
            [REDIS] + common + ["--bind", "127.0.0.1", "--appendonly", "no"])
        self.proc = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT)
        wait_until(self.name + " to restart", lambda: self.r().ping(), 20)

    def r(self):
        return redis.Redis(port=self.port, decode_responses=True, socket_timeout=10)

    def kill(self, sig=9):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait()
        self.proc = None

    def myid(self):
        return self.r().execute_command("CLUSTER", "MYID")

    def nodes(self):
        """CLUSTER NODES as {id: fields}."""
        out = {}
        for line in self.r().execute_command("CLUSTER", "NODES").splitlines():
            f = line.split()
            out[f[0]] = f
        return out

    def info(self, section, field):
        return self.r().info(section).get(field)


NODES = []


def cluster_state_ok(n):
    info = n.r().execute_command("CLUSTER", "INFO")
    return "cluster_state:ok" in info and "cluster_slots_ok:16384" in info


def cluster_check_ok(n):
    p = subprocess.run(["redis-cli", "--cluster", "check", "127.0.0.1:%d" % n.port],
                       capture_output=True, text=True, timeout=60)
    return ("[OK] All nodes agree about slots configuration." in p.stdout
            and "[OK] All 16384 slots covered." in p.stdout and "[ERR]" not in p.stdout)


def by_id(node_id):
    for n in NODES:
        if n.proc and n.myid() == node_id:
            return n
    return None


def topology(view):
    """{master node: replica node} from view's CLUSTER NODES (live nodes)."""
    nodes = view.nodes()
    pairs = {}
    for nid, f in nodes.items():
        if "slave" in f[2] and "fail" not in f[2]:
            m, r = by_id(f[3]), by_id(nid)
            if m and r:
                pairs[m] = r
    return pairs


def replica_synced(rep):
    info = rep.r().info("replication")
    return info.get("role") == "slave" and info.get("master_link_status") == "up"


def synced_with(master, rep):
    m = master.r().info("replication")["master_repl_offset"]
    return replica_synced(rep) and rep.r().info("replication")["slave_repl_offset"] == m


def slots_of(view, node_id):
    f = view.nodes()[node_id]
    out = []
    for s in f[8:]:
        if s.startswith("["):
            continue
        a, _, b = s.partition("-")
        out.append((int(a), int(b or a)))
    return out


def key_in(ranges, prefix):
    """A hash tag whose slot is in ranges."""
    from redis.crc import key_slot
    for i in range(100000):
        tag = "%s%d" % (prefix, i)
        slot = key_slot(tag.encode())
        if any(a <= slot <= b for a, b in ranges):
            return tag
    fail("no key in %r" % ranges)


# ---- the steps ----

def create():
    args = ["redis-cli", "--cluster", "create"] + ["127.0.0.1:%d" % n.port for n in NODES] + [
        "--cluster-replicas", "1", "--cluster-yes"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=180)
    if "[OK] All 16384 slots covered." not in p.stdout:
        fail("redis-cli --cluster create:\n" + p.stdout + p.stderr)
    wait_until("redis-cli --cluster check OK", lambda: cluster_check_ok(NODES[0]), 60)
    for n in NODES:
        wait_until("cluster_state ok on %s" % n.name, lambda n=n: cluster_state_ok(n))
    wait_until("three masters with a replica each", lambda: len(topology(NODES[0])) == 3)
    for m, rep in topology(NODES[0]).items():
        wait_until("%s to sync with %s" % (rep.name, m.name), lambda rep=rep: replica_synced(rep))
    note("created: " + ", ".join("%s <- %s" % (m.name, r.name)
                                 for m, r in topology(NODES[0]).items()))


def check_replicas_commands():
    for m, rep in topology(NODES[0]).items():
        mid, rid = m.myid(), rep.myid()
        for view in (m, rep):
            for sub in ("REPLICAS", "SLAVES"):
                # Each node learns its master/replica pairs from their own
                # pings: waited for (redis-server too may lag a moment).
                def listed(view=view, sub=sub):
                    lines = view.r().execute_command("CLUSTER", sub, mid)
                    return len(lines) == 1 and lines[0].split()[0] == rid and \
                        lines[0].split()[3] == mid and "slave" in lines[0].split()[2]
                wait_until("CLUSTER %s %s on %s to list %s" % (sub, m.name, view.name, rep.name),
                           listed, 30)
        f = rep.nodes()[rep.myid()]
        if f[2] != "myself,slave" or f[3] != mid or len(f) != 8:
            fail("%s's own CLUSTER NODES line: %r" % (rep.name, f))
        conf = open(os.path.join(rep.dir, "nodes.conf")).read()
        if not re.search(r"^%s \S+ myself,slave %s " % (rid, mid), conf, re.M):
            fail("%s's nodes.conf has no 'myself,slave %s' line:\n%s" % (rep.name, mid, conf))


def check_writes_and_reads():
    from redis.cluster import RedisCluster, ClusterNode
    rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", NODES[0].port)],
                      decode_responses=True)
    keys = ["k:%d" % i for i in range(3000)]
    for k in keys:
        rc.set(k, "v" + k)
    pairs = topology(NODES[0])
    for m, rep in pairs.items():
        got = m.r().execute_command("WAIT", 1, 5000)
        if got < 1:
            fail("WAIT 1 on %s answered %r" % (m.name, got))
        wait_until("%s to catch up" % rep.name, lambda m=m, rep=rep: synced_with(m, rep))
    from redis.crc import key_slot
    for m, rep in pairs.items():
        ranges = slots_of(NODES[0], m.myid())
        mine = [k for k in keys if any(a <= key_slot(k.encode()) <= b for a, b in ranges)]
        if not mine:
            fail("no key landed on %s" % m.name)
        c = rep.r()
        try:
            c.get(mine[0])
            fail("GET on replica %s without READONLY was served" % rep.name)
        except redis.ResponseError as e:
            want = "MOVED %d 127.0.0.1:%d" % (key_slot(mine[0].encode()), m.port)
            if str(e) != want:
                fail("GET on replica %s: %r, want %r" % (rep.name, str(e), want))
        # One connection: READONLY is the connection's.
        pool = redis.ConnectionPool(port=rep.port, decode_responses=True, max_connections=1)
        c = redis.Redis(connection_pool=pool)
        if c.execute_command("READONLY") not in ("OK", True):
            fail("READONLY on %s" % rep.name)
        for k in mine:
            v = c.get(k)
            if v != "v" + k:
                fail("READONLY GET %s on replica %s: %r" % (k, rep.name, v))
        try:
            c.set(mine[0], "x")
            fail("SET on replica %s after READONLY was served" % rep.name)
        except redis.ResponseError as e:
            if not str(e).startswith("MOVED "):
                fail("SET on replica %s: %r" % (rep.name, str(e)))
        c.execute_command("READWRITE")
        try:
            c.get(mine[0])
            fail("GET on replica %s after READWRITE was served" % rep.name)
        except redis.ResponseError as e:
            if not str(e).startswith("MOVED "):
                fail("GET after READWRITE on %s: %r" % (rep.name, str(e)))
    note("%d keys written, read back on every replica with READONLY" % len(keys))


class Writer(threading.Thread):
    """SET then WAIT 1 on one master until it dies; acked: what WAIT confirmed."""

    def __init__(self, master, tag):
        super().__init__(daemon=True)
        self.master, self.tag, self.acked, self.stop = master, tag, [], False

    def run(self):
        c = redis.Redis(port=self.master.port, decode_responses=True, socket_timeout=5)
        i = 0
        try:
            while not self.stop:
                k = "{%s}:w%d" % (self.tag, i)
                c.set(k, str(i))
                if c.execute_command("WAIT", 1, 1000) >= 1:
                    self.acked.append((k, str(i)))
                i += 1
        except (redis.RedisError, OSError):
            pass


def kill_master_and_check(master, view):
    """kill -9 of master under a WAIT load: its replica takes over."""
    rep = topology(view)[master]
    tag = key_in(slots_of(view, master.myid()), "t")
    w = Writer(master, tag)
    w.start()
    wait_until("200 acknowledged writes on %s" % master.name, lambda: len(w.acked) >= 200)
    master.kill()
    w.stop = True
    w.join(10)
    rid, mid = rep.myid(), None
    wait_until("%s to take over from %s" % (rep.name, master.name),
               lambda: rep.r().info("replication")["role"] == "master"
               and "master" in view.nodes()[rid][2] and len(slots_of(view, rid)) > 0, 60)
    for n in NODES:
        if n.proc:
            wait_until("cluster_state ok with every slot on %s" % n.name,
                       lambda n=n: cluster_state_ok(n), 60)
    c = rep.r()
    lost = [k for k, v in w.acked if c.get(k) != v]
    if lost:
        fail("%d of %d acknowledged writes lost after the failover (first %s)" %
             (len(lost), len(w.acked), lost[0]))
    note("%s killed with %d acknowledged writes: %s took over, none lost" %
         (master.name, len(w.acked), rep.name))
    # The old master comes back as a replica of the new one.
    master.restart()
    wait_until("%s to rejoin as a replica of %s" % (master.name, rep.name),
               lambda: master.nodes()[master.myid()][3] == rid and replica_synced(master), 60)
    wait_until("%s to be seen as %s's replica" % (master.name, rep.name),
               lambda: view.nodes()[master.myid()][3] == rid
               and "slave" in view.nodes()[master.myid()][2])
    wait_until("%s to hold the acknowledged writes" % master.name,
               lambda: synced_with(rep, master))
    c = redis.Redis(connection_pool=redis.ConnectionPool(port=master.port, decode_responses=True,
                                                         max_connections=1))
    c.execute_command("READONLY")
    lost = [k for k, v in w.acked if c.get(k) != v]
    if lost:
        fail("the old master, now a replica, lacks %d acknowledged writes" % len(lost))
    note("%s rejoined as a replica of %s" % (master.name, rep.name))
    return rep


def manual_failovers():
    pairs = topology(NODES[0])
    m, rep = next(iter(pairs.items()))
    for how in ([], ["FORCE"], ["TAKEOVER"]):
        old_master, new_master = (m, rep)
        if rep.r().execute_command("CLUSTER", "FAILOVER", *how) != "OK":
            fail("CLUSTER FAILOVER %s" % how)
        wait_until("CLUSTER FAILOVER %s: %s master, %s its replica" % (how, rep.name, m.name),
                   lambda: rep.r().info("replication")["role"] == "master"
                   and m.nodes()[m.myid()][3] == rep.myid() and replica_synced(m), 30)
        for n in NODES:
            wait_until("every node to see %s as master" % rep.name,
                       lambda n=n: "master" in n.nodes()[rep.myid()][2]
                       and "slave" in n.nodes()[m.myid()][2])
        m, rep = rep, m
        del old_master, new_master
    wait_until("check OK after the manual failovers", lambda: cluster_check_ok(NODES[0]))
    note("CLUSTER FAILOVER, FORCE and TAKEOVER swapped roles")


def replica_migration():
    """A seventh node makes one master's second replica; the replica of
    another master dies: the orphaned master gets the spare replica."""
    pairs = topology(NODES[0])
    masters = list(pairs)
    rich, poor = masters[0], masters[1]
    extra = Node("goblin", "goblin7")
    NODES.append(extra)
    extra.start()
    extra.r().execute_command("CLUSTER", "MEET", "127.0.0.1", NODES[0].port, NODES[0].cport)
    rich_id = rich.myid()
    wait_until("goblin7 to know %s" % rich.name, lambda: rich_id in extra.nodes(), 30)
    extra.r().execute_command("CLUSTER", "REPLICATE", rich_id)
    wait_until("%s to have two replicas" % rich.name, lambda: len(
        rich.r().execute_command("CLUSTER", "REPLICAS", rich_id)) == 2 and replica_synced(extra))
    dead = pairs[poor]
    poor_id = poor.myid()
    dead_id = dead.myid()
    # Every node must know the poor master had a replica (Redis migrates
    # only to a master that had one): the roles just changed by the
    # failovers before, and gossip takes a moment to carry them.
    wait_until("every node to see %s as %s's replica" % (dead.name, poor.name), lambda: all(
        n.nodes().get(dead_id, [None] * 4)[3] == poor_id for n in NODES if n is not dead), 30)
    dead.kill()

    def adopted():
        for line in poor.r().execute_command("CLUSTER", "REPLICAS", poor_id):
            f = line.split()
            if "fail" not in f[2] and f[0] != dead.myid_cache:
                n = by_id(f[0])
                return n is not None and replica_synced(n)
        return False
    dead.myid_cache = [f for f in NODES[0].nodes().values() if f[1].startswith(
        "127.0.0.1:%d@" % dead.port)][0][0]
    wait_until("a replica of %s to migrate to the orphaned %s" % (rich.name, poor.name),
               adopted, 60)
    if len(rich.r().execute_command("CLUSTER", "REPLICAS", rich_id)) != 1:
        fail("%s did not keep exactly one replica" % rich.name)
    note("%s's replica died: a spare replica of %s migrated to it" % (poor.name, rich.name))
    NODES.remove(dead)


def errors_compare(g, rd, gm_other, rm_other, g_rep, r_rep):
    """The same refusals on a goblin and a redis node (both masters with
    slots); ids stand for the same roles, masked in the replies."""
    g_id, r_id = g.myid(), rd.myid()

    def both(args_for):
        a = raw(g.port, *args_for("g"))
        b = raw(rd.port, *args_for("r"))
        mask = lambda x, ids: re.sub(rb"[0-9a-f]{40}", b"ID", x)
        if mask(a, None) != mask(b, None):
            fail("%r: goblin %r, redis %r" % (args_for("g"), a, b))

    ids = {"g": {"self": g_id, "master": gm_other.myid(), "replica": g_rep.myid()},
           "r": {"self": r_id, "master": rm_other.myid(), "replica": r_rep.myid()}}
    unknown = "%040x" % random.getrandbits(160)
    both(lambda k: ("CLUSTER", "REPLICATE", "abc"))
    both(lambda k: ("CLUSTER", "REPLICATE", unknown))
    both(lambda k: ("CLUSTER", "REPLICATE", ids[k]["self"]))
    both(lambda k: ("CLUSTER", "REPLICATE", ids[k]["replica"]))
    both(lambda k: ("CLUSTER", "REPLICATE", ids[k]["master"]))
    both(lambda k: ("CLUSTER", "REPLICATE"))
    both(lambda k: ("CLUSTER", "REPLICAS", "abc"))
    both(lambda k: ("CLUSTER", "SLAVES", unknown))
    both(lambda k: ("CLUSTER", "REPLICAS", ids[k]["replica"]))
    both(lambda k: ("CLUSTER", "SLAVES", ids[k]["replica"]))
    both(lambda k: ("CLUSTER", "REPLICAS"))
    both(lambda k: ("CLUSTER", "FAILOVER"))
    both(lambda k: ("CLUSTER", "FAILOVER", "FORCE"))
    both(lambda k: ("CLUSTER", "FAILOVER", "TAKEOVER"))
    both(lambda k: ("CLUSTER", "FAILOVER", "bogus"))
    both(lambda k: ("CLUSTER", "FAILOVER", "force", "x"))
    both(lambda k: ("READONLY",))
    both(lambda k: ("READWRITE",))
    both(lambda k: ("CLUSTER", "HELP"))
    # On the replicas: a bad argument and a replica's own refusals.
    a = raw(g_rep.port, "CLUSTER", "FAILOVER", "bogus")
    b = raw(r_rep.port, "CLUSTER", "FAILOVER", "bogus")
    if a != b:
        fail("CLUSTER FAILOVER bogus on replicas: goblin %r, redis %r" % (a, b))
    a = raw(g_rep.port, "CLUSTER", "REPLICATE", g_rep.myid())
    b = raw(r_rep.port, "CLUSTER", "REPLICATE", r_rep.myid())
    if a != b:
        fail("CLUSTER REPLICATE <itself> on replicas: goblin %r, redis %r" % (a, b))
    note("CLUSTER REPLICATE/REPLICAS/SLAVES/FAILOVER refusals as redis-server's")


def mask_nodes(text):
    """CLUSTER NODES without the viewer, times and link states of the moment."""
    out = []
    for line in text.splitlines():
        f = line.split()
        f[2] = f[2].replace("myself,", "")
        f[4] = f[5] = "T"
        out.append(" ".join(f))
    return sorted(out)


def canon_shards(reply):
    shards = []
    for sh in reply:
        d = dict(zip(sh[0::2], sh[1::2]))
        nodes = []
        for nd in d["nodes"]:
            nd = dict(zip(nd[0::2], nd[1::2]))
            nd["replication-offset"] = "N" if isinstance(nd["replication-offset"], int) else "?"
            nodes.append(sorted(nd.items()))
        shards.append({"slots": d["slots"], "nodes": nodes[:1] + sorted(nodes[1:]),
                       "keys": list(d.keys())})
    return sorted(shards, key=lambda s: s["slots"])


def views_compare(g, rd):
    """One goblin and one redis node of the same cluster say the same."""
    def same(what, fn):
        wait_until("CLUSTER %s of %s and %s to agree" % (what, g.name, rd.name),
                   lambda: fn(g) == fn(rd), 30)
    same("NODES", lambda n: mask_nodes(n.r().execute_command("CLUSTER", "NODES")))
    same("SLOTS", lambda n: sorted(n.r().execute_command("CLUSTER", "SLOTS")))
    same("SHARDS", lambda n: canon_shards(n.r().execute_command("CLUSTER", "SHARDS")))
    note("CLUSTER NODES, SLOTS and SHARDS of %s and %s agree" % (g.name, rd.name))


def masked_shape(view):
    """The cluster's shape with ids, ports, times, epochs and offsets masked
    (compared between a goblin-only and a redis-only run): masters named by
    their slots' order, replicas after their master."""
    lines = [l.split() for l in view.r().execute_command("CLUSTER", "NODES").splitlines()]
    masters = sorted((f for f in lines if "master" in f[2]), key=lambda f: f[8:])
    ids = {f[0]: "M%d" % i for i, f in enumerate(masters)}
    for f in lines:
        if "slave" in f[2]:
            ids[f[0]] = "R" + ids.get(f[3], "?")

    def mid(x):
        return ids.get(x, "?") if x != "-" else x
    nodes = []
    for f in lines:
        f = list(f)
        f[0], f[3] = mid(f[0]), mid(f[3])
        f[1] = re.sub(r":\d+@\d+$", ":P@C", f[1])
        f[2] = f[2].replace("myself,", "")
        f[4] = f[5] = f[6] = "T"
        nodes.append(" ".join(f))
    slots = []
    for rng in sorted(view.r().execute_command("CLUSTER", "SLOTS")):
        slots.append([rng[0], rng[1]] + [[e[0], "P", mid(e[2]), e[3]] for e in rng[2:]])
    shards = canon_shards(view.r().execute_command("CLUSTER", "SHARDS"))
    for sh in shards:
        sh["nodes"] = [[(k, mid(v) if k == "id" else "P" if k == "port" else v) for k, v in nd]
                       for nd in sh["nodes"]]
    return {"nodes": sorted(nodes), "slots": slots, "shards": shards}


def main():
    kinds = {"goblin": ["goblin"] * 6, "redis": ["redis"] * 6,
             "mixed": ["goblin", "redis", "goblin", "redis", "goblin", "redis"]}[MODE]
    for i, k in enumerate(kinds):
        NODES.append(Node(k, "%s%d" % (k, i + 1)))
    for n in NODES:
        n.start()
    create()
    if MODE == "mixed":
        # A redis replica for a goblin master, a goblin replica for a redis one.
        pairs = topology(NODES[0])
        masters = list(pairs)
        reps = list(pairs.values())
        gm = [m for m in masters if m.kind == "goblin"]
        rm = [m for m in masters if m.kind == "redis"]
        gr = [r for r in reps if r.kind == "goblin"]
        rr = [r for r in reps if r.kind == "redis"]
        if not (gm and rm and gr and rr):
            fail("redis-cli made no mix to rearrange: %r" % [(m.name, r.name)
                                                            for m, r in pairs.items()])
        plan = {rr[0]: gm[0], gr[0]: rm[0]}
        rest_r = [r for r in reps if r not in plan][0]
        rest_m = [m for m in masters if m not in plan.values()][0]
        plan[rest_r] = rest_m
        for rep, m in plan.items():
            if pairs.get(m) is not rep:
                # A replica's old master keeps none until its new one comes.
                rep.r().execute_command("CLUSTER", "REPLICATE", m.myid())
        wait_until("the rearranged replicas", lambda: all(
            topology(n).get(m) is rep for n in NODES for rep, m in plan.items()), 60)
        for rep, m in plan.items():
            wait_until("%s to sync with %s" % (rep.name, m.name),
                       lambda rep=rep: replica_synced(rep))
        note("rearranged: " + ", ".join("%s <- %s" % (m.name, r.name) for r, m in plan.items()))
    check_replicas_commands()
    check_writes_and_reads()
    if MODE in ("goblin", "redis"):
        # Settled first: every range with its replica, every replica's
        # offset known to the viewer (else `loading`), in either product.
        def settled():
            shape = masked_shape(NODES[0])
            return all(len(r) == 4 for r in shape["slots"]) and all(
                dict(nd)["health"] == "online" for sh in shape["shards"] for nd in sh["nodes"])
        wait_until("the cluster's view to settle", settled, 30)
        with open(os.path.join(DIR, "shape." + MODE), "w") as f:
            json.dump(masked_shape(NODES[0]), f, indent=1, sort_keys=True)
    if MODE == "mixed":
        g = [n for n in NODES if n.kind == "goblin"]
        rd = [n for n in NODES if n.kind == "redis"]
        pairs = topology(NODES[0])
        g_master = [m for m in pairs if m.kind == "goblin"][0]
        r_master = [m for m in pairs if m.kind == "redis"][0]
        others = [m for m in pairs if m not in (g_master, r_master)]
        errors_compare(g_master, r_master, r_master, g_master,
                       [r for r in pairs.values() if r.kind == "goblin"][0],
                       [r for r in pairs.values() if r.kind == "redis"][0])
        del others
        views_compare(g[0], rd[0])
        views_compare(g[1], rd[1])
        # cluster-replica-no-failover travels as the nofailover flag.
        reps = [r for r in pairs.values() if r.kind == "goblin"][:1] + \
               [r for r in pairs.values() if r.kind == "redis"][:1]
        for rep in reps:
            rep.r().config_set("cluster-replica-no-failover", "yes")
        for rep in reps:
            rid = rep.myid()
            wait_until("every node to flag %s nofailover" % rep.name, lambda rid=rid: all(
                n.nodes()[rid][2].endswith("slave,nofailover") for n in NODES))
        views_compare(g[0], rd[0])
        for rep in reps:
            rep.r().config_set("cluster-replica-no-failover", "no")
        for rep in reps:
            rid = rep.myid()
            wait_until("every node to clear %s's nofailover" % rep.name, lambda rid=rid: all(
                "nofailover" not in n.nodes()[rid][2] for n in NODES))
        note("cluster-replica-no-failover shown as nofailover by both kinds")
    if MODE == "goblin":
        manual_failovers()
        replica_migration()
    # kill -9 of masters, each in turn watched from another live node.
    pairs = topology(NODES[0])
    victims = list(pairs)
    if MODE == "mixed":
        victims = [m for m in pairs if m.kind == "goblin"][:1] + \
                  [m for m in pairs if m.kind == "redis"][:1]
    else:
        victims = victims[:1]
    for victim in victims:
        view = [n for n in NODES if n.proc and n is not victim and n is not pairs[victim]][0]
        kill_master_and_check(victim, view)
        pairs = topology(view)
    wait_until("check OK at the end", lambda: cluster_check_ok(
        [n for n in NODES if n.proc][0]), 60)
    if MODE == "mixed":
        views_compare([n for n in NODES if n.kind == "goblin"][0],
                      [n for n in NODES if n.kind == "redis"][0])
    for n in NODES:
        n.kill(15)
    # Under the ASan+UBSan server, any report in a node's log fails the run.
    for n in NODES:
        text = open(n.log, errors="replace").read()
        for mark in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            if mark in text:
                fail("%s's log has a sanitizer report (%s)" % (n.name, mark))
    note("ok")


try:
    main()
finally:
    for n in NODES:
        n.kill()
