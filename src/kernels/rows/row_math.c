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

/* the sum of x[0 .. n-1], pairwise */
static cute_val sum_tree(cute_ctx *c, const cute_val *x, int n)
{
    if (n == 1) return x[0];
    return cute_val_binop(c, CUTE_OP_ADD, sum_tree(c, x, n / 2), sum_tree(c, x + n / 2, n - n / 2));
}

cute_val row_sum_inside(cute_ctx *c, const row_io *io, cute_ssa x)
{
    cute_ssa zero = cute_ssa_fill(c, CUTE_F32, x.shape, 0);
    return cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_select(c, io->inside, x, zero));
}

/* A vector's elements lie inside or outside together (its V divides the row length, and its
 * first column is a multiple of V): each vector's sum is selected, not each element (a select
 * an element was 4 of LayerNorm's ~30 instructions an element at 16384x4096).  Not for
 * cross-entropy's logits: summed so at 16384x4096 its backward spilled 8 bytes at 80
 * registers (ptxas's schedule of the sums) */
cute_val row_sum_inside_vectors(cute_ctx *c, const row_io *io, cute_ssa x)
{
    int v = io->vec > 0 && io->vec <= 16 && x.n % io->vec == 0 ? io->vec : 1;
    if (x.n > 256) return row_sum_inside(c, io, x); /* more values a thread than any plan holds */
    cute_val each[256], zero = row_f32(c, 0);
    for (int g = 0; g < x.n / v; g++) {
        cute_val in[16];
        for (int i = 0; i < v; i++) in[i] = cute_ssa_get(c, x, g * v + i);
        each[g] = cute_val_select(c, cute_ssa_get(c, io->inside, g * v), sum_tree(c, in, v), zero);
    }
    return sum_tree(c, each, x.n / v);
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
