/* Internal: the row library's table of compiled functions and its scratch, and the one
 * call path every public entry point takes (rows_call.c). */
#ifndef CUTEC_ROWS_LIB_H
#define CUTEC_ROWS_LIB_H

#include "kernels/fn_cache.h"
#include "kernels/rows/rows_internal.h"

cute_runtime *rows_lib_runtime(cutec_rows *lib);
/* dry: calls compile (or find) their function and stop before launching it; last: the
 * function of the last call (for cutec compile) */
void rows_lib_dry_run(cutec_rows *lib, bool on);
bool rows_lib_dry(const cutec_rows *lib);
const cute_fn *rows_lib_last(const cutec_rows *lib);
void rows_lib_lock(cutec_rows *lib);
void rows_lib_unlock(cutec_rows *lib);
/* key's function, compiled by make(rt, key, user) the first time (lock held); NULL and
 * why in err */
const cute_fn *rows_lib_find(cutec_rows *lib, const char *key, fn_cache_compile *make,
                             const void *user, char *err, size_t n);
cute_status rows_lib_scratch(cutec_rows *lib, size_t bytes, const cute_buffer **out);
int64_t rows_lib_resident_blocks(cutec_rows *lib);
/* the clusters of `size` blocks of `threads` threads, `per_sm` blocks an SM, resident at once
 * (a persistent grid of more runs the rest in a second wave); 0: not known (lock held) */
int rows_lib_resident_clusters(cutec_rows *lib, int size, int threads, int per_sm);
/* the row kernel's launch of the last call (for the tests): blocks along the rows, row
 * blocks each walks, the cluster's blocks (0: none), threads a block, blocks an SM asked */
typedef struct rows_launch {
    int64_t blocks, iters;
    int cluster, threads, per_sm;
} rows_launch;
void rows_lib_note_launch(cutec_rows *lib, rows_launch l);
rows_launch rows_lib_last_launch(const cutec_rows *lib);

/* One call of an op.  slot[s]: the argument of slot s (NULL: not given); for a
 * COL_PARTIAL slot, the (N) tensor its column sums go to.  ignore, p0, p1: the op's
 * parameters. */
typedef struct row_call {
    const row_op *op;
    int variant;
    const cute_call_arg *slot[ROW_SLOTS];
    int64_t ignore;
    double p[2];
} row_call;
/* out(N) = the column sums of the partial (rows, N) f32 matrix at offset in buf, in out's
 * dtype (lock held); pdl: launched as a dependent of the kernel before it (which let it in:
 * the plan's sums_pdl), waiting for that kernel's end before it reads */
cute_status rows_colsum(cutec_rows *lib, const cute_buffer *buf, size_t offset, int64_t rows,
                        const cute_call_arg *out, bool pdl, void *stream, char *err, size_t n);
cute_status rows_run(cutec_rows *lib, const row_call *rc, void *stream, char *err, size_t n);

#endif
