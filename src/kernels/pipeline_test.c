/* cutec/pipeline.h on the interpreter: a producer warp fills a 2-stage PipelineTmaAsync with
 * bulk copies, a consumer warp reads each stage; the result is exact.  The broken variants of
 * issue 14 are each reported with the warp, the site (the user's line) and the barrier's
 * state: a wrong transaction count, a wrong phase, a consumer that never releases, a read of
 * a stage before its wait.  A PipelineAsync (stores and commit) runs too. */
#include <stdlib.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/sync.h"

enum { STAGES = 2, TILES = 5, WORDS = 32 }; /* a word per consumer thread */
typedef enum { GOOD, SMALL_TX, WRONG_PHASE, NO_RELEASE, READ_EARLY, ASYNC } variant;
typedef struct lines {
    int read, wait, acquire;
} lines;

static cute_backend be;

/* out[t, k] = stage[t] * 2 + 1 for the consumer's thread t */
static void consume(cute_ctx *c, cute_tensor stage, cute_tensor out, cute_int t, cute_int k, cute_val index, int *line)
{
    cute_tensor mine = CUTE_SLICE(c, stage, t, cute_int_from_val(c, index, 0));
    *line = __LINE__ + 1;
    cute_val x = cute_ssa_get(c, cute_tensor_load(c, mine), 0);
    cute_val y = cute_val_binop(c, CUTE_OP_ADD, cute_val_binop(c, CUTE_OP_MUL, x, cute_val_int(c, CUTE_U32, 2)),
                                cute_val_int(c, CUTE_U32, 1));
    cute_tensor o = CUTE_SLICE(c, out, t, k);
    cute_tensor_store(c, o, cute_ssa_scalar(c, y, o.layout.shape));
}

static void consumer(cute_ctx *c, const cute_pipeline *p, cute_tensor stage, cute_tensor out, cute_int t, variant v,
                     lines *L)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, v == WRONG_PHASE ? CUTE_PIPELINE_PRODUCER : CUTE_PIPELINE_CONSUMER,
                                                     STAGES);
    cute_val none = {0};
    CUTE_FOR(c, k, cute_i(0), cute_i(TILES)) {
        if (v == READ_EARLY) consume(c, stage, out, t, k, s.index, &L->read);
        L->wait = __LINE__ + 1;
        cute_pipeline_consumer_wait(c, p, &s, none);
        if (v != READ_EARLY) consume(c, stage, out, t, k, s.index, &L->read);
        if (v != NO_RELEASE) cute_pipeline_consumer_release(c, p, &s);
        cute_pipeline_state_advance(c, &s);
    }
}

/* one thread fills the stages: bulk copies (TMA pipeline), or its own stores then commit */
static void producer(cute_ctx *c, const cute_pipeline *p, cute_tensor stage, cute_tensor src, variant v, lines *L)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, STAGES);
    CUTE_FOR(c, k, cute_i(0), cute_i(TILES)) {
        L->acquire = __LINE__ + 1; /* the peek: try_wait blocks the warp until its phase completes */
        cute_val token = cute_pipeline_producer_try_acquire(c, p, &s);
        cute_pipeline_producer_acquire(c, p, &s, token);
        cute_int at = cute_mul(a, cute_int_from_val(c, s.index, 0), cute_i(WORDS));
        cute_val dst = cute_tensor_ptr(c, stage, at), from = cute_tensor_ptr(c, src, cute_mul(a, k, cute_i(WORDS)));
        if (v == ASYNC) {
            CUTE_FOR(c, i, cute_i(0), cute_i(WORDS)) {
                cute_tensor d = CUTE_SLICE(c, stage, i, cute_int_from_val(c, s.index, 0));
                cute_tensor g = CUTE_SLICE(c, src, i, k);
                cute_tensor_store(c, d, cute_tensor_load(c, g));
            }
        } else {
            cute_cp_async_bulk_g2s(c, dst, from, cute_val_int(c, CUTE_U32, 4 * WORDS), cute_pipeline_producer_barrier(c, p, &s));
        }
        cute_pipeline_producer_commit(c, p, &s);
        cute_pipeline_state_advance(c, &s);
    }
}

static cute_ir_func *kernel(variant v, lines *L)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "pipeline");
    cute_alg *a = cute_ctx_alg(c);
    cute_layout tiles = cute_layout_parse(a, "(32,5):(1,32)");
    cute_tensor src = cute_make_tensor(c, cute_param_ptr(c, "src", CUTE_U32), tiles, 16);
    cute_tensor out = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), tiles, 16);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor stage = cute_make_tensor(c, cute_smem_alloc_array(c, &A, CUTE_U32, STAGES * WORDS, 16),
                                         cute_layout_parse(a, "(32,2):(1,32)"), 16);
    cute_pipeline p = v == ASYNC ? cute_pipeline_async_create(c, &A, STAGES, 1, 32)
                                 : cute_pipeline_tma_async_create(c, &A, STAGES, 32, v == SMALL_TX ? 64 : 4 * WORDS);
    cute_int t = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) { consumer(c, &p, stage, out, t, v, L); }
    CUTE_ELSE(c) {
        CUTE_IF(c, cute_int_eq(c, t, cute_i(32))) { producer(c, &p, stage, src, v, L); }
    }
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* run variant v on 64 threads: the status; out downloaded */
static cute_status run(variant v, lines *L, const uint32_t *src, uint32_t *out)
{
    cute_ir_func *f = kernel(v, L);
    cute_module *m = NULL;
    const char *log = NULL;
    if (!f || be.vt->compile(be.self, &f, 1, &m, &log) != CUTE_OK) {
        CHECK(0, "compile: %s", log ? log : "");
        cute_ir_func_free(f);
        return CUTE_ERR_COMPILE;
    }
    cute_ir_func_free(f);
    size_t n = TILES * WORDS * 4;
    cute_buffer bs, bo;
    be.vt->alloc(be.self, n, &bs), be.vt->alloc(be.self, n, &bo);
    be.vt->upload(be.self, &bs, 0, src, n);
    for (size_t i = 0; i < TILES * WORDS; i++) out[i] = 0xdeadbeef;
    be.vt->upload(be.self, &bo, 0, out, n);
    cute_launch_arg args[2] = {{.type = cute_type_ptr(CUTE_U32, CUTE_GMEM), .buf = &bs},
                               {.type = cute_type_ptr(CUTE_U32, CUTE_GMEM), .buf = &bo}};
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {64, 1, 1}};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, args, 2);
    be.vt->download(be.self, out, &bo, 0, n);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s;
}

static const cute_interp_report *report(int i, cute_interp_check kind, int line, const char *what)
{
    int n;
    const cute_interp_report *r = cute_interp_reports(be, &n);
    CHECK(i < n, "%s: report %d of %d", what, i, n);
    if (i >= n) return NULL;
    printf("  %s\n", r[i].msg);
    char at[64]; /* r->file was the module's, which is gone */
    snprintf(at, sizeof at, "at src/kernels/pipeline_test.c:%d:", line);
    CHECK(r[i].kind == kind && strstr(r[i].msg, at), "%s: %s, want %s %s", what, cute_interp_check_name(r[i].kind),
          cute_interp_check_name(kind), at);
    return &r[i];
}

static void good(void)
{
    uint32_t src[TILES * WORDS], out[TILES * WORDS];
    for (int i = 0; i < TILES * WORDS; i++) src[i] = (uint32_t)rand() & 0xffffff;
    lines L;
    for (variant v = GOOD; v <= ASYNC; v = v == GOOD ? ASYNC : ASYNC + 1) {
        CHECK(run(v, &L, src, out) == CUTE_OK, "%s pipeline: %s", v == GOOD ? "TMA" : "async", be.vt->error(be.self));
        int bad = 0;
        for (int i = 0; i < TILES * WORDS; i++) bad += out[i] != src[i] * 2 + 1;
        CHECK(bad == 0, "%s pipeline: %d of %d wrong", v == GOOD ? "TMA" : "async", bad, TILES * WORDS);
    }
}

static void broken(void)
{
    uint32_t src[TILES * WORDS], out[TILES * WORDS];
    for (int i = 0; i < TILES * WORDS; i++) src[i] = (uint32_t)rand();
    lines L;
    /* 64 bytes expected, 128 came: the phase never completes */
    CHECK(run(SMALL_TX, &L, src, out) == CUTE_ERR_CHECK, "small tx: a check");
    const cute_interp_report *r = report(0, CUTE_CHECK_DEADLOCK, L.wait, "small tx");
    CHECK(r && strstr(r->msg, "warp 0 waits for the phase of parity 0") && strstr(r->msg, "128 of 64 transaction bytes"),
          "small tx: %s", r ? r->msg : "");
    r = report(1, CUTE_CHECK_DEADLOCK, L.acquire, "small tx, producer");
    CHECK(r && strstr(r->msg, "warp 1 waits"), "small tx: %s", r ? r->msg : "");
    /* the consumer starts at the producer's phase: waits for a phase that comes after its release */
    CHECK(run(WRONG_PHASE, &L, src, out) == CUTE_ERR_CHECK, "wrong phase: a check");
    r = report(0, CUTE_CHECK_DEADLOCK, L.wait, "wrong phase");
    CHECK(r && strstr(r->msg, "warp 0 waits for the phase of parity 1"), "wrong phase: %s", r ? r->msg : "");
    CHECK(run(NO_RELEASE, &L, src, out) == CUTE_ERR_CHECK, "no release: a check");
    r = report(0, CUTE_CHECK_DEADLOCK, L.wait, "no release, consumer");
    r = report(1, CUTE_CHECK_DEADLOCK, L.acquire, "no release, producer");
    CHECK(r && strstr(r->msg, "warp 1 waits for the phase of parity 0") && strstr(r->msg, "0 of 32 arrivals"),
          "no release: %s", r ? r->msg : "");
    CHECK(run(READ_EARLY, &L, src, out) == CUTE_ERR_CHECK, "read early: a check");
    r = report(0, CUTE_CHECK_SHARED_RACE, L.read, "read early");
    CHECK(r && strstr(r->msg, "not waited for"), "read early: %s", r ? r->msg : "");
}

static void misuse(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "bad");
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_pipeline p = cute_pipeline_tma_async_create(c, &A, 2, 32, 256);
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 3);
    int line = __LINE__ + 1;
    cute_pipeline_consumer_wait(c, &p, &s, (cute_val){0});
    char want[160];
    snprintf(want, sizeof want, "pipeline_test.c:%d: cute_pipeline_consumer_wait: a state of 3 stages for a pipeline of 2", line);
    CHECK(strstr(cute_ctx_error(c), want), "%s", cute_ctx_error(c));
    cute_ctx_free(c);
}

/* a cluster pipeline's misuse, named at the call: consumers not whole warps, a cluster
 * that is not a static (M, N) layout */
static void cluster_misuse(void)
{
    static const struct {
        int threads;
        const char *cluster, *want;
    } k[] = {{48, "(2,1):(1,2)", "48 consumer threads (whole warps"},
             {64, "(2,2,2):(1,2,4)", "the cluster (2,2,2):(1,2,4) is not a static (cluster M, cluster N)"}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "bad");
        cute_smem_allocator A = cute_smem_allocator_new(c);
        int line = __LINE__ + 1;
        cute_pipeline_tma_async_create_cluster(c, &A, 2, k[i].threads, 256, cute_layout_parse(cute_ctx_alg(c), k[i].cluster));
        char want[200];
        snprintf(want, sizeof want, "pipeline_test.c:%d: cute_pipeline_tma_async_create_cluster: ", line);
        CHECK(strstr(cute_ctx_error(c), want) && strstr(cute_ctx_error(c), k[i].want), "%s", cute_ctx_error(c));
        cute_ctx_free(c);
    }
}

/* advance_by(n) against n single advances and against the definition (index n % stages, a
 * phase flip each wrap, count n), from a producer's state: thread t advances by n = 3 t + 1
 * (dynamic), past several wraps */
enum { BY_STAGES = 3, BY_THREADS = 32 };

static void store_state(cute_ctx *c, cute_tensor out, cute_int t, int at, const cute_pipeline_state *s)
{
    const cute_val *v[3] = {&s->index, &s->phase, &s->count};
    for (int i = 0; i < 3; i++) {
        cute_tensor o = CUTE_SLICE(c, out, cute_i(at + i), t);
        cute_tensor_store(c, o, cute_ssa_scalar(c, *v[i], o.layout.shape));
    }
}

static void advance_by(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "advance_by");
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor out = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_parse(a, "(6,32):(1,6)"), 16);
    cute_int t = cute_thread_idx(c, 0), n = cute_add(a, cute_mul(a, t, cute_i(3)), cute_i(1));
    cute_pipeline_state by = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, BY_STAGES);
    cute_pipeline_state one = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, BY_STAGES);
    cute_pipeline_state_advance_by(c, &by, cute_int_value(c, n, CUTE_U32));
    CUTE_FOR(c, i, cute_i(0), n) {
        (void)i;
        cute_pipeline_state_advance(c, &one);
    }
    store_state(c, out, t, 0, &by);
    store_state(c, out, t, 3, &one);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    cute_module *m = NULL;
    const char *log = NULL;
    if (!f || be.vt->compile(be.self, &f, 1, &m, &log) != CUTE_OK) {
        CHECK(0, "compile: %s", log ? log : "");
        cute_ir_func_free(f);
        return;
    }
    cute_ir_func_free(f);
    uint32_t got[6 * BY_THREADS];
    for (int i = 0; i < 6 * BY_THREADS; i++) got[i] = 0xdeadbeef;
    cute_buffer bo;
    be.vt->alloc(be.self, sizeof got, &bo);
    be.vt->upload(be.self, &bo, 0, got, sizeof got);
    cute_launch_arg arg = {.type = cute_type_ptr(CUTE_U32, CUTE_GMEM), .buf = &bo};
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {BY_THREADS, 1, 1}};
    CHECK(be.vt->launch(be.self, m, 0, &cfg, &arg, 1) == CUTE_OK, "advance_by: %s", be.vt->error(be.self));
    be.vt->download(be.self, got, &bo, 0, sizeof got);
    int bad = 0;
    for (uint32_t k = 0; k < BY_THREADS; k++) {
        uint32_t n = 3 * k + 1, want[3] = {n % BY_STAGES, 1u ^ ((n / BY_STAGES) & 1), n};
        for (int i = 0; i < 3; i++) bad += got[6 * k + i] != want[i] || got[6 * k + 3 + i] != want[i];
    }
    CHECK(bad == 0, "advance_by: %d of %d values wrong", bad, 6 * BY_THREADS);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bo);
}

int main(void)
{
    CHECK(cute_interp_new(&(cute_interp_opts){.threads = 1}, &be) == CUTE_OK, "interp");
    srand(31);
    good();
    broken();
    misuse();
    cluster_misuse();
    advance_by();
    be.vt->destroy(be.self);
    return CHECK_DONE("kernels pipeline");
}
