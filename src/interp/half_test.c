/* f16 and bf16: the conversions and arithmetic against a reference written independently
 * of numeric.c: a format's values are decoded with ldexp, and rounding picks the nearer of the
 * two neighbouring values found by binary search over the (monotonic) bit patterns, ties
 * to the even pattern.
 *  - every one of the 65536 patterns of each format widens exactly and round-trips;
 *  - f32 -> f16/bf16 on every midpoint between neighbours, one f32 ulp either side, the
 *    neighbours themselves, and random f32s;
 *  - f64 -> f16/bf16 on midpoints one f64 ulp either side (where rounding through f32
 *    would go wrong) and random doubles; integers;
 *  - f16/bf16 add, mul, div and fma run by the interpreter, against the reference applied
 *    to the exact result (fma exact in __float128 where the compiler has it), including an
 *    fma whose f32 rounding would land on a tie;
 *  - and values measured on an H200 (see the table). */
#include <float.h>
#include <inttypes.h>

#include "interp/interp_testkit.h"

typedef struct fmt {
    const char *name;
    int ebits, mbits;
    uint16_t maxfin, inf;
} fmt;
static const fmt F16 = {"f16", 5, 10, 0x7bff, 0x7c00}, BF16 = {"bf16", 8, 7, 0x7f7f, 0x7f80};

/* the value of a pattern, from the definition */
static double decode(const fmt *f, uint16_t h)
{
    int sign = h >> (f->ebits + f->mbits), e = (h >> f->mbits) & ((1 << f->ebits) - 1);
    int m = h & ((1 << f->mbits) - 1), bias = (1 << (f->ebits - 1)) - 1;
    double v;
    if (e == (1 << f->ebits) - 1) return m ? NAN : sign ? -INFINITY : INFINITY;
    if (e == 0)
        v = ldexp(m, 1 - bias - f->mbits);
    else
        v = ldexp(m + (1 << f->mbits), e - bias - f->mbits);
    return sign ? -v : v;
}

#ifdef __SIZEOF_FLOAT128__
typedef __float128 wide;
#else
typedef long double wide;
#endif

/* round x to the format: binary search for the neighbours among positive patterns */
static uint16_t ref_round(const fmt *f, wide x)
{
    if (x != x) return 0x7fff;
    bool neg = x < 0 || (x == 0 && signbit((double)x)); /* -0 too */
    uint16_t sign = neg ? (uint16_t)(1u << (f->ebits + f->mbits)) : 0;
    wide a = x < 0 ? -x : x;
    /* the value after maxfin, as if the exponent went on: overflow is rounding to it */
    wide beyond = (wide)decode(f, f->maxfin) + ((wide)decode(f, f->maxfin) - (wide)decode(f, f->maxfin - 1));
    if (a >= beyond) return sign | f->inf;
    uint32_t lo = 0, hi = (uint32_t)f->maxfin + 1; /* largest pattern with value <= a */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if ((wide)decode(f, (uint16_t)mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    wide vlo = decode(f, (uint16_t)lo), vhi = lo == f->maxfin ? beyond : (wide)decode(f, (uint16_t)(lo + 1));
    uint32_t pick;
    if (a - vlo < vhi - a)
        pick = lo;
    else if (a - vlo > vhi - a)
        pick = lo + 1;
    else
        pick = lo & 1 ? lo + 1 : lo;
    return (uint16_t)(sign | (pick > f->maxfin ? f->inf : pick));
}

static uint16_t conv32(const fmt *f, float x) { return f == &F16 ? cute_f32_to_f16(x) : cute_f32_to_bf16(x); }
static uint16_t conv64(const fmt *f, double x) { return f == &F16 ? cute_f64_to_f16(x) : cute_f64_to_bf16(x); }
static float widen(const fmt *f, uint16_t h) { return f == &F16 ? cute_f16_to_f32(h) : cute_bf16_to_f32(h); }

static void exhaustive(const fmt *f)
{
    int bad_widen = 0, bad_trip = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float w = widen(f, (uint16_t)h);
        double want = decode(f, (uint16_t)h);
        if (want != want ? w == w : (double)w != want || !signbit(w) != !signbit(want)) bad_widen++;
        uint16_t back = conv32(f, w);
        if (back != (want != want ? 0x7fff : h)) bad_trip++;
    }
    CHECK(bad_widen == 0, "%s: %d patterns widen wrongly", f->name, bad_widen);
    CHECK(bad_trip == 0, "%s: %d patterns do not round-trip", f->name, bad_trip);
}

/* midpoints between neighbours and one ulp either side, from f32 and f64 */
static void ties(const fmt *f)
{
    int bad32 = 0, bad64 = 0, n = 0;
    for (uint32_t h = 0; h < f->maxfin; h++) {
        double a = decode(f, (uint16_t)h), b = decode(f, (uint16_t)(h + 1)), mid = (a + b) / 2;
        for (int s = 0; s < 2; s++) {
            double sg = s ? -1 : 1;
            float x32[5] = {(float)(sg * mid), nextafterf((float)(sg * mid), INFINITY),
                            nextafterf((float)(sg * mid), -INFINITY), (float)(sg * a), (float)(sg * b)};
            double x64[2] = {nextafter(sg * mid, INFINITY), nextafter(sg * mid, -INFINITY)};
            for (int k = 0; k < 5; k++, n++)
                if (conv32(f, x32[k]) != ref_round(f, x32[k]) && bad32++ < 5)
                    fprintf(stderr, "%s from f32 %a: %04x want %04x\n", f->name, x32[k],
                            conv32(f, x32[k]), ref_round(f, x32[k]));
            for (int k = 0; k < 2; k++, n++)
                if (conv64(f, x64[k]) != ref_round(f, x64[k]) && bad64++ < 5)
                    fprintf(stderr, "%s from f64 %a: %04x want %04x\n", f->name, x64[k],
                            conv64(f, x64[k]), ref_round(f, x64[k]));
        }
    }
    /* the overflow threshold and beyond, the smallest subnormal's half */
    double mx = decode(f, f->maxfin), ulp = mx - decode(f, f->maxfin - 1), tiny = decode(f, 1);
    double edge[8] = {mx + ulp / 2, nextafter(mx + ulp / 2, 0), mx + ulp, 1e300, tiny / 2,
                      nextafter(tiny / 2, 1), tiny / 4, DBL_MIN};
    for (int k = 0; k < 8; k++, n++) {
        bad64 += conv64(f, edge[k]) != ref_round(f, edge[k]);
        bad32 += (float)edge[k] == edge[k] && conv32(f, (float)edge[k]) != ref_round(f, (float)edge[k]);
    }
    CHECK(bad32 == 0 && bad64 == 0, "%s: %d f32 and %d f64 ties/edges round wrongly (of %d)",
          f->name, bad32, bad64, n);
}

static uint32_t rnd32(void) { return (uint32_t)rand() << 17 ^ (uint32_t)rand() << 3 ^ (uint32_t)rand(); }

static void randoms(const fmt *f)
{
    int n = kt_small() ? 100000 : 400000, bad = 0;
    srand(5);
    for (int i = 0; i < n; i++) {
        uint32_t u = rnd32();
        /* keep most exponents near the format's range */
        if (i % 2) u = (u & 0x807fffffu) | ((uint32_t)(127 - 30 + rand() % 50) << 23);
        float x;
        memcpy(&x, &u, 4);
        bad += conv32(f, x) != ref_round(f, x);
        uint64_t v = (uint64_t)rnd32() << 32 | rnd32();
        v = (v & 0x800fffffffffffffull) | ((uint64_t)(1023 - 30 + rand() % 50) << 52);
        double y;
        memcpy(&y, &v, 8);
        bad += conv64(f, y) != ref_round(f, y);
    }
    CHECK(bad == 0, "%s: %d of %d random conversions differ", f->name, bad, 2 * n);
}

/* integers, through CVT in a kernel: i64 and u64 operands */
static void ints(const fmt *f, cute_backend be)
{
    enum { N = 64 };
    cute_dtype d = f == &F16 ? CUTE_F16 : CUTE_BF16;
    kt k;
    kt_begin(&k, "int_to_small");
    cute_vreg I = kt_param_ptr(&k, CUTE_I64, "i"), U = kt_param_ptr(&k, CUTE_U64, "u");
    cute_vreg O = kt_param_ptr(&k, d, "o"), P = kt_param_ptr(&k, d, "p");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    kt_store(&k, kt_ptr_add(&k, O, t), kt_cvt(&k, kt_load(&k, kt_ptr_add(&k, I, t)), d));
    kt_store(&k, kt_ptr_add(&k, P, t), kt_cvt(&k, kt_load(&k, kt_ptr_add(&k, U, t)), d));
    cute_module *m = kt_compile(be, &k);
    int64_t iv[N];
    uint64_t uv[N];
    uint16_t o[N], p[N], wi[N], wu[N];
    srand(6);
    for (int j = 0; j < N; j++) {
        int64_t base = j < 32 ? (int64_t)rnd32() >> (j % 24) : (int64_t)1 << (j % 62);
        iv[j] = j % 2 ? -base : base;
        uv[j] = (uint64_t)base * 3 + (uint64_t)j;
        wi[j] = ref_round(f, (wide)iv[j]);
        wu[j] = ref_round(f, (wide)uv[j]);
    }
    /* an integer just above a bf16 midpoint, beyond double's 53 bits: 2^60 + 2^52 + 1 */
    iv[0] = ((int64_t)1 << 60) + ((int64_t)1 << 52) + 1;
    wi[0] = f == &F16 ? F16.inf : 0x5d81; /* (1 + 2^-7) * 2^60 */
    cute_buffer bi = kt_buf(be, iv, sizeof iv), bu = kt_buf(be, uv, sizeof uv);
    cute_buffer bo = kt_buf(be, NULL, sizeof o), bp = kt_buf(be, NULL, sizeof p);
    cute_launch_arg args[4] = {kt_arg_buf(&bi, CUTE_I64), kt_arg_buf(&bu, CUTE_U64), kt_arg_buf(&bo, d),
                               kt_arg_buf(&bp, d)};
    CHECK(m && kt_launch(be, m, 1, N, 0, args, 4) == CUTE_OK, "runs");
    be.vt->download(be.self, o, &bo, 0, sizeof o);
    be.vt->download(be.self, p, &bp, 0, sizeof p);
    int bad = 0;
    for (int j = 0; j < N; j++) bad += o[j] != wi[j], bad += p[j] != wu[j];
    CHECK(bad == 0, "%s from integers: %d wrong", f->name, bad);
    be.vt->module_free(be.self, m);
}

/* add, mul, div, fma of the small format, run by the interpreter */
static void arith(const fmt *f, cute_backend be)
{
    int n = kt_small() ? 4096 : 65536;
    cute_dtype d = f == &F16 ? CUTE_F16 : CUTE_BF16;
    kt k;
    kt_begin(&k, "small_arith");
    cute_vreg A = kt_param_ptr(&k, d, "a"), B = kt_param_ptr(&k, d, "b"), C = kt_param_ptr(&k, d, "c");
    cute_vreg O = kt_param_ptr(&k, d, "o"), nn = kt_param(&k, CUTE_I64, "n");
    cute_vreg i = kt_gtid(&k);
    cute_vreg a = kt_load(&k, kt_ptr_add(&k, A, i)), b = kt_load(&k, kt_ptr_add(&k, B, i));
    cute_vreg c = kt_load(&k, kt_ptr_add(&k, C, i));
    cute_vreg r[4] = {kt_bin(&k, CUTE_OP_ADD, a, b), kt_bin(&k, CUTE_OP_MUL, a, b), kt_bin(&k, CUTE_OP_DIV, a, b),
                      kt_op(&k, CUTE_OP_FMA, cute_type_of(d), a, b, c)};
    for (int q = 0; q < 4; q++)
        kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, kt_i64(&k, q), nn), i)), r[q]);
    cute_module *m = kt_compile(be, &k);
    uint16_t *av = malloc(n * 2), *bv = malloc(n * 2), *cv = malloc(n * 2), *o = malloc(4 * n * 2);
    srand(7);
    for (int j = 0; j < n; j++) {
        uint32_t x = rnd32();
        av[j] = (uint16_t)x, bv[j] = (uint16_t)(x >> 16), cv[j] = (uint16_t)rnd32();
        if (j % 4 == 0) cv[j] = (uint16_t)(cv[j] & 0x83ff) | (uint16_t)((av[j] & 0x7c00)); /* similar scales */
    }
    if (f == &F16) { /* 4.53125 * 3.53125 + 32768 = 32784.0009765625: the f32 sum rounds onto
                        the tie 32784 and then to even 32768; the right answer is 32800 */
        av[0] = cute_f32_to_f16(4.53125f), bv[0] = cute_f32_to_f16(3.53125f), cv[0] = cute_f32_to_f16(32768);
    } else { /* 7 * 37 = 259 lies midway between bf16's 258 and 260: -2^-100 decides for 258,
                +2^-100 for 260 (any f32 intermediate would lose them and tie to 260) */
        av[0] = av[1] = cute_f32_to_bf16(7), bv[0] = bv[1] = cute_f32_to_bf16(37);
        cv[0] = cute_f32_to_bf16(-0x1p-100f), cv[1] = cute_f32_to_bf16(0x1p-100f);
    }
    cute_buffer ba = kt_buf(be, av, n * 2), bb = kt_buf(be, bv, n * 2), bc = kt_buf(be, cv, n * 2);
    cute_buffer bo = kt_buf(be, NULL, 4 * n * 2);
    cute_launch_arg args[5] = {kt_arg_buf(&ba, d), kt_arg_buf(&bb, d), kt_arg_buf(&bc, d), kt_arg_buf(&bo, d),
                               kt_arg_int(CUTE_I64, n)};
    CHECK(m && kt_launch(be, m, (uint32_t)n / 256, 256, 0, args, 5) == CUTE_OK, "runs: %s", be.vt->error(be.self));
    be.vt->download(be.self, o, &bo, 0, 4 * n * 2);
    int bad[4] = {0};
    for (int j = 0; j < n; j++) {
        double a = decode(f, av[j]), b = decode(f, bv[j]), c = decode(f, cv[j]);
        uint16_t want[4] = {ref_round(f, a + b), ref_round(f, a * b), ref_round(f, a / b),
                            ref_round(f, (wide)a * (wide)b + (wide)c)};
        /* bf16 products and addends far apart in scale are not exact even in 113 bits:
         * the reference cannot judge those (the fixed cases below cover the sticky bit) */
        int ea, eb, ec;
        frexp(a, &ea), frexp(b, &eb), frexp(c, &ec);
        bool exact = a == 0 || b == 0 || c == 0 || abs(ea + eb - ec) < 90 || a != a || b != b || c != c;
        for (int q = 0; q < 4; q++)
            if (q == 3 && !exact) continue;
            else
            if (o[q * n + j] != want[q] && bad[q]++ < 3)
                fprintf(stderr, "%s op %d (%04x %04x %04x): %04x want %04x\n", f->name, q, av[j], bv[j],
                        cv[j], o[q * n + j], want[q]);
    }
    CHECK(!bad[0] && !bad[1] && !bad[2], "%s add/mul/div: %d %d %d wrong", f->name, bad[0], bad[1], bad[2]);
#ifdef __SIZEOF_FLOAT128__
    CHECK(!bad[3], "%s fma: %d wrong", f->name, bad[3]);
#else
    if (LDBL_MANT_DIG >= 113) CHECK(!bad[3], "%s fma: %d wrong", f->name, bad[3]);
    else SKIP("no 113-bit floating type for the exact fma reference");
#endif
    if (f == &F16) CHECK(o[3 * n] == 0x7801, "the f32 tie case: %04x, want 0x7801 (32800)", o[3 * n]);
    if (f == &BF16)
        CHECK(o[3 * n] == 0x4381 && o[3 * n + 1] == 0x4382, "the sticky cases: %04x %04x, want 4381 4382",
              o[3 * n], o[3 * n + 1]);
    be.vt->module_free(be.self, m);
    free(av), free(bv), free(cv), free(o);
}

/* what src/interp/gpu/hw_probe.cu measured on an H200 (it also found all 2^32 f32 -> f16
 * and f32 -> bf16 conversions equal to ours) */
static void hardware(void)
{
    float w = cute_f16_to_f32(0x7c01);
    uint32_t wb;
    memcpy(&wb, &w, 4);
    CHECK(wb == 0x7fffffffu, "f32 of f16 NaN 7c01: %08x, the H200 gives 7fffffff", wb);
    w = cute_bf16_to_f32(0xffc1);
    memcpy(&wb, &w, 4);
    CHECK(wb == 0xffc10000u, "f32 of bf16 NaN keeps its bits: %08x", wb);
    CHECK(cute_f32_to_f16(NAN) == 0x7fff && cute_f32_to_bf16(-NAN) == 0x7fff, "NaN from f32: 7fff");
    CHECK(cute_f64_to_f16(NAN) == 0x7e00 && cute_f64_to_bf16(NAN) == 0x7fc0, "NaN from f64: 7e00, 7fc0");
    CHECK(cute_f64_to_f16(1e300) == 0x7c00 && cute_f64_to_f16(-0.0) == 0x8000, "inf, -0");
}

int main(void)
{
    hardware();
    cute_interp_opts o = {.threads = 1};
    cute_backend be = kt_backend(&o);
    const fmt *fs[2] = {&F16, &BF16};
    for (int i = 0; i < 2; i++) {
        exhaustive(fs[i]);
        ties(fs[i]);
        randoms(fs[i]);
        ints(fs[i], be);
        arith(fs[i], be);
    }
    be.vt->destroy(be.self);
    return CHECK_DONE("interp half");
}
