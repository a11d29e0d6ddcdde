/* cuBLAS as the reference GEMM for `cutec bench gemm` and the GPU tests, opened with dlopen
 * (no CUDA header, no link-time dependency).  It runs in the device's primary context,
 * which is the one cutec's CUDA runtime retains, so device pointers of cutec's buffers are
 * valid for it.  fp32 is true fp32: the handle's math mode is CUBLAS_DEFAULT_MATH, which
 * never uses TF32 for cublasSgemm.
 *
 *   cute_cublas *h;
 *   if (cute_cublas_open(cu, &h, err, sizeof err) != CUTE_OK) ...   // err: why not
 *   cute_ref_gemm(h, CUTE_F32, &A, &B, &C, 1.0, 0.0, stream);        // C = A B^T
 *   cute_cublas_close(h);
 */
#ifndef CUTEC_CLI_CUBLAS_H
#define CUTEC_CLI_CUBLAS_H

#include "cutec/jit.h"
#include "cutec/runtime.h"

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

/* C = alpha A B^T + beta C with cutec's convention: A (M,K), B (N,K), C (M,N) tensors of
 * dtype (f32 or f64) in device buffers, each with a unit stride in one mode (a mode of
 * extent 1 may have any stride).  Each operand is mapped onto cuBLAS's column-major
 * operation and leading dimension; a row-major C is computed as C^T = B A^T.  Enqueued on
 * stream (NULL: the default stream); CUTE_ERR_INVALID for arguments it cannot map (with
 * the reason in cute_cublas_error), CUTE_ERR_LAUNCH when cuBLAS fails. */
cute_status cute_ref_gemm(cute_cublas *h, cute_dtype dtype, const cute_call_arg *A,
                          const cute_call_arg *B, const cute_call_arg *C, double alpha,
                          double beta, void *stream);

#endif
