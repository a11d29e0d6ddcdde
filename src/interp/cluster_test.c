/* Thread-block clusters of several blocks on the interpreter, which runs a cluster's blocks
 * together as the hardware co-schedules them: distributed shared memory (mapa, then
 * ld/st.shared::cluster into the neighbour's shared memory), barrier.cluster across the
 * blocks, an mbarrier arrival on another block's mbarrier releasing its waiting warp, st.async
 * into another block completing on its mbarrier, in
 * clusters of (2,1,1) and (2,2,1) over grids of several clusters, on one and on several
 * workers; and the checks: races through distributed shared memory (a remote store or load
 * and the owner's access with no cluster sync between), an address naming a rank outside the cluster, an access to a
 * block that exited (no cluster sync before its exit), a cluster barrier one block never
 * reaches (a deadlock naming the warps of both blocks). */
#include <stdlib.h>

#include "check.h"
#include "interp/sync_testkit.h"

enum { T = 64 };

static cute_vreg rank_of(kt *k) { return SK_GET(k, CUTE_INST_CLUSTER_CTARANK); }
static void cluster_sync(kt *k)
{
    SK_DO(k, CUTE_INST_BARRIER_CLUSTER_ARRIVE);
    SK_DO(k, CUTE_INST_BARRIER_CLUSTER_WAIT);
}
/* the shared::cluster address of shared pointer p in the block of rank r */
static cute_vreg remote(kt *k, cute_vreg p, cute_vreg r)
{
    return SK_GET(k, CUTE_INST_MAPA, kt_op(k, CUTE_OP_CVT, cute_type_of(CUTE_U32), p, 0, 0), r);
}
/* the block's linear index in a grid of nctaid.x x y blocks */
static cute_vreg block_linear(kt *k)
{
    cute_vreg x = kt_sreg64(k, CUTE_SREG_CTAID_X), y = kt_sreg64(k, CUTE_SREG_CTAID_Y);
    return kt_bin(k, CUTE_OP_ADD, x, kt_bin(k, CUTE_OP_MUL, y, kt_sreg64(k, CUTE_SREG_NCTAID_X)));
}

/* every block: a[t] = rank * 1000 + t; cluster sync; v = the next rank's a[t] (through
 * ld.shared::cluster); the next rank's b[t] = rank * 7 + 1 (st.shared::cluster); cluster
 * sync; w = b[t]; cluster sync (no block exits while another may read it).
 * out[2 (block * T + t)] = v, [+1] = w */
static cute_ir_func *exchange(void)
{
    kt k;
    kt_begin(&k, "cluster_exchange");
    cute_vreg out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = 2 * T * 4;
    cute_vreg t = sk_tid(&k), ti = kt_cvt(&k, t, CUTE_I64), rank = rank_of(&k), n = SK_GET(&k, CUTE_INST_CLUSTER_NCTARANK);
    cute_vreg a = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 0), ti), b = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 4 * T), ti);
    kt_store(&k, a, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, 1000)), t));
    cluster_sync(&k);
    cute_vreg next = kt_bin(&k, CUTE_OP_REM, kt_bin(&k, CUTE_OP_ADD, rank, sk_u32(&k, 1)), n);
    cute_vreg v = SK_GET(&k, CUTE_INST_LD_SHARED_CLUSTER_U32, remote(&k, a, next));
    SK_DO(&k, CUTE_INST_ST_SHARED_CLUSTER_U32, remote(&k, b, next), kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, 7)), sk_u32(&k, 1)));
    cluster_sync(&k);
    cute_vreg w = kt_load(&k, b);
    cluster_sync(&k);
    cute_vreg o = kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_MUL, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, block_linear(&k), kt_i64(&k, T)), ti), kt_i64(&k, 2)));
    kt_store(&k, o, v);
    kt_store(&k, kt_ptr_add(&k, o, kt_i64(&k, 1)), w);
    return k.f;
}

/* a launch of f on grid (gx,gy) in clusters (cx,cy) of T threads: status; out poisoned first */
static cute_status launch(cute_backend be, cute_ir_func *f, cute_dim3 grid, cute_dim3 cluster, uint32_t *out, size_t nout)
{
    kt k = {f, {0}};
    cute_module *m = kt_compile(be, &k);
    if (!m) return CUTE_ERR_COMPILE;
    for (size_t i = 0; i < nout; i++) out[i] = 0xdeadbeef;
    cute_buffer bo = kt_buf(be, out, nout * 4);
    cute_launch_arg arg = kt_arg_buf(&bo, CUTE_U32);
    cute_launch cfg = {.grid = grid, .block = {T, 1, 1}, .cluster = cluster};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, &arg, 1);
    be.vt->download(be.self, out, &bo, 0, nout * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bo);
    return s;
}

static void exchanges(int workers, cute_dim3 grid, cute_dim3 cl)
{
    cute_backend be = kt_backend(&(cute_interp_opts){.threads = workers});
    uint32_t nb = grid.x * grid.y, n = cl.x * cl.y, out[2 * 8 * T];
    cute_status s = launch(be, exchange(), grid, cl, out, 2 * nb * T);
    CHECK(s == CUTE_OK, "exchange in clusters of (%u,%u): %s", cl.x, cl.y, be.vt->error(be.self));
    int bad = 0;
    for (uint32_t blk = 0; blk < nb; blk++) {
        uint32_t x = blk % grid.x, y = blk / grid.x, rank = x % cl.x + y % cl.y * cl.x;
        for (uint32_t t = 0; t < T; t++) {
            const uint32_t *o = &out[2 * (blk * T + t)];
            bad += o[0] != (rank + 1) % n * 1000 + t || o[1] != (rank + n - 1) % n * 7 + 1;
        }
    }
    CHECK(bad == 0, "exchange in clusters of (%u,%u), %d worker%s: %d of %u threads wrong", cl.x, cl.y, workers,
          workers > 1 ? "s" : "", bad, nb * T);
    be.vt->destroy(be.self);
}

/* rank 1's warp 0 waits on its mbarrier (32 arrivals) that rank 0's warp 1 arrives on from
 * its block, after storing into rank 1's a[t] (t < 32); then reads a[t].  rank 0's warp 0
 * and rank 1's warp 1 only take part in the last cluster sync.  out[block * T + t] */
static cute_ir_func *remote_arrive(void)
{
    kt k;
    kt_begin(&k, "cluster_remote_arrive");
    cute_vreg out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = 4 * T + 8;
    cute_vreg t = sk_tid(&k), lane = kt_bin(&k, CUTE_OP_REM, t, sk_u32(&k, 32)), warp = kt_bin(&k, CUTE_OP_DIV, t, sk_u32(&k, 32));
    cute_vreg rank = rank_of(&k), bar = kt_smem(&k, CUTE_U64, 4 * T);
    cute_vreg a = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 0), kt_cvt(&k, lane, CUTE_I64));
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 32));
    SK_DO(&k, CUTE_INST_FENCE_MBARRIER_INIT);
    cute_ir_end(&k.b);
    cluster_sync(&k); /* the barrier initialized before the other block arrives on it */
    cute_vreg v = kt_var(&k, sk_u32(&k, 0));
    sk_if(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, 2)), warp), sk_u32(&k, 1)); /* rank 0, warp 1 */
    cute_vreg one = sk_u32(&k, 1);
    SK_DO(&k, CUTE_INST_ST_SHARED_CLUSTER_U32, remote(&k, a, one), kt_bin(&k, CUTE_OP_ADD, lane, sk_u32(&k, 500)));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE_CLUSTER, remote(&k, bar, one));
    cute_ir_end(&k.b);
    sk_if(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, 2)), warp), sk_u32(&k, 2)); /* rank 1, warp 0 */
    sk_wait(&k, bar, sk_u32(&k, 0));
    cute_ir_mov(&k.b, v, kt_load(&k, a));
    cute_ir_end(&k.b);
    cluster_sync(&k);
    kt_store(&k, kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, block_linear(&k), kt_i64(&k, T)), kt_cvt(&k, t, CUTE_I64))), v);
    return k.f;
}

static void remote_arrival(void)
{
    cute_backend be = kt_backend(&(cute_interp_opts){.threads = 1});
    uint32_t out[4 * T];
    cute_status s = launch(be, remote_arrive(), (cute_dim3){4, 1, 1}, (cute_dim3){2, 1, 1}, out, 4 * T);
    CHECK(s == CUTE_OK, "remote arrival: %s", be.vt->error(be.self));
    int bad = 0;
    for (uint32_t blk = 0; blk < 4; blk++)
        for (uint32_t t = 0; t < T; t++) bad += out[blk * T + t] != (blk % 2 == 1 && t < 32 ? t + 500 : 0);
    CHECK(bad == 0, "remote arrival: %d of %u words wrong", bad, 4 * T);
    be.vt->destroy(be.self);
}

/* st.async: rank 0's first warp stores lane + 900 into rank 1's a[lane], each store
 * completing 4 bytes on rank 1's mbarrier (on rank 0's own: `wrong_bar`), which rank 1's
 * thread 0 arms with the warp's 128 bytes; rank 1's first warp waits on its phase (unless
 * `no_wait`) and reads a[lane].  out[block * T + t] = the value read (0 elsewhere). */
static cute_ir_func *async_store(bool wrong_bar, bool no_wait)
{
    kt k;
    kt_begin(&k, "cluster_st_async");
    cute_vreg out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = 4 * T + 8;
    cute_vreg t = sk_tid(&k), rank = rank_of(&k), bar = kt_smem(&k, CUTE_U64, 4 * T);
    cute_vreg a = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 0), kt_cvt(&k, t, CUTE_I64)), v = kt_var(&k, sk_u32(&k, 0));
    sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 1));
    SK_DO(&k, CUTE_INST_FENCE_MBARRIER_INIT);
    cute_ir_end(&k.b);
    cluster_sync(&k); /* the peers see the init */
    cute_vreg one = sk_u32(&k, 1), warp = kt_bin(&k, CUTE_OP_DIV, t, sk_u32(&k, 32));
    cute_vreg key = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, 2)), warp); /* rank 2 + warp */
    sk_if(&k, CUTE_OP_EQ, key, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_ST_ASYNC_U32, remote(&k, a, one), kt_bin(&k, CUTE_OP_ADD, t, sk_u32(&k, 900)),
          remote(&k, bar, wrong_bar ? sk_u32(&k, 0) : one)); /* rank 0, warp 0 */
    cute_ir_end(&k.b);
    sk_if(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, T)), t), sk_u32(&k, T));
    SK_DO(&k, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX, bar, sk_u32(&k, 4 * 32)); /* rank 1, thread 0 */
    cute_ir_end(&k.b);
    sk_if(&k, CUTE_OP_EQ, key, sk_u32(&k, 2));
    if (!no_wait) sk_wait(&k, bar, sk_u32(&k, 0)); /* rank 1, warp 0 */
    cute_ir_mov(&k.b, v, kt_load(&k, a));
    cute_ir_end(&k.b);
    cluster_sync(&k);
    kt_store(&k, kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, block_linear(&k), kt_i64(&k, T)), kt_cvt(&k, t, CUTE_I64))), v);
    return k.f;
}

static void async_stores(void)
{
    cute_backend be = kt_backend(&(cute_interp_opts){.threads = 1, .max_reports = 4});
    uint32_t out[2 * T];
    cute_status s = launch(be, async_store(false, false), (cute_dim3){2, 1, 1}, (cute_dim3){2, 1, 1}, out, 2 * T);
    CHECK(s == CUTE_OK, "st.async: %s", be.vt->error(be.self));
    int bad = 0;
    for (uint32_t t = 0; t < 2 * T; t++) bad += out[t] != (t >= T && t < T + 32 ? t - T + 900 : 0);
    CHECK(bad == 0, "st.async: %d of %u words wrong", bad, 2 * T);
    s = launch(be, async_store(false, true), (cute_dim3){2, 1, 1}, (cute_dim3){2, 1, 1}, out, 2 * T);
    CHECK(s == CUTE_ERR_CHECK, "st.async read without the mbarrier's wait: %s, not a failed check", cute_status_name(s));
    s = launch(be, async_store(true, false), (cute_dim3){2, 1, 1}, (cute_dim3){2, 1, 1}, out, 2 * T);
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(s == CUTE_ERR_CHECK && r && r->kind == CUTE_CHECK_SYNC_MISUSE && strstr(r->msg, "the mbarrier lies in another block"),
          "st.async onto another block's mbarrier: %s", r ? r->msg : cute_status_name(s));
    be.vt->destroy(be.self);
}

/* Races through distributed shared memory: after a cluster sync, rank 0 stores t + 100 into
 * rank 1's w[t] (remote_store) or loads rank 1's w[t] (else), while rank 1 loads its w[t]
 * (remote_store) or stores t + 7 into it (else); `synced` puts a cluster sync between the two
 * sides.  out[block * T + t] = the value loaded. */
static cute_ir_func *dsmem_pair(bool remote_store, bool synced)
{
    kt k;
    kt_begin(&k, "cluster_dsmem_pair");
    cute_vreg out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = 4 * T;
    cute_vreg t = sk_tid(&k), ti = kt_cvt(&k, t, CUTE_I64), rank = rank_of(&k);
    cute_vreg w = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 0), ti), v = kt_var(&k, sk_u32(&k, 0));
    kt_store(&k, w, t);
    cluster_sync(&k);
    cute_vreg peer = remote(&k, w, sk_u32(&k, 1));
    sk_if(&k, CUTE_OP_EQ, rank, sk_u32(&k, 0));
    if (remote_store) SK_DO(&k, CUTE_INST_ST_SHARED_CLUSTER_U32, peer, kt_bin(&k, CUTE_OP_ADD, t, sk_u32(&k, 100)));
    else cute_ir_mov(&k.b, v, SK_GET(&k, CUTE_INST_LD_SHARED_CLUSTER_U32, peer));
    cute_ir_end(&k.b);
    if (synced) cluster_sync(&k);
    sk_if(&k, CUTE_OP_EQ, rank, sk_u32(&k, 1));
    if (remote_store) cute_ir_mov(&k.b, v, kt_load(&k, w));
    else kt_store(&k, w, kt_bin(&k, CUTE_OP_ADD, t, sk_u32(&k, 7)));
    cute_ir_end(&k.b);
    cluster_sync(&k);
    kt_store(&k, kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, block_linear(&k), kt_i64(&k, T)), ti)), v);
    return k.f;
}

static void dsmem_races(void)
{
    for (int store = 0; store < 2; store++) {
        const char *what = store ? "a remote store, then the owner's load" : "a remote load, then the owner's store";
        cute_backend be = kt_backend(&(cute_interp_opts){.threads = 1, .max_reports = 4});
        uint32_t out[2 * T];
        cute_status s = launch(be, dsmem_pair(store, true), (cute_dim3){2, 1, 1}, (cute_dim3){2, 1, 1}, out, 2 * T);
        CHECK(s == CUTE_OK, "%s, a cluster sync between: %s", what, be.vt->error(be.self));
        int bad = 0;
        for (uint32_t t = 0; t < T; t++) bad += out[t] != (store ? 0 : t) || out[T + t] != (store ? t + 100 : 0);
        CHECK(bad == 0, "%s, a cluster sync between: %d of %u words wrong", what, bad, 2 * T);
        s = launch(be, dsmem_pair(store, false), (cute_dim3){2, 1, 1}, (cute_dim3){2, 1, 1}, out, 2 * T);
        const cute_interp_report *r = kt_report(be, 0);
        if (r) printf("  %s\n", r->msg);
        CHECK(s == CUTE_ERR_CHECK && r && r->kind == CUTE_CHECK_SHARED_RACE &&
                  strstr(r->msg, "with no barrier between") && strstr(r->msg, "cluster"),
              "%s, unsynchronized: a race naming the cluster, not %s: %s", what, cute_status_name(s),
              r ? r->msg : "no report");
        be.vt->destroy(be.self);
    }
}

/* --- the checks ------------------------------------------------------------------------------ */

typedef enum { OUTSIDE, EXITED, NO_CLUSTER_SYNC, RANK1_FAULT } misuse_kind;
static int misuse_line;

/* OUTSIDE: a load through an address naming rank 7 of a cluster of 2; EXITED: rank 1 returns
 * at once, rank 0 spins three times (letting it run) and then loads from rank 1's shared
 * memory; NO_CLUSTER_SYNC: rank 1 waits on an mbarrier nobody arrives on, rank 0 at a cluster
 * barrier; RANK1_FAULT: rank 1 stores past shared memory, rank 0 waits at a cluster barrier
 * (the fault is the report: rank 0, halted with it, reports nothing) */
static cute_ir_func *misuse(misuse_kind kind)
{
    kt k;
    kt_begin(&k, "cluster_misuse");
    cute_vreg out = kt_param_ptr(&k, CUTE_U32, "out");
    k.f->smem_bytes = 8 * T + 8;
    cute_vreg t = sk_tid(&k), ti = kt_cvt(&k, t, CUTE_I64), rank = rank_of(&k), bar = kt_smem(&k, CUTE_U64, 8 * T);
    cute_vreg w = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 0), ti), spin = kt_ptr_add(&k, kt_smem(&k, CUTE_U32, 4 * T), ti);
    kt_store(&k, w, t);
    kt_store(&k, spin, sk_u32(&k, 0));
    sk_if(&k, CUTE_OP_EQ, rank, sk_u32(&k, 1));
    KT_AT(&k.b); if (kind == RANK1_FAULT) misuse_line = __LINE__;
    if (kind == RANK1_FAULT) kt_store(&k, kt_ptr_add(&k, w, kt_i64(&k, 4 * T)), t);
    if (kind == NO_CLUSTER_SYNC) {
        sk_if(&k, CUTE_OP_EQ, t, sk_u32(&k, 0));
        SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, T));
        cute_ir_end(&k.b);
        kt_barrier(&k);
        sk_wait(&k, bar, sk_u32(&k, 0));
    }
    cute_ir_op_void(&k.b, CUTE_OP_RETURN, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    cute_ir_end(&k.b);
    if (kind == EXITED) { /* each iteration lets the other warps run: rank 1's end */
        cute_ir_while(&k.b);
        cute_ir_while_body(&k.b, kt_cmp(&k, CUTE_OP_LT, kt_load(&k, spin), sk_u32(&k, 3)));
        kt_store(&k, spin, kt_bin(&k, CUTE_OP_ADD, kt_load(&k, spin), sk_u32(&k, 1)));
        cute_ir_end(&k.b);
    }
    cute_vreg mine = kt_op(&k, CUTE_OP_CVT, cute_type_of(CUTE_U32), w, 0, 0);
    cute_vreg addr = kind == OUTSIDE ? kt_bin(&k, CUTE_OP_OR, mine, sk_u32(&k, 8u << 24)) /* rank 7 */
                                     : remote(&k, w, sk_u32(&k, 1));
    KT_AT(&k.b); if (kind != RANK1_FAULT) misuse_line = __LINE__;
    if (kind == OUTSIDE || kind == EXITED) kt_store(&k, kt_ptr_add(&k, out, kt_cvt(&k, t, CUTE_I64)), SK_GET(&k, CUTE_INST_LD_SHARED_CLUSTER_U32, addr));
    else cluster_sync(&k);
    return k.f;
}

static const cute_interp_report *misused(misuse_kind kind, int max_reports, const char *what)
{
    static cute_backend be;
    if (be.self) be.vt->destroy(be.self);
    be = kt_backend(&(cute_interp_opts){.threads = 1, .max_reports = max_reports});
    uint32_t out[2 * T];
    cute_status s = launch(be, misuse(kind), (cute_dim3){2, 1, 1}, (cute_dim3){2, 1, 1}, out, 2 * T);
    CHECK(s == CUTE_ERR_CHECK, "%s: a check, not %s", what, cute_status_name(s));
    const cute_interp_report *r = kt_report(be, 0);
    if (r) printf("  %s\n", r->msg);
    CHECK(r && r->line == misuse_line, "%s: reported at line %d: %s", what, misuse_line, r ? r->msg : "no report");
    return r;
}

static void misuses(void)
{
    const cute_interp_report *r = misused(OUTSIDE, 4, "a rank outside the cluster");
    CHECK(r && r->kind == CUTE_CHECK_SHARED_BOUNDS && strstr(r->msg, "names block 7 of the cluster, which has 2 blocks"),
          "outside: %s", r ? r->msg : "");
    r = misused(EXITED, 4, "a block that exited");
    CHECK(r && r->kind == CUTE_CHECK_SYNC_MISUSE && strstr(r->msg, "the cluster's block 1, block (1,0,0), which has exited"),
          "exited: %s", r ? r->msg : "");
    r = misused(NO_CLUSTER_SYNC, 4, "a cluster barrier block 1 never reaches");
    CHECK(r && r->kind == CUTE_CHECK_DEADLOCK && strstr(r->msg, "waits at barrier.cluster.wait: 64 of the cluster's 128 "
                                                                "live threads arrived (2 blocks)"), "deadlock: %s", r ? r->msg : "");
    r = misused(RANK1_FAULT, 1, "a fault in rank 1 while rank 0 waits for it");
    CHECK(r && r->kind == CUTE_CHECK_SHARED_BOUNDS && r->block.x == 1, "the fault, in block 1: %s", r ? r->msg : "");
}

int main(void)
{
    exchanges(1, (cute_dim3){4, 1, 1}, (cute_dim3){2, 1, 1});
    exchanges(1, (cute_dim3){4, 2, 1}, (cute_dim3){2, 2, 1});
    exchanges(3, (cute_dim3){4, 2, 1}, (cute_dim3){2, 1, 1});
    exchanges(2, (cute_dim3){4, 2, 1}, (cute_dim3){4, 1, 1});
    remote_arrival();
    async_stores();
    dsmem_races();
    misuses();
    return CHECK_DONE("interp clusters");
}
