/* Kernels of the sm_90 synchronization rows, built once and run on any backend
 * (sync_test.c: the interpreter, with its checks; sync_gpu_test.c: the GPU): a
 * producer/consumer pipeline through mbarriers and the bulk copy (and its broken variants),
 * named barriers, a spin on a shared flag, and one kernel exercising the other rows.  Each
 * kernel writes u32 results whose expected values the test computes on the host. */
#ifndef CUTEC_SYNC_TESTKIT_H
#define CUTEC_SYNC_TESTKIT_H

#include "check.h"
#include "cutec/inst.h"
#include "interp/interp_testkit.h"

static inline cute_vreg sk_u32(kt *k, int64_t v) { return cute_ir_const_int(&k->b, CUTE_U32, v); }
static inline cute_vreg sk_tid(kt *k) { return kt_cvt(k, cute_ir_sreg(&k->b, CUTE_SREG_TID_X), CUTE_U32); }

/* a row with no result / one u32 result */
static inline void sk_do(kt *k, cute_inst row, const cute_vreg *in, int nin, int64_t imm)
{
    cute_ir_inst_op(&k->b, row, NULL, 0, in, nin, imm);
}
static inline cute_vreg sk_get(kt *k, cute_inst row, const cute_vreg *in, int nin)
{
    cute_vreg out = cute_ir_new_vreg(k->f, cute_type_of(CUTE_U32), "r", false);
    cute_ir_inst_op(&k->b, row, &out, 1, in, nin, 0);
    return out;
}
#define SK_DO(k, row, ...) sk_do(k, row, (cute_vreg[]){__VA_ARGS__}, sizeof((cute_vreg[]){__VA_ARGS__}) / sizeof(cute_vreg), 0)
#define SK_GET(k, row, ...) sk_get(k, row, (cute_vreg[]){__VA_ARGS__}, sizeof((cute_vreg[]){__VA_ARGS__}) / sizeof(cute_vreg))

/* a kernel `name` with `smem` bytes of shared memory and u32 pointer parameters "src" (when
 * src is given) and "out"; returns out */
static inline cute_vreg sk_begin(kt *k, const char *name, int smem, cute_vreg *src)
{
    kt_begin(k, name);
    if (src) *src = kt_param_ptr(k, CUTE_U32, "src");
    cute_vreg out = kt_param_ptr(k, CUTE_U32, "out");
    k->f->smem_bytes = smem;
    return out;
}

/* `if (a op b) {` on u32 values (close with cute_ir_end) */
static inline void sk_if(kt *k, cute_op op, cute_vreg a, cute_vreg b) { cute_ir_if(&k->b, kt_cmp(k, op, a, b)); }

/* while (!try_wait.parity(bar, parity)) {} */
static inline void sk_wait(kt *k, cute_vreg bar, cute_vreg parity)
{
    cute_ir_while(&k->b);
    cute_vreg done = SK_GET(k, CUTE_INST_MBARRIER_TRY_WAIT_PARITY, bar, parity);
    cute_ir_while_body(&k->b, kt_cmp(k, CUTE_OP_EQ, done, sk_u32(k, 0)));
    cute_ir_end(&k->b);
}

/* --- the pipeline: warp 1 produces stages by bulk copies, warp 0 consumes them ------------ */
enum { SK_STAGES = 2, SK_ITERS = 5, SK_WORDS = 64 /* u32 per stage */, SK_PIPE_SMEM = 544 };
typedef enum { SK_GOOD, SK_NO_EXPECT_TX, SK_WRONG_PHASE, SK_NO_RELEASE, SK_READ_EARLY } sk_variant;

typedef struct sk_lines {
    int consumer_wait, consumer_read, producer_wait, producer_arrive;
} sk_lines;

/* smem: stages at 0 and 256, full barriers at 512 and 520, empty ones at 528 and 536 */
static inline void sk_producer(kt *k, cute_vreg src, sk_variant v, sk_lines *L)
{
    cute_vreg stage0 = kt_smem(k, CUTE_U32, 0), full0 = kt_smem(k, CUTE_U64, 512), empty0 = kt_smem(k, CUTE_U64, 528);
    cute_vreg it = kt_for(k, kt_i64(k, 0), kt_i64(k, SK_ITERS), 1);
    cute_vreg s = kt_bin(k, CUTE_OP_REM, it, kt_i64(k, SK_STAGES));
    cute_vreg ph = kt_cvt(k, kt_bin(k, CUTE_OP_AND, kt_bin(k, CUTE_OP_DIV, it, kt_i64(k, SK_STAGES)), kt_i64(k, 1)), CUTE_U32);
    cute_vreg full = kt_ptr_add(k, full0, s), empty = kt_ptr_add(k, empty0, s);
    KT_AT(&k->b); L->producer_wait = __LINE__;
    sk_wait(k, empty, kt_bin(k, CUTE_OP_XOR, ph, sk_u32(k, 1)));
    KT_AT(&k->b); L->producer_arrive = __LINE__;
    if (v == SK_NO_EXPECT_TX) SK_DO(k, CUTE_INST_MBARRIER_ARRIVE, full);
    else SK_DO(k, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX, full, sk_u32(k, 4 * SK_WORDS));
    cute_vreg dst = kt_ptr_add(k, stage0, kt_bin(k, CUTE_OP_MUL, s, kt_i64(k, SK_WORDS)));
    cute_vreg from = kt_ptr_add(k, src, kt_bin(k, CUTE_OP_MUL, it, kt_i64(k, SK_WORDS)));
    SK_DO(k, CUTE_INST_CP_ASYNC_BULK_G2S, dst, from, sk_u32(k, 4 * SK_WORDS), full);
    cute_ir_end(&k->b);
}

static inline void sk_consume(kt *k, cute_vreg out, cute_vreg it, cute_vreg stage, cute_vreg lane, sk_lines *L)
{
    for (int j = 0; j < 2; j++) {
        cute_vreg i = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, kt_cvt(k, lane, CUTE_I64), kt_i64(k, 2)), kt_i64(k, j));
        KT_AT(&k->b); L->consumer_read = __LINE__;
        cute_vreg w = kt_load(k, kt_ptr_add(k, stage, i));
        cute_vreg o = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, it, kt_i64(k, SK_WORDS)), i);
        kt_store(k, kt_ptr_add(k, out, o), kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, w, sk_u32(k, 2)), sk_u32(k, 1)));
    }
}

static inline void sk_consumer(kt *k, cute_vreg out, cute_vreg lane, sk_variant v, sk_lines *L)
{
    cute_vreg stage0 = kt_smem(k, CUTE_U32, 0), full0 = kt_smem(k, CUTE_U64, 512), empty0 = kt_smem(k, CUTE_U64, 528);
    cute_vreg it = kt_for(k, kt_i64(k, 0), kt_i64(k, SK_ITERS), 1);
    cute_vreg s = kt_bin(k, CUTE_OP_REM, it, kt_i64(k, SK_STAGES));
    cute_vreg ph = kt_cvt(k, kt_bin(k, CUTE_OP_AND, kt_bin(k, CUTE_OP_DIV, it, kt_i64(k, SK_STAGES)), kt_i64(k, 1)), CUTE_U32);
    cute_vreg stage = kt_ptr_add(k, stage0, kt_bin(k, CUTE_OP_MUL, s, kt_i64(k, SK_WORDS)));
    if (v == SK_READ_EARLY) sk_consume(k, out, it, stage, lane, L);
    KT_AT(&k->b); L->consumer_wait = __LINE__;
    sk_wait(k, kt_ptr_add(k, full0, s), v == SK_WRONG_PHASE ? kt_bin(k, CUTE_OP_XOR, ph, sk_u32(k, 1)) : ph);
    if (v != SK_READ_EARLY) sk_consume(k, out, it, stage, lane, L);
    if (v != SK_NO_RELEASE) SK_DO(k, CUTE_INST_MBARRIER_ARRIVE, kt_ptr_add(k, empty0, s));
    cute_ir_end(&k->b);
}

/* 64 threads: out[it*64 + i] = src[it*64 + i] * 2 + 1 for SK_ITERS stages of 64 words */
static inline cute_ir_func *sk_pipeline(sk_variant v, sk_lines *L)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "sync_pipeline", SK_PIPE_SMEM, &src);
    cute_vreg t = sk_tid(&k), warp = kt_bin(&k, CUTE_OP_DIV, t, sk_u32(&k, 32)), lane = kt_bin(&k, CUTE_OP_REM, t, sk_u32(&k, 32));
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    for (int b = 0; b < 2 * SK_STAGES; b++)
        SK_DO(&k, CUTE_INST_MBARRIER_INIT, kt_smem(&k, CUTE_U64, 512 + 8 * b), sk_u32(&k, b < SK_STAGES ? 1 : 32));
    SK_DO(&k, CUTE_INST_FENCE_MBARRIER_INIT);
    cute_ir_end(&k.b);
    kt_barrier(&k);
    sk_if(&k, CUTE_OP_EQ, warp, sk_u32(&k, 1));
    sk_if(&k, CUTE_OP_EQ, lane, sk_u32(&k, 0));
    sk_producer(&k, src, v, L);
    cute_ir_end(&k.b);
    cute_ir_else(&k.b);
    sk_consumer(&k, out, lane, v, L);
    cute_ir_end(&k.b);
    return k.f;
}

/* --- named barriers: 4 warps ----------------------------------------------------------------
 * warps 0 and 1 exchange through bar.sync 1, 64 (count96: 96, which never completes);
 * warp 2 writes and bar.arrive 2, 64, warp 3 bar.sync 2, 64 and reads what it wrote.
 * out[t]: warps 0-1: (t ^ 32) + 100; warp 2: t + 100; warp 3: t - 32 + 100 */
static inline cute_ir_func *sk_named(bool count96, int *line)
{
    kt k;
    cute_vreg out = sk_begin(&k, "sync_named", 512, NULL);
    cute_vreg buf = kt_smem(&k, CUTE_U32, 0), t = sk_tid(&k), warp = kt_bin(&k, CUTE_OP_DIV, t, sk_u32(&k, 32));
    cute_vreg ti = kt_cvt(&k, t, CUTE_I64);
    sk_if(&k, CUTE_OP_LT, warp, sk_u32(&k, 3));
    kt_store(&k, kt_ptr_add(&k, buf, ti), kt_bin(&k, CUTE_OP_ADD, t, sk_u32(&k, 100)));
    cute_ir_end(&k.b);
    sk_if(&k, CUTE_OP_LT, warp, sk_u32(&k, 2));
    KT_AT(&k.b); *line = __LINE__;
    SK_DO(&k, CUTE_INST_BAR_SYNC, sk_u32(&k, 1), sk_u32(&k, count96 ? 96 : 64));
    kt_store(&k, kt_ptr_add(&k, out, ti), kt_load(&k, kt_ptr_add(&k, buf, kt_bin(&k, CUTE_OP_XOR, ti, kt_i64(&k, 32)))));
    cute_ir_else(&k.b);
    sk_if(&k, CUTE_OP_EQ, warp, sk_u32(&k, 2));
    SK_DO(&k, CUTE_INST_BAR_ARRIVE, sk_u32(&k, 2), sk_u32(&k, 64));
    kt_store(&k, kt_ptr_add(&k, out, ti), kt_bin(&k, CUTE_OP_ADD, t, sk_u32(&k, 100)));
    cute_ir_else(&k.b);
    SK_DO(&k, CUTE_INST_BAR_SYNC, sk_u32(&k, 2), sk_u32(&k, 64));
    kt_store(&k, kt_ptr_add(&k, out, ti), kt_load(&k, kt_ptr_add(&k, buf, kt_bin(&k, CUTE_OP_SUB, ti, kt_i64(&k, 32)))));
    cute_ir_end(&k.b);
    cute_ir_end(&k.b);
    return k.f;
}

/* --- the other rows: 128 threads (a warpgroup), 8 results each ------------------------------
 * out[8t + 0] elect.sync's leader flag; 1..4 cluster_ctarank, cluster_nctarank, clusterid.x,
 * cluster_nctaid.x; 5 what the neighbour stored through mapa + st.shared::cluster, read by
 * ld.shared::cluster ((t + 1) % 128 * 3 + 1); thread 0 only: 6 test_wait bits along an
 * mbarrier's life (0b01000), 7 the first word the bulk copy brought (src[0]) */
static inline cute_ir_func *sk_rows(void)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "sync_rows", 1024 + 64, &src);
    cute_vreg t = sk_tid(&k), ti = kt_cvt(&k, t, CUTE_I64), buf = kt_smem(&k, CUTE_U32, 0);
    cute_vreg o = kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_MUL, ti, kt_i64(&k, 8)));
    SK_DO(&k, CUTE_INST_GRIDDEPCONTROL_WAIT);
    sk_do(&k, CUTE_INST_SETMAXNREG_INC, NULL, 0, 240);
    sk_do(&k, CUTE_INST_SETMAXNREG_DEC, NULL, 0, 232);
    kt_store(&k, o, SK_GET(&k, CUTE_INST_ELECT_SYNC));
    cute_inst sr[4] = {CUTE_INST_CLUSTER_CTARANK, CUTE_INST_CLUSTER_NCTARANK, CUTE_INST_CLUSTERID_X, CUTE_INST_CLUSTER_NCTAID_X};
    for (int q = 0; q < 4; q++) kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 1 + q)), sk_get(&k, sr[q], NULL, 0));
    cute_vreg rank = SK_GET(&k, CUTE_INST_CLUSTER_CTARANK);
    cute_vreg mine = kt_op(&k, CUTE_OP_CVT, cute_type_of(CUTE_U32), kt_ptr_add(&k, buf, ti), 0, 0);
    SK_DO(&k, CUTE_INST_ST_SHARED_CLUSTER_U32, SK_GET(&k, CUTE_INST_MAPA, mine, rank),
          kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, sk_u32(&k, 3)), sk_u32(&k, 1)));
    SK_DO(&k, CUTE_INST_BARRIER_CLUSTER_ARRIVE);
    SK_DO(&k, CUTE_INST_BARRIER_CLUSTER_WAIT);
    cute_vreg next = kt_bin(&k, CUTE_OP_REM, kt_bin(&k, CUTE_OP_ADD, ti, kt_i64(&k, 1)), kt_i64(&k, 128));
    cute_vreg theirs = kt_op(&k, CUTE_OP_CVT, cute_type_of(CUTE_U32), kt_ptr_add(&k, buf, next), 0, 0);
    kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 5)), SK_GET(&k, CUTE_INST_LD_SHARED_CLUSTER_U32, SK_GET(&k, CUTE_INST_MAPA, theirs, rank)));
    SK_DO(&k, CUTE_INST_FENCE_PROXY_ASYNC);
    SK_DO(&k, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    cute_vreg bar = kt_smem(&k, CUTE_U64, 1024), dst = kt_smem(&k, CUTE_U32, 1024 + 16), zero = sk_u32(&k, 0);
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 2));
    cute_vreg bits = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, zero);            /* 0: no arrival */
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE, bar);
    cute_vreg b1 = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, zero);              /* 0: 1 of 2 */
    SK_DO(&k, CUTE_INST_MBARRIER_EXPECT_TX, bar, sk_u32(&k, 16));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE, bar);
    cute_vreg b2 = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, zero);              /* 0: 16 bytes due */
    SK_DO(&k, CUTE_INST_CP_ASYNC_BULK_G2S, dst, src, sk_u32(&k, 16), bar);
    sk_wait(&k, bar, zero);
    cute_vreg b3 = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, zero);              /* 1: done */
    cute_vreg b4 = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, sk_u32(&k, 1));     /* 0: phase 1 runs */
    cute_vreg shl[4] = {b1, b2, b3, b4};
    for (int q = 0; q < 4; q++) bits = kt_bin(&k, CUTE_OP_OR, bits, kt_bin(&k, CUTE_OP_SHL, shl[q], sk_u32(&k, q + 1)));
    kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 6)), bits);
    kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 7)), kt_load(&k, dst));
    cute_ir_end(&k.b);
    SK_DO(&k, CUTE_INST_GRIDDEPCONTROL_LAUNCH_DEPENDENTS);
    SK_DO(&k, CUTE_INST_BAR_WARP_SYNC);
    return k.f;
}

/* --- a warp spins on a shared flag that another warp sets (64 threads) ----------------------
 * out[t] = 42 (warp 0, once warp 1's atomic set the flag); 7 (warp 1) */
static inline cute_ir_func *sk_flag(void)
{
    kt k;
    cute_vreg out = sk_begin(&k, "sync_flag", 16, NULL);
    cute_vreg t = sk_tid(&k), flag = kt_smem(&k, CUTE_U32, 0), ti = kt_cvt(&k, t, CUTE_I64);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    kt_store(&k, flag, sk_u32(&k, 0));
    cute_ir_end(&k.b);
    kt_barrier(&k);
    sk_if(&k, CUTE_OP_LT, t, sk_u32(&k, 32));
    cute_vreg v = kt_var(&k, sk_u32(&k, 0));
    cute_ir_while(&k.b);
    cute_ir_mov(&k.b, v, kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_U32), flag, sk_u32(&k, 0), 0));
    k.b.last->imm = CUTE_ATOMIC_ADD;
    cute_ir_while_body(&k.b, kt_cmp(&k, CUTE_OP_EQ, v, sk_u32(&k, 0)));
    cute_ir_end(&k.b);
    kt_store(&k, kt_ptr_add(&k, out, ti), v);
    cute_ir_else(&k.b);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 32));
    kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_U32), flag, sk_u32(&k, 42), 0);
    k.b.last->imm = CUTE_ATOMIC_EXCH;
    cute_ir_end(&k.b);
    kt_store(&k, kt_ptr_add(&k, out, ti), sk_u32(&k, 7));
    cute_ir_end(&k.b);
    return k.f;
}

/* --- a bulk store (shared -> global): 64 threads write a stage, thread 0 stores it --------
 * out[t] = t * 5 + 3.  SK_BULK_EARLY: thread 0 overwrites word 0 before its wait_group.read
 * (*line: that store); SK_BULK_NO_FENCE: no fence.proxy.async after the stage's stores
 * (*line: the bulk store, which reads them through the async proxy) */
typedef enum { SK_BULK_GOOD, SK_BULK_EARLY, SK_BULK_NO_FENCE } sk_bulk_variant;
static inline cute_ir_func *sk_bulk_store(sk_bulk_variant v, int *line)
{
    kt k;
    cute_vreg out = sk_begin(&k, "sync_bulk_store", 256, NULL);
    cute_vreg t = sk_tid(&k), buf = kt_smem(&k, CUTE_U32, 0), word = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, sk_u32(&k, 5)), sk_u32(&k, 3));
    KT_AT(&k.b);
    kt_store(&k, kt_ptr_add(&k, buf, kt_cvt(&k, t, CUTE_I64)), word);
    if (v != SK_BULK_NO_FENCE) SK_DO(&k, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA);
    kt_barrier(&k);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    KT_AT(&k.b); *line = __LINE__;
    SK_DO(&k, CUTE_INST_CP_ASYNC_BULK_S2G, out, buf, sk_u32(&k, 256));
    SK_DO(&k, CUTE_INST_CP_ASYNC_BULK_COMMIT_GROUP);
    KT_AT(&k.b); if (v == SK_BULK_EARLY) *line = __LINE__;
    if (v == SK_BULK_EARLY) kt_store(&k, buf, sk_u32(&k, 9));
    sk_do(&k, CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP_READ, NULL, 0, 0);
    kt_store(&k, buf, sk_u32(&k, 11)); /* after the wait: free to reuse */
    cute_ir_end(&k.b);
    return k.f;
}

/* --- the cluster forms, in a cluster of one block: 32 threads, 4 words each ----------------
 * out[4t + 0] = the OR of the registers that are 0 (clusterid.y/z, cluster_ctaid.x/y/z);
 * 1 = the sum of those that are 1 (nclusterid.x/y/z, cluster_nctaid.y/z): 5; thread 0 only,
 * 2 = 0b111: an arrive.expect_tx and an arrive through the mbarrier's shared::cluster address
 * (release at cluster scope, then at CTA scope) each complete a phase, seen by
 * try_wait.acquire.cluster and test_wait */
static inline cute_ir_func *sk_cluster_forms(void)
{
    kt k;
    cute_vreg out = sk_begin(&k, "sync_cluster_forms", 8, NULL);
    cute_vreg t = sk_tid(&k), o = kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_MUL, kt_cvt(&k, t, CUTE_I64), kt_i64(&k, 4)));
    cute_inst zeros[5] = {CUTE_INST_CLUSTERID_Y, CUTE_INST_CLUSTERID_Z, CUTE_INST_CLUSTER_CTAID_X, CUTE_INST_CLUSTER_CTAID_Y,
                          CUTE_INST_CLUSTER_CTAID_Z};
    cute_inst ones[5] = {CUTE_INST_NCLUSTERID_X, CUTE_INST_NCLUSTERID_Y, CUTE_INST_NCLUSTERID_Z, CUTE_INST_CLUSTER_NCTAID_Y,
                         CUTE_INST_CLUSTER_NCTAID_Z};
    cute_vreg z = sk_u32(&k, 0), n = sk_u32(&k, 0);
    for (int q = 0; q < 5; q++) {
        z = kt_bin(&k, CUTE_OP_OR, z, sk_get(&k, zeros[q], NULL, 0));
        n = kt_bin(&k, CUTE_OP_ADD, n, sk_get(&k, ones[q], NULL, 0));
    }
    kt_store(&k, o, z);
    kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 1)), n);
    SK_DO(&k, CUTE_INST_BARRIER_CLUSTER_ARRIVE_RELAXED);
    SK_DO(&k, CUTE_INST_BARRIER_CLUSTER_WAIT);
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    cute_vreg bar = kt_smem(&k, CUTE_U64, 0);
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 1));
    cute_vreg cb = SK_GET(&k, CUTE_INST_MAPA, kt_op(&k, CUTE_OP_CVT, cute_type_of(CUTE_U32), bar, 0, 0),
                          SK_GET(&k, CUTE_INST_CLUSTER_CTARANK));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX_CLUSTER, cb, sk_u32(&k, 0));
    cute_vreg b0 = SK_GET(&k, CUTE_INST_MBARRIER_TRY_WAIT_PARITY_CLUSTER, bar, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE_CLUSTER, cb);
    cute_vreg b1 = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, sk_u32(&k, 1));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE_CLUSTER_CTA, cb);
    cute_vreg b2 = SK_GET(&k, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, sk_u32(&k, 0));
    cute_vreg b12 = kt_bin(&k, CUTE_OP_OR, kt_bin(&k, CUTE_OP_SHL, b1, sk_u32(&k, 1)), kt_bin(&k, CUTE_OP_SHL, b2, sk_u32(&k, 2)));
    kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 2)), kt_bin(&k, CUTE_OP_OR, b0, b12));
    cute_ir_end(&k.b);
    return k.f;
}

/* --- running them and checking the results ---------------------------------------------- */

/* launch f on 1 block of `threads`: the status; out (n words) downloaded after poisoning */
static inline cute_status sk_run(cute_backend be, cute_ir_func *f, uint32_t threads, const uint32_t *src, size_t nsrc, uint32_t *out,
                       size_t nout)
{
    bool has_src = f->nparams == 2;
    kt k = {f, {0}};
    cute_module *m = kt_compile(be, &k); /* frees f */
    CHECK(m != NULL, "compiles");
    if (!m) return CUTE_ERR_COMPILE;
    uint32_t poison[4096];
    for (size_t i = 0; i < nout; i++) poison[i] = 0xdeadbeef;
    cute_buffer bs = kt_buf(be, src, nsrc * 4), bo = kt_buf(be, poison, nout * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&bs, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    cute_status s = kt_launch(be, m, 1, threads, 0, has_src ? args : args + 1, has_src ? 2 : 1);
    be.vt->download(be.self, out, &bo, 0, nout * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s;
}

static inline void sk_random_words(uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++) w[i] = (uint32_t)rand() & 0xffffff;
}

/* f run on `threads` threads writes want's n words (a word no thread writes keeps the
 * poison, 0xdeadbeef) */
static inline void sk_expect(cute_backend be, const char *what, cute_ir_func *f, uint32_t threads, const uint32_t *src,
                             size_t nsrc, const uint32_t *want, size_t n)
{
    uint32_t out[4096];
    CHECK(sk_run(be, f, threads, src, nsrc, out, n) == CUTE_OK, "%s runs: %s", what, be.vt->error(be.self));
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (out[i] != want[i]) bad++, first = first < n ? first : i;
    CHECK(bad == 0, "%s: %zu of %zu words wrong (word %zu: %#x, want %#x)", what, bad, n, first, first < n ? out[first] : 0,
          first < n ? want[first] : 0);
}

static inline void sk_pipeline_good(cute_backend be)
{
    enum { N = SK_ITERS * SK_WORDS };
    uint32_t src[N], want[N];
    sk_random_words(src, N);
    for (int i = 0; i < N; i++) want[i] = src[i] * 2 + 1;
    sk_lines L;
    sk_expect(be, "pipeline", sk_pipeline(SK_GOOD, &L), 64, src, N, want, N);
}

/* named barriers: every thread's word as the barriers ordered them */
static inline void sk_named_good(cute_backend be)
{
    uint32_t want[128];
    for (uint32_t t = 0; t < 128; t++) want[t] = t < 64 ? (t ^ 32) + 100 : t < 96 ? t + 100 : t - 32 + 100;
    int line;
    sk_expect(be, "named barriers", sk_named(false, &line), 128, NULL, 0, want, 128);
}

static inline void sk_flag_spin(cute_backend be)
{
    uint32_t want[64];
    for (int t = 0; t < 64; t++) want[t] = t < 32 ? 42u : 7u;
    sk_expect(be, "flag spin", sk_flag(), 64, NULL, 0, want, 64);
}

static inline void sk_rows_check(cute_backend be)
{
    uint32_t src[4] = {(uint32_t)rand(), 2, 3, 4}, want[128 * 8];
    for (uint32_t t = 0; t < 128; t++) {
        uint32_t *w = &want[8 * t];
        w[0] = t % 32 == 0, w[1] = 0, w[2] = 1, w[3] = 0, w[4] = 1;
        w[5] = (t + 1) % 128 * 3 + 1;
        w[6] = t == 0 ? 0x8 : 0xdeadbeef, w[7] = t == 0 ? src[0] : 0xdeadbeef; /* thread 0's */
    }
    sk_expect(be, "rows", sk_rows(), 128, src, 4, want, 128 * 8);
}

static inline void sk_cluster_forms_check(cute_backend be)
{
    uint32_t want[32 * 4];
    for (uint32_t t = 0; t < 32; t++)
        want[4 * t] = 0, want[4 * t + 1] = 5, want[4 * t + 2] = t == 0 ? 7u : 0xdeadbeef, want[4 * t + 3] = 0xdeadbeef;
    sk_expect(be, "cluster forms", sk_cluster_forms(), 32, NULL, 0, want, 32 * 4);
}

static inline void sk_bulk_store_check(cute_backend be)
{
    uint32_t want[64];
    for (uint32_t t = 0; t < 64; t++) want[t] = t * 5 + 3;
    int line;
    sk_expect(be, "bulk store", sk_bulk_store(SK_BULK_GOOD, &line), 64, NULL, 0, want, 64);
}

#endif
