/* The tensor-core GEMV (mma.c) on a GPU at real sizes: Y = 1.5 A X - 0.5 Y for 8 to 128
 * vectors of f16, bf16 and f32 (3xTF32) against a float64 reference (rows sampled on the
 * large shapes), the library's split choice and forced splits, through registers and
 * through the ring of A's k-tiles (cfg.smem_stages, X too), f32's halves by bits; the ordered
 * reduction gives the same
 * bits on a second run, the atomic one the same values within rounding; on sm_90 also 16-bit
 * vectors through the library's Hopper GEMM route (hopper.c).  Skips, visibly,
 * without a GPU (gemv_test.c runs the kernel on the interpreter). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/gemv.h"
#include "kernels/ew_ref.h"

static uint64_t seed;

typedef struct mma_case {
    cute_dtype d, yd;
    int64_t M, K, N;
    int splits; /* 0: the library's choice */
    int stages; /* the ring's (0: none; -1: the library's, a ring there) */
    bool bits;  /* f32's tf32 halves by bits (cfg.tf32_bits) */
    bool hopper; /* the library's Hopper GEMM route (hopper.c) on: it must take the call */
} mma_case;

typedef struct host_side {
    void *A, *X, *Y0, *Y;
    size_t a, x, y; /* bytes */
    cute_buffer dA, dX, dY;
} host_side;

static void *random_bytes(cute_dtype d, int64_t n, size_t *bytes)
{
    *bytes = (size_t)n * (size_t)cute_dtype_bytes(d);
    void *h = malloc(*bytes);
    for (int64_t i = 0; i < n; i++) ew_set(d, h, i, ew_random(&seed));
    return h;
}

static void upload(cute_backend *b, cute_buffer *buf, const void *h, size_t bytes)
{
    b->vt->alloc(b->self, bytes, buf);
    b->vt->upload(b->self, buf, 0, h, bytes);
}

/* rows sampled (every row up to 1024) within the f32 accumulation's and y's rounding */
static int64_t wrong(const mma_case *t, const host_side *h)
{
    int64_t bad = 0, step = t->M > 1024 ? 13 : 1;
    double ulp = t->yd == CUTE_F32 ? 0x1p-23 : t->yd == CUTE_F16 ? 0x1p-10 : 0x1p-7;
    for (int64_t m = 0; m < t->M; m += step)
        for (int64_t n = 0; n < t->N; n++) {
            double sum = 0, mag = 0;
            for (int64_t k = 0; k < t->K; k++) {
                double v = ew_get(t->d, h->A, m * t->K + k) * ew_get(t->d, h->X, n * t->K + k);
                sum += v, mag += fabs(v);
            }
            double y0 = ew_get(t->yd, h->Y0, m + n * t->M), want = 1.5 * sum - 0.5 * y0;
            double tol = (1.5 * mag + 0.5 * fabs(y0)) * (t->K + 2) * 0x1p-23 + fabs(want) * ulp + 1e-30;
            if (!(fabs(ew_get(t->yd, h->Y, m + n * t->M) - want) <= tol)) bad++;
        }
    return bad;
}

/* one call on fresh Y0; Y downloaded */
static cute_status call(cute_backend *b, cute_gemv_lib *lib, const mma_case *t, host_side *h, char *err, size_t n)
{
    cute_call_arg A = cute_call_tensor(&h->dA, 0, t->d, 2, (int64_t[]){t->M, t->K}, (int64_t[]){t->K, 1});
    cute_call_arg X = cute_call_tensor(&h->dX, 0, t->d, 2, (int64_t[]){t->K, t->N}, (int64_t[]){1, t->K});
    cute_call_arg Y = cute_call_tensor(&h->dY, 0, t->yd, 2, (int64_t[]){t->M, t->N}, (int64_t[]){1, t->M});
    b->vt->upload(b->self, &h->dY, 0, h->Y0, h->y);
    cute_gemv_lib_splits(lib, t->splits);
    cute_gemv_lib_smem_stages(lib, t->stages);
    cute_gemv_lib_tf32_bits(lib, t->bits);
    cute_gemv_lib_hopper(lib, t->hopper);
    cute_status s = cutec_gemv_vectors(lib, &A, &X, &Y, 1.5, -0.5, NULL, err, n);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s == CUTE_OK) s = b->vt->download(b->self, h->Y, &h->dY, 0, h->y);
    return s;
}

static void run_case(cute_runtime *rt, cute_gemv_lib *lib, const mma_case *t)
{
    int arch = cute_runtime_target_arch(rt);
    if (t->hopper && arch != 90) return; /* the Hopper GEMM: sm_90 only */
    cute_backend *b = cute_runtime_backend(rt);
    host_side h;
    h.A = random_bytes(t->d, t->M * t->K, &h.a), h.X = random_bytes(t->d, t->K * t->N, &h.x);
    h.Y0 = random_bytes(t->yd, t->M * t->N, &h.y), h.Y = malloc(h.y);
    upload(b, &h.dA, h.A, h.a), upload(b, &h.dX, h.X, h.x), upload(b, &h.dY, h.Y0, h.y);
    char err[1024] = "";
    void *first = malloc(h.y);
    for (int run = 0; run < 3; run++) { /* ordered twice, then atomic */
        cute_gemv_lib_deterministic(lib, run < 2);
        memset(h.Y, 0xff, h.y); /* poison */
        cute_status s = call(b, lib, t, &h, err, sizeof err);
        cute_gemv_config cfg;
        int splits;
        cute_gemv_lib_last(lib, &cfg, &splits);
        bool hopper = cute_gemv_lib_last_gemm(lib);
        CHECK(s == CUTE_OK && (t->hopper ? hopper && t->d != CUTE_F32 && arch == 90
                                         : !hopper && cfg.mma &&
                                               (t->stages < 0 ? cfg.smem_stages > 0 : cfg.smem_stages == t->stages)),
              "mma %s %lldx%lld N=%lld: %s (mma %d, ring of %d, asked %d)", cute_dtype_name(t->d), (long long)t->M,
              (long long)t->K, (long long)t->N, err, cfg.mma, cfg.smem_stages, t->stages);
        int64_t bad = s != CUTE_OK ? -1 : run == 1 ? 0 : wrong(t, &h); /* run 1: the bits of run 0 */
        CHECK(bad == 0, "mma %s->%s %lldx%lld N=%lld, %d splits%s, ring of %d%s: %lld wrong", cute_dtype_name(t->d),
              cute_dtype_name(t->yd), (long long)t->M, (long long)t->K, (long long)t->N, splits,
              cfg.atomic ? " (atomic)" : "", cfg.smem_stages, t->bits ? ", tf32 by bits" : "", (long long)bad);
        if (run == 0) memcpy(first, h.Y, h.y);
        if (run == 1) CHECK(!memcmp(first, h.Y, h.y), "mma %lldx%lld N=%lld, %d splits: the ordered reduction "
                            "gave other bits on a second run", (long long)t->M, (long long)t->K, (long long)t->N,
                            splits);
    }
    b->vt->free(b->self, &h.dA), b->vt->free(b->self, &h.dX), b->vt->free(b->self, &h.dY);
    free(h.A), free(h.X), free(h.Y0), free(h.Y), free(first);
}

int main(void)
{
    seed = check_seed("mma_gpu_test");
    cute_runtime *rt;
    char err[512];
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: the tensor-core GEMV runs on the interpreter in gemv_test");
        return CHECK_DONE("mma_gpu_test");
    }
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const mma_case cases[] = {
        {CUTE_BF16, CUTE_BF16, 4096, 4096, 64, 0, 0, false, false}, {CUTE_F16, CUTE_F32, 1000, 3016, 9, 0, 0, false, false},
        {CUTE_BF16, CUTE_BF16, 777, 1032, 128, 3, 0, false, false}, {CUTE_F16, CUTE_F16, 8192, 1024, 16, 5, 0, false, false},
        {CUTE_BF16, CUTE_F32, 300, 8192, 33, 0, 0, false, false},
        /* the ring (A's and X's k-tiles): the library's at the skinny shapes of issue 17 (8 and
         * 16 vectors at 8192^2: one split for 16 bits), odd sizes, other depths, forced splits (f32 at
         * 24 vectors: 5 stages, the deepest whose ring fits a block of sm_90 since X's halves take
         * three stages; 6 would be halved to 3, cute_gemv_ring_fit) */
        {CUTE_BF16, CUTE_BF16, 8192, 8192, 8, 0, -1, false, false}, {CUTE_BF16, CUTE_BF16, 8192, 8192, 16, 0, -1, false, false},
        {CUTE_F32, CUTE_F32, 8192, 8192, 8, 0, -1, false, false}, {CUTE_F32, CUTE_F32, 8192, 8192, 16, 0, -1, false, false},
        {CUTE_BF16, CUTE_BF16, 4096, 8192, 16, 0, 6, false, false}, {CUTE_F32, CUTE_F32, 2048, 8192, 8, 2, 3, false, false},
        {CUTE_F16, CUTE_F32, 600, 3016, 40, 0, 3, false, false}, {CUTE_BF16, CUTE_BF16, 300, 1032, 64, 3, 4, false, false},
        {CUTE_BF16, CUTE_F32, 2048, 4096, 64, 0, 3, false, false}, {CUTE_F32, CUTE_BF16, 300, 8200, 24, 0, 5, false, false},
        {CUTE_BF16, CUTE_BF16, 4096, 8192, 8, 1, 4, false, false},
        /* f32's tf32 halves by bits */
        {CUTE_F32, CUTE_F32, 8192, 8192, 16, 0, -1, true, false}, {CUTE_F32, CUTE_F32, 2048, 4096, 64, 0, 0, true, false},
        {CUTE_F32, CUTE_BF16, 300, 8200, 24, 2, 4, true, false},
        /* 16-bit vectors, 8 to 128 of them, on the Hopper GEMM (sm_90: the library's choice; the
         * cases above run with it off): issue 17's shape, a tail in M and N at 128 */
        {CUTE_BF16, CUTE_BF16, 8192, 8192, 64, 0, 0, false, true}, {CUTE_F16, CUTE_F16, 1000, 1032, 100, 0, 0, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(rt, lib, &cases[i]);
    cute_gemv_lib_free(lib);
    cute_runtime_free(rt);
    return CHECK_DONE("mma_gpu_test");
}
