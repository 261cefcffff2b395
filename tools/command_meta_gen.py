#!/usr/bin/env python3
"""command_meta_gen.py - generates src/commands/generated/command_meta_table.c (Python 3 stdlib only).

Usage: tools/command_meta_gen.py GOBLIN_BINARY REDIS_BINARY > src/commands/generated/command_meta_table.c
       (then clang-format -i on it; `make command-meta` does both)

Redis keeps each command's documentation and key specifications in
src/commands/*.json, which Debian does not package; the running server is
the one place they are published, through COMMAND INFO and COMMAND DOCS.
This script starts the goblin-core binary it is given (for the list of
commands it implements: COMMAND LIST, subcommands included) and the
reference redis-server 7.0 (for their metadata), both on ephemeral loopback
ports with a private directory, and writes a C table with, per command
Redis knows:

  - its COMMAND INFO reply up to the subcommands (name, arity, flags, legacy
    first/last/step, ACL categories, tips, key specs) and its COMMAND DOCS
    map without "subcommands", as a preorder list of typed nodes read off
    the RESP3 wire (so map/set/status/bulk survive; the RESP2 downgrade is
    the reply encoder's);
  - its key specs as structures, for COMMAND GETKEYS and every key lookup
    (command_keys.c implements Redis's getKeysUsingKeySpecs on them);
  - whether it has Redis's no_mandatory_keys flag (COMMAND GETKEYS answers
    an empty array instead of an error when no key is found).

Subcommands are emitted by goblin-core from its own table, so a container
shows only what goblin-core implements. Commands Redis 7.0 lacks keep their
hand-written rows (cmd_command.c). The output is checked in;
tests/integration/test_command_meta_codegen.sh fails when regenerating
would change it (a command was added without `make command-meta`).
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Conn:
    def __init__(self, port):
        deadline = time.time() + 20
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.f = self.sock.makefile("rb")

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)
        return self.read()

    def read(self):
        """One RESP3 value as (type, value): aggregates hold a list of
        children (a map's keys and values alternate)."""
        line = self.f.readline()
        if not line.endswith(b"\r\n"):
            raise RuntimeError("connection closed")
        t, rest = chr(line[0]), line[1:-2]
        if t in "+-":
            return (t, rest.decode())
        if t == ":":
            return (t, int(rest))
        if t == "$":
            n = int(rest)
            if n < 0:
                return ("_", None)
            data = self.f.read(n + 2)[:-2]
            return (t, data.decode())
        if t == "_":
            return (t, None)
        if t in "*~%":
            n = int(rest)
            count = 2 * n if t == "%" else n
            return (t, [self.read() for _ in range(count)])
        raise RuntimeError("unexpected RESP3 type %r" % t)


def start(argv):
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def c_string(s):
    out = '"'
    for ch in s:
        if ch in '"\\':
            out += "\\" + ch
        elif ch == "\n":
            out += "\\n"
        elif 32 <= ord(ch) < 127:
            out += ch
        else:
            out += "".join("\\%03o" % b for b in ch.encode())
    return out + '"'


# The node macros of the output (defined at its top): array, set, map,
# status, bulk, integer.
NODE_TYPES = {"*": "A", "~": "T", "%": "M", "+": "S", "$": "B", ":": "I"}


def nodes(value, out):
    """Flattens a value to preorder node initialisers."""
    t, v = value
    if t not in NODE_TYPES:
        raise RuntimeError("cannot store a %r in the metadata" % t)
    kind = NODE_TYPES[t]
    if t in "*~%":
        out.append("%s(%d)" % (kind, len(v) // 2 if t == "%" else len(v)))
        for child in v:
            nodes(child, out)
    elif t == ":":
        out.append("%s(%d)" % (kind, v))
    else:
        out.append("%s(%s)" % (kind, c_string(v)))


def as_dict(value):
    t, v = value
    assert t == "%", value
    return {v[i][1]: v[i + 1] for i in range(0, len(v), 2)}


KEY_FLAGS = ["RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
             "incomplete", "variable_flags"]


def key_spec(spec):
    d = as_dict(spec)
    flags = [f[1] for f in d["flags"][1]]
    for f in flags:
        if f not in KEY_FLAGS:
            raise RuntimeError("unknown key spec flag %s" % f)
    flag_expr = " | ".join("KEY_SPEC_%s" % f.upper() for f in flags) or "0"
    bs, fk = as_dict(d["begin_search"]), as_dict(d["find_keys"])
    bs_type, fk_type = bs["type"][1], fk["type"][1]
    bs_spec, fk_spec = as_dict(bs["spec"]), as_dict(fk["spec"])
    fields = [".flags = %s" % flag_expr]
    if bs_type == "index":
        fields += [".begin = KEY_BEGIN_INDEX", ".index = %d" % bs_spec["index"][1]]
    elif bs_type == "keyword":
        fields += [".begin = KEY_BEGIN_KEYWORD",
                   ".keyword = %s" % c_string(bs_spec["keyword"][1]),
                   ".startfrom = %d" % bs_spec["startfrom"][1]]
    elif bs_type == "unknown":
        fields += [".begin = KEY_BEGIN_UNKNOWN"]
    else:
        raise RuntimeError("unknown begin_search %s" % bs_type)
    if fk_type == "range":
        fields += [".find = KEY_FIND_RANGE", ".lastkey = %d" % fk_spec["lastkey"][1],
                   ".keystep = %d" % fk_spec["keystep"][1], ".limit = %d" % fk_spec["limit"][1]]
    elif fk_type == "keynum":
        fields += [".find = KEY_FIND_KEYNUM", ".keynumidx = %d" % fk_spec["keynumidx"][1],
                   ".firstkey = %d" % fk_spec["firstkey"][1],
                   ".keystep = %d" % fk_spec["keystep"][1]]
    elif fk_type == "unknown":
        fields += [".find = KEY_FIND_UNKNOWN"]
    else:
        raise RuntimeError("unknown find_keys %s" % fk_type)
    return "{" + ", ".join(fields) + "}"


def wrap(item):
    """A declaration with its initialisers packed into lines of at most 100
    columns (the generated file is kept out of clang-format's hands: it
    would give each node a column of its own)."""
    head, elems = item
    lines, line = [head], "   "
    for e in elems:
        if len(line) + len(e) + 2 > 100 and line.strip():
            lines.append(line)
            line = "   "
        line += " " + e + ","
    if line.strip():
        lines.append(line)
    lines.append("};")
    return "\n".join(lines)


def ident(name):
    return "".join(c if c.isalnum() else "_" for c in name)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    goblin_bin, redis_bin = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="command-meta-")
    gport, rport = free_port(), free_port()
    procs = []
    try:
        procs.append(start([goblin_bin, "--port", str(gport), "--save", "", "--dir", tmp]))
        procs.append(start([redis_bin, "--port", str(rport), "--save", "", "--dir", tmp,
                            "--appendonly", "no"]))
        goblin, redis = Conn(gport), Conn(rport)
        version = [l for l in redis.call("INFO", "server")[1].split("\r\n")
                   if l.startswith("redis_version:")]
        if version != ["redis_version:7.0.15"]:
            raise RuntimeError("the reference must be redis-server 7.0.15, not %s" % version)
        redis.call("HELLO", "3")
        names = sorted(v for _, v in goblin.call("COMMAND", "LIST")[1])
        rows = []
        body = []
        for name in names:
            info = redis.call("COMMAND", "INFO", name)[1][0]
            if info[0] != "*":
                continue  # Redis 7.0 lacks it: hand-written row
            docs_map = as_dict(redis.call("COMMAND", "DOCS", name))[name]
            fields = info[1]
            if len(fields) != 10 or fields[0][1] != name:
                raise RuntimeError("unexpected COMMAND INFO shape for %s" % name)
            info_nodes = []
            for field in fields[:9]:
                nodes(field, info_nodes)
            pairs = docs_map[1]
            keys = [pairs[i][1] for i in range(0, len(pairs), 2)]
            if "subcommands" in keys:
                if keys[-1] != "subcommands":
                    raise RuntimeError("%s: subcommands is not the last docs field" % name)
                pairs = pairs[:-2]
            docs_nodes = []
            for p in pairs:
                nodes(p, docs_nodes)
            specs = [key_spec(s) for s in fields[8][1]]
            flags = [f[1] for f in fields[2][1]]
            i = ident(name)
            body.append(("static const struct meta_node info_%s[] = {" % i, info_nodes))
            body.append(("static const struct meta_node docs_%s[] = {" % i, docs_nodes))
            if specs:
                body.append(("static const struct key_spec keys_%s[] = {" % i, specs))
            rows.append("{%s, %s, %d, %s, %d, %s, %s}" % (
                c_string(name), "keys_" + i if specs else "NULL", len(specs),
                "true" if "no_mandatory_keys" in flags else "false", len(pairs) // 2,
                "info_" + i, "docs_" + i))
    finally:
        for p in procs:
            p.terminate()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("/* command_meta_table.c - GENERATED by tools/command_meta_gen.py from redis-server")
    print(" * 7.0.15's COMMAND INFO and COMMAND DOCS for the commands goblin-core implements.")
    print(" * Do not edit: run `make command-meta` (see command_meta.h). */")
    print('#include "commands/command_meta.h"')
    print()
    print("/* clang-format off */")
    print("#define A(v) {.type = META_ARRAY, .n = (v)}")
    print("#define T(v) {.type = META_SET, .n = (v)}")
    print("#define M(v) {.type = META_MAP, .n = (v)}")
    print("#define S(v) {.type = META_STATUS, .s = (v)}")
    print("#define B(v) {.type = META_BULK, .s = (v)}")
    print("#define I(v) {.type = META_INT, .n = (v)}")
    print()
    for line in body:
        print(wrap(line))
    print()
    print("const struct command_meta command_meta_table[] = {")
    for row in rows:
        print("    %s," % row)
    print("};")
    print("const size_t command_meta_count = %d;" % len(rows))


if __name__ == "__main__":
    main()
