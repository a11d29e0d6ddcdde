/* The GEMM reference's tolerances do their job: for every input/output dtype pair a
 * simulated correct kernel (products summed per k-block of the dtype's mma, accumulated in
 * f32 with truncation, the worst rounding a tensor core does, the epilogue in f32, one
 * rounding to C's dtype) passes, and simulated wrong kernels (a k-block dropped, two k
 * neighbours swapped in B's fragment, beta C missed, the batches mixed up) fail.  Also the
 * inputs: gaussian samples, s8 integers over their whole range. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

enum { M = 20, N = 12, K = 64, L = 2 };

typedef enum { CORRECT, DROP_KBLOCK, SWAP_K, NO_BETA, WRONG_BATCH, NFAULTS } fault;
static const char *fault_names[] = {"correct", "k-block dropped", "k neighbours swapped",
                                    "beta C missed", "batches mixed"};

static uint64_t seed;

/* the k-block one mma instruction sums (f16/bf16 m16n8k16, tf32 k8, s8/fp8 k32, f32/f64
 * FMA: 1) */
static int kblock(cute_dtype in)
{
    switch (in) {
    case CUTE_F16: case CUTE_BF16: return 16;
    case CUTE_TF32: return 8;
    case CUTE_I8: case CUTE_E4M3: case CUTE_E5M2: return 32;
    default: return 1;
    }
}

/* a + b rounded toward zero to f32 (truncation: the tensor cores' accumulation) */
static double add_f32_truncated(double a, double b)
{
    double s = a + b;
    float f = (float)s;
    if (fabs((double)f) > fabs(s)) f = nextafterf(f, 0.0f);
    return f;
}

/* one element as a kernel with the given fault computes it */
static double simulate(const gemm_ref_problem *p, fault f, int64_t m, int64_t n, int64_t l)
{
    cute_dtype in = p->in;
    int kb = kblock(in);
    int64_t lb = f == WRONG_BATCH ? (l + 1) % L : l;
    double acc = 0;
    for (int64_t k0 = 0; k0 < p->K; k0 += kb) {
        if (f == DROP_KBLOCK && k0 == kb) continue;
        double block = 0; /* exact: products of the narrow dtypes are exact in double */
        for (int64_t k = k0; k < k0 + kb && k < p->K; k++) {
            int64_t kB = f == SWAP_K ? k ^ 1 : k;
            block += ew_get(in, p->A.data, gemm_ref_at_l(p, 0, m, k, l)) *
                     ew_get(in, p->B.data, gemm_ref_at_l(p, 1, n, kB, lb));
        }
        if (in == CUTE_I8 || in == CUTE_F64) acc += block;
        else if (in == CUTE_F32) acc = (float)(acc + block); /* FMA: rounded to nearest */
        else acc = add_f32_truncated(acc, block);
    }
    double c = f == NO_BETA ? 0 : ew_get(p->out, p->C0.data, gemm_ref_at_l(p, 2, m, n, l));
    double d = p->alpha * acc + p->beta * c;
    return in == CUTE_I8 || in == CUTE_F64 ? d : (double)(float)d;
}

static void *fresh(cute_dtype d, int64_t n)
{
    void *x = malloc((size_t)n * (size_t)cute_dtype_bytes(d));
    gemm_ref_fill(d, x, n, &seed);
    return x;
}

static void pair(cute_dtype in, cute_dtype out)
{
    /* A M-major, B K-major, C row-major, each batch after a gap of 5 elements */
    gemm_ref_operand A = {fresh(in, (M * K + 5) * L), M, 0}, B = {fresh(in, (N * K + 5) * L), K, 1},
                     C0 = {fresh(out, (M * N + 5) * L), N, 1};
    bool integral = gemm_ref_integral(in);
    gemm_ref_problem p = {A,  B, C0, in, out, {M * K + 5, N * K + 5, M * N + 5}, M, N, K, L,
                          integral ? 3 : 1.5, integral ? -2 : -0.5};
    double tol = gemm_ref_tolerance(in, out);
    void *got = malloc((size_t)(M * N + 5) * L * (size_t)cute_dtype_bytes(out));
    for (int f = 0; f < NFAULTS; f++) {
        for (int64_t l = 0; l < L; l++)
            for (int64_t m = 0; m < M; m++)
                for (int64_t n = 0; n < N; n++) ew_set(out, got, gemm_ref_at_l(&p, 2, m, n, l), simulate(&p, f, m, n, l));
        double worst;
        int64_t bad = gemm_ref_check(&p, got, tol, &worst);
        if (f == CORRECT)
            CHECK(bad == 0, "%s -> %s: a correct kernel fails (%lld wrong, worst %g, tolerance %g)",
                  cute_dtype_name(in), cute_dtype_name(out), (long long)bad, worst, tol);
        else
            CHECK(bad > 0, "%s -> %s: a kernel with %s passes (worst %g, tolerance %g)", cute_dtype_name(in),
                  cute_dtype_name(out), fault_names[f], worst, tol);
    }
    free((void *)A.data), free((void *)B.data), free((void *)C0.data), free(got);
}

static void every_pair(void)
{
    static const cute_dtype ins[] = {CUTE_F32, CUTE_F64, CUTE_F16, CUTE_BF16, CUTE_TF32, CUTE_I8, CUTE_E4M3, CUTE_E5M2};
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        const cute_dtype *outs;
        int n;
        CHECK(gemm_ref_out_dtypes(ins[i], &outs, &n), "%s has no result dtypes", cute_dtype_name(ins[i]));
        for (int j = 0; j < n; j++) pair(ins[i], outs[j]);
    }
    CHECK(!gemm_ref_pair_ok(CUTE_F32, CUTE_F16) && !gemm_ref_pair_ok(CUTE_I8, CUTE_F32) &&
              !gemm_ref_pair_ok(CUTE_I32, CUTE_I32),
          "pairs outside the library's contract are refused");
}

static void inputs(void)
{
    enum { S = 200000 };
    double sum = 0, sq = 0;
    for (int i = 0; i < S; i++) {
        double x = gemm_ref_gaussian(&seed);
        sum += x, sq += x * x;
    }
    CHECK(fabs(sum / S) < 0.02 && fabs(sq / S - 1) < 0.02, "gaussian mean %g, variance %g", sum / S, sq / S);
    int8_t s8[4096];
    gemm_ref_fill(CUTE_I8, s8, 4096, &seed);
    int lo = 0, hi = 0;
    for (int i = 0; i < 4096; i++) lo = s8[i] < lo ? s8[i] : lo, hi = s8[i] > hi ? s8[i] : hi;
    CHECK(lo == -128 && hi == 127, "s8 inputs span [%d, %d], not [-128, 127]", lo, hi);
    uint16_t h[64];
    gemm_ref_fill(CUTE_F16, h, 64, &seed);
    double f = ew_get(CUTE_F16, h, 7);
    CHECK(f != 0 && f == (double)(float)f && fabs(f) < 8, "an f16 input %g", f);
    float t[64];
    gemm_ref_fill(CUTE_TF32, t, 64, &seed);
    uint32_t bits;
    memcpy(&bits, &t[5], sizeof bits);
    CHECK(t[5] != 0 && (bits & 0x1FFF) == 0, "a tf32 input %g has low fraction bits (%08x)", t[5], bits);
    uint8_t e[256];
    gemm_ref_fill(CUTE_E4M3, e, 256, &seed);
    int distinct = 0;
    for (int i = 0; i < 256; i++) distinct += ew_get(CUTE_E4M3, e, i) != ew_get(CUTE_E4M3, e, 0);
    CHECK(distinct > 128 && fabs(ew_get(CUTE_E4M3, e, 3)) < 8, "e4m3 inputs: %d differ from the first", distinct);
}

/* the pooled fill: standard normal moments (bf16 and f32, whose elements it moves by 2 and
 * 4 bytes), every element written up to an odd end, many distinct values */
static void pooled(void)
{
    enum { S = 300001 };
    static const cute_dtype ds[] = {CUTE_BF16, CUTE_F32};
    for (int k = 0; k < 2; k++) {
        size_t es = (size_t)cute_dtype_bytes(ds[k]);
        unsigned char *x = malloc((S + 1) * es);
        memset(x, 0xff, (S + 1) * es); /* NaN in both: an element left unwritten shows */
        gemm_ref_fill_pooled(ds[k], x, S, &seed);
        double sum = 0, sq = 0, last = ew_get(ds[k], x, S - 1);
        int distinct = 0;
        for (int64_t i = 0; i < S; i++) {
            double v = ew_get(ds[k], x, i);
            sum += v, sq += v * v, distinct += i < 1000 && v != ew_get(ds[k], x, 0);
        }
        CHECK(fabs(sum / S) < 0.02 && fabs(sq / S - 1) < 0.03 && distinct > 900 && isfinite(last) &&
                  isnan(ew_get(ds[k], x, S)),
              "pooled %s: mean %g, variance %g, %d of 1000 differ from the first, last %g",
              cute_dtype_name(ds[k]), sum / S, sq / S, distinct, last);
        free(x);
    }
}

int main(void)
{
    const char *env = getenv("CUTEC_SEED");
    seed = env ? strtoull(env, NULL, 10) | 1 : (uint64_t)time(NULL) | 1;
    printf("gemm_ref_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    every_pair();
    inputs();
    pooled();
    return CHECK_DONE("gemm_ref_test");
}
