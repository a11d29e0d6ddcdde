/* The one traced kernel of the row-reduction ops (rows_internal.h): a block of R rows,
 * tpr threads per row, each thread V K values of each row input, partitioned by a TiledCopy
 * from the (R,T) tile of a zipped_divide, predicated by a coordinate tensor partitioned the
 * same way.  Per row: load, each stage's thread-local partial, its all-reduce over the
 * row's threads (cute_group_allreduce), the op's outputs, predicated stores.  Blocks walk
 * `iters` row blocks (grid-strided), so that column sums (dw, db) stay in registers across
 * rows and leave one partial row per block row. */
#include <string.h>

#include "cutec/notation.h"
#include "cutec/sync.h"
#include "kernels/rows/rows_internal.h"

typedef struct row_kargs {
    cute_tensor g[ROW_SLOTS];     /* zipped: rows ((R,T),(RB,CB)); columns (T,CB); per row (M) */
    cute_tensor rows, cols;       /* coordinates of (M,N) and (N), zipped likewise */
    cute_tensor whole;            /* slot 0 as given, (M,N): for gathers at a column of a row's own */
    cute_int m, n, iters, ignore;
    cute_val p[2];
} row_kargs;

/* a chunk's column inputs as loaded, not yet widened (columns_issue) */
typedef struct row_cols {
    cute_tensor from[ROW_SLOTS];
    cute_ssa raw[ROW_SLOTS];
} row_cols;

typedef struct row_thread {
    const row_plan *p;
    const row_kargs *k;
    cute_thr_copy thr;
    cute_int tid, tx, ty; /* in the block; in the row; the block's row */
    cute_int cb;          /* the block's column chunk (0 unless the grid tiles the columns) */
    cute_int first, end;  /* the tiles it walks of a longer row: all, or (a cluster's block
                             staging its part) its own */
    cute_int staged_end;  /* ... of which [first, staged_end) are staged: to end, or (the plan's
                             tail_global) up to the part's last tile, `tail`, read from global */
    cute_int tail;
    cute_reducer red[ROW_STAGES];
    cute_reduce_scratch scratch[ROW_STAGES];
    cute_tensor acc[ROW_SUM_TILES][ROW_SLOTS]; /* COL_PARTIAL: this thread's column sums (of
                                                   each tile of the part: row_plan_sum_tiles) */
    row_stage stage;            /* the row inputs in shared memory (plans that stage) */
    cute_int staged;            /* ... the first tile of this row's buffer there */
    row_cluster cluster;        /* the exchange of a row split over a cluster */
    cute_int it;                /* the block's row iteration */
    row_cols ahead;             /* the plan's cols_ahead: the first write chunk's columns,
                                   issued before the row's staged wait */
} row_thread;

/* this thread's part of a tensor's (R,T) tile of row block rb, column chunk cb (column
 * tensors are broadcast over the rows: row block 0, stride 0) */
static cute_tensor part(cute_ctx *c, const row_thread *th, cute_tensor g, cute_int rb, cute_int cb)
{
    cute_tensor blk = cute_tensor_slice(c, g, CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), CUTE_CRD(rb, cb)));
    return cute_partition_S(c, th->thr, blk);
}

/* bf16 read as 32-bit words (element 2i the low half of word i) and widened by one
 * instruction an element: a low half is its word shifted left 16, a high half its word with
 * the low half cleared.  Read as 16-bit elements, each high half took a PRMT and a shift
 * (ptxas's unpacking of the vector): 1.5 instructions an element of each bf16 input, 4.5 of
 * LayerNorm's ~12 an element in its write pass (x, weight, bias; ncu on an H200). */
static cute_ssa load_words(cute_ctx *c, cute_tensor t, cute_ssa pred, double fill)
{
    cute_tensor w = cute_tensor_recast(c, t, CUTE_U32);
    cute_ssa wpred = cute_ssa_fill(c, CUTE_I1, w.layout.shape, 0);
    for (int i = 0; i < wpred.n && wpred.v && pred.v; i++) wpred.v[i] = pred.v[2 * i]; /* (a vector's share theirs) */
    float f = (float)fill;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits >>= 16; /* the fills (0, 1, -inf) are exact in bf16 */
    return cute_tensor_load_if(c, w, wpred, (double)(bits << 16 | bits));
}

static cute_ssa widen_words(cute_ctx *c, cute_tensor t, cute_ssa words)
{
    cute_ssa r = cute_ssa_fill(c, CUTE_F32, t.layout.shape, 0);
    cute_val sixteen = cute_val_int(c, CUTE_U32, 16), high = cute_val_int(c, CUTE_U32, 0xffff0000u);
    for (int i = 0; i < words.n && r.v; i++) {
        cute_val word = cute_ssa_get(c, words, i);
        r.v[2 * i] = cute_val_bitcast(c, cute_val_binop(c, CUTE_OP_SHL, word, sixteen), cute_type_of(CUTE_F32)).r;
        r.v[2 * i + 1] = cute_val_bitcast(c, cute_val_binop(c, CUTE_OP_AND, word, high), cute_type_of(CUTE_F32)).r;
    }
    return r;
}

/* (row_plan's words: long rows, sm_90 on; cross-entropy's backward walked in chunks for
 * sm_80 at 262144 spilled 8 bytes so at 64 registers) */
static bool as_words(const row_plan *p, cute_tensor t) { return t.dtype == CUTE_BF16 && p->vec % 2 == 0 && p->words; }

/* a tensor's values as stored (bf16 as words where the plan says so), widened by widen_raw:
 * apart, so that a load may be issued well before its values' use (row_plan's cols_ahead) */
static cute_ssa load_raw(cute_ctx *c, const row_plan *p, cute_tensor t, cute_ssa pred, double fill)
{
    return as_words(p, t) ? load_words(c, t, pred, fill) : cute_tensor_load_if(c, t, pred, fill);
}

static cute_ssa widen_raw(cute_ctx *c, const row_plan *p, cute_tensor t, cute_ssa raw)
{
    return as_words(p, t) ? widen_words(c, t, raw) : cute_ssa_cvt(c, raw, CUTE_F32);
}

static cute_ssa load_f32(cute_ctx *c, const row_plan *p, cute_tensor t, cute_ssa pred, double fill)
{
    return widen_raw(c, p, t, load_raw(c, p, t, pred, fill));
}

/* the plan's diag_cols 1 and 2 (a diagnostic, wrong by design): a column input's values as
 * stored, all 1, never loaded */
static cute_ssa columns_one(cute_ctx *c, const row_plan *p, cute_tensor t)
{
    if (!as_words(p, t)) return cute_ssa_fill(c, t.dtype, t.layout.shape, 1.0);
    cute_tensor w = cute_tensor_recast(c, t, CUTE_U32);
    return cute_ssa_fill(c, CUTE_U32, w.layout.shape, (double)0x3f803f80u); /* (two bf16 1.0) */
}

/* the plan's cols_f32 (with its columns staged) */
static bool columns_f32(const row_thread *th) { return th->stage.cols_on && th->p->cols_f32; }

/* the column inputs (weight, bias) of chunk cb (staged: tile cb - first of the block's
 * part): issued (their values as stored), then taken (widened into io->t) */
static row_cols columns_issue(cute_ctx *c, const row_thread *th, cute_int cb)
{
    const row_op *op = th->p->op;
    row_cols cols = {0};
    cute_ssa in_cols = cute_elem_less(c, part(c, th, th->k->cols, cute_i(0), cb), CUTE_CRD(th->p->rows, th->k->n));
    cute_int staged = cute_sub(cute_ctx_alg(c), cb, th->first);
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == COL_IN) {
            if (columns_f32(th)) { /* widened once, 0 past the row's end (columns_widen) */
                cols.raw[s] = cute_tensor_load(c, part(c, th, th->stage.cols32[s], cute_i(0), staged));
                continue;
            }
            int diag = op->columns_late ? th->p->diag_cols : 0;
            cute_int at = diag == 3 ? cute_i(0) : cb; /* (cols0: the row's first chunk's) */
            cols.from[s] = th->stage.cols_on ? part(c, th, th->stage.cols[s], cute_i(0), staged)
                                             : part(c, th, th->k->g[s], cute_i(0), at);
            bool one = diag == 1 || (diag == 2 && !strcmp(op->slot[s].name, "bias"));
            cols.raw[s] = one ? columns_one(c, th->p, cols.from[s]) : load_raw(c, th->p, cols.from[s], in_cols, 0);
        }
    return cols;
}

static void columns_take(cute_ctx *c, const row_thread *th, row_io *io, const row_cols *cols)
{
    const row_op *op = th->p->op;
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == COL_IN)
            io->t[s] = columns_f32(th) ? cols->raw[s] : widen_raw(c, th->p, cols->from[s], cols->raw[s]);
}

/* the plan's cols_f32: this thread's part of each staged column input widened into its f32
 * copy once, after the columns' wait (each thread reads back only its own part: no barrier) */
static void columns_widen(cute_ctx *c, const row_thread *th)
{
    if (!columns_f32(th)) return;
    for (int j = 0; j < th->p->stage_chunks; j++) {
        cute_int cb = cute_add(cute_ctx_alg(c), th->first, cute_i(j));
        cute_ssa in_cols = cute_elem_less(c, part(c, th, th->k->cols, cute_i(0), cb), CUTE_CRD(th->p->rows, th->k->n));
        for (int s = 0; s < th->p->op->nslots; s++)
            if (th->p->has[s] && th->p->op->slot[s].role == COL_IN)
                cute_tensor_store(c, part(c, th, th->stage.cols32[s], cute_i(0), cute_i(j)),
                                  load_f32(c, th->p, part(c, th, th->stage.cols[s], cute_i(0), cute_i(j)), in_cols, 0));
    }
}

static void load_columns(cute_ctx *c, const row_thread *th, row_io *io, cute_int cb)
{
    row_cols cols = columns_issue(c, th, cb);
    columns_take(c, th, io, &cols);
}

/* where tile cb of the row lies in the staging buffers: in this row's buffer, counted from
 * the block's first tile */
static cute_int staged_tile(cute_ctx *c, const row_thread *th, cute_int cb)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_add(a, th->staged, cute_sub(a, cb, th->first));
}

/* the row inputs of chunk cb of row block rb and where they lie; the column inputs too
 * unless `for_stages` and the op's stages do not use them (finish loads them then) */
static void load_chunk(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_int cb, bool for_stages)
{
    const row_op *op = th->p->op;
    io->crd = part(c, th, th->k->rows, rb, cb);
    io->col0 = cute_mul(cute_ctx_alg(c), cb, cute_i(row_plan_tile(th->p)));
    io->inside = cute_elem_less(c, io->crd, CUTE_CRD(th->k->m, th->k->n));
    /* (a plan's staged_plain: every element of a staged buffer holds the row or 0) */
    bool plain = th->stage.on && th->p->staged_plain;
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == ROW_IN) {
            cute_tensor from = th->stage.on ? part(c, th, th->stage.s[s], cute_i(0), staged_tile(c, th, cb))
                                            : part(c, th, th->k->g[s], rb, cb);
            cute_ssa pred = plain ? cute_ssa_fill(c, CUTE_I1, io->inside.shape, 1) : io->inside;
            io->t[s] = load_f32(c, th->p, from, pred, op->slot[s].fill);
        }
    if (!(for_stages && op->columns_late)) load_columns(c, th, io, cb);
}

/* the row's value of each per-row input (rows past M read nothing) */
static void load_row_values(cute_ctx *c, const row_thread *th, cute_val *v, cute_int row)
{
    const row_op *op = th->p->op;
    cute_ssa in = cute_ssa_scalar(c, cute_int_lt(c, row, th->k->m), cute_tuple_int(cute_i(1)));
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == ROWVAL_IN) {
            cute_tensor t = cute_tensor_slice(c, th->k->g[s], cute_tuple_int(row));
            v[s] = cute_ssa_get(c, cute_tensor_load_if(c, t, in, 0), 0);
        }
}

/* the outputs of one chunk: row outputs stored where inside, column sums accumulated (into
 * those of the part's tile j) */
static void store_chunk(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_int cb, int j)
{
    const row_op *op = th->p->op;
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == COL_PARTIAL) {
            cute_ssa zero = cute_ssa_fill(c, CUTE_F32, io->t[s].shape, 0);
            cute_ssa add = th->p->partials_plain ? io->t[s] : cute_ssa_select(c, io->inside, io->t[s], zero);
            cute_tensor_store(c, th->acc[j][s], cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, th->acc[j][s]), add));
        }
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == ROW_OUT)
            cute_tensor_store_if(c, part(c, th, th->k->g[s], rb, cb),
                                 cute_ssa_cvt(c, io->t[s], th->p->dtype[s]), io->inside);
}

/* the per-row outputs, from the row's first thread (of the cluster's first block) */
static void store_row_values(cute_ctx *c, const row_thread *th, row_io *io, cute_int row)
{
    const row_op *op = th->p->op;
    cute_int first = th->p->cluster > 1 ? cute_add(cute_ctx_alg(c), th->tx, th->cb) : th->tx;
    CUTE_IF(c, cute_int_lt(c, row, th->k->m)) {
        CUTE_IF(c, cute_int_eq(c, first, cute_i(0))) {
            for (int s = 0; s < op->nslots; s++)
                if (th->p->has[s] && op->slot[s].role == ROWVAL_OUT)
                    cute_tensor_store(c, cute_tensor_slice(c, th->k->g[s], cute_tuple_int(row)),
                                      cute_ssa_scalar(c, io->v[s], cute_tuple_int(cute_i(1))));
        }
    }
}

/* stage st's all-reduce of this thread's values over the row's threads (and the row's
 * blocks, in a cluster) */
static void reduce_stage(cute_ctx *c, const row_thread *th, cute_val *v, int st)
{
    cute_group_allreduce(c, &th->red[st], v, th->tid, th->p->tpr, &th->scratch[st]);
    row_cluster_allreduce(c, &th->cluster, &th->red[st], v, st, th->it);
}

/* a row that fits the tile: loaded once, every stage from the registers */
static void row_resident(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb)
{
    cute_val stats[ROW_STAGES][4];
    load_chunk(c, th, io, rb, th->cb, true);
    for (int st = 0; st < th->p->op->stages; st++) {
        th->p->op->partial(c, io, st, (const cute_val(*)[4])stats, stats[st]);
        reduce_stage(c, th, stats[st], st);
    }
    th->p->op->row_values(c, io, (const cute_val(*)[4])stats);
    if (th->p->op->columns_late) load_columns(c, th, io, th->cb);
    th->p->op->finish(c, io, (const cute_val(*)[4])stats);
    store_chunk(c, th, io, rb, th->cb, 0);
}

/* the thread as an unstaged plan's: its loads from global memory */
static row_thread unstaged(const row_thread *th)
{
    row_thread u = *th;
    u.stage.on = false;
    return u;
}

/* the plan's tail_global: the part's last tile's row inputs, read from global memory as an
 * unstaged plan reads them (HBM in the stage walk, L2 in the write pass; write_chain reads
 * it so too) */
static void load_tail(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, bool for_stages)
{
    row_thread u = unstaged(th);
    load_chunk(c, &u, io, rb, th->tail, for_stages);
}

/* row_plan's stage_split: the first stage's walk waits for each chunk's copy before it reads
 * it (the buffers a chunk each, in the part's order); the row's other waits none */
static void chunk_wait(cute_ctx *c, const row_thread *th, const row_io *io, int st)
{
    if (!th->p->stage_split || st > 0) return;
    row_stage stage = th->stage; /* (its states are the tracer's variables: a copy advances them) */
    CUTE_IF(c, cute_int_lt(c, io->row, th->k->m)) { row_stage_wait(c, &stage); }
}

/* stage st's thread-local part over the chunks the block walks, combined as it goes */
static void stage_walk(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, int st, cute_val stats[][4])
{
    const row_op *op = th->p->op;
    int arity = th->red[st].arity;
    cute_val first[4], var[4];
    bool tail = th->p->tail_global; /* (its global loads first, while the staged chunks land) */
    if (tail) {
        load_tail(c, th, io, rb, true);
    } else {
        chunk_wait(c, th, io, st);
        load_chunk(c, th, io, rb, th->first, true);
    }
    io->walk_first = true;
    op->partial(c, io, st, (const cute_val(*)[4])stats, first);
    io->walk_first = false;
    for (int i = 0; i < arity; i++) stats[st][i] = first[i];
    if (th->p->stage_chunks == 1) return; /* the block's one tile */
    for (int i = 0; i < arity; i++) var[i] = cute_val_var(c, first[i]);
    CUTE_FOR(c, cb, tail ? th->first : cute_add(cute_ctx_alg(c), th->first, cute_i(1)), th->staged_end) {
        cute_val more[4], sum[4];
        chunk_wait(c, th, io, st);
        load_chunk(c, th, io, rb, cb, true);
        op->partial(c, io, st, (const cute_val(*)[4])stats, more);
        cute_reducer_apply(c, &th->red[st], var, more, sum);
        for (int i = 0; i < arity; i++) cute_val_assign(c, var[i], sum[i]);
    }
    for (int i = 0; i < arity; i++) stats[st][i] = var[i];
}

/* (j: the part's tile whose column sums it adds to) */
static void write_chunk(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_int cb, cute_val stats[][4], int j)
{
    load_chunk(c, th, io, rb, cb, false);
    th->p->op->finish(c, io, (const cute_val(*)[4])stats);
    store_chunk(c, th, io, rb, cb, j);
}

/* chunk cb's outputs from its column inputs issued earlier (cols) */
static void write_chunk_from(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_int cb,
                             const row_cols *cols, cute_val stats[][4])
{
    load_chunk(c, th, io, rb, cb, true); /* (the row inputs; columns not late: dead, taken below) */
    columns_take(c, th, io, cols);
    th->p->op->finish(c, io, (const cute_val(*)[4])stats);
    store_chunk(c, th, io, rb, cb, 0);
}

/* row_plan's cols_ahead (a cluster's staged part, whose column inputs finish alone uses):
 * the first write chunk's column loads (from L2) issued before the row's staged wait
 * (th->ahead, rows_walk), so that their round trip passes during the wait, the stage walk
 * and the cluster exchange (rows9's ncu at 1024x262144: 11.5% of the stall samples on the
 * first uses of the weight and bias); the other chunks load theirs as they come.  (Each chunk
 * a chunk ahead, the part unrolled: 80 registers and 288 bytes spilled, sm_90a bf16.) */
static void write_ahead(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_val stats[][4])
{
    write_chunk_from(c, th, io, rb, th->first, &th->ahead, stats);
    CUTE_FOR(c, cb, cute_add(cute_ctx_alg(c), th->first, cute_i(1)), th->end) { write_chunk(c, th, io, rb, cb, stats, 0); }
}

/* row_plan's cols_chain (a cluster's staged part with one column input: RMSNorm's weight):
 * the part's write chunks unrolled, each chunk's column loads issued before the chunk before
 * it is computed, so that the round trip to L2 passes during that chunk's work, where each
 * chunk of the loop waited out its own (the first chunk's: at the write pass's start).  A
 * chunk past the row's end (the cluster's last part) is all predicated off.  H200, % of the
 * copy at 1024x262144 (engineer rows35, two passes of two turns each): RMSNorm 86.0 / 85.5
 * -> 87.3 / 87.3; both chunks' weight issued first a pair of chunks at a time 87.3 / 87.0;
 * LayerNorm's weight and bias a chunk ahead spilled 388 bytes (80 registers), and half a
 * chunk's ahead (80 registers, no spill) ran 1.5 points slower, the first chunk's before
 * the cluster exchange 0.0 / +0.1, a pair of chunks at five blocks an SM (95 registers)
 * -2.7: LayerNorm's write pass is not bound by its columns' latency. */
static void write_chain(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_val stats[][4])
{
    cute_alg *a = cute_ctx_alg(c);
    row_cols cur = columns_issue(c, th, th->first);
    row_thread from_global = unstaged(th);
    for (int j = 0; j < th->p->stage_chunks; j++) {
        cute_int cb = cute_add(a, th->first, cute_i(j));
        row_cols next = {0};
        if (j + 1 < th->p->stage_chunks) next = columns_issue(c, th, cute_add(a, cb, cute_i(1)));
        /* (the plan's tail_global: the last tile, th->tail, is not staged) */
        bool tail = th->p->tail_global && j == th->p->stage_chunks - 1;
        write_chunk_from(c, tail ? &from_global : th, io, rb, cb, &cur, stats);
        cur = next;
    }
}

/* the per-row values and the write pass of a longer row, whose stages are reduced */
static void write_pass_row(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_val stats[][4])
{
    th->p->op->row_values(c, io, (const cute_val(*)[4])stats);
    if (th->p->cols_chain) {
        write_chain(c, th, io, rb, stats);
        return;
    }
    if (th->p->cols_ahead) {
        write_ahead(c, th, io, rb, stats);
        return;
    }
    if (th->p->stage_chunks == 1) {
        write_chunk(c, th, io, rb, th->first, stats, 0);
        return;
    }
    /* tiles with column sums of their own, one after the other (a tile past the row's end is
     * all predicated off) */
    if (row_plan_sum_tiles(th->p) > 1) {
        for (int j = 0; j < row_plan_sum_tiles(th->p); j++)
            write_chunk(c, th, io, rb, cute_add(cute_ctx_alg(c), th->first, cute_i(j)), stats, j);
        return;
    }
    /* a staged row's chunks two at a time (row_plan's pairs: one block's row, not a
     * cluster's part), meant to have ptxas issue both chunks' column loads (weight, bias)
     * from L2 together, where each chunk of the loop waits out its own L2 latency with none of
     * the block's loads in flight (sm_90a SASS at 4096x32768: the second chunk's still after
     * the first's stores; write_chain issues them itself).  A chunk past the row's end is all predicated off.  16-bit
     * inputs only: f32's two chunks of weight and bias spilled 8 bytes at 80 registers, and so
     * did all four of a bf16 staged row at 4096x32768 unrolled under a launch bound. */
    bool pairs = th->p->pairs && th->p->cluster < 2 && cute_dtype_bytes(th->p->dtype[0]) <= 2;
    if (pairs && th->p->stage_chunks && row_plan_slots(th->p, COL_IN)) {
        cute_alg *a = cute_ctx_alg(c);
        CUTE_FOR(c, pair, cute_i(0), cute_i((th->p->stage_chunks + 1) / 2)) {
            cute_int cb = cute_add(a, th->first, cute_mul(a, pair, cute_i(2)));
            write_chunk(c, th, io, rb, cb, stats, 0);
            write_chunk(c, th, io, rb, cute_add(a, cb, cute_i(1)), stats, 0);
        }
        return;
    }
    if (th->p->tail_global) { /* (its L2 loads beside the first chunk's columns') */
        row_thread from_global = unstaged(th);
        write_chunk(c, &from_global, io, rb, th->tail, stats, 0);
    }
    CUTE_FOR(c, cb, th->first, th->staged_end) { write_chunk(c, th, io, rb, cb, stats, 0); }
}

/* ... for row io->row (a plan's staged_plain: none for a row past the matrix, whose staged
 * chunks hold an earlier row's) */
static void write_pass(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_val stats[][4])
{
    if (!(th->stage.on && th->p->staged_plain)) {
        write_pass_row(c, th, io, rb, stats);
        return;
    }
    CUTE_IF(c, cute_int_lt(c, io->row, th->k->m)) { write_pass_row(c, th, io, rb, stats); }
}

/* a longer row: each stage walks the chunks, combining as it goes; then the write pass.  A
 * block whose part of a staged row is one tile (stage_chunks 1: a cluster's block, or a row
 * with column sums that one tile covers) walks no loop: its loops' code and loop-carried
 * values cost RMSNorm's backward at 262144 (512 threads, 128 registers) a 36-byte spill */
static void row_looped(cute_ctx *c, row_thread *th, row_io *io, cute_int rb)
{
    cute_val stats[ROW_STAGES][4];
    for (int st = 0; st < th->p->op->stages; st++) {
        stage_walk(c, th, io, rb, st, stats);
        reduce_stage(c, th, stats[st], st);
    }
    write_pass(c, th, io, rb, stats);
}

/* column sums: zero before the rows, written as the block's partial rows after them; in
 * registers, each thread its own elements (a tile's, each of row_plan_sum_tiles' tiles) */
static void column_sums_begin(cute_ctx *c, row_thread *th)
{
    const row_plan *p = th->p;
    cute_tensor like = part(c, th, th->k->cols, cute_i(0), th->cb);
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == COL_PARTIAL)
            for (int j = 0; j < row_plan_sum_tiles(p); j++) {
                cute_tensor *acc = &th->acc[j][s];
                *acc = cute_make_rmem_tensor_like(c, like, CUTE_F32);
                cute_tensor_store(c, *acc, cute_ssa_fill(c, CUTE_F32, acc->layout.shape, 0));
            }
}

/* (each of the part's tiles at its columns: tile cb, or the part's first and on) */
static void column_sums_end(cute_ctx *c, const row_thread *th)
{
    const row_op *op = th->p->op;
    int tiles = row_plan_sum_tiles(th->p);
    for (int j = 0; j < tiles; j++) {
        cute_int cb = tiles > 1 ? cute_add(cute_ctx_alg(c), th->first, cute_i(j)) : th->cb;
        cute_ssa in_cols = cute_elem_less(c, part(c, th, th->k->cols, cute_i(0), cb), CUTE_CRD(th->p->rows, th->k->n));
        for (int s = 0; s < op->nslots; s++)
            if (th->p->has[s] && op->slot[s].role == COL_PARTIAL)
                cute_tensor_store_if(c, part(c, th, th->k->g[s], cute_block_idx(c, 0), cb), cute_tensor_load(c, th->acc[j][s]),
                                     in_cols);
    }
}

/* what the op's math sees of every row: the kernel's sizes and parameters, this thread's
 * coordinates in the (R,T) tile */
static row_io io_start(cute_ctx *c, const row_thread *th)
{
    const row_plan *p = th->p;
    const row_kargs *k = th->k;
    cute_tensor tile = cute_make_identity_tensor(c, CUTE_CRD(cute_i(p->rows), cute_i(row_plan_tile(p))));
    return (row_io){.has = p->has, .resident = !p->looped, .variant = p->variant, .vec = p->vec,
                    .tile_crd = cute_partition_S(c, th->thr, tile), .tile = {p->rows, row_plan_tile(p)},
                    .m = k->m, .n = k->n, .ignore = k->ignore, .p = {k->p[0], k->p[1]}, .whole = k->whole};
}

/* the tiles of a longer row this block walks: all of them, or (a cluster's block staging its
 * part of the row) the stage_chunks tiles of its part that the row reaches */
static void chunk_range(cute_ctx *c, row_thread *th)
{
    const row_plan *p = th->p;
    cute_alg *a = cute_ctx_alg(c);
    cute_int tiles = cute_ceil_div(a, th->k->n, cute_i(row_plan_tile(p)));
    th->first = cute_i(0), th->end = th->staged_end = tiles;
    if (p->cluster < 2 || !p->stage_chunks) return;
    th->first = cute_mul(a, th->cb, cute_i(p->stage_chunks));
    th->end = th->staged_end = cute_min(a, tiles, cute_add(a, th->first, cute_i(p->stage_chunks)));
    if (!p->tail_global) return;
    th->tail = cute_add(a, th->first, cute_i(p->stage_chunks - 1)); /* (past the row: predicated off) */
    th->staged_end = cute_min(a, th->end, th->tail);
}

/* the row block of the block's iteration `it` (grid-strided) */
static cute_int row_block(cute_ctx *c, cute_int it)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_add(a, cute_block_idx(c, 0), cute_mul(a, it, cute_grid_dim(c, 0)));
}

/* a staging plan's fill of the buffer of the block's iteration j, where there is one (one
 * row a block: the whole block fills it or not) */
static void fill_row(cute_ctx *c, row_thread *th, cute_int j)
{
    cute_int rb = row_block(c, j);
    cute_val more = cute_val_binop(c, CUTE_OP_AND, cute_int_lt(c, j, th->k->iters), cute_int_lt(c, rb, th->k->m));
    CUTE_IF(c, more) { row_stage_fill(c, &th->stage, th->p, th->k->g, rb, th->first, th->k->n); }
}

/* row_plan's stage_split: row block rb's part copied chunk by chunk, each into its own buffer
 * (a block of one row: a forward's cluster part, never a persistent block, so the row's
 * chunks take the buffers from the first on) */
static void fill_chunks(cute_ctx *c, row_thread *th, cute_int rb)
{
    CUTE_IF(c, cute_int_lt(c, rb, th->k->m)) {
        CUTE_FOR(c, cb, th->first, th->staged_end) { row_stage_fill(c, &th->stage, th->p, th->k->g, rb, cb, th->k->n); }
    }
}

/* this thread's row of row block rb */
static cute_int row_of(cute_ctx *c, const row_thread *th, cute_int rb)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_add(a, cute_mul(a, rb, cute_i(th->p->rows)), th->ty);
}

/* A pipelined walk (a plan's `pipelined`: a cluster's staged parts, one stage, three buffers
 * or more) carries a row's statistics and per-row inputs from its reduction to its write
 * pass, one iteration later (variables: the tracer's loop-carried values) */
typedef struct row_carry {
    cute_val stats[4];
    cute_val v[ROW_SLOTS]; /* ROWVAL_IN */
} row_carry;

static row_carry carry_new(cute_ctx *c, const row_thread *th)
{
    row_carry k = {0};
    const row_plan *p = th->p;
    for (int i = 0; i < th->red[0].arity; i++) k.stats[i] = cute_val_var(c, row_f32(c, 0));
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == ROWVAL_IN)
            k.v[s] = cute_val_var(c, p->dtype[s] == CUTE_F32 ? row_f32(c, 0) : cute_val_int(c, p->dtype[s], 0));
    return k;
}

/* A persistent block (rows_call.c's grid: it walks several rows) loads the per-row inputs
 * (rstd, mean, labels) of its next row while it works on this one, into next: otherwise
 * each row waited out a load from memory before its first use.  The vars hold the next
 * row's values from the start: the first row's are loaded before the loop. */
static bool ahead_of_time(const row_thread *th) { return row_plan_persistent(th->p); }

static row_carry values_ahead(cute_ctx *c, const row_thread *th)
{
    row_carry next = carry_new(c, th);
    cute_val first[ROW_SLOTS];
    if (!ahead_of_time(th)) return next;
    load_row_values(c, th, first, row_of(c, th, row_block(c, cute_i(0))));
    for (int s = 0; s < th->p->op->nslots; s++)
        if (th->p->has[s] && th->p->op->slot[s].role == ROWVAL_IN) cute_val_assign(c, next.v[s], first[s]);
    return next;
}

/* row it's per-row inputs into v (from next, or loaded now), the next row's loads issued
 * into ahead */
static void row_values_now(cute_ctx *c, const row_thread *th, cute_val *v, const row_carry *next, cute_val *ahead,
                           cute_int it, cute_int row)
{
    if (!ahead_of_time(th)) {
        load_row_values(c, th, v, row);
        return;
    }
    cute_int after = row_of(c, th, row_block(c, cute_add(cute_ctx_alg(c), it, cute_i(1))));
    load_row_values(c, th, ahead, after);
    for (int s = 0; s < th->p->op->nslots; s++)
        if (th->p->has[s] && th->p->op->slot[s].role == ROWVAL_IN) v[s] = next->v[s];
}

/* after the row's last use of next's values: the next row's */
static void row_values_keep(cute_ctx *c, const row_thread *th, const row_carry *next, const cute_val *ahead)
{
    for (int s = 0; ahead_of_time(th) && s < th->p->op->nslots; s++)
        if (th->p->has[s] && th->p->op->slot[s].role == ROWVAL_IN) cute_val_assign(c, next->v[s], ahead[s]);
}

/* an op's shift (row_op.shifted): the row's first element of each row input, issued before
 * the row's own loads (or its staged copy's wait), so that it arrives meanwhile */
static void load_firsts(cute_ctx *c, const row_thread *th, row_io *io, cute_int rb, cute_int row)
{
    const row_op *op = th->p->op;
    if (!op->shifted) return;
    cute_ssa in = cute_ssa_scalar(c, cute_int_lt(c, row, th->k->m), cute_tuple_int(cute_i(1)));
    for (int s = 0; s < op->nslots; s++)
        if (th->p->has[s] && op->slot[s].role == ROW_IN) {
            cute_tensor t = cute_tensor_slice(c, th->k->g[s], CUTE_CRD(CUTE_CRD(th->ty, cute_i(0)), CUTE_CRD(rb, cute_i(0))));
            io->first[s] = cute_ssa_get(c, cute_ssa_cvt(c, cute_tensor_load_if(c, t, in, 0), CUTE_F32), 0);
        }
}

/* row block after row block: load (or wait for the staged row), reduce, write */
static void rows_walk(cute_ctx *c, row_thread *th, row_io *io)
{
    const row_plan *p = th->p;
    cute_alg *a = cute_ctx_alg(c);
    const row_carry next = values_ahead(c, th);
    CUTE_FOR(c, it, cute_i(0), th->k->iters) {
        cute_int rb = row_block(c, it), row = row_of(c, th, rb);
        cute_val inside = cute_int_lt(c, row, th->k->m), ahead[ROW_SLOTS];
        io->row = row, th->it = it;
        row_values_now(c, th, io->v, &next, ahead, it, row);
        load_firsts(c, th, io, rb, row);
        if (p->cols_ahead) th->ahead = columns_issue(c, th, th->first);
        if (th->stage.on && p->stage_split) {
            fill_chunks(c, th, rb);
            th->staged = row_stage_buffer(c, &th->stage, p); /* (stage_walk waits chunk by chunk) */
        } else if (th->stage.on) {
            fill_row(c, th, cute_add(a, it, cute_i(th->stage.stages - 1)));
            th->staged = row_stage_buffer(c, &th->stage, p);
            CUTE_IF(c, inside) { row_stage_wait(c, &th->stage); }
        }
        if (p->looped)
            row_looped(c, th, io, rb);
        else
            row_resident(c, th, io, rb);
        store_row_values(c, th, io, row);
        if (p->tpr > 32) cute_barrier(c); /* the next row block's reductions reuse the scratch */
        if (th->stage.on && p->stage_split) {
            CUTE_IF(c, inside) {
                CUTE_FOR(c, cb, th->first, th->staged_end) { (void)cb, row_stage_release(c, &th->stage); }
            }
        } else if (th->stage.on) {
            CUTE_IF(c, inside) { row_stage_release(c, &th->stage); }
        }
        row_values_keep(c, th, &next, ahead);
    }
}

/* the first half of iteration it: its row's buffer waited for, this block's part reduced
 * over the block and posted to the cluster; its per-row inputs kept in cur */
static void pipelined_reduce(cute_ctx *c, row_thread *th, row_io *io, cute_int it, const row_carry *cur,
                             const row_carry *next)
{
    const row_plan *p = th->p;
    cute_int rb = row_block(c, it), row = row_of(c, th, rb);
    cute_val stats[ROW_STAGES][4], ahead[ROW_SLOTS];
    io->row = row;
    row_values_now(c, th, io->v, next, ahead, it, row);
    th->staged = row_stage_buffer(c, &th->stage, p);
    CUTE_IF(c, cute_int_lt(c, row, th->k->m)) { row_stage_wait(c, &th->stage); }
    stage_walk(c, th, io, rb, 0, stats);
    cute_group_allreduce(c, &th->red[0], stats[0], th->tid, p->tpr, &th->scratch[0]);
    row_cluster_post(c, &th->cluster, &th->red[0], stats[0], 0, it);
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == ROWVAL_IN) cute_val_assign(c, cur->v[s], io->v[s]);
    row_values_keep(c, th, next, ahead);
}

/* the second half, one iteration later: row it's outputs from what prev carried and the
 * buffer the row still holds (the oldest not released) */
static void pipelined_write(cute_ctx *c, row_thread *th, row_io *io, cute_int it, const row_carry *prev)
{
    const row_plan *p = th->p;
    cute_int rb = row_block(c, it), row = row_of(c, th, rb);
    cute_val stats[ROW_STAGES][4];
    for (int i = 0; i < th->red[0].arity; i++) stats[0][i] = prev->stats[i];
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s] && p->op->slot[s].role == ROWVAL_IN) io->v[s] = prev->v[s];
    io->row = row;
    th->staged = row_stage_oldest(c, &th->stage, p);
    write_pass(c, th, io, rb, stats);
    store_row_values(c, th, io, row);
}

/* Row it's exchange is posted before row it-1's write pass and collected after it, so that
 * the cluster barrier's round trip (which each block of the cluster waited out row after
 * row, its loads and stores idle: the norms' backward at 4096x32768 ran at half the
 * copy's rate where the same blocks without a cluster, at 16384x4096, ran at 82%) passes
 * during the write pass.  Two rows hold buffers meanwhile: the next fill follows row
 * it-1's release, and iters + 1 iterations write the last row.  A row's stats and ROWVAL_IN
 * values are carried to its write pass, not a shifted op's shift: only ops with column sums
 * (the backwards, none shifted) walk rows so. */
static void rows_pipelined(cute_ctx *c, row_thread *th, row_io *io)
{
    cute_alg *a = cute_ctx_alg(c);
    const row_carry cur = carry_new(c, th), prev = carry_new(c, th), next = values_ahead(c, th);
    CUTE_FOR(c, it, cute_i(0), cute_add(a, th->k->iters, cute_i(1))) {
        cute_val now = cute_int_lt(c, it, th->k->iters), had = cute_int_lt(c, cute_i(0), it);
        cute_int last = cute_sub(a, it, cute_i(1));
        CUTE_IF(c, now) { pipelined_reduce(c, th, io, it, &cur, &next); }
        CUTE_IF(c, had) { pipelined_write(c, th, io, last, &prev); }
        cute_barrier(c); /* row it-1's last reads of its buffer; row it's of the block's scratch */
        cute_val held = cute_val_binop(c, CUTE_OP_AND, had, cute_int_lt(c, row_of(c, th, row_block(c, last)), th->k->m));
        CUTE_IF(c, held) { row_stage_release(c, &th->stage); }
        fill_row(c, th, cute_add(a, it, cute_i(th->stage.stages - 1)));
        CUTE_IF(c, now) {
            cute_val stats[4];
            row_cluster_collect(c, &th->cluster, &th->red[0], stats, 0, it);
            for (int i = 0; i < th->red[0].arity; i++) cute_val_assign(c, prev.stats[i], stats[i]);
            for (int s = 0; s < th->p->op->nslots; s++)
                if (th->p->has[s] && th->p->op->slot[s].role == ROWVAL_IN) cute_val_assign(c, prev.v[s], cur.v[s]);
        }
    }
}

/* a plan's staged_plain: every staging buffer zeroed (each thread its part) before the first
 * copy, ordered before the copies' async proxy; past the row's end no copy writes them */
static void zero_staged(cute_ctx *c, const row_thread *th)
{
    if (!(th->stage.on && th->p->staged_plain)) return;
    for (int t = 0; t < th->stage.stages * th->p->stage_chunks; t++)
        for (int s = 0; s < th->p->op->nslots; s++)
            if (th->p->has[s] && th->p->op->slot[s].role == ROW_IN) {
                cute_tensor at = part(c, th, th->stage.s[s], cute_i(0), cute_i(t));
                cute_tensor_store(c, at, cute_ssa_fill(c, at.dtype, at.layout.shape, 0));
            }
    cute_fence_proxy_async_shared_cta(c);
    cute_barrier(c);
}

static void rows_body(cute_ctx *c, const row_kargs *k)
{
    const row_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    row_thread th = {.p = p, .k = k};
    if (p->sums_pdl) cute_griddepcontrol_launch_dependents(c); /* (the column sums' pass, waiting) */
    th.tid = cute_thread_idx(c, 0);
    th.tx = cute_mod(a, th.tid, cute_i(p->tpr)), th.ty = cute_div(a, th.tid, cute_i(p->tpr));
    th.thr = cute_tiled_copy_slice(&p->tc, th.tid);
    th.cb = p->column_grid ? cute_block_idx(c, 1) : cute_i(0);
    th.staged = cute_i(0);
    chunk_range(c, &th);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    for (int st = 0; st < p->op->stages; st++) {
        th.red[st] = p->op->reducer(st);
        if (p->tpr > 32) th.scratch[st] = cute_reduce_scratch_alloc(c, &A, &th.red[st], CUTE_F32, p->tpr * p->rows);
    }
    th.stage = row_stage_alloc(c, &A, p);
    th.cluster = row_cluster_alloc(c, &A, p);
    row_io io = io_start(c, &th);
    column_sums_begin(c, &th);
    zero_staged(c, &th);
    if (p->row_pdl) cute_griddepcontrol_wait(c); /* (the kernel before it: its end and its writes) */
    row_stage_columns(c, &th.stage, p, k->g, th.first, k->n);
    for (int j = 0; th.stage.on && !p->stage_split && j < th.stage.stages - 1; j++) fill_row(c, &th, cute_i(j)); /* rows ahead */
    row_stage_columns_wait(c, &th.stage);
    columns_widen(c, &th);
    if (p->pipelined)
        rows_pipelined(c, &th, &io);
    else
        rows_walk(c, &th, &io);
    column_sums_end(c, &th);
}

static cute_tiler tile_of(cute_ctx *c, const row_plan *p);

static void rows_kernel(cute_ctx *c, cute_tensor g0, cute_tensor g1, cute_tensor g2, cute_tensor g3,
                        cute_tensor g4, cute_tensor g5, cute_tensor g6, cute_tensor g7, cute_tensor whole,
                        cute_int m, cute_int n, cute_int iters, cute_int ignore, cute_val p0, cute_val p1)
{
    const row_plan *p = cute_ctx_user(c);
    cute_kernel_min_blocks(c, row_plan_blocks_per_sm(p));
    cute_tiler tile = tile_of(c, p);
    cute_tensor rows = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, CUTE_CRD(m, n)), &tile);
    /* the columns' coordinates: R rows (all inside) by N */
    cute_tensor cols = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, CUTE_CRD(cute_i(p->rows), n)), &tile);
    row_kargs k = {{g0, g1, g2, g3, g4, g5, g6, g7}, rows, cols, whole, m, n, iters, ignore, {p0, p1}};
    rows_body(c, &k);
}

/* the argument of each slot as the kernel takes it: rows and column partials zipped by
 * (R,T), columns by T, per-row values as they are; a slot not given stands in as slot 0
 * (never accessed) */
static cute_tiler tile_of(cute_ctx *c, const row_plan *p)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple rt = cute_tuple_fmt(a, "(%d,%lld)", p->rows, (long long)row_plan_tile(p));
    return cute_tiler_shape(a, &rt);
}

/* a column tensor (N) seen as R rows of itself: (R,N):(0,1) */
static cute_tensor broadcast_rows(cute_ctx *c, const row_plan *p, cute_tensor t)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = t.layout.shape.leaf[0];
    t.layout = cute_layout_fmt(a, "(%d,%I):(0,1)", p->rows, n);
    return t;
}

static cute_tensor slot_view(cute_ctx *c, const row_plan *p, int s, cute_tensor t)
{
    cute_tiler tile = tile_of(c, p);
    switch (p->op->slot[s].role) {
    case COL_IN: return cute_tensor_zipped_divide(c, broadcast_rows(c, p, t), &tile);
    case ROWVAL_IN: case ROWVAL_OUT: return t;
    default: return cute_tensor_zipped_divide(c, t, &tile);
    }
}

static void rows_host(cute_ctx *c, const cute_arg *args)
{
    row_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    if (p->index_bound) cute_index_bound(c, p->index_bound);
    cute_tensor g[ROW_SLOTS];
    int k = 0;
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s]) g[s] = slot_view(c, p, s, args[k++].tensor);
    for (int s = 0; s < ROW_SLOTS; s++)
        if (s >= p->op->nslots || !p->has[s]) g[s] = g[0];
    cute_int m = args[0].tensor.layout.shape.leaf[0], n = args[0].tensor.layout.shape.leaf[1];
    cute_int iters = args[k].i, ignore = args[k + 1].i;
    /* thread tid = tx + tpr ty takes values (ty, tx V .. tx V + V - 1) of each tpr V columns */
    cute_layout thr = cute_layout_fmt(a, "(%d,%d):(%d,1)", p->rows, p->tpr, p->tpr);
    cute_layout val = cute_layout_fmt(a, "(1,%d):(0,1)", p->vec);
    cute_copy_atom atom = cute_copy_atom_autovec(a, p->dtype[0]);
    p->tc = cute_make_tiled_copy_tv(a, &atom, &thr, &val);
    cute_int blocks = cute_ceil_div(a, cute_ceil_div(a, m, cute_i(p->rows)), iters);
    cute_launch_cfg cfg = {.grid = {blocks, p->column_grid ? cute_ceil_div(a, n, cute_i(row_plan_block_cols(p))) : cute_i(1)},
                           .block = {cute_i(p->tpr * p->rows)}};
    if (p->cluster > 1) cfg.cluster[0] = cute_i(1), cfg.cluster[1] = cute_i(p->cluster);
    cfg.pdl = p->row_pdl;
    CUTE_LAUNCH(c, rows_kernel, cfg, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], args[0].tensor, m, n, iters, ignore, args[k + 2].f, args[k + 3].f);
}

cute_host_fn row_host_fn(void) { return rows_host; }
