/* The CUDA backend (cutec/backend.h) on the driver (cuda_driver.c):
 *
 *   compile = emit CUDA C -> key -> loaded module? -> cache entry? -> NVRTC -> cache put
 *             -> cuModuleLoadData -> one function per kernel
 *             (CUTEC_CODEGEN=ptx: emit PTX (cutec/ptx.h) and the driver's JIT linker for
 *             NVRTC, where the PTX backend says the kernels; docs/ptx_backend.md)
 *             (tiers, unless CUTEC_TIER=0: a miss returns the PTX backend's module and
 *             NVRTC's is built on a background thread (tier.h), cached, swapped in; tier_first)
 *   launch  = check and pack the arguments (cuda_args.c), opt in to > 48 KB of dynamic
 *             shared memory once per kernel, cuLaunchKernel
 *
 * Modules are shared: compiling the same source again (same key) returns the loaded module
 * with one more reference, so a process loads each kernel once. */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "env/env_known.h"
#include "runtime/le_bytes.h"
#include "cuda_args.h"
#include "cache_internal.h"
#include "cuda_keep.h"
#include "tier.h"
#include "runtime/ffma_yield.h"
#include "cutec/cuda_driver.h"
#include "cutec/ptx.h"

/* one compiled form of a kernel: the first module's, or the final tier's (tier.h) */
typedef struct kernel_code {
    void *func;
    int static_smem; /* bytes of __shared__ the compiled kernel declares */
    _Atomic int smem_opted_in; /* the dynamic shared memory allowed so far (0: the default
                                  48 KB); threads may race to raise it, harmlessly */
} kernel_code;

typedef struct cuda_kernel {
    char *name;
    cute_type *params;
    int nparams;
    int64_t dyn_smem;  /* the dynamic shared memory its IR uses (cute_ir_func.smem_bytes) */
    cute_dim3 cluster; /* its __cluster_dims__, or 0s */
    kernel_code form[2]; /* [0] the module's first; [1] the final tier's, swapped in later */
    kernel_code *_Atomic code; /* what launches use: &form[0], then &form[1] once it is ready */
} cuda_kernel;

struct cute_module {
    void *mod;
    void *final_mod; /* a tiered module's NVRTC form, once the background compile loaded it;
                        both stay loaded until the module is freed (launches may be in flight) */
    cute_cache_key key;
    bool from_cache; /* its cubin came from the cache, not from this process's NVRTC */
    bool launched;   /* since the last good sync (atomic: launches may come from threads) */
    int refs;
    int n;
    cuda_kernel *k;
    struct cute_module *next;
};

typedef struct cuda_backend {
    cute_cuda *cu;
    cute_nvrtc *nv;
    cute_cache *cache;
    bool own_cu, own_nv, own_cache;
    cute_cuda_emit_fn emit;
    void *emit_user;
    char arch[32];
    char **extra;
    int nextra;
    pthread_mutex_t lock; /* the module list, the message, buffer ids */
    pthread_mutex_t compile_lock; /* compiles run one at a time: the log, NVRTC, the cache */
    bool tiered;       /* a cold miss runs the PTX backend's module first (tier.h) */
    tier_queue *tiers; /* the background compiles of the final tiers */
    cute_module *modules;
    uint64_t next_buffer_id;
    char *log; /* the last compile's log (NVRTC's, or our words) */
    char err[2048];
} cuda_backend;

/* the message, under the lock: threads that share the backend may fail at once */
__attribute__((format(printf, 2, 3))) static void say(cuda_backend *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&b->lock);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    pthread_mutex_unlock(&b->lock);
    va_end(ap);
}

/* the driver's words for the last failure become ours */
static cute_status driver_failed(cuda_backend *b, cute_status s)
{
    if (s != CUTE_OK) say(b, "%s", cute_cuda_error(b->cu));
    return s;
}

static void set_log(cuda_backend *b, const char *text)
{
    free(b->log);
    b->log = strdup(text ? text : "");
}

static cute_status forget_faulty(cuda_backend *b, cute_status s);

/* --- memory ------------------------------------------------------------------------- */

static cute_status cb_alloc(void *self, size_t bytes, cute_buffer *out)
{
    cuda_backend *b = self;
    cute_devptr p = 0;
    memset(out, 0, sizeof *out);
    if (bytes) {
        cute_status s = cute_cuda_alloc(b->cu, bytes, &p);
        if (s != CUTE_OK) return driver_failed(b, s);
    }
    pthread_mutex_lock(&b->lock);
    out->id = ++b->next_buffer_id;
    pthread_mutex_unlock(&b->lock);
    out->ptr = (void *)(uintptr_t)p;
    out->bytes = bytes;
    out->backend = 0; /* the runtime that owns several backends sets its index */
    return CUTE_OK;
}

static void cb_free(void *self, cute_buffer *buf)
{
    cuda_backend *b = self;
    if (buf->ptr) cute_cuda_free(b->cu, (cute_devptr)(uintptr_t)buf->ptr);
    buf->ptr = NULL;
    buf->bytes = 0;
}

static bool in_range(cuda_backend *b, const cute_buffer *buf, size_t offset, size_t n)
{
    if (offset <= buf->bytes && n <= buf->bytes - offset) return true;
    say(b, "bytes [%zu, %zu + %zu) are outside buffer %llu (%zu bytes)", offset, offset, n,
        (unsigned long long)buf->id, buf->bytes);
    return false;
}

static cute_status cb_upload(void *self, cute_buffer *dst, size_t offset, const void *src, size_t n)
{
    cuda_backend *b = self;
    if (!in_range(b, dst, offset, n)) return CUTE_ERR_INVALID;
    if (!n) return CUTE_OK;
    cute_devptr p = (cute_devptr)(uintptr_t)dst->ptr + offset;
    return driver_failed(b, cute_cuda_copy_htod(b->cu, p, src, n));
}

static cute_status cb_download(void *self, void *dst, const cute_buffer *src, size_t offset,
                               size_t n)
{
    cuda_backend *b = self;
    if (!in_range(b, src, offset, n)) return CUTE_ERR_INVALID;
    if (!n) return CUTE_OK;
    cute_devptr p = (cute_devptr)(uintptr_t)src->ptr + offset;
    return forget_faulty(b, driver_failed(b, cute_cuda_copy_dtoh(b->cu, dst, p, n)));
}

/* A kernel faulted: a cubin from the cache may be the culprit (a driver or toolkit change
 * can make sealed code fault), so the entries of cached modules launched since the last
 * good sync are removed and the next process compiles them afresh. */
static cute_status forget_faulty(cuda_backend *b, cute_status s)
{
    if (s == CUTE_OK || !cute_cuda_error_sticky(b->cu)) return s;
    int removed = 0;
    pthread_mutex_lock(&b->lock);
    for (cute_module *m = b->modules; m; m = m->next)
        if (m->from_cache && __atomic_load_n(&m->launched, __ATOMIC_RELAXED)) {
            cute_cache_remove(b->cache, &m->key);
            m->from_cache = false, removed++;
        }
    pthread_mutex_unlock(&b->lock);
    size_t len = strlen(b->err);
    if (removed && len < sizeof b->err)
        snprintf(b->err + len, sizeof b->err - len,
                 "; %d kernel%s launched came from the JIT cache: %s entr%s removed, so the "
                 "next run compiles afresh",
                 removed, removed == 1 ? "" : "s", removed == 1 ? "its" : "their",
                 removed == 1 ? "y is" : "ies are");
    return s;
}

static cute_status cb_sync(void *self, void *stream)
{
    cuda_backend *b = self;
    cute_status s = forget_faulty(b, driver_failed(b, cute_cuda_stream_sync(b->cu, stream)));
    if (s == CUTE_OK) {
        pthread_mutex_lock(&b->lock);
        for (cute_module *m = b->modules; m; m = m->next)
            __atomic_store_n(&m->launched, false, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&b->lock);
    }
    return s;
}

/* this thread's copy of the last message (another thread's failure may replace b->err) */
static const char *cb_error(void *self)
{
    static _Thread_local char copy[2048];
    cuda_backend *b = self;
    pthread_mutex_lock(&b->lock);
    snprintf(copy, sizeof copy, "%s", b->err);
    pthread_mutex_unlock(&b->lock);
    return copy;
}

static bool cb_supports_op(void *self, const cute_ir_inst *inst)
{
    (void)self, (void)inst;
    return true; /* CUDA C can say anything the IR can, raw PTX included */
}

/* --- modules ------------------------------------------------------------------------ */

static void module_destroy(cuda_backend *b, cute_module *m)
{
    if (m->mod) cute_cuda_module_unload(b->cu, m->mod);
    if (m->final_mod) cute_cuda_module_unload(b->cu, m->final_mod);
    for (int i = 0; i < m->n; i++) {
        free(m->k[i].name);
        free(m->k[i].params);
    }
    free(m->k);
    free(m);
}

static void cb_module_free(void *self, cute_module *m)
{
    cuda_backend *b = self;
    if (!m) return;
    pthread_mutex_lock(&b->lock);
    bool last = --m->refs == 0;
    if (last)
        for (cute_module **p = &b->modules; *p; p = &(*p)->next)
            if (*p == m) {
                *p = m->next;
                break;
            }
    pthread_mutex_unlock(&b->lock);
    if (last) module_destroy(b, m);
}

/* a loaded module with key k, with one more reference; NULL if none */
static cute_module *module_find(cuda_backend *b, const cute_cache_key *k)
{
    cute_module *found = NULL;
    pthread_mutex_lock(&b->lock);
    for (cute_module *m = b->modules; m && !found; m = m->next)
        if (memcmp(m->key.b, k->b, sizeof k->b) == 0) found = m;
    if (found) found->refs++;
    pthread_mutex_unlock(&b->lock);
    return found;
}

/* each kernel's function, parameter types and static shared memory */
/* more blocks than the 8 a cluster may portably have (a launch must opt in) */
static bool large_cluster(cute_dim3 c) { return (uint64_t)c.x * c.y * c.z > 8; }

/* kernel k's function in module mod, with its static shared memory and cluster opt-in */
static cute_status code_bind(cuda_backend *b, void *mod, const cuda_kernel *k, kernel_code *c)
{
    cute_status s = cute_cuda_module_function(b->cu, mod, k->name, &c->func);
    if (s == CUTE_OK) s = cute_cuda_func_usage(b->cu, c->func, NULL, &c->static_smem);
    if (s == CUTE_OK && large_cluster(k->cluster)) s = cute_cuda_func_allow_large_clusters(b->cu, c->func);
    return s;
}

static cute_status module_bind(cuda_backend *b, cute_module *m, cute_ir_func *const *kernels)
{
    for (int i = 0; i < m->n; i++) {
        const cute_ir_func *f = kernels[i];
        cuda_kernel *k = &m->k[i];
        if (!(k->name = strdup(f->name)) ||
            !(k->params = calloc(f->nparams ? f->nparams : 1, sizeof *k->params))) {
            say(b, "out of memory");
            return CUTE_ERR_OOM;
        }
        k->nparams = (int)f->nparams;
        k->dyn_smem = f->smem_bytes;
        for (uint32_t p = 0; p < f->nparams; p++) k->params[p] = cute_ir_type(f, f->params[p]);
        const int *cd = f->cluster_dims;
        if (cd[0] > 0 && cd[1] > 0 && cd[2] > 0)
            k->cluster = (cute_dim3){(uint32_t)cd[0], (uint32_t)cd[1], (uint32_t)cd[2]};
        k->code = &k->form[0];
        cute_status s = code_bind(b, m->mod, k, &k->form[0]);
        if (s != CUTE_OK) return driver_failed(b, s);
    }
    return CUTE_OK;
}

/* --- the cache payload: u64 cubin length, cubin, u64 PTX length, PTX ------------------ */

typedef struct image {
    void *cubin;
    size_t cubin_len;
    char *ptx; /* NULL when not kept */
    size_t ptx_len;
} image;


static uint8_t *payload_pack(const image *im, size_t *len)
{
    *len = 16 + im->cubin_len + im->ptx_len;
    uint8_t *p = malloc(*len);
    if (!p) return NULL;
    le_put64(p, im->cubin_len);
    memcpy(p + 8, im->cubin, im->cubin_len);
    le_put64(p + 8 + im->cubin_len, im->ptx_len);
    if (im->ptx_len) memcpy(p + 16 + im->cubin_len, im->ptx, im->ptx_len);
    return p;
}

/* im points into p; false when the lengths disagree (the checksum passed, so this is an
 * entry some other layout wrote) */
static bool payload_unpack(uint8_t *p, size_t len, image *im)
{
    memset(im, 0, sizeof *im);
    if (len < 16) return false;
    uint64_t c = le_get64(p);
    if (c == 0 || c > len - 16) return false;
    uint64_t x = le_get64(p + 8 + c);
    if (x != len - 16 - c) return false;
    im->cubin = p + 8, im->cubin_len = c;
    if (x) im->ptx = (char *)p + 16 + c, im->ptx_len = x;
    return im->ptx == NULL || im->ptx[x - 1] == '\0';
}

/* --- compile ------------------------------------------------------------------------ */

/* everything but the source that changes NVRTC's output, in one string for the key */
static char *options_text(cuda_backend *b, bool lineinfo)
{
    size_t n = 96;
    for (int i = 0; i < b->nextra; i++) n += strlen(b->extra[i]) + 1;
    char *s = malloc(n);
    if (!s) return NULL;
    size_t at = (size_t)snprintf(s, n, "lineinfo=%d", lineinfo);
    at += ffma_key_text(s + at, n - at); /* the cubin's rewrites (n has room: 48 bytes at most) */
    for (int i = 0; i < b->nextra; i++) at += (size_t)snprintf(s + at, n - at, "\n%s", b->extra[i]);
    /* and what cute_nvrtc_compile adds from the environment */
    const char *env = getenv("CUTEC_NVRTC_OPTIONS");
    if (env && *env) {
        char *t = realloc(s, at + strlen(env) + 8);
        if (!t) return free(s), NULL;
        s = t;
        snprintf(s + at, strlen(env) + 8, "\nenv %s", env);
    }
    return s;
}

static cute_status open_nvrtc(cuda_backend *b)
{
    if (b->nv) return CUTE_OK;
    char err[512];
    cute_status s = cute_nvrtc_open(&b->nv, NULL, err, sizeof err);
    if (s != CUTE_OK) {
        say(b, "%s", err);
        return s;
    }
    b->own_nv = true;
    return CUTE_OK;
}

/* NVRTC: source -> image (malloc'd cubin, and PTX when keep asks) */
/* The compiler's identity for the cache key, without loading NVRTC (7 ms) on a cache hit:
 * after a load, <cache dir>/nvrtc-id records "version size mtime path" of the library
 * file; a later process whose file at that path still has that size and mtime takes the
 * version from there.  (Another NVRTC found through a changed search path is not noticed;
 * its cubins would still be valid code for the same source.) */
static bool compiler_from_memo(cuda_backend *b, char *out, size_t n)
{
    char memo[1024], path[768];
    if (!cute_cache_enabled(b->cache) || !cache_memo_read(b->cache, memo, sizeof memo)) return false;
    int major, minor;
    long long size, mtime;
    bool ok = sscanf(memo, "%d.%d %lld %lld %767[^\n]", &major, &minor, &size, &mtime, path) == 5;
    struct stat st;
    if (!ok || stat(path, &st) != 0 || (long long)st.st_size != size || (long long)st.st_mtime != mtime)
        return false;
    snprintf(out, n, "nvrtc %d.%d", major, minor);
    return true;
}

/* written as entries are (cache_write_atomic): never through a name another could plant */
static void compiler_memo_write(cuda_backend *b, int major, int minor)
{
    char path[768], memo[1024];
    struct stat st;
    if (!cute_nvrtc_file(b->nv, path, sizeof path) || stat(path, &st) != 0) return;
    snprintf(memo, sizeof memo, "%d.%d %lld %lld %s\n", major, minor, (long long)st.st_size,
             (long long)st.st_mtime, path);
    cache_memo_write(b->cache, memo);
}

static cute_status open_nvrtc(cuda_backend *b);

/* NVRTC (opened): source -> image (malloc'd cubin, and PTX when want_ptx), NVRTC's log in
 * *log (malloc'd), why it failed in why.  Touches nothing of b but what compiles never
 * change: a tier's background compile (tier.h) runs it beside the compiles of other threads. */
static cute_status nvrtc_image(cuda_backend *b, const char *source, bool lineinfo, bool want_ptx, image *im,
                               char **log, char *why, size_t whyn)
{
    cute_nvrtc_opts o = {.arch = b->arch,
                         .lineinfo = lineinfo,
                         .extra = (const char *const *)b->extra,
                         .nextra = b->nextra};
    cute_nvrtc_output out;
    cute_status s = cute_nvrtc_compile(b->nv, source, &o, &out);
    if (s == CUTE_OK && !out.cubin) {
        snprintf(why, whyn, "NVRTC gave no cubin for %s", b->arch);
        s = CUTE_ERR_COMPILE;
    } else if (s != CUTE_OK) {
        snprintf(why, whyn, "NVRTC failed for %s (status %d)%s%s", b->arch, (int)s,
                 out.log && *out.log ? ": " : "", out.log ? out.log : "");
    }
    if (s == CUTE_OK) {
        im->cubin = out.cubin, im->cubin_len = out.cubin_size;
        out.cubin = NULL;
        if (want_ptx) im->ptx = out.ptx, im->ptx_len = out.ptx_size, out.ptx = NULL;
    }
    *log = out.log, out.log = NULL;
    cute_nvrtc_output_free(&out);
    return s;
}

/* the same on the compiling thread: the log and the message are the backend's */
static cute_status nvrtc_build(cuda_backend *b, const char *source, bool lineinfo, bool want_ptx,
                               image *im)
{
    cute_status so = open_nvrtc(b); /* a cache hit may have skipped loading it */
    if (so != CUTE_OK) return so;
    char why[2048], *log = NULL;
    cute_status s = nvrtc_image(b, source, lineinfo, want_ptx, im, &log, why, sizeof why);
    set_log(b, log);
    free(log);
    if (s != CUTE_OK) say(b, "%s", why);
    return s;
}

typedef struct compile_job {
    const char *source;
    cute_cache_key key;
    bool lineinfo;
    unsigned keep;
    bool ptx; /* source is the PTX backend's module: the driver's JIT assembles it */
    const cute_ir_func *const *kernels; /* the PTX backend's: said again after a spill */
    int nkernels;
    void *hit; /* a cache entry for key already read (tiers look first), or NULL */
    size_t hit_len;
} compile_job;

/* ptxas's -O level for the driver's JIT: CUTEC_PTX_OPT (0-4), else 3 (ptxas's default,
 * what NVRTC's compiles get) */
static int ptx_opt_level(void)
{
    return (int)cute_env_int_warn("CUTEC_PTX_OPT", 0, 4, 3);
}

/* Tiers (tier.h, docs/compile_time.md): a cold miss of a backend that asks for them
 * (cute_cuda_backend_opts.tiered: the library's) returns the PTX backend's module and
 * swaps NVRTC's in when the background compile is done.  CUTEC_TIER=0 turns them off,
 * CUTEC_TIER=1 on; unset, tier_by_default (scripts/device-tier.sh decides it).  On since
 * the early mid pass of 2026-11-27 (H200 host, loaded: load average 12 of 64 CPUs): the
 * step-5 GEMM's first module in 130 ms against NVRTC's 468, the Hopper GEMM's in 477
 * against 712; the final tier NVRTC's cubin, its output bit for bit, 1.000 / 0.998 of its
 * speed at 8192^3. */
static const bool tier_by_default = true;
/* ptxas's -O level for the first tier (a module that lives until NVRTC's is in): 1, from
 * the early mid pass of 2026-11-27 (H200 host, loaded): the step-5 GEMM's first module 130
 * against 393 ms at -O3 (NVRTC 468-627), its code 0.905 of NVRTC's (-O3 0.980); Hopper 477
 * against 490 ms, its code 0.991 (0.986) */
static const int tier_opt_default = 1;

/* the PTX backend's modules through cute_ptx_assemble (the ptxas binary, or libnvJitLink:
 * cute_ptx_assembler, ptx_ptxas.c) where it finds them; else (CUTEC_PTX_ASM=driver, or no
 * binary) the driver's JIT linker */
static bool ptx_by_ptxas(void)
{
    return cute_ptx_assembler() != CUTE_PTX_ASM_DRIVER && cute_ptx_ptxas_found(NULL, 0);
}

/* the PTX backend's module: source -> image through the ptxas binary (a module that spills
 * with CUTEC_PTX_SUMS said again without it: cute_ptx_assemble_kernels; not for a first
 * tier, which lives only until NVRTC's module is in) or the driver's linker (no NVRTC) */
static cute_status jit_build(cuda_backend *b, const compile_job *j, bool want_ptx, int level, bool first_tier,
                             image *im)
{
    char info[4096];
    const char *ptx = j->source;
    if (ptx_by_ptxas()) {
        char *log = NULL, *text = strdup(ptx);
        cute_ptx_opts po = {.arch = b->arch};
        cute_status s = !text       ? CUTE_ERR_OOM
                         : first_tier ? cute_ptx_assemble(text, b->arch, level, &im->cubin, &im->cubin_len, &log,
                                                          NULL, info, sizeof info)
                                      : cute_ptx_assemble_kernels(j->kernels, j->nkernels, &po, &text, level,
                                                                  &im->cubin, &im->cubin_len, &log, NULL, info,
                                                                  sizeof info);
        set_log(b, s == CUTE_OK && log ? log : info);
        free(log);
        if (s != CUTE_OK) return free(text), say(b, "ptxas refused the PTX backend's module: %s", info), s;
        if (want_ptx && text) im->ptx = text, im->ptx_len = strlen(text) + 1, text = NULL;
        free(text);
        return CUTE_OK;
    }
    cute_status s = cute_cuda_link_ptx(b->cu, ptx, level, &im->cubin, &im->cubin_len, info, sizeof info);
    set_log(b, s == CUTE_OK ? info : cute_cuda_error(b->cu));
    if (s != CUTE_OK) {
        say(b, "the driver's JIT refused the PTX backend's module: %s", cute_cuda_error(b->cu));
        return s == CUTE_ERR_NO_DRIVER ? s : CUTE_ERR_COMPILE;
    }
    if (want_ptx && (im->ptx = strdup(ptx))) im->ptx_len = strlen(ptx) + 1;
    return CUTE_OK;
}

/* the image for job: from the cache, or built and stored.  *payload owns the bytes. */
static cute_status get_image(cuda_backend *b, compile_job *j, bool use_cache,
                             uint8_t **payload, image *im, bool *from_cache)
{
    size_t len = j->hit_len;
    void *bytes = j->hit;
    bool want_ptx = (j->keep & CUTE_KEEP_PTX) != 0;
    *from_cache = false;
    j->hit = NULL; /* ours now */
    if (use_cache && (bytes || cute_cache_get(b->cache, &j->key, &bytes, &len))) {
        if (payload_unpack(bytes, len, im) && (!want_ptx || im->ptx)) {
            *payload = bytes;
            *from_cache = true;
            return CUTE_OK;
        }
        free(bytes); /* not ours, or without the PTX CUTEC_KEEP wants: build again */
    }
    image built = {0};
    cute_status s = j->ptx ? jit_build(b, j, want_ptx, ptx_opt_level(), false, &built)
                           : nvrtc_build(b, j->source, j->lineinfo, want_ptx, &built);
    if (s != CUTE_OK) return s;
    *payload = payload_pack(&built, &len);
    free(built.cubin);
    free(built.ptx);
    if (!*payload) {
        say(b, "out of memory");
        return CUTE_ERR_OOM;
    }
    payload_unpack(*payload, len, im);
    cute_cache_put(b->cache, &j->key, *payload, len);
    return CUTE_OK;
}

/* image -> a loaded module for kernels; retries from source once if a cached image is
 * refused (it passed its checksum, so this is a driver that changed under the cache) */
static cute_status load(cuda_backend *b, compile_job *j, cute_ir_func *const *kernels, int n,
                        cute_module **out)
{
    cute_module *m = calloc(1, sizeof *m);
    if (!m || !(m->k = calloc((size_t)n, sizeof *m->k))) {
        free(m);
        say(b, "out of memory");
        return CUTE_ERR_OOM;
    }
    m->key = j->key, m->refs = 1, m->n = n;
    cute_status s;
    bool use_cache = cute_cache_enabled(b->cache), retry;
    do {
        uint8_t *payload = NULL;
        image im;
        bool cached = false;
        s = get_image(b, j, use_cache, &payload, &im, &cached);
        if (s == CUTE_OK) s = driver_failed(b, cute_cuda_module_load(b->cu, im.cubin, &m->mod));
        if (s == CUTE_OK && j->keep)
            cuda_keep_artifacts(b->cache, &j->key, j->keep, j->ptx ? NULL : j->source, im.ptx, im.cubin, /* PTX: no .cu */
                                im.cubin_len);
        free(payload);
        m->from_cache = s == CUTE_OK && cached;
        /* a cached image the driver refuses: drop it and build from source, once */
        retry = s != CUTE_OK && cached;
        if (retry) cute_cache_remove(b->cache, &j->key), use_cache = false;
    } while (retry);
    if (s == CUTE_OK) s = module_bind(b, m, kernels);
    if (s != CUTE_OK) {
        module_destroy(b, m);
        return s;
    }
    *out = m;
    return CUTE_OK;
}


/* --- tiers: the PTX backend's module first, NVRTC's in the background ----------------- */

/* Is a cold miss of this compile tiered?  The backend asked for it (its emitter writes the
 * same IR the PTX backend reads), CUTEC_TIER is not 0, no generator was chosen
 * (CUTEC_CODEGEN), and nothing asks for NVRTC's own artefacts now (lineinfo, CUTEC_KEEP). */
bool cute_cuda_tiers_on(void)
{
    const char *g = getenv("CUTEC_CODEGEN");
    bool on = cute_env_choice_warn("CUTEC_TIER", "0|1", tier_by_default) == 1;
    return on && !(g && *g);
}

static bool tier_wanted(const cuda_backend *b, const compile_job *j)
{
    return b->tiered && cute_cuda_tiers_on() && !j->lineinfo && !j->keep;
}

int cute_cuda_tier_opt_level(void)
{
    return (int)cute_env_int_warn("CUTEC_TIER_OPT", 0, 4, tier_opt_default);
}

/* The final tier's NVRTC compile starts before the first tier's ptxas (CUTEC_TIER_EARLY=1)
 * or after its module is loaded (0, the order before); unset, tier_early_by_default (any
 * other value warns and gives it).  On since scripts/device-tier2.sh's final pass (H200 host,
 * 2026-11-27): the final tier in at 723 ms against 884 (step 5) and 824 against 1,447
 * (Hopper), the first module no later (201 against 200, 499 against 658). */
static const bool tier_early_by_default = true;
/* workers of a backend's background compiles: CUTEC_TIER_THREADS (0-16; anything else
 * warns and gives this), else this (0: the CPUs less one, at most 4).  0 since
 * scripts/device-tier2.sh's final pass: four cold step-5 GEMMs all final in 1,308 ms with 4
 * workers against 2,117 with one (early order), their first modules no later (828 / 835). */
static const int tier_threads_default = 0;

static bool tier_early(void)
{
    return cute_env_choice_warn("CUTEC_TIER_EARLY", "0|1", tier_early_by_default) == 1;
}

static int tier_threads(void)
{
    int n = (int)cute_env_int_warn("CUTEC_TIER_THREADS", 0, TIER_MAX_THREADS, tier_threads_default);
    if (n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 5 ? 4 : cpus > 2 ? (int)cpus - 1 : 1;
    }
    return n;
}

/* One module's final tier.  Started early, its NVRTC compile runs while the calling thread
 * builds the first module, then waits for it: `first` says how that went.  Two owners, the
 * worker's job and (until it says how the first tier went) the compiling thread. */
enum { FIRST_PENDING, FIRST_LOADED /* m is set */, FIRST_FAILED /* NVRTC's is not wanted */ };
typedef struct tier_task {
    cuda_backend *b;
    cute_module *m; /* one reference, the task's (FIRST_LOADED) */
    char *source;   /* the CUDA C */
    cute_cache_key key;
    pthread_mutex_t lock;
    pthread_cond_t told; /* first left FIRST_PENDING */
    int first, refs;
} tier_task;

static void task_unref(tier_task *t)
{
    pthread_mutex_lock(&t->lock);
    bool last = --t->refs == 0;
    pthread_mutex_unlock(&t->lock);
    if (!last) return;
    if (t->m) cb_module_free(t->b, t->m);
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->told);
    free(t->source);
    free(t);
}

/* the compiling thread: the first tier's outcome (m: loaded, one reference for the task;
 * NULL: failed), then its own reference dropped */
static void task_tell(tier_task *t, cute_module *m)
{
    pthread_mutex_lock(&t->lock);
    t->m = m, t->first = m ? FIRST_LOADED : FIRST_FAILED;
    pthread_cond_broadcast(&t->told);
    pthread_mutex_unlock(&t->lock);
    task_unref(t);
}

/* on a worker thread: NVRTC, then (once the first module is loaded) the cache entry (the
 * final form is what a later process loads), the module, each kernel's function, the swap */
static cute_status tier_finish(void *user, char *why, size_t n)
{
    tier_task *t = user;
    cuda_backend *b = t->b;
    image im = {0};
    char *log = NULL;
    void *mod = NULL;
    cute_status s = nvrtc_image(b, t->source, false, false, &im, &log, why, n);
    free(log);
    pthread_mutex_lock(&t->lock);
    while (t->first == FIRST_PENDING) pthread_cond_wait(&t->told, &t->lock);
    cute_module *m = t->m;
    pthread_mutex_unlock(&t->lock);
    if (!m) return free(im.cubin), CUTE_OK; /* no first module: the compiling thread built NVRTC's */
    if (s == CUTE_OK && (s = cute_cuda_module_load(b->cu, im.cubin, &mod)) != CUTE_OK)
        snprintf(why, n, "loading NVRTC's cubin: %s", cute_cuda_error(b->cu));
    for (int i = 0; i < m->n && s == CUTE_OK; i++) {
        cuda_kernel *k = &m->k[i];
        int opted = atomic_load(&k->form[0].smem_opted_in);
        s = code_bind(b, mod, k, &k->form[1]);
        if (s == CUTE_OK && opted) s = cute_cuda_func_max_dynamic_smem(b->cu, k->form[1].func, opted);
        if (s == CUTE_OK) atomic_store(&k->form[1].smem_opted_in, opted);
        else snprintf(why, n, "kernel %s in NVRTC's module: %s", k->name, cute_cuda_error(b->cu));
    }
    if (s == CUTE_OK) {
        size_t len = 0;
        uint8_t *p = payload_pack(&im, &len);
        if (p) cute_cache_put(b->cache, &t->key, p, len);
        free(p);
        m->final_mod = mod;
        for (int i = 0; i < m->n; i++) atomic_store_explicit(&m->k[i].code, &m->k[i].form[1], memory_order_release);
    } else {
        if (mod) cute_cuda_module_unload(b->cu, mod);
        size_t at = strlen(why);
        if (at < n) snprintf(why + at, n - at, " (its launches stay on the PTX backend's module)");
    }
    free(im.cubin);
    return s;
}

static void tier_release(void *user)
{
    task_unref(user);
}

/* the first module: the PTX backend's (not cached: the cache holds the final form), bound.
 * CUTEC_PTX_ASM=loaddata: the PTX itself loaded, the driver's JIT compiling it in-process. */
static cute_module *tier_first_module(cuda_backend *b, const char *ptx, cute_ir_func *const *kernels, int n,
                                      const cute_cache_key *key)
{
    compile_job pj = {ptx, {{0}}, false, 0, true, (const cute_ir_func *const *)kernels, n, NULL, 0};
    image im = {0};
    bool load_ptx = cute_ptx_assembler() == CUTE_PTX_ASM_LOADDATA;
    if (!load_ptx && jit_build(b, &pj, false, cute_cuda_tier_opt_level(), true, &im) != CUTE_OK) return NULL;
    cute_module *m = calloc(1, sizeof *m);
    if (m && !(m->k = calloc((size_t)n, sizeof *m->k))) free(m), m = NULL;
    if (!m) return free(im.cubin), NULL;
    m->key = *key, m->refs = 2 /* the caller's and the task's */, m->n = n;
    char info[4096];
    cute_status s = load_ptx ? cute_cuda_module_load_ptx(b->cu, ptx, cute_cuda_tier_opt_level(), &m->mod, info,
                                                         sizeof info)
                             : cute_cuda_module_load(b->cu, im.cubin, &m->mod);
    if (load_ptx && s == CUTE_OK) set_log(b, info); /* the JIT's report: registers, spills */
    s = driver_failed(b, s);
    free(im.cubin);
    if (s == CUTE_OK) s = module_bind(b, m, kernels);
    if (s != CUTE_OK) return module_destroy(b, m), NULL;
    return m;
}

/* A tiered cold miss: the PTX backend's module now, NVRTC's on a worker, started before
 * the first tier's ptxas (tier_early) or after.  CUTE_ERR_UNSUPPORTED where the PTX backend
 * does not say these kernels or its module is refused: the caller compiles with NVRTC now. */
static cute_status tier_first(cuda_backend *b, const compile_job *j, cute_ir_func *const *kernels, int n,
                              cute_module **out)
{
    char *ptx = NULL, why[512], what[160];
    cute_ptx_opts po = {.arch = b->arch};
    if (open_nvrtc(b) != CUTE_OK || /* here, not on the worker: tier.h says why */
        cute_ptx_emit((const cute_ir_func *const *)kernels, n, &po, &ptx, why, sizeof why) != CUTE_OK)
        return free(ptx), CUTE_ERR_UNSUPPORTED;
    tier_task *t = calloc(1, sizeof *t);
    if (!t || !(t->source = strdup(j->source))) return free(t), free(ptx), CUTE_ERR_UNSUPPORTED;
    t->b = b, t->key = j->key, t->first = FIRST_PENDING, t->refs = 2; /* the job's and ours */
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->told, NULL);
    snprintf(what, sizeof what, "NVRTC's form of kernel %s%s", kernels[0]->name, n > 1 ? " and others" : "");
    bool started = tier_early() && tier_start(b->tiers, what, tier_finish, tier_release, t) == CUTE_OK;
    cute_module *m = tier_first_module(b, ptx, kernels, n, &j->key);
    free(ptx);
    if (!started) {
        t->m = m, t->first = m ? FIRST_LOADED : FIRST_FAILED; /* no worker has it yet */
        if (m && tier_start(b->tiers, what, tier_finish, tier_release, t) != CUTE_OK) { /* no thread: now */
            char why2[2048];
            if (tier_finish(t, why2, sizeof why2) != CUTE_OK) say(b, "%s", why2);
            task_unref(t);
        }
        if (!m) task_unref(t); /* the job's reference: never started */
        task_unref(t);
    } else {
        task_tell(t, m);
    }
    if (!m) return CUTE_ERR_UNSUPPORTED;
    set_log(b, "");
    *out = m;
    return CUTE_OK;
}

static cute_status compile_locked(void *self, cute_ir_func *const *kernels, int n,
                                  cute_module **out, const char **log)
{
    cuda_backend *b = self;
    *out = NULL;
    *log = "";
    if (n <= 0 || !kernels) {
        say(b, "compile: no kernels");
        return *log = b->err, CUTE_ERR_INVALID;
    }
    if (!b->emit) {
        say(b, "compile: no code generator (cute_cuda_backend_opts.emit)");
        return *log = b->err, CUTE_ERR_UNSUPPORTED;
    }
    set_log(b, ""); /* a cache hit has nothing to say */
    char compiler[160]; /* "ptxas-binary O3 <path> <mtime> <size>", "nvrtc 13.0" */
    cute_status s = CUTE_OK;
    char *source = NULL, *opts = NULL;
    compile_job j = {NULL, {{0}}, cute_cache_lineinfo(b->cache), cute_cache_keep(b->cache), false, NULL, 0, NULL, 0};
    if (cute_ptx_wanted()) { /* CUTEC_CODEGEN=ptx: IR straight to PTX, no NVRTC */
        cute_ptx_opts po = {.arch = b->arch};
        s = cute_ptx_emit((const cute_ir_func *const *)kernels, n, &po, &source, b->err, sizeof b->err);
        if (s == CUTE_OK) {
            j.ptx = true, j.kernels = (const cute_ir_func *const *)kernels, j.nkernels = n;
            char id[sizeof compiler - 24];
            if (ptx_by_ptxas() && cute_ptx_ptxas_found(id, sizeof id))
                snprintf(compiler, sizeof compiler, "ptxas-binary O%d %s", ptx_opt_level(), id);
            else
                snprintf(compiler, sizeof compiler, "driver-jit %d O%d", cute_cuda_device(b->cu)->driver_version,
                         ptx_opt_level());
        } else if (s != CUTE_ERR_UNSUPPORTED) {
            return *log = b->err, s;
        }
        s = CUTE_OK; /* what it does not say, CUDA C does */
    }
    if (!j.ptx && !compiler_from_memo(b, compiler, sizeof compiler)) {
        s = open_nvrtc(b);
        if (s != CUTE_OK) return *log = b->err, s;
        int major = 0, minor = 0;
        cute_nvrtc_version(b->nv, &major, &minor);
        snprintf(compiler, sizeof compiler, "nvrtc %d.%d", major, minor);
        compiler_memo_write(b, major, minor);
    }
    if (!j.ptx) s = b->emit(b->emit_user, kernels, n, b->arch, j.lineinfo, &source, b->err, sizeof b->err);
    if (s != CUTE_OK) return *log = b->err, s;
    j.source = source;
    if (!(opts = options_text(b, j.lineinfo))) {
        free(source);
        return CUTE_ERR_OOM;
    }
    cute_cache_key_compute(
        &(cute_cache_key_input){
            .source = source, .arch = b->arch, .compiler = compiler, .options = opts},
        &j.key);
    free(opts);

    bool shared = cute_cache_enabled(b->cache);
    if (shared && (*out = module_find(b, &j.key))) {
        free(source);
        *log = b->log ? b->log : "";
        return CUTE_OK;
    }
    s = CUTE_ERR_UNSUPPORTED; /* a miss that tiers: the PTX backend's module first */
    if (tier_wanted(b, &j) && !(shared && cute_cache_get(b->cache, &j.key, &j.hit, &j.hit_len)))
        s = tier_first(b, &j, kernels, n, out);
    if (s == CUTE_ERR_UNSUPPORTED) s = load(b, &j, kernels, n, out);
    free(source);
    if (s == CUTE_OK && shared) {
        pthread_mutex_lock(&b->lock);
        (*out)->next = b->modules;
        b->modules = *out;
        pthread_mutex_unlock(&b->lock);
    }
    *log =
        s == CUTE_OK ? (b->log ? b->log : "") : (s == CUTE_ERR_COMPILE && b->log ? b->log : b->err);
    return s;
}

/* One compile at a time (threads that share the backend share its log and NVRTC handle);
 * the log comes back as this thread's copy. */
static cute_status cb_compile(void *self, cute_ir_func *const *kernels, int n, cute_module **out,
                              const char **log)
{
    static _Thread_local char copy[8192];
    cuda_backend *b = self;
    pthread_mutex_lock(&b->compile_lock);
    cute_status s = compile_locked(self, kernels, n, out, log);
    snprintf(copy, sizeof copy, "%s", *log ? *log : "");
    pthread_mutex_unlock(&b->compile_lock);
    *log = copy;
    return s;
}

/* --- launch ------------------------------------------------------------------------- */

/* allow k the dynamic shared memory it asks for, once; the driver refuses > 48 KB without */
static cute_status smem_opt_in(cuda_backend *b, const cuda_kernel *k, kernel_code *c, uint32_t bytes)
{
    const cute_device_info *d = cute_cuda_device(b->cu);
    if ((int64_t)bytes + c->static_smem <= d->smem_per_block || (int64_t)bytes <= atomic_load(&c->smem_opted_in))
        return CUTE_OK;
    if ((uint64_t)bytes + (uint64_t)c->static_smem > (uint64_t)d->smem_per_block_optin) {
        say(b,
            "kernel %s asks for %u bytes of dynamic shared memory (+ %d static); %s allows "
            "%d per block",
            k->name, bytes, c->static_smem, d->name, d->smem_per_block_optin);
        return CUTE_ERR_INVALID;
    }
    cute_status s = cute_cuda_func_max_dynamic_smem(b->cu, c->func, (int)bytes);
    if (s != CUTE_OK) return driver_failed(b, s);
    atomic_store(&c->smem_opted_in, (int)bytes);
    return CUTE_OK;
}

/* cuLaunchKernel, or cuLaunchKernelEx where the launch asks for clusters the kernel was not
 * compiled with (__cluster_dims__ needs no launch attribute; more than 8 blocks need the
 * kernel's opt-in, which module_bind gave a kernel compiled so) or for PDL */
static cute_status launch_kernel(cuda_backend *b, const cuda_kernel *k, const kernel_code *code,
                                 const cute_launch *cfg, void **ptrs)
{
    cute_dim3 c = cfg->cluster, kc = k->cluster;
    bool clustered = c.x || c.y || c.z;
    if (clustered && c.x == kc.x && c.y == kc.y && c.z == kc.z) c = (cute_dim3){0, 0, 0}; /* compiled in */
    clustered = c.x || c.y || c.z;
    if (!clustered && !cfg->pdl)
        return cute_cuda_launch(b->cu, code->func, cfg->grid, cfg->block, cfg->smem_bytes,
                                cfg->stream, ptrs);
    cute_status s = large_cluster(c) ? cute_cuda_func_allow_large_clusters(b->cu, code->func) : CUTE_OK;
    if (s != CUTE_OK) return s;
    return cute_cuda_launch_ex(b->cu, code->func, cfg->grid, cfg->block, c, cfg->pdl, cfg->smem_bytes,
                               cfg->stream, ptrs);
}

static cute_status cb_launch(void *self, cute_module *m, int kernel, const cute_launch *cfg,
                             const cute_launch_arg *args, int nargs)
{
    cuda_backend *b = self;
    if (!m || kernel < 0 || kernel >= m->n) {
        say(b, "launch: no kernel %d in this module", kernel);
        return CUTE_ERR_INVALID;
    }
    cuda_kernel *k = &m->k[kernel];
    /* as the interpreter: 0 asks for what the kernel uses; less than that is refused (the
     * kernel would read and write past its shared memory) */
    cute_launch sized = *cfg;
    if (!sized.smem_bytes) sized.smem_bytes = (uint32_t)k->dyn_smem;
    if (sized.smem_bytes < k->dyn_smem) {
        say(b, "launch of %s: %u bytes of shared memory, the kernel uses %lld", k->name,
            sized.smem_bytes, (long long)k->dyn_smem);
        return CUTE_ERR_INVALID;
    }
    cfg = &sized;
    enum { INLINE = 32 };
    uint64_t slots_inline[INLINE];
    void *ptrs_inline[INLINE];
    uint64_t *slots = slots_inline;
    void **ptrs = ptrs_inline;
    if (nargs > INLINE) {
        slots = malloc((size_t)nargs * sizeof *slots);
        ptrs = malloc((size_t)nargs * sizeof *ptrs);
    }
    cute_status s = CUTE_ERR_OOM;
    if (slots && ptrs) {
        char why[512];
        s = cuda_pack_args(k->params, k->nparams, args, nargs, slots, ptrs, why, sizeof why);
        if (s != CUTE_OK) say(b, "launch of %s: %s", k->name, why);
    }
    /* one form for this launch: the background compile may swap the next one's */
    kernel_code *code = atomic_load_explicit(&k->code, memory_order_acquire);
    if (s == CUTE_OK) s = smem_opt_in(b, k, code, cfg->smem_bytes);
    if (s == CUTE_OK) {
        __atomic_store_n(&m->launched, true, __ATOMIC_RELAXED);
        s = forget_faulty(b, driver_failed(b, launch_kernel(b, k, code, cfg, ptrs)));
    }
    if (slots != slots_inline) free(slots);
    if (ptrs != ptrs_inline) free(ptrs);
    if (s != CUTE_OK && cfg->err && cfg->errn) {
        pthread_mutex_lock(&b->lock); /* the caller's copy of this launch's message */
        snprintf(cfg->err, cfg->errn, "%s", b->err);
        pthread_mutex_unlock(&b->lock);
    }
    return s;
}

/* --- life ----------------------------------------------------------------------------- */

static void cb_destroy(void *self)
{
    cuda_backend *b = self;
    if (!b) return;
    tier_queue_free(b->tiers); /* their modules' last references may go here */
    while (b->modules) {
        cute_module *m = b->modules;
        b->modules = m->next;
        module_destroy(b, m);
    }
    if (b->own_nv) cute_nvrtc_close(b->nv);
    if (b->own_cache) cute_cache_close(b->cache);
    if (b->own_cu) cute_cuda_close(b->cu);
    for (int i = 0; i < b->nextra; i++) free(b->extra[i]);
    free(b->extra);
    free(b->log);
    pthread_mutex_destroy(&b->lock);
    pthread_mutex_destroy(&b->compile_lock);
    free(b);
}

static const cute_backend_vtable cuda_vtable = {
    .version = CUTE_BACKEND_VERSION,
    .name = "cuda",
    .supports_op = cb_supports_op,
    .compile = cb_compile,
    .module_free = cb_module_free,
    .launch = cb_launch,
    .alloc = cb_alloc,
    .free = cb_free,
    .upload = cb_upload,
    .download = cb_download,
    .sync = cb_sync,
    .error = cb_error,
    .destroy = cb_destroy,
};

static cute_status copy_options(cuda_backend *b, const cute_cuda_backend_opts *o)
{
    if (o->nextra_options <= 0) return CUTE_OK;
    if (!(b->extra = calloc((size_t)o->nextra_options, sizeof *b->extra))) return CUTE_ERR_OOM;
    for (int i = 0; i < o->nextra_options; i++, b->nextra++)
        if (!(b->extra[i] = strdup(o->extra_options[i]))) return CUTE_ERR_OOM;
    return CUTE_OK;
}

cute_status cute_cuda_backend_new(const cute_cuda_backend_opts *o, cute_backend *out, char *err,
                                  size_t n)
{
    cute_cuda_backend_opts def = {0};
    if (!o) o = &def;
    cute_env_warn_unknown();
    out->vt = NULL, out->self = NULL;
    cuda_backend *b = calloc(1, sizeof *b);
    if (!b) return snprintf(err, n, "out of memory"), CUTE_ERR_OOM;
    pthread_mutex_init(&b->lock, NULL);
    pthread_mutex_init(&b->compile_lock, NULL);
    b->cu = o->cuda, b->nv = o->nvrtc, b->cache = o->cache;
    b->emit = o->emit, b->emit_user = o->emit_user;
    b->tiered = o->tiered;
    cute_status s = CUTE_OK;
    if (!b->cu) {
        s = cute_cuda_open(&(cute_cuda_opts){.device = o->device}, &b->cu, err, n);
        b->own_cu = s == CUTE_OK;
    }
    if (s == CUTE_OK && !b->cache) {
        b->own_cache = (b->cache = cute_cache_open(NULL)) != NULL;
        if (!b->cache) s = CUTE_ERR_OOM, snprintf(err, n, "out of memory");
    }
    if (s == CUTE_OK && (s = copy_options(b, o)) != CUTE_OK) snprintf(err, n, "out of memory");
    if (s == CUTE_OK && !(b->tiers = tier_queue_new(tier_threads()))) s = CUTE_ERR_OOM, snprintf(err, n, "out of memory");
    if (s != CUTE_OK) {
        cb_destroy(b);
        return s;
    }
    snprintf(b->arch, sizeof b->arch, "%s", o->arch ? o->arch : cute_cuda_device(b->cu)->arch);
    out->vt = &cuda_vtable;
    out->self = b;
    return CUTE_OK;
}

cute_cuda *cute_cuda_backend_driver(const cute_backend *b)
{
    return b && b->vt == &cuda_vtable ? ((cuda_backend *)b->self)->cu : NULL;
}

int cute_cuda_backend_pending(const cute_backend *b)
{
    return b && b->vt == &cuda_vtable ? tier_pending(((cuda_backend *)b->self)->tiers) : 0;
}

cute_status cute_cuda_backend_wait(const cute_backend *b, char *err, size_t n)
{
    if (n) err[0] = 0;
    return b && b->vt == &cuda_vtable ? tier_wait(((cuda_backend *)b->self)->tiers, err, n) : CUTE_OK;
}
