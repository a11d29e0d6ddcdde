/* cute_gemm_compile: the plan (tiles, TiledMMA, TiledCopies) for a configuration, the
 * argument specs its majors and alignment promise, and the variant's host function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"

/* The copy of a (rows, bk) k-tile of A or B (rows = bm or bn) by `threads` threads, each
 * moving e = rows*bk/threads elements in vectors of `vec` along the unit-stride mode. */
static cute_tiled_copy kt_copy(cute_alg *a, cute_dtype d, int64_t rows, int64_t bk, int threads,
                               int vec, int major)
{
    int64_t e = rows * bk / threads;
    if (vec > e) vec = (int)e;
    cute_copy_atom atom = cute_copy_atom_universal(a, d, vec * 8 * cute_dtype_bytes(d));
    cute_layout thr, val;
    if (major == 0) { /* rows contiguous: threads down the rows first */
        int64_t tr = rows / vec < threads ? rows / vec : threads;
        thr = cute_layout_fmt(a, "(%lld,%lld):(1,%lld)", (long long)tr, (long long)(threads / tr), (long long)tr);
        val = cute_layout_fmt(a, "(%d,%lld):(1,%d)", vec, (long long)(e / vec), vec);
    } else {          /* k contiguous: threads along k first */
        int64_t tk = bk / vec;
        if (tk < 1) tk = 1;
        thr = cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", (long long)(threads / tk), (long long)tk, (long long)tk);
        val = cute_layout_fmt(a, "(%lld,%d):(%d,1)", (long long)(e / vec), vec, vec);
    }
    return cute_make_tiled_copy_tv(a, &atom, &thr, &val);
}

bool gemm_plan_make(cute_alg *a, const cute_gemm_config *cfg, gemm_plan *p)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    cute_dtype d = cfg->dtype;
    int esize = cute_dtype_bytes(d);
    /* f32: 128x128 tiles, each of 256 threads 8x8 of C; f64: 64x64, 4x4 (registers).
     * k-tiles of 8 (seed 002), but the pipelined f32 kernel's are 16: one barrier per 16
     * k-steps instead of 8, 46.4 instead of 45.2 TFLOP/s at 8192^3 on the H200, while
     * 128x256 tiles at one block per SM gained nothing (bench/RESULTS.md) */
    p->threads = 256;
    bool pipelined = cfg->variant == CUTE_GEMM_PIPELINED || cfg->variant == CUTE_GEMM_AUTO;
    p->bk = d == CUTE_F32 && pipelined ? 16 : 8;
    p->bm = p->bn = d == CUTE_F64 ? 64 : 128;
    int per = d == CUTE_F64 ? 2 : 4; /* consecutive values of a thread in M and N */
    /* 16x16 threads; the permutation gives each thread runs of `per` rows (seed 002) */
    cute_mma_atom fma = cute_mma_atom_universal(a, d);
    cute_layout atoms = cute_layout_parse(a, "(16,16,1):(16,1,0)");
    cute_layout pl = cute_layout_fmt(a, "(16,%d):(%d,1)", per, per);
    cute_tiler perm = cute_tiler_layout(&pl);
    p->mma = cute_make_tiled_mma(a, &fma, &atoms, &perm, &perm, NULL);
    int vec = gemm_vector_bytes(cfg, d) / esize;
    if (vec < 1) vec = 1;
    p->copy_a = kt_copy(a, d, p->bm, p->bk, p->threads, vec, cfg->major[0]);
    p->copy_b = kt_copy(a, d, p->bn, p->bk, p->threads, vec, cfg->major[1]);
    return !a->failed;
}

cute_launch_cfg gemm_launch_cfg(cute_ctx *c, const gemm_plan *p, cute_tensor mC, int64_t smem)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = mC.layout.shape.leaf[0], N = mC.layout.shape.leaf[1];
    cute_int mt = cute_ceil_div(a, M, cute_i(p->bm)), nt = cute_ceil_div(a, N, cute_i(p->bn));
    if (p->raster > 1) { /* see gemm_block_tiles */
        mt = cute_mul(a, mt, cute_i(p->raster));
        nt = cute_ceil_div(a, nt, cute_i(p->raster));
    }
    cute_layout l_mode = p->cfg.batched ? cute_get(a, &mC.layout, 2) : cute_layout_parse(a, "1:0");
    cute_int L = cute_size(a, &l_mode);
    cute_launch_cfg cfg = {.grid = {mt, nt, L}, .block = {cute_i(p->threads)}, .smem_bytes = cute_i(smem)};
    return cfg;
}

/* the spec of an operand: its unit-stride mode's stride is 1, and the leading dimension and
 * the unit-stride extent promise the alignment too (so vector accesses stay aligned and a
 * vector is wholly inside or outside); a batched operand's L mode has a free stride */
static const char *major_text(int major, int align_elems, bool batched, char *buf, size_t n)
{
    char ls[24] = "", ld[24] = ""; /* the L mode's extent and stride */
    if (batched) {
        snprintf(ls, sizeof ls, ",?");
        snprintf(ld, sizeof ld, align_elems > 1 ? ",?{div=%d}" : ",?", align_elems);
    }
    if (align_elems > 1)
        snprintf(buf, n, major == 0 ? "(?{div=%d},?%s):(1,?{div=%d}%s)" : "(?,?{div=%d}%s):(?{div=%d},1%s)",
                 align_elems, ls, align_elems, ld);
    else
        snprintf(buf, n, major == 0 ? "(?,?%s):(1,?%s)" : "(?,?%s):(?,1%s)", ls, ld);
    return buf;
}

cute_arg_spec gemm_operand_spec(const cute_gemm_config *cfg, int i, char *text, size_t n)
{
    cute_dtype d = i == 2 ? cute_gemm_c_dtype(cfg) : cfg->dtype;
    int al = cfg->align_bytes < cute_dtype_bytes(d) ? cute_dtype_bytes(d) : cfg->align_bytes; /* C may be wider */
    return cute_spec_tensor(d, major_text(cfg->major[i], al / cute_dtype_bytes(d), cfg->batched, text, n), al);
}

/* the (A/B dtype, C dtype) pairs the kernels take: the reference's table (gemm_ref_dtypes.c) */
static bool dtypes_ok(const cute_gemm_config *cfg, char *err, size_t n)
{
    cute_dtype d = cfg->dtype, cd = cute_gemm_c_dtype(cfg);
    if (d == CUTE_E2M1 || gemm_bw_mxfp8(cfg)) { /* NVFP4, MXFP8: the Blackwell kernel's (scales: arguments 6, 7) */
        if (cfg->variant == CUTE_GEMM_BLACKWELL && (cd == CUTE_F16 || cd == CUTE_BF16 || cd == CUTE_F32)) return true;
        snprintf(err, n, "gemm: %s inputs run in the blackwell kernel, with C of f16, bf16 or f32 (asked: %s, C %s)",
                 d == CUTE_E2M1 ? "e2m1 (NVFP4, MXFP4)" : "block-scaled e4m3 (MXFP8)", cute_gemm_variant_name(cfg->variant),
                 cute_dtype_name(cd));
        return false;
    }
    if (gemm_ref_pair_ok(d, cd)) return true;
    char outs[64];
    gemm_ref_out_text(d, cute_dtype_name, outs, sizeof outs);
    snprintf(err, n, "gemm: %s inputs with %s output are not supported (%s inputs give C of %s)",
             cute_dtype_name(d), cute_dtype_name(cd), cute_dtype_name(d), outs);
    return false;
}

static bool is_tensorop(cute_gemm_variant v)
{
    return v == CUTE_GEMM_TENSOROP || v == CUTE_GEMM_TENSOROP_SMEM;
}

static bool plan_for(cute_alg *a, const cute_gemm_config *cfg, int arch, gemm_plan *p)
{
    if (cfg->variant == CUTE_GEMM_HOPPER) return gemm_plan_hopper(a, cfg, arch, p);
    if (cfg->variant == CUTE_GEMM_BLACKWELL) return gemm_plan_blackwell(a, cfg, arch, p);
    if (cfg->variant == CUTE_GEMM_MULTISTAGE || is_tensorop(cfg->variant))
        return gemm_plan_multistage(a, cfg, arch, p);
    return gemm_plan_make(a, cfg, p);
}

const cute_fn *cute_gemm_compile(cute_runtime *rt, const cute_gemm_config *cfg, char *err, size_t n)
{
    return gemm_compile_broken(rt, cfg, 0, err, n);
}

const cute_fn *gemm_compile_broken(cute_runtime *rt, const cute_gemm_config *cfg, unsigned broken,
                                   char *err, size_t n)
{
    if (!dtypes_ok(cfg, err, n)) return NULL;
    bool fma = cfg->variant == CUTE_GEMM_REGISTERS || cfg->variant == CUTE_GEMM_SHARED ||
               cfg->variant == CUTE_GEMM_PIPELINED || cfg->variant == CUTE_GEMM_MULTISTAGE;
    if (fma && cfg->dtype != CUTE_F32 && cfg->dtype != CUTE_F64) {
        snprintf(err, n, "gemm %s: %s inputs need the tensor cores (tensorop, tensorop_smem)",
                 cute_gemm_variant_name(cfg->variant), cute_dtype_name(cfg->dtype));
        return NULL;
    }
    int esize = cute_dtype_bytes(cfg->dtype);
    int align = cfg->align_bytes;
    if (align < esize || align > 16 || (align & (align - 1))) {
        snprintf(err, n, "gemm: alignment %d bytes (a power of two from %d to 16)", align, esize);
        return NULL;
    }
    if (cfg->index_bound < 0 || cfg->index_bound > INT32_MAX) {
        snprintf(err, n, "gemm: index bound %lld (0 for none, else up to 2^31 - 1)", (long long)cfg->index_bound);
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        if (cfg->major[i] != 0 && cfg->major[i] != 1) {
            snprintf(err, n, "gemm: operand %c's unit-stride mode is %d (0 or 1)", "ABC"[i], cfg->major[i]);
            return NULL;
        }
    if (!gemm_epilogue_valid(&cfg->epilogue, err, n)) return NULL;
    if (cfg->dual && ((cfg->variant != CUTE_GEMM_HOPPER && cfg->variant != CUTE_GEMM_BLACKWELL) ||
                      cute_gemm_epilogue_fused(&cfg->epilogue))) {
        snprintf(err, n, "gemm %s: the dual GEMM (SwiGLU) runs in the hopper and blackwell kernels only, with no "
                 "other epilogue",
                 cute_gemm_variant_name(cfg->variant));
        return NULL;
    }
    if ((unsigned)cfg->scale > CUTE_GEMM_SCALE_BLOCK || (cfg->scale && cfg->variant != CUTE_GEMM_HOPPER) ||
        ((cfg->out_scale || cfg->amax) && !cfg->scale)) {
        snprintf(err, n, "gemm %s: fp8 scales (kind %d%s%s) run in the hopper kernel only, an output scale and amax "
                 "with per-tensor or block scales", cute_gemm_variant_name(cfg->variant), (int)cfg->scale,
                 cfg->out_scale ? ", output scale" : "", cfg->amax ? ", amax" : "");
        return NULL;
    }
    if (cute_gemm_epilogue_fused(&cfg->epilogue) && cfg->variant != CUTE_GEMM_HOPPER) {
        snprintf(err, n, "gemm %s: a fused epilogue runs in the hopper kernel only (sm_90, a 16-bit C)",
                 cute_gemm_variant_name(cfg->variant));
        return NULL;
    }
    if ((cfg->peer_flags || cfg->peer_mirror) &&
        (!cfg->peer_flags || cfg->variant != CUTE_GEMM_HOPPER || cfg->dual || cfg->scale || cfg->batched ||
         cfg->epilogue.bias != CUTE_GEMM_BIAS_NONE)) {
        snprintf(err, n, "gemm %s: flags between GPUs (cutec_gemm_peer) run in the hopper kernel only, with no "
                 "batch, vector, dual GEMM or scales (and a mirror only with flags)", cute_gemm_variant_name(cfg->variant));
        return NULL;
    }
    cute_host_fn hosts[CUTE_GEMM_VARIANT_COUNT] = {
        gemm_pipelined_host, gemm_registers_host, gemm_shared_host, gemm_pipelined_host,
        gemm_multistage_host, gemm_multistage_host, gemm_multistage_host, gemm_hopper_host, gemm_blackwell_host};
    if ((int)cfg->variant < 0 || cfg->variant >= CUTE_GEMM_VARIANT_COUNT) {
        snprintf(err, n, "gemm: unknown variant %d", (int)cfg->variant);
        return NULL;
    }
    cute_alg a;
    cute_alg_init(&a, NULL);
    gemm_plan *plan = malloc(sizeof *plan);
    if (!plan || !plan_for(&a, cfg, cute_runtime_target_arch(rt), plan)) {
        snprintf(err, n, "gemm plan: %s", plan ? a.error : "out of memory");
        free(plan);
        return NULL;
    }
    plan->broken = broken;
    if (cfg->variant == CUTE_GEMM_HOPPER || cfg->variant == CUTE_GEMM_BLACKWELL || plan->persistent)
        plan->sms = gemm_resident_blocks(rt, plan->cluster_m * plan->cluster_n, plan->threads) *
                    (plan->per_sm > 1 ? plan->per_sm : 1);
    bool sm80_streamk = cfg->variant != CUTE_GEMM_HOPPER && plan->streamk;
    if (sm80_streamk) /* the SM80 stream-K grid: the blocks resident at once (the plan's an SM) */
        plan->sms = gemm_resident_blocks(rt, 1, plan->threads) * plan->streamk_per_sm;
    char text[3][64];
    cute_arg_spec specs[10];
    cute_dtype cd = cute_gemm_c_dtype(cfg);
    for (int i = 0; i < 3; i++) specs[i] = gemm_operand_spec(cfg, i, text[i], sizeof text[i]);
    specs[3] = cute_spec_float(gemm_scalar_dtype(cfg));
    specs[4] = cute_spec_float(gemm_scalar_dtype(cfg));
    specs[5] = cute_spec_tensor(cd, "?:1", cute_dtype_bytes(cd)); /* the epilogue's vector */
    if (cfg->dual) specs[5] = specs[1];                               /* or the dual GEMM's B1 */
    /* fp8's scales, f32: sa, sb (one value each, or block scales: rank 2), out scale, amax */
    for (int i = 6; i < 10; i++)
        specs[i] = cute_spec_tensor(CUTE_F32, i < 8 && cfg->scale == CUTE_GEMM_SCALE_BLOCK ? "(?,?):(?,?)" : "?:?", 4);
    char flags[2][24];
    for (int i = 0; cfg->peer_flags && i < 2; i++) { /* the flags between GPUs: wait flags and value, signal's */
        int b = cfg->peer_broadcast >> (2 * i);
        snprintf(flags[i], sizeof flags[i], "(?,?):(%s,%s)", b & 1 ? "0" : "?", b & 2 ? "0" : "?");
        specs[5 + 2 * i] = cute_spec_tensor(CUTE_U32, flags[i], 4);
        specs[6 + 2 * i] = cute_spec_int("?");
    }
    if (cfg->peer_flags) specs[9] = specs[2]; /* the mirror: laid out as C */
    bool streamk = (cfg->variant == CUTE_GEMM_HOPPER || sm80_streamk) && cfg->tiling.schedule == CUTE_GEMM_SCHEDULE_STREAMK;
    bool sm80_dynamic = cfg->variant != CUTE_GEMM_HOPPER && plan->dynamic; /* its tile counter in the flags */
    if (streamk || sm80_dynamic) /* stream-K's workspace (f32; the SM80 kernel's, its accumulators') and flags (u32) */
        specs[6] = sm80_streamk || sm80_dynamic ? cute_spec_tensor(gemm_streamk_acc_dtype(cfg->dtype), GEMM_STREAMK_SM80_WS, 16)
                                : cute_spec_tensor(CUTE_F32, "?:1", 16),
        specs[7] = cute_spec_tensor(CUTE_U32, "?:1", 4);
    bool fp4 = cfg->dtype == CUTE_E2M1, mx8 = gemm_bw_mxfp8(cfg);
    if (fp4 || mx8) { /* NVFP4 / MXFP8: rows of whole 16 bytes (32 e2m1, 32 e4m3), then SFA and SFB */
        specs[0] = specs[1] = cute_spec_tensor(cfg->dtype, "(?,?{div=32}):(?{div=32},1)", 16);
        specs[5] = specs[6] = cute_spec_tensor(CUTE_U8, GEMM_BW_SF_SPEC, 16); /* gemm_bw_sf_arg's view */
    }
    char name[192], tag[64], peer[16] = "";
    if (cfg->peer_flags) snprintf(peer, sizeof peer, "_peer%d%s", cfg->peer_broadcast, cfg->peer_mirror ? "m" : "");
    else if (cfg->mx_scales) snprintf(peer, sizeof peer, "_mx"); /* MXFP4's ue8m0 scales (the same suffix slot) */
    gemm_epilogue_tag(&cfg->epilogue, tag, sizeof tag);
    snprintf(name, sizeof name, "gemm_%s_%s_%s_%c%c%c_a%d%s%s%s%s%s%s%s", cute_gemm_variant_name(cfg->variant),
             cute_dtype_name(cfg->dtype), cute_dtype_name(cd), "nt"[cfg->major[0]], "nt"[cfg->major[1]],
             "nt"[cfg->major[2]], align, cfg->index_bound ? "_i32" : "", cfg->batched ? "_batched" : "",
             cfg->dual ? "_swiglu" : tag, cfg->scale == CUTE_GEMM_SCALE_BLOCK ? "_blockscaled" : cfg->scale ? "_scaled" : "",
             cfg->out_scale ? "_oscale" : "", cfg->amax ? "_amax" : "", peer);
    int nargs = fp4 || mx8 ? 7 : cfg->scale ? 10 : cfg->peer_flags ? CUTE_GEMM_PEER_ARGS
              : streamk || sm80_dynamic ? 8 : cfg->epilogue.bias != CUTE_GEMM_BIAS_NONE || cfg->dual ? 6 : 5;
    const cute_fn *f = cute_compile(rt, name, hosts[cfg->variant], plan, nargs, specs, err, n);
    free(plan); /* only needed while tracing */
    return f;
}
