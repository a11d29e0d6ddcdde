/* Inside the cuBLAS reference (cublas.c: the handle and cublasGemmStridedBatchedEx;
 * cublaslt.c: fp8 through cublasLtMatmul).  The few types and enum values used are
 * declared here from the CUDA toolkit's headers (library_types.h, cublas_api.h, cublasLt.h),
 * so building needs no CUDA header. */
#ifndef CUTEC_CLI_CUBLAS_INTERNAL_H
#define CUTEC_CLI_CUBLAS_INTERNAL_H

#include "cli/cublas.h"
#include "runtime/dynlib.h"

typedef int cublas_status;             /* cublasStatus_t: 0 is CUBLAS_STATUS_SUCCESS */
enum { CUBLAS_NOT_SUPPORTED = 15 };
typedef struct cublas_context *cublas_handle;
typedef struct cublaslt_context *cublaslt_handle;
enum { OP_N = 0, OP_T = 1 };           /* cublasOperation_t */
enum { DEFAULT_MATH = 0 };             /* cublasMath_t: no TF32, no reduced precision */
enum {                                 /* cudaDataType_t (library_types.h) */
    CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_R_32I = 10,
    CUDA_R_16BF = 14, CUDA_R_8F_E4M3 = 28, CUDA_R_8F_E5M2 = 29,
};
enum {                                 /* cublasComputeType_t */
    COMPUTE_32F = 68, COMPUTE_64F = 70, COMPUTE_32I = 72, COMPUTE_32F_FAST_TF32 = 77,
};
enum { GEMM_DEFAULT = -1 };            /* cublasGemmAlgo_t */

typedef cublas_status (*gemm_batched_ex_fn)(cublas_handle, int, int, int, int, int, const void *,
                                            const void *, int, int, long long, const void *, int,
                                            int, long long, const void *, void *, int, int,
                                            long long, int, int, int);

typedef struct cublaslt cublaslt; /* cublaslt.c */

struct cute_cublas {
    dynlib lib; /* the handle and the file that loaded */
    cute_cuda *cu;
    cublas_handle handle;
    void *stream; /* the stream the handle is set to */
    int version;
    char err[512];
    cublas_status (*Create)(cublas_handle *);
    cublas_status (*Destroy)(cublas_handle);
    cublas_status (*SetStream)(cublas_handle, void *);
    cublas_status (*SetMathMode)(cublas_handle, int);
    gemm_batched_ex_fn GemmStridedBatchedEx;
    cublas_status (*GetVersion)(cublas_handle, int *);    /* optional */
    const char *(*GetStatusString)(cublas_status);        /* optional (cuBLAS 11.4+) */
    cublaslt *lt;                                         /* loaded on first fp8 call */
};

/* An (R,K) matrix as a column-major one: which mode has stride 1, the stored matrix's
 * rows, its leading dimension, and the stride from one batch to the next. */
typedef struct cm_operand {
    int major;     /* 0: stored R x K; 1: stored K x R */
    int64_t rows;  /* of the stored matrix */
    int64_t ld;
    int64_t lstride;
    const void *ptr;
} cm_operand;

/* a column-major product C (m x n) = alpha op(a) op(b) + beta C for L batches, a in the role
 * of A (m,k) and b in the role of B (n,k) */
typedef struct cm_gemm {
    cute_dtype in, out;
    int64_t m, n, k, l;
    cm_operand a, b, c;
} cm_gemm;

void cublas_say(char *err, size_t n, const char *fmt, ...);
/* false when s is success; else the failure in h->err */
bool cublas_failed(cute_cublas *h, cublas_status s, const char *what);
/* libcublas ($CUTEC_CUBLAS, else the candidates: cublas.h) and its entry points into h,
 * no context needed; false and why (the library, the files tried, the loader's reason) */
bool cublas_load(cute_cublas *h, char *err, size_t n);
/* where both libraries are looked for after the loader's path */
extern const char *const cublas_dirs[];

/* cublaslt.c: fp8 products */
cute_status cublaslt_gemm(cute_cublas *h, const cm_gemm *g, double alpha, double beta,
                          void *stream);
void cublaslt_close(cute_cublas *h);

#endif
