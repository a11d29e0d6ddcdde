/* The grouped GEMM's host side: a group's row of the device array from its tensors (checked
 * against the configuration, each mistake named), and the library's call, which uploads the
 * rows and runs the kernel (hopper_grouped.c). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/gemm/gemm_internal.h"

static cute_status bad(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cute_status bad(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return CUTE_ERR_INVALID;
}

cute_status gemm_tma_operand_ok(const cute_call_arg *x, char which, cute_dtype d, int major, char *err, size_t n)
{
    if (x->kind != CUTE_ARG_TENSOR || x->ndim != 2 || !x->buf)
        return bad(err, n, "%c is not a 2-D tensor", which);
    if (x->dtype != d) return bad(err, n, "%c is %s, the group's configuration %s", which, cute_dtype_name(x->dtype),
                                  cute_dtype_name(d));
    if (x->stride[major] != 1)
        return bad(err, n, "%c has stride %" PRId64 " in mode %d (the configuration's unit-stride mode)", which,
                   x->stride[major], major);
    int64_t bits = cute_dtype_bits(d), ld = x->stride[!major]; /* (e2m1: two elements a byte) */
    uint64_t at = (uint64_t)(uintptr_t)x->buf->ptr + x->offset;
    if (at % 16 || (ld * bits) % 128 || (x->shape[major] * bits) % 128 || ld < x->shape[major])
        return bad(err, n, "%c (%" PRId64 "x%" PRId64 ", leading dimension %" PRId64 ", at byte %" PRIu64 " mod 16) "
                   "is not 16-byte aligned: TMA needs the pointer, the leading dimension and the unit-stride "
                   "extent in whole 16 bytes", which, x->shape[0], x->shape[1], ld, at % 16);
    if (x->offset + (size_t)(((x->shape[0] - 1) * x->stride[0] + (x->shape[1] - 1) * x->stride[1] + 1) * bits + 7) / 8 >
            x->buf->bytes && x->shape[0] && x->shape[1])
        return bad(err, n, "%c reaches past the end of its buffer", which);
    return CUTE_OK;
}

cute_status cute_gemm_group_row(const cute_gemm_config *cfg, const cute_gemm_group *g, int64_t *row, char *err,
                                size_t n)
{
    const cute_call_arg *x[3] = {&g->A, &g->B, &g->C};
    for (int i = 0; i < 3; i++) {
        cute_dtype d = i == 2 ? cute_gemm_c_dtype(cfg) : cfg->dtype;
        cute_status s = gemm_tma_operand_ok(x[i], "ABC"[i], d, cfg->major[i], err, n);
        if (s != CUTE_OK) return s;
    }
    int64_t M = g->C.shape[0], N = g->C.shape[1], K = g->A.shape[1];
    if (g->A.shape[0] != M || g->B.shape[0] != N || g->B.shape[1] != K)
        return bad(err, n, "A %" PRId64 "x%" PRId64 ", B %" PRId64 "x%" PRId64 ", C %" PRId64 "x%" PRId64
                   " do not make one product (A (M,K), B (N,K), C (M,N))", g->A.shape[0], g->A.shape[1],
                   g->B.shape[0], g->B.shape[1], M, N);
    if (K < 1) return bad(err, n, "K = %" PRId64 " (a grouped GEMM's groups have K >= 1)", K);
    for (int k = 0; k < CUTE_GEMM_GROUP_WORDS; k++) row[k] = 0;
    for (int i = 0; i < 3; i++) {
        row[CUTE_GEMM_GROUP_A + i] = (int64_t)((uintptr_t)x[i]->buf->ptr + x[i]->offset);
        row[CUTE_GEMM_GROUP_LDA + i] = x[i]->stride[!cfg->major[i]];
    }
    row[CUTE_GEMM_GROUP_M] = M, row[CUTE_GEMM_GROUP_N] = N, row[CUTE_GEMM_GROUP_K] = K;
    return CUTE_OK;
}

/* the configuration group 0's tensors ask for */
static cute_gemm_config config_of(const cute_gemm_group *g0)
{
    const cute_call_arg *x[3] = {&g0->A, &g0->B, &g0->C};
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = (cute_dtype)g0->A.dtype,
                            .c_dtype = (cute_dtype)g0->C.dtype, .align_bytes = 16};
    for (int i = 0; i < 3; i++) cfg.major[i] = x[i]->ndim == 2 && x[i]->stride[1] == 1;
    return cfg;
}

/* every group's row, in a buffer of the backend's */
static cute_status upload_rows(cute_backend *b, const cute_gemm_config *cfg, const cute_gemm_group *groups,
                               int count, cute_buffer *out, char *err, size_t n)
{
    size_t bytes = (size_t)count * CUTE_GEMM_GROUP_WORDS * sizeof(int64_t);
    int64_t *rows = malloc(bytes);
    if (!rows) return CUTE_ERR_OOM;
    cute_status s = CUTE_OK;
    char why[512];
    for (int g = 0; g < count && s == CUTE_OK; g++)
        if ((s = cute_gemm_group_row(cfg, &groups[g], rows + (size_t)g * CUTE_GEMM_GROUP_WORDS, why, sizeof why)) != CUTE_OK)
            snprintf(err, n, "gemm grouped: group %d: %s", g, why);
    if (s == CUTE_OK) s = b->vt->alloc(b->self, bytes, out);
    if (s == CUTE_OK && (s = b->vt->upload(b->self, out, 0, rows, bytes)) != CUTE_OK) b->vt->free(b->self, out);
    free(rows);
    return s;
}

cute_status cutec_gemm_grouped(cute_gemm_lib *lib, const cute_gemm_group *groups, int count, double alpha,
                               double beta, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return bad(err, n, "gemm grouped: no library");
    if (!groups) return bad(err, n, "gemm grouped: groups is NULL");
    if (count < 1) return bad(err, n, "gemm grouped: %d groups (at least one)", count);
    if (!isfinite(alpha) || !isfinite(beta))
        return bad(err, n, "gemm grouped: alpha (%g) and beta (%g) must be finite", alpha, beta);
    cute_gemm_config cfg = config_of(&groups[0]);
    cute_runtime *rt;
    const cute_fn *f = gemm_lib_grouped(lib, &cfg, &rt, err, n);
    if (!f) return CUTE_ERR_COMPILE;
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer rows, ws;
    cute_status s = upload_rows(b, &cfg, groups, count, &rows, err, n);
    if (s != CUTE_OK) return s;
    size_t wbytes = cute_gemm_grouped_workspace(rt);
    if ((s = b->vt->alloc(b->self, wbytes, &ws)) == CUTE_OK) {
        int64_t rshape[2] = {CUTE_GEMM_GROUP_WORDS, count}, rstride[2] = {1, CUTE_GEMM_GROUP_WORDS};
        int64_t wshape[1] = {(int64_t)wbytes}, wstride[1] = {1};
        cute_call_arg args[8] = {groups[0].A, groups[0].B, groups[0].C, cute_call_tensor(&rows, 0, CUTE_I64, 2, rshape, rstride),
                                 cute_call_tensor(&ws, 0, CUTE_U8, 1, wshape, wstride), cute_call_float(alpha),
                                 cute_call_float(beta), cute_call_int(count)};
        s = cute_call(f, stream, 8, args, err, n);
        if (s == CUTE_OK) s = b->vt->sync(b->self, stream); /* the rows and workspace are freed next */
        b->vt->free(b->self, &ws);
    }
    b->vt->free(b->self, &rows);
    return s;
}
