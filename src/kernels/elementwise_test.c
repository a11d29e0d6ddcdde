/* Every elementwise op, dtype, rank, a stride/tail matrix and the empty tensor, against the
 * CPU reference, on fresh random data with poisoned outputs: on the interpreter always, on
 * the GPU where there is one (skipped visibly where not). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/kernels.h"
#include "cutec/cuda_driver.h"
#include "kernels/ew_ref.h"

typedef struct layout_case {
    const char *name;
    int ndim;
    int64_t shape[4];
    int transpose_a; /* A's first two modes swapped in memory (a strided input) */
    int pad;         /* rows padded by this many elements (strided rows) */
} layout_case;

static const layout_case cases[] = {
    {"1", 1, {1}, 0, 0},          {"7", 1, {7}, 0, 0},
    {"1000", 1, {1000}, 0, 0},    {"4099", 1, {4099}, 0, 0},
    {"33x17", 2, {33, 17}, 0, 0}, {"64x64", 2, {64, 64}, 0, 0},
    {"4x5x6", 3, {4, 5, 6}, 0, 0}, {"2x3x4x5", 4, {2, 3, 4, 5}, 0, 0},
    {"33x17 A^T", 2, {33, 17}, 1, 0}, {"40x24 padded", 2, {40, 24}, 0, 3},
    {"0 (empty)", 1, {0}, 0, 0},
};

static uint64_t seed;

/* row-major strides, rows padded by pad; A may be transposed in memory */
static int64_t strides_of(const layout_case *lc, bool transposed, int64_t *stride)
{
    int64_t s = 1;
    for (int i = lc->ndim - 1; i >= 0; i--) {
        stride[i] = s;
        s *= lc->shape[i] + (i == lc->ndim - 1 ? lc->pad : 0);
    }
    if (transposed && lc->ndim >= 2) { /* column-major for the first two modes */
        stride[0] = 1;
        stride[1] = lc->shape[0];
        s = lc->shape[0] * lc->shape[1];
    }
    return s; /* elements spanned */
}

typedef struct host_tensor {
    cute_buffer buf;
    void *host;
    int64_t elems; /* allocated */
    int64_t stride[4];
} host_tensor;

static bool make(cute_backend *b, host_tensor *t, cute_dtype d, const layout_case *lc, bool transposed,
                 bool poison)
{
    t->elems = strides_of(lc, transposed, t->stride);
    size_t bytes = (size_t)(t->elems ? t->elems : 1) * (size_t)cute_dtype_bytes(d);
    t->host = malloc(bytes);
    if (!t->host || b->vt->alloc(b->self, bytes, &t->buf) != CUTE_OK) return false;
    for (int64_t i = 0; i < t->elems; i++)
        ew_set(d, t->host, i, poison ? NAN : ew_random(&seed));
    if (poison && (d == CUTE_I32)) memset(t->host, 0x7f, bytes);
    return b->vt->upload(b->self, &t->buf, 0, t->host, bytes) == CUTE_OK;
}

static void drop(cute_backend *b, host_tensor *t)
{
    b->vt->free(b->self, &t->buf);
    free(t->host);
}

static int64_t offset_of(const layout_case *lc, const int64_t *stride, int64_t i)
{
    int64_t off = 0;
    for (int d = lc->ndim - 1; d >= 0; d--) {
        off += (i % lc->shape[d]) * stride[d];
        i /= lc->shape[d];
    }
    return off;
}

/* one op on one layout case: compare every element; check the padding was not written */
static void run_case(cute_ew_lib *lib, cute_backend *b, cute_ew_op op, cute_dtype din, cute_dtype dout,
                     const layout_case *lc, const char *backend)
{
    host_tensor A, B, C;
    bool ok = make(b, &A, din, lc, lc->transpose_a, false) && make(b, &B, din, lc, false, false) &&
              make(b, &C, dout, lc, false, true);
    CHECK(ok, "allocation");
    if (!ok) return;
    cute_call_arg a = cute_call_tensor(&A.buf, 0, din, lc->ndim, lc->shape, A.stride);
    cute_call_arg bb = cute_call_tensor(&B.buf, 0, din, lc->ndim, lc->shape, B.stride);
    cute_call_arg c = cute_call_tensor(&C.buf, 0, dout, lc->ndim, lc->shape, C.stride);
    char err[2048];
    cute_status s = cute_ew(lib, op, &c, &a, &bb, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s %s %s->%s %s: %s", backend, cute_ew_op_name(op), cute_dtype_name(din),
          cute_dtype_name(dout), lc->name, err);
    if (s == CUTE_OK) {
        size_t bytes = (size_t)(C.elems ? C.elems : 1) * (size_t)cute_dtype_bytes(dout);
        b->vt->download(b->self, C.host, &C.buf, 0, bytes);
        int64_t n = 1, bad = 0;
        for (int d = 0; d < lc->ndim; d++) n *= lc->shape[d];
        double tol = ew_tolerance(op, dout);
        cute_dtype comp = ew_compute_type(op, din);
        char first[256] = "";
        for (int64_t i = 0; i < n; i++) {
            double x = ew_get(din, A.host, offset_of(lc, A.stride, i));
            double y = ew_get(din, B.host, offset_of(lc, B.stride, i));
            double got = ew_get(dout, C.host, offset_of(lc, C.stride, i));
            double want_d = ew_ref(op, comp, x, y);
            double want = want_d;
            { /* round the reference as the output is rounded */
                uint64_t tmp = 0;
                ew_set(dout, &tmp, 0, want_d);
                want = ew_get(dout, &tmp, 0);
            }
            /* math functions: ulps of max(|want|, 1) (cancellation in gelu near 0) */
            double err_rel = fabs(got - want) / (tol > 0 && fabs(want) < 1 ? 1.0 : fabs(want) > 1e-30 ? fabs(want) : 1.0);
            if (got != want && !(err_rel <= tol) && !(isnan(got) && isnan(want))) {
                if (!bad++)
                    snprintf(first, sizeof first, "element %lld: got %.9g want %.9g (%g, %g)",
                             (long long)i, got, want, x, y);
            }
        }
        /* padding elements keep their poison: the kernel wrote nothing outside the tensor */
        int64_t padded = 0;
        if (lc->pad)
            for (int64_t i = 0; i < C.elems; i++)
                if ((i % (lc->shape[lc->ndim - 1] + lc->pad)) >= lc->shape[lc->ndim - 1] &&
                    !isnan(ew_get(dout, C.host, i)))
                    padded++;
        CHECK(bad == 0 && padded == 0, "%s %s %s->%s %s: %lld of %lld wrong (%s), %lld padding writes",
              backend, cute_ew_op_name(op), cute_dtype_name(din), cute_dtype_name(dout), lc->name,
              (long long)bad, (long long)n, first, (long long)padded);
    }
    drop(b, &A), drop(b, &B), drop(b, &C);
}

static void matrix(cute_runtime *rt, const char *backend, bool full)
{
    cute_ew_lib *lib = cute_ew_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    for (int op = 0; op < CUTE_EW_CAST; op++)
        for (int d = 0; d < 3; d++)
            for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
                /* every op on every dtype at a few shapes; the whole layout matrix for add */
                bool pick = full || op == CUTE_EW_ADD || k == 3 || k == 8;
                if (pick) run_case(lib, b, (cute_ew_op)op, dts[d], dts[d], &cases[k], backend);
            }
    for (int from = 0; from < 3; from++)
        for (int to = 0; to < 3; to++)
            if (from != to) run_case(lib, b, CUTE_EW_CAST, dts[from], dts[to], &cases[3], backend);
    cute_ew_lib_free(lib);
}

/* The same inputs on both backends: bit for bit where the arithmetic is exact (add, sub,
 * mul, div, max, min, relu, neg, abs, casts: IEEE, one rounding), within the math
 * tolerance elsewhere (the interpreter's libm against the GPU's). */
static void cross_backend(cute_runtime *interp, cute_runtime *cuda)
{
    cute_ew_lib *li = cute_ew_lib_new(interp), *lc = cute_ew_lib_new(cuda);
    cute_backend *bi = cute_runtime_backend(interp), *bc = cute_runtime_backend(cuda);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    const layout_case *lcs[] = {&cases[3], &cases[8]};
    for (int op = 0; op < CUTE_EW_COUNT; op++)
        for (int d = 0; d < 3; d++)
            for (int k = 0; k < 2; k++) {
                const layout_case *lc_ = lcs[k];
                cute_dtype din = dts[d], dout = op == CUTE_EW_CAST ? dts[(d + 1) % 3] : din;
                host_tensor A[2], B[2], C[2];
                uint64_t s0 = seed;
                bool ok = true;
                for (int w = 0; w < 2 && ok; w++) { /* the same seed: the same inputs */
                    cute_backend *b = w ? bc : bi;
                    seed = s0;
                    ok = make(b, &A[w], din, lc_, lc_->transpose_a, false) &&
                         make(b, &B[w], din, lc_, false, false) && make(b, &C[w], dout, lc_, false, true);
                }
                CHECK(ok, "allocation");
                if (!ok) continue;
                char err[1024];
                for (int w = 0; w < 2; w++) {
                    cute_backend *b = w ? bc : bi;
                    cute_call_arg a = cute_call_tensor(&A[w].buf, 0, din, lc_->ndim, lc_->shape, A[w].stride);
                    cute_call_arg bb = cute_call_tensor(&B[w].buf, 0, din, lc_->ndim, lc_->shape, B[w].stride);
                    cute_call_arg c = cute_call_tensor(&C[w].buf, 0, dout, lc_->ndim, lc_->shape, C[w].stride);
                    cute_status st = cute_ew(w ? lc : li, (cute_ew_op)op, &c, &a, &bb, NULL, err, sizeof err);
                    if (st == CUTE_OK) st = b->vt->sync(b->self, NULL);
                    CHECK(st == CUTE_OK, "%s: %s", w ? "cuda" : "interp", err);
                    size_t bytes = (size_t)C[w].elems * (size_t)cute_dtype_bytes(dout);
                    b->vt->download(b->self, C[w].host, &C[w].buf, 0, bytes);
                }
                double tol = ew_tolerance((cute_ew_op)op, dout);
                int64_t diff = 0;
                for (int64_t i = 0; i < C[0].elems; i++) {
                    double x = ew_get(dout, C[0].host, i), y = ew_get(dout, C[1].host, i);
                    bool same_bits = !memcmp((char *)C[0].host + i * cute_dtype_bytes(dout),
                                             (char *)C[1].host + i * cute_dtype_bytes(dout),
                                             (size_t)cute_dtype_bytes(dout));
                    double scale = fabs(x) > 1 ? fabs(x) : 1;
                    if (!same_bits && !(tol > 0 && fabs(x - y) <= tol * scale)) diff++;
                }
                CHECK(diff == 0, "interp vs cuda: %s %s->%s %s: %lld elements differ (%s)",
                      cute_ew_op_name((cute_ew_op)op), cute_dtype_name(din), cute_dtype_name(dout),
                      lc_->name, (long long)diff, tol > 0 ? "beyond the tolerance" : "in their bits");
                for (int w = 0; w < 2; w++) {
                    cute_backend *b = w ? bc : bi;
                    drop(b, &A[w]), drop(b, &B[w]), drop(b, &C[w]);
                }
            }
    cute_ew_lib_free(li);
    cute_ew_lib_free(lc);
}

/* bad input: each call fails with a message, nothing crashes */
static void bad_input(cute_runtime *rt)
{
    cute_ew_lib *lib = cute_ew_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer buf;
    b->vt->alloc(b->self, 4096, &buf);
    int64_t shape[2] = {8, 8}, stride[2] = {8, 1}, other[2] = {8, 4};
    cute_call_arg a = cute_call_tensor(&buf, 0, CUTE_F32, 2, shape, stride);
    cute_call_arg wrong_shape = cute_call_tensor(&buf, 0, CUTE_F32, 2, other, stride);
    cute_call_arg wrong_type = cute_call_tensor(&buf, 0, CUTE_F16, 2, shape, stride);
    int64_t big[2] = {64, 64};
    cute_call_arg outside = cute_call_tensor(&buf, 0, CUTE_F32, 2, big, (int64_t[]){64, 1});
    char err[1024];
    CHECK(cute_ew(lib, CUTE_EW_ADD, &a, &a, &wrong_shape, NULL, err, sizeof err) == CUTE_ERR_INVALID &&
              strstr(err, "shape"), "shape mismatch: %s", err);
    CHECK(cute_ew(lib, CUTE_EW_ADD, &a, &a, &wrong_type, NULL, err, sizeof err) == CUTE_ERR_INVALID &&
              strstr(err, "f16"), "dtype mismatch: %s", err);
    CHECK(cute_ew(lib, CUTE_EW_ADD, &outside, &outside, &outside, NULL, err, sizeof err) != CUTE_OK &&
              strstr(err, "outside its buffer"), "tensor past its buffer: %s", err);
    b->vt->free(b->self, &buf);
    cute_ew_lib_free(lib);
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    if (getenv("CUTEC_SEED")) seed = strtoull(getenv("CUTEC_SEED"), NULL, 10) | 1;
    printf("elementwise_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK) {
        matrix(rt, "interp", false);
        bad_input(rt);
        cute_runtime_free(rt);
    } else {
        CHECK(false, "interpreter: %s", err);
    }
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        matrix(rt, "cuda", true);
        bad_input(rt);
        cute_runtime *ri;
        if (cute_runtime_new("interp", &ri, err, sizeof err) == CUTE_OK) {
            cross_backend(ri, rt);
            cute_runtime_free(ri);
        }
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: the elementwise matrix ran on the interpreter only");
    }
    return CHECK_DONE("elementwise_test");
}
