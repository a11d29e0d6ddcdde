/* The narrow number types as raw bits (include/cutec/numeric.h).  One rounding serves every
 * format and every narrowing: the input is written as an exact significand, a power of two
 * and a sticky bit (f32, f64, integers, fma computed exactly in double), and rounded to the
 * format described by a row of `fmts`.  The rows say what differs between formats: widths,
 * the largest finite code, what overflow gives (infinity, or the largest finite code under
 * PTX's .satfinite) and how ties go. */
#include <math.h>
#include <string.h>

#include "cutec/numeric.h"
#include "interp/interp_internal.h"

typedef enum { NAN_IEEE, NAN_ALL_ONES, NAN_NONE } nan_kind;

typedef struct narrow_fmt {
    int ebits, mbits;
    uint32_t maxfin;   /* the largest finite magnitude's code */
    uint32_t overflow; /* the code of a magnitude beyond it: infinity, or maxfin (satfinite) */
    bool ties_away;    /* cvt.rna (tf32); all others round ties to even */
    nan_kind nan;      /* IEEE: the top exponent is inf/NaN; ALL_ONES: e4m3's one NaN code */
} narrow_fmt;

/* F16 and BF16 first: interp_small_* take 0 and 1 */
enum { F16, BF16, TF32, E4M3, E5M2, E2M1, E2M3, E3M2 };
static const narrow_fmt fmts[] = {
    [F16] = {5, 10, 0x7bff, 0x7c00, false, NAN_IEEE},
    [BF16] = {8, 7, 0x7f7f, 0x7f80, false, NAN_IEEE},
    [TF32] = {8, 10, 0x3fbff, 0x3fc00, true, NAN_IEEE}, /* its code is an f32's top 19 bits */
    [E4M3] = {4, 3, 0x7e, 0x7e, false, NAN_ALL_ONES},
    [E5M2] = {5, 2, 0x7b, 0x7b, false, NAN_IEEE},
    [E2M1] = {2, 1, 0x7, 0x7, false, NAN_NONE},
    [E2M3] = {2, 3, 0x1f, 0x1f, false, NAN_NONE},
    [E3M2] = {3, 2, 0x1f, 0x1f, false, NAN_NONE},
};

/* the NaN the H200 gives converting from f32 (cvt.rn.f16.f32 and .bf16.f32) and from f64
 * (cvt.rn.f16.f64: 0x7e00, bf16: 0x7fc0), measured with src/interp/gpu/hw_probe.cu */
#define NAN_FROM_F32 0x7fffu
static const uint16_t nan_from_f64[2] = {0x7e00u, 0x7fc0u};

/* Round sign * m * 2^e (m != 0) to the format; `sticky` says nonzero bits were dropped
 * below m (the value is a little larger in magnitude). */
static uint32_t round_to(const narrow_fmt *f, int sign, uint64_t m, int e, bool sticky)
{
    int bias = (1 << (f->ebits - 1)) - 1, emin = 1 - bias;
    int lz = __builtin_clzll(m);
    m <<= lz; /* m in [2^63, 2^64): the value is 1.f * 2^E */
    e -= lz;
    int E = e + 63;
    int q = (E > emin ? E : emin) - f->mbits; /* the exponent of one unit in the last place */
    int shift = q - e;                       /* > 0: m's low `shift` bits fall below the unit */
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
    if (f->ties_away ? rem >= half : rem > half || (rem == half && (sticky || (units & 1))))
        units++;
    /* a normal value's units carry the implicit bit into the exponent field */
    uint32_t bits = E >= emin ? (uint32_t)((E + bias - 1) << f->mbits) + (uint32_t)units
                              : (uint32_t)units;
    if (bits > f->maxfin) bits = f->overflow;
    return bits | (uint32_t)sign << (f->ebits + f->mbits);
}

/* x rounded to the format; `nan` is the code a NaN gives */
static uint32_t from_f64(const narrow_fmt *f, double x, uint32_t nan)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int sign = (int)(b >> 63);
    int ef = (int)(b >> 52) & 0x7ff;
    uint64_t mf = b & ((1ull << 52) - 1);
    uint32_t sbit = (uint32_t)sign << (f->ebits + f->mbits);
    if (ef == 0x7ff) return mf ? nan : sbit | f->overflow;
    if (ef == 0 && mf == 0) return sbit;
    if (ef == 0) return round_to(f, sign, mf, -1074, false);
    return round_to(f, sign, mf | (1ull << 52), ef - 1075, false);
}

uint16_t cute_f32_to_f16(float x) { return (uint16_t)from_f64(&fmts[F16], x, NAN_FROM_F32); }
uint16_t cute_f64_to_f16(double x) { return (uint16_t)from_f64(&fmts[F16], x, nan_from_f64[0]); }
uint16_t cute_f32_to_bf16(float x) { return (uint16_t)from_f64(&fmts[BF16], x, NAN_FROM_F32); }
uint16_t cute_f64_to_bf16(double x) { return (uint16_t)from_f64(&fmts[BF16], x, nan_from_f64[1]); }

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
    return (uint16_t)round_to(&fmts[small], sign, m, 0, false);
}

/* a*b+c rounded once: the product of two small floats is exact in double, and the sum's
 * rounding error (two-sum) decides ties the first rounding would have hidden */
uint16_t interp_small_fma(int small, float a, float b, float c)
{
    const narrow_fmt *f = &fmts[small];
    double p = (double)a * (double)b, s = p + (double)c;
    if (s != s) return NAN_FROM_F32; /* the GPU's f16/bf16 fma gives the f32-style NaN */
    if (!isfinite(s) || s == 0) return (uint16_t)from_f64(f, s, 0); /* inf, an exact zero */
    double bb = s - p, err = (p - (s - bb)) + ((double)c - bb);
    if (err == 0) return (uint16_t)from_f64(f, s, 0);
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    int sign = (int)(bits >> 63), ef = (int)(bits >> 52) & 0x7ff;
    uint64_t m = bits & ((1ull << 52) - 1);
    int e = ef ? ef - 1075 : -1074;
    if (ef) m |= 1ull << 52;
    /* the exact value is s + err, |err| <= half an ulp of s: write it as m' * 2^e + a bit */
    if ((err > 0) != (s > 0)) m -= 1; /* smaller in magnitude: one unit less, plus sticky */
    if (m == 0) return (uint16_t)from_f64(f, s, 0); /* cannot happen for nonzero s; be safe */
    return (uint16_t)round_to(f, sign, m, e, true);
}

/* --- tf32, float8, float4 ----------------------------------------------------------------- */

static float f32_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* the f32 of a code: the exponent rebiased and the fraction moved up; subnormals scaled */
static float widen(const narrow_fmt *f, uint32_t v)
{
    uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
    uint32_t sign = (v >> (f->ebits + f->mbits)) & 1, e = (v >> f->mbits) & emask, m = v & mmask;
    int bias = (1 << (f->ebits - 1)) - 1;
    if ((f->nan == NAN_IEEE && e == emask && m) || (f->nan == NAN_ALL_ONES && e == emask && m == mmask))
        return f32_of_bits(0x7fffffffu);
    if (f->nan == NAN_IEEE && e == emask) return f32_of_bits(sign << 31 | 0x7f800000u);
    float mag = e ? f32_of_bits((e - (uint32_t)bias + 127) << 23 | m << (23 - f->mbits))
                  : (float)m * ldexpf(1, 1 - bias - f->mbits); /* exact: a power of two */
    return sign ? -mag : mag;
}

/* a NaN keeps its sign and becomes 0x7fffe000 (cvt.rna.tf32.f32 of 0x7fffffff on the H200;
 * the hardware keeps an input NaN's upper payload bits, which a double cannot carry here) */
float cute_f64_to_tf32(double x)
{
    if (x != x) return f32_of_bits((signbit(x) ? 0x80000000u : 0) | 0x7fffe000u);
    return f32_of_bits(from_f64(&fmts[TF32], x, 0) << 13);
}
float cute_f32_to_tf32(float x) { return cute_f64_to_tf32(x); }

uint8_t cute_f64_to_e4m3(double x) { return (uint8_t)from_f64(&fmts[E4M3], x, 0x7f); }
uint8_t cute_f32_to_e4m3(float x) { return cute_f64_to_e4m3(x); }
float cute_e4m3_to_f32(uint8_t v) { return widen(&fmts[E4M3], v); }

uint8_t cute_f64_to_e5m2(double x) { return (uint8_t)from_f64(&fmts[E5M2], x, 0x7f); }
uint8_t cute_f32_to_e5m2(float x) { return cute_f64_to_e5m2(x); }
float cute_e5m2_to_f32(uint8_t v) { return widen(&fmts[E5M2], v); }

/* e2m1 has no NaN: .satfinite makes one the positive maximum */
uint8_t cute_f64_to_e2m1(double x) { return (uint8_t)from_f64(&fmts[E2M1], x, 0x7); }
uint8_t cute_f32_to_e2m1(float x) { return cute_f64_to_e2m1(x); }
float cute_e2m1_to_f32(uint8_t v) { return widen(&fmts[E2M1], v & 0xfu); }

/* the 6-bit floats (tcgen05.mma kind::f8f6f4's): no infinity, no NaN */
float cute_e2m3_to_f32(uint8_t v) { return widen(&fmts[E2M3], v & 0x3fu); }
float cute_e3m2_to_f32(uint8_t v) { return widen(&fmts[E3M2], v & 0x3fu); }

/* ue4m3: e4m3 with .relu (a negative value, -0 included, gives +0) */
uint8_t cute_f64_to_ue4m3(double x) { return x != x ? 0x7f : x > 0 ? cute_f64_to_e4m3(x) : 0; }
uint8_t cute_f32_to_ue4m3(float x) { return cute_f64_to_ue4m3(x); }
float cute_ue4m3_to_f32(uint8_t v) { return widen(&fmts[E4M3], v & 0x7fu); }

/* ue8m0 rounds the magnitude up to a power of two (cvt.rp), 2^-127 to 2^127: the exponent
 * of the next power of two at or above |x| */
uint8_t cute_f64_to_ue8m0(double x)
{
    if (x != x) return 0xff;
    if (isinf(x)) return 254; /* .satfinite */
    int k;
    double fr = frexp(fabs(x), &k); /* |x| = fr * 2^k, fr in [0.5, 1) */
    if (fr == 0) return 0;
    int e = (fr == 0.5 ? k - 1 : k) + 127;
    return (uint8_t)(e < 0 ? 0 : e > 254 ? 254 : e);
}
uint8_t cute_f32_to_ue8m0(float x) { return cute_f64_to_ue8m0(x); }
float cute_ue8m0_to_f32(uint8_t v)
{
    if (v == 0xff) return f32_of_bits(0x7fffffffu);
    return v ? f32_of_bits((uint32_t)v << 23) : 0x1p-127f; /* 2^-127 is an f32 subnormal */
}

uint32_t cute_narrow_encode(cute_dtype d, double v)
{
    switch (d) {
    case CUTE_TF32: {
        float f = cute_f64_to_tf32(v);
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    case CUTE_E4M3: return cute_f64_to_e4m3(v);
    case CUTE_E5M2: return cute_f64_to_e5m2(v);
    case CUTE_E2M1: return cute_f64_to_e2m1(v);
    case CUTE_UE8M0: return cute_f64_to_ue8m0(v);
    default: return cute_f64_to_ue4m3(v);
    }
}

float cute_narrow_decode(cute_dtype d, uint32_t code)
{
    switch (d) {
    case CUTE_TF32: return f32_of_bits(code);
    case CUTE_E4M3: return cute_e4m3_to_f32((uint8_t)code);
    case CUTE_E5M2: return cute_e5m2_to_f32((uint8_t)code);
    case CUTE_E2M1: return cute_e2m1_to_f32((uint8_t)code);
    case CUTE_UE8M0: return cute_ue8m0_to_f32((uint8_t)code);
    default: return cute_ue4m3_to_f32((uint8_t)code);
    }
}

/* the value of a slot of dtype dt as a double (printf, the trace, narrow-float math) */
double interp_slot_f64(islot s, int dt)
{
    switch (dt) {
    case CUTE_TF32: case CUTE_E4M3: case CUTE_E5M2: case CUTE_E2M1: case CUTE_UE8M0:
    case CUTE_UE4M3: return cute_narrow_decode((cute_dtype)dt, s.u32);
    case CUTE_F16: return cute_f16_to_f32(s.u16);
    case CUTE_BF16: return cute_bf16_to_f32(s.u16);
    case CUTE_F32: return s.f32;
    case CUTE_F64: return s.f64;
    case CUTE_I1: return s.u8;
    case CUTE_I8: return s.i8;
    case CUTE_I16: return s.i16;
    case CUTE_I32: return s.i32;
    case CUTE_I64: return (double)s.i64;
    case CUTE_U8: return s.u8;
    case CUTE_U16: return s.u16;
    case CUTE_U32: return s.u32;
    default: return (double)s.u64;
    }
}
