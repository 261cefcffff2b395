/* Unit tests of the Pub/Sub registry (store/pubsub.h) against a simple
 * reference model: random subscribe / unsubscribe / unsubscribe-all /
 * publish sequences over many subscribers, channels, patterns and shard
 * channels (the same names as channels: a separate namespace), checking
 * every delivery (channel first, then patterns), the message ids, the
 * introspection counts, PUBSUB (SHARD)CHANNELS, and unsubscribe-all order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/pubsub.h"
#include "util/glob.h"

#define NSUBS 24
#define MAX_DELIVERIES 64

static const char *const channel_pool[] = {"ch0",  "ch1",    "ch2",    "ch3", "ch10", "ch19",
                                           "ch29", "news.a", "news.b", "x",   "",     "c9"};
static const char *const pattern_pool[] = {"ch1*", "ch?", "*",      "ch[0-3]",   "c*9", "ch29",
                                           "",     "x*",  "news.*", "n?ws.[ab]", "\\*", "*.b"};
#define NCHANNELS (sizeof channel_pool / sizeof channel_pool[0])
#define NPATTERNS (sizeof pattern_pool / sizeof pattern_pool[0])

struct delivery {
    enum pubsub_kind kind;
    int pattern; /* index in pattern_pool, -1 for a channel or shard subscription */
    const char *channel;
    uint64_t id;
};

struct fake_sub {
    struct pubsub_subscriber sub; /* first: the callback casts back */
    /* model: subscription order as pool indexes, per enum pubsub_kind */
    int order[PUBSUB_KINDS][NPATTERNS > NCHANNELS ? NPATTERNS : NCHANNELS];
    int count[PUBSUB_KINDS];
    struct delivery got[MAX_DELIVERIES];
    int ngot;
    bool refuse; /* deliver returns false (e.g. a full FIFO) */
};

static struct fake_sub subs[NSUBS];

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 17;
}

static int pool_index(const char *const *pool, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(pool[i]) == len && memcmp(pool[i], name, len) == 0) return (int)i;
    return -1;
}

static bool fake_deliver(struct pubsub_subscriber *s, const struct pubsub_message *m)
{
    struct fake_sub *f = (struct fake_sub *)s;
    CHECK(f->ngot < MAX_DELIVERIES);
    struct delivery *d = &f->got[f->ngot++];
    d->kind = m->kind;
    CHECK((m->kind == PUBSUB_PATTERN) == (m->pattern != NULL));
    d->pattern = m->pattern ? pool_index(pattern_pool, NPATTERNS, m->pattern, m->pattern_len) : -1;
    CHECK(!m->pattern || d->pattern >= 0);
    d->channel = m->channel;
    d->id = m->id;
    CHECK(m->payload_len == 7 && memcmp(m->payload, "payload", 7) == 0);
    return !f->refuse;
}

static int model_find(const struct fake_sub *f, int kind, int idx)
{
    for (int i = 0; i < f->count[kind]; i++)
        if (f->order[kind][i] == idx) return i;
    return -1;
}

static const char *pool_name(int kind, int idx)
{
    return kind == PUBSUB_PATTERN ? pattern_pool[idx] : channel_pool[idx];
}

/* The count acknowledgements of that kind carry. */
static int model_ack_count(const struct fake_sub *f, int kind)
{
    return kind == PUBSUB_SHARD ? f->count[PUBSUB_SHARD]
                                : f->count[PUBSUB_CHANNEL] + f->count[PUBSUB_PATTERN];
}

static void model_remove(struct fake_sub *f, int kind, int pos)
{
    memmove(&f->order[kind][pos], &f->order[kind][pos + 1],
            sizeof(int) * (size_t)(f->count[kind] - pos - 1));
    f->count[kind]--;
}

static size_t model_channel_subscribers(int kind, int ch)
{
    size_t n = 0;
    for (int s = 0; s < NSUBS; s++) n += model_find(&subs[s], kind, ch) >= 0;
    return n;
}

static size_t model_pattern_count(void)
{
    size_t n = 0;
    for (size_t p = 0; p < NPATTERNS; p++) {
        bool any = false;
        for (int s = 0; s < NSUBS && !any; s++)
            any = model_find(&subs[s], PUBSUB_PATTERN, (int)p) >= 0;
        n += any;
    }
    return n;
}

struct all_state {
    struct fake_sub *f;
    int kind;
    int next; /* position in the model's order expected next */
};

static void unsubscribe_all_visit(const char *name, size_t len, void *arg)
{
    struct all_state *st = arg;
    int expect = st->f->order[st->kind][st->next++];
    const char *want = pool_name(st->kind, expect);
    CHECKF(strlen(want) == len && memcmp(want, name, len) == 0, "unsubscribe-all order");
    /* The count already excludes the one just removed. */
    long long left = model_ack_count(st->f, st->kind) - st->next;
    const struct pubsub_subscriber *s = &st->f->sub;
    CHECK_EQ_LL(st->kind == PUBSUB_SHARD ? pubsub_shard_subscription_count(s)
                                         : pubsub_subscription_count(s),
                left);
}

/* SPUBLISH: shard subscribers only, one delivery each, never a pattern. */
static void check_shard_publish(int ch)
{
    for (int s = 0; s < NSUBS; s++) subs[s].ngot = 0, subs[s].refuse = false;
    const char *channel = channel_pool[ch];
    long long accepted = pubsub_publish(PUBSUB_SHARD, channel, strlen(channel), "payload", 7);
    long long want = 0;
    for (int s = 0; s < NSUBS; s++) {
        bool on = model_find(&subs[s], PUBSUB_SHARD, ch) >= 0;
        CHECK_EQ_LL(subs[s].ngot, on ? 1 : 0);
        if (on) CHECK(subs[s].got[0].kind == PUBSUB_SHARD && subs[s].got[0].pattern == -1);
        want += on;
    }
    CHECK_EQ_LL(accepted, want);
}

static void check_publish(int ch, int refusing)
{
    for (int s = 0; s < NSUBS; s++) {
        subs[s].ngot = 0;
        subs[s].refuse = s == refusing;
    }
    const char *channel = channel_pool[ch];
    long long accepted = pubsub_publish(PUBSUB_CHANNEL, channel, strlen(channel), "payload", 7);
    long long expected_accepted = 0;
    uint64_t pattern_ids[NPATTERNS] = {0};
    uint64_t channel_id = 0;
    for (int s = 0; s < NSUBS; s++) {
        struct fake_sub *f = &subs[s];
        int want = 0;
        bool on_channel = model_find(f, PUBSUB_CHANNEL, ch) >= 0;
        if (on_channel) {
            CHECKF(f->ngot > 0 && f->got[0].pattern == -1 && f->got[0].kind == PUBSUB_CHANNEL,
                   "channel delivery first");
            if (channel_id) CHECK_EQ_LL(f->got[0].id, channel_id);
            channel_id = f->got[0].id;
            want++;
        }
        for (int i = 0; i < f->count[PUBSUB_PATTERN]; i++) {
            int p = f->order[PUBSUB_PATTERN][i];
            const char *pat = pattern_pool[p];
            if (!glob_match(pat, strlen(pat), channel, strlen(channel), false)) continue;
            want++;
            int hits = 0;
            for (int k = 0; k < f->ngot; k++) {
                if (f->got[k].pattern != p) continue;
                hits++;
                if (pattern_ids[p]) CHECK_EQ_LL(f->got[k].id, pattern_ids[p]);
                pattern_ids[p] = f->got[k].id;
            }
            CHECKF(hits == 1, "pattern '%s' on channel '%s': %d deliveries", pat, channel, hits);
        }
        CHECKF(f->ngot == want, "subscriber %d: %d deliveries, expected %d", s, f->ngot, want);
        if (s != refusing) expected_accepted += want;
    }
    CHECK_EQ_LL(accepted, expected_accepted);
    /* One id per (publish, pattern): all distinct. */
    for (size_t p = 0; p < NPATTERNS; p++) {
        if (!pattern_ids[p]) continue;
        CHECK(pattern_ids[p] != channel_id);
        for (size_t q = p + 1; q < NPATTERNS; q++) CHECK(pattern_ids[p] != pattern_ids[q]);
    }
}

struct channels_state {
    bool seen[NCHANNELS];
    int n;
};

static void channels_visit(const char *name, size_t len, void *arg)
{
    struct channels_state *st = arg;
    int idx = pool_index(channel_pool, NCHANNELS, name, len);
    CHECK(idx >= 0 && !st->seen[idx]);
    st->seen[idx] = true;
    st->n++;
}

static void check_introspection_of(enum pubsub_kind kind)
{
    size_t active = 0;
    for (size_t c = 0; c < NCHANNELS; c++) {
        size_t n = model_channel_subscribers(kind, (int)c);
        const char *name = channel_pool[c];
        CHECK_EQ_LL(pubsub_channel_subscribers(kind, name, strlen(name)), n);
        active += n > 0;
    }
    CHECK_EQ_LL(pubsub_channel_count(kind), active);
    const char *filters[] = {NULL, "ch*", "news.?", "nothing"};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        struct channels_state st = {0};
        const char *flt = filters[i];
        pubsub_foreach_channel(kind, flt, flt ? strlen(flt) : 0, channels_visit, &st);
        for (size_t c = 0; c < NCHANNELS; c++) {
            const char *name = channel_pool[c];
            bool want = model_channel_subscribers(kind, (int)c) > 0 &&
                        (!flt || glob_match(flt, strlen(flt), name, strlen(name), false));
            CHECKF(st.seen[c] == want, "PUBSUB CHANNELS %s: '%s'", flt ? flt : "(all)", name);
        }
    }
}

static void check_introspection(void)
{
    check_introspection_of(PUBSUB_CHANNEL);
    check_introspection_of(PUBSUB_SHARD);
    CHECK_EQ_LL(pubsub_pattern_count(), model_pattern_count());
}

static void test_random_model(unsigned long long seed)
{
    rng_state = seed;
    for (int s = 0; s < NSUBS; s++) {
        memset(&subs[s], 0, sizeof subs[s]);
        pubsub_subscriber_init(&subs[s].sub, fake_deliver);
    }
    for (int step = 0; step < 20000; step++) {
        struct fake_sub *f = &subs[rnd() % NSUBS];
        int kind = (int)(rnd() % PUBSUB_KINDS);
        int pool_n = kind == PUBSUB_PATTERN ? (int)NPATTERNS : (int)NCHANNELS;
        int idx = (int)(rnd() % (uint64_t)pool_n);
        const char *name = pool_name(kind, idx);
        switch (rnd() % 9) {
        case 0:
        case 1:
        case 2: {
            bool added = pubsub_subscribe(&f->sub, (enum pubsub_kind)kind, name, strlen(name));
            CHECK(added == (model_find(f, kind, idx) < 0));
            if (added) f->order[kind][f->count[kind]++] = idx;
            break;
        }
        case 3:
        case 4: {
            bool removed = pubsub_unsubscribe(&f->sub, (enum pubsub_kind)kind, name, strlen(name));
            int pos = model_find(f, kind, idx);
            CHECK(removed == (pos >= 0));
            if (removed) model_remove(f, kind, pos);
            break;
        }
        case 5:
            if (rnd() % 4 == 0) {
                struct all_state st = {f, kind, 0};
                size_t n = pubsub_unsubscribe_all(&f->sub, (enum pubsub_kind)kind,
                                                  unsubscribe_all_visit, &st);
                CHECK_EQ_LL(n, f->count[kind]);
                f->count[kind] = 0;
            }
            break;
        case 6:
            check_shard_publish((int)(rnd() % NCHANNELS));
            break;
        default:
            check_publish((int)(rnd() % NCHANNELS), rnd() % 3 == 0 ? (int)(rnd() % NSUBS) : -1);
            break;
        }
        CHECK_EQ_LL(pubsub_subscription_count(&f->sub), model_ack_count(f, PUBSUB_CHANNEL));
        CHECK_EQ_LL(pubsub_shard_subscription_count(&f->sub), model_ack_count(f, PUBSUB_SHARD));
        if (step % 500 == 0) check_introspection();
    }
    for (int s = 0; s < NSUBS; s++) {
        for (int k = 0; k < PUBSUB_KINDS; k++) {
            pubsub_unsubscribe_all(&subs[s].sub, (enum pubsub_kind)k, NULL, NULL);
            subs[s].count[k] = 0;
        }
    }
    check_introspection();
    CHECK_EQ_LL(pubsub_channel_count(PUBSUB_CHANNEL), 0);
    CHECK_EQ_LL(pubsub_channel_count(PUBSUB_SHARD), 0);
    CHECK_EQ_LL(pubsub_pattern_count(), 0);
}

/* Many subscribers on one channel: swap-removal and shrinking of the topic's
 * array keep every remaining subscriber reachable exactly once. */
enum { FANOUT = 20000 };

struct indexed_sub {
    struct pubsub_subscriber sub; /* first: the callback casts back */
    int index;
};

static int fanout_hits[FANOUT];

static bool fanout_deliver(struct pubsub_subscriber *s, const struct pubsub_message *m)
{
    (void)m;
    fanout_hits[((struct indexed_sub *)s)->index]++;
    return true;
}

static void test_large_fanout(void)
{
    struct indexed_sub *many = calloc(FANOUT, sizeof *many);
    bool *on = calloc(FANOUT, sizeof *on);
    for (int i = 0; i < FANOUT; i++) {
        pubsub_subscriber_init(&many[i].sub, fanout_deliver);
        many[i].index = i;
        CHECK(pubsub_subscribe(&many[i].sub, PUBSUB_CHANNEL, "big", 3));
        on[i] = true;
    }
    long long left = FANOUT;
    for (int round = 0; round < 4; round++) {
        CHECK_EQ_LL(pubsub_channel_subscribers(PUBSUB_CHANNEL, "big", 3), left);
        memset(fanout_hits, 0, sizeof fanout_hits);
        CHECK_EQ_LL(pubsub_publish(PUBSUB_CHANNEL, "big", 3, "m", 1), left);
        for (int i = 0; i < FANOUT; i++) CHECK_EQ_LL(fanout_hits[i], on[i] ? 1 : 0);
        /* Drop about three quarters of those left, in random order. */
        for (int i = 0; i < FANOUT; i++) {
            if (!on[i] || rnd() % 4 == 0) continue;
            CHECK(pubsub_unsubscribe(&many[i].sub, PUBSUB_CHANNEL, "big", 3));
            on[i] = false;
            left--;
        }
    }
    for (int i = 0; i < FANOUT; i++)
        CHECK(pubsub_unsubscribe_all(&many[i].sub, PUBSUB_CHANNEL, NULL, NULL) ==
              (on[i] ? 1u : 0u));
    CHECK_EQ_LL(pubsub_channel_count(PUBSUB_CHANNEL), 0);
    CHECK_EQ_LL(pubsub_publish(PUBSUB_CHANNEL, "big", 3, "m", 1), 0);
    free(many);
    free(on);
}

int main(void)
{
    unsigned long long seed = getenv("TEST_SEED") ? strtoull(getenv("TEST_SEED"), NULL, 10) : 42;
    fprintf(stderr, "test_pubsub_registry: seed %llu (rerun with TEST_SEED=%llu)\n", seed, seed);
    test_random_model(seed);
    test_large_fanout();
    printf("pubsub registry: ok\n");
    return 0;
}
