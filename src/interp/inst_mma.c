/* mma.sync under the interpreter: every shape and type of the instruction table.  The warp's
 * fragments are gathered into A (MxK), B (KxN) and C (MxN) as the PTX ISA lays them out (CuTe's
 * SM80/SM90 MMA traits), multiplied, and scattered back into D.  Fragments, with g = lane/4,
 * q = lane%4 and e elements per A/B register (2 for 16-bit types, 4 for 8-bit, 1 for tf32
 * and f64), register r, element h of it:
 *   A (M = 16): row g + 8 (r%2), column e q + h + 4 e (r/2);  (M = 8: row g, column q + 4 r)
 *   B: row (k) e q + h + 4 e r, column (n) g
 *   C, D: element i (f32/s32/f64 one per register, f16 two): row g + 8 (i/2), column
 *         2 q + i%2 (M = 8: row g, column 2 q + i)
 * Arithmetic: integers exactly (s32 wraps); f64 as a chain of fused multiply-adds over k;
 * the others as the GH100's tensor cores add (interp_tc_sum() below, exact against the hardware). */
#include <math.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/numeric.h"
#include "interp/interp_internal.h"

/* one element of `type` from the low bits of v */
static double elem(int type, uint32_t v)
{
    float f;
    switch (type) {
    case E_F16: return cute_f16_to_f32((uint16_t)v);
    case E_BF16: return cute_bf16_to_f32((uint16_t)v);
    case E_TF32: v &= 0xffffe000u; /* tf32: the top 19 bits of an f32 */
        memcpy(&f, &v, 4);
        return f;
    case E_S8: return (int8_t)v;
    case E_U8: return (uint8_t)v;
    case E_E4M3: return cute_e4m3_to_f32((uint8_t)v); /* exact (cutec/numeric.h) */
    case E_E5M2: return cute_e5m2_to_f32((uint8_t)v);
    case E_E2M3: return cute_e2m3_to_f32((uint8_t)v);
    case E_E3M2: return cute_e3m2_to_f32((uint8_t)v);
    case E_E2M1: return cute_e2m1_to_f32((uint8_t)v);
    default: memcpy(&f, &v, 4); return f;
    }
}

/* the bits of an element's slot (the unpacked 6- and 4-bit ones: a byte) */
static int elem_bits(int type)
{
    return type == E_F16 || type == E_BF16 ? 16 : type == E_S8 || type == E_U8 || type >= E_E4M3 ? 8 : 32;
}

/* the least normal exponent mma.sync aligns an element of `type` by: f16's, else f32's (bf16
 * and tf32 have its range; fp8 reaches mma.sync as f16) */
static int emin_of(int type) { return type == E_F16 ? -14 : -126; }

/* the least normal exponent an element of `type` aligns by in a sum into `out`: f16's when
 * either is f16 (the fp8, 6- and 4-bit floats reach the tensor cores as f16), else f32's */
int interp_mma_emin(int type, int out)
{
    return out == E_F16 || type >= E_E4M3 ? emin_of(E_F16) : emin_of(type);
}

void interp_tc_vec_set(interp_tc_vec *V, const double *x, int n, int emin)
{
    V->finite = true;
    for (int k = 0; k < n; k++) {
        V->x[k] = x[k];
        V->e[k] = x[k] == 0 ? INTERP_TC_ZERO : interp_align_exp(x[k], emin);
        if (!isfinite(x[k])) V->finite = false;
    }
}

/* c and the products a.b, each truncated toward zero at 2^e0, added exactly: S 2^e0 */
static void terms(double c, const double *a, const double *b, int n, int e0, int64_t *S)
{
    double scale = interp_pow2(-e0); /* exact; the conversion truncates toward zero */
    int64_t s = (int64_t)(c * scale);
    for (int k = 0; k < n; k++) s += (int64_t)(a[k] * b[k] * scale);
    *S = s;
}

/* One k-step of the GH100 tensor cores as mma.sync runs it (HMMA; f16, bf16 or tf32 inputs),
 * established bit for bit on every result of every such row in 201 recordings of
 * src/interp/gpu/hw_mma.cu (seeds 1-200 and 11; an H100, 2026-11-26; 360,192 f32 and 102,912
 * f16 results): the products are exact; each term, c and the products, is truncated toward
 * zero at 2^(emax - 25), emax being the largest of c's exponent and every nonzero product's
 * a-exponent plus b-exponent (not the product's own exponent: significands whose product is
 * 2 or more align one bit lower than the value); the truncated terms add exactly (keep = 25;
 * wgmma_fp8_sum.c keeps 13).  A product of two nonzero elements (no wider than f32) is never
 * zero, so a zero element's INTERP_TC_ZERO exponent keeps its products out of emax; an
 * infinity or NaN anywhere in a or b makes some product non-finite. */
bool interp_tc_sum(double c, const interp_tc_vec *a, const interp_tc_vec *b, int n, int keep, int64_t *S, int *e0)
{
    if (!a->finite || !b->finite || !isfinite(c)) return false;
    int emax = 2 * INTERP_TC_ZERO;
    for (int k = 0; k < n; k++) {
        int e = a->e[k] + b->e[k];
        if (e > emax) emax = e;
    }
    bool any = emax > INTERP_TC_ZERO / 2; /* a nonzero product */
    if (c != 0 && (!any || interp_align_exp(c, -126) > emax)) emax = interp_align_exp(c, -126), any = true;
    if (!any) return false;
    terms(c, a->x, b->x, n, emax - keep, S);
    *e0 = emax - keep;
    return true;
}

/* interp_tc_sum of unprepared operands (elements aligned by emin ea and eb), for the callers
 * that use a row once (tcgen05's cells): only the nonzero products' exponents taken */
static bool tc_sum_arrays(double c, const double *a, const double *b, int n, int ea, int eb, int64_t *S, int *e0)
{
    if (!isfinite(c)) return false;
    int emax = c != 0 ? interp_align_exp(c, -126) : INT32_MIN;
    for (int k = 0; k < n; k++) {
        double t = a[k] * b[k];
        if (!isfinite(t)) return false;
        if (t == 0) continue;
        int e = interp_align_exp(a[k], ea) + interp_align_exp(b[k], eb);
        if (e > emax) emax = e;
    }
    if (emax == INT32_MIN) return false;
    terms(c, a, b, n, emax - 25, S);
    *e0 = emax - 25;
    return true;
}

/* S 2^e0 truncated to f32 (24 bits, toward zero; nothing below 2^-149) */
static float truncate_f32(int64_t S, int e0)
{
    uint64_t mag = S < 0 ? 0 - (uint64_t)S : (uint64_t)S;
    int bits = mag ? 64 - __builtin_clzll(mag) : 0, drop = bits > 24 ? bits - 24 : 0;
    if (e0 + drop < -149) drop = -149 - e0;
    mag = drop >= 64 ? 0 : mag >> drop << drop;
    return (float)((S < 0 ? -(double)mag : (double)mag) * interp_pow2(e0)); /* exact */
}

/* the IEEE sum where interp_tc_sum has none: infinities, NaN (canonical), signed zeros */
static double ieee_dot(double c, const double *a, const double *b, int n)
{
    double sum = c;
    for (int k = 0; k < n; k++) sum += a[k] * b[k];
    if (sum != sum) {
        uint32_t nan = 0x7fffffffu;
        float f;
        memcpy(&f, &nan, 4);
        return f;
    }
    return sum;
}

/* c + a.b as the bits of out, from the k-step's sum S 2^e0 where there is one (ok), else the
 * IEEE sum: into f32 truncated to 24 bits, into f16 rounded once to nearest */
static uint32_t dot_bits(bool ok, int64_t S, int e0, double c, const double *a, const double *b, int n, int out)
{
    if (out == E_F16) return cute_f64_to_f16(ok ? (double)S * interp_pow2(e0) : ieee_dot(c, a, b, n));
    float f = ok ? truncate_f32(S, e0) : (float)ieee_dot(c, a, b, n);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

uint32_t interp_tc_dot_bits(double c, const interp_tc_vec *a, const interp_tc_vec *b, int n, int out)
{
    int64_t S = 0;
    int e0 = 0;
    bool ok = interp_tc_sum(c, a, b, n, 25, &S, &e0);
    return dot_bits(ok, S, e0, c, a->x, b->x, n, out);
}

/* c + a.b (f16 elements) into f32, from arrays */
static float dot_f32(double c, const double *a, const double *b, int n)
{
    uint32_t u = interp_mma_dot_bits(c, a, b, n, E_F16, E_F16, E_F32);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* fp8 (m16n8k32) on sm_90, as ptxas builds it (SASS of src/interp/gpu/hw_mma.cu): the elements
 * converted to f16 (exactly), two HMMA k16 steps from a zero accumulator, the first over the
 * k with k % 4 < 2 (bytes 0 and 1 of each register), the second over the rest, then one
 * FADD of c (round to nearest) */
static float dot_fp8(double c, const double *a, const double *b)
{
    double a0[16], b0[16], a1[16], b1[16];
    for (int k = 0, i = 0, j = 0; k < 32; k++) {
        if (k % 4 < 2) a0[i] = a[k], b0[i++] = b[k];
        else a1[j] = a[k], b1[j++] = b[k];
    }
    float d = dot_f32(0.0, a0, b0, 16);
    d = dot_f32(d, a1, b1, 16);
    return d + (float)c;
}

/* fp8 as the _VIA_F16 rows run it: the elements as f16, an HMMA k16 step over k 0-15 into c,
 * then one over k 16-31 into that */
static float dot_fp8_via_f16(double c, const double *a, const double *b)
{
    float d = dot_f32(c, a, b, 16);
    return dot_f32(d, a + 16, b + 16, 16);
}

/* a warp's operands as matrices */
typedef struct mats {
    double a[16][32], b[32][8], c[16][8];
} mats;

/* A's rows and B's columns as k-vectors, for the sums (not for fp8 into f32, nor integers, f64) */
typedef struct mvecs {
    interp_tc_vec a[16], b[8];
} mvecs;

typedef struct mshape {
    const irow *R;
    int na, nb, nc, nout; /* registers of A, B, C; the op's outputs */
} mshape;

static void a_pos(const mshape *S, int r, int h, int g, int q, int *row, int *col)
{
    int e = S->R->types[1] == E_F64 ? 1 : 32 / elem_bits(S->R->types[1]);
    if (S->R->m == 8) *row = g, *col = q + 4 * r;
    else *row = g + 8 * (r % 2), *col = e * q + h + 4 * e * (r / 2);
}

static void b_pos(const mshape *S, int r, int h, int g, int q, int *k, int *n)
{
    int e = S->R->types[2] == E_F64 ? 1 : 32 / elem_bits(S->R->types[2]);
    *k = e * q + h + 4 * e * r, *n = g;
}

static void c_pos(const mshape *S, int i, int g, int q, int *row, int *col)
{
    if (S->R->m == 8) *row = g, *col = 2 * q + i;
    else *row = g + 8 * (i / 2), *col = 2 * q + i % 2;
}

/* A or B register r of thread t as elements (f64: one) */
static int unpack(ictx *X, const dinst *d, uint32_t k, uint32_t t, int type, double *out)
{
    if (type == E_F64) return out[0] = REG(X, d->var[k])[t].f64, 1;
    uint32_t v = interp_get32(X, d, k, t);
    int bits = elem_bits(type), n = 32 / bits;
    for (int h = 0; h < n; h++) out[h] = elem(type, bits == 32 ? v : v >> (bits * h));
    return n;
}

/* C element i of thread t */
static double c_elem(ictx *X, const dinst *d, const mshape *S, int i, uint32_t t)
{
    uint32_t k = (uint32_t)(S->nout + S->na + S->nb);
    int type = S->R->types[3];
    if (type == E_F64) return REG(X, d->var[k + (uint32_t)i])[t].f64;
    if (type == E_F16) return cute_f16_to_f32((uint16_t)(interp_get32(X, d, k + (uint32_t)i / 2, t) >> (16 * (i % 2))));
    uint32_t v = interp_get32(X, d, k + (uint32_t)i, t);
    return type == E_S32 ? (double)(int32_t)v : elem(E_F32, v);
}

static void gather(ictx *X, const dinst *d, const mshape *S, uint32_t w0, mats *M)
{
    double v[4];
    int row, col, nc = S->R->m == 8 ? 2 : 4;
    for (int lane = 0; lane < 32; lane++) {
        uint32_t t = w0 + (uint32_t)lane;
        int g = lane / 4, q = lane % 4;
        for (int r = 0; r < S->na; r++)
            for (int h = 0, n = unpack(X, d, (uint32_t)(S->nout + r), t, S->R->types[1], v); h < n; h++)
                a_pos(S, r, h, g, q, &row, &col), M->a[row][col] = v[h];
        for (int r = 0; r < S->nb; r++)
            for (int h = 0, n = unpack(X, d, (uint32_t)(S->nout + S->na + r), t, S->R->types[2], v); h < n; h++)
                b_pos(S, r, h, g, q, &row, &col), M->b[row][col] = v[h];
        for (int i = 0; i < nc; i++) c_pos(S, i, g, q, &row, &col), M->c[row][col] = c_elem(X, d, S, i, t);
    }
}

/* the k-vectors of A's rows and B's columns, where result() sums them */
static void prepare(const mshape *S, const mats *M, mvecs *V)
{
    int K = S->R->k, out = S->R->types[0], ta = S->R->types[1], tb = S->R->types[2];
    if (out == E_S32 || out == E_F64 || (out == E_F32 && (ta == E_E4M3 || ta == E_E5M2))) return;
    double col[32];
    for (int r = 0; r < S->R->m; r++) interp_tc_vec_set(&V->a[r], M->a[r], K, interp_mma_emin(ta, out));
    for (int n = 0; n < 8; n++) {
        for (int k = 0; k < K; k++) col[k] = M->b[k][n];
        interp_tc_vec_set(&V->b[n], col, K, interp_mma_emin(tb, out));
    }
}

/* D[row][col] as the hardware rounds it, as the bits of D's type (f64: the double's) */
static uint64_t result(const mshape *S, const mats *M, const mvecs *V, int row, int col)
{
    int K = S->R->k, type = S->R->types[0];
    double a[32], b[32];
    if (type == E_S32) {
        int64_t s = (int64_t)M->c[row][col];
        for (int k = 0; k < K; k++) s += (int64_t)M->a[row][k] * (int64_t)M->b[k][col];
        return (uint32_t)s;
    }
    if (type == E_F64) {
        double s = M->c[row][col];
        for (int k = 0; k < K; k++) s = fma(M->a[row][k], M->b[k][col], s);
        uint64_t u;
        memcpy(&u, &s, 8);
        return u;
    }
    int ta = S->R->types[1];
    bool fp8 = ta == E_E4M3 || ta == E_E5M2;
    if (type == E_F16 || !fp8) return interp_tc_dot_bits(M->c[row][col], &V->a[row], &V->b[col], K, type);
    for (int k = 0; k < K; k++) a[k] = M->a[row][k], b[k] = M->b[k][col];
    float f = S->R->flag ? dot_fp8_via_f16(M->c[row][col], a, b) : dot_fp8(M->c[row][col], a, b);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void scatter(ictx *X, const dinst *d, const mshape *S, uint32_t w0, const mats *M, const mvecs *V)
{
    int nc = S->R->m == 8 ? 2 : 4, type = S->R->types[0], row, col;
    for (int lane = 0; lane < 32; lane++) {
        uint32_t t = w0 + (uint32_t)lane, packed = 0;
        for (int i = 0; i < nc; i++) {
            c_pos(S, i, lane / 4, lane % 4, &row, &col);
            uint64_t v = result(S, M, V, row, col);
            if (type == E_F64) REG(X, d->var[i])[t].u64 = v;
            else if (type != E_F16) interp_put32(X, d, (uint32_t)i, t, (uint32_t)v);
            else if (i % 2 == 0) packed = (uint32_t)v;
            else interp_put32(X, d, (uint32_t)i / 2, t, packed | (uint32_t)v << 16);
        }
    }
}

void inst_mma(ictx *X, const dinst *d, const imask *m)
{
    const cute_inst_info *I = cute_inst_info_of((cute_inst)d->imm2);
    mshape S = {d->row, I->groups[1].count, I->groups[2].count, I->groups[3].count, I->nout};
    mats M;
    mvecs V;
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) {
        if (!interp_whole_warp(X, d, m, w0)) continue;
        memset(&M, 0, sizeof M);
        gather(X, d, &S, w0, &M);
        prepare(&S, &M, &V);
        scatter(X, d, &S, w0, &M, &V);
    }
}

/* --- for wgmma (inst_wgmma.c): the same elements and arithmetic -------------------------- */

double interp_mma_elem(int type, uint32_t v) { return elem(type, v); }

int interp_mma_elem_bits(int type) { return elem_bits(type); }

/* c + a.b as the bits of out (E_F32 or E_F16): mma.sync's k-step over all n (fp8 elements
 * align as f16, as ptxas feeds them to the tensor cores); not fitted to wgmma's own results */
uint32_t interp_mma_dot_bits(double c, const double *a, const double *b, int n, int ta, int tb, int out)
{
    int64_t S = 0;
    int e0 = 0;
    bool ok = tc_sum_arrays(c, a, b, n, interp_mma_emin(ta, out), interp_mma_emin(tb, out), &S, &e0);
    return dot_bits(ok, S, e0, c, a, b, n, out);
}
