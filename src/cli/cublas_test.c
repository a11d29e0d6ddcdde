/* The cuBLAS reference (cute_ref_gemm) against the float64 CPU reference, element by element
 * with each dtype pair's tolerance: every combination of A, B and C majors for every input
 * and output dtype of the GEMM library's contract (fp8: the K-major A and B cuBLASLt takes),
 * batched and not, padded leading dimensions and degenerate extents, on fresh gaussian
 * data.  It maps cutec's (M,K,L), (N,K,L), (M,N,L) operands onto cuBLAS's column-major
 * operations; a wrong mapping is a wrong reference for every benchmark, so it is checked
 * here.  Needs a GPU and cuBLAS; skips visibly without (the loader's refusals, first, need
 * neither). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cli/cublas.h"
#include "cli/cublas_internal.h"
#include "cli/gemm_cli.h"
#include "cutec/kernels.h"
#include "cutec/cuda_driver.h"

static uint64_t seed;

typedef struct gpu {
    cute_runtime *rt;
    cute_backend *b;
    cute_cublas *h;
} gpu;

static const char *letters(const int major[3])
{
    static char s[4];
    s[0] = major[0] ? 't' : 'n', s[1] = major[1] ? 'n' : 't', s[2] = major[2] ? 't' : 'n', s[3] = 0;
    return s;
}

/* one product through cuBLAS, every element checked; false if cuBLAS refused it */
static bool product(gpu *g, cute_dtype in, cute_dtype out, const int64_t mnkl[4], const int major[3],
                    int64_t pad)
{
    gemm_problem p;
    const char *layout = letters(major);
    bool made = gemm_problem_make(g->b, &p, in, out, mnkl, layout, pad, seed++);
    CHECK(made, "memory for %s", layout);
    bool integral = gemm_ref_integral(in), ran = false;
    double alpha = integral ? 3 : 1.5, beta = integral ? -2 : -0.5, tol = gemm_ref_tolerance(in, out);
    cute_call_arg a = gemm_operand_arg(&p.a, p.l), b = gemm_operand_arg(&p.b, p.l), c = gemm_operand_arg(&p.c, p.l);
    cute_status s = made ? cute_ref_gemm(g->h, &a, &b, &c, alpha, beta, NULL) : CUTE_ERR_OOM;
    if (s == CUTE_OK) {
        ran = true;
        CHECK(g->b->vt->sync(g->b->self, NULL) == CUTE_OK, "%s", g->b->vt->error(g->b->self));
        g->b->vt->download(g->b->self, p.c.host, &p.c.buf, 0, gemm_operand_bytes(&p.c));
        gemm_verdict v;
        CHECK(gemm_check_all(&p, p.c.host, alpha, beta, tol, &v), "memory for the reference");
        CHECK(v.bad == 0, "cuBLAS %s -> %s %lldx%lldx%lld L %lld layout %s pad %lld: %lld wrong (worst %g at "
              "%lld,%lld,%lld: %g, want %g)", cli_gemm_dtype_name(in), cli_gemm_dtype_name(out),
              (long long)mnkl[0], (long long)mnkl[1], (long long)mnkl[2], (long long)mnkl[3], layout,
              (long long)pad, (long long)v.bad, v.worst, (long long)v.wm, (long long)v.wn, (long long)v.wl,
              v.got, v.want);
    }
    if (made) gemm_problem_drop(g->b, &p);
    return ran;
}

/* every majors combination of one dtype pair, unbatched and batched, padded and not (extents
 * and leading dimensions multiples of 16, as cuBLAS's s8 and fp8 kernels may need) */
static void pair(gpu *g, cute_dtype in, cute_dtype out, bool tn_only)
{
    for (int mask = 0; mask < 8; mask++) {
        int major[3] = {mask & 1, (mask >> 1) & 1 ? 0 : 1, (mask >> 2) & 1};
        if (tn_only && (major[0] != 1 || major[1] != 1)) continue;
        bool ok = product(g, in, out, (int64_t[]){64, 48, 96, 1}, major, 0) &&
                  product(g, in, out, (int64_t[]){144, 80, 304, 3}, major, 16);
        /* cuBLAS's integer GEMM has no kernel for some layouts (seen on the H200, cuBLAS 13.1:
         * nnn and nnt); it says so, and the benchmark then runs without a cuBLAS row */
        if (!ok && in == CUTE_I8 && strstr(cute_cublas_error(g->h), "not supported")) {
            printf("cuBLAS has no s8 kernel for layout %s: %s\n", letters(major), cute_cublas_error(g->h));
            continue;
        }
        CHECK(ok, "cuBLAS refused %s -> %s layout %s: %s", cli_gemm_dtype_name(in), cli_gemm_dtype_name(out),
              letters(major), cute_cublas_error(g->h));
    }
}

static void every_pair(gpu *g)
{
    static const cute_dtype ins[] = {CUTE_F32, CUTE_F64, CUTE_F16, CUTE_BF16, CUTE_TF32, CUTE_I8, CUTE_E4M3};
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        const cute_dtype *outs;
        int n;
        gemm_ref_out_dtypes(ins[i], &outs, &n);
        for (int j = 0; j < n; j++)
            /* cuBLAS has no f16 -> bf16 or bf16 -> f16 kernel, cuBLASLt no e4m3 x e4m3 at all
             * (it pairs e5m2 only with e4m3; H200, cuBLAS 13.1): refused with the reason,
             * checked below and in the bench */
            if (!((ins[i] == CUTE_F16 && outs[j] == CUTE_BF16) || (ins[i] == CUTE_BF16 && outs[j] == CUTE_F16) ||
                  ins[i] == CUTE_E4M3))
                pair(g, ins[i], outs[j], ins[i] == CUTE_E4M3);
    }
    /* the pairs cuBLAS has no kernel for are refused with the reason */
    CHECK(!product(g, CUTE_F16, CUTE_BF16, (int64_t[]){16, 16, 16, 1}, (int[]){1, 1, 0}, 0) &&
              strstr(cute_cublas_error(g->h), "no kernel for f16 inputs into a bf16 C"),
          "f16 -> bf16: %s", cute_cublas_error(g->h));
}

/* fp8 cuBLASLt cannot take: M- or N-major operands, and e5m2 x e5m2 (no such kernel) */
static void fp8_refusals(gpu *g)
{
    int64_t mnkl[4] = {32, 16, 64, 1};
    CHECK(!product(g, CUTE_E4M3, CUTE_F32, mnkl, (int[]){0, 1, 0}, 0) &&
              strstr(cute_cublas_error(g->h), "only K-major A and B (layout tn)"),
          "e4m3 with an M-major A: %s", cute_cublas_error(g->h));
    bool ran = product(g, CUTE_E5M2, CUTE_BF16, mnkl, (int[]){1, 1, 0}, 0);
    CHECK(ran || strstr(cute_cublas_error(g->h), "no kernel for e5m2 x e5m2 -> bf16"), "e5m2: %s",
          cute_cublas_error(g->h));
    if (!ran) printf("cublas_test: %s\n", cute_cublas_error(g->h));
}

/* odd extents and leading dimensions (f32, f64: cuBLAS takes any), size-1 modes, K = 0
 * (C = beta C) */
static void degenerate(gpu *g)
{
    for (int mask = 0; mask < 8; mask++) {
        int major[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
        CHECK(product(g, CUTE_F32, CUTE_F32, (int64_t[]){67, 45, 33, 2}, major, 3), "%s", cute_cublas_error(g->h));
        CHECK(product(g, CUTE_F64, CUTE_F64, (int64_t[]){45, 67, 33, 1}, major, 1), "%s", cute_cublas_error(g->h));
    }
    CHECK(product(g, CUTE_F32, CUTE_F32, (int64_t[]){1, 1, 1, 1}, (int[]){1, 0, 1}, 0), "%s", cute_cublas_error(g->h));
    CHECK(product(g, CUTE_F32, CUTE_F32, (int64_t[]){1, 9, 5, 2}, (int[]){1, 1, 1}, 0), "%s", cute_cublas_error(g->h));
    CHECK(product(g, CUTE_F64, CUTE_F64, (int64_t[]){9, 1, 5, 1}, (int[]){0, 0, 1}, 2), "%s", cute_cublas_error(g->h));
    CHECK(product(g, CUTE_F32, CUTE_F32, (int64_t[]){7, 5, 0, 1}, (int[]){0, 1, 0}, 0), "%s", cute_cublas_error(g->h));
}

/* arguments cuBLAS cannot take are refused, not run */
static void refusals(gpu *g)
{
    gemm_problem p;
    if (!gemm_problem_make(g->b, &p, CUTE_F32, CUTE_F32, (int64_t[]){8, 6, 4, 1}, "nn", 60, seed++)) {
        CHECK(false, "memory");
        return;
    }
    cute_call_arg a = gemm_operand_arg(&p.a, 1), b = gemm_operand_arg(&p.b, 1), c = gemm_operand_arg(&p.c, 1), x;
    x = c, x.shape[1] = 70, b.shape[0] = 70;
    CHECK(cute_ref_gemm(g->h, &a, &b, &x, 1, 0, NULL) == CUTE_ERR_INVALID, "C past its buffer: %s",
          cute_cublas_error(g->h));
    b.shape[0] = 6;
    x = a, x.stride[0] = 2, x.stride[1] = 16;
    CHECK(cute_ref_gemm(g->h, &x, &b, &c, 1, 0, NULL) == CUTE_ERR_INVALID &&
              strstr(cute_cublas_error(g->h), "no unit stride"),
          "A without a unit stride: %s", cute_cublas_error(g->h));
    x = c, x.dtype = CUTE_F16;
    CHECK(cute_ref_gemm(g->h, &a, &b, &x, 1, 0, NULL) == CUTE_ERR_INVALID &&
              strstr(cute_cublas_error(g->h), "dtypes A f32, B f32, C f16"),
          "f32 inputs into an f16 C: %s", cute_cublas_error(g->h));
    x = a, x.ndim = 3, x.shape[2] = 1, x.stride[2] = 0;
    CHECK(cute_ref_gemm(g->h, &x, &b, &c, 1, 0, NULL) == CUTE_ERR_INVALID, "rank 3 A with rank 2 B: %s",
          cute_cublas_error(g->h));
    gemm_problem_drop(g->b, &p);
}

/* the loader's refusals, no GPU needed: $CUTEC_CUBLAS at a file that is not there, and at
 * a library that is not cuBLAS (libc, already loaded, so both cost nothing); the caller's
 * $CUTEC_CUBLAS is put back */
static void loader_refusals(void)
{
    char err[512], given[256];
    snprintf(given, sizeof given, "%s", getenv("CUTEC_CUBLAS") ? getenv("CUTEC_CUBLAS") : "");
    cute_cublas h = {0};
    setenv("CUTEC_CUBLAS", "/nonexistent/libcublas.so", 1);
    CHECK(!cublas_load(&h, err, sizeof err) &&
              strstr(err, "cuBLAS not found (tried CUTEC_CUBLAS=/nonexistent/libcublas.so): ") &&
              strstr(err, "set CUTEC_CUBLAS"),
          "CUTEC_CUBLAS at a missing file: %s", err);
    setenv("CUTEC_CUBLAS", "libc.so.6", 1);
    CHECK(!cublas_load(&h, err, sizeof err) && strstr(err, "libc.so.6 has no cublasCreate_v2"),
          "CUTEC_CUBLAS at libc: %s", err);
    if (given[0]) setenv("CUTEC_CUBLAS", given, 1);
    else unsetenv("CUTEC_CUBLAS");
}

int main(void)
{
    const char *env = getenv("CUTEC_SEED");
    seed = env ? strtoull(env, NULL, 10) | 1 : (uint64_t)time(NULL) | 1;
    printf("cublas_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    gpu g = {0};
    loader_refusals();
    if (cute_runtime_new("cuda", &g.rt, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no GPU: the cuBLAS reference was not checked (%s)", err);
        SKIP(why);
        return CHECK_DONE("cublas_test");
    }
    g.b = cute_runtime_backend(g.rt);
    if (cute_cublas_open(cute_cuda_backend_driver(g.b), &g.h, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no cuBLAS: %s", err);
        SKIP(why);
        cute_runtime_free(g.rt);
        return CHECK_DONE("cublas_test");
    }
    printf("cublas_test: %s, version %d\n", cute_cublas_path(g.h), cute_cublas_version(g.h));
    every_pair(&g);
    fp8_refusals(&g);
    degenerate(&g);
    refusals(&g);
    cute_cublas_close(g.h);
    cute_runtime_free(g.rt);
    return CHECK_DONE("cublas_test");
}
