/* A row split over a thread-block cluster (rows_internal.h's row_cluster): each block holds
 * a tile of the row in its registers and all-reduces its part; then each block writes its
 * partial into a slot of every block's shared memory (st.shared::cluster through mapa), a
 * cluster barrier (arrive: release, wait: acquire) makes them visible, and every block
 * combines the slots in a fixed tree in rank order, so every block gets the same bits.  HBM sees each
 * element once, however long the row; only a few words a block cross the cluster. */
#include "cutec/sync.h"
#include "kernels/rows/rows_internal.h"

row_cluster row_cluster_alloc(cute_ctx *c, cute_smem_allocator *A, const row_plan *p)
{
    row_cluster cl = {0};
    if (p->cluster < 2) return cl;
    int n = p->cluster;
    cute_layout lay = cute_layout_fmt(cute_ctx_alg(c), "(%d,4,%d):(1,%d,%d)", n, 2 * ROW_STAGES, n, 4 * n);
    cl.slots = cute_smem_alloc_tensor(c, A, CUTE_F32, lay, 16);
    cl.on = true, cl.n = n;
    return cl;
}

static cute_tensor slot(cute_ctx *c, const row_cluster *cl, cute_int rank, int k, cute_int which)
{
    return cute_tensor_slice(c, cl->slots, cute_tuple_fmt(cute_ctx_alg(c), "(%I,%d,%I)", rank, k, which));
}

/* threads 0 .. n-1 each write this block's values into block `tid`'s slots */
static void scatter(cute_ctx *c, const row_cluster *cl, int arity, const cute_val *v, cute_int which)
{
    int n = cl->n;
    cute_int tid = cute_thread_idx(c, 0);
    cute_int me = cute_int_from_val(c, cute_val_cvt(c, cute_block_idx_in_cluster(c), CUTE_I64), 0);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(n))) {
        cute_val peer = cute_val_cvt(c, cute_int_value(c, tid, CUTE_I64), CUTE_U32);
        for (int k = 0; k < arity; k++) {
            cute_val at = cute_tensor_ptr(c, slot(c, cl, me, k, which), cute_i(0));
            cute_st_shared_cluster_u32(c, cute_mapa(c, at, peer), v[k]);
        }
    }
}

static cute_int parity_slot(cute_ctx *c, int st, cute_int it)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_add(a, cute_mul(a, cute_mod(a, it, cute_i(2)), cute_i(ROW_STAGES)), cute_i(st));
}

void row_cluster_post(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, const cute_val *v, int st, cute_int it)
{
    if (!cl->on) return;
    scatter(c, cl, r->arity, v, parity_slot(c, st, it));
    cute_cluster_arrive(c);
}

/* the slots combined pairwise in rank order, level by level ((0,1), (2,3), ...; then
 * ((0,1),(2,3)), ...): the same bits in every block, log2 C dependent combines on the
 * critical path where a chain in rank order took C - 1 (each an online-softmax step of two
 * exponentials in softmax's) */
void row_cluster_collect(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, cute_val *v, int st, cute_int it)
{
    if (!cl->on) return;
    cute_int which = parity_slot(c, st, it);
    cute_val vals[ROW_CLUSTER_MAX][4];
    cute_cluster_wait(c);
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
