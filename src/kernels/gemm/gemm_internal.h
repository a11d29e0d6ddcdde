/* Internal: what the GEMM kernels share — the plan a compile traces with, and the pieces
 * every variant's body is made of. */
#ifndef CUTEC_GEMM_INTERNAL_H
#define CUTEC_GEMM_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/kernels.h"

/* When the multi-stage body reads a k-block's fragments from shared memory. */
typedef enum gemm_prefetch {
    GEMM_PREFETCH_ACROSS, /* one k-block ahead, the next k-tile's first during this one's last */
    GEMM_PREFETCH_WITHIN, /* one k-block ahead inside each k-tile */
    GEMM_PREFETCH_NONE,   /* just before its MMAs: ptxas schedules the loads as registers
                             allow (f64's large warp tiles spill with a second set) */
} gemm_prefetch;

/* Everything static about one compiled GEMM: the configuration and the atoms tiled over
 * the block's threads.  The kernel bodies read it through cute_ctx_user. */
typedef struct gemm_plan {
    cute_gemm_config cfg;
    int64_t bm, bn, bk;       /* the block's tile of C and the k-tile */
    int threads;
    cute_tiled_mma mma;       /* who computes which C elements */
    cute_tiled_copy copy_a;   /* global -> registers/shared of an A k-tile (bm, bk) */
    cute_tiled_copy copy_b;   /* likewise B (bn, bk) */
    /* the multi-stage family (steps 3-5, multistage.c) */
    int stages;               /* k-tiles in shared memory: stages - 1 in flight */
    int raster;               /* blocks along N that run next to each other (L2 reuse) */
    cute_composed smem_a, smem_b; /* (bm,bk,stages), (bn,bk,stages), swizzled */
    cute_tiled_copy s2r_a, s2r_b; /* shared -> registers in the MMA's fragments */
    bool smem_epilogue;       /* step 5: C through shared memory, 128-bit stores */
    gemm_prefetch prefetch;   /* when a k-block's fragments are read (multistage.c) */
    unsigned broken;          /* GEMM_BREAK_*: a deliberately wrong kernel, for the tests of
                                 the interpreter's checks; 0 always but there */
    cute_composed smem_c;     /* (bm,bn) of C's dtype, over the A/B stages' memory */
    cute_tiled_copy copy_c;   /* shared -> global of the C tile */
} gemm_plan;

bool gemm_plan_make(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p);

/* Kernels with a synchronization left out, which the interpreter must catch (tests only):
 * the main loop's cp.async wait_group, or its barrier. */
enum { GEMM_BREAK_WAIT = 1, GEMM_BREAK_BARRIER = 2 };
const cute_fn *gemm_compile_broken(cute_runtime *rt, const cute_gemm_config *cfg, unsigned broken,
                                   char *err, size_t n);

/* the host functions of the variants (each launches its kernel) */
void gemm_registers_host(cute_ctx *c, const cute_arg *arg);
void gemm_shared_host(cute_ctx *c, const cute_arg *arg);
void gemm_pipelined_host(cute_ctx *c, const cute_arg *arg);
void gemm_multistage_host(cute_ctx *c, const cute_arg *arg);
/* the plan of the multi-stage family (plan_multistage.c) */
/* arch: the compile target (cute_runtime_target_arch; 0 unknown), which picks the atoms */
bool gemm_plan_multistage(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p);
bool gemm_plan_tensorop(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p,
                        bool smem_epilogue);
/* the global -> shared copy atom for pieces of `bytes` (cp.async where it can) */
cute_copy_atom gemm_g2s_atom(cute_alg *a, cute_dtype d, int bytes);

/* The host function of a variant: identity tensors of the (M,K), (N,K), (M,N) modes for
 * the bounds predicates, then one block per bm x bn tile of C (and per batch index) running
 * `kernel` with (A, B, C, coordinates, alpha, beta). */
#define GEMM_HOST(name, kernel)                                                              \
    void name(cute_ctx *c, const cute_arg *arg)                                              \
    {                                                                                        \
        const gemm_plan *p = cute_ctx_user(c);                                               \
        if (p->cfg.index_bound) cute_index_bound(c, p->cfg.index_bound);                     \
        cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;              \
        cute_tensor cA = cute_make_identity_tensor(c, gemm_matrix_shape(c, mA));             \
        cute_tensor cB = cute_make_identity_tensor(c, gemm_matrix_shape(c, mB));             \
        cute_tensor cC = cute_make_identity_tensor(c, gemm_matrix_shape(c, mC));             \
        CUTE_LAUNCH(c, kernel, gemm_launch_cfg(c, p, mC, 0), mA, mB, mC, cA, cB, cC,         \
                    arg[3].f, arg[4].f);                                                     \
    }

/* the first two modes of an operand's shape (a batched operand's third is L) */
cute_tuple gemm_matrix_shape(cute_ctx *c, cute_tensor t);

/* the launch shared by every variant: one block per bm x bn tile of C and batch index;
 * with p->raster > 1 the grid is (Mtiles * raster, ceil(Ntiles / raster)) (see
 * gemm_block_tiles) */
cute_launch_cfg gemm_launch_cfg(cute_ctx *c, const gemm_plan *p, cute_tensor mC, int64_t smem);

/* This block's tiles: gA (bm,bk,k), gB (bn,bk,k), gC (bm,bn), and the same of coordinate
 * tensors (for the bounds predicates); M, N C's extents, k_tiles the number of k-tiles.
 * inside: the block has a tile (a rasterized grid has a few blocks past the last). */
typedef struct gemm_tiles {
    cute_tensor gA, gB, gC, kA, kB, kC;
    cute_int M, N, k_tiles;
    cute_val inside;
    /* A's (M,K) and B's (N,K), each as its operand gives it: the bounds of its copies, with
     * the divisibility its spec promises (a 16-byte-aligned M-major A has M % 4 == 0, so a
     * vector's four bounds checks are one; C's N need not be) */
    cute_tuple shape_a, shape_b;
} gemm_tiles;

gemm_tiles gemm_block_tiles(cute_ctx *c, const gemm_plan *p, cute_tensor mA, cute_tensor mB,
                            cute_tensor mC, cute_tensor cA, cute_tensor cB, cute_tensor cC);
/* k-tile kt of a (rows,bk,k) tile and its coordinates, partitioned for thread `thr` of a
 * TiledCopy: the source partition, and the predicate "inside the operand's shape" */
cute_tensor gemm_ktile_src(cute_ctx *c, cute_thr_copy thr, cute_tensor g, cute_int kt);
cute_ssa gemm_ktile_pred(cute_ctx *c, cute_thr_copy thr, cute_tensor k, cute_int kt,
                         cute_tuple shape);
/* C = alpha * acc + beta * C on the thread's part of the tile, in bounds only; beta == 0
 * reads no C (BLAS) */
void gemm_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                   cute_tensor acc, cute_val alpha, cute_val beta);
/* the widest access, in bytes, to elements of d the configuration's alignment allows: 16 at
 * most, the element at least */
int gemm_vector_bytes(const cute_gemm_config *cfg, cute_dtype d);
/* the type alpha, beta and the epilogue's arithmetic use: f64 for f64 and for s8 (whose s32
 * results are exact in f64), else f32 */
cute_dtype gemm_scalar_dtype(const cute_gemm_config *cfg);
/* alpha * acc + beta * C (C read where `in` holds, only when beta != 0), in that type,
 * rounded once to C's dtype */
cute_ssa gemm_scale(cute_ctx *c, const gemm_plan *p, cute_ssa acc, cute_val alpha, cute_val beta,
                    cute_tensor C, cute_ssa in);
/* the same through shared memory (step 5): the accumulators, scaled and converted to C's
 * dtype, are stored in the MMA's layout into p->smem_c over `smem` (the A/B stages, done
 * with), then read back by p->copy_c in 128-bit runs of C's unit-stride mode and stored
 * with one predicated 128-bit store each (epilogue_smem.c) */
void gemm_epilogue_smem(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                        cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor smem);

/* the shared tile of operand 0 (A) or 1 (B): (rows, bk, stages), rows contiguous
 * (see smem_layouts.c) */
cute_layout gemm_smem_layout(cute_alg *a, const gemm_plan *p, int operand, int stages);

#endif
