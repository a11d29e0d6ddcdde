/* The software conversions the generated CUDA C uses where PTX has no cvt for a narrow float
 * (cuda_c_narrow_sw.h), compiled here as host C from the same macros, against
 * include/cutec/numeric.h: f32 inputs whose top 23 bits run through every pattern (every
 * rounding boundary of these formats lies there), each with its low 9 bits zero (the ties)
 * and random; tf32 ties; and every code's widening. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/numeric.h"
#include "interp/interp_testkit.h" /* kt_small */

typedef int32_t i32;
typedef uint32_t u32;
typedef float f32;
#define CUTE_DEV static
static u32 cute_f2u(f32 x)
{
    u32 u;
    memcpy(&u, &x, 4);
    return u;
}
static f32 cute_u2f(u32 u)
{
    f32 x;
    memcpy(&x, &u, 4);
    return x;
}
#include "backend/cuda_c_narrow_sw.h"
CC_SW_ROUND
CC_SW_WIDEN
CC_SW_TF32
CC_SW_UE8M0
CC_SW_UE8M0_F32

static bool same_bits(float a, float b) { return cute_f2u(a) == cute_f2u(b); }

static void one(uint32_t u, int *bad)
{
    float x = cute_u2f(u);
    bad[0] += cute_sw_round(x, 4, 3, 0x7e, 0x7f) != cute_f32_to_e4m3(x);
    bad[1] += cute_sw_round(x, 5, 2, 0x7b, 0x7f) != cute_f32_to_e5m2(x);
    bad[2] += cute_sw_round(x, 2, 1, 0x7, 0x7) != cute_f32_to_e2m1(x);
    bad[3] += cute_sw_ue8m0(x) != cute_f32_to_ue8m0(x);
    bad[4] += !same_bits(cute_sw_tf32(x), cute_f32_to_tf32(x));
    float tie = cute_u2f((u & ~0x1fffu) | 0x1000u); /* a tf32 tie */
    bad[5] += !same_bits(cute_sw_tf32(tie), cute_f32_to_tf32(tie));
}

static void rounding(uint32_t step)
{
    int bad[6] = {0};
    /* every sign and exponent with the fractions at the edges (0, 1, half, all ones) */
    static const uint32_t fr[] = {0, 1, 2, 0x3fffff, 0x400000, 0x400001, 0x7ffffe, 0x7fffff};
    for (uint32_t se = 0; se < 512; se++)
        for (int k = 0; k < 8; k++) one(se << 23 | fr[k], bad);
    for (uint32_t k = 0; k < (1u << 23); k += step)
        for (int random_low = 0; random_low < 2; random_low++)
            one(k << 9 | (random_low ? (k * 2654435761u) >> 23 : 0), bad);
    static const char *names[6] = {"e4m3", "e5m2", "e2m1", "ue8m0", "tf32", "tf32 ties"};
    for (int k = 0; k < 6; k++) CHECK(bad[k] == 0, "%s: %d f32 inputs round differently", names[k], bad[k]);
}

static void widening(void)
{
    int bad = 0;
    for (u32 v = 0; v < 256; v++) {
        bad += !same_bits(cute_sw_widen(v, 4, 3, 1), cute_e4m3_to_f32((uint8_t)v));
        bad += v < 16 && !same_bits(cute_sw_widen(v, 2, 1, 0), cute_e2m1_to_f32((uint8_t)v));
        bad += !same_bits(cute_sw_ue8m0_f32(v), cute_ue8m0_to_f32((uint8_t)v));
    }
    CHECK(bad == 0, "%d codes widen differently", bad);
}

int main(void)
{
    /* all 2^23 patterns; the sanitizer build every 8th */
    rounding(kt_small() ? 8 : 1);
    widening();
    return CHECK_DONE("backend narrow_sw");
}
