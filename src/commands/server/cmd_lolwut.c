/* cmd_lolwut.c — LOLWUT [VERSION v] [args]: Redis 7.0's computer art.
 *
 * Version 5 draws Georg Nees's "Schotter" in Unicode braille (cols,
 * squares per row, squares per column), version 6 a city skyline in ANSI
 * colours (cols, rows); any other version prints "Redis ver. 7.0.15".
 * The drawing keeps Redis's float and rounding steps, so what is not
 * random (the first two rows of squares, the canvas sizes, the captions)
 * is byte for byte Redis's; the random parts draw from our own generator
 * where Redis calls rand(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/command.h"
#include "core/version.h"
#include "util/buf.h"
#include "util/rand.h"
#include "util/xmalloc.h"

/* Redis's RAND_MAX-scaled draws, from util/rand.h. */
static long draw(void)
{
    return (long)rand_below((uint64_t)RAND_MAX + 1);
}

struct canvas {
    int width, height;
    unsigned char *pixels;
};

static void canvas_init(struct canvas *c, int width, int height, int color)
{
    c->width = width;
    c->height = height;
    c->pixels = xmalloc((size_t)width * (size_t)height);
    memset(c->pixels, color, (size_t)width * (size_t)height);
}

static void canvas_set(struct canvas *c, int x, int y, int color)
{
    if (x < 0 || x >= c->width || y < 0 || y >= c->height) return;
    c->pixels[x + y * c->width] = (unsigned char)color;
}

static int canvas_get(const struct canvas *c, int x, int y)
{
    if (x < 0 || x >= c->width || y < 0 || y >= c->height) return 0;
    return c->pixels[x + y * c->width];
}

/* Bresenham, as Redis's lwDrawLine. */
static void canvas_line(struct canvas *c, int x1, int y1, int x2, int y2, int color)
{
    int dx = abs(x2 - x1), dy = abs(y2 - y1);
    int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    for (;;) {
        canvas_set(c, x1, y1, color);
        if (x1 == x2 && y1 == y2) break;
        int e2 = err * 2;
        if (e2 > -dy) {
            err -= dy;
            x1 += sx;
        }
        if (e2 < dx) {
            err += dx;
            y1 += sy;
        }
    }
}

/* A square of side `size` centred on (x, y), turned by `angle` radians:
 * the corners of the square inscribed in a circle, in Redis's float steps. */
static void canvas_square(struct canvas *c, int x, int y, float size, float angle, int color)
{
    int px[4], py[4];
    size /= 1.4142135623;
    size = roundf(size);
    float k = M_PI / 4 + angle;
    for (int j = 0; j < 4; j++) {
        px[j] = (int)round(sin(k) * size + x);
        py[j] = (int)round(cos(k) * size + y);
        k += M_PI / 2;
    }
    for (int j = 0; j < 4; j++)
        canvas_line(c, px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], color);
}

/* --- version 5: Schotter --------------------------------------------------- */

static void draw_schotter(struct canvas *c, int cols, int per_row, int per_col)
{
    int width = cols * 2;
    int padding = width > 4 ? 2 : 0;
    float side = (float)(width - padding * 2) / per_row;
    int height = side * per_col + padding * 2;
    canvas_init(c, width, height, 0);
    for (int y = 0; y < per_col; y++) {
        for (int x = 0; x < per_row; x++) {
            int sx = x * side + side / 2 + padding;
            int sy = y * side + side / 2 + padding;
            float angle = 0;
            /* Rows from the third on are turned and moved at random, more
             * the lower they are. */
            if (y > 1) {
                float r1 = (float)draw() / (float)RAND_MAX / per_col * y;
                float r2 = (float)draw() / (float)RAND_MAX / per_col * y;
                float r3 = (float)draw() / (float)RAND_MAX / per_col * y;
                if (draw() % 2) r1 = -r1;
                if (draw() % 2) r2 = -r2;
                if (draw() % 2) r3 = -r3;
                angle = r1;
                sx += r2 * side / 3;
                sy += r3 * side / 3;
            }
            canvas_square(c, sx, sy, side, angle, 1);
        }
    }
}

/* 2x4 pixels per braille character (U+2800 + the dot bits), UTF-8. */
static void render_braille(const struct canvas *c, struct buf *out)
{
    static const int dots[8][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}};
    for (int y = 0; y < c->height; y += 4) {
        for (int x = 0; x < c->width; x += 2) {
            int bits = 0;
            for (int d = 0; d < 8; d++)
                if (canvas_get(c, x + dots[d][0], y + dots[d][1])) bits |= 1 << d;
            int code = 0x2800 + bits;
            char utf8[3] = {(char)(0xE0 | (code >> 12)), (char)(0x80 | ((code >> 6) & 0x3F)),
                            (char)(0x80 | (code & 0x3F))};
            buf_append(out, utf8, 3);
        }
        if (y != c->height - 1) buf_append(out, "\n", 1);
    }
}

/* A long argument, replying Redis's error otherwise. */
static bool arg_long(struct cmd_ctx *ctx, int i, long *out)
{
    long long v;
    if (!arg_to_ll(ctx, i, &v)) return false;
    *out = (long)v;
    return true;
}

static long clamp(long v, long lo, long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void lolwut5(struct cmd_ctx *ctx, int first, struct buf *out)
{
    long cols = 66, per_row = 8, per_col = 12;
    int args = ctx->argc - first;
    if ((args > 0 && !arg_long(ctx, first, &cols)) ||
        (args > 1 && !arg_long(ctx, first + 1, &per_row)) ||
        (args > 2 && !arg_long(ctx, first + 2, &per_col)))
        return;
    struct canvas c;
    draw_schotter(&c, (int)clamp(cols, 1, 1000), (int)clamp(per_row, 1, 200),
                  (int)clamp(per_col, 1, 200));
    render_braille(&c, out);
    buf_append_fmt(out, "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. %s\n",
                   GOBLIN_REDIS_VERSION);
    xfree(c.pixels);
    reply_verbatim(ctx->reply, buf_head(out), buf_len(out), "txt");
}

/* --- version 6: skyline ---------------------------------------------------- */

struct skyscraper {
    int xoff, width, height;
    bool windows;
    int color;
};

static void draw_skyscraper(struct canvas *c, const struct skyscraper *s)
{
    int start_y = c->height - 1, end_y = start_y - s->height + 1;
    for (int y = start_y; y >= end_y; y--) {
        for (int x = s->xoff; x < s->xoff + s->width; x++) {
            /* The roof is four pixels narrower. */
            if (y == end_y && (x <= s->xoff + 1 || x >= s->xoff + s->width - 2)) continue;
            int color = s->color;
            if (s->windows && x > s->xoff + 1 && x < s->xoff + s->width - 2 && y > end_y + 1 &&
                y < start_y - 1) {
                int rel_x = x - (s->xoff + 1), rel_y = y - (end_y + 1);
                /* Windows two pixels wide, one tall (characters are tall). */
                if (rel_x / 2 % 2 && rel_y % 2) {
                    do {
                        color = 1 + (int)(draw() % 2);
                    } while (color == s->color);
                    if (rel_x % 2) color = canvas_get(c, x - 1, y);
                }
            }
            canvas_set(c, x, y, color);
        }
    }
}

static void draw_skyline(struct canvas *c)
{
    struct skyscraper s;
    /* Background buildings without windows, the lighter grey behind. */
    for (int color = 2; color >= 1; color--) {
        s.color = color;
        for (int offset = -10; offset < c->width;) {
            offset += (int)(draw() % 8);
            s.xoff = offset;
            s.width = 10 + (int)(draw() % 9);
            if (color == 2)
                s.height = c->height / 2 + (int)(draw() % c->height / 2);
            else
                s.height = c->height / 2 + (int)(draw() % c->height / 3);
            s.windows = false;
            draw_skyscraper(c, &s);
            offset += color == 2 ? s.width / 2 : s.width + 1;
        }
    }
    /* The foreground, with windows. */
    s.color = 0;
    for (int offset = -10; offset < c->width;) {
        offset += (int)(draw() % 8);
        s.xoff = offset;
        s.width = 5 + (int)(draw() % 14);
        if (s.width % 4) s.width += s.width % 3;
        s.height = c->height / 3 + (int)(draw() % c->height / 2);
        s.windows = true;
        draw_skyscraper(c, &s);
        offset += s.width + 5;
    }
}

static void render_colors(const struct canvas *c, struct buf *out)
{
    static const char *const escapes[] = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};
    for (int y = 0; y < c->height; y++) {
        for (int x = 0; x < c->width; x++) {
            int color = canvas_get(c, x, y);
            buf_append_fmt(out, "\033[%s \033[0m", escapes[color <= 3 ? color : 0]);
        }
        if (y != c->height - 1) buf_append(out, "\n", 1);
    }
}

static void lolwut6(struct cmd_ctx *ctx, int first, struct buf *out)
{
    long cols = 80, rows = 20;
    int args = ctx->argc - first;
    if ((args > 0 && !arg_long(ctx, first, &cols)) ||
        (args > 1 && !arg_long(ctx, first + 1, &rows)))
        return;
    struct canvas c;
    canvas_init(&c, (int)clamp(cols, 1, 1000), (int)clamp(rows, 1, 1000), 3);
    draw_skyline(&c);
    render_colors(&c, out);
    buf_append_fmt(out,
                   "\nDedicated to the 8 bit game developers of past and present.\n"
                   "Original 8 bit image from Plaguemon by hikikomori. Redis ver. %s\n",
                   GOBLIN_REDIS_VERSION);
    xfree(c.pixels);
    reply_verbatim(ctx->reply, buf_head(out), buf_len(out), "txt");
}

static void cmd_lolwut(struct cmd_ctx *ctx)
{
    char version[64];
    snprintf(version, sizeof version, "%s", GOBLIN_REDIS_VERSION);
    int first = 1; /* the version's own arguments */
    if (ctx->argc >= 3 && arg_equals(ctx, 1, "version")) {
        long v;
        if (!arg_long(ctx, 2, &v)) return;
        snprintf(version, sizeof version, "%u.0.0", (unsigned int)v);
        first = 3;
    }
    struct buf out;
    buf_init(&out, 4096);
    /* Redis's rule: 5.x and 4.9 draw version 5, 6.x and 5.9 version 6. */
    const char *v = version;
    if ((v[0] == '5' && v[1] == '.' && v[2] != '9') ||
        (v[0] == '4' && v[1] == '.' && v[2] == '9')) {
        lolwut5(ctx, first, &out);
    } else if ((v[0] == '6' && v[1] == '.' && v[2] != '9') ||
               (v[0] == '5' && v[1] == '.' && v[2] == '9')) {
        lolwut6(ctx, first, &out);
    } else {
        buf_append_fmt(&out, "Redis ver. %s\n", GOBLIN_REDIS_VERSION);
        reply_verbatim(ctx->reply, buf_head(&out), buf_len(&out), "txt");
    }
    buf_free(&out);
}

struct command lolwut_commands[] = {
    {.name = "lolwut",
     .arity = -1,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_lolwut,
     .summary = "Displays computer art and the Redis version",
     .since = "5.0.0",
     .group = "server",
     .complexity = NULL},
    COMMAND_END,
};
