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
 *  - seed 001's NVFP4 GEMM (e2m1 A and B, ue4m3 scales per 16 of K in CuTe's layout): tails
 *    in M and N, K's last scale atom alone in its k-tile, C of f32 and bf16;
 *  - the kernels compiled for sm_100a by NVRTC and ptxas (no Blackwell runs them anywhere). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/gemv.h"
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

/* --- NVFP4 -------------------------------------------------------------------------------- */

typedef struct fp4_operand {
    int64_t rows, K;
    uint8_t *codes, *sf; /* e2m1 two a byte, row-major; the scales in CuTe's layout */
    int64_t nsf;
    cute_buffer dc, ds;
} fp4_operand;

/* element (r, k), scaled */
static double fp4_value(const fp4_operand *o, int64_t r, int64_t k)
{
    double v = cute_e2m1_to_f32((uint8_t)(o->codes[(r * o->K + k) / 2] >> (4 * (k % 2))));
    return v * cute_ue4m3_to_f32(o->sf[cute_gemv_sf_index(r, k, 0, o->rows, o->K, 16)]);
}

static bool fp4_make(cute_backend *b, fp4_operand *o, int64_t rows, int64_t K)
{
    o->rows = rows, o->K = K, o->nsf = cute_gemv_sf_count(rows, K, 1, 16);
    o->codes = malloc((size_t)(rows * K / 2)), o->sf = malloc((size_t)o->nsf);
    for (int64_t i = 0; i < rows * K / 2; i++) /* any two e2m1 */
        o->codes[i] = (uint8_t)((int64_t)(ew_random(&seed) * 1e4) & 0xff);
    for (int64_t i = 0; i < o->nsf; i++) o->sf[i] = cute_f64_to_ue4m3(0.25 + fabs(ew_random(&seed)));
    return b->vt->alloc(b->self, (size_t)(rows * K / 2), &o->dc) == CUTE_OK &&
           b->vt->upload(b->self, &o->dc, 0, o->codes, (size_t)(rows * K / 2)) == CUTE_OK &&
           b->vt->alloc(b->self, (size_t)o->nsf, &o->ds) == CUTE_OK &&
           b->vt->upload(b->self, &o->ds, 0, o->sf, (size_t)o->nsf) == CUTE_OK;
}

static void fp4_free(cute_backend *b, fp4_operand *o)
{
    b->vt->free(b->self, &o->dc), b->vt->free(b->self, &o->ds);
    free(o->codes), free(o->sf);
}

/* C's elements off alpha (A sfa)(B sfb)^T + beta C0 in float64 */
static int64_t fp4_wrong(const fp4_operand *A, const fp4_operand *B, const gtk_operand *C, cute_dtype cd, double alpha,
                         double beta, const void *got, double *worst)
{
    int64_t bad = 0;
    double tol = cd == CUTE_F32 ? 1e-6 : 1.0 / 128;
    for (int64_t m = 0; m < A->rows; m++)
        for (int64_t n = 0; n < B->rows; n++) {
            double sum = 0, mag = 0;
            for (int64_t k = 0; k < A->K; k++) {
                double t = fp4_value(A, m, k) * fp4_value(B, n, k);
                sum += t, mag += fabs(t);
            }
            int64_t at = C->major ? m * C->ld + n : n * C->ld + m;
            double c0 = beta == 0 ? 0 : ew_get(cd, C->host, at), want = alpha * sum + beta * c0;
            double err = fabs(ew_get(cd, got, at) - want) / (fabs(alpha) * mag + fabs(beta * c0) + 1e-30);
            if (!(err <= tol)) bad++;
            if (!(err <= *worst)) *worst = err;
        }
    return bad;
}

/* one NVFP4 product against float64: the compiled function called directly, or through the
 * library's entry point (lib) */
static void nvfp4_case(cute_runtime *rt, cute_gemm_lib *lib, int64_t M, int64_t N, int64_t K, cute_dtype cd, int cmajor,
                       double alpha, double beta)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = CUTE_E2M1, .c_dtype = cd,
                            .major = {1, 1, cmajor}, .align_bytes = 16};
    char why[4096] = "";
    const cute_fn *f = cute_gemm_compile(rt, &cfg, why, sizeof why);
    fp4_operand A, B;
    gtk_operand C;
    bool ok = f && fp4_make(b, &A, M, K) && fp4_make(b, &B, N, K) &&
              gtk_make(b, &C, cd, M, N, cmajor, 0, beta == 0, &seed);
    cute_call_arg args[7] = {cute_call_tensor(&A.dc, 0, CUTE_E2M1, 2, (int64_t[]){M, K}, (int64_t[]){K, 1}),
                             cute_call_tensor(&B.dc, 0, CUTE_E2M1, 2, (int64_t[]){N, K}, (int64_t[]){K, 1}),
                             gtk_arg(&C, cd), cute_call_float(alpha), cute_call_float(beta),
                             cute_call_tensor(&A.ds, 0, CUTE_UE4M3, 1, &A.nsf, (int64_t[]){1}),
                             cute_call_tensor(&B.ds, 0, CUTE_UE4M3, 1, &B.nsf, (int64_t[]){1})};
    cute_status s = !ok ? CUTE_ERR_COMPILE
                    : lib ? cutec_gemm_nvfp4(lib, &args[0], &args[5], &args[1], &args[6], &args[2], alpha, beta, NULL,
                                             why, sizeof why)
                          : cute_call(f, NULL, 7, args, why, sizeof why);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, sizeof why, "%s", b->vt->error(b->self));
    size_t bytes = (size_t)(M * N * cute_dtype_bytes(cd));
    void *got = malloc(bytes);
    double worst = 0;
    int64_t bad = s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK
                      ? fp4_wrong(&A, &B, &C, cd, alpha, beta, got, &worst) : -1;
    CHECK(s == CUTE_OK && bad == 0, "NVFP4 %lldx%lldx%lld -> %s (%s-major)%s: %s %s, %lld wrong, worst %g",
          (long long)M, (long long)N, (long long)K, cute_dtype_name(cd), cmajor ? "row" : "column",
          lib ? " by cutec_gemm_nvfp4" : "", cute_status_name(s), why, (long long)bad, worst);
    if (lib && ok) { /* a scale buffer one scale short, and an N-major B: refused, named */
        args[5].shape[0]--;
        s = cutec_gemm_nvfp4(lib, &args[0], &args[5], &args[1], &args[6], &args[2], alpha, beta, NULL, why, sizeof why);
        CHECK(s == CUTE_ERR_INVALID && strstr(why, "SFA must be") && strstr(why, "cute_gemv_sf_count"), "short SFA: %s",
              why);
        args[5].shape[0]++, args[1].stride[0] = 1, args[1].stride[1] = N;
        s = cutec_gemm_nvfp4(lib, &args[0], &args[5], &args[1], &args[6], &args[2], alpha, beta, NULL, why, sizeof why);
        CHECK(s == CUTE_ERR_INVALID && strstr(why, "B has stride"), "N-major B: %s", why);
    }
    if (ok) fp4_free(b, &A), fp4_free(b, &B);
    b->vt->free(b->self, &C.dev), free(C.host), free(got);
    cute_fn_free(f);
}

static void nvfp4(cute_runtime *rt)
{
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    nvfp4_case(rt, NULL, 200, 136, 320, CUTE_F32, 1, 1.0, 0.0);  /* K's 5th atom alone in the 2nd k-tile */
    nvfp4_case(rt, lib, 136, 264, 256, CUTE_BF16, 0, 0.5, -1.0); /* 2 x 3 tiles on 2 blocks, beta */
    cute_gemm_lib_free(lib);
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
        {GEMM_BREAK_TMEM_FREE, {"never freed", "warp 4", "blackwell.c", "512 tensor-memory columns"},
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
          .tiling = {.cluster_m = 2}}, "the dense f16 / bf16 GEMM only"},
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

/* NVRTC and ptxas take it for sm_100a (compile only, no GPU): dense bf16, the dual GEMM, NVFP4 */
static void compiles_for_sm100a(cute_runtime *rt, cute_dtype d, bool dual, int cluster_m, const char *mma)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = d, .c_dtype = CUTE_BF16,
                            .major = {1, 1, 1}, .align_bytes = 16, .dual = dual, .tiling = {.cluster_m = cluster_m}};
    char err[4096] = "";
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    char *ptx = NULL;
    cute_nvrtc *nv;
    bool have = cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK;
    if (have) cute_nvrtc_close(nv);
    cute_status s = f && have ? cute_fn_code(f, "ptx", "sm_100a", &ptx, err, sizeof err) : CUTE_ERR_COMPILE;
    CHECK(f != NULL, "the kernel traces: %s", err);
    if (!have) {
        SKIP("no NVRTC: the sm_100a compile");
    } else {
        CHECK(s == CUTE_OK && strstr(ptx, mma) && strstr(ptx, "tcgen05.ld.sync") && strstr(ptx, "cp.async.bulk.tensor"),
              "the sm_100a PTX of %s has %s, T2R and TMA: %s", cute_dtype_name(d), mma, s == CUTE_OK ? "missing" : err);
        char *cubin = NULL;
        s = cute_fn_code(f, "usage", "sm_100a", &cubin, err, sizeof err);
        CHECK(s == CUTE_OK && strstr(cubin, "0 bytes spill"), "ptxas for sm_100a (%s): %s", cute_dtype_name(d),
              s == CUTE_OK ? cubin : err);
        free(cubin);
    }
    free(ptx);
    cute_fn_free(f);
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
    nvfp4(rt);
    swiglu(rt);
    compiles_for_sm100a(rt, CUTE_BF16, false, 1, "tcgen05.mma.cta_group::1.kind::f16");
    compiles_for_sm100a(rt, CUTE_BF16, true, 1, "tcgen05.mma.cta_group::1.kind::f16");
    compiles_for_sm100a(rt, CUTE_E2M1, false, 1, "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X");
    compiles_for_sm100a(rt, CUTE_BF16, false, 2, "tcgen05.mma.cta_group::2.kind::f16");
    cute_runtime_free(rt);
    return CHECK_DONE("gemm blackwell_test");
}
