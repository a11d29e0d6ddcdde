/* Math the row ops share: e^x of a TensorSSA, an op with a scalar, sums over the elements
 * inside the matrix, the row length as a value, and elementwise sums as a reducer. */
#include "kernels/rows/rows_internal.h"

#define LOG2_E 1.4426950408889634

cute_val row_f32(cute_ctx *c, double v) { return cute_val_const(c, CUTE_F32, v); }

cute_ssa row_scalar_op(cute_ctx *c, cute_op op, cute_ssa x, cute_val s)
{
    return cute_ssa_binop(c, op, x, cute_ssa_scalar(c, s, x.shape));
}

/* 2^(x log2 e): a multiply and ex2.approx per element on the GPU */
cute_ssa row_exp(cute_ctx *c, cute_ssa x)
{
    return cute_ssa_fast(c, CUTE_OP_EXP2, row_scalar_op(c, CUTE_OP_MUL, x, row_f32(c, LOG2_E)));
}

cute_val row_sum_inside(cute_ctx *c, const row_io *io, cute_ssa x)
{
    cute_ssa zero = cute_ssa_fill(c, CUTE_F32, x.shape, 0);
    return cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_select(c, io->inside, x, zero));
}

cute_val row_n(cute_ctx *c, const row_io *io) { return cute_val_cvt(c, cute_int_value(c, io->n, CUTE_I64), CUTE_F32); }

static void add_each(cute_ctx *c, const cute_val *a, const cute_val *b, cute_val *out, const void *user)
{
    int arity = (int)(intptr_t)user;
    for (int i = 0; i < arity; i++) out[i] = cute_val_binop(c, CUTE_OP_ADD, a[i], b[i]);
}

cute_reducer row_reducer_sums(int arity)
{
    return (cute_reducer){arity, CUTE_OP_ADD, add_each, (const void *)(intptr_t)arity, "sums"};
}

/* exp(x - max) / sum: in a whole row, partial's exp(x - m_thread) (io->keep) scaled by
 * exp(m_thread - max) / sum, one exponential a thread instead of one an element (the
 * exponentials, not the bytes, would bound a bf16 softmax at the card's bandwidth); in
 * chunks, taken again */
cute_ssa row_probabilities(cute_ctx *c, const row_io *io, cute_ssa x, cute_val max, cute_val inv_sum)
{
    if (!io->resident) return row_scalar_op(c, CUTE_OP_MUL, row_exp(c, row_scalar_op(c, CUTE_OP_SUB, x, max)), inv_sum);
    cute_val l2e = row_f32(c, LOG2_E);
    cute_val shift = cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_SUB, io->keep_v, max), l2e);
    cute_val scale = cute_val_binop(c, CUTE_OP_MUL, cute_val_fast(c, CUTE_OP_EXP2, shift), inv_sum);
    return row_scalar_op(c, CUTE_OP_MUL, io->keep, scale);
}
