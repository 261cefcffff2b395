/*
 * geohash.h — the geo math of Redis 7.0's GEO commands, bit for bit: the
 * 52-bit interleaved geohash a sorted-set score holds, the nine-box plan
 * of a radius or box search, and the haversine distance. Pure functions of
 * their arguments: no store, no connection.
 *
 * The score of a GEO member is a 52-bit integer (exact in a double): 26
 * bits of latitude and 26 of longitude, interleaved with latitude in the
 * even bits (bit 0 first) and longitude in the odd ones. Latitudes are
 * mapped from [-85.05112878, 85.05112878] (the Web Mercator limits, so
 * the poles themselves cannot be stored) and longitudes from [-180, 180].
 * A decoded point is the centre of its cell, clamped to those limits.
 *
 * Why bit for bit: GEOPOS prints 17 digits, GEODIST and WITHDIST four
 * decimals, and a search's members and order depend on which cells it
 * scans and on each distance compared with the radius. Every formula here
 * is Redis's in Redis's order of operations (the same libm on the same
 * machine then gives the same doubles), and the build must not contract
 * a*b+c into a fused multiply-add (x86-64 without -march=native: it does
 * not).
 *
 * Arbitrary scores (a ZADD of -1 or 1e300 to a key GEOPOS then reads)
 * decode as Redis decodes them on x86-64: the double is converted to a
 * 64-bit integer as gcc's code converts it there (geo_score_bits), its
 * 32-bit halves deinterleaved, and the centre clamped.
 */
#ifndef GOBLIN_GEOHASH_H
#define GOBLIN_GEOHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GEO_STEP_MAX 26 /* 26 bits per coordinate: 52-bit scores */

#define GEO_LAT_MIN (-85.05112878)
#define GEO_LAT_MAX 85.05112878
#define GEO_LONG_MIN (-180.0)
#define GEO_LONG_MAX 180.0

struct geo_range {
    double min, max;
};

/* A cell: `step` bits per coordinate, 2*step interleaved bits. A zero
 * cell (bits 0, step 0) is none: the search plan marks skipped boxes so. */
struct geohash {
    uint64_t bits;
    uint8_t step;
};

struct geo_area {
    struct geohash hash;
    struct geo_range lon, lat;
};

/* The WGS84 ranges GEO scores use: longitude [-180, 180], latitude
 * [GEO_LAT_MIN, GEO_LAT_MAX]. */
extern const struct geo_range geo_lon_range, geo_lat_range;

/* The cell of step `step` (1..32) holding (lon, lat) in the given ranges;
 * false (and *out untouched) outside the WGS84 limits or the ranges. */
bool geohash_encode(const struct geo_range *lon_range, const struct geo_range *lat_range,
                    double lon, double lat, unsigned step, struct geohash *out);

/* The bounds of a cell in the given ranges; false for the zero cell. */
bool geohash_decode(const struct geo_range *lon_range, const struct geo_range *lat_range,
                    struct geohash h, struct geo_area *out);

/* The cell's bits shifted to a 52-bit score (its lowest corner). */
static inline uint64_t geohash_align52(struct geohash h)
{
    return h.bits << (52 - h.step * 2);
}

/* The GEO score of a valid (lon, lat): the step-26 cell, aligned. */
uint64_t geo_score_of(double lon, double lat);

/* A score as the 64 bits Redis's (uint64_t) cast yields on x86-64. */
uint64_t geo_score_bits(double score);

/* The point a score stands for: xy[0] longitude, xy[1] latitude. */
void geo_score_to_point(double score, double xy[2]);

/* The 11-character standard geohash (ranges [-180, 180] x [-90, 90],
 * base32 "0123456789bcdefghjkmnpqrstuvwxyz", the 11th always '0') of the
 * point a score stands for, as GEOHASH prints it. */
void geo_score_to_string(double score, char out[11]);

/* Great-circle distance in metres (haversine on a sphere of radius
 * 6372797.560856 m); equal longitudes take the latitude-only shortcut. */
double geo_distance(double lon1, double lat1, double lon2, double lat2);

/* Distance in metres along a meridian. */
double geo_lat_distance(double lat1, double lat2);

/* The eight cells around h, in Redis's neighbour order. Moving past the
 * edge of the grid wraps around (the cell east of 180° is at -180°). */
struct geo_neighbors {
    struct geohash north, east, west, south, north_east, south_east, north_west, south_west;
};
void geohash_neighbors(struct geohash h, struct geo_neighbors *out);

/* What a search covers: a circle of `radius`, or an axis-aligned box of
 * `width` x `height`, in units of `conversion` metres, around (lon, lat). */
enum geo_shape_kind { GEO_SHAPE_RADIUS, GEO_SHAPE_BOX };

struct geo_shape {
    enum geo_shape_kind kind;
    double lon, lat;
    double conversion; /* metres per unit: m 1, km 1000, ft 0.3048, mi 1609.34 */
    double radius;
    double width, height;
};

/* The cells a search scans, in Redis's order: the centre's cell, then
 * north, south, east, west, north-east, north-west, south-east,
 * south-west; cells the bounding box cannot reach are zero (skipped). The
 * step is estimated from the radius (a box: its half-diagonal) and the
 * latitude, then lowered once when a neighbour does not reach the
 * bounding box's edge. */
struct geo_plan {
    struct geohash boxes[9];
};
void geo_plan_search(const struct geo_shape *shape, struct geo_plan *out);

/* The half-open score range [*min, *max) of the members inside a cell. */
void geo_cell_scores(struct geohash h, uint64_t *min, uint64_t *max);

/* Whether the point a score stands for lies inside the shape; fills its
 * coordinates and its distance in metres from the shape's centre (only
 * when inside: a box checks the latitude and longitude spans first). */
bool geo_shape_contains(const struct geo_shape *shape, double score, double xy[2],
                        double *distance);

#endif
