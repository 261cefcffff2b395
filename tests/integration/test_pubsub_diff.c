/* Differential: every Pub/Sub reply and push shape, in RESP2 and RESP3,
 * byte for byte against redis-server — acknowledgements with counts, nil
 * acknowledgements, messages and pmessages (binary, empty, large),
 * subscribed-mode errors and PING, PUBSUB subcommands and their errors,
 * self-publish order, RESET, QUIT — then a seeded random sequence of
 * subscribe / unsubscribe / publish / introspection on two subscribers.
 *
 * Where Redis's order is a hash-table order (the pattern deliveries of one
 * message, UNSUBSCRIBE without arguments over several channels, PUBSUB
 * CHANNELS), the replies are compared as multisets (and, for
 * acknowledgements, the sequence of counts exactly). */
#include "diff.h"
#include "pubsub_testutil.h"

struct pair {
    struct rconn *g, *r;
};

static struct diff_pair d;

static void mismatch(const char *what, const char *g, size_t glen, const char *r, size_t rlen)
{
    char gt[4096], rt[4096];
    fprintf(stderr,
            "pubsub_diff: MISMATCH (%s) after %lld matching replies (seed %llu; rerun with "
            "TEST_SEED=%llu)\n  redis-server: %s\n  goblin-core:  %s\n",
            what, d.commands, d.seed, d.seed, r ? resp_render(r, rlen, rt, sizeof rt) : "(none)",
            g ? resp_render(g, glen, gt, sizeof gt) : "(none)");
    exit(1);
}

static void pair_send(struct pair p, int argc, const char *const *argv, const size_t *lens)
{
    rconn_send_argv(p.g, argc, argv, lens);
    rconn_send_argv(p.r, argc, argv, lens);
}

/* Reads one reply from each side; they must be identical. Returns redis's
 * (caller frees). */
static char *pair_same(struct pair p, const char *what)
{
    size_t glen, rlen;
    char *g = rconn_try_read_reply(p.g, &glen, 10000);
    char *r = rconn_read_reply(p.r, &rlen);
    if (!g || glen != rlen || memcmp(g, r, glen) != 0) mismatch(what, g, glen, r, rlen);
    free(g);
    d.commands++;
    return r;
}

/* Sends a command and compares `replies` replies. */
static void pair_check_n(struct pair p, int replies, const char *const *argv, int argc)
{
    pair_send(p, argc, argv, NULL);
    for (int i = 0; i < replies; i++) free(pair_same(p, argv[0]));
}

#define CHECK_N(p, n, ...)                                                                         \
    do {                                                                                           \
        const char *const argv_[] = {__VA_ARGS__};                                                 \
        pair_check_n((p), (n), argv_, (int)(sizeof argv_ / sizeof argv_[0]));                      \
    } while (0)

static int compare_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The elements of an array reply, each as raw bytes, sorted. */
static int array_elements_sorted(const char *raw, char **out, int max)
{
    CHECK(raw[0] == '*');
    int n = atoi(raw + 1);
    CHECK(n <= max);
    const char *p = strchr(raw, '\n') + 1;
    for (int i = 0; i < n; i++) {
        long long len = resp_reply_length(p, strlen(p));
        CHECK(len > 0);
        out[i] = strndup(p, (size_t)len);
        p += len;
    }
    qsort(out, (size_t)n, sizeof *out, compare_cstr);
    return n;
}

/* An array reply whose element order is a hash order (PUBSUB CHANNELS). */
static void pair_same_array_unordered(struct pair p, const char *what)
{
    size_t glen, rlen;
    char *g = rconn_read_reply(p.g, &glen), *r = rconn_read_reply(p.r, &rlen);
    char *ge[256], *re[256];
    if (g[0] != '*' || r[0] != '*') mismatch(what, g, glen, r, rlen);
    int gn = array_elements_sorted(g, ge, 256), rn = array_elements_sorted(r, re, 256);
    if (gn != rn) mismatch(what, g, glen, r, rlen);
    for (int i = 0; i < gn; i++)
        if (strcmp(ge[i], re[i]) != 0) mismatch(what, g, glen, r, rlen);
    for (int i = 0; i < gn; i++) free(ge[i]), free(re[i]);
    free(g), free(r);
    d.commands++;
}

/* Acknowledgements of an argument-less UNSUBSCRIBE over several channels:
 * Redis walks a hash table, so only the names as a multiset and the
 * sequence of counts are comparable. Ack = header, kind, name, count. */
static void split_ack(const char *ack, char *frame, size_t cap, char *name, size_t ncap)
{
    /* frame: the ack with the name element cut out; name: that element. */
    const char *p = ack;
    for (int line = 0; line < 3; line++) p = strstr(p, "\r\n") + 2; /* header, $len, kind */
    const char *name_start = p;
    p = strstr(p, "\r\n") + 2; /* $len or nil */
    if (name_start[0] == '$' && name_start[1] != '-') p = strstr(p, "\r\n") + 2;
    snprintf(name, ncap, "%.*s", (int)(p - name_start), name_start);
    snprintf(frame, cap, "%.*s%s", (int)(name_start - ack), ack, p);
}

static void pair_same_unsubscribe_all(struct pair p, int n)
{
    char *gn[64], *rn[64];
    CHECK(n <= 64);
    for (int i = 0; i < n; i++) {
        size_t glen, rlen;
        char *g = rconn_try_read_reply(p.g, &glen, 10000);
        char *r = rconn_read_reply(p.r, &rlen);
        if (!g) mismatch("unsubscribe-all", NULL, 0, r, rlen);
        char gf[256], rf[256];
        gn[i] = malloc(256);
        rn[i] = malloc(256);
        split_ack(g, gf, sizeof gf, gn[i], 256);
        split_ack(r, rf, sizeof rf, rn[i], 256);
        if (strcmp(gf, rf) != 0) mismatch("unsubscribe-all ack", g, glen, r, rlen);
        free(g), free(r);
    }
    qsort(gn, (size_t)n, sizeof *gn, compare_cstr);
    qsort(rn, (size_t)n, sizeof *rn, compare_cstr);
    for (int i = 0; i < n; i++) {
        if (strcmp(gn[i], rn[i]) != 0)
            mismatch("unsubscribe-all names", gn[i], strlen(gn[i]), rn[i], strlen(rn[i]));
        free(gn[i]), free(rn[i]);
    }
    d.commands += n;
}

/* A raw reply with its length (payloads may hold NUL bytes). */
struct blob {
    char *p;
    size_t n;
};

static int compare_blob(const void *a, const void *b)
{
    const struct blob *x = a, *y = b;
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Reads pushes up to and including a reply for which is_end() holds,
 * comparing the pushes as a multiset and the final reply exactly. */
static void pair_pushes_until(struct pair p, bool (*is_end)(const char *reply), const char *what)
{
    struct blob g[64], r[64];
    int gn = 0, rn = 0;
    for (;;) {
        CHECK(gn < 64);
        g[gn].p = rconn_try_read_reply(p.g, &g[gn].n, 10000);
        if (!g[gn].p) mismatch(what, NULL, 0, NULL, 0);
        if (is_end(g[gn++].p)) break;
    }
    for (;;) {
        CHECK(rn < 64);
        r[rn].p = rconn_read_reply(p.r, &r[rn].n);
        if (is_end(r[rn++].p)) break;
    }
    const struct blob *gl = &g[gn - 1], *rl = &r[rn - 1];
    if (gn != rn || compare_blob(gl, rl) != 0) mismatch(what, gl->p, gl->n, rl->p, rl->n);
    qsort(g, (size_t)gn - 1, sizeof *g, compare_blob);
    qsort(r, (size_t)rn - 1, sizeof *r, compare_blob);
    for (int i = 0; i < gn - 1; i++)
        if (compare_blob(&g[i], &r[i]) != 0) mismatch(what, g[i].p, g[i].n, r[i].p, r[i].n);
    for (int i = 0; i < gn; i++) free(g[i].p), free(r[i].p);
    d.commands += gn;
}

static bool is_ping_reply(const char *reply)
{
    return strcmp(reply, "+PONG\r\n") == 0 || strcmp(reply, "*2\r\n$4\r\npong\r\n$0\r\n\r\n") == 0;
}

static bool is_integer_reply(const char *reply)
{
    return reply[0] == ':';
}

/* PUBLISH on pub (replies compared), then each subscriber's pushes, fenced
 * by a PING. */
static void publish_and_compare(struct pair pub, struct pair *subs, int nsubs, const char *channel,
                                size_t channel_len, const char *payload, size_t payload_len)
{
    const char *argv[] = {"PUBLISH", channel, payload};
    size_t lens[] = {7, channel_len, payload_len};
    pair_send(pub, 3, argv, lens);
    char what[160], shown[128];
    snprintf(what, sizeof what, "PUBLISH '%s'",
             resp_render(channel, channel_len, shown, sizeof shown));
    free(pair_same(pub, what));
    for (int i = 0; i < nsubs; i++) {
        const char *ping[] = {"PING"};
        pair_send(subs[i], 1, ping, NULL);
        pair_pushes_until(subs[i], is_ping_reply, "pushes after PUBLISH");
    }
}

static bool switch_resp3(struct pair p)
{
    hello3(p.g);
    char *r = rconn_call(p.r, "HELLO", "3", NULL);
    CHECK(r[0] == '%');
    free(r);
    return true;
}

static void shapes(struct pair sub, struct pair pub, bool resp3)
{
    struct pair subs[] = {sub};
    CHECK_N(sub, 1, "SUBSCRIBE");
    CHECK_N(sub, 1, "PSUBSCRIBE");
    CHECK_N(sub, 3, "SUBSCRIBE", "a", "b", "a");
    CHECK_N(sub, 1, "PSUBSCRIBE", "a*");
    CHECK_N(pub, 1, "PUBLISH", "a", "hello");
    free(pair_same(sub, "message")), free(pair_same(sub, "pmessage"));
    CHECK_N(pub, 1, "PUBLISH", "b", "x");
    free(pair_same(sub, "message"));
    CHECK_N(pub, 1, "PUBLISH", "zz", "x");
    CHECK_N(pub, 1, "PUBLISH", "a");
    CHECK_N(pub, 1, "PUBLISH", "a", "b", "c");
    /* Subscribed mode (RESP2) or not (RESP3). */
    CHECK_N(sub, 1, "PING");
    CHECK_N(sub, 1, "PING", "x");
    CHECK_N(sub, 1, "PING", "x", "y");
    CHECK_N(sub, 1, "GET", "x");
    CHECK_N(sub, 1, "GET");
    CHECK_N(sub, 1, "NOSUCHCOMMAND", "x");
    CHECK_N(sub, 1, "SET", "k", "v");
    CHECK_N(sub, 1, "PUBSUB", "NUMSUB", "a");
    if (!resp3) CHECK_N(sub, 1, "CONFIG", "GET", "x");
    /* PUBSUB from another connection. */
    CHECK_N(pub, 1, "PUBSUB", "CHANNELS", "a");
    CHECK_N(pub, 1, "PUBSUB", "CHANNELS", "[a]");
    CHECK_N(pub, 1, "PUBSUB", "CHANNELS", "nomatch*");
    CHECK_N(pub, 1, "PUBSUB", "CHANNELS", "a", "b");
    CHECK_N(pub, 1, "PUBSUB", "NUMSUB", "a", "b", "zz");
    CHECK_N(pub, 1, "PUBSUB", "NUMSUB");
    CHECK_N(pub, 1, "PUBSUB", "NUMPAT");
    CHECK_N(pub, 1, "PUBSUB", "NUMPAT", "x");
    CHECK_N(pub, 1, "PUBSUB", "HELP");
    CHECK_N(pub, 1, "PUBSUB", "help", "x");
    CHECK_N(pub, 1, "PUBSUB");
    CHECK_N(pub, 1, "PUBSUB", "nosuch");
    CHECK_N(pub, 1, "pubsub", "Channels", "x", "y");
    {
        const char *argv[] = {"PUBSUB", "CHANNELS"};
        pair_send(pub, 2, argv, NULL);
        pair_same_array_unordered(pub, "PUBSUB CHANNELS");
    }
    /* Unsubscribing, named and not. */
    CHECK_N(sub, 2, "UNSUBSCRIBE", "b", "zz");
    CHECK_N(sub, 1, "UNSUBSCRIBE");
    CHECK_N(sub, 1, "UNSUBSCRIBE");
    CHECK_N(sub, 1, "PUNSUBSCRIBE", "x");
    CHECK_N(sub, 3, "PSUBSCRIBE", "p1", "p2", "p3");
    CHECK_N(sub, 4, "PUNSUBSCRIBE");
    CHECK_N(sub, 1, "PUNSUBSCRIBE");
    CHECK_N(sub, 1, "GET", "x");
    /* Empty names, binary and large payloads. */
    CHECK_N(sub, 2, "PSUBSCRIBE", "", "*");
    CHECK_N(sub, 1, "SUBSCRIBE", "");
    publish_and_compare(pub, subs, 1, "", 0, "empty channel", 13);
    publish_and_compare(pub, subs, 1, "x", 1, "", 0);
    publish_and_compare(pub, subs, 1, "bin\0\r\nary", 9, "pay\0load\r\n", 10);
    char *big = malloc(3000);
    for (int i = 0; i < 3000; i++) big[i] = (char)('a' + i % 26);
    publish_and_compare(pub, subs, 1, "", 0, big, 3000);
    free(big);
    CHECK_N(sub, 2, "PUNSUBSCRIBE");
    CHECK_N(sub, 1, "UNSUBSCRIBE");
    /* Shard channels: their own namespace and their own count. */
    CHECK_N(sub, 1, "SSUBSCRIBE");
    CHECK_N(sub, 3, "SSUBSCRIBE", "s1", "s2", "s1");
    CHECK_N(sub, 1, "GET", "x");
    CHECK_N(sub, 1, "PING");
    CHECK_N(sub, 1, "SUBSCRIBE", "s1");
    CHECK_N(sub, 1, "PSUBSCRIBE", "s*");
    CHECK_N(pub, 1, "SPUBLISH", "s1", "shard");
    free(pair_same(sub, "smessage"));
    publish_and_compare(pub, subs, 1, "s1", 2, "plain", 5);
    CHECK_N(pub, 1, "SPUBLISH", "nobody", "x");
    CHECK_N(pub, 1, "SPUBLISH", "s1");
    CHECK_N(pub, 1, "PUBSUB", "SHARDCHANNELS", "s1");
    CHECK_N(pub, 1, "PUBSUB", "SHARDCHANNELS", "x*");
    CHECK_N(pub, 1, "PUBSUB", "SHARDCHANNELS", "a", "b");
    CHECK_N(pub, 1, "PUBSUB", "SHARDNUMSUB", "s1", "s2", "zz");
    CHECK_N(pub, 1, "PUBSUB", "SHARDNUMSUB");
    CHECK_N(pub, 1, "PUBSUB", "NUMSUB", "s1", "s2");
    CHECK_N(sub, 2, "SUNSUBSCRIBE", "s2", "zz");
    CHECK_N(sub, 1, "SUNSUBSCRIBE");
    CHECK_N(sub, 1, "SUNSUBSCRIBE");
    CHECK_N(sub, 1, "UNSUBSCRIBE");
    CHECK_N(sub, 1, "PUNSUBSCRIBE");
    CHECK_N(sub, 1, "GET", "x");
    if (resp3) {
        CHECK_N(sub, 1, "SSUBSCRIBE", "mine");
        CHECK_N(sub, 2, "SPUBLISH", "mine", "self");
        CHECK_N(sub, 1, "SUNSUBSCRIBE");
    }
    if (resp3) {
        /* Self-publish: Redis 7.0 sends the pushes before the reply. */
        CHECK_N(sub, 1, "SUBSCRIBE", "self");
        CHECK_N(sub, 1, "PSUBSCRIBE", "sel?");
        CHECK_N(sub, 3, "PUBLISH", "self", "mine");
        CHECK_N(sub, 1, "UNSUBSCRIBE", "self");
        CHECK_N(sub, 2, "PUBLISH", "self", "mine");
        CHECK_N(sub, 1, "PUNSUBSCRIBE");
    }
    /* RESET and QUIT in subscribed mode. */
    CHECK_N(sub, 1, "SUBSCRIBE", "r");
    CHECK_N(sub, 1, "RESET", "x");
    CHECK_N(sub, 1, "RESET");
    CHECK_N(sub, 1, "GET", "nokey");
    CHECK_N(pub, 1, "PUBSUB", "NUMSUB", "r");
    if (resp3) CHECK(switch_resp3(sub));
    CHECK_N(sub, 1, "SUBSCRIBE", "q");
    CHECK_N(sub, 1, "QUIT");
    CHECK(rconn_wait_closed(sub.g, 5000) && rconn_wait_closed(sub.r, 5000));
}

/* A seeded random sequence on two subscribers and one publisher. */
static const char *const channels[] = {"news.a", "news.b", "sport", "x", "a.b.c", ""};
static const char *const patterns[] = {"news.*", "*", "*.b*", "n?ws.[ab]", "x", "s*t", "\\*"};
#define NCH (int)(sizeof channels / sizeof channels[0])
#define NPAT (int)(sizeof patterns / sizeof patterns[0])

struct model {
    bool ch[NCH], pat[NPAT], shard[NCH];
    bool resp3;
};

static int model_channels(const struct model *m)
{
    int n = 0;
    for (int i = 0; i < NCH; i++) n += m->ch[i];
    return n;
}

static int model_patterns(const struct model *m)
{
    int n = 0;
    for (int i = 0; i < NPAT; i++) n += m->pat[i];
    return n;
}

static unsigned long long rng;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

static void random_sequence(struct pair *subs, struct model *models, struct pair pub, int steps)
{
    for (int step = 0; step < steps; step++) {
        int who = (int)rnd(2);
        struct pair s = subs[who];
        struct model *m = &models[who];
        const char *argv[8];
        int argc = 0;
        switch (rnd(12)) {
        case 10: { /* SSUBSCRIBE 1-2, or SUNSUBSCRIBE one or all */
            int c = (int)rnd(NCH);
            if (rnd(2)) {
                m->shard[c] = true;
                CHECK_N(s, 1, "SSUBSCRIBE", channels[c]);
            } else if (rnd(2)) {
                m->shard[c] = false;
                CHECK_N(s, 1, "SUNSUBSCRIBE", channels[c]);
            } else {
                int n = 0;
                for (int i = 0; i < NCH; i++) n += m->shard[i];
                argv[argc++] = "SUNSUBSCRIBE";
                pair_send(s, 1, argv, NULL);
                pair_same_unsubscribe_all(s, n ? n : 1);
                memset(m->shard, 0, sizeof m->shard);
            }
            break;
        }
        case 11: { /* SPUBLISH, fenced like PUBLISH */
            const char *ch = channels[rnd(NCH)];
            const char *a[] = {"SPUBLISH", ch, "shard-message"};
            pair_send(pub, 3, a, NULL);
            free(pair_same(pub, "SPUBLISH"));
            for (int i = 0; i < 2; i++) {
                const char *ping[] = {"PING"};
                pair_send(subs[i], 1, ping, NULL);
                pair_pushes_until(subs[i], is_ping_reply, "pushes after SPUBLISH");
            }
            break;
        }
        case 0:
        case 1: { /* SUBSCRIBE 1-3 channels */
            argv[argc++] = "SUBSCRIBE";
            int k = 1 + (int)rnd(3);
            for (int i = 0; i < k; i++) {
                int c = (int)rnd(NCH);
                argv[argc++] = channels[c];
                m->ch[c] = true;
            }
            pair_check_n(s, argc - 1, argv, argc);
            break;
        }
        case 2: { /* PSUBSCRIBE 1-2 patterns */
            argv[argc++] = "PSUBSCRIBE";
            int k = 1 + (int)rnd(2);
            for (int i = 0; i < k; i++) {
                int p = (int)rnd(NPAT);
                argv[argc++] = patterns[p];
                m->pat[p] = true;
            }
            pair_check_n(s, argc - 1, argv, argc);
            break;
        }
        case 3: { /* UNSUBSCRIBE named, or all */
            if (rnd(2)) {
                int c = (int)rnd(NCH);
                m->ch[c] = false;
                CHECK_N(s, 1, "UNSUBSCRIBE", channels[c]);
            } else {
                int n = model_channels(m);
                argv[argc++] = "UNSUBSCRIBE";
                pair_send(s, 1, argv, NULL);
                pair_same_unsubscribe_all(s, n ? n : 1);
                memset(m->ch, 0, sizeof m->ch);
            }
            break;
        }
        case 4: { /* PUNSUBSCRIBE named, or all (subscription order in both) */
            if (rnd(2)) {
                int p = (int)rnd(NPAT);
                m->pat[p] = false;
                CHECK_N(s, 1, "PUNSUBSCRIBE", patterns[p]);
            } else {
                int n = model_patterns(m);
                CHECK_N(s, n ? n : 1, "PUNSUBSCRIBE");
                memset(m->pat, 0, sizeof m->pat);
            }
            break;
        }
        case 5:
        case 6:
        case 7: {
            char payload[32];
            snprintf(payload, sizeof payload, "msg-%d", step);
            const char *ch = channels[rnd(NCH)];
            publish_and_compare(pub, subs, 2, ch, strlen(ch), payload, strlen(payload));
            break;
        }
        case 8: { /* introspection, or an ordinary command on the subscriber */
            switch (rnd(4)) {
            case 0:
                CHECK_N(pub, 1, "PUBSUB", "NUMSUB", channels[rnd(NCH)], channels[rnd(NCH)]);
                break;
            case 1:
                CHECK_N(pub, 1, "PUBSUB", "NUMPAT");
                CHECK_N(pub, 1, "PUBSUB", "SHARDNUMSUB", channels[rnd(NCH)]);
                break;
            case 2: {
                const char *a[] = {"PUBSUB", "CHANNELS", patterns[rnd(NPAT)]};
                pair_send(pub, 3, a, NULL);
                pair_same_array_unordered(pub, "PUBSUB CHANNELS");
                break;
            }
            default:
                CHECK_N(s, 1, "GET", "k");
                break;
            }
            break;
        }
        default: { /* RESP3: publish from the subscriber itself; else RESET */
            if (m->resp3 && rnd(4)) {
                char payload[32];
                snprintf(payload, sizeof payload, "self-%d", step);
                const char *a[] = {"PUBLISH", channels[rnd(NCH)], payload};
                pair_send(s, 3, a, NULL);
                pair_pushes_until(s, is_integer_reply, "self-publish");
                /* The other subscriber's share, fenced by a PING. */
                const char *ping[] = {"PING"};
                pair_send(subs[1 - who], 1, ping, NULL);
                pair_pushes_until(subs[1 - who], is_ping_reply, "pushes after self-publish");
            } else if (rnd(3) == 0) {
                CHECK_N(s, 1, "RESET");
                memset(m->ch, 0, sizeof m->ch);
                memset(m->pat, 0, sizeof m->pat);
                memset(m->shard, 0, sizeof m->shard);
                if (m->resp3) CHECK(switch_resp3(s));
            }
            break;
        }
        }
    }
}

static void run(bool resp3)
{
    struct rconn sg, sr, pg, pr, s2g, s2r;
    diff_open_extra(&d, &sg, &sr);
    diff_open_extra(&d, &pg, &pr);
    struct pair sub = {&sg, &sr}, pub = {&pg, &pr};
    if (resp3 && !(switch_resp3(sub) && switch_resp3(pub))) {
        rconn_close(&sg), rconn_close(&sr), rconn_close(&pg), rconn_close(&pr);
        return;
    }
    shapes(sub, pub, resp3);
    rconn_close(&sg), rconn_close(&sr);

    diff_open_extra(&d, &sg, &sr);
    diff_open_extra(&d, &s2g, &s2r);
    struct pair subs[2] = {{&sg, &sr}, {&s2g, &s2r}};
    struct model models[2] = {{.resp3 = resp3}, {.resp3 = false}};
    if (resp3) CHECK(switch_resp3(subs[0]));
    random_sequence(subs, models, pub, 1500);
    rconn_close(&sg), rconn_close(&sr), rconn_close(&s2g), rconn_close(&s2r);
    rconn_close(&pg), rconn_close(&pr);
}

int main(void)
{
    unsigned long long seed = test_seed("pubsub_diff");
    rng = seed;
    diff_start(&d, "pubsub_diff", seed, NULL, NULL);
    run(false);
    run(true);
    diff_stop(&d);
    return 0;
}
