/* geohash.c — interleaved geohash cells, neighbours, distances and the
 * nine-box search plan; see geohash.h for the contract and why every
 * formula keeps Redis's order of operations. */
#include "store/geohash.h"

#include <math.h>

/* Redis's constants (geohash_helper.c). */
#define EARTH_RADIUS_IN_METERS 6372797.560856
#define MERCATOR_MAX 20037726.37
#define DEGREES_TO_RADIANS (M_PI / 180.0)

const struct geo_range geo_lon_range = {GEO_LONG_MIN, GEO_LONG_MAX};
const struct geo_range geo_lat_range = {GEO_LAT_MIN, GEO_LAT_MAX};

static inline double deg_rad(double degrees)
{
    return degrees * DEGREES_TO_RADIANS;
}

static inline double rad_deg(double radians)
{
    return radians / DEGREES_TO_RADIANS;
}

/* The 32 bits of v moved to the even bit positions of a 64-bit word. */
static inline uint64_t spread_even(uint32_t v)
{
    uint64_t x = v;
    x = (x | x << 16) & 0x0000FFFF0000FFFFULL;
    x = (x | x << 8) & 0x00FF00FF00FF00FFULL;
    x = (x | x << 4) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | x << 2) & 0x3333333333333333ULL;
    x = (x | x << 1) & 0x5555555555555555ULL;
    return x;
}

/* The inverse: the even bits of x gathered into 32 bits. */
static inline uint32_t gather_even(uint64_t x)
{
    x &= 0x5555555555555555ULL;
    x = (x | x >> 1) & 0x3333333333333333ULL;
    x = (x | x >> 2) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | x >> 4) & 0x00FF00FF00FF00FFULL;
    x = (x | x >> 8) & 0x0000FFFF0000FFFFULL;
    x = (x | x >> 16) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

static bool range_is_zero(const struct geo_range *r)
{
    return r->min == 0 && r->max == 0;
}

bool geohash_encode(const struct geo_range *lon_range, const struct geo_range *lat_range,
                    double lon, double lat, unsigned step, struct geohash *out)
{
    if (step == 0 || step > 32 || range_is_zero(lat_range) || range_is_zero(lon_range))
        return false;
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN)
        return false;
    if (lat < lat_range->min || lat > lat_range->max || lon < lon_range->min ||
        lon > lon_range->max)
        return false;
    double lat_offset = (lat - lat_range->min) / (lat_range->max - lat_range->min);
    double lon_offset = (lon - lon_range->min) / (lon_range->max - lon_range->min);
    lat_offset *= (double)(1ULL << step);
    lon_offset *= (double)(1ULL << step);
    out->bits = spread_even((uint32_t)lat_offset) | spread_even((uint32_t)lon_offset) << 1;
    out->step = (uint8_t)step;
    return true;
}

bool geohash_decode(const struct geo_range *lon_range, const struct geo_range *lat_range,
                    struct geohash h, struct geo_area *out)
{
    if ((h.bits == 0 && h.step == 0) || range_is_zero(lat_range) || range_is_zero(lon_range))
        return false;
    out->hash = h;
    uint32_t ilat = gather_even(h.bits);
    uint32_t ilon = gather_even(h.bits >> 1);
    double cells = (double)(1ULL << h.step);
    double lat_scale = lat_range->max - lat_range->min;
    double lon_scale = lon_range->max - lon_range->min;
    /* (i + 1) wraps in 32 bits as Redis's does. */
    out->lat.min = lat_range->min + (ilat * 1.0 / cells) * lat_scale;
    out->lat.max = lat_range->min + ((uint32_t)(ilat + 1) * 1.0 / cells) * lat_scale;
    out->lon.min = lon_range->min + (ilon * 1.0 / cells) * lon_scale;
    out->lon.max = lon_range->min + ((uint32_t)(ilon + 1) * 1.0 / cells) * lon_scale;
    return true;
}

/* The centre of a cell, clamped to the WGS84 limits. */
static void area_center(const struct geo_area *a, double xy[2])
{
    xy[0] = (a->lon.min + a->lon.max) / 2;
    if (xy[0] > GEO_LONG_MAX) xy[0] = GEO_LONG_MAX;
    if (xy[0] < GEO_LONG_MIN) xy[0] = GEO_LONG_MIN;
    xy[1] = (a->lat.min + a->lat.max) / 2;
    if (xy[1] > GEO_LAT_MAX) xy[1] = GEO_LAT_MAX;
    if (xy[1] < GEO_LAT_MIN) xy[1] = GEO_LAT_MIN;
}

uint64_t geo_score_of(double lon, double lat)
{
    struct geohash h = {0, 0};
    geohash_encode(&geo_lon_range, &geo_lat_range, lon, lat, GEO_STEP_MAX, &h);
    return geohash_align52(h);
}

/* gcc's x86-64 conversion of a double to uint64_t: below 2^63 cvttsd2si
 * (whose out-of-range and NaN result is 2^63), else cvttsd2si of x - 2^63
 * with the top bit flipped. */
uint64_t geo_score_bits(double score)
{
    const double two63 = 9223372036854775808.0;
    if (score >= two63) {
        double rest = score - two63;
        uint64_t low = rest < two63 ? (uint64_t)(int64_t)rest : 1ULL << 63;
        return low ^ 1ULL << 63;
    }
    if (!(score >= -two63 && score < two63)) return 1ULL << 63; /* NaN too */
    return (uint64_t)(int64_t)score;
}

void geo_score_to_point(double score, double xy[2])
{
    struct geohash h = {geo_score_bits(score), GEO_STEP_MAX};
    struct geo_area area;
    geohash_decode(&geo_lon_range, &geo_lat_range, h, &area);
    area_center(&area, xy);
}

void geo_score_to_string(double score, char out[11])
{
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    static const struct geo_range lon = {-180, 180}, lat = {-90, 90};
    double xy[2];
    geo_score_to_point(score, xy);
    struct geohash h = {0, 0};
    geohash_encode(&lon, &lat, xy[0], xy[1], GEO_STEP_MAX, &h);
    for (int i = 0; i < 10; i++) out[i] = alphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
    out[10] = '0'; /* 52 bits make ten characters; the eleventh is zero */
}

double geo_lat_distance(double lat1, double lat2)
{
    return EARTH_RADIUS_IN_METERS * fabs(deg_rad(lat2) - deg_rad(lat1));
}

double geo_distance(double lon1, double lat1, double lon2, double lat2)
{
    double lon1r = deg_rad(lon1), lon2r = deg_rad(lon2);
    double v = sin((lon2r - lon1r) / 2);
    if (v == 0.0) return geo_lat_distance(lat1, lat2);
    double lat1r = deg_rad(lat1), lat2r = deg_rad(lat2);
    double u = sin((lat2r - lat1r) / 2);
    double a = u * u + cos(lat1r) * cos(lat2r) * v * v;
    return 2.0 * EARTH_RADIUS_IN_METERS * asin(sqrt(a));
}

/* One cell along one coordinate: d > 0 east (or north), d < 0 west (or
 * south). `mine` selects that coordinate's bits (odd: longitude, even:
 * latitude); the carry runs through them only, the other coordinate's
 * bits filled in to pass it along, and wraps at the grid's edge. */
static void move_cell(struct geohash *h, int d, uint64_t mine)
{
    uint64_t theirs = ~mine;
    uint64_t self = h->bits & mine, other = h->bits & theirs;
    uint64_t fill = theirs >> (64 - h->step * 2);
    if (d > 0) {
        self = self + (fill + 1);
    } else {
        self = self | fill;
        self = self - (fill + 1);
    }
    self &= mine >> (64 - h->step * 2);
    h->bits = self | other;
}

#define LON_BITS 0xaaaaaaaaaaaaaaaaULL
#define LAT_BITS 0x5555555555555555ULL

static struct geohash moved(struct geohash h, int dlon, int dlat)
{
    if (dlon) move_cell(&h, dlon, LON_BITS);
    if (dlat) move_cell(&h, dlat, LAT_BITS);
    return h;
}

void geohash_neighbors(struct geohash h, struct geo_neighbors *out)
{
    out->east = moved(h, 1, 0);
    out->west = moved(h, -1, 0);
    out->south = moved(h, 0, -1);
    out->north = moved(h, 0, 1);
    out->north_west = moved(h, -1, 1);
    out->north_east = moved(h, 1, 1);
    out->south_east = moved(h, 1, -1);
    out->south_west = moved(h, -1, -1);
}

/* The step whose cells are about as large as the search (Redis's
 * geohashEstimateStepsByRadius). */
static unsigned estimate_step(double range_meters, double lat)
{
    if (range_meters == 0) return GEO_STEP_MAX;
    int step = 1;
    while (range_meters < MERCATOR_MAX) {
        range_meters *= 2;
        step++;
    }
    step -= 2; /* the range falls inside most base cases */
    /* Meridians converge towards the poles: wider cells there. */
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80) step--;
    }
    if (step < 1) step = 1;
    if (step > GEO_STEP_MAX) step = GEO_STEP_MAX;
    return (unsigned)step;
}

/* The shape's bounding box: [0] min lon, [1] min lat, [2] max lon, [3]
 * max lat. The longitude span is taken at the edge nearer the pole. */
static void bounding_box(const struct geo_shape *s, double b[4])
{
    bool circle = s->kind == GEO_SHAPE_RADIUS;
    double height = s->conversion * (circle ? s->radius : s->height / 2);
    double width = s->conversion * (circle ? s->radius : s->width / 2);
    const double lat_delta = rad_deg(height / EARTH_RADIUS_IN_METERS);
    const double lon_delta_top =
        rad_deg(width / EARTH_RADIUS_IN_METERS / cos(deg_rad(s->lat + lat_delta)));
    const double lon_delta_bottom =
        rad_deg(width / EARTH_RADIUS_IN_METERS / cos(deg_rad(s->lat - lat_delta)));
    bool southern = s->lat < 0;
    b[0] = southern ? s->lon - lon_delta_bottom : s->lon - lon_delta_top;
    b[2] = southern ? s->lon + lon_delta_bottom : s->lon + lon_delta_top;
    b[1] = s->lat - lat_delta;
    b[3] = s->lat + lat_delta;
}

static void decode_wgs84(struct geohash h, struct geo_area *a)
{
    geohash_decode(&geo_lon_range, &geo_lat_range, h, a);
}

void geo_plan_search(const struct geo_shape *s, struct geo_plan *out)
{
    double b[4];
    bounding_box(s, b);
    double min_lon = b[0], min_lat = b[1], max_lon = b[2], max_lat = b[3];
    double radius_meters =
        s->kind == GEO_SHAPE_RADIUS
            ? s->radius
            : sqrt((s->width / 2) * (s->width / 2) + (s->height / 2) * (s->height / 2));
    radius_meters *= s->conversion;
    unsigned step = estimate_step(radius_meters, s->lat);

    struct geohash h = {0, 0};
    struct geo_neighbors n;
    struct geo_area area;
    geohash_encode(&geo_lon_range, &geo_lat_range, s->lon, s->lat, step, &h);
    geohash_neighbors(h, &n);
    decode_wgs84(h, &area);

    /* Near a cell's edge the estimated step may leave part of the box
     * outside the nine cells: then one step coarser. */
    struct geo_area north, south, east, west;
    decode_wgs84(n.north, &north);
    decode_wgs84(n.south, &south);
    decode_wgs84(n.east, &east);
    decode_wgs84(n.west, &west);
    bool coarser = north.lat.max < max_lat || south.lat.min > min_lat || east.lon.max < max_lon ||
                   west.lon.min > min_lon;
    if (step > 1 && coarser) {
        step--;
        geohash_encode(&geo_lon_range, &geo_lat_range, s->lon, s->lat, step, &h);
        geohash_neighbors(h, &n);
        decode_wgs84(h, &area);
    }

    /* Neighbours on a side the box does not reach are skipped. */
    const struct geohash none = {0, 0};
    if (step >= 2) {
        if (area.lat.min < min_lat) n.south = n.south_west = n.south_east = none;
        if (area.lat.max > max_lat) n.north = n.north_east = n.north_west = none;
        if (area.lon.min < min_lon) n.west = n.south_west = n.north_west = none;
        if (area.lon.max > max_lon) n.east = n.south_east = n.north_east = none;
    }
    struct geohash order[9] = {h,           n.north,      n.south,      n.east,
                               n.west,      n.north_east, n.north_west, n.south_east,
                               n.south_west};
    /* Huge radii make adjacent neighbours coincide: a cell equal to the
     * last one scanned after the centre is skipped, as Redis skips it. */
    int last = 0;
    for (int i = 0; i < 9; i++) {
        out->boxes[i] = order[i];
        if (order[i].bits == 0 && order[i].step == 0) continue;
        if (last && order[i].bits == order[last].bits && order[i].step == order[last].step) {
            out->boxes[i] = none;
            continue;
        }
        last = i;
    }
}

void geo_cell_scores(struct geohash h, uint64_t *min, uint64_t *max)
{
    *min = geohash_align52(h);
    h.bits++;
    *max = geohash_align52(h);
}

bool geo_shape_contains(const struct geo_shape *s, double score, double xy[2], double *distance)
{
    geo_score_to_point(score, xy);
    if (s->kind == GEO_SHAPE_RADIUS) {
        *distance = geo_distance(s->lon, s->lat, xy[0], xy[1]);
        return !(*distance > s->radius * s->conversion);
    }
    double width_m = s->width * s->conversion, height_m = s->height * s->conversion;
    /* The latitude span is cheaper: checked first. */
    if (geo_lat_distance(xy[1], s->lat) > height_m / 2) return false;
    if (geo_distance(xy[0], xy[1], s->lon, xy[1]) > width_m / 2) return false;
    *distance = geo_distance(s->lon, s->lat, xy[0], xy[1]);
    return true;
}
