/* A minimal test harness: CHECK counts, main() ends with CHECK_DONE() printing
 * "<name>: N passed, N failed, N skipped" and returning non-zero on failure. */
#ifndef CUTEC_CHECK_H
#define CUTEC_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

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

/* a whole file as a NUL-terminated string (malloc'd), or NULL; for golden files */
static inline char *check_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* how often word occurs in text (instructions in generated PTX or CUDA C) */
static inline int check_count(const char *text, const char *word)
{
    int k = 0;
    for (const char *p = text; (p = strstr(p, word)); p++) k++;
    return k;
}

/* the run's random seed, odd: CUTEC_SEED (to repeat a run) or the time; printed so that a
 * failure can be repeated */
static inline uint64_t check_seed(const char *name)
{
    const char *env = getenv("CUTEC_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) | 1 : (uint64_t)time(NULL) | 1;
    printf("%s: CUTEC_SEED=%llu\n", name, (unsigned long long)seed);
    return seed;
}

/* Under a sanitizer (CI's ASan+UBSan and TSan passes) the code checked is the host's: the
 * tracer, the compilers, the interpreter.  A sweep of cases whose values the plain build
 * checks in full then runs its first case only, on the interpreter as on the GPU: every
 * sweep's path through the host code still runs.  CUTEC_TEST_FULL=1 runs every case there
 * too. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHECK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHECK_SANITIZED 1
#endif
#endif
#ifndef CHECK_SANITIZED
#define CHECK_SANITIZED 0
#endif

/* whether case i of a sweep runs (above) */
static inline int check_sweep_runs(int i)
{
    static int full = -1;
    if (full < 0) {
        const char *env = getenv("CUTEC_TEST_FULL");
        full = !CHECK_SANITIZED || (env && !strcmp(env, "1"));
    }
    return full || i == 0;
}

#define CHECK_DONE(name)                                                                \
    (printf("%s: %d passed, %d failed, %d skipped\n", name, check_passed, check_failed, \
            check_skipped),                                                             \
     check_failed ? 1 : 0)

#endif
