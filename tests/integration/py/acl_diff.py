"""acl_diff.py — differential checks of ACL against redis-server 7.0.15.

Usage: acl_diff.py GOBLIN_PORT REDIS_PORT PART [SEED]

Both servers get the same commands over raw RESP connections (RESP2, then
RESP3 after HELLO 3); replies are parsed into typed trees (status, error,
bulk, integer, array, set, map, null, double) and must be equal, except
for what Redis itself does not fix:
  - the order of single-command rules in a command description (Redis
    emits them in the order of a randomly seeded dict: it differs between
    two runs of redis-server); category rules and their order must match;
  - ACL CAT <category>'s order (the same dict), compared as sets;
  - ACL LOG's age-seconds and client-info (times, ids, ports).
Parts: rules (SETUSER/GETUSER/LIST/...), enforce (NOPERM for commands,
keys, channels, selectors, MULTI, scripts), log (ACL LOG), random (seeded
random rule sequences, checked through GETUSER, LIST and DRYRUN).
"""
import random
import socket
import sys


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        try:  # a server closing the connection (a killed client) is a reply too
            self.s.sendall(b"".join(out))
            return self.read()
        except (ConnectionResetError, BrokenPipeError):
            return ("closed",)

    def read(self):
        line = self.f.readline()
        if not line:
            return ("closed",)
        t, rest = line[:1], line[1:-2]
        if t == b"+":
            return ("status", rest)
        if t == b"-":
            return ("error", rest)
        if t == b":":
            return ("int", int(rest))
        if t == b"$":
            n = int(rest)
            if n < 0:
                return ("null",)
            data = self.f.read(n + 2)[:-2]
            return ("bulk", data)
        if t == b"_":
            return ("null",)
        if t == b"=":
            n = int(rest)
            return ("bulk", self.f.read(n + 2)[4:-2])
        if t == b",":
            return ("double", rest)
        if t == b"#":
            return ("bool", rest)
        if t in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return ("nullarray",)
            kind = {b"*": "array", b"~": "set", b">": "push"}[t]
            return (kind, [self.read() for _ in range(n)])
        if t == b"%":
            n = int(rest)
            return ("map", [(self.read(), self.read()) for _ in range(n)])
        raise RuntimeError("unknown reply type %r" % line)

    def close(self):
        self.s.close()


GOBLIN_ONLY = set()  # commands redis-server 7.0 lacks (CLIENT SETINFO): Pair() fills it


def canon_rules(text):
    """Single-command rules sorted within each selector; categories kept;
    rules naming a command only goblin-core has dropped."""
    def one(part):
        toks = part.split(b" ")
        head = [t for t in toks if t[1:2] == b"@" or not t[:1] in (b"+", b"-")]
        singles = sorted(t for t in toks if t[:1] in (b"+", b"-") and t[1:2] != b"@"
                         and t[1:] not in GOBLIN_ONLY)
        return b" ".join(head + singles)
    out = []
    rest = text
    # selectors "(...)" separately
    while b" (" in rest:
        i = rest.index(b" (")
        out.append(one(rest[:i]))
        j = rest.index(b")", i)
        out.append(b"(" + one(rest[i + 2:j]) + b")")
        rest = rest[j + 1:]
    out.append(one(rest))
    return b" ".join(x for x in out if x)


def canon(reply, ctx):
    t = reply[0]
    if t in ("bulk", "status", "error") and ctx.get("rules"):
        return (t, canon_rules(reply[1]))
    if t in ("array", "set", "push"):
        items = [canon(r, ctx) for r in reply[1]]
        if ctx.get("hello"):  # HELLO's connection id
            items = [("masked",) if i and items[i - 1] == ("bulk", b"id") else x
                     for i, x in enumerate(items)]
        if ctx.get("log"):  # ACL LOG entries in RESP2: flat arrays
            items = [("masked",) if i and items[i - 1] in (("bulk", b"age-seconds"),
                                                           ("bulk", b"client-info")) else x
                     for i, x in enumerate(items)]
        if ctx.get("unordered"):
            items = sorted(items, key=repr)
        return (t, items)
    if t == "map":
        pairs = []
        for k, v in reply[1]:
            key = k[1] if k[0] in ("bulk", "status") else None
            sub = dict(ctx)
            if key == b"commands":
                sub["rules"] = True
            if (key in (b"age-seconds", b"client-info") and ctx.get("log")) or \
                    (key == b"id" and ctx.get("hello")):
                v = ("masked",)
            pairs.append((canon(k, {}), canon(v, sub)))
        return (t, pairs)
    return reply


class Pair:
    def __init__(self, gport, rport):
        self.gport, self.rport = gport, rport
        self.g, self.r = Conn(gport), Conn(rport)
        self.count = 0
        names = []
        for c in (self.g, self.r):
            got = set()
            for cat in c.send("ACL", "CAT")[1]:
                got |= {x[1] for x in c.send("ACL", "CAT", cat[1])[1]}
            names.append(got)
        GOBLIN_ONLY.update(names[0] - names[1])

    def check(self, *args, **ctx):
        return self.check_on(self.g, self.r, *args, **ctx)

    def check_on(self, g, r, *args, **ctx):
        gr, rr = g.send(*args), r.send(*args)
        self.count += 1
        if args[:2] == ("ACL", "SETUSER"):
            self.last_setuser = args
        if canon(gr, ctx) != canon(rr, ctx):
            print("MISMATCH for %r\n goblin: %r\n redis:  %r" % (args, gr, rr))
            print("last ACL SETUSER: %r" % (getattr(self, "last_setuser", None),))
            sys.exit(1)
        return gr

    def both(self, *args):
        return self.g.send(*args), self.r.send(*args)

    def extra(self):
        return Conn(self.gport), Conn(self.rport)

    def reset_users(self):
        for c in (self.g, self.r):
            users = c.send("ACL", "USERS")[1]
            for u in users:
                if u[1] != b"default":
                    c.send("ACL", "DELUSER", u[1])
            c.send("ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all")
            c.send("ACL", "LOG", "RESET")


def cat_check(p, cat):
    """ACL CAT <cat> as sets; a name only goblin lists must be a command
    redis-server 7.0 lacks (COMMAND INFO answers nil there: CLIENT SETINFO)."""
    g, r = p.both("ACL", "CAT", cat)
    if g[0] != r[0] or g[0] != "array":
        if g != r:
            print("ACL CAT %s: %r vs %r" % (cat, g, r))
            sys.exit(1)
        return
    gs, rs = {x[1] for x in g[1]}, {x[1] for x in r[1]}
    for name in gs - rs:
        if p.r.send("COMMAND", "INFO", name) != ("array", [("nullarray",)]) and \
                p.r.send("COMMAND", "INFO", name)[1][0][0] not in ("null", "nullarray"):
            print("ACL CAT %s: goblin lists %r, which redis-server has" % (cat, name))
            sys.exit(1)
    if rs - gs:
        print("ACL CAT %s: goblin lacks %r" % (cat, sorted(rs - gs)))
        sys.exit(1)


def part_rules(p):
    rules_ok = [
        ["on", ">p1", ">p2", "<p1", "~k*", "%R~r*", "%W~w*", "%RW~rw*", "&ch*", "+get", "+@hash"],
        ["off", "nopass", "allkeys", "allchannels", "allcommands", "-@dangerous"],
        ["resetpass", "resetkeys", "resetchannels", "nocommands", "+@read", "-@string"],
        ["#" + "a" * 64, "!" + "a" * 64, "#" + "0123456789abcdef" * 4],
        ["+config|get", "+client|list", "-client", "+select|0", "+select|1", "+debug|object"],
        ["+@all", "-config", "+config|get", "-acl|list"],
        ["reset", "on", "~*", "+@all", "(~x* +get)", "(%R~y* +@read -@hash)"],
        ["clearselectors", "(&c* +publish)"],
        ["skip-sanitize-payload"],
        ["sanitize-payload", "%R~a", "%W~a", "~b", "%R~b"],
        ["reset", "(+get", "~a*)", "(", "+set", "~b*", ")"],
        ["reset", "+@all", "-@all", "+@pubsub", "+@keyspace", "-del"],
        ["reset", "+@write", "+@read", "-@admin"],
        ["reset", "+@all", "-@slow", "-@fast", "+get"],
        ["reset", "", "on"],
        ["reset", "%RW~*"],
        ["reset", "%R~*"],
        ["reset", "&*", "resetchannels", "&a", "&a", "&b"],
        ["reset", "~a", "~a", "%R~a"],
        ["reset", "+GET", "+@HASH", "ON", "ALLKEYS"],
    ]
    for rules in rules_ok:
        p.check("ACL", "SETUSER", "alice", *rules)
        p.check("ACL", "GETUSER", "alice", rules=True)
        p.check("ACL", "LIST", rules=True)
    rules_bad = [
        ["%~x"], ["%RX~a"], ["%RR~a"], ["~*", "~a"], ["&*", "&a"], ["<nosuch"], ["!" + "b" * 64],
        ["#abc"], ["#" + "A" * 64], ["+nosuch"], ["-nosuch"], ["+@nosuch"], ["-@nosuch"],
        ["+config|get|x"], ["+get|"], ["bogus"], ["(+get", "~x"], ["(+nosuch)"], ["(on)"],
        ["+client|nosuch"], ["on", "+get", "bogus"], ["allkeys", "~x"], ["%"], ["(~a", "~b"],
    ]
    p.check("ACL", "SETUSER", "bob", "on", "~*", "&*", "+get")
    for rules in rules_bad:
        p.check("ACL", "SETUSER", "bob", *rules)
        p.check("ACL", "GETUSER", "bob", rules=True)
    p.check("ACL", "SETUSER", "a b")
    p.check("ACL", "SETUSER", "a\x00b")
    p.check("ACL", "SETUSER", "carol")
    p.check("ACL", "SETUSER", "Carol")
    p.check("ACL", "SETUSER", "carol2", "on")
    p.check("ACL", "USERS")
    p.check("ACL", "LIST", rules=True)
    p.check("ACL", "GETUSER", "nosuch")
    p.check("ACL", "DELUSER", "default")
    p.check("ACL", "DELUSER", "carol", "nosuch", "carol2", "carol")
    p.check("ACL", "DELUSER", "nosuch")
    p.check("ACL", "USERS")
    p.check("ACL", "WHOAMI")
    p.check("ACL", "CAT")
    for cat in ["keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
                "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
                "blocking", "dangerous", "connection", "transaction", "scripting", "HASH"]:
        cat_check(p, cat)
    p.check("ACL", "CAT", "nosuch")
    p.check("ACL", "CAT", "a", "b")
    for bits in ["0", "-1", "4097", "x"]:
        p.check("ACL", "GENPASS", bits)
    for bits in [None, "1", "5", "256", "4096"]:
        args = ["ACL", "GENPASS"] + ([bits] if bits else [])
        g, r = p.both(*args)
        if g[0] != "bulk" or len(g[1]) != len(r[1]):
            print("GENPASS %r: %r vs %r" % (bits, g, r))
            sys.exit(1)
    p.check("ACL", "HELP")
    p.check("ACL", "NOSUCH")
    p.check("ACL", "GETUSER")
    p.check("ACL", "LIST", "x")
    p.check("ACL", "WHOAMI", "x")
    p.check("ACL", "DRYRUN", "nosuch", "get", "a")
    p.check("ACL", "DRYRUN", "alice", "nosuch")
    p.check("ACL", "DRYRUN", "alice", "get")
    p.check("ACL", "DRYRUN", "alice", "client", "nosuch")
    # AUTH, HELLO AUTH and requirepass as the default user's password
    p.check("ACL", "SETUSER", "dave", "on", ">secret", "~*", "&*", "+@all")
    g, r = p.extra()
    p.check_on(g, r, "AUTH", "dave", "wrong")
    p.check_on(g, r, "AUTH", "dave", "secret")
    p.check_on(g, r, "ACL", "WHOAMI")
    p.check_on(g, r, "AUTH", "nosuch", "secret")
    p.check_on(g, r, "ACL", "WHOAMI")
    p.check_on(g, r, "AUTH", "default", "anything")
    p.check_on(g, r, "ACL", "WHOAMI")
    p.check_on(g, r, "AUTH", "onlypass")
    p.check_on(g, r, "HELLO", "2", "AUTH", "dave", "secret", hello=True)
    p.check_on(g, r, "ACL", "WHOAMI")
    p.check_on(g, r, "HELLO", "3", "AUTH", "dave", "nope", hello=True)
    p.check("ACL", "SETUSER", "dave", "off")
    p.check_on(g, r, "AUTH", "dave", "secret")
    p.check("ACL", "SETUSER", "dave", "on", "nopass")
    p.check_on(g, r, "AUTH", "dave", "whatever")
    for c in (g, r):
        ids = c.send("CLIENT", "ID")
        lst = c.send("CLIENT", "LIST", "ID", str(ids[1]))
        if b" user=dave " not in lst[1]:
            print("CLIENT LIST user= missing: %r" % (lst,))
            sys.exit(1)
    p.check("CLIENT", "KILL", "USER", "dave")
    p.check("CLIENT", "KILL", "USER", "nosuch")
    p.check_on(g, r, "PING")
    g.close()
    r.close()
    p.check("CONFIG", "SET", "requirepass", "rp")
    p.check("ACL", "GETUSER", "default", rules=True)
    g, r = p.extra()
    p.check_on(g, r, "GET", "x")
    p.check_on(g, r, "AUTH", "bad")
    p.check_on(g, r, "AUTH", "rp")
    p.check_on(g, r, "ACL", "WHOAMI")
    g.close()
    r.close()
    p.check("ACL", "SETUSER", "default", ">second")
    p.check("ACL", "GETUSER", "default", rules=True)
    g, r = p.extra()
    p.check_on(g, r, "AUTH", "default", "second")
    p.check_on(g, r, "ACL", "WHOAMI")
    g.close()
    r.close()
    p.check("CONFIG", "SET", "requirepass", "")
    p.check("ACL", "GETUSER", "default", rules=True)
    p.check("ACL", "DELUSER", "dave")


def part_enforce(p):
    p.check("ACL", "SETUSER", "x", "on", "nopass", "%R~r*", "%W~w*", "~k*", "&c*", "+get",
            "+set", "+publish", "+subscribe", "+psubscribe", "+config|get", "+select|0",
            "+multi", "+exec", "+discard", "+mget", "+mset", "+eval", "+copy", "+lmove",
            "+ssubscribe", "+spublish", "+ping", "+unsubscribe")
    p.check("ACL", "SETUSER", "sel", "on", "nopass", "~a*", "+get", "(~b* +set)", "(%R~c* +@read)")
    g, r = p.extra()
    p.check_on(g, r, "AUTH", "x", "any")
    cases = [
        ["GET", "r1"], ["SET", "r1", "v"], ["GET", "w1"], ["SET", "w1", "v"], ["GET", "k1"],
        ["SET", "k1", "v"], ["GET", "zz"], ["LPUSH", "a", "b"], ["PUBLISH", "x", "m"],
        ["PUBLISH", "c1", "m"], ["CONFIG", "SET", "a", "b"], ["CONFIG", "GET", "maxmemory"],
        ["SELECT", "0"], ["SELECT", "1"], ["MGET", "k1", "r1", "zz"], ["MSET", "k1", "1", "r1", "2"],
        ["COPY", "r1", "w1"], ["COPY", "k1", "k2"], ["LMOVE", "k1", "w1", "LEFT", "RIGHT"],
        ["SPUBLISH", "c1", "m"], ["SPUBLISH", "zz", "m"], ["CLIENT", "LIST"], ["ACL", "WHOAMI"],
        ["PING"], ["AUTH", "x", "any"],
    ]
    for c in cases:
        p.check_on(g, r, *c)
        p.check("ACL", "DRYRUN", "x", *c)
        p.check("ACL", "DRYRUN", "sel", *c)
    # MULTI: a refused command aborts the transaction at EXEC
    p.check_on(g, r, "MULTI")
    p.check_on(g, r, "SET", "k1", "1")
    p.check_on(g, r, "LPUSH", "k1", "1")
    p.check_on(g, r, "GET", "zz")
    p.check_on(g, r, "EXEC")
    p.check_on(g, r, "MULTI")
    p.check_on(g, r, "SET", "k1", "1")
    p.check_on(g, r, "EXEC")
    # scripts run their commands as the caller
    p.check_on(g, r, "EVAL", "return redis.call('get', 'k1')", "0")
    p.check_on(g, r, "EVAL", "return redis.pcall('get', 'zz')", "0")
    p.check_on(g, r, "EVAL", "return redis.call('lpush', 'k1', 'x')", "0")
    p.check_on(g, r, "EVAL", "return redis.acl_check_cmd('get', 'k1')", "0")
    p.check_on(g, r, "EVAL", "return redis.acl_check_cmd('get', 'zz')", "0")
    p.check_on(g, r, "EVAL", "return redis.acl_check_cmd('lpush', 'k1', 'x')", "0")
    p.check_on(g, r, "EVAL", "return redis.acl_check_cmd('nosuch')", "0")
    # channels
    p.check_on(g, r, "SUBSCRIBE", "c1", "zz")
    p.check_on(g, r, "SUBSCRIBE", "c1", "c2")
    p.check_on(g, r, "PSUBSCRIBE", "c*")
    p.check_on(g, r, "PSUBSCRIBE", "c1*")
    p.check_on(g, r, "UNSUBSCRIBE")
    # revoking a channel kills its subscribers, as 7.0
    g2, r2 = p.extra()
    p.check_on(g2, r2, "AUTH", "x", "any")
    p.check_on(g2, r2, "SUBSCRIBE", "c1")
    p.check("ACL", "SETUSER", "x", "resetchannels", "&d*")
    p.check_on(g2, r2, "PING")
    p.check("ACL", "SETUSER", "x", "&c*")
    g.close()
    r.close()
    # the selectors' user
    g, r = p.extra()
    p.check_on(g, r, "AUTH", "sel", "any")
    for c in [["GET", "a1"], ["GET", "b1"], ["SET", "b1", "v"], ["SET", "a1", "v"], ["GET", "c1"],
              ["HGET", "c1", "f"], ["HSET", "c1", "f", "v"], ["GET", "d1"], ["LPUSH", "d", "x"]]:
        p.check_on(g, r, *c)
    g.close()
    r.close()
    # deleting a user disconnects its clients
    g, r = p.extra()
    p.check_on(g, r, "AUTH", "sel", "any")
    p.check("ACL", "DELUSER", "sel")
    p.check_on(g, r, "PING")
    # goblin-core's counters (Redis 7.2's names; 7.0.15 has none to compare)
    info = p.g.send("INFO", "stats")[1]  # verbatim in RESP3
    for key in [b"acl_access_denied_cmd", b"acl_access_denied_key",
                b"acl_access_denied_channel"]:
        line = [l for l in info.split(b"\r\n") if l.startswith(key + b":")]
        if not line or int(line[0].split(b":")[1]) <= 0:
            print("INFO stats %s not counted: %r" % (key, line))
            sys.exit(1)


def part_log(p):
    p.check("ACL", "LOG", "RESET")
    p.check("ACL", "SETUSER", "lg", "on", ">pw", "~k*", "&c*", "+get", "+publish", "+multi",
            "+exec")
    g, r = p.extra()
    p.check_on(g, r, "AUTH", "lg", "bad")
    p.check_on(g, r, "AUTH", "nouser", "bad")
    p.check_on(g, r, "AUTH", "lg", "pw")
    p.check_on(g, r, "GET", "zz")
    p.check_on(g, r, "GET", "zz")
    p.check_on(g, r, "LPUSH", "k", "v")
    p.check_on(g, r, "PUBLISH", "x", "m")
    p.check_on(g, r, "MULTI")
    p.check_on(g, r, "GET", "yy")
    p.check_on(g, r, "EXEC")
    p.check("ACL", "LOG", log=True)
    p.check("ACL", "LOG", "2", log=True)
    p.check("ACL", "LOG", "0", log=True)
    p.check("ACL", "LOG", "-1", log=True)
    p.check("ACL", "LOG", "x", log=True)
    p.check("ACL", "LOG", "1", "2")
    p.check("ACL", "LOG", "RESET")
    p.check("ACL", "LOG", log=True)
    g.close()
    r.close()


def part_random(p, seed):
    rnd = random.Random(seed)
    cats = ["keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
            "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting", "all"]
    cmds = ["get", "set", "hget", "hset", "lpush", "config", "config|get", "config|set",
            "client|list", "client", "del", "keys", "eval", "publish", "subscribe", "acl|whoami",
            "acl", "xadd", "zadd", "sadd", "info", "flushall", "debug", "select"]
    keyrules = ["~a*", "%R~b*", "%W~c*", "~*", "resetkeys", "allkeys", "%RW~d?", "~[ab]x"]
    chanrules = ["&x*", "&*", "resetchannels", "allchannels", "&y"]
    other = ["on", "off", "nopass", "resetpass", ">pw", "nocommands", "allcommands",
             "+select|0", "+debug|object", "clearselectors"]
    probes = [["get", "a1"], ["get", "b1"], ["set", "c1", "v"], ["set", "a1", "v"],
              ["hset", "d1", "f", "v"], ["config", "get", "x"], ["config", "set", "x", "y"],
              ["publish", "x1", "m"], ["subscribe", "y"], ["select", "0"], ["lpush", "ax", "v"],
              ["del", "a1", "b1"], ["keys", "*"], ["debug", "object", "a"]]

    def rule():
        k = rnd.random()
        if k < 0.35:
            return rnd.choice("+-") + "@" + rnd.choice(cats)
        if k < 0.6:
            return rnd.choice("+-") + rnd.choice(cmds)
        if k < 0.75:
            return rnd.choice(keyrules)
        if k < 0.85:
            return rnd.choice(chanrules)
        return rnd.choice(other)

    for i in range(300):
        rules = [rule() for _ in range(rnd.randint(1, 8))]
        if rnd.random() < 0.2:
            rules.append("(" + " ".join(rule() for _ in range(rnd.randint(1, 4))) + ")")
        if rnd.random() < 0.3:
            rules.insert(0, "reset")
        p.check("ACL", "SETUSER", "r", *rules)
        p.check("ACL", "GETUSER", "r", rules=True)
        p.check("ACL", "LIST", rules=True)
        for probe in rnd.sample(probes, 3):
            p.check("ACL", "DRYRUN", "r", *probe)


def main():
    gport, rport, part = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    p = Pair(gport, rport)
    for proto in ("2", "3"):
        if proto == "3":
            p.both("HELLO", "3")
        p.reset_users()
        if part == "rules":
            part_rules(p)
        elif part == "enforce":
            part_enforce(p)
        elif part == "log":
            part_log(p)
        elif part == "random":
            part_random(p, seed)
        else:
            raise SystemExit("unknown part " + part)
    print("acl_diff %s: %d commands compared (seed %d)" % (part, p.count, seed))


main()
