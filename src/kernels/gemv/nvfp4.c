/* cutec_gemv_blockscaled and cutec_gemv_nvfp4: the call checked in words (the operands, the
 * scale buffers' sizes), made batched, and run through the block-scaled kernel. */
#include <stdio.h>

#include "env/env_choice.h"
#include "kernels/gemv/gemv_internal.h"

int cute_gemv_trial(char *err, size_t n)
{
    int trial = cute_env_choice_err("CUTEC_GEMV_TRIAL", "0|no-words|noscales|narrow|blocks6", 0, err, n);
    if (trial == CUTE_GEMV_TRIAL_NOSCALES) /* a diagnostic says itself, as kernel_env_diag's do */
        cute_env_warn_diag("CUTEC_GEMV_TRIAL");
    return trial;
}

int64_t cute_gemv_sf_count(int64_t rows, int64_t K, int64_t L, int sf_vec)
{
    return (rows + 127) / 128 * 128 * ((K + 4 * sf_vec - 1) / (4 * sf_vec) * 4) * L;
}

int64_t cute_gemv_sf_index(int64_t row, int64_t k, int64_t l, int64_t rows, int64_t K, int sf_vec)
{
    int64_t rk = (K + 4 * sf_vec - 1) / (4 * sf_vec), rm = (rows + 127) / 128, kb = k / sf_vec;
    int64_t r = row % 128, tile = (l * rm + row / 128) * rk + kb / 4;
    return tile * 512 + r % 32 * 16 + r / 32 * 4 + kb % 4;
}

/* NVFP4's form for a call, where the caller forces none: the next k-tile's registers first
 * where that paid, K of four of its k-tiles or more (1,024 elements each) and blocks (16 rows)
 * enough for six an SM (blockscaled.c, WORDS_BLOCKS); two ahead where they are 4 an SM or
 * fewer (two_ahead_pays); else a k-tile at a time.  H200, session 29's mid pass, of the copy:
 * (4096,7168,8) 73.0% against 65.4% a k-tile at a time; (7168,16384,1), 448 blocks, 66.1%
 * against 67.9%; (7168,2048,4), two k-tiles, 64.9% against 69.5% */
static bool pipeline_pays(cute_gemv_lib *lib, int64_t M, int64_t K, int64_t L)
{
    return K >= 4 * 1024 && (M + 15) / 16 * L >= 6 * (int64_t)gemv_lib_sm_count(lib);
}

/* ... two k-tiles ahead (cfg.ahead; 4 blocks an SM) where K spans four k-tiles or more and
 * the blocks are 4 an SM or fewer, all resident from the start, so that only the bytes a row
 * has in flight add to the card's.  H200, 2026-11-27 13:34, of the copy: (7168,16384,1), 3.4
 * blocks an SM, 70.3 / 70.4% against 68.1 / 68.4% a k-tile at a time; (4096,7168,8), 15.5
 * blocks an SM, 71.4% against one ahead's 77.3% (6 blocks an SM, not 4) */
static bool two_ahead_pays(cute_gemv_lib *lib, int64_t M, int64_t K, int64_t L)
{
    return K >= 4 * 1024 && (M + 15) / 16 * L <= 4 * (int64_t)gemv_lib_sm_count(lib);
}

/* NVFP4's scale pairs by words (cfg.scale_words) in the register forms, where the scale buffers
 * are 4-byte aligned (CUTEC_GEMV_TRIAL=no-words: the 16-bit pairs): H200, fp4_42's mid pass, %
 * of the copy in turns in one process, 73.3 / 72.3 -> 75.5 / 76.4 at (7168,16384,1) two ahead
 * and 77.8 / 77.2 -> 79.3 / 80.1 at (4096,7168,8) one ahead; a k-tile at a time (7168,2048,4)
 * lost, 72.5 / 70.6 -> 65.9 / 67.5 (its loop spilled), and keeps the pairs */

/* ... and where two ahead paid (few blocks), the wide k-tiles one ahead (cfg.wide: a warp's 1 KB
 * of each row at once) where the scale words run (CUTEC_GEMV_TRIAL=narrow: two ahead of 1,024):
 * H200, fp4_43's mid pass, % of the copy in turns in one process, 78.7 / 77.7 -> 79.4 / 80.2 at
 * (7168,16384,1); at (4096,7168,8), one ahead's shape (6 blocks an SM, not wide's 4), wide lost
 * 10 points (82.1 / 81.5 -> 71.6 / 71.8) and is not taken there */

/* NVFP4's decode on the FMA pipe (cfg.fma_decode) where the caller asks for none: level 1,
 * the scales converted by their bits (H200, session 33's final pass, % of a copy: 73.1
 * against 70.1 at (7168,16384,1), 77.3 against 77.0 at (4096,7168,8); 0 gives the old decode) */
#define CUTE_GEMV_FMA_DECODE 1

/* NVFP4's register form where the caller asks for none (cfg.ahead), by the blocks of 16 rows
 * an SM: two ahead where they are 4 or fewer (two_ahead_pays; the wide k-tiles one ahead
 * where the scale words run, above), one where six or more (pipeline_pays).  (Blocks of 1 or 2 warps instead of 4, and 8 rows a warp instead of 4,
 * measured slower and were deleted: docs/gemv.md.) */
#define AHEAD_FEW 2
#define AHEAD_MANY 1

/* a scale buffer: rank 1, the scales' dtype, unit stride, long enough */
static cute_status scales(const cute_call_arg *sf, const char *name, cute_dtype d, int64_t want,
                          int align, char *err, size_t n)
{
    if (!sf || sf->kind != CUTE_ARG_TENSOR || !sf->buf)
        return gemv_invalid(err, n, "gemv: %s is not a tensor", name);
    if (sf->dtype != d)
        return gemv_invalid(err, n, "gemv: %s is %s (the scales of this format are %s)", name,
                            cute_dtype_name((cute_dtype)sf->dtype), cute_dtype_name(d));
    if (sf->ndim != 1 || (sf->shape[0] > 1 && sf->stride[0] != 1))
        return gemv_invalid(err, n, "gemv: %s must be a contiguous rank-1 buffer of scales", name);
    if (cute_call_arg_alignment(sf, align) < align)
        return gemv_invalid(err, n, "gemv: %s must be %d-byte aligned (NVFP4 reads a vector's two scales at once)",
                            name, align);
    if (sf->shape[0] < want)
        return gemv_invalid(err, n, "gemv: %s holds %lld scales; the layout needs %lld", name,
                            (long long)sf->shape[0], (long long)want);
    return CUTE_OK;
}

/* the configuration of a checked call: the format from A's dtype */
static cute_status configure(const gemv_operands *o, cute_gemv_config *cfg, char *err, size_t n)
{
    cute_dtype d = (cute_dtype)o->A.dtype;
    if (d != CUTE_E2M1 && d != CUTE_E4M3)
        return gemv_invalid(err, n, "gemv: block-scaled A is %s (e2m1 for NVFP4, e4m3 for MXFP8)",
                            cute_dtype_name(d));
    *cfg = (cute_gemv_config){.dtype = d,
                              .y_dtype = (cute_dtype)o->y.dtype,
                              .a_major = 1,
                              .vec = d == CUTE_E2M1 ? 32 : 16,
                              .vectors = 1,
                              .sf_vec = d == CUTE_E2M1 ? 16 : 32};
    if (o->major != 1 || o->A.shape[1] % 32)
        return gemv_invalid(
            err, n, "gemv: block-scaled A must be K-major with K a multiple of 32 (K = %lld)",
            (long long)o->A.shape[1]);
    if (o->vec < cfg->vec)
        return gemv_invalid(
            err, n, "gemv: block-scaled A and x must be 16-byte aligned (rows and batches too)");
    return CUTE_OK;
}

cute_status cutec_gemv_blockscaled(cute_gemv_lib *lib, const cute_call_arg *A,
                                   const cute_call_arg *SFA, const cute_call_arg *x,
                                   const cute_call_arg *SFB, const cute_call_arg *y, double alpha,
                                   double beta, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return gemv_invalid(err, n, "gemv: no library");
    int trial = cute_gemv_trial(err, n); /* (scripts/device-fp4_42.sh decides) */
    if (trial < 0) return CUTE_ERR_INVALID;
    gemv_operands o;
    cute_gemv_config cfg;
    cute_status s = gemv_check(A, x, y, false, alpha, beta, &o, err, n);
    if (s == CUTE_OK) s = configure(&o, &cfg, err, n);
    int64_t M = o.A.shape[0], K = o.A.shape[1], L = o.A.shape[2];
    if (s == CUTE_OK)
        s = scales(SFA, "SFA", cute_gemv_sf_dtype(&cfg), cute_gemv_sf_count(M, K, L, cfg.sf_vec),
                   cute_gemv_sf_align(&cfg), err, n);
    if (s == CUTE_OK)
        s = scales(SFB, "SFB", cute_gemv_sf_dtype(&cfg), cute_gemv_sf_count(1, K, L, cfg.sf_vec),
                   cute_gemv_sf_align(&cfg), err, n);
    if (s != CUTE_OK || M == 0 || L == 0) return s;
    cfg.l2_prefetch = cfg.dtype == CUTE_E2M1 ? gemv_lib_l2_prefetch(lib) : 0;
    bool e2m1 = cfg.dtype == CUTE_E2M1, forced = gemv_lib_tile_at_a_time(lib);
    int stages = gemv_lib_smem_stages(lib);
    if (e2m1 && !forced && !cfg.l2_prefetch && stages && cute_call_arg_alignment(SFA, 4) >= 4 &&
        cute_call_arg_alignment(SFB, 4) >= 4)
        cfg.smem_stages = stages;
    int asked = gemv_lib_ahead(lib); /* asked for: the register form whatever the shape */
    bool few = two_ahead_pays(lib, M, K, L);
    int ahead = asked ? asked : few ? AHEAD_FEW : AHEAD_MANY;
    bool registers = asked || few || pipeline_pays(lib, M, K, L);
    cfg.tile_at_a_time = e2m1 && !cfg.smem_stages && (forced || !registers);
    if (e2m1 && !cfg.smem_stages && !cfg.tile_at_a_time && !cfg.l2_prefetch) {
        cfg.ahead = ahead;
        /* (the diagnostics: wrong by design, over the 16-bit pairs) */
        cfg.diag = trial == CUTE_GEMV_TRIAL_NOSCALES ? CUTE_GEMV_DIAG_SCALES_ONCE : 0;
        cfg.scale_words = trial != CUTE_GEMV_TRIAL_NO_WORDS && trial != CUTE_GEMV_TRIAL_NOSCALES &&
                          cute_call_arg_alignment(SFA, 4) >= 4 && cute_call_arg_alignment(SFB, 4) >= 4;
        if (!asked && few && cfg.scale_words && trial != CUTE_GEMV_TRIAL_NARROW)
            cfg.wide = true, cfg.ahead = 1; /* (scripts/device-fp4_43.sh confirms, against narrow) */
    }
    if (cfg.tile_at_a_time && trial == CUTE_GEMV_TRIAL_BLOCKS6)
        cfg.min_blocks = 6; /* (the library's 7: device-fp4_43.sh confirms it) */
    int level = gemv_lib_fma_decode(lib);
    cfg.fma_decode = e2m1 ? level < 0 ? CUTE_GEMV_FMA_DECODE : level : 0;
    if (K == 0)
        return gemv_invalid(err, n,
                            "gemv: block-scaled K = 0 (K must be a positive multiple of 32)");
    const cute_fn *f = gemv_lib_fn(lib, &cfg, err, n);
    if (!f) return CUTE_ERR_COMPILE;
    cute_call_arg args[7] = {
        o.A, *SFA, o.x, *SFB, o.y, cute_call_float(alpha), cute_call_float(beta)};
    char why[1024];
    s = cute_call(f, stream, 7, args, why, sizeof why);
    if (s != CUTE_OK) snprintf(err, n, "gemv: %s", why);
    return s;
}

cute_status cutec_gemv_nvfp4(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *SFA,
                             const cute_call_arg *x, const cute_call_arg *SFB,
                             const cute_call_arg *y, double alpha, double beta, void *stream,
                             char *err, size_t n)
{
    if (A && A->kind == CUTE_ARG_TENSOR && A->dtype != CUTE_E2M1) {
        if (err && n)
            snprintf(err, n, "gemv nvfp4: A is %s (NVFP4 is e2m1)",
                     cute_dtype_name((cute_dtype)A->dtype));
        return CUTE_ERR_INVALID;
    }
    return cutec_gemv_blockscaled(lib, A, SFA, x, SFB, y, alpha, beta, stream, err, n);
}
