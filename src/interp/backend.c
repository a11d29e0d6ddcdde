/* The interpreter behind the backend vtable: options, buffers of host memory, compile. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "env/env_known.h"
#include "interp/interp_internal.h"

static struct interp *me(void *self) { return self; }

/* this thread's copy of the last message: another thread's failure may replace B->err */
static const char *error(void *self)
{
    static _Thread_local char copy[2048];
    struct interp *B = me(self);
    pthread_mutex_lock(&B->lock);
    snprintf(copy, sizeof copy, "%s", B->err ? B->err : "");
    pthread_mutex_unlock(&B->lock);
    return copy;
}

/* --- buffers (their table: buffers.c) --------------------------------------------------- */

bool interp_backend_holds(const struct interp *B, uint64_t addr, uint64_t bytes)
{
    for (int i = 0; i < B->nbufs; i++) {
        uint64_t base = (uint64_t)(uintptr_t)B->bufs[i].ptr;
        if (addr >= base && addr - base <= B->bufs[i].bytes && bytes <= B->bufs[i].bytes - (addr - base))
            return true;
    }
    return false;
}

static cute_status alloc_locked(void *self, size_t bytes, cute_buffer *out)
{
    struct interp *B = me(self);
    memset(out, 0, sizeof *out);
    if (bytes > SIZE_MAX - 2 * INTERP_GUARD) return CUTE_ERR_OOM;
    if (B->nbufs == B->cbufs) {
        int nc = B->cbufs ? B->cbufs * 2 : 16;
        ibuffer *p = realloc(B->bufs, (size_t)nc * sizeof *p);
        if (!p) return CUTE_ERR_OOM;
        B->bufs = p;
        B->cbufs = nc;
    }
    void *raw = NULL;
    if (posix_memalign(&raw, INTERP_GUARD, bytes + 2 * INTERP_GUARD) != 0) {
        interp_set_error(B, "out of memory allocating %zu bytes", bytes);
        return CUTE_ERR_OOM;
    }
    memset(raw, 0, bytes + 2 * INTERP_GUARD);
    ibuffer *b = &B->bufs[B->nbufs++];
    *b = (ibuffer){++B->next_id, raw, (uint8_t *)raw + INTERP_GUARD, bytes};
    out->ptr = b->ptr;
    out->bytes = bytes;
    out->id = b->id;
    return CUTE_OK;
}

static void free_locked(void *self, cute_buffer *buf)
{
    struct interp *B = me(self);
    if (!buf || !buf->ptr) return;
    for (int i = 0; i < B->nbufs; i++)
        if (B->bufs[i].ptr == buf->ptr) {
            free(B->bufs[i].raw);
            B->bufs[i] = B->bufs[--B->nbufs];
            break;
        }
    buf->ptr = NULL;
    buf->bytes = 0;
}

static cute_status copy_check(struct interp *B, const cute_buffer *buf, size_t off, size_t n,
                              const ibuffer **out)
{
    const ibuffer *b = buf ? interp_backend_buffer(B, buf->ptr) : NULL;
    if (!b) {
        interp_set_error(B, "not a buffer of this interpreter");
        return CUTE_ERR_INVALID;
    }
    if (off > b->bytes || n > b->bytes - off) {
        interp_set_error(B, "copy of %zu bytes at offset %zu: buffer %llu has %zu bytes", n, off,
                         (unsigned long long)b->id, b->bytes);
        return CUTE_ERR_INVALID;
    }
    *out = b;
    return CUTE_OK;
}

static cute_status upload_locked(void *self, cute_buffer *dst, size_t off, const void *src, size_t n)
{
    const ibuffer *b;
    cute_status s = copy_check(me(self), dst, off, n, &b);
    if (s == CUTE_OK && n) memcpy(b->ptr + off, src, n);
    return s;
}

static cute_status download_locked(void *self, void *dst, const cute_buffer *src, size_t off, size_t n)
{
    const ibuffer *b;
    cute_status s = copy_check(me(self), src, off, n, &b);
    if (s == CUTE_OK && n) memcpy(dst, b->ptr + off, n);
    return s;
}

static cute_status sync(void *self, void *stream)
{
    (void)self, (void)stream; /* launches are synchronous */
    return CUTE_OK;
}

/* --- compile ------------------------------------------------------------------------------ */

static bool supports_op(void *self, const cute_ir_inst *inst)
{
    (void)self;
    switch (cute_op_group_of((cute_op)inst->op)) {
    case CUTE_GROUP_ASM: return false; /* PTX text: the GPU's alone */
    case CUTE_GROUP_INST: return interp_inst_row(inst->imm2) != NULL;
    default: return inst->op < CUTE_OP_COUNT;
    }
}

static void module_free(void *self, cute_module *m)
{
    (void)self;
    if (!m) return;
    for (int i = 0; i < m->n; i++) interp_prog_free(m->k[i]);
    free(m->k);
    free(m);
}

static cute_status compile_locked(void *self, cute_ir_func *const *kernels, int n, cute_module **out,
                           const char **log)
{
    struct interp *B = me(self);
    *out = NULL;
    B->log[0] = 0;
    if (log) *log = B->log;
    cute_module *m = calloc(1, sizeof *m);
    if (!m || !(m->k = calloc(n > 0 ? (size_t)n : 1, sizeof *m->k))) {
        free(m);
        return CUTE_ERR_OOM;
    }
    for (int i = 0; i < n; i++) {
        cute_status s = interp_compile_one(kernels[i], &m->k[i], B->log, sizeof B->log);
        if (s != CUTE_OK) {
            interp_set_error(B, "%s", B->log);
            module_free(self, m);
            return s;
        }
        m->n = i + 1;
    }
    *out = m;
    return CUTE_OK;
}

static cute_status launch_locked(void *self, cute_module *m, int kernel, const cute_launch *cfg,
                          const cute_launch_arg *args, int nargs)
{
    struct interp *B = me(self);
    if (!m || kernel < 0 || kernel >= m->n || !cfg) {
        interp_set_error(B, "launch: no kernel %d in this module", kernel);
        return CUTE_ERR_INVALID;
    }
    return interp_launch(B, m->k[kernel], cfg, args, nargs);
}

/* --- the vtable: each entry holds the lock ----------------------------------------------- */

#define LOCKED(call)                                                                       \
    do {                                                                                   \
        pthread_mutex_lock(&me(self)->lock);                                               \
        cute_status s_ = (call);                                                           \
        pthread_mutex_unlock(&me(self)->lock);                                             \
        return s_;                                                                         \
    } while (0)

static cute_status alloc(void *self, size_t bytes, cute_buffer *out)
{
    LOCKED(alloc_locked(self, bytes, out));
}

static void free_(void *self, cute_buffer *buf)
{
    pthread_mutex_lock(&me(self)->lock);
    free_locked(self, buf);
    pthread_mutex_unlock(&me(self)->lock);
}

static cute_status upload(void *self, cute_buffer *dst, size_t off, const void *src, size_t n)
{
    LOCKED(upload_locked(self, dst, off, src, n));
}

static cute_status download(void *self, void *dst, const cute_buffer *src, size_t off, size_t n)
{
    LOCKED(download_locked(self, dst, src, off, n));
}

static cute_status compile(void *self, cute_ir_func *const *kernels, int n, cute_module **out,
                           const char **log)
{
    static _Thread_local char copy[1024]; /* the log, kept from other threads' compiles */
    pthread_mutex_lock(&me(self)->lock);
    cute_status s = compile_locked(self, kernels, n, out, log);
    snprintf(copy, sizeof copy, "%s", me(self)->log);
    pthread_mutex_unlock(&me(self)->lock);
    if (log) *log = copy;
    return s;
}

static cute_status launch(void *self, cute_module *m, int kernel, const cute_launch *cfg,
                          const cute_launch_arg *args, int nargs)
{
    struct interp *B = me(self);
    pthread_mutex_lock(&B->lock);
    cute_status s = launch_locked(self, m, kernel, cfg, args, nargs);
    if (s != CUTE_OK && cfg && cfg->err && cfg->errn) /* the caller's copy, before another's */
        snprintf(cfg->err, cfg->errn, "%s", B->err ? B->err : "");
    pthread_mutex_unlock(&B->lock);
    return s;
}

static void destroy(void *self)
{
    struct interp *B = me(self);
    if (!B) return;
    for (int i = 0; i < B->nbufs; i++) free(B->bufs[i].raw);
    free(B->bufs);
    free(B->err);
    free(B->reps);
    free(B->bank_sites);
    pthread_mutex_destroy(&B->lock);
    free(B);
}

static const cute_backend_vtable vt = {
    CUTE_BACKEND_VERSION, "interp", supports_op, compile, module_free, launch,
    alloc,                free_,    upload,      download, sync,       error, destroy,
};

/* --- options ------------------------------------------------------------------------------ */

static int64_t env_int(const char *name, int64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    double v = strtod(s, &end); /* "1e8" is welcome */
    return *end || v < 1 ? dflt : (int64_t)v;
}

static void env_trace(struct interp *B)
{
    const char *s = getenv("CUTEC_INTERP_TRACE");
    unsigned v[6] = {0};
    if (!s || !*s) return;
    int end = 0; /* where the parse stopped: the whole value, or it is not one of the forms */
    bool six = sscanf(s, "%u,%u,%u:%u,%u,%u%n", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) == 6 && !s[end];
    end = 0;
    bool two = !six && sscanf(s, "%u:%u%n", &v[0], &v[3], &end) == 2 && !s[end];
    if (!six && !two) {
        char msg[160];
        snprintf(msg, sizeof msg, "CUTEC_INTERP_TRACE=%.64s: not bx,by,bz:tx,ty,tz or bx:tx", s);
        cute_env_warn_once("CUTEC_INTERP_TRACE", msg, "no trace");
        return;
    }
    B->trace_out = stderr;
    B->trace_block = (cute_dim3){v[0], v[1], v[2]};
    B->trace_thread = (cute_dim3){v[3], v[4], v[5]};
}

/* $CUTEC_INTERP_TRY_WAIT: "false", or a seed, where the options say nothing */
static void env_try_wait(cute_interp_opts *o)
{
    const char *s = getenv("CUTEC_INTERP_TRY_WAIT");
    if (o->try_wait_false || o->try_wait_seed || !s || !*s) return;
    char *end;
    if (!strcmp(s, "false")) o->try_wait_false = true;
    else if (o->try_wait_seed = strtoull(s, &end, 0), *end) {
        char msg[160];
        snprintf(msg, sizeof msg, "CUTEC_INTERP_TRY_WAIT=%.64s: not false or a seed (an integer)", s);
        cute_env_warn_once("CUTEC_INTERP_TRY_WAIT", msg, "neither (try_wait waits and answers true)");
        o->try_wait_seed = 0;
    }
}

cute_status cute_interp_new(const cute_interp_opts *opts, cute_backend *out)
{
    cute_interp_opts o = {0};
    if (opts) o = *opts;
    cute_env_warn_unknown();
    struct interp *B = calloc(1, sizeof *B);
    out->vt = NULL;
    out->self = NULL;
    if (!B) return CUTE_ERR_OOM;
    pthread_mutex_init(&B->lock, NULL);
    B->threads = o.threads > 0 ? o.threads : (int)env_int("CUTEC_INTERP_THREADS", 1);
    if (B->threads > 256) B->threads = 256;
    B->budget = o.step_budget > 0 ? o.step_budget : env_int("CUTEC_INTERP_STEPS", 100000000);
    B->max_reports = o.max_reports;
    B->disable = o.disable;
    B->printf_out = o.printf_out;
    B->trace_out = o.trace_out;
    B->trace_block = o.trace_block;
    B->trace_thread = o.trace_thread;
    if (!B->trace_out) env_trace(B);
    env_try_wait(&o);
    B->try_wait_false = o.try_wait_false;
    B->try_wait_seed = o.try_wait_seed;
    B->banks = o.bank_conflicts || env_int("CUTEC_BANK_CONFLICTS", 0) > 0;
    if (!o.bank_conflicts && env_int("CUTEC_BANK_CONFLICTS", 0) > 0) B->banks_out = stderr;
    out->vt = &vt;
    out->self = B;
    return CUTE_OK;
}

bool cute_interp_last_stats(cute_backend b, cute_interp_stats *out)
{
    memset(out, 0, sizeof *out);
    if (b.vt != &vt || !b.self) return false;
    struct interp *B = b.self;
    pthread_mutex_lock(&B->lock); /* a launch on another thread writes them */
    *out = B->stats;
    pthread_mutex_unlock(&B->lock);
    return true;
}

const cute_interp_bank_site *cute_interp_bank_sites(cute_backend b, int *n)
{
    *n = 0;
    if (b.vt != &vt || !b.self) return NULL;
    struct interp *B = b.self;
    *n = B->nbank_sites;
    return B->nbank_sites ? B->bank_sites : NULL;
}

const cute_interp_report *cute_interp_reports(cute_backend b, int *n)
{
    *n = 0;
    if (b.vt != &vt || !b.self) return NULL;
    struct interp *B = b.self;
    *n = B->nreps;
    return B->nreps ? B->reps : NULL;
}

cute_status cute_interp_launch_peers(cute_backend b, cute_module *m, int kernel, const cute_launch *cfg,
                                     int nranks, const cute_launch_arg *args, int nargs)
{
    if (b.vt != &vt || !b.self) return CUTE_ERR_INVALID;
    struct interp *B = b.self;
    pthread_mutex_lock(&B->lock);
    cute_status s = CUTE_ERR_INVALID;
    if (!m || kernel < 0 || kernel >= m->n || !cfg || nranks < 1 || nranks > 64)
        interp_set_error(B, "launch on %d emulated devices: no kernel %d in this module, or not 1 to 64 "
                         "devices", nranks, kernel);
    else
        s = interp_launch_group(B, m->k[kernel], cfg, nranks, args, nargs);
    if (s != CUTE_OK && cfg && cfg->err && cfg->errn)
        snprintf(cfg->err, cfg->errn, "%s", B->err ? B->err : "");
    pthread_mutex_unlock(&B->lock);
    return s;
}
