/* notify.c — keyspace notifications; contract in notify.h. */
#include "store/notify.h"
#include "util/xmalloc.h"
#include "core/config.h"

#include <stdio.h>
#include <string.h>

#include "store/pubsub.h"
#include "util/buf.h"

int notify_keyspace_flags;

/* Flag letters in the order Redis prints them when not all of A is set. */
static const struct {
    char letter;
    int flag;
} class_letters[] = {
    {'g', NOTIFY_GENERIC}, {'$', NOTIFY_STRING}, {'l', NOTIFY_LIST},    {'s', NOTIFY_SET},
    {'h', NOTIFY_HASH},    {'z', NOTIFY_ZSET},   {'x', NOTIFY_EXPIRED}, {'e', NOTIFY_EVICTED},
    {'t', NOTIFY_STREAM},  {'d', NOTIFY_MODULE}, {'n', NOTIFY_NEW},
};

int notify_flags_parse(const char *s)
{
    int flags = 0;
    for (; *s; s++) {
        int f = 0;
        switch (*s) {
        case 'A':
            f = NOTIFY_ALL;
            break;
        case 'K':
            f = NOTIFY_KEYSPACE;
            break;
        case 'E':
            f = NOTIFY_KEYEVENT;
            break;
        case 'm':
            f = NOTIFY_KEY_MISS;
            break;
        default:
            for (size_t i = 0; i < sizeof class_letters / sizeof class_letters[0]; i++)
                if (class_letters[i].letter == *s) f = class_letters[i].flag;
            if (!f) return -1;
        }
        flags |= f;
    }
    return flags;
}

void notify_flags_format(int flags, char *out)
{
    size_t n = 0;
    if ((flags & NOTIFY_ALL) == NOTIFY_ALL) {
        out[n++] = 'A'; /* Redis drops n here too */
    } else {
        for (size_t i = 0; i < sizeof class_letters / sizeof class_letters[0]; i++)
            if (flags & class_letters[i].flag) out[n++] = class_letters[i].letter;
    }
    if (flags & NOTIFY_KEYSPACE) out[n++] = 'K';
    if (flags & NOTIFY_KEYEVENT) out[n++] = 'E';
    if (flags & NOTIFY_KEY_MISS) out[n++] = 'm';
    out[n] = '\0';
}

/* Channel names are built here; kept between events (a key longer than
 * any before grows it once). */
static struct buf channel;

static void publish_on(const char *prefix, int dbid, const char *name, size_t name_len,
                       const char *payload, size_t payload_len)
{
    char head[48];
    int n = snprintf(head, sizeof head, "__%s@%d__:", prefix, dbid);
    channel.start = channel.end = 0;
    buf_reserve(&channel, (size_t)n + name_len);
    memcpy(buf_tail(&channel), head, (size_t)n);
    memcpy(buf_tail(&channel) + n, name, name_len);
    channel.end += (size_t)n + name_len;
    pubsub_publish(PUBSUB_CHANNEL, buf_head(&channel), buf_len(&channel), payload, payload_len);
}

void notify_keyspace_publish(int type, const char *event, const char *key, size_t key_len, int dbid)
{
    (void)type;
    size_t event_len = strlen(event);
    if (notify_keyspace_flags & NOTIFY_KEYSPACE)
        publish_on("keyspace", dbid, key, key_len, event, event_len);
    if (notify_keyspace_flags & NOTIFY_KEYEVENT)
        publish_on("keyevent", dbid, event, event_len, key, key_len);
}

static const char *validate_notify_keyspace_events(const char *text)
{
    return notify_flags_parse(text) < 0 ? "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
                                        : NULL;
}

/* Sets the flags and keeps the text in Redis's canonical form ("KEA" reads
 * back as "AKE"). */
static void apply_notify_keyspace_events(void)
{
    int flags = notify_flags_parse(config.notify_keyspace_events);
    notify_keyspace_flags = flags < 0 ? 0 : flags;
    char canonical[32];
    notify_flags_format(notify_keyspace_flags, canonical);
    xfree(config.notify_keyspace_events);
    config.notify_keyspace_events = xstrdup(canonical);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param notify_params[] = {
    {.name = "notify-keyspace-events",
     .kind = CFG_STRING,
     .value = &config.notify_keyspace_events,
     .value_name = "FLAGS",
     .help = "keyspace notification classes, Redis's letters K E g $ l s h z x e t m d n A "
             "(default \"\" = off; docs/introspection.md)",
     .apply = apply_notify_keyspace_events,
     .validate = validate_notify_keyspace_events},
};

const struct config_table notify_config = CONFIG_TABLE(notify_params, NULL);
