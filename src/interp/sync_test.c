/* The sm_90 synchronization rows and the warp scheduler on the interpreter: a pipeline of
 * mbarriers and bulk copies between a producer warp and a consumer warp (and each broken
 * variant of it reported, with its site and the barrier's state), named barriers (and one
 * that never completes: a deadlock), a warp spinning on a flag another warp sets, the other
 * rows' results, happens-before through a named barrier, and misuse of mbarriers. */
#include <stdlib.h>

#include "check.h"
#include "interp/sync_testkit.h"

static cute_backend be;

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

static void pipeline_broken(void)
{
    enum { N = SK_ITERS * SK_WORDS };
    uint32_t src[N], out[N];
    sk_random_words(src, N);
    sk_lines L;
    /* the copy completes on a phase that arrive alone already completed: the consumer reads
     * bytes the async proxy wrote without having acquired them */
    CHECK(sk_run(be, sk_pipeline(SK_NO_EXPECT_TX, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "no expect_tx: a check");
    const cute_interp_report *r = report_at(0, CUTE_CHECK_SHARED_RACE, L.consumer_read, "no expect_tx");
    CHECK(r && strstr(r->msg, "a read here of what the asynchronous copy at") && strstr(r->msg, "no wait on the mbarrier"),
          "no expect_tx: %s", r ? r->msg : "");
    /* a consumer that never releases its stage: the producer waits for it, it for the producer */
    CHECK(sk_run(be, sk_pipeline(SK_NO_RELEASE, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "no release: a check");
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
    CHECK(sk_run(be, sk_pipeline(SK_WRONG_PHASE, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "wrong phase: a check");
    r = report_at(0, CUTE_CHECK_DEADLOCK, L.consumer_wait, "wrong phase");
    CHECK(r && strstr(r->msg, "warp 0 waits for the phase of parity 1 of the mbarrier at shared offset 512 "
                              "(phase 1: 0 of 1 arrivals"), "wrong phase: %s", r ? r->msg : "");
    /* reading the stage before waiting on its barrier: the copy's bytes were not acquired */
    CHECK(sk_run(be, sk_pipeline(SK_READ_EARLY, &L), 64, src, N, out, N) == CUTE_ERR_CHECK, "read early: a check");
    r = report_at(0, CUTE_CHECK_SHARED_RACE, L.consumer_read, "read early");
    CHECK(r && strstr(r->msg, "no wait on the mbarrier"), "read early: %s", r ? r->msg : "");
}

static void named_deadlock(void)
{
    uint32_t out[128];
    int line;
    CHECK(sk_run(be, sk_named(true, &line), 128, NULL, 0, out, 128) == CUTE_ERR_CHECK, "bar.sync 1, 96: a check");
    for (int w = 0; w < 2; w++) {
        const cute_interp_report *r = report_at(w, CUTE_CHECK_DEADLOCK, line, "bar.sync 1, 96");
        CHECK(r && r->thread.x == 32u * w && strstr(r->msg, "waits at bar.sync 1: 64 of its 96 threads arrived"),
              "%s", r ? r->msg : "");
    }
}

/* warp 1 writes global words and arrives on an mbarrier; warp 0 waits on it, then reads
 * them: ordered (the global race logs of a barrier interval must not compare the warps) */
static void global_handoff(void)
{
    kt k;
    kt_begin(&k, "global_handoff");
    cute_vreg g = kt_param_ptr(&k, CUTE_U32, "g"), out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = 8;
    cute_vreg t = sk_tid(&k), bar = kt_smem(&k, CUTE_U64, 0), lane = kt_cvt(&k, kt_bin(&k, CUTE_OP_REM, t, sk_u32(&k, 32)), CUTE_I64);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 32));
    cute_ir_end(&k.b);
    kt_barrier(&k);
    sk_if(&k, CUTE_OP_GE, t, sk_u32(&k, 32));
    kt_store(&k, kt_ptr_add(&k, g, lane), t);
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE, bar);
    cute_ir_else(&k.b);
    sk_wait(&k, bar, sk_u32(&k, 0));
    kt_store(&k, kt_ptr_add(&k, out, lane), kt_bin(&k, CUTE_OP_ADD, kt_load(&k, kt_ptr_add(&k, g, lane)), sk_u32(&k, 1)));
    cute_ir_end(&k.b);
    uint32_t gw[32], out_w[32];
    for (int i = 0; i < 32; i++) gw[i] = (uint32_t)rand();
    CHECK(sk_run(be, k.f, 64, gw, 32, out_w, 32) == CUTE_OK, "global handoff: %s", be.vt->error(be.self));
    int bad = 0;
    for (uint32_t i = 0; i < 32; i++) bad += out_w[i] != i + 33;
    CHECK(bad == 0, "global handoff: %d of 32 wrong", bad);
}

/* overwriting what a bulk store still reads */
static void bulk_store_early(void)
{
    uint32_t out[64];
    int line;
    CHECK(sk_run(be, sk_bulk_store(SK_BULK_EARLY, &line), 64, NULL, 0, out, 64) == CUTE_ERR_CHECK, "early write: a check");
    const cute_interp_report *r = report_at(0, CUTE_CHECK_ASYNC_COPY, line, "early write");
    CHECK(r && strstr(r->msg, "write of shared bytes [0,4) still read by cp.async.bulk.global.shared::cta.bulk_group at ") &&
              strstr(r->msg, "(thread (0,0,0), warp 0, group 0): no cp.async.bulk.wait_group.read since"), "%s", r ? r->msg : "");
}

/* the stage stored through the generic proxy, read by the bulk store without a proxy fence */
static void bulk_store_unfenced(void)
{
    uint32_t out[64];
    int line;
    CHECK(sk_run(be, sk_bulk_store(SK_BULK_NO_FENCE, &line), 64, NULL, 0, out, 64) == CUTE_ERR_CHECK, "no fence: a check");
    const cute_interp_report *r = report_at(0, CUTE_CHECK_SHARED_RACE, line, "no proxy fence");
    CHECK(r && strstr(r->msg, "async-proxy read of shared byte 0, which thread (0,0,0) stored at src/interp/sync_testkit.h:") &&
              strstr(r->msg, "with no fence.proxy.async since"), "%s", r ? r->msg : "");
}

int main(void)
{
    be = kt_backend(&(cute_interp_opts){.threads = 1});
    srand(21);
    sk_pipeline_good(be);
    pipeline_broken();
    sk_named_good(be);
    named_deadlock();
    sk_flag_spin(be);
    sk_rows_check(be);
    sk_bulk_store_check(be);
    sk_cluster_forms_check(be);
    bulk_store_early();
    bulk_store_unfenced();
    global_handoff();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp sync");
}
