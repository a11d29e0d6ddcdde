/* Internal: a kernel library's compiled functions, one per configuration (the GEMM's and the
 * GEMV's config structs, the elementwise and row ops' key strings).  A configuration is
 * compiled the first time it is asked for; a failure is remembered with its reason, so a
 * pattern that cannot compile is not recompiled on every call.
 *
 * Not locked: the owning library's lock guards the cache (a library's lock also guards what
 * it keeps beside it).  An entry, once made, never moves or changes, so a caller may keep
 * its pointer and read it after unlocking. */
#ifndef CUTEC_FN_CACHE_H
#define CUTEC_FN_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "cutec/jit.h"

/* compiles the configuration `key` (with whatever `user` the caller passed); NULL and the
 * reason in err on failure */
typedef const cute_fn *fn_cache_compile(cute_runtime *rt, const void *key, const void *user,
                                        char *err, size_t n);
/* whether two keys name the same compiled code */
typedef bool fn_cache_same(const void *a, const void *b);

typedef struct fn_cache_entry {
    const void *key;   /* the cache's own copy */
    const cute_fn *fn; /* NULL: compiling failed, for the reason in err */
    char err[1024];
} fn_cache_entry;

typedef struct fn_cache {
    size_t key_bytes;    /* 0: keys are strings */
    fn_cache_same *same; /* NULL for strings (strcmp) */
    fn_cache_entry **e;
    int n, cap;
} fn_cache;

/* keys of key_bytes compared by same, or (0, NULL) NUL-terminated strings */
void fn_cache_init(fn_cache *c, size_t key_bytes, fn_cache_same *same);
void fn_cache_free(fn_cache *c);

/* key's entry, compiled by compile(rt, key, user) the first time; NULL only when out of
 * memory */
const fn_cache_entry *fn_cache_get(fn_cache *c, cute_runtime *rt, const void *key,
                                   fn_cache_compile *compile, const void *user);

/* key's compiled function, or NULL with the reason (or "WHO: out of memory") in err */
const cute_fn *fn_cache_fn(fn_cache *c, cute_runtime *rt, const void *key,
                           fn_cache_compile *compile, const void *user, const char *who,
                           char *err, size_t n);

#endif
