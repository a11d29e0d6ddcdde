/* Internal, for the Hopper, Blackwell and stream-K GEMM tests (hopper_test.c, grouped_test.c,
 * blackwell_test.c, streamk_test.c, streamk_sm80_test.c): an operand made of fresh gaussian
 * values on the host and uploaded, as a call argument, the count of a result's elements off
 * the float64 reference, the dual GEMM (SwiGLU) through the library against float64, and the
 * tests' main (interpreter cases, then GPU ones). */
#ifndef CUTEC_GEMM_TESTKIT_H
#define CUTEC_GEMM_TESTKIT_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

typedef struct gtk_operand {
    int64_t rows, cols, ld;
    int major;
    void *host;
    cute_buffer dev;
} gtk_operand;

/* rows x cols of d with a unit stride in mode `major` and `pad` more elements of leading
 * dimension; NaN everywhere when nan (a poisoned C) */
static inline bool gtk_make(cute_backend *b, gtk_operand *x, cute_dtype d, int64_t rows, int64_t cols, int major,
                            int64_t pad, bool nan, uint64_t *seed)
{
    x->rows = rows, x->cols = cols, x->major = major, x->ld = (major ? cols : rows) + pad;
    size_t n = (size_t)(x->ld * (major ? rows : cols)), es = (size_t)cute_dtype_bytes(d);
    x->host = malloc(n * es + 1);
    gemm_ref_fill(d, x->host, (int64_t)n, seed);
    for (size_t i = 0; nan && i < n; i++) ew_set(d, x->host, (int64_t)i, NAN);
    return b->vt->alloc(b->self, n * es + 16, &x->dev) == CUTE_OK &&
           b->vt->upload(b->self, &x->dev, 0, x->host, n * es) == CUTE_OK;
}

static inline cute_call_arg gtk_arg(const gtk_operand *x, cute_dtype d)
{
    int64_t shape[2] = {x->rows, x->cols}, stride[2] = {x->major ? x->ld : 1, x->major ? 1 : x->ld};
    return cute_call_tensor(&x->dev, 0, d, 2, shape, stride);
}

/* elements of got (C's layout) off the reference of p: all when at most `all`, else a
 * sample of `sample`; the worst relative error into *worst (kept if larger) */
static inline int64_t gtk_wrong(const gemm_ref_problem *p, const void *got, int64_t all, int64_t sample,
                                uint64_t *seed, double *worst)
{
    double tol = gemm_ref_tolerance(p->in, p->out);
    int64_t total = p->M * p->N, samples = total <= all ? total : sample, bad = 0;
    for (int64_t i = 0; i < samples; i++) {
        int64_t e = samples == total ? i : (int64_t)((ew_random(seed) + 2.0) / 4.0 * (double)total) % total;
        int64_t m = e % p->M, n = e / p->M;
        double mag, ref = gemm_ref_value(p, m, n, 0, &mag);
        double err = gemm_ref_error(ew_get(p->out, got, gemm_ref_at(&p->C0, m, n)), ref, mag);
        if (!(err <= tol)) bad++;
        if (!(err <= *worst)) *worst = err;
    }
    return bad;
}

/* a dual GEMM's problem: C (M,N) of cd, cmajor 1 row-major; A, B0, B1 of d, K-major */
typedef struct gtk_swiglu {
    int64_t M, N, K;
    cute_dtype d, cd;
    int cmajor;
    double alpha, beta;
} gtk_swiglu;

/* the dual GEMM's reference of element (m, n): alpha silu(g) u + beta C0, g and u the
 * float64 products with B0 and B1; its magnitude bounds the rounding through silu (slope
 * below 1.1) and the product */
static inline double gtk_swiglu_ref(const gtk_swiglu *k, const gtk_operand *A, const gtk_operand *B0,
                                    const gtk_operand *B1, const gtk_operand *C, int64_t m, int64_t n, double *mag)
{
    gemm_ref_problem p = {{A->host, A->ld, A->major}, {B0->host, B0->ld, B0->major}, {C->host, C->ld, C->major}, k->d,
                          k->cd, {0, 0, 0}, k->M, k->N, k->K, 1, 1.0, 0.0};
    double mg, mu, g = gemm_ref_value(&p, m, n, 0, &mg);
    p.B.data = B1->host;
    double u = gemm_ref_value(&p, m, n, 0, &mu), c0 = k->beta == 0 ? 0 : ew_get(k->cd, C->host, gemm_ref_at(&p.C0, m, n));
    *mag = fabs(k->alpha) * (1.1 * mg * fabs(u) + fabs(g) * mu) + fabs(k->beta * c0);
    return k->alpha * g / (1 + exp(-g)) * u + k->beta * c0;
}

/* elements of got (C's layout) off the reference */
static inline int64_t gtk_swiglu_wrong(const gtk_swiglu *k, const gtk_operand *A, const gtk_operand *B0,
                                       const gtk_operand *B1, const gtk_operand *C, const void *got)
{
    int64_t bad = 0;
    gemm_ref_operand at = {C->host, C->ld, C->major};
    for (int64_t e = 0; e < k->M * k->N; e++) {
        int64_t m = e % k->M, col = e / k->M;
        double mag, ref = gtk_swiglu_ref(k, A, B0, B1, C, m, col, &mag);
        bad += !(gemm_ref_error(ew_get(k->cd, got, gemm_ref_at(&at, m, col)), ref, mag) <=
                 gemm_ref_tolerance(k->d, k->cd));
    }
    return bad;
}

/* one dual GEMM through cutec_gemm_swiglu on rt (C poisoned first): its status, *bad the
 * elements off float64 (-1: none read back), *variant the kernel the library ran */
static inline cute_status gtk_swiglu_run(cute_runtime *rt, const gtk_swiglu *k, uint64_t *seed, int64_t *bad,
                                         cute_gemm_variant *variant, char *err, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    gtk_operand A, B0, B1, C;
    bool ok = gtk_make(b, &A, k->d, k->M, k->K, 1, 0, false, seed) &&
              gtk_make(b, &B0, k->d, k->N, k->K, 1, 0, false, seed) &&
              gtk_make(b, &B1, k->d, k->N, k->K, 1, 0, false, seed) &&
              gtk_make(b, &C, k->cd, k->M, k->N, k->cmajor, 0, k->beta == 0, seed);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_call_arg a = gtk_arg(&A, k->d), b0 = gtk_arg(&B0, k->d), b1 = gtk_arg(&B1, k->d), c = gtk_arg(&C, k->cd);
    cute_status s = ok ? cutec_gemm_swiglu(lib, &a, &b0, &b1, &c, k->alpha, k->beta, NULL, err, n) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    const cute_gemm_config *e = cute_gemm_lib_entry(lib, 0);
    *variant = e ? e->variant : CUTE_GEMM_AUTO;
    size_t bytes = (size_t)(k->M * k->N * cute_dtype_bytes(k->cd));
    void *got = malloc(bytes);
    *bad = -1;
    if (s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK)
        *bad = gtk_swiglu_wrong(k, &A, &B0, &B1, &C, got);
    cute_gemm_lib_free(lib);
    gtk_operand *all[4] = {&A, &B0, &B1, &C};
    for (int i = 0; i < 4; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
    return s;
}

/* the dual GEMMs k[0..n) run by kernel `want`, each element within float64's tolerance */
static inline void gtk_swiglu_check(cute_runtime *rt, const gtk_swiglu *k, size_t n, cute_gemm_variant want,
                                    uint64_t *seed)
{
    for (size_t i = 0; i < n; i++) {
        char err[2048] = "";
        int64_t bad;
        cute_gemm_variant v;
        cute_status s = gtk_swiglu_run(rt, &k[i], seed, &bad, &v, err, sizeof err);
        CHECK(s == CUTE_OK && bad == 0 && v == want, "swiglu %s %lldx%lldx%lld by %s: %s %s, %lld wrong",
              cute_dtype_name(k[i].d), (long long)k[i].M, (long long)k[i].N, (long long)k[i].K,
              cute_gemm_variant_name(v), cute_status_name(s), err, (long long)bad);
    }
}

/* the interpreter's runtime, or NULL and a skip */
static inline cute_runtime *gtk_interp(void)
{
    char err[512];
    cute_runtime *rt = NULL;
    if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK) return rt;
    SKIP("no interpreter");
    return NULL;
}

/* the CUDA runtime of an sm_90 GPU, or NULL (none: the caller skips) */
static inline cute_runtime *gtk_sm90(void)
{
    char err[512];
    cute_runtime *rt = NULL;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK && cute_runtime_target_arch(rt) == 90) return rt;
    if (rt) cute_runtime_free(rt);
    return NULL;
}

/* NVRTC and ptxas take cfg's kernel for sm_100a (compile only, no GPU): its PTX holds `mma` and
 * `also`, ptxas reports no spills; a skip without NVRTC */
static inline void gtk_compiles_sm100a(cute_runtime *rt, const cute_gemm_config *cfg, const char *mma, const char *also)
{
    char err[4096] = "", *ptx = NULL, *usage = NULL;
    const cute_fn *f = cute_gemm_compile(rt, cfg, err, sizeof err);
    cute_nvrtc *nv;
    bool have = cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK;
    if (have) cute_nvrtc_close(nv);
    CHECK(f != NULL, "the %s kernel traces: %s", cute_dtype_name(cfg->dtype), err);
    if (!have) {
        SKIP("no NVRTC: the sm_100a compile");
    } else if (f) {
        cute_status s = cute_fn_code(f, "ptx", "sm_100a", &ptx, err, sizeof err);
        CHECK(s == CUTE_OK && strstr(ptx, mma) && strstr(ptx, also), "the sm_100a PTX of %s has %s and %s: %s",
              cute_dtype_name(cfg->dtype), mma, also, s == CUTE_OK ? "missing" : err);
        s = cute_fn_code(f, "usage", "sm_100a", &usage, err, sizeof err);
        CHECK(s == CUTE_OK && strstr(usage, "0 bytes spill"), "ptxas for sm_100a (%s): %s", cute_dtype_name(cfg->dtype),
              s == CUTE_OK ? usage : err);
    }
    free(ptx), free(usage);
    cute_fn_free(f);
}

/* A stream-K kernel's workspace in a test: `bytes` on the device, its flags (a u32 a block,
 * from flags_at) down before the call; gtk_streamk_raised counts those left up after it (a
 * finisher that did not wait for them).  Zero-initialise one the test may never make. */
typedef struct gtk_streamk_ws {
    cute_buffer dev;
    uint32_t *flags; /* NULL: not made */
    size_t flags_at, bytes;
    int blocks;
} gtk_streamk_ws;

static inline bool gtk_streamk_ws_make(cute_backend *b, gtk_streamk_ws *w, size_t bytes, size_t flags_at, int blocks)
{
    *w = (gtk_streamk_ws){.flags = calloc((size_t)blocks, 4), .flags_at = flags_at, .bytes = bytes, .blocks = blocks};
    if (w->flags && b->vt->alloc(b->self, bytes, &w->dev) == CUTE_OK)
        return b->vt->upload(b->self, &w->dev, flags_at, w->flags, bytes - flags_at) == CUTE_OK;
    free(w->flags), w->flags = NULL;
    return false;
}

/* the flags as the call's last argument */
static inline cute_call_arg gtk_streamk_flags_arg(const gtk_streamk_ws *w)
{
    return cute_call_tensor(&w->dev, w->flags_at, CUTE_U32, 1, (int64_t[]){w->blocks}, (int64_t[]){1});
}

/* the flags up after the call; -1 where they cannot be read back */
static inline int gtk_streamk_raised(cute_backend *b, gtk_streamk_ws *w)
{
    if (b->vt->download(b->self, w->flags, &w->dev, w->flags_at, w->bytes - w->flags_at) != CUTE_OK) return -1;
    int up = 0;
    for (int i = 0; i < w->blocks; i++) up += w->flags[i] != 0;
    return up;
}

static inline void gtk_streamk_ws_free(cute_backend *b, gtk_streamk_ws *w)
{
    if (w->flags) b->vt->free(b->self, &w->dev), free(w->flags), w->flags = NULL;
}

/* a GEMM test's main: *seed from check_seed ($CUTEC_SEED, else the time), the interpreter's
 * cases unless $CUTEC_TEST_GPU_ONLY is set and not 0 (a GPU pass short of time: CI runs them),
 * then the GPU's (each skips without one); the exit status */
static inline int gtk_main(const char *name, uint64_t *seed, void (*interp)(void), void (*gpu)(void))
{
    *seed = check_seed(name);
    const char *gpu_only = getenv("CUTEC_TEST_GPU_ONLY");
    if (gpu_only && *gpu_only && strcmp(gpu_only, "0")) SKIP("the interpreter's cases (CUTEC_TEST_GPU_ONLY)");
    else interp();
    gpu();
    return CHECK_DONE(name);
}

#endif
