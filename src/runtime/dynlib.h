/* A shared library opened at run time with dlopen, its entry points found by name into a
 * table of function pointers: the one way cutec loads NVRTC (backend/nvrtc.c), the CUDA
 * driver (runtime/cuda_driver.c), NCCL (comm/nccl_lib.c), nvJitLink
 * (backend/ptx_nvjitlink.c) and the CLI's cuBLAS, cuBLASLt and NVML (cli/cublas.c,
 * cli/cublaslt.c, cli/gpu_timing.c), so that no CUDA header is needed to build and no CUDA
 * library to link.  A library that is absent or too old is an error naming it, the files
 * tried and the loader's reason (dlerror), never a crash. */
#ifndef CUTEC_RUNTIME_DYNLIB_H
#define CUTEC_RUNTIME_DYNLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* one entry point: its exported name (alt: tried when name is absent, or NULL), where its
 * pointer goes in the table (offsetof), and whether it may be absent (its pointer NULL) */
typedef struct dynlib_sym {
    const char *name, *alt;
    size_t at;
    bool optional;
} dynlib_sym;
#define DYNLIB_SYM(type, field, name) {name, NULL, offsetof(type, field), false}
#define DYNLIB_ALT(type, field, name, alt) {name, alt, offsetof(type, field), false}
#define DYNLIB_OPTIONAL(type, field, name) {name, NULL, offsetof(type, field), true}

/* the library: what messages call it, the files to try, the entry points */
typedef struct dynlib_spec {
    const char *what;             /* "NVRTC" */
    const char *env;              /* a variable that names the one file to open instead, or NULL */
    const char *const *names;     /* the candidates in order, NULL-terminated: each in the
                                   * loader's path, then in each of dirs */
    const char *const *dirs;      /* folders ("/usr/local/cuda/lib64/"), NULL-terminated, or NULL */
    const dynlib_sym *syms;
    size_t nsyms;
    const char *hint;             /* after a failed dlopen: what to do about it */
    const char *too_old;          /* after a missing entry point: "NVRTC older than 11.2?" */
    /* run once the entry points are in (a version's check), or NULL: false with err */
    bool (*check)(void *table, const char *path, char *err, size_t n);
} dynlib_spec;

typedef struct dynlib {
    void *so;
    char path[256]; /* the name that loaded, as given to dlopen */
} dynlib;

/* dlopen `file` alone (or, NULL, $env's file alone when set, else the candidates) and fill
 * table; false with err ("NCCL not found (tried libnccl.so.2): <dlerror>; <hint>", or
 * "<path> has no ncclGetVersion (<too_old>)").  A library that lacks an entry point is
 * closed again; one that failed `check` is kept (its code has run: NVRTC's C++ runtime must
 * not be unloaded under its exit handlers). */
bool dynlib_open(const dynlib_spec *s, const char *file, dynlib *out, void *table, char *err, size_t n);

/* the library loaded once for the process, whatever the threads that ask: the first call
 * loads it (or fails), every call answers the same */
typedef struct dynlib_once {
    pthread_mutex_t mu;
    int state; /* 0 not tried, 1 loaded, -1 failed (err) */
    dynlib lib;
    char err[512];
} dynlib_once;
#define DYNLIB_ONCE_INIT {PTHREAD_MUTEX_INITIALIZER, 0, {NULL, ""}, ""}
/* true with table filled (o->lib: the handle and its path), else false and why in err */
bool dynlib_open_once(dynlib_once *o, const dynlib_spec *s, void *table, char *err, size_t n);

#endif
