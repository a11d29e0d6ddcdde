/* A library's table of compiled kernels (kern_table.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_table.h"

const kern_entry *kern_table_get(kern_table *t, const void *cfg, size_t bytes, kern_same_fn same,
                                 kern_compile_fn compile, cute_runtime *rt)
{
    for (int i = 0; i < t->n; i++)
        if (same(t->e[i]->cfg, cfg)) return t->e[i];
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        kern_entry **e = realloc(t->e, (size_t)cap * sizeof *e);
        if (!e) return NULL;
        t->e = e, t->cap = cap;
    }
    kern_entry *e = calloc(1, sizeof *e + bytes);
    if (!e) return NULL;
    t->e[t->n++] = e;
    memcpy(e->cfg, cfg, bytes);
    e->fn = compile(rt, cfg, e->err, sizeof e->err);
    if (!e->fn && !e->err[0]) snprintf(e->err, sizeof e->err, "compile failed");
    return e;
}

void kern_table_free(kern_table *t)
{
    for (int i = 0; i < t->n; i++) cute_fn_free(t->e[i]->fn), free(t->e[i]);
    free(t->e);
    t->e = NULL, t->n = t->cap = 0;
}
