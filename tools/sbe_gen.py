#!/usr/bin/env python3
"""sbe_gen.py - generates the C codec of an SBE schema (Python 3 stdlib only).

Usage: tools/sbe_gen.py schema/goblin_sbe.xml > include/goblin/sbe_codec.h
       (then clang-format -i include/goblin/sbe_codec.h; `make sbe` does both)

It runs when the schema changes, not on every build: the output is checked
in, and tests/integration/test_sbe_codegen.sh fails when regenerating would
change it.

The output is one header of static inline functions: flyweight accessors over
a message's fixed block (get/put at schema offsets, little-endian), a
validating decoder per message that walks its groups and var-data with every
length checked against the buffer (no allocation: views point into the
buffer), and writer helpers that append a message to a caller's buffer with
overflow detected, never past its capacity.

Supported subset (what the schema uses; anything else is refused, not
silently mis-generated): primitive fields, enums and sets of uint8, groups of
fixed fields plus var-data (no nested groups), var-data of varDataEncoding
(uint32 length), the standard messageHeader and groupSizeEncoding.
"""
import re
import sys
import xml.etree.ElementTree as ET

PRIMS = {
    "uint8": ("uint8_t", 1, "u8"),
    "int8": ("int8_t", 1, "u8"),
    "uint16": ("uint16_t", 2, "u16"),
    "int16": ("int16_t", 2, "u16"),
    "uint32": ("uint32_t", 4, "u32"),
    "int32": ("int32_t", 4, "u32"),
    "uint64": ("uint64_t", 8, "u64"),
    "int64": ("int64_t", 8, "u64"),
    "double": ("double", 8, "f64"),
}


def snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return s.lower()


def die(msg):
    sys.stderr.write("sbe_gen: %s\n" % msg)
    sys.exit(1)


class Schema:
    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.id = int(root.get("id"))
        self.version = int(root.get("version", "0"))
        self.package = root.get("package")
        self.types = {}  # name -> (ctype, size, accessor, kind)
        self.enums = []  # (name, [(value_name, value)])
        self.sets = []
        self.messages = []
        for types in root.findall("types"):
            for t in types:
                self.add_type(t)
        self.check_composites(root)
        ids = []
        for m in root.findall("{http://fixprotocol.io/2016/sbe}message"):
            self.messages.append(self.parse_message(m))
            ids.append(int(m.get("id")))
        if ids != list(range(1, len(ids) + 1)):
            die("template ids must be dense from 1 in file order: %s" % ids)

    def add_type(self, t):
        name = t.get("name")
        if t.tag == "enum" or t.tag == "set":
            enc = t.get("encodingType")
            if enc != "uint8":
                die("%s %s: only uint8 encoding is supported" % (t.tag, name))
            values = []
            for v in t:
                values.append((v.get("name"), int(v.text.strip())))
            (self.enums if t.tag == "enum" else self.sets).append((name, values))
            self.types[name] = ("uint8_t", 1, "u8", t.tag)
        elif t.tag == "type":
            prim = t.get("primitiveType")
            if prim not in PRIMS:
                die("type %s: primitive %s unsupported" % (name, prim))
            c, size, acc = PRIMS[prim]
            self.types[name] = (c, size, acc, "type")
        elif t.tag == "composite":
            pass
        else:
            die("unsupported type element %s" % t.tag)

    def check_composites(self, root):
        want = {
            "messageHeader": [("blockLength", "uint16"), ("templateId", "uint16"),
                              ("schemaId", "uint16"), ("version", "uint16")],
            "groupSizeEncoding": [("blockLength", "uint16"), ("numInGroup", "uint16")],
            "varDataEncoding": [("length", "uint32"), ("varData", "uint8")],
        }
        found = {}
        for types in root.findall("types"):
            for c in types.findall("composite"):
                found[c.get("name")] = [(x.get("name"), x.get("primitiveType")) for x in c]
        for name, fields in want.items():
            if found.get(name) != fields:
                die("composite %s must be %s" % (name, fields))

    def field_type(self, f):
        t = f.get("type")
        if t in PRIMS:
            c, size, acc = PRIMS[t]
            return (c, size, acc, "type")
        if t not in self.types:
            die("field %s: unknown type %s" % (f.get("name"), t))
        return self.types[t]

    def parse_fields(self, elem, where):
        fields, groups, datas = [], [], []
        offset = 0
        for x in elem:
            tag = x.tag.split("}")[-1]
            if tag == "field":
                if groups or datas:
                    die("%s: fields must precede groups and data" % where)
                c, size, acc, kind = self.field_type(x)
                fields.append({"name": x.get("name"), "c": c, "size": size, "acc": acc,
                               "offset": offset})
                offset += size
            elif tag == "group":
                if datas:
                    die("%s: groups must precede data" % where)
                if where.count(".") > 0:
                    die("%s: nested groups are not supported" % where)
                if x.get("dimensionType", "groupSizeEncoding") != "groupSizeEncoding":
                    die("%s: groups use groupSizeEncoding" % where)
                gf, gg, gd, gblock = self.parse_fields(x, where + "." + x.get("name"))
                groups.append({"name": x.get("name"), "fields": gf, "datas": gd,
                               "block": gblock})
            elif tag == "data":
                if x.get("type") != "varDataEncoding":
                    die("%s: data uses varDataEncoding" % where)
                datas.append(x.get("name"))
            else:
                die("%s: unsupported element %s" % (where, tag))
        return fields, groups, datas, offset

    def parse_message(self, m):
        name = m.get("name")
        fields, groups, datas, block = self.parse_fields(m, name)
        return {"name": name, "id": int(m.get("id")), "fields": fields, "groups": groups,
                "datas": datas, "block": block}


PREAMBLE = r"""/*
 * sbe_codec.h — GENERATED by tools/sbe_gen.py from schema/goblin_sbe.xml.
 * Do not edit: change the schema and run `make sbe` (the tests fail when
 * this file is stale).
 *
 * A message on the wire: [uint32 length][messageHeader][block][groups][data],
 * little-endian; `length` counts the bytes after itself. For each message:
 *   goblin_sbe_<m>_decode(body, len, acting_block_length, &view)
 *       validates a body (the bytes after the header) against the schema:
 *       the acting block length at least the schema's, every group
 *       dimension, entry and var-data inside `len`; 0 or a negative
 *       enum goblin_sbe_error. The view points into the buffer.
 *   goblin_sbe_<m>_<field>(block) / goblin_sbe_<m>_put_<field>(block, v)
 *       fixed-field flyweight accessors at the schema's offsets.
 *   goblin_sbe_<m>_begin(writer) appends a header and a zeroed block and
 *       returns the block (NULL once the writer overflowed); groups and
 *       var-data follow in schema order (goblin_sbe_group_begin,
 *       goblin_sbe_<m>_<g>_entry, goblin_sbe_put_data).
 */
#ifndef GOBLIN_SBE_CODEC_H
#define GOBLIN_SBE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GOBLIN_SBE_FRAME_PREFIX 4  /* uint32 length before every message */
#define GOBLIN_SBE_HEADER_LENGTH 8 /* messageHeader */
#define GOBLIN_SBE_GROUP_HEADER_LENGTH 4
#define GOBLIN_SBE_DATA_HEADER_LENGTH 4
#define GOBLIN_SBE_GROUP_MAX_COUNT 65535u     /* numInGroup is a uint16 */
#define GOBLIN_SBE_DATA_MAX_LENGTH 1073741824u /* varDataEncoding.length maxValue */

enum goblin_sbe_error {
    GOBLIN_SBE_OK = 0,
    GOBLIN_SBE_E_SHORT = -1, /* shorter than its header or its fixed block */
    GOBLIN_SBE_E_BLOCK = -2, /* acting blockLength smaller than the schema's */
    GOBLIN_SBE_E_GROUP = -3, /* a group dimension or entry runs past the message */
    GOBLIN_SBE_E_DATA = -4,  /* var-data runs past the message or exceeds its maxValue */
};

/* --- little-endian primitives ------------------------------------------ */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GOBLIN_SBE_LE16(x) __builtin_bswap16(x)
#define GOBLIN_SBE_LE32(x) __builtin_bswap32(x)
#define GOBLIN_SBE_LE64(x) __builtin_bswap64(x)
#else
#define GOBLIN_SBE_LE16(x) (x)
#define GOBLIN_SBE_LE32(x) (x)
#define GOBLIN_SBE_LE64(x) (x)
#endif

static inline uint8_t goblin_sbe_get_u8(const uint8_t *p)
{
    return p[0];
}
static inline void goblin_sbe_put_u8(uint8_t *p, uint8_t v)
{
    p[0] = v;
}
static inline uint16_t goblin_sbe_get_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return GOBLIN_SBE_LE16(v);
}
static inline void goblin_sbe_put_u16(uint8_t *p, uint16_t v)
{
    v = GOBLIN_SBE_LE16(v);
    memcpy(p, &v, 2);
}
static inline uint32_t goblin_sbe_get_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return GOBLIN_SBE_LE32(v);
}
static inline void goblin_sbe_put_u32(uint8_t *p, uint32_t v)
{
    v = GOBLIN_SBE_LE32(v);
    memcpy(p, &v, 4);
}
static inline uint64_t goblin_sbe_get_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return GOBLIN_SBE_LE64(v);
}
static inline void goblin_sbe_put_u64(uint8_t *p, uint64_t v)
{
    v = GOBLIN_SBE_LE64(v);
    memcpy(p, &v, 8);
}
static inline double goblin_sbe_get_f64(const uint8_t *p)
{
    uint64_t u = goblin_sbe_get_u64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static inline void goblin_sbe_put_f64(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    goblin_sbe_put_u64(p, u);
}

/* --- header, views, cursors ---------------------------------------------- */

struct goblin_sbe_header {
    uint16_t block_length;
    uint16_t template_id;
    uint16_t schema_id;
    uint16_t version;
};

static inline int goblin_sbe_header_decode(const uint8_t *p, size_t len,
                                           struct goblin_sbe_header *h)
{
    if (len < GOBLIN_SBE_HEADER_LENGTH) return GOBLIN_SBE_E_SHORT;
    h->block_length = goblin_sbe_get_u16(p);
    h->template_id = goblin_sbe_get_u16(p + 2);
    h->schema_id = goblin_sbe_get_u16(p + 4);
    h->version = goblin_sbe_get_u16(p + 6);
    return GOBLIN_SBE_OK;
}

/* Bytes inside a message (not NUL-terminated). */
struct goblin_sbe_bytes {
    const uint8_t *data;
    uint32_t len;
};

/* A validated repeating group: its entries start at `first`. */
struct goblin_sbe_group {
    const uint8_t *first;
    const uint8_t *end; /* one past the last entry */
    uint16_t block_length;
    uint16_t count;
};

/* Walks a validated group's entries (goblin_sbe_<m>_<g>_next). */
struct goblin_sbe_cursor {
    const uint8_t *p;
    const uint8_t *end;
    uint16_t block_length;
    uint16_t left;
};

static inline struct goblin_sbe_cursor goblin_sbe_group_cursor(const struct goblin_sbe_group *g)
{
    struct goblin_sbe_cursor c = {g->first, g->end, g->block_length, g->count};
    return c;
}

/* One var-data field at *p (bounds-checked); advances *p past it. */
static inline int goblin_sbe_take_data(const uint8_t **p, const uint8_t *end,
                                       struct goblin_sbe_bytes *out)
{
    out->data = NULL;
    out->len = 0;
    if ((size_t)(end - *p) < GOBLIN_SBE_DATA_HEADER_LENGTH) return GOBLIN_SBE_E_DATA;
    uint32_t n = goblin_sbe_get_u32(*p);
    *p += GOBLIN_SBE_DATA_HEADER_LENGTH;
    if (n > GOBLIN_SBE_DATA_MAX_LENGTH || (size_t)(end - *p) < n) return GOBLIN_SBE_E_DATA;
    out->data = *p;
    out->len = n;
    *p += n;
    return GOBLIN_SBE_OK;
}

/* A group's dimension at *p; each entry needs at least `schema_block`
 * fixed bytes and `datas` var-data fields, all checked against `end`. */
static inline int goblin_sbe_take_group(const uint8_t **p, const uint8_t *end,
                                        uint16_t schema_block, int datas,
                                        struct goblin_sbe_group *g)
{
    if ((size_t)(end - *p) < GOBLIN_SBE_GROUP_HEADER_LENGTH) return GOBLIN_SBE_E_GROUP;
    g->block_length = goblin_sbe_get_u16(*p);
    g->count = goblin_sbe_get_u16(*p + 2);
    *p += GOBLIN_SBE_GROUP_HEADER_LENGTH;
    if (g->block_length < schema_block) return GOBLIN_SBE_E_GROUP;
    /* Each entry takes at least its block and its data headers. */
    size_t min_entry = (size_t)g->block_length + (size_t)datas * GOBLIN_SBE_DATA_HEADER_LENGTH;
    if (min_entry && (size_t)(end - *p) / min_entry < g->count) return GOBLIN_SBE_E_GROUP;
    g->first = *p;
    for (uint16_t i = 0; i < g->count; i++) {
        if ((size_t)(end - *p) < g->block_length) return GOBLIN_SBE_E_GROUP;
        *p += g->block_length;
        for (int d = 0; d < datas; d++) {
            struct goblin_sbe_bytes skip;
            if (goblin_sbe_take_data(p, end, &skip) != GOBLIN_SBE_OK) return GOBLIN_SBE_E_DATA;
        }
    }
    g->end = *p;
    return GOBLIN_SBE_OK;
}

/* --- writer ---------------------------------------------------------------- */

/* Appends to buf[0..cap); once something does not fit, `overflow` is set and
 * nothing more is written (the caller checks it once at the end). */
struct goblin_sbe_writer {
    uint8_t *buf;
    size_t cap;
    size_t pos;
    bool overflow;
};

static inline uint8_t *goblin_sbe_writer_take(struct goblin_sbe_writer *w, size_t n)
{
    if (w->overflow || w->cap - w->pos < n) {
        w->overflow = true;
        return NULL;
    }
    uint8_t *p = w->buf + w->pos;
    w->pos += n;
    return p;
}

/* Reserves the frame's uint32 length; goblin_sbe_frame_end() fills it. */
static inline size_t goblin_sbe_frame_begin(struct goblin_sbe_writer *w)
{
    size_t at = w->pos;
    goblin_sbe_writer_take(w, GOBLIN_SBE_FRAME_PREFIX);
    return at;
}

static inline void goblin_sbe_frame_end(struct goblin_sbe_writer *w, size_t at)
{
    if (!w->overflow)
        goblin_sbe_put_u32(w->buf + at, (uint32_t)(w->pos - at - GOBLIN_SBE_FRAME_PREFIX));
}

static inline uint8_t *goblin_sbe_message_begin(struct goblin_sbe_writer *w, uint16_t block_length,
                                                uint16_t template_id, uint16_t schema_id,
                                                uint16_t version)
{
    uint8_t *h = goblin_sbe_writer_take(w, GOBLIN_SBE_HEADER_LENGTH + (size_t)block_length);
    if (!h) return NULL;
    goblin_sbe_put_u16(h, block_length);
    goblin_sbe_put_u16(h + 2, template_id);
    goblin_sbe_put_u16(h + 4, schema_id);
    goblin_sbe_put_u16(h + 6, version);
    memset(h + GOBLIN_SBE_HEADER_LENGTH, 0, block_length);
    return h + GOBLIN_SBE_HEADER_LENGTH;
}

static inline void goblin_sbe_group_begin(struct goblin_sbe_writer *w, uint16_t block_length,
                                          uint16_t count)
{
    uint8_t *p = goblin_sbe_writer_take(w, GOBLIN_SBE_GROUP_HEADER_LENGTH);
    if (!p) return;
    goblin_sbe_put_u16(p, block_length);
    goblin_sbe_put_u16(p + 2, count);
}

static inline uint8_t *goblin_sbe_entry_begin(struct goblin_sbe_writer *w, uint16_t block_length)
{
    uint8_t *p = goblin_sbe_writer_take(w, block_length);
    if (p) memset(p, 0, block_length);
    return p;
}

static inline void goblin_sbe_put_data(struct goblin_sbe_writer *w, const void *data, size_t len)
{
    if (len > GOBLIN_SBE_DATA_MAX_LENGTH) {
        w->overflow = true;
        return;
    }
    uint8_t *p = goblin_sbe_writer_take(w, GOBLIN_SBE_DATA_HEADER_LENGTH + len);
    if (!p) return;
    goblin_sbe_put_u32(p, (uint32_t)len);
    if (len) memcpy(p + GOBLIN_SBE_DATA_HEADER_LENGTH, data, len);
}
"""


def emit_accessors(out, prefix, fields):
    for f in fields:
        fn = snake(f["name"])
        up = ("%s_%s" % (prefix, fn)).upper()
        out.append("#define %s_OFFSET %d" % (up, f["offset"]))
        c, acc = f["c"], f["acc"]
        cast = "(%s)" % c if acc != "f64" else ""
        store = "(uint%d_t)" % (f["size"] * 8) if acc != "f64" else ""
        out.append("static inline %s %s_%s(const uint8_t *block)\n{\n"
                   "    return %sgoblin_sbe_get_%s(block + %s_OFFSET);\n}"
                   % (c, prefix, fn, cast, acc, up))
        out.append("static inline void %s_put_%s(uint8_t *block, %s v)\n{\n"
                   "    goblin_sbe_put_%s(block + %s_OFFSET, %sv);\n}"
                   % (prefix, fn, c, acc, up, store))


def emit_message(out, schema, m):
    name = snake(m["name"])
    prefix = "goblin_sbe_" + name
    up = prefix.upper()
    out.append("")
    out.append("/* --- %s (template %d) %s */" % (m["name"], m["id"], "-" * 20))
    out.append("")
    out.append("#define %s_TEMPLATE_ID %d" % (up, m["id"]))
    out.append("#define %s_BLOCK_LENGTH %d" % (up, m["block"]))
    emit_accessors(out, prefix, m["fields"])
    for g in m["groups"]:
        gp = "%s_%s" % (prefix, snake(g["name"]))
        gup = gp.upper()
        out.append("#define %s_BLOCK_LENGTH %d" % (gup, g["block"]))
        out.append("#define %s_DATA_COUNT %d" % (gup, len(g["datas"])))
        emit_accessors(out, gp, g["fields"])
        members = ["    const uint8_t *block;"]
        members += ["    struct goblin_sbe_bytes %s;" % snake(d) for d in g["datas"]]
        out.append("struct %s_entry {\n%s\n};" % (gp, "\n".join(members)))
        takes = "".join("    if (goblin_sbe_take_data(&c->p, c->end, &e->%s) != GOBLIN_SBE_OK)"
                        " return false;\n" % snake(d) for d in g["datas"])
        out.append(
            "/* The next entry of a validated group; false after the last. */\n"
            "static inline bool %s_next(struct goblin_sbe_cursor *c, struct %s_entry *e)\n{\n"
            "    if (c->left == 0 || (size_t)(c->end - c->p) < c->block_length) return false;\n"
            "    c->left--;\n"
            "    e->block = c->p;\n"
            "    c->p += c->block_length;\n%s"
            "    return true;\n}" % (gp, gp, takes))
        out.append(
            "static inline uint8_t *%s_entry(struct goblin_sbe_writer *w)\n{\n"
            "    return goblin_sbe_entry_begin(w, %s_BLOCK_LENGTH);\n}" % (gp, gup))
    members = ["    const uint8_t *block;"]
    members += ["    struct goblin_sbe_group %s;" % snake(g["name"]) for g in m["groups"]]
    members += ["    struct goblin_sbe_bytes %s;" % snake(d) for d in m["datas"]]
    out.append("struct %s {\n%s\n};" % (prefix, "\n".join(members)))
    body = ["    if (acting_block_length < %s_BLOCK_LENGTH) return GOBLIN_SBE_E_BLOCK;" % up,
            "    if (len < acting_block_length) return GOBLIN_SBE_E_SHORT;",
            "    const uint8_t *p = body + acting_block_length, *end = body + len;",
            "    int rc = GOBLIN_SBE_OK;",
            "    m->block = body;",
            "    (void)p;",
            "    (void)end;"]
    for g in m["groups"]:
        gup = ("%s_%s" % (prefix, snake(g["name"]))).upper()
        body.append("    rc = goblin_sbe_take_group(&p, end, %s_BLOCK_LENGTH, %s_DATA_COUNT, &m->%s);"
                    % (gup, gup, snake(g["name"])))
        body.append("    if (rc != GOBLIN_SBE_OK) return rc;")
    for d in m["datas"]:
        body.append("    rc = goblin_sbe_take_data(&p, end, &m->%s);" % snake(d))
        body.append("    if (rc != GOBLIN_SBE_OK) return rc;")
    body.append("    return rc;")
    out.append("static inline int %s_decode(const uint8_t *body, size_t len,\n"
               "    uint16_t acting_block_length, struct %s *m)\n{\n%s\n}"
               % (prefix, prefix, "\n".join(body)))
    out.append("static inline uint8_t *%s_begin(struct goblin_sbe_writer *w)\n{\n"
               "    return goblin_sbe_message_begin(w, %s_BLOCK_LENGTH, %s_TEMPLATE_ID,\n"
               "        GOBLIN_SBE_SCHEMA_ID, GOBLIN_SBE_SCHEMA_VERSION);\n}" % (prefix, up, up))


def generate(schema):
    out = [PREAMBLE.rstrip("\n"), ""]
    out.append("#define GOBLIN_SBE_SCHEMA_ID %d" % schema.id)
    out.append("#define GOBLIN_SBE_SCHEMA_VERSION %d" % schema.version)
    out.append("#define GOBLIN_SBE_TEMPLATE_COUNT %d" % len(schema.messages))
    for name, values in schema.enums:
        out.append("")
        ename = "goblin_sbe_" + snake(name)
        rows = ",\n".join("    %s_%s = %d" % (ename.upper(), v, n) for v, n in values)
        out.append("enum %s {\n%s\n};" % (ename, rows))
    for name, values in schema.sets:
        out.append("")
        sname = ("goblin_sbe_" + snake(name)).upper()
        for v, bit in values:
            out.append("#define %s_%s (1u << %d)" % (sname, v, bit))
    out.append("")
    out.append("/* Template names by id (diagnostics). */")
    names = ", ".join('"%s"' % m["name"] for m in schema.messages)
    out.append("static const char *const goblin_sbe_template_names[GOBLIN_SBE_TEMPLATE_COUNT + 1] "
               "= {NULL, %s};" % names)
    for m in schema.messages:
        emit_message(out, schema, m)
    out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        die("usage: sbe_gen.py SCHEMA.xml > sbe_codec.h")
    sys.stdout.write(generate(Schema(sys.argv[1])))


if __name__ == "__main__":
    main()
