/* Checking a GEMV call before anything compiles, so that a wrong argument is named in words
 * ("x has K = 12 but A has K = 8") rather than as a spec mismatch; and the batched, normal
 * form the kernels take. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "kernels/gemv/gemv_internal.h"

/* the stride given to a mode of extent 1 (never stepped): a multiple of every vector's
 * element count, so that it contradicts no divisibility a spec promises */
#define NEVER_STEPPED 128

cute_status gemv_invalid(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return CUTE_ERR_INVALID;
}

/* a tensor of rank `rank` or `rank + 1` (batched), extents >= 0 */
static cute_status operand(const cute_call_arg *t, const char *name, int rank, char *err, size_t n)
{
    if (!t || t->kind != CUTE_ARG_TENSOR || !t->buf)
        return gemv_invalid(err, n, "gemv: %s is not a tensor", name);
    if (t->ndim != rank && t->ndim != rank + 1)
        return gemv_invalid(err, n, "gemv: %s has rank %d (%d, or %d for a batch)", name, t->ndim,
                            rank, rank + 1);
    for (int m = 0; m < t->ndim; m++)
        if (t->shape[m] < 0)
            return gemv_invalid(err, n, "gemv: %s has a negative extent %lld in mode %d", name,
                                (long long)t->shape[m], m);
    return CUTE_OK;
}

/* t with a batch mode of extent 1 appended when it has none (its stride: any, never stepped) */
static cute_call_arg batched(const cute_call_arg *t, int rank)
{
    cute_call_arg b = *t;
    if (b.ndim == rank) b.ndim = rank + 1, b.shape[rank] = 1, b.stride[rank] = NEVER_STEPPED;
    return b;
}

/* a vector (K[,L]) as one of a set of vectors (K,1,L) */
static cute_call_arg one_vector(const cute_call_arg *t)
{
    cute_call_arg b = batched(t, 1);
    b.ndim = 3;
    b.shape[2] = b.shape[1], b.stride[2] = b.stride[1];
    b.shape[1] = 1, b.stride[1] = NEVER_STEPPED;
    return b;
}

static cute_status shapes(const gemv_operands *o, char *err, size_t n)
{
    const cute_call_arg *A = &o->A, *x = &o->x, *y = &o->y;
    if (x->shape[0] != A->shape[1])
        return gemv_invalid(err, n,
                            "gemv: K mismatch: A (M,K) has K = %lld but x has %lld elements",
                            (long long)A->shape[1], (long long)x->shape[0]);
    if (y->shape[0] != A->shape[0])
        return gemv_invalid(err, n,
                            "gemv: M mismatch: A (M,K) has M = %lld but y has %lld elements",
                            (long long)A->shape[0], (long long)y->shape[0]);
    if (x->shape[2] != A->shape[2] || y->shape[2] != A->shape[2])
        return gemv_invalid(err, n, "gemv: batch mismatch: A, x and y have L = %lld, %lld and %lld",
                            (long long)A->shape[2], (long long)x->shape[2], (long long)y->shape[2]);
    if (y->shape[1] != x->shape[1])
        return gemv_invalid(err, n, "gemv: x holds %lld vectors but y %lld", (long long)x->shape[1],
                            (long long)y->shape[1]);
    if (x->shape[1] < 1 || x->shape[1] > CUTE_GEMV_MAX_MMA_VECTORS)
        return gemv_invalid(err, n, "gemv: %lld vectors (1 to %d at once)", (long long)x->shape[1],
                            CUTE_GEMV_MAX_MMA_VECTORS);
    return CUTE_OK;
}

static cute_status dtypes(const cute_call_arg *A, const cute_call_arg *x, const cute_call_arg *y,
                          char *err, size_t n)
{
    cute_dtype d = (cute_dtype)A->dtype, yd = (cute_dtype)y->dtype;
    if (d != CUTE_F32 && d != CUTE_F16 && d != CUTE_BF16 && d != CUTE_E4M3 && d != CUTE_E2M1)
        return gemv_invalid(err, n, "gemv: A is %s (f32, f16, bf16, e4m3; e2m1 block-scaled)",
                            cute_dtype_name(d));
    if (x->dtype != A->dtype)
        return gemv_invalid(err, n, "gemv: x is %s but A is %s (one input dtype)",
                            cute_dtype_name((cute_dtype)x->dtype), cute_dtype_name(d));
    if (yd != CUTE_F32 && yd != CUTE_F16 && yd != CUTE_BF16)
        return gemv_invalid(err, n, "gemv: y is %s (f32, f16 or bf16)", cute_dtype_name(yd));
    return CUTE_OK;
}

/* the largest power of two up to 128 dividing v (v = 0: 128) */
static int pow2_dividing(uint64_t v)
{
    int a = 128;
    while (a > 1 && v % (uint64_t)a) a /= 2;
    return a;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* A's unit-stride mode (a mode of extent 1 takes any stride: it becomes 1), or -1; the
 * K-major kernel when both would do */
static int unit_mode(cute_call_arg *A)
{
    for (int m = 1; m >= 0; m--)
        if (A->stride[m] == 1 || A->shape[m] <= 1) {
            A->stride[m] = 1;
            return m;
        }
    return -1;
}

/* the bits every vector access may be (up to 128): what A's address, its stepped strides
 * and its unit-stride extent allow, and for the K-major kernel x's likewise (in bits: e2m1
 * elements are half a byte) */
static int vector_bits(const gemv_operands *o)
{
    const cute_call_arg *A = &o->A, *x = &o->x;
    uint64_t eb = (uint64_t)cute_dtype_bits((cute_dtype)A->dtype);
    int other = 1 - o->major;
    int b = 8 * cute_call_arg_alignment(A, 16);
    if (A->shape[other] > 1) b = min_int(b, pow2_dividing((uint64_t)A->stride[other] * eb));
    if (A->shape[2] > 1) b = min_int(b, pow2_dividing((uint64_t)A->stride[2] * eb));
    b = min_int(b, pow2_dividing((uint64_t)A->shape[o->major] * eb));
    if (o->major == 1) {
        b = min_int(b, 8 * cute_call_arg_alignment(x, 16));
        for (int m = 1; m < 3; m++)
            if (x->shape[m] > 1) b = min_int(b, pow2_dividing((uint64_t)x->stride[m] * eb));
    }
    return b;
}

static cute_status layouts(gemv_operands *o, char *err, size_t n)
{
    int eb = cute_dtype_bits((cute_dtype)o->A.dtype);
    o->major = unit_mode(&o->A);
    if (o->major < 0)
        return gemv_invalid(err, n, "gemv: A has strides (%lld,%lld): one mode must have stride 1",
                            (long long)o->A.stride[0], (long long)o->A.stride[1]);
    bool empty = o->A.shape[0] == 0 || o->A.shape[1] == 0 || o->A.shape[2] == 0;
    for (int m = 0; m < 3 && !empty; m++)
        if (o->A.stride[m] < 1 && o->A.shape[m] > 1)
            return gemv_invalid(err, n, "gemv: A has a %s stride in mode %d",
                                o->A.stride[m] ? "negative" : "zero", m);
    if (o->x.shape[0] > 1 && o->x.stride[0] != 1)
        return gemv_invalid(err, n, "gemv: x has stride %lld along K (it must be contiguous: 1)",
                            (long long)o->x.stride[0]);
    o->x.stride[0] = 1;
    /* strides never stepped (extent 1) promise any alignment the specs ask */
    int other = 1 - o->major;
    if (o->A.shape[other] <= 1 || empty) o->A.stride[other] = NEVER_STEPPED;
    if (o->A.shape[2] <= 1 || empty) o->A.stride[2] = NEVER_STEPPED;
    for (int m = 1; m < 3; m++)
        if (o->x.shape[m] <= 1) o->x.stride[m] = NEVER_STEPPED;
    for (int m = 0; m < 3; m++)
        if (o->y.shape[m] > 1 && o->y.stride[m] < 1)
            return gemv_invalid(err, n, "gemv: y has a %s stride in mode %d",
                                o->y.stride[m] ? "negative" : "zero", m);
    int b = vector_bits(o);
    if (b < eb || b < 8)
        return gemv_invalid(
            err, n, "gemv: A or x is not aligned to its %d-bit elements (address or stride)", eb);
    o->vec = b / eb;
    return CUTE_OK;
}

cute_status gemv_check(const cute_call_arg *A, const cute_call_arg *x, const cute_call_arg *y,
                       bool vectors, double alpha, double beta, gemv_operands *o, char *err,
                       size_t n)
{
    int vr = vectors ? 2 : 1; /* x's and y's rank without a batch */
    cute_status s = operand(A, "A", 2, err, n);
    if (s == CUTE_OK) s = operand(x, "x", vr, err, n);
    if (s == CUTE_OK) s = operand(y, "y", vr, err, n);
    if (s != CUTE_OK) return s;
    int want = A->ndim - 2 + vr;
    if (x->ndim != want || y->ndim != want)
        return gemv_invalid(err, n, "gemv: A has rank %d, so x and y need rank %d (got %d and %d)",
                            A->ndim, want, x->ndim, y->ndim);
    s = dtypes(A, x, y, err, n);
    if (s != CUTE_OK) return s;
    if (!isfinite(alpha) || !isfinite(beta))
        return gemv_invalid(err, n, "gemv: alpha (%g) and beta (%g) must be finite", alpha, beta);
    o->A = batched(A, 2);
    o->x = vectors ? batched(x, 2) : one_vector(x);
    o->y = vectors ? batched(y, 2) : one_vector(y);
    s = shapes(o, err, n);
    return s == CUTE_OK ? layouts(o, err, n) : s;
}
