/* Value ops as PTX: constants, moves, arithmetic, comparisons, selects, vector lanes,
 * special registers, conversions and math.  f16/bf16 arithmetic is done in f32 and rounded
 * back once, 8-bit integers in their 16-bit registers and wrapped back, vectors lane by
 * lane: what the CUDA C backend's C does (cutec/cuda_c.h), so the two agree bit for bit. */
#include <stdio.h>
#include <string.h>

#include "cutec/cuda_c.h"
#include "ptx_internal.h"

/* --- f16/bf16 through f32 ------------------------------------------------------------- */

const char *px_to_f32(px_fn *e, cute_vreg r, int lane, char *out)
{
    char x[PX_NAME], t[PX_NAME];
    cute_dtype d = (cute_dtype)cute_ir_type(e->f, r).dtype;
    px_reg(e, r, lane, x);
    if (d == CUTE_F16) {
        px_line(e, "cvt.f32.f16 %s, %s;", px_temp(e, PX_F32, out), x);
    } else if (d == CUTE_BF16 && e->sm >= 90) {
        px_line(e, "cvt.f32.bf16 %s, %s;", px_temp(e, PX_F32, out), x);
    } else if (d == CUTE_BF16) { /* the top half of an f32 */
        px_temp(e, PX_B32, t);
        px_line(e, "cvt.u32.u16 %s, %s;", t, x);
        px_line(e, "shl.b32 %s, %s, 16;", t, t);
        px_line(e, "mov.b32 %s, %s;", px_temp(e, PX_F32, out), t);
    } else if (d == CUTE_TF32) {
        px_line(e, "mov.b32 %s, %s;", px_temp(e, PX_F32, out), x);
    } else {
        snprintf(out, PX_NAME, "%s", x);
    }
    return out;
}

void px_from_f32(px_fn *e, cute_dtype d, const char *dst, const char *f32)
{
    if (d == CUTE_F16)
        px_line(e, "cvt.rn.f16.f32 %s, %s;", dst, f32);
    else if (d == CUTE_BF16)
        px_line(e, "cvt.rn.bf16.f32 %s, %s;", dst, f32);
    else if (strcmp(dst, f32) != 0)
        px_line(e, "mov.f32 %s, %s;", dst, f32);
}

/* --- constants ------------------------------------------------------------------------ */

static bool constant(px_fn *e, const cute_ir_inst *in)
{
    cute_type t = in->type;
    cute_dtype d = (cute_dtype)t.dtype;
    char lit[64], r[PX_NAME];
    double v;
    memcpy(&v, &in->imm, sizeof v);
    if (d == CUTE_F32) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        snprintf(lit, sizeof lit, "0f%08X", u);
    } else if (d == CUTE_F64) {
        snprintf(lit, sizeof lit, "0d%016llX", (unsigned long long)in->imm);
    } else if (d == CUTE_F16 || d == CUTE_BF16) {
        snprintf(lit, sizeof lit, "0x%04X", (unsigned)(d == CUTE_F16 ? cute_f16_bits(v) : cute_bf16_bits(v)));
    } else if (d == CUTE_I1) {
        snprintf(lit, sizeof lit, "%d", in->imm != 0);
    } else if (cute_dtype_is_narrow_float(d)) {
        snprintf(lit, sizeof lit, "0x%llX", (unsigned long long)in->imm);
    } else if (cute_dtype_is_int(d)) {
        int bits = cute_dtype_bits(d);
        int64_t x = in->imm;
        if (bits == 8) x = cute_dtype_is_signed(d) ? (int64_t)(int8_t)x : (int64_t)(uint8_t)x;
        if (bits == 16) x = cute_dtype_is_signed(d) ? (int64_t)(int16_t)x : (int64_t)(uint16_t)x;
        if (bits == 32) x = cute_dtype_is_signed(d) ? (int64_t)(int32_t)x : (int64_t)(uint32_t)x;
        uint64_t u = (uint64_t)x;
        if (bits <= 16) u &= 0xffff;
        if (bits == 32) u &= 0xffffffffu;
        snprintf(lit, sizeof lit, "0x%llX", (unsigned long long)u);
    } else {
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "a constant of this type");
    }
    px_class c = px_class_of(t);
    for (int l = 0; l < (t.lanes > 1 ? t.lanes : 1); l++) {
        px_reg(e, in->dst, t.lanes > 1 ? l : -1, r);
        if (c == PX_PRED)
            px_line(e, "setp.ne.u32 %s, %s, 0;", r, lit);
        else
            px_line(e, "mov.%s %s, %s;", px_bits_type(c), r, lit);
    }
    return true;
}

/* --- arithmetic ----------------------------------------------------------------------- */

/* the PTX of op on operands of type d: "add.s32" and the like, $0 $1 $2 the operands, $d the
 * result; NULL: not one instruction */
static const char *int_op(cute_op op, bool sgn)
{
    switch (op) {
    case CUTE_OP_ADD: return "add.$t $d, $0, $1;";
    case CUTE_OP_SUB: return "sub.$t $d, $0, $1;";
    case CUTE_OP_MUL: return "mul.lo.$t $d, $0, $1;";
    case CUTE_OP_DIV: return "div.$t $d, $0, $1;";
    case CUTE_OP_REM: return "rem.$t $d, $0, $1;";
    case CUTE_OP_FMA: return "mad.lo.$t $d, $0, $1, $2;";
    case CUTE_OP_MIN: return "min.$t $d, $0, $1;";
    case CUTE_OP_MAX: return "max.$t $d, $0, $1;";
    case CUTE_OP_ABS: return sgn ? "abs.$t $d, $0;" : "mov.$b $d, $0;";
    case CUTE_OP_NEG: return "neg.$s $d, $0;";
    case CUTE_OP_SHL: return "shl.$b $d, $0, $u1;";
    case CUTE_OP_SHR: return "shr.$t $d, $0, $u1;";
    case CUTE_OP_AND: return "and.$b $d, $0, $1;";
    case CUTE_OP_OR: return "or.$b $d, $0, $1;";
    case CUTE_OP_XOR: return "xor.$b $d, $0, $1;";
    case CUTE_OP_NOT: return "not.$b $d, $0;";
    default: return NULL;
    }
}

static const char *float_op(cute_op op, bool fast, bool f64)
{
    switch (op) {
    case CUTE_OP_ADD: return "add.$t $d, $0, $1;";
    case CUTE_OP_SUB: return "sub.$t $d, $0, $1;";
    case CUTE_OP_MUL: return "mul.$t $d, $0, $1;";
    case CUTE_OP_DIV: return "div.rn.$t $d, $0, $1;";
    case CUTE_OP_FMA: return "fma.rn.$t $d, $0, $1, $2;";
    case CUTE_OP_MIN: return "min.$t $d, $0, $1;";
    case CUTE_OP_MAX: return "max.$t $d, $0, $1;";
    case CUTE_OP_ABS: return "abs.$t $d, $0;";
    case CUTE_OP_NEG: return "neg.$t $d, $0;";
    case CUTE_OP_SQRT: return fast && !f64 ? "sqrt.approx.f32 $d, $0;" : "sqrt.rn.$t $d, $0;";
    /* the CUDA C backend's fast forms: PTX .approx, as its prelude writes them */
    /* exp2f is ex2.approx.f32 itself (NVRTC's PTX for it); the fast form flushes to zero */
    case CUTE_OP_EXP2: return f64 ? NULL : fast ? "ex2.approx.ftz.f32 $d, $0;" : "ex2.approx.f32 $d, $0;";
    case CUTE_OP_RSQRT: return f64 ? NULL : "rsqrt.approx.f32 $d, $0;";
    case CUTE_OP_TANH: return fast && !f64 ? "tanh.approx.f32 $d, $0;" : NULL;
    /* __expf, __logf, __log2f, __sinf, __cosf as CUDA's headers define them (without
     * --use_fast_math: not flushed to zero) */
    case CUTE_OP_EXP: return fast && !f64 ? "mul.f32 $d, $0, 0f3FB8AA3B; ex2.approx.f32 $d, $d;" : NULL;
    case CUTE_OP_LOG2: return fast && !f64 ? "lg2.approx.f32 $d, $0;" : NULL;
    case CUTE_OP_LOG: return fast && !f64 ? "lg2.approx.f32 $d, $0; mul.f32 $d, $d, 0f3F317218;" : NULL;
    case CUTE_OP_SIN: return fast && !f64 ? "sin.approx.f32 $d, $0;" : NULL;
    case CUTE_OP_COS: return fast && !f64 ? "cos.approx.f32 $d, $0;" : NULL;
    default: return NULL;
    }
}

static const char *pred_op(cute_op op)
{
    switch (op) {
    case CUTE_OP_AND:
    case CUTE_OP_MIN: return "and.pred $d, $0, $1;";
    case CUTE_OP_OR:
    case CUTE_OP_MAX: return "or.pred $d, $0, $1;";
    case CUTE_OP_XOR:
    case CUTE_OP_NE: return "xor.pred $d, $0, $1;";
    case CUTE_OP_EQ: return "xor.pred $d, $0, $1; not.pred $d, $d;";
    case CUTE_OP_NOT: return "not.pred $d, $0;";
    default: return NULL;
    }
}

/* fmt with $d $0 $1 $2 $u1 $t $b $s replaced */
static void subst(px_fn *e, const char *fmt, const char *d, char x[3][PX_NAME], const char *ty,
                  const char *bits, const char *sty, const char *u1)
{
    char out[PX_TEXT];
    size_t k = 0;
    for (const char *p = fmt; *p && k + 64 < sizeof out; p++) {
        const char *s = NULL;
        if (p[0] == '$') {
            switch (p[1]) {
            case 'd': s = d; break;
            case '0': case '1': case '2': s = x[p[1] - '0']; break;
            case 'u': s = u1, p++; break;
            case 't': s = ty; break;
            case 'b': s = bits; break;
            case 's': s = sty; break;
            }
        }
        if (s) {
            size_t m = strlen(s);
            memcpy(out + k, s, m);
            k += m;
            p++;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = 0;
    px_line(e, "%s", out);
}

/* 8-bit integers are kept extended in 16-bit registers: wrap a result back */
static void wrap8(px_fn *e, cute_dtype d, const char *r)
{
    if (d == CUTE_I8) px_line(e, "cvt.s16.s8 %s, %s;", r, r);
    if (d == CUTE_U8) px_line(e, "and.b16 %s, %s, 0xFF;", r, r);
}

static bool arith(px_fn *e, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    cute_type t = cute_ir_type(e->f, in->a[0]);
    cute_dtype d = (cute_dtype)t.dtype;
    int nargs = cute_op_nargs(op);
    bool fl = cute_dtype_is_float(d), f64 = d == CUTE_F64, fast = (in->flags & CUTE_IR_FAST) != 0;
    const char *fmt = d == CUTE_I1 ? pred_op(op)
                      : fl         ? float_op(op, fast, f64)
                      : cute_dtype_is_int(d) ? int_op(op, cute_dtype_is_signed(d))
                                             : NULL;
    if (!fmt)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "%s on %s%s is not one PTX instruction here",
                       cute_op_name(op), cute_dtype_name(d), fast ? " (fast)" : "");
    int bits = cute_dtype_bits(d);
    char bt[8], st[8];
    snprintf(bt, sizeof bt, "b%d", bits < 16 ? 16 : bits);
    snprintf(st, sizeof st, "s%d", bits < 16 ? 16 : bits);
    const char *ty = fl ? (f64 ? "f64" : "f32") : px_arith_type(d);
    for (int l = 0; l < (t.lanes > 1 ? t.lanes : 1); l++) {
        int lane = t.lanes > 1 ? l : -1;
        char x[3][PX_NAME], dst[PX_NAME], u1[PX_NAME] = "", res[PX_NAME];
        int literals = 0;
        for (int k = 0; k < nargs; k++)
            if (px_is_16f(d))
                px_to_f32(e, in->a[k], lane, x[k]);
            else if (lane < 0 && d != CUTE_I1 && px_const(e, in->a[k]) && ++literals < nargs)
                px_opnd(e, in->a[k], lane, x[k]);
            else
                px_reg(e, in->a[k], lane, x[k]); /* not every operand a literal */
        px_reg(e, in->dst, lane, dst);
        if (op == CUTE_OP_SHL || op == CUTE_OP_SHR) { /* PTX shifts by a u32 */
            const cute_ir_inst *c = px_const(e, in->a[1]);
            if (bits == 32 || (c && lane < 0)) {
                if (c && lane < 0)
                    snprintf(u1, sizeof u1, "%u", (unsigned)(c->imm & 0xff));
                else
                    snprintf(u1, sizeof u1, "%s", x[1]);
            } else {
                px_temp(e, PX_B32, u1);
                px_line(e, "cvt.u32.%s %s, %s;", px_arith_type(d), u1, x[1]);
            }
        }
        const char *r = dst;
        if (px_is_16f(d)) r = px_temp(e, PX_F32, res);
        subst(e, fmt, r, x, px_is_16f(d) ? "f32" : ty, bt, st, u1);
        if (px_is_16f(d)) px_from_f32(e, d, dst, r);
        wrap8(e, d, dst);
    }
    return true;
}

static bool compare(px_fn *e, const cute_ir_inst *in)
{
    static const char *const ints[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    /* C's != is true for NaN (unordered); the others are ordered */
    static const char *const floats[] = {"eq", "neu", "lt", "le", "gt", "ge"};
    cute_op op = (cute_op)in->op;
    cute_type t = cute_ir_type(e->f, in->a[0]);
    cute_dtype d = (cute_dtype)t.dtype;
    if (t.lanes != 1) return px_fail(e, CUTE_ERR_UNSUPPORTED, "compares vectors");
    if (d == CUTE_I1) {
        const char *fmt = pred_op(op);
        if (!fmt) return px_fail(e, CUTE_ERR_UNSUPPORTED, "not defined on i1");
        char x[3][PX_NAME], dst[PX_NAME];
        px_reg(e, in->a[0], -1, x[0]), px_reg(e, in->a[1], -1, x[1]);
        subst(e, fmt, px_reg(e, in->dst, -1, dst), x, "pred", "pred", "pred", "");
        return true;
    }
    int k = op - CUTE_OP_EQ;
    char a[PX_NAME], b[PX_NAME], dst[PX_NAME];
    px_reg(e, in->dst, -1, dst);
    if (cute_dtype_is_float(d)) {
        if (px_is_16f(d))
            px_to_f32(e, in->a[0], -1, a), px_to_f32(e, in->a[1], -1, b);
        else
            px_reg(e, in->a[0], -1, a), px_opnd(e, in->a[1], -1, b);
        px_line(e, "setp.%s.%s %s, %s, %s;", floats[k], d == CUTE_F64 ? "f64" : "f32", dst, a, b);
        return true;
    }
    if (!cute_dtype_is_int(d) && d != CUTE_PTR)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "compares %s", cute_dtype_name(d));
    const char *ty = d == CUTE_PTR && px_is_smem_ptr(t) ? "u32" : px_arith_type(d);
    px_line(e, "setp.%s.%s %s, %s, %s;", ints[k], ty, dst, px_reg(e, in->a[0], -1, a), px_opnd(e, in->a[1], -1, b));
    return true;
}

/* --- conversions ---------------------------------------------------------------------- */

/* the round-to-odd f32 of a wider value x (f64, or a 64-bit integer; sx: its PTX type), so
 * that one later rounding to bf16 is the correct rounding of x (cuda_c_prelude.c's
 * cute_ro_*) */
static void round_to_odd(px_fn *e, const char *x, const char *sx, char *f)
{
    char back[PX_NAME], p[PX_NAME], u[PX_NAME];
    bool fp = strcmp(sx, "f64") == 0;
    px_temp(e, PX_F32, f);
    px_line(e, "cvt.rz.f32.%s %s, %s;", sx, f, x);
    px_temp(e, fp ? PX_F64 : PX_B64, back);
    px_line(e, "cvt.%s%s.f32 %s, %s;", fp ? "" : "rzi.", sx, back, f);
    px_temp(e, PX_PRED, p);
    /* inexact (a NaN compares unequal, ordered: false, as the C's `|| x != x`) */
    px_line(e, "setp.ne.%s %s, %s, %s;", sx, p, back, x);
    px_temp(e, PX_B32, u);
    px_line(e, "mov.b32 %s, %s;", u, f);
    px_line(e, "@%s or.b32 %s, %s, 1;", p, u, u);
    px_line(e, "mov.b32 %s, %s;", f, u);
}

/* lane of a0 (dtype s) into dst (dtype t), as cuda_c_expr.c's cvt_text */
static bool cvt_lane(px_fn *e, cute_vreg a, int lane, cute_dtype s, cute_dtype t, const char *dst)
{
    char x[PX_NAME], f[PX_NAME], w[PX_NAME];
    px_reg(e, a, lane, x);
    if (s == t) {
        px_line(e, "mov.%s %s, %s;", px_bits_type(px_class_of(cute_type_of(s))), dst, x);
        return true;
    }
    bool narrow = cute_dtype_is_narrow_float(s) || cute_dtype_is_narrow_float(t);
    if (narrow && !((s == CUTE_TF32 && t == CUTE_F32) || (s == CUTE_F32 && t == CUTE_TF32) ||
                    (s == CUTE_TF32 && (cute_dtype_is_float(t) || cute_dtype_is_int(t) || t == CUTE_I1))))
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "converts %s to %s", cute_dtype_name(s), cute_dtype_name(t));
    if (t == CUTE_TF32) { /* from f32 only, here */
        px_line(e, "cvt.rna.tf32.f32 %s, %s;", dst, x);
        return true;
    }
    if (t == CUTE_I1) {
        if (cute_dtype_is_float(s) || s == CUTE_TF32) {
            px_to_f32(e, a, lane, f);
            px_line(e, "setp.neu.%s %s, %s, 0%s;", s == CUTE_F64 ? "f64" : "f32", dst, f,
                     s == CUTE_F64 ? "d0000000000000000" : "f00000000");
        } else {
            px_line(e, "setp.ne.%s %s, %s, 0;", px_arith_type(s), dst, x);
        }
        return true;
    }
    if (s == CUTE_I1) { /* 1 or 0 of the target */
        const char *one = t == CUTE_F32 ? "0f3F800000" : t == CUTE_F64 ? "0d3FF0000000000000"
                          : t == CUTE_F16 ? "0x3C00" : t == CUTE_BF16 ? "0x3F80" : "1";
        px_line(e, "selp.%s %s, %s, 0, %s;", px_bits_type(px_class_of(cute_type_of(t))), dst, one, x);
        return true;
    }
    if (px_is_16f(s) || s == CUTE_TF32) { /* exact in f32, then as from f32 */
        px_to_f32(e, a, lane, f);
        if (t == CUTE_F32) return px_line(e, "mov.f32 %s, %s;", dst, f), true;
        s = CUTE_F32;
        snprintf(x, sizeof x, "%s", f);
    }
    bool sf = cute_dtype_is_float(s), tf = cute_dtype_is_float(t);
    const char *st = px_arith_type(s), *tt = px_arith_type(t);
    if (!sf && !tf) { /* integers: truncate or extend, as C's cast */
        int sb = cute_dtype_bits(s), tb = cute_dtype_bits(t);
        if (tb == 8) { /* through the 8-bit type: wraps and extends into the 16-bit register */
            px_line(e, "cvt.%s8.%s %s, %s;", cute_dtype_is_signed(t) ? "s" : "u", st, dst, x);
        } else if (sb == tb || (sb == 8 && tb == 16)) {
            px_line(e, "mov.b%d %s, %s;", tb, dst, x);
        } else {
            px_line(e, "cvt.%s.%s %s, %s;", tt, st, dst, x);
        }
        return true;
    }
    if (tf && !px_is_16f(t)) { /* to f32 / f64 */
        if (sf && cute_dtype_bits(t) > cute_dtype_bits(s))
            px_line(e, "cvt.%s.%s %s, %s;", tt, st, dst, x);
        else
            px_line(e, "cvt.rn.%s.%s %s, %s;", tt, st, dst, x);
        return true;
    }
    if (!tf) { /* float -> int: truncating, saturating; NaN -> 0 from f64 and to 64 bits */
        int tb = cute_dtype_bits(t);
        char r8[8];
        snprintf(r8, sizeof r8, "%s8", cute_dtype_is_signed(t) ? "s" : "u");
        px_line(e, "cvt.rzi.%s.%s %s, %s;", tb == 8 ? r8 : tt, st, dst, x);
        if (s == CUTE_F64 || tb == 64) {
            char p[PX_NAME];
            px_temp(e, PX_PRED, p);
            px_line(e, "setp.nan.%s %s, %s, %s;", st, p, x, x);
            px_line(e, "@%s mov.b%d %s, 0;", p, tb < 16 ? 16 : tb, dst);
        }
        return true;
    }
    /* to f16 / bf16 */
    if (s == CUTE_F32) return px_from_f32(e, t, dst, x), true;
    if (t == CUTE_F16 && s == CUTE_F64) return px_line(e, "cvt.rn.f16.f64 %s, %s;", dst, x), true;
    if (t == CUTE_F16 || cute_dtype_bits(s) <= 16) { /* through f32, exact below 2^24 */
        px_temp(e, PX_F32, f);
        px_line(e, "cvt.rn.f32.%s %s, %s;", st, f, x);
        px_from_f32(e, t, dst, f);
        return true;
    }
    /* bf16 from f64 or a 32/64-bit integer: round to odd, then once to bf16 */
    const char *wide = x;
    const char *wt = s == CUTE_F64 ? "f64" : cute_dtype_is_signed(s) ? "s64" : "u64";
    if (cute_dtype_bits(s) == 32) {
        px_temp(e, PX_B64, w);
        px_line(e, "cvt.%s.%s %s, %s;", wt, st, w, x);
        wide = w;
    }
    round_to_odd(e, wide, wt, f);
    px_from_f32(e, t, dst, f);
    return true;
}

static bool cvt(px_fn *e, const cute_ir_inst *in)
{
    cute_type s = cute_ir_type(e->f, in->a[0]), t = in->type;
    char dst[PX_NAME], x[PX_NAME];
    if (s.dtype == CUTE_PTR || t.dtype == CUTE_PTR) { /* pointer <-> integer or pointer */
        if (s.lanes != 1 || t.lanes != 1 || (s.dtype != CUTE_PTR && !cute_dtype_is_int(s.dtype)) ||
            (t.dtype != CUTE_PTR && !cute_dtype_is_int(t.dtype)))
            return px_fail(e, CUTE_ERR_UNSUPPORTED, "converts a pointer to a non-integer");
        px_reg(e, in->dst, -1, dst);
        px_reg(e, in->a[0], -1, x);
        bool ss = px_is_smem_ptr(s), ts = px_is_smem_ptr(t);
        if (s.dtype == CUTE_PTR && t.dtype == CUTE_PTR && ss != ts) { /* through the generic address */
            if (ss) {
                px_line(e, "cvt.u64.u32 %s, %s;", dst, x);
                px_line(e, "cvta.shared.u64 %s, %s;", dst, dst);
            } else {
                char g[PX_NAME];
                px_temp(e, PX_B64, g);
                px_line(e, "cvta.to.shared.u64 %s, %s;", g, x);
                px_line(e, "cvt.u32.u64 %s, %s;", dst, g);
            }
            return true;
        }
        /* as integers: a shared pointer is its u32 window address, a global one 64 bits */
        cute_dtype sd = s.dtype == CUTE_PTR ? (ss ? CUTE_U32 : CUTE_U64) : (cute_dtype)s.dtype;
        cute_dtype td = t.dtype == CUTE_PTR ? (ts ? CUTE_U32 : CUTE_U64) : (cute_dtype)t.dtype;
        if (sd == td || cute_dtype_bits(sd) == cute_dtype_bits(td))
            px_line(e, "mov.b%d %s, %s;", cute_dtype_bits(td), dst, x);
        else
            return cvt_lane(e, in->a[0], -1, sd, td, dst);
        return true;
    }
    if (s.lanes != t.lanes)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "converts %d lanes to %d", s.lanes, t.lanes);
    for (int l = 0; l < (t.lanes > 1 ? t.lanes : 1); l++) {
        int lane = t.lanes > 1 ? l : -1;
        if (!cvt_lane(e, in->a[0], lane, (cute_dtype)s.dtype, (cute_dtype)t.dtype, px_reg(e, in->dst, lane, dst)))
            return false;
    }
    return true;
}

static bool bitcast(px_fn *e, const cute_ir_inst *in)
{
    cute_type s = cute_ir_type(e->f, in->a[0]), t = in->type;
    char d[PX_NAME], x[PX_NAME];
    if (cute_type_eq(s, t) || (s.lanes == 1 && t.lanes == 1 && px_class_of(s) != PX_PRED &&
                               cute_dtype_bits((cute_dtype)s.dtype) == cute_dtype_bits((cute_dtype)t.dtype) &&
                               s.dtype != CUTE_PTR && t.dtype != CUTE_PTR)) {
        int lanes = t.lanes > 1 ? t.lanes : 1;
        for (int l = 0; l < lanes; l++)
            px_line(e, "mov.%s %s, %s;", px_bits_type(px_class_of(t)), px_reg(e, in->dst, lanes > 1 ? l : -1, d),
                    px_reg(e, in->a[0], lanes > 1 ? l : -1, x));
        return true;
    }
    if (s.dtype == CUTE_PTR || t.dtype == CUTE_PTR) /* as CVT: cuda_c's cc_ptr_cast for both */
        return cvt(e, in);
    /* through 32-bit words */
    char words[64][PX_NAME];
    int n = 0;
    int bytes = cute_dtype_bytes((cute_dtype)s.dtype) * s.lanes;
    if (bytes % 4 || bytes > 256 || s.dtype == CUTE_E2M1 || t.dtype == CUTE_E2M1)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "a bitcast of %d bytes", bytes);
    return px_pack32(e, in->a[0], words, &n) && px_unpack32(e, in->dst, words, n);
}

/* --- the rest ------------------------------------------------------------------------- */

static bool sreg(px_fn *e, const cute_ir_inst *in)
{
    static const char *const names[] = {"%tid.x", "%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
                                        "%ntid.x", "%ntid.y", "%ntid.z", "%nctaid.x", "%nctaid.y",
                                        "%nctaid.z", "%laneid"};
    char d[PX_NAME];
    if (in->imm < 0 || in->imm >= CUTE_SREG_COUNT)
        return px_fail(e, CUTE_ERR_INVALID, "no special register %lld", (long long)in->imm);
    px_reg(e, in->dst, -1, d);
    if (in->imm != CUTE_SREG_WARPID) return px_line(e, "mov.u32 %s, %s;", d, names[in->imm]), true;
    /* the warp of the linear thread index (not PTX %warpid, a hardware slot) */
    char a[PX_NAME], b[PX_NAME];
    px_temp(e, PX_B32, a), px_temp(e, PX_B32, b);
    px_line(e, "mov.u32 %s, %%tid.z;", a);
    px_line(e, "mov.u32 %s, %%ntid.y;", b);
    px_line(e, "mul.lo.u32 %s, %s, %s;", a, a, b);
    px_line(e, "mov.u32 %s, %%tid.y;", b);
    px_line(e, "add.u32 %s, %s, %s;", a, a, b);
    px_line(e, "mov.u32 %s, %%ntid.x;", b);
    px_line(e, "mul.lo.u32 %s, %s, %s;", a, a, b);
    px_line(e, "mov.u32 %s, %%tid.x;", b);
    px_line(e, "add.u32 %s, %s, %s;", a, a, b);
    px_line(e, "shr.u32 %s, %s, 5;", d, a);
    return true;
}

static bool select_op(px_fn *e, const cute_ir_inst *in)
{
    cute_type t = in->type;
    char c[PX_NAME], a[PX_NAME], b[PX_NAME], d[PX_NAME];
    px_reg(e, in->a[0], -1, c);
    for (int l = 0; l < (t.lanes > 1 ? t.lanes : 1); l++) {
        int lane = t.lanes > 1 ? l : -1;
        px_reg(e, in->dst, lane, d);
        if (lane < 0 && px_class_of(t) != PX_PRED && px_class_of(t) != PX_B16)
            px_opnd(e, in->a[1], lane, a), px_opnd(e, in->a[2], lane, b);
        else
            px_reg(e, in->a[1], lane, a), px_reg(e, in->a[2], lane, b);
        if (px_class_of(t) == PX_PRED) {
            px_line(e, "@%s mov.pred %s, %s;", c, d, a);
            px_line(e, "@!%s mov.pred %s, %s;", c, d, b);
        } else {
            px_line(e, "selp.%s %s, %s, %s, %s;", px_bits_type(px_class_of(t)), d, a, b, c);
        }
    }
    return true;
}

bool px_value(px_fn *e, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    char d[PX_NAME], a[PX_NAME];
    switch (op) {
    case CUTE_OP_CONST:
        return constant(e, in);
    case CUTE_OP_MOV: {
        cute_type t = cute_ir_type(e->f, in->dst);
        for (int l = 0; l < (t.lanes > 1 ? t.lanes : 1); l++)
            px_line(e, "mov.%s %s, %s;", px_bits_type(px_class_of(t)), px_reg(e, in->dst, t.lanes > 1 ? l : -1, d),
                    px_reg(e, in->a[0], t.lanes > 1 ? l : -1, a));
        return true;
    }
    case CUTE_OP_CVT:
        return cvt(e, in);
    case CUTE_OP_BITCAST:
        return bitcast(e, in);
    case CUTE_OP_SELECT:
        return select_op(e, in);
    case CUTE_OP_SREG:
        return sreg(e, in);
    case CUTE_OP_EXTRACT: {
        cute_type t = cute_ir_type(e->f, in->dst);
        px_line(e, "mov.%s %s, %s;", px_bits_type(px_class_of(t)), px_reg(e, in->dst, -1, d),
                px_reg(e, in->a[0], (int)in->imm, a));
        return true;
    }
    case CUTE_OP_INSERT: {
        cute_type t = cute_ir_type(e->f, in->dst);
        const char *bt = px_bits_type(px_class_of(t));
        for (int l = 0; l < t.lanes; l++)
            if (l != in->imm && in->dst != in->a[0])
                px_line(e, "mov.%s %s, %s;", bt, px_reg(e, in->dst, l, d), px_reg(e, in->a[0], l, a));
        px_line(e, "mov.%s %s, %s;", bt, px_reg(e, in->dst, (int)in->imm, d), px_reg(e, in->a[1], -1, a));
        return true;
    }
    default:
        break;
    }
    if (op >= CUTE_OP_EQ && op <= CUTE_OP_GE) return compare(e, in);
    if (px_divide_const(e, in)) return true;
    return arith(e, in);
}
