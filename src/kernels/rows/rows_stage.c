/* Rows staged in shared memory (rows_internal.h's row_stage): a row too long for the block's
 * registers but short enough for its shared memory is fetched once by bulk copies (one
 * cp.async.bulk per row input, issued by thread 0, completing its bytes on an mbarrier), and
 * the chunked walk of its stages and its write pass reads the chunks from there.  HBM sees
 * each input once; blocks of 256 threads, several an SM, keep the SM's loads going while one
 * of them reduces. */
#include "cutec/sync.h"
#include "kernels/rows/rows_internal.h"

row_stage row_stage_alloc(cute_ctx *c, cute_smem_allocator *A, const row_plan *p)
{
    row_stage st = {0};
    if (!p->stage_chunks) return st;
    cute_alg *a = cute_ctx_alg(c);
    int64_t cap = p->stage_chunks * row_plan_tile(p);
    cute_tuple rt = cute_tuple_fmt(a, "(1,%lld)", (long long)row_plan_tile(p));
    cute_tiler tile = cute_tiler_shape(a, &rt);
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == ROW_IN) {
            cute_layout row = cute_layout_fmt(a, "(1,%lld):(0,1)", (long long)cap);
            st.s[s] = cute_tensor_zipped_divide(c, cute_smem_alloc_tensor(c, A, p->dtype[s], row, 16), &tile);
        }
    st.bar = cute_smem_alloc_array(c, A, CUTE_U64, 1, 8);
    st.on = true;
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        cute_mbarrier_init(c, st.bar, cute_val_int(c, CUTE_U32, 1));
        cute_mbarrier_init_fence(c);
    }
    cute_barrier(c);
    return st;
}

/* the first element of row block rb's tile of a zipped row tensor */
static cute_val row_start(cute_ctx *c, cute_tensor g, cute_int rb)
{
    cute_tensor t = cute_tensor_slice(c, g, CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), CUTE_CRD(rb, cute_i(0))));
    return cute_tensor_ptr(c, t, cute_i(0));
}

void row_stage_fetch(cute_ctx *c, const row_stage *st, const row_plan *p, const cute_tensor *g, cute_int rb,
                     cute_int n, cute_int it)
{
    if (!st->on) return;
    cute_alg *a = cute_ctx_alg(c);
    int inputs = 0;
    for (int s = 0; s < p->op->nslots; s++) inputs += p->has[s] && p->op->slot[s].role == ROW_IN;
    /* a row of n elements is n * size bytes, a multiple of 16 (the plan stages 16-byte
     * vectors only), from a 16-byte aligned start */
    cute_int bytes = cute_mul(a, n, cute_i(cute_dtype_bytes(p->dtype[0])));
    cute_val row_bytes = cute_val_cvt(c, cute_int_value(c, bytes, CUTE_I64), CUTE_U32);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        cute_val all = cute_val_binop(c, CUTE_OP_MUL, row_bytes, cute_val_int(c, CUTE_U32, inputs));
        cute_mbarrier_arrive_and_expect_tx(c, st->bar, all);
        for (int s = 0; s < p->op->nslots; s++)
            if (p->has[s] && p->op->slot[s].role == ROW_IN)
                cute_cp_async_bulk_g2s(c, cute_tensor_ptr(c, st->s[s], cute_i(0)), row_start(c, g[s], rb), row_bytes, st->bar);
    }
    cute_val phase = cute_val_cvt(c, cute_int_value(c, cute_mod(a, it, cute_i(2)), CUTE_I64), CUTE_U32);
    cute_mbarrier_wait(c, st->bar, phase);
}
