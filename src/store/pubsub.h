/*
 * pubsub.h — the Pub/Sub registry: which subscriber listens to which channel
 * and which glob pattern, and the delivery of one published message to every
 * subscription it matches.
 *
 * The registry knows nothing of connections, sockets or protocols. A
 * subscriber is a struct pubsub_subscriber embedded in its owner (a client
 * connection) carrying a delivery callback; the owner decides how a message
 * is encoded and where the bytes go.
 *
 * Structures:
 *  - channels: intrusive dict (store/dict.h) from channel name to a topic
 *    holding a dense array of subscription links. PUBLISH to a channel is one
 *    hash lookup; with no subscriber and no pattern anywhere it is only that.
 *  - patterns: the same kind of dict (for PSUBSCRIBE/PUNSUBSCRIBE lookup) plus
 *    a dense array of the distinct patterns, scanned on every PUBLISH while
 *    any pattern exists.
 *  - per subscriber: a dict of its links per kind (membership in O(1)) and a
 *    list of them in subscription order (UNSUBSCRIBE / PUNSUBSCRIBE without
 *    arguments answer in that order, as Redis 7.0 does for patterns).
 *
 * Cost of PUBLISH, with P distinct patterns and S matching subscriptions:
 * one channel lookup + O(S) deliveries + P pattern tests. A pattern test
 * first compares the pattern's literal prefix (the bytes before its first
 * `*`, `?`, `[` or `\`) with the channel — a memcmp — and runs the glob
 * matcher (util/glob.h, O(pattern length x channel length) worst case, never
 * exponential) only when the prefix matches. So delivery work is proportional
 * to the matching subscribers, and pattern work to the number of distinct
 * patterns (not to subscriptions: a pattern shared by many subscribers is
 * tested once).
 *
 * Ordering: a message is delivered first to the channel's subscribers, then
 * for each matching pattern to that pattern's subscribers. Each subscriber
 * sees its own deliveries in publish order; the order across subscribers is
 * unspecified (as in Redis).
 *
 * Shard channels (SSUBSCRIBE/SPUBLISH, Redis 7.0) are a third, separate
 * namespace of exact names: no pattern ever matches them, and they are
 * counted apart from channels and patterns in acknowledgements.
 *
 * Reentrancy: a delivery callback must not subscribe or unsubscribe anyone
 * (the registry is being iterated). An owner that must drop a subscriber
 * while delivering (a slow consumer) records that and acts after
 * pubsub_publish() returns.
 */
#ifndef GOBLIN_PUBSUB_H
#define GOBLIN_PUBSUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dict.h"

enum pubsub_kind {
    PUBSUB_CHANNEL = 0, /* SUBSCRIBE: exact channel name */
    PUBSUB_PATTERN = 1, /* PSUBSCRIBE: glob pattern over channel names */
    PUBSUB_SHARD = 2,   /* SSUBSCRIBE: exact shard channel name */
    PUBSUB_KINDS = 3,
};

/* One delivery through one subscription of the given kind (pattern is set
 * for PUBSUB_PATTERN only). Pointers are valid during the callback only. */
struct pubsub_message {
    enum pubsub_kind kind;
    const char *pattern;
    size_t pattern_len;
    const char *channel;
    size_t channel_len;
    const char *payload;
    size_t payload_len;
    /* Distinct for every (publish, pattern) pair, identical across the
     * subscribers that receive the same bytes: an owner may cache an
     * encoding under this id and reuse it for the whole fan-out. */
    uint64_t id;
};

struct pubsub_subscriber;
struct pubsub_link;

/* Delivers m to s. Returns true if the message was accepted (it counts in
 * PUBLISH's reply), false if the subscriber could not take it. Must not
 * change any subscription (see Reentrancy above). */
typedef bool pubsub_deliver_fn(struct pubsub_subscriber *s, const struct pubsub_message *m);

struct pubsub_subscriber {
    pubsub_deliver_fn *deliver;
    struct dict links[PUBSUB_KINDS];                              /* struct pubsub_link by name */
    struct pubsub_link *first[PUBSUB_KINDS], *last[PUBSUB_KINDS]; /* subscription order */
};

/* Prepares an empty subscriber; no allocation until it subscribes. */
void pubsub_subscriber_init(struct pubsub_subscriber *s, pubsub_deliver_fn *deliver);

/* Channels plus patterns s listens to: the count in (P)(UN)SUBSCRIBE acks. */
static inline size_t pubsub_subscription_count(const struct pubsub_subscriber *s)
{
    return dict_size(&s->links[PUBSUB_CHANNEL]) + dict_size(&s->links[PUBSUB_PATTERN]);
}

/* Shard channels s listens to: the count in S(UN)SUBSCRIBE acks. */
static inline size_t pubsub_shard_subscription_count(const struct pubsub_subscriber *s)
{
    return dict_size(&s->links[PUBSUB_SHARD]);
}

/* Every subscription of s, whatever its kind. */
static inline size_t pubsub_total_subscription_count(const struct pubsub_subscriber *s)
{
    return pubsub_subscription_count(s) + pubsub_shard_subscription_count(s);
}

/* Adds a subscription; returns false when s already had it (no change). */
bool pubsub_subscribe(struct pubsub_subscriber *s, enum pubsub_kind kind, const char *name,
                      size_t len);

/* Removes a subscription; returns false when s did not have it. */
bool pubsub_unsubscribe(struct pubsub_subscriber *s, enum pubsub_kind kind, const char *name,
                        size_t len);

typedef void pubsub_name_fn(const char *name, size_t len, void *arg);

/* Removes every subscription of one kind in subscription order. After each
 * removal fn (may be NULL) gets the name (valid during the call only) while
 * pubsub_subscription_count(s) already excludes it. Returns the number
 * removed. */
size_t pubsub_unsubscribe_all(struct pubsub_subscriber *s, enum pubsub_kind kind,
                              pubsub_name_fn *fn, void *arg);

/* Visits s's subscriptions of one kind in subscription order while fn
 * returns true (fn must not change subscriptions); false when fn stopped. */
bool pubsub_foreach_subscription(const struct pubsub_subscriber *s, enum pubsub_kind kind,
                                 bool (*fn)(const char *name, size_t len, void *arg), void *arg);

/* Delivers payload to every subscription matching channel — PUBLISH
 * (kind PUBSUB_CHANNEL: channel subscribers, then matching patterns) or
 * SPUBLISH (kind PUBSUB_SHARD: shard subscribers only). Returns the number
 * of deliveries accepted (the command's reply). */
long long pubsub_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                         const char *payload, size_t payload_len);

/* PUBSUB NUMSUB / SHARDNUMSUB: subscribers of one channel of that kind
 * (PUBSUB_CHANNEL or PUBSUB_SHARD; pattern subscriptions excluded). */
size_t pubsub_channel_subscribers(enum pubsub_kind kind, const char *channel, size_t len);

/* PUBSUB NUMPAT: distinct patterns with at least one subscriber. */
size_t pubsub_pattern_count(void);

/* Channels (or shard channels) with at least one subscriber. */
size_t pubsub_channel_count(enum pubsub_kind kind);

/* PUBSUB CHANNELS / SHARDCHANNELS: calls fn for each active channel of that
 * kind matching the glob pattern (NULL = all), in unspecified order. */
void pubsub_foreach_channel(enum pubsub_kind kind, const char *pattern, size_t pattern_len,
                            pubsub_name_fn *fn, void *arg);

#endif
