/* One call of a row op: every argument checked against the op's table (a message naming
 * the op and the argument), the widest vector every row tensor allows, the plan, the
 * compiled function, the launch, and the column sums' second pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/rows/rows_lib.h"

#define FAIL(...) (snprintf(err, n, __VA_ARGS__), CUTE_ERR_INVALID)

static bool is_index(cute_dtype d) { return d == CUTE_I32 || d == CUTE_I64; }

/* slot s's shape, dtype and layout against the op's table and the matrix (m, n_) */
static cute_status check_slot(const row_call *rc, int s, int64_t m, int64_t cols, char *err, size_t n)
{
    const row_slot *sl = &rc->op->slot[s];
    const cute_call_arg *x = rc->slot[s], *x0 = rc->slot[0];
    const char *op = rc->op->name;
    if (x->kind != CUTE_ARG_TENSOR || !x->buf) return FAIL("%s: %s must be a tensor", op, sl->name);
    bool matrix = sl->role == ROW_IN || sl->role == ROW_OUT;
    int rank = matrix ? 2 : 1;
    int64_t extent = sl->role == COL_IN || sl->role == COL_PARTIAL ? cols : m;
    if (x->ndim != rank) return FAIL("%s: %s has rank %d, not %d", op, sl->name, x->ndim, rank);
    if (matrix && (x->shape[0] != m || x->shape[1] != cols))
        return FAIL("%s: %s is %lldx%lld, %s %lldx%lld", op, sl->name, (long long)x->shape[0],
                    (long long)x->shape[1], rc->op->slot[0].name, (long long)m, (long long)cols);
    if (!matrix && x->shape[0] != extent)
        return FAIL("%s: %s has %lld elements, not %lld", op, sl->name, (long long)x->shape[0], (long long)extent);
    if (x->stride[rank - 1] != 1 && x->shape[rank - 1] > 1)
        return FAIL("%s: %s's %s must be unit-stride (its stride is %lld)", op, sl->name,
                    matrix ? "columns" : "elements", (long long)x->stride[rank - 1]);
    bool stat = sl->role == ROWVAL_OUT || (sl->role == ROWVAL_IN && strcmp(sl->name, "labels"));
    if (stat && x->dtype != CUTE_F32) return FAIL("%s: %s must be f32", op, sl->name);
    if (sl->role == ROWVAL_IN && !stat && !is_index((cute_dtype)x->dtype))
        return FAIL("%s: %s must be i32 or i64", op, sl->name);
    if (!stat && sl->role != ROWVAL_IN && x->dtype != x0->dtype)
        return FAIL("%s: %s is %s, %s %s", op, sl->name, cute_dtype_name((cute_dtype)x->dtype),
                    rc->op->slot[0].name, cute_dtype_name((cute_dtype)x0->dtype));
    return CUTE_OK;
}

static cute_status check_args(const row_call *rc, char *err, size_t n)
{
    const row_op *op = rc->op;
    const cute_call_arg *x0 = rc->slot[0];
    if (!x0 || x0->kind != CUTE_ARG_TENSOR || x0->ndim != 2)
        return FAIL("%s: %s must be a matrix (a tensor of rank 2)", op->name, op->slot[0].name);
    cute_dtype d = (cute_dtype)x0->dtype;
    if (d != CUTE_F32 && d != CUTE_F16 && d != CUTE_BF16)
        return FAIL("%s: %s is %s (f32, f16 or bf16)", op->name, op->slot[0].name, cute_dtype_name(d));
    if (x0->shape[1] < 1) return FAIL("%s: rows of length %lld", op->name, (long long)x0->shape[1]);
    for (int s = 0; s < op->nslots; s++) {
        if (!rc->slot[s] && !op->slot[s].optional) return FAIL("%s: %s is required", op->name, op->slot[s].name);
        cute_status st = rc->slot[s] ? check_slot(rc, s, x0->shape[0], x0->shape[1], err, n) : CUTE_OK;
        if (st) return st;
    }
    return CUTE_OK;
}

/* the widest vector (elements, a power of two up to 16 bytes) that divides the row length,
 * every row stride and every data address of the row-sized tensors */
static int widest_vector(const row_call *rc)
{
    int esize = cute_dtype_bytes((cute_dtype)rc->slot[0]->dtype), v = 16 / esize;
    int64_t cols = rc->slot[0]->shape[1];
    for (; v > 1; v /= 2) {
        bool ok = cols % v == 0;
        for (int s = 0; s < rc->op->nslots && ok; s++) {
            const cute_call_arg *x = rc->slot[s];
            int role = rc->op->slot[s].role;
            if (!x || role == ROWVAL_IN || role == ROWVAL_OUT || role == COL_PARTIAL) continue;
            ok = cute_call_arg_alignment(x, 16) >= v * esize && (x->ndim < 2 || x->stride[0] % v == 0);
        }
        if (ok) break;
    }
    return v;
}

static const cute_fn *make_rows(cute_runtime *rt, const void *key, const void *plan, char *err,
                                size_t n)
{
    (void)key;
    return row_compile(rt, plan, err, n);
}

static void key_of(const row_plan *p, char *key, size_t n)
{
    int len = snprintf(key, n, "%s/%d/v%d/t%d/k%d/r%d/%c%dx%d/c%d%s%s%s%s%s/", p->op->name, p->variant, p->vec, p->tpr,
                       p->k, p->rows, p->looped ? 'L' : 'R', p->stage_chunks, p->stage_bufs, p->cluster,
                       p->stage_cols ? "/staged-cols" : "", p->pipelined ? "/pipelined" : "",
                       p->in_place ? "/in-place" : "", p->words ? "/words" : "", p->pairs ? "/pairs" : "");
    if (p->cols_ahead) len += snprintf(key + len, n - (size_t)len, "ahead/");
    if (p->cols_chain) len += snprintf(key + len, n - (size_t)len, "chain/");
    if (p->index_bound) len += snprintf(key + len, n - (size_t)len, "i32/");
    if (p->cols_f32) len += snprintf(key + len, n - (size_t)len, "cols-f32/");
    if (p->staged_plain) len += snprintf(key + len, n - (size_t)len, "plain-staged/");
    if (p->slots_slim) len += snprintf(key + len, n - (size_t)len, "slim/");
    if (p->tail_global) len += snprintf(key + len, n - (size_t)len, "tail/");
    if (p->diag_cols) len += snprintf(key + len, n - (size_t)len, "diag-cols%d/", p->diag_cols);
    if (p->sums_pdl) len += snprintf(key + len, n - (size_t)len, "pdl/");
    if (p->row_pdl) len += snprintf(key + len, n - (size_t)len, "row-pdl/");
    len += snprintf(key + len, n - (size_t)len, "b%d/%s", row_plan_blocks_per_sm(p), p->stage_split ? "split/" : ""); /* the launch bound */
    for (int s = 0; s < p->op->nslots; s++)
        len += snprintf(key + len, n - (size_t)len, "%s,", p->has[s] ? cute_dtype_name(p->dtype[s]) : "-");
}

/* does an output share memory with another argument (y = softmax(y))? */
static bool in_place(const row_call *rc)
{
    for (int s = 0; s < rc->op->nslots; s++) {
        int role = rc->op->slot[s].role;
        if (!rc->slot[s] || (role != ROW_OUT && role != ROWVAL_OUT)) continue;
        for (int t = 0; t < rc->op->nslots; t++)
            if (t != s && rc->slot[t] && rc->op->slot[t].role != COL_PARTIAL && cute_call_args_overlap(rc->slot[s], rc->slot[t]))
                return true;
    }
    return false;
}

/* lnb's "idx32" (a default: rows_compile.c's row_lnb_form): a call with column sums (the
 * norms' backward) whose extents and strides are all at most 2^15 (4096x32768, 16384x4096)
 * promises so (cute_index_bound), and the tracer emits its offsets and bounds checks in 32
 * bits, where 64-bit ones take two instructions a compare and a carry an add (~40 64-bit
 * compares a row's turn of LayerNorm's backward at 4096x32768).  0: not so. */
#define ROW_INDEX_BOUND 32768
static int64_t index_bound_of(const row_call *rc, const row_plan *p)
{
    if (!row_lnb_form("idx32") || !row_plan_slots(p, COL_PARTIAL)) return 0;
    for (int s = 0; s < rc->op->nslots; s++) {
        const cute_call_arg *x = rc->slot[s];
        for (int d = 0; x && d < x->ndim; d++)
            if (x->shape[d] > ROW_INDEX_BOUND || x->stride[d] > ROW_INDEX_BOUND) return 0;
    }
    return ROW_INDEX_BOUND;
}

static void plan_of(cutec_rows *lib, const row_call *rc, row_plan *p)
{
    memset(p, 0, sizeof *p);
    p->op = rc->op, p->variant = rc->variant;
    p->arch = cute_runtime_target_arch(rows_lib_runtime(lib));
    for (int s = 0; s < rc->op->nslots; s++) {
        p->has[s] = rc->slot[s] != NULL;
        p->dtype[s] = rc->op->slot[s].role == COL_PARTIAL ? CUTE_F32
                      : rc->slot[s] ? (cute_dtype)rc->slot[s]->dtype : CUTE_F32;
    }
    row_plan_choose(p, rc->slot[0]->shape[1], widest_vector(rc));
    row_plan_forms(p, rc->slot[0]->shape[1]);
    p->in_place = in_place(rc);
    p->index_bound = index_bound_of(rc, p);
    if (p->looped && rc->op->stages == 0) p->looped = false, p->column_grid = true; /* chunks by blocks */
}

/* blocks and row blocks per block: one row block each, unless column sums are kept, which
 * take as few blocks as keep the device busy (fewer partial rows to sum) */
static void grid_of(cutec_rows *lib, const row_plan *p, int64_t m, int64_t n, int64_t *blocks, int64_t *iters)
{
    int64_t rb = (m + p->rows - 1) / p->rows, most = rows_lib_resident_blocks(lib);
    if (row_plan_blocks_per_sm(p)) most = most / 2 * row_plan_blocks_per_sm(p); /* (two an SM, by default) */
    if (p->column_grid) { /* the column chunks share the device */
        int64_t chunks = (n + row_plan_block_cols(p) - 1) / row_plan_block_cols(p);
        most = most / chunks > 0 ? most / chunks : 1;
    }
    /* a persistent grid of clusters: no more than the device holds at once.  The blocks of a
     * cluster share a GPC, so the 264 blocks an H200 holds two an SM need not be 33 clusters
     * of 8; those that do not fit walk their rows in a second wave, doubling the time (the
     * likely cause of the norms' backward at 28-32% of the copy at 4096x32768 and 1024x262144,
     * where 16384x4096, without a cluster, ran at 63-76%: bench/RESULTS.md) */
    bool persistent = row_plan_persistent(p);
    int resident = p->cluster > 1 && persistent ? rows_lib_resident_clusters(lib, p->cluster, p->tpr * p->rows, row_plan_blocks_per_sm(p)) : 0;
    if (resident > 0 && resident < most) most = resident;
    *iters = persistent && rb > most ? (rb + most - 1) / most : 1;
    *blocks = (rb + *iters - 1) / *iters;
}

/* the arguments in the compiled function's order; column partials in the scratch */
static int call_args(const row_call *rc, const row_plan *p, const cute_buffer *scratch, int64_t partial_rows,
                     int64_t iters, cute_call_arg *args)
{
    int k = 0, sums = 0;
    int64_t cols = rc->slot[0]->shape[1];
    for (int s = 0; s < rc->op->nslots; s++) {
        if (!p->has[s]) continue;
        if (rc->op->slot[s].role != COL_PARTIAL) {
            args[k++] = *rc->slot[s];
            continue;
        }
        int64_t shape[2] = {partial_rows, cols}, stride[2] = {cols, 1};
        size_t offset = (size_t)(sums++ * partial_rows * cols) * sizeof(float);
        args[k++] = cute_call_tensor(scratch, offset, CUTE_F32, 2, shape, stride);
    }
    args[k++] = cute_call_int(iters);
    args[k++] = cute_call_int(rc->ignore);
    args[k++] = cute_call_float(rc->p[0]);
    args[k++] = cute_call_float(rc->p[1]);
    return k;
}

/* the launch and the column sums' pass, lock held */
static cute_status run_locked(cutec_rows *lib, const row_call *rc, const row_plan *p, void *stream, char *err,
                              size_t n)
{
    int64_t m = rc->slot[0]->shape[0], cols = rc->slot[0]->shape[1], blocks, iters;
    int sums = 0;
    for (int s = 0; s < rc->op->nslots; s++) sums += p->has[s] && rc->op->slot[s].role == COL_PARTIAL;
    grid_of(lib, p, m, cols, &blocks, &iters);
    int64_t partial_rows = blocks * p->rows;
    const cute_buffer *scratch = NULL;
    if (sums && !rows_lib_dry(lib) && rows_lib_scratch(lib, (size_t)(sums * partial_rows * cols) * sizeof(float), &scratch) != CUTE_OK)
        return snprintf(err, n, "%s: no memory for the column sums", rc->op->name), CUTE_ERR_OOM;
    char key[192];
    key_of(p, key, sizeof key);
    const cute_fn *fn = rows_lib_find(lib, key, make_rows, p, err, n);
    if (!fn) return CUTE_ERR_COMPILE;
    rows_lib_note_launch(lib, (rows_launch){.blocks = blocks, .iters = iters, .cluster = p->cluster,
                                            .threads = p->tpr * p->rows, .per_sm = row_plan_blocks_per_sm(p)});
    if (rows_lib_dry(lib)) return CUTE_OK;
    cute_call_arg args[ROW_SLOTS + 4];
    int k = call_args(rc, p, scratch, partial_rows, iters, args);
    char why[1024]; /* cute_call's message names the argument by number: the op says whose */
    cute_status st = cute_call(fn, stream, k, args, why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "%s: %s", rc->op->name, why);
    for (int s = 0, i = 0; s < rc->op->nslots && st == CUTE_OK; s++)
        if (p->has[s] && rc->op->slot[s].role == COL_PARTIAL) {
            size_t offset = (size_t)(i++ * partial_rows * cols) * sizeof(float);
            st = rows_colsum(lib, scratch, offset, partial_rows, rc->slot[s], p->sums_pdl, stream, err, n);
        }
    return st;
}

/* the slot of rc's op named `name` (-1: none) */
static int slot_named(const row_call *rc, const char *name)
{
    for (int s = 0; s < rc->op->nslots; s++)
        if (!strcmp(rc->op->slot[s].name, name)) return s;
    return -1;
}

/* A call with column sums over rows longer than a tile, as two: the call without them, and
 * row_norm_dweight's over the same tensors (by slot name).  False when it has none. */
static bool split_sums(const row_call *rc, row_call *dx_only, row_call *sums)
{
    bool any = false;
    *dx_only = *rc;
    for (int s = 0; s < rc->op->nslots; s++)
        if (rc->op->slot[s].role == COL_PARTIAL && rc->slot[s]) any = true, dx_only->slot[s] = NULL;
    memset(sums, 0, sizeof *sums);
    sums->op = &row_norm_dweight;
    for (int s = 0; s < row_norm_dweight.nslots; s++) {
        int from = slot_named(rc, row_norm_dweight.slot[s].name);
        sums->slot[s] = from >= 0 ? rc->slot[from] : NULL;
    }
    return any;
}

cute_status rows_run(cutec_rows *lib, const row_call *rc, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err) err = scratch, n = sizeof scratch;
    if (!lib) return FAIL("%s: the library is NULL (cutec_rows_new's answer when it fails)", rc->op->name);
    cute_status st = rows_env_check(err, n);
    if (!st) st = check_args(rc, err, n);
    if (st) return st;
    if (rc->slot[0]->shape[0] == 0) return CUTE_OK; /* no rows */
    row_plan p;
    plan_of(lib, rc, &p);
    row_call dx_only, sums;
    /* a block that walks several tiles of a row (but those of a part with column sums of
     * their own, row_plan_sum_tiles): dw, db by a pass of their own, which reads dy and x
     * again (five matrix passes for three) */
    bool own_pass = p.looped && p.stage_chunks != row_plan_sum_tiles(&p);
    if (own_pass && split_sums(rc, &dx_only, &sums)) {
        plan_of(lib, &dx_only, &p);
        row_plan q;
        plan_of(lib, &sums, &q);
        rows_lib_lock(lib);
        st = run_locked(lib, &dx_only, &p, stream, err, n);
        if (st == CUTE_OK) st = run_locked(lib, &sums, &q, stream, err, n);
        rows_lib_unlock(lib);
        return st;
    }
    rows_lib_lock(lib);
    st = run_locked(lib, rc, &p, stream, err, n);
    rows_lib_unlock(lib);
    return st;
}
