/* cutec/kernels.h — the kernel library: elementwise (binary, unary, casts, and an "apply"
 * builder that fuses any TensorSSA expression over N inputs into one kernel).
 *
 * Tensors are passed as cute_call_arg (jit.h): a buffer, a byte offset, dtype, shape and
 * strides in elements, rank 1 to 4, any strides.  The first call with a new combination of
 * op, dtypes, rank and contiguity compiles (through the JIT cache); later calls reuse it.
 */
#ifndef CUTEC_KERNELS_H
#define CUTEC_KERNELS_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

typedef enum {
    CUTE_EW_ADD, CUTE_EW_SUB, CUTE_EW_MUL, CUTE_EW_DIV, CUTE_EW_MAX, CUTE_EW_MIN, /* binary */
    CUTE_EW_RELU, CUTE_EW_GELU, CUTE_EW_SILU, CUTE_EW_EXP, CUTE_EW_NEG, CUTE_EW_ABS, /* unary */
    CUTE_EW_CAST, /* out = in converted to out's dtype */
    CUTE_EW_COUNT
} cute_ew_op;

const char *cute_ew_op_name(cute_ew_op op);
bool cute_ew_op_parse(const char *name, cute_ew_op *out);
int cute_ew_op_arity(cute_ew_op op); /* 1 or 2 */

/* An elementwise expression: the output TensorSSA from the inputs' (all of one shape). */
typedef cute_ssa (*cute_ew_expr)(cute_ctx *c, const cute_ssa *in, int nin, void *user);

typedef struct cute_ew_config {
    int threads;        /* per block; 0: 256 */
    int vectors;        /* 16-byte vectors per thread; 0: 4 */
} cute_ew_config;

/* Compile out = expr(in[0..nin)) for tensors like these (their dtypes, rank, and whether
 * they are compact row-major, which picks the 16-byte fast path).  The expression is traced
 * once.  name: the kernel's name (a C identifier). */
const cute_fn *cute_ew_compile(cute_runtime *rt, const char *name, cute_ew_expr expr, void *user,
                         int nin, const cute_call_arg *in, const cute_call_arg *out,
                         const cute_ew_config *cfg, char *err, size_t n);
/* the arguments of a compiled elementwise function, in order: in..., out */
cute_status cute_ew_call(const cute_fn *f, void *stream, int nin, const cute_call_arg *in,
                         const cute_call_arg *out, char *err, size_t n);

/* the library op's expression; user is (void *)(intptr_t)op */
cute_ssa cute_ew_op_expr(cute_ctx *c, const cute_ssa *in, int nin, void *user);

/* The library's ops, compiled once per runtime and pattern and then reused.  One library
 * may be shared by threads (a lock guards its table; calls run unlocked). */
typedef struct cute_ew_lib cute_ew_lib;
cute_ew_lib *cute_ew_lib_new(cute_runtime *rt);
void cute_ew_lib_free(cute_ew_lib *lib);
/* out = op(a[, b]); b is ignored for unary ops; err gets the reason on failure */
cute_status cute_ew(cute_ew_lib *lib, cute_ew_op op, const cute_call_arg *out,
                    const cute_call_arg *a, const cute_call_arg *b, void *stream, char *err,
                    size_t n);
static inline cute_status cutec_add(cute_ew_lib *lib, const cute_call_arg *out,
                                    const cute_call_arg *a, const cute_call_arg *b, void *stream)
{
    return cute_ew(lib, CUTE_EW_ADD, out, a, b, stream, NULL, 0);
}

/* --- GEMM: C(M,N) = alpha * A(M,K) * B(N,K)^T + beta * C ------------------------------
 * CuTe's convention: B is given as (N,K).  A BLAS caller's B(K,N) column-major is the
 * (N,K) tensor with strides (ldb, 1); "row- or column-major" of each operand is which of its
 * two modes has stride 1.  f32 (SGEMM) and f64 (DGEMM) through the same kernels; any M, N, K
 * (tails predicated).  The seeds' steps, each a kernel of its own (src/kernels/gemm/): */
typedef enum {
    CUTE_GEMM_AUTO = 0,       /* the best kernel for the shape */
    CUTE_GEMM_REGISTERS,      /* step 1, seed 002: global -> registers -> FMA */
    CUTE_GEMM_SHARED,         /* step 2, seed 000: global -> shared -> registers, barriers */
    CUTE_GEMM_PIPELINED,      /* ampere/sgemm.py: double-buffered shared memory,
                                 register prefetch of the next tiles */
    CUTE_GEMM_MULTISTAGE,     /* step 3, seed 000: a multi-stage cp.async pipeline into
                                 swizzled shared memory, FMA */
    CUTE_GEMM_TENSOROP,       /* step 4: the same body with mma.sync fed by ldmatrix */
    CUTE_GEMM_TENSOROP_SMEM,  /* step 5: step 4 with the epilogue through shared memory and
                                 128-bit stores (ampere/tensorop_gemm.py) */
    CUTE_GEMM_HOPPER,         /* sm_90 (seed 001, hopper/dense_gemm.py): TMA into a multi-stage
                                 PipelineTmaAsync, wgmma from swizzled shared memory, a
                                 producer warpgroup and two consumer warpgroups */
    CUTE_GEMM_BLACKWELL,      /* sm_100a (seed 001, blackwell/dense_gemm_persistent.py): TMA into a
                                 PipelineTmaUmma, tcgen05.mma into tensor memory, a
                                 PipelineUmmaAsync to the T2R epilogue; verified on the
                                 interpreter and by ptxas only (docs/blackwell.md) */
    CUTE_GEMM_VARIANT_COUNT
} cute_gemm_variant;

const char *cute_gemm_variant_name(cute_gemm_variant v); /* "auto", "registers", ... */
bool cute_gemm_variant_parse(const char *name, cute_gemm_variant *out);
/* the one SM a variant's kernel runs on (hopper: 90, blackwell: 100); 0: any the library
 * targets */
int cute_gemm_variant_arch(cute_gemm_variant v);

/* The tiling of the multi-stage kernels (multistage, tensorop, tensorop_smem); 0 in a field:
 * the library's choice for the dtype and size (docs/gemm.md).  bm x bn of C per block,
 * k-tiles of bk, `stages` k-tiles in shared memory, warps_m x warps_n warps; the tensor-core
 * kernels' blocks rasterized `raster` tiles along N (L2 reuse; 1: none); read_bytes, f64's
 * tensor-core fragment reads from K-major tiles: 16 (LDS.128, ptxas then moves A's values
 * into DMMA order) or 8 (LDS.64 straight into place), both free of bank conflicts.
 * cluster_m x cluster_n: the Hopper kernel's thread-block clusters (1x1, 2x1 or 1x2; 0: the
 * library's choice), the blocks of a cluster taking neighbouring tiles and multicasting the
 * operand they share (B along M, A along N) with TMA.
 * c_store, the Hopper kernel's way out for C: CUTE_GEMM_STORE_TMA (stmatrix into swizzled
 * 64 x 64 buffers, each sent by one TMA store that overlaps the next tile's main loop; a
 * 16-bit C in tiles of whole 64-column blocks), CUTE_GEMM_STORE_TILE (the same, but every
 * piece of the tile written into a buffer of its own before one barrier and their stores,
 * so no store's read is waited for inside the epilogue; its buffers take a stage) or
 * CUTE_GEMM_STORE_ST (C's tile through shared memory, read back in 16-byte runs and stored
 * by each thread); 0: the library's choice by shape (TMA or TILE where they apply).
 * schedule, the Hopper kernel's consumer warpgroups: CUTE_GEMM_SCHEDULE_COOP (CUTLASS's
 * cooperative: both compute one bm x bn tile, 64 rows each) or CUTE_GEMM_SCHEDULE_PINGPONG
 * (each computes a bm x bn tile of its own, bm 64 or 128; their main loops take turns, so
 * one's epilogue runs under the other's MMAs) or CUTE_GEMM_SCHEDULE_STREAMK (cooperative, the
 * last partial wave of tiles and the whole wave before it split into equal runs of k-tiles,
 * one a block, partial sums meeting through a workspace: docs/gemm.md, "Stream-K"); 0: the
 * library's choice by shape (cooperative, ping-pong or stream-K).
 * For the SM80 tensor-core kernels (tensorop, tensorop_smem), CUTE_GEMM_SCHEDULE_PERSISTENT:
 * one block an SM walking tiles of C, the next tile's first k-tiles loading while this
 * one's epilogue runs (C's shared tile then of its own beside the stages, in parts of N
 * where needed); 0: a block per tile, unless the library's rule for the size says otherwise. */
typedef struct cute_gemm_tiling {
    int bm, bn, bk, stages, warps_m, warps_n, raster, read_bytes;
    int cluster_m, cluster_n;
    int c_store;
    int schedule;
    int scale_mul; /* fp8 block scales: where a k-tile's scales are multiplied (CUTE_GEMM_SCALE_MUL_*) */
} cute_gemm_tiling;
enum { CUTE_GEMM_STORE_AUTO, CUTE_GEMM_STORE_TMA, CUTE_GEMM_STORE_ST, CUTE_GEMM_STORE_TILE };
/* AUTO is PROMOTE: loaded into registers at kt's promotion, multiplied at kt + 2's (session
 * 28's kernel).  STAGED: each thread's scales of k-tile kt + 3 go to shared memory by cp.async
 * at kt's promotion and are read there at kt + 3's (their own group wait, not the loads'
 * register scoreboard, which ptxas shares among all of a loop's loads); measured 10% slower
 * (bench/RESULTS.md, session 29's mid pass).  LOAD: multiplied as soon as they are loaded
 * (session 27's kernel).  The last two are kept to measure against.  INTERLEAVE: PROMOTE's
 * scales, and kt's promotion cut in parts between the wgmmas of kt + 1's batch, each of them
 * a commit group of its own (128-row tiles up to 128 wide; others run PROMOTE). */
enum {
    CUTE_GEMM_SCALE_MUL_AUTO,
    CUTE_GEMM_SCALE_MUL_PROMOTE,
    CUTE_GEMM_SCALE_MUL_LOAD,
    CUTE_GEMM_SCALE_MUL_STAGED,
    CUTE_GEMM_SCALE_MUL_INTERLEAVE
};
enum {
    CUTE_GEMM_SCHEDULE_AUTO,
    CUTE_GEMM_SCHEDULE_COOP,
    CUTE_GEMM_SCHEDULE_PINGPONG,
    CUTE_GEMM_SCHEDULE_PERSISTENT,
    CUTE_GEMM_SCHEDULE_STREAMK
};

/* A fused epilogue (seed 001's epilogue fusion; docs/gemm.md, "Fused epilogues"): on each
 * thread's fragment of C, in f32, after x = alpha * acc + beta * C,
 *   x = x + v       where bias is ROW (v[m], one value per row of C) or COL (v[n]), the
 *                   vector argument (a rank-1 tensor of C's dtype, M or N long);
 *   x = act(x)      ReLU, GELU (tanh or erf form) or SiLU;
 *   x = fn(x, v)    the caller's TensorSSA function of the fragment and of the vector
 *                   broadcast over it (v: zeros where bias is NONE), after act;
 * then x is rounded to C's dtype (the output cast).  A residual add is beta = 1 with the
 * residual in C.  The Hopper kernel's TMA-store epilogue runs it (a 16-bit C on sm_90 and on
 * the interpreter); the other kernels refuse a configuration with one, naming why. */
typedef enum {
    CUTE_GEMM_ACT_NONE, CUTE_GEMM_ACT_RELU, CUTE_GEMM_ACT_GELU_TANH, CUTE_GEMM_ACT_GELU_ERF,
    CUTE_GEMM_ACT_SILU, CUTE_GEMM_ACT_COUNT
} cute_gemm_act;
typedef enum { CUTE_GEMM_BIAS_NONE, CUTE_GEMM_BIAS_ROW, CUTE_GEMM_BIAS_COL } cute_gemm_bias;
typedef cute_ssa (*cute_gemm_epilogue_fn)(cute_ctx *c, cute_ssa x, cute_ssa v, const void *user);
typedef struct cute_gemm_epilogue {
    cute_gemm_bias bias;
    cute_gemm_act act;
    cute_gemm_epilogue_fn fn; /* NULL: none */
    const void *user;         /* fn's */
    const char *name;         /* fn's name, a C identifier: in the kernel's name (the JIT
                                 cache tells two fns apart by their code anyway) */
} cute_gemm_epilogue;
const char *cute_gemm_act_name(cute_gemm_act a); /* "none", "relu", "gelu_tanh", "gelu", "silu" */
bool cute_gemm_act_parse(const char *name, cute_gemm_act *out);
/* whether e does anything (NULL or all zero: the plain alpha/beta epilogue) */
bool cute_gemm_epilogue_fused(const cute_gemm_epilogue *e);

/* fp8 scales (docs/gemm.md, "Scaled fp8"), as torch._scaled_mm and DeepSeek-V3 take them:
 * f32 tensors in device memory, read by the kernel.
 *   TENSOR: one scale per operand, x = alpha sa sb (A B^T) + beta C;
 *   BLOCK:  sa (M, ceil(K/128)) one per row and 128 of K, sb (ceil(N/128), ceil(K/128)) one per
 *           128 x 128 block of B: x = alpha sum_kb sa(m,kb) sb(n/128,kb) (A B^T over K block kb)
 *           + beta C, each K block's product promoted into an f32 sum with its scales.
 * Then the fused epilogue (bias, act, fn); amax (optional, one f32) becomes max(amax, max |x|)
 * over C's elements (NaN the largest: bits compared, atomically, so the same value every run);
 * then x times the output scale (optional, one f32), rounded to C's dtype.  The hopper kernel
 * (sm_90, and the interpreter), e4m3 or e5m2 inputs; amax and the output scale need its
 * TMA-store epilogue (a 16-bit C). */
typedef enum { CUTE_GEMM_SCALE_NONE, CUTE_GEMM_SCALE_TENSOR, CUTE_GEMM_SCALE_BLOCK } cute_gemm_scale_kind;
typedef struct cute_gemm_scales {
    cute_gemm_scale_kind kind;
    const cute_call_arg *a, *b; /* TENSOR: rank 1, 1 element; BLOCK: rank 2, as above */
    const cute_call_arg *out;   /* NULL: 1 */
    const cute_call_arg *amax;  /* NULL: none */
} cute_gemm_scales;
const char *cute_gemm_scale_name(cute_gemm_scale_kind k); /* "none", "tensor", "block" */

/* Which mode of an operand has stride 1: 0 (M-major A / N-major B / column-major C) or 1. */
typedef struct cute_gemm_config {
    cute_gemm_variant variant;
    cute_dtype dtype;         /* A's and B's element type */
    int major[3];             /* A, B, C: the unit-stride mode */
    int align_bytes;          /* assumed alignment, in bytes, of every pointer, leading
                                 dimension and unit-stride extent (so that no vector of that
                                 many bytes straddles a matrix's edge) */
    int64_t index_bound;      /* 0: 64-bit index arithmetic, any size.  Else every extent and
                                 stride is at most this (cute_index_bound, checked at each
                                 call) and the index arithmetic is proven to fit in 32 bits:
                                 CUTE_GEMM_INDEX_BOUND is the largest bound that proves */
    cute_dtype c_dtype;       /* C's element type; CUTE_VOID (0): dtype.  f16/bf16/fp8
                                 inputs accumulate in f32 and may write f16, bf16 or f32 */
    bool batched;             /* rank-3 operands A (M,K,L), B (N,K,L), C (M,N,L): one
                                 product per index of the L mode */
    cute_gemm_tiling tiling;  /* the multi-stage kernels' tiles (zero: the defaults) */
    cute_gemm_epilogue epilogue; /* zero: C = alpha A B^T + beta C, no more */
    bool dual;                /* the dual GEMM with SwiGLU (cutec_gemm_swiglu): called with
                                 (A, B0, C, alpha, beta, B1), C = alpha silu(A B0^T) (A B1^T)
                                 + beta C; the hopper kernel only */
    cute_gemm_scale_kind scale; /* fp8 scales (cutec_gemm_scaled): then called with (A, B, C,
                                 alpha, beta, v, sa, sb, out scale, amax), unused ones any
                                 tensor of the spec (v: C's dtype, rank 1; the others f32) */
    bool out_scale, amax;     /* with scale: whether the call has them */
    bool peer_flags;          /* tiles wait for and signal flags between GPUs (cutec_gemm_peer):
                                 then called with (A, B, C, alpha, beta, wait flags, wait
                                 value, signal flags, signal value, mirror); the hopper
                                 kernel only */
    uint8_t peer_broadcast;   /* with peer_flags, the flags' modes of static stride 0 (shared by
                                 the tiles along them): bits 0, 1 the wait flags' modes, 2, 3
                                 the signal flags' */
    bool peer_mirror;         /* with peer_flags, every tile of C is stored a second time into
                                 the mirror (the tenth argument; C stands in where false) */
    bool mx_scales;           /* e2m1 inputs on the blackwell kernel: ue8m0 scales per 32 of K
                                 (MXFP4, cutec_gemm_mxfp4), not ue4m3 per 16 (NVFP4) */
} cute_gemm_config;

/* the C dtype a configuration writes (c_dtype, or dtype when it is CUTE_VOID) */
static inline cute_dtype cute_gemm_c_dtype(const cute_gemm_config *cfg)
{
    return cfg->c_dtype == CUTE_VOID ? cfg->dtype : cfg->c_dtype;
}

/* Extents and leading dimensions up to 2^15 keep every GEMM index below 2^31 (the
 * largest offset is about K * ld + M); the library uses the 32-bit kernels up to it. */
#define CUTE_GEMM_INDEX_BOUND 32768

/* The variants AUTO tries for inputs of dtype d, best first (a library on sm_90 tries
 * CUTE_GEMM_HOPPER before them for f16 and bf16, on sm_100 CUTE_GEMM_BLACKWELL) (tensor cores for 16-bit, 8-bit
 * and f64 inputs, then f64's FMA steps; the FMA steps for f32); their number. */
int cute_gemm_auto_variants(cute_dtype d, cute_gemm_variant out[CUTE_GEMM_VARIANT_COUNT]);
/* the same on a target of sm_`arch` (0: unknown): the arch's own kernel first where it has
 * one for d (hopper on sm_90, blackwell on sm_100, for f16 and bf16); e2m1 (NVFP4): blackwell */
int cute_gemm_auto_variants_for(cute_dtype d, int arch, cute_gemm_variant out[CUTE_GEMM_VARIANT_COUNT]);
/* The tiling the library compiles variant v with for cfg's pattern at an (M, N, K) call of L
 * batches (1: unbatched) where the caller set none (cute_gemm_lib_tiling): the SM80
 * tensor-core kernels' row by dtype and M N L, the Hopper kernel's row by shape class
 * (docs/gemm.md); all zero: the plan's defaults. */
cute_gemm_tiling cute_gemm_default_tiling(cute_gemm_variant v, const cute_gemm_config *cfg, int64_t m, int64_t n,
                                          int64_t k, int64_t l);
/* The library's tiling of variant v for cfg on a target of sm_`arch` (0: unknown) at an
 * (M, N, K) call mnk of L batches (mnk NULL: the shape unknown, the plan's defaults):
 * cute_gemm_default_tiling, fitted to the target: where it leaves the SM80 tensor-core
 * kernels their 256 x 128 default (144 KB of stages for 8-bit, 16-bit and tf32 inputs) and a
 * block of the arch has less shared memory (cute_cuda_arch_smem_per_block: 99 KB on sm_86,
 * sm_89 and sm_120), 128 x 128 tiles of 2 x 2 warps (96 KB); docs/cards.md.  What AUTO, `cutec
 * compile gemm` and the cards' test each compile with. */
cute_gemm_tiling cute_gemm_library_tiling(cute_gemm_variant v, const cute_gemm_config *cfg, const int64_t mnk[3],
                                          int64_t l, int arch);
/* The Hopper kernel's (CUTE_GEMM_HOPPER) tile of C a block, (rows, columns), and its cluster,
 * (blocks along M, along N), for cfg: cfg->tiling's, its zero fields the plan's defaults (128
 * x 256; 128 x 128 ping-pong or with fp8 block scales; clusters of 2 x 1 with block scales,
 * else 1 x 1): what the plan takes before it checks them. */
void cute_gemm_hopper_tile(const cute_gemm_config *cfg, int64_t tile[2], int cluster[2]);

/* Compile one kernel; call it with (A, B, C, alpha, beta), and the epilogue's vector after
 * them where it has one. */
const cute_fn *cute_gemm_compile(cute_runtime *rt, const cute_gemm_config *cfg, char *err, size_t n);

/* The library: compiles each (variant, dtype, majors, alignment) once per runtime.  One
 * library may be shared by threads (a lock guards its table; calls run unlocked). */
typedef struct cute_gemm_lib cute_gemm_lib;
cute_gemm_lib *cute_gemm_lib_new(cute_runtime *rt);
void cute_gemm_lib_free(cute_gemm_lib *lib);
/* The width of the kernels' index arithmetic.  0 (the default): each variant in the width
 * measured faster for it, where every extent and stride is at most CUTE_GEMM_INDEX_BOUND
 * (registers and shared: 32 bits; pipelined: 64, see docs/gemm.md), else 64.  32: 32-bit
 * wherever the extents allow.  64: always 64-bit.  False (and no change) for another value. */
bool cute_gemm_lib_index_width(cute_gemm_lib *lib, int bits);
/* The tiling every later compile of the multi-stage kernels uses (NULL or all zero: the
 * defaults), for tuning; false (and no change) when a field is negative or read_bytes is not
 * 0, 8 or 16. */
bool cute_gemm_lib_tiling(cute_gemm_lib *lib, const cute_gemm_tiling *t);
/* the patterns compiled so far (those that failed included), in order of first use */
int cute_gemm_lib_size(cute_gemm_lib *lib);
const cute_gemm_config *cute_gemm_lib_entry(cute_gemm_lib *lib, int i);
/* C = alpha A B^T + beta C; A (M,K), B (N,K), C (M,N) tensors of one dtype, each with a
 * unit stride in one mode; variant AUTO picks the kernel for the shape */
cute_status cutec_gemm(cute_gemm_lib *lib, cute_gemm_variant variant, const cute_call_arg *A,
                       const cute_call_arg *B, const cute_call_arg *C, double alpha, double beta,
                       void *stream, char *err, size_t n);
/* Seed 001's NVFP4 block-scaled GEMM, C(M,N) = alpha sum_k A(m,k) SFA(m,k) B(n,k) SFB(n,k) +
 * beta C: A (M,K) and B (N,K) e2m1 (two a byte), K-major, K a multiple of 32, every row
 * 16-byte aligned; SFA and SFB rank-1 ue4m3 buffers, one scale per 16 of K, in the layout
 * CuTe and cuBLAS use (cute_gemv_sf_count / cute_gemv_sf_index, cutec/gemv.h); C f16, bf16
 * or f32, either major, 16-byte aligned.  The Blackwell kernel (sm_100a): on the interpreter
 * with an sm_100 target, or a Blackwell GPU — verified by emulation and ptxas only
 * (docs/blackwell.md).  The cluster of the library's tiling (cute_gemm_lib_tiling; its other
 * fields are the multi-stage kernels') picks the CTA pair when 2x1 (cta_group::2, 256 x 128
 * tiles of C a pair).  A malformed call is CUTE_ERR_INVALID
 * with the reason in err. */
cute_status cutec_gemm_nvfp4(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n);
/* MXFP4: as NVFP4 (e2m1, two a byte) with SFA, SFB ue8m0, one scale per 32 of K (SFVecSize 32),
 * K a multiple of 32, padding scales finite as MXFP8's */
cute_status cutec_gemm_mxfp4(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n);
/* MXFP8: the same with A and B e4m3 (a byte each) and SFA, SFB ue8m0, one scale per 32 of K (CuTe's
 * layout of SFVecSize 32: cute_gemv_sf_count(rows, K, 1, 32)); a scale past K's end in its last
 * atom must be finite (not 0xff: NaN times the zeros past K is NaN) */
cute_status cutec_gemm_mxfp8(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *B, const cute_call_arg *SFB, const cute_call_arg *C, double alpha,
                             double beta, void *stream, char *err, size_t n);
/* the same with a fused epilogue (NULL: none) and its vector (NULL where bias is NONE) */
cute_status cutec_gemm_ex(cute_gemm_lib *lib, cute_gemm_variant variant, const cute_call_arg *A,
                          const cute_call_arg *B, const cute_call_arg *C, double alpha, double beta,
                          const cute_gemm_epilogue *epilogue, const cute_call_arg *v, void *stream,
                          char *err, size_t n);
/* the same with fp8 scales (NULL, or kind NONE: cutec_gemm_ex) */
cute_status cutec_gemm_scaled(cute_gemm_lib *lib, cute_gemm_variant variant, const cute_call_arg *A,
                              const cute_call_arg *B, const cute_call_arg *C, double alpha, double beta,
                              const cute_gemm_scales *scales, const cute_gemm_epilogue *epilogue,
                              const cute_call_arg *v, void *stream, char *err, size_t n);
/* The dual GEMM with a SwiGLU epilogue (seed 001): C = alpha * silu(A B0^T) * (A B1^T)
 * + beta * C in one kernel, A read once: B0 and B1 (N,K) of A's dtype, laid out alike,
 * K-major; C (M,N) 16-bit.  The Hopper kernel on sm_90 (and the interpreter), the Blackwell
 * kernel on an sm_100 target: a block's 128 x 256 product is 128 columns of A B0^T beside the
 * same 128 of A B1^T (docs/gemm.md, docs/blackwell.md). */
cute_status cutec_gemm_swiglu(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *B0,
                              const cute_call_arg *B1, const cute_call_arg *C, double alpha, double beta,
                              void *stream, char *err, size_t n);
/* Tensor-parallel GEMM across GPUs (docs/peer.md): C = alpha A B^T + beta C where every
 * tile of C first waits for a flag (the producer spins with system-scope acquires before it
 * loads the tile's first k-tile, so the tile's A, B and C may come from a peer) and, once
 * its stores have landed (C may be a peer's memory), signals a flag with a system-scope
 * release.  A flags tensor is u32 (ceil(M/64), ceil(N/64)), any strides (0 where the tiles
 * along a mode share a flag): the tile whose first element is C (64 i, 64 j) uses flag (i, j), and a
 * kernel of the same configuration on another GPU uses the same one.  A value of 0 means
 * none (flags count epochs from 1: wait until the flag is at least wait_value; store
 * signal_value); a NULL tensor too.  bf16 or f16 inputs on sm_90 (and the interpreter,
 * where cute_gemm_peer_fn's function runs under cute_call_peers); K-major A and B. */
typedef struct cute_gemm_peer {
    const cute_call_arg *wait, *signal;
    uint32_t wait_value, signal_value;
    /* NULL, or a second C (C's dtype, shape and strides; another GPU's memory, say) that
     * every tile of the result is also stored into, before the tile's signal: the
     * all-gather of a row-parallel reduction done by the epilogue that finishes each tile */
    const cute_call_arg *mirror;
} cute_gemm_peer;
enum { CUTE_GEMM_FLAG_ROWS = 64, CUTE_GEMM_FLAG_COLS = 64 }; /* C's elements a flag stands for, at least */
enum { CUTE_GEMM_PEER_ARGS = 10 }; /* the arguments of cute_gemm_peer_fn's function */
cute_status cutec_gemm_peer(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *B, const cute_call_arg *C,
                            double alpha, double beta, const cute_gemm_peer *peer, void *stream, char *err, size_t n);
/* the compiled function of that call and its arguments (CUTE_GEMM_PEER_ARGS: A, B, C, alpha,
 * beta, wait flags, wait value, signal flags, signal value, mirror), for cute_call_peers
 * (one call a rank, all at once; on the interpreter, emulated devices); CUTE_ERR_INVALID with err where the call is
 * malformed, CUTE_ERR_COMPILE where no kernel runs it */
cute_status cute_gemm_peer_fn(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *B, const cute_call_arg *C,
                              double alpha, double beta, const cute_gemm_peer *peer, const cute_fn **fn,
                              cute_call_arg args[CUTE_GEMM_PEER_ARGS], char *err, size_t n);
static inline cute_status cutec_sgemm(cute_gemm_lib *lib, const cute_call_arg *A,
                                      const cute_call_arg *B, const cute_call_arg *C, double alpha,
                                      double beta, void *stream, char *err, size_t n)
{
    return cutec_gemm(lib, CUTE_GEMM_AUTO, A, B, C, alpha, beta, stream, err, n);
}

/* --- grouped GEMM: C_g = alpha A_g B_g^T + beta C_g for every group g, in one persistent
 * launch of the Hopper kernel (sm_90; the interpreter runs it too).  The groups share the
 * configuration (dtypes, majors; 16-byte alignment) and differ in sizes, pointers and
 * leading dimensions, which a device array gives, one row of CUTE_GEMM_GROUP_WORDS int64
 * per group (the tile scheduler walks (group, tile); the producer retargets its copies of
 * the TMA maps in global memory when its group changes, docs/gemm.md). */
enum {
    CUTE_GEMM_GROUP_A, CUTE_GEMM_GROUP_B, CUTE_GEMM_GROUP_C, /* device addresses (16-byte aligned) */
    CUTE_GEMM_GROUP_M, CUTE_GEMM_GROUP_N, CUTE_GEMM_GROUP_K, /* extents, M, N >= 0, K >= 1 */
    CUTE_GEMM_GROUP_LDA, CUTE_GEMM_GROUP_LDB, CUTE_GEMM_GROUP_LDC, /* leading dimensions, elements */
    CUTE_GEMM_GROUP_WORDS = 16 /* a row's int64 (the rest unused) */
};
typedef struct cute_gemm_group {
    cute_call_arg A, B, C; /* (M,K), (N,K), (M,N) tensors of one group */
} cute_gemm_group;
/* group g's row from its tensors (their buffers' device addresses): CUTE_ERR_INVALID, naming
 * the operand and what is wrong, when they do not match cfg (dtype, majors, shapes, 16-byte
 * alignment of the pointers, leading dimensions and unit-stride extents) */
cute_status cute_gemm_group_row(const cute_gemm_config *cfg, const cute_gemm_group *g, int64_t *row, char *err,
                                size_t n);
/* the workspace a grouped call needs on rt's device (the blocks' tensor maps), in bytes */
size_t cute_gemm_grouped_workspace(cute_runtime *rt);
/* Compile the grouped kernel; call it with (A, B, C of group 0 (the maps' templates), the rows
 * (a (CUTE_GEMM_GROUP_WORDS, groups) int64 tensor, column-major), the workspace (a u8 tensor
 * of cute_gemm_grouped_workspace bytes), alpha, beta, groups). */
const cute_fn *cute_gemm_grouped_compile(cute_runtime *rt, const cute_gemm_config *cfg, char *err, size_t n);
/* The library's grouped call: the rows and the workspace in buffers of its own (uploaded at
 * each call; the configuration from group 0's tensors). */
cute_status cutec_gemm_grouped(cute_gemm_lib *lib, const cute_gemm_group *groups, int count, double alpha,
                               double beta, void *stream, char *err, size_t n);

CUTE_API_END
#endif
