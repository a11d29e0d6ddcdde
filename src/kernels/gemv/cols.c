/* GEMV with M-major A (each column contiguous): a thread per vector of rows.  A block's
 * tile is (threads x vec rows, unroll columns); the TiledCopy of threads x 1 by vec x unroll
 * values gives each thread `unroll` 16-byte vectors down its rows.  Each vector x_v enters
 * as a stride-0 view shaped like A, partitioned exactly as A is, so each thread reads the
 * x of its columns.  Every step is predicated by a coordinate tensor (rows past M, columns
 * past the split's end). */
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"

/* the sum over the columns of acc (vec rows first, compact): one value per row */
static cute_tensor row_sums(cute_ctx *c, const gemv_plan *p, cute_tensor acc)
{
    cute_alg *a = cute_ctx_alg(c);
    int vec = p->cfg.vec;
    int64_t cols = cute_size(a, &acc.layout).v / vec;
    cute_tensor byrow = acc;
    byrow.layout = cute_layout_fmt(a, "(%d,%lld):(1,%d)", vec, (long long)cols, vec);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(a, "(%d):(1)", vec));
    cute_tensor_store(c, r, cute_tensor_load(c, CUTE_SLICE(c, byrow, CUTE_ALL, 0)));
    for (int64_t j = 1; j < cols; j++)
        cute_tensor_store(c, r,
                          cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, r),
                                         cute_tensor_load(c, CUTE_SLICE(c, byrow, CUTE_ALL, j))));
    return r;
}

/* acc[v] += A's step * x_v's step where `in` holds */
static void step_fma(cute_ctx *c, const gemv_plan *p, cute_thr_copy thr, const gemv_tiles *t,
                     cute_tuple at, const cute_tensor *acc)
{
    cute_copy_atom scalar = cute_copy_atom_autovec(cute_ctx_alg(c), p->cfg.dtype);
    cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, t->gA, at));
    cute_ssa in =
        cute_elem_less(c, cute_partition_S(c, thr, cute_tensor_slice(c, t->cA, at)), t->bound);
    cute_tensor rA = cute_make_fragment_like(c, tA);
    cute_copy_if_whole(c, &p->tc.atom, in, tA, rA); /* vec divides M: whole vectors */
    cute_ssa va = cute_ssa_cvt(c, cute_tensor_load(c, rA), CUTE_F32);
    for (int v = 0; v < p->nvec; v++) {
        cute_tensor tX = cute_partition_S(c, thr, cute_tensor_slice(c, t->gX[v], at));
        cute_tensor rX = cute_make_fragment_like(c, tX);
        cute_copy_if(c, &scalar, in, tX, rX); /* stride 0 down the rows: element by element */
        cute_ssa prod =
            cute_ssa_binop(c, CUTE_OP_MUL, va, cute_ssa_cvt(c, cute_tensor_load(c, rX), CUTE_F32));
        cute_tensor_store(c, acc[v],
                          cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc[v]), prod));
    }
}

static void cols_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                        cute_int kchunk, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    gemv_let_dependents_in(c, p);
    gemv_tiles t = gemv_block_tiles(c, p, mA, mX, kchunk);
    gemv_thread th = gemv_thread_start(c, p, &t, true);
    cute_int steps = cute_ceil_div(a, cute_sub(a, t.kend, t.k0), cute_i(p->unroll));
    CUTE_FOR(c, kt, cute_i(0), steps) {
        step_fma(c, p, th.thr, &t, CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), th.acc);
    }
    cute_int m0 = th.first.coord.leaf[0]; /* this thread's first row */
    for (int v = 0; v < p->nvec; v++)
        gemv_finish(c, p, row_sums(c, p, th.acc[v]), m0, v, mY, mW, &t, alpha, beta);
}

void gemv_cols_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    /* a thread per vector of rows */
    gemv_host_args g = gemv_host_unpack(c, arg, (int64_t)p->threads * p->cfg.vec);
    CUTE_LAUNCH(c, cols_kernel, g.launch, g.mA, g.xb, g.mY, g.mW, g.kchunk, g.alpha, g.beta);
    gemv_reduce_launch(c, p, g.mY, g.mW, g.alpha, g.beta);
}
