/* The float64 references of the row-reduction kernels (rows_ref.h). */
#include <math.h>
#include <stddef.h>

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
