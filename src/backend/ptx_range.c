/* Which integer registers never hold a negative value, so that a signed DIV or REM of
 * them may be the unsigned one (a shift or a mask by 2^k).  NVVM proved the same of the
 * CUDA C path's i64 index arithmetic from the thread and block indices (C's signed
 * overflow being undefined); ptxas proves nothing of the kind.  One pass in program
 * order: a register that is not mutable is defined once, before its uses.  A value is
 * non-negative when it is a special register, a non-negative constant, an unsigned value
 * narrower than its destination, the variable of a FOR that counts up from one, or the
 * sum, product, quotient, remainder, shift, minimum or maximum of such values (AND with
 * one of them suffices, OR needs both). */
#include <stdlib.h>

#include "ptx_internal.h"

static bool nonneg_const(const cute_ir_inst *in)
{
    cute_dtype d = (cute_dtype)in->type.dtype;
    if (!cute_dtype_is_int(d) || in->type.lanes != 1) return false;
    int bits = cute_dtype_bits(d);
    int64_t v = in->imm;
    if (bits < 64) v = (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits); /* its sign */
    return v >= 0 || !cute_dtype_is_signed(d);
}

static bool convert(const cute_ir_func *f, const bool *nn, const cute_ir_inst *in)
{
    cute_dtype from = (cute_dtype)cute_ir_type(f, in->a[0]).dtype, to = (cute_dtype)in->type.dtype;
    if (!cute_dtype_is_int(from) || !cute_dtype_is_int(to)) return false;
    /* the value kept: non-negative stays so when it fits; unsigned widens to non-negative */
    int fb = cute_dtype_bits(from), tb = cute_dtype_bits(to);
    if (tb > fb) return nn[in->a[0]] || !cute_dtype_is_signed(from);
    return tb == fb && nn[in->a[0]] && cute_dtype_is_signed(from);
}

static void walk(const cute_ir_func *f, const cute_ir_block *b, bool *nn)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        cute_vreg d = in->dst;
        if (in->op == CUTE_OP_FOR) {
            cute_vreg v = in->a[0];
            nn[v] = !f->vregs[v].mutable_ && nn[in->a[1]] && in->imm2 > 0;
        }
        walk(f, in->body[0], nn);
        walk(f, in->body[1], nn);
        if (!d || f->vregs[d].mutable_ || in->type.lanes != 1 || !cute_dtype_is_int((cute_dtype)in->type.dtype))
            continue;
        const bool x = nn[in->a[0]], y = nn[in->a[1]];
        switch ((cute_op)in->op) {
        case CUTE_OP_CONST: nn[d] = nonneg_const(in); break;
        case CUTE_OP_SREG: nn[d] = true; break;
        case CUTE_OP_CVT: nn[d] = convert(f, nn, in); break;
        case CUTE_OP_ADD: /* C's signed overflow is undefined; 8- and 16-bit values wrap here */
        case CUTE_OP_MUL: nn[d] = x && y && cute_dtype_bits((cute_dtype)in->type.dtype) >= 32; break;
        case CUTE_OP_DIV:
        case CUTE_OP_REM:
        case CUTE_OP_MIN:
        case CUTE_OP_OR: nn[d] = x && y; break;
        case CUTE_OP_MAX: nn[d] = x || y; break;
        case CUTE_OP_AND: nn[d] = x || y; break;
        case CUTE_OP_SHR: nn[d] = x; break;
        case CUTE_OP_SELECT: nn[d] = y && nn[in->a[2]]; break;
        default: break;
        }
    }
}

bool *px_nonneg(const cute_ir_func *f)
{
    bool *nn = calloc(f->nvregs + 1, sizeof *nn);
    if (nn) walk(f, &f->body, nn);
    return nn;
}
