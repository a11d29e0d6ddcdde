/* SGEMM, step 1 of seed 002: a register-tiled kernel written with CuTe's concepts only.
 *   C(M,N) = A(M,K) * B(N,K)^T, every operand column-major ("(?,?):(1,?)"), f32.
 * 256 threads per 128x128 tile of C; the (16,16) atom layout with the (16,4):(4,1)
 * permutations gives each thread a 4x2 by 4x2 grid of C (seed 002's tCgC); each k-tile of 8
 * is copied to registers (vectorized where the layout allows) and multiplied with one FMA
 * per (m, n, k).  This first step needs M and N multiples of 128 and K of 8 (the spec says
 * so, and cute_call refuses other sizes); predicated tails come with the next steps. */
#include <string.h>

#include "cutec/atom.h"
#include "cutec/kernels.h"
#include "cutec/notation.h"

static void sgemm_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC)
{
    const cute_tiled_mma *mma = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0), bm = cute_block_idx(c, 0), bn = cute_block_idx(c, 1);
    cute_tuple cta = cute_tuple_parse(a, "(128,128,8)");
    cute_tuple coord = cute_tuple_fmt(a, "(%I,%I,_)", bm, bn);
    cute_tuple projA = cute_tuple_parse(a, "(1,_,1)"), projB = cute_tuple_parse(a, "(_,1,1)"),
               projC = cute_tuple_parse(a, "(1,1,_)");
    cute_tensor gA = cute_tensor_local_tile(c, mA, cta, coord, &projA); /* (128,8,k) */
    cute_tensor gB = cute_tensor_local_tile(c, mB, cta, coord, &projB); /* (128,8,k) */
    cute_tensor gC = cute_tensor_local_tile(c, mC, cta, coord, &projC); /* (128,128) */
    cute_tensor tCgC = cute_thr_mma_partition(c, mma, CUTE_MMA_C, tid, gC);
    cute_tensor tCrC = cute_mma_make_fragment(c, mma, CUTE_MMA_C, tCgC);
    cute_fill(c, tCrC, 0.0);
    cute_layout gAl = gA.layout;
    cute_layout k_mode = cute_get(a, &gAl, 2);
    CUTE_FOR(c, kt, cute_i(0), cute_size(a, &k_mode)) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%I)", kt);
        cute_tensor tCgA = cute_thr_mma_partition(c, mma, CUTE_MMA_A, tid, cute_tensor_slice(c, gA, at));
        cute_tensor tCgB = cute_thr_mma_partition(c, mma, CUTE_MMA_B, tid, cute_tensor_slice(c, gB, at));
        cute_tensor tCrA = cute_mma_make_fragment(c, mma, CUTE_MMA_A, tCgA);
        cute_tensor tCrB = cute_mma_make_fragment(c, mma, CUTE_MMA_B, tCgB);
        cute_tensor_store(c, tCrA, cute_tensor_load(c, tCgA)); /* autovec copy */
        cute_tensor_store(c, tCrB, cute_tensor_load(c, tCgB));
        cute_gemm(c, mma, tCrC, tCrA, tCrB, tCrC);
    }
    cute_tensor_store(c, tCgC, cute_tensor_load(c, tCrC));
}

static void sgemm_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;
    cute_int M = mC.layout.shape.leaf[0], N = mC.layout.shape.leaf[1];
    cute_launch_cfg cfg = {{cute_div(a, M, cute_i(128)), cute_div(a, N, cute_i(128))}, {cute_i(256)}, cute_i(0)};
    CUTE_LAUNCH(c, sgemm_kernel, cfg, mA, mB, mC);
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
    /* M, N multiples of 128, K of 8; column-major with leading dimensions multiples of 4
     * (16-byte rows of 4 floats) */
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "(?{div=128},?{div=8}):(1,?{div=4})", 16),
                              cute_spec_tensor(CUTE_F32, "(?{div=128},?{div=8}):(1,?{div=4})", 16),
                              cute_spec_tensor(CUTE_F32, "(?{div=128},?{div=128}):(1,?{div=4})", 16)};
    return cute_compile(rt, "sgemm_step1", sgemm_host, &mma, 3, specs, err, n);
}
