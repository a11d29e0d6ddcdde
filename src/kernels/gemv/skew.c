/* GEMV with K-major A whose rows do not start 16-byte aligned (cfg.skew): the leading
 * dimension is not a multiple of the 16-byte vector (4097x3x8191: only every eighth bf16 row
 * starts aligned), so the rows kernel would read the whole row element by element.  Here each
 * row is read as a scalar head up to its first aligned 16 bytes, aligned 16-byte vectors, and a
 * scalar tail.  A warp owns `rows` rows whose starts share one misalignment: rows w, w + warps,
 * w + 2 warps, ... of its block, with as many warps as a vector's elements (the misalignment
 * of row r repeats every `vec` rows), so one head length serves the warp and each load of x
 * (element by element: x's vectors start anywhere) serves all its rows.  The misalignment of
 * A[0,0,0] in elements comes as an argument (the library's, from the address); a row's from
 * there by its offset.  A lane takes `unroll` vectors of each row a k-tile (neighbouring lanes,
 * neighbouring vectors); the split's last, partial k-tile goes vector by vector; lanes below
 * the head's and the tail's lengths take one element each.  The ends are the rows kernel's:
 * the lanes' sums meet through shuffles, lane 0 finishing each row (or its split's part). */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

/* a warp's rows and what it accumulates: f32 per row and vector, (vec) with one vector, (1)
 * with several */
typedef struct skew_warp {
    cute_int row[GEMV_MAX_ROWS]; /* the warp's rows (past M: its first row's, never finished) */
    cute_tensor acc[CUTE_GEMV_MAX_VECTORS][GEMV_MAX_ROWS];
    cute_tensor mA, mX; /* A (M,K,L), x (K,N,L) */
    cute_int l;
} skew_warp;

/* acc[v][r] += A's run of row r times x_v's, (vec, n) elements each from column k (A's
 * aligned to 16 bytes there: the runs are the lane's vectors; x's element by element), by
 * fma: a chain into each row and vector's accumulator with several vectors (half the
 * instructions of products and a sum), a vector's worth with one */
static void fma_run(cute_ctx *c, const gemv_plan *p, skew_warp *w, cute_int k, cute_layout run)
{
    int vec = p->cfg.vec, es = cute_dtype_bytes(p->cfg.dtype);
    /* every load first, then the products: a warp issues in order, and a conversion or fma
     * right after its load would wait out that load before the next one is issued */
    cute_ssa x[CUTE_GEMV_MAX_VECTORS], ar[GEMV_MAX_ROWS];
    int align = vec * es; /* (a run of one element: its own size) */
    if (cute_size(cute_ctx_alg(c), &run).v == 1) align = es;
    for (int v = 0; v < p->nvec; v++) {
        cute_tensor from = cute_tensor_domain_offset(c, w->mX, CUTE_CRD(k, v, w->l));
        x[v] = cute_tensor_load(c, cute_make_tensor(c, cute_tensor_ptr(c, from, cute_i(0)), run, es));
    }
    /* (A's loads after x's or before them: the same time, 28.9 us at 4097x3x8191, session
     * 42's mid pass) */
    for (int r = 0; r < p->rows; r++) {
        cute_tensor from = cute_tensor_domain_offset(c, w->mA, CUTE_CRD(w->row[r], k, w->l));
        ar[r] = cute_tensor_load(c, cute_make_tensor(c, cute_tensor_ptr(c, from, cute_i(0)), run, align));
    }
    for (int v = 0; v < p->nvec; v++) x[v] = cute_ssa_cvt(c, x[v], CUTE_F32);
    for (int r = 0; r < p->rows; r++) {
        cute_ssa a = cute_ssa_cvt(c, ar[r], CUTE_F32);
        for (int v = 0; v < p->nvec; v++) {
            cute_tensor s = w->acc[v][r];
            int n = a.n / vec; /* the run's vectors (0: a run of one element) */
            if (p->nvec > 1 || !n) { /* one accumulator a row and vector, or one element: a chain of fma */
                cute_tensor s0 = s; /* its first element */
                s0.layout = cute_layout_parse(cute_ctx_alg(c), "(1):(1)");
                cute_val sum = cute_ssa_get(c, cute_tensor_load(c, s0), 0);
                for (int e = 0; e < a.n; e++) sum = cute_val_fma(c, cute_ssa_get(c, a, e), cute_ssa_get(c, x[v], e), sum);
                cute_tensor_store(c, s0, cute_ssa_scalar(c, sum, s0.layout.shape));
                continue;
            }
            /* one vector: an fma a vector into the vector of accumulators */
            cute_layout by = cute_layout_fmt(cute_ctx_alg(c), "(%d,%d):(1,%d)", vec, n, vec);
            cute_tensor ta = cute_make_rmem_tensor(c, CUTE_F32, by), tx = cute_make_rmem_tensor(c, CUTE_F32, by);
            cute_tensor_store(c, ta, a);
            cute_tensor_store(c, tx, x[v]);
            for (int u = 0; u < n; u++)
                cute_tensor_store(c, s, cute_ssa_fma(c, cute_tensor_load(c, CUTE_SLICE(c, ta, CUTE_ALL, u)),
                                                     cute_tensor_load(c, CUTE_SLICE(c, tx, CUTE_ALL, u)),
                                                     cute_tensor_load(c, s)));
        }
    }
}

/* The warp's rows' whole k-tile `kt` (the split's last whole one at most: no branch, the
 * address stays in the split) asked of L2, one 128-byte line a lane (rows x 4 x unroll lines
 * of 16-byte vectors: the first 32): cfg.l2_prefetch ahead of the loads, bytes on their way
 * that hold no registers; as a dependent launch, the first two before the previous grid's end */
static void prefetch_tile(cute_ctx *c, const gemv_plan *p, cute_tensor mA, cute_int row0, cute_int M, cute_int body,
                          cute_int kt, cute_int full, cute_int l)
{
    cute_alg *a = cute_ctx_alg(c);
    int es = cute_dtype_bytes(p->cfg.dtype), per_line = 128 / es, tk = 32 * p->unroll * p->cfg.vec;
    int lpr = tk / per_line, lines = p->rows * lpr, warps = p->threads / 32;
    cute_int i = cute_mod(a, cute_lane_idx(c), cute_i(lines > 32 ? 32 : lines));
    cute_int next = cute_min(a, kt, cute_sub(a, full, cute_i(1)));
    cute_int row = cute_add(a, row0, cute_mul(a, cute_div(a, i, cute_i(lpr)), cute_i(warps)));
    row = cute_int_from_val(c, cute_val_select(c, cute_int_lt(c, row, M), cute_int_value(c, row, CUTE_I64),
                                               cute_int_value(c, row0, CUTE_I64)),
                            0); /* (past M: the warp's first row, as its loads) */
    cute_int col = cute_add(a, body, cute_add(a, cute_mul(a, next, cute_i(tk)), cute_mul(a, cute_mod(a, i, cute_i(lpr)), cute_i(per_line))));
    cute_tensor from = cute_tensor_domain_offset(c, mA, CUTE_CRD(row, col, l));
    cute_prefetch_l2(c, cute_tensor_ptr(c, from, cute_i(0)));
}

/* a warp's split of its rows: the head (from k0 up to the rows' first aligned element, the
 * warp's rows alike), the body's first column, its vectors and whole k-tiles */
typedef struct skew_span {
    cute_int h, body, nv, full;
} skew_span;
static skew_span span_of(cute_ctx *c, const gemv_plan *p, cute_tensor mA, cute_int row0, const gemv_tiles *t, cute_int a0)
{
    cute_alg *a = cute_ctx_alg(c);
    int vec = p->cfg.vec;
    skew_span s;
    cute_int off = cute_add(a, a0, cute_tensor_domain_offset(c, mA, CUTE_CRD(row0, t->k0, t->l)).offset);
    cute_int span = cute_sub(a, t->kend, t->k0);
    s.h = cute_min(a, cute_mod(a, cute_sub(a, cute_i(vec), cute_mod(a, off, cute_i(vec))), cute_i(vec)), span);
    s.body = cute_add(a, t->k0, s.h), s.nv = cute_div(a, cute_sub(a, span, s.h), cute_i(vec));
    s.full = cute_div(a, s.nv, cute_i(32 * p->unroll));
    return s;
}

/* the kernel; counts: split-K in one launch's counters (cfg.one_launch), else NULL */
static void skew_body(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                      const cute_tensor *counts, cute_int kchunk, cute_int a0, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    int vec = p->cfg.vec, warps = p->threads / 32, U = p->unroll;
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1];
    bool early = p->early && p->pdl; /* (a dependent launch: the wait after the prefetch below) */
    if (!early) gemv_let_dependents_in(c, p);
    cute_tensor slot = gemv_last_slot(c, p);
    gemv_tiles t = gemv_block_split(c, p, K, kchunk);
    skew_warp w = {.mA = mA, .mX = mX, .l = t.l};
    cute_int lane = cute_lane_idx(c), R = cute_i(warps * p->rows);
    cute_int row0 = cute_add(a, cute_mul(a, cute_block_idx(c, 0), R), cute_warp_idx(c));
    for (int r = 0; r < p->rows; r++) {
        cute_int row = cute_add(a, row0, cute_i(r * warps));
        w.row[r] = cute_int_from_val(c, cute_val_select(c, cute_int_lt(c, row, M), cute_int_value(c, row, CUTE_I64),
                                                        cute_int_value(c, row0, CUTE_I64)),
                                     0);
        for (int v = 0; v < p->nvec; v++) {
            w.acc[v][r] = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "(%d):(1)", p->nvec > 1 ? 1 : vec));
            cute_clear(c, w.acc[v][r]);
        }
    }
    if (early) { /* the first two whole k-tiles into L2, then the wait: a
                    prefetch moves nothing to the thread, so it may precede the wait for the
                    previous grid's writes (L2 is where they land) */
        skew_span s = span_of(c, p, mA, row0, &t, a0);
        CUTE_IF(c, cute_val_binop(c, CUTE_OP_AND, cute_int_lt(c, row0, M), cute_int_lt(c, cute_i(0), s.full)))
        {
            for (int i = 0; i < 2; i++) prefetch_tile(c, p, mA, row0, M, s.body, cute_i(i), s.full, t.l);
        }
        gemv_let_dependents_in(c, p);
    }
    CUTE_IF(c, cute_int_lt(c, row0, M))
    {
        skew_span s = span_of(c, p, mA, row0, &t, a0);
        cute_int h = s.h, body = s.body, nv = s.nv, full = s.full;
        /* whole k-tiles: the lane's `unroll` vectors of each row, 32 vectors apart */
        cute_layout tile = cute_layout_fmt(a, "(%d,%d):(1,%d)", vec, U, 32 * vec);
        CUTE_FOR(c, kt, cute_i(0), full)
        {
            if (p->cfg.l2_prefetch) prefetch_tile(c, p, mA, row0, M, s.body, cute_add(a, kt, cute_i(p->cfg.l2_prefetch)), s.full, t.l);
            cute_int k = cute_add(a, body, cute_mul(a, cute_i(vec), cute_add(a, lane, cute_mul(a, kt, cute_i(32 * U)))));
            fma_run(c, p, &w, k, tile);
        }
        /* the partial k-tile, vector by vector */
        cute_layout one_vec = cute_layout_fmt(a, "(%d,1):(1,%d)", vec, vec);
        for (int u = 0; u < U; u++) {
            cute_int j = cute_add(a, cute_mul(a, full, cute_i(32 * U)), cute_add(a, lane, cute_i(32 * u)));
            CUTE_IF(c, cute_int_lt(c, j, nv)) { fma_run(c, p, &w, cute_add(a, body, cute_mul(a, j, cute_i(vec))), one_vec); }
        }
        /* the head's and the tail's elements, one a lane */
        cute_layout one = cute_layout_parse(a, "(1,1):(1,1)");
        cute_int tail0 = cute_add(a, body, cute_mul(a, nv, cute_i(vec)));
        CUTE_IF(c, cute_int_lt(c, lane, h)) { fma_run(c, p, &w, cute_add(a, t.k0, lane), one); }
        CUTE_IF(c, cute_int_lt(c, cute_add(a, tail0, lane), t.kend)) { fma_run(c, p, &w, cute_add(a, tail0, lane), one); }
        for (int r = 0; r < p->rows; r++) {
            cute_val sum[CUTE_GEMV_MAX_VECTORS];
            for (int v = 0; v < p->nvec; v++) sum[v] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_tensor_load(c, w.acc[v][r]));
            gemv_finish_warp(c, p, sum, cute_add(a, row0, cute_i(r * warps)), mY, mW, &t, alpha, beta);
        }
    }
    if (counts) gemv_last_block_end(c, p, mY, mW, *counts, slot, &t, warps * p->rows, alpha, beta);
}

static void skew_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW, cute_int kchunk,
                        cute_int a0, cute_val alpha, cute_val beta)
{
    skew_body(c, mA, mX, mY, mW, NULL, kchunk, a0, alpha, beta);
}

/* split-K in one launch (cfg.one_launch) */
static void skew_kernel_one(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                            cute_tensor counts, cute_int kchunk, cute_int a0, cute_val alpha, cute_val beta)
{
    skew_body(c, mA, mX, mY, mW, &counts, kchunk, a0, alpha, beta);
}

void gemv_skew_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    gemv_host_args g = gemv_host_unpack(c, arg, p->threads / 32 * p->rows);
    cute_tensor mX = arg[1].tensor;
    cute_int a0 = arg[7].i; /* A[0,0,0]'s misalignment, in elements */
    if (p->cfg.one_launch)
        CUTE_LAUNCH(c, skew_kernel_one, g.launch, g.mA, mX, g.mY, g.mW, g.counts, g.kchunk, a0, g.alpha, g.beta);
    else
        CUTE_LAUNCH(c, skew_kernel, g.launch, g.mA, mX, g.mY, g.mW, g.kchunk, a0, g.alpha, g.beta);
    gemv_reduce_launch(c, p, g.mY, g.mW, g.alpha, g.beta);
}
