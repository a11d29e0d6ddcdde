/* The code of a compiled function's kernels, on any backend: the CUDA C cutec generates for
 * them, the PTX and cubin NVRTC makes of it, the SASS cuobjdump reads from the cubin
 * (cute_fn_code); and CUTEC_KEEP's files, written from them when the backend is not the
 * CUDA one (which keeps what it compiles itself).  A user sees the code of their own
 * kernel whichever backend ran it (docs/dsl.md). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutec/cache.h"
#include "cutec/cuda_c.h"
#include "cutec/nvrtc.h"
#include "cutec/ptx.h"
#include "jit_internal.h"
#include "runtime/cuda_keep.h"
#include "runtime/file_text.h"

static const char *target_arch(const char *arch)
{
    const char *env = getenv("CUTEC_ARCH");
    return arch ? arch : env && *env ? env : "sm_90a";
}

cute_status cute__fn_cuda_source(const cute_fn *f, const char *arch, char **src, char *err, size_t n)
{
    cute_cuda_c_opts o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    return cute_cuda_c_emit((const cute_ir_func *const *)f->kernels, f->nkernels, &o, src, err, n);
}

/* cuobjdump -sass of a cubin, through two temporary files */
static cute_status sass_of(const void *cubin, size_t len, char **out, char *err, size_t n)
{
    char in[] = "/tmp/cutec-cubin-XXXXXX", text[] = "/tmp/cutec-sass-XXXXXX";
    int fi = mkstemp(in), ft = mkstemp(text);
    bool ok = fi >= 0 && ft >= 0 && write(fi, cubin, len) == (ssize_t)len &&
              cuda_keep_disassemble(in, text) && (*out = file_text(text, NULL)) != NULL;
    if (fi >= 0) close(fi), unlink(in);
    if (ft >= 0) close(ft), unlink(text);
    if (!ok) snprintf(err, n, "no SASS: cuobjdump failed or is not on PATH");
    return ok ? CUTE_OK : CUTE_ERR_UNSUPPORTED;
}

/* the FFMA register-bank report of a cubin (ffma_banks.c), one line */
static cute_status banks_text(const void *cubin, size_t len, char **out, char *err, size_t n)
{
    cute_ffma_bank_report r;
    if (!cute__ffma_banks(cubin, len, &r, err, n)) return CUTE_ERR_INVALID;
    char line[256];
    snprintf(line, sizeof line, "ffma: longest loop %ld, bank-conflicted %ld (mod 4) %ld (mod 2); "
             "all kernels %ld, %ld, %ld\n", r.loop.ffma, r.loop.conflicts4, r.loop.conflicts2,
             r.kernel.ffma, r.kernel.conflicts4, r.kernel.conflicts2);
    *out = strdup(line);
    return *out ? CUTE_OK : CUTE_ERR_OOM;
}

/* CUTEC_CODEGEN=ptx: the PTX backend's module, and what the toolkit's ptxas makes of it
 * (its report for "usage", the cubin's SASS or FFMA banks); *done false where that
 * generator does not say this function (CUDA C's then) */
static cute_status ptx_code(const cute_fn *f, const char *what, const char *arch, char **out, char *err,
                            size_t n, bool *done)
{
    char *ptx = NULL, *log = NULL;
    void *cubin = NULL;
    size_t len = 0;
    cute_ptx_opts o = {.arch = arch};
    cute_status s = cute_ptx_emit((const cute_ir_func *const *)f->kernels, f->nkernels, &o, &ptx, err, n);
    *done = s != CUTE_ERR_UNSUPPORTED;
    if (s != CUTE_OK || !strcmp(what, "ptx")) return *out = ptx, s;
    s = cute_ptx_assemble(ptx, arch, -1, &cubin, &len, &log, NULL, err, n);
    free(ptx);
    if (s == CUTE_OK && !strcmp(what, "usage")) *out = log, log = NULL;
    else if (s == CUTE_OK && !strcmp(what, "banks")) s = banks_text(cubin, len, out, err, n);
    else if (s == CUTE_OK) s = sass_of(cubin, len, out, err, n);
    free(log), free(cubin);
    return s;
}

cute_status cute_fn_code(const cute_fn *f, const char *what, const char *arch, char **out,
                         char *err, size_t n)
{
    *out = NULL;
    bool cuda = what && !strcmp(what, "cuda"), ptx = what && !strcmp(what, "ptx");
    bool usage = what && !strcmp(what, "usage"), banks = what && !strcmp(what, "banks");
    if (!cuda && !ptx && !usage && !banks && !(what && !strcmp(what, "sass")))
        return snprintf(err, n, "code \"%s\": cuda, ptx, sass, usage or banks", what ? what : ""),
               CUTE_ERR_INVALID;
    bool done = false;
    if (!cuda && cute_ptx_wanted()) {
        cute_status s = ptx_code(f, what, target_arch(arch), out, err, n, &done);
        if (done) return s;
    }
    char *src = NULL;
    cute_status s = cute__fn_cuda_source(f, target_arch(arch), &src, err, n);
    if (s != CUTE_OK || cuda) return *out = src, s;
    cute_nvrtc_output o;
    s = cute__nvrtc_of(src, target_arch(arch), usage, &o, err, n);
    free(src);
    if (s == CUTE_OK && (ptx || usage)) *out = strdup(ptx ? o.ptx : o.log), s = *out ? CUTE_OK : CUTE_ERR_OOM;
    else if (s == CUTE_OK && banks) s = banks_text(o.cubin, o.cubin_size, out, err, n);
    else if (s == CUTE_OK) s = sass_of(o.cubin, o.cubin_size, out, err, n);
    cute_nvrtc_output_free(&o);
    return s;
}

/* CUTEC_KEEP on a backend that does not compile CUDA: the same files, named by the key of
 * the generated source for $CUTEC_ARCH (else sm_90a); PTX and cubin when NVRTC is there */
void cute__fn_keep(const cute_fn *f)
{
    cute_cache_opts o;
    cute_cache_opts_from_env(&o);
    if (!o.keep || !f->nkernels || cute_runtime_on_gpu(f->rt)) return;
    o.no_memory = true;
    cute_cache *c = cute_cache_open(&o);
    char *src = NULL, err[1024];
    const char *arch = target_arch(NULL);
    if (c && cute__fn_cuda_source(f, arch, &src, err, sizeof err) == CUTE_OK) {
        cute_cache_key k;
        cute_cache_key_compute(&(cute_cache_key_input){.source = src, .arch = arch}, &k);
        cute_nvrtc_output out;
        memset(&out, 0, sizeof out);
        if (o.keep & (CUTE_KEEP_PTX | CUTE_KEEP_CUBIN | CUTE_KEEP_SASS) &&
            cute__nvrtc_of(src, arch, false, &out, err, sizeof err) != CUTE_OK)
            cute_cache_write_artifact(c, &k, "ptx", err, strlen(err), NULL, 0); /* why not */
        cuda_keep_artifacts(c, &k, o.keep, src, out.ptx, out.cubin, out.cubin_size);
        cute_nvrtc_output_free(&out);
    }
    free(src);
    cute_cache_close(c);
}
