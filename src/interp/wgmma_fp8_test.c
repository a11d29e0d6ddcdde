/* The tensor cores' sums: the fp8 wgmma's (wgmma_fp8_sum.c) against the hardware: every
 * result of every case of hw_wgmma_cases.h (an H200's fp8 wgmma m64nNk32, each thread's
 * accumulators in and out) recomputed from the case's A, B and C images, bit for bit; and the
 * mma.sync rule (26 bits), which the interpreter used before, is shown to miss some of them
 * (the cases tell the two apart).  Then both sums as the interpreter forms them (prepared
 * k-vectors, inst_mma.c; mma.sync's from plain arrays too) against the rules restated plainly, element by element, over random
 * operands of every type pair with zeros, subnormals, infinities, NaN and signed zeros. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/hw_wgmma_cases.h"
#include "interp/interp_internal.h"

/* byte (r, k) of a K-major operand image: 8x16-byte core matrices, LBO 128, SBO 256 */
static int at(int r, int k) { return (r / 8) * 256 + (k / 16) * 128 + (r % 8) * 16 + k % 16; }

static double fp8(int type, uint8_t v) { return type == E_E4M3 ? cute_e4m3_to_f32(v) : cute_e5m2_to_f32(v); }

/* the types of A and B from the row's name, ..._F32E4M3E5M2_SS */
static void types_of(const char *row, int *ta, int *tb)
{
    const char *p = strstr(row, "_F32") + 4;
    *ta = strncmp(p, "E4M3", 4) ? E_E5M2 : E_E4M3;
    *tb = strncmp(p + 4, "E4M3", 4) ? E_E5M2 : E_E4M3;
}

/* the results of case h the rule gets wrong (fp8_rule) or mma.sync's rule does (else) */
static int misses(const hw_wgmma_case *h, bool fp8_rule, int *total)
{
    int ta, tb, per = h->n / 2, bad = 0;
    types_of(h->row, &ta, &tb);
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < per; i++) {
            int r = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
            double a[32], b[32], c = interp_mma_elem(E_F32, h->c[t][i]);
            for (int k = 0; k < 32; k++) a[k] = fp8(ta, h->a[at(r, k)]), b[k] = fp8(tb, h->b[at(col, k)]);
            float f = 0;
            uint32_t got = interp_mma_dot_bits(c, a, b, 32, ta, tb, E_F32);
            interp_tc_vec va, vb;
            interp_tc_vec_set(&va, a, 32, interp_wgmma_fp8_emin(ta));
            interp_tc_vec_set(&vb, b, 32, interp_wgmma_fp8_emin(tb));
            if (fp8_rule && interp_wgmma_fp8_sum(c, &va, &vb, 32, &f)) memcpy(&got, &f, 4);
            if (got != h->d[t][i] && bad++ < 2 && fp8_rule)
                printf("%s: thread %d register %d (D[%d][%d]): 0x%08x, the H200 0x%08x\n", h->name, t, i, r, col, got,
                       h->d[t][i]);
            (*total)++;
        }
    return bad;
}

/* --- the sums against their rules restated ---------------------------------------------- */

/* The rule of both sums, plainly (the interpreter's loop before it prepared k-vectors): c +
 * a.b with every term truncated toward zero at 2^(emax - keep), emax the largest of c's
 * exponent (no lower than -126) and every nonzero product's a- plus b-exponent (each no lower
 * than its emin); false for a non-finite term or no nonzero one.  The sum is exact in a double
 * (a zero one +0: the terms add as integers). */
static bool rule_sum(double c, const double *a, const double *b, int n, int emin_a, int emin_b, int keep, double *sum,
                     int *emax)
{
    int e = INT_MIN;
    if (!isfinite(c)) return false;
    if (c != 0) e = ilogb(c) < -126 ? -126 : ilogb(c);
    for (int k = 0; k < n; k++) {
        double t = a[k] * b[k];
        if (!isfinite(t)) return false;
        if (t == 0) continue;
        int ea = ilogb(a[k]) < emin_a ? emin_a : ilogb(a[k]), eb = ilogb(b[k]) < emin_b ? emin_b : ilogb(b[k]);
        if (ea + eb > e) e = ea + eb;
    }
    if (e == INT_MIN) return false;
    double q = ldexp(1, e - keep), s = trunc(c / q) * q;
    for (int k = 0; k < n; k++) s += trunc(a[k] * b[k] / q) * q;
    *sum = s + 0.0, *emax = e;
    return true;
}

/* x truncated toward zero to `bits` significant bits, nothing below 2^lowest */
static double chop(double x, int bits, int lowest)
{
    if (x == 0) return 0;
    int q = ilogb(x) - (bits - 1);
    if (q < lowest) q = lowest;
    return trunc(ldexp(x, -q)) * ldexp(1, q);
}

/* the IEEE sum where the rule has none, a NaN as f32's canonical one */
static double rule_ieee(double c, const double *a, const double *b, int n)
{
    double s = c;
    for (int k = 0; k < n; k++) s += a[k] * b[k];
    return s != s ? interp_mma_elem(E_F32, 0x7fffffffu) : s;
}

/* mma.sync's sum (keep 25) into out, as bits */
static uint32_t rule_mma(double c, const double *a, const double *b, int n, int ta, int tb, int out)
{
    double s;
    int e;
    bool ok = rule_sum(c, a, b, n, interp_mma_emin(ta, out), interp_mma_emin(tb, out), 25, &s, &e);
    if (out == E_F16) return cute_f64_to_f16(ok ? s : rule_ieee(c, a, b, n));
    float f = (float)(ok ? chop(s, 24, -149) : rule_ieee(c, a, b, n));
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* the fp8 wgmma's sum: keep 13, then the sum chopped at 2^(max(emax, its exponent) - 13) */
static bool rule_fp8(double c, const double *a, const double *b, int n, int ta, int tb, float *out)
{
    double s;
    int e;
    if (!rule_sum(c, a, b, n, interp_wgmma_fp8_emin(ta), interp_wgmma_fp8_emin(tb), 13, &s, &e)) return false;
    int top = s != 0 && ilogb(s) > e ? ilogb(s) : e;
    double q = ldexp(1, top - 13);
    *out = (float)(trunc(s / q) * q);
    return true;
}

/* a random element of `type` from its bit fields (exponent e bits, mantissa m): zeros of either
 * sign, subnormals, normals over the whole range or a narrow window (so terms align and
 * carry), and where `special` the all-ones exponent (infinities, NaN) now and then */
static double random_elem(int type, bool special, bool narrow)
{
    static const int fields[][3] = {{E_F16, 5, 10}, {E_BF16, 8, 7}, {E_TF32, 8, 23}, {E_F32, 8, 23}, {E_E4M3, 4, 3},
                                    {E_E5M2, 5, 2}, {E_E2M3, 2, 3}, {E_E3M2, 3, 2},  {E_E2M1, 2, 1}};
    int eb = 0, mb = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i][0] == type) eb = fields[i][1], mb = fields[i][2];
    uint32_t top = (1u << eb) - 1, sign = (uint32_t)rand() & 1, mant = (uint32_t)rand() & ((1u << mb) - 1), exp;
    int r = rand() % 16;
    if (r < 2) exp = 0, mant = 0;
    else if (r < 4) exp = 0;
    else if (special && r == 4 && rand() % 4 == 0) exp = top;
    else if (narrow && top > 4) exp = top / 2 + (uint32_t)(rand() % 3);
    else exp = 1 + (uint32_t)rand() % (top > 1 ? top - 1 : 1);
    return interp_mma_elem(type, sign << (eb + mb) | exp << mb | mant);
}

/* n random sums of every type pair, into f32 and f16, and of the fp8 pairs by the fp8 rule */
static void sums_against_rules(int n)
{
    static const int types[] = {E_F16, E_BF16, E_TF32, E_E4M3, E_E5M2, E_E2M3, E_E3M2, E_E2M1};
    static const int lengths[] = {32, 16, 8, 4};
    int nt = sizeof types / sizeof types[0], bad = 0, fp8_sums = 0, ieee = 0;
    srand(7);
    for (int i = 0; i < n; i++) {
        int ta = types[i % nt], tb = types[i / nt % nt], K = lengths[rand() % 4], out = i % 3 ? E_F32 : E_F16;
        bool special = rand() % 4 == 0, narrow = rand() % 2;
        double a[32], b[32], c = random_elem(out == E_F16 ? E_F16 : E_F32, special, narrow);
        for (int k = 0; k < K; k++) a[k] = random_elem(ta, special, narrow), b[k] = random_elem(tb, special, narrow);
        interp_tc_vec va, vb;
        interp_tc_vec_set(&va, a, K, interp_mma_emin(ta, out));
        interp_tc_vec_set(&vb, b, K, interp_mma_emin(tb, out));
        uint32_t got = interp_tc_dot_bits(c, &va, &vb, K, out), want = rule_mma(c, a, b, K, ta, tb, out);
        int64_t S;
        int e0;
        ieee += !interp_tc_sum(c, &va, &vb, K, 25, &S, &e0);
        uint32_t arrays = interp_mma_dot_bits(c, a, b, K, ta, tb, out); /* unprepared (tcgen05's) */
        if ((got != want || arrays != want) && bad++ < 3)
            printf("types %d x %d -> %d, k %d: 0x%08x (arrays 0x%08x), the rule 0x%08x\n", ta, tb, out, K, got, arrays,
                   want);
        if ((ta != E_E4M3 && ta != E_E5M2) || (tb != E_E4M3 && tb != E_E5M2)) continue;
        float f = 0, g = 0;
        interp_tc_vec_set(&va, a, K, interp_wgmma_fp8_emin(ta));
        interp_tc_vec_set(&vb, b, K, interp_wgmma_fp8_emin(tb));
        bool has = interp_wgmma_fp8_sum(c, &va, &vb, K, &f), rule = rule_fp8(c, a, b, K, ta, tb, &g);
        fp8_sums += has;
        if ((has != rule || memcmp(&f, &g, 4)) && bad++ < 3)
            printf("fp8 %d x %d, k %d: %d %a, the rule %d %a\n", ta, tb, K, has, f, rule, g);
    }
    CHECK(bad == 0, "%d of the sums differ from their rule", bad);
    CHECK(fp8_sums > n / 200 && ieee > n / 50 && ieee < n / 2, "the operands reach both rules and the IEEE sum (%d, %d)",
          fp8_sums, ieee);
}

int main(void)
{
    int n = sizeof hw_wgmma_cases / sizeof hw_wgmma_cases[0], old_misses = 0, old_total = 0;
    for (int i = 0; i < n; i++) {
        int total = 0, bad = misses(&hw_wgmma_cases[i], true, &total);
        CHECK(bad == 0 && total == 64 * hw_wgmma_cases[i].n, "%s: %d of %d results differ from the H200's", hw_wgmma_cases[i].name,
              bad, total);
        old_misses += misses(&hw_wgmma_cases[i], false, &old_total);
    }
    printf("mma.sync's 26-bit rule would miss %d of %d recorded results\n", old_misses, old_total);
    CHECK(old_misses > 0, "the cases do not tell the fp8 rule from mma.sync's");
    sums_against_rules(40000);
    return CHECK_DONE("interp/wgmma_fp8");
}
