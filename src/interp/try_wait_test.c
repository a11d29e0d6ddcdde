/* mbarrier.try_wait answering false (cute_interp_opts.try_wait_false, try_wait_seed): the
 * GPU may answer "not yet" before a phase completes, so a kernel's not-ready path must be
 * right.  A consumer warp reads a stage that a producer warp's bulk copy fills: with a
 * try_wait loop, or a try_wait token followed by a wait when it is false (the pipeline's
 * try_acquire / try_wait), the kernel is right whatever try_wait answers; with a single
 * try_wait whose answer it ignores, it is wrong only when that answer is false, which only
 * these options make the interpreter give (and is then reported at the read).  The
 * library's pipeline runs right under them too. */
#include <stdlib.h>

#include "check.h"
#include "interp/sync_testkit.h"

enum { WORDS = 16, STAGE = 64, FULL = 0, GO = 8, SMEM = STAGE + 4 * WORDS };
typedef enum { PEEK, LOOP, TOKEN } consumer_kind;

static int read_line; /* the consumer's read of the stage */

/* warp 1 (one thread) waits for warp 0's arrival on GO, then copies src into the stage,
 * completing FULL; warp 0 arrives on GO, then waits on FULL as `kind` says and reads:
 * out[lane] = stage[lane % 16] */
static cute_ir_func *kernel(consumer_kind kind)
{
    kt k;
    kt_begin(&k, "try_wait");
    cute_vreg src = kt_param_ptr(&k, CUTE_U32, "src"), out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = SMEM;
    cute_vreg t = sk_tid(&k), full = kt_smem(&k, CUTE_U64, FULL), go = kt_smem(&k, CUTE_U64, GO);
    cute_vreg stage = kt_smem(&k, CUTE_U32, STAGE), zero = sk_u32(&k, 0);
    sk_if(&k, CUTE_OP_EQ, t, zero);
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, full, sk_u32(&k, 1));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, go, sk_u32(&k, 32));
    cute_ir_end(&k.b);
    kt_barrier(&k);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 32));
    sk_wait(&k, go, zero);
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX, full, sk_u32(&k, 4 * WORDS));
    SK_DO(&k, CUTE_INST_CP_ASYNC_BULK_G2S, stage, src, sk_u32(&k, 4 * WORDS), full);
    cute_ir_end(&k.b);
    sk_if(&k, CUTE_OP_LT, t, sk_u32(&k, 32));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE, go);
    if (kind == LOOP) sk_wait(&k, full, zero);
    if (kind != LOOP) {
        cute_vreg token = SK_GET(&k, CUTE_INST_MBARRIER_TRY_WAIT_PARITY, full, zero);
        if (kind == TOKEN) {
            sk_if(&k, CUTE_OP_EQ, token, zero);
            sk_wait(&k, full, zero);
            cute_ir_end(&k.b);
        }
    }
    cute_vreg lane = kt_cvt(&k, kt_bin(&k, CUTE_OP_REM, t, sk_u32(&k, WORDS)), CUTE_I64);
    KT_AT(&k.b); read_line = __LINE__;
    cute_vreg w = kt_load(&k, kt_ptr_add(&k, stage, lane));
    kt_store(&k, kt_ptr_add(&k, out, kt_cvt(&k, t, CUTE_I64)), w);
    cute_ir_end(&k.b);
    return k.f;
}

static const char *kind_name(consumer_kind kind)
{
    return kind == PEEK ? "a single try_wait" : kind == LOOP ? "a try_wait loop" : "a try_wait token";
}

/* the kernel on an interpreter with opts: its status, out checked against src when it ran */
static cute_status run(const cute_interp_opts *opts, consumer_kind kind, const char *mode)
{
    cute_backend be = kt_backend(opts);
    uint32_t src[WORDS], out[64];
    sk_random_words(src, WORDS);
    cute_status s = sk_run(be, kernel(kind), 64, src, WORDS, out, 64);
    if (s == CUTE_ERR_CHECK && kind == PEEK) {
        const cute_interp_report *r = kt_report(be, 0);
        CHECK(r && r->line == read_line && r->kind == CUTE_CHECK_UNINIT_SHARED, "%s, %s: reported at the read "
              "(line %d): %s", kind_name(kind), mode, read_line, r ? r->msg : "no report");
    }
    int bad = 0;
    for (int i = 0; s == CUTE_OK && i < 32; i++) bad += out[i] != src[i % WORDS];
    CHECK(bad == 0, "%s, %s: %d of 32 words wrong", kind_name(kind), mode, bad);
    be.vt->destroy(be.self);
    return s;
}

/* the pipeline of sync_testkit.h (try_wait loops on both sides) under try_wait's answers */
static void pipeline(const cute_interp_opts *opts)
{
    cute_backend be = kt_backend(opts);
    sk_pipeline_good(be);
    be.vt->destroy(be.self);
}

int main(void)
{
    srand(7);
    for (consumer_kind kind = PEEK; kind <= TOKEN; kind++) {
        cute_status s = run(&(cute_interp_opts){.threads = 1}, kind, "waiting try_wait");
        CHECK(s == CUTE_OK, "%s, try_wait that waits: runs clean", kind_name(kind));
        s = run(&(cute_interp_opts){.threads = 1, .try_wait_false = true}, kind, "try_wait_false");
        CHECK(s == (kind == PEEK ? CUTE_ERR_CHECK : CUTE_OK), "%s, try_wait_false: %s", kind_name(kind),
              kind == PEEK ? "the not-ready path is reported" : "runs clean");
        for (uint64_t seed = 1; kind != PEEK && seed <= 8; seed++)
            CHECK(run(&(cute_interp_opts){.threads = 1, .try_wait_seed = seed}, kind, "seeded") == CUTE_OK,
                  "%s, try_wait_seed %llu: runs clean", kind_name(kind), (unsigned long long)seed);
    }
    pipeline(&(cute_interp_opts){.threads = 1, .try_wait_false = true});
    for (uint64_t seed = 1; seed <= 4; seed++) pipeline(&(cute_interp_opts){.threads = 2, .try_wait_seed = seed});
    return CHECK_DONE("interp try_wait");
}
