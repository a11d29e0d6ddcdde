/* The GEMV kernels' shared plan and parts (src/kernels/gemv/). */
#ifndef CUTEC_GEMV_INTERNAL_H
#define CUTEC_GEMV_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/cuda_arch.h"
#include "cutec/gemv.h"
#include "cutec/kernels.h"

/* What a host function and its kernels need, fixed at trace time. */
typedef struct gemv_plan {
    cute_gemv_config cfg;
    int nvec;           /* the vectors x holds (cfg.vectors, at least 1) */
    int threads;        /* per block */
    int rows;           /* K-major: rows per warp (1 to GEMV_MAX_ROWS; x loaded once for them) */
    int unroll;         /* rows: vectors per lane per row and k-tile; cols: k columns per step */
    int64_t ktile;      /* K-major: a k-tile's columns (words: in words) */
    cute_tiled_copy tc; /* rows: (warps rows, 32 lanes x vec); cols: (threads x vec rows,
                           unroll columns) */
    cute_tuple tile;    /* a block's step: rows (warps, 32 x vec x unroll); cols tc's tile */
    bool words;         /* NVFP4: A and x move and decode as u32 words of 8 e2m1 */
    bool fp4_cvt;       /* ... decoded by sm_100a's cvt.rn.f16x2.e2m1x2, not bit operations */
    bool pdl;           /* the second kernel a programmatic dependent launch (sm_90 on, split
                           K): let in as the first kernel's blocks start; in one launch, the
                           splitting kernel itself one */
    int arch;           /* the compile target's SM version (0: not known) */
    /* the tensor-core form (cfg.mma, mma.c): A's rows on mma.sync's 16-row side, the
     * vectors on its 8-column side; a block's tile (bm rows, bn vectors, bk columns) */
    cute_tiled_mma mma;
    int64_t bm, bn, bk, bkx; /* bkx: X's columns a step (bk is A's) */
    int kgroups;             /* gemv_mma_kgroups */
    /* NVFP4's ring (cfg.smem_stages, ring.c): tc's partitions by cp.async, A around L1, x
     * through it; a scale group's 4-byte cp.async */
    cute_tiled_copy ring_a, ring_x;
    cute_copy_atom ring_s;
    bool early;    /* the skew form as a dependent launch (pdl): its first two whole k-tiles asked of
                      L2 before the wait for the previous grid (CUTEC_GEMV_EARLY=0: not; skew.c) */
    bool pdl_self; /* sm_90 on, K-major rows, unsplit (CUTEC_GEMV_PDL=0: not): the kernel itself
                      a programmatic dependent launch, every thread waiting for the stream's
                      previous grid before its first global access, then letting the next grid
                      in (parts.c, gemv_let_dependents_in) */
} gemv_plan;

#define GEMV_MAX_ROWS 8



/* the K-major kernel's rows per warp: two for one vector of 8- or 16-bit elements, four for
 * several vectors, eight in the skew form (each load of x serves them all: with N vectors a
 * lane reads N/rows bytes of x through L1 for each byte of A); one for f32, whose loads
 * ptxas issues a few at a time whatever the rows, so that its bytes in flight come from warps
 * (two rows a warp left 4096x16384 at 15.5 warps an SM: 89.9% of the copy on an H100);
 * block-scaled: plan_make's */
static inline int gemv_rows_per_warp(const cute_gemv_config *cfg)
{
    if (cfg->a_major != 1 || cfg->sf_vec) return 1;
    /* skew.c reads x element by element (a warp instruction over 512 bytes, about 4 of L1's
     * cycles): 8 rows share each of its loads */
    if (cfg->vectors > 1 && cfg->skew) return 8;
    if (cfg->vectors > 1) return 4;
    return cute_dtype_bits(cfg->dtype) >= 32 ? 1 : 2;
}

static inline int gemv_nvec(const cute_gemv_config *cfg)
{
    return cfg->vectors > 0 ? cfg->vectors : 1;
}

/* K-major A: a warp per row (rows.c); M-major A: a thread per vector of rows (cols.c) */
void gemv_rows_host(cute_ctx *c, const cute_arg *arg);
void gemv_cols_host(cute_ctx *c, const cute_arg *arg);
/* K-major A whose rows start anywhere: 16-byte vectors between a scalar head and tail
 * (skew.c, cfg.skew) */
void gemv_skew_host(cute_ctx *c, const cute_arg *arg);
/* block-scaled (NVFP4, MXFP8) K-major A: the rows kernel's body with scales (blockscaled.c) */
void gemv_blockscaled_host(cute_ctx *c, const cute_arg *arg);
/* many vectors through mma.sync (mma.c): the plan's tiles and TiledMMA, and the host */
bool gemv_plan_mma(cute_alg *a, const cute_gemv_config *cfg, gemv_plan *p);
void gemv_mma_host(cute_ctx *c, const cute_arg *arg);
/* whether f32's mma.sync form (not wgmma) sums each 3xTF32 product apart, three chains of
 * mma.sync a vector atom: at one atom of vectors (session 42; docs/gemv.md) */
bool gemv_f32_chains(const cute_gemv_config *cfg, int arch);
/* the k groups of a tensor-core form's block: 2 for f32's ring (blocks of 8 warps on 64 rows,
 * warps (4, 1, 2): each group on its half of every k-tile of 64 columns, the second's sums
 * added into the first's at the end; one block an SM, one split at 8192 rows; session 42,
 * docs/gemv.md), else 1 */
int gemv_mma_kgroups(const cute_gemv_config *cfg);
/* the mma form's k-tile */
int64_t gemv_mma_k_tile(const cute_gemv_config *cfg);
/* A thread's MMA partition (V,M|N,K) regrouped as ((the leaves vec[0..nv): one row's 16
 * contiguous bytes), rest): the copy atom's vector first */
cute_tensor gemv_mma_by_vector(cute_ctx *c, cute_tensor t, const int *vec, int nv);
/* The tensor-core forms' block view of its split: A's row of tiles (bm, bk, k-tiles), X's as
 * (N,K) tiles (bn, bkx, k-tiles), their coordinates, the bounds (M, kend) and (N, kend). */
typedef struct gemv_mma_tiles {
    cute_tensor gA, gX, cA, cX;
    cute_tuple boundA, boundX;
    cute_int k0, kend, l, s;
} gemv_mma_tiles;
gemv_mma_tiles gemv_mma_block_tiles(cute_ctx *c, const gemv_plan *p, cute_tensor mA, cute_tensor mX,
                                    cute_int kchunk);
/* f32 values x as the two tf32 halves of 3xTF32 by bits (docs/gemv.md, "f32 as 3xTF32"):
 * big (x rounded to tf32, its low 13 bits clear, in u32 registers) and small (x - big, exact,
 * in f32 registers, or u32 ones where `words`: wgmma reads u32 words in place, where f32
 * ones would be moved and fenced before each instruction), both as TF32 views */
void gemv_split_tf32_bits(cute_ctx *c, cute_tensor x, cute_tensor *big, cute_tensor *small, bool words);
/* A tensor-core form's block: its accumulators (*acc, its partition of the block's (bm, bn)
 * tile of Y) zeroed, `walk(rows_out)` (rows_out: the block reaches past A's last row), then
 * gemv_mma_finish with e */
typedef struct gemv_mma_ends {
    cute_tensor mY, mW;
    cute_val alpha, beta;
} gemv_mma_ends;
typedef void (*gemv_mma_walk_fn)(cute_ctx *c, bool rows_out, void *user);
void gemv_mma_block(cute_ctx *c, const gemv_plan *p, cute_thr_mma thr, cute_tensor *acc, const gemv_mma_tiles *t,
                    cute_tensor mA, gemv_mma_ends e, gemv_mma_walk_fn walk, void *user);
/* f32 on sm_90's wgmma (wgmma.c), for target `arch` (90 only; the default there) where the
 * tensor-core form of f32 runs through registers (no ring) with vectors a multiple of 16, up
 * to GEMV_WGMMA_MAX_VECTORS */
#define GEMV_WGMMA_MAX_VECTORS 128
bool gemv_wgmma(const cute_gemv_config *cfg, int arch);
bool gemv_plan_wgmma(cute_alg *a, const cute_gemv_config *cfg, gemv_plan *p);
/* its kernel (mma.c's launches it: the same arguments and second kernel) */
void gemv_wgmma_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW, cute_int kchunk,
                       cute_val alpha, cute_val beta);
/* its A ring's stages: 6, fewer where a block's shared memory would not hold them (128 vectors:
 * 4) */
int gemv_wgmma_ring(const cute_gemv_config *cfg);
/* its blocks an SM (shared memory and registers), and its rows a block */
int gemv_wgmma_blocks(const cute_gemv_config *cfg);
int gemv_wgmma_rows(const cute_gemv_config *cfg);
/* the mma form's rows a block (16 a warp), and its blocks an SM: 16 warps up to 64 vectors
 * (registers), 8 past; fewer where its ring (cfg.smem_stages) leaves too little shared memory */
int gemv_mma_rows(const cute_gemv_config *cfg, int arch);
/* a block's bytes of the mma form's ring (0: none); at most GEMV_MMA_RING_MAX */
int64_t gemv_mma_ring_bytes(const cute_gemv_config *cfg);
#define GEMV_MMA_RING_MAX cute_cuda_arch_smem_per_block(90) /* sm_90's, the most a block of any target opts in to */
int gemv_mma_blocks(const cute_gemv_config *cfg, int arch);

/* The rows and cols host functions' arguments, A (M,K,L), x (K,N,L), y, the split-K
 * workspace W, kchunk, alpha, beta, with x broadcast as A (gemv_broadcast_x), and their
 * kernel's launch: blocks of `rows` rows of A, one per split of K, per batch. */
typedef struct gemv_host_args {
    cute_tensor mA, xb, mY, mW;
    cute_tensor counts; /* cfg.one_launch: the row groups' counters (argument 7, or 8 with skew) */
    cute_int kchunk;
    cute_host_scalar alpha, beta;
    cute_launch_cfg launch;
} gemv_host_args;
gemv_host_args gemv_host_unpack(cute_ctx *c, const cute_arg *arg, int64_t rows);

/* the number of K splits, ceil(K / kchunk), and 1 for K = 0 (whose one split writes
 * y = beta y) */
cute_int gemv_splits(cute_ctx *c, cute_int K, cute_int kchunk);

/* x (K,N,L) as N matrices shaped like A, (M,K,N,L):(0,1,ldn,ldl): every row reads the
 * vector, so it is partitioned exactly as A is */
cute_tensor gemv_broadcast_x(cute_ctx *c, cute_tensor mX, cute_int M);

/* A block's work: its row of tiles (TileM, TileK, RestK) of A, of each vector's view and of
 * A's coordinates, from the split's first column k0 on; the coordinates' bound (M, kend);
 * the block's batch l and split s (block indices 1 and 2). */
typedef struct gemv_tiles {
    cute_tensor gA, gX[CUTE_GEMV_MAX_VECTORS], cA;
    cute_tuple bound;
    cute_int k0, kend, l, s;
} gemv_tiles;
gemv_tiles gemv_block_tiles(cute_ctx *c, const gemv_plan *p, cute_tensor mA, cute_tensor mX,
                            cute_int kchunk);
/* ... its split and batch alone: s, l and the split's K range [k0, kend) of K (the skew form,
 * which tiles no rows) */
gemv_tiles gemv_block_split(cute_ctx *c, const gemv_plan *p, cute_int K, cute_int kchunk);

/* A thread's start in a block's tiles: its slice of the TiledCopy, the partition of the
 * first tile's coordinates (its first row and column), and (acc) one f32 accumulator per
 * vector shaped like that partition, zeroed. */
typedef struct gemv_thread {
    cute_thr_copy thr;
    cute_tensor first, acc[CUTE_GEMV_MAX_VECTORS];
} gemv_thread;
gemv_thread gemv_thread_start(cute_ctx *c, const gemv_plan *p, const gemv_tiles *t, bool acc);

/* The K-major kernels' lane: row r of its partition ((vec, rows), 1, unroll) of a k-tile
 * (vec elements, or words, of each row; the rest along K) */
cute_tensor gemv_lane_row(cute_ctx *c, const gemv_plan *p, cute_tensor t, int r);
/* src copied into a new register fragment with the plan's atom; where crd is given, only
 * the vectors whose coordinates are inside `bound` (the others zero) */
cute_tensor gemv_load_part(cute_ctx *c, const gemv_plan *p, cute_tensor src, const cute_tensor *crd,
                           cute_tuple bound);

/* A K-major kernel's work on one k-tile at `at` (pred: bounds-check every vector), and the
 * end of a warp's rows from row0 on (rows past M are not written) */
typedef void (*gemv_tile_fn)(cute_ctx *c, const gemv_plan *p, const gemv_thread *th,
                             const gemv_tiles *t, cute_tuple at, bool pred, void *user);
typedef void (*gemv_rows_end_fn)(cute_ctx *c, const gemv_plan *p, cute_int row0, void *user);
/* A warp's rows over its split of K in k-tiles of tk: a warp whose rows are all in A runs
 * its full k-tiles unpredicated and the partial last one predicated; one past A's last row
 * predicates every tile; then `end` */
void gemv_warp_rows(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                    cute_int M, int64_t tk, gemv_tile_fn tile, gemv_rows_end_fn end, void *user);
/* ... with the in-bounds warp's `full` whole k-tiles walked by `whole` where given (a
 * kernel that loads the next k-tile before this one's products) */
typedef void (*gemv_whole_fn)(cute_ctx *c, const gemv_plan *p, const gemv_thread *th,
                              const gemv_tiles *t, cute_int full, void *user);
typedef struct gemv_walk {
    gemv_tile_fn tile;
    gemv_whole_fn whole; /* NULL: `tile` on each */
    gemv_rows_end_fn end;
    void *user;
} gemv_walk;
void gemv_warp_rows_by(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                       cute_int M, int64_t tk, const gemv_walk *w);

/* The end of a product: the f32 sums `acc` (rank 1, n of them) of rows m0 .. m0+n-1 of
 * vector v of batch l, split s: to the workspace W (M,N,L,S) when the plan splits K, else
 * y = alpha acc + beta y in f32, rounded once to y's dtype.  Rows past M are not touched. */
void gemv_finish(cute_ctx *c, const gemv_plan *p, cute_tensor acc, cute_int m0, int v,
                 cute_tensor mY, cute_tensor mW, const gemv_tiles *t, cute_val alpha,
                 cute_val beta);
/* y = alpha acc + beta y where pred holds, in f32, rounded once to y's dtype; beta == 0
 * reads no y (BLAS's rule) */
void gemv_scale_into(cute_ctx *c, cute_tensor acc, cute_tensor y, cute_ssa pred, cute_val alpha,
                     cute_val beta);
/* the K-major kernels' end: each vector's lane sums added over the warp, lane 0 finishing
 * row `row` */
void gemv_finish_warp(cute_ctx *c, const gemv_plan *p, const cute_val *sums, cute_int row,
                      cute_tensor mY, cute_tensor mW, const gemv_tiles *t, cute_val alpha,
                      cute_val beta);
/* the splitting kernel's blocks letting the second kernel in (p->pdl: it then waits for the
 * whole grid before it reads W); in one launch (cfg.one_launch: the kernel itself a
 * dependent launch) or as its own dependent launch (p->pdl_self), first the wait for the
 * stream's previous grid, then the next grid let in; nothing otherwise */
void gemv_let_dependents_in(cute_ctx *c, const gemv_plan *p);
/* Split-K in one launch (cfg.one_launch): the block's verdict slot (shared memory, allocated at
 * the kernel's top level; nothing otherwise), and the kernel's end: every thread of the block
 * runs it after the block's partials are in W; the block of the row group (`rows` rows from
 * block index 0 times rows, batch t->l) that counts in last on its counter adds every
 * split's parts in a fixed order and writes y (docs/gemv.md, "Split-K in one launch") */
cute_tensor gemv_last_slot(cute_ctx *c, const gemv_plan *p);
void gemv_last_block_end(cute_ctx *c, const gemv_plan *p, cute_tensor mY, cute_tensor mW, cute_tensor counts,
                         cute_tensor slot, const gemv_tiles *t, int rows, cute_val alpha, cute_val beta);
/* the launch of the ordered reduction of W's splits into y (split-K's second kernel) */
void gemv_reduce_launch(cute_ctx *c, const gemv_plan *p, cute_tensor mY, cute_tensor mW,
                        cute_host_scalar alpha, cute_host_scalar beta);

/* A call's operands, checked and made batched: A (M,K,L), x (K,N,L), y (M,N,L); A's
 * unit-stride mode and the vector width every address, stride and extent the kernel steps
 * allows. */
typedef struct gemv_operands {
    cute_call_arg A, x, y;
    int major, vec;
} gemv_operands;
/* CUTE_ERR_INVALID, with the message formatted into err */
cute_status gemv_invalid(char *err, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* CUTE_ERR_INVALID and the reason, in words naming the operand, for a malformed call;
 * vectors: x and y carry the vectors' mode (cutec_gemv_vectors) */
cute_status gemv_check(const cute_call_arg *A, const cute_call_arg *x, const cute_call_arg *y,
                       bool vectors, double alpha, double beta, gemv_operands *out, char *err,
                       size_t n);

/* The skinny GEMM's many vectors on the Hopper GEMM kernel (hopper.c; the library's choice):
 * whether it takes o (sm_90, 16-bit A and y, K-major A, one batch, 8 to 128 vectors against
 * more than 128 rows, every operand as TMA takes it), and the call through `gemm` */
bool gemv_hopper_takes(cute_runtime *rt, const gemv_operands *o);
cute_status gemv_hopper_call(cute_gemm_lib *gemm, const gemv_operands *o, double alpha, double beta, void *stream,
                             char *err, size_t n);

/* the distance of the L2 prefetch of later calls (cute_gemv_lib_l2_prefetch) */
int gemv_lib_l2_prefetch(cute_gemv_lib *lib);
/* the SMs the library's device has (a few on the interpreter) */
int gemv_lib_sm_count(cute_gemv_lib *lib);
/* the NVFP4 ring's stages for later calls, the library's choice made (0: none; the device's
 * arch before sm_80 has no cp.async) */
int gemv_lib_smem_stages(cute_gemv_lib *lib);
/* NVFP4's k-tiles one at a time for later calls (cute_gemv_lib_tile_at_a_time) */
bool gemv_lib_tile_at_a_time(cute_gemv_lib *lib);
/* NVFP4's register form's k-tiles ahead asked for later calls (cute_gemv_lib_ahead; 0: the
 * library's) */
int gemv_lib_ahead(cute_gemv_lib *lib);
/* NVFP4's decode on the FMA pipe asked for later calls (cute_gemv_lib_fma_decode; -1: the
 * library's, 0 on sm_100a and later) */
int gemv_lib_fma_decode(cute_gemv_lib *lib);
/* a configuration's k-tiles ahead in NVFP4's register form (cfg.ahead, at least 1) */
static inline int gemv_ahead(const cute_gemv_config *cfg)
{
    return cfg->ahead > 1 ? cfg->ahead : 1;
}

/* The lane's 128-byte line of k-tile kt + cfg.l2_prefetch of the warp's `rows` rows (from
 * block-tile row r0) of gA (TileM, tk, RestK) asked of L2 (the kernels' unpredicated k-tiles;
 * docs/gemv.md, "The next k-tiles into L2") */
void gemv_prefetch_tile(cute_ctx *c, const gemv_plan *p, cute_tensor gA, cute_int r0, int rows, int64_t tk,
                        cute_int kt, cute_int k0, cute_int kend);
/* ... for the row kernels, whose warps own p->rows rows each: the next k-tiles of k-tile
 * `at`'s, where cfg.l2_prefetch is set and the tile unpredicated */
void gemv_prefetch_warp_rows(cute_ctx *c, const gemv_plan *p, const gemv_tiles *t, cute_tuple at, bool pred);
/* a run of `width` scale elements at crd0 of the (rows, K-groups, L) scale tensor sf, then the
 * same run every k-tile: (width, full):(1, step), step the layout's offset of `per_tile`
 * groups along K (a k-tile is a whole number of them, so a loop advances the address) */
cute_tensor gemv_scales_by_tile(cute_ctx *c, cute_tensor sf, cute_tuple crd0, int width, int64_t per_tile,
                                cute_int full);

/* blocks of `bytes` of shared memory each that an SM holds (an H100's or H200's 228 KB, 1 KB
 * of it a block's), 1 to most */
int gemv_smem_blocks(int64_t bytes, int most);

/* The K-major kernels' shared-memory ring (cfg.smem_stages, ring.c): a warp's whole k-tiles
 * of A's rows and x (and NVFP4's scale groups) streamed through stages of shared memory of
 * its own by cp.async, stages - 1 k-tiles ahead of its products */
typedef struct gemv_ring {
    cute_tensor sA;       /* (block rows, k-tile, stages) */
    cute_tensor sX;       /* ((rows, warps), k-tile, stages): a warp's x, each row its row 0 */
    cute_tensor sS;       /* NVFP4: (32 lanes, rows + 1, warps, stages) u32, a lane's scale groups */
    cute_tensor gSa, gSb; /* ... A's and x's scales as u32 groups of four (rows, K / 64, L) */
    bool scales;
} gemv_ring;
/* a stage read into registers: the lane's fragments of A and x, as the k-tile's loads give
 * them, and (NVFP4) its scale pairs as u16, its rows' then x's */
typedef struct gemv_ring_tile {
    cute_tensor rA, rX, pair[GEMV_MAX_ROWS + 1];
} gemv_ring_tile;
typedef void (*gemv_ring_fn)(cute_ctx *c, const gemv_plan *p, const gemv_ring_tile *f, void *user);
/* the blocks an SM a ring asks for at most */
#define GEMV_RING_BLOCKS 5
/* a block's bytes of ring, and the blocks an SM its shared memory holds (at most
 * GEMV_RING_BLOCKS) */
int64_t gemv_ring_bytes(const gemv_plan *p);
int gemv_ring_blocks(const gemv_plan *p);
/* the ring's shared memory (at the kernel's top level), and NVFP4's scale groups from the raw
 * 4-byte aligned scale buffers (NULL: none); M, K, L: A's extents (words for NVFP4) */
gemv_ring gemv_ring_make(cute_ctx *c, const gemv_plan *p, const cute_tensor *sfa, const cute_tensor *sfb,
                         cute_int M, cute_int K, cute_int L);
/* the in-bounds warp's `full` whole k-tiles through the ring, fn on each stage read */
void gemv_ring_walk(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                    const gemv_ring *r, cute_int full, gemv_ring_fn fn, void *user);

/* the library's compiled function for cfg (compiled the first time), or NULL and why */
const cute_fn *gemv_lib_fn(cute_gemv_lib *lib, const cute_gemv_config *cfg, char *err, size_t n);

/* the GEMV kernels' arguments: A, x, y, the splits' workspace, the split's K extent, alpha,
 * beta (7), skew's misalignment of A[0,0,0], then split-K in one launch's counters: their
 * index, and how many arguments there are */
static inline int gemv_counts_arg(const cute_gemv_config *cfg)
{
    return 7 + cfg->skew;
}
static inline int gemv_nargs(const cute_gemv_config *cfg)
{
    return gemv_counts_arg(cfg) + cfg->one_launch;
}

#endif
