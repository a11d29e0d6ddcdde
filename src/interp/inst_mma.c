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
 * the others as the H200's tensor cores add (dot() below). */
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
    default: memcpy(&f, &v, 4); return f;
    }
}

static int elem_bits(int type)
{
    return type == E_F16 || type == E_BF16 ? 16 : type == E_S8 || type == E_U8 || type == E_E4M3 || type == E_E5M2 ? 8 : 32;
}

/* c + sum p[i] as the H200's tensor cores compute it (fitted to its results, exact on all
 * f16 samples of src/interp/hw_mma_cases.h): the products are exact; every term is
 * truncated toward zero to 2 bits below f32 precision at the largest term's exponent, the
 * terms are summed exactly, and the sum is truncated to 24 bits. */
static float dot(double c, const double *p, int n)
{
    double sum = c;
    int emax = INT32_MIN, e;
    for (int i = 0; i < n; i++) sum += p[i];
    if (!isfinite(sum) || sum != sum) { /* infinities and NaN: IEEE, canonical NaN */
        uint32_t nan = 0x7fffffffu;
        float f;
        memcpy(&f, &nan, 4);
        return sum != sum ? f : (float)sum;
    }
    for (int i = -1; i < n; i++) {
        double t = i < 0 ? c : p[i];
        if (t != 0 && (frexp(t, &e), e - 1 > emax)) emax = e - 1;
    }
    if (emax == INT32_MIN) return (float)sum; /* all zero: IEEE's sign of zero */
    int e0 = emax - 25;
    int64_t S = 0;
    for (int i = -1; i < n; i++) S += (int64_t)trunc(ldexp(i < 0 ? c : p[i], -e0));
    uint64_t mag = S < 0 ? 0 - (uint64_t)S : (uint64_t)S;
    int bits = mag ? 64 - __builtin_clzll(mag) : 0, drop = bits > 24 ? bits - 24 : 0;
    if (e0 + drop < -149) drop = -149 - e0; /* f32 subnormals: nothing below 2^-149 */
    mag = drop >= 64 ? 0 : mag >> drop << drop;
    return (float)ldexp(S < 0 ? -(double)mag : (double)mag, e0);
}

/* a warp's operands as matrices */
typedef struct mats {
    double a[16][32], b[32][8], c[16][8];
} mats;

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

/* D[row][col] as the hardware rounds it, as the bits of D's type (f64: the double's) */
static uint64_t result(const mshape *S, const mats *M, int row, int col)
{
    int K = S->R->k, type = S->R->types[0];
    double p[32];
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
    for (int k = 0; k < K; k++) p[k] = M->a[row][k] * M->b[k][col];
    float f = dot(M->c[row][col], p, K);
    uint32_t u;
    memcpy(&u, &f, 4);
    return type == E_F16 ? cute_f32_to_f16(f) : u;
}

static void scatter(ictx *X, const dinst *d, const mshape *S, uint32_t w0, const mats *M)
{
    int nc = S->R->m == 8 ? 2 : 4, type = S->R->types[0], row, col;
    for (int lane = 0; lane < 32; lane++) {
        uint32_t t = w0 + (uint32_t)lane, packed = 0;
        for (int i = 0; i < nc; i++) {
            c_pos(S, i, lane / 4, lane % 4, &row, &col);
            uint64_t v = result(S, M, row, col);
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
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) {
        if (!interp_whole_warp(X, d, m, w0)) continue;
        memset(&M, 0, sizeof M);
        gather(X, d, &S, w0, &M);
        scatter(X, d, &S, w0, &M);
    }
}
