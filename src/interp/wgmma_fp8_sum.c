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
int interp_wgmma_fp8_emin(int type) { return type == E_E4M3 ? -6 : type == E_E5M2 ? -14 : -126; }

/* mag 2^e0 with the bits below 2^keep dropped (toward zero), as a double */
static double drop_below(uint64_t mag, int e0, int keep)
{
    int drop = keep - e0;
    if (drop > 0) mag = drop >= 64 ? 0 : mag >> drop << drop;
    return ldexp((double)mag, e0);
}

/* c + a.b (n products) as an fp8 wgmma's f32 result; false (nothing written) for sums the
 * rule does not cover: a non-finite term, or every term zero (IEEE's signed zeros) */
bool interp_wgmma_fp8_sum(double c, const interp_tc_vec *a, const interp_tc_vec *b, int n, float *out)
{
    int64_t S;
    int e0;
    if (!interp_tc_sum(c, a, b, n, FP8_SUM_BITS, &S, &e0)) return false;
    int emax = e0 + FP8_SUM_BITS;
    uint64_t mag = S < 0 ? 0 - (uint64_t)S : (uint64_t)S;
    int esum = mag ? e0 + 63 - __builtin_clzll(mag) : emax;
    double v = drop_below(mag, e0, (esum > emax ? esum : emax) - FP8_SUM_BITS);
    *out = (float)(S < 0 ? -v : v);
    return true;
}
