/* Reductions down the columns of a matrix: out(N) = sum, mean, amax, amin or prod of x(M,N)
 * over its first dimension (PyTorch's torch.sum(x, 0) and the others; cutec_reduce_cols),
 * and the second pass of the norms' dweight/dbias (the column sums of the blocks' partial
 * rows, rows_colsum).  One kernel does both:
 *
 *   a block is 32 threads along the columns by 8 row lanes; each thread holds V adjacent
 *   columns (a 16-byte access where the row length, the row stride and the data allow it)
 *   and combines every 8th row of its split, U rows' loads issued before their combines;
 *   the 8 lanes' values meet in shared memory and one lane writes the block's 32 V columns.
 *
 * The grid is (column tiles, splits): a tall matrix is cut into row splits so that the card
 * has a few blocks an SM to stream with; each split writes a partial row of f32, and a second
 * launch of the same kernel (one split) combines the partials in a fixed order (no atomics:
 * the same bits every run).  Rows past the end, and columns past it, read as the op's
 * identity; mean is the sum scaled by 1/M once, at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "cutec/sync.h"
#include "kernels/rows/rows_lib.h"

enum { LANES = 8, THREADS = 32, UNROLL = 4, UNROLL_MAX = 8 };

typedef struct colred {
    cute_dtype in, out;
    cute_op op;
    int vec;    /* V */
    int unroll; /* U: rows' loads a thread issues before their combines */
    int lanes;  /* L: row lanes a block (LANES; the norms' pass: rows_colsum's colsum_lanes) */
    int width;  /* W: threads along the columns (THREADS; the norms' pass: colsum_lanes) */
    bool pdl;   /* launched as a dependent of the row kernel (rows_colsum's "sumpdl") */
} colred;

/* a column reduction in -> out of V-element columns with the defaults: U rows' loads, L lanes,
 * W threads (the callers change what their pass needs) */
static colred colred_new(cute_dtype in, cute_dtype out, cute_op op, int vec, bool pdl)
{
    return (colred){in, out, op, vec, UNROLL, LANES, THREADS, pdl};
}

static double identity(cute_op op)
{
    return op == CUTE_OP_MAX ? -INFINITY : op == CUTE_OP_MIN ? INFINITY : op == CUTE_OP_MUL ? 1 : 0;
}

/* the bytes a vector of v elements of d is aligned to (16 at most: the widest access) */
static int vector_align(int v, cute_dtype d)
{
    int b = v * cute_dtype_bytes(d);
    return b < 16 ? b : 16;
}

/* thread (tx, ty)'s V columns of row block pb of column tile cb, of a matrix tiled by (L, W V)
 * (zipped: ((L, W V), (row blocks, column tiles))): the tile's (r, c) seen as (r, (v, x)), x
 * the thread along the columns, v its column */
static cute_tensor thread_part(cute_ctx *c, cute_tensor tiled, int rows, int vec, int width, cute_int ty, cute_int tx,
                               cute_int pb, cute_int cb)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor tile = cute_tensor_slice(c, tiled, CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), CUTE_CRD(pb, cb)));
    cute_layout by_thread = cute_layout_fmt(a, "(%d,(%d,%d)):(1,(%d,%d))", rows, vec, width, rows, rows * vec);
    cute_tiler t = cute_tiler_layout(&by_thread);
    return cute_tensor_slice(c, cute_tensor_compose(c, tile, &t), CUTE_CRD(ty, CUTE_CRD(CUTE_ALL, tx)));
}

/* out(split, :) = the op over rows [split B L, (split + 1) B L) of x (B blocks of L rows a
 * split, B a multiple of U where there are several splits), times scale.  gX, cX: x and its coordinates tiled by (L, 32 V); gOut, cOut: out
 * and its coordinates tiled by (1, 32 V) */
static void colred_kernel(cute_ctx *c, cute_tensor gX, cute_tensor cX, cute_tensor gOut, cute_tensor cOut,
                          cute_int m, cute_int cols, cute_int splits, cute_int blocks_per_split, cute_val scale)
{
    const colred *k = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tx = cute_thread_idx(c, 0), ty = cute_thread_idx(c, 1);
    cute_int cb = cute_block_idx(c, 0), split = cute_block_idx(c, 1);
    int L = k->lanes, W = k->width;
    cute_smem_allocator A = cute_smem_allocator_new(c);
    /* the lanes' (L, W V) values, in the zipped form of one tile that thread_part reads */
    cute_tensor sAcc = cute_smem_alloc_tensor(
        c, &A, CUTE_F32, cute_layout_fmt(a, "((%d,%d),(1,1)):((1,%d),(0,0))", L, W * k->vec, L), 16);
    cute_tensor acc = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "(%d):(1)", k->vec));
    cute_tuple v_shape = acc.layout.shape;
    cute_tensor_store(c, acc, cute_ssa_fill(c, CUTE_F32, v_shape, identity(k->op)));
    if (k->pdl) { /* the row kernel's partials: its end, and the next pass (db's) let in */
        cute_griddepcontrol_launch_dependents(c);
        cute_griddepcontrol_wait(c);
    }
    cute_int first = cute_mul(a, split, blocks_per_split);
    cute_tuple bound = CUTE_CRD(m, cols);
    CUTE_FOR(c, q, cute_i(0), cute_ceil_div(a, blocks_per_split, cute_i(k->unroll))) {
        cute_ssa v[UNROLL_MAX];
        for (int u = 0; u < k->unroll; u++) { /* the loads first, so U of them are in flight */
            cute_int pb = cute_add(a, first, cute_add(a, cute_mul(a, q, cute_i(k->unroll)), cute_i(u)));
            cute_ssa in = cute_elem_less(c, thread_part(c, cX, L, k->vec, W, ty, tx, pb, cb), bound);
            cute_ssa x = cute_tensor_load_if(c, thread_part(c, gX, L, k->vec, W, ty, tx, pb, cb), in, identity(k->op));
            v[u] = cute_ssa_cvt(c, x, CUTE_F32);
        }
        cute_ssa sum = cute_tensor_load(c, acc);
        for (int u = 0; u < k->unroll; u++) sum = cute_ssa_binop(c, k->op, sum, v[u]);
        cute_tensor_store(c, acc, sum);
    }
    /* the lanes' values through shared memory; lane 0 combines them in lane order */
    cute_int zero = cute_i(0);
    cute_tensor_store(c, thread_part(c, sAcc, L, k->vec, W, ty, tx, zero, zero), cute_tensor_load(c, acc));
    cute_barrier(c);
    CUTE_IF(c, cute_int_eq(c, ty, zero)) {
        cute_ssa total = cute_tensor_load(c, thread_part(c, sAcc, L, k->vec, W, zero, tx, zero, zero));
        for (int l = 1; l < L; l++)
            total = cute_ssa_binop(c, k->op, total, cute_tensor_load(c, thread_part(c, sAcc, L, k->vec, W, cute_i(l), tx, zero, zero)));
        total = cute_ssa_binop(c, CUTE_OP_MUL, total, cute_ssa_scalar(c, scale, v_shape));
        cute_ssa in = cute_elem_less(c, thread_part(c, cOut, 1, k->vec, W, zero, tx, split, cb), CUTE_CRD(splits, cols));
        cute_tensor_store_if(c, thread_part(c, gOut, 1, k->vec, W, zero, tx, split, cb), cute_ssa_cvt(c, total, k->out), in);
    }
}

static void colred_host(cute_ctx *c, const cute_arg *args)
{
    const colred *k = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor X = args[0].tensor, out = args[1].tensor;
    cute_int blocks_per_split = args[2].i;
    cute_tuple xt = cute_tuple_fmt(a, "(%d,%d)", k->lanes, k->width * k->vec), ot = cute_tuple_fmt(a, "(1,%d)", k->width * k->vec);
    cute_tiler by_x = cute_tiler_shape(a, &xt), by_out = cute_tiler_shape(a, &ot);
    cute_tensor gX = cute_tensor_zipped_divide(c, X, &by_x);
    cute_tensor cX = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, X.layout.shape), &by_x);
    cute_tensor gOut = cute_tensor_zipped_divide(c, out, &by_out);
    cute_tensor cOut = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, out.layout.shape), &by_out);
    cute_int m = X.layout.shape.leaf[0], cols = X.layout.shape.leaf[1], splits = out.layout.shape.leaf[0];
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, cols, cute_i(k->width * k->vec)), splits},
                           .block = {cute_i(k->width), cute_i(k->lanes)}, .pdl = k->pdl};
    CUTE_LAUNCH(c, colred_kernel, cfg, gX, cX, gOut, cOut, m, cols, splits, blocks_per_split, args[3].f);
}

static const cute_fn *make_colred(cute_runtime *rt, const void *key, const void *user, char *err, size_t n)
{
    (void)key;
    const colred *k = user;
    char rows[64]; /* x and out alike: rows of V-element vectors */
    int v = k->vec;
    snprintf(rows, sizeof rows, v > 1 ? "(?,?{div=%d}):(?{div=%d},1)" : "(?,?):(?,1)", v, v);
    cute_arg_spec specs[4] = {cute_spec_tensor(k->in, rows, vector_align(v, k->in)),
                              cute_spec_tensor(k->out, rows, vector_align(v, k->out)), cute_spec_int("?"),
                              cute_spec_float(CUTE_F32)};
    colred copy = *k;
    return cute_compile(rt, "reduce_columns", colred_host, &copy, 4, specs, err, n);
}

/* one launch: out (S,N) = the op over S splits of x's rows, times scale (lock held) */
static cute_status colred_launch(cutec_rows *lib, const colred *k, const cute_call_arg *x, const cute_call_arg *out,
                                 int64_t blocks_per_split, double scale, void *stream, char *err, size_t n)
{
    char key[96];
    snprintf(key, sizeof key, "reduce_columns/%s/%s/op%d/v%d/u%d/l%d/w%d%s", cute_dtype_name(k->in), cute_dtype_name(k->out),
             (int)k->op, k->vec, k->unroll, k->lanes, k->width, k->pdl ? "/pdl" : "");
    const cute_fn *fn = rows_lib_find(lib, key, make_colred, k, err, n);
    if (!fn) return CUTE_ERR_COMPILE;
    if (rows_lib_dry(lib)) return CUTE_OK;
    cute_call_arg args[4] = {*x, *out, cute_call_int(blocks_per_split), cute_call_float(scale)};
    return cute_call(fn, stream, 4, args, err, n);
}

/* the widest vector of x (elements, up to 16 bytes) that divides the row length, the row
 * strides and the data addresses of x and of out (a matrix, or a row) */
static int widest(const cute_call_arg *x, const cute_call_arg *out, int64_t cols)
{
    int v = 16 / cute_dtype_bytes((cute_dtype)x->dtype);
    for (; v > 1; v /= 2)
        if (cols % v == 0 && x->stride[0] % v == 0 && out->stride[0] % v == 0 &&
            cute_call_arg_alignment(x, 16) >= vector_align(v, (cute_dtype)x->dtype) &&
            cute_call_arg_alignment(out, 16) >= vector_align(v, (cute_dtype)out->dtype))
            break;
    return v;
}

/* a contiguous vector (N) as the kernel's (1, N) matrix of one split */
static cute_call_arg as_row(const cute_call_arg *v)
{
    int64_t cols = v->shape[0];
    return cute_call_tensor(v->buf, v->offset, (cute_dtype)v->dtype, 2, (int64_t[]){1, cols}, (int64_t[]){cols, 1});
}

/* out (N) = the op over the rows of x in one launch, or through S partial rows of f32 in the
 * scratch when the card needs more blocks than the column tiles give (lock held) */
static cute_status reduce_columns(cutec_rows *lib, const cute_call_arg *x, const cute_call_arg *out, cute_op op, double scale,
                                  void *stream, char *err, size_t n)
{
    int64_t m = x->shape[0], cols = x->shape[1];
    cute_call_arg row = as_row(out);
    colred k = colred_new((cute_dtype)x->dtype, (cute_dtype)out->dtype, op, widest(x, &row, cols), false);
    int64_t tiles = (cols + THREADS * k.vec - 1) / (THREADS * k.vec), row_blocks = (m + LANES - 1) / LANES;
    /* splits: a few blocks an SM in all, each walking at least 4 U row blocks */
    int64_t want = 2 * rows_lib_resident_blocks(lib), splits = (want + tiles - 1) / tiles;
    int64_t most = row_blocks / (4 * UNROLL);
    if (splits > most) splits = most;
    if (splits < 2) {
        /* one launch (the column tiles fill the card): 16-bit inputs with 8 rows' loads a
         * thread in flight, 128 bytes (bf16 sum 1024x262144 97.6 -> 100.6% of the copy on an
         * H200, 2026-11-27).  Not with splits: at 64 registers four blocks an SM, 1.2 waves
         * at 4096x32768 (94.0 -> 80.6%), and 16384x4096 unchanged (85.5, 85.6).
         * CUTEC_COLS_UNROLL=4 keeps 4, so that one run can time both */
        if (cute_dtype_bytes(k.in) == 2 && rows_env(ROWS_ENV_COLS_UNROLL) == 0) k.unroll = UNROLL_MAX;
        return colred_launch(lib, &k, x, &row, row_blocks, scale, stream, err, n);
    }
    /* each split's row blocks a multiple of U: its loop's turns end where the next split begins */
    int64_t per = ((row_blocks + splits - 1) / splits + UNROLL - 1) / UNROLL * UNROLL;
    splits = (row_blocks + per - 1) / per;
    const cute_buffer *scratch = NULL;
    if (!rows_lib_dry(lib) && rows_lib_scratch(lib, (size_t)(splits * cols) * sizeof(float), &scratch) != CUTE_OK)
        return snprintf(err, n, "reduce_cols: no memory for %lld partial rows", (long long)splits), CUTE_ERR_OOM;
    cute_call_arg part = scratch ? cute_call_tensor(scratch, 0, CUTE_F32, 2, (int64_t[]){splits, cols}, (int64_t[]){cols, 1})
                                 : row; /* a dry run: the shapes are all it reads */
    colred k1 = colred_new(k.in, CUTE_F32, op, k.vec, false), k2 = colred_new(CUTE_F32, k.out, op, widest(&part, &row, cols), false);
    int64_t rest = (splits + LANES - 1) / LANES;
    cute_status s = colred_launch(lib, &k1, x, &part, per, 1, stream, err, n);
    if (s == CUTE_OK) s = colred_launch(lib, &k2, &part, &row, rest, scale, stream, err, n);
    /* cutec compile shows the function found last: found again (a table hit), the pass that reads x */
    if (s == CUTE_OK && rows_lib_dry(lib)) s = colred_launch(lib, &k1, x, &part, per, 1, stream, err, n);
    return s;
}

/* nb41's "sumlanes" (the default; CUTEC_ROWS_TRIAL=no-sumlanes gives the 8 lanes back): the
 * lanes a block sized to the partial rows, so that a thread's rows are all in flight at once
 * (U = 8 of them, at most two turns), where the lanes were 8 whatever the rows: 16384x4096's 261 partial rows took
 * 33 rows a thread in 9 turns of 4 loads (128 blocks), 1024x262144's 7 took one row a thread
 * in 8192 blocks of 8 lanes (one idle; 8 waves of blocks, 14.6 us an array on an H200).  L:
 * the fewest lanes (a power of two up to 32) that leave a thread 8 rows or fewer; W: 256 / L
 * threads along the columns, 32 at least (blocks of 256 threads, 512 or 1024 at 16 and 32
 * lanes): 261 rows -> 32 lanes of 32 (9 rows a thread, two turns; 128 blocks of 1024), 30 ->
 * 4 of 64 (one turn, 512 blocks), 7 -> 1 of 256 (one turn, 1024 blocks: one wave) */
static void colsum_lanes(colred *k, int64_t rows)
{
    int lanes = 1;
    while (lanes < 32 && (rows + lanes - 1) / lanes > UNROLL_MAX) lanes *= 2;
    k->lanes = lanes, k->width = lanes >= 8 ? THREADS : 256 / lanes, k->unroll = UNROLL_MAX;
}

cute_status rows_colsum(cutec_rows *lib, const cute_buffer *buf, size_t offset, int64_t rows, const cute_call_arg *out,
                        bool pdl, void *stream, char *err, size_t n)
{
    int64_t shape[2] = {rows, out->shape[0]}, stride[2] = {out->shape[0], 1};
    cute_call_arg p = cute_call_tensor(buf, offset, CUTE_F32, 2, shape, stride);
    colred k = colred_new(CUTE_F32, (cute_dtype)out->dtype, CUTE_OP_ADD, 1, pdl);
    cute_call_arg row = as_row(out);
    /* (no-sumlanes:) one column a thread, as this pass ran before the column kernel took it over (N/32
     * blocks, each thread's rows in the same order), now with 4 rows' loads in flight.  (Four
     * columns a thread, N/128 blocks, lost 0.6 points of the copy at 1024x262144, where this
     * pass takes 14.6 us an array of LayerNorm's 488: H200, lnb's mid pass; deleted.) */
    if (row_lnb_form("sumlanes")) colsum_lanes(&k, rows);
    return colred_launch(lib, &k, &p, &row, (rows + k.lanes - 1) / k.lanes, 1, stream, err, n);
}

#define FAIL(...) (snprintf(err, n, __VA_ARGS__), CUTE_ERR_INVALID)

cute_status cutec_reduce_cols(cutec_rows *lib, const cute_call_arg *out, const cute_call_arg *x, cutec_reduce_op op,
                              void *stream, char *err, size_t n)
{
    static const cute_op ops[] = {CUTE_OP_ADD, CUTE_OP_ADD, CUTE_OP_MAX, CUTE_OP_MIN, CUTE_OP_MUL};
    char scratch[256];
    if (!err) err = scratch, n = sizeof scratch;
    if (!lib) return FAIL("reduce_cols: the library is NULL (cutec_rows_new's answer when it fails)");
    if ((unsigned)op >= sizeof ops / sizeof *ops) return FAIL("reduce_cols: op is not a cutec_reduce_op");
    cute_status st = rows_env_check(err, n);
    if (st) return st;
    if (!x || x->kind != CUTE_ARG_TENSOR || !x->buf || x->ndim != 2) return FAIL("reduce_cols: x must be a matrix (a tensor of rank 2)");
    cute_dtype d = (cute_dtype)x->dtype;
    if (d != CUTE_F32 && d != CUTE_F16 && d != CUTE_BF16)
        return FAIL("reduce_cols: x is %s (f32, f16 or bf16)", cute_dtype_name(d));
    if (x->shape[0] < 1 || x->shape[1] < 1)
        return FAIL("reduce_cols: x is %lldx%lld (no empty reductions)", (long long)x->shape[0], (long long)x->shape[1]);
    if (x->stride[1] != 1 && x->shape[1] > 1)
        return FAIL("reduce_cols: x's columns must be unit-stride (its stride is %lld)", (long long)x->stride[1]);
    if (!out || out->kind != CUTE_ARG_TENSOR || !out->buf || out->ndim != 1)
        return FAIL("reduce_cols: out must be a vector (a tensor of rank 1)");
    if (out->shape[0] != x->shape[1])
        return FAIL("reduce_cols: out has %lld elements, not %lld (x's columns)", (long long)out->shape[0],
                    (long long)x->shape[1]);
    if (out->dtype != CUTE_F32) return FAIL("reduce_cols: out must be f32");
    if (out->stride[0] != 1 && out->shape[0] > 1)
        return FAIL("reduce_cols: out must be unit-stride (its stride is %lld)", (long long)out->stride[0]);
    if (cute_call_args_overlap(out, x)) return FAIL("reduce_cols: out overlaps x");
    double scale = op == CUTEC_REDUCE_MEAN ? 1.0 / (double)x->shape[0] : 1;
    rows_lib_lock(lib);
    cute_status s = reduce_columns(lib, x, out, ops[op], scale, stream, err, n);
    rows_lib_unlock(lib);
    return s;
}
