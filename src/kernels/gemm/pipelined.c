/* GEMM step 3 (CuTe DSL's ampere/sgemm.py without cp.async): two shared-memory stages and
 * two register fragments.  While the block multiplies k-tile kt out of one stage, each
 * thread's loads of tile kt+1 are already in flight into registers; they are stored into
 * the other stage just before it is needed (one barrier per k-tile), and each k-step's
 * fragments are read from shared memory one step ahead of the FMAs that use them.
 * Past the last tile the copy predicates are all false: no access, zeros, no branch. */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemm/gemm_internal.h"

static cute_tensor at3(cute_ctx *c, cute_tensor t, int64_t kb, cute_int stage)
{
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,%lld,%I)", (long long)kb, stage));
}

static void pipelined_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                             cute_tensor cA, cute_tensor cB, cute_tensor cC, cute_val alpha,
                             cute_val beta)
{
    const gemm_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_dtype d = p->cfg.dtype;
    cute_int tid = cute_thread_idx(c, 0);
    /* two resident blocks (16 warps) per SM hide the shared-memory and barrier latency
     * better than one block with more registers: 38 -> 44 TFLOP/s at 8192^3 on the H200,
     * although ptxas then spills a few loop-invariant scalars (bench/RESULTS.md) */
    cute_kernel_min_blocks(c, 2);
    gemm_tiles t = gemm_block_tiles(c, p, mA, mB, mC, cA, cB, cC);
    cute_smem_allocator smem = cute_smem_allocator_new(c);
    cute_tensor sA = cute_smem_alloc_tensor(c, &smem, d, gemm_smem_layout(a, p, 0, 2), 16); /* (bm,bk,2) */
    cute_tensor sB = cute_smem_alloc_tensor(c, &smem, d, gemm_smem_layout(a, p, 1, 2), 16);
    cute_thr_copy tA = cute_tiled_copy_slice(&p->copy_a, tid), tB = cute_tiled_copy_slice(&p->copy_b, tid);
    cute_tensor tAsA = cute_partition_D(c, tA, sA), tBsB = cute_partition_D(c, tB, sB); /* (CPY,M,K,stage) */
    cute_tuple stage0 = cute_tuple_parse(a, "(_,_,_,0)");
    cute_tensor tArA = cute_make_fragment_like(c, cute_tensor_slice(c, tAsA, stage0));
    cute_tensor tBrB = cute_make_fragment_like(c, cute_tensor_slice(c, tBsB, stage0));
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCsA = cute_partition_A(c, thr, sA), tCsB = cute_partition_B(c, thr, sB); /* (V,M,K,stage) */
    cute_tensor tCrC = cute_partition_fragment_C(c, thr, t.gC);
    cute_tensor rA[2], rB[2]; /* the k-step being multiplied and the next one */
    for (int i = 0; i < 2; i++) {
        rA[i] = cute_make_fragment_like(c, at3(c, tCsA, 0, cute_i(0)));
        rB[i] = cute_make_fragment_like(c, at3(c, tCsB, 0, cute_i(0)));
    }
    cute_layout k_mode = cute_get(a, &tCsA.layout, 2);
    int64_t kbs = cute_size(a, &k_mode).v;
    cute_tuple s0 = cute_tuple_parse(a, "(_,_,_,0)");

    /* prologue: k-tile 0 into stage 0, its first k-step into registers */
    cute_copy_if_whole(c, &p->copy_a.atom, gemm_ktile_pred(c, tA, t.kA, cute_i(0), t.shape_a), gemm_ktile_src(c, tA, t.gA, cute_i(0)), tArA);
    cute_copy_if_whole(c, &p->copy_b.atom, gemm_ktile_pred(c, tB, t.kB, cute_i(0), t.shape_b), gemm_ktile_src(c, tB, t.gB, cute_i(0)), tBrB);
    cute_autovec_copy(c, tArA, cute_tensor_slice(c, tAsA, s0));
    cute_autovec_copy(c, tBrB, cute_tensor_slice(c, tBsB, s0));
    cute_barrier(c);
    cute_autovec_copy(c, at3(c, tCsA, 0, cute_i(0)), rA[0]);
    cute_autovec_copy(c, at3(c, tCsB, 0, cute_i(0)), rB[0]);
    cute_clear(c, tCrC);

    CUTE_FOR(c, kt, cute_i(0), t.k_tiles) {
        cute_int stage = cute_mod(a, kt, cute_i(2)), next = cute_sub(a, cute_i(1), stage);
        cute_int kn = cute_add(a, kt, cute_i(1));
        for (int64_t kb = 0; kb < kbs; kb++) { /* unrolled at trace time */
            if (kb == kbs - 1) { /* tile kt+1 into the other stage; then everyone may read it */
                cute_tuple sn = cute_tuple_fmt(a, "(_,_,_,%I)", next);
                cute_autovec_copy(c, tArA, cute_tensor_slice(c, tAsA, sn));
                cute_autovec_copy(c, tBrB, cute_tensor_slice(c, tBsB, sn));
                cute_barrier(c);
            }
            /* the next k-step's fragments, one step ahead of its FMAs */
            int64_t kb_next = (kb + 1) % kbs;
            cute_int from = kb == kbs - 1 ? next : stage;
            cute_autovec_copy(c, at3(c, tCsA, kb_next, from), rA[(kb + 1) % 2]);
            cute_autovec_copy(c, at3(c, tCsB, kb_next, from), rB[(kb + 1) % 2]);
            if (kb == 0) { /* tile kt+1's global loads, in flight during this tile's FMAs */
                cute_copy_if_whole(c, &p->copy_a.atom, gemm_ktile_pred(c, tA, t.kA, kn, t.shape_a), gemm_ktile_src(c, tA, t.gA, kn), tArA);
                cute_copy_if_whole(c, &p->copy_b.atom, gemm_ktile_pred(c, tB, t.kB, kn, t.shape_b), gemm_ktile_src(c, tB, t.gB, kn), tBrB);
            }
            cute_gemm(c, &p->mma, tCrC, rA[kb % 2], rB[kb % 2], tCrC);
        }
    }
    gemm_epilogue(c, p, tid, &t, tCrC, alpha, beta);
}

GEMM_HOST(gemm_pipelined_host, pipelined_kernel)
