/* cute_gemm_compile: the plan (tiles, TiledMMA, TiledCopies) for a configuration, the
 * argument specs its majors and alignment promise, and the variant's host function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

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
    int vec = (cfg->align_bytes < 16 ? cfg->align_bytes : 16) / esize;
    if (vec < 1) vec = 1;
    p->copy_a = kt_copy(a, d, p->bm, p->bk, p->threads, vec, cfg->major[0]);
    p->copy_b = kt_copy(a, d, p->bn, p->bk, p->threads, vec, cfg->major[1]);
    return !a->failed;
}

cute_launch_cfg gemm_launch_cfg(cute_ctx *c, const gemm_plan *p, cute_tensor mC, int64_t smem)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = mC.layout.shape.leaf[0], N = mC.layout.shape.leaf[1];
    cute_launch_cfg cfg = {
        .grid = {cute_ceil_div(a, M, cute_i(p->bm)), cute_ceil_div(a, N, cute_i(p->bn))},
        .block = {cute_i(p->threads)},
        .smem_bytes = cute_i(smem)};
    return cfg;
}

static const char *major_text(int major, int align_elems, char *buf, size_t n)
{
    /* the leading dimension promises the alignment too, so vector accesses stay aligned,
     * and so does the unit-stride extent, so a vector is wholly inside or outside */
    if (align_elems > 1)
        snprintf(buf, n, major == 0 ? "(?{div=%d},?):(1,?{div=%d})" : "(?,?{div=%d}):(?{div=%d},1)",
                 align_elems, align_elems);
    else
        snprintf(buf, n, major == 0 ? "(?,?):(1,?)" : "(?,?):(?,1)");
    return buf;
}

const cute_fn *cute_gemm_compile(cute_runtime *rt, const cute_gemm_config *cfg, char *err, size_t n)
{
    if (cfg->dtype != CUTE_F32 && cfg->dtype != CUTE_F64) {
        snprintf(err, n, "gemm: %s is not supported (f32 and f64)", cute_dtype_name(cfg->dtype));
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
    cute_host_fn hosts[CUTE_GEMM_VARIANT_COUNT] = {gemm_pipelined_host, gemm_registers_host,
                                                   gemm_shared_host, gemm_pipelined_host};
    if ((int)cfg->variant < 0 || cfg->variant >= CUTE_GEMM_VARIANT_COUNT) {
        snprintf(err, n, "gemm: unknown variant %d", (int)cfg->variant);
        return NULL;
    }
    cute_alg a;
    cute_alg_init(&a, NULL);
    gemm_plan *plan = malloc(sizeof *plan);
    if (!plan || !gemm_plan_make(&a, cfg, plan)) {
        snprintf(err, n, "gemm plan: %s", plan ? a.error : "out of memory");
        free(plan);
        return NULL;
    }
    char text[3][64];
    cute_arg_spec specs[5];
    for (int i = 0; i < 3; i++)
        specs[i] = cute_spec_tensor(cfg->dtype, major_text(cfg->major[i], align / esize, text[i], sizeof text[i]), align);
    specs[3] = cute_spec_float(cfg->dtype);
    specs[4] = cute_spec_float(cfg->dtype);
    char name[64];
    snprintf(name, sizeof name, "gemm_%s_%s_%c%c%c_a%d%s", cute_gemm_variant_name(cfg->variant),
             cute_dtype_name(cfg->dtype), "nt"[cfg->major[0]], "nt"[cfg->major[1]],
             "nt"[cfg->major[2]], align, cfg->index_bound ? "_i32" : "");
    const cute_fn *f = cute_compile(rt, name, hosts[cfg->variant], plan, 5, specs, err, n);
    free(plan); /* only needed while tracing */
    return f;
}
