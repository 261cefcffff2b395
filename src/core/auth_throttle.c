/* auth_throttle.c — fixed-size GCRA tables for AUTH failures; see auth_throttle.h. */
#include "core/auth_throttle.h"

#include <stddef.h>
#include <string.h>

void auth_throttle_init(struct auth_throttle *t, int burst, int64_t interval_us)
{
    memset(t->entries, 0, sizeof t->entries);
    t->burst = burst;
    t->interval_us = interval_us;
}

bool auth_budget_allows(int64_t paid_at_us, int burst, int64_t interval_us, int64_t now_us)
{
    int64_t debt = paid_at_us > now_us ? paid_at_us - now_us : 0;
    return debt + interval_us <= (int64_t)burst * interval_us;
}

void auth_budget_spend(int64_t *paid_at_us, int64_t interval_us, int64_t now_us)
{
    int64_t from = *paid_at_us > now_us ? *paid_at_us : now_us;
    *paid_at_us = from + interval_us;
}

/* Index of the first entry of key's set. */
static size_t set_base(uint64_t key)
{
    return (size_t)(key % AUTH_THROTTLE_SETS) * AUTH_THROTTLE_WAYS;
}

bool auth_throttle_allows(const struct auth_throttle *t, uint64_t key, int64_t now_us)
{
    const struct auth_throttle_entry *set = &t->entries[set_base(key)];
    for (int i = 0; i < AUTH_THROTTLE_WAYS; i++)
        if (set[i].key == key)
            return auth_budget_allows(set[i].paid_at_us, t->burst, t->interval_us, now_us);
    return true; /* absent: no debt */
}

bool auth_throttle_in_debt(const struct auth_throttle *t, uint64_t key, int64_t now_us)
{
    const struct auth_throttle_entry *set = &t->entries[set_base(key)];
    for (int i = 0; i < AUTH_THROTTLE_WAYS; i++)
        if (set[i].key == key) return set[i].paid_at_us > now_us;
    return false;
}

void auth_throttle_record(struct auth_throttle *t, uint64_t key, int64_t now_us)
{
    struct auth_throttle_entry *set = &t->entries[set_base(key)];
    struct auth_throttle_entry *slot = NULL;
    for (int i = 0; i < AUTH_THROTTLE_WAYS && !slot; i++)
        if (set[i].key == key) slot = &set[i];
    if (!slot) {
        /* Evict the entry with the least debt left (paid-off ones first). */
        slot = &set[0];
        for (int i = 1; i < AUTH_THROTTLE_WAYS; i++)
            if (set[i].paid_at_us < slot->paid_at_us) slot = &set[i];
        slot->key = key;
        slot->paid_at_us = 0;
    }
    auth_budget_spend(&slot->paid_at_us, t->interval_us, now_us);
}

int64_t auth_throttle_schedule(struct auth_throttle *t, uint64_t key, int64_t earliest_us,
                               int64_t now_us)
{
    struct auth_throttle_entry *set = &t->entries[set_base(key)];
    struct auth_throttle_entry *slot = NULL;
    for (int i = 0; i < AUTH_THROTTLE_WAYS && !slot; i++)
        if (set[i].key == key) slot = &set[i];
    if (!slot) {
        /* Evict the entry whose schedule ends first (past ones first). */
        slot = &set[0];
        for (int i = 1; i < AUTH_THROTTLE_WAYS; i++)
            if (set[i].paid_at_us < slot->paid_at_us) slot = &set[i];
        slot->key = key;
        slot->paid_at_us = 0;
    }
    int64_t at = earliest_us > slot->paid_at_us ? earliest_us : slot->paid_at_us;
    if (at < now_us) at = now_us;
    slot->paid_at_us = at + t->interval_us;
    return at;
}
