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
    st.stages = p->stage_split ? p->stage_chunks - p->tail_global : p->stage_bufs > 1 ? p->stage_bufs : 1;
    st.buf_chunks = p->stage_split ? 1 : p->stage_chunks;
    int64_t cap = st.stages * st.buf_chunks * row_plan_tile(p);
    cute_tuple rt = cute_tuple_fmt(a, "(1,%lld)", (long long)row_plan_tile(p));
    cute_tiler tile = cute_tiler_shape(a, &rt);
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == ROW_IN) {
            cute_layout row = cute_layout_fmt(a, "(1,%lld):(0,1)", (long long)cap);
            st.s[s] = cute_tensor_zipped_divide(c, cute_smem_alloc_tensor(c, A, p->dtype[s], row, 16), &tile);
        }
    for (int s = 0; p->stage_cols && s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == COL_IN) {
            cute_layout part = cute_layout_fmt(a, "(1,%lld):(0,1)", (long long)(p->stage_chunks * row_plan_tile(p)));
            st.cols[s] = cute_tensor_zipped_divide(c, cute_smem_alloc_tensor(c, A, p->dtype[s], part, 16), &tile);
            if (p->cols_f32)
                st.cols32[s] = cute_tensor_zipped_divide(c, cute_smem_alloc_tensor(c, A, CUTE_F32, part, 16), &tile);
        }
    /* one consumer arrival a fill: thread 0's, after the block's barrier that follows the
     * row's last read */
    st.pipe = cute_pipeline_tma_async_create(c, A, st.stages, 1, 0);
    /* the columns' one fill, never released */
    if (p->stage_cols) st.cols_pipe = cute_pipeline_tma_async_create(c, A, 1, 1, 0), st.cols_on = true;
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

/* thread 0: what a buffer (of `chunks` tiles) holds of the (row block rb's) row from tile
 * `first` on, of each slot of `role` in g, into its tiles of `to`, by bulk copies completing
 * on the stage of `fill` of pipe (which it acquires and advances) */
static void copy_part(cute_ctx *c, const row_plan *p, int chunks, const cute_pipeline *pipe, cute_pipeline_state *fill,
                      const cute_tensor *to, int role, const cute_tensor *g, cute_int rb, cute_int first, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    /* the buffer's elements or what is left of the row: n - first T is a multiple of 16
     * bytes (the plan stages 16-byte vectors only), from a 16-byte aligned start */
    int64_t per = chunks * row_plan_tile(p);
    cute_int left = cute_sub(a, n, cute_mul(a, first, cute_i(row_plan_tile(p))));
    cute_int bytes = cute_mul(a, cute_min(a, left, cute_i(per)), cute_i(cute_dtype_bytes(p->dtype[0])));
    cute_val part_bytes = cute_val_cvt(c, cute_int_value(c, bytes, CUTE_I64), CUTE_U32);
    cute_val all = cute_val_binop(c, CUTE_OP_MUL, part_bytes, cute_val_int(c, CUTE_U32, row_plan_slots(p, role)));
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        cute_pipeline_producer_acquire_bytes(c, pipe, fill, (cute_val){0}, all);
        cute_int buf = cute_mul(a, cute_int_from_val(c, cute_val_cvt(c, fill->index, CUTE_I64), 0), cute_i(chunks));
        cute_val bar = cute_pipeline_producer_barrier(c, pipe, fill);
        for (int s = 0; s < p->op->nslots; s++)
            if (p->has[s] && p->op->slot[s].role == role) {
                cute_tensor at = cute_tensor_slice(c, to[s], CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), CUTE_CRD(cute_i(0), buf)));
                cute_cp_async_bulk_g2s(c, cute_tensor_ptr(c, at, cute_i(0)), row_start(c, g[s], rb, first), part_bytes, bar);
            }
        cute_pipeline_state_advance(c, fill);
    }
}

void row_stage_fill(cute_ctx *c, row_stage *st, const row_plan *p, const cute_tensor *g, cute_int rb, cute_int first,
                    cute_int n)
{
    if (st->on) copy_part(c, p, st->buf_chunks, &st->pipe, &st->fill, st->s, ROW_IN, g, rb, first, n);
}

void row_stage_columns(cute_ctx *c, row_stage *st, const row_plan *p, const cute_tensor *g, cute_int first, cute_int n)
{
    if (!st->cols_on) return;
    cute_pipeline_state fill = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    copy_part(c, p, p->stage_chunks, &st->cols_pipe, &fill, st->cols, COL_IN, g, cute_i(0), first, n);
}

void row_stage_columns_wait(cute_ctx *c, const row_stage *st)
{
    if (!st->cols_on) return;
    cute_pipeline_state use = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    cute_pipeline_consumer_wait(c, &st->cols_pipe, &use, (cute_val){0});
}

/* the first tile of a consumer state's buffer */
static cute_int first_tile(cute_ctx *c, const cute_pipeline_state *s, const row_stage *st)
{
    return cute_mul(cute_ctx_alg(c), cute_int_from_val(c, cute_val_cvt(c, s->index, CUTE_I64), 0), cute_i(st->buf_chunks));
}

cute_int row_stage_buffer(cute_ctx *c, const row_stage *st, const row_plan *p)
{
    (void)p;
    return st->on ? first_tile(c, &st->use, st) : cute_i(0);
}

cute_int row_stage_oldest(cute_ctx *c, const row_stage *st, const row_plan *p)
{
    (void)p;
    return st->on ? first_tile(c, &st->done, st) : cute_i(0);
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
