/* A row split over a thread-block cluster (rows_internal.h's row_cluster): each block holds
 * a part of the row and all-reduces it over its threads; then threads 0..C-1 store the
 * block's values into slot `rank` of every block's shared memory (st.async through mapa),
 * each store completing 4 transaction bytes on that block's mbarrier of the slot set; every
 * block waits on its own mbarrier and combines the slots in a fixed tree in rank order, so
 * every block gets the same bits.  HBM sees each element once, however long the row; only a
 * few words a block cross the cluster.
 *
 * Why st.async: a release arrive on the cluster barrier (rows7's exchange: measured slower,
 * deleted; bench/RESULTS.md, rows8) makes ptxas put MEMBAR.ALL.GPU before it, and so does
 * barrier.cluster.arrive.release before ld.shared::cluster; ncu gave the fence 14% of the
 * stall samples of softmax at 1024x262144.  The mbarrier's phase orders the stores: no fence.
 *
 * A slot set's next use is two rows later; a block posts row i+2 only after it has collected
 * row i+1, which needs every peer's post of row i+1, which each peer makes after its block
 * barrier that follows its reads of row i's slots (the next reduction's): so no store lands
 * in slots still being read, nor on an mbarrier whose phase is still open. */
#include "cutec/sync.h"
#include "kernels/rows/rows_internal.h"

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

/* the slot sets' mbarriers, one arrival (the block's thread 0, with the bytes it expects) a
 * phase; the peers must see their init before their first store: a relaxed cluster arrive
 * here, its wait before the block's first post (row_cluster_post), so the block's first
 * loads are issued meanwhile */
static void bars_init(cute_ctx *c, row_cluster *cl)
{
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        for (int i = 0; i < 2 * cl->stages; i++) cute_mbarrier_init(c, cute_tensor_ptr(c, cl->bars, cute_i(i)), u32(c, 1));
        cute_mbarrier_init_fence(c);
    }
    cute_cluster_arrive_relaxed(c);
}

row_cluster row_cluster_alloc(cute_ctx *c, cute_smem_allocator *A, const row_plan *p)
{
    row_cluster cl = {0};
    if (p->cluster < 2) return cl;
    int n = p->cluster, values = 4;
    cl.stages = ROW_STAGES;
    /* rows40's "slim" (the plan's slots_slim, the default): RMSNorm's one stage of one value at
     * 64 KB parts takes 64 bytes of slots where 512 held 4 values of 2 stages, so that three
     * blocks an SM (65,664 bytes each and the runtime's 1 KB) fit the 196 KB carveout (L1 60
     * KB) where 66,128 passed it (228 KB: L1 28 KB for the write pass's weight loads): H200,
     * RMSNorm bf16 1024x262144 86.8 / 87.4 -> 89.4 / 88.8% of the copy */
    if (p->slots_slim) {
        cl.stages = p->op->stages, values = 1;
        for (int st = 0; st < p->op->stages; st++)
            values = p->op->reducer(st).arity > values ? p->op->reducer(st).arity : values;
    }
    cute_alg *a = cute_ctx_alg(c);
    cute_layout lay = cute_layout_fmt(a, "(%d,%d,%d):(1,%d,%d)", n, values, 2 * cl.stages, n, values * n);
    cl.slots = cute_smem_alloc_tensor(c, A, CUTE_F32, lay, 16);
    cl.on = true, cl.n = n;
    cute_layout L = cute_make_layout(a, cute_tuple_int(cute_i(2 * cl.stages)));
    cl.bars = cute_make_tensor(c, cute_smem_alloc_array(c, A, CUTE_U64, 2 * cl.stages, 8), L, 8);
    bars_init(c, &cl);
    return cl;
}

static cute_tensor slot(cute_ctx *c, const row_cluster *cl, cute_int rank, int k, cute_int which)
{
    return cute_tensor_slice(c, cl->slots, cute_tuple_fmt(cute_ctx_alg(c), "(%I,%d,%I)", rank, k, which));
}

static cute_val bar_of(cute_ctx *c, const row_cluster *cl, cute_int which)
{
    return cute_tensor_ptr(c, cl->bars, which);
}

/* threads 0 .. n-1 each write this block's values into block `tid`'s slots */
static void scatter(cute_ctx *c, const row_cluster *cl, int arity, const cute_val *v, cute_int which)
{
    int n = cl->n;
    cute_int tid = cute_thread_idx(c, 0);
    cute_int me = cute_int_from_val(c, cute_val_cvt(c, cute_block_idx_in_cluster(c), CUTE_I64), 0);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(n))) {
        cute_val peer = cute_val_cvt(c, cute_int_value(c, tid, CUTE_I64), CUTE_U32);
        cute_val bar = cute_mapa(c, bar_of(c, cl, which), peer);
        for (int k = 0; k < arity; k++) {
            cute_val at = cute_mapa(c, cute_tensor_ptr(c, slot(c, cl, me, k, which), cute_i(0)), peer);
            cute_st_async_u32(c, at, v[k], bar);
        }
    }
}

static cute_int parity_slot(cute_ctx *c, const row_cluster *cl, int st, cute_int it)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_add(a, cute_mul(a, cute_mod(a, it, cute_i(2)), cute_i(cl->stages)), cute_i(st));
}

/* the mbarriers' init seen by every peer (bars_init's arrive), once, before the first store */
static void first_post(cute_ctx *c, int st, cute_int it)
{
    if (st == 0) {
        CUTE_IF(c, cute_int_eq(c, it, cute_i(0))) { cute_cluster_wait(c); }
    }
}

void row_cluster_post(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, const cute_val *v, int st, cute_int it)
{
    if (!cl->on) return;
    cute_int which = parity_slot(c, cl, st, it);
    first_post(c, st, it);
    scatter(c, cl, r->arity, v, which);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        cute_mbarrier_arrive_and_expect_tx(c, bar_of(c, cl, which), u32(c, 4 * cl->n * r->arity));
    }
}

/* wait until this block's slots of stage st, row it, hold every peer's values: the slot
 * set's mbarrier, whose phase flips once every two rows */
static void wait_slots(cute_ctx *c, const row_cluster *cl, cute_int which, cute_int it)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int phase = cute_mod(a, cute_div(a, it, cute_i(2)), cute_i(2));
    cute_mbarrier_wait(c, bar_of(c, cl, which), cute_val_cvt(c, cute_int_value(c, phase, CUTE_I64), CUTE_U32));
}

/* the slots combined pairwise in rank order, level by level ((0,1), (2,3), ...; then
 * ((0,1),(2,3)), ...): the same bits in every block, log2 C dependent combines on the
 * critical path where a chain in rank order took C - 1 (each an online-softmax step of two
 * exponentials in softmax's) */
void row_cluster_collect(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, cute_val *v, int st, cute_int it)
{
    if (!cl->on) return;
    cute_int which = parity_slot(c, cl, st, it);
    cute_val vals[ROW_CLUSTER_MAX][4];
    wait_slots(c, cl, which, it);
    for (int q = 0; q < cl->n; q++)
        for (int k = 0; k < r->arity; k++)
            vals[q][k] = cute_ssa_get(c, cute_tensor_load(c, slot(c, cl, cute_i(q), k, which)), 0);
    for (int width = 1; width < cl->n; width *= 2)
        for (int q = 0; q + width < cl->n; q += 2 * width) {
            cute_val out[4];
            cute_reducer_apply(c, r, vals[q], vals[q + width], out);
            for (int k = 0; k < r->arity; k++) vals[q][k] = out[k];
        }
    for (int k = 0; k < r->arity; k++) v[k] = vals[0][k];
}

void row_cluster_allreduce(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, cute_val *v, int st,
                           cute_int it)
{
    row_cluster_post(c, cl, r, v, st, it);
    row_cluster_collect(c, cl, r, v, st, it);
}
