/* Internal: what the GEMM kernels share — the plan a compile traces with, and the pieces
 * every variant's body is made of. */
#ifndef CUTEC_GEMM_INTERNAL_H
#define CUTEC_GEMM_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/cuda_arch.h"
#include "cutec/kernels.h"
#include "cutec/pipeline.h"
#include "cutec/tma_copy.h"
#include "kernels/warp_roles.h"

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
    bool persistent;          /* blocks walking tiles (CUTE_GEMM_SCHEDULE_PERSISTENT): C's tile
                                 then over the last stage or beside the stages, in c_parts parts of N */
    int per_sm;               /* the persistent SM80 kernel's blocks an SM (0 counts as 1) */
    bool dynamic;             /* ... its blocks taking tiles from a counter in the stream-K flags
                                 (CUTEC_GEMM_SM80_PERSISTENT=dynamic; gemm_sm80_dynamic) */
    bool c_last;              /* ... its C tile over the last stage, A's and B's stages interleaved
                                 (plan_multistage.c's persistent_c_tile); else beside them */
    unsigned broken;          /* GEMM_BREAK_*: a deliberately wrong kernel, for the tests of
                                 the interpreter's checks; 0 always but there */
    cute_composed smem_c;     /* (bm,bn) of smem_c_dtype, over the A/B stages' memory */
    cute_dtype smem_c_dtype;  /* the accumulators' where their tile fits over the stages (the
                                 epilogue scales on the way out), else C's (scaled on the way in) */
    cute_tiled_copy copy_c;   /* shared -> global of the C tile */
    /* the Hopper kernel (hopper.c): TMA atoms of A's and B's k-tiles, which its host function
     * makes from the call's tensors (the maps are per call), and its consumer warpgroups */
    cute_tma_atom tma_a, tma_b;
    int64_t box_rows[2];      /* rows of A's / B's stage one TMA box loads (all, or 64: MN-major) */
    int consumers;
    bool pingpong;            /* each consumer warpgroup its own bm x bn tile, main loops and
                                 epilogues taking turns (hopper.c); else both on one tile */
    bool stsm;                /* SM80 step 5 (CUTEC_GEMM_SM80_STSM=1, sm_90, a 16-bit C): where beta is 0,
                                 C's shared tile in C's dtype (smem_c16), the scaled accumulators
                                 written into it by stmatrix (r2s), read back by copy_c16 a 128-byte
                                 line a phase; else smem_c and copy_c as without it */
    cute_composed smem_c16;
    cute_tiled_copy copy_c16;
    bool pdl;                 /* Hopper: launched as a programmatic dependent launch, its threads
                                 waiting for the stream's previous grid after their prologue
                                 (hopper.c; CUTEC_GEMM_PDL) ...; SM80 a block a tile: waiting
                                 first (CUTEC_GEMM_SM80_PDL, plan_multistage.c) */
    bool pdl_early;           /* ... letting the next grid in right after that wait, not after
                                 the producer's last loads (CUTEC_GEMM_PDL=early) */
    bool diag_nostore;        /* SM80 step 5, a diagnostic (CUTEC_GEMM_SM80_DIAG=nostore): a
                                 thread's first run of C stored, no other (epilogue_smem.c) */
    bool warp_release;        /* Hopper without clusters: lane 0 of each consumer warp releases a
                                 stage, not every thread (CuTe DSL's; CUTEC_GEMM_HOPPER_RELEASE) */
    bool streamk;             /* Hopper: cooperative, the last waves in runs of k-tiles (streamk.c);
                                 SM80 (multistage.c): every tile in the runs */
    int streamk_per_sm;       /* ... the SM80 kernel's blocks an SM (1 or 2: registers, shared memory) */
    int c_parts;              /* C's shared tile is (bm, bn / c_parts): the epilogue's parts of N
                                 (0 counts as 1) */
    int sms;                  /* persistent kernels: the blocks resident at once (the device's
                                 SMs), each walking the tiles */
    int cluster_m, cluster_n; /* the Hopper kernel's clusters: blocks along M (sharing B, which
                                 TMA multicasts) and along N (sharing A) */
    /* the Hopper kernel's TMA-store epilogue (hopper_store.c) */
    bool tma_store;           /* C leaves by stmatrix into buffers and TMA stores */
    int store_stages;         /* buffers a consumer warpgroup cycles through */
    cute_composed smem_store; /* (64, 64, store_stages * consumers), swizzled as TMA writes */
    cute_tiled_mma epi_mma;   /* one warpgroup's 64 x 64 wgmma: a 64-column piece of C's fragment */
    cute_tiled_copy r2s;      /* stmatrix of epi_mma's C into a buffer (SM80 step 5's stsm: of mma's
                               * C into smem_c16) */
    cute_tma_atom tma_c;      /* the store of one buffer, made by the host function */
    cute_tma_atom tma_m;      /* the same into the mirror (cfg.peer_mirror) */
    /* the Blackwell kernel (blackwell.c) */
    cute_mma_atom umma;       /* SM100_MMA_F16BF16_SS of bm x bn: one thread issues it (the CTA
                                 pair's SM100_MMA_F16BF16_2x1SM_SS of 2 bm x bn) */
    bool cta_pair;            /* on the CTA pair (cta_group::2; clusters of 2 along M): each block
                                 stages its bm rows of A and bn / 2 rows of B */
    int tmem_columns;         /* its accumulator stages' tensor memory */
    int sf_atoms;             /* block-scaled (NVFP4 4, MXFP8 1; else 0): a k-tile's SfKMajorAtoms of
                                 each operand's 128-row tile (GEMM_BW_SF_ATOM bytes, 4 columns each) */
    cute_tma_atom tma_sfa, tma_sfb; /* ... which TMA loads (the CTA pair's: LOAD_2SM), made by the host
                                       function from the scales' arguments (gemm_bw_sf_arg) */
} gemm_plan;

bool gemm_plan_make(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p);
/* the rows of B's tile one block stages: bn, or half of it on the Blackwell CTA pair */
static inline int64_t gemm_block_b_rows(const gemm_plan *p) { return p->cta_pair ? p->bn / 2 : p->bn; }

/* Kernels with a synchronization left out, which the interpreter must catch (tests only):
 * the main loop's cp.async wait_group, or its barrier. */
enum { GEMM_BREAK_WAIT = 1, GEMM_BREAK_BARRIER = 2 };
/* ... and the Hopper kernel's pipeline broken: the producer expects too few transaction
 * bytes, the consumers wait for the wrong phase, never release a stage, or read a stage
 * (their first wgmma) before waiting for it */
enum { GEMM_BREAK_EXPECT_TX = 4, GEMM_BREAK_PHASE = 8, GEMM_BREAK_RELEASE = 16, GEMM_BREAK_EARLY_READ = 32 };
/* ... and its TMA-store epilogue broken: a buffer written again before the store that
 * reads it has read it (no PipelineTmaStore acquire), stmatrix's writes not fenced for the
 * async proxy, the store issued before the warpgroups met (no barrier) */
enum { GEMM_BREAK_STORE_ACQUIRE = 64, GEMM_BREAK_STORE_FENCE = 128, GEMM_BREAK_STORE_BARRIER = 256 };
/* ... and the grouped kernel's producer retargeting its maps without the release fence */
enum { GEMM_BREAK_MAP_FENCE = 512 };
/* ... and the Blackwell kernel's: the MMA thread never commits the accumulator (the epilogue
 * waits for it forever), the tensor memory never freed, the epilogue's T2R reading the
 * accumulator before waiting for its barrier */
enum { GEMM_BREAK_ACC_COMMIT = 1024, GEMM_BREAK_TMEM_FREE = 2048, GEMM_BREAK_ACC_WAIT = 4096 };
/* ... and the ping-pong consumers: a warpgroup that never passes the MMA turn */
enum { GEMM_BREAK_TURN = 8192 };
/* ... and the SM80 persistent kernel's C tile over the stages (as a block per tile has it),
 * where the next tile's first k-tiles land during the epilogue */
enum { GEMM_BREAK_C_OVER_STAGES = 16384 };
/* stream-K's fixup: the piece that ends a tile does not wait for the flags of the partials
 * it adds (nor lowers them after), or adds none */
enum { GEMM_BREAK_FIXUP_WAIT = 32768, GEMM_BREAK_FIXUP_ADD = 65536 };
const cute_fn *gemm_compile_broken(cute_runtime *rt, const cute_gemm_config *cfg, unsigned broken,
                                   char *err, size_t n);
const cute_fn *gemm_grouped_compile_broken(cute_runtime *rt, const cute_gemm_config *cfg, unsigned broken,
                                           char *err, size_t n);

/* operand x (A, B or C: which) as a TMA kernel wants it: a 2-D tensor of dtype d, unit stride
 * in mode `major`, 16-byte aligned pointer, leading dimension and unit-stride extent, inside
 * its buffer (grouped_call.c); else CUTE_ERR_INVALID with the mistake named */
cute_status gemm_tma_operand_ok(const cute_call_arg *x, char which, cute_dtype d, int major, char *err, size_t n);
/* the library's kernel for cfg (compiled once, lib.c's table) and its runtime */
const cute_fn *gemm_lib_fn(cute_gemm_lib *lib, const cute_gemm_config *cfg, cute_runtime **rt, char *err, size_t n);
/* the library's kernel for cfg's pattern and args (A, B, C first: their layouts complete
 * cfg), compiled at its first use (lib.c); NULL with *status and err where none runs */
const cute_fn *gemm_lib_pattern_fn(cute_gemm_lib *lib, cute_gemm_variant variant, cute_gemm_config *cfg,
                                   cute_call_arg *args, char *err, size_t n, cute_status *status);
/* the library's grouped kernel for cfg (compiled once; grouped_call.c), and its runtime */
const cute_fn *gemm_lib_grouped(cute_gemm_lib *lib, const cute_gemm_config *cfg, cute_runtime **rt, char *err,
                                size_t n);
/* the argument spec of operand i (0 A, 1 B, 2 C) of a configuration: its dtype, the
 * alignment and majors it promises (text: the layout's notation, n bytes) */
cute_arg_spec gemm_operand_spec(const cute_gemm_config *cfg, int i, char *text, size_t n);

/* the host functions of the variants (each launches its kernel) */
void gemm_registers_host(cute_ctx *c, const cute_arg *arg);
void gemm_shared_host(cute_ctx *c, const cute_arg *arg);
void gemm_pipelined_host(cute_ctx *c, const cute_arg *arg);
void gemm_multistage_host(cute_ctx *c, const cute_arg *arg);
void gemm_hopper_host(cute_ctx *c, const cute_arg *arg);
/* the plan of the Hopper kernel (hopper_plan.c); false with the reason in a's error when the
 * configuration is not one it takes */
bool gemm_plan_hopper(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p);
/* the Hopper kernel's tiling for a call of (M, N, K) where the caller set none (hopper_auto.c) */
cute_gemm_tiling gemm_hopper_auto_tiling(const cute_gemm_config *cfg, const int64_t mnk[3]);
/* M from CUTE_GEMM_FEW_ROWS_FROM rows of A to 128 (N past 128), or N from
 * CUTE_GEMM_FEW_COLUMNS_FROM columns of B to 128 (M past 128), 16-bit: AUTO runs the Hopper
 * kernel in tiles of 64 or 128 rows by 64 (or 64 rows by 16 to 128) on sm_90, not the GEMV
 * kernels (hopper_auto.c's figures), where
 * every operand is as its TMA takes it (rank 2, 16-byte aligned) */
#define CUTE_GEMM_FEW_ROWS_FROM 32
#define CUTE_GEMM_FEW_COLUMNS_FROM 8
bool gemm_few_rows_to_hopper(cute_runtime *rt, const cute_call_arg *A, const cute_call_arg *B,
                             const cute_call_arg *C);
/* An operand's TMA stages (rows, bk, stages) from CuTe's 128-byte GMMA swizzle atoms, and the
 * rows one TMA box of them loads (hopper_plan.c; the Blackwell kernel's too) */
cute_composed gemm_tma_stages(cute_alg *a, cute_dtype d, int major, int64_t rows, int64_t bk, int stages,
                              int64_t *box_rows);
/* the Blackwell kernel (blackwell_plan.c, blackwell.c): its plan, false with the reason in
 * a's error, and its host function */
bool gemm_plan_blackwell(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p);
/* the block-scaled inputs of the Blackwell kernel: NVFP4 (e2m1, a ue4m3 scale per 16 of K), MXFP4
 * (e2m1, ue8m0 per 32) and MXFP8 (e4m3, ue8m0 per 32); the scales of a k-tile of one 128-row tile are p->sf_atoms
 * SfKMajorAtoms of 512 bytes (128 rows x 4 scales), each 4 columns of tensor memory */
enum { GEMM_BW_SF_ATOM = 512 };
static inline bool gemm_bw_nvfp4(const cute_gemm_config *cfg) { return cfg->dtype == CUTE_E2M1 && !cfg->mx_scales; }
static inline bool gemm_bw_mxfp4(const cute_gemm_config *cfg) { return cfg->dtype == CUTE_E2M1 && cfg->mx_scales; }
static inline bool gemm_bw_mxfp8(const cute_gemm_config *cfg)
{
    return cfg->dtype == CUTE_E4M3 && cfg->variant == CUTE_GEMM_BLACKWELL;
}
/* "NVFP4", "MXFP4", "MXFP8" (NULL: not block-scaled) */
static inline const char *gemm_bw_scaled_name(const cute_gemm_config *cfg)
{
    return gemm_bw_nvfp4(cfg) ? "NVFP4" : gemm_bw_mxfp4(cfg) ? "MXFP4" : gemm_bw_mxfp8(cfg) ? "MXFP8" : NULL;
}
void gemm_blackwell_host(cute_ctx *c, const cute_arg *arg);
/* The compiled block-scaled GEMM's SFA / SFB arguments: a unit-stride rank-1 scale buffer sf (CuTe's
 * layout of a (rows, K) operand, cute_gemv_sf_count) as the kernel's TMA maps it, its bytes
 * (256, 2, K / (4 vec) atoms, rows / 128 atoms):(1, 256, 512, 512 atoms) (both counts rounded up):
 * each SfKMajorAtom two rows of 256 bytes, K's atoms contiguous */
cute_call_arg gemm_bw_sf_arg(const cute_call_arg *sf, int64_t rows, int64_t K, int vec);
/* the tiling a caller set on the library (cute_gemm_lib_tiling; zero: none) */
cute_gemm_tiling gemm_lib_caller_tiling(cute_gemm_lib *lib);
#define GEMM_BW_SF_SPEC "(256,2,?,?):(1,256,512,?)"
/* the plan of the multi-stage family (plan_multistage.c) */
/* arch: the compile target (cute_runtime_target_arch; 0 unknown), which picks the atoms */
bool gemm_plan_multistage(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p);
bool gemm_plan_tensorop(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p,
                        bool smem_epilogue);
/* the shared memory of the tensor-core kernels' default stages for dtype d on sm_<arch> (0
 * unknown), their tiling's own (256 x 128 in 3 stages: 144 KB); 0 where d has none there */
int64_t gemm_tensorop_default_smem(cute_dtype d, int arch);
/* C's tile (bm, cols) in shared memory, p->smem_c (swizzled like the operands: 16-byte
 * chunks of 8 lines apart), and p->copy_c, which `threads` threads read it back with in
 * 16-byte runs of C's unit-stride mode (plan_multistage.c) */
void gemm_plan_c_tile(cute_alg *a, gemm_plan *p, int threads, int64_t cols);
/* the global -> shared copy atom for pieces of `bytes` (cp.async where it can) */
cute_copy_atom gemm_g2s_atom(cute_alg *a, cute_dtype d, int bytes);

/* The host function of a variant: identity tensors of the (M,K), (N,K), (M,N) modes for
 * the bounds predicates, then one block per bm x bn tile of C (and per batch index) running
 * `kernel` with (A, B, C, coordinates, alpha, beta).  GEMM_HOST_LAUNCH: the grid from
 * `launch`, an expression of c, p (the plan) and mC. */
#define GEMM_HOST_LAUNCH(name, kernel, launch)                                               \
    void name(cute_ctx *c, const cute_arg *arg)                                              \
    {                                                                                        \
        const gemm_plan *p = cute_ctx_user(c);                                               \
        if (p->cfg.index_bound) cute_index_bound(c, p->cfg.index_bound);                     \
        cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;              \
        cute_tensor cA = cute_make_identity_tensor(c, gemm_matrix_shape(c, mA));             \
        cute_tensor cB = cute_make_identity_tensor(c, gemm_matrix_shape(c, mB));             \
        cute_tensor cC = cute_make_identity_tensor(c, gemm_matrix_shape(c, mC));             \
        CUTE_LAUNCH(c, kernel, launch, mA, mB, mC, cA, cB, cC, arg[3].f, arg[4].f);          \
    }
#define GEMM_HOST(name, kernel) GEMM_HOST_LAUNCH(name, kernel, gemm_launch_cfg(c, p, mC, 0))

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
/* the Hopper kernel's epilogue (hopper_epilogue.c): tid the thread's index among the
 * consumers, sC C's shared tile when p->smem_epilogue */
void gemm_hopper_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_tensor acc,
                          cute_val alpha, cute_val beta, cute_tensor sC);
/* Fused epilogues (epilogue.c): x after alpha and beta (f32) -> bias, act, the caller's fn
 * (v: the vector broadcast over x's shape); whether e's fields are in range (else the
 * reason); the kernel-name tag of e ("" for none) */
cute_ssa gemm_epilogue_apply(cute_ctx *c, const cute_gemm_epilogue *e, cute_ssa x, cute_ssa v);
cute_ssa gemm_epilogue_silu(cute_ctx *c, cute_ssa x); /* x sigmoid(x), on tanh.approx */
bool gemm_epilogue_valid(const cute_gemm_epilogue *e, char *err, size_t n);
void gemm_epilogue_tag(const cute_gemm_epilogue *e, char *out, size_t n);
/* The TMA-store epilogue (hopper_store.c).  In the plan: whether it takes the configuration
 * (a 16-bit C, bn whole 64-column blocks, c_store not ST), the shared memory its buffers
 * take, and its atoms (false with the reason in a's error).  In the host function: the store
 * atoms of C (p->tma_c) and of the mirror (p->tma_m, cfg.peer_mirror).  In the kernel: the
 * epilogue of one tile (sC the buffers, maps[0] C's store map and maps[1] the mirror's, mV
 * the fused epilogue's vector, cl C's loads, early: whether this tile's first group was
 * prefetched), and, after the last tile, the wait for the stores still running.
 * C under beta comes through the buffers by TMA wherever the kernel has the TMA store
 * (p->tma_store): its mbarriers are made by store_barriers before the pipeline's (whose
 * block barrier follows their init), a consumer thread's gemm_c_loads by store_loads before
 * its tiles (a phase variable: none without the TMA store), and prefetch loads a tile's
 * first group under its main loop, before its epilogue (stream-K's split tiles: at it). */
typedef struct gemm_c_loads {
    cute_tensor bars; /* the mbarriers, one a warpgroup */
    cute_val phase;   /* u32 variable: the parity the thread waits for next */
} gemm_c_loads;
/* fp8's scales in the Hopper kernel (hopper_scales.c): the call's f32 tensors and what a
 * consumer read of them.  begin: at the consumer's start, alpha with the per-tensor scales
 * folded in, the output scale read, amax's running maximum made; out: on x (f32, after the
 * fused epilogue; its elements at kC in C's extent MN, *inside: whether all of them lie
 * inside C, with amax) amax raised, then the output scale (s NULL:
 * x); end: after the last tile, amax raised by the thread's warp */
typedef struct gemm_scales {
    cute_tensor sa, sb, out, amax;
    cute_val out_scale; /* with cfg.out_scale */
    cute_val amax_bits; /* with cfg.amax: the thread's largest |x| as f32 bits (a variable) */
} gemm_scales;
/* a call's scale tensors against its A (M,K) and B (N,K): CUTE_ERR_INVALID naming the
 * problem (scales_check.c) */
cute_status gemm_scales_check(const cute_gemm_scales *s, const cute_call_arg *A, const cute_call_arg *B, char *err,
                              size_t n);
cute_val gemm_scales_begin(cute_ctx *c, const gemm_plan *p, gemm_scales *s, cute_val alpha);
cute_ssa gemm_scales_out(cute_ctx *c, const gemm_plan *p, const gemm_scales *s, cute_ssa x, cute_tensor kC,
                         cute_tuple MN, const cute_val *inside);
void gemm_scales_end(cute_ctx *c, const gemm_plan *p, const gemm_scales *s);
bool gemm_hopper_store_takes(const gemm_plan *p);
int64_t gemm_hopper_store_bytes(const gemm_plan *p);
bool gemm_hopper_store_plan(cute_alg *a, gemm_plan *p);
void gemm_hopper_store_atom(cute_ctx *c, gemm_plan *p, cute_tensor mC, cute_tensor mirror);
void gemm_hopper_store_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                                cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sC, const cute_val maps[2],
                                cute_tensor mV, const gemm_scales *sc, const gemm_c_loads *cl, bool early);
/* the thread's warpgroup as a value uniform across its warp (hopper.c) */
cute_val gemm_hopper_warpgroup(cute_ctx *c, cute_int tid);
cute_tensor gemm_hopper_store_barriers(cute_ctx *c, cute_smem_allocator *al, const gemm_plan *p);
gemm_c_loads gemm_hopper_store_loads(cute_ctx *c, const gemm_plan *p, cute_tensor bars);
void gemm_hopper_store_prefetch(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_val beta,
                                cute_val mapC, cute_tensor sC, const gemm_c_loads *cl);
void gemm_hopper_store_drain(cute_ctx *c, const gemm_plan *p, cute_int tid);
/* The Hopper kernel's pieces (hopper.c), which the grouped GEMM (hopper_grouped.c) shares:
 * the stages, C's tile and the pipeline in shared memory; the TMA atoms of A's and B's
 * k-tiles (the host function's, from tensors of the call); the producer's loads of one
 * k-tile into the next stage through maps mapA/mapB (parameters, or copies in global
 * memory), to[2] A's and B's copy options (multicast; the barrier set here); a consumer's
 * fragments and one tile's main loop. */
/* The Hopper kernel's flags between GPUs (cfg.peer_flags; hopper_peer.c): the producer
 * waits for tile (tm, tn)'s flag before its loads; the consumers (tid: the thread's index
 * among them) signal a tile's flag (gemm_peer_signal_flag, its address taken before a main
 * loop, where registers are free), when `when`, once the stores they issued for the tile
 * have landed: after the next tile's main loop, or after the drain.  A value of 0: no wait,
 * no signal.  The cooperative schedule only. */
typedef struct gemm_peer {
    cute_tensor wait, signal; /* u32 (ceil(M/64), ceil(N/64)) */
    cute_int wait_value, signal_value;
} gemm_peer;
void gemm_peer_wait(cute_ctx *c, const gemm_plan *p, const gemm_peer *f, cute_int tm, cute_int tn);
/* the host function's mirror of C: the call's argument 9 with cfg.peer_mirror (refused
 * without the TMA-store epilogue, which stores it), else C */
cute_tensor gemm_peer_mirror(cute_ctx *c, const gemm_plan *p, const cute_arg *arg);
cute_tensor gemm_peer_signal_flag(cute_ctx *c, const gemm_plan *p, const gemm_peer *f, cute_int tm, cute_int tn);
void gemm_peer_signal(cute_ctx *c, const gemm_plan *p, const gemm_peer *f, cute_int tid, cute_val when, cute_tensor flag);

typedef struct gemm_hopper_smem {
    cute_tensor sA, sB; /* (bm, bk, stages), (bn, bk, stages) */
    cute_tensor sC;     /* (bm, bn / c_parts), of its own (p->smem_epilogue) */
    cute_tensor ring;   /* block scales staged (gemm_blockscale_staged): (thread, value, slot) f32 */
    cute_tensor c_bars; /* the TMA-store epilogue's mbarriers for C's loads (with p->tma_store) */
    cute_pipeline pipe;
} gemm_hopper_smem;
typedef struct gemm_hopper_frag {
    cute_tensor tCsA, tCsB, acc; /* wgmma views of the stages (MMA, M, K, stages); accumulators */
} gemm_hopper_frag;
gemm_hopper_smem gemm_hopper_shared_memory(cute_ctx *c, const gemm_plan *p);
/* the kernel's roles (kernels/warp_roles.h) with the GEMM's registers: the producer gives
 * its own away (setmaxnreg 40), the consumers take 232 */
void gemm_hopper_roles(cute_ctx *c, kernel_warp_role *producer, kernel_warp_role *consumer, void *user);
void gemm_hopper_atoms(cute_ctx *c, gemm_plan *p, cute_tensor mA, cute_tensor mB);
/* the dual GEMM's B1: B0's box and swizzle over B1's own tensor (its own map) */
cute_tma_atom gemm_hopper_b1_atom(cute_ctx *c, const gemm_plan *p, cute_tensor mB1);
void gemm_hopper_load_ktile(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s,
                            cute_val mapA, const cute_val *mapB, const gemm_tiles *t, cute_int kt, cute_tma_copy_opts *to);
/* the same up to the stage's commit: acquired and loading, the stage's full barrier returned
 * (for more copies into the stage: the Blackwell NVFP4 kernel's scale factors) */
cute_val gemm_hopper_load_ab(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s,
                             cute_val mapA, const cute_val *mapB, const gemm_tiles *t, cute_int kt, cute_tma_copy_opts *to);
void gemm_hopper_mainloop(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, const gemm_tiles *t,
                          cute_pipeline_state *read, cute_pipeline_state *done, const gemm_hopper_frag *f);
/* ... in two parts: every k-tile's wgmma batch issued (the last still running), then the
 * wait for it and the release of its stage */
void gemm_hopper_mainloop_issue(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, const gemm_tiles *t,
                                cute_pipeline_state *read, cute_pipeline_state *done, const gemm_hopper_frag *f);
void gemm_hopper_mainloop_tail(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *done);
/* the stage of a consumer's wgmma view (MMA, M, K, stages) the state points at, and the
 * release of the stage `s` points at (then advanced) */
cute_tensor gemm_hopper_stage(cute_ctx *c, cute_tensor t, const cute_pipeline_state *s);
void gemm_hopper_release(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m, cute_pipeline_state *s);
/* the main loop with fp8 block scales (hopper_blockscale.c): each k-tile's product in
 * accumulators of its own, promoted into f->acc with its scales (s: sa, sb) */
/* whether its block scales go through shared memory (CUTE_GEMM_SCALE_MUL_STAGED, the default
 * for tiles of up to 128 rows), and the bytes of that ring, allocated by
 * gemm_blockscale_ring (0 bytes, an empty tensor, where they do not) */
bool gemm_blockscale_staged(const gemm_plan *p);
/* the consumers' registers where the block-scaled loop takes 240 (opt-in), else 0 */
int gemm_blockscale_consumer_regs(cute_alg *a, const gemm_plan *p);
int64_t gemm_blockscale_ring_bytes(const gemm_plan *p);
cute_tensor gemm_blockscale_ring(cute_ctx *c, cute_smem_allocator *al, const gemm_plan *p);
void gemm_hopper_mainloop_blockscaled(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m,
                                      const gemm_tiles *t, cute_pipeline_state *read, cute_pipeline_state *done,
                                      const gemm_hopper_frag *f, cute_int tid, const gemm_scales *s);
/* the same for tile (tm, tn) of C (a persistent kernel's, from its tile scheduler) */
gemm_tiles gemm_tiles_at(cute_ctx *c, const gemm_plan *p, cute_tensor mA, cute_tensor mB, cute_tensor mC,
                         cute_tensor cA, cute_tensor cB, cute_tensor cC, cute_int tm, cute_int tn);
/* The persistent tile scheduler (tile_sched.c): at most p->sms blocks, each walking tiles
 * grid apart of a grouped raster order (bands of `raster` N-tiles walked down M). */
typedef struct gemm_sched {
    cute_int tiles_m, tiles_n; /* C's tiles */
    cute_int count;            /* ... in clusters' tiles (cluster_m x cluster_n of them) */
    int raster;                /* in clusters' tiles */
    int cluster_m, cluster_n;
} gemm_sched;
gemm_sched gemm_sched_make(cute_ctx *c, const gemm_plan *p, cute_tensor mC, int raster);
cute_launch_cfg gemm_sched_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s);
/* Whether cfg's persistent SM80 kernel takes its tiles from a counter, the library passing it
 * stream-K's workspace and flags (CUTEC_GEMM_SM80_PERSISTENT=static|dynamic: unbatched): 1 or 0, -1 with the setting's error in err for a value outside the set */
int gemm_sm80_dynamic(const cute_gemm_config *cfg, char *err, size_t n);
/* in the kernel: how many tiles this block takes, and its w-th tile (tm, tn) */
cute_int gemm_sched_mine(cute_ctx *c, const gemm_sched *s);
void gemm_sched_tile(cute_ctx *c, const gemm_sched *s, cute_int w, cute_int *tm, cute_int *tn);
/* ... that of place idx of the order (its cluster's place; the block's in it) */
void gemm_sched_tile_at(cute_ctx *c, const gemm_sched *s, cute_int idx, cute_int *tm, cute_int *tn);

/* Stream-K (streamk.c; CUTE_GEMM_SCHEDULE_STREAMK, clusters of 1x1): of T tiles of K k-tiles
 * on G blocks, the whole waves but the last full one are data-parallel (each tile whole, the
 * scheduler's order); the rest, the last partial wave and the full wave before it (all of
 * them where T < G), are split into G equal runs of k-tiles, block b's run the b-th.  A
 * block's work: its data-parallel tiles, then the pieces of its run, one a tile it touches,
 * the last tile's first.  A piece that ends before its tile's last k-tile leaves its partial
 * sums in the block's workspace slot and raises its flag; the piece that ends the tile (the
 * highest block touching it) waits for the flags of the blocks below it from `first` on, adds
 * their partials in block order (deterministic), and runs the epilogue. */
typedef struct gemm_streamk {
    cute_int dp, iters, k_tiles, units; /* data-parallel tiles, k-tiles of the runs, K, G */
    cute_int dp_mine, g0, g1, items;    /* the block's data-parallel tiles, run, work items */
} gemm_streamk;
typedef struct gemm_work {
    cute_int tile;   /* place in the scheduler's order */
    cute_int k0, k1; /* the k-tiles [k0, k1) */
    cute_int first;  /* the lowest block with a piece of the tile (this block: no partials) */
    cute_val partial; /* k1 < K: the partial sums go to the workspace */
} gemm_work;
gemm_streamk gemm_streamk_make(cute_ctx *c, const gemm_sched *s, cute_int k_tiles);
/* ... or, the SM80 kernel's (multistage.c), every tile in the runs, on a grid of at most one
 * block a tile (gemm_streamk_all_launch_cfg): plain stream-K, each block one contiguous run
 * of (tile, k-tile) iterations, so the blocks' epilogues fall at different moments */
gemm_streamk gemm_streamk_make_all(cute_ctx *c, const gemm_sched *s, cute_int k_tiles);
cute_launch_cfg gemm_streamk_all_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s);
gemm_work gemm_streamk_work(cute_ctx *c, const gemm_streamk *k, cute_int i);
/* the grid: as many blocks as fit, at most the k-tiles of all tiles */
cute_launch_cfg gemm_streamk_launch_cfg(cute_ctx *c, const gemm_plan *p, const gemm_sched *s, cute_int k_tiles);
/* The fixup (streamk_fixup.c), by the cooperative consumers (tid among them): the workspace
 * ws (f32, a slot of bm x bn a block, each thread's accumulators in 16-byte runs) and flags
 * (u32, one a block, 0 between kernels) */
void gemm_streamk_store_partial(cute_ctx *c, const gemm_plan *p, cute_tensor ws, cute_tensor flags, cute_int tid,
                                cute_tensor acc);
/* the accumulators at an item's start: zeros, or (first below this block) the partial of the
 * block below, once its flag is up */
void gemm_streamk_start_from_partial(cute_ctx *c, const gemm_plan *p, cute_tensor ws, cute_tensor flags, cute_int tid,
                                     cute_tensor acc, cute_int first);
/* a stream's workspace in the library (lib.c) */
typedef struct gemm_streamk_ws {
    void *stream;
    cute_buffer buf;
    size_t bytes;
} gemm_streamk_ws;
/* the workspace's bytes for a plan of tiling t (the slots of `blocks` blocks, then their flags) */
size_t gemm_streamk_workspace_bytes(const cute_gemm_tiling *t, int blocks, size_t *flags_offset);
/* ... of slots of slot_elems accumulators of elem_bytes each */
size_t gemm_streamk_workspace_of(int64_t slot_elems, int elem_bytes, int blocks, size_t *flags_offset);
/* the SM80 kernel's accumulators (its workspace's dtype) for inputs of dtype in: s32 for 8-bit
 * integers (exact), f64 for f64, else f32 */
cute_dtype gemm_streamk_acc_dtype(cute_dtype in);
/* the SM80 kernel's workspace as its argument: rows of 1024 accumulators, so that every
 * dynamic extent stays within the 32-bit index bound (a 1-D one of 264 slots of 128 x 128
 * would not) */
#define GEMM_STREAMK_SM80_ROW 1024
#define GEMM_STREAMK_SM80_WS "(1024,?):(1,1024)"
/* the blocks a persistent kernel of `threads`-thread blocks, one an SM, in clusters of
 * cluster_size, fills on rt's device: the SMs, or the blocks of the clusters that can be
 * resident at once (resident.c); 2 clusters' worth on the interpreter (blocks then walk
 * several tiles there too) */
int gemm_resident_blocks(cute_runtime *rt, int cluster_size, int threads);

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
/* the type gemm_scale computes in for C of dtype C (s32 for an s32 C, else the scalar
 * type), alpha and beta converted to it: converted once, before a loop of gemm_scale calls,
 * they are not converted again in every iteration */
cute_dtype gemm_scale_scalars(cute_ctx *c, const gemm_plan *p, cute_dtype C, cute_val *alpha, cute_val *beta);
/* alpha * acc + beta * C (C read where `in` holds, only when beta != 0), in that type,
 * rounded once to C's dtype */
cute_ssa gemm_scale(cute_ctx *c, const gemm_plan *p, cute_ssa acc, cute_val alpha, cute_val beta,
                    cute_tensor C, cute_ssa in);
/* the same through shared memory (step 5): the accumulators are stored in the MMA's layout
 * into p->smem_c `smem` (over the A/B stages, done with, or beside them in the persistent
 * kernel), as they are or (a tile too large for that) scaled and rounded to C's dtype, then
 * read back by p->copy_c in runs of C's unit-stride mode, scaled if not yet, and stored with
 * one predicated 128-bit store each, one run per iteration of a dynamic loop; in p->c_parts
 * parts of N where the tile holds one; with p->stsm and beta 0 through smem16, p->smem_c16
 * over the same memory, instead (epilogue_smem.c) */
void gemm_epilogue_smem(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                        cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor smem, cute_tensor smem16);
/* C's shared tile of one part, (bm, bn / p->c_parts), seen as the whole (bm, bn) tile with
 * every part on top of the first: what the MMA partitions (epilogue_smem.c) */
cute_tensor gemm_c_parts_on_top(cute_ctx *c, const gemm_plan *p, cute_tensor sC);

/* the shared tile of operand 0 (A) or 1 (B): (rows, bk, stages), rows contiguous
 * (see smem_layouts.c) */
cute_layout gemm_smem_layout(cute_alg *a, const gemm_plan *p, int operand, int stages);

/* The grouped GEMM's walk (hopper_grouped.c), shared by the Hopper and Blackwell kernels:
 * the groups' device rows, the blocks' map copies, their count; a role's cursor (the group of
 * the last tile asked for, its first tile in the sequence, its tile count: mutable values,
 * made where the role runs); tile w of this block's share (gemm_group_mine of them); the TMA
 * producer, retargeting its maps as the groups change. */
typedef struct gemm_groups {
    cute_tensor rows; /* (CUTE_GEMM_GROUP_WORDS, groups) int64 */
    cute_tensor ws;   /* the blocks' map copies, bytes */
    cute_int groups;
} gemm_groups;
typedef struct gemm_group_cursor {
    cute_val grp, first, count;
} gemm_group_cursor;
gemm_group_cursor gemm_group_cursor_make(cute_ctx *c, const gemm_plan *p, const gemm_groups *g);
gemm_tiles gemm_group_tile(cute_ctx *c, const gemm_plan *p, const gemm_groups *g, gemm_group_cursor *k, cute_int w);
cute_int gemm_group_mine(cute_ctx *c, const gemm_plan *p, const gemm_groups *g);
void gemm_group_producer(cute_ctx *c, const gemm_plan *p, const gemm_groups *g, const gemm_hopper_smem *m,
                         cute_val mapA, cute_val mapB);
/* the Blackwell form of the grouped kernel (blackwell.c): (C0, rows, ws, alpha, beta, groups)
 * on the plan of gemm_plan_blackwell, the maps made from group 0's A and B */
void gemm_blackwell_grouped_launch(cute_ctx *c, const gemm_plan *p, cute_launch_cfg cfg, const cute_arg *arg);

/* the plan of C's tiles: p's, but bn / 2 for the dual GEMM (A B0^T beside A B1^T) */
gemm_plan gemm_blackwell_tiles(const gemm_plan *p);
/* The Blackwell kernel's epilogue of one tile (blackwell_epilogue.c): thread tid (0..127, the four epilogue
 * warps) reads row tid of the accumulators at tensor-memory address acc (T2R) and stores
 * alpha acc + beta C to the tile's row of C */
void gemm_blackwell_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_val acc,
                             cute_val alpha, cute_val beta);

/* The library's tuned entries (tuned.c): the tuning file read at the first lookup, the
 * card the library runs on; off: not used (CUTEC_NO_TUNE, cute_gemm_lib_use_tuned) */
#include "cutec/gemm_tune.h"
typedef struct gemm_tuned {
    bool loaded, env_off;   /* read; $CUTEC_NO_TUNE set */
    int want;               /* cute_gemm_lib_use_tuned: 0 not called (the environment), 1 on, 2 off */
    cute_tune_db *db;       /* NULL: none read (err says why) */
    char file[4096], err[768], card[128];
    int sms;
    bool card_has_entries;  /* the file has entries of this card (else no call looks further) */
    /* the last lookup and its answer: a call repeating a shape costs a comparison */
    int64_t last[7];
    cute_gemm_choice last_choice;
} gemm_tuned;
void gemm_tuned_free(gemm_tuned *t);
/* the choice for a plain call on rt's card (cute_gemm_lib_choice) */
void gemm_tuned_choice(gemm_tuned *t, cute_runtime *rt, cute_dtype in, cute_dtype out, const int major[3],
                       int64_t m, int64_t n, int64_t k, cute_gemm_choice *c);
/* whether any call could take an entry (the file has some of the card, and tuning is on):
 * the library's calls look no further when not */
bool gemm_tuned_maybe(gemm_tuned *t, cute_runtime *rt);

/* the stages' (and C's) room a block of a TMA variant's kernel: its architecture's opt-in shared
 * memory (cutec/cuda_arch.h's table: 227 KB on sm_90 and sm_100), less 2 KB for the barriers and
 * the swizzle's alignment */
static inline int64_t gemm_smem_room(cute_gemm_variant v)
{
    return cute_cuda_arch_smem_per_block(cute_gemm_variant_arch(v)) - 2048;
}

#endif
