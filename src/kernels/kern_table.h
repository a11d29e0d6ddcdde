/* Internal: a library's table of compiled kernels (the attention and GEMV libraries): one
 * entry per configuration, compiled the first time a call needs it and kept, also when the
 * compile failed (so a call that cannot compile does not retry on every call).  An entry
 * never moves or changes once made (the table holds pointers), so a caller may use it
 * after dropping the lock that guards the table. */
#ifndef CUTEC_KERN_TABLE_H
#define CUTEC_KERN_TABLE_H

#include <stddef.h>

#include "cutec/jit.h"

typedef struct kern_entry {
    const cute_fn *fn; /* NULL: compiling failed, for the reason in err */
    char err[1024];
    _Alignas(max_align_t) unsigned char cfg[]; /* the configuration */
} kern_entry;

typedef struct kern_table {
    kern_entry **e;
    int n, cap;
} kern_table;

typedef bool (*kern_same_fn)(const void *a, const void *b);
typedef const cute_fn *(*kern_compile_fn)(cute_runtime *rt, const void *cfg, char *err, size_t n);

/* cfg's entry (cfg: `bytes` long), compiled by compile(rt, cfg) the first time; NULL when
 * out of memory.  The caller holds its table's lock. */
const kern_entry *kern_table_get(kern_table *t, const void *cfg, size_t bytes, kern_same_fn same,
                                 kern_compile_fn compile, cute_runtime *rt);
/* every entry's function, and the table */
void kern_table_free(kern_table *t);

#endif
