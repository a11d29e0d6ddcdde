/* tf32, float8 (e4m3, e5m2), float4 (e2m1) and the scale types (ue8m0, ue4m3): the host
 * conversions of numeric.c against a reference written from the formats' definitions:
 *  - every code's value from sign * 2^(e - bias) * (1 + m / 2^M) (subnormal: e = 1, no
 *    implicit one), and values every reader knows (448, 57344, 6, 2^-9, 2^-127 ...);
 *  - rounding by scanning every finite value for the nearest (ties to the even code), which
 *    is .satfinite by construction: beyond the largest value the nearest one is the largest;
 *  - on every midpoint between neighbours, one f32 ulp and one f64 ulp either side (an f64
 *    rounded through f32 would land on the midpoint and tie the wrong way), the
 *    neighbours, the overflow threshold, infinities, NaN, signed zeros, subnormals of both
 *    sides, and random f32s and f64s;
 *  - tf32 (cvt.rna: ties away from zero) against floor(|x| / ulp + 1/2) in double;
 *  - ue8m0 (cvt.rp) against the smallest power of two at or above |x|. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"

typedef struct fmt {
    const char *name;
    int ebits, mbits;
    uint8_t (*from32)(float);
    uint8_t (*from64)(double);
    float (*to32)(uint8_t);
    int ncodes;       /* 256, or 16 for e2m1 */
    bool ieee;        /* the top exponent holds inf and NaN (e5m2) */
    bool fn;          /* only all-ones is NaN, no infinity (e4m3) */
    bool relu;        /* unsigned: negatives give 0, the sign bit is not a sign (ue4m3) */
    uint8_t nan_code; /* what a NaN input gives */
} fmt;

static const fmt E4M3 = {"e4m3", 4, 3, cute_f32_to_e4m3, cute_f64_to_e4m3, cute_e4m3_to_f32, 256, false, true, false, 0x7f};
static const fmt E5M2 = {"e5m2", 5, 2, cute_f32_to_e5m2, cute_f64_to_e5m2, cute_e5m2_to_f32, 256, true, false, false, 0x7f};
static const fmt E2M1 = {"e2m1", 2, 1, cute_f32_to_e2m1, cute_f64_to_e2m1, cute_e2m1_to_f32, 16, false, false, false, 0x7};
static const fmt UE4M3 = {"ue4m3", 4, 3, cute_f32_to_ue4m3, cute_f64_to_ue4m3, cute_ue4m3_to_f32, 128, false, true, true, 0x7f};

/* the value of a code from the definition (NaN for NaN codes) */
static double value(const fmt *f, unsigned code)
{
    unsigned sign = f->relu ? 0 : code >> (f->ebits + f->mbits) & 1;
    unsigned e = code >> f->mbits & ((1u << f->ebits) - 1), m = code & ((1u << f->mbits) - 1);
    unsigned etop = (1u << f->ebits) - 1, mtop = (1u << f->mbits) - 1;
    int bias = (1 << (f->ebits - 1)) - 1;
    if (f->ieee && e == etop) return m ? NAN : sign ? -INFINITY : INFINITY;
    if (f->fn && e == etop && m == mtop) return NAN;
    double v = e ? ldexp(1.0 + ldexp(m, -f->mbits), (int)e - bias) : ldexp(m, 1 - bias - f->mbits);
    return sign ? -v : v;
}

static int magnitude_codes(const fmt *f) { return f->relu ? f->ncodes : f->ncodes / 2; }

/* x rounded by scanning every finite non-negative code for the nearest value */
static uint8_t ref_round(const fmt *f, double x)
{
    if (x != x) return f->nan_code;
    if (f->relu && !(x > 0)) return 0;
    double a = fabs(x);
    int best = 0;
    for (int c = 1; c < magnitude_codes(f); c++) {
        double v = value(f, (unsigned)c);
        if (v != v || isinf(v)) continue;
        double d = fabs(a - v), db = fabs(a - value(f, (unsigned)best));
        /* equal distances: a tie when a lies between the two (the even code wins), else
         * double lost the difference of two values far below a (the larger is nearer) */
        if (d < db || (d == db && (v < a || c % 2 == 0))) best = c;
    }
    unsigned sbit = !f->relu && signbit(x) ? (unsigned)f->ncodes / 2 : 0;
    return (uint8_t)(sbit | (unsigned)best);
}

static bool same_f32(float got, double want)
{
    if (want != want) {
        uint32_t b;
        memcpy(&b, &got, 4);
        return b == 0x7fffffffu; /* the canonical NaN */
    }
    return (double)got == want && !signbit(got) == !signbit(want);
}

/* every code decodes to its value; every finite code survives the trip back */
static void decoding(const fmt *f)
{
    int bad = 0, bad_trip = 0;
    for (int c = 0; c < f->ncodes; c++) {
        double want = value(f, (unsigned)c);
        float got = f->to32((uint8_t)c);
        if (!same_f32(got, want) && bad++ < 5)
            fprintf(stderr, "%s %02x: %a, want %a\n", f->name, c, got, want);
        if (isfinite(want) && f->from32(got) != c) bad_trip++; /* satfinite: inf is not made */
    }
    CHECK(bad == 0, "%s: %d of %d codes decode wrongly", f->name, bad, f->ncodes);
    CHECK(bad_trip == 0, "%s: %d codes do not round-trip", f->name, bad_trip);
}

static int printed; /* the first few differences are shown */

static int check_one(const fmt *f, double x, bool also32)
{
    int bad = 0;
    uint8_t want = ref_round(f, x);
    if (f->from64(x) != want && ++bad && printed++ < 10)
        fprintf(stderr, "%s from f64 %a: %02x want %02x\n", f->name, x, f->from64(x), want);
    if (also32 && (double)(float)x == x && f->from32((float)x) != want && ++bad && printed++ < 10)
        fprintf(stderr, "%s from f32 %a: %02x want %02x\n", f->name, x, f->from32((float)x), want);
    return bad;
}

/* midpoints, one ulp either side, neighbours; both signs */
static void ties(const fmt *f)
{
    int bad = 0, n = 0;
    for (int c = 0; c + 1 < magnitude_codes(f); c++) {
        double a = value(f, (unsigned)c), b = value(f, (unsigned)c + 1), mid = (a + b) / 2;
        if (b != b || isinf(b)) continue;
        for (int s = 0; s < 2; s++) {
            double m = s ? -mid : mid;
            double x[7] = {m, nextafterf((float)m, INFINITY), nextafterf((float)m, -INFINITY),
                           nextafter(m, INFINITY), nextafter(m, -INFINITY), s ? -a : a, s ? -b : b};
            for (int k = 0; k < 7; k++, n++) bad += check_one(f, x[k], true);
        }
    }
    CHECK(bad == 0, "%s: %d of %d ties and neighbours round wrongly", f->name, bad, n);
}

/* overflow (satfinite), infinities, NaN, zeros, what underflows */
static void edges(const fmt *f)
{
    double mx = 0, tiny = value(f, 1);
    for (int c = 0; c < magnitude_codes(f); c++)
        if (isfinite(value(f, (unsigned)c))) mx = fmax(mx, value(f, (unsigned)c));
    double x[] = {mx, mx * 1.0625, mx * 1.125, mx * 1.1875, mx * 2, 1e30, 1e300, FLT_MAX, INFINITY,
                  NAN, 0.0, tiny / 2, nextafter(tiny / 2, 1), tiny / 4, tiny * 0.75, 0x1p-149,
                  DBL_MIN, 0x1p-1074, 1, 1.5, 3, 5, 7};
    int bad = 0, n = (int)(sizeof x / sizeof *x);
    for (int k = 0; k < n; k++) bad += check_one(f, x[k], true) + check_one(f, -x[k], true);
    CHECK(bad == 0, "%s: %d of %d edge cases wrong", f->name, bad, 2 * n);
    CHECK(f->from32(-0.0f) == (f->relu ? 0 : f->ncodes / 2), "%s: -0 gives %02x", f->name, f->from32(-0.0f));
    CHECK(f->from32(NAN) == f->nan_code && f->from32(-NAN) == f->nan_code, "%s: NaN", f->name);
}

static uint32_t rnd32(void) { return (uint32_t)rand() << 17 ^ (uint32_t)rand() << 3 ^ (uint32_t)rand(); }

static void randoms(const fmt *f)
{
    int bad = 0, n = 20000;
    for (int i = 0; i < n; i++) {
        uint32_t u = (rnd32() & 0x807fffffu) | (uint32_t)(127 - 20 + rand() % 40) << 23;
        float x;
        memcpy(&x, &u, 4);
        uint64_t v = (uint64_t)rnd32() << 32 | rnd32();
        v = (v & 0x800fffffffffffffull) | (uint64_t)(1023 - 20 + rand() % 40) << 52;
        double y;
        memcpy(&y, &v, 8);
        bad += check_one(f, x, true) + check_one(f, y, false);
    }
    CHECK(bad == 0, "%s: %d of %d random conversions differ", f->name, bad, 2 * n);
}

/* values everyone can check by hand */
static void anchors(void)
{
    CHECK(cute_e4m3_to_f32(0x7e) == 448 && cute_e4m3_to_f32(0x01) == 0x1p-9f, "e4m3 448, 2^-9");
    CHECK(cute_e4m3_to_f32(0x38) == 1 && cute_e4m3_to_f32(0xb8) == -1, "e4m3 +-1");
    CHECK(cute_e5m2_to_f32(0x7b) == 57344 && cute_e5m2_to_f32(0x01) == 0x1p-16f, "e5m2 57344, 2^-16");
    CHECK(cute_e5m2_to_f32(0x3c) == 1 && isinf(cute_e5m2_to_f32(0xfc)), "e5m2 1, -inf");
    static const float e2m1[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    int bad = 0;
    for (int c = 0; c < 16; c++) bad += cute_e2m1_to_f32((uint8_t)c) != (c & 8 ? -e2m1[c & 7] : e2m1[c & 7]);
    CHECK(bad == 0, "e2m1's 16 values");
    CHECK(cute_e2m1_to_f32(0xf3) == 1.5f, "e2m1 reads the low nibble");
    CHECK(cute_f32_to_e4m3(1e9f) == 0x7e && cute_f32_to_e4m3(-INFINITY) == 0xfe, "e4m3 satfinite");
    CHECK(cute_f32_to_e5m2(INFINITY) == 0x7b && cute_f32_to_e5m2(-1e9f) == 0xfb, "e5m2 satfinite");
    CHECK(cute_f32_to_e2m1(NAN) == 0x7 && cute_f32_to_e2m1(-100) == 0xf, "e2m1 NaN gives +6");
    CHECK(cute_f32_to_e4m3(464) == 0x7e && cute_f32_to_e4m3(0x1p-10f) == 0, "e4m3 ties: 464, 2^-10");
    CHECK(cute_f32_to_e4m3(0x1.8p-10f) == 0x01 && cute_f32_to_e4m3(-0x1p-11f) == 0x80, "e4m3 subnormals");
    CHECK(cute_f32_to_ue4m3(-3) == 0 && cute_f32_to_ue4m3(3) == 0x44 && cute_ue4m3_to_f32(0xc4) == 3, "ue4m3");
}

/* tf32: round to 10 fraction bits, ties away from zero, kept as an f32 */
static float ref_tf32(double x)
{
    if (x != x) return NAN;
    if (x == 0 || isinf(x)) return (float)x;
    int k;
    frexp(x, &k);                           /* |x| in [2^(k-1), 2^k) */
    double ulp = ldexp(1, (k - 1 > -126 ? k - 1 : -126) - 10);
    double r = floor(fabs(x) / ulp + 0.5) * ulp; /* exact: fewer than 53 bits */
    if (r >= 0x1p128) r = INFINITY;         /* past the largest tf32: cvt.rna overflows */
    return (float)(x < 0 ? -r : r);
}

/* a tf32 NaN: the sign kept, 0x7fffe000 (the H200's cvt.rna.tf32.f32) */
static bool tf32_nan_ok(float got, double x)
{
    uint32_t b;
    memcpy(&b, &got, 4);
    return b == ((signbit(x) ? 0x80000000u : 0) | 0x7fffe000u);
}

static int tf32_bad(double x, bool also32)
{
    float want = ref_tf32(x);
    if (x != x)
        return !tf32_nan_ok(cute_f64_to_tf32(x), x) + (also32 && !tf32_nan_ok(cute_f32_to_tf32((float)x), x));
    int bad = !same_f32(cute_f64_to_tf32(x), want);
    if (also32 && (double)(float)x == x) bad += !same_f32(cute_f32_to_tf32((float)x), want);
    if (bad && printed++ < 10) fprintf(stderr, "tf32 of %a: %a want %a\n", x, cute_f64_to_tf32(x), want);
    return bad;
}

static void tf32(void)
{
    int bad = 0, n = 0;
    for (int i = 0; i < 20000; i++, n += 6) {
        uint32_t u = rnd32() & ~0x7ffu; /* near ties and exactly on them */
        if (i % 3 == 0) u = (u & ~0x1fffu) | 0x1000u;
        float x;
        memcpy(&x, &u, 4);
        bad += tf32_bad(x, true) + tf32_bad(nextafterf(x, INFINITY), true);
        bad += tf32_bad(nextafter(x, INFINITY), false) + tf32_bad(nextafter(x, -INFINITY), false);
        uint64_t v = (uint64_t)rnd32() << 32 | rnd32();
        double y;
        memcpy(&y, &v, 8);
        bad += tf32_bad(y, false);
    }
    double x[] = {0x1.002p0, -0x1.002p0, 0x1.006p0, FLT_MAX, 0x1.ffep127, 0x1p-149, 0x1.8p-136,
                  0x1p-137, 0x1.0000001p-137, INFINITY, -0.0, NAN, 1e300, 1e-300};
    for (size_t k = 0; k < sizeof x / sizeof *x; k++, n++) bad += tf32_bad(x[k], true);
    CHECK(bad == 0, "tf32: %d of %d wrong", bad, n);
    uint32_t b;
    float t = cute_f32_to_tf32(0x1.002p0f);
    memcpy(&b, &t, 4);
    CHECK(b == 0x3f802000u, "a tie goes away from zero: %08x", b);
    t = cute_f32_to_tf32(FLT_MAX);
    CHECK(isinf(t), "FLT_MAX overflows to infinity");
}

/* ue8m0: the smallest power of two at or above |x|, 2^-127 .. 2^127; NaN 0xff */
static uint8_t ref_ue8m0(double x)
{
    if (x != x) return 0xff;
    for (int c = 0; c < 254; c++)
        if (ldexp(1, c - 127) >= fabs(x)) return (uint8_t)c;
    return 254;
}

static void ue8m0(void)
{
    int bad = 0;
    for (int c = 0; c < 256; c++)
        bad += !same_f32(cute_ue8m0_to_f32((uint8_t)c), c == 255 ? NAN : ldexp(1, c - 127));
    CHECK(bad == 0, "ue8m0: %d codes decode wrongly", bad);
    bad = 0;
    for (int c = 0; c < 255; c++) {
        double p = ldexp(1, c - 127);
        double x[6] = {p, nextafter(p, 0), nextafter(p, INFINITY), p * 0.75, -p, -p * 1.5};
        for (int k = 0; k < 6; k++) {
            bad += cute_f64_to_ue8m0(x[k]) != ref_ue8m0(x[k]);
            bad += (double)(float)x[k] == x[k] && cute_f32_to_ue8m0((float)x[k]) != ref_ue8m0(x[k]);
        }
    }
    CHECK(bad == 0, "ue8m0: %d conversions wrong", bad);
    CHECK(cute_f32_to_ue8m0(INFINITY) == 0xfe && cute_f64_to_ue8m0(1e300) == 0xfe, "satfinite: 2^127");
    CHECK(cute_f32_to_ue8m0(NAN) == 0xff && cute_f32_to_ue8m0(0) == 0 && cute_f32_to_ue8m0(3) == 0x81,
          "NaN, 0, 3 -> 4");
}

int main(void)
{
    srand(13);
    anchors();
    const fmt *fs[] = {&E4M3, &E5M2, &E2M1, &UE4M3};
    for (int i = 0; i < 4; i++) {
        decoding(fs[i]);
        ties(fs[i]);
        edges(fs[i]);
        randoms(fs[i]);
    }
    tf32();
    ue8m0();
    return CHECK_DONE("interp numeric");
}
