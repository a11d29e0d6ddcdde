/* fp8 scales (cute_gemm_scales): their names, and the check of a call's scale tensors
 * before anything compiles, naming what is wrong (cutec_gemm_scaled, lib.c). */
#include <stdio.h>

#include "kernels/gemm/gemm_internal.h"

static const char *const kinds[] = {"none", "tensor", "block"};

const char *cute_gemm_scale_name(cute_gemm_scale_kind k) { return (unsigned)k <= CUTE_GEMM_SCALE_BLOCK ? kinds[k] : "?"; }

static cute_status invalid(char *err, size_t n, const char *what, const char *why)
{
    snprintf(err, n, "gemm scales: %s %s", what, why);
    return CUTE_ERR_INVALID;
}

/* an f32 tensor of the given rank (NULL allowed where optional) */
static bool f32_tensor(const cute_call_arg *x, int rank)
{
    return x->kind == CUTE_ARG_TENSOR && x->buf && x->dtype == CUTE_F32 && x->ndim == rank;
}

/* one f32 value: a rank-1 tensor of one element */
static cute_status one_value(const cute_call_arg *x, const char *what, bool optional, char *err, size_t n)
{
    if (!x) return optional ? CUTE_OK : invalid(err, n, what, "is missing (a rank-1 f32 tensor of one element)");
    if (!f32_tensor(x, 1) || x->shape[0] != 1) return invalid(err, n, what, "must be a rank-1 f32 tensor of one element");
    return CUTE_OK;
}

/* a block-scale tensor of rows x cols, strides >= 1 where stepped */
static cute_status blocks(const cute_call_arg *x, const char *what, int64_t rows, int64_t cols, char *err, size_t n)
{
    if (!x || !f32_tensor(x, 2) || x->shape[0] != rows || x->shape[1] != cols) {
        snprintf(err, n, "gemm scales: %s must be a rank-2 f32 tensor (%lld, %lld)%s", what, (long long)rows,
                 (long long)cols, x && f32_tensor(x, 2) ? "" : " (missing, or not f32 of rank 2)");
        if (x && f32_tensor(x, 2))
            snprintf(err, n, "gemm scales: %s is (%lld, %lld) but must be (%lld, %lld)", what, (long long)x->shape[0],
                     (long long)x->shape[1], (long long)rows, (long long)cols);
        return CUTE_ERR_INVALID;
    }
    for (int m = 0; m < 2; m++)
        if (x->shape[m] > 1 && x->stride[m] < 1) return invalid(err, n, what, "has a stride below 1 in a mode it steps");
    return CUTE_OK;
}

cute_status gemm_scales_check(const cute_gemm_scales *s, const cute_call_arg *A, const cute_call_arg *B, char *err,
                              size_t n)
{
    if ((unsigned)s->kind > CUTE_GEMM_SCALE_BLOCK)
        return snprintf(err, n, "gemm scales: kind %d (none, tensor or block)", (int)s->kind), CUTE_ERR_INVALID;
    if (s->kind == CUTE_GEMM_SCALE_NONE)
        return s->out || s->amax ? invalid(err, n, "an output scale or amax", "needs per-tensor or block scales") : CUTE_OK;
    if (A->dtype != CUTE_E4M3 && A->dtype != CUTE_E5M2)
        return snprintf(err, n, "gemm scales: %s inputs (scales take e4m3 or e5m2)", cute_dtype_name((cute_dtype)A->dtype)),
               CUTE_ERR_INVALID;
    if (A->ndim != 2) return invalid(err, n, "a batch", "is not taken with scales");
    cute_status st = one_value(s->out, "the output scale", true, err, n);
    if (st == CUTE_OK) st = one_value(s->amax, "amax", true, err, n);
    if (st != CUTE_OK || s->kind == CUTE_GEMM_SCALE_TENSOR) {
        if (st == CUTE_OK) st = one_value(s->a, "A's scale", false, err, n);
        return st == CUTE_OK ? one_value(s->b, "B's scale", false, err, n) : st;
    }
    int64_t M = A->shape[0], N = B->shape[0], K = A->shape[1], kb = (K + 127) / 128;
    if (K == 0) return invalid(err, n, "block scales", "need K >= 1 (there is no K block to scale)");
    st = blocks(s->a, "A's block scales (M, ceil(K/128))", M, kb, err, n);
    return st == CUTE_OK ? blocks(s->b, "B's block scales (ceil(N/128), ceil(K/128))", (N + 127) / 128, kb, err, n) : st;
}
