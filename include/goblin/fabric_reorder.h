/*
 * goblin/fabric_reorder.h — the bounded reorder window of the libfabric
 * transport, used by both the server (one per session) and the client.
 *
 * Reliable-datagram providers may complete messages out of order. Each
 * direction numbers its DATA frames from 1; the receiver delivers them in
 * sequence order:
 *   - the expected sequence is delivered at once, without a copy (the fast
 *     path: nothing held, one comparison);
 *   - a later sequence within the window is copied and held (sequestered)
 *     until the gap before it fills; then the contiguous run is drained in
 *     order by goblin_reorder_pop();
 *   - an earlier sequence, or one already held, is a duplicate and dropped;
 *   - a sequence at or beyond `next + max_messages`, or a message that would
 *     make the held bytes exceed `max_bytes`, is an overflow: the caller
 *     ends the session. The window never allocates more than max_messages
 *     slots and max_bytes of held payload, whatever the peer sends.
 *
 * Not thread-safe; one window per receiving session.
 */
#ifndef GOBLIN_FABRIC_REORDER_H
#define GOBLIN_FABRIC_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GOBLIN_REORDER_DEFAULT_MESSAGES 64u
#define GOBLIN_REORDER_DEFAULT_BYTES (1u << 20)

enum goblin_reorder_result {
    GOBLIN_REORDER_DELIVER,   /* the expected sequence: consume it now, then pop */
    GOBLIN_REORDER_HELD,      /* a future sequence: copied, delivered later */
    GOBLIN_REORDER_DUPLICATE, /* already delivered or held: dropped */
    GOBLIN_REORDER_OVERFLOW,  /* beyond the window (count or bytes): end the session */
    GOBLIN_REORDER_NOMEM,     /* the copy could not be allocated: end the session */
};

struct goblin_reorder_slot {
    uint64_t sequence; /* 0: empty */
    uint32_t len;
    void *data;
};

struct goblin_reorder {
    uint64_t next;         /* the sequence delivered next */
    uint32_t max_messages; /* slots; sequences next .. next+max_messages-1 fit */
    size_t max_bytes;
    uint32_t held;
    size_t held_bytes;
    struct goblin_reorder_slot *slots; /* indexed by sequence % max_messages */
    /* Counters (diagnostics: INFO, tests). */
    uint64_t sequestered, duplicates;
};

/* 0, or -1 when the slots cannot be allocated. max_messages >= 1. */
static inline int goblin_reorder_init(struct goblin_reorder *w, uint32_t max_messages,
                                      size_t max_bytes)
{
    memset(w, 0, sizeof *w);
    w->next = 1;
    w->max_messages = max_messages ? max_messages : 1;
    w->max_bytes = max_bytes;
    w->slots = (struct goblin_reorder_slot *)calloc(w->max_messages, sizeof *w->slots);
    return w->slots ? 0 : -1;
}

static inline void goblin_reorder_free(struct goblin_reorder *w)
{
    if (!w->slots) return;
    for (uint32_t i = 0; i < w->max_messages; i++) free(w->slots[i].data);
    free(w->slots);
    w->slots = NULL;
    w->held = 0;
    w->held_bytes = 0;
}

/* Offers a received message. On DELIVER the caller consumes data (not
 * copied), then calls goblin_reorder_pop() until it returns NULL. */
static inline enum goblin_reorder_result
goblin_reorder_offer(struct goblin_reorder *w, uint64_t sequence, const void *data, size_t len)
{
    if (sequence == w->next) {
        w->next++;
        return GOBLIN_REORDER_DELIVER;
    }
    if (sequence < w->next) {
        w->duplicates++;
        return GOBLIN_REORDER_DUPLICATE;
    }
    if (sequence - w->next >= w->max_messages) return GOBLIN_REORDER_OVERFLOW;
    struct goblin_reorder_slot *s = &w->slots[sequence % w->max_messages];
    if (s->sequence == sequence) {
        w->duplicates++;
        return GOBLIN_REORDER_DUPLICATE;
    }
    if (len > w->max_bytes - w->held_bytes) return GOBLIN_REORDER_OVERFLOW;
    void *copy = malloc(len ? len : 1);
    if (!copy) return GOBLIN_REORDER_NOMEM;
    memcpy(copy, data, len);
    s->sequence = sequence;
    s->len = (uint32_t)len;
    s->data = copy;
    w->held++;
    w->held_bytes += len;
    w->sequestered++;
    return GOBLIN_REORDER_HELD;
}

/* The next held message if its turn has come (ownership passes to the
 * caller, who free()s it), else NULL. */
static inline void *goblin_reorder_pop(struct goblin_reorder *w, size_t *len)
{
    if (w->held == 0) return NULL;
    struct goblin_reorder_slot *s = &w->slots[w->next % w->max_messages];
    if (s->sequence != w->next) return NULL;
    void *data = s->data;
    *len = s->len;
    s->sequence = 0;
    s->data = NULL;
    w->held--;
    w->held_bytes -= *len;
    w->next++;
    return data;
}

#endif
