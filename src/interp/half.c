/* f16 and bf16 as raw bits: exact widening, and rounding to nearest even from any exact
 * value (a significand, a power of two and a sticky bit), which serves every narrowing
 * conversion: from f32, f64, integers, and fma computed exactly in double. */
#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"

/* the NaN the H200 gives converting from f32 (cvt.rn.f16.f32 and .bf16.f32) and from f64
 * (cvt.rn.f16.f64: 0x7e00, bf16: 0x7fc0), measured with src/interp/gpu/hw_probe.cu */
#define NAN_FROM_F32 0x7fffu
static const uint16_t nan_from_f64[2] = {0x7e00u, 0x7fc0u};

/* the small formats: exponent and fraction widths */
static const struct {
    int ebits, mbits;
} fmt[2] = {{5, 10}, {8, 7}};

/* Round sign * m * 2^e (m != 0) to the format, nearest even; `sticky` says nonzero bits
 * were dropped below m (the value is a little larger in magnitude). */
static uint16_t round_small(int small, int sign, uint64_t m, int e, bool sticky)
{
    int ebits = fmt[small].ebits, mbits = fmt[small].mbits;
    int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    int lz = __builtin_clzll(m);
    m <<= lz; /* m in [2^63, 2^64): the value is 1.f * 2^E */
    e -= lz;
    int E = e + 63;
    int q = (E > emin ? E : emin) - mbits; /* the exponent of one unit in the last place */
    int shift = q - e;                    /* > 0: m's low `shift` bits fall below the unit */
    uint64_t units, rem, half;
    if (shift >= 65) {
        units = 0, rem = 1, half = 2; /* below half a unit */
    } else if (shift == 64) {
        units = 0, rem = m, half = 1ull << 63;
    } else {
        units = m >> shift;
        rem = m & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    if (rem > half || (rem == half && (sticky || (units & 1)))) units++;
    /* a normal value's units carry the implicit bit into the exponent field */
    uint32_t bits = E >= emin ? (uint32_t)((E + bias - 1) << mbits) + (uint32_t)units
                              : (uint32_t)units;
    uint32_t inf = ((1u << ebits) - 1) << mbits;
    if (bits >= inf) bits = inf;
    return (uint16_t)(bits | (uint32_t)sign << (ebits + mbits));
}

static uint16_t from_f64(int small, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int sign = (int)(b >> 63);
    int ef = (int)(b >> 52) & 0x7ff;
    uint64_t mf = b & ((1ull << 52) - 1);
    int ebits = fmt[small].ebits, mbits = fmt[small].mbits;
    uint16_t sbit = (uint16_t)(sign << (ebits + mbits));
    if (ef == 0x7ff) return mf ? nan_from_f64[small] : sbit | (((1u << ebits) - 1) << mbits);
    if (ef == 0 && mf == 0) return sbit;
    if (ef == 0) return round_small(small, sign, mf, -1074, false);
    return round_small(small, sign, mf | (1ull << 52), ef - 1075, false);
}

static uint16_t from_f32(int small, float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    int sign = (int)(b >> 31);
    int ef = (int)(b >> 23) & 0xff;
    uint32_t mf = b & ((1u << 23) - 1);
    int ebits = fmt[small].ebits, mbits = fmt[small].mbits;
    uint16_t sbit = (uint16_t)(sign << (ebits + mbits));
    if (ef == 0xff) return mf ? NAN_FROM_F32 : sbit | (((1u << ebits) - 1) << mbits);
    if (ef == 0 && mf == 0) return sbit;
    if (ef == 0) return round_small(small, sign, mf, -149, false);
    return round_small(small, sign, mf | (1u << 23), ef - 150, false);
}

uint16_t cute_f32_to_f16(float x) { return from_f32(0, x); }
uint16_t cute_f64_to_f16(double x) { return from_f64(0, x); }
uint16_t cute_f32_to_bf16(float x) { return from_f32(1, x); }
uint16_t cute_f64_to_bf16(double x) { return from_f64(1, x); }

float cute_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, b;
    if (e == 0x1f) {
        b = m ? 0x7fffffffu : sign | 0x7f800000u; /* NaN: the canonical one, as the GPU */
    } else if (e) {
        b = sign | ((e + 112) << 23) | (m << 13);
    } else {
        float f = (float)m * 0x1p-24f; /* subnormal (or zero): exact */
        memcpy(&b, &f, sizeof b);
        b |= sign;
    }
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

float cute_bf16_to_f32(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

uint16_t interp_small_from_int(int small, int64_t v, bool is_unsigned)
{
    if (v == 0) return 0;
    uint64_t m = is_unsigned ? (uint64_t)v : v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int sign = !is_unsigned && v < 0;
    return round_small(small, sign, m, 0, false);
}

/* a*b+c rounded once: the product of two small floats is exact in double, and the sum's
 * rounding error (two-sum) decides ties the first rounding would have hidden */
uint16_t interp_small_fma(int small, float a, float b, float c)
{
    double p = (double)a * (double)b, s = p + (double)c;
    if (s != s) return NAN_FROM_F32; /* the GPU's f16/bf16 fma gives the f32-style NaN */
    if (!isfinite(s) || s == 0) return from_f64(small, s); /* inf, an exact zero */
    double bb = s - p, err = (p - (s - bb)) + ((double)c - bb);
    if (err == 0) return from_f64(small, s);
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    int sign = (int)(bits >> 63), ef = (int)(bits >> 52) & 0x7ff;
    uint64_t m = bits & ((1ull << 52) - 1);
    int e = ef ? ef - 1075 : -1074;
    if (ef) m |= 1ull << 52;
    /* the exact value is s + err, |err| <= half an ulp of s: write it as m' * 2^e + a bit */
    if ((err > 0) != (s > 0)) m -= 1; /* smaller in magnitude: one unit less, plus sticky */
    if (m == 0) return from_f64(small, s); /* cannot happen for nonzero s; be safe */
    return round_small(small, sign, m, e, true);
}
