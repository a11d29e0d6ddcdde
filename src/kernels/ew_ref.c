/* The elementwise CPU reference and element access on the host. */
#include <math.h>
#include <string.h>

#include "cutec/cuda_c.h"
#include "cutec/numeric.h"
#include "ew_ref.h"

static double f16_value(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
    double v;
    if (exp == 0)
        v = ldexp(man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexp(man + 1024, exp - 25);
    return sign ? -v : v;
}

static double bf16_value(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

double ew_get(cute_dtype d, const void *base, int64_t i)
{
    switch (d) {
    case CUTE_F32: return ((const float *)base)[i];
    case CUTE_F64: return ((const double *)base)[i];
    case CUTE_F16: return f16_value(((const uint16_t *)base)[i]);
    case CUTE_BF16: return bf16_value(((const uint16_t *)base)[i]);
    case CUTE_I32: return ((const int32_t *)base)[i];
    case CUTE_I8: return ((const int8_t *)base)[i];
    case CUTE_TF32: return ((const float *)base)[i];
    case CUTE_E4M3: return cute_e4m3_to_f32(((const uint8_t *)base)[i]);
    case CUTE_E5M2: return cute_e5m2_to_f32(((const uint8_t *)base)[i]);
    default: return NAN;
    }
}

void ew_set(cute_dtype d, void *base, int64_t i, double v)
{
    switch (d) {
    case CUTE_F32: ((float *)base)[i] = (float)v; break;
    case CUTE_F64: ((double *)base)[i] = v; break;
    /* from the double directly: one rounding, as the kernels' f32 result is exact in double */
    case CUTE_F16: ((uint16_t *)base)[i] = cute_f16_bits(v); break;
    case CUTE_BF16: ((uint16_t *)base)[i] = cute_bf16_bits(v); break;
    case CUTE_I32: ((int32_t *)base)[i] = (int32_t)v; break;
    case CUTE_I8: ((int8_t *)base)[i] = (int8_t)v; break;
    case CUTE_TF32: ((float *)base)[i] = cute_f64_to_tf32(v); break;
    case CUTE_E4M3: ((uint8_t *)base)[i] = cute_f64_to_e4m3(v); break;
    case CUTE_E5M2: ((uint8_t *)base)[i] = cute_f64_to_e5m2(v); break;
    default: break;
    }
}

cute_dtype ew_compute_type(cute_ew_op op, cute_dtype d)
{
    if (op == CUTE_EW_CAST) return d;
    return d == CUTE_F16 || d == CUTE_BF16 ? CUTE_F32 : d;
}

double ew_ref(cute_ew_op op, cute_dtype compute, double a, double b)
{
    bool f32 = compute == CUTE_F32;
#define R(x) (f32 ? (double)(float)(x) : (x))
    switch (op) {
    case CUTE_EW_ADD: return R(a + b);
    case CUTE_EW_SUB: return R(a - b);
    case CUTE_EW_MUL: return R(a * b);
    case CUTE_EW_DIV: return R(a / b);
    case CUTE_EW_MAX: return a > b ? a : b;
    case CUTE_EW_MIN: return a < b ? a : b;
    case CUTE_EW_RELU: return a > 0 ? a : 0;
    case CUTE_EW_GELU: return 0.5 * a * (1 + erf(a * 0.70710678118654752440));
    case CUTE_EW_SILU: return a / (1 + exp(-a));
    case CUTE_EW_EXP: return exp(a);
    case CUTE_EW_NEG: return -a;
    case CUTE_EW_ABS: return fabs(a);
    case CUTE_EW_CAST:
    case CUTE_EW_COUNT: break;
    }
#undef R
    return a;
}

double ew_tolerance(cute_ew_op op, cute_dtype out)
{
    double ulp = out == CUTE_F16 ? 1.0 / 1024 : out == CUTE_BF16 ? 1.0 / 128 : out == CUTE_F64 ? 1e-15 : 1.0 / 8388608;
    switch (op) {
    case CUTE_EW_GELU:
    case CUTE_EW_SILU:
    case CUTE_EW_EXP: return 4 * ulp; /* math functions: a few ulp of the result */
    default: return 0;                /* IEEE-exact ops rounded once */
    }
}

double ew_random(uint64_t *s)
{
    for (;;) {
        *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
        double v = (double)(*s >> 11) / 9007199254740992.0 * 4.0 - 2.0;
        if (v != 0) return v;
    }
}
