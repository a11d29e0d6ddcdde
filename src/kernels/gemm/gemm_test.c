/* Every GEMM variant against a float64 CPU reference on fresh random data (C random too,
 * so beta matters; with beta = 0 C starts as NaN, which must not leak): every combination
 * of A/B/C majors, f32 and f64, shapes with tails in M, N and K.  On the interpreter
 * (small shapes) always; on the GPU where there is one, up to 8192^3 (large shapes are
 * checked on a random sample of elements). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

static uint64_t seed;

typedef struct problem {
    int64_t M, N, K;
    int major[3];
    cute_dtype d;
    double alpha, beta;
    int64_t pad; /* added to every leading dimension */
    int64_t index_bound; /* cute_gemm_config.index_bound: 32-bit (bounded) or 64-bit indices */
} problem;

static int64_t pad_ld; /* the leading-dimension padding of the problem being run */

/* element (i, j) of a 2-D operand with rows r, columns c stored with unit stride in `major` */
static int64_t at(int64_t i, int64_t j, int64_t rows, int64_t cols, int major)
{
    return major == 0 ? i + j * (rows + pad_ld) : i * (cols + pad_ld) + j;
}

/* elements a padded operand spans */
static int64_t span(int64_t rows, int64_t cols, int major)
{
    return major == 0 ? (rows + pad_ld) * cols : rows * (cols + pad_ld);
}

static double get(const void *p, cute_dtype d, int64_t i)
{
    return d == CUTE_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void set(void *p, cute_dtype d, int64_t i, double v)
{
    if (d == CUTE_F64)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

static cute_call_arg operand(const cute_buffer *b, cute_dtype d, int64_t rows, int64_t cols, int major)
{
    int64_t shape[2] = {rows, cols};
    int64_t stride[2] = {major == 0 ? 1 : cols + pad_ld, major == 0 ? rows + pad_ld : 1};
    return cute_call_tensor(b, 0, d, 2, shape, stride);
}

static void run(cute_runtime *rt, cute_gemm_variant v, const problem *pr, const char *backend)
{
    int64_t M = pr->M, N = pr->N, K = pr->K;
    pad_ld = pr->pad;
    cute_dtype d = pr->d;
    size_t es = (size_t)cute_dtype_bytes(d);
    char err[2048], what[160];
    snprintf(what, sizeof what, "%s %s %s %lldx%lldx%lld majors %d%d%d beta %g i%d", backend,
             cute_gemm_variant_name(v), cute_dtype_name(d), (long long)M, (long long)N, (long long)K,
             pr->major[0], pr->major[1], pr->major[2], pr->beta, pr->index_bound ? 32 : 64);
    /* the alignment every leading dimension and unit-stride extent allows (the pointers are
     * 256-byte aligned) */
    int64_t lds[3] = {(pr->major[0] ? K : M) + pad_ld, (pr->major[1] ? K : N) + pad_ld, (pr->major[2] ? N : M) + pad_ld};
    int64_t runs[3] = {pr->major[0] ? K : M, pr->major[1] ? K : N, pr->major[2] ? N : M}; /* unit-stride extents */
    int align = 16;
    for (int i = 0; i < 3; i++)
        while (align > (int)es && ((lds[i] * (int64_t)es) % align || (runs[i] * (int64_t)es) % align)) align /= 2;
    cute_gemm_config cfg = {.variant = v, .dtype = d, .major = {pr->major[0], pr->major[1], pr->major[2]},
                            .align_bytes = align, .index_bound = pr->index_bound};
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "%s: %s", what, err);
    if (!f) return;
    cute_backend *b = cute_runtime_backend(rt);
    int64_t nA = span(M, K, pr->major[0]), nB = span(N, K, pr->major[1]), nC = span(M, N, pr->major[2]);
    void *A = malloc(es * (size_t)nA), *B = malloc(es * (size_t)nB), *C = malloc(es * (size_t)nC),
         *C0 = malloc(es * (size_t)nC);
    for (int64_t i = 0; i < nA; i++) set(A, d, i, ew_random(&seed));
    for (int64_t i = 0; i < nB; i++) set(B, d, i, ew_random(&seed));
    for (int64_t i = 0; i < nC; i++) set(C0, d, i, pr->beta == 0 ? NAN : ew_random(&seed));
    cute_buffer dA, dB, dC;
    b->vt->alloc(b->self, es * (size_t)nA, &dA);
    b->vt->alloc(b->self, es * (size_t)nB, &dB);
    b->vt->alloc(b->self, es * (size_t)nC, &dC);
    b->vt->upload(b->self, &dA, 0, A, es * (size_t)nA);
    b->vt->upload(b->self, &dB, 0, B, es * (size_t)nB);
    b->vt->upload(b->self, &dC, 0, C0, es * (size_t)nC);
    cute_call_arg args[5] = {operand(&dA, d, M, K, pr->major[0]), operand(&dB, d, N, K, pr->major[1]),
                             operand(&dC, d, M, N, pr->major[2]), cute_call_float(pr->alpha),
                             cute_call_float(pr->beta)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 5, args, cerr, sizeof cerr);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, cerr, b->vt->error(b->self));
    if (s == CUTE_OK) b->vt->download(b->self, C, &dC, 0, es * (size_t)nC);
    /* every element when small, else a random sample of 4096 */
    int64_t total = M * N, samples = total <= 1 << 20 ? total : 4096, bad = 0;
    double worst = 0, tol = d == CUTE_F64 ? 1e-12 : 1e-5;
    gemm_ref_operand rA = {A, lds[0], pr->major[0]}, rB = {B, lds[1], pr->major[1]}, rC0 = {C0, lds[2], pr->major[2]};
    for (int64_t s_i = 0; s_i < samples; s_i++) {
        int64_t e = samples == total ? s_i : (int64_t)((ew_random(&seed) + 2.0) / 4.0 * (double)total) % total; /* [-2,2) */
        int64_t m = e % M, n = e / M;
        double mag, ref = gemm_ref_element(d, &rA, &rB, &rC0, K, m, n, pr->alpha, pr->beta, &mag);
        double got = get(C, d, at(m, n, M, N, pr->major[2]));
        double err_rel = gemm_ref_error(got, ref, mag);
        if (!(err_rel <= tol)) bad++;
        if (!(err_rel <= worst)) worst = err_rel;
    }
    int64_t touched = 0;
    for (int64_t i = 0; i < nC && s == CUTE_OK; i++) {
        int64_t r = pr->major[2] == 0 ? i % (M + pad_ld) : i / (N + pad_ld), q = pr->major[2] == 0 ? i / (M + pad_ld) : i % (N + pad_ld);
        bool inside = pr->major[2] == 0 ? r < M : q < N;
        double was = get(C0, d, i), now = get(C, d, i);
        if (!inside && !(was == now || (isnan(was) && isnan(now)))) touched++;
    }
    CHECK(touched == 0, "%s: %lld elements of C's padding written", what, (long long)touched);
    CHECK(s != CUTE_OK || bad == 0, "%s: %lld of %lld wrong (worst relative error %g)", what, (long long)bad,
          (long long)samples, worst);
    /* a call whose A disagrees with its buffer is refused, not run wrong */
    args[0].shape[1] = K + 100000;
    CHECK(cute_call(f, NULL, 5, args, cerr, sizeof cerr) == CUTE_ERR_INVALID, "%s: A past its buffer refused", what);
    /* a 32-bit kernel refuses an extent beyond its bound (before looking at the buffer) */
    args[0].shape[1] = K;
    args[1].shape[0] = pr->index_bound + 16; // a multiple of any vector width
    CHECK(!pr->index_bound || (cute_call(f, NULL, 5, args, cerr, sizeof cerr) == CUTE_ERR_INVALID &&
                               strstr(cerr, "beyond the bound")),
          "%s: N beyond the index bound refused: %s", what, cerr);
    b->vt->free(b->self, &dA), b->vt->free(b->self, &dB), b->vt->free(b->self, &dC);
    free(A), free(B), free(C), free(C0);
    cute_fn_free(f);
}

static void matrix(cute_runtime *rt, const char *backend, const int64_t (*shapes)[4], int nshapes)
{
    for (int v = CUTE_GEMM_REGISTERS; v <= CUTE_GEMM_PIPELINED; v++) /* the rest: tensorop_test */
        for (int d = 0; d < 2; d++)
            for (int mj = 0; mj < 8; mj++)
                for (int s = 0; s < nshapes; s++) {
                    /* every major combination on the first shape, the rest on column-major */
                    if (s > 0 && mj != 0 && mj != 3) continue;
                    /* 32- and 64-bit index arithmetic alternate over the matrix */
                    problem pr = {shapes[s][0], shapes[s][1], shapes[s][2], {mj & 1, (mj >> 1) & 1, (mj >> 2) & 1},
                                  d ? CUTE_F64 : CUTE_F32, 1.5, (s + mj) % 3 == 0 ? 0.0 : -0.5, shapes[s][3],
                                  (s + mj + v + d) % 2 ? CUTE_GEMM_INDEX_BOUND : 0};
                    run(rt, (cute_gemm_variant)v, &pr, backend);
                }
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    if (getenv("CUTEC_SEED")) seed = strtoull(getenv("CUTEC_SEED"), NULL, 10);
    printf("gemm_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK) {
        /* {M, N, K, padding}: primes, 1x1x1, whole tiles, and an odd M with 8-byte aligned
         * leading dimensions (2-element vectors straddling the matrix edge) */
        static const int64_t small[][4] = {{131, 67, 13, 0}, {1, 1, 1, 0}, {128, 128, 16, 0}, {64, 200, 9, 0}, {77, 55, 33, 1}};
        matrix(rt, "interp", small, 5);
        cute_runtime_free(rt);
    }
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        static const int64_t big[][4] = {{1021, 509, 263, 0}, {1, 1, 1, 0}, {1024, 768, 520, 0}, {127, 1, 4099, 0}, {777, 555, 333, 5}};
        matrix(rt, "cuda", big, 5);
        for (int v = CUTE_GEMM_REGISTERS; v <= CUTE_GEMM_PIPELINED; v++) /* the rest: tensorop_test */
            for (int w = 0; w < 2; w++) {
                problem pr = {8192, 8192, 8192, {0, 0, 0}, CUTE_F32, 1.0, 0.5, 0, w ? CUTE_GEMM_INDEX_BOUND : 0};
                run(rt, (cute_gemm_variant)v, &pr, "cuda");
            }
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: the GEMM variants ran on the interpreter only");
    }
    return CHECK_DONE("gemm_test");
}
