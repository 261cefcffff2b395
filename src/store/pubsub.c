/* pubsub.c — the Pub/Sub registry; structures, costs and contracts in pubsub.h. */
#include "store/pubsub.h"

#include <string.h>

#include "util/glob.h"
#include "util/hash.h"
#include "util/xmalloc.h"

/* A channel or a pattern with at least one subscriber. */
struct pubsub_topic {
    struct dict_node node; /* in registry.topics[kind] */
    uint64_t hash;
    struct pubsub_link **links; /* its subscriptions, dense, unordered */
    size_t count, cap;
    size_t pattern_slot; /* patterns: index in registry.patterns */
    size_t prefix_len;   /* patterns: bytes before the first glob metacharacter */
    size_t name_len;
    char name[];
};

/* One subscription: a subscriber listening to a topic. Lives in the
 * subscriber's dict and order list and in the topic's array. */
struct pubsub_link {
    struct dict_node node; /* in subscriber->links[kind] */
    struct pubsub_topic *topic;
    struct pubsub_subscriber *subscriber;
    size_t slot; /* index in topic->links */
    struct pubsub_link *prev, *next;
};

#define TOPIC_MIN_LINKS 4

static uint64_t topic_node_hash(const struct dict_node *n)
{
    return ((const struct pubsub_topic *)n)->hash;
}

static bool topic_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct pubsub_topic *t = (const struct pubsub_topic *)n;
    return t->name_len == len && memcmp(t->name, key, len) == 0;
}

static uint64_t link_node_hash(const struct dict_node *n)
{
    return ((const struct pubsub_link *)n)->topic->hash;
}

static bool link_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    return topic_node_has_key(&((const struct pubsub_link *)n)->topic->node, key, len);
}

static const struct dict_type topic_dict_type = {topic_node_hash, topic_node_has_key};
static const struct dict_type link_dict_type = {link_node_hash, link_node_has_key};

static struct {
    struct dict topics[PUBSUB_KINDS];
    struct pubsub_topic **patterns; /* every pattern topic, dense, for PUBLISH's scan */
    size_t pattern_count, pattern_cap;
    uint64_t next_message_id;
} registry = {
    .topics = {{.type = &topic_dict_type, .rehash_index = -1},
               {.type = &topic_dict_type, .rehash_index = -1},
               {.type = &topic_dict_type, .rehash_index = -1}},
};

void pubsub_subscriber_init(struct pubsub_subscriber *s, pubsub_deliver_fn *deliver)
{
    s->deliver = deliver;
    for (int k = 0; k < PUBSUB_KINDS; k++) {
        dict_init(&s->links[k], &link_dict_type);
        s->first[k] = s->last[k] = NULL;
    }
}

/* --- topics ----------------------------------------------------------- */

static size_t literal_prefix_len(const char *pattern, size_t len)
{
    size_t i = 0;
    while (i < len && pattern[i] != '*' && pattern[i] != '?' && pattern[i] != '[' &&
           pattern[i] != '\\')
        i++;
    return i;
}

static struct pubsub_topic *topic_create(enum pubsub_kind kind, const char *name, size_t len,
                                         uint64_t hash)
{
    struct pubsub_topic *t = xmalloc(sizeof *t + len);
    t->hash = hash;
    t->links = NULL;
    t->count = t->cap = 0;
    t->name_len = len;
    memcpy(t->name, name, len);
    t->prefix_len = 0;
    t->pattern_slot = 0;
    if (kind == PUBSUB_PATTERN) {
        t->prefix_len = literal_prefix_len(name, len);
        if (registry.pattern_count == registry.pattern_cap) {
            registry.pattern_cap = registry.pattern_cap ? registry.pattern_cap * 2 : 8;
            registry.patterns =
                xrealloc(registry.patterns, registry.pattern_cap * sizeof *registry.patterns);
        }
        t->pattern_slot = registry.pattern_count;
        registry.patterns[registry.pattern_count++] = t;
    }
    dict_insert(&registry.topics[kind], &t->node, hash);
    return t;
}

static void topic_destroy(enum pubsub_kind kind, struct pubsub_topic *t)
{
    dict_remove(&registry.topics[kind], t->name, t->name_len, t->hash);
    if (kind == PUBSUB_PATTERN) {
        struct pubsub_topic *moved = registry.patterns[--registry.pattern_count];
        registry.patterns[t->pattern_slot] = moved;
        moved->pattern_slot = t->pattern_slot;
        if (registry.pattern_count == 0) {
            xfree(registry.patterns);
            registry.patterns = NULL;
            registry.pattern_cap = 0;
        }
    }
    xfree(t->links);
    xfree(t);
}

static void topic_add_link(struct pubsub_topic *t, struct pubsub_link *l)
{
    if (t->count == t->cap) {
        t->cap = t->cap ? t->cap * 2 : TOPIC_MIN_LINKS;
        t->links = xrealloc(t->links, t->cap * sizeof *t->links);
    }
    l->slot = t->count;
    t->links[t->count++] = l;
}

/* Swap-removes l (order across subscribers is unspecified); shrinks the
 * array when it is three quarters empty so a burst does not pin memory. */
static void topic_remove_link(struct pubsub_topic *t, struct pubsub_link *l)
{
    struct pubsub_link *moved = t->links[--t->count];
    t->links[l->slot] = moved;
    moved->slot = l->slot;
    if (t->cap > TOPIC_MIN_LINKS && t->count * 4 <= t->cap) {
        t->cap /= 2;
        t->links = xrealloc(t->links, t->cap * sizeof *t->links);
    }
}

/* --- subscriptions ---------------------------------------------------- */

bool pubsub_subscribe(struct pubsub_subscriber *s, enum pubsub_kind kind, const char *name,
                      size_t len)
{
    uint64_t hash = hash_bytes(name, len);
    if (dict_find(&s->links[kind], name, len, hash)) return false;
    struct pubsub_topic *t =
        (struct pubsub_topic *)dict_find(&registry.topics[kind], name, len, hash);
    if (!t) t = topic_create(kind, name, len, hash);
    struct pubsub_link *l = xmalloc(sizeof *l);
    l->topic = t;
    l->subscriber = s;
    topic_add_link(t, l);
    dict_insert(&s->links[kind], &l->node, hash);
    l->next = NULL;
    l->prev = s->last[kind];
    if (s->last[kind])
        s->last[kind]->next = l;
    else
        s->first[kind] = l;
    s->last[kind] = l;
    return true;
}

/* Unlinks l everywhere except the subscriber's dict (the caller removed it
 * there), tells fn, then frees l and, if it was the last, its topic. */
static void link_release(struct pubsub_subscriber *s, enum pubsub_kind kind, struct pubsub_link *l,
                         pubsub_name_fn *fn, void *arg)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        s->first[kind] = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        s->last[kind] = l->prev;
    struct pubsub_topic *t = l->topic;
    topic_remove_link(t, l);
    xfree(l);
    if (fn) fn(t->name, t->name_len, arg);
    if (t->count == 0) topic_destroy(kind, t);
}

bool pubsub_unsubscribe(struct pubsub_subscriber *s, enum pubsub_kind kind, const char *name,
                        size_t len)
{
    struct dict_node *n = dict_remove(&s->links[kind], name, len, hash_bytes(name, len));
    if (!n) return false;
    link_release(s, kind, (struct pubsub_link *)n, NULL, NULL);
    return true;
}

size_t pubsub_unsubscribe_all(struct pubsub_subscriber *s, enum pubsub_kind kind,
                              pubsub_name_fn *fn, void *arg)
{
    size_t removed = 0;
    while (s->first[kind]) {
        struct pubsub_link *l = s->first[kind];
        dict_remove(&s->links[kind], l->topic->name, l->topic->name_len, l->topic->hash);
        link_release(s, kind, l, fn, arg);
        removed++;
    }
    /* Nothing left: give the (empty) bucket arrays back. */
    dict_release(&s->links[kind], NULL, NULL);
    return removed;
}

bool pubsub_foreach_subscription(const struct pubsub_subscriber *s, enum pubsub_kind kind,
                                 bool (*fn)(const char *name, size_t len, void *arg), void *arg)
{
    for (const struct pubsub_link *l = s->first[kind]; l; l = l->next)
        if (!fn(l->topic->name, l->topic->name_len, arg)) return false;
    return true;
}

/* --- publishing ------------------------------------------------------- */

static long long deliver_to_topic(const struct pubsub_topic *t, const struct pubsub_message *m)
{
    long long accepted = 0;
    for (size_t i = 0; i < t->count; i++) {
        struct pubsub_subscriber *s = t->links[i]->subscriber;
        if (s->deliver(s, m)) accepted++;
    }
    return accepted;
}

static bool pattern_matches(const struct pubsub_topic *p, const char *channel, size_t len)
{
    if (len < p->prefix_len || memcmp(channel, p->name, p->prefix_len) != 0) return false;
    if (p->prefix_len == p->name_len) return len == p->name_len; /* no metacharacter */
    return glob_match(p->name, p->name_len, channel, len, false);
}

long long pubsub_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                         const char *payload, size_t payload_len)
{
    struct pubsub_message m = {
        .kind = kind,
        .channel = channel,
        .channel_len = channel_len,
        .payload = payload,
        .payload_len = payload_len,
    };
    long long accepted = 0;
    struct dict *channels = &registry.topics[kind];
    if (dict_size(channels) > 0) {
        struct pubsub_topic *t = (struct pubsub_topic *)dict_find(channels, channel, channel_len,
                                                                  hash_bytes(channel, channel_len));
        if (t) {
            m.id = ++registry.next_message_id;
            accepted += deliver_to_topic(t, &m);
        }
    }
    if (kind != PUBSUB_CHANNEL) return accepted; /* patterns never match shard channels */
    m.kind = PUBSUB_PATTERN;
    for (size_t i = 0; i < registry.pattern_count; i++) {
        const struct pubsub_topic *p = registry.patterns[i];
        if (!pattern_matches(p, channel, channel_len)) continue;
        m.pattern = p->name;
        m.pattern_len = p->name_len;
        m.id = ++registry.next_message_id;
        accepted += deliver_to_topic(p, &m);
    }
    return accepted;
}

/* --- introspection ---------------------------------------------------- */

size_t pubsub_channel_subscribers(enum pubsub_kind kind, const char *channel, size_t len)
{
    struct dict *channels = &registry.topics[kind];
    if (dict_size(channels) == 0) return 0;
    const struct pubsub_topic *t =
        (const struct pubsub_topic *)dict_find(channels, channel, len, hash_bytes(channel, len));
    return t ? t->count : 0;
}

size_t pubsub_pattern_count(void)
{
    return registry.pattern_count;
}

size_t pubsub_channel_count(enum pubsub_kind kind)
{
    return dict_size(&registry.topics[kind]);
}

struct foreach_state {
    const char *pattern;
    size_t pattern_len;
    pubsub_name_fn *fn;
    void *arg;
};

static bool foreach_channel_visit(struct dict_node *n, void *arg)
{
    const struct foreach_state *st = arg;
    const struct pubsub_topic *t = (const struct pubsub_topic *)n;
    if (!st->pattern || glob_match(st->pattern, st->pattern_len, t->name, t->name_len, false))
        st->fn(t->name, t->name_len, st->arg);
    return true;
}

void pubsub_foreach_channel(enum pubsub_kind kind, const char *pattern, size_t pattern_len,
                            pubsub_name_fn *fn, void *arg)
{
    struct foreach_state st = {pattern, pattern_len, fn, arg};
    dict_foreach(&registry.topics[kind], foreach_channel_visit, &st);
}
