/* The Blackwell GEMM (blackwell.c) on the interpreter with an sm_100a target, against the
 * float64 reference (gemm_ref) on fresh gaussian inputs, C poisoned (NaN where beta is 0):
 *  - sizes whose edge tiles are partial in M, N and K, bf16 and f16, C of bf16, f16 and f32,
 *    row- and column-major, A M-major and B N-major, more k-tiles than stages, blocks
 *    walking three tiles each (the interpreter has 2 "SMs": both accumulator stages wrap);
 *    the same on the CTA pair (cluster 2x1, cta_group::2);
 *  - AUTO picking it on sm_100 (and the Hopper kernel on sm_90), and what it refuses;
 *  - the broken kernels, each reported with the warp, the site and the state: the MMA thread
 *    never committing the accumulator (the epilogue waits forever: a deadlock), the tensor
 *    memory never freed, the epilogue's T2R before the accumulator's barrier, the MMA reading
 *    a stage before its TMA wait;
 *  - the kernels compiled for sm_100a by NVRTC and ptxas (no Blackwell runs them anywhere).
 * The block-scaled GEMMs (NVFP4, MXFP8): blockscaled_test.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "cutec/numeric.h"
#include "cutec/nvrtc.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed = 21;

typedef struct bcase {
    int64_t M, N, K;
    cute_dtype d, cd;
    int major[3]; /* A, B, C: 1 K-major (row-major C), 0 M- / N-major (column-major C) */
    double alpha, beta;
    cute_gemm_tiling tile;
} bcase;

/* one run (broken as asked): its status, the message in why, *bad the elements off the
 * reference (-1: not checked) */
static cute_status run(cute_runtime *rt, const bcase *k, unsigned broken, int64_t *bad, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = k->d, .c_dtype = k->cd,
                            .major = {k->major[0], k->major[1], k->major[2]}, .align_bytes = 16, .tiling = k->tile};
    *bad = -1, why[0] = 0;
    const cute_fn *f = gemm_compile_broken(rt, &cfg, broken, why, n);
    if (!f) return CUTE_ERR_COMPILE;
    gtk_operand A, B, C;
    bool ok = gtk_make(b, &A, k->d, k->M, k->K, k->major[0], 0, false, &seed) &&
              gtk_make(b, &B, k->d, k->N, k->K, k->major[1], 0, false, &seed) &&
              gtk_make(b, &C, k->cd, k->M, k->N, k->major[2], 0, k->beta == 0, &seed);
    cute_call_arg args[5] = {gtk_arg(&A, k->d), gtk_arg(&B, k->d), gtk_arg(&C, k->cd), cute_call_float(k->alpha),
                             cute_call_float(k->beta)};
    cute_status s = ok ? cute_call(f, NULL, 5, args, why, n) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, n, "%s", b->vt->error(b->self));
    size_t bytes = (size_t)(k->M * k->N * cute_dtype_bytes(k->cd));
    void *got = malloc(bytes);
    gemm_ref_problem p = {{A.host, A.ld, A.major}, {B.host, B.ld, B.major}, {C.host, C.ld, C.major}, k->d, k->cd,
                          {0, 0, 0}, k->M, k->N, k->K, 1, k->alpha, k->beta};
    double worst = 0;
    if (s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK) {
        *bad = gtk_wrong(&p, got, 1 << 20, 0, &seed, &worst);
        snprintf(why, n, "%lld wrong, worst relative error %g", (long long)*bad, worst);
    }
    gtk_operand *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
    cute_fn_free(f);
    return s;
}

static void correct(cute_runtime *rt)
{
    static const bcase k[] = {
        /* two M tiles and tails in M, N and K; beta reads C */
        {200, 136, 104, CUTE_BF16, CUTE_BF16, {1, 1, 1}, 1.5, -0.5, {0}},
        /* f16 -> f32, A M-major, B N-major, column-major C; 3 M x 2 N tiles of 128 x 128 on 2
         * blocks (each walks 3: the accumulator stages wrap); C poisoned with NaN, beta 0 */
        {264, 200, 72, CUTE_F16, CUTE_F32, {0, 0, 0}, 1.0, 0.0, {.bn = 128}},
        /* 4 k-tiles through 2 stages, a 64-wide tile, bf16 -> f16 */
        {136, 72, 200, CUTE_BF16, CUTE_F16, {1, 1, 0}, -1.0, 0.25, {.bn = 64, .stages = 2}},
        /* the CTA pair (cluster 2x1): a 256 x bn tile a pair, tails in M (the odd block's tile
         * outside C on the second M tile), N and K */
        {200, 136, 104, CUTE_BF16, CUTE_BF16, {1, 1, 1}, 1.5, -0.5, {.cluster_m = 2}},
        /* the pair walking 3 x 2 tiles (both accumulator stages wrap), A M-major, B N-major (64
         * of its rows a block), f16 -> f32, column-major C, beta 0 */
        {600, 200, 72, CUTE_F16, CUTE_F32, {0, 0, 0}, 1.0, 0.0, {.bn = 128, .cluster_m = 2}},
        /* the pair through 2 stages of 32 rows of B a block, 4 k-tiles */
        {264, 72, 200, CUTE_BF16, CUTE_F16, {1, 1, 0}, -1.0, 0.25, {.bn = 64, .stages = 2, .cluster_m = 2}},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        char why[4096];
        int64_t bad;
        cute_status s = run(rt, &k[i], 0, &bad, why, sizeof why);
        CHECK(s == CUTE_OK && bad == 0, "blackwell %s->%s %lldx%lldx%lld majors %d%d%d bn %d cluster %dx1: %s %s",
              cute_dtype_name(k[i].d), cute_dtype_name(k[i].cd), (long long)k[i].M, (long long)k[i].N,
              (long long)k[i].K, k[i].major[0], k[i].major[1], k[i].major[2], k[i].tile.bn,
              k[i].tile.cluster_m ? k[i].tile.cluster_m : 1, cute_status_name(s), why);
    }
}

/* the interpreter's report of a broken kernel: not OK, and naming each thing in `want` */
static void broken(cute_runtime *rt)
{
    static const struct {
        unsigned how;
        const char *want[4], *what;
        int cluster_m;
    } b[] = {
        {GEMM_BREAK_ACC_COMMIT, {"deadlock", "warp 0", "blackwell.c", "0 of 1 arrivals"},
         "the MMA thread never commits the accumulator", 1},
        {GEMM_BREAK_TMEM_FREE, {"never freed", "warp 4", "tmem_columns.c", "512 tensor-memory columns"},
         "the tensor memory never freed", 1},
        {GEMM_BREAK_ACC_WAIT, {"tcgen05.ld", "blackwell_epilogue.c", "warp", "never written"},
         "the epilogue's T2R before the accumulator's barrier", 1},
        {GEMM_BREAK_EARLY_READ, {"tcgen05.mma", "blackwell.c", "thread (128,0,0)", "not written"},
         "the MMA reading a stage before its TMA wait", 1},
        {GEMM_BREAK_ACC_COMMIT, {"deadlock", "blackwell", "0 of 1 arrivals", NULL},
         "the CTA pair's MMA thread never commits the accumulator", 2},
        {GEMM_BREAK_ACC_WAIT, {"tcgen05.ld", "blackwell_epilogue.c", "warp", "never written"},
         "the CTA pair's T2R before the accumulator's barrier", 2},
        {GEMM_BREAK_EARLY_READ, {"tcgen05.mma.cta_group::2", "blackwell.c", "thread (128,0,0)", "not written"},
         "the CTA pair's MMA reading a stage before the TMA wait", 2},
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        char why[8192];
        int64_t bad;
        bcase k = {136, 72, 136, CUTE_BF16, CUTE_F32, {1, 1, 1}, 1.0, 0.0, {.cluster_m = b[i].cluster_m}};
        cute_status s = run(rt, &k, b[i].how, &bad, why, sizeof why);
        printf("%s: %.1200s\n", b[i].what, why);
        bool named = s != CUTE_OK;
        for (int j = 0; named && j < 4 && b[i].want[j]; j++) named = strstr(why, b[i].want[j]) != NULL;
        CHECK(named, "%s: %s, the report wants %s, %s, %s: %s", b[i].what, cute_status_name(s), b[i].want[0],
              b[i].want[1], b[i].want[2], why);
    }
}

/* what it refuses, in words; AUTO's order by target */
static void refused(cute_runtime *rt)
{
    static const struct {
        cute_gemm_config cfg;
        const char *want;
    } r[] = {
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_F32, .major = {1, 1, 1}, .align_bytes = 16}, "f16 and bf16"},
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 8}, "16-byte"},
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.cluster_m = 2, .cluster_n = 2}}, "one CTA a tile (1x1) or the CTA pair (2x1)"},
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16, .dual = true,
          .tiling = {.cluster_m = 2}}, "the CTA pair (cluster 2x1) does not take the dual GEMM"},
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.bn = 48}}, "multiple of 32"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char err[1024] = "";
        const cute_fn *f = cute_gemm_compile(rt, &r[i].cfg, err, sizeof err);
        CHECK(!f && strstr(err, r[i].want), "refusal %zu: wanted '%s' in: %s", i, r[i].want, err);
        cute_fn_free(f);
    }
    cute_gemm_variant v[CUTE_GEMM_VARIANT_COUNT];
    CHECK(cute_gemm_auto_variants_for(CUTE_BF16, 100, v) == 3 && v[0] == CUTE_GEMM_BLACKWELL, "AUTO on sm_100");
    CHECK(cute_gemm_auto_variants_for(CUTE_F16, 90, v) == 3 && v[0] == CUTE_GEMM_HOPPER, "AUTO on sm_90");
    CHECK(cute_gemm_auto_variants_for(CUTE_F32, 100, v) == 3 && v[0] == CUTE_GEMM_PIPELINED, "f32 on sm_100");
    cute_runtime_set_target_arch(rt, "sm_90a");
    char err[1024] = "";
    const cute_fn *f = cute_gemm_compile(rt, &r[0].cfg, err, sizeof err);
    cute_gemm_config bf = r[0].cfg;
    bf.dtype = CUTE_BF16;
    cute_fn_free(f);
    f = cute_gemm_compile(rt, &bf, err, sizeof err);
    CHECK(!f && strstr(err, "need sm_100 (the target is sm_90)"), "on sm_90: %s", err);
    cute_fn_free(f);
    cute_runtime_set_target_arch(rt, "sm_100a");
}

/* the library's AUTO runs it on an sm_100 target (M and N past 128: not a skinny shape,
 * which the GEMV kernels take) */
static void library(cute_runtime *rt)
{
    cute_backend *b = cute_runtime_backend(rt);
    gtk_operand A, B, C;
    bool ok = gtk_make(b, &A, CUTE_BF16, 136, 64, 1, 0, false, &seed) &&
              gtk_make(b, &B, CUTE_BF16, 136, 64, 1, 0, false, &seed) &&
              gtk_make(b, &C, CUTE_BF16, 136, 136, 1, 0, true, &seed);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_call_arg a = gtk_arg(&A, CUTE_BF16), bb = gtk_arg(&B, CUTE_BF16), cc = gtk_arg(&C, CUTE_BF16);
    char err[1024] = "";
    cute_status s = ok ? cutec_gemm(lib, CUTE_GEMM_AUTO, &a, &bb, &cc, 1.0, 0.0, NULL, err, sizeof err) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    const cute_gemm_config *e = cute_gemm_lib_entry(lib, 0);
    CHECK(s == CUTE_OK && e && e->variant == CUTE_GEMM_BLACKWELL, "AUTO's kernel on sm_100: %s (%s)",
          e ? cute_gemm_variant_name(e->variant) : "none", s == CUTE_OK ? "ran" : err);
    cute_gemm_lib_free(lib);
    gtk_operand *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
}

/* the dual GEMM (SwiGLU) through cutec_gemm_swiglu on an sm_100 target: the Blackwell kernel,
 * odd sizes (tails in M, N and K's last k-tile) against float64; what it refuses */
static void swiglu(cute_runtime *rt)
{
    static const gtk_swiglu k[] = {
        {136, 200, 72, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0},
        {264, 72, 200, CUTE_F16, CUTE_F16, 0, 0.5, 1.0},
    };
    gtk_swiglu_check(rt, k, sizeof k / sizeof k[0], CUTE_GEMM_BLACKWELL, &seed);
    static const struct {
        cute_gemm_config cfg;
        const char *want;
    } r[] = {
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_BF16, .major = {1, 0, 1}, .align_bytes = 16, .dual = true},
         "K-major B0 and B1"},
        {{.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16, .dual = true,
          .tiling = {.bn = 96}}, "bn 96 must be a multiple of 64"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char err[1024] = "";
        const cute_fn *f = cute_gemm_compile(rt, &r[i].cfg, err, sizeof err);
        CHECK(!f && strstr(err, r[i].want), "dual refusal %zu: wanted '%s' in: %s", i, r[i].want, err);
        cute_fn_free(f);
    }
}

/* NVRTC and ptxas take it for sm_100a (compile only, no GPU): dense bf16, the dual GEMM, the pair
 * (NVFP4 and MXFP8: blockscaled_test.c) */
static void compiles_for_sm100a(cute_runtime *rt, cute_dtype d, bool dual, int cluster_m, const char *mma)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = d, .c_dtype = CUTE_BF16,
                            .major = {1, 1, 1}, .align_bytes = 16, .dual = dual, .tiling = {.cluster_m = cluster_m}};
    gtk_compiles_sm100a(rt, &cfg, mma, "cp.async.bulk.tensor");
}

int main(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter");
        return CHECK_DONE("gemm blackwell_test");
    }
    cute_runtime_set_target_arch(rt, "sm_100a");
    correct(rt);
    broken(rt);
    refused(rt);
    library(rt);
    swiglu(rt);
    compiles_for_sm100a(rt, CUTE_BF16, false, 1, "tcgen05.mma.cta_group::1.kind::f16");
    compiles_for_sm100a(rt, CUTE_BF16, true, 1, "tcgen05.mma.cta_group::1.kind::f16");
    compiles_for_sm100a(rt, CUTE_BF16, false, 2, "tcgen05.mma.cta_group::2.kind::f16");
    cute_runtime_free(rt);
    return CHECK_DONE("gemm blackwell_test");
}
