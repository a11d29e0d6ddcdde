/* The plans of the multi-stage family (multistage.c): tiles, atoms and shared-memory layouts
 * per variant and dtype, as CuTe DSL's ampere/tensorop_gemm.py builds them.
 *
 *   step 3 (multistage)   f32/f64 FMA; cp.async of one element (4/8 bytes) per copy, so a
 *                         K-major operand can be stored M-major (each thread's fragment is a
 *                         run of rows, as in the pipelined kernel)
 *   step 4 (tensorop)     mma.sync; operands stored as they come (K- or M-major) in swizzled
 *                         128-byte rows; ldmatrix (.trans for M-major) into the fragments
 *   step 5 (tensorop_smem) step 4 with C through shared memory (epilogue_smem.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/cuda_arch.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/kernel_env.h"

/* A (rows, cols[, stages]) buffer whose mode `major` is contiguous, built from CuTe's SM80
 * swizzle atom (128-byte lines, the 16-byte chunks of 8 consecutive lines in 8 different
 * bank groups) tiled over the whole buffer: the operands' stages and C's tile. */
static cute_composed swizzled(cute_alg *a, cute_dtype d, int major, int64_t rows, int64_t cols,
                              int stages)
{
    cute_composed atom = cute_smem_atom_sm80(a, d, major == 1 ? CUTE_MAJOR_K : CUTE_MAJOR_MN,
                                             major == 1 ? cols : rows, 128);
    cute_tuple shape = stages ? cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)rows, (long long)cols, stages)
                              : cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)cols);
    return cute_smem_layout_staged(a, &atom, &shape);
}

/* The (rows, bk, stages) buffer of an 8-bit MN-major operand read through LDSM8_MN: atoms of
 * 16 lines of 128 rows (bytes), one k each, the 16-byte chunks of a line XORed with bits
 * 1-3 of its k (Swizzle<3,4,4>).  An ldmatrix phase reads one chunk of k = 2r + c
 * (r < 8): eight different bank groups. */
static cute_composed pairs_stages(cute_alg *a, int64_t rows, int64_t bk, int stages)
{
    int lg = 4; /* lines of w = 2^lg rows, at least the 16 of one ldmatrix row (rows: 16 wm) */
    while (lg < 7 && ((int64_t)2 << lg) <= rows) lg++;
    cute_layout L = cute_layout_fmt(a, "(%d,16):(1,%d)", 1 << lg, 1 << lg);
    /* the 2^(lg-4) chunks of a line XORed with k's bits 1.. (address bits lg+1..) */
    cute_composed atom = cute_make_composed(a, (cute_swizzle){lg - 4, 4, lg - 3}, cute_i(0), &L);
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%lld,%d)", (long long)rows, (long long)bk, stages);
    return cute_smem_layout_staged(a, &atom, &shape);
}

/* The (rows, bk, stages) buffer of step 3: rows contiguous, the column padded by 16 bytes
 * for K-major sources (their element-wise stores then spread over the banks), no swizzle. */
static cute_composed padded_stages(cute_alg *a, cute_dtype d, int major, int64_t rows, int64_t bk,
                                   int stages)
{
    int64_t ld = rows + (major == 1 ? 16 / cute_dtype_bytes(d) : 0);
    cute_layout L = cute_layout_fmt(a, "(%lld,%lld,%d):(1,%lld,%lld)", (long long)rows, (long long)bk,
                                    stages, (long long)ld, (long long)(ld * bk));
    return cute_make_composed(a, (cute_swizzle){0, 0, 0}, cute_i(0), &L);
}

/* A TiledCopy of `atom` (moving vec elements per thread) over a (rows, cols) tile whose mode
 * `major` is contiguous: threads run along that mode first, vec values each, at most `along`
 * of them (ampere/tensorop_gemm.py's _make_gmem_tiled_copy_AB / _C). */
static cute_tiled_copy tile_copy_along(cute_alg *a, const cute_copy_atom *atom, int64_t rows, int64_t cols,
                                       int threads, int vec, int major, int64_t along)
{
    cute_layout thr, val;
    int64_t extent = major == 1 ? cols : rows;
    if (along > extent / vec) along = extent / vec;
    if (along > threads) along = threads;
    if (major == 1) {
        int64_t tc = along;
        thr = cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", (long long)(threads / tc), (long long)tc, (long long)tc);
        val = cute_layout_fmt(a, "(1,%d):(0,1)", vec);
    } else {
        int64_t tr = along;
        thr = cute_layout_fmt(a, "(%lld,%lld):(1,%lld)", (long long)tr, (long long)(threads / tr), (long long)tr);
        val = cute_layout_fmt(a, "(%d,1):(1,0)", vec);
    }
    return cute_make_tiled_copy_tv(a, atom, &thr, &val);
}

static cute_tiled_copy tile_copy(cute_alg *a, const cute_copy_atom *atom, int64_t rows, int64_t cols,
                                 int threads, int vec, int major)
{
    return tile_copy_along(a, atom, rows, cols, threads, vec, major, threads);
}

/* The global -> shared atom for `bytes`-wide pieces: cp.async of 16 bytes bypassing L1
 * (CACHEGLOBAL), of 4 or 8 through it (CACHEALWAYS: .cg takes only 16); narrower than 4
 * bytes cp.async cannot go, and the copy is a plain load and store of one element. */
cute_copy_atom gemm_g2s_atom(cute_alg *a, cute_dtype d, int bytes)
{
    cute_copy_atom atom;
    memset(&atom, 0, sizeof atom);
    const char *name = bytes >= 16 ? "SM80_CP_ASYNC_CACHEGLOBAL<uint128>"
                     : bytes == 8  ? "SM80_CP_ASYNC_CACHEALWAYS<uint64>"
                     : bytes == 4  ? "SM80_CP_ASYNC_CACHEALWAYS<uint32>" : NULL;
    if (!name) return cute_copy_atom_universal(a, d, 8 * cute_dtype_bytes(d));
    cute_copy_atom_named(a, name, d, &atom);
    return atom;
}

/* step 3: the pipelined kernel's FMA tiling over multi-stage cp.async buffers */
static bool plan_fma(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p)
{
    cute_dtype d = cfg->dtype;
    int esize = cute_dtype_bytes(d), per = d == CUTE_F64 ? 2 : 4;
    p->threads = 256, p->stages = 4, p->raster = 1;
    p->bm = p->bn = d == CUTE_F64 ? 64 : 128;
    p->bk = 16;
    cute_mma_atom fma = cute_mma_atom_universal(a, d);
    cute_layout atoms = cute_layout_parse(a, "(16,16,1):(16,1,0)");
    cute_layout pl = cute_layout_fmt(a, "(16,%d):(%d,1)", per, per);
    cute_tiler perm = cute_tiler_layout(&pl);
    p->mma = cute_make_tiled_mma(a, &fma, &atoms, &perm, &perm, NULL);
    for (int op = 0; op < 2; op++) {
        int major = cfg->major[op];
        /* M-major sources move align_bytes per cp.async; K-major ones one element */
        int bytes = major == 0 ? gemm_vector_bytes(cfg, d) : esize;
        cute_copy_atom cp = gemm_g2s_atom(a, d, bytes);
        if (a->failed) return false;
        int64_t rows = op == 0 ? p->bm : p->bn;
        cute_tiled_copy t = tile_copy(a, &cp, rows, p->bk, p->threads, bytes / esize, major);
        *(op == 0 ? &p->copy_a : &p->copy_b) = t;
        *(op == 0 ? &p->smem_a : &p->smem_b) = padded_stages(a, d, major, rows, p->bk, p->stages);
        cute_copy_atom s2r = cute_copy_atom_autovec(a, d);
        *(op == 0 ? &p->s2r_a : &p->s2r_b) = cute_make_tiled_copy_mma(a, &s2r, &p->mma, op == 0 ? CUTE_MMA_A : CUTE_MMA_B);
    }
    return !a->failed;
}

bool gemm_plan_multistage(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    if (cfg->variant == CUTE_GEMM_MULTISTAGE) return plan_fma(a, cfg, p);
    return gemm_plan_tensorop(a, cfg, arch, p, cfg->variant == CUTE_GEMM_TENSOROP_SMEM);
}

/* --- steps 4 and 5: mma.sync ------------------------------------------------------------ */

/* The tensor-core tiling of one input dtype: the MMA atom, the block's warps over M and N,
 * the tiles, and the ldmatrix atoms by major mode ("" where ldmatrix cannot take that mode:
 * the fragments are then read element by element). */
typedef struct tc_shape {
    cute_dtype d;
    int arch;        /* the tiling is for targets from sm_<arch> on */
    const char *mma;
    int64_t bm, bn, bk;
    int stages;
    const char *ldsm_k, *ldsm_mn; /* K-major / MN-major operands */
    gemm_prefetch prefetch; /* the faster on the H200 (bench/RESULTS.md) */
    int until;   /* 0, or the first sm_<until> the tiling is not for */
} tc_shape;

/* 8-bit MN-major operands: ldmatrix.trans of byte pairs and prmt (atom_rows.c), A's and B's
 * register orders; the fragments' rows (columns) 2g and 2g+1 become the MMA's g and g+8 */
#define LDSM8_MN "SM75_U8x16_LDSM_T_PRMT_"

/* 8 warps as 4 x 2 (the default warps_m is then 4), each 64 x 64 of C per k-block:
 * 256 x 128 tiles, 3 stages of 64 (16-bit) or 128 (8-bit) k in 144 KB of shared memory.
 * Measured on the H200 (bench/RESULTS.md, bf16 8192^3): 486 TFLOP/s, against 455 for
 * 128x256x32 in 4 stages, 481 with 4 stages of 64, 449 for 128x256x64, 428-446 for 128x128
 * tiles at two blocks per SM.  f64's DMMA reads its fragments element by element (ldmatrix
 * moves 16-bit pieces). */
static const tc_shape tc_shapes[] = {
    /* f16 on sm_90: 4 stages (192 KB), ahead of 3 in all three rounds of sm80_43's final pass in
     * one process (+0.49 / +0.55 / +0.68 points at 4096^3; bf16 +0.18, kept at 3); measured on
     * the H200 only, and 192 KB is past sm_120's block: later targets keep 3 */
    {CUTE_F16, 90, "SM80_16x8x16_F32F16F16F32_TN", 256, 128, 64, 4, "SM75_U32x4_LDSM_N", "SM75_U16x8_LDSM_T", GEMM_PREFETCH_ACROSS, 100},
    {CUTE_F16, 80, "SM80_16x8x16_F32F16F16F32_TN", 256, 128, 64, 3, "SM75_U32x4_LDSM_N", "SM75_U16x8_LDSM_T", GEMM_PREFETCH_ACROSS, 0},
    {CUTE_BF16, 80, "SM80_16x8x16_F32BF16BF16F32_TN", 256, 128, 64, 3, "SM75_U32x4_LDSM_N", "SM75_U16x8_LDSM_T", GEMM_PREFETCH_ACROSS, 0},
    {CUTE_I8, 80, "SM80_16x8x32_S32S8S8S32_TN", 256, 128, 128, 3, "SM75_U32x4_LDSM_N", LDSM8_MN, GEMM_PREFETCH_ACROSS, 0},
    /* tf32: f32 in memory, 4-byte values (ldmatrix moves them K-major only) */
    {CUTE_TF32, 80, "SM80_16x8x8_F32TF32TF32F32_TN", 256, 128, 32, 3, "SM75_U32x4_LDSM_N", "", GEMM_PREFETCH_ACROSS, 0},
    /* fp8 fragments carried across the back edge spill 1.5 KB: within tiles, 2.3x faster.
     * sm_90 has no fp8 mma.sync: ptxas's own lowering (two HMMA from zero, four FADDs of C)
     * spilled 68-104 bytes here; as f16 steps into C (ir_insts.def) none, and no FADDs
     * (sm_90 only: untried on later targets, which keep CuTe's row).  sm_90's reads each
     * k-block just before its MMAs, ptxas scheduling them (226 registers against 240 one
     * ahead within tiles): ahead in 15 of 16 comparisons, 1.6 / 1.1 points of f16's ceiling
     * at 4096^3 / 8192^3 in the last (bench/RESULTS.md, s8_42) */
    {CUTE_E4M3, 90, "SM89_16x8x32_F32E4M3E4M3F32_TN_VIA_F16", 256, 128, 128, 3, "SM75_U32x4_LDSM_N", LDSM8_MN, GEMM_PREFETCH_NONE, 100},
    {CUTE_E5M2, 90, "SM89_16x8x32_F32E5M2E5M2F32_TN_VIA_F16", 256, 128, 128, 3, "SM75_U32x4_LDSM_N", LDSM8_MN, GEMM_PREFETCH_NONE, 100},
    {CUTE_E4M3, 89, "SM89_16x8x32_F32E4M3E4M3F32_TN", 256, 128, 128, 3, "SM75_U32x4_LDSM_N", LDSM8_MN, GEMM_PREFETCH_WITHIN, 0},
    {CUTE_E5M2, 89, "SM89_16x8x32_F32E5M2E5M2F32_TN", 256, 128, 128, 3, "SM75_U32x4_LDSM_N", LDSM8_MN, GEMM_PREFETCH_WITHIN, 0},
    /* Hopper's DMMA shapes run at twice m8n8k4's rate (bench mma: 66.6 against 33.1 TFLOP/s).
     * f64 is bound by shared memory: 2 x 2 warps of 64 x 32 (each A value read feeds 4 DMMA,
     * each B value 4), k8 fragments read 16 bytes at a time without bank conflicts
     * (f64_perms), ptxas scheduling the reads (a second set of fragments spills) */
    {CUTE_F64, 90, "SM90_16x8x8_F64F64F64F64_TN", 128, 64, 16, 4, "", "", GEMM_PREFETCH_NONE, 0},
    {CUTE_F64, 80, "SM80_8x8x4_F64F64F64F64_TN", 64, 64, 16, 3, "", "", GEMM_PREFETCH_WITHIN, 0},
};

/* the first tiling of d for the target (arch 0, unknown: those of sm_89 and older, which
 * the interpreter runs) */
static const tc_shape *tc_shape_of(cute_dtype d, int arch)
{
    if (arch == 0) arch = 89; /* sm_89's fp8 rows too: the interpreter runs them */
    for (size_t i = 0; i < sizeof tc_shapes / sizeof tc_shapes[0]; i++)
        if (tc_shapes[i].d == d && tc_shapes[i].arch <= arch && (!tc_shapes[i].until || arch < tc_shapes[i].until))
            return &tc_shapes[i];
    return NULL;
}

/* f64's fragments are read from shared memory element by element (ldmatrix moves 16-bit
 * pieces); on K-major tiles renumberings (CuTe's permutation_mnk) make those reads wide and
 * free of bank conflicts.  A product over K may take its terms in any order A and B agree
 * on, and rows of A and C (B and C) may be renumbered together.  Lane (g, t) of the atom
 * reads rows g (and g+8) at k = t + 4i (i < v = atom k / 4); the swizzle puts 16-byte
 * chunk c of line r at c ^ (r % 8).
 *   16-byte reads: K (4,v):(v,1) puts a lane's k at v t + i, v consecutive values (LDS.128
 *      pairs).  With v = 2 a quarter warp (lanes 0-7: rows 0 and 1) then reads the same
 *      64-byte half of two lines, which the swizzle sends to the same banks: rows
 *      (2,4):(4,1) put those two on lines 0 and 4, the other half.  (v = 4: the pairs of a
 *      quad are 32 bytes apart, and the swizzle separates them.)
 *   8-byte reads (read_bytes 8): K in order; a half warp (rows 0-3) reads 32 bytes of each
 *      of four lines, which rows (4,2):(2,1) put on lines 0, 2, 4, 6: four disjoint
 *      quarters of the banks.  Each value lands in its DMMA register (a 16-byte read holds
 *      A's a0 and a2, which ptxas must move apart).
 * kperm: the K permutation's layout ("": the atom's k in order); rows: each 8 rows'
 * renumbering, shape and stride (NULL: none). */
static void f64_perms(const cute_gemm_config *cfg, const cute_mma_atom *atom, char kperm[32], const char *rows[2])
{
    int v = (int)atom->k / 4;
    kperm[0] = 0, rows[0] = rows[1] = NULL;
    if (cfg->dtype != CUTE_F64 || cfg->major[0] != 1 || cfg->major[1] != 1 || atom->m != 16 || v < 2)
        return;
    if (cfg->tiling.read_bytes == 8) {
        rows[0] = "(4,2)", rows[1] = "(2,1)";
        return;
    }
    snprintf(kperm, 32, "(4,%d):(%d,1)", v, v);
    if (v == 2) rows[0] = "(2,4)", rows[1] = "(4,1)";
}

/* does operand op come from an MN-major 8-bit tile through LDSM8_MN? */
static bool pairs_mn(const tc_shape *s, const cute_gemm_config *cfg, int op)
{
    return cfg->major[op] == 0 && !strcmp(s->ldsm_mn, LDSM8_MN);
}

/* the tiled MMA: warps wm x wn, each atom repeated so that one ldmatrix.x4 feeds it (N
 * doubled, as ampere/tensorop_gemm.py's permutation_mnk does); f64's renumberings above.
 * An operand read through LDSM8_MN holds rows (columns) 2g and 2g+1 where the atom has g
 * and g+8: M's logical (g, +8, warp) at 2g + 1 + 16 warp; N's (g, warp, second atom) at
 * 2g + 16 warp + 1, so that each ldmatrix row is 16 consecutive m (n) of one k. */
static cute_tiled_mma tc_mma(cute_alg *a, const tc_shape *s, const cute_gemm_config *cfg, const cute_mma_atom *atom,
                             int wm, int wn)
{
    char kperm[32];
    const char *rows[2];
    f64_perms(cfg, atom, kperm, rows);
    cute_layout warps = cute_layout_fmt(a, "(%d,%d,1):(1,%d,0)", wm, wn, wm);
    /* M: atoms of 16 rows (g, g+8) per warp, each 8 renumbered; N: two atoms of 8 per warp */
    char m[64], n[64];
    if (rows[0]) {
        snprintf(m, sizeof m, "((%s,2),%d):((%s,8),16)", rows[0], wm, rows[1]);
        snprintf(n, sizeof n, "(%s,%d):(%s,8)", rows[0], 2 * wn, rows[1]);
    } else {
        snprintf(m, sizeof m, "%lld:1", (long long)(wm * atom->m));
        snprintf(n, sizeof n, "%lld:1", (long long)(wn * atom->n * 2));
        if (pairs_mn(s, cfg, 0)) snprintf(m, sizeof m, "((8,2),%d):((2,1),16)", wm);
        if (pairs_mn(s, cfg, 1)) snprintf(n, sizeof n, "(8,%d,2):(2,16,1)", wn);
    }
    cute_layout lm = cute_layout_parse(a, m), ln = cute_layout_parse(a, n);
    cute_layout lk = kperm[0] ? cute_layout_parse(a, kperm) : cute_layout_fmt(a, "%lld:1", (long long)atom->k);
    cute_tiler pm = cute_tiler_layout(&lm), pn = cute_tiler_layout(&ln), pk = cute_tiler_layout(&lk);
    return cute_make_tiled_mma(a, atom, &warps, &pm, &pn, &pk);
}

/* shared -> registers for operand op: ldmatrix where the row has one, else the fragments'
 * own elements with the widest accesses the layout proves */
static cute_tiled_copy tc_s2r(cute_alg *a, const tc_shape *s, const gemm_plan *p, int op)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", p->cfg.major[op] == 1 ? s->ldsm_k : s->ldsm_mn,
             pairs_mn(s, &p->cfg, op) ? (op == 0 ? "A" : "B") : "");
    cute_copy_atom atom;
    if (name[0])
        cute_copy_atom_named(a, name, s->d, &atom);
    else
        atom = cute_copy_atom_autovec(a, s->d);
    return cute_make_tiled_copy_mma(a, &atom, &p->mma, op == 0 ? CUTE_MMA_A : CUTE_MMA_B);
}

/* C's tile of `smem` dtype and its copy, whose threads run at most `along` along C's
 * contiguous mode */
static void c_tile(cute_alg *a, gemm_plan *p, int threads, int64_t cols, cute_dtype smem, int64_t along)
{
    cute_dtype cd = cute_gemm_c_dtype(&p->cfg);
    int major = p->cfg.major[2], bytes = gemm_vector_bytes(&p->cfg, cd);
    int vec = bytes / cute_dtype_bytes(cd);
    p->smem_c_dtype = smem;
    p->smem_c = swizzled(a, smem, major, p->bm, cols, 0);
    cute_copy_atom st = cute_copy_atom_universal(a, cd, 8 * bytes);
    p->copy_c = tile_copy_along(a, &st, p->bm, cols, threads, vec, major, along);
}

void gemm_plan_c_tile(cute_alg *a, gemm_plan *p, int threads, int64_t cols)
{
    c_tile(a, p, threads, cols, cute_gemm_c_dtype(&p->cfg), threads);
}

/* Step 5's tile in shared memory holds the accumulators (f32, s32, f64) where they fit over
 * the stages or in C's own size, else C's dtype (plan and epilogue_smem.c).  The copy that
 * reads it back in 16-byte runs of C's unit-stride mode (32 bytes of f32 accumulators for a
 * run of bf16) has its threads run along that mode only as far as one 128-byte line of the
 * tile, so the 8 lanes of each phase of a 16-byte read hit one swizzled line: conflict-free
 * (32 threads along it read two lines a phase, twice the wavefronts). */
static void tc_c_tile(cute_alg *a, gemm_plan *p)
{
    cute_dtype cd = cute_gemm_c_dtype(&p->cfg), acc = (cute_dtype)p->mma.atom.c_type;
    int64_t stages = (int64_t)p->stages * (p->bm + p->bn) * p->bk * cute_dtype_bytes(p->cfg.dtype);
    int64_t tile = p->bm * p->bn, fits = stages > tile * cute_dtype_bytes(cd) ? stages : tile * cute_dtype_bytes(cd);
    cute_dtype smem = tile * cute_dtype_bytes(acc) <= fits ? acc : cd;
    int vec = gemm_vector_bytes(&p->cfg, cd) / cute_dtype_bytes(cd);
    int64_t along = 128 / (vec * cute_dtype_bytes(smem));
    c_tile(a, p, p->threads, p->bn, smem, along > 0 ? along : 1);
}

int64_t gemm_tensorop_default_smem(cute_dtype d, int arch)
{
    const tc_shape *s = tc_shape_of(d, arch);
    return s ? s->stages * (s->bm + s->bn) * s->bk * cute_dtype_bytes(d) : 0;
}

/* The shared memory a block may take on sm_<arch>: the architecture's table (99 KB on sm_120
 * too); 0, the interpreter with no target, and a target the table lacks: sm_90's */
static int64_t smem_per_block(int arch)
{
    int known = cute_cuda_arch_smem_per_block(arch);
    return known ? known : cute_cuda_arch_smem_per_block(90);
}

/* the bytes of one k-tile of A and B together: a stage */
static int64_t stage_bytes(const gemm_plan *p)
{
    return (p->bm + p->bn) * p->bk * cute_dtype_bytes(p->cfg.dtype);
}

/* a block's share of an SM's shared memory where two blocks an SM run (each with its 1 KB of
 * reserve), and the blocks an SM of `threads` threads whose `bytes` fit: two where their
 * registers (up to 4 warps) and shared memory allow */
static int64_t half_smem(int arch) { return (smem_per_block(arch) + 1024) / 2 - 1024; }
static int two_fit(const gemm_plan *p, int arch, int64_t bytes) { return p->threads <= 128 && bytes <= half_smem(arch) ? 2 : 1; }

/* A's and B's stages interleaved: stage s of A at s times a stage's bytes, B's right after
 * it, so the last stage is one run of memory at the stages' end (multistage.c's block_smem
 * places them).  False, the layouts untouched, where a swizzle's period does not divide
 * those offsets. */
static bool interleave_stages(cute_alg *a, gemm_plan *p)
{
    cute_dtype d = p->cfg.dtype;
    int64_t esize = cute_dtype_bytes(d), sb = stage_bytes(p), a_bytes = p->bm * p->bk * esize;
    int al_a = cute_swizzle_align_bytes(p->smem_a.sw, d), al_b = cute_swizzle_align_bytes(p->smem_b.sw, d);
    if (sb % al_a || sb % al_b || a_bytes % al_b) return false;
    cute_layout st = cute_layout_fmt(a, "%d:%lld", p->stages, (long long)(sb / esize));
    p->smem_a.layout = cute_replace(a, &p->smem_a.layout, 2, &st);
    p->smem_b.layout = cute_replace(a, &p->smem_b.layout, 2, &st);
    return !a->failed;
}

/* The persistent kernel's C tile (multistage.c), which the epilogue writes while the next
 * tile's first k-tiles land in stages 0 .. stages - 2: it lies over the last stage (A's and
 * B's stages interleaved, so that stage is one run at the end; C may run past it), which
 * nothing fills until the next main loop's first barrier.
 * The accumulators go in as they are, in the fewest parts of N that fit (a part is whole MMA
 * tiles of N, mma_n columns, so each MMA tile's accumulators fall in one part).  Two blocks an
 * SM where a block is 4 warps or fewer (two fit the registers) and its stages and C fit half
 * the SM's shared memory less the 1 KB a block the hardware keeps (113 KB from sm_90): s8
 * 128x128x128 in 3 stages is 96 KB of stages and C in two parts of 32 KB over the last, the
 * same 96 KB as a block a tile, a grid of twice the SMs; else one an SM (bf16 and s8 256x128
 * on 8 warps: 144 KB of stages, C's 128 KB tile whole from the last stage's 48 KB on, 224 KB).
 * (s11's two an SM with C in four 16 KB parts beside the stages, 112 KB a block, lost to a
 * block a tile, and so does this form: bench/RESULTS.md, s15.  C whole over the last two
 * stages with one k-tile issued before the epilogue measured slower still.) */
static bool persistent_c_tile(cute_alg *a, gemm_plan *p, int arch, int64_t mma_n)
{
    cute_dtype cd = cute_gemm_c_dtype(&p->cfg), acc = (cute_dtype)p->mma.atom.c_type;
    int64_t sb = stage_bytes(p), stages = p->stages * sb, tile = p->bm * p->bn * cute_dtype_bytes(acc);
    int64_t whole = smem_per_block(arch), half = half_smem(arch);
    p->c_last = interleave_stages(a, p);
    int64_t under = p->c_last ? stages - sb : stages; /* where C's tile starts */
    if (stages > whole)
        return cute_alg_fail(a, "gemm tiling %lldx%lldx%lld, %d stages, persistent: %lld KB of stages do not fit "
                             "sm_%d's %lld KB of shared memory a block (fewer stages or a smaller tile)",
                             (long long)p->bm, (long long)p->bn, (long long)p->bk, p->stages,
                             (long long)(stages / 1024), arch ? arch : 90, (long long)(whole / 1024));
    for (p->per_sm = p->threads <= 128 ? 2 : 1; p->per_sm >= 1; p->per_sm--) {
        int64_t budget = p->per_sm == 2 ? half : whole;
        if (stages > budget) continue;
        for (p->c_parts = 1; (p->bn / p->c_parts) % mma_n == 0; p->c_parts *= 2)
            if (under + tile / p->c_parts <= budget) {
                int64_t along = 128 / (gemm_vector_bytes(&p->cfg, cd) / cute_dtype_bytes(cd) * cute_dtype_bytes(acc));
                c_tile(a, p, p->threads, p->bn / p->c_parts, acc, along > 0 ? along : 1);
                return !a->failed;
            }
    }
    return cute_alg_fail(a, "gemm tiling %lldx%lldx%lld, %d stages, persistent: %lld KB of stages leave %lld KB "
                         "of sm_%d's shared memory for C's %lld KB tile%s, too little in parts of whole %lld-column "
                         "MMA tiles (fewer stages or a smaller tile)", (long long)p->bm, (long long)p->bn,
                         (long long)p->bk, p->stages,
                         (long long)(stages / 1024), (long long)((whole - under) / 1024), arch ? arch : 90,
                         (long long)(tile / 1024), p->c_last ? " from the last stage on" : " beside them",
                         (long long)mma_n);
}

/* the tiling asked for (cute_gemm_tiling: zero fields take the dtype's defaults), checked
 * against the atom: whole atoms per warp, at least two k-blocks per k-tile (the register
 * double buffer), at least three stages (one being read, one landing, one being issued) */
static bool tc_tiling(cute_alg *a, const cute_gemm_config *cfg, const tc_shape *s,
                      const cute_mma_atom *atom, gemm_plan *p, int *wm, int *wn)
{
    const cute_gemm_tiling *t = &cfg->tiling;
    p->bm = t->bm ? t->bm : s->bm, p->bn = t->bn ? t->bn : s->bn, p->bk = t->bk ? t->bk : s->bk;
    p->stages = t->stages ? t->stages : s->stages;
    *wm = t->warps_m ? t->warps_m : s->d == CUTE_F64 ? 2 : 4;
    *wn = t->warps_n ? t->warps_n : 2;
    int64_t pm = *wm * atom->m, pn = *wn * atom->n * 2;
    if (t->read_bytes && s->d != CUTE_F64)
        return cute_alg_fail(a, "gemm tiling: read_bytes %d: only f64's fragment reads take a width "
                             "(%s reads through %s)", t->read_bytes, cute_dtype_name(s->d),
                             s->ldsm_k[0] ? "ldmatrix" : "the widest accesses its layout proves");
    if (t->schedule == CUTE_GEMM_SCHEDULE_COOP || t->schedule == CUTE_GEMM_SCHEDULE_PINGPONG)
        return cute_alg_fail(a, "gemm tiling: schedule %s: the hopper kernel's (the SM80 tensor-core kernels take "
                             "the library's, CUTE_GEMM_SCHEDULE_PERSISTENT or _STREAMK)",
                             t->schedule == CUTE_GEMM_SCHEDULE_COOP ? "coop" : "pingpong");
    if (p->bm % pm || p->bn % pn || p->bk % atom->k || p->bk / atom->k < 2 || p->stages < 3 ||
        *wm * *wn > 32)
        return cute_alg_fail(a, "gemm tiling %lldx%lldx%lld, %d stages, %dx%d warps: with %s each "
                             "tile needs bm a multiple of %lld, bn of %lld, bk of 2 x %lld, 3 stages "
                             "or more and at most 32 warps", (long long)p->bm, (long long)p->bn,
                             (long long)p->bk, p->stages, *wm, *wn, atom->name, (long long)pm,
                             (long long)pn, (long long)atom->k);
    return true;
}

/* The SM80 stream-K kernel (multistage.c): a plain or batchless GEMM with C's usual store
 * (no fused epilogue: its work items are pieces of tiles, not tiles in turn),
 * its partials in the accumulators' own type (s32 sums stay exact) */
static bool streamk_fits(cute_alg *a, const gemm_plan *p)
{
    const cute_gemm_config *cfg = &p->cfg;
    if (cfg->batched || cute_gemm_epilogue_fused(&cfg->epilogue))
        return cute_alg_fail(a, "gemm tiling: the SM80 stream-K schedule runs unbatched GEMMs without a fused "
                             "epilogue");
    if ((cute_dtype)p->mma.atom.c_type != gemm_streamk_acc_dtype(cfg->dtype))
        return cute_alg_fail(a, "gemm tiling: the SM80 stream-K schedule keeps %s partials, but %s accumulates in %s",
                             cute_dtype_name(gemm_streamk_acc_dtype(cfg->dtype)), p->mma.atom.name,
                             cute_dtype_name((cute_dtype)p->mma.atom.c_type));
    return true;
}

/* Programmatic dependent launch of a block a tile (sm_90 targets; the default since session
 * 39: ahead in all six of sm80_39's comparisons at 4096^3, by 0.1-1.55 points of the ceiling,
 * f16 79.2 / 79.8 -> 80.0 / 80.1, s8 and bf16 alike, bench/RESULTS.md sm80_39;
 * CUTEC_GEMM_SM80_PDL=0 the plain launch): every block waits for the stream's previous grid before its first global
 * access and lets the next grid in right after, so the next call's blocks are placed while
 * this one's last round runs (its 32 free slots at s8 4096^3, then each slot as it frees) and
 * start the moment it has drained, instead of after the launch that follows the drain. */
static bool dependent_launch(cute_alg *a, gemm_plan *p, int arch)
{
    static const int by_default = 1;
    int e = kernel_env_choice(a, "CUTEC_GEMM_SM80_PDL", "0|1", by_default);
    p->pdl = e == 1 && arch == 90 && !p->persistent && !p->streamk && !p->dynamic;
    return !a->failed;
}

/* Step 5's C tile in C's 16-bit dtype on sm_90 where beta is 0 (CUTEC_GEMM_SM80_STSM: 1, the
 * default for bf16 and f16 inputs since sm80_43's final pass, ahead of the f32 tile in all six
 * rounds at 4096^3, bf16 +0.24 / +0.48 / +1.12 and f16 +0.42 / +0.42 / +0.31 points; fp8 inputs
 * keep 0, e4m3 -> bf16 measured 1.3% slower once; bench/RESULTS.md): each thread scales its accumulators (alpha acc, rounded once) and stmatrix writes
 * them, 8x8 blocks of 16-bit values, into CuTe's 128-byte GMMA atom of C's unit-stride mode
 * (.trans for a column-major C: the accumulators' pairs run along N), over the same memory as
 * the f32 tile; the runs out read a 128-byte line a phase of 8 threads.  Against the f32 tile
 * (bf16 256x128: 128 KB in by 128 STS.32 a thread and out by 16-byte LDS, 2,048 wavefronts
 * an SM a tile) that is 64 KB each way, ~1,024 wavefronts: ~0.5 us a round of ~69 at 4096^3.
 * beta != 0 takes the f32 tile, unchanged (C's runs read beside the accumulators' there). */
static bool stsm_c_tile(cute_alg *a, gemm_plan *p, int arch)
{
    bool sixteen = p->cfg.dtype == CUTE_BF16 || p->cfg.dtype == CUTE_F16; /* the default for 16-bit inputs */
    int e = kernel_env_choice(a, "CUTEC_GEMM_SM80_STSM", "0|1", sixteen ? 1 : 0);
    cute_dtype cd = cute_gemm_c_dtype(&p->cfg);
    /* (sm_90 only: measured there) */
    if (e != 1 || arch < 90 || arch >= 100 || cute_dtype_bytes(cd) != 2 || p->persistent || p->streamk || p->dynamic ||
        p->c_parts != 1 || gemm_vector_bytes(&p->cfg, cd) != 16 || p->bm % 64 || p->bn % 64)
        return !a->failed;
    bool row_major = p->cfg.major[2] == 1;
    cute_copy_atom stsm, st;
    cute_composed atom;
    if (!cute_copy_atom_named(a, row_major ? "SM90_U32x4_STSM_N" : "SM90_U16x8_STSM_T", cd, &stsm) ||
        !cute_smem_atom_gmma(a, row_major ? "Layout_K_SW128_Atom" : "Layout_MN_SW128_Atom", cd, &atom))
        return false;
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    p->stsm = true;
    p->smem_c16 = cute_smem_layout_staged(a, &atom, &shape);
    p->r2s = cute_make_tiled_copy_mma(a, &stsm, &p->mma, CUTE_MMA_C);
    st = cute_copy_atom_universal(a, cd, 128);
    p->copy_c16 = tile_copy_along(a, &st, p->bm, p->bn, p->threads, 8, p->cfg.major[2], 8); /* a line a phase */
    return !a->failed;
}

/* A diagnostic, wrong by design (CUTEC_GEMM_SM80_DIAG=nostore, step 5): each thread stores
 * only the first of its runs of C (1/32 of the bytes at s8 128x128), so that a bench times
 * the rounds without C's traffic (bench/RESULTS.md, s16's rounds). */
static bool diagnostic(cute_alg *a, gemm_plan *p)
{
    p->diag_nostore = kernel_env_diag(a, "CUTEC_GEMM_SM80_DIAG", "none|nostore") == 1;
    return !a->failed;
}

bool gemm_plan_tensorop(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p,
                        bool smem_epilogue)
{
    const tc_shape *s = tc_shape_of(cfg->dtype, arch);
    if (!s) return cute_alg_fail(a, "gemm tensorop: no tensor-core tiling for %s on sm_%d", cute_dtype_name(cfg->dtype), arch);
    cute_mma_atom atom;
    int wm, wn;
    if (!cute_mma_atom_named(a, s->mma, &atom) || !tc_tiling(a, cfg, s, &atom, p, &wm, &wn)) return false;
    p->threads = 32 * wm * wn, p->raster = cfg->tiling.raster ? cfg->tiling.raster : 8;
    p->prefetch = s->prefetch;
    /* fp8 on sm_90 (f16 steps) with an operand through LDSM8_MN: each k-block read just
     * before its MMAs, as ptxas schedules them (read one ahead, tt spilled 12 bytes) */
    if (strstr(s->mma, "_VIA_F16") && (pairs_mn(s, cfg, 0) || pairs_mn(s, cfg, 1))) p->prefetch = GEMM_PREFETCH_NONE;
    p->mma = tc_mma(a, s, cfg, &atom, wm, wn);
    int esize = cute_dtype_bytes(s->d);
    int bytes = gemm_vector_bytes(cfg, s->d);
    for (int op = 0; op < 2; op++) {
        int major = cfg->major[op];
        int64_t rows = op == 0 ? p->bm : p->bn;
        cute_copy_atom cp = gemm_g2s_atom(a, s->d, bytes);
        int vec = (int)(cp.bits / 8 / esize);
        *(op == 0 ? &p->copy_a : &p->copy_b) = tile_copy(a, &cp, rows, p->bk, p->threads, vec, major);
        *(op == 0 ? &p->smem_a : &p->smem_b) = pairs_mn(s, cfg, op) ? pairs_stages(a, rows, p->bk, p->stages)
                                                                     : swizzled(a, s->d, major, rows, p->bk, p->stages);
        *(op == 0 ? &p->s2r_a : &p->s2r_b) = tc_s2r(a, s, p, op);
    }
    p->smem_epilogue = smem_epilogue;
    p->persistent = cfg->tiling.schedule == CUTE_GEMM_SCHEDULE_PERSISTENT;
    char why[256];
    int dynamic = gemm_sm80_dynamic(cfg, why, sizeof why);
    if (dynamic < 0) return cute_alg_fail(a, "%s", why);
    p->dynamic = dynamic == 1;
    p->streamk = cfg->tiling.schedule == CUTE_GEMM_SCHEDULE_STREAMK;
    if (p->streamk && !streamk_fits(a, p)) return false;
    if (p->streamk) p->streamk_per_sm = two_fit(p, arch, p->stages * stage_bytes(p));
    if (!dependent_launch(a, p, arch) || !diagnostic(a, p)) return false;
    p->c_parts = 1;
    if (smem_epilogue && p->persistent) return persistent_c_tile(a, p, arch, wn * atom.n * 2);
    if (p->persistent) p->per_sm = two_fit(p, arch, p->stages * stage_bytes(p)); /* step 4: no C tile */
    if (smem_epilogue) tc_c_tile(a, p);
    if (smem_epilogue && !stsm_c_tile(a, p, arch)) return false;
    return !a->failed;
}
