/* Differential smoke test: the foundation's first commands answer exactly as
 * redis-server does, including errors, in RESP2. */
#include "diff.h"

int main(void)
{
    struct diff_pair d;
    diff_start(&d, "diff_smoke", test_seed("diff_smoke"), NULL, NULL);
    diff_check(&d, "PING", NULL);
    diff_check(&d, "PING", "hello", NULL);
    diff_check(&d, "PING", "a", "b", NULL);
    diff_check(&d, "ECHO", "x", NULL);
    diff_check(&d, "SET", "k", "v", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "SET", "k", "v", "NX", NULL);
    diff_check(&d, "SET", "k", "w", "XX", "GET", NULL);
    diff_check(&d, "SET", "k", "v", "EX", "0", NULL);
    diff_check(&d, "SET", "k", "v", "EX", "abc", NULL);
    diff_check(&d, "SET", "k", "v", "NX", "XX", NULL);
    diff_check(&d, "SET", "k", "v", "EX", "10", "PX", "100", NULL);
    diff_check(&d, "SET", "k", NULL);
    diff_check(&d, "GET", NULL);
    diff_check(&d, "NOSUCHCOMMAND", "a", "b", NULL);
    diff_check(&d, "CONFIG", "NOSUCH", NULL);
    diff_check(&d, "CONFIG", NULL);
    diff_check(&d, "SELECT", "100", NULL);
    diff_check(&d, "SELECT", "x", NULL);
    diff_check(&d, "SELECT", "1", NULL);
    diff_check(&d, "EXISTS", "k", NULL);
    diff_check(&d, "DEL", "k", "k", "z", NULL);
    diff_stop(&d);
    return 0;
}
