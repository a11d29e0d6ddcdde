/* Value ops as C expressions: a table from op to text per kind of operand, operands
 * written $0 $1 $2.  f16/bf16 operands are widened to f32 and the result rounded back;
 * vector operands are done lane by lane. */
#include <stdio.h>
#include <string.h>

#include "cuda_c_internal.h"

/* int: integers; f: f32 (also f16/bf16, in f32); d: f64; fast: f32 with CUTE_IR_FAST */
typedef struct op_text {
    const char *i, *f, *d, *fast;
} op_text;

static const op_text texts[CUTE_OP_COUNT] = {
    [CUTE_OP_ADD] = {"$0 + $1", "$0 + $1", "$0 + $1", NULL},
    [CUTE_OP_SUB] = {"$0 - $1", "$0 - $1", "$0 - $1", NULL},
    [CUTE_OP_MUL] = {"$0 * $1", "$0 * $1", "$0 * $1", NULL},
    [CUTE_OP_DIV] = {"$0 / $1", "$0 / $1", "$0 / $1", NULL},
    [CUTE_OP_REM] = {"$0 % $1", "fmodf($0, $1)", "fmod($0, $1)", NULL},
    [CUTE_OP_FMA] = {"$0 * $1 + $2", "fmaf($0, $1, $2)", "fma($0, $1, $2)", NULL},
    [CUTE_OP_MIN] = {"$0 < $1 ? $0 : $1", "fminf($0, $1)", "fmin($0, $1)", NULL},
    [CUTE_OP_MAX] = {"$0 > $1 ? $0 : $1", "fmaxf($0, $1)", "fmax($0, $1)", NULL},
    [CUTE_OP_ABS] = {"$0 < 0 ? -$0 : $0", "fabsf($0)", "fabs($0)", NULL},
    [CUTE_OP_NEG] = {"-$0", "-$0", "-$0", NULL},
    [CUTE_OP_SHL] = {"$0 << $1", NULL, NULL, NULL},
    [CUTE_OP_SHR] = {"$0 >> $1", NULL, NULL, NULL},
    [CUTE_OP_AND] = {"$0 & $1", NULL, NULL, NULL},
    [CUTE_OP_OR] = {"$0 | $1", NULL, NULL, NULL},
    [CUTE_OP_XOR] = {"$0 ^ $1", NULL, NULL, NULL},
    [CUTE_OP_NOT] = {"~$0", NULL, NULL, NULL},
    [CUTE_OP_EQ] = {"$0 == $1", "$0 == $1", "$0 == $1", NULL},
    [CUTE_OP_NE] = {"$0 != $1", "$0 != $1", "$0 != $1", NULL},
    [CUTE_OP_LT] = {"$0 < $1", "$0 < $1", "$0 < $1", NULL},
    [CUTE_OP_LE] = {"$0 <= $1", "$0 <= $1", "$0 <= $1", NULL},
    [CUTE_OP_GT] = {"$0 > $1", "$0 > $1", "$0 > $1", NULL},
    [CUTE_OP_GE] = {"$0 >= $1", "$0 >= $1", "$0 >= $1", NULL},
    [CUTE_OP_EXP] = {NULL, "expf($0)", "exp($0)", "__expf($0)"},
    [CUTE_OP_EXP2] = {NULL, "exp2f($0)", "exp2($0)", "cute_ex2_approx($0)"},
    [CUTE_OP_LOG] = {NULL, "logf($0)", "log($0)", "__logf($0)"},
    [CUTE_OP_LOG2] = {NULL, "log2f($0)", "log2($0)", "__log2f($0)"},
    [CUTE_OP_SQRT] = {NULL, "sqrtf($0)", "sqrt($0)", "cute_sqrt_approx($0)"},
    [CUTE_OP_RSQRT] = {NULL, "rsqrtf($0)", "rsqrt($0)", "cute_rsqrt_approx($0)"},
    [CUTE_OP_TANH] = {NULL, "tanhf($0)", "tanh($0)", "cute_tanh_approx($0)"},
    [CUTE_OP_SIN] = {NULL, "sinf($0)", "sin($0)", "__sinf($0)"},
    [CUTE_OP_COS] = {NULL, "cosf($0)", "cos($0)", "__cosf($0)"},
    [CUTE_OP_ERF] = {NULL, "erff($0)", "erf($0)", NULL},
    [CUTE_OP_POW] = {NULL, "powf($0, $1)", "pow($0, $1)", "__powf($0, $1)"},
};

/* i1 as a 1-bit unsigned integer: the ops that mean something on it */
static const char *bool_text(cute_op op)
{
    switch (op) {
    case CUTE_OP_AND:
    case CUTE_OP_MIN:
        return "$0 & $1";
    case CUTE_OP_OR:
    case CUTE_OP_MAX:
        return "$0 | $1";
    case CUTE_OP_XOR:
    case CUTE_OP_NE:
        return "$0 != $1";
    case CUTE_OP_EQ:
        return "$0 == $1";
    case CUTE_OP_NOT:
        return "!$0";
    default:
        return NULL;
    }
}

/* fmt with $k replaced by x[k] */
static void subst(char *out, size_t n, const char *fmt, const char *const x[3])
{
    size_t k = 0;
    for (const char *p = fmt; *p && k + 1 < n; p++) {
        if (p[0] == '$' && p[1] >= '0' && p[1] <= '2') {
            const char *s = x[p[1] - '0'];
            size_t m = strlen(s);
            if (k + m + 1 >= n) break;
            memcpy(out + k, s, m);
            k += m;
            p++;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = 0;
}

static bool small_int(cute_dtype d)
{
    return d == CUTE_I8 || d == CUTE_I16 || d == CUTE_U8 || d == CUTE_U16;
}

/* the op's text for operands of dtype d (NULL: no meaning there) */
static const char *text_for(cc_fn *e, const cute_ir_inst *in, cute_dtype d)
{
    cute_op op = (cute_op)in->op;
    const op_text *t = &texts[op];
    if (d == CUTE_I1) return bool_text(op);
    if (d == CUTE_F64) return t->d;
    if (cute_dtype_is_float(d)) {
        if ((in->flags & CUTE_IR_FAST) && t->fast) {
            if (strncmp(t->fast, "cute_", 5) == 0) e->m->needs |= NEED_APPROX;
            return t->fast;
        }
        return t->f;
    }
    if (!cute_dtype_is_signed(d) && op == CUTE_OP_ABS) return "$0";
    if (!cute_dtype_is_signed(d) && op == CUTE_OP_NEG) return "0 - $0";
    return t->i;
}

/* one lane (or the scalar) of an arithmetic, comparison or math op, as an expression */
static bool lane_expr(cc_fn *e, const cute_ir_inst *in, cute_dtype d, int lane, char *out)
{
    const char *fmt = text_for(e, in, d);
    if (!fmt) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "not defined on %s", cute_dtype_name(d));
    int nargs = cute_op_nargs((cute_op)in->op);
    char raw[3][CC_NAME], wide[3][CC_NAME + 16];
    const char *x[3] = {"", "", ""};
    for (int k = 0; k < nargs; k++) {
        cc_opnd(e, in->a[k], lane, raw[k]);
        x[k] = cc_to_f32(e, d, raw[k], wide[k]);
        /* u8/u16 would promote to int, where a product can overflow: compute in u32 */
        if ((d == CUTE_U8 || d == CUTE_U16) && in->op != CUTE_OP_SHR)
            snprintf(wide[k], sizeof wide[k], "(u32)%s", raw[k]), x[k] = wide[k];
    }
    subst(out, CC_EXPR, fmt, x);
    return true;
}

/* dst = a0 op a1 ..., lane by lane for vectors; the result rounded/wrapped to dst's type */
static bool arith(cc_fn *e, const cute_ir_inst *in, bool compare)
{
    cute_type t = cute_ir_type(e->f, in->a[0]);
    cute_dtype d = (cute_dtype)t.dtype, rd = compare ? CUTE_I1 : d;
    if (compare && t.lanes != 1) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "compares vectors");
    char ex[CC_EXPR], wrapped[CC_EXPR + 32], def[CC_NAME], name[CC_NAME];
    if (t.lanes > 1) cc_decl(e, in->dst);
    for (int lane = t.lanes > 1 ? 0 : -1; lane < (t.lanes > 1 ? t.lanes : 0); lane++) {
        if (!lane_expr(e, in, d, lane, ex)) return false;
        const char *v = ex;
        if (!compare && small_int(d)) {
            snprintf(wrapped, sizeof wrapped, "(%s)(%s)", cc_scalar_name(d), ex);
            v = wrapped;
        } else if (!compare) {
            v = cc_from_f32(e, rd, ex, wrapped);
        }
        if (lane < 0)
            cc_line(e, "%s%s;", cc_def(e, in->dst, def), v);
        else
            cc_line(e, "%s = %s;", cc_opnd(e, in->dst, lane, name), v);
    }
    return true;
}

/* --- conversions ---------------------------------------------------------------------- */

/* x (dtype s) converted to dtype t, per the IR: one rounding to nearest even; float -> int
 * truncating and saturating (NaN -> 0) */
static bool cvt_text(cc_fn *e, cute_dtype s, cute_dtype t, const char *x, char *out)
{
    char w[CC_NAME + 16];
    if (s == t) return snprintf(out, CC_EXPR, "%s", x), true;
    if (t == CUTE_I1) {
        const char *zero = s == CUTE_F64 ? "0.0" : cute_dtype_is_float(s) ? "0.0f" : "0";
        return snprintf(out, CC_EXPR, "%s != %s", cc_to_f32(e, s, x, w), zero), true;
    }
    if (cc_is_16f(s) || cute_dtype_is_narrow_float(s)) { /* exact in f32, then as from f32 */
        cc_to_f32(e, s, x, w);
        char tmp[CC_NAME + 16];
        snprintf(tmp, sizeof tmp, "%s", w);
        return cvt_text(e, CUTE_F32, t, tmp, out);
    }
    const char *tn = cc_scalar_name(t);
    if (cute_dtype_is_narrow_float(t)) { /* from f32, or from f64 rounded to odd first */
        e->m->needs |= cc_narrow_need(t);
        if (s != CUTE_F64) return snprintf(out, CC_EXPR, "cute_f32_%s(%s)", tn, x), true;
        e->m->needs |= NEED_RO;
        return snprintf(out, CC_EXPR, "cute_f32_%s(cute_ro_d2f(%s))", tn, x), true;
    }
    bool sf = cute_dtype_is_float(s), tf = cute_dtype_is_float(t);
    if (!tf && !sf) return snprintf(out, CC_EXPR, "(%s)%s", tn, x), true;
    if (tf && !cc_is_16f(t)) return snprintf(out, CC_EXPR, "(%s)%s", tn, x), true;
    if (!tf) { /* float -> int */
        const char *src = s == CUTE_F64 ? "double" : "float";
        static const char *wide[] = {
            [CUTE_I32] = "int", [CUTE_U32] = "uint", [CUTE_I64] = "ll", [CUTE_U64] = "ull"};
        char conv[CC_EXPR];
        if (small_int(t)) {
            e->m->needs |= NEED_F2I;
            snprintf(conv, sizeof conv, "cute_cvt_%s_%s(%s)", tn, cc_scalar_name(s), x);
        } else {
            snprintf(conv, sizeof conv, "__%s2%s_rz(%s)", src, wide[t], x);
        }
        /* the hardware gives NaN -> 0 only from f32 to 32 bits and less (measured on sm_90:
         * f64 -> any and f32 -> 64-bit give the target's 0x80..0) */
        if (s == CUTE_F64 || cute_dtype_bits(t) == 64)
            return snprintf(out, CC_EXPR, "%s != %s ? (%s)0 : %s", x, x, tn, conv), true;
        return snprintf(out, CC_EXPR, "%s", conv), true;
    }
    /* to f16 / bf16 */
    const char *round = t == CUTE_F16 ? "cute_f2h" : "cute_f2bf";
    e->m->needs |= t == CUTE_F16 ? NEED_F16 : NEED_BF16;
    if (t == CUTE_F16 && s == CUTE_F64) return snprintf(out, CC_EXPR, "cute_d2h(%s)", x), true;
    /* f16: ints through f32 are exact below 2^24, and f16 overflows far below that */
    if (s == CUTE_F32) return snprintf(out, CC_EXPR, "%s(%s)", round, x), true;
    if (t == CUTE_F16 || cute_dtype_bits(s) <= 16 || s == CUTE_I1)
        return snprintf(out, CC_EXPR, "%s((f32)%s)", round, x), true;
    e->m->needs |= NEED_RO;
    const char *ro = s == CUTE_F64             ? "cute_ro_d2f(%s)"
                     : cute_dtype_is_signed(s) ? "cute_ro_ll2f((i64)%s)"
                                               : "cute_ro_ull2f((u64)%s)";
    char inner[2 * CC_NAME];
    snprintf(inner, sizeof inner, ro, x);
    return snprintf(out, CC_EXPR, "%s(%s)", round, inner), true;
}

static bool cvt(cc_fn *e, const cute_ir_inst *in)
{
    cute_type s = cute_ir_type(e->f, in->a[0]), t = in->type;
    char ex[CC_EXPR], x[CC_NAME], def[CC_NAME];
    if (s.dtype == CUTE_PTR || t.dtype == CUTE_PTR) { /* pointer <-> integer or pointer */
        if (s.lanes != 1 || t.lanes != 1 || (s.dtype != CUTE_PTR && !cute_dtype_is_int(s.dtype)) ||
            (t.dtype != CUTE_PTR && !cute_dtype_is_int(t.dtype)))
            return cc_fail(e, CUTE_ERR_UNSUPPORTED, "converts a pointer to a non-integer");
        if (!cc_ptr_cast(e, in->a[0], t, ex)) return false;
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), ex);
        return true;
    }
    if (s.lanes != t.lanes)
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "converts %d lanes to %d", s.lanes, t.lanes);
    if (t.lanes > 1) cc_decl(e, in->dst);
    for (int lane = t.lanes > 1 ? 0 : -1; lane < (t.lanes > 1 ? t.lanes : 0); lane++) {
        cc_opnd(e, in->a[0], lane, x);
        if (!cvt_text(e, (cute_dtype)s.dtype, (cute_dtype)t.dtype, x, ex)) return false;
        if (lane < 0)
            cc_line(e, "%s%s;", cc_def(e, in->dst, def), ex);
        else
            cc_line(e, "%s = %s;", cc_opnd(e, in->dst, lane, def), ex);
    }
    return true;
}

static bool bitcast(cc_fn *e, const cute_ir_inst *in)
{
    cute_type s = cute_ir_type(e->f, in->a[0]), t = in->type;
    /* (e2m1 to e2m1, a register tensor's load, is a copy like any same-type BITCAST) */
    if ((s.dtype == CUTE_E2M1 || t.dtype == CUTE_E2M1) && !cute_type_eq(s, t)) return cc_narrow_bitcast(e, in);
    char x[CC_NAME], def[CC_NAME], tbuf[CC_NAME], ex[CC_EXPR];
    const char *ty = cc_type(e, t, tbuf);
    if (!ty) return false;
    cc_reg(e, in->a[0], x);
    if (s.dtype == CUTE_PTR || t.dtype == CUTE_PTR)
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), cc_ptr_cast(e, in->a[0], t, ex));
    else if (cute_type_eq(s, t))
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), x);
    else {
        e->m->needs |= NEED_BITCAST;
        cc_line(e, "%scute_bitcast<%s>(%s);", cc_def(e, in->dst, def), ty, x);
    }
    return true;
}

/* --- the rest ------------------------------------------------------------------------- */

static const char *const sregs[CUTE_SREG_COUNT] = {
    "(i32)threadIdx.x",
    "(i32)threadIdx.y",
    "(i32)threadIdx.z",
    "(i32)blockIdx.x",
    "(i32)blockIdx.y",
    "(i32)blockIdx.z",
    "(i32)blockDim.x",
    "(i32)blockDim.y",
    "(i32)blockDim.z",
    "(i32)gridDim.x",
    "(i32)gridDim.y",
    "(i32)gridDim.z",
    "cute_laneid()",
    /* the warp of the linear thread index (not PTX %warpid, which is a hardware slot) */
    "(i32)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) >> 5)",
};

static bool simple(cc_fn *e, const cute_ir_inst *in)
{
    char a[CC_NAME], b[CC_NAME], c[CC_NAME], def[CC_NAME], k[CC_NAME];
    switch ((cute_op)in->op) {
    case CUTE_OP_CONST: {
        if (in->type.lanes > 1) { /* a splat: every lane the constant */
            cute_type lane = in->type;
            lane.lanes = 1;
            const char *v = cc_const(e, lane, in->imm, k);
            if (!v) return false;
            cc_line(e, "%s{};", cc_def(e, in->dst, def));
            for (int l = 0; l < in->type.lanes; l++)
                cc_line(e, "%s = %s;", cc_opnd(e, in->dst, l, a), v);
            return true;
        }
        const char *v = cc_const(e, in->type, in->imm, k);
        if (v) cc_line(e, "%s%s;", cc_def(e, in->dst, def), v);
        return v != NULL;
    }
    case CUTE_OP_MOV:
        cc_line(e, "%s = %s;", cc_reg(e, in->dst, def), cc_reg(e, in->a[0], a));
        return true;
    case CUTE_OP_SELECT:
        cc_line(e, "%s%s ? %s : %s;", cc_def(e, in->dst, def), cc_reg(e, in->a[0], a),
                cc_reg(e, in->a[1], b), cc_reg(e, in->a[2], c));
        return true;
    case CUTE_OP_EXTRACT:
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), cc_opnd(e, in->a[0], (int)in->imm, a));
        return true;
    case CUTE_OP_INSERT:
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), cc_reg(e, in->a[0], a));
        cc_line(e, "%s = %s;", cc_opnd(e, in->dst, (int)in->imm, def), cc_reg(e, in->a[1], b));
        return true;
    case CUTE_OP_SREG:
        if (in->imm < 0 || in->imm >= CUTE_SREG_COUNT)
            return cc_fail(e, CUTE_ERR_INVALID, "no special register %lld", (long long)in->imm);
        if (in->imm == CUTE_SREG_LANEID) e->m->needs |= NEED_LANEID;
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), sregs[in->imm]);
        return true;
    default:
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "no C for this op");
    }
}

bool cc_expr(cc_fn *e, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    if (op == CUTE_OP_CVT) return cvt(e, in);
    if (op == CUTE_OP_BITCAST) return bitcast(e, in);
    if (op >= CUTE_OP_EQ && op <= CUTE_OP_GE) return arith(e, in, true);
    if (texts[op].i || texts[op].f) return arith(e, in, false);
    return simple(e, in);
}
