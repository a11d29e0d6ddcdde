/* cuBLAS as the reference GEMM for `cutec bench gemm` and the GPU tests, opened with dlopen
 * (no CUDA header, no link-time dependency).  It runs in the device's primary context,
 * which is the one cutec's CUDA runtime retains, so device pointers of cutec's buffers are
 * valid for it.  fp32 is true fp32: the handle's math mode is CUBLAS_DEFAULT_MATH and f32's
 * compute type CUBLAS_COMPUTE_32F, which never use TF32.
 *
 *   cute_cublas *h;
 *   if (cute_cublas_open(cu, &h, err, sizeof err) != CUTE_OK) ...   // err: why not
 *   cute_ref_gemm(h, &A, &B, &C, 1.0, 0.0, stream);        // C = A B^T
 *   cute_cublas_close(h);
 */
#ifndef CUTEC_CLI_CUBLAS_H
#define CUTEC_CLI_CUBLAS_H

#include "cutec/jit.h"
#include "cutec/cuda_driver.h"

typedef struct cute_cublas cute_cublas;

/* Load cuBLAS ($CUTEC_CUBLAS, else libcublas.so, .so.13, .so.12, .so.11, also under
 * /usr/local/cuda/lib64) and create a handle in cu's context.  CUTE_ERR_NO_DRIVER with the
 * reason when the library or an entry point is missing or the handle cannot be made. */
cute_status cute_cublas_open(cute_cuda *cu, cute_cublas **out, char *err, size_t n);
void cute_cublas_close(cute_cublas *h);
/* the library file that was loaded, and its version (cublasGetVersion; 0 if unknown) */
const char *cute_cublas_path(const cute_cublas *h);
int cute_cublas_version(const cute_cublas *h);
/* the last failure in words */
const char *cute_cublas_error(const cute_cublas *h);

/* C = alpha A B^T + beta C with cutec's convention: A (M,K), B (N,K), C (M,N) tensors in
 * device buffers, or (M,K,L), (N,K,L), (M,N,L) for L batches, each matrix with a unit
 * stride in one mode (a mode of extent 1 may have any stride).  A and B share the input
 * dtype, C has the result dtype, a pair of the GEMM library's contract (gemm_ref_pair_ok):
 *   f32, f64           cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_32F / 64F (true fp32)
 *   f16, bf16          the same, CUBLAS_COMPUTE_32F, C f16, bf16 or f32
 *   tf32               f32 data, CUBLAS_COMPUTE_32F_FAST_TF32
 *   s8 -> s32          CUBLAS_COMPUTE_32I; alpha and beta are taken as integers
 *   e4m3, e5m2         cublasLtMatmul (libcublasLt, loaded on first use), f32 compute,
 *                      unit per-tensor scales; A and B K-major only (cuBLASLt's "TN"); no
 *                      e5m2 x e5m2 kernel exists
 * Each matrix is mapped onto cuBLAS's column-major operation and leading dimension; a
 * row-major C is computed as C^T = B A^T.  Enqueued on stream (NULL: the default stream);
 * CUTE_ERR_INVALID for arguments it cannot map (with the reason in cute_cublas_error),
 * CUTE_ERR_LAUNCH when cuBLAS fails, CUTE_ERR_NO_DRIVER when cuBLASLt is missing. */
cute_status cute_ref_gemm(cute_cublas *h, const cute_call_arg *A, const cute_call_arg *B,
                          const cute_call_arg *C, double alpha, double beta, void *stream);

#endif
