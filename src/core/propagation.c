/* propagation.c — consumers of the propagated command stream; see propagation.h. */
#include "core/propagation.h"

#include <stdlib.h>

#include "core/command_hooks.h"

static struct {
    propagation_feed_fn *feed;
    bool feeds_replicas;
} consumers[PROPAGATION_CONSUMERS_MAX];
static int consumer_count;
static void (*listener)(bool on);

bool propagation_has_consumer(propagation_feed_fn *feed)
{
    for (int i = 0; i < consumer_count; i++)
        if (consumers[i].feed == feed) return true;
    return false;
}

bool propagation_feeds_replicas(void)
{
    for (int i = 0; i < consumer_count; i++)
        if (consumers[i].feeds_replicas) return true;
    return false;
}

void propagation_add_consumer(propagation_feed_fn *feed, bool feeds_replicas)
{
    if (propagation_has_consumer(feed)) return;
    if (consumer_count == PROPAGATION_CONSUMERS_MAX) abort(); /* a wiring error: raise the bound */
    consumers[consumer_count].feed = feed;
    consumers[consumer_count++].feeds_replicas = feeds_replicas;
    if (consumer_count == 1) {
        command_hook_set(HOOK_PROPAGATE, true);
        if (listener) listener(true);
    }
}

void propagation_remove_consumer(propagation_feed_fn *feed)
{
    for (int i = 0; i < consumer_count; i++) {
        if (consumers[i].feed != feed) continue;
        for (int k = i + 1; k < consumer_count; k++) consumers[k - 1] = consumers[k];
        if (--consumer_count == 0) {
            command_hook_set(HOOK_PROPAGATE, false);
            if (listener) listener(false);
        }
        return;
    }
}

void propagation_set_listener(void (*on_change)(bool on))
{
    listener = on_change;
}

void propagation_feed(int db, const char *resp, size_t len, enum propagation_target target)
{
    for (int i = 0; i < consumer_count; i++)
        if (target == PROPAGATION_ALL || consumers[i].feeds_replicas)
            consumers[i].feed(db, resp, len);
}
