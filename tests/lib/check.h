/*
 * check.h — assertions for tests: on failure print where and what, exit 1.
 * A test is a plain program; CTest reads its exit status.
 */
#ifndef GOBLIN_CHECK_H
#define GOBLIN_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_LL(a, b)                                                                          \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b,  \
                    a_, b_);                                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (strcmp(a_, b_) != 0) {                                                                 \
            fprintf(stderr, "%s:%d: %s == %s failed:\n  got:      \"%s\"\n  expected: \"%s\"\n",   \
                    __FILE__, __LINE__, #a, #b, a_, b_);                                           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
