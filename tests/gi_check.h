/*
 * gi_check.h -- the one CHECK of the C tests: CHECK(condition, printf
 * format, ...) counts a failure in `failures` and says where and what on
 * stderr; the test's main returns failures != 0.  Include it once per test
 * program (it defines `failures`).
 */
#ifndef GI_CHECK_H
#define GI_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c, ...)                                                                  \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #c);      \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            failures++;                                                                \
        }                                                                              \
    } while (0)

#endif /* GI_CHECK_H */
