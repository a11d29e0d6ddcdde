/* The tracing context: errors with call sites, kernels, scopes, parameters. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"

/* the algebra's errors get the user's call site too */
static void on_alg_error(void *user, const char *message)
{
    cute_ctx *c = user;
    cute_site at = c->alg.site;
    snprintf(c->error, sizeof c->error, "%s:%d: %s", at.file ? at.file : "?", at.line, message);
}

cute_ctx *cute_ctx_new(void)
{
    cute_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->sym = cute_symbolic_new();
    if (!c->sym) {
        free(c);
        return NULL;
    }
    cute_symbolic_bind(c->sym, &c->alg);
    c->alg.on_error = on_alg_error;
    c->alg.user = c;
    return c;
}

void cute_ctx_free(cute_ctx *c)
{
    if (!c) return;
    cute_ir_func_free(c->fn);
    cute_symbolic_free(c->sym);
    free(c->bind);
    free(c->memo);
    for (uint32_t k = 0; k < c->kernel; k++) free(c->kernel_names[k]);
    free(c->kernel_names);
    free(c->orig);
    free(c);
}

cute_alg *cute_ctx_alg(cute_ctx *c) { return &c->alg; }
void *cute_ctx_user(const cute_ctx *c) { return c->user; }
bool cute_ctx_failed(const cute_ctx *c) { return c->alg.failed; }
const char *cute_ctx_error(const cute_ctx *c) { return c->alg.failed ? c->error : ""; }

void cute_ctx_site(cute_ctx *c, const char *file, int line)
{
    ctx_walk(c); /* what the previous call appended is checked at its own site */
    c->alg.site = (cute_site){file, line};
    c->b.file = file;
    c->b.line = line;
}

cute_ctx_scope cute__ctx_enter(cute_ctx *c, const char *file, int line)
{
    ctx_walk(c);
    cute_ctx_scope s = {c, cute__site_enter(&c->alg, file, line)};
    c->b.file = file;
    c->b.line = line;
    return s;
}

void cute__ctx_leave(cute_ctx_scope *s)
{
    cute_ctx *c = s->c;
    ctx_walk(c); /* the call's instructions are checked at its site */
    cute__site_leave(&s->s);
    c->b.file = c->alg.site.file;
    c->b.line = c->alg.site.line;
}

bool ctx_vfail_at(cute_ctx *c, cute_site at, const char *fmt, va_list ap)
{
    if (c->alg.failed) return false;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    cute_site here = c->alg.site;
    c->alg.site = at;
    cute_alg_fail(&c->alg, "%s", msg);
    c->alg.site = here;
    return false;
}

bool cute_ctx_fail(cute_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vfail_at(c, c->alg.site, fmt, ap);
    va_end(ap);
    return false;
}

bool ctx_ok(cute_ctx *c)
{
    if (c->alg.failed) return false;
    if (!c->fn) return cute_ctx_fail(c, "a kernel operation outside a kernel");
    if (c->b.oom) return cute_ctx_fail(c, "out of memory while tracing");
    return true;
}

bool ctx_alive(cute_ctx *c) { return !c->alg.failed; }

cute_val ctx_val(cute_ctx *c, cute_vreg r)
{
    return (cute_val){r, r ? cute_ir_type(c->fn, r) : cute_type_of(CUTE_VOID), r ? c->kernel : 0};
}

bool scope_open(const cute_ctx *c, uint32_t id)
{
    for (int d = 0; d <= c->depth; d++)
        if (c->scopes[d].id == id) return true;
    return false;
}

void ctx_bind(cute_ctx *c, cute_int sym, cute_vreg reg)
{
    int i = cute_symbolic_symbol_index(c->sym, sym);
    if (i < 0) {
        cute_ctx_fail(c, "internal: binding a value that is not a symbol");
        return;
    }
    if ((uint32_t)i >= c->capbind) {
        uint32_t cap = c->capbind ? c->capbind : 64;
        while (cap <= (uint32_t)i) cap *= 2;
        binding *b = realloc(c->bind, cap * sizeof *b);
        if (!b) {
            cute_ctx_fail(c, "out of memory");
            return;
        }
        memset(b + c->capbind, 0, (cap - c->capbind) * sizeof *b);
        c->bind = b;
        c->capbind = cap;
    }
    c->bind[i] = (binding){reg, c->scopes[c->depth].id};
    if ((uint32_t)i >= c->nbind) c->nbind = (uint32_t)i + 1;
}

/* the next kernel's serial, and its name for messages about values of another kernel */
static bool new_serial(cute_ctx *c, const char *name)
{
    char **names = realloc(c->kernel_names, (c->kernel + 1) * sizeof *names);
    if (!names) return cute_ctx_fail(c, "out of memory");
    c->kernel_names = names;
    size_t n = strlen(name) + 1;
    if (!(names[c->kernel] = malloc(n))) return cute_ctx_fail(c, "out of memory");
    memcpy(names[c->kernel], name, n);
    c->kernel++;
    return true;
}

bool cute_kernel_begin(cute_ctx *c, const char *name)
{
    if (c->alg.failed) return false;
    if (c->fn) return cute_ctx_fail(c, "kernel '%s' begun inside kernel '%s'", name, c->fn->name);
    if (!new_serial(c, name)) return false;
    c->fn = cute_ir_func_new(name);
    if (!c->fn) return cute_ctx_fail(c, "out of memory");
    cute_ir_builder_init(&c->b, c->fn);
    c->b.file = c->alg.site.file;
    c->b.line = c->alg.site.line;
    c->depth = 0;
    c->scopes[0] = (scope){++c->next_scope, true, SCOPE_TOP};
    c->nmemo = 0;
    if (c->memo) memset(c->memo, 0, c->capmemo * sizeof *c->memo);
    for (int s = 0; s < CUTE_SREG_COUNT; s++) c->sreg_sym[s] = cute_i(0);
    cute_kernel_launch_extents(c, NULL, NULL);
    c->block_threads = 0;
    c->tc05_group = 1, c->tc05_used = false;
    /* symbols of an earlier kernel have no value in this one */
    if (c->bind) memset(c->bind, 0, c->capbind * sizeof *c->bind);
    c->nbind = 0;
    ctx_walk_reset(c);
    ctx_walk(c);
    return true;
}

cute_ir_func *cute_kernel_end(cute_ctx *c)
{
    ctx_walk(c);
    cute_ir_func *f = c->fn;
    c->fn = NULL;
    if (!f) {
        cute_ctx_fail(c, "cute_kernel_end without cute_kernel_begin");
        return NULL;
    }
    if (!c->alg.failed && c->depth != 0)
        cute_ctx_fail(c, "kernel '%s' ends inside an open loop or if", f->name);
    if (!c->alg.failed && c->b.oom) cute_ctx_fail(c, "out of memory while tracing");
    if (!c->alg.failed) {
        char err[1024];
        int rc = cute_ir_verify(f, err, sizeof err);
        if (rc == CUTE_IR_VERIFY_MISUSE) /* the kernel's own mistake, at its call site */
            cute_ctx_fail(c, "%s", err);
        else if (rc != 0)
            cute_ctx_fail(c, "internal: the traced IR does not verify: %s", err);
    }
    if (c->alg.failed) {
        cute_ir_func_free(f);
        return NULL;
    }
    return f;
}

cute_int cute_param_int(cute_ctx *c, const char *name, int64_t div, int64_t lower_bound)
{
    if (!ctx_ok(c)) return cute_i(0);
    cute_vreg r = cute_ir_add_param(c->fn, cute_type_of(CUTE_I64), name);
    cute_int x = cute_symbolic_symbol(c->sym, name, div, lower_bound);
    if (c->index_bound) /* a kernel parameter is an argument's value: the promise holds */
        cute_symbolic_tighten(c->sym, cute_symbolic_symbol_index(c->sym, x), -c->index_bound,
                              c->index_bound);
    ctx_bind(c, x, r);
    return x;
}

void cute_index_bound(cute_ctx *c, int64_t bound)
{
    if (c->alg.failed) return;
    if (c->fn) {
        cute_ctx_fail(c, "cute_index_bound belongs in the host function, before its launches");
        return;
    }
    if (bound < 1 || bound > INT32_MAX) {
        cute_ctx_fail(c, "cute_index_bound: %lld (1 to 2^31 - 1)", (long long)bound);
        return;
    }
    c->index_bound = bound;
    /* every symbol so far is an argument's: narrow them all */
    for (int i = 0; i < cute_symbolic_nsymbols(c->sym); i++)
        cute_symbolic_tighten(c->sym, i, -bound, bound);
}

int64_t cute_ctx_index_bound(const cute_ctx *c) { return c->index_bound; }

void cute_kernel_launch_extents(cute_ctx *c, const int64_t grid_max[3], const int64_t block_max[3])
{
    for (int d = 0; d < 3; d++) {
        c->grid_max[d] = grid_max ? grid_max[d] : 0;
        c->block_max[d] = block_max ? block_max[d] : 0;
    }
}

void cute_ctx_target_arch(cute_ctx *c, int sm) { c->target_sm = sm > 0 ? sm : 0; }
int cute_ctx_arch(const cute_ctx *c) { return c->target_sm; }
void cute_ctx_target_interp(cute_ctx *c, bool interp) { c->target_interp = interp; }
bool cute_ctx_on_interp(const cute_ctx *c) { return c->target_interp; }
void cute_kernel_block_threads(cute_ctx *c, int64_t threads) { c->block_threads = threads > 0 ? threads : 0; }
int64_t cute_ctx_block_threads(const cute_ctx *c) { return c->block_threads; }

cute_val cute_param_ptr(cute_ctx *c, const char *name, cute_dtype pointee)
{
    if (!ctx_ok(c)) return (cute_val){0, cute_type_of(CUTE_VOID), 0};
    return ctx_val(c, cute_ir_add_param(c->fn, cute_type_ptr(pointee, CUTE_GMEM), name));
}
