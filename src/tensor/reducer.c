/* Reducers: the associative operations the reductions across threads combine with (one
 * binary op, or online softmax's (max, sum) pairs). */
#include <math.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/reduce.h"

cute_reducer cute_reducer_op(cute_op op)
{
    return (cute_reducer){1, op, NULL, NULL, cute_op_name(op)};
}

#define LOG2_E 1.4426950408889634

/* e^x as 2^(x log2 e): a multiply and ex2.approx on the GPU (2 ulp); e^-inf = 0 */
static cute_val exp_fast(cute_ctx *c, cute_val x)
{
    cute_val l2e = cute_val_const(c, CUTE_F32, LOG2_E);
    return cute_val_fast(c, CUTE_OP_EXP2, cute_val_binop(c, CUTE_OP_MUL, x, l2e));
}

/* exp(m_i - m) where m = max(m1, m2) >= m_i; 1 when m_i == m (also both -inf, whose
 * difference would be NaN) */
static cute_val rescale(cute_ctx *c, cute_val mi, cute_val m)
{
    cute_val same = cute_val_cmp(c, CUTE_OP_EQ, mi, m);
    return cute_val_select(c, same, cute_val_const(c, CUTE_F32, 1), exp_fast(c, cute_val_binop(c, CUTE_OP_SUB, mi, m)));
}

/* symmetric in its operands (max, and a sum of two products), so xor butterflies leave
 * the same bits in both lanes of each exchange */
static void online_softmax_combine(cute_ctx *c, const cute_val *a, const cute_val *b, cute_val *out,
                                   const void *user)
{
    (void)user;
    cute_val m = cute_val_binop(c, CUTE_OP_MAX, a[0], b[0]);
    cute_val sa = cute_val_binop(c, CUTE_OP_MUL, a[1], rescale(c, a[0], m));
    cute_val sb = cute_val_binop(c, CUTE_OP_MUL, b[1], rescale(c, b[0], m));
    out[1] = cute_val_binop(c, CUTE_OP_ADD, sa, sb);
    out[0] = m;
}

cute_reducer cute_reducer_online_softmax(void)
{
    return (cute_reducer){2, CUTE_OP_MAX, online_softmax_combine, NULL, "online softmax"};
}

void cute_reducer_apply(cute_ctx *c, const cute_reducer *r, const cute_val *a, const cute_val *b,
                        cute_val *out)
{
    if (r->combine) {
        cute_val tmp[CUTE_REDUCER_MAX_ARITY];
        r->combine(c, a, b, tmp, r->user);
        for (int i = 0; i < r->arity; i++) out[i] = tmp[i];
        return;
    }
    out[0] = cute_val_binop(c, r->op, a[0], b[0]);
}

void cute_online_softmax_of(cute_ctx *c, cute_ssa x, cute_val out[2], cute_ssa *exps)
{
    cute_val m = cute_ssa_reduce(c, CUTE_OP_MAX, x);
    cute_ssa shifted = cute_ssa_binop(c, CUTE_OP_SUB, x, cute_ssa_scalar(c, m, x.shape));
    cute_ssa l2e = cute_ssa_fill(c, CUTE_F32, x.shape, LOG2_E);
    cute_ssa e = cute_ssa_fast(c, CUTE_OP_EXP2, cute_ssa_binop(c, CUTE_OP_MUL, shifted, l2e));
    cute_val s = cute_ssa_reduce(c, CUTE_OP_ADD, e);
    if (exps) *exps = e;
    /* a row of -inf only: m = -inf, e^(-inf - -inf) = NaN; its sum is 0 */
    cute_val none = cute_val_cmp(c, CUTE_OP_EQ, m, cute_val_const(c, CUTE_F32, -INFINITY));
    out[0] = m;
    out[1] = cute_val_select(c, none, cute_val_const(c, CUTE_F32, 0), s);
}
