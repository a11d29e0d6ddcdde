/* The Hopper GEMM's main loop with fp8 block scales (DeepSeek-V3's, DeepGEMM's): A scaled
 * per row and 128 of K, sa (M, K/128); B per 128 x 128 block, sb (N/128, K/128).  A k-tile
 * is 128 of K, one scale block, so each k-tile's wgmma batch goes into accumulators of its
 * own (zeroed first), and once it has retired the thread promotes them into the f32 sum:
 *
 *     acc += part * sa(m, kt) sb(n / 128, kt)          (one FMA an accumulator)
 *
 * which also keeps the tensor core's truncating fp8 sums (14 bits, docs/interpreter.md) to
 * one k-tile's worth.  A warpgroup waits for its own batch before promoting it (the other
 * warpgroup's wgmma keep the tensor core busy meanwhile), so the stage is released right
 * there.  The scales are read between the commit and the wait, their latency hidden behind
 * the wgmma: a thread's accumulators cover two rows (r and r + 8 of CuTe's CLayout_64xN) and,
 * the tile being at most 128 wide and aligned to 128, one block of B. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"

/* sa's column kt seen as an (M, N) tensor (constant along N), and sb's column kt as one
 * constant over each 128 columns: the scales of each element of C, from the tile's origin */
static cute_tensor broadcast_rows(cute_ctx *c, const gemm_tiles *t, cute_tensor sa, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor col = cute_tensor_slice(c, sa, cute_tuple_fmt(a, "(_,%I)", kt));
    col.layout = cute_layout_fmt(a, "(%I,%I):(%I,0)", t->M, t->N, col.layout.stride.leaf[0]);
    return cute_tensor_domain_offset(c, col, t->kC.coord);
}

static cute_tensor broadcast_blocks(cute_ctx *c, const gemm_tiles *t, cute_tensor sb, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor col = cute_tensor_slice(c, sb, cute_tuple_fmt(a, "(_,%I)", kt));
    cute_int blocks = col.layout.shape.leaf[0];
    col.layout = cute_layout_fmt(a, "(%I,(128,%I)):(0,(0,%I))", t->M, blocks, col.layout.stride.leaf[0]);
    return cute_tensor_domain_offset(c, col, t->kC.coord);
}

/* the thread's values of an (M, N) tensor v at the accumulators (value, 0, 0) `at`, read
 * where they lie inside C (0 elsewhere: such rows and columns are never stored) */
static cute_ssa at_values(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, const gemm_tiles *t, cute_tensor v,
                          const char *at)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    cute_tensor mine = cute_partition_C(c, thr, cute_tensor_local_tile(c, v, tile, cute_tuple_parse(a, "(0,0)"), NULL));
    cute_tensor kC = cute_partition_C(c, thr, t->kC);
    cute_tuple crd = cute_tuple_parse(a, at), MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    return cute_tensor_load_if(c, cute_tensor_slice(c, mine, crd), cute_elem_less(c, cute_tensor_slice(c, kC, crd), MN), 0.0);
}

/* k-tile kt's scale of each of the thread's accumulators: sa of its two rows times sb of its
 * block, in two registers seen through a layout that broadcasts them over the fragment */
static cute_ssa scales_of(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, const gemm_tiles *t,
                          const gemm_scales *s, cute_int kt)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_ssa rows = at_values(c, p, thr, t, broadcast_rows(c, t, s->sa, kt), "((0,_,0),0,0)");
    cute_ssa block = at_values(c, p, thr, t, broadcast_blocks(c, t, s->sb, kt), "((0,0,0),0,0)");
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "2:1"));
    cute_tensor_store(c, r, cute_ssa_binop(c, CUTE_OP_MUL, rows, cute_ssa_scalar(c, cute_ssa_get(c, block, 0), rows.shape)));
    r.layout = cute_layout_fmt(a, "((2,2,%lld),1,1):((0,1,0),0,0)", (long long)(p->bn / 8));
    return cute_tensor_load(c, r);
}

void gemm_hopper_mainloop_blockscaled(cute_ctx *c, const gemm_plan *p, const gemm_hopper_smem *m,
                                      const gemm_tiles *t, cute_pipeline_state *read, cute_pipeline_state *done,
                                      const gemm_hopper_frag *f, cute_int tid, const gemm_scales *s)
{
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor part = cute_make_fragment_like(c, f->acc);
    cute_fill(c, f->acc, 0);
    CUTE_FOR(c, kt, cute_i(0), t->k_tiles) {
        cute_pipeline_consumer_wait(c, &m->pipe, read, (cute_val){0});
        cute_fill(c, part, 0);
        cute_warpgroup_arrive(c);
        cute_gemm(c, &p->mma, part, gemm_hopper_stage(c, f->tCsA, read), gemm_hopper_stage(c, f->tCsB, read), part);
        cute_warpgroup_commit_batch(c);
        cute_pipeline_state_advance(c, read);
        cute_ssa scale = scales_of(c, p, thr, t, s, kt);
        cute_warpgroup_wait(c, 0);
        gemm_hopper_release(c, p, m, done);
        cute_tensor_store(c, f->acc, cute_ssa_fma(c, cute_tensor_load(c, part), scale, cute_tensor_load(c, f->acc)));
    }
}
