/* cuBLAS through dlopen: the handful of entry points and enum values we use are declared
 * here from the cuBLAS documentation (cublasOperation_t, cublasMath_t, cublasStatus_t), so
 * building needs no CUDA header and running needs cuBLAS only for the reference. */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cublas.h"

/* from the cuBLAS documentation */
typedef int cublas_status;             /* cublasStatus_t: 0 is CUBLAS_STATUS_SUCCESS */
typedef struct cublas_context *cublas_handle;
enum { OP_N = 0, OP_T = 1 };           /* cublasOperation_t */
enum { DEFAULT_MATH = 0 };             /* cublasMath_t: no TF32, no reduced precision */

typedef cublas_status (*sgemm_fn)(cublas_handle, int, int, int, int, int, const float *,
                                  const float *, int, const float *, int, const float *, float *,
                                  int);
typedef cublas_status (*dgemm_fn)(cublas_handle, int, int, int, int, int, const double *,
                                  const double *, int, const double *, int, const double *,
                                  double *, int);

struct cute_cublas {
    void *lib;
    char path[256];
    cublas_handle handle;
    void *stream; /* the stream the handle is set to */
    int version;
    char err[512];
    cublas_status (*Create)(cublas_handle *);
    cublas_status (*Destroy)(cublas_handle);
    cublas_status (*SetStream)(cublas_handle, void *);
    cublas_status (*SetMathMode)(cublas_handle, int);
    sgemm_fn Sgemm;
    dgemm_fn Dgemm;
    cublas_status (*GetVersion)(cublas_handle, int *);    /* optional */
    const char *(*GetStatusString)(cublas_status);        /* optional (cuBLAS 11.4+) */
};

static void say(char *err, size_t n, const char *fmt, ...)
{
    if (!n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static const char *status_name(const cute_cublas *h, cublas_status s)
{
    if (h->GetStatusString) return h->GetStatusString(s);
    switch (s) {
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_?";
    }
}

static bool failed(cute_cublas *h, cublas_status s, const char *what)
{
    if (s == 0) return false;
    say(h->err, sizeof h->err, "%s: %s (%d)", what, status_name(h, s), s);
    return true;
}

/* --- loading ----------------------------------------------------------------------------- */

#define SYM(f, name, required) {name, offsetof(struct cute_cublas, f), required}
static const struct {
    const char *name;
    size_t at;
    bool required;
} syms[] = {
    SYM(Create, "cublasCreate_v2", true),       SYM(Destroy, "cublasDestroy_v2", true),
    SYM(SetStream, "cublasSetStream_v2", true), SYM(SetMathMode, "cublasSetMathMode", true),
    SYM(Sgemm, "cublasSgemm_v2", true),         SYM(Dgemm, "cublasDgemm_v2", true),
    SYM(GetVersion, "cublasGetVersion_v2", false),
    SYM(GetStatusString, "cublasGetStatusString", false),
};
#undef SYM

static void *search(char *path, size_t pathn, char *why, size_t whyn)
{
    const char *env = getenv("CUTEC_CUBLAS");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h) snprintf(path, pathn, "%s", env);
        else say(why, whyn, "%s", dlerror());
        return h;
    }
    static const char *names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12",
                                  "libcublas.so.11"};
    static const char *dirs[] = {"", "/usr/local/cuda/lib64/"};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char full[256];
            snprintf(full, sizeof full, "%s%s", dirs[d], names[i]);
            void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                snprintf(path, pathn, "%s", full);
                return h;
            }
            if (d == 0 && i == 0) say(why, whyn, "%s", dlerror());
        }
    return NULL;
}

static cute_status setup(cute_cublas *h, cute_cuda *cu, char *err, size_t n)
{
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(h->lib, syms[i].name);
        if (!p && syms[i].required) {
            say(err, n, "%s has no %s", h->path, syms[i].name);
            return CUTE_ERR_NO_DRIVER;
        }
        memcpy((char *)h + syms[i].at, &p, sizeof p); /* object -> function pointer (POSIX) */
    }
    /* any driver call makes cu's (primary) context current on this thread; cuBLAS's
     * runtime then uses that context */
    size_t free_bytes, total;
    if (cute_cuda_mem_info(cu, &free_bytes, &total) != CUTE_OK) {
        say(err, n, "%s", cute_cuda_error(cu));
        return CUTE_ERR_NO_DRIVER;
    }
    if (failed(h, h->Create(&h->handle), "cublasCreate") ||
        failed(h, h->SetMathMode(h->handle, DEFAULT_MATH), "cublasSetMathMode")) {
        say(err, n, "%s: %s", h->path, h->err);
        return CUTE_ERR_NO_DRIVER;
    }
    if (h->GetVersion && h->GetVersion(h->handle, &h->version) != 0) h->version = 0;
    return CUTE_OK;
}

cute_status cute_cublas_open(cute_cuda *cu, cute_cublas **out, char *err, size_t n)
{
    *out = NULL;
    cute_cublas *h = calloc(1, sizeof *h);
    if (!h) return say(err, n, "out of memory"), CUTE_ERR_OOM;
    char why[512] = "";
    h->lib = search(h->path, sizeof h->path, why, sizeof why);
    if (!h->lib) {
        say(err, n, "cuBLAS not found (%s): install it or set CUTEC_CUBLAS to its path", why);
        free(h);
        return CUTE_ERR_NO_DRIVER;
    }
    cute_status s = setup(h, cu, err, n);
    if (s != CUTE_OK) {
        cute_cublas_close(h);
        return s;
    }
    *out = h;
    return CUTE_OK;
}

void cute_cublas_close(cute_cublas *h)
{
    if (!h) return;
    if (h->handle) h->Destroy(h->handle);
    /* no dlclose: cuBLAS carries C++ runtime state that must outlive it (as NVRTC does) */
    free(h);
}

const char *cute_cublas_path(const cute_cublas *h) { return h->path; }
int cute_cublas_version(const cute_cublas *h) { return h->version; }
const char *cute_cublas_error(const cute_cublas *h) { return h->err; }

/* --- mapping cutec's operands onto cuBLAS's column-major GEMM ------------------------ */

/* An (R,K) operand as a column-major matrix: which mode has stride 1, the stored
 * matrix's rows, and its leading dimension. */
typedef struct cm_operand {
    int major;     /* 0: stored R x K; 1: stored K x R */
    int64_t rows;  /* of the stored matrix */
    int64_t ld;
    const void *ptr;
} cm_operand;

static bool map_operand(cute_cublas *h, const char *name, const cute_call_arg *x, cm_operand *o)
{
    int m = -1;
    for (int i = 0; i < 2 && m < 0; i++)
        if (x->stride[i] == 1 && x->shape[i] != 1) m = i;
    for (int i = 0; i < 2 && m < 0; i++)
        if (x->shape[i] == 1) m = i;
    if (m < 0) {
        say(h->err, sizeof h->err, "cuBLAS reference: %s has strides (%lld,%lld): no unit stride",
            name, (long long)x->stride[0], (long long)x->stride[1]);
        return false;
    }
    int other = 1 - m;
    o->major = m;
    o->rows = x->shape[m] > 1 ? x->shape[m] : 1;
    /* a leading dimension never stepped (or of an empty matrix) is free: the smallest
     * cuBLAS accepts */
    bool stepped = x->shape[other] > 1 && x->shape[m] > 0;
    o->ld = stepped ? x->stride[other] : o->rows;
    if (o->ld < o->rows || o->ld > INT_MAX) {
        say(h->err, sizeof h->err,
            "cuBLAS reference: %s's leading dimension %lld is not in [%lld, INT_MAX]", name,
            (long long)o->ld, (long long)o->rows);
        return false;
    }
    o->ptr = (const char *)x->buf->ptr + x->offset;
    return true;
}

/* x lies inside its buffer */
static bool inside(cute_cublas *h, const char *name, const cute_call_arg *x, int esize)
{
    if (x->shape[0] == 0 || x->shape[1] == 0) return true;
    uint64_t last = 0;
    for (int i = 0; i < 2; i++) {
        if (x->stride[i] < 0 && x->shape[i] > 1) {
            say(h->err, sizeof h->err, "cuBLAS reference: %s has a negative stride", name);
            return false;
        }
        if (x->shape[i] > 1) last += (uint64_t)(x->shape[i] - 1) * (uint64_t)x->stride[i];
    }
    if (x->offset + (last + 1) * (uint64_t)esize > x->buf->bytes) {
        say(h->err, sizeof h->err, "cuBLAS reference: %s reaches past its buffer", name);
        return false;
    }
    return true;
}

static bool check_args(cute_cublas *h, cute_dtype dtype, const cute_call_arg *x[3])
{
    static const char *names[3] = {"A", "B", "C"};
    if (dtype != CUTE_F32 && dtype != CUTE_F64) {
        say(h->err, sizeof h->err, "cuBLAS reference: dtype %s (f32 or f64)", cute_dtype_name(dtype));
        return false;
    }
    for (int i = 0; i < 3; i++) {
        if (x[i]->kind != CUTE_ARG_TENSOR || x[i]->ndim != 2 || x[i]->dtype != dtype || !x[i]->buf) {
            say(h->err, sizeof h->err, "cuBLAS reference: %s is not a rank-2 %s tensor", names[i],
                cute_dtype_name(dtype));
            return false;
        }
        if (!inside(h, names[i], x[i], cute_dtype_bytes(dtype))) return false;
        if (x[i]->shape[0] > INT_MAX || x[i]->shape[1] > INT_MAX) {
            say(h->err, sizeof h->err, "cuBLAS reference: %s has an extent past INT_MAX", names[i]);
            return false;
        }
    }
    if (x[0]->shape[1] != x[1]->shape[1] || x[2]->shape[0] != x[0]->shape[0] ||
        x[2]->shape[1] != x[1]->shape[0]) {
        say(h->err, sizeof h->err, "cuBLAS reference: shapes do not agree (A (M,K), B (N,K), C (M,N))");
        return false;
    }
    return true;
}

/* column-major C (m x n) = alpha op(a) op(b) + beta C, where a is an (m,k) operand in the
 * role of A (op(a) = a) and b an (n,k) operand in the role of B (op(b) = b^T) */
static cute_status gemm_cm(cute_cublas *h, cute_dtype dtype, int64_t m, int64_t n, int64_t k,
                           const cm_operand *a, const cm_operand *b, void *c, int64_t ldc,
                           double alpha, double beta)
{
    int ta = a->major == 0 ? OP_N : OP_T; /* a stored m x k: N; stored k x m: T */
    int tb = b->major == 0 ? OP_T : OP_N; /* b stored n x k: T; stored k x n: N */
    cublas_status s;
    if (dtype == CUTE_F32) {
        float fa = (float)alpha, fb = (float)beta;
        s = h->Sgemm(h->handle, ta, tb, (int)m, (int)n, (int)k, &fa, a->ptr, (int)a->ld, b->ptr,
                     (int)b->ld, &fb, c, (int)ldc);
    } else {
        s = h->Dgemm(h->handle, ta, tb, (int)m, (int)n, (int)k, &alpha, a->ptr, (int)a->ld,
                     b->ptr, (int)b->ld, &beta, c, (int)ldc);
    }
    return failed(h, s, dtype == CUTE_F32 ? "cublasSgemm" : "cublasDgemm") ? CUTE_ERR_LAUNCH
                                                                         : CUTE_OK;
}

cute_status cute_ref_gemm(cute_cublas *h, cute_dtype dtype, const cute_call_arg *A,
                          const cute_call_arg *B, const cute_call_arg *C, double alpha,
                          double beta, void *stream)
{
    const cute_call_arg *x[3] = {A, B, C};
    if (!check_args(h, dtype, x)) return CUTE_ERR_INVALID;
    int64_t M = C->shape[0], N = C->shape[1], K = A->shape[1];
    if (M == 0 || N == 0) return CUTE_OK;
    cm_operand a, b, c;
    if (!map_operand(h, "A", A, &a) || !map_operand(h, "B", B, &b) || !map_operand(h, "C", C, &c))
        return CUTE_ERR_INVALID;
    if (stream != h->stream) {
        if (failed(h, h->SetStream(h->handle, stream), "cublasSetStream")) return CUTE_ERR_LAUNCH;
        h->stream = stream;
    }
    /* column-major C: C = A B^T as it stands; row-major C: its transpose is column-major,
     * C^T = B A^T, the same product with the roles of A and B swapped */
    if (c.major == 0) return gemm_cm(h, dtype, M, N, K, &a, &b, (void *)c.ptr, c.ld, alpha, beta);
    return gemm_cm(h, dtype, N, M, K, &b, &a, (void *)c.ptr, c.ld, alpha, beta);
}
