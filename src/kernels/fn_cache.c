/* A kernel library's compiled functions, one per configuration (fn_cache.h). */
#include "kernels/fn_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fn_cache_init(fn_cache *c, size_t key_bytes, fn_cache_same *same)
{
    memset(c, 0, sizeof *c);
    c->key_bytes = key_bytes;
    c->same = same;
}

void fn_cache_free(fn_cache *c)
{
    for (int i = 0; i < c->n; i++) {
        cute_fn_free(c->e[i]->fn);
        free((void *)c->e[i]->key);
        free(c->e[i]);
    }
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
}

static bool same_key(const fn_cache *c, const void *a, const void *b)
{
    return c->same ? c->same(a, b) : strcmp(a, b) == 0;
}

/* a new entry holding a copy of key, appended to the table; NULL when out of memory */
static fn_cache_entry *append(fn_cache *c, const void *key)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        fn_cache_entry **e = realloc(c->e, (size_t)cap * sizeof *e);
        if (!e) return NULL;
        c->e = e, c->cap = cap;
    }
    size_t bytes = c->key_bytes ? c->key_bytes : strlen(key) + 1;
    fn_cache_entry *e = calloc(1, sizeof *e);
    void *copy = malloc(bytes);
    if (!e || !copy) return free(e), free(copy), NULL;
    e->key = memcpy(copy, key, bytes);
    return c->e[c->n++] = e;
}

const fn_cache_entry *fn_cache_get(fn_cache *c, cute_runtime *rt, const void *key,
                                   fn_cache_compile *compile, const void *user)
{
    for (int i = 0; i < c->n; i++)
        if (same_key(c, c->e[i]->key, key)) return c->e[i];
    fn_cache_entry *e = append(c, key);
    if (!e) return NULL;
    e->fn = compile(rt, e->key, user, e->err, sizeof e->err);
    if (!e->fn && !e->err[0]) snprintf(e->err, sizeof e->err, "compile failed");
    return e;
}

const cute_fn *fn_cache_fn(fn_cache *c, cute_runtime *rt, const void *key,
                           fn_cache_compile *compile, const void *user, const char *who,
                           char *err, size_t n)
{
    const fn_cache_entry *e = fn_cache_get(c, rt, key, compile, user);
    if (!e) snprintf(err, n, "%s: out of memory", who);
    else if (!e->fn) snprintf(err, n, "%s", e->err);
    return e ? e->fn : NULL;
}
