/* CPU references of the row-reduction kernels in float64, on compact row-major (m, n)
 * arrays; for the tests and `cutec run`'s check. */
#ifndef CUTEC_ROWS_REF_H
#define CUTEC_ROWS_REF_H

#include <stdbool.h>
#include <stdint.h>

void rows_ref_softmax(const double *x, double *y, int64_t m, int64_t n, bool log);
void rows_ref_softmax_backward(const double *dy, const double *y, double *dx, int64_t m, int64_t n, bool log);
/* h = x (+ res); y = h rstd (* w); res, w, h, rstd may be NULL */
void rows_ref_rmsnorm(const double *x, const double *res, const double *w, double eps, double *y, double *h,
                      double *rstd, int64_t m, int64_t n);
void rows_ref_rmsnorm_backward(const double *dy, const double *x, const double *w, const double *rstd,
                               double *dx, double *dw, int64_t m, int64_t n);
void rows_ref_layernorm(const double *x, const double *res, const double *w, const double *b, double eps,
                        double *y, double *h, double *mean, double *rstd, int64_t m, int64_t n);
void rows_ref_layernorm_backward(const double *dy, const double *x, const double *w, const double *mean,
                                 const double *rstd, double *dx, double *dw, double *db, int64_t m, int64_t n);
/* loss, lse per row; dx (may be NULL): scale d(sum loss)/dx */
void rows_ref_cross_entropy(const double *x, const int64_t *labels, int64_t ignore, double smoothing,
                            double scale, double *loss, double *lse, double *dx, int64_t m, int64_t n);
/* a plain reduction of one row of n (op: cutec_reduce_op's value: sum, mean, max, min,
 * product) and the scale of what f32 accumulation may miss: the sum (mean) of |x| for sums
 * and means, 0 otherwise */
double rows_ref_reduce(const double *x, int64_t n, int op, double *scale);
/* got is what an f32 accumulation of the row may give: sums and means within 1e-5 of the
 * scale, maxima and minima exact, products within n + 2 roundings */
bool rows_ref_reduce_close(double got, double want, double scale, int op, int64_t n);

#endif
