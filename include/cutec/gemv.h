/* cutec/gemv.h — matrix-vector products at the memory limit (docs/gemv.md).
 *
 *   y(M,L) = alpha * A(M,K,L) x(K,L) + beta * y(M,L)
 *
 * and its form with a few vectors at once (up to CUTE_GEMV_MAX_VECTORS), which is the
 * skinny GEMM C(M,N) = A(M,K) B(N,K)^T with N (or, transposed, M) at most 8: A is read
 * once for all of them.
 *
 * A is K-major (row-major: each row contiguous) or M-major (column-major); x is contiguous
 * along K; y takes any strides.  f32, f16, bf16 and e4m3 inputs (one dtype for A and x),
 * accumulated in f32; y is f32, f16 or bf16 (e4m3 inputs: not e4m3).  An fp8 product with
 * per-tensor scales passes scale_A * scale_x in alpha.
 *
 * Two kernels, chosen by A's unit-stride mode: K-major A has a warp per row (each lane
 * streams 16-byte vectors of the row and of x, the warp reduces by shuffles); M-major A has
 * a thread per vector of rows (a 16-byte load down the column, x broadcast through a
 * stride-0 view).  When rows are too few to fill the card, K is split: each split writes an
 * f32 partial sum per row to a workspace and a second kernel adds the splits in order, so
 * the result is the same bits run to run whatever order the blocks ran in (or, selectable,
 * the partials are added atomically: faster, not bit-reproducible).
 */
#ifndef CUTEC_GEMV_H
#define CUTEC_GEMV_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

typedef struct cute_gemv_config {
    cute_dtype dtype;   /* A's and x's elements */
    cute_dtype y_dtype; /* y's (CUTE_VOID: dtype; e4m3 inputs: f16) */
    int a_major;        /* A's unit-stride mode: 1 K-major (row-major), 0 M-major */
    int vec;            /* elements per vector access of A (and, K-major, of x): a power of
                           two up to 16 bytes that divides the address, leading dimension,
                           batch stride and unit-stride extent of A (and x) */
    bool split;         /* split-K: partials to the workspace, then the ordered reduction */
    bool atomic;        /* with split: the partials added atomically into one f32 sum per
                           row instead (faster, not bit-reproducible: the order of the
                           additions is the blocks'); the second kernel scales it into y and
                           zeroes it for the next call */
    int vectors;        /* x's and y's vectors, 1 to CUTE_GEMV_MAX_VECTORS (0: 1) */
    int sf_vec;         /* block-scaled (cutec_gemv_blockscaled): elements per scale, 16
                           (NVFP4: e2m1 with ue4m3 scales) or 32 (MXFP8: e4m3 with ue8m0);
                           0: none */
    bool many_splits;   /* with split and not atomic: the second kernel gives each output
                           (row, vector) a warp, its lanes every 32nd split (the tensor-core
                           form's many vectors: each row, a vector a block), and on sm_90 on
                           is a programmatic dependent launch (the library's choice past
                           CUTE_GEMV_FEW_SPLITS splits) */
    bool mma;           /* the tensor-core form (f16/bf16, K-major A, 16-byte vectors): A's
                           rows on mma.sync's 16-row side, the vectors (up to
                           CUTE_GEMV_MAX_MMA_VECTORS) on its 8-column side */
    int l2_prefetch;    /* K-major A (rows, skew, NVFP4, the tensor-core form): each warp asks L2
                           for its rows' k-tile this many ahead (prefetch.global.L2) before it
                           loads this one; 0: none, at most CUTE_GEMV_MAX_L2_PREFETCH */
    bool tile_at_a_time; /* NVFP4: load each k-tile just before its products (the form
                           before session 29), not the next k-tile's registers before this
                           one's products (the default) */
    int smem_stages;     /* NVFP4 (not with tile_at_a_time or l2_prefetch), one vector of
                           K-major A in 16-byte vectors and the tensor-core form (A's and X's
                           k-tiles; cute_gemv_ring_able): each warp
                           streams its whole k-tiles through a ring of this many stages (2 to
                           CUTE_GEMV_MAX_SMEM_STAGES) in shared memory by cp.async, stages - 1
                           ahead of its products; 0: through registers */
    int ahead;           /* NVFP4's register form (not with tile_at_a_time, l2_prefetch or
                            smem_stages): the k-tiles whose registers a warp loads before
                            this one's products, 1 to CUTE_GEMV_MAX_AHEAD (0: 1); two hold
                            more bytes in flight where few warps run: the library's where
                            the blocks are 4 an SM or fewer (cute_gemv_lib_ahead) */
    int fma_decode;      /* NVFP4 (words): 1: each ue4m3 scale to f32 by its bits (shifted
                            into an f32's exponent and mantissa, times 2^120: an IMAD, a LOP3
                            and an FMUL) instead of by cvt.rn.f16x2.e4m3x2 a byte and a
                            widening (F2FP, HADD2.F32, shifts and masks); 0: by cvt
                            (cute_gemv_lib_fma_decode) */
    bool tf32_bits;      /* the tensor-core form of f32 (3xTF32): each value's big tf32 half
                            by its bits (half a last place added, the low 13 cleared) and the
                            small one its remainder as it is (mma.sync ignores the low 13
                            bits), not by cvt.rna.tf32.f32 (cute_gemv_lib_tf32_bits; the library's
                            default since session 38) */
    bool skew;           /* K-major f16 or bf16 A whose rows do not all start 16-byte aligned
                            (vec: 8, no ring or L2 prefetch): each row as a scalar head up to
                            its first aligned 16 bytes, 16-byte vectors and a scalar tail, a
                            warp's rows alike in misalignment (the library's wherever it
                            applies; f32 keeps the rows kernel's narrower vectors) */
    bool one_launch;     /* with split, the rows or skew kernel (K-major A, not the tensor
                            cores, no scales): split-K in one launch (the library's on sm_90
                            on, where on sm_90 it is a programmatic dependent launch: each
                            block waits for the stream's previous grid before its first access
                            of memory and lets the next grid in right after, so that a call's
                            launch overlaps the previous call's end).  Each block writes its
                            partials to W (atomic: adds them into its sums); after a barrier
                            and a fence, thread 0
                            counts the block in on its row group's counter (an extra argument:
                            u32 zeros, one a row group and batch); the block that counts last
                            adds the splits of each of the group's outputs in a fixed order
                            (atomic: scales the sums and zeroes them) and writes y, and zeroes
                            the counter for the next call.  No second
                            kernel (cute_gemv_lib_one_launch) */
    bool scale_words;    /* NVFP4's register form k-tiles ahead (the library's where the scale
                            buffers are 4-byte aligned; CUTEC_GEMV_TRIAL=no-words: not): a
                            warp's scale pairs of rows 2h and 2h+1 by one 4-byte load a lane
                            of its row 2h + (lane & 1)'s group
                            (the two rows' groups share a 32-byte sector) and one shuffle with
                            the neighbour lane, instead of a 16-bit load a row: a k-tile's
                            loads of A's scales touch 32 sectors, not 64 */
    int diag;            /* NVFP4's register form k-tiles ahead: a diagnostic, wrong by design
                            (0: none).  CUTE_GEMV_DIAG_SCALES_ONCE (CUTEC_GEMV_TRIAL=noscales):
                            every k-tile multiplied by k-tile 0's scales (16-bit pairs), loaded
                            once, so that a bench times the kernel without its scale loads
                            (what any cheaper way to them can win at most) */
    bool wide;           /* NVFP4's register form k-tiles ahead, with the scale words: two
                            vectors a lane a row, k-tiles of 2,048 elements, so that a warp asks
                            for 1 KB of each of its four rows at once instead of 512 bytes
                            (4 blocks an SM, 128 registers); the library's one ahead where it
                            would run two ahead of 1,024 (blocks 4 an SM or fewer, the scale
                            buffers 4-byte aligned; CUTEC_GEMV_TRIAL=narrow: not) */
    int min_blocks;      /* NVFP4's words (not the ring): the resident blocks an SM asked of
                            ptxas, 1 to 8; 0: the library's (blockscaled.c, words_blocks: 7 a
                            k-tile at a time); CUTEC_GEMV_TRIAL=blocks6 asks 6 of a k-tile at
                            a time */
} cute_gemv_config;

#define CUTE_GEMV_MAX_AHEAD 2
#define CUTE_GEMV_MAX_FMA_DECODE 1

#define CUTE_GEMV_MAX_SMEM_STAGES 8
/* whether a configuration without scales may take the ring: one vector, or the tensor-core
 * form with vectors a multiple of 8, of K-major A in 16-byte vectors, no L2 prefetch, rows not
 * skewed (cfg.skew) */
bool cute_gemv_ring_able(const cute_gemv_config *cfg);
/* the ring's stages the library gives a configuration without scales when the caller asks
 * for none in particular (cute_gemv_lib_smem_stages -1, the default): 4 for bf16 and f16
 * where ring-able (on an H200 the ring of 4 ran 1.3-2.9 points of the copy faster than the
 * register form for bf16 on all three shapes of `cutec bench gemv`, in three runs, and 6.2 to
 * 9.1 points faster for f16: docs/gemv.md), else 0 (f32 and e4m3: not measured through it); the
 * tensor-core form's at 8 to 16 vectors, 8 stages (f32: the deepest at which a block of two k
 * groups fits an SM, 6 at 16 vectors; docs/gemv.md, "The ring of A's and X's k-tiles"), none
 * past */
#define CUTE_GEMV_RING_STAGES 4
int cute_gemv_ring_default(const cute_gemv_config *cfg);
/* the tensor-core form's ring of cfg.smem_stages stages within what a block of target `arch`
 * (0: not known, sm_90's) may have (99 KB on sm_86, sm_89 and sm_120, 163 KB on sm_80:
 * docs/cards.md): the stages halved to no fewer than 2 (a ring's least), 0 if 2 do not fit;
 * cfg.smem_stages for the other forms */
int cute_gemv_ring_fit(const cute_gemv_config *cfg, int arch);

/* the scales' dtype of a block-scaled configuration: ue4m3 for e2m1, ue8m0 for e4m3 */
cute_dtype cute_gemv_sf_dtype(const cute_gemv_config *cfg);
/* ... and the alignment in bytes its scale buffers must have: 2 for NVFP4 (a vector's two
 * scales are read in one 16-bit load; 4 through the ring or by words), 1 for MXFP8 */
int cute_gemv_sf_align(const cute_gemv_config *cfg);
/* CUTEC_GEMV_TRIAL: the GEMV's trial forms (opt-in until a device script decides): 0 (none,
 * unset or empty), "no-words" (the 16-bit scale pairs, not cfg.scale_words), the diagnostic,
 * wrong by design, "noscales" (cfg.diag), "narrow" (two ahead of 1,024-element k-tiles where
 * the library runs cfg.wide) or "blocks6" (cfg.min_blocks 6, where a k-tile at a time runs);
 * -1 and the reason in err for any other value */
int cute_gemv_trial(char *err, size_t n);
#define CUTE_GEMV_TRIAL_NO_WORDS 1
#define CUTE_GEMV_TRIAL_NOSCALES 2
#define CUTE_GEMV_TRIAL_NARROW 3
#define CUTE_GEMV_TRIAL_BLOCKS6 4
#define CUTE_GEMV_DIAG_SCALES_ONCE 1

#define CUTE_GEMV_MAX_VECTORS 8
#define CUTE_GEMV_FEW_SPLITS 32
/* ... and through the tensor cores (f16 and bf16 with K-major A and 16-byte aligned rows) */
#define CUTE_GEMV_MAX_MMA_VECTORS 128

/* whether a new library runs `vectors` vectors of dtype d through the tensor-core form
 * (where A is K-major and A's and x's rows are 16-byte aligned): f16, bf16 and f32 from
 * CUTE_GEMV_MMA_FROM vectors on */
#define CUTE_GEMV_MMA_FROM 8
bool cute_gemv_mma_for(cute_dtype d, int vectors);

/* the y dtype a configuration writes */
cute_dtype cute_gemv_y_dtype(const cute_gemv_config *cfg);

/* Compile one configuration.  The function's arguments: A (M,K,L), x (K,N,L), y (M,N,L)
 * (N = vectors), the workspace W (M,N,L,S) f32 compact (split-K; else any such f32 tensor,
 * unread), kchunk (the K
 * extent of each split, a multiple of the kernel's k-tile; S = ceil(K / kchunk)), alpha,
 * beta. */
const cute_fn *cute_gemv_compile(cute_runtime *rt, const cute_gemv_config *cfg, char *err,
                                 size_t n);
/* the K extent a K-major configuration's warp reads per iteration (kchunk's multiple) */
int cute_gemv_k_tile(const cute_gemv_config *cfg);

/* The library: compiles each configuration once per runtime; owns the workspace.  One
 * library may be shared by threads (a lock guards its table and workspace). */
typedef struct cute_gemv_lib cute_gemv_lib;
cute_gemv_lib *cute_gemv_lib_new(cute_runtime *rt);
void cute_gemv_lib_free(cute_gemv_lib *lib);
/* Force the number of K splits of later calls (0: the library's choice from the shape and
 * the device's SM count); false for a negative count. */
bool cute_gemv_lib_splits(cute_gemv_lib *lib, int splits);
/* Split-K's reduction for later calls: deterministic (the default: partials added in split
 * order, the same bits every run) or not (atomic additions, cute_gemv_config.atomic). */
void cute_gemv_lib_deterministic(cute_gemv_lib *lib, bool deterministic);
/* The tensor-core form from `vectors` vectors on for later calls (1 to
 * CUTE_GEMV_MAX_VECTORS + 1; CUTE_GEMV_MMA_FROM by default): false for another count */
bool cute_gemv_lib_mma_from(cute_gemv_lib *lib, int vectors);
/* The L2 prefetch of K-major A's k-tile `distance` ahead (cute_gemv_config.l2_prefetch)
 * for later calls: 0 none, 1 the next, ...; -1 the library's choice (the default): none
 * (measured no faster, the bf16 GEMV slower) but in the skew form (rows not 16-byte aligned,
 * f16 and bf16), the next k-tile; false for a distance out of range */
#define CUTE_GEMV_MAX_L2_PREFETCH 4
bool cute_gemv_lib_l2_prefetch(cute_gemv_lib *lib, int distance);
/* NVFP4 (before sm_100 and on it) with each k-tile loaded just before its products
 * (cute_gemv_config.tile_at_a_time) for later calls: true that form always, false (the
 * default) the library's choice by shape (cute_gemv_lib_ahead) */
void cute_gemv_lib_tile_at_a_time(cute_gemv_lib *lib, bool on);
/* NVFP4's register form with `ahead` k-tiles loaded before this one's products
 * (cute_gemv_config.ahead) for later calls: 1 to CUTE_GEMV_MAX_AHEAD runs that form whatever
 * the shape (unless a k-tile at a time or the ring is forced); 0 (the default) the library's
 * choice: two ahead where K spans four k-tiles or more and the blocks (16 rows) are 4 an SM
 * or fewer, one where they are 6 an SM or more, else a k-tile at a time.  false for another
 * count */
bool cute_gemv_lib_ahead(cute_gemv_lib *lib, int ahead);
/* The shared-memory ring (cute_gemv_config.smem_stages) for later calls: 2 to
 * CUTE_GEMV_MAX_SMEM_STAGES stages for NVFP4 (where the scale buffers are 4-byte aligned, the
 * device has cp.async and no k-tile at a time is forced) and the GEMVs that may take it
 * (cute_gemv_ring_able); 0 none: the register forms; -1 (the default) the library's
 * choice: cute_gemv_ring_default's stages for the GEMVs, none for NVFP4 (through the ring
 * it measured 15 points of the copy slower on an H200, session 30).  The tensor-core form's
 * ring, asked for or the library's, is halved until it fits a block of the target
 * (cute_gemv_ring_fit; cute_gemv_lib_last says what ran).  false for another count */
bool cute_gemv_lib_smem_stages(cute_gemv_lib *lib, int stages);
/* NVFP4's decode on the FMA pipe (cute_gemv_config.fma_decode) for later calls: 0 to
 * CUTE_GEMV_MAX_FMA_DECODE, or -1 (the default) the library's choice (CUTE_GEMV_FMA_DECODE
 * in nvfp4.c); false for other values */
bool cute_gemv_lib_fma_decode(cute_gemv_lib *lib, int level);
/* Split-K in one launch (cute_gemv_config.one_launch) for later calls: 1 where it applies, 0
 * never (a second kernel reduces the splits), -1 (the default) the library's choice: where it
 * applies on sm_90 on, with at most one split an SM for 16-bit A and three for wider (H200,
 * session 41: 3x5x100000 bf16 5.7 us a call at 131 splits, 6.0 at 391, against 7.1-10.3 in two
 * kernels; f32 5.7-6.1 at 391 against 7.8-10.4; 4097x3x8191 f32 42.4 us against 46.3, bf16 28.9
 * against 28.8; bench/RESULTS.md, odd41).  false for other values */
bool cute_gemv_lib_one_launch(cute_gemv_lib *lib, int on);
/* ... its splits an SM at most for A's dtype d */
int cute_gemv_one_launch_splits(cute_dtype d);
/* f32's 3xTF32 halves by bits (cute_gemv_config.tf32_bits) for later calls (on by default;
 * false: by cvt.rna.tf32.f32) */
void cute_gemv_lib_tf32_bits(cute_gemv_lib *lib, bool on);
/* the configuration and split count of the last call (for tests and the CLI) */
void cute_gemv_lib_last(cute_gemv_lib *lib, cute_gemv_config *cfg, int *splits);
/* whether the last call ran on the Hopper GEMM kernel instead (8 to 128 vectors of 16-bit A
 * and y on sm_90; docs/gemv.md); cute_gemv_lib_last then tells the call before */
bool cute_gemv_lib_last_gemm(cute_gemv_lib *lib);
/* such calls on the Hopper GEMM kernel for later calls (on, the default), or on the GEMV
 * kernels' tensor-core form (false) */
void cute_gemv_lib_hopper(cute_gemv_lib *lib, bool on);

/* y = alpha A x + beta y.  A (M,K) or (M,K,L); x (K) or (K,L); y (M) or (M,L).  beta = 0
 * reads no y.  A malformed call is CUTE_ERR_INVALID with the reason in err. */
cute_status cutec_gemv(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *x,
                       const cute_call_arg *y, double alpha, double beta, void *stream, char *err,
                       size_t n);
/* the same for N vectors at once (1 to CUTE_GEMV_MAX_VECTORS): X (K,N) or (K,N,L), each
 * vector contiguous along K; Y (M,N) or (M,N,L), any strides */
cute_status cutec_gemv_vectors(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *X,
                               const cute_call_arg *Y, double alpha, double beta, void *stream,
                               char *err, size_t n);

/* Block-scaled GEMV, seed 001's NVFP4 GEMV and MXFP8:
 *   y(M,L) = alpha sum_k A(m,k,l) SFA(m,k,l) x(k,l) SFB(k,l) + beta y
 * NVFP4: A (M,K[,L]) and x (K[,L]) e2m1, K-major and contiguous, one ue4m3 scale per 16
 * elements of each.  MXFP8: e4m3 with one ue8m0 scale per 32.  SFA and SFB are rank-1
 * buffers of scales in the layout CuTe and cuBLAS use (tiles of 128 rows x 4 scales, see
 * docs/gemv.md; x is the one row of a (1,K,L) operand): at least
 * ceil(rows/128)*128 * ceil(K/(4 sf_vec))*4 * L scales.  y (M[,L]) f16, bf16 or f32.  K a
 * multiple of 32; A's and x's rows 16-byte aligned.  cutec_gemv_nvfp4 takes only NVFP4. */
cute_status cutec_gemv_blockscaled(cute_gemv_lib *lib, const cute_call_arg *A,
                                   const cute_call_arg *SFA, const cute_call_arg *x,
                                   const cute_call_arg *SFB, const cute_call_arg *y, double alpha,
                                   double beta, void *stream, char *err, size_t n);
cute_status cutec_gemv_nvfp4(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *x, const cute_call_arg *SFB,
                             const cute_call_arg *y, double alpha, double beta, void *stream,
                             char *err, size_t n);
/* the number of scales a (rows, K, L) operand's scale buffer holds (with its padding), and
 * where the scale of element (row, k, l) is in it (for host code that fills one) */
int64_t cute_gemv_sf_count(int64_t rows, int64_t K, int64_t L, int sf_vec);
int64_t cute_gemv_sf_index(int64_t row, int64_t k, int64_t l, int64_t rows, int64_t K, int sf_vec);

/* The skinny GEMM C(M,N) = alpha A(M,K) B(N,K)^T + beta C (operands as cutec_gemm takes
 * them, checked by it) where N, or M, is at most CUTE_GEMV_MAX_VECTORS and that operand's
 * rows are contiguous along K: through cutec_gemv_vectors, reading the other operand once.
 * CUTE_ERR_UNSUPPORTED, having done nothing, for any other shape, layout or dtype (a NULL
 * operand: CUTE_ERR_INVALID). */
cute_status cutec_gemm_skinny(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *B,
                              const cute_call_arg *C, double alpha, double beta, void *stream,
                              char *err, size_t n);

CUTE_API_END
#endif
