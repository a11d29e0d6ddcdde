/* The registry of backends: each one's name, what it is, and how to open it.  The runtime
 * finds a requested backend here, and the automatic choice tries them in this order, so a
 * new backend is one row (and nothing else chooses by name). */
#include <stdio.h>
#include <string.h>

#include "cutec/cuda_c.h"
#include "cutec/cuda_driver.h"
#include "cutec/interp.h"
#include "jit_internal.h"

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

cute_status cute__open_cuda_device(int device, cute_backend *b, char *err, size_t n)
{
    cute_cuda_backend_opts o;
    memset(&o, 0, sizeof o);
    o.emit = emit_cuda_c;
    o.device = device;
    o.tiered = true; /* its emitter and the PTX backend read the same IR */
    return cute_cuda_backend_new(&o, b, err, n);
}

static cute_status open_cuda(cute_backend *b, char *err, size_t n)
{
    return cute__open_cuda_device(0, b, err, n);
}

static cute_status open_interp(cute_backend *b, char *err, size_t n)
{
    cute_status s = cute_interp_new(NULL, b);
    if (s != CUTE_OK) snprintf(err, n, "interpreter: %s", cute_status_name(s));
    return s;
}

static const cute_backend_info registry[] = {
    {"cuda", "the GPU: CUDA C through NVRTC, run by the CUDA driver", true, false, open_cuda},
    {"interp", "the CPU interpreter, which checks every access, barrier and race", false, true,
     open_interp},
};

int cute_backend_count(void) { return (int)(sizeof registry / sizeof *registry); }

const cute_backend_info *cute_backend_at(int i)
{
    return i >= 0 && i < cute_backend_count() ? &registry[i] : NULL;
}

const cute_backend_info *cute_backend_find(const char *name)
{
    for (int i = 0; name && i < cute_backend_count(); i++)
        if (!strcmp(registry[i].name, name)) return &registry[i];
    return NULL;
}

/* "cuda, interp" */
void cute__backend_names(char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = 0;
    for (int i = 0; i < cute_backend_count() && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", registry[i].name);
}
