/* The float64 GEMM reference (see gemm_ref.h). */
#include <math.h>

#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

int64_t gemm_ref_at(const gemm_ref_operand *x, int64_t i, int64_t j)
{
    return x->major == 0 ? i + j * x->ld : i * x->ld + j;
}

double gemm_ref_element(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                        const gemm_ref_operand *C0, int64_t K, int64_t m, int64_t n, double alpha,
                        double beta, double *mag)
{
    double s = 0, t = 0;
    for (int64_t k = 0; k < K; k++) {
        double x = ew_get(d, A->data, gemm_ref_at(A, m, k)) * ew_get(d, B->data, gemm_ref_at(B, n, k));
        s += x, t += fabs(x);
    }
    double c = beta == 0 ? 0 : ew_get(d, C0->data, gemm_ref_at(C0, m, n));
    *mag = fabs(alpha) * t + fabs(beta * c);
    return alpha * s + beta * c;
}

double gemm_ref_error(double got, double ref, double mag)
{
    return fabs(got - ref) / (mag > 0 ? mag : 1);
}

int64_t gemm_ref_check_all(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                           const gemm_ref_operand *C0, const gemm_ref_operand *C, int64_t M,
                           int64_t N, int64_t K, double alpha, double beta, double tol,
                           double *worst)
{
    int64_t bad = 0;
    *worst = 0;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double mag, ref = gemm_ref_element(d, A, B, C0, K, m, n, alpha, beta, &mag);
            double e = gemm_ref_error(ew_get(d, C->data, gemm_ref_at(C, m, n)), ref, mag);
            if (!(e <= tol)) bad++;
            if (!(e <= *worst)) *worst = e;
        }
    return bad;
}
