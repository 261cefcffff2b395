/* cmd_geo.c — the GEO commands (GEOADD, GEODIST, GEOHASH, GEOPOS,
 * GEORADIUS[_RO], GEORADIUSBYMEMBER[_RO], GEOSEARCH, GEOSEARCHSTORE) with
 * Redis 7.0's arguments, checking order, errors and reply formats.
 *
 * A GEO key is a sorted set: each member's score is its 52-bit geohash
 * (store/geohash.h), so TYPE says zset and every sorted-set command works
 * on it. GEOADD is ZADD with computed scores (zset_add_scored; the AOF
 * gets the ZADD, commands/propagate.c); searches scan the set through its
 * range API (store/geo_search.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands/sorted_set/cmd_zset.h"
#include "commands/typed_args.h"
#include "store/geo_search.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

/* GEOADD parses every coordinate before writing; this many fit on the stack. */
#define GEOADD_STACK_SCORES 32

/* longitude, latitude at argv[i], argv[i+1], within the WGS84 limits. */
static bool parse_lonlat(struct cmd_ctx *ctx, int i, double *lon, double *lat)
{
    if (!arg_to_double(ctx, i, lon) || !arg_to_double(ctx, i + 1, lat)) return false;
    if (*lon < GEO_LONG_MIN || *lon > GEO_LONG_MAX || *lat < GEO_LAT_MIN || *lat > GEO_LAT_MAX) {
        reply_error_fmt(ctx->reply, "ERR invalid longitude,latitude pair %f,%f", *lon, *lat);
        return false;
    }
    return true;
}

/* Metres per unit of argv[i] (m, km, ft, mi); replies and returns -1 otherwise. */
static double parse_unit(struct cmd_ctx *ctx, int i)
{
    static const struct {
        const char *name;
        double metres;
    } units[] = {{"m", 1}, {"km", 1000}, {"ft", 0.3048}, {"mi", 1609.34}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (arg_equals(ctx, i, units[u].name)) return units[u].metres;
    reply_error(ctx->reply, "ERR unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* A non-negative number at argv[i] (`what` names it in the error). */
static bool parse_length(struct cmd_ctx *ctx, int i, const char *what, double *out)
{
    if (num_parse_double(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error_fmt(ctx->reply, "ERR need numeric %s", what);
    return false;
}

/* <radius> <unit> at argv[i]. */
static bool parse_radius(struct cmd_ctx *ctx, int i, struct geo_shape *shape)
{
    double radius;
    if (!parse_length(ctx, i, "radius", &radius)) return false;
    if (radius < 0) {
        reply_error(ctx->reply, "ERR radius cannot be negative");
        return false;
    }
    double conversion = parse_unit(ctx, i + 1);
    if (conversion < 0) return false;
    shape->radius = radius;
    shape->conversion = conversion;
    return true;
}

/* <width> <height> <unit> at argv[i]. */
static bool parse_box(struct cmd_ctx *ctx, int i, struct geo_shape *shape)
{
    double width, height;
    if (!parse_length(ctx, i, "width", &width) || !parse_length(ctx, i + 1, "height", &height))
        return false;
    if (height < 0 || width < 0) {
        reply_error(ctx->reply, "ERR height or width cannot be negative");
        return false;
    }
    double conversion = parse_unit(ctx, i + 2);
    if (conversion < 0) return false;
    shape->width = width;
    shape->height = height;
    shape->conversion = conversion;
    return true;
}

/* The point of the member at argv[i]; false when it is not in the set. */
static bool member_point(struct cmd_ctx *ctx, struct zset *z, int i, double *lon, double *lat)
{
    double score, xy[2];
    if (!zset_score(z, ctx->argv[i], ctx->argv_len[i], &score)) return false;
    geo_score_to_point(score, xy);
    *lon = xy[0];
    *lat = xy[1];
    return true;
}

/* A distance as Redis replies it: a bulk string with four decimals. */
static void reply_distance(struct reply *r, double d)
{
    char buf[48];
    reply_bulk(r, buf, num_format_fixed(buf, d, 4));
}

/* --- GEOADD key [NX|XX] [CH] longitude latitude member ... ------------------- */

static void cmd_geoadd(struct cmd_ctx *ctx)
{
    int flags;
    bool ch;
    int first =
        zset_parse_add_options(ctx, 2, ZSET_ADD_NX | ZSET_ADD_XX | ZADD_OPTION_CH, &flags, &ch);
    int elements = (ctx->argc - first) / 3;
    if ((ctx->argc - first) % 3 || elements == 0 ||
        ((flags & ZSET_ADD_NX) && (flags & ZSET_ADD_XX))) {
        reply_error_syntax(ctx->reply);
        return;
    }
    /* Every coordinate is checked before anything is written. */
    double stack[GEOADD_STACK_SCORES];
    double *scores = elements <= GEOADD_STACK_SCORES ? stack : xmalloc(sizeof *scores * elements);
    int j = 0;
    for (; j < elements; j++) {
        double lon, lat;
        if (!parse_lonlat(ctx, first + 3 * j, &lon, &lat)) break;
        scores[j] = (double)geo_score_of(lon, lat);
    }
    if (j == elements) zset_add_scored(ctx, flags, ch, scores, elements, first + 2, 3);
    if (scores != stack) xfree(scores);
}

/* --- GEODIST, GEOHASH, GEOPOS -------------------------------------------------- */

static void cmd_geodist(struct cmd_ctx *ctx)
{
    double to_metres = 1;
    if (ctx->argc == 5) {
        to_metres = parse_unit(ctx, 4);
        if (to_metres < 0) return;
    } else if (ctx->argc > 5) {
        reply_error_syntax(ctx->reply);
        return;
    }
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    double lon1, lat1, lon2, lat2;
    if (!kv || !member_point(ctx, zset_of(kv), 2, &lon1, &lat1) ||
        !member_point(ctx, zset_of(kv), 3, &lon2, &lat2)) {
        reply_nil(ctx->reply);
        return;
    }
    reply_distance(ctx->reply, geo_distance(lon1, lat1, lon2, lat2) / to_metres);
}

static void cmd_geohash(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++) {
        double score;
        if (!kv || !zset_score(zset_of(kv), ctx->argv[i], ctx->argv_len[i], &score)) {
            reply_nil(ctx->reply);
            continue;
        }
        char hash[11];
        geo_score_to_string(score, hash);
        reply_bulk(ctx->reply, hash, sizeof hash);
    }
}

static void reply_point(struct reply *r, double lon, double lat)
{
    reply_array_len(r, 2);
    reply_double_human(r, lon);
    reply_double_human(r, lat);
}

static void cmd_geopos(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++) {
        double lon, lat;
        if (kv && member_point(ctx, zset_of(kv), i, &lon, &lat))
            reply_point(ctx->reply, lon, lat);
        else
            reply_nil_array(ctx->reply);
    }
}

/* --- searches ------------------------------------------------------------------ */

enum search_form {
    SEARCH_COORDS = 1 << 0,     /* GEORADIUS: centre given as longitude latitude */
    SEARCH_MEMBER = 1 << 1,     /* GEORADIUSBYMEMBER: centre is a member */
    SEARCH_NO_STORE = 1 << 2,   /* the _RO forms: no STORE/STOREDIST */
    SEARCH_GEOSEARCH = 1 << 3,  /* GEOSEARCH's FROM.../BY... arguments */
    SEARCH_STORE_FORM = 1 << 4, /* GEOSEARCHSTORE: destination first, STOREDIST flag */
};

enum search_order { ORDER_NONE, ORDER_ASC, ORDER_DESC };

struct search_args {
    struct geo_shape shape;
    int store_i; /* argv index of the destination, 0 for none */
    bool store_dist;
    bool with_dist, with_hash, with_coord;
    bool any;
    long long count; /* 0: all */
    enum search_order order;
};

/* The options from argv[base] on, in Redis's order of checks; replies
 * and returns false on an error. z is NULL when the key is absent (then
 * FROMMEMBER is not looked up: the reply is empty anyway). */
static bool parse_search_options(struct cmd_ctx *ctx, int base, int form, struct zset *z,
                                 struct search_args *a)
{
    bool geosearch = form & SEARCH_GEOSEARCH;
    bool may_store = !(form & SEARCH_NO_STORE) && !geosearch;
    bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
    int remaining = ctx->argc - base;
    for (int k = 0; k < remaining; k++) {
        int i = base + k;
        if (arg_equals(ctx, i, "withdist")) {
            a->with_dist = true;
        } else if (arg_equals(ctx, i, "withhash")) {
            a->with_hash = true;
        } else if (arg_equals(ctx, i, "withcoord")) {
            a->with_coord = true;
        } else if (arg_equals(ctx, i, "any")) {
            a->any = true;
        } else if (arg_equals(ctx, i, "asc")) {
            a->order = ORDER_ASC;
        } else if (arg_equals(ctx, i, "desc")) {
            a->order = ORDER_DESC;
        } else if (arg_equals(ctx, i, "count") && k + 1 < remaining) {
            if (!arg_to_ll(ctx, i + 1, &a->count)) return false;
            if (a->count <= 0) {
                reply_error(ctx->reply, "ERR COUNT must be > 0");
                return false;
            }
            k++;
        } else if (may_store && k + 1 < remaining &&
                   (arg_equals(ctx, i, "store") || arg_equals(ctx, i, "storedist"))) {
            a->store_i = i + 1;
            a->store_dist = arg_equals(ctx, i, "storedist");
            k++;
        } else if ((form & SEARCH_STORE_FORM) && arg_equals(ctx, i, "storedist")) {
            a->store_dist = true;
        } else if (geosearch && !from_lonlat && k + 1 < remaining &&
                   arg_equals(ctx, i, "frommember")) {
            if (z && !member_point(ctx, z, i + 1, &a->shape.lon, &a->shape.lat)) {
                reply_error(ctx->reply, "ERR could not decode requested zset member");
                return false;
            }
            from_member = true;
            k++;
        } else if (geosearch && !from_member && k + 2 < remaining &&
                   arg_equals(ctx, i, "fromlonlat")) {
            if (!parse_lonlat(ctx, i + 1, &a->shape.lon, &a->shape.lat)) return false;
            from_lonlat = true;
            k += 2;
        } else if (geosearch && !by_box && k + 2 < remaining && arg_equals(ctx, i, "byradius")) {
            if (!parse_radius(ctx, i + 1, &a->shape)) return false;
            a->shape.kind = GEO_SHAPE_RADIUS;
            by_radius = true;
            k += 2;
        } else if (geosearch && !by_radius && k + 3 < remaining && arg_equals(ctx, i, "bybox")) {
            if (!parse_box(ctx, i + 1, &a->shape)) return false;
            a->shape.kind = GEO_SHAPE_BOX;
            by_box = true;
            k += 3;
        } else {
            reply_error_syntax(ctx->reply);
            return false;
        }
    }
    if (a->store_i && (a->with_dist || a->with_hash || a->with_coord)) {
        reply_error_fmt(
            ctx->reply, "ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
            (form & SEARCH_STORE_FORM) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
        return false;
    }
    if (geosearch && !from_member && !from_lonlat) {
        reply_error_fmt(ctx->reply,
                        "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %.*s",
                        (int)ctx->argv_len[0], ctx->argv[0]);
        return false;
    }
    if (geosearch && !by_radius && !by_box) {
        reply_error_fmt(ctx->reply,
                        "ERR exactly one of BYRADIUS and BYBOX can be specified for %.*s",
                        (int)ctx->argv_len[0], ctx->argv[0]);
        return false;
    }
    if (a->any && !a->count) {
        reply_error(ctx->reply, "ERR the ANY argument requires COUNT argument");
        return false;
    }
    return true;
}

static void reply_points(struct reply *r, const struct search_args *a, const struct geo_points *p,
                         size_t n)
{
    int options = a->with_dist + a->with_hash + a->with_coord;
    reply_array_len(r, (long long)n);
    for (size_t i = 0; i < n; i++) {
        const struct geo_point *gp = &p->items[i];
        if (options) reply_array_len(r, options + 1);
        reply_bulk(r, gp->member, gp->len);
        if (a->with_dist) reply_distance(r, gp->dist / a->shape.conversion);
        if (a->with_hash) reply_int(r, (long long)gp->score);
        if (a->with_coord) reply_point(r, gp->lon, gp->lat);
    }
}

/* The first n points as a sorted set under the destination (scores: their
 * geohash, or their distance with STOREDIST), or the destination deleted
 * when n is 0; replies n. */
static void store_points(struct cmd_ctx *ctx, const struct search_args *a,
                         const struct geo_points *p, size_t n, int form)
{
    const char *event = (form & SEARCH_GEOSEARCH) ? "geosearchstore" : "georadiusstore";
    struct zset *result = NULL;
    if (n) {
        result = zset_new_sized(n);
        for (size_t i = 0; i < n; i++) {
            const struct geo_point *gp = &p->items[i];
            double score = a->store_dist ? gp->dist / a->shape.conversion : gp->score;
            double stored;
            zset_add(result, gp->member, gp->len, score, 0, &stored);
        }
        zset_compact_if_small(result);
    }
    enum obj_encoding enc = result && !zset_is_compact(result) ? ENC_SKIPLIST : ENC_LISTPACK;
    store_container_result_as(ctx, a->store_i, OBJ_ZSET, enc, result, n, event,
                              n ? (long long)n : 1);
}

static void search_generic(struct cmd_ctx *ctx, int src_i, int form)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, src_i, OBJ_ZSET, &replied);
    if (replied) return;
    struct zset *z = kv ? zset_of(kv) : NULL;
    struct search_args a = {.shape = {.kind = GEO_SHAPE_RADIUS}};
    int base;
    if (form & SEARCH_COORDS) {
        base = 6;
        if (!parse_lonlat(ctx, 2, &a.shape.lon, &a.shape.lat) || !parse_radius(ctx, 4, &a.shape))
            return;
    } else if (form & SEARCH_MEMBER) {
        /* Without the key, the member and the radius are not read. */
        base = 5;
        if (z) {
            if (!member_point(ctx, z, 2, &a.shape.lon, &a.shape.lat)) {
                reply_error(ctx->reply, "ERR could not decode requested zset member");
                return;
            }
            if (!parse_radius(ctx, 3, &a.shape)) return;
        }
    } else {
        base = (form & SEARCH_STORE_FORM) ? 3 : 2;
        if (form & SEARCH_STORE_FORM) a.store_i = 1;
    }
    if (!parse_search_options(ctx, base, form, z, &a)) return;

    if (!z) {
        if (a.store_i)
            store_points(ctx, &a, NULL, 0, form);
        else
            reply_array_len(ctx->reply, 0);
        return;
    }
    /* COUNT without an order means the nearest COUNT (unless ANY). */
    if (a.count && a.order == ORDER_NONE && !a.any) a.order = ORDER_ASC;

    struct geo_points p;
    geo_points_init(&p);
    geo_search(z, &a.shape, a.any ? (size_t)a.count : 0, &p);
    size_t n = a.count == 0 || p.used < (size_t)a.count ? p.used : (size_t)a.count;
    if (a.order != ORDER_NONE) geo_points_sort(&p, a.order == ORDER_DESC, n);
    if (a.store_i)
        store_points(ctx, &a, &p, n, form);
    else
        reply_points(ctx->reply, &a, &p, n);
    geo_points_release(&p);
}

static void cmd_georadius(struct cmd_ctx *ctx)
{
    search_generic(ctx, 1, SEARCH_COORDS);
}

static void cmd_georadius_ro(struct cmd_ctx *ctx)
{
    search_generic(ctx, 1, SEARCH_COORDS | SEARCH_NO_STORE);
}

static void cmd_georadiusbymember(struct cmd_ctx *ctx)
{
    search_generic(ctx, 1, SEARCH_MEMBER);
}

static void cmd_georadiusbymember_ro(struct cmd_ctx *ctx)
{
    search_generic(ctx, 1, SEARCH_MEMBER | SEARCH_NO_STORE);
}

static void cmd_geosearch(struct cmd_ctx *ctx)
{
    search_generic(ctx, 1, SEARCH_GEOSEARCH);
}

static void cmd_geosearchstore(struct cmd_ctx *ctx)
{
    search_generic(ctx, 2, SEARCH_GEOSEARCH | SEARCH_STORE_FORM);
}

/* --- table --------------------------------------------------------------------- */

#define GEO_DOC(s, v, c) .summary = s, .since = v, .group = "geo", .complexity = c
#define KEY1 .first_key = 1, .last_key = 1, .key_step = 1

struct command geo_commands[] = {
    {.name = "geoadd",
     .arity = -5,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_geoadd,
     KEY1,
     GEO_DOC(
         "Adds one or more members to a geospatial index. The key is created if it doesn't "
         "exist.",
         "3.2.0",
         "O(log(N)) for each item added, where N is the number of elements in the sorted set.")},
    {.name = "geodist",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_geodist,
     KEY1,
     GEO_DOC("Returns the distance between two members of a geospatial index.", "3.2.0",
             "O(log(N))")},
    {.name = "geohash",
     .arity = -2,
     .flags = CMD_READONLY,
     .fn = cmd_geohash,
     KEY1,
     GEO_DOC("Returns members from a geospatial index as geohash strings.", "3.2.0",
             "O(log(N)) for each member requested, where N is the number of elements in the "
             "sorted set.")},
    {.name = "geopos",
     .arity = -2,
     .flags = CMD_READONLY,
     .fn = cmd_geopos,
     KEY1,
     GEO_DOC("Returns the longitude and latitude of members from a geospatial index.", "3.2.0",
             "O(N) where N is the number of members requested.")},
    {.name = "georadius",
     .arity = -6,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_georadius,
     KEY1,
     GEO_DOC("Queries a geospatial index for members within a distance from a coordinate, "
             "optionally stores the result.",
             "3.2.0",
             "O(N+log(M)) where N is the number of elements inside the bounding box of the "
             "circular area delimited by center and radius and M is the number of items inside "
             "the index.")},
    {.name = "georadius_ro",
     .arity = -6,
     .flags = CMD_READONLY,
     .fn = cmd_georadius_ro,
     KEY1,
     GEO_DOC("Returns members from a geospatial index that are within a distance from a "
             "coordinate.",
             "3.2.10",
             "O(N+log(M)) where N is the number of elements inside the bounding box of the "
             "circular area delimited by center and radius and M is the number of items inside "
             "the index.")},
    {.name = "georadiusbymember",
     .arity = -5,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_georadiusbymember,
     KEY1,
     GEO_DOC("Queries a geospatial index for members within a distance from a member, "
             "optionally stores the result.",
             "3.2.0",
             "O(N+log(M)) where N is the number of elements inside the bounding box of the "
             "circular area delimited by center and radius and M is the number of items inside "
             "the index.")},
    {.name = "georadiusbymember_ro",
     .arity = -5,
     .flags = CMD_READONLY,
     .fn = cmd_georadiusbymember_ro,
     KEY1,
     GEO_DOC("Returns members from a geospatial index that are within a distance from a "
             "member.",
             "3.2.10",
             "O(N+log(M)) where N is the number of elements inside the bounding box of the "
             "circular area delimited by center and radius and M is the number of items inside "
             "the index.")},
    {.name = "geosearch",
     .arity = -7,
     .flags = CMD_READONLY,
     .fn = cmd_geosearch,
     KEY1,
     GEO_DOC("Queries a geospatial index for members inside an area of a box or a circle.", "6.2.0",
             "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box "
             "area around the shape provided as the filter and M is the number of items inside "
             "the shape")},
    {.name = "geosearchstore",
     .arity = -8,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_geosearchstore,
     .first_key = 1,
     .last_key = 2,
     .key_step = 1,
     GEO_DOC("Queries a geospatial index for members inside an area of a box or a circle, "
             "optionally stores the result.",
             "6.2.0",
             "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box "
             "area around the shape provided as the filter and M is the number of items inside "
             "the shape")},
    COMMAND_END,
};
