/* The paired 16-bit arithmetic rows under the interpreter (fma/min/max/neg .f16x2 and
 * .bf16x2): each 32-bit operand is two lanes, lane 0 the low half, computed as the PTX ISA
 * defines them.  fma rounds once: the exact a b + c is taken to double with round-to-odd
 * (the product of two 16-bit floats is exact in double; the sum's error is recovered
 * exactly), whose rounding to 16 bits is then the correctly rounded result (53 bits >= 11
 * + 2, Boldo and Melquiond). */
#include <math.h>
#include <string.h>

#include "cutec/numeric.h"
#include "interp/interp_internal.h"

#define CANONICAL_NAN 0x7fffu

static double widen(bool bf, uint32_t h)
{
    return bf ? cute_bf16_to_f32((uint16_t)h) : cute_f16_to_f32((uint16_t)h);
}

/* p + c (p exact) in double, rounded to odd: the neighbour whose last bit is 1 when the
 * rounded sum is not exact */
static double sum_to_odd(double p, double c)
{
    double s = p + c, v = s - p, err = (p - (s - v)) + (c - v); /* TwoSum: s + err = p + c */
    uint64_t bits;
    memcpy(&bits, &s, 8);
    if (err == 0 || !isfinite(s) || (bits & 1)) return s;
    bits += (err > 0) == (s > 0) ? 1 : (uint64_t)-1; /* the other neighbour of p + c */
    memcpy(&s, &bits, 8);
    return s;
}

static uint32_t lane_fma(bool bf, uint32_t a, uint32_t b, uint32_t c)
{
    double r = sum_to_odd(widen(bf, a) * widen(bf, b), widen(bf, c));
    if (r != r) return CANONICAL_NAN;
    return bf ? cute_f64_to_bf16(r) : cute_f64_to_f16(r);
}

/* min (!max) or max: (a < b) ? a : b, as PTX defines it; NaN lanes give the other */
static uint32_t lane_minmax(bool bf, bool max, uint32_t a, uint32_t b)
{
    double x = widen(bf, a), y = widen(bf, b);
    if (x != x && y != y) return CANONICAL_NAN;
    if (x != x) return b;
    if (y != y) return a;
    return (max ? x > y : x < y) ? a : b;
}

static uint32_t lane(const irow *R, uint32_t a, uint32_t b, uint32_t c)
{
    bool bf = R->types[0] == E_BF16;
    switch (R->num) {
    case HALF2_FMA: return lane_fma(bf, a, b, c);
    case HALF2_MIN: return lane_minmax(bf, false, a, b);
    case HALF2_MAX: return lane_minmax(bf, true, a, b);
    default: return a ^ 0x8000u; /* HALF2_NEG */
    }
}

void inst_half2(ictx *X, const dinst *d, const imask *m)
{
    int nin = d->row->num == HALF2_NEG ? 1 : d->row->num == HALF2_FMA ? 3 : 2;
    EACH(X, m, t, {
        uint32_t in[3] = {0, 0, 0}, out = 0;
        for (int k = 0; k < nin; k++) in[k] = interp_get32(X, d, (uint32_t)(1 + k), t);
        for (int h = 0; h < 2; h++)
            out |= (lane(d->row, in[0] >> (16 * h) & 0xffffu, in[1] >> (16 * h) & 0xffffu,
                         in[2] >> (16 * h) & 0xffffu) & 0xffffu) << (16 * h);
        interp_put32(X, d, 0, t, out);
    });
}
