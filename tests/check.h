/* A minimal test harness: CHECK counts, main() ends with CHECK_DONE() printing
 * "<name>: N passed, N failed, N skipped" and returning non-zero on failure. */
#ifndef CUTEC_CHECK_H
#define CUTEC_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed, check_skipped;

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        if (cond) {                                                                     \
            check_passed++;                                                             \
        } else {                                                                        \
            check_failed++;                                                             \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);             \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
        }                                                                               \
    } while (0)

/* compare strings (layouts printed in notation) */
#define CHECK_STR(got, want, ...)                                                       \
    do {                                                                                \
        const char *g_ = (got), *w_ = (want);                                           \
        CHECK(strcmp(g_, w_) == 0, "got %s, want %s", g_, w_);                          \
    } while (0)

#define SKIP(why)                                                                       \
    do {                                                                                \
        check_skipped++;                                                                \
        fprintf(stderr, "skipped: %s\n", why);                                          \
    } while (0)

#define CHECK_DONE(name)                                                                \
    (printf("%s: %d passed, %d failed, %d skipped\n", name, check_passed, check_failed, \
            check_skipped),                                                             \
     check_failed ? 1 : 0)

#endif
