/* An fp8 wgmma's sum (e4m3 / e5m2 inputs, f32 accumulators) as the GH100's tensor cores form
 * it, fitted bit for bit to every result of src/interp/hw_wgmma_cases.h (10 recordings of
 * src/interp/gpu/hw_wgmma.cu on an H200, 2026-11-26: m64n8/16/32k32, every pairing of the two
 * types, 11,264 f32 results):
 *   - the 32 products are exact; emax is the largest of c's exponent and every nonzero
 *     product's a-exponent plus b-exponent (each no lower than its type's least normal
 *     exponent: e4m3 -6, e5m2 -14), as mma.sync aligns (inst_mma.c), but
 *   - each term, c and the products, is truncated toward zero at 2^(emax - 13), not 2^(emax
 *     - 25): the fp8 datapath keeps 14 bits where mma.sync keeps 26, and the truncated terms
 *     add exactly;
 *   - that sum is truncated toward zero once more, at 2^(e - 13) where e is the larger of
 *     emax and the sum's own exponent (a carry out of emax costs one more bit), then is an
 *     f32.
 * This is the "about 14 bits" DeepSeek-V3 reports of the H800's fp8 accumulation; it is why
 * fp8 GEMMs promote partial sums to f32 every few k-steps. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/interp_internal.h"

enum { FP8_SUM_BITS = 13 }; /* fraction bits kept below the alignment exponent */

/* the least normal exponent an element of `type` aligns by (e4m3 -6, e5m2 -14, else f32's) */
static int emin_of(int type) { return type == E_E4M3 ? -6 : type == E_E5M2 ? -14 : -126; }

/* the largest alignment exponent of the terms; false when every term is zero */
static bool emax_of(double c, const double *a, const double *b, int n, int ta, int tb, int *emax)
{
    bool any = c != 0;
    *emax = c != 0 ? interp_align_exp(c, -126) : INT32_MIN;
    for (int k = 0; k < n; k++)
        if (a[k] * b[k] != 0) {
            int e = interp_align_exp(a[k], emin_of(ta)) + interp_align_exp(b[k], emin_of(tb));
            if (e > *emax) *emax = e;
            any = true;
        }
    return any;
}

/* mag 2^e0 with the bits below 2^keep dropped (toward zero), as a double */
static double drop_below(uint64_t mag, int e0, int keep)
{
    int drop = keep - e0;
    if (drop > 0) mag = drop >= 64 ? 0 : mag >> drop << drop;
    return ldexp((double)mag, e0);
}

/* c + a.b (n products) as an fp8 wgmma's f32 result; false (nothing written) for sums the
 * rule does not cover: a non-finite term, or every term zero (IEEE's signed zeros) */
bool interp_wgmma_fp8_sum(double c, const double *a, const double *b, int n, int ta, int tb, float *out)
{
    int emax;
    if (!isfinite(c) || !emax_of(c, a, b, n, ta, tb, &emax)) return false;
    int e0 = emax - FP8_SUM_BITS;
    double scale = interp_pow2(-e0); /* exact; the conversion truncates toward zero */
    int64_t S = (int64_t)(c * scale);
    for (int k = 0; k < n; k++) {
        double t = a[k] * b[k];
        if (!isfinite(t)) return false;
        S += (int64_t)(t * scale);
    }
    uint64_t mag = S < 0 ? 0 - (uint64_t)S : (uint64_t)S;
    int esum = mag ? e0 + 63 - __builtin_clzll(mag) : emax;
    double v = drop_below(mag, e0, (esum > emax ? esum : emax) - FP8_SUM_BITS);
    *out = (float)(S < 0 ? -v : v);
    return true;
}
