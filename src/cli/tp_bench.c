/* cutec bench tp-gemm [--mode row|column|both] [--m M] [--n N] [--k K] [--chunks J]
 *                     [--gpus N] [--iters N] [--rest MS] [--dtype bf16|e4m3] [--order events|flags|fused]
 *                     [--c-major row|column] [--pieces plan|library] [--chunk-rows R[xN],...]
 *                     [GEMM tiling options] [--also "SCHEDULE OPTIONS"]...
 * Tensor-parallel GEMM (bf16 or e4m3 in, f32 accumulation, bf16 out) over the GPUs of this host: the overlapped schedules of
 * tp_plans.c against cuBLAS GEMM then NCCL (and cutec's GEMM then NCCL) in the same run,
 * the overlapped result checked against the baseline's, and the scale model fitted to what
 * was measured (tp_model.c).  Row parallel: C = A B^T with K split and C all-reduced
 * (default 8192 x 8192 x 16384, chunks halving toward the end); column parallel: A's rows
 * all-gathered and B's rows split (default 8192 x 8192 x 8192).  Each --also is one more
 * schedule, checked the same way; every schedule is timed in turns with the baseline (alone:
 * the two alternate).  --rest MS: every timing of the turns starts after MS ms of idle GPUs,
 * so that both sides run as bursts on a rested card (boost clocks) instead of on a card held
 * at its power cap by the timing before. */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cutec/gemm_tune.h"
#include "cutec/numeric.h"
#include "gpu_timing.h"
#include "tp.h"

enum { TP_FORMS = 12, TP_TURNS = 3 };

/* one overlapped schedule's options: the command line's, and each --also's */
typedef struct tp_form_opts {
    bool flags;    /* --order flags: the overlapped pieces ordered in the kernels */
    bool fused;    /* --order fused: row parallel's all-reduce in the GEMMs' epilogues */
    char c_major;  /* --c-major row|column ('r', 'c'; 0: column for the row schedule's events,
                      row for the others): 'c' runs cutec's GEMMs as C^T = B A^T */
    bool library;  /* --pieces library (the default): the overlapped GEMMs in the library's
                      tiling for the whole local GEMM; plan: the kernels' own defaults */
    int chunks;    /* --chunks: equal row chunks (0: tp_chunks_halving's, where M has them) */
    int64_t rows[TP_MAX_CHUNKS]; /* --chunk-rows: these instead (nrows of them) */
    int nrows;
    cute_gemm_tiling tiling; /* --tile, --cluster, --store ... (gemm_tiling.c): on top of it */
} tp_form_opts;

typedef struct tp_opts {
    int modes; /* bit 0 row, bit 1 column */
    int64_t m, n, k; /* 0: the mode's default */
    int gpus, iters;
    int rest_ms;   /* --rest: idle ms before each timing of the turns (0: none) */
    cute_dtype in; /* A's and B's dtype */
    tp_form_opts form[TP_FORMS]; /* [0] the command line's; more, timed in turns with it */
    int forms;
} tp_opts;

static const tp_form_opts default_form = {.library = true};

/* an option of one schedule (into f); *known false where k is none */
static bool form_option(const char *k, const char *v, tp_form_opts *f, bool *known, char *why, size_t n)
{
    int64_t x = 0;
    bool ok = true;
    *known = true;
    if (!strcmp(k, "--order")) {
        f->fused = !strcmp(v, "fused"), f->flags = f->fused || !strcmp(v, "flags");
        if (!(ok = f->flags || !strcmp(v, "events"))) snprintf(why, n, "--order %s: events, flags or fused", v);
    } else if (!strcmp(k, "--c-major")) {
        f->c_major = !strcmp(v, "column") ? 'c' : !strcmp(v, "row") ? 'r' : 0;
        if (!(ok = f->c_major != 0)) snprintf(why, n, "--c-major %s: row or column", v);
    } else if (!strcmp(k, "--pieces")) {
        f->library = !strcmp(v, "library");
        if (!(ok = f->library || !strcmp(v, "plan"))) snprintf(why, n, "--pieces %s: plan or library", v);
    } else if (!strcmp(k, "--chunks")) {
        ok = cli_int(v, 2, TP_MAX_CHUNKS, &x, why, n), f->chunks = (int)x;
    } else if (!strcmp(k, "--chunk-rows")) {
        ok = tp_chunks_parse(v, f->rows, &f->nrows, why, n);
    } else {
        ok = cli_gemm_tiling_option(k, v, &f->tiling, known, why, n);
    }
    return ok;
}

/* --also "OPTS": one more schedule of the options in OPTS (words split at spaces), from the
 * defaults (events, the default C layout and chunks, the library's pieces), not the command line's */
static bool also(const char *text, tp_form_opts *f, char *why, size_t n)
{
    char buf[512], *words[32];
    int count = 0;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *w = strtok(buf, " "); w && count < 32; w = strtok(NULL, " ")) words[count++] = w;
    *f = default_form;
    for (int i = 0; i < count; i += 2) {
        bool known;
        if (i + 1 == count) return snprintf(why, n, "--also \"%s\": %s needs a value", text, words[i]), false;
        bool ok = form_option(words[i], words[i + 1], f, &known, why, n);
        if (!known) return snprintf(why, n, "--also \"%s\": %s is not a schedule's option", text, words[i]), false;
        if (!ok) return false;
    }
    return true;
}

static int parse(int argc, char **argv, tp_opts *o)
{
    *o = (tp_opts){.modes = 3, .iters = 10, .in = CUTE_BF16, .form = {default_form}, .forms = 1};
    char why[256] = "";
    for (int i = 2; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x = 0;
        bool ok = v != NULL;
        if (!v) snprintf(why, sizeof why, "%s needs a value", k);
        else if (!strcmp(k, "--mode")) {
            o->modes = !strcmp(v, "row") ? 1 : !strcmp(v, "column") ? 2 : !strcmp(v, "both") ? 3 : 0;
            if (!(ok = o->modes != 0)) snprintf(why, sizeof why, "--mode %s: row, column or both", v);
        } else if (!strcmp(k, "--m") || !strcmp(k, "--n") || !strcmp(k, "--k")) {
            ok = cli_int(v, 256, 65536, &x, why, sizeof why);
            *(k[2] == 'm' ? &o->m : k[2] == 'n' ? &o->n : &o->k) = x;
        } else if (!strcmp(k, "--dtype")) {
            o->in = !strcmp(v, "bf16") ? CUTE_BF16 : !strcmp(v, "e4m3") ? CUTE_E4M3 : CUTE_VOID;
            if (!(ok = o->in != CUTE_VOID)) snprintf(why, sizeof why, "--dtype %s: bf16 or e4m3", v);
        } else if (!strcmp(k, "--gpus")) {
            ok = cli_int(v, 2, TP_MAX, &x, why, sizeof why), o->gpus = (int)x;
        } else if (!strcmp(k, "--iters")) {
            ok = cli_int(v, 1, 1000, &x, why, sizeof why), o->iters = (int)x;
        } else if (!strcmp(k, "--rest")) {
            ok = cli_int(v, 0, 10000, &x, why, sizeof why), o->rest_ms = (int)x;
        } else if (!strcmp(k, "--also")) {
            if (!(ok = o->forms < TP_FORMS)) snprintf(why, sizeof why, "--also: at most %d schedules", TP_FORMS);
            else ok = also(v, &o->form[o->forms++], why, sizeof why);
        } else {
            bool known;
            ok = form_option(k, v, &o->form[0], &known, why, sizeof why);
            if (!known) snprintf(why, sizeof why, "unknown option %s", k);
            ok = ok && known;
        }
        if (!ok) return fprintf(stderr, "cutec bench tp-gemm: %s\n", why), CLI_USAGE;
    }
    return CLI_OK;
}

static cute_status sync_all(tp_group *g);

/* --- the GPUs, their buffers, random bf16 inputs -------------------------------------------- */

static uint16_t bf16_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static float float_of(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* bytes of uniform values in [-1, 1) of dtype d (bf16 or e4m3) into b at off, from seed */
static cute_status fill(tp_rank *x, const cute_buffer *b, size_t off, size_t bytes, cute_dtype d, uint64_t seed)
{
    uint8_t *h = malloc(bytes);
    if (!h) return CUTE_ERR_OOM;
    for (size_t i = 0; i < bytes / (d == CUTE_E4M3 ? 1 : 2); i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        float v = (float)(seed >> 40) / 8388608.0f - 1.0f;
        if (d == CUTE_E4M3) h[i] = cute_f32_to_e4m3(v);
        else ((uint16_t *)h)[i] = bf16_of(v);
    }
    cute_status s = cute_cuda_copy_htod(x->cu, (cute_devptr)(uintptr_t)b->ptr + off, h, bytes);
    free(h);
    return s;
}

/* elems elements of es bytes, poisoned: 0xff bytes are a NaN in bf16 and in e4m3, so what is
 * never written shows */
static cute_status alloc(tp_rank *x, cute_buffer *b, int64_t elems, int es)
{
    cute_backend *be = cute_runtime_backend(x->rt);
    cute_status s = be->vt->alloc(be->self, (size_t)(elems * es), b);
    if (s == CUTE_OK) s = cute_cuda_memset8(x->cu, (cute_devptr)(uintptr_t)b->ptr, 0xff, (size_t)(elems * es));
    return s;
}

/* rank r's runtime, library, streams, events and the mode's buffers */
static cute_status open_rank(tp_group *g, int r)
{
    tp_rank *x = &g->r[r];
    char name[24];
    snprintf(name, sizeof name, "cuda:%d", r);
    cute_status s = cute_runtime_new(name, &x->rt, g->err, sizeof g->err);
    if (s != CUTE_OK) return s;
    x->cu = cute_cuda_backend_driver(cute_runtime_backend(x->rt));
    if (!(x->gemm = cute_gemm_lib_new(x->rt))) return snprintf(g->err, sizeof g->err, "no GEMM library"), CUTE_ERR_OOM;
    if ((s = cute_cublas_open(x->cu, &x->blas, g->err, sizeof g->err)) != CUTE_OK) return s;
    s = cute_cuda_stream_new(x->cu, &x->s0);
    if (s == CUTE_OK) s = cute_cuda_stream_new(x->cu, &x->s1);
    /* the schedules' events order streams, across GPUs too: untimed, the cheapest to wait for */
    for (size_t i = 0; s == CUTE_OK && i < sizeof x->ev / sizeof x->ev[0]; i++)
        s = cute_cuda_event_new_untimed(x->cu, &x->ev[i]);
    int64_t n = g->n, m = g->m, nn = g->nn, k = g->k;
    int es = g->es;
    if (g->mode == TP_ROW) {
        if (s == CUTE_OK) s = alloc(x, &x->a, m * k / n, es);
        if (s == CUTE_OK) s = alloc(x, &x->b, nn * k / n, es);
        if (s == CUTE_OK) s = alloc(x, &x->p, m * nn, 2);
        if (s == CUTE_OK) s = alloc(x, &x->cb, m * nn, 2);
        if (s == CUTE_OK) s = fill(x, &x->a, 0, x->a.bytes, g->in, 0x9e3779b97f4a7c15ull * (uint64_t)(r + 1));
    } else {
        if (s == CUTE_OK) s = alloc(x, &x->p, m * nn / n, 2);
        if (s == CUTE_OK) s = alloc(x, &x->cb, m * nn / n, 2);
        if (s == CUTE_OK) s = alloc(x, &x->ab, m * k, es);
        if (s == CUTE_OK) s = alloc(x, &x->b, nn / n * k, es);
    }
    if (s == CUTE_OK) s = fill(x, &x->b, 0, x->b.bytes, g->in, 0xc2b2ae3d27d4eb4full * (uint64_t)(r + 7));
    if (s != CUTE_OK && !g->err[0]) snprintf(g->err, sizeof g->err, "GPU %d: %s", r, cute_cuda_error(x->cu));
    return s;
}

static void close_group(tp_group *g)
{
    cute_comm_free(g->comm);
    cute_peer_free(g->sym);
    cute_peer_free(g->flagbuf);
    for (int r = 0; r < g->n; r++) {
        tp_rank *x = &g->r[r];
        if (!x->rt) continue;
        cute_backend *be = cute_runtime_backend(x->rt);
        cute_buffer *bufs[] = {&x->a, &x->b, &x->p, &x->cb, &x->ab};
        for (int i = 0; i < 5; i++)
            if (bufs[i]->ptr) be->vt->free(be->self, bufs[i]);
        for (size_t i = 0; i < sizeof x->ev / sizeof x->ev[0]; i++)
            if (x->ev[i]) cute_cuda_event_free(x->cu, x->ev[i]);
        if (x->s0) cute_cuda_stream_free(x->cu, x->s0);
        if (x->s1) cute_cuda_stream_free(x->cu, x->s1);
        cute_cublas_close(x->blas);
        cute_gemm_lib_free(x->gemm);
        cute_runtime_free(x->rt);
    }
}

/* every GPU, the peer buffers (flags where a schedule needs them), the communicator */
static cute_status open_group(tp_group *g, bool flags)
{
    cute_runtime *rts[TP_MAX];
    cute_status s = CUTE_OK;
    for (int r = 0; r < g->n && s == CUTE_OK; r++) s = open_rank(g, r), rts[r] = g->r[r].rt;
    size_t sym = (size_t)(g->mode == TP_ROW ? g->m * g->nn * 2 : g->m * g->k * g->es);
    if (s == CUTE_OK) s = cute_peer_alloc(g->n, rts, sym, &g->sym, g->err, sizeof g->err);
    if (s == CUTE_OK && flags) s = cute_peer_alloc(g->n, rts, tp_flag_bytes(g), &g->flagbuf, g->err, sizeof g->err);
    /* the Hopper kernel on sm_90 for every dtype (AUTO takes it for 16-bit inputs only) */
    g->variant = cute_runtime_target_arch(g->r[0].rt) == 90 ? CUTE_GEMM_HOPPER : CUTE_GEMM_AUTO;
    if (s == CUTE_OK) s = cute_comm_open(g->n, rts, &g->comm, g->err, sizeof g->err);
    int64_t shard = g->m / g->n * g->k * g->es; /* column: each rank's rows of A, in its gathered A */
    for (int r = 0; r < g->n && s == CUTE_OK && g->mode == TP_COLUMN; r++)
        s = fill(&g->r[r], cute_peer_buffer(g->sym, r), (size_t)(r * shard), (size_t)shard, g->in,
                 0x94d049bb133111ebull * (uint64_t)(r + 3));
    return s == CUTE_OK ? sync_all(g) : s; /* the fills and memsets ran on the legacy stream */
}

/* --- timing and checking --------------------------------------------------------------------- */

typedef cute_status (*tp_step)(tp_group *g, int which);

static cute_status run_once(tp_group *g, tp_step step, int which)
{
    cute_status s = tp_fork(g);
    if (s == CUTE_OK) s = step(g, which);
    if (s == CUTE_OK) s = tp_join(g);
    return s;
}

static cute_status sync_all(tp_group *g)
{
    cute_status s = CUTE_OK;
    for (int r = 0; r < g->n && s == CUTE_OK; r++) s = cute_cuda_sync(g->r[r].cu);
    if (s != CUTE_OK && !g->err[0]) snprintf(g->err, sizeof g->err, "%s", cute_cuda_error(g->r[0].cu));
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median ms of one iteration: 5 timings of `iters` back to back (events on GPU 0's s0,
 * every iteration forked from it and joined back) */
static double time_step(tp_group *g, tp_step step, int which, int iters)
{
    tp_rank *x = &g->r[0];
    void *e[2] = {NULL, NULL};
    double t[5];
    cute_status s = cute_cuda_event_new(x->cu, &e[0]);
    if (s == CUTE_OK) s = cute_cuda_event_new(x->cu, &e[1]);
    for (int w = 0; w < 2 && s == CUTE_OK; w++) s = run_once(g, step, which);
    for (int k = 0; k < 5 && s == CUTE_OK; k++) {
        s = cute_cuda_event_record(x->cu, e[0], x->s0);
        for (int i = 0; i < iters && s == CUTE_OK; i++) s = run_once(g, step, which);
        float ms = 0;
        if (s == CUTE_OK) s = cute_cuda_event_record(x->cu, e[1], x->s0);
        if (s == CUTE_OK) s = cute_cuda_event_sync(x->cu, e[1]);
        if (s == CUTE_OK) s = cute_cuda_event_elapsed(x->cu, e[0], e[1], &ms);
        t[k] = ms / iters;
    }
    for (int i = 0; i < 2; i++)
        if (e[i]) cute_cuda_event_free(x->cu, e[i]);
    if (s != CUTE_OK && !g->err[0]) snprintf(g->err, sizeof g->err, "%s", cute_cuda_error(x->cu));
    if (s != CUTE_OK) return -1;
    qsort(t, 5, sizeof *t, cmp_double);
    return t[2];
}

enum { STEP_OVERLAPPED, STEP_CUBLAS_NCCL, STEP_CUTEC_NCCL };
static cute_status schedule(tp_group *g, int which)
{
    return which == STEP_OVERLAPPED ? tp_overlapped(g) : tp_sequential(g, which == STEP_CUTEC_NCCL);
}
static cute_status part(tp_group *g, int which) { return tp_part(g, (tp_part_kind)which); }

/* the overlapped output of every rank against the baseline's: max |diff| / max |baseline|
 * (NaN where an element was never written), or -1 */
static double compare(tp_group *g)
{
    double worst = 0;
    for (int r = 0; r < g->n; r++) {
        tp_rank *x = &g->r[r];
        const cute_buffer *got = g->mode == TP_ROW ? cute_peer_buffer(g->sym, r) : &x->p;
        size_t bytes = x->cb.bytes;
        uint16_t *a = malloc(bytes), *b = malloc(bytes);
        cute_status s = a && b ? cute_cuda_copy_dtoh(x->cu, a, (cute_devptr)(uintptr_t)got->ptr, bytes) : CUTE_ERR_OOM;
        if (s == CUTE_OK) s = cute_cuda_copy_dtoh(x->cu, b, (cute_devptr)(uintptr_t)x->cb.ptr, bytes);
        double diff = 0, ref = 0;
        for (size_t i = 0; s == CUTE_OK && i < bytes / 2; i++) {
            double u = float_of(a[i]), v = float_of(b[i]);
            diff = isnan(u) || isnan(v) ? NAN : fmax(diff, fabs(u - v));
            ref = fmax(ref, fabs(v));
        }
        free(a), free(b);
        if (s != CUTE_OK) return -1;
        worst = isnan(diff) || isnan(worst) ? NAN : fmax(worst, diff / (ref > 0 ? ref : 1));
    }
    return worst;
}

/* poison the overlapped output, run each schedule once, compare */
static double verify_once(tp_group *g)
{
    for (int r = 0; r < g->n; r++) {
        const cute_buffer *o = g->mode == TP_ROW ? cute_peer_buffer(g->sym, r) : &g->r[r].p;
        size_t bytes = g->mode == TP_ROW ? (size_t)(g->m * g->nn * 2) : o->bytes;
        if (cute_cuda_memset8(g->r[r].cu, (cute_devptr)(uintptr_t)o->ptr, 0xff, bytes) != CUTE_OK) return -1;
    }
    if (sync_all(g) != CUTE_OK) return -1; /* the memsets before the streams' work */
    if (run_once(g, schedule, STEP_CUBLAS_NCCL) || run_once(g, schedule, STEP_OVERLAPPED) || sync_all(g)) return -1;
    return compare(g);
}

/* both: where the overlapped GEMMs have a tiling of their own, in it and in the kernels' own
 * defaults (the worse error, NaN first) */
static double verify(tp_group *g)
{
    double err = verify_once(g);
    if (g->tiled && err >= 0 && !isnan(err)) {
        g->tiled = false;
        double plain = verify_once(g);
        g->tiled = true;
        err = plain < 0 || isnan(plain) ? plain : fmax(err, plain);
    }
    return err;
}

/* --- the command ---------------------------------------------------------------------------- */

typedef struct tp_times {
    double cublas, cutec, overlapped, gemm, collective, push, blas, hops;
    double plain; /* the overlapped schedule in the kernels' own tiling, where g->tiled (else 0) */
} tp_times;

static bool measure(tp_group *g, int iters, tp_times *t)
{
    t->cublas = time_step(g, schedule, STEP_CUBLAS_NCCL, iters);
    t->cutec = time_step(g, schedule, STEP_CUTEC_NCCL, iters);
    t->overlapped = time_step(g, schedule, STEP_OVERLAPPED, iters);
    t->plain = 0;
    if (g->tiled) { /* the same schedule in the kernels' own tiling, beside it */
        g->tiled = false;
        t->plain = time_step(g, schedule, STEP_OVERLAPPED, iters);
        g->tiled = true;
    }
    t->gemm = time_step(g, part, TP_PART_GEMM, iters);
    t->collective = time_step(g, part, TP_PART_COLLECTIVE, iters);
    t->push = time_step(g, part, TP_PART_PUSH, iters);
    t->blas = time_step(g, part, TP_PART_BLAS, iters);
    t->hops = time_step(g, part, TP_PART_NOTHING, iters);
    return t->cublas > 0 && t->cutec > 0 && t->overlapped > 0 && (!g->tiled || t->plain > 0) && t->gemm > 0 &&
           t->collective > 0 && t->push > 0 && t->blas > 0 && t->hops >= 0;
}

/* the model fitted to this run (GEMM rate, copy bandwidth, slowdown under traffic), then
 * the same kernels on more GPUs and hosts */
static tp_machine model(const tp_group *g, const tp_times *t)
{
    tp_machine mc = {.gpus = g->n, .hosts = 1, .tflops = 2.0 * g->m * g->nn * g->k / g->n / (t->gemm * 1e9),
                     .link_gbs = (double)tp_push_bytes(g) / (t->push * 1e6), .link_us = 5, .net_gbs = 50,
                     .net_us = 15, .slowdown = 1};
    tp_prediction p = tp_predict(g->mode, g->m, g->nn, g->k, g->chunks, &mc);
    if (g->mode == TP_ROW) p.overlapped_ms = tp_predict_rows(g->m, g->nn, g->k, g->chunks, g->rows, &mc);
    mc.slowdown = fmax(1.0, t->overlapped / p.overlapped_ms);
    printf("model fitted here: %.0f TFLOP/s a GPU, copies %.0f GB/s, GEMM %.3fx slower while overlapped; "
           "it predicts GEMM %.3f ms (measured %.3f), collective %.3f ms (NCCL measured %.3f)\n", mc.tflops,
           mc.link_gbs, mc.slowdown, p.gemm_ms, t->gemm, p.comm_ms, t->collective);
    tp_model_header();
    static const int shapes[][2] = {{2, 1}, {8, 1}, {16, 2}, {32, 4}};
    for (int i = 0; i < 4; i++) { /* this run's chunks on its GPUs, the best elsewhere */
        mc.gpus = shapes[i][0], mc.hosts = shapes[i][1];
        tp_model_print(g->mode, g->m, g->nn, g->k, i == 0 ? g->chunks : 0, &mc);
    }
    mc.gpus = g->n, mc.hosts = 1;
    return mc;
}

static void report(const tp_group *g, const tp_times *t, double err)
{
    const char *coll = g->mode == TP_ROW ? "all-reduce" : "all-gather";
    printf("%-44s %9.3f %8s\n", g->mode == TP_ROW ? "cuBLAS GEMM, then NCCL all-reduce" : "NCCL all-gather, then cuBLAS GEMM",
           t->cublas, "1.000");
    printf("%-44s %9.3f %8.3f\n", g->mode == TP_ROW ? "cutec GEMM, then NCCL all-reduce" : "NCCL all-gather, then cutec GEMM",
           t->cutec, t->cutec / t->cublas);
    const char *form = g->fused   ? "cutec fused (all-reduce in the epilogues)"
                       : g->flags ? "cutec overlapped (flags in the kernels)"
                                  : "cutec overlapped (peer pushes, events)";
    if (g->tiled)
        printf("%-44s %9.3f %8.3f  (the kernels' own tiling)\n", form, t->plain, t->plain / t->cublas);
    char tiling[256] = "";
    if (g->tiled) cute_gemm_tune_config_text(CUTE_GEMM_HOPPER, &g->tiling, tiling, sizeof tiling);
    printf("%-44s %9.3f %8.3f  (target <= 0.85)%s%s\n", form, t->overlapped, t->overlapped / t->cublas,
           g->tiled ? " its GEMMs in " : "", tiling);
    printf("parts: cutec GEMM alone %.3f ms (cuBLAS's alone %.3f), NCCL %s alone %.3f ms, one push of %.1f MiB %.3f ms "
           "(%.0f GB/s); an iteration's fork and join alone %.3f ms (in every time above)\n", t->gemm, t->blas, coll,
           t->collective, tp_push_bytes(g) / 1048576.0, t->push, tp_push_bytes(g) / (t->push * 1e6), t->hops);
    printf("check: overlapped C against cuBLAS+NCCL's on every GPU: max |diff| / max |C| = %.2e: %s\n", err,
           err >= 0 && err <= 2e-2 ? "ok" : "WRONG");
}

/* --- the schedules, timed in turns ------------------------------------------------------------- */

/* a schedule of the bench: its options, what they resolve to in a mode (C's layout, the
 * chunks, the pieces' tiling), and each rank's GEMM library in that tiling (NULL: none set,
 * the kernels' own) */
typedef struct tp_form {
    tp_form_opts o;
    bool swap;
    int chunks;
    int64_t rows[TP_MAX_CHUNKS];
    cute_gemm_tiling tiling;
    cute_gemm_lib *lib[TP_MAX];
} tp_form;

/* g's fields of form f's schedule (before the GPUs open, its libraries are none yet) */
static void use_form(tp_group *g, const tp_form *f)
{
    bool row = g->mode == TP_ROW;
    g->flags = f->o.flags, g->swap = f->swap;
    g->fused = f->o.fused && row; /* (the column schedule has nothing to reduce: flags) */
    g->chunks = f->chunks;
    memcpy(g->rows, f->rows, sizeof g->rows);
    g->tiling = f->tiling;
    for (int r = 0; r < g->n; r++) g->r[r].tiled = f->lib[r];
    g->tiled = f->lib[0] != NULL;
}

/* form f's chunks in g's row schedule (f->o's, else the halving ones where M has them in whole
 * tiles, else 8 equal ones), checked; false with why */
static bool form_chunks(const tp_group *g, tp_form *f, char *why, size_t n)
{
    int64_t unit = tp_tile_rows(&f->tiling, f->swap);
    f->chunks = f->o.nrows ? f->o.nrows : f->o.chunks;
    if (f->o.nrows) memcpy(f->rows, f->o.rows, sizeof f->rows);
    else if (f->o.chunks || !tp_chunks_halving(g->m, unit, f->rows, &f->chunks))
        f->chunks = f->chunks ? f->chunks : 8, tp_chunks_equal(g->m, f->chunks, f->rows);
    if (f->o.nrows && g->fused) return snprintf(why, n, "--chunk-rows: the fused schedule has no chunks"), false;
    if (f->o.nrows) return tp_chunks_check(f->rows, f->chunks, g->m, unit, why, n);
    if (g->m % (g->n * f->chunks))
        return snprintf(why, n, "M must divide into %d chunks of %d GPUs", f->chunks, g->n), false;
    return true;
}

/* the problem of a mode, and every schedule's C layout, tiling and chunks (no GPU needed) */
static bool plan_forms(const tp_opts *o, tp_mode mode, int gpus, tp_group *g, tp_form *forms, char *why, size_t n)
{
    memset(g, 0, sizeof *g);
    g->mode = mode, g->n = gpus, g->in = o->in, g->es = cute_dtype_bytes(o->in);
    g->m = o->m ? o->m : 8192, g->nn = o->n ? o->n : 8192, g->k = o->k ? o->k : mode == TP_ROW ? 16384 : 8192;
    if (g->nn % g->n || g->k % g->n) return snprintf(why, n, "N and K must divide by the %d GPUs", g->n), false;
    for (int i = 0; i < o->forms; i++) {
        tp_form *f = &forms[i];
        memset(f, 0, sizeof *f);
        f->o = o->form[i];
        /* C column-major where it measured best: the row schedule's events (bench/RESULTS.md tp40) */
        f->swap = f->o.c_major ? f->o.c_major == 'c' : mode == TP_ROW && !f->o.flags;
        f->chunks = 1;
        use_form(g, f);
        f->tiling = tp_pieces_tiling(g, f->o.library, &f->o.tiling);
        if (mode == TP_ROW && !form_chunks(g, f, why, n)) return false;
    }
    return true;
}

/* each schedule's GEMM libraries in its tiling, on sm_90 */
static cute_status form_libs(tp_group *g, tp_form *f)
{
    static const cute_gemm_tiling none;
    if (!memcmp(&f->tiling, &none, sizeof none) || cute_runtime_target_arch(g->r[0].rt) != 90) return CUTE_OK;
    for (int r = 0; r < g->n; r++)
        if (!(f->lib[r] = cute_gemm_lib_new(g->r[r].rt)) || !cute_gemm_lib_tiling(f->lib[r], &f->tiling))
            return snprintf(g->err, sizeof g->err, "no GEMM library in the pieces' tiling"), CUTE_ERR_OOM;
    return CUTE_OK;
}

/* form f's words (g in its schedule: use_form): the order, C's layout, the chunks, the options */
static void form_label(const tp_group *g, const tp_form *f, char *buf, size_t n)
{
    char chunks[128] = "", tiling[256] = "";
    static const cute_gemm_tiling none;
    if (g->mode == TP_ROW && !g->fused) tp_chunks_text(g->rows, g->chunks, chunks, sizeof chunks);
    if (memcmp(&f->o.tiling, &none, sizeof none)) cute_gemm_tune_config_text(CUTE_GEMM_HOPPER, &f->tiling, tiling, sizeof tiling);
    snprintf(buf, n, "%s, C %s-major%s%s%s%s%s", f->o.fused ? "fused" : f->o.flags ? "flags" : "events",
             f->swap ? "column" : "row", chunks[0] ? ", chunks " : "", chunks, f->lib[0] ? "" : ", the kernels' own tiling",
             tiling[0] ? ", " : "", tiling);
}

/* the median of a schedule's turns, and each turn's ms as text (in the order run) */
static double median3(const double *t, char *text, size_t n)
{
    double s[TP_TURNS];
    size_t at = (size_t)snprintf(text, n, "(turns:");
    for (int k = 0; k < TP_TURNS; k++) {
        s[k] = t[k];
        if (at < n) at += (size_t)snprintf(text + at, n - at, " %.3f", t[k]);
    }
    if (at < n) snprintf(text + at, n - at, ")");
    qsort(s, TP_TURNS, sizeof *s, cmp_double);
    return s[TP_TURNS / 2];
}

/* one timing of the turns: after rest_ms of idle GPUs (every stream drained first), if any */
static double turn(tp_group *g, int which, int iters, int rest_ms)
{
    if (rest_ms) {
        if (sync_all(g) != CUTE_OK) return -1;
        gpu_idle_ms(rest_ms);
    }
    return time_step(g, schedule, which, iters);
}

/* TP_TURNS rounds, each cuBLAS + NCCL then every schedule whose C was right (errs), so that
 * the card's clock and heat drift alike over all of them (rest_ms: each timing after that
 * much idle time); the medians, each against the baseline's, each turn's ms, and the model's
 * pipeline for each chunked schedule (mc: fitted to the first) */
static bool turns(tp_group *g, tp_form *forms, const double *errs, int nf, int iters, int rest_ms,
                  const tp_machine *mc)
{
    double base[TP_TURNS], t[TP_FORMS][TP_TURNS];
    for (int k = 0; k < TP_TURNS; k++) {
        if ((base[k] = turn(g, STEP_CUBLAS_NCCL, iters, rest_ms)) < 0) return false;
        for (int f = 0; f < nf; f++) {
            if (!(errs[f] <= 2e-2)) continue; /* (a wrong schedule is not timed) */
            use_form(g, &forms[f]);
            if ((t[f][k] = turn(g, STEP_OVERLAPPED, iters, rest_ms)) < 0) return false;
        }
    }
    char each[128];
    double b = median3(base, each, sizeof each);
    char rested[64] = "";
    if (rest_ms) snprintf(rested, sizeof rested, ", each after %d ms of idle GPUs", rest_ms);
    printf("in turns (%d rounds, each cuBLAS GEMM + NCCL then every schedule%s; medians, then each turn's ms):\n",
           TP_TURNS, rested);
    printf("%-72s %9.3f %8s  %s\n", g->mode == TP_ROW ? "cuBLAS GEMM, then NCCL all-reduce" : "NCCL all-gather, then cuBLAS GEMM",
           b, "1.000", each);
    for (int f = 0; f < nf; f++) {
        char label[512], pred[64] = "";
        use_form(g, &forms[f]);
        form_label(g, &forms[f], label, sizeof label);
        if (!(errs[f] <= 2e-2)) {
            printf("%s: WRONG: max |diff| / max |C| = %.2e against cuBLAS+NCCL's (not timed)\n", label, errs[f]);
            continue;
        }
        if (g->mode == TP_ROW && !g->fused)
            snprintf(pred, sizeof pred, "  (model %.3f)", tp_predict_rows(g->m, g->nn, g->k, g->chunks, g->rows, mc));
        double ms = median3(t[f], each, sizeof each);
        printf("%-72s %9.3f %8.3f  %s%s\n", label, ms, ms / b, each, pred);
    }
    return true;
}

static int run_mode(const tp_opts *o, tp_mode mode, int gpus)
{
    static tp_group g;
    static tp_form forms[TP_FORMS];
    char why[256];
    if (!plan_forms(o, mode, gpus, &g, forms, why, sizeof why))
        return fprintf(stderr, "cutec bench tp-gemm: %s\n", why), CLI_USAGE;
    bool flags = false;
    for (int f = 0; f < o->forms; f++) flags = flags || forms[f].o.flags;
    cute_status s = open_group(&g, flags);
    for (int f = 0; f < o->forms && s == CUTE_OK; f++) s = form_libs(&g, &forms[f]);
    double err = -1, errs[TP_FORMS];
    bool wrong = false;
    for (int f = 0; f < o->forms && s == CUTE_OK; f++) {
        use_form(&g, &forms[f]); /* the first in the kernels' own tiling too (it is timed so) */
        errs[f] = f == 0 ? verify(&g) : verify_once(&g);
        if (errs[f] < 0) s = CUTE_ERR_INVALID; /* the GPU failed: nothing more to run */
        wrong = wrong || !(errs[f] <= 2e-2);
    }
    if (s == CUTE_OK) err = errs[0];
    use_form(&g, &forms[0]);
    tp_times t;
    bool ok = s == CUTE_OK && err >= 0 && measure(&g, o->iters, &t);
    if (ok) {
        printf("\n# tp-gemm %s parallel over %d GPUs (%s): C (%lld, %lld) = A (%lld, %lld) B^T, %s in, bf16 out, %s; "
               "cutec's GEMMs %s, pieces ordered by %s; median of 5 timings of %d iterations\n",
               mode == TP_ROW ? "row" : "column", g.n, cute_cuda_device(g.r[0].cu)->name, (long long)g.m,
               (long long)g.nn, (long long)g.m, (long long)g.k, cute_dtype_name(g.in),
               mode == TP_ROW ? "K split, C all-reduced" : "A's rows gathered, B's rows split",
               g.swap ? "as C^T = B A^T (C column-major)" : "C row-major",
               g.fused ? "flags, the all-reduce in the epilogues of two GEMMs a GPU"
               : g.flags ? "flags in the kernels" : "events",
               o->iters);
        printf("%-44s %9s %8s\n", "schedule", "ms", "vs cuBLAS+NCCL");
        report(&g, &t, err);
        tp_machine mc = model(&g, &t);
        /* in turns even for one schedule: the baseline and it alternate (B S B S B S), each
         * run after the other, so neither has the cooler card (the first timing above
         * does: its baseline runs first) */
        ok = turns(&g, forms, errs, o->forms, o->iters, o->rest_ms, &mc);
    }
    if (!ok) fprintf(stderr, "cutec bench tp-gemm %s: %s\n", mode == TP_ROW ? "row" : "column", g.err[0] ? g.err : "failed");
    for (int f = 0; f < o->forms; f++)
        for (int r = 0; r < g.n; r++) cute_gemm_lib_free(forms[f].lib[r]), forms[f].lib[r] = NULL;
    close_group(&g);
    return ok && !wrong ? CLI_OK : CLI_FAIL;
}

int cmd_bench_tp(int argc, char **argv)
{
    tp_opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc;
    static tp_group g; /* every schedule checked before any GPU is opened */
    static tp_form forms[TP_FORMS];
    char err[512] = "";
    for (int mode = 0; mode < 2; mode++)
        if ((o.modes & (1 << mode)) && !plan_forms(&o, (tp_mode)mode, mode == TP_ROW ? 2 : o.gpus ? o.gpus : 2, &g, forms,
                                                   err, sizeof err))
            return fprintf(stderr, "cutec bench tp-gemm: %s\n", err), CLI_USAGE;
    if (cli_parse_only()) return CLI_OK;
    cute_cuda *cu = NULL;
    char clock[128] = "";
    int have = cute_cuda_open(NULL, &cu, err, sizeof err) == CUTE_OK ? cute_cuda_device_count(cu) : 0;
    int gpus = o.gpus ? o.gpus : have > TP_MAX ? TP_MAX : have;
    bool enough = have >= 2 && gpus <= have;
    if (enough) gpu_sm_clock(cu, clock, sizeof clock); /* (the first GPU's) */
    cute_cuda_close(cu);
    if (!enough) {
        printf("cutec bench tp-gemm: skipped: %d GPU%s here (%s); it needs two or more\n", have, have == 1 ? "" : "s",
               have ? "" : err);
        return CLI_OK;
    }
    printf("# SM clock: %s\n", clock[0] ? clock : "?");
    for (int mode = 0; mode < 2; mode++) /* each mode whatever the other did */
        if (o.modes & (1 << mode)) {
            int r = run_mode(&o, (tp_mode)mode, mode == TP_ROW ? 2 : gpus);
            rc = rc ? rc : r;
        }
    return rc;
}
