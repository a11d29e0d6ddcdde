/* Run-time values: constants, arithmetic, comparisons, conversions, variables.  Each call
 * checks its operands' types and reports a mismatch at the user's call site. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"
#include "cutec/numeric.h"

static cute_val none(cute_type t) { return (cute_val){0, t, 0}; }

static bool defined(cute_ctx *c, cute_val v, const char *what) { return ctx_usable(c, v, what); }

static const char *tname(cute_type t) { return cute_dtype_name((cute_dtype)t.dtype); }

/* the narrow floats (tf32, float8, float4, scales) are stored and converted, not computed
 * with, as in CuTe DSL (`.to(Float32)` first) */
static bool computes(cute_ctx *c, cute_dtype d, const char *what)
{
    if (!cute_dtype_is_narrow_float(d)) return true;
    return cute_ctx_fail(c, "%s on %s: this type is only loaded, stored and converted (cute_val_cvt "
                            "it to f32 first)",
                         what, cute_dtype_name(d));
}

/* a narrow float's constant is its code, rounded now as CVT would round v */
cute_val cute_val_const(cute_ctx *c, cute_dtype d, double v)
{
    if (!ctx_ok(c)) return none(cute_type_of(d));
    if (cute_dtype_is_narrow_float(d)) return ctx_val(c, cute_ir_const_int(&c->b, d, cute_narrow_encode(d, v)));
    if (cute_dtype_is_float(d)) return ctx_val(c, cute_ir_const_float(&c->b, d, v));
    return ctx_val(c, cute_ir_const_int(&c->b, d, (int64_t)v));
}

cute_val cute_val_int(cute_ctx *c, cute_dtype d, int64_t v)
{
    if (!ctx_ok(c)) return none(cute_type_of(d));
    if (cute_dtype_is_narrow_float(d)) return ctx_val(c, cute_ir_const_int(&c->b, d, cute_narrow_encode(d, (double)v)));
    if (cute_dtype_is_float(d)) return ctx_val(c, cute_ir_const_float(&c->b, d, (double)v));
    return ctx_val(c, cute_ir_const_int(&c->b, d, v));
}

static bool same(cute_ctx *c, const char *op, cute_val a, cute_val b)
{
    if (!defined(c, a, "the first operand") || !defined(c, b, "the second operand")) return false;
    if (cute_type_eq(a.t, b.t)) return true;
    char x[64], y[64];
    cute_type_str(a.t, x, sizeof x);
    cute_type_str(b.t, y, sizeof y);
    return cute_ctx_fail(c, "%s of %s and %s: the types differ (convert one with cute_val_cvt)", op,
                         x, y);
}

cute_val cute_val_binop(cute_ctx *c, cute_op op, cute_val a, cute_val b)
{
    if (!ctx_ok(c) || !same(c, cute_op_name(op), a, b) ||
        !computes(c, (cute_dtype)a.t.dtype, cute_op_name(op)))
        return none(a.t);
    bool ints_only = op == CUTE_OP_SHL || op == CUTE_OP_SHR;
    bool bits = op == CUTE_OP_AND || op == CUTE_OP_OR || op == CUTE_OP_XOR;
    bool arith = op == CUTE_OP_ADD || op == CUTE_OP_SUB || op == CUTE_OP_MUL ||
                 op == CUTE_OP_DIV || op == CUTE_OP_REM || op == CUTE_OP_MIN || op == CUTE_OP_MAX;
    bool is_int = cute_dtype_is_int((cute_dtype)a.t.dtype), is_bool = a.t.dtype == CUTE_I1;
    if (op == CUTE_OP_POW) {
        if (!cute_dtype_is_float((cute_dtype)a.t.dtype))
            return cute_ctx_fail(c, "POW needs floats, not %s", tname(a.t)), none(a.t);
    } else if (!(arith || ints_only || bits) || (ints_only && !is_int) ||
               (bits && !is_int && !is_bool) || (arith && is_bool) || a.t.dtype == CUTE_PTR) {
        cute_ctx_fail(c, "%s is not a binary operation on %s", cute_op_name(op), tname(a.t));
        return none(a.t);
    }
    return ctx_val(c, cute_ir_op(&c->b, op, a.t, a.r, b.r, 0));
}

cute_val cute_val_unop(cute_ctx *c, cute_op op, cute_val a)
{
    if (!ctx_ok(c) || !defined(c, a, "the operand") ||
        !computes(c, (cute_dtype)a.t.dtype, cute_op_name(op)))
        return none(a.t);
    bool is_float = cute_dtype_is_float((cute_dtype)a.t.dtype);
    bool math = op >= CUTE_OP_EXP && op <= CUTE_OP_ERF;
    if ((math && !is_float) ||
        (!math && op != CUTE_OP_NEG && op != CUTE_OP_ABS && op != CUTE_OP_NOT) ||
        (op == CUTE_OP_NOT && is_float) || a.t.dtype == CUTE_PTR) {
        cute_ctx_fail(c, "%s is not a unary operation on %s", cute_op_name(op), tname(a.t));
        return none(a.t);
    }
    return ctx_val(c, cute_ir_op(&c->b, op, a.t, a.r, 0, 0));
}

cute_val cute_val_fma(cute_ctx *c, cute_val a, cute_val b, cute_val d)
{
    if (!ctx_ok(c) || !same(c, "fma", a, b) || !same(c, "fma", a, d) ||
        !computes(c, (cute_dtype)a.t.dtype, "fma"))
        return none(a.t);
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_FMA, a.t, a.r, b.r, d.r));
}

cute_val cute_val_cmp(cute_ctx *c, cute_op op, cute_val a, cute_val b)
{
    cute_type i1 = cute_type_of(CUTE_I1);
    if (!ctx_ok(c) || !same(c, cute_op_name(op), a, b) ||
        !computes(c, (cute_dtype)a.t.dtype, cute_op_name(op)))
        return none(i1);
    if (op < CUTE_OP_EQ || op > CUTE_OP_GE) {
        cute_ctx_fail(c, "%s is not a comparison", cute_op_name(op));
        return none(i1);
    }
    return ctx_val(c, cute_ir_op(&c->b, op, i1, a.r, b.r, 0));
}

cute_val cute_val_select(cute_ctx *c, cute_val p, cute_val a, cute_val b)
{
    if (!ctx_ok(c) || !same(c, "select", a, b) || !defined(c, p, "the predicate")) return none(a.t);
    if (!cute_type_eq(p.t, cute_type_of(CUTE_I1))) {
        cute_ctx_fail(c, "select needs an i1 predicate, not %s", tname(p.t));
        return none(a.t);
    }
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_SELECT, a.t, p.r, a.r, b.r));
}

cute_val cute_val_cvt(cute_ctx *c, cute_val a, cute_dtype d)
{
    cute_type t = cute_type_vec(d, a.t.lanes);
    if (!ctx_ok(c) || !defined(c, a, "the operand")) return none(t);
    if (a.t.dtype == CUTE_PTR || d == CUTE_PTR || d == CUTE_VOID) {
        cute_ctx_fail(c, "cannot convert %s to %s", tname(a.t), cute_dtype_name(d));
        return none(t);
    }
    if (a.t.dtype == d) return a;
    if (!cute_cvt_supported((cute_dtype)a.t.dtype, d)) {
        /* the IR converts narrow floats to and from floats only: go through the float that
         * keeps the value (a narrow float is exact in f32, an integer in f64 below 2^53) */
        bool from_narrow = cute_dtype_is_narrow_float((cute_dtype)a.t.dtype);
        a = cute_val_cvt(c, a, from_narrow ? CUTE_F32 : CUTE_F64);
    }
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_CVT, t, a.r, 0, 0));
}

cute_val cute_val_bitcast(cute_ctx *c, cute_val a, cute_type t)
{
    if (!ctx_ok(c) || !defined(c, a, "the operand")) return none(t);
    if (cute_dtype_bits((cute_dtype)a.t.dtype) * a.t.lanes !=
        cute_dtype_bits((cute_dtype)t.dtype) * t.lanes) {
        char x[64], y[64];
        cute_type_str(a.t, x, sizeof x);
        cute_type_str(t, y, sizeof y);
        cute_ctx_fail(c, "bitcast from %s to %s: the sizes differ", x, y);
        return none(t);
    }
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_BITCAST, t, a.r, 0, 0));
}

cute_val cute_val_fast(cute_ctx *c, cute_op op, cute_val a)
{
    cute_val r = cute_val_unop(c, op, a);
    if (c->alg.failed) return r;
    if (op < CUTE_OP_EXP || op > CUTE_OP_ERF) {
        cute_ctx_fail(c, "a fast variant exists for the math functions only, not %s", cute_op_name(op));
        return none(a.t);
    }
    c->b.last->flags |= CUTE_IR_FAST;
    return r;
}

cute_val cute_val_shfl(cute_ctx *c, cute_val v, cute_val lane, cute_shfl mode)
{
    if (!ctx_ok(c) || !defined(c, v, "the value") || !defined(c, lane, "the lane")) return none(v.t);
    int bits = cute_dtype_bits((cute_dtype)v.t.dtype) * v.t.lanes;
    if ((bits != 32 && bits != 64) || v.t.dtype == CUTE_PTR || !cute_type_eq(lane.t, cute_type_of(CUTE_I32))) {
        cute_ctx_fail(c, "a shuffle moves a 32- or 64-bit %s by an i32 lane, not %s by %s",
                      "scalar", tname(v.t), tname(lane.t));
        return none(v.t);
    }
    cute_val r = ctx_val(c, cute_ir_op(&c->b, CUTE_OP_SHFL, v.t, v.r, lane.r, 0));
    c->b.last->imm = mode;
    return r;
}

cute_val cute_val_vote(cute_ctx *c, cute_val pred, cute_vote mode)
{
    cute_type t = cute_type_of(mode == CUTE_VOTE_BALLOT ? CUTE_U32 : CUTE_I1);
    if (!ctx_ok(c) || !defined(c, pred, "the predicate")) return none(t);
    if (!cute_type_eq(pred.t, cute_type_of(CUTE_I1))) {
        cute_ctx_fail(c, "a vote takes an i1 predicate, not %s", tname(pred.t));
        return none(t);
    }
    cute_val r = ctx_val(c, cute_ir_op(&c->b, CUTE_OP_VOTE, t, pred.r, 0, 0));
    c->b.last->imm = mode;
    return r;
}

cute_val cute_val_atomic(cute_ctx *c, cute_val ptr, cute_val v, cute_atomic op)
{
    if (!ctx_ok(c) || !defined(c, ptr, "the pointer") || !defined(c, v, "the value")) return none(v.t);
    if (ptr.t.dtype != CUTE_PTR || ptr.t.pointee != v.t.dtype || v.t.lanes != 1) {
        cute_ctx_fail(c, "an atomic needs a pointer to the value's type (%s)", tname(v.t));
        return none(v.t);
    }
    cute_val r = ctx_val(c, cute_ir_op(&c->b, CUTE_OP_ATOMIC, v.t, ptr.r, v.r, 0));
    c->b.last->imm = op;
    return r;
}

cute_val cute_val_var(cute_ctx *c, cute_val init)
{
    if (!ctx_ok(c) || !defined(c, init, "the initial value")) return none(init.t);
    cute_vreg r = cute_ir_new_vreg(c->fn, init.t, "var", true);
    cute_ir_mov(&c->b, r, init.r);
    return ctx_val(c, r);
}

void cute_val_assign(cute_ctx *c, cute_val var, cute_val v)
{
    if (!ctx_ok(c) || !same(c, "assignment", var, v)) return;
    if (!c->fn->vregs[var.r].mutable_) {
        cute_ctx_fail(c, "assignment to a value that is not a variable (make it with cute_val_var)");
        return;
    }
    cute_ir_mov(&c->b, var.r, v.r);
}
