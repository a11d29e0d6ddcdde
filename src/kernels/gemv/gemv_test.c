/* The GEMV library (cutec_gemv) on the interpreter: y = alpha A x + beta y within f32
 * rounding of a float64 reference, for K-major and M-major A, every input dtype, tails in M
 * and K, padded leading dimensions and strided y (whose gaps stay untouched), batches,
 * split-K (forced and chosen), misaligned operands (narrower vectors), K = 0, and beta = 0
 * over a y poisoned with NaN; and every malformed call refused with a message naming it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_interp.h"
#include "kernels/gemv/gemv_internal.h"
#include "kernels/gemv/refusal_testkit.h"
#include "cutec/gemv.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"

static uint64_t seed;
static uint64_t y_hash; /* run_case's y as it came back (FNV-1a of its bytes) */

typedef struct operand {
    cute_call_arg arg;
    void *host;
    int64_t elems;
    cute_buffer buf;
} operand;

/* a tensor of `elems` random elements (shape and strides given), `offset` bytes into its
 * buffer */
static void make(cute_backend *b, operand *o, cute_dtype d, int nd, const int64_t *shape,
                 const int64_t *stride, int64_t elems, size_t offset)
{
    int es = cute_dtype_bytes(d);
    o->elems = elems;
    size_t bytes = (size_t)elems * (size_t)es + offset + 16;
    o->host = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) ((uint8_t *)o->host)[i] = (uint8_t)i;
    for (int64_t i = 0; i < elems; i++) ew_set(d, (uint8_t *)o->host + offset, i, ew_random(&seed));
    b->vt->alloc(b->self, bytes, &o->buf);
    b->vt->upload(b->self, &o->buf, 0, o->host, bytes);
    o->arg = cute_call_tensor(&o->buf, offset, d, nd, shape, stride);
}

static void drop(cute_backend *b, operand *o)
{
    b->vt->free(b->self, &o->buf);
    free(o->host);
}

typedef struct gemv_case {
    cute_dtype d, yd;
    int64_t M, K, L;
    int major;       /* A's unit-stride mode */
    int64_t pad;     /* A's leading dimension: the unit extent + pad */
    int64_t ystride; /* y's element stride */
    size_t offset;   /* bytes A and x start into their buffers */
    int splits;      /* 0: the library's choice */
    double beta;     /* 0: y is poisoned with NaN first */
    int nvec;        /* 0: cutec_gemv; else cutec_gemv_vectors with this many */
} gemv_case;

static int64_t vectors_of(const gemv_case *t)
{
    return t->nvec ? t->nvec : 1;
}

static double elem(const operand *o, cute_dtype d, int64_t i)
{
    return ew_get(d, (const uint8_t *)o->host + o->arg.offset, i);
}

/* |got - want| within the f32 accumulation's rounding and y's */
static bool close_enough(double got, double want, double mag, int64_t K, cute_dtype yd)
{
    double ulp = yd == CUTE_F32 ? 0x1p-23 : yd == CUTE_F16 ? 0x1p-10 : 0x1p-7;
    double tol = mag * (K + 2) * 0x1p-23 + fabs(want) * ulp + 1e-30;
    return fabs(got - want) <= tol;
}

/* y's elements checked against the reference; the gaps between them against the bytes
 * before the run */
static int64_t compare(const gemv_case *t, const operand *A, const operand *x, const operand *y,
                       const void *y0)
{
    int64_t bad = 0, M = t->M, K = t->K, N = vectors_of(t);
    for (int64_t l = 0; l < t->L; l++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t m = 0; m < M; m++) {
                double sum = 0, mag = 0;
                for (int64_t k = 0; k < K; k++) {
                    double a = elem(A, t->d,
                                    m * A->arg.stride[0] + k * A->arg.stride[1] +
                                        l * (A->arg.ndim == 3 ? A->arg.stride[2] : 0));
                    double v = elem(x, t->d, k + (n + l * N) * K);
                    sum += a * v, mag += fabs(a * v);
                }
                int64_t i = (m + (n + l * N) * M) * t->ystride;
                double yin = t->beta != 0 ? ew_get(t->yd, y0, i) : 0;
                double want = 1.5 * sum + t->beta * yin, got = ew_get(t->yd, y->host, i);
                if (!close_enough(got, want, 1.5 * mag + fabs(t->beta * yin), K, t->yd)) bad++;
            }
    int es = cute_dtype_bytes(t->yd);
    for (int64_t i = 0; i < y->elems; i++)
        if (i % t->ystride &&
            memcmp((const uint8_t *)y->host + i * es, (const uint8_t *)y0 + i * es, (size_t)es))
            bad++;
    return bad;
}

/* t run and checked; what the library ran (cute_gemv_lib_last) */
static cute_gemv_config run_case(cute_runtime *rt, cute_gemv_lib *lib, const gemv_case *t)
{
    cute_backend *b = cute_runtime_backend(rt);
    int64_t M = t->M, K = t->K, L = t->L, ld = (t->major ? K : M) + t->pad;
    int64_t sA[3] = {t->major ? ld : 1, t->major ? 1 : ld, ld * (t->major ? M : K)};
    int nd = L > 1 ? 3 : 2, vd = t->nvec ? nd : nd - 1; /* x's and y's rank */
    int64_t N = vectors_of(t), ys = t->ystride;
    operand A, x, y;
    make(b, &A, t->d, nd, (int64_t[]){M, K, L}, sA, sA[2] * L, t->offset);
    /* x (K[,N][,L]), y (M[,N][,L]): the vector mode only for cutec_gemv_vectors */
    int64_t xe[3] = {K, t->nvec ? N : L, L}, xs[3] = {1, K, K * N};
    int64_t ye[3] = {M, t->nvec ? N : L, L}, yst[3] = {ys, M * ys, M * N * ys};
    make(b, &x, t->d, vd, xe, xs, K * N * L, t->offset);
    make(b, &y, t->yd, vd, ye, yst, M * N * L * ys, 0);
    if (t->beta == 0) /* poison: beta = 0 must not read y */
        for (int64_t i = 0; i < M * N * L; i++) ew_set(t->yd, y.host, i * ys, NAN);
    size_t ybytes = (size_t)(M * N * L * ys) * (size_t)cute_dtype_bytes(t->yd);
    b->vt->upload(b->self, &y.buf, 0, y.host, ybytes);
    void *y0 = malloc(ybytes + 1);
    memcpy(y0, y.host, ybytes);
    cute_gemv_lib_splits(lib, t->splits);
    char err[1024] = "";
    cute_status s =
        t->nvec
            ? cutec_gemv_vectors(lib, &A.arg, &x.arg, &y.arg, 1.5, t->beta, NULL, err, sizeof err)
            : cutec_gemv(lib, &A.arg, &x.arg, &y.arg, 1.5, t->beta, NULL, err, sizeof err);
    cute_gemv_config cfg;
    int splits;
    cute_gemv_lib_last(lib, &cfg, &splits);
    CHECK(s == CUTE_OK, "gemv %s %lldx%lldx%lld: %s", cute_dtype_name(t->d), (long long)M,
          (long long)K, (long long)L, err);
    b->vt->download(b->self, y.host, &y.buf, 0, ybytes);
    y_hash = 14695981039346656037u;
    for (size_t i = 0; i < ybytes; i++) y_hash = (y_hash ^ ((const uint8_t *)y.host)[i]) * 1099511628211u;
    int64_t bad = s == CUTE_OK ? compare(t, &A, &x, &y, y0) : -1;
    CHECK(bad == 0,
          "gemv %s->%s %lldx%lldx%lld major %d pad %lld ystride %lld offset %zu: %lld wrong "
          "(vec %d, %d splits)",
          cute_dtype_name(t->d), cute_dtype_name(t->yd), (long long)M, (long long)K, (long long)L,
          t->major, (long long)t->pad, (long long)t->ystride, t->offset, (long long)bad, cfg.vec,
          splits);
    if (t->splits > 1 && K >= t->splits * cute_gemv_k_tile(&cfg))
        CHECK(splits == t->splits && cfg.split, "forced %d splits: ran %d", t->splits, splits);
    drop(b, &A), drop(b, &x), drop(b, &y);
    free(y0);
    return cfg;
}

/* t run twice on the same inputs: the same bits (the deterministic reductions); what the
 * library ran */
static cute_gemv_config run_twice(cute_runtime *rt, cute_gemv_lib *lib, const gemv_case *t, const char *what,
                                  size_t i)
{
    uint64_t from = seed, h[2];
    cute_gemv_config cfg;
    for (int n = 0; n < 2; n++) {
        seed = from;
        cfg = run_case(rt, lib, t);
        h[n] = y_hash;
    }
    CHECK(h[0] == h[1], "%s case %zu: the same bits twice", what, i);
    return cfg;
}

static void results(cute_runtime *rt)
{
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const gemv_case cases[] = {
        /* K-major: a warp per row; tails in K (not a multiple of the k-tile) and in M */
        {CUTE_F32, CUTE_F32, 37, 300, 1, 1, 0, 1, 0, 0, -0.5, 0},
        {CUTE_BF16, CUTE_BF16, 9, 1100, 1, 1, 8, 2, 0, 0, 0, 0},
        {CUTE_F16, CUTE_F32, 6, 520, 2, 1, 0, 1, 0, 0, 0.25, 0},
        {CUTE_E4M3, CUTE_F16, 5, 700, 1, 1, 16, 1, 0, 0, -0.5, 0},
        /* split-K, forced: the ordered reduction writes y */
        {CUTE_BF16, CUTE_F32, 3, 2500, 2, 1, 0, 1, 0, 3, -0.5, 0},
        {CUTE_F32, CUTE_F32, 1, 1900, 1, 1, 0, 3, 0, 4, 0, 0},
        /* past 32 splits: a warp a row in the second kernel (many_splits) */
        {CUTE_BF16, CUTE_F32, 5, 20000, 1, 1, 0, 1, 0, 40, -0.5, 3},
        /* misaligned: A and x 4 bytes into their buffers, odd K: narrower vectors */
        {CUTE_F16, CUTE_F16, 7, 333, 1, 1, 0, 1, 2, 0, 2.0, 0},
        /* M-major: a thread per vector of rows; x through a stride-0 view */
        {CUTE_F32, CUTE_F32, 600, 37, 1, 0, 4, 1, 0, 0, -0.5, 0},
        {CUTE_BF16, CUTE_BF16, 1030, 21, 2, 0, 0, 3, 0, 0, 0, 0},
        {CUTE_F16, CUTE_F32, 77, 50, 1, 0, 1, 1, 0, 2, 0.5, 0},
        {CUTE_E4M3, CUTE_BF16, 33, 19, 1, 0, 0, 1, 0, 3, 0, 0},
        /* degenerate: one row, one column, K = 0 (y = beta y; and with beta = 0, y = 0) */
        {CUTE_F32, CUTE_F32, 1, 1, 1, 1, 0, 1, 0, 0, -0.5, 0},
        {CUTE_F32, CUTE_F32, 5, 0, 1, 1, 0, 1, 0, 0, -0.5, 0},
        {CUTE_BF16, CUTE_BF16, 5, 0, 2, 0, 0, 1, 0, 0, 0, 0},
        /* several vectors at once (the skinny GEMM's path): one, three, eight; split-K */
        {CUTE_F32, CUTE_F32, 13, 600, 1, 1, 0, 1, 0, 0, -0.5, 1},
        {CUTE_BF16, CUTE_F32, 3, 5000, 2, 1, 0, 2, 0, 0, 0, 5},
        {CUTE_F16, CUTE_F16, 21, 1100, 1, 1, 8, 1, 0, 3, 0.5, 8},
        {CUTE_F32, CUTE_BF16, 300, 45, 2, 0, 0, 1, 0, 2, -0.5, 3},
        {CUTE_E4M3, CUTE_F32, 5, 0, 1, 1, 0, 1, 0, 0, -0.5, 2},
        /* more than 8 vectors: the tensor cores (mma.c); tails in M (blocks of 128 rows), in
         * K (k-tiles of 128, or 64) and in N (atoms of 8 vectors), batches, split-K */
        {CUTE_BF16, CUTE_BF16, 200, 600, 1, 1, 8, 1, 0, 0, 0, 20},
        {CUTE_F16, CUTE_F32, 130, 2056, 2, 1, 0, 2, 0, 3, -0.5, 9},
        {CUTE_BF16, CUTE_F16, 77, 96, 1, 1, 0, 1, 0, 0, 0.5, 128},
        {CUTE_F16, CUTE_BF16, 40, 520, 1, 1, 0, 1, 0, 2, 0, 64},
        /* f32 as three tf32 products (3xTF32), within f32's tolerance */
        {CUTE_F32, CUTE_F32, 150, 1000, 1, 1, 4, 1, 0, 0, -0.5, 17},
        {CUTE_F32, CUTE_BF16, 33, 1000, 2, 1, 0, 2, 0, 3, 0, 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(rt, lib, &cases[i]);
    /* the L2 prefetch of the k-tile 1 and 4 ahead (off by default but in the skew form) where a split holds full
     * k-tiles of K-major A: the interpreter checks every prefetched address lies in A (the
     * split's last full k-tile asks for itself again) */
    for (int d = 1; d <= CUTE_GEMV_MAX_L2_PREFETCH; d += 3) {
        cute_gemv_lib_l2_prefetch(lib, d);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (cases[i].major == 1 && cases[i].K >= 1900) run_case(rt, lib, &cases[i]);
    }
    cute_gemv_lib_l2_prefetch(lib, -1);
    /* the atomic reduction, on every forced split: the same answers within rounding, twice in
     * a row (its sums are zeroed for the next call; the tensor-core form's, the slowest on the
     * interpreter, once: the second kernel that zeroes them is the rows kernels'), and one call
     * without splits between */
    cute_gemv_lib_deterministic(lib, false);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].splits < 2 || cases[i].K == 0) continue;
        int times = cases[i].nvec > CUTE_GEMV_MAX_VECTORS ? 1 : 2;
        for (int n = 0; n < times; n++) run_case(rt, lib, &cases[i]);
        cute_gemv_config cfg;
        cute_gemv_lib_last(lib, &cfg, NULL);
        CHECK(cfg.atomic && cfg.split, "case %zu ran the atomic reduction", i);
        run_case(rt, lib, &cases[0]);
    }
    cute_gemv_lib_free(lib);
}

/* The shared-memory ring (cfg.smem_stages; the library's own, of 4, for bf16 and f16) where one vector of
 * K-major A streams in 16-byte vectors: 2 and 3 stages over whole k-tiles (512 elements
 * of 16 bits) and a tail, odd M, batches, split-K, padded rows, 8- and 32-bit elements.  The
 * interpreter checks that each stage is read after its copies landed.  A case whose vectors
 * are narrower (K odd) runs without it. */
static void ring_cases(cute_runtime *rt)
{
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const gemv_case cases[] = {
        {CUTE_BF16, CUTE_BF16, 37, 3000, 2, 1, 0, 1, 0, 0, 0.5, 0},
        {CUTE_F16, CUTE_F32, 20, 4096 + 64, 1, 1, 8, 1, 0, 2, 0, 0},
        {CUTE_F32, CUTE_F32, 5, 2060, 1, 1, 0, 1, 0, 0, -0.5, 0},
        {CUTE_E4M3, CUTE_F16, 9, 2064, 2, 1, 16, 1, 0, 0, 0, 0},
    };
    for (int d = 2; d <= 3; d++) { /* 4, the library's own for 16 bits, below and in every such case */
        CHECK(cute_gemv_lib_smem_stages(lib, d), "a ring of %d stages", d);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            run_case(rt, lib, &cases[i]);
            cute_gemv_config cfg;
            cute_gemv_lib_last(lib, &cfg, NULL);
            CHECK(cfg.smem_stages == d, "ring case %zu ran %d stages (asked %d)", i, cfg.smem_stages, d);
        }
    }
    run_case(rt, lib, &(gemv_case){CUTE_BF16, CUTE_BF16, 7, 1001, 1, 1, 0, 1, 0, 0, 0, 0});
    cute_gemv_config cfg;
    cute_gemv_lib_last(lib, &cfg, NULL);
    CHECK(!cfg.smem_stages, "K = 1001 (vectors of one element): no ring");
    /* the library's own for bf16 and f16: the ring of 4 (whole k-tiles and rows past M; a
     * partial k-tile and batches); f32 and e4m3 through registers */
    cute_gemv_lib_smem_stages(lib, -1);
    static const gemv_case own[] = {
        {CUTE_BF16, CUTE_BF16, 72, 512, 1, 1, 0, 1, 0, 0, 0, 0},
        {CUTE_BF16, CUTE_F32, 40, 600, 2, 1, 0, 1, 0, 0, 0.5, 0},
        {CUTE_F16, CUTE_F16, 41, 1600, 1, 1, 0, 1, 0, 0, 0, 0},
        {CUTE_F16, CUTE_BF16, 24, 1040, 2, 1, 0, 1, 0, 0, -0.5, 0},
        {CUTE_F32, CUTE_F32, 5, 2060, 1, 1, 0, 1, 0, 0, 0, 0},
        {CUTE_E4M3, CUTE_F16, 9, 2064, 1, 1, 16, 1, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        run_case(rt, lib, &own[i]);
        cute_gemv_lib_last(lib, &cfg, NULL);
        int want = own[i].d == CUTE_BF16 || own[i].d == CUTE_F16 ? CUTE_GEMV_RING_STAGES : 0;
        CHECK(cfg.smem_stages == want, "the library's own (case %zu): a ring of %d (want %d)", i, cfg.smem_stages,
              want);
    }
    /* the tensor-core form through the ring (mma.c: A's and X's k-tiles): 16, 8 and 40 vectors
     * of bf16, f32 and f16 in rings of 2 and 3 stages, a block of 64 rows in A (the ring) and
     * one past A's last row (registers), K past the last whole k-tile, batches, split-K, padded
     * rows; then the library's own: 8 stages up to 16 vectors (f32: the deepest of 8, 6 and 4
     * at which two blocks fit), none past; 20 vectors (not whole atoms of 8) none, asked or not */
    static const gemv_case mma[] = {
        {CUTE_BF16, CUTE_BF16, 72, 360, 1, 1, 0, 1, 0, 0, 0.5, 16},
        {CUTE_F32, CUTE_F32, 66, 264, 2, 1, 0, 1, 0, 2, -0.5, 8},
        {CUTE_F16, CUTE_F32, 65, 328, 1, 1, 8, 1, 0, 0, 0, 40},
    };
    for (size_t i = 0; i < 7; i++) {
        int d = i < 3 ? 2 + (int)(i % 2) : i < 6 ? -1 : 3, want = i < 3 ? d : i < 5 ? 8 : 0;
        gemv_case t = mma[i % 3];
        if (i == 6) t.nvec = 20;
        cute_gemv_lib_smem_stages(lib, d);
        run_case(rt, lib, &t);
        cute_gemv_lib_last(lib, &cfg, NULL);
        CHECK(cfg.mma && cfg.smem_stages == want, "mma ring case %zu: a ring of %d (want %d)", i, cfg.smem_stages,
              want);
    }
    /* f32 at 16 vectors: the deepest ring at which two blocks fit an SM, 6 (8 leave one) */
    gemv_case f16v = mma[1];
    f16v.nvec = 16, f16v.splits = 0;
    cute_gemv_lib_smem_stages(lib, -1);
    run_case(rt, lib, &f16v);
    cute_gemv_lib_last(lib, &cfg, NULL);
    CHECK(cfg.mma && cfg.smem_stages == 6, "f32, 16 vectors: the library's ring of %d (want 6)", cfg.smem_stages);
    /* f32's tf32 halves by bits (cfg.tf32_bits), through the ring with X and through registers */
    cute_gemv_lib_tf32_bits(lib, true);
    for (int d = 3; d >= 0; d -= 3) {
        cute_gemv_lib_smem_stages(lib, d);
        run_case(rt, lib, &mma[1]);
        cute_gemv_lib_last(lib, &cfg, NULL);
        CHECK(cfg.mma && cfg.tf32_bits && cfg.smem_stages == d, "mma f32 by bits: ring of %d (want %d)",
              cfg.smem_stages, d);
    }
    cute_gemv_lib_free(lib);
}

/* rt where it targets sm_90 (an H100's or H200's GPU), else a new interpreter (in *own) for
 * sm_90a; NULL where none can be made */
static cute_runtime *on_sm90(cute_runtime *rt, cute_runtime **own)
{
    if (cute_runtime_target_arch(rt) == 90) return rt;
    if (!(*own = check_interp())) return NULL;
    cute_runtime_set_target_arch(*own, "sm_90a");
    return *own;
}

/* f32 on sm_90's wgmma (wgmma.c, the default on sm_90 targets), on the GPU where it is an sm_90
 * one (the interpreter's wgmma reads its registers at once: a batch left running while a loop
 * wrote its A registers again was wrong only on the GPU), else on the interpreter for sm_90a:
 * blocks of one warpgroup (16 vectors, loads two k-tiles ahead; 80 vectors, one ahead) and of
 * two (32 vectors; 64: two m64 tiles each, 256 rows), a block of rows in A and one past A's
 * last row, K past the last whole k-tile, padded rows, a batch, split-K; then 32 vectors for
 * sm_80, mma.sync's form */
static void wgmma_cases(cute_runtime *rt)
{
    cute_runtime *own = NULL;
    if (!(rt = on_sm90(rt, &own))) return;
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    cute_gemv_lib_smem_stages(lib, 0);
    static const gemv_case cases[] = {
        {CUTE_F32, CUTE_F32, 70, 228, 2, 1, 4, 1, 0, 2, 0.5, 16},
        {CUTE_F32, CUTE_F32, 130, 228, 1, 1, 4, 1, 0, 2, 0.5, 32},
        {CUTE_F32, CUTE_F32, 130, 100, 1, 1, 0, 1, 0, 1, 0, 80},
        {CUTE_F32, CUTE_F32, 300, 228, 1, 1, 4, 1, 0, 2, 0.5, 64},
    };
    cute_gemv_config cfg;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cfg = run_case(rt, lib, &cases[i]);
        CHECK(cfg.mma && !cfg.smem_stages && gemv_wgmma(&cfg, 90), "f32 on wgmma (case %zu): not the wgmma form", i);
    }
    cute_gemv_lib_free(lib);
    if (own) cute_runtime_free(own);
    /* not sm_90: mma.sync's 3xTF32 through registers at the same vector counts */
    cute_runtime *r80 = check_interp();
    if (!r80) return;
    cute_runtime_set_target_arch(r80, "sm_80");
    lib = cute_gemv_lib_new(r80);
    cute_gemv_lib_smem_stages(lib, 0);
    cfg = run_case(r80, lib, &cases[1]);
    CHECK(cfg.mma && !cfg.smem_stages && !gemv_wgmma(&cfg, cute_runtime_target_arch(r80)),
          "f32 at 32 vectors for sm_80: not mma.sync's form");
    cute_gemv_lib_free(lib);
    cute_runtime_free(r80);
}

/* The tensor-core forms' split-K second kernel a dependent launch on sm_90 (compile.c), let in as
 * the first kernel's blocks start: f32 through the ring (16 vectors) and on wgmma (32), bf16
 * through registers (20), each split 2 or 3 ways, traced for sm_90a */
static void mma_pdl_cases(cute_runtime *rt)
{
    cute_runtime *own = NULL;
    if (!(rt = on_sm90(rt, &own))) return;
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    cute_gemv_lib_hopper(lib, false); /* (bf16's 20 vectors: the GEMV form, not the Hopper GEMM) */
    static const gemv_case cases[] = {
        {CUTE_F32, CUTE_F32, 70, 2000, 1, 1, 4, 1, 0, 3, 0.5, 16},
        {CUTE_F32, CUTE_F32, 130, 228, 1, 1, 0, 1, 0, 2, 0, 32},
        {CUTE_BF16, CUTE_BF16, 200, 600, 1, 1, 8, 1, 0, 2, -0.5, 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cute_gemv_config cfg = run_case(rt, lib, &cases[i]);
        CHECK(cfg.mma && cfg.split, "a dependent second kernel (case %zu): not the tensor-core form, split", i);
    }
    cute_gemv_lib_free(lib);
    if (own) cute_runtime_free(own);
}

/* Many vectors on the Hopper GEMM kernel (hopper.c, the library's choice on sm_90), traced for
 * sm_90a (on the GPU where it is an sm_90 one): 16-bit A and y, 8 to 128 vectors against more
 * than 128 rows, tails in M (tiles of 64 rows), in K (k-tiles of 64) and in N (16, 32, 64 or 128
 * wide), padded rows, beta = 0 over a poisoned y; a y with no unit stride, a batch, an f32 y, 7
 * vectors, 128 rows, cute_gemv_lib_hopper(lib, false) and sm_80 stay with the GEMV kernels,
 * checked the same */
static void hopper_cases(cute_runtime *rt)
{
    cute_runtime *own = NULL;
    if (!(rt = on_sm90(rt, &own))) return;
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const struct {
        gemv_case t;
        bool gemm;
    } cases[] = {
        {{CUTE_BF16, CUTE_BF16, 200, 264, 1, 1, 8, 1, 0, 0, 0.5, 40}, true},
        {{CUTE_F16, CUTE_F16, 136, 520, 1, 1, 0, 1, 0, 0, 0, 128}, true},
        {{CUTE_BF16, CUTE_BF16, 200, 264, 1, 1, 0, 1, 0, 0, -0.5, 72}, true},
        {{CUTE_F16, CUTE_F16, 264, 200, 1, 1, 0, 1, 0, 0, 0.5, 32}, true}, /* tiles 32 wide */
        {{CUTE_BF16, CUTE_BF16, 200, 264, 1, 1, 0, 2, 0, 0, 0.5, 40}, false}, /* y's stride 2 */
        {{CUTE_BF16, CUTE_BF16, 200, 136, 2, 1, 0, 1, 0, 0, 0.5, 40}, false}, /* a batch */
        {{CUTE_BF16, CUTE_F32, 200, 136, 1, 1, 0, 1, 0, 0, 0.5, 40}, false},
        {{CUTE_F16, CUTE_F16, 200, 136, 1, 1, 0, 1, 0, 0, 0.5, 31}, true},  /* tiles 32 wide */
        {{CUTE_BF16, CUTE_BF16, 264, 200, 1, 1, 0, 1, 0, 0, 0, 8}, true},   /* 16 wide */
        {{CUTE_BF16, CUTE_BF16, 264, 200, 1, 1, 0, 1, 0, 0, 0.5, 7}, false},
        {{CUTE_F16, CUTE_F16, 128, 136, 1, 1, 0, 1, 0, 0, 0.5, 40}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(rt, lib, &cases[i].t);
        CHECK(cute_gemv_lib_last_gemm(lib) == cases[i].gemm, "many vectors (case %zu): %s the Hopper GEMM", i,
              cases[i].gemm ? "not on" : "on");
    }
    cute_gemv_lib_hopper(lib, false);
    run_case(rt, lib, &cases[0].t);
    CHECK(!cute_gemv_lib_last_gemm(lib), "many vectors, cute_gemv_lib_hopper(lib, false): on the Hopper GEMM");
    cute_gemv_lib_free(lib);
    if (own) cute_runtime_free(own);
    cute_runtime *r80 = check_interp();
    if (r80) {
        cute_runtime_set_target_arch(r80, "sm_80");
        lib = cute_gemv_lib_new(r80);
        run_case(r80, lib, &cases[0].t);
        CHECK(!cute_gemv_lib_last_gemm(lib), "many vectors for sm_80: on the Hopper GEMM");
        cute_gemv_lib_free(lib);
        cute_runtime_free(r80);
    }
}

/* Past 32 splits the second kernel a warp an output (row, vector): K-major with 1, 3 and 8
 * vectors, odd K, a batch; M-major; y poisoned (beta 0) in some; each twice on the same
 * inputs, the same bits; and traced for sm_90a, where the second kernel is a programmatic
 * dependent launch, as at any split count (its wait and the first kernel's
 * launch_dependents: no-ops on the interpreter, which runs grids in order). */
static void many_splits_cases(cute_runtime *rt)
{
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const gemv_case cases[] = {
        {CUTE_F32, CUTE_BF16, 1, 2111, 1, 1, 0, 1, 0, 33, 0, 8},
        {CUTE_F32, CUTE_F32, 7, 2305, 2, 1, 0, 1, 0, 37, -0.5, 3},
        {CUTE_F16, CUTE_F32, 9, 300, 1, 0, 0, 1, 0, 38, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(run_twice(rt, lib, &cases[i], "many splits", i).many_splits, "many splits case %zu ran many_splits", i);
    cute_gemv_lib_free(lib);
    cute_runtime *h = check_interp();
    if (!h) return;
    cute_runtime_set_target_arch(h, "sm_90a");
    lib = cute_gemv_lib_new(h);
    cute_gemv_lib_one_launch(lib, 0); /* (the library's there: split-K in one launch) */
    CHECK(run_case(h, lib, &cases[1]).many_splits, "sm_90a: many splits");
    cute_gemv_lib_free(lib);
    lib = cute_gemv_lib_new(h); /* a few splits: a dependent launch too */
    cute_gemv_lib_one_launch(lib, 0);
    gemv_case few = {CUTE_BF16, CUTE_BF16, 37, 1009, 1, 1, 0, 1, 0, 2, 0, 3};
    CHECK(run_case(h, lib, &few).split, "sm_90a: two splits");
    cute_gemv_lib_free(lib);
    cute_runtime_free(h);
}

/* Split-K in one launch (cute_gemv_lib_one_launch; the library's on sm_90): the last block of
 * each row group adds the parts (the atomic reduction: scales the sums, twice each, the second
 * call finding them zero).  The rows kernel (f32, 1 and 3 vectors, the ring's one bf16
 * vector) and the skew form (odd and prime K), M of 1 to 37 (past a block's rows), few splits
 * and 37 (several a thread), batches (a group a batch), y poisoned (beta 0); each case twice on
 * the same inputs: the same bits, whichever block came last, and the second call found its
 * counters zero again (else no block would count last and y would stay NaN).  M-major A and the
 * tensor-core form keep the second kernel. */
static void one_launch_cases(cute_runtime *rt)
{
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    CHECK(!run_case(rt, lib, &(gemv_case){CUTE_BF16, CUTE_BF16, 37, 1009, 1, 1, 0, 1, 0, 4, 0, 3}).one_launch,
          "the library's choice on the interpreter (no sm_90): the second kernel");
    CHECK(cute_gemv_lib_one_launch(lib, 1) && !cute_gemv_lib_one_launch(lib, 2), "one_launch takes -1, 0, 1");
    static const gemv_case cases[] = {
        {CUTE_F32, CUTE_F32, 7, 2305, 2, 1, 0, 1, 0, 37, -0.5, 3},
        {CUTE_BF16, CUTE_BF16, 37, 1009, 1, 1, 0, 1, 0, 4, 0, 3},
        {CUTE_F16, CUTE_F32, 5, 3331, 2, 1, 0, 1, 4, 2, 0, 1},
        {CUTE_BF16, CUTE_BF16, 3, 4099, 1, 1, 0, 1, 0, 5, 0, 0},
        {CUTE_F32, CUTE_BF16, 1, 2111, 1, 1, 0, 1, 0, 33, 0.5, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cute_gemv_config cfg = run_twice(rt, lib, &cases[i], "one-launch", i);
        CHECK(cfg.one_launch && cfg.split && !cfg.many_splits, "one-launch case %zu ran in one launch", i);
    }
    cute_gemv_lib_deterministic(lib, false); /* the atomic sums: the last block scales and zeroes them */
    for (size_t i = 0; i < 2; i++)
        for (int n = 0; n < 2; n++)
            CHECK(run_case(rt, lib, &cases[i]).one_launch, "atomic one-launch case %zu ran in one launch", i);
    cute_gemv_lib_deterministic(lib, true);
    CHECK(!run_case(rt, lib, &(gemv_case){CUTE_F16, CUTE_F16, 9, 300, 1, 0, 0, 1, 0, 3, 0, 0}).one_launch,
          "M-major A: the second kernel");
    CHECK(!run_case(rt, lib, &(gemv_case){CUTE_BF16, CUTE_BF16, 20, 1000, 1, 1, 0, 1, 0, 2, 0, 16}).one_launch,
          "the tensor-core form: the second kernel");
    cute_gemv_lib_free(lib);
    /* traced for sm_90a: one launch the library's choice, a dependent launch, at most
     * cute_gemv_one_launch_splits an SM unless forced (the interpreter's 2 SMs: 2 for bf16) */
    cute_runtime *h = check_interp();
    if (!h) return;
    cute_runtime_set_target_arch(h, "sm_90a");
    lib = cute_gemv_lib_new(h);
    for (size_t i = 0; i < 2; i++)
        CHECK(run_twice(h, lib, &cases[i], "sm_90a one-launch", i).one_launch, "sm_90a case %zu: one launch", i);
    gemv_case many = {CUTE_BF16, CUTE_BF16, 5, 20011, 1, 1, 0, 1, 0, 0, 0, 3};
    int splits;
    CHECK(run_case(h, lib, &many).one_launch, "sm_90a, the library's splits: one launch");
    cute_gemv_lib_last(lib, NULL, &splits);
    int most = 2 * cute_gemv_one_launch_splits(CUTE_BF16);
    CHECK(splits > 1 && splits <= most, "sm_90a one launch: %d splits (at most %d)", splits, most);
    cute_gemv_lib_one_launch(lib, 0);
    CHECK(!run_case(h, lib, &cases[1]).one_launch, "sm_90a, one launch off: the second kernel");
    cute_gemv_lib_free(lib);
    cute_runtime_free(h);
}

/* K-major f16 and bf16 rows that do not all start 16-byte aligned read through 16-byte vectors
 * between a scalar head and tail (cfg.skew, the library's): odd and prime K (every row's head
 * another length), a leading dimension whose rows all share one misalignment and an offset
 * that leaves none aligned, rows shorter than a vector, M and N of 1 to 8 and past a block's
 * rows, split-K, y poisoned (beta 0).  The interpreter checks each 16-byte load is aligned.
 * Rows that all start aligned keep the rows kernel, and f32 its narrower vectors. */
static void skew_cases(cute_runtime *rt)
{
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const gemv_case cases[] = {
        {CUTE_BF16, CUTE_BF16, 37, 1009, 1, 1, 0, 1, 0, 0, 0, 3},
        {CUTE_F16, CUTE_F16, 5, 331, 2, 1, 0, 1, 4, 2, -0.5, 1},
        {CUTE_F16, CUTE_F32, 8, 1000, 1, 1, 0, 1, 2, 0, 0, 8},
        {CUTE_BF16, CUTE_F32, 1, 13, 1, 1, 0, 1, 2, 0, 0.5, 2},
        {CUTE_F16, CUTE_F16, 7, 20, 1, 1, 3, 1, 0, 0, 0, 0},
        {CUTE_BF16, CUTE_BF16, 6, 2111, 1, 1, 0, 1, 2, 3, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cute_gemv_config cfg = run_case(rt, lib, &cases[i]);
        CHECK(cfg.skew && cfg.vec * cute_dtype_bytes(cfg.dtype) == 16 && cfg.l2_prefetch == 1,
              "skew case %zu ran skew, the next k-tile asked of L2 (the library's choice)", i);
    }
    /* the L2 prefetch D k-tiles ahead, none to 2 (the interpreter checks each prefetch's
     * address lies in A): several whole k-tiles a split, rows past a block's 64, one vector
     * and three */
    static const gemv_case ahead[] = {
        {CUTE_BF16, CUTE_BF16, 70, 3001, 1, 1, 0, 1, 0, 2, 0, 3},
        {CUTE_F16, CUTE_F16, 5, 4099, 1, 1, 0, 1, 2, 0, 0, 0},
    };
    for (int d = 0; d <= 2; d++) {
        CHECK(cute_gemv_lib_l2_prefetch(lib, d), "L2 prefetch %d", d);
        for (size_t i = 0; i < sizeof ahead / sizeof ahead[0]; i++) {
            cute_gemv_config cfg = run_case(rt, lib, &ahead[i]);
            CHECK(cfg.skew && cfg.l2_prefetch == d, "skew case %zu with the L2 prefetch %d ahead", i, d);
        }
    }
    CHECK(!cute_gemv_lib_l2_prefetch(lib, -2) && !cute_gemv_lib_l2_prefetch(lib, CUTE_GEMV_MAX_L2_PREFETCH + 1),
          "the L2 prefetch takes -1 to %d", CUTE_GEMV_MAX_L2_PREFETCH);
    cute_gemv_lib_l2_prefetch(lib, -1);
    CHECK(!run_case(rt, lib, &(gemv_case){CUTE_BF16, CUTE_BF16, 9, 1024, 1, 1, 0, 1, 0, 0, 0, 2}).skew,
          "rows 16-byte aligned: the rows kernel");
    CHECK(!run_case(rt, lib, &(gemv_case){CUTE_F32, CUTE_F32, 5, 331, 1, 1, 0, 1, 0, 0, 0, 3}).skew,
          "f32 rows not aligned: the rows kernel's narrower vectors");
    cute_gemv_lib_free(lib);
}

/* a call expected to be refused: INVALID, and `word` in the message */
static void refused(cute_gemv_lib *lib, const char *what, const cute_call_arg *A,
                    const cute_call_arg *x, const cute_call_arg *y, double beta, const char *word)
{
    char err[512] = "";
    check_refused(what, cutec_gemv(lib, A, x, y, 1, beta, NULL, err, sizeof err), err, word);
}

/* every malformed call refused before anything compiles, the operand named */
static void validation(cute_runtime *rt)
{
    refusal_kit kit = refusal_kit_new(rt);
    cute_buffer buf = kit.buf;
    cute_gemv_lib *lib = kit.lib;
    cute_call_arg A =
        cute_call_tensor(&buf, 0, CUTE_F32, 2, (int64_t[]){8, 12}, (int64_t[]){12, 1});
    cute_call_arg x = cute_call_tensor(&buf, 4096, CUTE_F32, 1, (int64_t[]){12}, (int64_t[]){1});
    cute_call_arg y = cute_call_tensor(&buf, 8192, CUTE_F32, 1, (int64_t[]){8}, (int64_t[]){1});
    cute_call_arg t;
    t = x, t.shape[0] = 11;
    refused(lib, "short x", &A, &t, &y, 0, "K mismatch");
    t = y, t.shape[0] = 9;
    refused(lib, "long y", &A, &x, &t, 0, "M mismatch");
    t = x, t.stride[0] = 2;
    refused(lib, "strided x", &A, &t, &y, 0, "x has stride 2 along K");
    t = A, t.stride[0] = 2, t.stride[1] = 16;
    refused(lib, "A without a unit stride", &t, &x, &y, 0, "one mode must have stride 1");
    t = A, t.dtype = CUTE_F64;
    refused(lib, "f64 A", &t, &x, &y, 0, "A is f64");
    t = x, t.dtype = CUTE_F16;
    refused(lib, "f16 x with f32 A", &A, &t, &y, 0, "x is f16 but A is f32");
    t = y, t.dtype = CUTE_E4M3;
    refused(lib, "e4m3 y", &A, &x, &t, 0, "y is f8E4M3FN");
    t = A, t.offset = 2;
    refused(lib, "A 2 bytes off", &t, &x, &y, 0, "not aligned");
    t = x, t.ndim = 2, t.shape[1] = 2, t.stride[1] = 12;
    refused(lib, "a batch of x alone", &A, &t, &y, 0, "rank");
    t = A, t.shape[0] = -1;
    refused(lib, "negative M", &t, &x, &y, 0, "negative extent");
    t = y, t.stride[0] = -1;
    refused(lib, "negative y stride", &A, &x, &t, 0, "y has a negative stride");
    refused(lib, "NaN beta", &A, &x, &y, NAN, "finite");
    t = cute_call_float(1);
    refused(lib, "a scalar for A", &t, &x, &y, 0, "A is not a tensor");
    t = A, t.dtype = CUTE_E2M1;
    cute_call_arg x4 = x;
    x4.dtype = CUTE_E2M1;
    refused(lib, "e2m1 without scales", &t, &x4, &y, 0, "cutec_gemv_nvfp4");
    cute_call_arg X =
        cute_call_tensor(&buf, 4096, CUTE_F32, 2, (int64_t[]){12, 9}, (int64_t[]){1, 12});
    cute_call_arg Y =
        cute_call_tensor(&buf, 8192, CUTE_F32, 2, (int64_t[]){8, 9}, (int64_t[]){1, 8});
    char err[512] = "";
    /* more than 8 vectors take the tensor cores, only with rows 16-byte aligned */
    cute_call_arg hA = A, hX = X, hY = Y;
    hA.offset = 4;
    check_refused("nine vectors, A 4 bytes off", cutec_gemv_vectors(lib, &hA, &X, &Y, 1, 0, NULL, err, sizeof err),
                  err, "9 vectors: more than 8 take the tensor cores");
    hA.dtype = hX.dtype = hY.dtype = CUTE_F16;
    check_refused("nine f16 vectors, A 4 bytes off",
                  cutec_gemv_vectors(lib, &hA, &hX, &hY, 1, 0, NULL, err, sizeof err), err, "16-byte aligned");
    hA.offset = 0, hX.shape[1] = hY.shape[1] = 129;
    check_refused("129 vectors", cutec_gemv_vectors(lib, &hA, &hX, &hY, 1, 0, NULL, err, sizeof err), err,
                  "129 vectors (1 to 128");
    CHECK(cutec_gemv(NULL, &A, &x, &y, 1, 0, NULL, NULL, 0) == CUTE_ERR_INVALID,
          "no library, no err buffer");
    refusal_kit_free(&kit);
}

/* cutec_gemm (AUTO) on a skinny shape: C = 1.5 A B^T - 0.5 C against float64; whether it
 * went through the GEMV kernels (no GEMM pattern compiled) as expected */
static void skinny_case(cute_runtime *rt, cute_dtype d, cute_dtype cd, int64_t M, int64_t N,
                        int64_t K, int64_t L, int c_major, bool routed)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    int nd = L > 1 ? 3 : 2;
    int64_t sc[3] = {c_major ? N : 1, c_major ? 1 : M, M * N};
    operand A, B, C;
    make(b, &A, d, nd, (int64_t[]){M, K, L}, (int64_t[]){K, 1, M * K}, M * K * L, 0);
    make(b, &B, d, nd, (int64_t[]){N, K, L}, (int64_t[]){K, 1, N * K}, N * K * L, 0);
    make(b, &C, cd, nd, (int64_t[]){M, N, L}, sc, M * N * L, 0);
    size_t cbytes = (size_t)(M * N * L) * (size_t)cute_dtype_bytes(cd);
    void *c0 = malloc(cbytes);
    memcpy(c0, C.host, cbytes);
    char err[1024] = "";
    cute_status s =
        cutec_gemm(lib, CUTE_GEMM_AUTO, &A.arg, &B.arg, &C.arg, 1.5, -0.5, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "skinny gemm %lldx%lldx%lld: %s", (long long)M, (long long)N, (long long)K,
          err);
    b->vt->download(b->self, C.host, &C.buf, 0, cbytes);
    int64_t bad = 0;
    for (int64_t l = 0; l < L; l++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double sum = 0, mag = 0;
                for (int64_t k = 0; k < K; k++) {
                    double v =
                        elem(&A, d, i * K + k + l * M * K) * elem(&B, d, j * K + k + l * N * K);
                    sum += v, mag += fabs(v);
                }
                int64_t at = i * sc[0] + j * sc[1] + l * sc[2];
                double y0 = ew_get(cd, c0, at), want = 1.5 * sum - 0.5 * y0;
                if (!close_enough(ew_get(cd, C.host, at), want, 1.5 * mag + 0.5 * fabs(y0), K, cd))
                    bad++;
            }
    CHECK(bad == 0, "skinny gemm %s %lldx%lldx%lld L=%lld: %lld wrong", cute_dtype_name(d),
          (long long)M, (long long)N, (long long)K, (long long)L, (long long)bad);
    CHECK((cute_gemm_lib_size(lib) == 0) == routed,
          "skinny gemm %lldx%lldx%lld %s the GEMV kernels", (long long)M, (long long)N,
          (long long)K, routed ? "goes through" : "does not go through");
    drop(b, &A), drop(b, &B), drop(b, &C);
    free(c0);
    cute_gemm_lib_free(lib);
}

static void skinny(cute_runtime *rt)
{
    skinny_case(rt, CUTE_F32, CUTE_F32, 3, 5, 3000, 1, 1, true);   /* N small: A streamed */
    skinny_case(rt, CUTE_BF16, CUTE_F32, 300, 3, 700, 2, 0, true); /* tall and thin, batched */
    skinny_case(rt, CUTE_F16, CUTE_F16, 2, 200, 900, 1, 1, true);  /* M small: B streamed */
    skinny_case(rt, CUTE_F32, CUTE_F32, 1, 1, 77, 1, 0, true);
    /* 9 to 128 vectors with 16-byte aligned rows: the tensor cores (f32 as 3xTF32) */
    skinny_case(rt, CUTE_F32, CUTE_F32, 20, 9, 40, 1, 0, true);
    skinny_case(rt, CUTE_F32, CUTE_F32, 20, 9, 41, 1, 0, false); /* rows not aligned: the GEMM */
    skinny_case(rt, CUTE_BF16, CUTE_BF16, 20, 200, 520, 1, 1, true);
    skinny_case(rt, CUTE_F16, CUTE_F32, 300, 40, 264, 2, 0, true);
    skinny_case(rt, CUTE_BF16, CUTE_BF16, 129, 300, 100, 1, 0, false); /* 129: the GEMM */
    skinny_case(rt, CUTE_F16, CUTE_F16, 20, 300, 1004, 1, 1, false);   /* rows not 16-byte aligned */
    /* tracing for sm_90: M of 32 to 128 (16-bit, N past 128) goes to the Hopper kernel's
     * few-row tiles instead (64 x 64 up to 64 rows, 128 x 64 past); fewer rows, or an f32 C,
     * stay with the GEMV kernels */
    cute_runtime *h = check_interp();
    if (!h) return;
    cute_runtime_set_target_arch(h, "sm_90a");
    skinny_case(h, CUTE_BF16, CUTE_BF16, 64, 200, 128, 1, 0, false);
    skinny_case(h, CUTE_F16, CUTE_F16, 72, 136, 64, 1, 1, false);
    skinny_case(h, CUTE_BF16, CUTE_BF16, 31, 200, 128, 1, 0, true);
    skinny_case(h, CUTE_BF16, CUTE_F32, 64, 200, 128, 1, 0, true);
    /* ... and the mirror, 8 to 128 columns of B against more than 128 rows of A, in tiles of 64
     * rows (hopper_auto.c's few_columns) */
    skinny_case(h, CUTE_BF16, CUTE_BF16, 200, 64, 136, 1, 0, false);
    skinny_case(h, CUTE_BF16, CUTE_F32, 200, 64, 136, 1, 0, true);
    /* a 99 KB card (an A10's sm_86, docs/cards.md): the tensor-core form's ring in fewer stages
     * (8 stages at 16 vectors are 128 KB, refused there as the kernel compiles) */
    cute_runtime_set_target_arch(h, "sm_86");
    skinny_case(h, CUTE_BF16, CUTE_BF16, 20, 200, 520, 1, 1, true);
    cute_runtime_free(h);
}

/* the generated CUDA C compiles through NVRTC for sm_80, sm_90a and sm_100a; for sm_90a
 * the K-major kernel reads A and x only with 128-bit loads (ld.global.nc.v4: per k-tile
 * eight of A (two rows) and four of x, 8-bit elements half as many; the tail's as many),
 * the other global loads being y's, one per row in each of the two walks (a warp with all
 * its rows in A, and one past A's end) */
static void machine_code(cute_runtime *rt)
{
    static const cute_gemv_config cfgs[] = {
        {.dtype = CUTE_BF16, .y_dtype = CUTE_BF16, .a_major = 1, .vec = 8, .vectors = 1},
        {.dtype = CUTE_F32,
         .y_dtype = CUTE_F32,
         .a_major = 1,
         .vec = 4,
         .split = true,
         .vectors = 1},
        {.dtype = CUTE_E4M3, .y_dtype = CUTE_F16, .a_major = 1, .vec = 16, .vectors = 1},
        {.dtype = CUTE_F16,
         .y_dtype = CUTE_F32,
         .a_major = 0,
         .vec = 8,
         .split = true,
         .vectors = 1},
        {.dtype = CUTE_BF16,
         .y_dtype = CUTE_F32,
         .a_major = 1,
         .vec = 8,
         .split = true,
         .vectors = 8},
        {.dtype = CUTE_F32, .y_dtype = CUTE_F32, .a_major = 0, .vec = 4, .vectors = 3},
        {.dtype = CUTE_BF16,
         .y_dtype = CUTE_BF16,
         .a_major = 1,
         .vec = 8,
         .split = true,
         .atomic = true,
         .vectors = 2}};
    static const char *const arch[] = {"sm_80", "sm_100a", "sm_90a"};
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        char err[2048] = "";
        const cute_fn *f = cute_gemv_compile(rt, &cfgs[i], err, sizeof err);
        CHECK(f != NULL, "gemv config %zu compiles: %s", i, err);
        for (int a = 0; a < 3 && f; a++) {
            char *text = NULL;
            cute_status s = cute_fn_code(f, "ptx", arch[a], &text, err, sizeof err);
            if (s == CUTE_ERR_NO_NVRTC)
                SKIP("NVRTC not found: no PTX of the GEMV kernels");
            else
                CHECK(s == CUTE_OK && strstr(text, ".entry"), "gemv config %zu for %s: %s", i,
                      arch[a], err);
            if (s == CUTE_OK && a == 2 && cfgs[i].a_major == 1 && !cfgs[i].split &&
                cfgs[i].vectors == 1) {
                const char *t = s == CUTE_OK ? text : "";
        int v4 = check_count(t, "ld.global.nc.v4"), all = check_count(t, "ld.global");
                int tile = cfgs[i].dtype == CUTE_E4M3 ? 6 : 12;
                CHECK(v4 >= 2 * tile && all == v4 + 4,
                      "gemv config %zu: %d loads, %d of 128 bits (want at least %d + y's 4)", i,
                      all, v4, 2 * tile);
            }
            free(text);
        }
        cute_fn_free(f);
    }
}

/* the tensor-core form for sm_90a: A and X only in 128-bit loads straight into the MMA's
 * fragments, 64 mma.sync a k-tile of 128 with 64 vectors (8 atoms of vectors, 8 along K),
 * in each of the four walks' bodies (a block inside A or past its end, full k-tiles or the
 * tail); the other loads y's (beta), one per accumulator */
static void mma_code(cute_runtime *rt)
{
    cute_gemv_config cfg = {.dtype = CUTE_BF16, .y_dtype = CUTE_BF16, .a_major = 1, .vec = 8, .vectors = 64,
                            .mma = true};
    char err[2048] = "", *text = NULL;
    const cute_fn *f = cute_gemv_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "gemv mma compiles: %s", err);
    cute_status s = f ? cute_fn_code(f, "ptx", "sm_90a", &text, err, sizeof err) : CUTE_ERR_INVALID;
    if (s == CUTE_ERR_NO_NVRTC) {
        SKIP("NVRTC not found: no PTX of the tensor-core GEMV");
    } else {
        CHECK(s == CUTE_OK, "gemv mma for sm_90a: %s", err);
        const char *t = s == CUTE_OK ? text : "";
        int v4 = check_count(t, "ld.global.nc.v4"), all = check_count(t, "ld.global");
        int mma = check_count(t, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
        CHECK(v4 == 4 * 40 && all == v4 + 32 && mma == 4 * 64,
              "gemv mma: %d loads, %d of 128 bits (want 160 and y's 32), %d mma.sync (want 256)", all, v4, mma);
    }
    free(text);
    cute_fn_free(f);
}

/* the bf16 ring of one vector, the library's for 16-bit A */
static const cute_gemv_config ring_cfg = {.dtype = CUTE_BF16, .y_dtype = CUTE_BF16, .a_major = 1, .vec = 8,
                                          .vectors = 1, .smem_stages = CUTE_GEMV_RING_STAGES};

/* ring_cfg's compile under name=value (outside choices) refused by name; name unset after */
static void env_refused(cute_runtime *rt, const char *name, const char *value, const char *choices)
{
    setenv(name, value, 1);
    char err[2048] = "";
    const cute_fn *f = cute_gemv_compile(rt, &ring_cfg, err, sizeof err);
    char want[200];
    snprintf(want, sizeof want, "%s=%s: not one of %s", name, value, choices);
    CHECK(!f && strstr(err, want), "%s=%s: %s", name, value, f ? "taken" : err);
    cute_fn_free(f);
    unsetenv(name);
}

/* cfg's CUDA C (free it), compiled for rt under name=value; NULL with the reason in err */
static char *cuda_under(cute_runtime *rt, const cute_gemv_config *cfg, const char *name, const char *value, char *err,
                        size_t n)
{
    setenv(name, value, 1);
    char *text = NULL;
    const cute_fn *f = cute_gemv_compile(rt, cfg, err, n);
    if (f && cute_fn_code(f, "cuda", NULL, &text, err, n) != CUTE_OK) text = NULL;
    cute_fn_free(f);
    return text;
}

/* sm_90 on, the unsplit K-major kernel waits for the stream's previous grid before its first
 * global access, then lets the next grid in (its code: the wait, then the launch of dependents,
 * then the first copy; none of it under CUTEC_GEMV_PDL=0); against float64 on the interpreter
 * (which runs grids in order): the ring with padded rows, a partial block with beta, f16 -> f32,
 * and a split call (the one launch's own wait); a value outside 0|1 refused by name */
static void pdl_cases(cute_runtime *rt)
{
    cute_runtime *own = NULL;
    if (!(rt = on_sm90(rt, &own))) return;
    for (int pdl = 1; pdl >= 0; pdl--) {
        char err[2048] = "", *text = cuda_under(rt, &ring_cfg, "CUTEC_GEMV_PDL", pdl ? "1" : "0", err, sizeof err);
        const char *t = text ? text : "", *w = strstr(t, "griddepcontrol.wait"),
                   *l = strstr(t, "griddepcontrol.launch_dependents"), *cp = strstr(t, "cp.async");
        CHECK(text && cp && (pdl ? w && l && w < l && l < cp : !w && !l),
              "CUTEC_GEMV_PDL=%d: the wait, the dependents let in, then the copies, or none (%s)", pdl, err);
        free(text);
    }
    unsetenv("CUTEC_GEMV_PDL");
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    static const gemv_case cases[] = {
        {CUTE_BF16, CUTE_BF16, 64, 4104, 1, 1, 8, 1, 0, 0, 0, 0},
        {CUTE_BF16, CUTE_BF16, 37, 3000, 2, 1, 0, 1, 0, 0, 0.5, 0},
        {CUTE_F16, CUTE_F32, 40, 3072, 1, 1, 0, 1, 0, 0, 0, 0},
        {CUTE_BF16, CUTE_F32, 21, 6000, 1, 1, 0, 1, 0, 3, -0.5, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(rt, lib, &cases[i]);
    cute_gemv_lib_free(lib);
    env_refused(rt, "CUTEC_GEMV_PDL", "2", "0|1");
    if (own) cute_runtime_free(own);
}

/* sm_90a, the skew form in one launch (a dependent launch): its first k-tiles asked of L2
 * before the wait for the previous grid, the wait before the first load; under
 * CUTEC_GEMV_EARLY=0 the wait first; a value outside 1|0 refused by name.  (Its answers: the
 * sm_90a one-launch cases above, skew included.) */
static void early_code(cute_runtime *rt)
{
    cute_runtime *own = NULL;
    if (!(rt = on_sm90(rt, &own))) return;
    static const cute_gemv_config skew = {.dtype = CUTE_BF16, .y_dtype = CUTE_BF16, .a_major = 1, .vec = 8,
                                          .vectors = 3, .split = true, .one_launch = true, .skew = true,
                                          .l2_prefetch = 1};
    for (int early = 1; early >= 0; early--) {
        char err[2048] = "", *text = cuda_under(rt, &skew, "CUTEC_GEMV_EARLY", early ? "1" : "0", err, sizeof err);
        const char *t = text ? text : "", *pf = strstr(t, "prefetch.global.L2"),
                   *w = strstr(t, "griddepcontrol.wait"), *ld = strstr(t, "*(const bf16x8 *)");
        CHECK(text && pf && w && ld && w < ld && (early ? pf < w : w < pf),
              "CUTEC_GEMV_EARLY=%d: the prefetch %s the wait, the wait before the loads (%s)", early,
              early ? "before" : "after", err);
        free(text);
    }
    setenv("CUTEC_GEMV_EARLY", "2", 1);
    char err[2048] = "";
    const cute_fn *f = cute_gemv_compile(rt, &skew, err, sizeof err);
    CHECK(!f && strstr(err, "CUTEC_GEMV_EARLY=2: not one of 1|0"), "CUTEC_GEMV_EARLY=2: %s", f ? "taken" : err);
    cute_fn_free(f);
    unsetenv("CUTEC_GEMV_EARLY");
    if (own) cute_runtime_free(own);
}

int main(void)
{
    seed = check_seed("gemv_test");
    cute_runtime *rt = check_interp();
    if (!rt) return CHECK_DONE("gemv_test");
    validation(rt);
    results(rt);
    ring_cases(rt);
    skew_cases(rt);
    one_launch_cases(rt);
    many_splits_cases(rt);
    wgmma_cases(rt);
    hopper_cases(rt);
    mma_pdl_cases(rt);
    machine_code(rt);
    mma_code(rt);
    pdl_cases(rt);
    early_code(rt);
    skinny(rt);
    cute_runtime_free(rt);
    return CHECK_DONE("gemv_test");
}
