/* ptxas inside the process (CUTEC_PTX_ASM=nvjitlink): the toolkit's libnvJitLink, a shared
 * library that holds the same ptxas as the binary, through dlopen (no CUDA header to build,
 * no library to link; nvPTXCompiler, the other in-process ptxas, ships as a static archive
 * only).  No process to start and no files to write: a PTX module in, a cubin and ptxas's
 * --verbose report out.  The library is opened once and kept (as NVRTC is: runtime/dynlib.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptx_internal.h"
#include "runtime/dynlib.h"

/* from nvJitLink.h: results are an int enum (0 NVJITLINK_SUCCESS), handles opaque */
typedef struct nvjl_handle_ *nvjl_handle;
enum { NVJL_UNRECOGNIZED_OPTION = 1, NVJL_INPUT_PTX = 2 };

static struct nvjl {
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
} nvjl;

#define SYM(f, name) DYNLIB_SYM(struct nvjl, f, name)
static const dynlib_sym syms[] = {
    SYM(Create, "nvJitLinkCreate"),
    SYM(Destroy, "nvJitLinkDestroy"),
    SYM(AddData, "nvJitLinkAddData"),
    SYM(Complete, "nvJitLinkComplete"),
    SYM(CubinSize, "nvJitLinkGetLinkedCubinSize"),
    SYM(Cubin, "nvJitLinkGetLinkedCubin"),
    SYM(InfoSize, "nvJitLinkGetInfoLogSize"),
    SYM(Info, "nvJitLinkGetInfoLog"),
    SYM(ErrorSize, "nvJitLinkGetErrorLogSize"),
    SYM(Error, "nvJitLinkGetErrorLog"),
};
#undef SYM

static const dynlib_spec nvjitlink = {
    .what = "libnvJitLink",
    .env = "CUTEC_NVJITLINK",
    .names = (const char *const[]){"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so", NULL},
    .dirs = (const char *const[]){"/usr/local/cuda/lib64/", NULL},
    .syms = syms,
    .nsyms = sizeof syms / sizeof *syms,
    .hint = "set CUTEC_NVJITLINK, or put the toolkit's lib64 on the loader's path",
    .too_old = "a libnvJitLink older than CUDA 12",
};
static dynlib_once once = DYNLIB_ONCE_INIT;

bool px_nvjitlink_found(char *id, size_t n)
{
    bool ok = dynlib_open_once(&once, &nvjitlink, &nvjl, NULL, 0);
    if (ok && id && n) snprintf(id, n, "nvJitLink %s", once.lib.path);
    return ok;
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
    if (!dynlib_open_once(&once, &nvjitlink, &nvjl, err, errn)) return CUTE_ERR_NO_DRIVER; /* (the callers take the binary then) */
    char a[48], o[24];
    snprintf(a, sizeof a, "-arch=%s", arch);
    snprintf(o, sizeof o, "-Xptxas=-O%d", opt); /* nvJitLink's own -O takes 0 or 3 only */
    /* -no-cache: where a driver loads, the library keeps its cubins in the driver's compute
     * cache (~/.nv/ComputeCache), and a cubin found there comes without ptxas's report, which
     * the callers read for spills (ptx_asm_test failed so on a GPU, after the suite had
     * assembled the same PTX).  cutec caches cubins itself.  A library without the option
     * (older than its cache) refuses it: then without it. */
    const char *opts[4];
    unsigned nopts = 0;
    opts[nopts++] = a, opts[nopts++] = "-verbose";
    if (opt >= 0) opts[nopts++] = o;
    opts[nopts++] = "-no-cache"; /* (last: dropped by the second try) */
    double t0 = thread_cpu_ms();
    nvjl_handle h = NULL;
    int r = nvjl.Create(&h, nopts, opts);
    if (r == NVJL_UNRECOGNIZED_OPTION) {
        if (h) nvjl.Destroy(&h);
        h = NULL, r = nvjl.Create(&h, nopts - 1, opts);
    }
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
