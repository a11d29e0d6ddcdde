/* Inline PTX (the ASM op): the instructions the interpreter emulates, recognised by their
 * text, with operands %N naming the op's registers (outputs first):
 *
 *   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32   D{4} A{4} B{2} C{4}
 *   mma.sync.aligned.m16n8k8.row.col.f32.{f16,bf16}.{f16,bf16}.f32    D{4} A{2} B{1} C{4}
 *   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32                D{4} A{4} B{2} C{4}
 *   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16                 D{2} A{4} B{2} C{2}
 *   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{.b16}        D{1,2,4}, [addr]
 *   cp.async.{ca,cg}.shared.global{.L2::...} [dst], [src], {4,8,16}{, src-size}
 *   cp.async.commit_group / cp.async.wait_group N / cp.async.wait_all (no-ops: copies are
 *   done at once)
 *   cvt.rn.{f16x2,bf16x2}.f32 d, a, b   (a to the upper half)
 *
 * Registers of 32 bits may be any 32-bit scalar or a 2-lane vector of 16-bit values (lane 0
 * the low half).  Fragments are laid out as the PTX ISA says (CuTe's SM80 MMA traits); the
 * warp-collective ones need all 32 lanes of the warp active.  mma sums the exact products
 * and C in double and rounds once (the tensor cores' internal rounding is not specified:
 * results agree to the last bit or two).  Anything else fails compile with "not supported
 * in the interpreter: <the PTX>". */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

enum { A_MMA, A_LDMATRIX, A_CPASYNC, A_NOP, A_CVTPACK };
#define MAXG 6

typedef struct agroup {
    int n;          /* registers in it ({%0,%1} has 2) */
    int16_t v[8];   /* operand indices */
    bool addr;      /* [%N+off] */
    bool imm;       /* a literal */
    int64_t ival;   /* the literal, or the address offset */
} agroup;

struct iasm {
    iop_fn fn;
    int kind;
    int m, n, k, ab, cd; /* mma: shape, A/B type (CUTE_F32 for tf32), C/D type */
    int num;             /* ldmatrix: matrices; cp.async: bytes */
    bool trans;
    int ng;
    agroup g[MAXG];
};

/* --- parsing ------------------------------------------------------------------------------ */

static const char *skip(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

static bool reg_ref(const char **ps, int16_t *out)
{
    const char *s = skip(*ps);
    if (*s != '%' || !isdigit((unsigned char)s[1])) return false;
    char *end;
    long v = strtol(s + 1, &end, 10);
    if (v > 255) return false;
    *out = (int16_t)v;
    *ps = end;
    return true;
}

/* operands after the mnemonic: {%a,%b}, [%a+off], %a, or an integer */
static bool parse_operands(const char *s, iasm *A)
{
    A->ng = 0;
    s = skip(s);
    while (*s && *s != ';') {
        if (A->ng == MAXG) return false;
        agroup *g = &A->g[A->ng++];
        memset(g, 0, sizeof *g);
        if (*s == '{') {
            s++;
            do {
                if (g->n == 8 || !reg_ref(&s, &g->v[g->n++])) return false;
                s = skip(s);
            } while (*s == ',' && s++);
            if (*s++ != '}') return false;
        } else if (*s == '[') {
            s++;
            g->addr = true;
            if (!reg_ref(&s, &g->v[0])) return false;
            g->n = 1;
            s = skip(s);
            if (*s == '+') g->ival = strtoll(s + 1, (char **)&s, 0);
            s = skip(s);
            if (*s++ != ']') return false;
        } else if (*s == '%') {
            if (!reg_ref(&s, &g->v[0])) return false;
            g->n = 1;
        } else if (isdigit((unsigned char)*s)) {
            g->imm = true;
            g->ival = strtoll(s, (char **)&s, 0);
        } else {
            return false;
        }
        s = skip(s);
        if (*s == ',') s = skip(s + 1);
    }
    return *s == 0 || (*s == ';' && *skip(s + 1) == 0);
}

/* the mnemonic's dot-separated parts */
typedef struct parts {
    char buf[128];
    const char *p[16];
    int n;
} parts;

static bool split(const char *m, size_t len, parts *P)
{
    if (len >= sizeof P->buf) return false;
    memcpy(P->buf, m, len);
    P->buf[len] = 0;
    P->n = 0;
    for (char *t = strtok(P->buf, "."); t && P->n < 16; t = strtok(NULL, ".")) P->p[P->n++] = t;
    return P->n > 0;
}

static bool has(const parts *P, const char *q)
{
    for (int i = 0; i < P->n; i++)
        if (strcmp(P->p[i], q) == 0) return true;
    return false;
}

/* --- operand access ----------------------------------------------------------------------- */

static bool is32(cute_type t)
{
    return t.dtype != CUTE_PTR && cute_dtype_bits((cute_dtype)t.dtype) * (t.lanes ? t.lanes : 1) == 32 &&
           (t.lanes <= 1 || (t.lanes == 2 && cute_dtype_bits((cute_dtype)t.dtype) == 16));
}

static uint32_t get32(ictx *X, const dinst *d, int k, uint32_t t)
{
    if (d->vtype[k].lanes == 2)
        return (uint32_t)REG(X, d->var[k])[t].u16 | (uint32_t)REG(X, d->var[k] + 1)[t].u16 << 16;
    return REG(X, d->var[k])[t].u32;
}

static void put32(ictx *X, const dinst *d, int k, uint32_t t, uint32_t v)
{
    if (d->vtype[k].lanes == 2) {
        REG(X, d->var[k])[t].u64 = v & 0xffff;
        REG(X, d->var[k] + 1)[t].u64 = v >> 16;
        return;
    }
    REG(X, d->var[k])[t].u64 = 0;
    REG(X, d->var[k])[t].u32 = v;
}

/* an address operand's value: pointers and integers of 32 or 64 bits */
static uint64_t addr_of(ictx *X, const dinst *d, const agroup *g, uint32_t t)
{
    int k = g->v[0];
    islot s = REG(X, d->var[k])[t];
    int bits = d->vtype[k].dtype == CUTE_PTR ? 64 : cute_dtype_bits((cute_dtype)d->vtype[k].dtype);
    return (bits == 32 ? s.u32 : s.u64) + (uint64_t)g->ival;
}

/* the warp of lanes [w0, w0+32) must be whole and all active; false (after a report) if not */
static bool whole_warp(ictx *X, const dinst *d, const imask *m, uint32_t w0, uint32_t *any)
{
    uint32_t nl = X->nthr - w0 < 32 ? X->nthr - w0 : 32, on = 0;
    for (uint32_t i = 0; i < nl; i++) on += m->on[w0 + i];
    *any = on;
    if (on == 32) return true;
    if (on && checking(X, CUTE_CHECK_WARP_INACTIVE)) {
        uint32_t i = 0;
        while (i < nl && m->on[w0 + i]) i++;
        interp_report(X, d, w0, CUTE_CHECK_WARP_INACTIVE, 0, 0, 0,
                      "a warp-collective instruction with %u of 32 lanes active (lane %u %s)", on,
                      i, i < nl ? "is not" : "does not exist");
    }
    return false;
}

/* --- mma.sync -------------------------------------------------------------------------------- */

static double elem(int type, uint32_t bits16or32)
{
    if (type == CUTE_F16) return cute_f16_to_f32((uint16_t)bits16or32);
    if (type == CUTE_BF16) return cute_bf16_to_f32((uint16_t)bits16or32);
    uint32_t u = bits16or32 & 0xffffe000u; /* tf32: the top 19 bits of an f32 */
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* where register r (half h) of lane (g = lane/4, q = lane%4) sits in A (row, col) / B (k, n) */
static void a_pos(const iasm *A, int r, int h, int g, int q, int *row, int *col)
{
    if (A->ab == CUTE_F32) { /* tf32 m16n8k8 */
        *row = g + 8 * (r & 1), *col = q + 4 * (r >> 1);
    } else if (A->k == 16) {
        *row = g + 8 * (r & 1), *col = 2 * q + h + 8 * (r >> 1);
    } else {
        *row = g + 8 * r, *col = 2 * q + h;
    }
}
static void b_pos(const iasm *A, int r, int h, int g, int q, int *k, int *n)
{
    *n = g;
    *k = A->ab == CUTE_F32 ? q + 4 * r : 2 * q + h + 8 * r;
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

static void asm_mma(ictx *X, const dinst *d, const imask *m)
{
    const iasm *A = d->asm_;
    const agroup *gd = &A->g[0], *ga = &A->g[1], *gb = &A->g[2], *gc = &A->g[3];
    int per = A->ab == CUTE_F32 ? 1 : 2; /* elements per A/B register */
    for (uint32_t w0 = 0; w0 < X->nthr; w0 += 32) {
        uint32_t any;
        if (!whole_warp(X, d, m, w0, &any)) continue;
        double a[16][16] = {{0}}, b[16][8] = {{0}}, c[16][8] = {{0}};
        for (int lane = 0; lane < 32; lane++) {
            uint32_t t = w0 + (uint32_t)lane;
            int g = lane / 4, q = lane % 4, row, col;
            for (int r = 0; r < ga->n; r++) {
                uint32_t v = get32(X, d, ga->v[r], t);
                for (int h = 0; h < per; h++) {
                    a_pos(A, r, h, g, q, &row, &col);
                    a[row][col] = elem(A->ab, per == 2 ? v >> (16 * h) : v);
                }
            }
            for (int r = 0; r < gb->n; r++) {
                uint32_t v = get32(X, d, gb->v[r], t);
                for (int h = 0; h < per; h++) {
                    b_pos(A, r, h, g, q, &row, &col);
                    b[row][col] = elem(A->ab, per == 2 ? v >> (16 * h) : v);
                }
            }
            for (int i = 0; i < 4; i++) {
                uint32_t v = A->cd == CUTE_F32 ? get32(X, d, gc->v[i], t) : get32(X, d, gc->v[i / 2], t) >> (16 * (i % 2));
                float f;
                memcpy(&f, &v, 4);
                c[g + 8 * (i / 2)][2 * q + i % 2] = A->cd == CUTE_F32 ? f : cute_f16_to_f32((uint16_t)v);
            }
        }
        for (int lane = 0; lane < 32; lane++) {
            uint32_t t = w0 + (uint32_t)lane, packed = 0;
            int g = lane / 4, q = lane % 4;
            for (int i = 0; i < 4; i++) {
                int row = g + 8 * (i / 2), col = 2 * q + i % 2;
                double p[16];
                for (int kk = 0; kk < A->k; kk++) p[kk] = a[row][kk] * b[kk][col];
                float f = dot(c[row][col], p, A->k);
                if (A->cd == CUTE_F32) {
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    put32(X, d, gd->v[i], t, u);
                } else {
                    packed |= (uint32_t)cute_f32_to_f16(f) << (16 * (i % 2));
                    if (i % 2) put32(X, d, gd->v[i / 2], t, packed), packed = 0;
                }
            }
        }
    }
}

/* --- ldmatrix -------------------------------------------------------------------------------- */

static void asm_ldmatrix(ictx *X, const dinst *d, const imask *m)
{
    const iasm *A = d->asm_;
    for (uint32_t w0 = 0; w0 < X->nthr; w0 += 32) {
        uint32_t any;
        if (!whole_warp(X, d, m, w0, &any)) continue;
        uint16_t mat[4][8][8] = {{{0}}};
        for (int j = 0; j < A->num; j++)
            for (int r = 0; r < 8; r++) {
                uint32_t t = w0 + (uint32_t)(j * 8 + r); /* the lane giving row r of matrix j */
                uint64_t p = addr_of(X, d, &A->g[1], t);
                if (interp_scheck(X, d, t, p, 16, 16, 0)) memcpy(mat[j][r], X->smem + p, 16);
            }
        for (int lane = 0; lane < 32; lane++)
            for (int j = 0; j < A->num; j++) {
                int r = lane / 4, c = 2 * (lane % 4);
                uint32_t lo = A->trans ? mat[j][c][r] : mat[j][r][c];
                uint32_t hi = A->trans ? mat[j][c + 1][r] : mat[j][r][c + 1];
                put32(X, d, A->g[0].v[j], w0 + (uint32_t)lane, lo | hi << 16);
            }
    }
}

/* --- cp.async, cvt packs, no-ops -------------------------------------------------------------- */

static void asm_cpasync(ictx *X, const dinst *d, const imask *m)
{
    const iasm *A = d->asm_;
    uint32_t bytes = (uint32_t)A->num;
    EACH(X, m, t, {
        uint64_t dst = addr_of(X, d, &A->g[0], t), src = addr_of(X, d, &A->g[1], t);
        uint32_t n = bytes;
        if (A->ng > 3) { /* src-size: copy that many, fill the rest with zeros */
            const agroup *g = &A->g[3];
            n = g->imm ? (uint32_t)g->ival : REG(X, d->var[g->v[0]])[t].u32;
            if (n > bytes) n = bytes;
        }
        uint8_t buf[16] = {0};
        if (n && interp_gcheck(X, d, t, src, n, bytes, 0)) memcpy(buf, (const void *)(uintptr_t)src, n);
        if (interp_scheck(X, d, t, dst, bytes, bytes, 1)) memcpy(X->smem + dst, buf, bytes);
    });
}

static void asm_cvtpack(ictx *X, const dinst *d, const imask *m)
{
    const iasm *A = d->asm_;
    bool bf = A->ab == CUTE_BF16;
    EACH(X, m, t, {
        float hi = REG(X, d->var[A->g[1].v[0]])[t].f32, lo = REG(X, d->var[A->g[2].v[0]])[t].f32;
        uint32_t v = bf ? (uint32_t)cute_f32_to_bf16(hi) << 16 | cute_f32_to_bf16(lo)
                        : (uint32_t)cute_f32_to_f16(hi) << 16 | cute_f32_to_f16(lo);
        put32(X, d, A->g[0].v[0], t, v);
    });
}

static void asm_nop(ictx *X, const dinst *d, const imask *m) { (void)X, (void)d, (void)m; }

/* --- matching ---------------------------------------------------------------------------------- */

/* group i holds n registers of 32 bits (types == NULL: do not look at types) */
static bool regs32(const iasm *A, int i, int n, const cute_type *types, uint32_t nvar)
{
    const agroup *g = &A->g[i];
    if (g->addr || g->imm || g->n != n) return false;
    for (int k = 0; k < n; k++)
        if ((uint32_t)g->v[k] >= nvar || (types && !is32(types[g->v[k]]))) return false;
    return true;
}

static bool addr_ok(const iasm *A, int i, const cute_type *types, uint32_t nvar)
{
    const agroup *g = &A->g[i];
    if (!g->addr || (uint32_t)g->v[0] >= nvar) return false;
    if (!types) return true;
    cute_type t = types[g->v[0]];
    int bits = t.dtype == CUTE_PTR ? 64 : cute_dtype_bits((cute_dtype)t.dtype);
    return t.lanes <= 1 && (bits == 32 || bits == 64) && (t.dtype == CUTE_PTR || cute_dtype_is_int((cute_dtype)t.dtype));
}

static bool match_mma(const parts *P, iasm *A, const cute_type *ty, uint32_t n, const char **why)
{
    bool k16 = has(P, "m16n8k16"), k8 = has(P, "m16n8k8");
    if (!has(P, "sync") || !has(P, "aligned") || !has(P, "row") || !has(P, "col") || (!k16 && !k8))
        return *why = "mma shapes other than m16n8k16/m16n8k8 row.col", false;
    /* the type list: dtype.atype.btype.ctype after "col" */
    int i = 0;
    while (i < P->n && strcmp(P->p[i], "col")) i++;
    if (P->n - i != 5) return *why = "this mma type combination", false;
    const char *dt = P->p[i + 1], *at = P->p[i + 2], *bt = P->p[i + 3], *ct = P->p[i + 4];
    A->kind = A_MMA, A->fn = asm_mma, A->m = 16, A->n = 8, A->k = k16 ? 16 : 8;
    if (strcmp(at, bt)) return *why = "mixed A/B types", false;
    A->ab = !strcmp(at, "f16") ? CUTE_F16 : !strcmp(at, "bf16") ? CUTE_BF16 : !strcmp(at, "tf32") ? CUTE_F32 : -1;
    if (A->ab < 0 || (A->ab == CUTE_F32 && !k8)) return *why = "this mma input type", false;
    if (strcmp(dt, ct) || (strcmp(dt, "f32") && strcmp(dt, "f16")) || (!strcmp(dt, "f16") && (A->ab != CUTE_F16 || !k16)))
        return *why = "this mma accumulator type", false;
    A->cd = !strcmp(dt, "f32") ? CUTE_F32 : CUTE_F16;
    int na = A->ab == CUTE_F32 || k16 ? 4 : 2, nb = na / 2, nc = A->cd == CUTE_F32 ? 4 : 2;
    if (A->ng != 4 || !regs32(A, 0, nc, ty, n) || !regs32(A, 1, na, ty, n) || !regs32(A, 2, nb, ty, n) ||
        !regs32(A, 3, nc, ty, n))
        return *why = "mma operands: {D}, {A}, {B}, {C} of 32-bit registers", false;
    return true;
}

static bool match_ldmatrix(const parts *P, iasm *A, const cute_type *ty, uint32_t n, const char **why)
{
    A->num = has(P, "x1") ? 1 : has(P, "x2") ? 2 : has(P, "x4") ? 4 : 0;
    if (!has(P, "sync") || !has(P, "aligned") || !has(P, "m8n8") || !A->num || !has(P, "shared") ||
        (P->n > 7 + has(P, "trans")))
        return *why = "ldmatrix other than m8n8.x{1,2,4}{.trans}.shared.b16", false;
    for (int i = 1; i < P->n; i++)
        if (strcmp(P->p[i], "b16") && strcmp(P->p[i], "sync") && strcmp(P->p[i], "aligned") &&
            strcmp(P->p[i], "m8n8") && strcmp(P->p[i], "shared") && strcmp(P->p[i], "trans") &&
            P->p[i][0] != 'x')
            return *why = "this ldmatrix qualifier", false;
    A->kind = A_LDMATRIX, A->fn = asm_ldmatrix, A->trans = has(P, "trans");
    if (A->ng != 2 || !regs32(A, 0, A->num, ty, n) || !addr_ok(A, 1, ty, n))
        return *why = "ldmatrix operands: {registers}, [shared address]", false;
    return true;
}

static bool match_cp(const parts *P, iasm *A, const cute_type *ty, uint32_t n, const char **why)
{
    A->kind = A_NOP, A->fn = asm_nop;
    if (P->n == 3 && !strcmp(P->p[2], "commit_group")) return A->ng == 0 || (*why = "operands", false);
    if (P->n == 3 && !strcmp(P->p[2], "wait_all")) return A->ng == 0 || (*why = "operands", false);
    if (P->n == 3 && !strcmp(P->p[2], "wait_group")) return (A->ng == 1 && A->g[0].imm) || (*why = "operands", false);
    if (!(has(P, "ca") || has(P, "cg")) || !has(P, "shared") || !has(P, "global"))
        return *why = "this cp.async form", false;
    for (int i = 2; i < P->n; i++)
        if (strcmp(P->p[i], "ca") && strcmp(P->p[i], "cg") && strcmp(P->p[i], "shared") &&
            strcmp(P->p[i], "global") && !strstr(P->p[i], "::") && strncmp(P->p[i], "128B", 4) &&
            strncmp(P->p[i], "256B", 4) && strncmp(P->p[i], "64B", 3))
            return *why = "this cp.async qualifier", false;
    A->kind = A_CPASYNC, A->fn = asm_cpasync;
    if (A->ng < 3 || A->ng > 4 || !addr_ok(A, 0, ty, n) || !addr_ok(A, 1, ty, n) || !A->g[2].imm)
        return *why = "cp.async operands: [shared], [global], size{, src-size}", false;
    A->num = (int)A->g[2].ival;
    if (A->num != 4 && A->num != 8 && A->num != 16) return *why = "a cp.async size other than 4, 8, 16", false;
    if (A->ng == 4 && !A->g[3].imm && !regs32(A, 3, 1, ty, n)) return *why = "the src-size operand", false;
    return true;
}

static bool match_cvt(const parts *P, iasm *A, const cute_type *ty, uint32_t n, const char **why)
{
    if (P->n != 4 || strcmp(P->p[1], "rn") || strcmp(P->p[3], "f32") ||
        (strcmp(P->p[2], "f16x2") && strcmp(P->p[2], "bf16x2")))
        return *why = "cvt other than cvt.rn.{f16x2,bf16x2}.f32", false;
    A->kind = A_CVTPACK, A->fn = asm_cvtpack, A->ab = P->p[2][0] == 'b' ? CUTE_BF16 : CUTE_F16;
    if (A->ng != 3 || !regs32(A, 0, 1, ty, n) || !regs32(A, 1, 1, ty, n) || !regs32(A, 2, 1, ty, n) ||
        (ty && (ty[A->g[1].v[0]].dtype != CUTE_F32 || ty[A->g[2].v[0]].dtype != CUTE_F32)))
        return *why = "cvt operands: a 32-bit result, two f32", false;
    return true;
}

/* the groups the instruction writes must be outputs (operands below nout), the rest inputs */
static bool directions(const iasm *A, uint32_t nout)
{
    int written = A->kind == A_MMA || A->kind == A_LDMATRIX || A->kind == A_CVTPACK ? 1 : 0;
    for (int i = 0; i < A->ng; i++)
        for (int k = 0; k < A->g[i].n; k++)
            if (((uint32_t)A->g[i].v[k] < nout) != (i < written)) return false;
    return true;
}

bool interp_asm_match(const char *ptx, const cute_type *types, uint32_t n, uint32_t nout, iasm *A,
                      const char **why)
{
    memset(A, 0, sizeof *A);
    *why = "no emulation of this instruction";
    if (!ptx) return false;
    const char *s = skip(ptx), *e = s;
    while (*e && !isspace((unsigned char)*e) && *e != ';') e++;
    parts P;
    if (!split(s, (size_t)(e - s), &P)) return false;
    if (!parse_operands(e, A)) return *why = "operands the interpreter cannot read", false;
    if (!types) n = 256; /* supports_op: the text alone */
    const char *op = P.p[0];
    bool ok = false;
    if (!strcmp(op, "mma")) ok = match_mma(&P, A, types, n, why);
    else if (!strcmp(op, "ldmatrix")) ok = match_ldmatrix(&P, A, types, n, why);
    else if (!strcmp(op, "cp") && P.n >= 3 && !strcmp(P.p[1], "async")) ok = match_cp(&P, A, types, n, why);
    else if (!strcmp(op, "cvt")) ok = match_cvt(&P, A, types, n, why);
    if (ok && types && !directions(A, nout))
        return *why = "the registers it writes must be the op's outputs, the others its inputs", false;
    return ok;
}

size_t interp_asm_size(void) { return sizeof(iasm); }
iop_fn interp_asm_fn(const iasm *a) { return a->fn; }

bool cute_interp_supports_asm(const char *ptx)
{
    iasm A;
    const char *why;
    return interp_asm_match(ptx, NULL, 0, 0, &A, &why);
}
