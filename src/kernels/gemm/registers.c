/* GEMM step 1, seed 002: a register-tiled kernel written with CuTe's concepts only.
 * Each k-tile is copied from global memory straight into each thread's MMA fragments
 * (vectorized where the layout allows) and multiplied with one FMA per (m, n, k).  Every
 * global access is predicated by coordinate tensors partitioned like the data, so any
 * M, N, K works; C = alpha A B^T + beta C. */
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

static void registers_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                             cute_tensor cA, cute_tensor cB, cute_tensor cC, cute_val alpha,
                             cute_val beta)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0);
    gemm_tiles t = gemm_block_tiles(c, p, mA, mB, mC, cA, cB, cC);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_copy_atom copy = cute_copy_atom_autovec(a, p->cfg.dtype);
    cute_tensor tCrC = cute_partition_fragment_C(c, thr, t.gC);
    cute_clear(c, tCrC);
    CUTE_FOR(c, kt, cute_i(0), t.k_tiles) {
        cute_tuple at = cute_tuple_fmt(a, "(_,_,%I)", kt);
        cute_tensor tCgA = cute_partition_A(c, thr, cute_tensor_slice(c, t.gA, at));
        cute_tensor tCgB = cute_partition_B(c, thr, cute_tensor_slice(c, t.gB, at));
        cute_tensor tCkA = cute_partition_A(c, thr, cute_tensor_slice(c, t.kA, at));
        cute_tensor tCkB = cute_partition_B(c, thr, cute_tensor_slice(c, t.kB, at));
        cute_ssa pA = cute_elem_less(c, tCkA, t.shape_a);
        cute_ssa pB = cute_elem_less(c, tCkB, t.shape_b);
        cute_tensor tCrA = cute_make_fragment_A(c, &p->mma, tCgA);
        cute_tensor tCrB = cute_make_fragment_B(c, &p->mma, tCgB);
        cute_copy_if(c, &copy, pA, tCgA, tCrA);
        cute_copy_if(c, &copy, pB, tCgB, tCrB);
        cute_gemm(c, &p->mma, tCrC, tCrA, tCrB, tCrC);
    }
    gemm_epilogue(c, p, tid, &t, tCrC, alpha, beta);
}

GEMM_HOST(gemm_registers_host, registers_kernel)
