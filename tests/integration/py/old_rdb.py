"""Writes an RDB file as Redis before 7.0 wrote small values: hashes and
sorted sets as ziplists (types 13, 12), lists as one ziplist (type 10) and
as a quicklist of ziplists (type 14), and a hash as Redis before 2.6 wrote
it, a zipmap (type 9). Every ziplist entry form appears:
strings of 6-, 14- and 32-bit length, integers 0..12 held in the encoding
byte, int8/16/24/32/64, and 5-byte previous-entry lengths (after an entry of
254 bytes or more). The checksum is 0 (not checked, as Redis writes it with
rdbchecksum no).

    python3 old_rdb.py PATH [corrupt]

With `corrupt`, one entry's previous length is off by one (the file must
be refused)."""
import struct
import sys


def rdb_len(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    return b"\x80" + struct.pack(">I", n)


def rdb_str(b):
    return rdb_len(len(b)) + b


def zl_entry(value, prev):
    """One entry whose previous entry took `prev` bytes."""
    head = bytes([prev]) if prev < 254 else b"\xfe" + struct.pack("<I", prev)
    if isinstance(value, int):
        v = value
        if 0 <= v <= 12:
            enc = bytes([0xF1 + v])
        elif -128 <= v <= 127:
            enc = b"\xfe" + struct.pack("<b", v)
        elif -(1 << 15) <= v < (1 << 15):
            enc = b"\xc0" + struct.pack("<h", v)
        elif -(1 << 23) <= v < (1 << 23):
            enc = b"\xf0" + struct.pack("<i", v)[:3]
        elif -(1 << 31) <= v < (1 << 31):
            enc = b"\xd0" + struct.pack("<i", v)
        else:
            enc = b"\xe0" + struct.pack("<q", v)
    else:
        n = len(value)
        if n < 64:
            enc = bytes([n]) + value
        elif n < 16384:
            enc = bytes([0x40 | (n >> 8), n & 0xFF]) + value
        else:
            enc = b"\x80" + struct.pack(">I", n) + value
    return head + enc


def zipmap(pairs):
    """Redis < 2.6's hash encoding: count, then field, value (with its free
    bytes after it), lengths of 1 byte or 254 and a u32."""
    def zm_len(n):
        return bytes([n]) if n < 254 else b"\xfe" + struct.pack("<I", n)
    out = bytes([len(pairs) if len(pairs) < 254 else 254])
    for i, (f, v) in enumerate(pairs):
        free = i % 3  # some values carry unused bytes after them
        out += zm_len(len(f)) + f + zm_len(len(v)) + bytes([free]) + v + b"\0" * free
    return out + b"\xff"


def ziplist(values, corrupt=False):
    body, prev, tail = b"", 0, 10
    for i, v in enumerate(values):
        e = zl_entry(v, prev + (1 if corrupt and i == 2 else 0))
        tail = 10 + len(body)
        body += e
        prev = len(e)
    total = 10 + len(body) + 1
    count = len(values) if len(values) < 65535 else 65535
    return struct.pack("<IIH", total, tail, count) + body + b"\xff"


def main():
    path = sys.argv[1]
    corrupt = len(sys.argv) > 2 and sys.argv[2] == "corrupt"
    ints = [0, 7, 12, 13, -1, 127, -128, 300, -30000, 70000, -8000000, 1 << 30,
            -(1 << 31), 1 << 40, -(1 << 62)]
    strings = [b"", b"short", b"m" * 100, b"L" * 300, b"after-long", b"h" * 20000]
    out = b"REDIS0009" + b"\xfe\x00"
    # hash: field/value pairs, ints and strings mixed
    pairs = []
    for i, v in enumerate(ints + strings):
        pairs += [b"f%d" % i, v]
    out += b"\x0d" + rdb_str(b"oldhash") + rdb_str(ziplist(pairs, corrupt))
    # zset: member, score (scores as ints and as text),
    # in score order, as Redis keeps a ziplist sorted set
    members = [(b"m%d" % i, score) for i, score in
               enumerate([1, -5, 1 << 33, b"1.5", b"-0.25", b"3e10", 0])]
    members.append((b"long-member-" + b"z" * 300, b"2.75"))
    members.sort(key=lambda m: (float(m[1]), m[0]))
    zs = [x for m in members for x in m]
    out += b"\x0c" + rdb_str(b"oldzset") + rdb_str(ziplist(zs))
    # list: one ziplist
    out += b"\x0a" + rdb_str(b"oldlist") + rdb_str(ziplist(ints + strings))
    # list: a quicklist of two ziplist nodes
    out += b"\x0e" + rdb_str(b"oldquicklist") + rdb_len(2)
    out += rdb_str(ziplist([b"a", b"b", 3, b"x" * 260]))
    out += rdb_str(ziplist([4, b"tail"]))
    # a zipmap hash (type 9), one value longer than 253 bytes
    out += b"\x09" + rdb_str(b"zipmaphash") + rdb_str(
        zipmap([(b"f1", b"v1"), (b"", b"empty-field"), (b"big", b"B" * 400), (b"n", b"42")]))
    # an empty-string key holding a one-entry hash
    out += b"\x0d" + rdb_str(b"tiny") + rdb_str(ziplist([b"k", b"v"]))
    out += b"\xff" + b"\x00" * 8
    open(path, "wb").write(out)


main()
