/* fn_cache: a configuration is compiled once (keys equal by the cache's `same`, or as
 * strings), a failure is remembered with its reason, the cache keeps its own copy of each
 * key, and entries stay where they are while the table grows. */
#include "check.h"
#include "check_interp.h"
#include "kernels/fn_cache.h"

typedef struct key {
    int which;
    int ignored; /* not part of the configuration: `same` skips it */
} key;

static int compiles; /* compile() calls */

static bool same_key(const void *a, const void *b)
{
    return ((const key *)a)->which == ((const key *)b)->which;
}

static void nothing_host(cute_ctx *c, const cute_arg *arg)
{
    (void)c, (void)arg;
}

/* which < 0: fails with a reason; which == 0: fails saying nothing; else a real function
 * (of no kernels), compiled on the interpreter */
static const cute_fn *compile(cute_runtime *rt, const void *k, const void *user, char *err,
                              size_t n)
{
    int which = user ? *(const int *)user : ((const key *)k)->which;
    compiles++;
    if (which < 0) return snprintf(err, n, "no kernel for %d", which), NULL;
    if (which == 0) return NULL;
    return cute_compile(rt, "nothing", nothing_host, NULL, 0, NULL, err, n);
}

static void struct_keys(cute_runtime *rt)
{
    fn_cache c;
    fn_cache_init(&c, sizeof(key), same_key);
    key k = {1, 7};
    const fn_cache_entry *first = fn_cache_get(&c, rt, &k, compile, NULL);
    CHECK(first && first->fn, "%s", first ? first->err : "out of memory");
    k.ignored = 8; /* the same configuration: found, not compiled again */
    CHECK(fn_cache_get(&c, rt, &k, compile, NULL) == first && compiles == 1, "%d compiles", compiles);
    k.which = 5; /* the caller's key changes: the cache's copy does not */
    CHECK(((const key *)first->key)->which == 1, "key %d", ((const key *)first->key)->which);
    for (k.which = 2; k.which < 20; k.which++) fn_cache_get(&c, rt, &k, compile, NULL);
    k.which = 1;
    CHECK(c.n == 19 && fn_cache_get(&c, rt, &k, compile, NULL) == first, "%d entries", c.n);
    CHECK(compiles == 19, "%d compiles", compiles);
    fn_cache_free(&c);
}

static void failures(cute_runtime *rt)
{
    fn_cache c;
    fn_cache_init(&c, sizeof(key), same_key);
    key k = {-3, 0};
    char err[64];
    int before = compiles;
    for (int i = 0; i < 2; i++) {
        err[0] = 0;
        CHECK(fn_cache_fn(&c, rt, &k, compile, NULL, "t", err, sizeof err) == NULL, "compiled");
        CHECK_STR(err, "no kernel for -3");
    }
    CHECK(compiles == before + 1, "a failure compiled %d times", compiles - before);
    k.which = 0;
    const fn_cache_entry *e = fn_cache_get(&c, rt, &k, compile, NULL);
    CHECK(e && !e->fn, "compiled");
    if (e) CHECK_STR(e->err, "compile failed");
    fn_cache_free(&c);
}

static void string_keys(cute_runtime *rt)
{
    fn_cache c;
    fn_cache_init(&c, 0, NULL);
    char k1[] = "add|f32", k2[] = "add|f32"; /* equal text, distinct buffers */
    int ok = 4, bad = -1;
    const cute_fn *f = fn_cache_fn(&c, rt, k1, compile, &ok, "t", NULL, 0);
    k1[0] = 'x';
    CHECK(f && fn_cache_fn(&c, rt, k2, compile, &bad, "t", NULL, 0) == f, "not found by its text");
    CHECK(c.n == 1, "%d entries", c.n);
    char err[64];
    CHECK(!fn_cache_fn(&c, rt, "add|f16", compile, &bad, "t", err, sizeof err), "compiled");
    CHECK_STR(err, "no kernel for -1");
    fn_cache_free(&c);
}

int main(void)
{
    cute_runtime *rt = check_interp();
    if (!rt) return CHECK_DONE("fn_cache_test");
    struct_keys(rt);
    failures(rt);
    string_keys(rt);
    cute_runtime_free(rt);
    return CHECK_DONE("fn_cache_test");
}
