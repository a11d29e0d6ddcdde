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
