/* ptxas inside the process (CUTEC_PTX_ASM=nvjitlink): the toolkit's libnvJitLink, a shared
 * library that holds the same ptxas as the binary, through dlopen (no CUDA header to build,
 * no library to link; nvPTXCompiler, the other in-process ptxas, ships as a static archive
 * only).  No process to start and no files to write: a PTX module in, a cubin and ptxas's
 * --verbose report out.  The library is opened once and kept (as NVRTC is). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptx_internal.h"

/* from nvJitLink.h: results are an int enum (0 NVJITLINK_SUCCESS), handles opaque */
typedef struct nvjl_handle_ *nvjl_handle;
enum { NVJL_INPUT_PTX = 2 };

static struct {
    pthread_once_t once;
    void *lib;
    char path[160];
    int (*Create)(nvjl_handle *, unsigned, const char **);
    int (*Destroy)(nvjl_handle *);
    int (*AddData)(nvjl_handle, int, const void *, size_t, const char *);
    int (*Complete)(nvjl_handle);
    int (*CubinSize)(nvjl_handle, size_t *);
    int (*Cubin)(nvjl_handle, void *);
    int (*InfoSize)(nvjl_handle, size_t *);
    int (*Info)(nvjl_handle, char *);
    int (*ErrorSize)(nvjl_handle, size_t *);
    int (*Error)(nvjl_handle, char *);
} nvjl = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    static const char *const names[] = {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so",
                                        "/usr/local/cuda/lib64/libnvJitLink.so.13",
                                        "/usr/local/cuda/lib64/libnvJitLink.so.12"};
    const char *env = getenv("CUTEC_NVJITLINK");
    void *h = env && *env ? dlopen(env, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (h) snprintf(nvjl.path, sizeof nvjl.path, "%s", env);
    for (size_t i = 0; !h && !(env && *env) && i < sizeof names / sizeof *names; i++)
        if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL))) snprintf(nvjl.path, sizeof nvjl.path, "%s", names[i]);
    if (!h) return;
    struct {
        const char *name;
        void *at;
    } syms[] = {
        {"nvJitLinkCreate", &nvjl.Create},
        {"nvJitLinkDestroy", &nvjl.Destroy},
        {"nvJitLinkAddData", &nvjl.AddData},
        {"nvJitLinkComplete", &nvjl.Complete},
        {"nvJitLinkGetLinkedCubinSize", &nvjl.CubinSize},
        {"nvJitLinkGetLinkedCubin", &nvjl.Cubin},
        {"nvJitLinkGetInfoLogSize", &nvjl.InfoSize},
        {"nvJitLinkGetInfoLog", &nvjl.Info},
        {"nvJitLinkGetErrorLogSize", &nvjl.ErrorSize},
        {"nvJitLinkGetErrorLog", &nvjl.Error},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *p = dlsym(h, syms[i].name);
        if (!p) return; /* an older library: not used (kept open: nothing else holds it) */
        memcpy(syms[i].at, &p, sizeof p); /* POSIX: function pointers convert through void * */
    }
    nvjl.lib = h;
}

bool px_nvjitlink_found(char *id, size_t n)
{
    pthread_once(&nvjl.once, load);
    if (nvjl.lib && id && n) snprintf(id, n, "nvJitLink %s", nvjl.path);
    return nvjl.lib != NULL;
}

/* one of the handle's logs, malloc'd ("" where it has none) */
static char *log_of(nvjl_handle h, int (*size)(nvjl_handle, size_t *), int (*get)(nvjl_handle, char *))
{
    size_t n = 0;
    if (size(h, &n) != 0) n = 0;
    char *text = malloc(n + 1);
    if (!text) return NULL;
    text[0] = 0;
    if (n && get(h, text) != 0) text[0] = 0;
    text[n] = 0;
    return text;
}

static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

cute_status px_nvjitlink_assemble(const char *ptx, const char *arch, int opt, void **cubin, size_t *cubin_len,
                                  char **log, double *cpu_ms, char *err, size_t errn)
{
    if (!px_nvjitlink_found(NULL, 0)) { /* (the callers take the binary then) */
        snprintf(err, errn, "no libnvJitLink (set CUTEC_NVJITLINK, or put the toolkit's lib64 on the loader's path)");
        return CUTE_ERR_NO_DRIVER;
    }
    char a[48], o[24];
    snprintf(a, sizeof a, "-arch=%s", arch);
    snprintf(o, sizeof o, "-Xptxas=-O%d", opt); /* nvJitLink's own -O takes 0 or 3 only */
    const char *opts[] = {a, "-verbose", o};
    double t0 = thread_cpu_ms();
    nvjl_handle h = NULL;
    int r = nvjl.Create(&h, opt >= 0 ? 3 : 2, opts);
    if (r == 0) r = nvjl.AddData(h, NVJL_INPUT_PTX, ptx, strlen(ptx) + 1, "cutec.ptx");
    if (r == 0) r = nvjl.Complete(h);
    size_t len = 0;
    void *bytes = NULL;
    if (r == 0 && cubin && (r = nvjl.CubinSize(h, &len)) == 0 && (bytes = malloc(len)) && (r = nvjl.Cubin(h, bytes)) != 0)
        free(bytes), bytes = NULL;
    char *text = h ? log_of(h, r == 0 ? nvjl.InfoSize : nvjl.ErrorSize, r == 0 ? nvjl.Info : nvjl.Error) : NULL;
    if (h) nvjl.Destroy(&h);
    if (cpu_ms) *cpu_ms = thread_cpu_ms() - t0;
    cute_status s = CUTE_OK;
    if (r != 0) {
        s = CUTE_ERR_COMPILE;
        snprintf(err, errn, "nvJitLink refused the PTX (error %d): %.*s", r, (int)(errn > 64 ? errn - 64 : 0),
                 text ? text : "");
    } else if (cubin && !bytes) {
        s = CUTE_ERR_OOM;
        snprintf(err, errn, "nvJitLink: no cubin");
    }
    if (cubin) *cubin = s == CUTE_OK ? bytes : NULL, *cubin_len = s == CUTE_OK ? len : 0;
    if (s != CUTE_OK) free(bytes);
    if (log)
        *log = text;
    else
        free(text);
    return s;
}
