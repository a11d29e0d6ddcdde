/* Register fragments as instruction operands: a fragment's registers in order, and values
 * packed into 32-bit registers (two 16-bit, four 8-bit) and unpacked. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "trace/ctx_internal.h"

bool atom_rmem_regs(cute_ctx *c, const cute_tensor *t, int n, cute_vreg *out, const char *who)
{
    if (t->kind != CUTE_TENSOR_RMEM)
        return cute_ctx_fail(c, "%s: this operand must be registers", who);
    for (int i = 0; i < n; i++) {
        cute_int off =
            cute_add(&c->alg, t->offset, cute_layout_eval(&c->alg, &t->layout, cute_i(i)));
        if (!cute_is_static(off))
            return cute_ctx_fail(c, "%s: registers are statically indexed", who);
        out[i] = t->regs[off.v];
    }
    return !c->alg.failed;
}

/* the type values travel in inside an instruction's registers: the narrow floats (tf32,
 * float8), which no arithmetic runs in, as the unsigned integers of their width */
static cute_dtype carrier(cute_dtype d)
{
    if (!cute_dtype_is_narrow_float(d)) return d;
    int b = cute_dtype_bytes(d);
    return b == 1 ? CUTE_U8 : b == 2 ? CUTE_U16 : CUTE_U32;
}

/* v (of d) as its carrier */
static cute_vreg carried(cute_ctx *c, cute_dtype d, cute_vreg v)
{
    cute_dtype k = carrier(d);
    return k == d ? v : cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_of(k), v, 0, 0);
}

int atom_vals_per_reg(cute_dtype d)
{
    int b = cute_dtype_bytes(d);
    return b >= 4 ? 1 : 4 / b;
}

cute_type atom_reg_type(cute_dtype d)
{
    int k = atom_vals_per_reg(d);
    return k == 1 ? cute_type_of(carrier(d)) : cute_type_vec(carrier(d), k);
}

void atom_pack(cute_ctx *c, cute_dtype d, const cute_vreg *vals, int n, cute_vreg *regs)
{
    int k = atom_vals_per_reg(d);
    cute_type rt = atom_reg_type(d);
    for (int r = 0; r < n / k; r++) {
        if (k == 1) {
            regs[r] = carried(c, d, vals[r]);
            continue;
        }
        cute_vreg v = cute_ir_op(&c->b, CUTE_OP_CONST, rt, 0, 0, 0); /* every lane is set below */
        for (int j = 0; j < k; j++) {
            v = cute_ir_op(&c->b, CUTE_OP_INSERT, rt, v, carried(c, d, vals[r * k + j]), 0);
            c->b.last->imm = j;
        }
        regs[r] = v;
    }
}

void atom_unpack(cute_ctx *c, cute_dtype d, const cute_vreg *regs, int n, const cute_vreg *vals)
{
    int k = atom_vals_per_reg(d);
    for (int i = 0; i < n; i++) {
        cute_vreg e = regs[i / k];
        if (k > 1) {
            e = cute_ir_op(&c->b, CUTE_OP_EXTRACT, cute_type_of(carrier(d)), regs[i / k], 0, 0);
            c->b.last->imm = i % k;
        }
        if (carrier(d) != d) e = cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_of(d), e, 0, 0);
        cute_ir_mov(&c->b, vals[i], e);
    }
}

void atom_new_regs(cute_ctx *c, cute_type t, int n, cute_vreg *out)
{
    for (int i = 0; i < n; i++) out[i] = cute_ir_new_vreg(c->fn, t, NULL, false);
}
