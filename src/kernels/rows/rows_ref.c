/* The float64 references of the row-reduction kernels (rows_ref.h). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "cutec/row_kernels.h"
#include "kernels/rows/rows_ref.h"

static double row_max(const double *x, int64_t n)
{
    double m = -INFINITY;
    for (int64_t j = 0; j < n; j++) m = fmax(m, x[j]);
    return m;
}

static double row_lse(const double *x, int64_t n)
{
    double m = row_max(x, n), s = 0;
    for (int64_t j = 0; j < n; j++) s += exp(x[j] - m);
    return m + log(s);
}

void rows_ref_softmax(const double *x, double *y, int64_t m, int64_t n, bool log)
{
    for (int64_t i = 0; i < m; i++) {
        double lse = row_lse(x + i * n, n);
        for (int64_t j = 0; j < n; j++) y[i * n + j] = log ? x[i * n + j] - lse : exp(x[i * n + j] - lse);
    }
}

void rows_ref_softmax_backward(const double *dy, const double *y, double *dx, int64_t m, int64_t n, bool log)
{
    for (int64_t i = 0; i < m; i++) {
        const double *g = dy + i * n, *p = y + i * n;
        double s = 0;
        for (int64_t j = 0; j < n; j++) s += log ? g[j] : g[j] * p[j];
        for (int64_t j = 0; j < n; j++) dx[i * n + j] = log ? g[j] - exp(p[j]) * s : p[j] * (g[j] - s);
    }
}

static double at(const double *v, int64_t i, double none) { return v ? v[i] : none; }

void rows_ref_rmsnorm(const double *x, const double *res, const double *w, double eps, double *y, double *h,
                      double *rstd, int64_t m, int64_t n)
{
    for (int64_t i = 0; i < m; i++) {
        double ss = 0;
        for (int64_t j = 0; j < n; j++) {
            double v = x[i * n + j] + at(res, i * n + j, 0);
            ss += v * v;
        }
        double r = 1 / sqrt(ss / (double)n + eps);
        if (rstd) rstd[i] = r;
        for (int64_t j = 0; j < n; j++) {
            double v = x[i * n + j] + at(res, i * n + j, 0);
            if (h) h[i * n + j] = v;
            y[i * n + j] = v * r * at(w, j, 1);
        }
    }
}

/* dx of one row from g = dy (* w), xhat, rstd and the means of g and g xhat (mg: 0 for RMSNorm) */
static void norm_dx(const double *g, const double *xhat, double r, double mg, double mgx, double *dx, int64_t n)
{
    for (int64_t j = 0; j < n; j++) dx[j] = r * (g[j] - mg - xhat[j] * mgx);
}

/* the backward of both norms (mean NULL: RMSNorm) */
static void norm_backward(const double *dy, const double *x, const double *w, const double *mean,
                          const double *rstd, double *dx, double *dw, double *db, int64_t m, int64_t n,
                          double *g, double *xhat)
{
    for (int64_t j = 0; j < n; j++) {
        if (dw) dw[j] = 0;
        if (db) db[j] = 0;
    }
    for (int64_t i = 0; i < m; i++) {
        double sg = 0, sgx = 0;
        for (int64_t j = 0; j < n; j++) {
            g[j] = dy[i * n + j] * at(w, j, 1);
            xhat[j] = (x[i * n + j] - at(mean, i, 0)) * rstd[i];
            sg += g[j], sgx += g[j] * xhat[j];
            if (dw) dw[j] += dy[i * n + j] * xhat[j];
            if (db) db[j] += dy[i * n + j];
        }
        norm_dx(g, xhat, rstd[i], mean ? sg / (double)n : 0, sgx / (double)n, dx + i * n, n);
    }
}

void rows_ref_rmsnorm_backward(const double *dy, const double *x, const double *w, const double *rstd,
                               double *dx, double *dw, int64_t m, int64_t n)
{
    double *g = malloc(sizeof(double) * (size_t)n * 2);
    if (g) norm_backward(dy, x, w, NULL, rstd, dx, dw, NULL, m, n, g, g + n);
    free(g);
}

void rows_ref_layernorm(const double *x, const double *res, const double *w, const double *b, double eps,
                        double *y, double *h, double *mean, double *rstd, int64_t m, int64_t n)
{
    for (int64_t i = 0; i < m; i++) {
        double s = 0, ss = 0;
        for (int64_t j = 0; j < n; j++) s += x[i * n + j] + at(res, i * n + j, 0);
        double mu = s / (double)n;
        for (int64_t j = 0; j < n; j++) {
            double d = x[i * n + j] + at(res, i * n + j, 0) - mu;
            ss += d * d;
        }
        double r = 1 / sqrt(ss / (double)n + eps);
        if (mean) mean[i] = mu;
        if (rstd) rstd[i] = r;
        for (int64_t j = 0; j < n; j++) {
            double v = x[i * n + j] + at(res, i * n + j, 0);
            if (h) h[i * n + j] = v;
            y[i * n + j] = (v - mu) * r * at(w, j, 1) + at(b, j, 0);
        }
    }
}

void rows_ref_layernorm_backward(const double *dy, const double *x, const double *w, const double *mean,
                                 const double *rstd, double *dx, double *dw, double *db, int64_t m, int64_t n)
{
    double *g = malloc(sizeof(double) * (size_t)n * 2);
    if (g) norm_backward(dy, x, w, mean, rstd, dx, dw, db, m, n, g, g + n);
    free(g);
}

void rows_ref_cross_entropy(const double *x, const int64_t *labels, int64_t ignore, double smoothing,
                            double scale, double *loss, double *lse, double *dx, int64_t m, int64_t n)
{
    for (int64_t i = 0; i < m; i++) {
        const double *r = x + i * n;
        double l = row_lse(r, n), sum = 0;
        int64_t y = labels[i];
        bool ignored = y == ignore, ok = y >= 0 && y < n;
        for (int64_t j = 0; j < n; j++) sum += r[j];
        double xl = ok ? r[y] : 0;
        loss[i] = ignored ? 0 : !ok ? NAN : l - (1 - smoothing) * xl - smoothing * sum / (double)n;
        if (lse) lse[i] = l;
        for (int64_t j = 0; dx && j < n; j++)
            dx[i * n + j] = ignored ? 0 : scale * (exp(r[j] - l) - (j == y ? 1 - smoothing : 0) - smoothing / (double)n);
    }
}

enum { SUM = CUTEC_REDUCE_SUM, MEAN = CUTEC_REDUCE_MEAN, MAX = CUTEC_REDUCE_MAX, MIN = CUTEC_REDUCE_MIN,
       PROD = CUTEC_REDUCE_PROD };

double rows_ref_reduce(const double *x, int64_t n, int op, double *scale)
{
    double acc = op == MAX ? -INFINITY : op == MIN ? INFINITY : op == PROD, abs_sum = 0;
    for (int64_t j = 0; j < n; j++) {
        abs_sum += fabs(x[j]);
        acc = op == MAX ? fmax(acc, x[j]) : op == MIN ? fmin(acc, x[j]) : op == PROD ? acc * x[j] : acc + x[j];
    }
    if (op == MEAN) acc /= (double)n, abs_sum /= (double)n;
    *scale = op == SUM || op == MEAN ? abs_sum : 0;
    return acc;
}

bool rows_ref_reduce_close(double got, double want, double scale, int op, int64_t n)
{
    if (op == MAX || op == MIN) return got == want;
    if (op == PROD) {
        /* a float32 product whose true value lies near or past the ends of float32's range has
         * lost its relative precision on the way (a partial product flushed to 0 or overflowed,
         * in whichever order the kernel multiplied): there it need only be as tiny, or as huge
         * with the same sign, as the true one */
        const double tiny = 0x1p-100, huge = 0x1p100;
        if (fabs(want) < tiny && fabs(got) < tiny) return true;
        if (fabs(want) > huge && fabs(got) > huge && signbit(got) == signbit(want)) return true;
        return fabs(got - want) <= 1.2e-7 * (double)(n + 2) * fabs(want);
    }
    return fabs(got - want) <= 1e-5 * scale + 1e-30;
}
