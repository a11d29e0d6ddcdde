/* The float64 reference every GEMM check judges against (tests, `cutec run/bench gemm`):
 * one element of C = alpha A B^T + beta C0 on host operands, and the scale of its error. */
#ifndef CUTEC_GEMM_REF_H
#define CUTEC_GEMM_REF_H

#include "cutec/ir.h"

/* a host operand (rows, cols) = A (M,K), B (N,K) or C (M,N), stored with a unit stride in
 * mode `major` and leading dimension ld */
typedef struct gemm_ref_operand {
    const void *data;
    int64_t ld;
    int major;
} gemm_ref_operand;

int64_t gemm_ref_at(const gemm_ref_operand *x, int64_t i, int64_t j);
/* alpha sum_k A(m,k) B(n,k) + beta C0(m,n) in float64 (C0 is not read when beta is 0, as
 * in BLAS); *mag gets |alpha| sum_k |A(m,k) B(n,k)| + |beta C0(m,n)|, the scale a relative
 * error is measured against */
double gemm_ref_element(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                        const gemm_ref_operand *C0, int64_t K, int64_t m, int64_t n, double alpha,
                        double beta, double *mag);
/* |got - ref| relative to the scale mag from gemm_ref_element (NaN stays NaN, and so passes
 * no tolerance) */
double gemm_ref_error(double got, double ref, double mag);
/* every element of the M x N result C against the reference: how many are off by more than
 * tol (NaN included), and in *worst the largest error (NaN if any is) */
int64_t gemm_ref_check_all(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                           const gemm_ref_operand *C0, const gemm_ref_operand *C, int64_t M,
                           int64_t N, int64_t K, double alpha, double beta, double tol,
                           double *worst);

#endif
