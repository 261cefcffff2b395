/*
 * Differential test of the GEO commands against redis-server, byte for
 * byte, in RESP2 and then RESP3: GEOADD (NX, XX, CH), GEODIST, GEOHASH,
 * GEOPOS, GEORADIUS, GEORADIUSBYMEMBER and their _RO forms, GEOSEARCH and
 * GEOSEARCHSTORE.
 *
 *  - Directed cases: every error text in Redis's order of checks (a bad
 *    coordinate before WRONGTYPE, a missing key before the radius of
 *    GEORADIUSBYMEMBER is read, ...), units, the WGS84 limits exactly and
 *    just past them, boxes across ±180°, searches at the latitude limits,
 *    radii of 0, of a millimetre, of half the planet and infinite, scores
 *    no GEOADD writes (ZADD -1, 1e300, inf) read back by GEOPOS, GEOHASH
 *    and searches, and members that are sorted-set members (TYPE,
 *    ZRANGE, OBJECT ENCODING, stores over other types).
 *  - Seeded random sets, one small (listpack) and one large (skiplist),
 *    of points spread over the globe, packed near ±180° and near the
 *    poles' limits, and stacked on identical coordinates, so equal
 *    distances exercise both of Redis's sort orders (the stable full sort
 *    and the partial quicksort under COUNT). Then random searches of every
 *    form with a random subset of every option; each STORE is followed by
 *    ZRANGE WITHSCORES of its destination.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util/rand.h"

static struct diff_pair d;
static bool resp3;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)
#define MAX_ARGS 32

static size_t pick(size_t n)
{
    return (size_t)rand_below(n);
}

/* A uniform double in [lo, hi]. */
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rand_u64() >> 11) / (double)(1ULL << 53));
}

struct cmd {
    int argc;
    const char *argv[MAX_ARGS];
    char text[MAX_ARGS][48];
};

static void add(struct cmd *c, const char *a)
{
    c->argv[c->argc++] = a;
}

static void addf(struct cmd *c, const char *fmt, double v)
{
    snprintf(c->text[c->argc], sizeof c->text[0], fmt, v);
    add(c, c->text[c->argc]);
}

static void run(struct cmd *c)
{
    if (getenv("DIFF_TRACE")) {
        for (int i = 0; i < c->argc; i++) fprintf(stderr, "%s ", c->argv[i]);
        fprintf(stderr, "(%s)\n", resp3 ? "RESP3" : "RESP2");
    }
    diff_check_argv(&d, c->argc, c->argv, NULL);
}

/* --- directed ------------------------------------------------------------------ */

static void sicily(void)
{
    C("DEL", "Sicily");
    C("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania");
    C("GEODIST", "Sicily", "Palermo", "Catania");
    C("GEODIST", "Sicily", "Palermo", "Catania", "km");
    C("GEODIST", "Sicily", "Palermo", "Catania", "MI");
    C("GEODIST", "Sicily", "Palermo", "Catania", "Ft");
    C("GEODIST", "Sicily", "Palermo", "Catania", "m");
    C("GEODIST", "Sicily", "Palermo", "Palermo");
    C("GEODIST", "Sicily", "Palermo", "Catania", "yards");
    C("GEODIST", "Sicily", "Palermo", "Catania", "km", "extra");
    C("GEODIST", "Sicily", "Palermo", "nobody");
    C("GEODIST", "nokey", "Palermo", "Catania");
    C("GEODIST", "nokey", "Palermo", "Catania", "bad-unit");
    C("GEOHASH", "Sicily", "Palermo", "Catania", "nobody");
    C("GEOHASH", "Sicily");
    C("GEOHASH", "nokey", "a", "b");
    C("GEOPOS", "Sicily", "Palermo", "nobody", "Catania");
    C("GEOPOS", "Sicily");
    C("GEOPOS", "nokey", "a");
    C("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH");
    C("GEORADIUS", "Sicily", "15", "37", "200", "km", "withhash", "asc");
    C("GEORADIUS", "Sicily", "15", "37", "100", "km");
    C("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "DESC", "WITHDIST");
    C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "WITHCOORD");
    C("GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "500", "km", "COUNT", "1", "DESC");
    C("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC",
      "WITHCOORD", "WITHDIST", "WITHHASH");
    C("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "COUNT", "1", "ANY");
    C("GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km");
    C("ZRANGE", "dst", "0", "-1", "WITHSCORES");
    C("GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km",
      "STOREDIST");
    C("ZRANGE", "dst", "0", "-1", "WITHSCORES");
    C("TYPE", "Sicily");
    C("OBJECT", "ENCODING", "Sicily");
    C("ZRANGE", "Sicily", "0", "-1", "WITHSCORES");
    C("ZSCORE", "Sicily", "Palermo");
    C("ZCARD", "Sicily");
}

static void geoadd_cases(void)
{
    C("DEL", "g", "s");
    C("SET", "s", "a string");
    /* Coordinates are checked before the key's type. */
    C("GEOADD", "s", "1", "2", "m");
    C("GEOADD", "s", "200", "2", "m");
    C("GEOADD", "g", "200", "2", "m");
    C("GEOADD", "g", "-180.0000001", "0", "m");
    C("GEOADD", "g", "0", "85.05112879", "m");
    C("GEOADD", "g", "0", "-85.05112879", "m");
    C("GEOADD", "g", "inf", "0", "m");
    C("GEOADD", "g", "0", "-inf", "m");
    C("GEOADD", "g", "nan", "0", "m");
    C("GEOADD", "g", "x", "0", "m");
    C("GEOADD", "g", "0", "", "m");
    C("GEOADD", "g", "1", "2", "a", "3", "bad", "b");
    C("EXISTS", "g");
    C("GEOADD", "g", "1", "2");
    C("GEOADD", "g", "1", "2", "a", "3");
    C("GEOADD", "g", "NX", "XX", "1", "2", "a");
    C("GEOADD", "g", "nx", "1", "2");
    C("GEOADD", "g", "ch", "ch", "ch");
    C("GEOADD", "g", "xx", "1", "2", "a");
    C("EXISTS", "g");
    /* The exact limits are valid. */
    C("GEOADD", "g", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw", "180",
      "-85.05112878", "se", "-180", "85.05112878", "nw", "0", "0", "origin");
    C("GEOPOS", "g", "ne", "sw", "se", "nw", "origin");
    C("GEOHASH", "g", "ne", "sw", "se", "nw", "origin");
    C("GEODIST", "g", "ne", "sw");
    C("GEODIST", "g", "ne", "nw", "km");
    C("GEODIST", "g", "origin", "origin");
    C("GEOADD", "g", "NX", "1", "1", "origin", "2", "2", "new");
    C("GEOADD", "g", "XX", "3", "3", "origin", "4", "4", "never");
    C("GEOADD", "g", "CH", "3", "3", "origin", "5", "5", "new2");
    C("GEOADD", "g", "XX", "CH", "3", "3", "origin", "6", "6", "new");
    C("GEOADD", "g", "CH", "NX", "7", "7", "origin", "7", "7", "new3");
    C("GEOADD", "g", "ch", "xx", "ch", "3", "3", "origin");
    C("GEOADD", "g", "1", "2", "dup", "3", "4", "dup");
    C("GEOPOS", "g", "origin", "new", "never", "dup");
    C("ZRANGE", "g", "0", "-1", "WITHSCORES");
    C("GEOADD", "g", "0.00000001", "0.00000001", "tiny", "-0.0", "-0.0", "negzero");
    C("GEOPOS", "g", "tiny", "negzero");
    C("GEOADD");
    C("GEOADD", "g", "1", "2");
    C("GEODIST", "g", "a");
    C("GEOHASH");
    C("GEOPOS");
}

static void search_errors(void)
{
    C("DEL", "g", "s", "nokey");
    C("SET", "s", "x");
    C("GEOADD", "g", "10", "10", "a", "10.1", "10.1", "b", "-10", "-10", "c");
    static const char *const forms[][2] = {{"GEORADIUS", "c"},
                                           {"GEORADIUS_RO", "c"},
                                           {"GEORADIUSBYMEMBER", "m"},
                                           {"GEORADIUSBYMEMBER_RO", "m"}};
    for (size_t f = 0; f < 4; f++) {
        const char *cmd = forms[f][0];
        bool by_member = forms[f][1][0] == 'm';
        struct cmd base = {0};
        add(&base, cmd);
        add(&base, "g");
        if (by_member) {
            add(&base, "a");
        } else {
            add(&base, "10");
            add(&base, "10");
        }
        static const char *const tails[][8] = {
            {"100", "km", NULL},
            {"abc", "km", NULL},
            {"-1", "km", NULL},
            {"1", "parsecs", NULL},
            {"100", "km", "COUNT", "0", NULL},
            {"100", "km", "COUNT", "-3", NULL},
            {"100", "km", "COUNT", "x", NULL},
            {"100", "km", "COUNT", NULL},
            {"100", "km", "ANY", NULL},
            {"100", "km", "COUNT", "1", "ANY", NULL},
            {"100", "km", "STORE", "dst", "WITHDIST", NULL},
            {"100", "km", "STOREDIST", "dst", "WITHHASH", NULL},
            {"100", "km", "WITHCOORD", "STORE", "dst", NULL},
            {"100", "km", "STORE", NULL},
            {"100", "km", "STOREDIST", NULL},
            {"100", "km", "bogus", NULL},
            {"100", "km", "FROMMEMBER", "a", NULL},
            {"100", "km", "BYRADIUS", "1", "km", NULL},
            {"100", "km", "ASC", "DESC", "COUNT", "2", NULL},
            {"100", "km", "STORE", "dst", NULL},
            {"100", "km", "STOREDIST", "dst", NULL},
            {"100", "km", "STORE", "s", NULL},
        };
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
            struct cmd c = base;
            for (int i = 0; tails[t][i]; i++) add(&c, tails[t][i]);
            run(&c);
            C("TYPE", "dst");
            C("ZRANGE", "dst", "0", "-1", "WITHSCORES");
        }
        /* The key's type first; a missing key: an empty reply (or 0 and
         * the destination deleted), with GEORADIUSBYMEMBER not even
         * reading its member or radius. */
        struct cmd c = base;
        c.argv[1] = "s";
        add(&c, "1");
        add(&c, "km");
        run(&c);
        c = base;
        c.argv[1] = "nokey";
        add(&c, "1");
        add(&c, "km");
        run(&c);
        c = base;
        c.argv[1] = "nokey";
        add(&c, "nan-radius");
        add(&c, "furlongs");
        run(&c);
        C("SET", "dst", "something");
        c = base;
        c.argv[1] = "nokey";
        add(&c, "1");
        add(&c, "km");
        add(&c, "STORE");
        add(&c, "dst");
        run(&c);
        C("EXISTS", "dst");
    }
    C("GEORADIUSBYMEMBER", "g", "nobody", "100", "km");
    C("GEORADIUS", "g", "200", "10", "100", "km");
    C("GEORADIUS", "g", "10", "x", "100", "km");

    /* GEOSEARCH and GEOSEARCHSTORE. */
    C("GEOSEARCH", "g", "BYRADIUS", "100", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a");
    C("geosearch", "g", "FROMMEMBER", "a", "WITHDIST");
    C("GeoSearch", "g", "BYBOX", "1", "1", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "FROMMEMBER", "a", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "FROMMEMBER", "b", "BYRADIUS", "100", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYBOX", "1", "1", "km", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1", "km", "BYRADIUS", "500", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "nobody", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "nokey", "FROMMEMBER", "nobody", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "s", "FROMMEMBER", "nobody", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "181", "1", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "x", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "-1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "xx");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "x", "1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "1", "x", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "x", "y", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "-1", "1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "1", "-1", "km");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "cubits");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "1", "1");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "1");
    C("GEOSEARCH", "g", "FROMLONLAT", "1", "BYRADIUS", "1", "km");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "STORE", "dst");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "STOREDIST");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "ANY");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "COUNT", "0");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "COUNT", "1", "ANY",
      "WITHDIST");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYBOX", "3000", "3000", "km", "DESC", "WITHHASH");
    C("GEOSEARCHSTORE", "dst", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "WITHDIST");
    C("GEOSEARCHSTORE", "dst", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "WITHCOORD");
    C("GEOSEARCHSTORE", "dst", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "STORE", "x");
    C("GEOSEARCHSTORE", "dst", "g", "FROMMEMBER", "a", "BYRADIUS", "1000", "km", "STOREDIST",
      "STOREDIST");
    C("ZRANGE", "dst", "0", "-1", "WITHSCORES");
    C("GEOSEARCHSTORE", "dst", "g", "FROMLONLAT", "50", "50", "BYRADIUS", "1", "km");
    C("EXISTS", "dst");
    C("GEOSEARCHSTORE", "dst", "nokey", "FROMMEMBER", "a", "BYRADIUS", "1", "km");
    C("GEOSEARCHSTORE", "dst", "s", "FROMMEMBER", "a", "BYRADIUS", "1", "km");
    C("GEOSEARCHSTORE", "s", "g", "FROMMEMBER", "a", "BYRADIUS", "5000", "km", "COUNT", "2");
    C("TYPE", "s");
    C("ZRANGE", "s", "0", "-1", "WITHSCORES");
    /* A store over its own source. */
    C("GEOSEARCHSTORE", "g", "g", "FROMMEMBER", "a", "BYRADIUS", "100", "km");
    C("ZRANGE", "g", "0", "-1", "WITHSCORES");
    C("GEORADIUS", "g", "10", "10", "100", "km", "STOREDIST", "g");
    C("ZRANGE", "g", "0", "-1", "WITHSCORES");
    C("GEOSEARCH");
    C("GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "1");
    C("GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "a", "BYRADIUS", "1");
    C("GEORADIUS", "g", "1", "2", "3");
    C("GEORADIUSBYMEMBER", "g", "a", "3");
}

/* Scores GEOADD never writes: decoded as Redis decodes them. */
static void odd_scores(void)
{
    static const char *const scores[] = {"-1",
                                         "1e300",
                                         "-1e300",
                                         "inf",
                                         "-inf",
                                         "4503599627370496",
                                         "4503599627370495",
                                         "0",
                                         "3.5",
                                         "1e19",
                                         "9007199254740992",
                                         "18446744073709551616",
                                         "-9223372036854775808",
                                         "4e15"};
    C("DEL", "odd");
    char member[16];
    for (size_t i = 0; i < sizeof scores / sizeof scores[0]; i++) {
        snprintf(member, sizeof member, "m%zu", i);
        C("ZADD", "odd", scores[i], member);
        C("GEOPOS", "odd", member);
        C("GEOHASH", "odd", member);
        C("GEODIST", "odd", member, "m0");
    }
    C("GEOSEARCH", "odd", "FROMLONLAT", "0", "0", "BYRADIUS", "30000", "km", "WITHHASH",
      "WITHCOORD", "WITHDIST", "ASC");
    C("GEORADIUS", "odd", "180", "85", "500", "km", "WITHCOORD");
    C("GEORADIUSBYMEMBER", "odd", "m1", "100", "km", "WITHDIST");
}

/* Shapes at the edges of the grid. */
static void edges(void)
{
    C("DEL", "e");
    C("GEOADD", "e", "179.9", "10", "east1", "179.999999", "10", "east2", "-179.9", "10", "west1",
      "-179.999999", "10.0001", "west2", "180", "10", "dateline", "-180", "10", "antidateline", "0",
      "85.05112878", "north", "90", "85", "north2", "-90", "84.9", "north3", "0", "-85.05112878",
      "south", "1", "-85", "south2", "179.5", "85", "corner");
    static const char *const centres[][2] = {
        {"180", "10"},        {"-180", "10"},        {"179.95", "10"},       {"-179.95", "10"},
        {"0", "85.05112878"}, {"0", "-85.05112878"}, {"180", "85.05112878"}, {"-180", "-85"},
        {"0", "85"},          {"45", "-84.99"}};
    static const char *const radii[][2] = {{"0", "m"},     {"0.001", "m"},  {"1", "m"},
                                           {"50", "km"},   {"200", "km"},   {"1000", "km"},
                                           {"5000", "km"}, {"12000", "mi"}, {"20000", "km"},
                                           {"inf", "km"},  {"1e-300", "m"}};
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++) {
        for (size_t r = 0; r < sizeof radii / sizeof radii[0]; r++) {
            C("GEORADIUS", "e", centres[c][0], centres[c][1], radii[r][0], radii[r][1], "WITHDIST",
              "WITHCOORD", "WITHHASH");
            C("GEOSEARCH", "e", "FROMLONLAT", centres[c][0], centres[c][1], "BYBOX", radii[r][0],
              radii[r][0], radii[r][1], "ASC", "WITHDIST");
            C("GEOSEARCH", "e", "FROMLONLAT", centres[c][0], centres[c][1], "BYBOX", "1",
              radii[r][0], radii[r][1], "DESC", "WITHCOORD");
        }
    }
    C("GEOSEARCH", "e", "FROMMEMBER", "dateline", "BYBOX", "200", "10", "km", "WITHCOORD");
    C("GEOSEARCH", "e", "FROMMEMBER", "north", "BYBOX", "40000", "100", "km", "ASC");
    C("GEORADIUSBYMEMBER", "e", "south", "10000", "km", "COUNT", "3", "DESC");
}

/* --- random ---------------------------------------------------------------------- */

#define STACKED 6 /* members at each repeated coordinate */
#define GEO_LAT_LIMIT 85.05112878

/* A random point: anywhere, near ±180°, near a latitude limit, or on one. */
static void random_point(double *lon, double *lat)
{
    switch (pick(8)) {
    case 0:
        *lon = uniform(179, 180) * (pick(2) ? 1 : -1);
        *lat = uniform(-60, 60);
        break;
    case 1:
        *lon = uniform(-180, 180);
        *lat = uniform(84, GEO_LAT_LIMIT) * (pick(2) ? 1 : -1);
        break;
    case 2:
        *lon = pick(2) ? 180 : -180;
        *lat = pick(2) ? GEO_LAT_LIMIT : uniform(-GEO_LAT_LIMIT, GEO_LAT_LIMIT);
        break;
    case 3:
        *lon = uniform(10, 12);
        *lat = uniform(44, 46);
        break;
    default:
        *lon = uniform(-180, 180);
        *lat = uniform(-GEO_LAT_LIMIT, GEO_LAT_LIMIT);
        break;
    }
}

/* Fills `key` with n points (GEOADD in batches), some stacked. */
static void fill(const char *key, int n)
{
    C("DEL", key);
    struct cmd c = {0};
    char names[10][16];
    for (int i = 0; i < n;) {
        c.argc = 0;
        add(&c, "GEOADD");
        add(&c, key);
        int batch = 0;
        while (batch < 9 && i < n) {
            double lon, lat;
            random_point(&lon, &lat);
            int copies = pick(10) == 0 ? STACKED : 1;
            for (int k = 0; k < copies && batch < 9 && i < n; k++, batch++, i++) {
                addf(&c, "%.9f", lon);
                addf(&c, "%.9f", lat);
                snprintf(names[batch], sizeof names[batch], "p%d", i);
                add(&c, names[batch]);
            }
        }
        run(&c);
    }
}

static const char *random_unit(void)
{
    static const char *const units[] = {"m", "km", "mi", "ft", "KM"};
    return units[pick(5)];
}

/* A radius from a log scale, in the given unit. */
static void add_length(struct cmd *c, const char *unit)
{
    double metres = pick(20) == 0 ? 0 : __builtin_exp(uniform(-7, 16.5));
    double per_unit = strcmp(unit, "mi") == 0   ? 1609.34
                      : strcmp(unit, "ft") == 0 ? 0.3048
                      : unit[0] == 'm'          ? 1
                                                : 1000;
    addf(c, "%.6g", metres / per_unit);
}

/* Returns the COUNT it added (0: none). */
static long long add_options(struct cmd *c, bool allow_with)
{
    static const char *const withs[] = {"WITHDIST", "WITHHASH", "WITHCOORD"};
    static const char *const counts[] = {"1", "2", "3", "5", "7", "8", "13", "41", "100"};
    if (allow_with)
        for (int i = 0; i < 3; i++)
            if (pick(3) == 0) add(c, withs[i]);
    switch (pick(3)) {
    case 0:
        add(c, "ASC");
        break;
    case 1:
        add(c, "DESC");
        break;
    default:
        break;
    }
    if (!pick(2)) return 0;
    const char *count = counts[pick(sizeof counts / sizeof counts[0])];
    add(c, "COUNT");
    add(c, count);
    if (pick(3) == 0) add(c, "ANY");
    return atoll(count);
}

/* The two random sets and their sizes (fill()). */
static struct {
    const char *name;
    int members;
} sets[2] = {{"small", 100}, {"big", 3000}};
static int key_members; /* of the set random_key() chose last */

static const char *random_key(void)
{
    int k = pick(3) ? 1 : 0;
    key_members = sets[k].members;
    return sets[k].name;
}

/* A member of the last chosen set, or (existing false) perhaps one past it. */
static void random_member(struct cmd *c, bool existing)
{
    snprintf(c->text[c->argc], sizeof c->text[0], "p%d",
             (int)pick((size_t)key_members + !existing));
    add(c, c->text[c->argc]);
}

/* How much the random searches found: a test of a search that finds
 * nothing would prove little. */
static struct {
    long long searches, nonempty, full_counts;
} found;

/* Runs a search and counts what it found (the reply is redis-server's and
 * goblin-core's alike by then): a non-empty result, and a COUNT that held
 * the result back to exactly that many (the partial sort). */
static void run_search(struct cmd *c, long long count)
{
    if (getenv("DIFF_TRACE")) {
        for (int i = 0; i < c->argc; i++) fprintf(stderr, "%s ", c->argv[i]);
        fprintf(stderr, "(%s)\n", resp3 ? "RESP3" : "RESP2");
    }
    char *reply = diff_check_argv_reply(&d, c->argc, c->argv, NULL, NULL);
    long long n = (reply[0] == '*' || reply[0] == ':') ? strtoll(reply + 1, NULL, 10) : 0;
    found.searches++;
    found.nonempty += n > 0;
    found.full_counts += count > 1 && n == count;
    free(reply);
}

/* GEORADIUS[BYMEMBER][_RO]'s radius, unit and options, and (not _RO, one
 * time in four) STORE or STOREDIST; returns the COUNT added. */
static long long add_radius_tail(struct cmd *c, const char *unit, bool ro, bool *stored)
{
    add_length(c, unit);
    add(c, unit);
    *stored = !ro && pick(4) == 0;
    long long count = add_options(c, !*stored);
    if (*stored) add(c, pick(2) ? "STORE" : "STOREDIST"), add(c, "dst");
    return count;
}

static void random_search(void)
{
    struct cmd c = {0};
    long long count;
    const char *unit = random_unit();
    bool stored = false;
    switch (pick(6)) {
    case 0:
    case 1: {
        bool ro = pick(2);
        add(&c, ro ? "GEORADIUS_RO" : "GEORADIUS");
        add(&c, random_key());
        double lon, lat;
        random_point(&lon, &lat);
        addf(&c, "%.9f", lon);
        addf(&c, "%.9f", lat);
        count = add_radius_tail(&c, unit, ro, &stored);
        break;
    }
    case 2: {
        bool ro = pick(2);
        add(&c, ro ? "GEORADIUSBYMEMBER_RO" : "GEORADIUSBYMEMBER");
        add(&c, random_key());
        random_member(&c, pick(20) != 0);
        count = add_radius_tail(&c, unit, ro, &stored);
        break;
    }
    default: {
        stored = pick(4) == 0;
        add(&c, stored ? "GEOSEARCHSTORE" : "GEOSEARCH");
        if (stored) add(&c, "dst");
        add(&c, random_key());
        if (pick(2)) {
            add(&c, "FROMMEMBER");
            random_member(&c, pick(20) != 0);
        } else {
            double lon, lat;
            random_point(&lon, &lat);
            add(&c, "FROMLONLAT");
            addf(&c, "%.9f", lon);
            addf(&c, "%.9f", lat);
        }
        if (pick(2)) {
            add(&c, "BYRADIUS");
            add_length(&c, unit);
        } else {
            add(&c, "BYBOX");
            add_length(&c, unit);
            add_length(&c, unit);
        }
        add(&c, unit);
        count = add_options(&c, !stored);
        if (stored && pick(2)) add(&c, "STOREDIST");
        break;
    }
    }
    run_search(&c, count);
    if (stored) C("ZRANGE", "dst", "0", "-1", "WITHSCORES");
}

static void random_reads(void)
{
    struct cmd c = {0};
    switch (pick(4)) {
    case 0:
        add(&c, "GEOPOS");
        break;
    case 1:
        add(&c, "GEOHASH");
        break;
    default:
        add(&c, "GEODIST");
        add(&c, random_key());
        random_member(&c, true);
        random_member(&c, pick(10) != 0);
        if (pick(2)) add(&c, random_unit());
        run(&c);
        return;
    }
    add(&c, random_key());
    for (int i = 0; i < 4; i++) random_member(&c, pick(10) != 0);
    run(&c);
}

static void run_all(int searches)
{
    C("FLUSHALL");
    sicily();
    geoadd_cases();
    search_errors();
    odd_scores();
    edges();
    if (getenv("GOBLIN_ASAN")) sets[1].members = 1500;
    for (int k = 0; k < 2; k++) {
        fill(sets[k].name, sets[k].members);
        C("OBJECT", "ENCODING", sets[k].name);
    }
    for (int i = 0; i < searches; i++) {
        if (pick(4) == 0)
            random_reads();
        else
            random_search();
    }
    C("FLUSHALL");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_geo");
    rand_seed(seed);
    diff_start(&d, "diff_geo", seed, NULL, NULL);
    int searches = getenv("GOBLIN_ASAN") ? 1000 : 3000;
    run_all(searches);
    diff_hello3(&d);
    resp3 = true;
    run_all(searches);
    fprintf(stderr, "diff_geo: %lld random searches, %lld found members, %lld cut by COUNT\n",
            found.searches, found.nonempty, found.full_counts);
    CHECKF(found.nonempty * 3 > found.searches && found.full_counts * 20 > found.searches,
           "the random searches found too little to prove anything");
    diff_stop(&d);
    return 0;
}
