/* Rows staged in shared memory (rows_internal.h's row_stage): a row too long for the block's
 * registers but short enough for its shared memory (or, in a cluster, the block's part of
 * it) is fetched once by bulk copies (one cp.async.bulk per row input, issued by thread 0,
 * completing its bytes on the stage's full mbarrier of a PipelineTmaAsync), and the chunked
 * walk of its stages and its write pass reads the chunks from there.  HBM sees each input
 * once.  With one buffer, several blocks an SM keep its loads going while one of them
 * reduces; with two, a block that walks several rows has the next one's copies in flight
 * while it works on this one. */
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "kernels/rows/rows_internal.h"

row_stage row_stage_alloc(cute_ctx *c, cute_smem_allocator *A, const row_plan *p)
{
    row_stage st = {0};
    if (!p->stage_chunks) return st;
    cute_alg *a = cute_ctx_alg(c);
    st.stages = p->stage_bufs > 1 ? p->stage_bufs : 1;
    int64_t cap = st.stages * p->stage_chunks * row_plan_tile(p);
    cute_tuple rt = cute_tuple_fmt(a, "(1,%lld)", (long long)row_plan_tile(p));
    cute_tiler tile = cute_tiler_shape(a, &rt);
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == ROW_IN) {
            cute_layout row = cute_layout_fmt(a, "(1,%lld):(0,1)", (long long)cap);
            st.s[s] = cute_tensor_zipped_divide(c, cute_smem_alloc_tensor(c, A, p->dtype[s], row, 16), &tile);
        }
    /* one consumer arrival a fill: thread 0's, after the block's barrier that follows the
     * row's last read */
    st.pipe = cute_pipeline_tma_async_create(c, A, st.stages, 1, 0);
    st.fill = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, st.stages);
    st.use = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, st.stages);
    st.done = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, st.stages);
    st.on = true;
    return st;
}

/* the first element of tile `first` of row block rb's row of a zipped row tensor */
static cute_val row_start(cute_ctx *c, cute_tensor g, cute_int rb, cute_int first)
{
    cute_tensor t = cute_tensor_slice(c, g, CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), CUTE_CRD(rb, first)));
    return cute_tensor_ptr(c, t, cute_i(0));
}

void row_stage_fill(cute_ctx *c, row_stage *st, const row_plan *p, const cute_tensor *g, cute_int rb, cute_int first,
                    cute_int n)
{
    if (!st->on) return;
    cute_alg *a = cute_ctx_alg(c);
    int inputs = 0;
    for (int s = 0; s < p->op->nslots; s++) inputs += p->has[s] && p->op->slot[s].role == ROW_IN;
    /* the buffer's elements or what is left of the row: n - first T is a multiple of 16
     * bytes (the plan stages 16-byte vectors only), from a 16-byte aligned start */
    int64_t per = p->stage_chunks * row_plan_tile(p);
    cute_int left = cute_sub(a, n, cute_mul(a, first, cute_i(row_plan_tile(p))));
    cute_int bytes = cute_mul(a, cute_min(a, left, cute_i(per)), cute_i(cute_dtype_bytes(p->dtype[0])));
    cute_val row_bytes = cute_val_cvt(c, cute_int_value(c, bytes, CUTE_I64), CUTE_U32);
    cute_val all = cute_val_binop(c, CUTE_OP_MUL, row_bytes, cute_val_int(c, CUTE_U32, inputs));
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        cute_pipeline_producer_acquire_bytes(c, &st->pipe, &st->fill, (cute_val){0}, all);
        cute_int buf = cute_mul(a, cute_int_from_val(c, cute_val_cvt(c, st->fill.index, CUTE_I64), 0), cute_i(p->stage_chunks));
        cute_val bar = cute_pipeline_producer_barrier(c, &st->pipe, &st->fill);
        for (int s = 0; s < p->op->nslots; s++)
            if (p->has[s] && p->op->slot[s].role == ROW_IN) {
                cute_tensor to = cute_tensor_slice(c, st->s[s], CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), CUTE_CRD(cute_i(0), buf)));
                cute_cp_async_bulk_g2s(c, cute_tensor_ptr(c, to, cute_i(0)), row_start(c, g[s], rb, first), row_bytes, bar);
            }
        cute_pipeline_state_advance(c, &st->fill);
    }
}

/* the first tile of a consumer state's buffer */
static cute_int first_tile(cute_ctx *c, const cute_pipeline_state *s, const row_plan *p)
{
    return cute_mul(cute_ctx_alg(c), cute_int_from_val(c, cute_val_cvt(c, s->index, CUTE_I64), 0), cute_i(p->stage_chunks));
}

cute_int row_stage_buffer(cute_ctx *c, const row_stage *st, const row_plan *p)
{
    return st->on ? first_tile(c, &st->use, p) : cute_i(0);
}

cute_int row_stage_oldest(cute_ctx *c, const row_stage *st, const row_plan *p)
{
    return st->on ? first_tile(c, &st->done, p) : cute_i(0);
}

void row_stage_wait(cute_ctx *c, row_stage *st)
{
    if (!st->on) return;
    cute_pipeline_consumer_wait(c, &st->pipe, &st->use, (cute_val){0});
    cute_pipeline_state_advance(c, &st->use);
}

void row_stage_release(cute_ctx *c, row_stage *st)
{
    if (!st->on) return;
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) { cute_pipeline_consumer_release(c, &st->pipe, &st->done); }
    cute_pipeline_state_advance(c, &st->done);
}
