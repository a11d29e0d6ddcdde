/* rp_check: a row-reduction problem's outputs on sampled rows (and dw, db over every row)
 * against the float64 references of src/kernels/rows/rows_ref.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/rows_problem.h"
#include "kernels/ew_ref.h"
#include "kernels/rows/rows_ref.h"

/* values [first, first + cnt) of a buffer as doubles (outputs are downloaded first) */
static double *values(rows_problem *p, rp_buf *x, int64_t first, int64_t cnt, bool download)
{
    if (download) p->be->vt->download(p->be->self, x->host, &x->b, 0, x->bytes);
    double *v = malloc(sizeof(double) * (size_t)(cnt ? cnt : 1));
    for (int64_t i = 0; v && i < cnt; i++) v[i] = ew_get((cute_dtype)x->arg.dtype, x->host, first + i);
    return v;
}

static double tolerance(cute_dtype d) { return d == CUTE_F32 ? 2e-5 : d == CUTE_F16 ? 2e-3 : 1.6e-2; }

static int64_t compare(const double *got, const double *want, int64_t cnt, double tol, double floor, const char *what,
                       int64_t row, char *first, size_t n)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < cnt; i++)
        if (!(fabs(got[i] - want[i]) <= tol * (fabs(want[i]) + floor)) && !bad++ && !first[0])
            snprintf(first, n, "%s row %lld element %lld: got %.8g want %.8g", what, (long long)row, (long long)i, got[i], want[i]);
    return bad;
}

/* the forward of one row: y (and the statistics) */
static int64_t check_forward_row(rows_problem *p, int64_t r, char *first, size_t n)
{
    int64_t N = p->n, bad = 0;
    double *x = values(p, &p->x, r * N, N, false), *y = values(p, &p->y, r * N, N, false);
    double *want = malloc(sizeof(double) * (size_t)N), st[4] = {0, 0, 0, 0}, tol = tolerance(p->d);
    double *w = p->w.host ? values(p, &p->w, 0, N, false) : NULL, *b = p->b.host ? values(p, &p->b, 0, N, false) : NULL;
    if (p->op == RP_SOFTMAX || p->op == RP_LOG_SOFTMAX) rows_ref_softmax(x, want, 1, N, p->op == RP_LOG_SOFTMAX);
    if (p->op == RP_RMSNORM) rows_ref_rmsnorm(x, NULL, w, 1e-5, want, NULL, &st[1], 1, N);
    if (p->op == RP_LAYERNORM) rows_ref_layernorm(x, NULL, w, b, 1e-5, want, NULL, &st[0], &st[1], 1, N);
    bad += compare(y, want, N, tol, p->op == RP_SOFTMAX ? 1e-3 : 1, "y", r, first, n);
    if (p->rstd.host) {
        double got = ew_get(CUTE_F32, p->rstd.host, r);
        bad += compare(&got, &st[1], 1, 2e-5, 0, "rstd", r, first, n);
    }
    free(x), free(y), free(want), free(w), free(b);
    return bad;
}

/* a plain reduction of `count` elements of x, `stride` apart from `first`: row r (out[r]) or
 * column j (out[j], over the first dimension) */
static int64_t check_reduce(rows_problem *p, int64_t r, int64_t first, int64_t count, int64_t stride, char *first_bad,
                            size_t n)
{
    double *x = malloc(sizeof(double) * (size_t)count), scale;
    for (int64_t i = 0; x && i < count; i++) x[i] = ew_get(p->d, p->x.host, first + i * stride);
    int op = (int)(p->op - RP_SUM);
    double want = x ? rows_ref_reduce(x, count, op, &scale) : NAN, got = ew_get(CUTE_F32, p->out.host, r);
    free(x);
    if (rows_ref_reduce_close(got, want, scale, op, count)) return 0;
    if (!first_bad[0])
        snprintf(first_bad, n, "%s %s %lld: got %.8g want %.8g", rp_op_name(p->op), p->columns ? "column" : "row",
                 (long long)r, got, want);
    return 1;
}

/* cross-entropy of one row: loss, lse, and dlogits when fused */
static int64_t check_xent_row(rows_problem *p, int64_t r, char *first, size_t n)
{
    int64_t N = p->n, bad = 0, label = ((int64_t *)p->labels.host)[r];
    double *x = values(p, &p->x, r * N, N, false), *dx = malloc(sizeof(double) * (size_t)N), loss, lse;
    rows_ref_cross_entropy(x, &label, -100, 0, 1.0 / (double)p->m, &loss, &lse, dx, 1, N);
    double got[2] = {ew_get(CUTE_F32, p->loss.host, r), ew_get(CUTE_F32, p->lse.host, r)}, want[2] = {loss, lse};
    bad += compare(got, want, 2, 2e-5, 1, "loss, lse", r, first, n);
    if (p->backward) {
        double *g = values(p, &p->y, r * N, N, false);
        bad += compare(g, dx, N, tolerance(p->d), 1.0 / (double)p->m, "dlogits", r, first, n);
        free(g);
    }
    free(x), free(dx);
    return bad;
}

/* a backward's dx on one row (softmax's from its y; the norms' statistics are the forward's) */
static int64_t check_backward_row(rows_problem *p, int64_t r, char *first, size_t n)
{
    int64_t N = p->n;
    bool soft = p->op == RP_SOFTMAX || p->op == RP_LOG_SOFTMAX;
    double *x = values(p, soft ? &p->fy : &p->x, r * N, N, false), *dy = values(p, &p->x2, r * N, N, false);
    double *dx = values(p, &p->y, r * N, N, false), *want = malloc(sizeof(double) * (size_t)N);
    double *w = p->w.host ? values(p, &p->w, 0, N, false) : NULL;
    double rstd = p->rstd.host ? ew_get(CUTE_F32, p->rstd.host, r) : 0, mean = p->mean.host ? ew_get(CUTE_F32, p->mean.host, r) : 0;
    if (p->op == RP_SOFTMAX || p->op == RP_LOG_SOFTMAX) rows_ref_softmax_backward(dy, x, want, 1, N, p->op == RP_LOG_SOFTMAX);
    if (p->op == RP_RMSNORM) rows_ref_rmsnorm_backward(dy, x, w, &rstd, want, NULL, 1, N);
    if (p->op == RP_LAYERNORM) rows_ref_layernorm_backward(dy, x, w, &mean, &rstd, want, NULL, NULL, 1, N);
    int64_t bad = compare(dx, want, N, tolerance(p->d), p->op == RP_SOFTMAX ? 4.0 / (double)N : 4, "dx", r, first, n);
    free(x), free(dy), free(dx), free(want), free(w);
    return bad;
}

/* dw (and db) over every row */
static int64_t check_column_sums(rows_problem *p, char *first, size_t n)
{
    int64_t M = p->m, N = p->n, bad = 0;
    double *x = values(p, &p->x, 0, M * N, false), *dy = values(p, &p->x2, 0, M * N, false);
    double *w = values(p, &p->w, 0, N, false), *rstd = values(p, &p->rstd, 0, M, false);
    double *mean = p->mean.host ? values(p, &p->mean, 0, M, false) : NULL;
    double *dx = malloc(sizeof(double) * (size_t)(M * N)), *want = malloc(sizeof(double) * (size_t)N * 2);
    if (p->op == RP_LAYERNORM)
        rows_ref_layernorm_backward(dy, x, w, mean, rstd, dx, want, want + N, M, N);
    else
        rows_ref_rmsnorm_backward(dy, x, w, rstd, dx, want, M, N);
    double *dw = values(p, &p->dw, 0, N, true), floor = 2 * sqrt((double)M);
    bad += compare(dw, want, N, tolerance(p->d), floor, "dweight", 0, first, n);
    if (p->db.host) {
        double *db = values(p, &p->db, 0, N, true);
        bad += compare(db, want + N, N, tolerance(p->d), floor, "dbias", 0, first, n);
        free(db);
    }
    free(x), free(dy), free(w), free(rstd), free(mean), free(dx), free(want), free(dw);
    return bad;
}

int64_t rp_check(rows_problem *p, bool all_rows, char *first, size_t n)
{
    first[0] = 0;
    if (p->y.host) p->be->vt->download(p->be->self, p->y.host, &p->y.b, 0, p->y.bytes);
    rp_buf *stats[5] = {&p->rstd, &p->mean, &p->loss, &p->lse, &p->out};
    for (int i = 0; i < 5 && (!p->backward || p->op == RP_XENT); i++)
        if (stats[i]->host) p->be->vt->download(p->be->self, stats[i]->host, &stats[i]->b, 0, stats[i]->bytes);
    int64_t rows[4] = {0, 1, p->m / 2, p->m - 1}, cols[4] = {0, 1, p->n / 2, p->n - 1}, bad = 0;
    for (int i = 0; p->columns && i < 4; i++)
        if (cols[i] < p->n && (!i || cols[i] > cols[i - 1])) bad += check_reduce(p, cols[i], cols[i], p->m, p->n, first, n);
    for (int i = 0; !p->columns && i < 4; i++) {
        if (rows[i] >= p->m || (i && rows[i] <= rows[i - 1])) continue;
        bad += rp_op_reduce(p->op) ? check_reduce(p, rows[i], rows[i] * p->n, p->n, 1, first, n)
               : p->op == RP_XENT   ? check_xent_row(p, rows[i], first, n)
               : p->backward    ? check_backward_row(p, rows[i], first, n)
                                : check_forward_row(p, rows[i], first, n);
    }
    if (all_rows && p->backward && p->dw.host) bad += check_column_sums(p, first, n);
    return bad;
}
