/* Blocks waiting for other blocks through flags in global memory, on 1, 2, 4 and 8 workers:
 * block b spins with acquire loads (ld.acquire.gpu) until block b-1 released its flag, then
 * adds its value to a sum in turn (the ordered adds of FlashAttention 3's dQ, split-K
 * semaphores).  With several workers the block waited for runs on another worker, and the
 * spin must not be taken for a deadlock: the sum and every block's prefix are checked
 * against the host's.  Real deadlocks stay reported, in bounded time, on any number of
 * workers: a flag no block writes, two blocks waiting for each other, and blocks waiting
 * for later blocks that no worker can start (the report says how many were not started). */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "interp/sync_testkit.h"

enum { NB = 12, THREADS = 64 };
enum { CHAIN, NEVER, CYCLE, LATER };
static const char *const names[] = {"chain", "never", "cycle", "later"};

/* thread 0 of block b: wait for flags[target] (when it waits), pre[b] = *sum, *sum += vals[b],
 * release flags[b].  Targets: CHAIN b-1 (block 0 waits for nobody); NEVER the same, but
 * block 0 waits for flags[NB], which nobody writes; CYCLE b^1; LATER b+1 (the last block
 * waits for nobody) */
static cute_ir_func *chain_kernel(int mode, int *wait_line)
{
    kt k;
    kt_begin(&k, "grid_chain");
    cute_vreg flags = kt_param_ptr(&k, CUTE_U32, "flags"), vals = kt_param_ptr(&k, CUTE_U32, "vals");
    cute_vreg sum = kt_param_ptr(&k, CUTE_U32, "sum"), pre = kt_param_ptr(&k, CUTE_U32, "pre");
    cute_vreg b = kt_sreg64(&k, CUTE_SREG_CTAID_X);
    sk_if(&k, CUTE_OP_EQ, sk_tid(&k), sk_u32(&k, 0));
    cute_vreg target, waits;
    if (mode == CHAIN || mode == NEVER) { /* (b + NB) % (NB + 1): b - 1, and NB for block 0 */
        target = kt_bin(&k, CUTE_OP_REM, kt_bin(&k, CUTE_OP_ADD, b, kt_i64(&k, NB)), kt_i64(&k, NB + 1));
        waits = mode == NEVER ? kt_cmp(&k, CUTE_OP_GE, b, kt_i64(&k, 0)) : kt_cmp(&k, CUTE_OP_NE, b, kt_i64(&k, 0));
    } else if (mode == CYCLE) {
        target = kt_bin(&k, CUTE_OP_XOR, b, kt_i64(&k, 1));
        waits = kt_cmp(&k, CUTE_OP_GE, b, kt_i64(&k, 0));
    } else {
        target = kt_bin(&k, CUTE_OP_ADD, b, kt_i64(&k, 1));
        waits = kt_cmp(&k, CUTE_OP_LT, b, kt_i64(&k, NB - 1));
    }
    cute_ir_if(&k.b, waits);
    KT_AT(&k.b); *wait_line = __LINE__;
    cute_ir_while(&k.b);
    cute_vreg f = SK_GET(&k, CUTE_INST_LD_ACQUIRE_GPU_U32, kt_ptr_add(&k, flags, target));
    cute_ir_while_body(&k.b, kt_cmp(&k, CUTE_OP_EQ, f, sk_u32(&k, 0)));
    cute_ir_end(&k.b);
    cute_ir_end(&k.b);
    cute_vreg s = kt_load(&k, sum);
    kt_store(&k, kt_ptr_add(&k, pre, b), s);
    kt_store(&k, sum, kt_bin(&k, CUTE_OP_ADD, s, kt_load(&k, kt_ptr_add(&k, vals, b))));
    SK_DO(&k, CUTE_INST_ST_RELEASE_GPU_U32, kt_ptr_add(&k, flags, b), sk_u32(&k, 1));
    cute_ir_end(&k.b);
    return k.f;
}

/* one launch of `mode` on `workers` workers; CHAIN's values checked here */
static void run_mode(int mode, int workers)
{
    cute_interp_opts o = {.threads = workers};
    cute_backend be = kt_backend(&o);
    int line = 0;
    kt k = {.f = chain_kernel(mode, &line)};
    cute_module *m = kt_compile(be, &k);
    CHECK(m != NULL, "%s: compiled", names[mode]);
    if (!m) return;
    uint32_t vals[NB], flags[NB + 1] = {0}, sum = 0, pre[NB];
    for (int i = 0; i < NB; i++) vals[i] = (uint32_t)(rand() % 100000);
    memset(pre, 0xa5, sizeof pre); /* poisoned */
    cute_buffer bf = kt_buf(be, flags, sizeof flags), bv = kt_buf(be, vals, sizeof vals);
    cute_buffer bs = kt_buf(be, &sum, sizeof sum), bp = kt_buf(be, pre, sizeof pre);
    cute_launch_arg args[4] = {kt_arg_buf(&bf, CUTE_U32), kt_arg_buf(&bv, CUTE_U32), kt_arg_buf(&bs, CUTE_U32),
                               kt_arg_buf(&bp, CUTE_U32)};
    cute_status st = kt_launch(be, m, NB, THREADS, 0, args, 4);
    const cute_interp_report *r = kt_report(be, 0);
    if (mode == CHAIN) {
        CHECK(st == CUTE_OK, "chain on %d workers: %s", workers, r ? r->msg : "no report");
        be.vt->download(be.self, &sum, &bs, 0, sizeof sum);
        be.vt->download(be.self, pre, &bp, 0, sizeof pre);
        uint64_t want = 0;
        int bad = 0;
        for (int i = 0; i < NB; i++) {
            bad += pre[i] != (uint32_t)want;
            want += vals[i];
        }
        CHECK(bad == 0 && sum == (uint32_t)want, "chain on %d workers: sum %u (want %u), %d prefixes wrong", workers,
              sum, (uint32_t)want, bad);
    } else {
        CHECK(st == CUTE_ERR_CHECK && r && r->kind == CUTE_CHECK_DEADLOCK && r->line == line &&
                  strstr(r->msg, "spins in a loop that cannot end"),
              "%s on %d workers: want a deadlock at line %d, got %s", names[mode], workers, line, r ? r->msg : "no report");
        /* blocks waiting for later ones: so many at a time run, the rest wait to start */
        if (r && mode == LATER) CHECK(strstr(r->msg, "later blocks not started"), "later: %s", r->msg);
        if (r && workers == 4) printf("  %s: %s\n", names[mode], r->msg);
    }
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bf), be.vt->free(be.self, &bv), be.vt->free(be.self, &bs), be.vt->free(be.self, &bp);
    be.vt->destroy(be.self);
}

int main(void)
{
    srand((unsigned)time(NULL));
    static const int workers[] = {1, 2, 4, 8};
    for (int mode = CHAIN; mode <= LATER; mode++)
        for (int w = 0; w < 4; w++) run_mode(mode, workers[w]);
    return CHECK_DONE("interp grid waits (a chain of blocks on 1, 2, 4 and 8 workers; never-set, cyclic and later-block waits reported)");
}
