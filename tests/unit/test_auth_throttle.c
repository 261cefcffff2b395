/* Unit tests of the AUTH failure budgets (core/auth_throttle.h): the GCRA
 * burst and refill, keys independent of each other, and eviction that keeps
 * the table's size fixed while sparing keys with the most debt. Times are
 * passed in, so nothing here sleeps or reads a clock. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "core/auth_throttle.h"

static struct auth_throttle table; /* large: keep it off the stack */

/* Records failures while allowed; returns how many were allowed. */
static int fail_until_refused(uint64_t key, int64_t now, int max)
{
    int n = 0;
    while (n < max && auth_throttle_allows(&table, key, now)) {
        auth_throttle_record(&table, key, now);
        n++;
    }
    return n;
}

static void burst_then_refill(void)
{
    auth_throttle_init(&table, 5, 2000000);
    int64_t t = 1000000000;
    CHECK_EQ_LL(fail_until_refused(42, t, 100), 5);
    CHECK(!auth_throttle_allows(&table, 42, t + 1999999));
    CHECK(auth_throttle_allows(&table, 42, t + 2000000)); /* one interval forgives one failure */
    CHECK_EQ_LL(fail_until_refused(42, t + 2000000, 100), 1);
    CHECK_EQ_LL(fail_until_refused(42, t + 20000000, 100), 5); /* fully paid off */
    CHECK(auth_throttle_in_debt(&table, 42, t + 20000000));
    CHECK(!auth_throttle_in_debt(&table, 42, t + 40000000));
    CHECK(!auth_throttle_in_debt(&table, 99, t));
    /* Another key has its own budget. */
    CHECK_EQ_LL(fail_until_refused(43, t + 20000000, 100), 5);
}

static void eviction_is_bounded_and_spares_debt(void)
{
    auth_throttle_init(&table, 5, 2000000);
    int64_t t = 1000000000;
    uint64_t victim = 7; /* set 7 */
    CHECK_EQ_LL(fail_until_refused(victim, t, 100), 5);
    /* Fill the victim's set with keys carrying one failure each, many times
     * over: each new key evicts the entry with the least debt, never the
     * victim with five failures' worth. */
    for (uint64_t k = 1; k <= 1000; k++)
        auth_throttle_record(&table, victim + k * AUTH_THROTTLE_SETS, t);
    CHECK(!auth_throttle_allows(&table, victim, t));
    /* AUTH_THROTTLE_WAYS keys each with more debt do push it out: the bound. */
    for (uint64_t k = 1; k <= AUTH_THROTTLE_WAYS; k++)
        for (int i = 0; i < 6; i++)
            auth_throttle_record(&table, victim + (2000 + k) * AUTH_THROTTLE_SETS, t);
    CHECK(auth_throttle_allows(&table, victim, t));
}

static void single_budget(void)
{
    int64_t paid_at = 0, t = 5000000;
    int allowed = 0;
    for (int i = 0; i < 100; i++)
        if (auth_budget_allows(paid_at, 20, 50000, t)) {
            auth_budget_spend(&paid_at, 50000, t);
            allowed++;
        }
    CHECK_EQ_LL(allowed, 20);
    CHECK(auth_budget_allows(paid_at, 20, 50000, t + 50000));
}

int main(void)
{
    burst_then_refill();
    eviction_is_bounded_and_spares_debt();
    single_budget();
    return 0;
}
