/* cutec/row_kernels.h — the row-reduction kernels: softmax and log-softmax, RMSNorm,
 * LayerNorm, cross-entropy; forward and backward; and plain row reductions (sum, mean, max,
 * min, product).
 *
 * Each works on the rows of (M,N) matrices (cute_call_arg of rank 2) whose columns are
 * unit-stride; rows may have any stride (padded rows, a slice of a wider matrix) and any
 * length.  Inputs f32, f16 or bf16 (all the matrices of one call the same dtype);
 * arithmetic in f32; saved statistics and losses f32 (M).  Each kernel reads its inputs
 * from memory once and writes its outputs once where a row fits a block's registers
 * (docs/reductions.md says how long that is); longer rows are read once per reduction
 * stage, then once more to write.  The first call with a new combination of op, dtype,
 * row-length bucket and alignment compiles (through the JIT cache); later calls reuse it.
 */
#ifndef CUTEC_ROW_KERNELS_H
#define CUTEC_ROW_KERNELS_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

typedef struct cutec_rows cutec_rows;
cutec_rows *cutec_rows_new(cute_runtime *rt);
void cutec_rows_free(cutec_rows *lib);

/* y = softmax(x) over each row (log: log-softmax), max-subtracted: logits of +-1e4 hold */
cute_status cutec_softmax(cutec_rows *lib, const cute_call_arg *y, const cute_call_arg *x, bool log,
                          void *stream, char *err, size_t n);
/* dx from dy and the forward's y: y (dy - sum(dy y)); log: dy - exp(y) sum(dy) */
cute_status cutec_softmax_backward(cutec_rows *lib, const cute_call_arg *dx, const cute_call_arg *dy,
                                   const cute_call_arg *y, bool log, void *stream, char *err, size_t n);

/* RMSNorm: h = x (+ residual); y = h rsqrt(mean(h^2) + eps) (* weight).
 * LayerNorm: y = (h - mean) rsqrt(var + eps) (* weight) (+ bias), var the biased one. */
typedef struct cutec_norm_args {
    const cute_call_arg *x;            /* (M,N) */
    const cute_call_arg *residual;     /* NULL, or (M,N) added to x first */
    const cute_call_arg *weight, *bias;/* NULL or (N) of x's dtype (bias: LayerNorm only) */
    const cute_call_arg *y;            /* (M,N) */
    const cute_call_arg *residual_out; /* NULL, or (M,N): h */
    const cute_call_arg *mean, *rstd;  /* NULL or (M) f32: saved (mean: LayerNorm only) */
    double eps;
} cutec_norm_args;
cute_status cutec_rmsnorm(cutec_rows *lib, const cutec_norm_args *a, void *stream, char *err, size_t n);
cute_status cutec_layernorm(cutec_rows *lib, const cutec_norm_args *a, void *stream, char *err, size_t n);

/* Backward: dx (M,N) from dy, x (the forward's h), weight, and the saved statistics;
 * dweight, dbias (N) summed over the rows (a second small pass over per-block sums, no
 * atomics: the same bits every run), NULL when not wanted. */
typedef struct cutec_norm_grad_args {
    const cute_call_arg *dy, *x;       /* (M,N) */
    const cute_call_arg *weight;       /* NULL or (N) */
    const cute_call_arg *mean, *rstd;  /* (M) f32 (mean: LayerNorm only) */
    const cute_call_arg *dx;           /* (M,N) */
    const cute_call_arg *dweight, *dbias; /* NULL or (N) of x's dtype */
} cutec_norm_grad_args;
cute_status cutec_rmsnorm_backward(cutec_rows *lib, const cutec_norm_grad_args *a, void *stream,
                                   char *err, size_t n);
cute_status cutec_layernorm_backward(cutec_rows *lib, const cutec_norm_grad_args *a, void *stream,
                                     char *err, size_t n);

/* Cross-entropy of each row's logits against its label, PyTorch's with reduction 'none':
 * loss = (1 - s) (lse - x[label]) + s (lse - mean(x)), s the label smoothing; a row whose
 * label is ignore_index has loss 0 and gradient 0.  dlogits, when given, is fused into the
 * same pass: grad_scale d(sum of losses)/dx = grad_scale (softmax - (1 - s) onehot - s/N). */
typedef struct cutec_xent_args {
    const cute_call_arg *logits;  /* (M,N) */
    const cute_call_arg *labels;  /* (M) i32 or i64, each in [0, N) or ignore_index */
    const cute_call_arg *loss;    /* (M) f32 */
    const cute_call_arg *lse;     /* NULL or (M) f32: logsumexp of the row */
    const cute_call_arg *dlogits; /* NULL (forward only) or (M,N) of the logits' dtype */
    int64_t ignore_index;         /* PyTorch's default is -100 */
    double smoothing;             /* in [0, 1] */
    double grad_scale;            /* 1 for the sum; 1/(rows not ignored) for the mean */
} cutec_xent_args;
cute_status cutec_cross_entropy(cutec_rows *lib, const cutec_xent_args *a, void *stream, char *err,
                                size_t n);

/* out(M) f32 = a reduction of each row of x (M,N): PyTorch's sum, mean, amax, amin, prod
 * over the last dimension, accumulated in f32 (the order of a tree, not of the row: sums
 * agree with a float64 reference to f32's rounding of a tree).  amax and amin skip NaNs
 * (fmaxf's rule), where PyTorch's propagate them. */
typedef enum {
    CUTEC_REDUCE_SUM,
    CUTEC_REDUCE_MEAN,
    CUTEC_REDUCE_MAX,
    CUTEC_REDUCE_MIN,
    CUTEC_REDUCE_PROD,
} cutec_reduce_op;
cute_status cutec_reduce_rows(cutec_rows *lib, const cute_call_arg *out, const cute_call_arg *x, cutec_reduce_op op,
                              void *stream, char *err, size_t n);
/* The same over the first dimension: out(N) f32 = the op over the M rows of x(M,N) (f32,
 * f16 or bf16, unit-stride columns), torch.sum(x, 0) and the others; combined in f32 in a
 * fixed order (row splits, then lanes: the same bits every run), NaNs as above. */
cute_status cutec_reduce_cols(cutec_rows *lib, const cute_call_arg *out, const cute_call_arg *x, cutec_reduce_op op,
                              void *stream, char *err, size_t n);

CUTE_API_END
#endif
