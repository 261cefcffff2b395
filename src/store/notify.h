/*
 * notify.h — keyspace notifications (Redis's notify-keyspace-events).
 *
 * A write site calls notify_keyspace_event(type, event, key, dbid) next to
 * its db_signal_modified_key / dirty count; when the event's class is
 * enabled the event is published through the ordinary Pub/Sub registry
 * (store/pubsub.h) as Redis 7.0 does:
 *   __keyspace@<db>__:<key>   with payload <event>   (flag K)
 *   __keyevent@<db>__:<event> with payload <key>     (flag E)
 * so subscribers get the same bounded FIFO and slow-consumer rules as any
 * PUBLISH.
 *
 * Cost model: with notifications disabled (the default) a write site pays
 * one load and one branch — the inline test of notify_keyspace_flags — and
 * nothing else; the channel names are built only when a class is enabled.
 *
 * Reentrancy: the publish delivers into subscriber FIFOs only (no
 * subscription changes), so it may be called from inside any command and
 * from active expiry; the conn layer writes the pushes after the batch or
 * housekeeping pass (conn_write_pending_pushes).
 */
#ifndef GOBLIN_NOTIFY_H
#define GOBLIN_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

/* Event classes and channel kinds, Redis's NOTIFY_* values and letters. */
enum notify_class {
    NOTIFY_KEYSPACE = 1 << 0,  /* K */
    NOTIFY_KEYEVENT = 1 << 1,  /* E */
    NOTIFY_GENERIC = 1 << 2,   /* g */
    NOTIFY_STRING = 1 << 3,    /* $ */
    NOTIFY_LIST = 1 << 4,      /* l */
    NOTIFY_SET = 1 << 5,       /* s */
    NOTIFY_HASH = 1 << 6,      /* h */
    NOTIFY_ZSET = 1 << 7,      /* z */
    NOTIFY_EXPIRED = 1 << 8,   /* x */
    NOTIFY_EVICTED = 1 << 9,   /* e */
    NOTIFY_STREAM = 1 << 10,   /* t */
    NOTIFY_KEY_MISS = 1 << 11, /* m (accepted; goblin-core emits no miss events) */
    NOTIFY_LOADED = 1 << 12,   /* module only in Redis; never set from the flag string */
    NOTIFY_MODULE = 1 << 13,   /* d (accepted; no modules) */
    NOTIFY_NEW = 1 << 14,      /* n */
    /* A: every class but m and n, as Redis's NOTIFY_ALL. */
    NOTIFY_ALL = NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH |
                 NOTIFY_ZSET | NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE,
};

/* The enabled classes (config notify-keyspace-events); 0 = disabled. */
extern int notify_keyspace_flags;

/* Publishes one event (out of line: only reached when its class is on). */
void notify_keyspace_publish(int type, const char *event, const char *key, size_t key_len,
                             int dbid);

/* Redis's notifyKeyspaceEvent: the one call every write site makes. */
static inline void notify_keyspace_event(int type, const char *event, const char *key,
                                         size_t key_len, int dbid)
{
    if (__builtin_expect((notify_keyspace_flags & type) == 0, 1)) return;
    notify_keyspace_publish(type, event, key, key_len, dbid);
}

/* Parses a flag string ("KEA", "Kx$"...); -1 on a character Redis refuses. */
int notify_flags_parse(const char *s);

/* The canonical flag string Redis shows for flags (CONFIG GET), into out
 * (at least 20 bytes). */
void notify_flags_format(int flags, char *out);

/* The notify-keyspace-events setting (core/config.h). */
struct config_table;
extern const struct config_table notify_config;

#endif
