#define _GNU_SOURCE /* dladdr: the full path of the library dlopen found */
/* NVRTC through dlopen (runtime/dynlib.c): the few entry points and enums we use are
 * declared here, so no CUDA header is needed to build and no CUDA library to link. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_arch.h"
#include "cutec/nvrtc.h"
#include "runtime/cubin_text.h"
#include "runtime/dynlib.h"
#include "runtime/ffma_rewrite.h"
#include "runtime/ffma_yield.h"

/* from nvrtc.h: results are an int enum, 0 is NVRTC_SUCCESS; programs are opaque */
typedef int nvrtc_result;
typedef struct nvrtc_program_ *nvrtc_program;

struct cute_nvrtc {
    dynlib lib;
    int major, minor;
    const char *(*GetErrorString)(nvrtc_result);
    nvrtc_result (*Version)(int *, int *);
    nvrtc_result (*CreateProgram)(nvrtc_program *, const char *, const char *, int,
                                  const char *const *, const char *const *);
    nvrtc_result (*DestroyProgram)(nvrtc_program *);
    nvrtc_result (*CompileProgram)(nvrtc_program, int, const char *const *);
    nvrtc_result (*GetPTXSize)(nvrtc_program, size_t *);
    nvrtc_result (*GetPTX)(nvrtc_program, char *);
    nvrtc_result (*GetCUBINSize)(nvrtc_program, size_t *);
    nvrtc_result (*GetCUBIN)(nvrtc_program, char *);
    nvrtc_result (*GetProgramLogSize)(nvrtc_program, size_t *);
    nvrtc_result (*GetProgramLog)(nvrtc_program, char *);
    nvrtc_result (*GetNumSupportedArchs)(int *); /* optional: 11.2 on */
    nvrtc_result (*GetSupportedArchs)(int *);
};

static void say(char *err, size_t n, const char *fmt, ...)
{
    if (!n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* the entry points by name (runtime/dynlib.c), so a missing one is named in the message */
#define SYM(f) DYNLIB_SYM(struct cute_nvrtc, f, "nvrtc" #f)
static const dynlib_sym syms[] = {
    SYM(GetErrorString), SYM(Version),           SYM(CreateProgram), SYM(DestroyProgram),
    SYM(CompileProgram), SYM(GetPTXSize),        SYM(GetPTX),        SYM(GetCUBINSize),
    SYM(GetCUBIN),       SYM(GetProgramLogSize), SYM(GetProgramLog),
    DYNLIB_OPTIONAL(struct cute_nvrtc, GetNumSupportedArchs, "nvrtcGetNumSupportedArchs"),
    DYNLIB_OPTIONAL(struct cute_nvrtc, GetSupportedArchs, "nvrtcGetSupportedArchs"),
};
#undef SYM

static bool version(void *table, const char *path, char *err, size_t n)
{
    cute_nvrtc *nv = table;
    if (nv->Version(&nv->major, &nv->minor) == 0) return true;
    say(err, n, "%s: nvrtcVersion failed", path);
    return false;
}

static const dynlib_spec nvrtc_lib = {
    .what = "NVRTC",
    .names = (const char *const[]){"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", NULL},
    .dirs = (const char *const[]){"/usr/local/cuda/lib64/", "/usr/local/cuda/lib/", NULL},
    .syms = syms,
    .nsyms = sizeof syms / sizeof syms[0],
    .hint = "install the CUDA toolkit's NVRTC or give its path",
    .too_old = "NVRTC older than 11.2?",
    .check = version,
};

cute_status cute_nvrtc_open(cute_nvrtc **out, const char *path, char *err, size_t errn)
{
    *out = NULL;
    cute_nvrtc *nv = calloc(1, sizeof *nv);
    if (!nv) {
        say(err, errn, "out of memory");
        return CUTE_ERR_OOM;
    }
    if (!dynlib_open(&nvrtc_lib, path, &nv->lib, nv, err, errn)) {
        cute_nvrtc_close(nv); /* (no dlclose: below) */
        return CUTE_ERR_NO_NVRTC;
    }
    *out = nv;
    return CUTE_OK;
}

void cute_nvrtc_close(cute_nvrtc *nv)
{
    if (!nv) return;
    /* no dlclose: NVRTC carries its own C++ runtime, whose exit-time state must outlive
     * it (unloading it early is unsafe, and leak checkers then see its heap as leaked);
     * the loader keeps one mapping however often it is opened */
    free(nv);
}

void cute_nvrtc_version(const cute_nvrtc *nv, int *major, int *minor)
{
    *major = nv->major;
    *minor = nv->minor;
}

const char *cute_nvrtc_path(const cute_nvrtc *nv)
{
    return nv->lib.path;
}

void cute_nvrtc_output_free(cute_nvrtc_output *o)
{
    free(o->ptx);
    free(o->cubin);
    free(o->log);
    memset(o, 0, sizeof *o);
}

/* A failed compile's log with its error lines first, then the whole log: a generated kernel's
 * log may hold pages of warnings before the error, and a caller's message buffer keeps only
 * the head of it (NULL, the log as it was, where nothing is to move or memory is short) */
static char *errors_first(const char *log)
{
    size_t n = strlen(log), len = 0;
    char *out = malloc(2 * n + 2);
    if (!out) return NULL;
    for (const char *l = log; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
        size_t k = strcspn(l, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(k < sizeof line - 1 ? k : sizeof line - 1), l);
        if (strstr(line, "error")) memcpy(out + len, l, k), len += k, out[len++] = '\n';
    }
    /* nothing to move: no error line, or the errors lead the log already */
    if (!len || (len <= n + 1 && !memcmp(out, log, len - 1) && (log[len - 1] == '\n' || log[len - 1] == 0)))
        return free(out), NULL;
    memcpy(out + len, log, n + 1);
    return out;
}

/* out->log = the program's log, or a message of ours when there is none */
static cute_status set_log(cute_nvrtc *nv, nvrtc_program p, cute_nvrtc_output *out,
                           const char *what, nvrtc_result r)
{
    size_t n = 0;
    if (p && nv->GetProgramLogSize(p, &n) == 0 && n > 1) {
        out->log = malloc(n);
        if (!out->log) return CUTE_ERR_OOM;
        if (nv->GetProgramLog(p, out->log) != 0) out->log[0] = 0;
        out->log[n - 1] = 0;
    } else {
        out->log = calloc(1, 1);
        if (!out->log) return CUTE_ERR_OOM;
    }
    if (r == 0) return CUTE_OK;
    char *moved = errors_first(out->log);
    if (moved) free(out->log), out->log = moved;
    if (!out->log[0]) {
        free(out->log);
        size_t m = strlen(what) + 128;
        if (!(out->log = malloc(m))) return CUTE_ERR_OOM;
        snprintf(out->log, m, "%s: %s", what, nv->GetErrorString(r));
    }
    return r == 1 ? CUTE_ERR_OOM : CUTE_ERR_COMPILE; /* 1: NVRTC_ERROR_OUT_OF_MEMORY */
}

/* copy one artefact (PTX or CUBIN) out of the program; absent is not an error */
static cute_status take(nvrtc_result (*size)(nvrtc_program, size_t *),
                        nvrtc_result (*get)(nvrtc_program, char *), nvrtc_program p, void **buf,
                        size_t *n)
{
    size_t m = 0;
    if (size(p, &m) != 0 || m == 0) return CUTE_OK;
    char *b = malloc(m);
    if (!b) return CUTE_ERR_OOM;
    if (get(p, b) != 0) {
        free(b);
        return CUTE_OK;
    }
    *buf = b;
    *n = m;
    return CUTE_OK;
}

/* the option list: arch, --minimal, lineinfo, debug, the caller's extras, then the words of
 * $CUTEC_NVRTC_OPTIONS (split in env, a copy of at most envn bytes; "--ptxas-options=-O2":
 * an experiment on every compile, part of the CUDA backend's cache key).  --minimal leaves
 * the runtime API's types, textures and device-side launches out of NVRTC's built-in
 * header, none of which generated code uses: a quarter of NVRTC's fixed cost (29 -> 22 ms
 * of CPU for an empty kernel), the same PTX (docs/compile_time.md). */
static int options(const cute_nvrtc_opts *o, char *archopt, size_t archn, const char **opt, int cap,
                   char *env, size_t envn)
{
    int n = 0;
    snprintf(archopt, archn, "--gpu-architecture=%s", o->arch);
    opt[n++] = archopt;
    opt[n++] = "--minimal";
    if (o->lineinfo) opt[n++] = "-lineinfo";
    if (o->debug) opt[n++] = "-G";
    for (int i = 0; i < o->nextra && n < cap; i++) opt[n++] = o->extra[i];
    snprintf(env, envn, "%s", getenv("CUTEC_NVRTC_OPTIONS") ? getenv("CUTEC_NVRTC_OPTIONS") : "");
    char *save = NULL; /* strtok_r: compiles run on several threads */
    for (char *w = strtok_r(env, " \t", &save); w && n < cap; w = strtok_r(NULL, " \t", &save)) opt[n++] = w;
    return n;
}

/* The passes on an sm_90 cubin after NVRTC (the instruction words they know), in order:
 * CUTEC_SASS_FFMA's rewrite, then CUTEC_SASS_FFMA_YIELD's (runtime/ffma_rewrite.c,
 * ffma_yield.c; both callers key their caches by them: ffma_key_text).  One rule for both: a
 * cubin a pass cannot read is refused by name, the line in the log, and fails the compile
 * (nothing of it is written: the section table is checked whole first); the yield pass's
 * count of FFMAs changed ends the log too (`cutec compile ... --emit usage` shows it). */
static cute_status cubin_passes(const cute_nvrtc_opts *o, cute_nvrtc_output *out)
{
    if (!out->cubin || !cubin_arch_sm90(o->arch)) return CUTE_OK;
    char err[160] = "", line[200] = "";
    long changed = ffma_rewrite_cubin(out->cubin, out->cubin_size, ffma_rewrite_from_env(), err, sizeof err);
    if (changed < 0) {
        snprintf(line, sizeof line, "cutec: CUTEC_SASS_FFMA: %s\n", err);
    } else if (ffma_yield_from_env()) {
        changed = ffma_yield_cubin(out->cubin, out->cubin_size, err, sizeof err);
        if (changed < 0) snprintf(line, sizeof line, "cutec: CUTEC_SASS_FFMA_YIELD=1: %s\n", err);
        else snprintf(line, sizeof line, "cutec: CUTEC_SASS_FFMA_YIELD=1: %ld FFMAs yield\n", changed);
    }
    if (!line[0]) return CUTE_OK;
    size_t had = out->log ? strlen(out->log) : 0;
    char *log = realloc(out->log, had + strlen(line) + 1);
    if (!log) return CUTE_ERR_OOM;
    memcpy(log + had, line, strlen(line) + 1);
    out->log = log;
    return changed < 0 ? CUTE_ERR_COMPILE : CUTE_OK;
}

/* A target this NVRTC does not compile for (CUDA 13 dropped sm_70, a V100's), or an sm_ name
 * that is no target's (cute_cuda_arch_sm), refused in words rather than as "invalid value for
 * --gpu-architecture": true and out->log set.  A malformed sm_ name is refused whether or not
 * this NVRTC can list its targets; a well-formed one only against the list.  Other names
 * (compute_90) are NVRTC's to judge. */
static bool arch_unknown(cute_nvrtc *nv, const char *arch, cute_nvrtc_output *out)
{
    char why[256], line[512];
    int count = 0, archs[64], sm = cute_cuda_arch_sm(arch, why, sizeof why);
    if (!sm && strncmp(arch, "sm_", 3)) return false;
    bool listed = nv->GetNumSupportedArchs && nv->GetSupportedArchs && nv->GetNumSupportedArchs(&count) == 0 &&
                  count > 0 && count <= 64 && nv->GetSupportedArchs(archs) == 0;
    if (sm && !listed) return false;
    for (int i = 0; sm && i < count; i++)
        if (archs[i] == sm) return false;
    if (!listed)
        snprintf(line, sizeof line, "NVRTC %d.%d does not compile for %s: %s", nv->major, nv->minor, arch, why);
    else
        snprintf(line, sizeof line, "NVRTC %d.%d does not compile for %s: its targets are sm_%d to sm_%d%s%s",
                 nv->major, nv->minor, arch, archs[0], archs[count - 1],
                 sm ? " (an older card needs an older CUDA toolkit's NVRTC: docs/cards.md)" : "; ", sm ? "" : why);
    out->log = strdup(line);
    return true;
}

cute_status cute_nvrtc_compile(cute_nvrtc *nv, const char *src, const cute_nvrtc_opts *o,
                               cute_nvrtc_output *out)
{
    memset(out, 0, sizeof *out);
    if (!nv || !src || !o || !o->arch || o->nextra < 0 || o->nextra > 60) {
        out->log = strdup("cute_nvrtc_compile: no handle, source or arch (or > 60 options)");
        return out->log ? CUTE_ERR_INVALID : CUTE_ERR_OOM;
    }
    if (arch_unknown(nv, o->arch, out)) return out->log ? CUTE_ERR_UNSUPPORTED : CUTE_ERR_OOM;
    nvrtc_program p = NULL;
    nvrtc_result r = nv->CreateProgram(&p, src, o->name ? o->name : "cutec.cu", 0, NULL, NULL);
    if (r != 0) return set_log(nv, NULL, out, "nvrtcCreateProgram", r);
    char archopt[96], env[512];
    const char *opt[64];
    int nopt = options(o, archopt, sizeof archopt, opt, 64, env, sizeof env);
    r = nv->CompileProgram(p, nopt, opt);
    cute_status s = set_log(nv, p, out, "nvrtcCompileProgram", r);
    if (s == CUTE_OK) s = take(nv->GetPTXSize, nv->GetPTX, p, (void **)&out->ptx, &out->ptx_size);
    if (s == CUTE_OK) s = take(nv->GetCUBINSize, nv->GetCUBIN, p, &out->cubin, &out->cubin_size);
    if (s == CUTE_OK) s = cubin_passes(o, out);
    if (s == CUTE_OK && !out->ptx && !out->cubin) {
        free(out->log);
        out->log = strdup("NVRTC compiled but produced neither PTX nor CUBIN");
        s = out->log ? CUTE_ERR_COMPILE : CUTE_ERR_OOM;
    }
    nv->DestroyProgram(&p);
    return s;
}

bool cute_nvrtc_file(const cute_nvrtc *nv, char *path, size_t n)
{
    Dl_info info;
    void *sym;
    memcpy(&sym, &nv->Version, sizeof sym);
    if (!dladdr(sym, &info) || !info.dli_fname) return false;
    snprintf(path, n, "%s", info.dli_fname);
    return true;
}
