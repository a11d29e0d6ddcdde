/* Byte-wise integer instructions as DSL calls: prmt with the selector in a register (a
 * lookup in a table of 8 bytes, four at once) and dp4a (a dot product of four signed bytes),
 * the pieces of a 4-bit decode that runs on integer units (the NVFP4 GEMV's, blockscaled.c). */
#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"
#include "cutec/inst.h"

/* v as a 32-bit word (u32, i32, or 4 bytes): its register */
static bool word_operand(cute_ctx *c, cute_val v, const char *call, const char *what, cute_vreg *out)
{
    if (!ctx_usable(c, v, what)) return false;
    if (!cute_inst_class_accepts(CUTE_RC_B32, v.t) || v.t.dtype == CUTE_F32)
        return cute_ctx_fail(c, "%s: %s must be a 32-bit integer word (got %s)", call, what,
                             cute_dtype_name((cute_dtype)v.t.dtype));
    *out = v.r;
    return true;
}

static cute_val row3(cute_ctx *c, cute_inst row, cute_dtype out, cute_val a, cute_val b, cute_val x, const char *call,
                     const char *names[3])
{
    cute_vreg in[3];
    if (!ctx_row_ok(c, row, call) || !word_operand(c, a, call, names[0], &in[0]) ||
        !word_operand(c, b, call, names[1], &in[1]) || !word_operand(c, x, call, names[2], &in[2]))
        return ctx_val(c, cute_ir_const_int(&c->b, out, 0));
    cute_vreg r = cute_ir_new_vreg(c->fn, cute_type_of(out), "r", false);
    cute_ir_inst_op(&c->b, row, &r, 1, in, 3, 0);
    return ctx_val(c, r);
}

cute_val cute_val_prmt(cute_ctx *c, cute_val lo, cute_val hi, cute_val sel)
{
    return row3(c, CUTE_INST_PRMT_B32_R, CUTE_U32, lo, hi, sel, "cute_val_prmt",
                (const char *[3]){"the table's low word", "the table's high word", "the selector"});
}

cute_val cute_val_dp4a(cute_ctx *c, cute_val a, cute_val b, cute_val acc)
{
    return row3(c, CUTE_INST_DP4A_S32, CUTE_I32, a, b, acc, "cute_val_dp4a",
                (const char *[3]){"a", "b", "the accumulator"});
}
