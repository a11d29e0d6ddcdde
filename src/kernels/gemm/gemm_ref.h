/* The float64 reference every GEMM check judges against (tests, `cutec run/bench gemm`, the
 * cuBLAS test): C(m,n,l) = alpha sum_k A(m,k,l) B(n,k,l) + beta C0(m,n,l) on host operands of
 * any of the library's dtypes, every element decoded exactly to double; the scale of its
 * error; the tolerance each dtype pair earns; and the fresh inputs the checks run on. */
#ifndef CUTEC_GEMM_REF_H
#define CUTEC_GEMM_REF_H

#include "cutec/ir.h"
#include "cutec/kernels.h"

/* a host operand (rows, cols) = A (M,K), B (N,K) or C (M,N), stored with a unit stride in
 * mode `major` and leading dimension ld */
typedef struct gemm_ref_operand {
    const void *data;
    int64_t ld;
    int major;
} gemm_ref_operand;

/* a whole problem: A and B of dtype `in`, C0 (and the result, laid out as C0) of dtype
 * `out`; batch l of operand i (A, B, C) starts lstride[i] elements after batch l - 1 */
typedef struct gemm_ref_problem {
    gemm_ref_operand A, B, C0;
    cute_dtype in, out;
    int64_t lstride[3];
    int64_t M, N, K, L;
    double alpha, beta;
} gemm_ref_problem;

int64_t gemm_ref_at(const gemm_ref_operand *x, int64_t i, int64_t j);
/* where element (i, j) of batch l of operand `which` (0 A, 1 B, 2 C) lies */
int64_t gemm_ref_at_l(const gemm_ref_problem *p, int which, int64_t i, int64_t j, int64_t l);

/* alpha sum_k A B + beta C0 at (m,n,l) in float64 (C0 is not read when beta is 0, as in
 * BLAS); *mag gets |alpha| sum_k |A B| + |beta C0|, the scale a relative error is measured
 * against */
double gemm_ref_value(const gemm_ref_problem *p, int64_t m, int64_t n, int64_t l, double *mag);
/* |got - ref| relative to the scale mag (NaN stays NaN, and so passes no tolerance) */
double gemm_ref_error(double got, double ref, double mag);
/* a fused epilogue's bias and activation on x, the reference's alpha A B^T + beta C, with v
 * the element's value of the epilogue's vector (gemm_ref_epilogue.c; e->fn is the caller's) */
double gemm_ref_epilogue(const cute_gemm_epilogue *e, double x, double v);
/* every element of the result C (laid out as C0) against the reference: how many are off
 * by more than tol (NaN included), and in *worst the largest error (NaN if any is) */
int64_t gemm_ref_check(const gemm_ref_problem *p, const void *C, double tol, double *worst);

/* the single-dtype, unbatched forms the f32/f64 tests use */
double gemm_ref_element(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                        const gemm_ref_operand *C0, int64_t K, int64_t m, int64_t n, double alpha,
                        double beta, double *mag);
int64_t gemm_ref_check_all(cute_dtype d, const gemm_ref_operand *A, const gemm_ref_operand *B,
                           const gemm_ref_operand *C0, const gemm_ref_operand *C, int64_t M,
                           int64_t N, int64_t K, double alpha, double beta, double tol,
                           double *worst);

/* --- dtypes ------------------------------------------------------------------------------ */

/* C's dtypes for inputs of dtype in, the first being the default (false: in is no GEMM
 * input dtype).  The library's contract: f16/bf16 -> f16, bf16 or f32; tf32 -> f32;
 * s8 -> s32; e4m3/e5m2 -> f32, f16 or bf16; f64 -> f64; f32 -> f32. */
bool gemm_ref_out_dtypes(cute_dtype in, const cute_dtype **outs, int *n);
bool gemm_ref_pair_ok(cute_dtype in, cute_dtype out);
/* "f16, bf16 or f32": the C dtypes inputs of `in` give, each named by name(d) ("none" for
 * an input dtype without a row); the length, like snprintf */
int gemm_ref_out_text(cute_dtype in, const char *(*name)(cute_dtype), char *buf, size_t n);
/* the largest error (gemm_ref_error) a correct kernel reaches for inputs of dtype in and a
 * result of dtype out; 0: exact (see gemm_ref.c for each value's reasoning) */
double gemm_ref_tolerance(cute_dtype in, cute_dtype out);
/* s8 -> s32 results are integers: alpha and beta must be integers too (as cuBLAS's
 * CUBLAS_COMPUTE_32I takes them) */
bool gemm_ref_integral(cute_dtype in);

/* --- inputs ------------------------------------------------------------------------------ */

/* a reproducible standard normal sample from an xorshift state (any nonzero state) */
double gemm_ref_gaussian(uint64_t *state);
/* n fresh elements of dtype d: standard normal samples rounded to d; s8 and the other
 * integer types: uniform integers in [-128, 127] */
void gemm_ref_fill(cute_dtype d, void *data, int64_t n, uint64_t *state);
/* the same distributions fast enough for gigabytes (about 1 ns an element where
 * gemm_ref_fill takes about 100): each element one of a pool of 65536 fresh elements
 * (gemm_ref_fill), picked by 16 random bits.  Whole-byte dtypes; others as gemm_ref_fill. */
void gemm_ref_fill_pooled(cute_dtype d, void *data, int64_t n, uint64_t *state);

/* --- block-scaled operands (gemm_ref_blockscaled.c) ---------------------------------------- */

/* A (M,K) or B (N,K) of NVFP4 (d e2m1, two a byte, sf a ue4m3 scale per 16 of K), MXFP4 (e2m1,
 * ue8m0 per 32) or MXFP8 (d e4m3, ue8m0 per 32): row-major codes, the scales in CuTe's layout
 * (cute_gemv_sf_index) */
typedef struct gemm_bs_operand {
    cute_dtype d, sf;
    int vec;
    int64_t rows, K, bytes, nsf; /* the codes' bytes, the scales' count (cute_gemv_sf_count) */
    uint8_t *codes, *scales;
} gemm_bs_operand;
/* fresh random codes (any e2m1; e4m3 but NaN) and scales (ue4m3 in 0.25 .. 4, ue8m0 2^-3 .. 2^3,
 * the padding's too); false: out of memory, or not one of the three kinds */
bool gemm_bs_make(gemm_bs_operand *o, cute_dtype d, cute_dtype sf, int64_t rows, int64_t K, uint64_t *state);
void gemm_bs_free(gemm_bs_operand *o);
double gemm_bs_value(const gemm_bs_operand *o, int64_t r, int64_t k); /* element (r, k), scaled */
/* sum_k A(m,k) B(n,k), scaled, in float64; *mag the sum of |terms| */
double gemm_bs_dot(const gemm_bs_operand *A, const gemm_bs_operand *B, int64_t m, int64_t n, double *mag);

#endif
