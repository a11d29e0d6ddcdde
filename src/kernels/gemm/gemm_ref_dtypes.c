/* The GEMM reference's dtypes: which result dtypes each input dtype may give, how far a
 * correct kernel's result may lie from the float64 reference, and fresh inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

typedef struct pair_row {
    cute_dtype in;
    int nout;
    cute_dtype out[3]; /* the first is the default */
} pair_row;

static const pair_row pairs[] = {
    {CUTE_F32, 1, {CUTE_F32}},
    {CUTE_F64, 1, {CUTE_F64}},
    {CUTE_F16, 3, {CUTE_F16, CUTE_BF16, CUTE_F32}},
    {CUTE_BF16, 3, {CUTE_BF16, CUTE_F16, CUTE_F32}},
    {CUTE_TF32, 1, {CUTE_F32}},
    {CUTE_I8, 1, {CUTE_I32}},
    {CUTE_E4M3, 3, {CUTE_F32, CUTE_F16, CUTE_BF16}},
    {CUTE_E5M2, 3, {CUTE_F32, CUTE_F16, CUTE_BF16}},
};

bool gemm_ref_out_dtypes(cute_dtype in, const cute_dtype **outs, int *n)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i].in == in) {
            *outs = pairs[i].out, *n = pairs[i].nout;
            return true;
        }
    return false;
}

bool gemm_ref_pair_ok(cute_dtype in, cute_dtype out)
{
    const cute_dtype *outs;
    int n;
    if (!gemm_ref_out_dtypes(in, &outs, &n)) return false;
    for (int i = 0; i < n; i++)
        if (outs[i] == out) return true;
    return false;
}

int gemm_ref_out_text(cute_dtype in, const char *(*name)(cute_dtype), char *buf, size_t n)
{
    const cute_dtype *outs;
    int k, len = 0;
    if (!gemm_ref_out_dtypes(in, &outs, &k)) return snprintf(buf, n, "none");
    if (n) buf[0] = 0;
    for (int i = 0; i < k; i++)
        len += snprintf(buf + (len < (int)n ? len : (int)n), len < (int)n ? n - (size_t)len : 0, "%s%s",
                        i == 0 ? "" : i == k - 1 ? " or " : ", ", name(outs[i]));
    return len;
}

bool gemm_ref_integral(cute_dtype in) { return cute_dtype_is_int(in); }

/* the unit roundoff of the result's dtype: its one rounding of alpha acc + beta C */
static double output_rounding(cute_dtype out)
{
    switch (out) {
    case CUTE_F16: return ldexp(1, -11);
    case CUTE_BF16: return ldexp(1, -8);
    case CUTE_F32: return ldexp(1, -24);
    case CUTE_F64: return ldexp(1, -53);
    default: return 0; /* integers: exact */
    }
}

/* Errors are relative to sum |terms| (gemm_ref_error); the bounds hold for K up to 2^16
 * (tf32, whose mma sums 8 products at a time: 2^15).
 * A wrong kernel (a fragment in the wrong place, a k-tile dropped or counted twice, C
 * missed) moves an element by whole products, about 1/sqrt(K) of sum |terms| for gaussian
 * inputs (2^-6 at K = 4096): far outside every bound.
 *   f32, f64: FMA kernels, f32/f64 accumulation: 1e-5 and 1e-12 as the SGEMM/DGEMM tests.
 *   f16, bf16 (f32 accumulation): a product of two 11- (8-) bit significands is exact in
 *     f32, so the only error before the epilogue is the tensor core's f32 accumulation,
 *     which aligns each k-block's products to the largest and truncates: a few f32 ulps of
 *     sum |terms| per mma, K/16 * 2^-22 <= 2^-10 for K <= 2^16.  The result then rounds
 *     once to C's dtype (2^-11 f16, 2^-8 bf16 of |result| <= sum |terms|).
 *   tf32: the inputs are tf32 values (10-bit fractions), so products are exact in f32 and
 *     the accumulation is f16's with k-blocks of 8: K/8 * 2^-22 <= 2^-10 for K <= 2^15
 *     (+ f32's rounding).
 *   s8 -> s32: integer products and sums are exact (|sum| < 2^31 for K < 2^17); alpha and
 *     beta are integers: 0.
 *   e4m3, e5m2: products of 4- (3-) bit significands are exact; the accumulation as f16's.
 *     Hopper's fp8 tensor cores are reported to keep fewer accumulator bits (about 14):
 *     then 2^-10 still holds for gaussian inputs, whose running sums are about sqrt(K)
 *     times smaller than sum |terms|, though not for adversarial ones. */
double gemm_ref_tolerance(cute_dtype in, cute_dtype out)
{
    if (!gemm_ref_pair_ok(in, out)) return 0;
    switch (in) {
    case CUTE_F32: return 1e-5;
    case CUTE_F64: return 1e-12;
    case CUTE_I8: return 0;
    default: return ldexp(1, -10) + output_rounding(out);
    }
}

/* --- inputs ------------------------------------------------------------------------------ */

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Box-Muller from two uniforms in (0, 1] and [0, 1) */
double gemm_ref_gaussian(uint64_t *state)
{
    double u = (double)((next(state) >> 11) + 1) / 9007199254740992.0;
    double v = (double)(next(state) >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

void gemm_ref_fill(cute_dtype d, void *data, int64_t n, uint64_t *state)
{
    for (int64_t i = 0; i < n; i++)
        ew_set(d, data, i, cute_dtype_is_int(d) ? (double)(int)(next(state) % 256) - 128
                                                : gemm_ref_gaussian(state));
}

/* elements [i, i + 4) of data (fewer at its end): pool entries picked by r's four 16-bit
 * fields (es: the element's bytes) */
static void pick4(unsigned char *data, int64_t i, int64_t n, const unsigned char *pool, size_t es, uint64_t r)
{
    for (int64_t j = i; j < i + 4 && j < n; j++, r >>= 16) memcpy(data + (size_t)j * es, pool + (r & 0xffff) * es, es);
}

/* the same for 2-byte elements, the usual case, whole groups of 4 without a bound */
static void pick4_16(uint16_t *data, int64_t groups, const uint16_t *pool, uint64_t *state)
{
    for (int64_t g = 0; g < groups; g++) {
        uint64_t r = next(state);
        data[4 * g] = pool[r & 0xffff], data[4 * g + 1] = pool[r >> 16 & 0xffff];
        data[4 * g + 2] = pool[r >> 32 & 0xffff], data[4 * g + 3] = pool[r >> 48];
    }
}

void gemm_ref_fill_pooled(cute_dtype d, void *data, int64_t n, uint64_t *state)
{
    enum { POOL = 1 << 16 };
    size_t es = (size_t)cute_dtype_bytes(d);
    unsigned char *pool = cute_dtype_bits(d) % 8 == 0 && n > POOL ? malloc(POOL * es) : NULL;
    if (!pool) {
        gemm_ref_fill(d, data, n, state);
        return;
    }
    gemm_ref_fill(d, pool, POOL, state);
    int64_t i = 0;
    if (es == 2) pick4_16(data, n / 4, (const uint16_t *)(void *)pool, state), i = n / 4 * 4;
    for (; i < n; i += 4) pick4(data, i, n, pool, es, next(state));
    free(pool);
}
