/* The runtime: one backend, the CUDA driver's when a GPU is there, else the interpreter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_c.h"
#include "cutec/interp.h"
#include "cutec/runtime.h"
#include "jit_internal.h"

const char *cute_status_name(cute_status s)
{
    static const char *names[] = {"ok", "no CUDA driver", "no NVRTC", "compile error",
                                  "launch error", "check failed", "out of memory",
                                  "invalid argument", "unsupported"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

/* the CUDA backend's code generator: cutec's own CUDA C emitter */
static cute_status emit_cuda_c(void *user, cute_ir_func *const *kernels, int n, const char *arch,
                               bool lineinfo, char **source, char *err, size_t errn)
{
    (void)user;
    cute_cuda_c_opts o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    o.line_directives = lineinfo;
    return cute_cuda_c_emit((const cute_ir_func *const *)kernels, n, &o, source, err, errn);
}

/* "sm_90a" -> 90; 0 for anything else */
static int arch_sm(const char *arch)
{
    int sm = 0;
    if (!arch || sscanf(arch, "sm_%d", &sm) != 1 || sm < 0) sm = 0;
    return sm;
}

/* the SM version kernels are compiled for: the device's on the CUDA backend; elsewhere
 * CUTEC_ARCH's, or 0 (the interpreter runs every atom) */
static int target_sm(const cute_backend *b)
{
    cute_cuda *cu = cute_cuda_backend_driver(b);
    if (cu) return cute_cuda_device(cu)->cc_major * 10 + cute_cuda_device(cu)->cc_minor;
    return arch_sm(getenv("CUTEC_ARCH"));
}

cute_runtime *cute_runtime_wrap(cute_backend b)
{
    cute_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) return NULL;
    rt->b = b;
    snprintf(rt->name, sizeof rt->name, "%s", b.vt->name);
    rt->target_sm = target_sm(&b);
    return rt;
}

static cute_status open_cuda(cute_backend *b, char *err, size_t n)
{
    cute_cuda_backend_opts o;
    memset(&o, 0, sizeof o);
    o.emit = emit_cuda_c;
    return cute_cuda_backend_new(&o, b, err, n);
}

cute_status cute_runtime_new(const char *backend, cute_runtime **out, char *err, size_t n)
{
    *out = NULL;
    if (n) err[0] = 0;
    if (!backend) backend = getenv("CUTEC_BACKEND");
    cute_backend b;
    cute_status s;
    if (backend && strcmp(backend, "interp") == 0) {
        s = cute_interp_new(NULL, &b);
        if (s != CUTE_OK) snprintf(err, n, "interpreter: %s", cute_status_name(s));
    } else if (backend && strcmp(backend, "cuda") == 0) {
        s = open_cuda(&b, err, n);
    } else if (backend && *backend) {
        snprintf(err, n, "CUTEC_BACKEND=%s: the backends are cuda and interp", backend);
        return CUTE_ERR_INVALID;
    } else { /* automatic: the GPU when there is one */
        s = open_cuda(&b, err, n);
        if (s != CUTE_OK) s = cute_interp_new(NULL, &b);
    }
    if (s != CUTE_OK) return s;
    *out = cute_runtime_wrap(b);
    if (!*out) {
        b.vt->destroy(b.self);
        return CUTE_ERR_OOM;
    }
    return CUTE_OK;
}

void cute_runtime_free(cute_runtime *rt)
{
    if (!rt) return;
    rt->b.vt->destroy(rt->b.self);
    free(rt);
}

cute_backend *cute_runtime_backend(cute_runtime *rt) { return &rt->b; }
const char *cute_runtime_backend_name(const cute_runtime *rt) { return rt->name; }
int cute_runtime_target_arch(const cute_runtime *rt) { return rt ? rt->target_sm : 0; }
void cute_runtime_set_target_arch(cute_runtime *rt, const char *arch)
{
    if (rt && arch) rt->target_sm = arch_sm(arch);
}
