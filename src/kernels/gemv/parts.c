/* The parts every GEMV kernel shares: a block's tiles, x's broadcast view, the end of a
 * product (partial sums to the split-K workspace, or the scaled result to y), and split-K's
 * second kernel, which adds the splits of each row in split order (the same bits every
 * run, whatever order the splits' blocks ran in). */
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/gemv/gemv_internal.h"

cute_int gemv_splits(cute_ctx *c, cute_int K, cute_int kchunk)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_max(a, cute_ceil_div(a, K, kchunk), cute_i(1));
}

gemv_host_args gemv_host_unpack(cute_ctx *c, const cute_arg *arg, int64_t rows)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    gemv_host_args g = {.mA = arg[0].tensor,
                        .mY = arg[2].tensor,
                        .mW = arg[3].tensor,
                        .kchunk = arg[4].i,
                        .alpha = arg[5].f,
                        .beta = arg[6].f};
    if (p->cfg.one_launch) g.counts = arg[gemv_counts_arg(&p->cfg)].tensor;
    const cute_int *e = g.mA.layout.shape.leaf; /* M, K, L */
    g.xb = gemv_broadcast_x(c, arg[1].tensor, e[0]);
    g.launch = (cute_launch_cfg){
        .grid = {cute_ceil_div(a, e[0], cute_i(rows)), gemv_splits(c, e[1], g.kchunk), e[2]},
        .block = {cute_i(p->threads)},
        .pdl = (p->pdl && p->cfg.one_launch) || p->pdl_self};
    return g;
}

cute_tensor gemv_broadcast_x(cute_ctx *c, cute_tensor mX, cute_int M)
{
    const cute_int *e = mX.layout.shape.leaf, *d = mX.layout.stride.leaf;
    cute_tensor xb = mX;
    xb.layout = cute_layout_fmt(cute_ctx_alg(c), "(%I,%I,%I,%I):(0,1,%I,%I)", M, e[0], e[1], e[2],
                                d[1], d[2]);
    return xb;
}

/* row mt of tiles of t (M,K) from column k0 on */
static cute_tensor block_row(cute_ctx *c, const gemv_plan *p, cute_tensor t, cute_int k0, cute_int mt)
{
    cute_tensor from = cute_tensor_domain_offset(c, t, CUTE_CRD(0, k0));
    return cute_tensor_local_tile(c, from, p->tile, CUTE_CRD(mt, CUTE_ALL), NULL);
}

gemv_tiles gemv_block_split(cute_ctx *c, const gemv_plan *p, cute_int K, cute_int kchunk)
{
    cute_alg *a = cute_ctx_alg(c);
    gemv_tiles t = {0};
    /* unsplit, the one split is 0 (a known 0 folds k0 = s kchunk out of every address) */
    t.s = p->cfg.split ? cute_block_idx(c, 1) : cute_i(0), t.l = cute_block_idx(c, 2);
    t.k0 = cute_mul(a, t.s, kchunk), t.kend = cute_min(a, K, cute_add(a, t.k0, kchunk));
    return t;
}

gemv_tiles gemv_block_tiles(cute_ctx *c, const gemv_plan *p, cute_tensor mA, cute_tensor mX,
                            cute_int kchunk)
{
    cute_int mt = cute_block_idx(c, 0);
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1];
    gemv_tiles t = gemv_block_split(c, p, K, kchunk);
    t.bound = cute_tuple_fmt(a, "(%I,%I)", M, t.kend);
    t.gA = block_row(c, p, CUTE_SLICE(c, mA, CUTE_ALL, CUTE_ALL, t.l), t.k0, mt);
    for (int v = 0; v < p->nvec; v++)
        t.gX[v] = block_row(c, p, CUTE_SLICE(c, mX, CUTE_ALL, CUTE_ALL, v, t.l), t.k0, mt);
    t.cA = block_row(c, p, cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", M, K)), t.k0, mt);
    return t;
}

gemv_thread gemv_thread_start(cute_ctx *c, const gemv_plan *p, const gemv_tiles *t, bool acc)
{
    gemv_thread th;
    th.thr = cute_tiled_copy_slice(&p->tc, cute_thread_idx(c, 0));
    th.first = cute_partition_S(c, th.thr, CUTE_SLICE(c, t->cA, CUTE_ALL, CUTE_ALL, 0));
    for (int v = 0; v < p->nvec && acc; v++) {
        th.acc[v] = cute_make_rmem_tensor_like(c, th.first, CUTE_F32);
        cute_clear(c, th.acc[v]);
    }
    return th;
}

cute_tensor gemv_lane_row(cute_ctx *c, const gemv_plan *p, cute_tensor t, int r)
{
    if (p->rows == 1) return t;
    return cute_tensor_slice(c, t, CUTE_CRD(CUTE_CRD(CUTE_ALL, r), CUTE_ALL, CUTE_ALL));
}

cute_tensor gemv_load_part(cute_ctx *c, const gemv_plan *p, cute_tensor src, const cute_tensor *crd,
                           cute_tuple bound)
{
    cute_tensor r = cute_make_fragment_like(c, src);
    /* vec divides K (the library's choice of vec): no vector straddles the tail */
    if (crd)
        cute_copy_if_whole(c, &p->tc.atom, cute_elem_less(c, *crd, bound), src, r);
    else
        cute_copy(c, &p->tc.atom, src, r);
    return r;
}

/* a k-tile row is tk contiguous elements of gA, its 128-byte lines dealt to the lanes row
 * by row (past 32 lines the first 32; a lane past them takes one again); a tile past the
 * split's last full one asks for that one again (no branch: the address stays in A) */
void gemv_prefetch_tile(cute_ctx *c, const gemv_plan *p, cute_tensor gA, cute_int r0, int rows, int64_t tk,
                        cute_int kt, cute_int k0, cute_int kend)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t line = 128 * 8 / cute_dtype_bits((cute_dtype)gA.dtype), per_row = tk / line;
    int lines = (int)(rows * (per_row ? per_row : 1));
    cute_int full = cute_div(a, cute_sub(a, kend, k0), cute_i(tk));
    cute_int next = cute_min(a, cute_add(a, kt, cute_i(p->cfg.l2_prefetch)), cute_sub(a, full, cute_i(1)));
    cute_int l = cute_mod(a, cute_lane_idx(c), cute_i(lines > 32 ? 32 : lines));
    cute_int row = cute_add(a, r0, cute_div(a, l, cute_i(lines / rows)));
    cute_int col = cute_mul(a, cute_mod(a, l, cute_i(lines / rows)), cute_i(line));
    cute_tensor from = cute_tensor_domain_offset(c, gA, CUTE_CRD(row, col, next));
    cute_prefetch_l2(c, cute_tensor_ptr(c, from, cute_i(0)));
}

/* the row kernels' prefetch (a warp owns p->rows rows): k-tile `at`'s successor of the warp's
 * rows into L2, where cfg.l2_prefetch asks for it and the tile is unpredicated */
void gemv_prefetch_warp_rows(cute_ctx *c, const gemv_plan *p, const gemv_tiles *t, cute_tuple at, bool pred)
{
    if (!p->cfg.l2_prefetch || pred) return;
    cute_int r0 = cute_mul(cute_ctx_alg(c), cute_warp_idx(c), cute_i(p->rows));
    gemv_prefetch_tile(c, p, t->gA, r0, p->rows, p->ktile, at.leaf[at.nleaves - 1], t->k0, t->kend);
}

/* full k-tiles (predicated where `pred`; unpredicated ones by `whole` where given), then
 * the partial last one, predicated */
static void walk(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                 int64_t tk, bool pred, const gemv_walk *w)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int full = cute_div(a, cute_sub(a, t->kend, t->k0), cute_i(tk));
    if (w->whole && !pred)
        w->whole(c, p, th, t, full, w->user);
    else
        CUTE_FOR(c, kt, cute_i(0), full)
        {
            w->tile(c, p, th, t, CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), pred, w->user);
        }
    CUTE_IF(c, cute_int_lt(c, cute_add(a, t->k0, cute_mul(a, full, cute_i(tk))), t->kend))
    {
        w->tile(c, p, th, t, CUTE_CRD(CUTE_ALL, CUTE_ALL, full), true, w->user);
    }
}

void gemv_warp_rows_by(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                       cute_int M, int64_t tk, const gemv_walk *w)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int row0 = th->first.coord.leaf[0]; /* the warp's first row, and its last */
    cute_int last = cute_add(a, row0, cute_i(p->rows - 1));
    CUTE_IF(c, cute_int_lt(c, last, M))
    {
        walk(c, p, th, t, tk, false, w);
        w->end(c, p, row0, w->user);
    }
    if (p->rows > 1)
        CUTE_IF(c, cute_val_binop(c, CUTE_OP_AND, cute_int_lt(c, row0, M),
                                  cute_int_lt(c, cute_sub(a, M, cute_i(1)), last)))
        {
            walk(c, p, th, t, tk, true, w);
            w->end(c, p, row0, w->user);
        }
}

void gemv_warp_rows(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                    cute_int M, int64_t tk, gemv_tile_fn tile, gemv_rows_end_fn end, void *user)
{
    gemv_walk w = {.tile = tile, .end = end, .user = user};
    gemv_warp_rows_by(c, p, th, t, M, tk, &w);
}

/* t (M) viewed at row m0 for n rows: CuTe's domain_offset, composed with (n):(1) */
static cute_tensor rows_at(cute_ctx *c, cute_tensor t, cute_int m0, int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor at = cute_tensor_domain_offset(c, t, CUTE_CRD(m0));
    cute_layout run = cute_layout_fmt(a, "(%d):(1)", n); /* shaped as the sums: (n) */
    at.layout = cute_compose(a, &at.layout, &run);
    return at;
}

void gemv_scale_into(cute_ctx *c, cute_tensor acc, cute_tensor y, cute_ssa pred, cute_val alpha,
                     cute_val beta)
{
    cute_ssa v = cute_tensor_load(c, acc);
    cute_ssa ax = cute_ssa_binop(c, CUTE_OP_MUL, v, cute_ssa_scalar(c, alpha, v.shape));
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_make_layout(cute_ctx_alg(c), v.shape));
    cute_tensor_store(c, r, ax);
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_NE, beta, cute_val_const(c, CUTE_F32, 0.0)))
    {
        cute_ssa yin = cute_ssa_cvt(c, cute_tensor_load_if(c, y, pred, 0.0), CUTE_F32);
        cute_ssa by = cute_ssa_binop(c, CUTE_OP_MUL, yin, cute_ssa_scalar(c, beta, yin.shape));
        cute_tensor_store(c, r, cute_ssa_binop(c, CUTE_OP_ADD, ax, by));
    }
    cute_tensor_store_if(c, y, cute_ssa_cvt(c, cute_tensor_load(c, r), (cute_dtype)y.dtype), pred);
}

void gemv_finish(cute_ctx *c, const gemv_plan *p, cute_tensor acc, cute_int m0, int v,
                 cute_tensor mY, cute_tensor mW, const gemv_tiles *t, cute_val alpha, cute_val beta)
{
    cute_int M = mY.layout.shape.leaf[0];
    int n = (int)cute_size(cute_ctx_alg(c), &acc.layout).v;
    cute_tensor crd = rows_at(c, cute_make_identity_tensor(c, cute_tuple_int(M)), m0, n);
    cute_ssa in = cute_elem_less(c, crd, cute_tuple_int(M));
    if (p->cfg.split && p->cfg.atomic) { /* W (M,N,L,1): every split adds into one sum */
        cute_tensor w = rows_at(c, CUTE_SLICE(c, mW, CUTE_ALL, v, t->l, 0), m0, n);
        cute_ssa sums = cute_tensor_load(c, acc);
        for (int i = 0; i < n; i++) CUTE_IF(c, cute_ssa_get(c, in, i))
            {
                cute_val_atomic(c, cute_tensor_ptr(c, w, cute_i(i)), cute_ssa_get(c, sums, i),
                                CUTE_ATOMIC_ADD);
            }
        return;
    }
    if (p->cfg.split) {
        cute_tensor w = rows_at(c, CUTE_SLICE(c, mW, CUTE_ALL, v, t->l, t->s), m0, n);
        cute_tensor_store_if(c, w, cute_tensor_load(c, acc), in);
        return;
    }
    gemv_scale_into(c, acc, rows_at(c, CUTE_SLICE(c, mY, CUTE_ALL, v, t->l), m0, n), in, alpha, beta);
}

/* the sum over the warp's lanes (butterfly: every lane gets it) */
static cute_val warp_sum(cute_ctx *c, cute_val v)
{
    for (int off = 16; off >= 1; off /= 2) {
        cute_val o = cute_val_shfl(c, v, cute_val_int(c, CUTE_I32, off), CUTE_SHFL_XOR);
        v = cute_val_binop(c, CUTE_OP_ADD, v, o);
    }
    return v;
}

void gemv_finish_warp(cute_ctx *c, const gemv_plan *p, const cute_val *sums, cute_int row,
                      cute_tensor mY, cute_tensor mW, const gemv_tiles *t, cute_val alpha,
                      cute_val beta)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val sum[CUTE_GEMV_MAX_VECTORS];
    for (int v = 0; v < p->nvec; v++) sum[v] = warp_sum(c, sums[v]);
    CUTE_IF(c, cute_int_eq(c, cute_lane_idx(c), cute_i(0)))
    {
        for (int v = 0; v < p->nvec; v++) {
            cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "(1):(1)"));
            cute_tensor_store(c, r, cute_ssa_scalar(c, sum[v], r.layout.shape));
            gemv_finish(c, p, r, row, v, mY, mW, t, alpha, beta);
        }
    }
}

#define REDUCE_THREADS 256

/* the vectors one thread of the reduction adds: all (unrolled), or with more than
 * CUTE_GEMV_MAX_VECTORS (the mma form's) one, a block's third index */
static bool vector_per_block(const gemv_plan *p)
{
    return p->nvec > CUTE_GEMV_MAX_VECTORS;
}

/* W's splits from..S by step of row m, vector v, batch l added in that order (the loads
 * unrolled `unroll` times: several in flight) */
static cute_tensor split_sum(cute_ctx *c, cute_tensor mW, cute_int m, cute_int v, cute_int l, cute_int from,
                             int step, int unroll)
{
    cute_tensor acc = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "(1):(1)"));
    cute_clear(c, acc);
    CUTE_FOR_STEP(c, s, from, mW.layout.shape.leaf[3], step, unroll)
    {
        cute_tensor w = rows_at(c, CUTE_SLICE(c, mW, CUTE_ALL, v, l, s), m, 1);
        cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc), cute_tensor_load(c, w)));
    }
    return acc;
}

/* y = alpha sum + beta y for row m, vector v, batch l (atomic: W's one sum, then zeroed
 * for the next call) */
static void reduce_end(cute_ctx *c, const gemv_plan *p, cute_tensor acc, cute_tensor mY, cute_tensor mW, cute_int m,
                       cute_int v, cute_int l, cute_val alpha, cute_val beta)
{
    cute_tensor y = rows_at(c, CUTE_SLICE(c, mY, CUTE_ALL, v, l), m, 1);
    gemv_scale_into(c, acc, y, cute_ssa_fill(c, CUTE_I1, acc.layout.shape, 1.0), alpha, beta);
    if (p->cfg.atomic)
        cute_tensor_store(c, rows_at(c, CUTE_SLICE(c, mW, CUTE_ALL, v, l, 0), m, 1),
                          cute_ssa_fill(c, CUTE_F32, acc.layout.shape, 0.0));
}

/* output (row m, vector v, batch l) by a warp: lane i adds splits i, i + 32, ... in order
 * (`unroll` loads in flight), the lanes meet in the butterfly, lane 0 ends it */
static void warp_output(cute_ctx *c, const gemv_plan *p, cute_tensor mY, cute_tensor mW, cute_int m, cute_int v,
                        cute_int l, int unroll, cute_val alpha, cute_val beta)
{
    cute_tensor acc = split_sum(c, mW, m, v, l, cute_lane_idx(c), 32, unroll);
    cute_val sum = warp_sum(c, cute_ssa_get(c, cute_tensor_load(c, acc), 0));
    cute_tensor_store(c, acc, cute_ssa_scalar(c, sum, acc.layout.shape));
    CUTE_IF(c, cute_int_eq(c, cute_lane_idx(c), cute_i(0))) { reduce_end(c, p, acc, mY, mW, m, v, l, alpha, beta); }
}

/* The second kernel with many splits (cfg.many_splits, up to CUTE_GEMV_MAX_VECTORS vectors):
 * output o = r N + v (row r, vector v) is warp o of the grid's (8 loads in flight).  (A warp a
 * row, adding its vectors one after another, ran 3x5x100000 at 39.5% of the copy against 49.0:
 * deleted, bench/RESULTS.md, skinny38b.)  With p->pdl it waits for the whole splitting grid
 * first. */
static void reduce_outputs(cute_ctx *c, cute_tensor mY, cute_tensor mW, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int o = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(REDUCE_THREADS / 32)), cute_warp_idx(c));
    cute_int nv = cute_i(p->nvec), m = cute_div(a, o, nv), v = cute_mod(a, o, nv);
    cute_int l = cute_block_idx(c, 1), M = mY.layout.shape.leaf[0];
    if (p->pdl) cute_griddepcontrol_wait(c); /* the splitting kernel's W, all of it */
    CUTE_IF(c, cute_int_lt(c, m, M)) { warp_output(c, p, mY, mW, m, v, l, 8, alpha, beta); }
}

/* Split-K's second kernel: for each vector, the sum of each row's splits, then y = alpha
 * sum + beta y.  One thread a row adds the splits in order; with many splits
 * (cfg.many_splits) a warp an output (reduce_outputs; with the tensor-core form's vectors,
 * a block's third index, a warp a row of that vector), lane i adding splits i, i + 32, ... in
 * order, the lanes' sums meeting in a fixed butterfly: the same bits every run either way.
 * (One thread a row waits a load's latency per split: by that count about 35 us of
 * 3x5x100000's 39, whose 391 splits it reduced.) */
static void gemv_reduce(cute_ctx *c, cute_tensor mY, cute_tensor mW, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    bool warps = p->cfg.many_splits, per_block = vector_per_block(p);
    if (warps && !per_block) {
        reduce_outputs(c, mY, mW, alpha, beta);
        return;
    }
    if (p->pdl) cute_griddepcontrol_wait(c); /* the splitting kernel's W, all of it */
    cute_int row = cute_mul(a, cute_block_idx(c, 0), cute_i(warps ? REDUCE_THREADS / 32 : REDUCE_THREADS));
    cute_int m = cute_add(a, row, warps ? cute_warp_idx(c) : cute_thread_idx(c, 0));
    cute_int l = cute_block_idx(c, 1), M = mY.layout.shape.leaf[0];
    CUTE_IF(c, cute_int_lt(c, m, M))
    {
        if (warps) /* a warp a row of the block's vector (the tensor-core form's) */
            warp_output(c, p, mY, mW, m, cute_block_idx(c, 2), l, 4, alpha, beta);
        else
            for (int i = 0; i < (per_block ? 1 : p->nvec); i++) {
                cute_int v = per_block ? cute_block_idx(c, 2) : cute_i(i);
                reduce_end(c, p, split_sum(c, mW, m, v, l, cute_i(0), 1, 8), mY, mW, m, v, l, alpha, beta);
            }
    }
}

cute_tensor gemv_last_slot(cute_ctx *c, const gemv_plan *p)
{
    if (!p->cfg.one_launch) return (cute_tensor){0};
    cute_smem_allocator A = cute_smem_allocator_new(c);
    return cute_smem_alloc_tensor(c, &A, CUTE_U32, cute_layout_parse(cute_ctx_alg(c), "(1):(1)"), 4);
}

/* The last block's sums of its row group (rows row0 .. row0 + rows - 1 of A, batch l): each
 * output o = r N + v (row row0 + r, vector v) the sum of W's S splits (atomic: S = 1, the
 * blocks' atomic sum, then zeroed for the next call), by g threads (g the
 * largest power of two up to 32 with g x the group's outputs <= the block's threads; rounds
 * of them past that): thread j of an output's g adds splits j, j + g, ... in order (16 loads
 * in flight), the g sums meet in a fixed butterfly, thread 0 of them writes y.  The tree
 * depends on the shape alone: the same bits every run. */
static void last_sums(cute_ctx *c, const gemv_plan *p, cute_tensor mY, cute_tensor mW, cute_int row0, int rows,
                      cute_int l, cute_val alpha, cute_val beta)
{
    cute_alg *a = cute_ctx_alg(c);
    int T = p->threads;
    cute_int S = mW.layout.shape.leaf[3], M = mY.layout.shape.leaf[0], tid = cute_thread_idx(c, 0);
    cute_int nv = cute_i(p->nvec), outs = cute_mul(a, cute_min(a, cute_i(rows), cute_sub(a, M, row0)), nv);
    cute_val gv = cute_val_int(c, CUTE_I64, 1);
    for (int k = 2; k <= 32 && k <= T; k *= 2)
        gv = cute_val_select(c, cute_int_lt(c, cute_mul(a, outs, cute_i(k)), cute_i(T + 1)), cute_val_int(c, CUTE_I64, k),
                             gv);
    cute_int g = cute_int_now(c, cute_int_from_val(c, gv, 1));
    cute_int j = cute_mod(a, tid, g), per_round = cute_div(a, cute_i(T), g);
    cute_int n = cute_ceil_div(a, cute_max(a, cute_sub(a, S, j), cute_i(0)), g); /* thread j's splits */
    cute_tuple one = cute_tuple_parse(a, "(1)");
    CUTE_FOR(c, r, cute_i(0), cute_ceil_div(a, outs, per_round))
    {
        cute_int o = cute_add(a, cute_div(a, tid, g), cute_mul(a, r, per_round));
        cute_int oc = cute_min(a, o, cute_sub(a, outs, cute_i(1))); /* (every thread takes part in the butterfly) */
        cute_int m = cute_add(a, row0, cute_div(a, oc, nv)), v = cute_mod(a, oc, nv);
        cute_tensor acc = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "(1):(1)"));
        cute_clear(c, acc);
        cute_val in = cute_int_lt(c, o, outs); /* (past the outputs: no loads) */
        cute_int loads = cute_int_from_val(c, cute_val_select(c, in, cute_int_value(c, n, CUTE_I64), cute_val_int(c, CUTE_I64, 0)), 0);
        CUTE_FOR_STEP(c, i, cute_i(0), loads, 1, 16)
        {
            cute_tensor w = rows_at(c, CUTE_SLICE(c, mW, CUTE_ALL, v, l, cute_add(a, j, cute_mul(a, i, g))), m, 1);
            cute_tensor_store(c, acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, acc), cute_tensor_load(c, w)));
        }
        cute_val sum = cute_ssa_get(c, cute_tensor_load(c, acc), 0);
        for (int off = 16; off >= 1; off /= 2) {
            cute_val other = cute_val_shfl(c, sum, cute_val_int(c, CUTE_I32, off), CUTE_SHFL_XOR);
            other = cute_val_select(c, cute_int_lt(c, cute_i(off), g), other, cute_val_const(c, CUTE_F32, 0.0));
            sum = cute_val_binop(c, CUTE_OP_ADD, sum, other);
        }
        cute_tensor_store(c, acc, cute_ssa_scalar(c, sum, one));
        CUTE_IF(c, cute_val_binop(c, CUTE_OP_AND, cute_int_eq(c, j, cute_i(0)), in))
        {
            reduce_end(c, p, acc, mY, mW, m, v, l, alpha, beta);
        }
    }
}

void gemv_last_block_end(cute_ctx *c, const gemv_plan *p, cute_tensor mY, cute_tensor mW, cute_tensor counts,
                         cute_tensor slot, const gemv_tiles *t, int rows, cute_val alpha, cute_val beta)
{
    if (!p->cfg.one_launch) return;
    cute_alg *a = cute_ctx_alg(c);
    cute_int S = cute_grid_dim(c, 1); /* the group's blocks: its splits */
    cute_int group = cute_add(a, cute_block_idx(c, 0), cute_mul(a, cute_grid_dim(c, 0), t->l));
    cute_tuple one = cute_tuple_parse(a, "(1)");
    cute_barrier(c); /* the block's partials are stored */
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_fence_acq_rel_gpu(c); /* release: the block's partials before its count */
        cute_val old = cute_val_atomic(c, cute_tensor_ptr(c, counts, group), cute_val_int(c, CUTE_U32, 1),
                                       CUTE_ATOMIC_ADD);
        cute_val last = cute_val_cmp(c, CUTE_OP_EQ, old, cute_int_value(c, cute_sub(a, S, cute_i(1)), CUTE_U32));
        CUTE_IF(c, last)
        {
            cute_fence_acq_rel_gpu(c); /* acquire: every other block's partials */
            cute_tensor_store(c, rows_at(c, counts, group, 1), cute_ssa_fill(c, CUTE_U32, one, 0.0));
        }
        cute_tensor_store(c, slot, cute_ssa_scalar(c, cute_val_cvt(c, last, CUTE_U32), one));
    }
    cute_barrier(c);
    cute_val last = cute_ssa_get(c, cute_tensor_load(c, slot), 0);
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_NE, last, cute_val_int(c, CUTE_U32, 0)))
    {
        last_sums(c, p, mY, mW, cute_mul(a, cute_block_idx(c, 0), cute_i(rows)), rows, t->l, alpha, beta);
    }
}

void gemv_let_dependents_in(cute_ctx *c, const gemv_plan *p)
{
    if (p->pdl_self) { /* the previous grid's end and writes first (x, A, y may be its) */
        cute_griddepcontrol_wait(c);
        cute_griddepcontrol_launch_dependents(c);
        return;
    }
    if (!p->pdl) return;
    /* one launch as a dependent one: the previous grid's writes (A, x, W, the counters) first */
    if (p->cfg.one_launch) cute_griddepcontrol_wait(c);
    cute_griddepcontrol_launch_dependents(c);
}

void gemv_reduce_launch(cute_ctx *c, const gemv_plan *p, cute_tensor mY, cute_tensor mW,
                        cute_host_scalar alpha, cute_host_scalar beta)
{
    if (!p->cfg.split || p->cfg.one_launch) return;
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = mY.layout.shape.leaf[0], L = mY.layout.shape.leaf[2];
    cute_int N = cute_i(vector_per_block(p) ? p->nvec : 1);
    int rows = p->cfg.many_splits ? REDUCE_THREADS / 32 : REDUCE_THREADS; /* a block's */
    if (p->cfg.many_splits && !vector_per_block(p)) M = cute_mul(a, M, cute_i(p->nvec)); /* outputs, a warp each */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, M, cute_i(rows)), L, N}, .block = {cute_i(REDUCE_THREADS)},
                           .pdl = p->pdl};
    CUTE_LAUNCH(c, gemv_reduce, cfg, mY, mW, alpha, beta);
}

cute_tensor gemv_scales_by_tile(cute_ctx *c, cute_tensor sf, cute_tuple crd0, int width, int64_t per_tile,
                                cute_int full)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple one = cute_tuple_fmt(a, "(0,%lld,0)", (long long)per_tile);
    cute_int step = cute_crd2idx(a, &one, &sf.layout.shape, &sf.layout.stride);
    cute_tensor at = cute_tensor_domain_offset(c, sf, crd0);
    at.layout = cute_layout_fmt(a, "(%d,%I):(1,%I)", width, full, step);
    return at;
}
