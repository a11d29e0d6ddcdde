/* The Hopper GEMM (hopper.c) against the float64 reference (gemm_ref) on fresh gaussian
 * inputs, C poisoned (NaN where beta is 0, random where it is not):
 *  - on the interpreter, every check on, at small odd sizes whose edge tiles are partial in
 *    M, N and K (136x200x72 with the 128x256 tile: two M tiles, N and K tails), bf16 and f16,
 *    C of f32, bf16 and f16, row- and column-major, more k-tiles than stages, C through
 *    shared memory and straight from the accumulators, blocks walking several tiles (the
 *    persistent scheduler; the interpreter has 2 "SMs");
 *  - the broken pipelines, each reported by the interpreter with the warp, the site and the
 *    barrier's state: too few transaction bytes expected, a consumer waiting for the wrong
 *    phase, a consumer that never releases a stage, a wgmma that reads a stage before its
 *    wait;
 *  - A M-major, B N-major and both (64-row TMA boxes, wgmma's transposed operands);
 *  - what it refuses, named: an N-major B in tiles not a multiple of 64, unaligned rows,
 *    fp32, stages that do not fit;
 *  - on an sm_90 GPU (else skipped, visibly), larger sizes (sampled) and the library's AUTO
 *    choosing it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;

typedef struct hcase {
    int64_t M, N, K;
    cute_dtype d, cd;
    int cmajor;            /* C: 1 row-major, 0 column-major */
    double alpha, beta;
    cute_gemm_tiling tile; /* zero: the plan's */
    int mn;                /* 1: A M-major, 2: B N-major, 3: both (0: both K-major) */
} hcase;

typedef gtk_operand operand;

static bool make(cute_backend *b, operand *x, cute_dtype d, int64_t rows, int64_t cols, int major, bool nan)
{
    return gtk_make(b, x, d, rows, cols, major, 0, nan, &seed);
}
#define arg gtk_arg

static cute_gemm_config config(const hcase *k)
{
    return (cute_gemm_config){.variant = CUTE_GEMM_HOPPER, .dtype = k->d, .c_dtype = k->cd,
                              .major = {!(k->mn & 1), !(k->mn & 2), k->cmajor}, .align_bytes = 16,
                              .tiling = k->tile};
}

/* elements off the reference: all of them when few, else a sample of 4096 */
static int64_t wrong(const hcase *k, const operand *A, const operand *B, const operand *C, const void *got,
                     double *worst)
{
    gemm_ref_problem p = {{A->host, A->ld, A->major}, {B->host, B->ld, B->major}, {C->host, C->ld, C->major}, k->d, k->cd,
                          {0, 0, 0}, k->M, k->N, k->K, 1, k->alpha, k->beta};
    *worst = 0;
    return gtk_wrong(&p, got, 1 << 16, 4096, &seed, worst);
}

/* one run of the kernel (broken as asked): the call's status, its message in why, and
 * *bad the elements off the reference (-1: not checked) */
static cute_status run(cute_runtime *rt, const hcase *k, unsigned broken, int64_t *bad, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = config(k);
    *bad = -1, why[0] = 0;
    const cute_fn *f = gemm_compile_broken(rt, &cfg, broken, why, n);
    if (!f) return CUTE_ERR_COMPILE;
    operand A, B, C;
    bool ok = make(b, &A, k->d, k->M, k->K, !(k->mn & 1), false) && make(b, &B, k->d, k->N, k->K, !(k->mn & 2), false) &&
              make(b, &C, k->cd, k->M, k->N, k->cmajor, k->beta == 0);
    cute_call_arg args[5] = {arg(&A, k->d), arg(&B, k->d), arg(&C, k->cd), cute_call_float(k->alpha),
                             cute_call_float(k->beta)};
    cute_status s = ok ? cute_call(f, NULL, 5, args, why, n) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, n, "%s", b->vt->error(b->self));
    size_t bytes = (size_t)(k->M * k->N * cute_dtype_bytes(k->cd));
    void *got = malloc(bytes);
    double worst;
    if (s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK) {
        *bad = wrong(k, &A, &B, &C, got, &worst);
        if (*bad) snprintf(why, n, "%lld wrong, worst relative error %g", (long long)*bad, worst);
    }
    operand *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
    cute_fn_free(f);
    return s;
}

static void correct(cute_runtime *rt, const hcase *k, const char *where)
{
    char why[4096];
    int64_t bad;
    cute_status s = run(rt, k, 0, &bad, why, sizeof why);
    CHECK(s == CUTE_OK && bad == 0, "%s hopper %s->%s %lldx%lldx%lld A %s-major, B %s-major, C %s-major tile %dx%d, "
          "%d stages: %s %s", where, cute_dtype_name(k->d), cute_dtype_name(k->cd), (long long)k->M, (long long)k->N,
          (long long)k->K, k->mn & 1 ? "M" : "K", k->mn & 2 ? "N" : "K", k->cmajor ? "row" : "column", k->tile.bm,
          k->tile.bn, k->tile.stages, cute_status_name(s), why);
}

/* the interpreter's report of a broken pipeline: not OK, and naming each thing in `want` */
static void broken(cute_runtime *rt, unsigned how, const char *const *want, const char *what)
{
    /* one N tile of 64, 64 rows (one consumer), 3 stages and 5 k-tiles: the producer wraps */
    hcase k = {72, 40, 5 * 64 - 8, CUTE_BF16, CUTE_F32, 1, 1.0, 0.0, {64, 64, 0, 3, 0, 0, 0, 0}, 0};
    char why[8192];
    int64_t bad;
    cute_status s = run(rt, &k, how, &bad, why, sizeof why);
    printf("%s: %.1500s\n", what, why);
    bool named = s != CUTE_OK;
    for (int i = 0; named && want[i]; i++) named = strstr(why, want[i]) != NULL;
    CHECK(named, "%s: %s, the report wants each of %s%s%s: %s", what, cute_status_name(s), want[0],
          want[1] ? ", " : "", want[1] ? want[1] : "", why);
}

static void broken_all(cute_runtime *rt)
{
    static const char *const tx[] = {"deadlock", "16384 of 16368 transaction bytes", "hopper.c", NULL};
    /* a fresh barrier's phase of parity 1 counts as completed: the wrong parity does not wait,
     * and the wgmma reads the stage before TMA wrote it */
    static const char *const phase[] = {"shared", "wgmma", "hopper.c", NULL};
    static const char *const rel[] = {"deadlock", "0 of 128 arrivals", "hopper.c", NULL};
    static const char *const early[] = {"shared", "wgmma", "hopper.c", NULL};
    broken(rt, GEMM_BREAK_EXPECT_TX, tx, "too few transaction bytes expected");
    broken(rt, GEMM_BREAK_PHASE, phase, "a consumer waiting for the wrong phase");
    broken(rt, GEMM_BREAK_RELEASE, rel, "a consumer that never releases");
    broken(rt, GEMM_BREAK_EARLY_READ, early, "a wgmma reading a stage before its wait");
}

/* what the plan refuses, and why, in words */
static void refused(cute_runtime *rt)
{
    static const struct {
        cute_gemm_config cfg;
        const char *want;
    } r[] = {
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 0, 1}, .align_bytes = 16,
          .tiling = {128, 48, 0, 0, 0, 0, 0, 0}}, "multiple of 64"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 4}, "16-byte"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_F32, .major = {1, 1, 1}, .align_bytes = 16}, "f16, bf16"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_E4M3, .c_dtype = CUTE_F32, .major = {0, 1, 1}, .align_bytes = 16},
         "K-major"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {128, 256, 0, 9, 0, 0, 0, 0}}, "stages"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char err[1024] = "";
        const cute_fn *f = cute_gemm_compile(rt, &r[i].cfg, err, sizeof err);
        CHECK(!f && strstr(err, r[i].want), "refusal %zu: wanted '%s' in: %s", i, r[i].want, err);
        cute_fn_free(f);
    }
}

static void interp(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter");
        return;
    }
    static const hcase k[] = {
        {136, 200, 72, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {0}, 0},
        {136, 200, 72, CUTE_F16, CUTE_F16, 0, -1.0, 0.0, {128, 128, 0, 0, 0, 0, 0, 0}, 0},
        {72, 48, 328, CUTE_BF16, CUTE_BF16, 1, 0.75, 2.0, {64, 48, 0, 2, 0, 0, 0, 0}, 0},
        /* 12 tiles on the interpreter's 2 resident blocks: 6 each, the raster's band narrower
         * than 8 N-tiles, C through shared memory */
        {200, 136, 200, CUTE_F16, CUTE_F32, 0, 1.0, 0.5, {64, 64, 0, 2, 0, 0, 0, 0}, 0},
        /* an f32 C's 128 x 256 tile in two parts of N (and the first case row-major) */
        {136, 264, 136, CUTE_BF16, CUTE_F32, 0, 1.0, -1.0, {0}, 0},
        /* M-major A, N-major B, both: TMA boxes of 64 rows, wgmma's transposed operands */
        {136, 264, 136, CUTE_BF16, CUTE_BF16, 1, 1.5, 0.0, {0}, 1},
        {136, 200, 72, CUTE_F16, CUTE_F32, 0, 1.0, 0.25, {128, 128, 0, 0, 0, 0, 0, 0}, 2},
        {72, 136, 200, CUTE_BF16, CUTE_F16, 1, -0.5, 0.0, {64, 64, 0, 2, 0, 0, 0, 0}, 3},
        /* fp8: k-tiles of 128, wgmma of 32 of K */
        {136, 200, 336, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {72, 136, 208, CUTE_E5M2, CUTE_F32, 0, 0.5, -1.0, {64, 64, 0, 2, 0, 0, 0, 0}, 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "interp");
    broken_all(rt);
    refused(rt);
    cute_runtime_free(rt);
}

/* on an sm_90 GPU: sizes with tails, and the library's AUTO picking the kernel */
static void gpu(void)
{
    cute_runtime *rt = gtk_sm90();
    if (!rt) {
        SKIP("no sm_90 GPU: the Hopper GEMM ran on the interpreter only");
        return;
    }
    static const hcase k[] = {
        {1021, 512, 264, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {0}, 0},
        {1024, 520, 264, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5, {0}, 3},
        {2048, 2048, 2048, CUTE_F16, CUTE_F16, 0, 1.0, 0.0, {0}, 1},
        {1024, 509, 264, CUTE_F16, CUTE_F16, 0, 1.0, 0.0, {0}, 0},
        {2048, 2048, 2048, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {4096, 4096, 4096, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {777, 1000, 1000, CUTE_BF16, CUTE_BF16, 1, 1.0, 1.0, {128, 128, 0, 0, 0, 0, 0, 0}, 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "cuda");
    cute_runtime_free(rt);
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    if (getenv("CUTEC_SEED")) seed = strtoull(getenv("CUTEC_SEED"), NULL, 10);
    printf("hopper_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    interp();
    gpu();
    return CHECK_DONE("hopper_test");
}
