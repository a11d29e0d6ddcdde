/* The runtime: one backend, the CUDA driver's when a GPU is there, else the interpreter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_driver.h"
#include "env/env_choice.h"
#include "jit_internal.h"

const char *cute_status_name(cute_status s)
{
    static const char *names[] = {"ok", "no CUDA driver", "no NVRTC", "compile error",
                                  "launch error", "check failed", "out of memory",
                                  "invalid argument", "unsupported"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

/* CUTEC_ARCH's SM version (cute_cuda_arch_sm), 0 when unset.  As `--arch` would refuse them,
 * a name that is no target (sm_80a) warns once and is none, a portable one (sm_90) warns once
 * that the library's kernels for that card do not compile for it (docs/cards.md). */
static int env_arch_sm(void)
{
    const char *v = getenv("CUTEC_ARCH");
    char why[512], msg[600];
    if (!v || !*v) return 0;
    int sm = cute_cuda_arch_sm(v, why, sizeof why);
    if (why[0]) {
        snprintf(msg, sizeof msg, "CUTEC_ARCH=%s: %s", v, why);
        cute_env_warn_once("CUTEC_ARCH", msg, sm ? "it (its kernels run on the interpreter; NVRTC's compile of them fails)"
                                                 : "no target (the interpreter runs every atom)");
    }
    return sm;
}

/* the SM version kernels are compiled for: the device's on the CUDA backend; elsewhere
 * CUTEC_ARCH's, or 0 (the interpreter runs every atom) */
static int target_sm(const cute_backend *b)
{
    cute_cuda *cu = cute_cuda_backend_driver(b);
    if (cu) return cute_cuda_device(cu)->cc_major * 10 + cute_cuda_device(cu)->cc_minor;
    return env_arch_sm();
}

cute_runtime *cute_runtime_wrap(cute_backend b)
{
    cute_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) return NULL;
    rt->b = b;
    snprintf(rt->name, sizeof rt->name, "%s", b.vt->name);
    rt->info = cute_backend_find(b.vt->name);
    rt->target_sm = target_sm(&b);
    return rt;
}

/* the backend named, or the first of the registry that opens (the GPU when there is one) */
static cute_status open_backend(const char *name, cute_backend *b, const cute_backend_info **info,
                                char *err, size_t n)
{
    int device, end = 0; /* "cuda:N": the GPU of ordinal N */
    if (name && !strncmp(name, "cuda:", 5) && name[5] >= '0' && name[5] <= '9' &&
        sscanf(name, "cuda:%d%n", &device, &end) == 1 && !name[end]) {
        *info = cute_backend_find("cuda");
        return cute__open_cuda_device(device, b, err, n);
    }
    if (name && *name) {
        *info = cute_backend_find(name);
        if (*info) return (*info)->open(b, err, n);
        char names[128];
        cute__backend_names(names, sizeof names);
        snprintf(err, n, "CUTEC_BACKEND=%s: the backends are %s (cuda:N: the GPU of ordinal N)",
                 name, names);
        return CUTE_ERR_INVALID;
    }
    cute_status s = CUTE_ERR_UNSUPPORTED;
    for (int i = 0; s != CUTE_OK && i < cute_backend_count(); i++) {
        *info = cute_backend_at(i);
        s = (*info)->open(b, err, n);
    }
    return s;
}

cute_status cute_runtime_new(const char *backend, cute_runtime **out, char *err, size_t n)
{
    *out = NULL;
    if (n) err[0] = 0;
    if (!backend) backend = getenv("CUTEC_BACKEND");
    cute_backend b;
    const cute_backend_info *info = NULL;
    cute_status s = open_backend(backend, &b, &info, err, n);
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
bool cute_runtime_on_gpu(const cute_runtime *rt) { return rt && rt->info && rt->info->gpu; }
bool cute_runtime_interprets(const cute_runtime *rt)
{
    return rt && rt->info && rt->info->interprets;
}
int cute_runtime_target_arch(const cute_runtime *rt) { return rt ? rt->target_sm : 0; }
void cute_runtime_set_target_arch(cute_runtime *rt, const char *arch)
{
    if (rt && arch) rt->target_sm = cute_cuda_arch_sm(arch, NULL, 0); /* (0: no target's name) */
}
