/* The public entry points of the row-reduction kernels: each fills the op's slots from
 * its arguments and takes rows_run. */
#include <stdint.h>
#include <stdio.h>

#include "kernels/rows/rows_lib.h"

cute_status cutec_softmax(cutec_rows *lib, const cute_call_arg *y, const cute_call_arg *x, bool log,
                          void *stream, char *err, size_t n)
{
    row_call rc = {&row_softmax_fwd, log, {x, y}, 0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}

cute_status cutec_softmax_backward(cutec_rows *lib, const cute_call_arg *dx, const cute_call_arg *dy,
                                   const cute_call_arg *y, bool log, void *stream, char *err, size_t n)
{
    row_call rc = {&row_softmax_bwd, log, {dy, y, dx}, 0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}

static cute_status refuse(char *err, size_t n, const char *why)
{
    if (err) snprintf(err, n, "%s", why);
    return CUTE_ERR_INVALID;
}

/* the forward norms: weight and bias of x's dtype, statistics f32 */
static cute_status norm(cutec_rows *lib, const row_op *op, const cutec_norm_args *a, bool layer, void *stream,
                        char *err, size_t n)
{
    if (!a) return refuse(err, n, layer ? "layernorm: the arguments are NULL" : "rmsnorm: the arguments are NULL");
    if (!layer && (a->bias || a->mean)) return refuse(err, n, "rmsnorm: no bias and no mean (they are LayerNorm's)");
    row_call rc = {op, 0, {a->x, a->residual, a->weight}, 0, {a->eps, 0}};
    int k = 3;
    if (layer) rc.slot[k++] = a->bias;
    rc.slot[k++] = a->y, rc.slot[k++] = a->residual_out;
    if (layer) rc.slot[k++] = a->mean;
    rc.slot[k++] = a->rstd;
    return rows_run(lib, &rc, stream, err, n);
}

cute_status cutec_rmsnorm(cutec_rows *lib, const cutec_norm_args *a, void *stream, char *err, size_t n)
{
    return norm(lib, &row_rmsnorm_fwd, a, false, stream, err, n);
}

cute_status cutec_layernorm(cutec_rows *lib, const cutec_norm_args *a, void *stream, char *err, size_t n)
{
    return norm(lib, &row_layernorm_fwd, a, true, stream, err, n);
}

cute_status cutec_rmsnorm_backward(cutec_rows *lib, const cutec_norm_grad_args *a, void *stream, char *err,
                                   size_t n)
{
    if (!a) return refuse(err, n, "rmsnorm_backward: the arguments are NULL");
    if (a->mean || a->dbias) return refuse(err, n, "rmsnorm_backward: no mean and no dbias (they are LayerNorm's)");
    row_call rc = {&row_rmsnorm_bwd, 0, {a->dy, a->x, a->weight, a->rstd, a->dx, a->dweight}, 0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}

cute_status cutec_layernorm_backward(cutec_rows *lib, const cutec_norm_grad_args *a, void *stream, char *err,
                                     size_t n)
{
    if (!a) return refuse(err, n, "layernorm_backward: the arguments are NULL");
    row_call rc = {&row_layernorm_bwd, 0, {a->dy, a->x, a->weight, a->mean, a->rstd, a->dx, a->dweight, a->dbias},
                   0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}

cute_status cutec_cross_entropy(cutec_rows *lib, const cutec_xent_args *a, void *stream, char *err, size_t n)
{
    if (!a) return refuse(err, n, "cross_entropy: the arguments are NULL");
    if (!(a->smoothing >= 0 && a->smoothing <= 1)) return refuse(err, n, "cross_entropy: smoothing must lie in [0, 1]");
    if (a->ignore_index < -ROW_IGNORE_BIAS || a->ignore_index > INT32_MAX)
        return refuse(err, n, "cross_entropy: the ignore index must lie in [-2^32, 2^31)");
    row_call rc = {&row_cross_entropy, 0, {a->logits, a->labels, a->loss, a->lse, a->dlogits}, a->ignore_index + ROW_IGNORE_BIAS,
                   {a->grad_scale, a->smoothing}};
    return rows_run(lib, &rc, stream, err, n);
}

cute_status cutec_reduce_rows(cutec_rows *lib, const cute_call_arg *out, const cute_call_arg *x, cutec_reduce_op op,
                              void *stream, char *err, size_t n)
{
    static const row_op *const ops[] = {&row_reduce_sum, &row_reduce_sum, &row_reduce_max, &row_reduce_min,
                                        &row_reduce_prod};
    if ((unsigned)op >= sizeof ops / sizeof *ops) return refuse(err, n, "reduce_rows: op is not a cutec_reduce_op");
    row_call rc = {ops[op], op == CUTEC_REDUCE_MEAN, {x, out}, 0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}
