/* cutec/backend.h — how compiled kernels run: one vtable per backend (the CUDA driver, the
 * CPU interpreter), chosen at run time.  Backends see only IR (cutec/ir.h) and the values
 * of a launch; they know nothing of layouts or the tracer.
 *
 * Memory is a buffer: device memory for CUDA, host memory for the interpreter, which also
 * uses the buffer's extent to check every access.  A kernel pointer argument names the
 * buffer it points into, plus a byte offset.
 */
#ifndef CUTEC_BACKEND_H
#define CUTEC_BACKEND_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutec/ir.h"

/* 2: cute_launch.cluster and .err, cute_launch_arg.bytes (by-value opaque parameters) */
#define CUTE_BACKEND_VERSION 2

typedef enum {
    CUTE_OK = 0,
    CUTE_ERR_NO_DRIVER,   /* libcuda could not be loaded (or no device) */
    CUTE_ERR_NO_NVRTC,    /* libnvrtc could not be loaded */
    CUTE_ERR_COMPILE,     /* NVRTC rejected the generated source (log retrievable) */
    CUTE_ERR_LAUNCH,      /* the driver refused or the kernel faulted */
    CUTE_ERR_CHECK,       /* the interpreter's checks found a bad access, race, ... */
    CUTE_ERR_OOM,
    CUTE_ERR_INVALID,     /* bad arguments to the API */
    CUTE_ERR_UNSUPPORTED, /* this backend cannot run that op */
} cute_status;

const char *cute_status_name(cute_status s);

typedef struct cute_buffer {
    void *ptr;     /* device pointer (CUDA) or host pointer (interpreter) */
    size_t bytes;
    int backend;   /* which backend owns it (an index into the runtime's) */
    uint64_t id;   /* for messages: "buffer 3" */
} cute_buffer;

/* One argument of a launch, matching a kernel parameter's IR type. */
typedef struct cute_launch_arg {
    cute_type type;
    union {
        int64_t i;  /* integer parameters (any width; sign-extended) */
        double f;   /* float parameters */
    } v;
    const cute_buffer *buf; /* pointer parameters: the buffer ... */
    size_t offset;          /* ... and the byte offset into it */
    const void *bytes;      /* CUTE_TMAP parameters: its 128 bytes, 64-byte aligned (copied
                               at the launch: they need not outlive it) */
} cute_launch_arg;

typedef struct cute_dim3 {
    uint32_t x, y, z;
} cute_dim3;

typedef struct cute_launch {
    cute_dim3 grid, block;
    uint32_t smem_bytes; /* dynamic shared memory; 0: what the kernel uses (its IR's
                            smem_bytes); less than that is refused by every backend */
    void *stream;        /* backend stream; NULL: the default one */
    cute_dim3 cluster;   /* thread blocks per cluster, dividing the grid; all 0: no cluster */
    bool pdl;            /* programmatic dependent launch (cute_launch_cfg.pdl); a backend that
                            runs grids in order may ignore it */
    char *err;           /* where a failed launch says why (errn bytes; NULL: only error()):
                            the caller's own, when threads share the backend */
    size_t errn;
} cute_launch;

/* A compiled module: the kernels of one compile, ready to launch. */
typedef struct cute_module cute_module;

typedef struct cute_backend_vtable {
    int version; /* CUTE_BACKEND_VERSION */
    const char *name;
    /* can this backend run op (with these flags)?  e.g. the interpreter and unknown PTX */
    bool (*supports_op)(void *self, const cute_ir_inst *inst);
    /* compile n kernels into one module; on failure *log (owned by the backend, valid until
     * the next call) says why */
    cute_status (*compile)(void *self, cute_ir_func *const *kernels, int n, cute_module **out,
                           const char **log);
    void (*module_free)(void *self, cute_module *m);
    cute_status (*launch)(void *self, cute_module *m, int kernel, const cute_launch *cfg,
                          const cute_launch_arg *args, int nargs);
    cute_status (*alloc)(void *self, size_t bytes, cute_buffer *out);
    void (*free)(void *self, cute_buffer *b);
    cute_status (*upload)(void *self, cute_buffer *dst, size_t offset, const void *src, size_t n);
    cute_status (*download)(void *self, void *dst, const cute_buffer *src, size_t offset, size_t n);
    cute_status (*sync)(void *self, void *stream);
    /* the last error in words (driver message, check report, NVRTC log) */
    const char *(*error)(void *self);
    void (*destroy)(void *self);
} cute_backend_vtable;

typedef struct cute_backend {
    const cute_backend_vtable *vt;
    void *self;
} cute_backend;

CUTE_API_END
#endif
