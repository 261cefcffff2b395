/*
 * auth_throttle.h — bounded failure budgets for AUTH, one per key.
 *
 * Each budget is a token bucket written as GCRA (the "generic cell rate
 * algorithm"): one int64 per key, the time at which its debt is paid off
 * (`paid_at_us`). A failure adds `interval_us` of debt; a key may fail while
 * its debt stays within `burst` intervals. So a key gets `burst` failures back
 * to back, then one per `interval_us`. A key whose debt is paid off carries
 * no information and is indistinguishable from an absent one.
 *
 * Memory bound: a table is a fixed array of AUTH_THROTTLE_SETS sets of
 * AUTH_THROTTLE_WAYS entries, chosen by the key's low bits; nothing a peer
 * does grows it. A key that finds its set full evicts the entry with the
 * least debt left — a paid-off entry if there is one, else the one closest
 * to forgiveness — so losing information needs AUTH_THROTTLE_WAYS keys with
 * live debt in one set. Keys are secret-keyed hashes (auth.c), so a peer
 * cannot aim new keys at the set of an entry it wants evicted, and each new
 * key costs it one failure from its own budget.
 *
 * Times are caller-supplied monotonic microseconds (testable without sleeping).
 */
#ifndef GOBLIN_AUTH_THROTTLE_H
#define GOBLIN_AUTH_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#define AUTH_THROTTLE_SETS 256
#define AUTH_THROTTLE_WAYS 8

struct auth_throttle_entry {
    uint64_t key;
    int64_t paid_at_us; /* debt is paid off at this time; <= now means no debt */
};

struct auth_throttle {
    int burst;           /* failures allowed back to back */
    int64_t interval_us; /* one failure forgiven per interval */
    struct auth_throttle_entry entries[AUTH_THROTTLE_SETS * AUTH_THROTTLE_WAYS];
};

/* Empties the table and sets its limits. */
void auth_throttle_init(struct auth_throttle *t, int burst, int64_t interval_us);

/* True when `key` may fail once more at `now_us` (its debt plus one interval
 * stays within burst). Does not change the table. */
bool auth_throttle_allows(const struct auth_throttle *t, uint64_t key, int64_t now_us);

/* True when `key` has failures not yet forgiven at `now_us`. */
bool auth_throttle_in_debt(const struct auth_throttle *t, uint64_t key, int64_t now_us);

/* Records one failure of `key` at `now_us`, evicting as described above. */
void auth_throttle_record(struct auth_throttle *t, uint64_t key, int64_t now_us);

/* A schedule per key (the failure answers of one source, auth.h): the
 * slot at or after earliest_us that follows the key's previous slot by at
 * least interval_us; the key's next slot moves past it. Returns it. */
int64_t auth_throttle_schedule(struct auth_throttle *t, uint64_t key, int64_t earliest_us,
                               int64_t now_us);

/* One budget on its own (the server-wide one): same rule, no table. */
bool auth_budget_allows(int64_t paid_at_us, int burst, int64_t interval_us, int64_t now_us);
void auth_budget_spend(int64_t *paid_at_us, int64_t interval_us, int64_t now_us);

#endif
