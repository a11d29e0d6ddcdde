/* Test helpers of the row-reduction kernels: matrices with padded rows in a buffer of any
 * backend, filled with random values or poison, read back as float64; the comparison
 * against a float64 reference with a tolerance by dtype. */
#ifndef CUTEC_ROWS_TESTKIT_H
#define CUTEC_ROWS_TESTKIT_H

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "cutec/row_kernels.h"
#include "kernels/ew_ref.h"

typedef struct tmat {
    cute_backend *be;
    cute_buffer buf;
    cute_dtype d;
    int64_t m, n, ld; /* rows, columns, row stride (n == 1 and m rows: a vector) */
    int rank;
    cute_call_arg arg;
} tmat;

static uint64_t tk_seed;

/* (the argument points at the tmat's buffer: the tmat stays where it is made)
 * random values of scale `scale` (poison: NaN) into an (m, n) matrix of row stride ld
 * (rank 2) or an m-vector (rank 1); the padding is poison too */
static inline void tk_init(tmat *out, cute_backend *be, cute_dtype d, int rank, int64_t m, int64_t n, int64_t ld, double scale)
{
    tmat t = {be, {0}, d, m, n, ld, rank, {0}};
    int64_t elems = rank == 2 ? (m ? m : 1) * ld : m;
    size_t bytes = (size_t)(elems ? elems : 1) * (size_t)cute_dtype_bytes(d);
    void *host = malloc(bytes);
    for (int64_t i = 0; i < elems; i++) {
        bool pad = rank == 2 && i % ld >= n;
        double v = scale == 0 || pad ? NAN : ew_random(&tk_seed) * scale / 2;
        ew_set(d, host, i, v);
    }
    be->vt->alloc(be->self, bytes, &t.buf);
    be->vt->upload(be->self, &t.buf, 0, host, bytes);
    free(host);
    *out = t;
    int64_t shape[2] = {m, n}, stride[2] = {ld, 1}, vshape[1] = {m}, vstride[1] = {1};
    out->arg = rank == 2 ? cute_call_tensor(&out->buf, 0, d, 2, shape, stride)
                         : cute_call_tensor(&out->buf, 0, d, 1, vshape, vstride);
}

/* the values (m x n compact, or m), as doubles (malloc'd) */
static inline double *tk_get(const tmat *t)
{
    int64_t elems = t->rank == 2 ? t->m * t->ld : t->m, cnt = t->rank == 2 ? t->m * t->n : t->m;
    size_t bytes = (size_t)(elems ? elems : 1) * (size_t)cute_dtype_bytes(t->d);
    void *host = malloc(bytes);
    double *out = malloc((size_t)(cnt ? cnt : 1) * sizeof(double));
    t->be->vt->download(t->be->self, host, &t->buf, 0, bytes);
    for (int64_t i = 0; i < cnt; i++)
        out[i] = ew_get(t->d, host, t->rank == 2 ? i / t->n * t->ld + i % t->n : i);
    free(host);
    return out;
}

/* every element inside a matrix plus `shift` (rounded to its dtype): rows whose mean is
 * far from 0 next to their spread */
static inline void tk_shift(tmat *t, double shift)
{
    size_t bytes = (size_t)(t->m * t->ld) * (size_t)cute_dtype_bytes(t->d);
    void *host = malloc(bytes ? bytes : 1);
    t->be->vt->download(t->be->self, host, &t->buf, 0, bytes);
    for (int64_t i = 0; i < t->m * t->ld; i++)
        if (i % t->ld < t->n) ew_set(t->d, host, i, ew_get(t->d, host, i) + shift);
    t->be->vt->upload(t->be->self, &t->buf, 0, host, bytes);
    free(host);
}

/* each element i of an f32 vector times 1 + i mod 3: per-row values (rstd, mean) that differ
 * from row to row by more than random rows' do, so that a kernel giving a row another row's
 * value shows (a persistent block carries its next row's values over an iteration) */
static inline void tk_vary_rows(tmat *t)
{
    size_t bytes = (size_t)t->m * sizeof(float);
    float *host = malloc(bytes ? bytes : 1);
    t->be->vt->download(t->be->self, host, &t->buf, 0, bytes);
    for (int64_t i = 0; i < t->m; i++) host[i] *= (float)(1 + i % 3);
    t->be->vt->upload(t->be->self, &t->buf, 0, host, bytes);
    free(host);
}

/* the padding of a matrix still poison (the kernel wrote only inside) */
static inline int64_t tk_padding_written(const tmat *t)
{
    if (t->rank != 2 || t->ld == t->n) return 0;
    size_t bytes = (size_t)(t->m * t->ld) * (size_t)cute_dtype_bytes(t->d);
    void *host = malloc(bytes ? bytes : 1);
    t->be->vt->download(t->be->self, host, &t->buf, 0, bytes);
    int64_t bad = 0;
    for (int64_t i = 0; i < t->m * t->ld; i++) bad += i % t->ld >= t->n && !isnan(ew_get(t->d, host, i));
    free(host);
    return bad;
}

static inline void tk_free(tmat *t) { t->be->vt->free(t->be->self, &t->buf); }

/* relative tolerance of results in dtype d */
static inline double tk_tol(cute_dtype d) { return d == CUTE_F32 ? 2e-5 : d == CUTE_F16 ? 2e-3 : 1.6e-2; }

/* got against want (cnt values): |got - want| <= tol (|want| + floor); the first miss in
 * `first`; the misses counted */
static inline int64_t tk_compare(const double *got, const double *want, int64_t cnt, double tol, double floor, char *first,
                          size_t n)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < cnt; i++) {
        double e = fabs(got[i] - want[i]);
        if (e <= tol * (fabs(want[i]) + floor)) continue;
        if (!bad++) snprintf(first, n, "element %lld: got %.9g want %.9g", (long long)i, got[i], want[i]);
    }
    return bad;
}

/* a fresh seed (printed; CUTEC_SEED=N repeats a run's) and a library on a runtime of
 * `backend`; NULL (and why) when that backend is not there */
static inline cutec_rows *tk_begin(const char *backend, cute_runtime **rt, char *err, size_t n)
{
    tk_seed = getenv("CUTEC_SEED") ? strtoull(getenv("CUTEC_SEED"), NULL, 10) : (uint64_t)time(NULL);
    printf("seed %llu (CUTEC_SEED=%llu repeats it)\n", (unsigned long long)tk_seed, (unsigned long long)tk_seed);
    if (cute_runtime_new(backend, rt, err, n) != CUTE_OK) return NULL;
    return cutec_rows_new(*rt);
}

static inline void tk_end(cutec_rows *lib, cute_runtime *rt)
{
    cutec_rows_free(lib);
    cute_runtime_free(rt);
}

#endif
