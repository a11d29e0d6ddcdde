/* runtime/dynlib.h against libm, which every machine has: the entry points land in the table
 * (an alternative name, an absent optional one left NULL), a missing library and a missing
 * required entry point are errors naming the library, the files tried, the loader's reason
 * and the symbol, and a library loaded once is loaded once whatever the threads that ask. */
#include <pthread.h>

#include "check.h"
#include "runtime/dynlib.h"

typedef struct mathlib {
    double (*cos)(double);
    double (*sin)(double);
    double (*none)(double);
} mathlib;

static const dynlib_sym syms[] = {
    DYNLIB_SYM(mathlib, cos, "cos"),
    DYNLIB_ALT(mathlib, sin, "cutec_no_such_sin", "sin"),
    DYNLIB_OPTIONAL(mathlib, none, "cutec_no_such_fn"),
};

static int checks; /* how often check_cos ran */
static bool check_cos(void *table, const char *path, char *err, size_t n)
{
    mathlib *m = table;
    __atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);
    if (m->cos(0.0) == 1.0) return true;
    snprintf(err, n, "%s: cos(0) is not 1", path);
    return false;
}

static const char *const names[] = {"libcutec-no-such-m.so", "libm.so.6", NULL};
static const char *const dirs[] = {"/nonexistent/", NULL};

static dynlib_spec libm(void)
{
    return (dynlib_spec){.what = "libm",
                         .names = names,
                         .dirs = dirs,
                         .syms = syms,
                         .nsyms = sizeof syms / sizeof syms[0],
                         .hint = "install libm",
                         .too_old = "not libm",
                         .check = check_cos};
}

static void found(void)
{
    dynlib_spec s = libm();
    mathlib m = {.none = (double (*)(double))1}; /* poisoned: the optional one must be cleared */
    dynlib dl;
    char err[512] = "poison";
    CHECK(dynlib_open(&s, NULL, &dl, &m, err, sizeof err), "%s", err);
    CHECK(!err[0] && dl.so && strcmp(dl.path, "libm.so.6") == 0, "the second candidate loads: %s", dl.path);
    CHECK(m.cos && m.cos(0.0) == 1.0 && m.sin && m.sin(0.0) == 0.0, "cos, and sin by its alternative name");
    CHECK(m.none == NULL, "an absent optional entry point is NULL");
}

static void refusals(void)
{
    dynlib_spec s = libm();
    mathlib m;
    dynlib dl;
    char err[512];
    s.names = (const char *const[]){"libcutec-no-such-m.so", NULL};
    CHECK(!dynlib_open(&s, NULL, &dl, &m, err, sizeof err) && !dl.so, "no library");
    CHECK(strstr(err, "libm not found") && strstr(err, "libcutec-no-such-m.so") && strstr(err, "/nonexistent/") &&
              strstr(err, "No such file") && strstr(err, "install libm"),
          "the message names the library, the files tried, dlerror and the hint: %s", err);
    CHECK(!dynlib_open(&s, "/nonexistent/libm.so", &dl, &m, err, sizeof err) && strstr(err, "tried /nonexistent/libm.so)"),
          "a file given is the one tried: %s", err);
    s = libm();
    s.syms = (const dynlib_sym[]){DYNLIB_SYM(mathlib, cos, "cos"), DYNLIB_SYM(mathlib, none, "cutec_no_such_fn")};
    s.nsyms = 2;
    CHECK(!dynlib_open(&s, "libm.so.6", &dl, &m, err, sizeof err) && !dl.so, "a required entry point absent");
    CHECK(strstr(err, "libm.so.6 has no cutec_no_such_fn (not libm)"), "names the file and the symbol: %s", err);
    CHECK(!dynlib_open(&s, "libm.so.6", &dl, &m, NULL, 0), "no room for words is no crash");
}

static dynlib_once once = DYNLIB_ONCE_INIT;
static mathlib shared;

static void *ask(void *arg)
{
    (void)arg;
    dynlib_spec s = libm();
    char err[256];
    return dynlib_open_once(&once, &s, &shared, err, sizeof err) ? &shared : NULL;
}

static void loaded_once(void)
{
    checks = 0;
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, ask, NULL);
    int ok = 0;
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        ok += r == &shared;
    }
    CHECK(ok == 4 && checks == 1, "4 threads loaded it, the load ran %d times", checks);
    CHECK(ask(NULL) == &shared && checks == 1 && strcmp(once.lib.path, "libm.so.6") == 0, "later calls: the same");
    /* a failed load fails the same way every time, its reason kept */
    dynlib_once none = DYNLIB_ONCE_INIT;
    dynlib_spec s = libm();
    s.names = (const char *const[]){"libcutec-no-such-m.so", NULL};
    char a[256], b[256];
    CHECK(!dynlib_open_once(&none, &s, &shared, a, sizeof a) && !dynlib_open_once(&none, &s, &shared, b, sizeof b) &&
              strcmp(a, b) == 0 && strstr(b, "libm not found"),
          "%s", b);
}

int main(void)
{
    found();
    refusals();
    loaded_once();
    return CHECK_DONE("dynlib_test");
}
