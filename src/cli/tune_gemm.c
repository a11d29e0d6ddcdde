/* `cutec tune gemm`: the GEMM's tuner (cutec/tune.h) over the space of the family the
 * library picks on the card (cutec/gemm_tune.h).  Each worker thread has a runtime, a
 * library and inputs of its own: it compiles a candidate (NVRTC in that thread; on a GPU the
 * cubin lands in the JIT cache) and runs it on C poisoned with NaN, checking the result
 * against float64 as `cutec bench gemm` does.  The timer, on the main thread, compiles the
 * candidate again in its own library (a JIT-cache hit) and times it as the benchmark does,
 * rotating input sets so the L2 does not serve them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"
#include "cli/tune_cli.h"
#include "cutec/backend.h"
#include "cutec/gemm_tune.h"
#include "kernels/ew_ref.h"

enum { SAMPLES = 256 };

typedef struct gemm_tune {
    tune_ui ui; /* first: tune_progress reads it */
    const tune_opts *o;
    cute_tune_space space;
    cute_gemm_variant family;
    int arch;
    int major[3];
    cute_dtype out;
    int64_t mnk[3], check_mnk[3]; /* the shape tuned; the one checked (--interp: small) */
    /* the timer's runtime, library and input sets (GPU only) */
    cute_runtime *rt;
    cute_gemm_lib *lib;
    gemm_problem sets[8];
    int nsets;
} gemm_tune;

typedef struct gemm_worker {
    cute_runtime *rt;
    cute_gemm_lib *lib;
    gemm_problem p;
    void *got;
    double spill; /* --interp: ptxas's spill stores of the candidate, bytes */
} gemm_worker;

static cute_gemm_config config_at(const gemm_tune *g, const int *point)
{
    cute_gemm_config c = {.variant = g->family, .dtype = g->o->in, .c_dtype = g->out, .align_bytes = 16,
                          .tiling = cute_gemm_tune_tiling(&g->space, point)};
    memcpy(c.major, g->major, sizeof c.major);
    return c;
}

static bool gemm_valid(void *user, const int *point, char *why, size_t n)
{
    gemm_tune *g = user;
    cute_gemm_config c = config_at(g, point);
    return cute_gemm_tune_plan_ok(&c, g->arch, why, n);
}

static void *gemm_worker_new(void *user, char *err, size_t n)
{
    gemm_tune *g = user;
    gemm_worker *w = calloc(1, sizeof *w);
    if (!w || cute_runtime_new(g->o->interp ? "interp" : "cuda", &w->rt, err, n) != CUTE_OK) return free(w), NULL;
    if (g->o->interp) cute_runtime_set_target_arch(w->rt, g->o->arch);
    int64_t mnkl[4] = {g->check_mnk[0], g->check_mnk[1], g->check_mnk[2], 1};
    cute_backend *b = cute_runtime_backend(w->rt);
    w->lib = cute_gemm_lib_new(w->rt);
    bool ok = w->lib && gemm_problem_make(b, &w->p, g->o->in, g->out, mnkl, g->o->layout, 0, g->o->seed);
    if (ok) w->got = malloc(gemm_operand_bytes(&w->p.c));
    if (w->got) return w;
    snprintf(err, n, "out of memory for a %lldx%lldx%lld problem", (long long)mnkl[0], (long long)mnkl[1],
             (long long)mnkl[2]);
    gemm_problem_drop(b, &w->p);
    cute_gemm_lib_free(w->lib), cute_runtime_free(w->rt), free(w);
    return NULL;
}

static void gemm_worker_free(void *user, void *worker)
{
    (void)user;
    gemm_worker *w = worker;
    gemm_problem_drop(cute_runtime_backend(w->rt), &w->p);
    cute_gemm_lib_free(w->lib), cute_runtime_free(w->rt);
    free(w->got), free(w);
}

/* ptxas's spill stores of the library's last kernel, compiled for the target by NVRTC in
 * this thread (--interp only: a GPU's worker compiled it through NVRTC already) */
static cute_status spills(gemm_tune *g, gemm_worker *w, char *why, size_t n)
{
    int last = cute_gemm_lib_size(w->lib) - 1;
    const cute_gemm_config *cfg = cute_gemm_lib_entry(w->lib, last);
    const cute_fn *f = cfg ? cute_gemm_compile(w->rt, cfg, why, n) : NULL;
    cute_status s = f ? tune_spill_bytes(f, g->o->arch, &w->spill, why, n) : CUTE_ERR_COMPILE;
    cute_fn_free(f);
    return s;
}

/* compile (the library's first call) and run on C poisoned with NaN */
static cute_status gemm_build(void *user, void *worker, const int *point, char *why, size_t n)
{
    gemm_tune *g = user;
    gemm_worker *w = worker;
    cute_gemm_tiling t = cute_gemm_tune_tiling(&g->space, point);
    cute_gemm_lib_tiling(w->lib, &t);
    cute_backend *b = cute_runtime_backend(w->rt);
    size_t bytes = gemm_operand_bytes(&w->p.c);
    memset(w->got, 0xff, bytes); /* NaN in every float dtype */
    gemm_lib_call c = {w->lib, g->family, &w->p, 1.0, 0.0, ""};
    cute_status s = b->vt->upload(b->self, &w->p.c.buf, 0, w->got, bytes);
    if (s == CUTE_OK) s = gemm_call_lib(&c, 0);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK) return snprintf(why, n, "%.240s", c.err[0] ? c.err : b->vt->error(b->self)), s;
    return g->o->interp ? spills(g, w, why, n) : CUTE_OK;
}

/* every element (--interp) or SAMPLES of them and every one finite (a GPU), against float64 */
static cute_status gemm_check(void *user, void *worker, const int *point, double *stat, char *why, size_t n)
{
    gemm_tune *g = user;
    gemm_worker *w = worker;
    (void)point;
    cute_backend *b = cute_runtime_backend(w->rt);
    if (b->vt->download(b->self, w->got, &w->p.c.buf, 0, gemm_operand_bytes(&w->p.c)) != CUTE_OK)
        return snprintf(why, n, "download: %s", b->vt->error(b->self)), CUTE_ERR_LAUNCH;
    gemm_verdict v;
    double tol = gemm_ref_tolerance(g->o->in, g->out);
    if (g->o->interp) gemm_check_all(&w->p, w->got, 1.0, 0.0, tol, &v);
    else gemm_check_sample(&w->p, w->got, 1.0, 0.0, tol, g->o->seed, SAMPLES, &v);
    int64_t unwritten = 0;
    for (int64_t i = 0; i < w->p.c.elems; i++) unwritten += ew_get(g->out, w->got, i) != ew_get(g->out, w->got, i);
    *stat = g->o->interp ? w->spill : -1;
    if (unwritten) return snprintf(why, n, "%lld elements of C never written (NaN)", (long long)unwritten), CUTE_ERR_CHECK;
    if (v.bad)
        return snprintf(why, n, "%lld of %lld elements wrong against float64, worst at (%lld,%lld): %.6g, want %.6g",
                        (long long)v.bad, (long long)v.checked, (long long)v.wm, (long long)v.wn, v.got, v.want),
               CUTE_ERR_CHECK;
    return CUTE_OK;
}

static double gemm_time(void *user, const int *point, char *why, size_t n)
{
    gemm_tune *g = user;
    cute_gemm_tiling t = cute_gemm_tune_tiling(&g->space, point);
    cute_gemm_lib_tiling(g->lib, &t);
    gemm_lib_call c = {g->lib, g->family, g->sets, 1.0, 0.0, ""};
    double ms = gpu_time_calls(cute_cuda_backend_driver(cute_runtime_backend(g->rt)), gemm_call_lib, &c, g->nsets,
                               g->o->iters);
    if (ms < 0) snprintf(why, n, "timing failed: %.200s", c.err);
    return ms;
}

static double gemm_rate(void *user, double ms)
{
    const gemm_tune *g = user;
    return 2.0 * (double)g->mnk[0] * (double)g->mnk[1] * (double)g->mnk[2] / ms / 1e9;
}

/* the timer's input sets of the shape (a GPU) */
static bool make_sets(gemm_tune *g)
{
    cute_backend *b = cute_runtime_backend(g->rt);
    int64_t mnkl[4] = {g->mnk[0], g->mnk[1], g->mnk[2], 1};
    g->nsets = gemm_bench_sets(cute_cuda_backend_driver(b), g->o->in, g->out, 1, g->mnk);
    for (int i = 0; i < g->nsets; i++)
        if (!gemm_problem_make(b, &g->sets[i], g->o->in, g->out, mnkl, g->o->layout, 0, g->o->seed + 7 + (uint64_t)i)) {
            g->nsets = i + 1;
            return false;
        }
    return true;
}

static void drop_sets(gemm_tune *g)
{
    for (int i = 0; i < g->nsets; i++) gemm_problem_drop(cute_runtime_backend(g->rt), &g->sets[i]);
    g->nsets = 0;
}

/* one shape: its run, and its entry into e when a candidate was timed (*have) */
static int tune_one(gemm_tune *g, const int64_t mnk[3], cute_tune_entry *e, bool *have)
{
    const tune_opts *o = g->o;
    memcpy(g->mnk, mnk, sizeof g->mnk);
    for (int i = 0; i < 3; i++) g->check_mnk[i] = o->interp && mnk[i] > (i == 1 ? 264 : 136) ? (i == 1 ? 264 : 136) : mnk[i];
    cute_tuner t = {.space = &g->space, .user = g, .valid = gemm_valid, .worker_new = gemm_worker_new,
                    .worker_free = gemm_worker_free, .build = gemm_build, .check = gemm_check,
                    .time = o->interp ? NULL : gemm_time, .progress = tune_progress};
    printf("# gemm %s -> %s, layout %s (%s), %lldx%lldx%lld%s\n", cli_gemm_dtype_name(o->in), cli_gemm_dtype_name(g->out),
           o->layout, cli_gemm_major_words(o->layout), (long long)mnk[0], (long long)mnk[1], (long long)mnk[2],
           o->interp ? "" : ", timed on 2 ms batches, median");
    if (o->interp)
        printf("# checked on the interpreter at %lldx%lldx%lld against float64 (every element); not timed\n",
               (long long)g->check_mnk[0], (long long)g->check_mnk[1], (long long)g->check_mnk[2]);
    int point[CUTE_TUNE_MAX_PARAMS];
    double ms = 0;
    int rc = !o->interp && !make_sets(g) ? (printf("out of memory for the input sets\n"), CLI_FAIL) : CLI_OK;
    if (rc == CLI_OK) rc = tune_shape(o, &t, gemm_rate, "TFLOP/s", point, &ms);
    if (!o->interp) drop_sets(g);
    *have = rc == CLI_OK && ms > 0;
    if (!*have) return rc;
    cute_gemm_tiling tl = cute_gemm_tune_tiling(&g->space, point);
    memset(e, 0, sizeof *e);
    cute_tune_card(g->rt, e->card, sizeof e->card, &e->sms);
    cute_gemm_tune_key(o->in, g->out, g->major, mnk[0], mnk[1], mnk[2], e->key, sizeof e->key);
    cute_gemm_tune_config_text(g->family, &tl, e->config, sizeof e->config);
    e->ms = ms;
    printf("# fastest: %s, %.4f ms, %.1f TFLOP/s\n", e->config, ms, gemm_rate(g, ms));
    return rc;
}

/* the runtime the timer uses (a GPU), or none with --interp; the target arch */
static int open_target(gemm_tune *g)
{
    char err[1024];
    const tune_opts *o = g->o;
    if (o->interp) {
        if (cute_runtime_new("interp", &g->rt, err, sizeof err) != CUTE_OK)
            return fprintf(stderr, "cutec tune gemm: %s\n", err), CLI_FAIL;
        cute_runtime_set_target_arch(g->rt, o->arch);
    } else if (cute_runtime_new("cuda", &g->rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec tune gemm: no GPU to time the candidates on (%s); --interp compiles them for --arch "
                "and checks them on the interpreter at a small size, without timing\n", err);
        return CLI_FAIL;
    }
    g->arch = cute_runtime_target_arch(g->rt);
    g->lib = cute_gemm_lib_new(g->rt);
    return g->lib ? CLI_OK : CLI_FAIL;
}

int tune_gemm(const tune_opts *o)
{
    static gemm_tune g; /* the input sets are large for a stack frame */
    memset(&g, 0, sizeof g);
    tune_opts oo = *o;
    if (!oo.arch) oo.arch = getenv("CUTEC_ARCH") && *getenv("CUTEC_ARCH") ? getenv("CUTEC_ARCH") : "sm_90a";
    const cute_dtype *outs;
    int nouts;
    g.o = &oo;
    if (!gemm_ref_out_dtypes(o->in, &outs, &nouts))
        return fprintf(stderr, "cutec tune gemm: --dtype %s has no GEMM\n", cli_gemm_dtype_name(o->in)), CLI_USAGE;
    g.out = o->out == CUTE_VOID ? outs[0] : o->out;
    if (!gemm_ref_pair_ok(o->in, g.out))
        return fprintf(stderr, "cutec tune gemm: --out-dtype %s: %s inputs give C of %s\n", cli_gemm_dtype_name(g.out),
                       cli_gemm_dtype_name(o->in), cli_gemm_out_list(o->in)), CLI_USAGE;
    cli_gemm_layout_majors(o->layout, g.major);
    char why[512];
    int rc = open_target(&g);
    if (rc == CLI_OK && !cute_gemm_tune_space(o->in, g.arch, &g.space, &g.family, why, sizeof why))
        rc = CLI_FAIL, fprintf(stderr, "cutec tune gemm: %s\n", why);
    if (rc == CLI_OK)
        printf("# tuning %s on sm_%d: %lld points in the space, at most %d candidates (--budget), %d threads (--jobs)\n",
               cute_gemm_variant_name(g.family), g.arch, (long long)cute_tune_space_size(&g.space), o->budget, o->jobs);
    cute_tune_entry e[TUNE_MAX_SHAPES];
    int ne = 0;
    for (int i = 0; i < o->nshapes && rc == CLI_OK; i++) {
        bool have = false;
        rc = tune_one(&g, o->shapes[i], &e[ne], &have);
        ne += have;
    }
    if (rc == CLI_OK && ne) rc = tune_store(o, e, ne);
    else if (rc == CLI_OK) printf("# nothing timed: the tuning file is left as it is\n");
    cute_gemm_lib_free(g.lib);
    cute_runtime_free(g.rt);
    return rc;
}
