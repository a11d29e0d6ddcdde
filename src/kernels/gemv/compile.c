/* cute_gemv_compile: the plan of a configuration (threads, unroll, the TiledCopy), the
 * argument specs its alignment promises, and the host function of A's major. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "kernels/gemv/gemv_internal.h"
#include "kernels/kernel_env.h"

#define GEMV_THREADS 128
#define COLS_UNROLL 8
/* bytes of A each lane of the K-major kernel has in flight per k-tile (over its rows): eight
 * 16-byte loads, four for 8-bit elements (whose conversions take more registers).  What an SM
 * has in flight is this times the lanes it holds, and registers bound those (docs/gemv.md,
 * "Bytes in flight") */
#define ROWS_LANE_BYTES 128

cute_dtype cute_gemv_y_dtype(const cute_gemv_config *cfg)
{
    if (cfg->y_dtype != CUTE_VOID) return cfg->y_dtype;
    return cfg->dtype == CUTE_E4M3 || cfg->dtype == CUTE_E2M1 ? CUTE_F16 : cfg->dtype;
}

/* the K-major kernel's vectors a lane and row per k-tile through a ring (cfg.smem_stages):
 * two, so that a stage of a block of 8 rows of 16-bit elements is 12 KB (A's 8 KB and x's
 * 4 KB: its warps' own copies) and four stages leave room for four blocks an SM */
#define RING_UNROLL 2

/* (with several vectors, fewer: each adds a vector of x and of accumulators per A vector) */
static int rows_unroll(const cute_gemv_config *cfg)
{
    if (cfg->sf_vec) return 1; /* block-scaled: one vector per lane and k-tile */
    if (cfg->smem_stages) return RING_UNROLL;
    int bits = cute_dtype_bits(cfg->dtype), bytes = ROWS_LANE_BYTES / (bits <= 8 ? 2 : 1);
    int u = bytes * 8 / (cfg->vec * bits) / gemv_nvec(cfg) / gemv_rows_per_warp(cfg);
    return u < 1 ? 1 : u > 16 ? 16 : u;
}

int cute_gemv_k_tile(const cute_gemv_config *cfg)
{
    if (cfg->mma) return (int)gemv_mma_k_tile(cfg);
    return cfg->a_major == 1 ? 32 * cfg->vec * rows_unroll(cfg) : COLS_UNROLL;
}

bool cute_gemv_ring_able(const cute_gemv_config *cfg)
{
    /* the tensor-core form's ring holds X's whole atoms of 8 vectors */
    bool vectors = cfg->mma ? gemv_nvec(cfg) % 8 == 0 : gemv_nvec(cfg) == 1;
    return cfg->a_major == 1 && !cfg->sf_vec && vectors && !cfg->l2_prefetch && !cfg->skew &&
           cfg->vec * cute_dtype_bits(cfg->dtype) == 128;
}

/* The tensor-core form's ring as measured (H200, bench/RESULTS.md, skinny38a): 8 and 16
 * vectors, 8 stages (bf16 90.5 / 87.7% of the copy against the register form's 69.5 / 80.9;
 * f32 79.0% at 8); f32 keeps two blocks an SM (3xTF32's instructions want 8 warps), the
 * deepest of 8, 6 and 4 stages at which two fit (16 vectors: 6, 85.2% of the copy in 2 splits
 * against 4 stages' 83.3 in 3 and 3 stages' 81.9 in 4, session 41's final pass; 8 stages leave
 * one block, 63.5 in session 38; 8 vectors: 8, 80.1 against 6 stages' 77.0); with two k
 * groups (gemv_mma_kgroups, the default since session 42) one block of 8 warps an SM, the
 * deepest that fits (8 vectors: 8 stages, 95.4% in one split; 16: 6, 92.2).  Past 16
 * vectors: not measured through it. */
static int mma_ring_default(const cute_gemv_config *cfg)
{
    if (gemv_nvec(cfg) > 16 || !cute_gemv_ring_able(cfg)) return 0;
    if (cfg->dtype != CUTE_F32) return 8;
    cute_gemv_config at = *cfg;
    at.smem_stages = 8;
    bool pair = gemv_mma_kgroups(&at) == 2; /* one block of 8 warps an SM: the deepest that fits */
    for (; at.smem_stages > 4; at.smem_stages -= 2)
        if (pair ? gemv_mma_ring_bytes(&at) <= GEMV_MMA_RING_MAX : gemv_smem_blocks(gemv_mma_ring_bytes(&at), 2) == 2)
            break;
    return at.smem_stages;
}

int cute_gemv_ring_fit(const cute_gemv_config *cfg, int arch)
{
    int known = arch ? cute_cuda_arch_smem_per_block(arch) : 0; /* at most GEMV_MMA_RING_MAX */
    int64_t ring_max = known ? known : GEMV_MMA_RING_MAX;
    cute_gemv_config at = *cfg;
    while (at.mma && at.smem_stages / 2 >= 2 && gemv_mma_ring_bytes(&at) > ring_max) at.smem_stages /= 2;
    return at.mma && gemv_mma_ring_bytes(&at) > ring_max ? 0 : at.smem_stages; /* it does not fit */
}

int cute_gemv_ring_default(const cute_gemv_config *cfg)
{
    /* the 16-bit dtypes', as measured (f32 and e4m3: not measured through the ring) */
    if (cfg->mma) return mma_ring_default(cfg);
    bool sixteen = cfg->dtype == CUTE_BF16 || cfg->dtype == CUTE_F16;
    return sixteen && !cfg->sf_vec && cute_gemv_ring_able(cfg) ? CUTE_GEMV_RING_STAGES : 0;
}

/* NVFP4 with the next k-tiles loaded before this one's products, in registers or through a
 * shared-memory ring (the default) */
static bool nvfp4_pipelined(const cute_gemv_config *cfg)
{
    return cfg->dtype == CUTE_E2M1 && cfg->sf_vec && !cfg->tile_at_a_time && !cfg->l2_prefetch;
}

/* the ring's copies (ring.c): tc's layouts with cp.async atoms of 16 bytes (A around L1, x
 * through it) and a scale group's of 4 */
static bool plan_ring(cute_alg *a, const cute_layout *thr, const cute_layout *val, gemv_plan *p)
{
    cute_copy_atom cg, ca;
    cute_dtype d = p->words ? CUTE_U32 : p->cfg.dtype;
    if (!cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>", d, &cg) ||
        !cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEALWAYS<uint128>", d, &ca) ||
        !cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEALWAYS<uint32>", CUTE_U32, &p->ring_s))
        return false;
    p->ring_a = cute_make_tiled_copy_tv(a, &cg, thr, val);
    p->ring_x = cute_make_tiled_copy_tv(a, &ca, thr, val);
    return !a->failed;
}

/* arch: the compile target's SM version (0: not known) */
static bool plan_make(cute_alg *a, const cute_gemv_config *cfg, int arch, gemv_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->nvec = gemv_nvec(cfg);
    p->arch = arch;
    /* split-K's second kernel a dependent launch at any split count (past 32 splits since session
     * 38; at 4097x3x8191's 4 splits 63.1% of the copy against 61.3 on an H200, session 40; the
     * tensor-core forms' since session 41: f32 at 8192x8192 with 8 and 16 vectors, 2 and 3
     * splits, 78.8 -> 80.3 and 81.9 -> 83.2%; in one launch, the splitting kernel itself a
     * dependent launch: parts.c) */
    p->pdl = cfg->split && arch >= 90;
    if (cfg->mma) return gemv_plan_mma(a, cfg, p);
    p->threads = GEMV_THREADS;
    /* e2m1 moves as whole words, decoded by sm_100a's cvt or, before it, bit operations */
    p->words = cfg->sf_vec && cfg->dtype == CUTE_E2M1;
    p->fp4_cvt = p->words && arch >= 100;
    int bits = cfg->vec * cute_dtype_bits(cfg->dtype);
    cute_copy_atom atom = p->words ? cute_copy_atom_universal(a, CUTE_U32, bits)
                                   : cute_copy_atom_universal(a, cfg->dtype, bits);
    cute_layout thr, val;
    if (cfg->a_major == 1) { /* a warp's k-tile: rows x 32 lanes x vec, repeated unroll times */
        p->unroll = rows_unroll(cfg);
        p->rows = gemv_rows_per_warp(cfg);
        if (p->words) /* the decode of x serves four rows; 128 bytes of A a lane a k-tile, or
                         64 where the next k-tile's registers are loaded before this one's
                         products (registers: blockscaled.c, words_pipelined; 128 again
                         with cfg.wide) */
            p->rows = 4, p->unroll = nvfp4_pipelined(cfg) && !cfg->wide ? 1 : 2;
        thr = cute_layout_fmt(a, "(%d,32):(32,1)", p->threads / 32); /* a warp per `rows` rows */
        int v = p->words ? bits / 32 : cfg->vec; /* a lane's rows, each a vector */
        val = p->rows > 1 ? cute_layout_fmt(a, "(%d,%d):(%d,1)", p->rows, v, v)
                          : cute_layout_fmt(a, "(1,%d):(0,1)", v);
    } else { /* a block's (threads x vec rows, unroll columns) */
        p->unroll = COLS_UNROLL;
        thr = cute_layout_fmt(a, "(%d,1):(1,0)", p->threads);
        val = cute_layout_fmt(a, "(%d,%d):(1,%d)", cfg->vec, p->unroll, cfg->vec);
    }
    p->tc = cute_make_tiled_copy_tv(a, &atom, &thr, &val);
    if (cfg->skew) /* a warp a misalignment: as many warps as a vector's elements (skew.c) */
        p->threads = 32 * (p->rows > 1 ? cfg->vec : GEMV_THREADS / 32);
    if (cfg->smem_stages && !plan_ring(a, &thr, &val, p)) return false;
    /* the unsplit rows kernel its own dependent launch on sm_90 (CUTEC_GEMV_PDL=0: the plain
     * launch; gemv42's extra pass, H200: +4.25 / +4.75 / +4.60 points of the copy at 16384x4096,
     * 8192x8192, 4096x16384) */
    bool nvfp4 = cfg->sf_vec == 16 && cfg->dtype == CUTE_E2M1;
    p->pdl_self = kernel_env_choice(a, "CUTEC_GEMV_PDL", "0|1", 1) == 1 && cfg->a_major == 1 && !cfg->split &&
                  (!cfg->sf_vec || nvfp4) && !cfg->skew && arch >= 90;
    /* the skew form's first k-tiles into L2 before its dependent launch's wait (CUTEC_GEMV_EARLY=0:
     * after it; H200, 4097x3x8191 bf16: 25.9-26.1 against 28.1-28.3 us, bench/RESULTS.md odd42) */
    p->early = cfg->skew && kernel_env_choice(a, "CUTEC_GEMV_EARLY", "1|0", 0) == 0;
    p->ktile = p->words ? 32 * (bits / 32) * p->unroll : cute_gemv_k_tile(cfg);
    int64_t tk = p->ktile;
    cute_tuple step = cfg->a_major == 1
                          ? cute_tuple_fmt(a, "(%d,%lld)", p->threads / 32 * p->rows, (long long)tk)
                          : cute_tuple_fmt(a, "(%d,%d)", p->threads * cfg->vec, p->unroll);
    p->tile = step;
    return !a->failed;
}

static bool blockscaled_ok(const cute_gemv_config *cfg, char *err, size_t n)
{
    bool nvfp4 = cfg->dtype == CUTE_E2M1 && cfg->sf_vec == 16,
         mxfp8 = cfg->dtype == CUTE_E4M3 && cfg->sf_vec == 32;
    if (!nvfp4 && !mxfp8) {
        snprintf(err, n, "gemv: block-scaled %s with a scale per %d (e2m1 per 16 or e4m3 per 32)",
                 cute_dtype_name(cfg->dtype), cfg->sf_vec);
        return false;
    }
    if (cfg->smem_stages && (!nvfp4_pipelined(cfg) || cfg->smem_stages < 2 ||
                             cfg->smem_stages > CUTE_GEMV_MAX_SMEM_STAGES)) {
        snprintf(err, n, "gemv: a shared-memory ring of %d stages (2 to %d) is NVFP4's, not with "
                 "tile_at_a_time or the L2 prefetch", cfg->smem_stages, CUTE_GEMV_MAX_SMEM_STAGES);
        return false;
    }
    if (cfg->l2_prefetch && !nvfp4) {
        snprintf(err, n, "gemv: the block-scaled L2 prefetch is NVFP4's (e2m1 with a scale per 16)");
        return false;
    }
    if (cfg->vec * cute_dtype_bits(cfg->dtype) != 128 || cfg->a_major != 1 || gemv_nvec(cfg) != 1 ||
        cfg->split) {
        snprintf(err, n,
                 "gemv: block-scaled takes 16-byte vectors of K-major A, one vector, no split");
        return false;
    }
    cute_dtype y = cute_gemv_y_dtype(cfg);
    if (y != CUTE_F32 && y != CUTE_F16 && y != CUTE_BF16) {
        snprintf(err, n, "gemv: a %s y (f32, f16 or bf16)", cute_dtype_name(y));
        return false;
    }
    return true;
}

/* the tensor-core form: f16, bf16 or f32 inputs, K-major A, 16-byte vectors, up to 128
 * vectors */
static bool mma_ok(const cute_gemv_config *cfg, char *err, size_t n)
{
    cute_dtype d = cfg->dtype;
    if ((d != CUTE_F16 && d != CUTE_BF16 && d != CUTE_F32) || cfg->a_major != 1 ||
        cfg->vec * cute_dtype_bytes(d) != 16 || cfg->sf_vec) {
        snprintf(err, n, "gemv: the tensor-core form takes f16, bf16 or f32 K-major A in 16-byte vectors "
                 "(got %s, A's unit-stride mode %d, vectors of %d)", cute_dtype_name(cfg->dtype), cfg->a_major,
                 cfg->vec);
        return false;
    }
    if (cfg->vectors < 1 || cfg->vectors > CUTE_GEMV_MAX_MMA_VECTORS) {
        snprintf(err, n, "gemv: %d vectors on the tensor cores (1 to %d)", cfg->vectors, CUTE_GEMV_MAX_MMA_VECTORS);
        return false;
    }
    return true;
}

static bool config_ok(const cute_gemv_config *cfg, char *err, size_t n)
{
    if (cfg->l2_prefetch < 0 || cfg->l2_prefetch > CUTE_GEMV_MAX_L2_PREFETCH ||
        (cfg->l2_prefetch && cfg->a_major != 1)) {
        snprintf(err, n, "gemv: an L2 prefetch %d k-tiles ahead (0 to %d, K-major A only)", cfg->l2_prefetch,
                 CUTE_GEMV_MAX_L2_PREFETCH);
        return false;
    }
    if (cfg->smem_stages && !cfg->sf_vec &&
        (!cute_gemv_ring_able(cfg) || cfg->smem_stages < 2 || cfg->smem_stages > CUTE_GEMV_MAX_SMEM_STAGES)) {
        snprintf(err, n, "gemv: a shared-memory ring of %d stages (2 to %d) takes NVFP4, or one vector of "
                 "K-major A in 16-byte vectors without the L2 prefetch", cfg->smem_stages, CUTE_GEMV_MAX_SMEM_STAGES);
        return false;
    }
    if (cfg->ahead < 0 || cfg->ahead > CUTE_GEMV_MAX_AHEAD ||
        (gemv_ahead(cfg) > 1 && (!nvfp4_pipelined(cfg) || cfg->smem_stages))) {
        snprintf(err, n, "gemv: %d k-tiles ahead (1 to %d) is NVFP4's register form, not with "
                 "tile_at_a_time, the L2 prefetch or the ring", cfg->ahead, CUTE_GEMV_MAX_AHEAD);
        return false;
    }
    if (cfg->fma_decode < 0 || cfg->fma_decode > CUTE_GEMV_MAX_FMA_DECODE ||
        (cfg->fma_decode && !(cfg->sf_vec == 16 && cfg->dtype == CUTE_E2M1))) {
        snprintf(err, n, "gemv: the decode on the FMA pipe (level %d, 0 to %d) is NVFP4's", cfg->fma_decode,
                 CUTE_GEMV_MAX_FMA_DECODE);
        return false;
    }
    if (cfg->tf32_bits && (!cfg->mma || cfg->dtype != CUTE_F32)) {
        snprintf(err, n, "gemv: tf32 halves by bits are f32's tensor-core form's (got %s%s)",
                 cute_dtype_name(cfg->dtype), cfg->mma ? "" : ", not the tensor-core form");
        return false;
    }
    if (cfg->mma && gemv_mma_ring_bytes(cfg) > GEMV_MMA_RING_MAX) {
        snprintf(err, n, "gemv: the tensor-core form's ring of %d stages at %d vectors is %lld KB a block (at most %d)",
                 cfg->smem_stages, gemv_nvec(cfg), (long long)gemv_mma_ring_bytes(cfg) / 1024,
                 GEMV_MMA_RING_MAX / 1024);
        return false;
    }
    if (cfg->scale_words && (!nvfp4_pipelined(cfg) || cfg->smem_stages)) {
        snprintf(err, n, "gemv: the scale words are NVFP4's register form's, k-tiles ahead (not a k-tile at "
                 "a time, the L2 prefetch or the ring)");
        return false;
    }
    if (cfg->wide && (!nvfp4_pipelined(cfg) || cfg->smem_stages || !cfg->scale_words)) {
        snprintf(err, n, "gemv: the wide k-tiles are NVFP4's register form's with the scale words, k-tiles "
                 "ahead (not a k-tile at a time, the L2 prefetch or the ring)");
        return false;
    }
    if (cfg->min_blocks < 0 || cfg->min_blocks > 8 ||
        (cfg->min_blocks && (cfg->sf_vec != 16 || cfg->dtype != CUTE_E2M1 || cfg->smem_stages))) {
        snprintf(err, n, "gemv: %d resident blocks an SM asked (1 to 8) are NVFP4's words' (not the ring's)",
                 cfg->min_blocks);
        return false;
    }
    if (cfg->diag < 0 || cfg->diag > CUTE_GEMV_DIAG_SCALES_ONCE ||
        (cfg->diag && (!nvfp4_pipelined(cfg) || cfg->smem_stages || cfg->scale_words))) {
        snprintf(err, n, "gemv: a diagnostic (%d: 1 scales once) is NVFP4's register form's, "
                 "without the scale words", cfg->diag);
        return false;
    }
    if (cfg->sf_vec) return blockscaled_ok(cfg, err, n);
    if (cfg->mma && !mma_ok(cfg, err, n)) return false;
    cute_dtype d = cfg->dtype, y = cute_gemv_y_dtype(cfg);
    if (d != CUTE_F32 && d != CUTE_F16 && d != CUTE_BF16 && d != CUTE_E4M3) {
        snprintf(err, n, "gemv: %s inputs (f32, f16, bf16 or e4m3)", cute_dtype_name(d));
        return false;
    }
    if (y != CUTE_F32 && y != CUTE_F16 && y != CUTE_BF16) {
        snprintf(err, n, "gemv: a %s y (f32, f16 or bf16)", cute_dtype_name(y));
        return false;
    }
    int es = cute_dtype_bytes(d);
    if (cfg->vec < 1 || cfg->vec * es > 16 || (cfg->vec & (cfg->vec - 1))) {
        snprintf(err, n, "gemv: vectors of %d elements (a power of two, at most 16 bytes)",
                 cfg->vec);
        return false;
    }
    if (cfg->vectors < 0 || (cfg->vectors > CUTE_GEMV_MAX_VECTORS && !cfg->mma)) {
        snprintf(err, n, "gemv: %d vectors (1 to %d)", cfg->vectors, CUTE_GEMV_MAX_VECTORS);
        return false;
    }
    if (cfg->many_splits && (!cfg->split || cfg->atomic)) {
        snprintf(err, n, "gemv: many_splits is the ordered reduction's (split set, atomic not)");
        return false;
    }
    if (cfg->skew && (cfg->a_major != 1 || cfg->mma || cfg->smem_stages ||
                      (cfg->dtype != CUTE_F16 && cfg->dtype != CUTE_BF16) ||
                      cfg->vec * cute_dtype_bytes(cfg->dtype) != 16)) {
        snprintf(err, n, "gemv: rows read past their misalignment (skew) take f16 or bf16 K-major A in "
                 "16-byte vectors, without the tensor cores or the ring");
        return false;
    }
    if (cfg->one_launch && (!cfg->split || cfg->a_major != 1 || cfg->mma)) {
        snprintf(err, n, "gemv: split-K in one launch takes split-K (split set) of K-major A without the tensor "
                 "cores");
        return false;
    }
    if (cfg->atomic && !cfg->split) {
        snprintf(err, n, "gemv: an atomic reduction is split-K's (split must be set)");
        return false;
    }
    if (cfg->a_major != 0 && cfg->a_major != 1) {
        snprintf(err, n, "gemv: A's unit-stride mode is %d (0 or 1)", cfg->a_major);
        return false;
    }
    return true;
}

/* "?{div=v}" or "?" */
static const char *dyn(int v, char *buf, size_t n)
{
    if (v > 1)
        snprintf(buf, n, "?{div=%d}", v);
    else
        snprintf(buf, n, "?");
    return buf;
}

static void make_specs(const cute_gemv_config *cfg, int arch, cute_arg_spec specs[9])
{
    char t[160], d[24];
    int v = cfg->vec, es = cute_dtype_bytes(cfg->dtype);
    dyn(v, d, sizeof d);
    if (cfg->a_major == 1)
        snprintf(t, sizeof t, "(?,%s,?):(%s,1,%s)", d, d, d);
    else
        snprintf(t, sizeof t, "(%s,?,?):(1,%s,%s)", d, d, d);
    specs[0] = cute_spec_tensor(cfg->dtype, t, v * es);
    int xv = cfg->a_major == 1 ? v : 1; /* the M-major kernel reads x element by element */
    char xd[24];
    int nv = gemv_nvec(cfg);
    snprintf(t, sizeof t, "(%s,%d,?):(1,%s,%s)", dyn(xv, xd, sizeof xd), nv, xd, xd);
    specs[1] = cute_spec_tensor(cfg->dtype, t, xv * es);
    cute_dtype y = cute_gemv_y_dtype(cfg);
    snprintf(t, sizeof t, "(?,%d,?):(?,?,?)", nv);
    specs[2] = cute_spec_tensor(y, t, cute_dtype_bytes(y));
    snprintf(t, sizeof t, "(?,%d,?,?)", nv);
    specs[3] = cute_spec_tensor_compact(CUTE_F32, t, false, 4);
    char kt[32]; /* each split starts at a multiple of the k-tile: vectors stay aligned */
    snprintf(kt, sizeof kt, "?{div=%d}", cute_gemv_k_tile(cfg));
    specs[4] = cute_spec_int(kt);
    specs[5] = cute_spec_float(CUTE_F32);
    specs[6] = cute_spec_float(CUTE_F32);
    /* the wgmma form's loads k-tiles ahead: weak ones (no __restrict__), which ptxas keeps
     * above the barrier of each k-tile between (read-only ones it sank to their use: 49.7% of
     * the copy at 64 vectors against 58.6 on an H200) */
    specs[2].may_alias = gemv_wgmma(cfg, arch);
    if (cfg->one_launch) /* the counters, after skew's misalignment */
        specs[gemv_counts_arg(cfg)] = cute_spec_tensor(CUTE_U32, "(?):(1)", 4);
    if (!cfg->skew) return;
    /* rows and vectors start anywhere: A's and x's elements aligned, no more; then A[0,0,0]'s
     * misalignment in elements */
    specs[0] = cute_spec_tensor(cfg->dtype, "(?,?,?):(?,1,?)", es);
    snprintf(t, sizeof t, "(?,%d,?):(1,?,?)", nv);
    specs[1] = cute_spec_tensor(cfg->dtype, t, es);
    specs[7] = cute_spec_int("?");
}

/* block-scaled: A (M,K,L), SFA (n), x (K,1,L), SFB (n), y (M,1,L), alpha, beta */
static void make_blockscaled_specs(const cute_gemv_config *cfg, cute_arg_spec specs[7])
{
    char t[160];
    int v = cfg->vec;
    snprintf(t, sizeof t, "(?,?{div=%d},?):(?{div=%d},1,?{div=%d})", v, v, v);
    specs[0] = cute_spec_tensor(cfg->dtype, t, 16);
    snprintf(t, sizeof t, "(?{div=%d},1,?):(1,?{div=%d},?{div=%d})", v, v, v);
    specs[2] = cute_spec_tensor(cfg->dtype, t, 16);
    /* NVFP4 reads a vector's two scales in one 16-bit load */
    specs[1] = cute_spec_tensor(cute_gemv_sf_dtype(cfg), "(?):(1)", cute_gemv_sf_align(cfg));
    specs[3] = cute_spec_tensor(cute_gemv_sf_dtype(cfg), "(?):(1)", cute_gemv_sf_align(cfg));
    cute_dtype y = cute_gemv_y_dtype(cfg);
    specs[4] = cute_spec_tensor(y, "(?,1,?):(?,?,?)", cute_dtype_bytes(y));
    /* NVFP4's pipelined k-tiles: no __restrict__, so that A's, x's and the scales' loads are
     * weak ones (not ld.global.nc), which ptxas keeps above the warp sync that follows them
     * (blockscaled.c, words_pipelined) */
    specs[4].may_alias = nvfp4_pipelined(cfg) && !cfg->smem_stages;
    specs[5] = cute_spec_float(CUTE_F32);
    specs[6] = cute_spec_float(CUTE_F32);
}

const cute_fn *cute_gemv_compile(cute_runtime *rt, const cute_gemv_config *cfg, char *err, size_t n)
{
    if (!config_ok(cfg, err, n)) return NULL;
    cute_alg a;
    cute_alg_init(&a, NULL);
    gemv_plan *plan = malloc(sizeof *plan);
    if (!plan || !plan_make(&a, cfg, cute_runtime_target_arch(rt), plan)) {
        snprintf(err, n, "gemv plan: %s", plan ? a.error : "out of memory");
        free(plan);
        return NULL;
    }
    cute_arg_spec specs[9];
    if (cfg->sf_vec)
        make_blockscaled_specs(cfg, specs);
    else
        make_specs(cfg, cute_runtime_target_arch(rt), specs);
    char name[128], blocks[16] = "";
    if (cfg->min_blocks) snprintf(blocks, sizeof blocks, "_b%d", cfg->min_blocks);
    snprintf(name, sizeof name, "gemv_%s_%s_%s_v%d_n%d%s%s_pf%d%s_r%d_a%d_fd%d%s%s%s%s",
             cfg->sf_vec    ? "blockscaled"
             : cfg->skew    ? "skew"
             : gemv_wgmma(cfg, cute_runtime_target_arch(rt)) ? "wgmma"
             : cfg->mma     ? "mma"
             : cfg->a_major ? "rows"
                            : "cols",
             cute_dtype_name(cfg->dtype), cute_dtype_name(cute_gemv_y_dtype(cfg)), cfg->vec,
             gemv_nvec(cfg),
             cfg->atomic        ? "_atomic"
             : cfg->many_splits ? "_splits"
             : cfg->split       ? "_split"
                                : "",
             cfg->one_launch ? "_one" : "", cfg->l2_prefetch, cfg->tile_at_a_time ? "_tile" : "", cfg->smem_stages,
             gemv_ahead(cfg), cfg->fma_decode, cfg->scale_words ? "_sw" : "",
             cfg->diag ? "_so" : "", cfg->wide ? "_wide" : "", blocks);
    cute_host_fn host = cfg->sf_vec    ? gemv_blockscaled_host
                        : cfg->skew    ? gemv_skew_host
                        : cfg->mma     ? gemv_mma_host
                        : cfg->a_major ? gemv_rows_host
                                       : gemv_cols_host;
    const cute_fn *f = cute_compile(rt, name, host, plan, gemv_nargs(cfg), specs, err, n);
    free(plan); /* only needed while tracing */
    return f;
}
