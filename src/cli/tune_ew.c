/* `cutec tune elementwise`: seed 003's autotuned elementwise example with cutec's tuner:
 * threads per block and 16-byte vectors per thread of an elementwise op (cute_ew_config),
 * each candidate compiled on a worker, checked element by element against the CPU
 * reference, timed on the main thread, the fastest kept in the tuning file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"
#include "cli/tune_cli.h"
#include "cutec/backend.h"
#include "kernels/ew_ref.h"

typedef struct ew_buffers {
    cute_buffer buf[3]; /* a, b, out */
    void *host[3];
    int64_t n;
} ew_buffers;

typedef struct ew_tune {
    tune_ui ui; /* first: tune_progress reads it */
    const tune_opts *o;
    cute_tune_space space;
    int64_t n, check_n;
    cute_runtime *rt; /* the timer's (a GPU) */
    ew_buffers timed;
} ew_tune;

typedef struct ew_worker {
    cute_runtime *rt;
    ew_buffers x;
    const cute_fn *f; /* the candidate built last */
    double spill;     /* --interp: its spill-store bytes for the target */
} ew_worker;

static cute_call_arg arg_of(const ew_buffers *x, int i, cute_dtype d)
{
    return cute_call_tensor(&x->buf[i], 0, d, 1, (int64_t[]){x->n}, (int64_t[]){1});
}

static bool buffers_make(cute_runtime *rt, ew_buffers *x, cute_dtype d, int64_t n, uint64_t seed)
{
    cute_backend *b = cute_runtime_backend(rt);
    size_t bytes = (size_t)n * (size_t)cute_dtype_bytes(d);
    memset(x, 0, sizeof *x);
    x->n = n;
    for (int i = 0; i < 3; i++) {
        if (!(x->host[i] = malloc(bytes)) || b->vt->alloc(b->self, bytes, &x->buf[i]) != CUTE_OK) return false;
        for (int64_t k = 0; k < n && i < 2; k++) ew_set(d, x->host[i], k, ew_random(&seed));
        if (i < 2 && b->vt->upload(b->self, &x->buf[i], 0, x->host[i], bytes) != CUTE_OK) return false;
    }
    return true;
}

static void buffers_drop(cute_runtime *rt, ew_buffers *x)
{
    cute_backend *b = cute_runtime_backend(rt);
    for (int i = 0; i < 3; i++) {
        if (x->buf[i].ptr) b->vt->free(b->self, &x->buf[i]);
        free(x->host[i]);
    }
    memset(x, 0, sizeof *x);
}

static cute_ew_config config_at(const int *point)
{
    cute_ew_config c = {.threads = point[0], .vectors = point[1]};
    return c;
}

static const cute_fn *compile_at(const ew_tune *g, cute_runtime *rt, const ew_buffers *x, const int *point,
                                 char *why, size_t n)
{
    cute_dtype d = g->o->in;
    cute_call_arg in[2] = {arg_of(x, 0, d), arg_of(x, 1, d)}, out = arg_of(x, 2, d);
    cute_ew_config cfg = config_at(point);
    return cute_ew_compile(rt, "ew_tune", cute_ew_op_expr, (void *)(intptr_t)g->o->op, cute_ew_op_arity(g->o->op), in,
                           &out, &cfg, why, n);
}

static void *ew_worker_new(void *user, char *err, size_t n)
{
    ew_tune *g = user;
    ew_worker *w = calloc(1, sizeof *w);
    if (!w || cute_runtime_new(g->o->interp ? "interp" : "cuda", &w->rt, err, n) != CUTE_OK) return free(w), NULL;
    if (g->o->interp) cute_runtime_set_target_arch(w->rt, g->o->arch);
    if (buffers_make(w->rt, &w->x, g->o->in, g->check_n, g->o->seed)) return w;
    snprintf(err, n, "out of memory for %lld elements", (long long)g->check_n);
    buffers_drop(w->rt, &w->x);
    cute_runtime_free(w->rt), free(w);
    return NULL;
}

static void ew_worker_free(void *user, void *worker)
{
    (void)user;
    ew_worker *w = worker;
    cute_fn_free(w->f);
    buffers_drop(w->rt, &w->x);
    cute_runtime_free(w->rt), free(w);
}

static cute_status ew_build(void *user, void *worker, const int *point, char *why, size_t n)
{
    ew_worker *w = worker;
    cute_fn_free(w->f);
    w->f = compile_at(user, w->rt, &w->x, point, why, n);
    if (!w->f) return CUTE_ERR_COMPILE;
    const ew_tune *g = user;
    return g->o->interp ? tune_spill_bytes(w->f, g->o->arch, &w->spill, why, n) : CUTE_OK; /* NVRTC for the target */
}

/* out poisoned with NaN, one call, every element against the CPU reference */
static cute_status ew_check(void *user, void *worker, const int *point, double *stat, char *why, size_t n)
{
    ew_tune *g = user;
    ew_worker *w = worker;
    cute_dtype d = g->o->in, ct = ew_compute_type(g->o->op, d);
    cute_backend *b = cute_runtime_backend(w->rt);
    size_t bytes = (size_t)w->x.n * (size_t)cute_dtype_bytes(d);
    (void)point;
    *stat = g->o->interp ? w->spill : -1;
    memset(w->x.host[2], 0xff, bytes);
    cute_call_arg in[2] = {arg_of(&w->x, 0, d), arg_of(&w->x, 1, d)}, out = arg_of(&w->x, 2, d);
    cute_status s = b->vt->upload(b->self, &w->x.buf[2], 0, w->x.host[2], bytes);
    if (s == CUTE_OK) s = cute_ew_call(w->f, NULL, cute_ew_op_arity(g->o->op), in, &out, why, n);
    if (s == CUTE_OK) s = b->vt->download(b->self, w->x.host[2], &w->x.buf[2], 0, bytes);
    if (s != CUTE_OK) return s;
    for (int64_t i = 0; i < w->x.n; i++) {
        double want = ew_ref(g->o->op, ct, ew_get(d, w->x.host[0], i), ew_get(d, w->x.host[1], i));
        uint64_t rounded = 0; /* the reference rounded to the output's dtype, as the kernel stores it */
        ew_set(d, &rounded, 0, want);
        want = ew_get(d, &rounded, 0);
        double got = ew_get(d, w->x.host[2], i), tol = ew_tolerance(g->o->op, d) * fmax(1, fabs(want));
        if (got != want && !(fabs(got - want) <= tol))
            return snprintf(why, n, "element %lld: %.9g, want %.9g", (long long)i, got, want), CUTE_ERR_CHECK;
    }
    return CUTE_OK;
}

typedef struct ew_timed_call {
    const cute_fn *f;
    const ew_tune *g;
} ew_timed_call;

static cute_status ew_call_timed(void *user, int set)
{
    ew_timed_call *c = user;
    const ew_buffers *x = &c->g->timed;
    cute_dtype d = c->g->o->in;
    cute_call_arg in[2] = {arg_of(x, 0, d), arg_of(x, 1, d)}, out = arg_of(x, 2, d);
    (void)set;
    return cute_ew_call(c->f, NULL, cute_ew_op_arity(c->g->o->op), in, &out, NULL, 0);
}

/* compiled again on the timer's runtime (a JIT-cache hit), then timed */
static double ew_time(void *user, const int *point, char *why, size_t n)
{
    ew_tune *g = user;
    ew_timed_call c = {compile_at(g, g->rt, &g->timed, point, why, n), g};
    double ms = c.f ? gpu_time_calls(cute_cuda_backend_driver(cute_runtime_backend(g->rt)), ew_call_timed, &c, 1,
                                     g->o->iters)
                    : -1;
    cute_fn_free(c.f);
    return ms;
}

static double ew_rate(void *user, double ms)
{
    const ew_tune *g = user;
    int64_t moved = (cute_ew_op_arity(g->o->op) + 1) * g->n * cute_dtype_bytes(g->o->in);
    return (double)moved / ms / 1e6;
}

static void ew_space(cute_tune_space *s)
{
    static const int threads[] = {256, 128, 512, 1024, 64}, vectors[] = {4, 1, 2, 8};
    memset(s, 0, sizeof *s);
    cute_tune_space_add(s, "threads", 5, threads, NULL);
    cute_tune_space_add(s, "vectors", 4, vectors, NULL);
}

static int tune_one(ew_tune *g, int64_t n, cute_tune_entry *e, bool *have)
{
    const tune_opts *o = g->o;
    g->n = n, g->check_n = o->interp && n > 4099 ? 4099 : n;
    cute_tuner t = {.space = &g->space, .user = g, .worker_new = ew_worker_new, .worker_free = ew_worker_free,
                    .build = ew_build, .check = ew_check, .time = o->interp ? NULL : ew_time, .progress = tune_progress};
    printf("# elementwise %s, %s, %lld elements%s\n", cute_ew_op_name(o->op), cute_dtype_name(o->in), (long long)n,
           o->interp ? " (checked on the interpreter at 4099 at most; not timed)" : "");
    int point[CUTE_TUNE_MAX_PARAMS];
    double ms = 0;
    int rc = o->interp || buffers_make(g->rt, &g->timed, o->in, n, o->seed + 7) ? CLI_OK : CLI_FAIL;
    if (rc == CLI_OK) rc = tune_shape(o, &t, ew_rate, "GB/s", point, &ms);
    else printf("out of memory for %lld elements\n", (long long)n);
    if (!o->interp) buffers_drop(g->rt, &g->timed);
    *have = rc == CLI_OK && ms > 0;
    if (!*have) return rc;
    memset(e, 0, sizeof *e);
    cute_tune_card(g->rt, e->card, sizeof e->card, &e->sms);
    snprintf(e->key, sizeof e->key, "elementwise %s %s %lld", cute_ew_op_name(o->op), cute_dtype_name(o->in), (long long)n);
    snprintf(e->config, sizeof e->config, "threads=%d vectors=%d", point[0], point[1]);
    e->ms = ms;
    printf("# fastest: %s, %.4f ms, %.1f GB/s\n", e->config, ms, ew_rate(g, ms));
    return rc;
}

int tune_elementwise(const tune_opts *o)
{
    ew_tune g = {.o = o};
    char err[1024];
    tune_opts oo = *o;
    if (!oo.arch) oo.arch = "sm_90a";
    g.o = &oo;
    ew_space(&g.space);
    if (cute_runtime_new(o->interp ? "interp" : "cuda", &g.rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec tune elementwise: %s%s\n", o->interp ? "" : "no GPU to time the candidates on: ", err);
        if (!o->interp) fprintf(stderr, "  (--interp checks them on the interpreter, without timing)\n");
        return CLI_FAIL;
    }
    cute_tune_entry e[TUNE_MAX_SHAPES];
    int ne = 0, rc = CLI_OK;
    for (int i = 0; i < o->nshapes && rc == CLI_OK; i++) {
        bool have = false;
        rc = tune_one(&g, o->shapes[i][0], &e[ne], &have);
        ne += have;
    }
    if (rc == CLI_OK && ne) rc = tune_store(o, e, ne);
    cute_runtime_free(g.rt);
    return rc;
}
