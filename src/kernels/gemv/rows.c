/* GEMV with K-major A (each row contiguous): a warp per `rows` rows (gemv_plan).  A block's
 * step is a tile of (warps x rows, 32 x vec x unroll columns); the TiledCopy of (warps, 32)
 * threads by (rows, vec) values gives warp w rows w*rows .. w*rows+rows-1 and each lane
 * `unroll` 16-byte vectors of each (neighbouring lanes, neighbouring vectors: each load
 * instruction of a warp reads 32 x 16 contiguous bytes).  Each vector x_v enters as a
 * stride-0 view shaped like A, partitioned as A is; the lane loads its first row's slice of
 * it, which serves all its rows (one load of x per `rows` rows of A).  A warp whose rows are
 * all in A runs its full k-tiles unpredicated and its split's last, partial one predicated by
 * a coordinate tensor partitioned like the data; a warp past A's last row predicates every
 * tile.  Accumulators are one vector's worth per row (one value a row and vector with
 * several vectors), in f32; the lanes' sums
 * meet through shuffles. */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

/* a warp's accumulators, f32 per vector and row ((vec), or (1) with several vectors), and
 * what ends its rows */
typedef struct row_acc {
    cute_tensor t[CUTE_GEMV_MAX_VECTORS][GEMV_MAX_ROWS];
    cute_tensor mY, mW;
    cute_val alpha, beta;
    const gemv_tiles *tiles;
    gemv_ring ring; /* cfg.smem_stages */
} row_acc;

/* acc += the products of the lane's fragment of A (its rows, unroll vectors each) and of
 * each x_v (its first row's), summed over the unroll vectors (a vector's worth of
 * accumulators, not a tile's: registers bound the warps an SM holds, and with them the
 * bytes in flight) */
static void fma_fragments(cute_ctx *c, const gemv_plan *p, row_acc *acc, cute_tensor rA, const cute_tensor *rX)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout prod_layout =
        cute_layout_fmt(a, "(%d,%d):(1,%d)", p->cfg.vec, p->unroll, p->cfg.vec);
    for (int v = 0; v < p->nvec; v++) {
        cute_ssa vx = cute_ssa_cvt(c, cute_tensor_load(c, rX[v]), CUTE_F32);
        for (int r = 0; r < p->rows; r++) {
            cute_ssa va =
                cute_ssa_cvt(c, cute_tensor_load(c, gemv_lane_row(c, p, rA, r)), CUTE_F32);
            cute_tensor prod = cute_make_rmem_tensor(c, CUTE_F32, prod_layout);
            cute_tensor_store(c, prod, cute_ssa_binop(c, CUTE_OP_MUL, va, vx));
            cute_tensor s = acc->t[v][r];
            if (p->nvec > 1) { /* one accumulator a row and vector: the products' sum */
                cute_val sum = cute_ssa_reduce(c, CUTE_OP_ADD, cute_tensor_load(c, prod));
                cute_tensor_store(c, s, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, s),
                                                       cute_ssa_scalar(c, sum, s.layout.shape)));
                continue;
            }
            for (int u = 0; u < p->unroll; u++)
                cute_tensor_store(
                    c, s,
                    cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, s),
                                   cute_tensor_load(c, CUTE_SLICE(c, prod, CUTE_ALL, u))));
        }
    }
}

/* A's tile at `at` and each x_v's loaded (pred: predicated by the coordinates), then their
 * products added to acc */
static void tile_fma(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                     cute_tuple at, bool pred, void *user)
{
    gemv_prefetch_warp_rows(c, p, t, at, pred);
    cute_tensor crd = cute_partition_S(c, th->thr, cute_tensor_slice(c, t->cA, at));
    cute_tensor rA =
        gemv_load_part(c, p, cute_partition_S(c, th->thr, cute_tensor_slice(c, t->gA, at)),
                       pred ? &crd : NULL, t->bound);
    cute_tensor crd0 = gemv_lane_row(c, p, crd, 0), rX[CUTE_GEMV_MAX_VECTORS];
    for (int v = 0; v < p->nvec; v++) {
        /* x is the same for every row: the first row's slice of the broadcast view */
        cute_tensor tX = cute_partition_S(c, th->thr, cute_tensor_slice(c, t->gX[v], at));
        rX[v] = gemv_load_part(c, p, gemv_lane_row(c, p, tX, 0), pred ? &crd0 : NULL, t->bound);
    }
    fma_fragments(c, p, user, rA, rX);
}

/* the ring's stage in registers: its products (one vector) */
static void ring_fma(cute_ctx *c, const gemv_plan *p, const gemv_ring_tile *f, void *user)
{
    fma_fragments(c, p, user, f->rA, &f->rX);
}

/* the in-bounds warp's whole k-tiles through the ring (cfg.smem_stages) */
static void rows_ring(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t, cute_int full,
                      void *user)
{
    row_acc *acc = user;
    gemv_ring_walk(c, p, th, t, &acc->ring, full, ring_fma, acc);
}

/* each row's sum over the warp for each vector, written by lane 0 (rows past M are not) */
static void finish_rows(cute_ctx *c, const gemv_plan *p, cute_int row0, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    const row_acc *acc = user;
    for (int r = 0; r < p->rows; r++) {
        cute_val sum[CUTE_GEMV_MAX_VECTORS];
        for (int v = 0; v < p->nvec; v++)
            sum[v] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_tensor_load(c, acc->t[v][r]));
        gemv_finish_warp(c, p, sum, cute_add(a, row0, cute_i(r)), acc->mY, acc->mW, acc->tiles,
                         acc->alpha, acc->beta);
    }
}

/* the kernel; counts: split-K in one launch's counters (cfg.one_launch), else NULL */
static void rows_body(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                      const cute_tensor *counts, cute_int kchunk, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    gemv_let_dependents_in(c, p);
    cute_tensor slot = gemv_last_slot(c, p);
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, kchunk);
    gemv_thread th = gemv_thread_start(c, p, &t, false);
    row_acc acc = {.mY = mY, .mW = mW, .alpha = alpha, .beta = beta, .tiles = &t};
    int accw = p->nvec > 1 ? 1 : p->cfg.vec; /* several vectors: registers go to x */
    for (int v = 0; v < p->nvec; v++)
        for (int r = 0; r < p->rows; r++) {
            acc.t[v][r] = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "(%d):(1)", accw));
            cute_clear(c, acc.t[v][r]);
        }
    gemv_walk walk = {.tile = tile_fma, .end = finish_rows, .user = &acc};
    if (p->cfg.smem_stages) {
        cute_kernel_min_blocks(c, gemv_ring_blocks(p));
        acc.ring = gemv_ring_make(c, p, NULL, NULL, mA.layout.shape.leaf[0], mA.layout.shape.leaf[1],
                                  mA.layout.shape.leaf[2]);
        walk.whole = rows_ring;
    }
    gemv_warp_rows_by(c, p, &th, &t, mA.layout.shape.leaf[0], p->ktile, &walk);
    if (counts) gemv_last_block_end(c, p, mY, mW, *counts, slot, &t, p->threads / 32 * p->rows, alpha, beta);
}

static void rows_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                        cute_int kchunk, cute_val alpha, cute_val beta)
{
    rows_body(c, mA, mX, mY, mW, NULL, kchunk, alpha, beta);
}

/* split-K in one launch (cfg.one_launch) */
static void rows_kernel_one(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                            cute_tensor counts, cute_int kchunk, cute_val alpha, cute_val beta)
{
    rows_body(c, mA, mX, mY, mW, &counts, kchunk, alpha, beta);
}

void gemv_rows_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    gemv_host_args g = gemv_host_unpack(c, arg, p->threads / 32 * p->rows);
    if (p->cfg.one_launch)
        CUTE_LAUNCH(c, rows_kernel_one, g.launch, g.mA, g.xb, g.mY, g.mW, g.counts, g.kchunk, g.alpha, g.beta);
    else
        CUTE_LAUNCH(c, rows_kernel, g.launch, g.mA, g.xb, g.mY, g.mW, g.kchunk, g.alpha, g.beta);
    gemv_reduce_launch(c, p, g.mY, g.mW, g.alpha, g.beta);
}
