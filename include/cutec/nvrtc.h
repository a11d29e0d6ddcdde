/* cutec/nvrtc.h — NVRTC, opened at run time with dlopen: CUDA C source -> PTX and CUBIN.
 *
 * No link-time dependency on the CUDA toolkit and no CUDA header: the library builds and
 * its CPU paths run where NVRTC is absent; opening it then fails with CUTE_ERR_NO_NVRTC and
 * a message.  The handle is an object the caller owns (no globals): open it once, share it
 * between threads (NVRTC compiles distinct programs concurrently), close it at the end.
 *
 *   cute_nvrtc *nv;
 *   if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) ...;   // err says why
 *   cute_nvrtc_output o;
 *   cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_90a"}, &o);
 *   ... o.cubin, o.cubin_size; o.log on failure (and warnings on success) ...
 *   cute_nvrtc_output_free(&o);
 *   cute_nvrtc_close(nv);
 */
#ifndef CUTEC_NVRTC_H
#define CUTEC_NVRTC_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>

#include "cutec/backend.h"

typedef struct cute_nvrtc cute_nvrtc;

/* Open libnvrtc.  path: a file to dlopen, or NULL to search libnvrtc.so, libnvrtc.so.13,
 * libnvrtc.so.12, libnvrtc.so.11.2 on the loader's path, then the same names under
 * /usr/local/cuda/lib64 and /usr/local/cuda/lib.  CUTE_ERR_NO_NVRTC (and why, in err) when
 * none loads or one lacks a needed symbol; CUTE_ERR_OOM. */
cute_status cute_nvrtc_open(cute_nvrtc **out, const char *path, char *err, size_t errn);
/* frees the handle; the library stays mapped (NVRTC carries its own C++ runtime, which is
 * not safe to unload) */
void cute_nvrtc_close(cute_nvrtc *nv);
/* the NVRTC version (part of the JIT cache key) */
void cute_nvrtc_version(const cute_nvrtc *nv, int *major, int *minor);
/* the file that was loaded ("libnvrtc.so.13" or a full path) */
const char *cute_nvrtc_path(const cute_nvrtc *nv);
/* the full path of the loaded library file (false if the loader cannot say) */
bool cute_nvrtc_file(const cute_nvrtc *nv, char *path, size_t n);

typedef struct cute_nvrtc_opts {
    const char *arch;         /* "sm_90a", "sm_80" (PTX and CUBIN) or "compute_90a" (PTX only) */
    const char *name;         /* the source's name in messages; NULL: "cutec.cu" */
    bool lineinfo;            /* -lineinfo: SASS maps back to source lines (and #line directives) */
    bool debug;               /* -G: device debug information (slow code) */
    const char *const *extra; /* more NVRTC options, passed as given */
    int nextra;
} cute_nvrtc_opts;

/* What a compile gives; every pointer malloc'd, freed by cute_nvrtc_output_free. */
typedef struct cute_nvrtc_output {
    char *ptx; /* NUL-terminated; ptx_size counts the NUL */
    size_t ptx_size;
    void *cubin; /* NULL for a virtual arch (compute_XX) */
    size_t cubin_size;
    char *log; /* the compiler log ("" when it said nothing); the errors on failure */
} cute_nvrtc_output;

/* Compile one translation unit.  CUTE_OK with PTX (and CUBIN for a real arch);
 * CUTE_ERR_COMPILE with out->log holding NVRTC's messages (a bad option or arch is one
 * too); CUTE_ERR_INVALID for a missing source or arch; CUTE_ERR_OOM.  *out is always
 * initialised, so cute_nvrtc_output_free is always safe. */
cute_status cute_nvrtc_compile(cute_nvrtc *nv, const char *src, const cute_nvrtc_opts *opts,
                               cute_nvrtc_output *out);
void cute_nvrtc_output_free(cute_nvrtc_output *o);

CUTE_API_END
#endif
