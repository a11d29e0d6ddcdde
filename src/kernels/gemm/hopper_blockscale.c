/* The Hopper GEMM's main loop with fp8 block scales (DeepSeek-V3's, DeepGEMM's): A scaled
 * per row and 128 of K, sa (M, K/128); B per 128 x 128 block, sb (N/128, K/128).  A k-tile
 * is 128 of K, one scale block, so each k-tile's wgmma batch goes into accumulators of its
 * own (zeroed first), and once it has retired the thread promotes them into the f32 sum:
 *
 *     acc += part * sa(m, kt) sb(n / 128, kt)          (one FMA an accumulator)
 *
 * which also keeps the tensor core's truncating fp8 sums (14 bits, docs/interpreter.md) to
 * one k-tile's worth.  Two sets of partial accumulators take turns, so a warpgroup issues
 * k-tile kt + 1's batch before it waits for kt's and promotes it (DeepGEMM waits for each
 * batch and leans on the other warpgroup alone): the tensor core has the next batch while the
 * FMAs run, and the stage of kt is released as soon as kt has retired.  Each k-tile's scales
 * are loaded when its batch is issued and used a k-tile later, their latency hidden: a
 * thread's accumulators cover two rows (r and r + 8 of CuTe's CLayout_64xN) and, the tile
 * being at most 128 wide and aligned to 128, one block of B.  Registers: 64 accumulators a
 * set at 128 x 128, three sets, within the consumers' 232 (ptxas: no spills). */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"

/* sa's column 0 seen as an (M, N) tensor (constant along N), and sb's column 0 as one
 * constant over each 128 columns: the scales of each element of C at k-block 0, from the
 * tile's origin */
static cute_tensor broadcast_rows(cute_ctx *c, const gemm_tiles *t, cute_tensor sa)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor col = cute_tensor_slice(c, sa, cute_tuple_parse(a, "(_,0)"));
    col.layout = cute_layout_fmt(a, "(%I,%I):(%I,0)", t->M, t->N, col.layout.stride.leaf[0]);
    return cute_tensor_domain_offset(c, col, t->kC.coord);
}

static cute_tensor broadcast_blocks(cute_ctx *c, const gemm_tiles *t, cute_tensor sb)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor col = cute_tensor_slice(c, sb, cute_tuple_parse(a, "(_,0)"));
    cute_int blocks = col.layout.shape.leaf[0];
    col.layout = cute_layout_fmt(a, "(%I,(128,%I)):(0,(0,%I))", t->M, blocks, col.layout.stride.leaf[0]);
    return cute_tensor_domain_offset(c, col, t->kC.coord);
}

/* the thread's elements of an (M, N) tensor v at the accumulators (value, 0, 0) `at` */
static cute_tensor mine(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, cute_tensor v, const char *at)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    cute_tensor part = cute_partition_C(c, thr, cute_tensor_local_tile(c, v, tile, cute_tuple_parse(a, "(0,0)"), NULL));
    return cute_tensor_slice(c, part, cute_tuple_parse(a, at));
}

/* Where the thread's scales lie at k-block 0, computed once a tile (the tile's origin comes
 * from the scheduler's divisions: inside the k-loop they would be redone every k-tile): the
 * two rows of sa its accumulators cover (a row past M reads row 0 instead: its accumulators
 * are TMA's zeros and are never stored) and its block of sb (always inside: the tiles, at
 * most 128 wide, never reach past the last block). */
typedef struct scale_at {
    cute_val row[2], block; /* pointers */
    cute_tensor sa, sb;     /* the call's, for their K-block strides */
} scale_at;

static scale_at scale_at_tile(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, const gemm_tiles *t,
                              const gemm_scales *s)
{
    cute_alg *a = cute_ctx_alg(c);
    scale_at at = {.sa = s->sa, .sb = s->sb};
    cute_tensor rows = mine(c, p, thr, broadcast_rows(c, t, s->sa), "((0,_,0),0,0)");
    cute_ssa in = cute_elem_less(c, mine(c, p, thr, t->kC, "((0,_,0),0,0)"), cute_tuple_fmt(a, "(%I,%I)", t->M, t->N));
    for (int i = 0; i < 2; i++)
        at.row[i] = cute_val_select(c, cute_ssa_get(c, in, i), cute_tensor_ptr(c, rows, cute_i(i)),
                                    cute_tensor_ptr(c, s->sa, cute_i(0)));
    at.block = cute_tensor_ptr(c, mine(c, p, thr, broadcast_blocks(c, t, s->sb), "((0,0,0),0,0)"), cute_i(0));
    return at;
}

/* the f32 at ptr + kt * (the K-block stride of scales x) */
static cute_val load_kt(cute_ctx *c, cute_val ptr, cute_tensor x, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout along = cute_layout_fmt(a, "(1,%I):(0,%I)", x.layout.shape.leaf[1], x.layout.stride.leaf[1]);
    cute_tensor row = cute_make_tensor(c, ptr, along, 4);
    return cute_ssa_get(c, cute_tensor_load(c, cute_tensor_slice(c, row, cute_tuple_fmt(a, "(_,%I)", kt))), 0);
}

/* k-tile kt's scales into r (two f32: sa of the thread's two rows times sb of its block) */
static void load_scales(cute_ctx *c, const scale_at *at, cute_int kt, cute_tensor r)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val block = load_kt(c, at->block, at->sb, kt);
    for (int i = 0; i < 2; i++) {
        cute_tensor one = cute_tensor_local_tile(c, r, cute_tuple_parse(a, "1"), cute_tuple_fmt(a, "%d", i), NULL);
        cute_val v = cute_val_binop(c, CUTE_OP_MUL, load_kt(c, at->row[i], at->sa, kt), block);
        cute_tensor_store(c, one, cute_ssa_scalar(c, v, cute_tuple_parse(a, "1")));
    }
}

/* the two scales of r seen over the whole fragment: a stride-0 layout broadcasts them */
static cute_ssa broadcast(cute_ctx *c, const gemm_plan *p, cute_tensor r)
{
    r.layout = cute_layout_fmt(cute_ctx_alg(c), "((2,2,%lld),1,1):((0,1,0),0,0)", (long long)(p->bn / 8));
    return cute_tensor_load(c, r);
}

/* One k-tile's product in accumulators of its own and the scales it will be promoted with */
typedef struct partial {
    cute_tensor acc, scale;
} partial;

/* what both steps see */
typedef struct blockscale_loop {
    const gemm_plan *p;
    const gemm_hopper_smem *m;
    cute_pipeline_state *read, *done;
    const gemm_hopper_frag *f;
    scale_at at;
} blockscale_loop;

/* the next full stage into x's accumulators (zeroed: the tensor core starts them from
 * nothing) as one wgmma batch, not waited for; then k-tile kt's scales into x's, used at
 * x's promotion a k-tile later */
static void issue(cute_ctx *c, const blockscale_loop *l, const partial *x, cute_int kt)
{
    cute_pipeline_consumer_wait(c, &l->m->pipe, l->read, (cute_val){0});
    cute_fill(c, x->acc, 0);
    cute_warpgroup_arrive(c);
    cute_gemm(c, &l->p->mma, x->acc, gemm_hopper_stage(c, l->f->tCsA, l->read),
              gemm_hopper_stage(c, l->f->tCsB, l->read), x->acc);
    cute_warpgroup_commit_batch(c);
    cute_pipeline_state_advance(c, l->read);
    load_scales(c, &l->at, kt, x->scale);
}

/* once no more than `in_flight` batches remain (x's has retired): its stage released, x
 * promoted into the f32 sum, one FMA an accumulator */
static void promote(cute_ctx *c, const blockscale_loop *l, const partial *x, int in_flight)
{
    cute_warpgroup_wait(c, in_flight);
    gemm_hopper_release(c, l->p, l->m, l->done);
    cute_ssa sum = cute_ssa_fma(c, cute_tensor_load(c, x->acc), broadcast(c, l->p, x->scale), cute_tensor_load(c, l->f->acc));
    cute_tensor_store(c, l->f->acc, sum);
}

/* Two partial sums take turns (registers are named at trace time, so the k-loop goes two
 * k-tiles a turn): k-tile kt + 1's batch is issued before kt's promotion, so the tensor core
 * works on the warpgroup's next batch while it promotes the last one.  x[0] holds the even
 * k-tiles, x[1] the odd ones; after the pairs, one k-tile is left in flight (k_tiles odd) or
 * two (even). */
void gemm_hopper_mainloop_blockscaled(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m,
                                      const gemm_tiles *t, cute_pipeline_state *read, cute_pipeline_state *done,
                                      const gemm_hopper_frag *f, cute_int tid, const gemm_scales *s)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    blockscale_loop l = {p, m, read, done, f, scale_at_tile(c, p, thr, t, s)};
    partial x[2];
    for (int i = 0; i < 2; i++)
        x[i] = (partial){cute_make_fragment_like(c, f->acc), cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "2:1"))};
    cute_fill(c, f->acc, 0);
    issue(c, &l, &x[0], cute_i(0));
    CUTE_FOR(c, j, cute_i(0), cute_div(a, cute_sub(a, t->k_tiles, cute_i(1)), cute_i(2))) {
        cute_int kt = cute_add(a, cute_mul(a, j, cute_i(2)), cute_i(1));
        issue(c, &l, &x[1], kt);
        promote(c, &l, &x[0], 1);
        issue(c, &l, &x[0], cute_add(a, kt, cute_i(1)));
        promote(c, &l, &x[1], 1);
    }
    CUTE_IF(c, cute_int_eq(c, cute_mod(a, t->k_tiles, cute_i(2)), cute_i(0))) {
        issue(c, &l, &x[1], cute_sub(a, t->k_tiles, cute_i(1)));
        promote(c, &l, &x[0], 1);
        promote(c, &l, &x[1], 0);
    }
    CUTE_ELSE(c) promote(c, &l, &x[0], 0);
}
