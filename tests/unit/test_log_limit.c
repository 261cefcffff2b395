/* Unit: a peer-triggered warning repeated 10,000 times in a burst writes
 * one log line (util/log.h, log_warning_limited), and independent limiters
 * do not silence each other. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/log.h"

int main(void)
{
    char path[] = "/tmp/goblin-log-limit-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(log_set_file(path)); /* the logfile setting's path */
    struct log_limiter a = {0}, b = {0};
    for (int i = 0; i < 10000; i++) log_warning_limited(&a, "ring %d: epoch refused", i);
    log_warning_limited(&b, "another source");
    CHECK(log_set_file("")); /* back to standard output */
    FILE *f = fopen(path, "r");
    CHECK(f);
    char line[512];
    int lines = 0;
    bool first = false, other = false;
    while (fgets(line, sizeof line, f)) {
        lines++;
        first |= strstr(line, "ring 0: epoch refused") != NULL;
        other |= strstr(line, "another source") != NULL;
    }
    fclose(f);
    unlink(path);
    CHECK_EQ_LL(lines, 2);
    CHECK(first && other);
    CHECK_EQ_LL(a.dropped, 9999);
    printf("log limiter: ok\n");
    return 0;
}
