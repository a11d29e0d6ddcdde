/* cuBLAS through dlopen: the handle, and every dtype but fp8 through
 * cublasGemmStridedBatchedEx (fp8: cublaslt.c).  Types and enum values: cublas_internal.h. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cublas_internal.h"
#include "kernels/gemm/gemm_ref.h"

void cublas_say(char *err, size_t n, const char *fmt, ...)
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

bool cublas_failed(cute_cublas *h, cublas_status s, const char *what)
{
    if (s == 0) return false;
    cublas_say(h->err, sizeof h->err, "%s: %s (%d)", what, status_name(h, s), s);
    return true;
}

/* --- loading ----------------------------------------------------------------------------- */

#define SYM(f, name) DYNLIB_SYM(struct cute_cublas, f, name)
static const dynlib_sym syms[] = {
    SYM(Create, "cublasCreate_v2"),       SYM(Destroy, "cublasDestroy_v2"),
    SYM(SetStream, "cublasSetStream_v2"), SYM(SetMathMode, "cublasSetMathMode"),
    SYM(GemmStridedBatchedEx, "cublasGemmStridedBatchedEx"),
    DYNLIB_OPTIONAL(struct cute_cublas, GetVersion, "cublasGetVersion_v2"),
    DYNLIB_OPTIONAL(struct cute_cublas, GetStatusString, "cublasGetStatusString"),
};
#undef SYM

/* the folders both libraries are also looked for in (cublaslt.c) */
const char *const cublas_dirs[] = {"/usr/local/cuda/lib64/", NULL};

static const dynlib_spec cublas_lib = {
    .what = "cuBLAS",
    .env = "CUTEC_CUBLAS",
    .names = (const char *const[]){"libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", NULL},
    .dirs = cublas_dirs,
    .syms = syms,
    .nsyms = sizeof syms / sizeof syms[0],
    .hint = "install the CUDA toolkit's cuBLAS or set CUTEC_CUBLAS to its path",
    .too_old = "not a cuBLAS of 11 or later?",
};

bool cublas_load(cute_cublas *h, char *err, size_t n)
{
    return dynlib_open(&cublas_lib, NULL, &h->lib, h, err, n);
}

static cute_status setup(cute_cublas *h, cute_cuda *cu, char *err, size_t n)
{
    /* any driver call makes cu's (primary) context current on this thread; cuBLAS's
     * runtime then uses that context */
    size_t free_bytes, total;
    if (cute_cuda_mem_info(cu, &free_bytes, &total) != CUTE_OK) {
        cublas_say(err, n, "%s", cute_cuda_error(cu));
        return CUTE_ERR_NO_DRIVER;
    }
    if (cublas_failed(h, h->Create(&h->handle), "cublasCreate") ||
        cublas_failed(h, h->SetMathMode(h->handle, DEFAULT_MATH), "cublasSetMathMode")) {
        cublas_say(err, n, "%s: %s", h->lib.path, h->err);
        return CUTE_ERR_NO_DRIVER;
    }
    if (h->GetVersion && h->GetVersion(h->handle, &h->version) != 0) h->version = 0;
    return CUTE_OK;
}

cute_status cute_cublas_open(cute_cuda *cu, cute_cublas **out, char *err, size_t n)
{
    *out = NULL;
    cute_cublas *h = calloc(1, sizeof *h);
    if (!h) return cublas_say(err, n, "out of memory"), CUTE_ERR_OOM;
    h->cu = cu;
    if (!cublas_load(h, err, n)) {
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
    cublaslt_close(h);
    if (h->handle) h->Destroy(h->handle);
    /* no dlclose: cuBLAS carries C++ runtime state that must outlive it (as NVRTC does) */
    free(h);
}

const char *cute_cublas_path(const cute_cublas *h) { return h->lib.path; }
int cute_cublas_version(const cute_cublas *h) { return h->version; }
const char *cute_cublas_error(const cute_cublas *h) { return h->err; }

