/* ops_generic.c — runners for ops that are one library call of a common signature; the
 * table row names the function (layout_op.fn).  The library returns poison on a failed
 * context, so a parse error simply flows through to the out_* call, which reports it. */
#include "layout_ops.h"

bool op_run_l(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    cute_layout R = op->fn.l(c, &L);
    return out_layout(c, out, &R);
}

bool op_run_ll(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout A = arg_layout(c, argv[0]), B = arg_layout(c, argv[1]);
    cute_layout R = op->fn.ll(c, &A, &B);
    return out_layout(c, out, &R);
}

bool op_run_lt(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout A = arg_layout(c, argv[0]);
    cute_tiler T = arg_tiler(c, argv[1]);
    cute_layout R = op->fn.lt(c, &A, &T);
    return out_layout(c, out, &R);
}

bool op_run_ln(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    int64_t n = arg_int(c, argv[1], "N");
    cute_layout R = op->fn.ln(c, &L, n);
    return out_layout(c, out, &R);
}

bool op_run_s(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_tuple s = arg_tuple(c, argv[0]);
    cute_layout R = op->fn.s(c, s);
    return out_layout(c, out, &R);
}

bool op_run_l_int(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    cute_int x = op->fn.l_int(c, &L);
    return out_int(c, out, x);
}

bool op_run_ll_int(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout A = arg_layout(c, argv[0]), B = arg_layout(c, argv[1]);
    cute_int x = op->fn.ll_int(c, &A, &B);
    return out_int(c, out, x);
}

bool op_run_l_count(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
{
    (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    if (c->failed) return false;
    return out_int(c, out, cute_i(op->fn.l_count(&L)));
}
