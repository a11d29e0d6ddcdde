/* cuBLAS through dlopen: the handle, and every dtype but fp8 through
 * cublasGemmStridedBatchedEx (fp8: cublaslt.c).  Types and enum values: cublas_internal.h. */
#include <dlfcn.h>
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

#define SYM(f, name, required) {name, offsetof(struct cute_cublas, f), required}
static const struct {
    const char *name;
    size_t at;
    bool required;
} syms[] = {
    SYM(Create, "cublasCreate_v2", true),       SYM(Destroy, "cublasDestroy_v2", true),
    SYM(SetStream, "cublasSetStream_v2", true), SYM(SetMathMode, "cublasSetMathMode", true),
    SYM(GemmStridedBatchedEx, "cublasGemmStridedBatchedEx", true),
    SYM(GetVersion, "cublasGetVersion_v2", false),
    SYM(GetStatusString, "cublasGetStatusString", false),
};
#undef SYM

void *cublas_search(const char *env, const char *const *names, int nnames, char *path,
                    size_t pathn, char *why, size_t whyn)
{
    const char *given = getenv(env);
    if (given && *given) {
        void *h = dlopen(given, RTLD_NOW | RTLD_LOCAL);
        if (h) snprintf(path, pathn, "%s", given);
        else cublas_say(why, whyn, "%s", dlerror());
        return h;
    }
    static const char *dirs[] = {"", "/usr/local/cuda/lib64/"};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
        for (int i = 0; i < nnames; i++) {
            char full[256];
            snprintf(full, sizeof full, "%s%s", dirs[d], names[i]);
            void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                snprintf(path, pathn, "%s", full);
                return h;
            }
            if (d == 0 && i == 0) cublas_say(why, whyn, "%s", dlerror());
        }
    return NULL;
}

static cute_status setup(cute_cublas *h, cute_cuda *cu, char *err, size_t n)
{
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(h->lib, syms[i].name);
        if (!p && syms[i].required) {
            cublas_say(err, n, "%s has no %s", h->path, syms[i].name);
            return CUTE_ERR_NO_DRIVER;
        }
        memcpy((char *)h + syms[i].at, &p, sizeof p); /* object -> function pointer (POSIX) */
    }
    /* any driver call makes cu's (primary) context current on this thread; cuBLAS's
     * runtime then uses that context */
    size_t free_bytes, total;
    if (cute_cuda_mem_info(cu, &free_bytes, &total) != CUTE_OK) {
        cublas_say(err, n, "%s", cute_cuda_error(cu));
        return CUTE_ERR_NO_DRIVER;
    }
    if (cublas_failed(h, h->Create(&h->handle), "cublasCreate") ||
        cublas_failed(h, h->SetMathMode(h->handle, DEFAULT_MATH), "cublasSetMathMode")) {
        cublas_say(err, n, "%s: %s", h->path, h->err);
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
    char why[512] = "";
    static const char *const names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12",
                                        "libcublas.so.11"};
    h->lib = cublas_search("CUTEC_CUBLAS", names, 4, h->path, sizeof h->path, why, sizeof why);
    if (!h->lib) {
        cublas_say(err, n, "cuBLAS not found (%s): install it or set CUTEC_CUBLAS to its path", why);
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

const char *cute_cublas_path(const cute_cublas *h) { return h->path; }
int cute_cublas_version(const cute_cublas *h) { return h->version; }
const char *cute_cublas_error(const cute_cublas *h) { return h->err; }

