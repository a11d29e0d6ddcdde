/* The float64 GEMM reference (see gemm_ref.h). */
#include <math.h>

#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

int64_t gemm_ref_at(const gemm_ref_operand *x, int64_t i, int64_t j)
{
    return x->major == 0 ? i + j * x->ld : i * x->ld + j;
}

int64_t gemm_ref_at_l(const gemm_ref_problem *p, int which, int64_t i, int64_t j, int64_t l)
{
    const gemm_ref_operand *x[3] = {&p->A, &p->B, &p->C0};
    return gemm_ref_at(x[which], i, j) + l * p->lstride[which];
}

double gemm_ref_value(const gemm_ref_problem *p, int64_t m, int64_t n, int64_t l, double *mag)
{
    double s = 0, t = 0;
    for (int64_t k = 0; k < p->K; k++) {
        double x = ew_get(p->in, p->A.data, gemm_ref_at_l(p, 0, m, k, l)) *
                   ew_get(p->in, p->B.data, gemm_ref_at_l(p, 1, n, k, l));
        s += x, t += fabs(x);
    }
    double c = p->beta == 0 ? 0 : ew_get(p->out, p->C0.data, gemm_ref_at_l(p, 2, m, n, l));
    *mag = fabs(p->alpha) * t + fabs(p->beta * c);
    return p->alpha * s + p->beta * c;
}

double gemm_ref_error(double got, double ref, double mag)
{
    return fabs(got - ref) / (mag > 0 ? mag : 1);
}

int64_t gemm_ref_check(const gemm_ref_problem *p, const void *C, double tol, double *worst)
{
    int64_t bad = 0;
    *worst = 0;
    for (int64_t l = 0; l < p->L; l++)
        for (int64_t m = 0; m < p->M; m++)
            for (int64_t n = 0; n < p->N; n++) {
                double mag, ref = gemm_ref_value(p, m, n, l, &mag);
                double e = gemm_ref_error(ew_get(p->out, C, gemm_ref_at_l(p, 2, m, n, l)), ref, mag);
                if (!(e <= tol)) bad++;
                if (!(e <= *worst)) *worst = e;
            }
    return bad;
}

double gemm_ref_element(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                        const gemm_ref_operand *C0, int64_t K, int64_t m, int64_t n, double alpha,
                        double beta, double *mag)
{
    gemm_ref_problem p = {*A, *B, *C0, d, d, {0, 0, 0}, m + 1, n + 1, K, 1, alpha, beta};
    return gemm_ref_value(&p, m, n, 0, mag);
}

int64_t gemm_ref_check_all(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                           const gemm_ref_operand *C0, const gemm_ref_operand *C, int64_t M,
                           int64_t N, int64_t K, double alpha, double beta, double tol,
                           double *worst)
{
    /* the result C laid out as C0 (the tests run in place) */
    gemm_ref_problem p = {*A, *B, {C0->data, C->ld, C->major}, d, d, {0, 0, 0}, M, N, K, 1, alpha, beta};
    return gemm_ref_check(&p, C->data, tol, worst);
}
