/* The narrow floats' conversions in software, for GPUs without the PTX cvt (float8 before
 * sm_89, float4 and ue8m0 before sm_100a): one source for two compilers.  The generated
 * CUDA C gets these functions as text (CC_STR); narrow_sw_test.c compiles the same macros
 * as host C and checks them against include/cutec/numeric.h bit for bit.
 *
 * Each macro is one function.  It needs u32, i32, f32, CUTE_DEV and the bit casts
 * cute_f2u/cute_u2f.  Comments inside are stripped before stringizing. */
#ifndef CUTEC_CUDA_C_NARROW_SW_H
#define CUTEC_CUDA_C_NARROW_SW_H

#define CC_STR_(...) #__VA_ARGS__
#define CC_STR(...) CC_STR_(__VA_ARGS__)

/* x to a float of eb exponent and mb fraction bits (mb <= 10), nearest even, saturating
 * at the code maxfin (.satfinite), NaN giving the code nan; f32 subnormals are below half
 * the smallest such format's smallest value, so they give a signed zero */
#define CC_SW_ROUND                                                                        \
    CUTE_DEV u32 cute_sw_round(f32 x, i32 eb, i32 mb, u32 maxfin, u32 nan)                 \
    {                                                                                      \
        u32 u = cute_f2u(x), a = u & 0x7fffffffu, sign = (u >> 31) << (eb + mb);           \
        if (a > 0x7f800000u) return nan;                                                   \
        i32 E = (i32)(a >> 23) - 127, bias = (1 << (eb - 1)) - 1, emin = 1 - bias;         \
        if (E < -126) return sign;                                                         \
        i32 shift = (E > emin ? E : emin) - mb - (E - 23); /* bits below the unit */       \
        if (shift >= 25) return sign;                      /* under half the unit */       \
        u32 m = (a & 0x7fffffu) | 0x800000u;                                               \
        u32 units = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);  \
        if (rem > half || (rem == half && (units & 1u))) units++;                          \
        u32 bits = E >= emin ? ((u32)(E + bias - 1) << mb) + units : units;                \
        return sign | (bits > maxfin ? maxfin : bits);                                     \
    }

/* the f32 of a code; nan_all_ones: e4m3's one NaN code (else no NaN: e2m1) */
#define CC_SW_WIDEN                                                                        \
    CUTE_DEV f32 cute_sw_widen(u32 v, i32 eb, i32 mb, i32 nan_all_ones)                    \
    {                                                                                      \
        u32 e = (v >> mb) & ((1u << eb) - 1u), m = v & ((1u << mb) - 1u);                  \
        u32 sign = ((v >> (eb + mb)) & 1u) << 31;                                          \
        if (nan_all_ones && e == (1u << eb) - 1u && m == (1u << mb) - 1u)                  \
            return cute_u2f(0x7fffffffu);                                                  \
        i32 bias = (1 << (eb - 1)) - 1;                                                    \
        f32 sub = (f32)m * cute_u2f((u32)(127 + 1 - bias - mb) << 23);                     \
        u32 mag = e ? (e + 127u - (u32)bias) << 23 | m << (23 - mb) : cute_f2u(sub);       \
        return cute_u2f(sign | mag);                                                       \
    }

/* cvt.rna.tf32.f32: 10 fraction bits, ties away from zero, overflow to infinity */
#define CC_SW_TF32                                                                         \
    CUTE_DEV f32 cute_sw_tf32(f32 x)                                                       \
    {                                                                                      \
        u32 u = cute_f2u(x);                                                               \
        if ((u & 0x7fffffffu) > 0x7f800000u) return cute_u2f((u & 0x80000000u) | 0x7fffe000u); \
        if ((u & 0x7f800000u) == 0x7f800000u) return x;                                    \
        return cute_u2f((u + 0x1000u) & ~0x1fffu); /* a carry may reach infinity */        \
    }

/* cvt.rp.satfinite.ue8m0x2.f32: |x| up to a power of two, 2^-127 .. 2^127, NaN 0xff */
#define CC_SW_UE8M0                                                                        \
    CUTE_DEV u32 cute_sw_ue8m0(f32 x)                                                      \
    {                                                                                      \
        u32 a = cute_f2u(x) & 0x7fffffffu, e = a >> 23, m = a & 0x7fffffu;                 \
        if (a > 0x7f800000u) return 0xffu;                                                 \
        if (e == 0) return m > 0x400000u ? 1u : 0u; /* 2^-127 is the f32 0x00400000 */     \
        e += m != 0;                                                                       \
        return e > 254u ? 254u : e;                                                        \
    }

#define CC_SW_UE8M0_F32                                                                    \
    CUTE_DEV f32 cute_sw_ue8m0_f32(u32 v)                                                  \
    {                                                                                      \
        return cute_u2f(v == 0xffu ? 0x7fffffffu : v ? v << 23 : 0x400000u);               \
    }

#endif
