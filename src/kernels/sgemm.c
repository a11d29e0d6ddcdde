/* SGEMM, step 1 of seed 002: a register-tiled kernel written with CuTe's concepts only.
 *   C(M,N) = A(M,K) * B(N,K)^T, every operand column-major ("(?,?):(1,?)"), f32.
 * 256 threads per 128x128 tile of C; the (16,16) atom layout with the (16,4):(4,1)
 * permutations gives each thread a 4x2 by 4x2 grid of C (seed 002's tCgC); each k-tile of 8
 * is copied to registers (vectorized where the layout allows) and multiplied with one FMA
 * per (m, n, k).  Any M, N, K: coordinate tensors partitioned the same way predicate the
 * tails.  C = alpha * A B^T + beta * C. */
#include <string.h>

#include "cutec/atom.h"
#include "cutec/kernels.h"
#include "cutec/notation.h"

/* thread tid's partition of a tile of a coordinate tensor, as a bounds predicate */
static cute_ssa in_bounds(cute_ctx *c, const cute_tiled_mma *mma, cute_mma_operand op, cute_int tid,
                          cute_tensor coords, cute_int e0, cute_int e1)
{
    cute_tensor part = cute_thr_mma_partition(c, mma, op, tid, coords);
    return cute_elem_less(c, part, cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", e0, e1));
}

static void sgemm_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC, cute_tensor cA,
                         cute_tensor cB, cute_tensor cC, cute_val alpha, cute_val beta)
{
    const cute_tiled_mma *mma = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = mC.layout.shape.leaf[0], N = mC.layout.shape.leaf[1], K = mA.layout.shape.leaf[1];
    cute_int tid = cute_thread_idx(c, 0), bm = cute_block_idx(c, 0), bn = cute_block_idx(c, 1);
    cute_tuple cta = cute_tuple_parse(a, "(128,128,8)");
    cute_tuple coord = cute_tuple_fmt(a, "(%I,%I,_)", bm, bn);
    cute_tuple projA = cute_tuple_parse(a, "(1,_,1)"), projB = cute_tuple_parse(a, "(_,1,1)"),
               projC = cute_tuple_parse(a, "(1,1,_)");
    cute_tensor gA = cute_tensor_local_tile(c, mA, cta, coord, &projA);  /* (128,8,k) */
    cute_tensor gB = cute_tensor_local_tile(c, mB, cta, coord, &projB);  /* (128,8,k) */
    cute_tensor gC = cute_tensor_local_tile(c, mC, cta, coord, &projC);  /* (128,128) */
    cute_tensor kA = cute_tensor_local_tile(c, cA, cta, coord, &projA);  /* their coordinates */
    cute_tensor kB = cute_tensor_local_tile(c, cB, cta, coord, &projB);
    cute_tensor kC = cute_tensor_local_tile(c, cC, cta, coord, &projC);
    cute_tensor tCgC = cute_thr_mma_partition(c, mma, CUTE_MMA_C, tid, gC);
    cute_tensor tCrC = cute_mma_make_fragment(c, mma, CUTE_MMA_C, tCgC);
    cute_fill(c, tCrC, 0.0);
    cute_layout k_mode = cute_get(a, &gA.layout, 2);
    CUTE_FOR(c, kt, cute_i(0), cute_size(a, &k_mode)) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%I)", kt);
        cute_tensor tCgA = cute_thr_mma_partition(c, mma, CUTE_MMA_A, tid, cute_tensor_slice(c, gA, at));
        cute_tensor tCgB = cute_thr_mma_partition(c, mma, CUTE_MMA_B, tid, cute_tensor_slice(c, gB, at));
        cute_ssa pA = in_bounds(c, mma, CUTE_MMA_A, tid, cute_tensor_slice(c, kA, at), M, K);
        cute_ssa pB = in_bounds(c, mma, CUTE_MMA_B, tid, cute_tensor_slice(c, kB, at), N, K);
        cute_tensor tCrA = cute_mma_make_fragment(c, mma, CUTE_MMA_A, tCgA);
        cute_tensor tCrB = cute_mma_make_fragment(c, mma, CUTE_MMA_B, tCgB);
        cute_tensor_store(c, tCrA, cute_tensor_load_if(c, tCgA, pA, 0.0)); /* autovec copy */
        cute_tensor_store(c, tCrB, cute_tensor_load_if(c, tCgB, pB, 0.0));
        cute_gemm(c, mma, tCrC, tCrA, tCrB, tCrC);
    }
    /* C = alpha * AB + beta * C, in bounds only */
    cute_ssa pC = in_bounds(c, mma, CUTE_MMA_C, tid, kC, M, N);
    cute_ssa acc = cute_tensor_load(c, tCrC);
    cute_ssa old = cute_tensor_load_if(c, tCgC, pC, 0.0);
    cute_ssa r = cute_ssa_binop(c, CUTE_OP_ADD, cute_ssa_binop(c, CUTE_OP_MUL, acc, cute_ssa_scalar(c, alpha, acc.shape)),
                                cute_ssa_binop(c, CUTE_OP_MUL, old, cute_ssa_scalar(c, beta, acc.shape)));
    cute_tensor_store_if(c, tCgC, r, pC);
}

static void sgemm_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;
    cute_int M = mC.layout.shape.leaf[0], N = mC.layout.shape.leaf[1];
    cute_launch_cfg cfg = {{cute_ceil_div(a, M, cute_i(128)), cute_ceil_div(a, N, cute_i(128))},
                           {cute_i(256)},
                           cute_i(0)};
    cute_tensor cA = cute_make_identity_tensor(c, mA.layout.shape);
    cute_tensor cB = cute_make_identity_tensor(c, mB.layout.shape);
    cute_tensor cC = cute_make_identity_tensor(c, mC.layout.shape);
    CUTE_LAUNCH(c, sgemm_kernel, cfg, mA, mB, mC, cA, cB, cC, arg[3].f, arg[4].f);
}

cute_fn *cute_sgemm_compile(cute_runtime *rt, char *err, size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    static const char *const atoms_text = "(16,16,1):(16,1,0)", *const perm_text = "(16,4):(4,1)";
    cute_mma_atom fma = cute_mma_atom_universal(&a, CUTE_F32);
    cute_layout atoms = cute_layout_parse(&a, atoms_text);
    cute_tiler perm = cute_tiler_parse(&a, perm_text);
    cute_tiled_mma mma = cute_make_tiled_mma(&a, &fma, &atoms, &perm, &perm, NULL);
    if (a.failed) {
        snprintf(err, n, "sgemm: %s", a.error);
        return NULL;
    }
    /* any M, N, K (tails predicated); column-major, 4-byte aligned */
    cute_arg_spec specs[5] = {cute_spec_tensor(CUTE_F32, "(?,?):(1,?)", 4),
                              cute_spec_tensor(CUTE_F32, "(?,?):(1,?)", 4),
                              cute_spec_tensor(CUTE_F32, "(?,?):(1,?)", 4), cute_spec_float(CUTE_F32),
                              cute_spec_float(CUTE_F32)};
    return cute_compile(rt, "sgemm_step1", sgemm_host, &mma, 5, specs, err, n);
}
