/* The sm_90 synchronization rows and the warp scheduler on the interpreter: a pipeline of
 * mbarriers and bulk copies between a producer warp and a consumer warp (and each broken
 * variant of it reported, with its site and the barrier's state), named barriers (and one
 * that never completes: a deadlock), a warp spinning on a flag another warp sets, the other
 * rows' results, happens-before through a named barrier, and misuse of mbarriers. */
#include <stdlib.h>

#include "check.h"
#include "interp/sync_testkit.h"

static cute_backend be;

/* launch f on 1 block of `threads`: the status; out (n words) downloaded after poisoning */
static cute_status run(cute_ir_func *f, uint32_t threads, const uint32_t *src, size_t nsrc, uint32_t *out,
                       size_t nout)
{
    kt k = {f, {0}};
    cute_module *m = kt_compile(be, &k);
    CHECK(m != NULL, "compiles");
    if (!m) return CUTE_ERR_COMPILE;
    uint32_t poison[4096];
    for (size_t i = 0; i < nout; i++) poison[i] = 0xdeadbeef;
    cute_buffer bs = kt_buf(be, src, nsrc * 4), bo = kt_buf(be, poison, nout * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&bs, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    bool has_src = f->nparams == 2;
    cute_status s = kt_launch(be, m, 1, threads, 0, has_src ? args : args + 1, has_src ? 2 : 1);
    be.vt->download(be.self, out, &bo, 0, nout * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s;
}

static const cute_interp_report *report_at(int i, cute_interp_check kind, int line, const char *what)
{
    const cute_interp_report *r = kt_report(be, i);
    CHECK(r != NULL, "%s: report %d", what, i);
    if (!r) return NULL;
    printf("  %s\n", r->msg);
    CHECK(r->kind == kind && r->line == line, "%s: %s at line %d, want %s at %d", what,
          cute_interp_check_name(r->kind), r->line, cute_interp_check_name(kind), line);
    return r;
}

static void random_words(uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++) w[i] = (uint32_t)rand() & 0xffffff;
}

static void pipeline_good(void)
{
    enum { N = SK_ITERS * SK_WORDS };
    uint32_t src[N], out[N];
    random_words(src, N);
    sk_lines L;
    CHECK(run(sk_pipeline(SK_GOOD, &L), 64, src, N, out, N) == CUTE_OK, "pipeline runs: %s", be.vt->error(be.self));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != src[i] * 2 + 1;
    CHECK(bad == 0, "pipeline: %d of %d words wrong", bad, N);
}

static void pipeline_broken(void)
{
    enum { N = SK_ITERS * SK_WORDS };
    uint32_t src[N], out[N];
    random_words(src, N);
    sk_lines L;
    /* the copy completes on a phase that arrive alone already completed: the consumer reads
     * bytes the async proxy wrote without having acquired them */
    CHECK(run(sk_pipeline(SK_NO_EXPECT_TX, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "no expect_tx: a check");
    const cute_interp_report *r = report_at(0, CUTE_CHECK_SHARED_RACE, L.consumer_read, "no expect_tx");
    CHECK(r && strstr(r->msg, "a read here of what the asynchronous copy at") && strstr(r->msg, "no wait on the mbarrier"),
          "no expect_tx: %s", r ? r->msg : "");
    /* a consumer that never releases its stage: the producer waits for it, it for the producer */
    CHECK(run(sk_pipeline(SK_NO_RELEASE, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "no release: a check");
    r = report_at(0, CUTE_CHECK_DEADLOCK, L.consumer_wait, "no release, consumer");
    /* the producer filled both stages and waits for stage 0 to be released; the consumer
     * used stage 0, then stage 1, and waits for stage 0's second fill */
    CHECK(r && strstr(r->msg, "no warp can go on (2 wait): warp 0 waits for the phase of parity 1 of the mbarrier "
                              "at shared offset 512 (phase 1: 0 of 1 arrivals, 0 of 0 transaction bytes"),
          "consumer's wait: %s", r ? r->msg : "");
    r = report_at(1, CUTE_CHECK_DEADLOCK, L.producer_wait, "no release, producer");
    CHECK(r && r->thread.x == 32 && strstr(r->msg, "warp 1 waits for the phase of parity 0 of the mbarrier at "
                                                   "shared offset 528 (phase 0: 0 of 32 arrivals"),
          "producer's wait: %s", r ? r->msg : "");
    /* waiting for the wrong phase: the consumer waits for stage 0's second fill first */
    CHECK(run(sk_pipeline(SK_WRONG_PHASE, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "wrong phase: a check");
    r = report_at(0, CUTE_CHECK_DEADLOCK, L.consumer_wait, "wrong phase");
    CHECK(r && strstr(r->msg, "warp 0 waits for the phase of parity 1 of the mbarrier at shared offset 512 "
                              "(phase 1: 0 of 1 arrivals"), "wrong phase: %s", r ? r->msg : "");
    /* reading the stage before waiting on its barrier: the copy's bytes were not acquired */
    CHECK(run(sk_pipeline(SK_READ_EARLY, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "read early: a check");
    r = report_at(0, CUTE_CHECK_SHARED_RACE, L.consumer_read, "read early");
    CHECK(r && strstr(r->msg, "no wait on the mbarrier"), "read early: %s", r ? r->msg : "");
}

static void named(void)
{
    uint32_t out[128];
    int line;
    CHECK(run(sk_named(false, &line), 128, NULL, 0, out, 128) == CUTE_OK, "named barriers run: %s", be.vt->error(be.self));
    int bad = 0;
    for (uint32_t t = 0; t < 128; t++) {
        uint32_t want = t < 64 ? (t ^ 32) + 100 : t < 96 ? t + 100 : t - 32 + 100;
        bad += out[t] != want;
    }
    CHECK(bad == 0, "named barriers: %d of 128 wrong", bad);
    CHECK(run(sk_named(true, &line), 128, NULL, 0, out, 128) == CUTE_ERR_CHECK, "bar.sync 1, 96: a check");
    for (int w = 0; w < 2; w++) {
        const cute_interp_report *r = report_at(w, CUTE_CHECK_DEADLOCK, line, "bar.sync 1, 96");
        CHECK(r && r->thread.x == 32u * w && strstr(r->msg, "waits at bar.sync 1: 64 of its 96 threads arrived"),
              "%s", r ? r->msg : "");
    }
}

static void flag_spin(void)
{
    uint32_t out[64];
    CHECK(run(sk_flag(), 64, NULL, 0, out, 64) == CUTE_OK, "flag spin runs: %s", be.vt->error(be.self));
    int bad = 0;
    for (int t = 0; t < 64; t++) bad += out[t] != (t < 32 ? 42u : 7u);
    CHECK(bad == 0, "flag spin: %d of 64 wrong", bad);
}

static void rows(void)
{
    uint32_t src[4] = {(uint32_t)rand(), 2, 3, 4}, out[128 * 8];
    CHECK(run(sk_rows(), 128, src, 4, out, 128 * 8) == CUTE_OK, "rows run: %s", be.vt->error(be.self));
    int bad = 0;
    for (uint32_t t = 0; t < 128; t++) {
        const uint32_t *o = &out[8 * t];
        bad += o[0] != (t % 32 == 0) || o[1] != 0 || o[2] != 1 || o[3] != 0 || o[4] != 1;
        bad += o[5] != (t + 1) % 128 * 3 + 1;
        bad += t == 0 ? o[6] != 0x8 || o[7] != src[0] : o[6] != 0xdeadbeef;
    }
    CHECK(bad == 0, "rows: %d threads wrong (thread 0: %x %x %x %x %x %x %x %x)", bad, out[0], out[1], out[2],
          out[3], out[4], out[5], out[6], out[7]);
}

int main(void)
{
    be = kt_backend(&(cute_interp_opts){.threads = 1});
    srand(21);
    pipeline_good();
    pipeline_broken();
    named();
    flag_spin();
    rows();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp sync");
}
