/* Internal, for the Hopper GEMM tests (hopper_test.c, grouped_test.c): an operand made of
 * fresh gaussian values on the host and uploaded, as a call argument, and the count of a
 * result's elements off the float64 reference. */
#ifndef CUTEC_GEMM_TESTKIT_H
#define CUTEC_GEMM_TESTKIT_H

#include <math.h>
#include <stdlib.h>

#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

typedef struct gtk_operand {
    int64_t rows, cols, ld;
    int major;
    void *host;
    cute_buffer dev;
} gtk_operand;

/* rows x cols of d with a unit stride in mode `major` and `pad` more elements of leading
 * dimension; NaN everywhere when nan (a poisoned C) */
static inline bool gtk_make(cute_backend *b, gtk_operand *x, cute_dtype d, int64_t rows, int64_t cols, int major,
                            int64_t pad, bool nan, uint64_t *seed)
{
    x->rows = rows, x->cols = cols, x->major = major, x->ld = (major ? cols : rows) + pad;
    size_t n = (size_t)(x->ld * (major ? rows : cols)), es = (size_t)cute_dtype_bytes(d);
    x->host = malloc(n * es + 1);
    gemm_ref_fill(d, x->host, (int64_t)n, seed);
    for (size_t i = 0; nan && i < n; i++) ew_set(d, x->host, (int64_t)i, NAN);
    return b->vt->alloc(b->self, n * es + 16, &x->dev) == CUTE_OK &&
           b->vt->upload(b->self, &x->dev, 0, x->host, n * es) == CUTE_OK;
}

static inline cute_call_arg gtk_arg(const gtk_operand *x, cute_dtype d)
{
    int64_t shape[2] = {x->rows, x->cols}, stride[2] = {x->major ? x->ld : 1, x->major ? 1 : x->ld};
    return cute_call_tensor(&x->dev, 0, d, 2, shape, stride);
}

/* elements of got (C's layout) off the reference of p: all when at most `all`, else a
 * sample of `sample`; the worst relative error into *worst (kept if larger) */
static inline int64_t gtk_wrong(const gemm_ref_problem *p, const void *got, int64_t all, int64_t sample,
                                uint64_t *seed, double *worst)
{
    double tol = gemm_ref_tolerance(p->in, p->out);
    int64_t total = p->M * p->N, samples = total <= all ? total : sample, bad = 0;
    for (int64_t i = 0; i < samples; i++) {
        int64_t e = samples == total ? i : (int64_t)((ew_random(seed) + 2.0) / 4.0 * (double)total) % total;
        int64_t m = e % p->M, n = e / p->M;
        double mag, ref = gemm_ref_value(p, m, n, 0, &mag);
        double err = gemm_ref_error(ew_get(p->out, got, gemm_ref_at(&p->C0, m, n)), ref, mag);
        if (!(err <= tol)) bad++;
        if (!(err <= *worst)) *worst = err;
    }
    return bad;
}

/* the CUDA runtime of an sm_90 GPU, or NULL (none: the caller skips) */
static inline cute_runtime *gtk_sm90(void)
{
    char err[512];
    cute_runtime *rt = NULL;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK && cute_runtime_target_arch(rt) == 90) return rt;
    if (rt) cute_runtime_free(rt);
    return NULL;
}

#endif
