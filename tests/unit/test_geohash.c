/*
 * Unit test of store/geohash.h and store/geo_search.h: known scores and
 * geohash strings (Redis's documentation examples, checked against
 * redis-server 7.0.15), the neighbour wrap at ±180°, the decoding of
 * scores GEOADD never writes, and the two orderings' handling of equal
 * distances (the full sort keeps them in scan order; test_diff_geo holds
 * both orderings to redis-server on random data).
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "store/geo_search.h"
#include "store/geohash.h"

static void known_points(void)
{
    CHECK_EQ_LL(geo_score_of(13.361389, 38.115556), 3479099956230698LL);
    CHECK_EQ_LL(geo_score_of(15.087269, 37.502669), 3479447370796909LL);
    char hash[11];
    geo_score_to_string(3479099956230698.0, hash);
    CHECK(memcmp(hash, "sqc8b49rny0", 11) == 0);
    double xy[2];
    geo_score_to_point(3479099956230698.0, xy);
    CHECK(fabs(xy[0] - 13.36138933897018433) < 1e-12 && fabs(xy[1] - 38.11555639549629859) < 1e-12);
    /* Palermo - Catania: GEODIST's 166274.1516 m. */
    double xy2[2];
    geo_score_to_point(3479447370796909.0, xy2);
    double d = geo_distance(xy[0], xy[1], xy2[0], xy2[1]);
    CHECK(fabs(d - 166274.1516) < 0.0001);
    /* Outside the limits nothing is encoded. */
    struct geohash h = {0, 0};
    CHECK(!geohash_encode(&geo_lon_range, &geo_lat_range, 180.0000001, 0, 26, &h));
    CHECK(!geohash_encode(&geo_lon_range, &geo_lat_range, 0, 85.06, 26, &h));
    CHECK(geohash_encode(&geo_lon_range, &geo_lat_range, 180, GEO_LAT_MAX, 26, &h));
}

static void odd_scores(void)
{
    /* As redis-server decodes them on x86-64 (GEOPOS after ZADD). */
    double xy[2];
    geo_score_to_point(-1, xy);
    CHECK(xy[0] == 180 && xy[1] == GEO_LAT_MAX);
    geo_score_to_point(INFINITY, xy);
    CHECK(fabs(xy[0] + 179.99999731779098511) < 1e-12);
    CHECK_EQ_LL((long long)geo_score_bits(NAN), (long long)(1ULL << 63));
    CHECK_EQ_LL((long long)geo_score_bits(1e19), (long long)(uint64_t)10000000000000000000ULL);
    CHECK_EQ_LL((long long)geo_score_bits(1e20), 0);
}

static void neighbours_wrap(void)
{
    struct geohash h;
    CHECK(geohash_encode(&geo_lon_range, &geo_lat_range, 179.99, 0, 4, &h));
    struct geo_neighbors n;
    geohash_neighbors(h, &n);
    struct geo_area east;
    CHECK(geohash_decode(&geo_lon_range, &geo_lat_range, n.east, &east));
    CHECK(east.lon.min == -180); /* east of the last column is the first */
    struct geo_area west;
    CHECK(geohash_decode(&geo_lon_range, &geo_lat_range, n.west, &west));
    CHECK(west.lon.max < 180 && west.lon.min > 0);
}

static void sort_ties(void)
{
    struct geo_points p;
    geo_points_init(&p);
    static const double dists[] = {5, 1, 5, 3, 1, 5, 2, 1};
    static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (int i = 0; i < 8; i++) {
        p.items[p.used++] = (struct geo_point){.dist = dists[i], .member = names[i], .len = 1};
    }
    geo_points_sort(&p, false, 8);
    const char *asc = "behgdacf";
    for (int i = 0; i < 8; i++) CHECK(p.items[i].member[0] == asc[i]);
    geo_points_sort(&p, true, 8);
    const char *desc = "acfdgbeh";
    for (int i = 0; i < 8; i++) CHECK(p.items[i].member[0] == desc[i]);
    /* A partial sort places the nearest `count` first, in order of distance. */
    geo_points_sort(&p, false, 3);
    for (int i = 0; i < 3; i++) CHECK(p.items[i].dist == 1);
    CHECK(p.items[3].dist >= 2);
    geo_points_release(&p);
}

int main(void)
{
    known_points();
    odd_scores();
    neighbours_wrap();
    sort_ties();
    return 0;
}
