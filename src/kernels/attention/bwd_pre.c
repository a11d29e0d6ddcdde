/* The backward's preprocessing: D(b,h,i) = sum_d dO(b,i,h,d) O(b,i,h,d), the row sums that
 * dS = P (dP - D) needs (D = rowsum(P dP) = rowsum(dO O)).  One block of 128 threads per
 * (32 query rows, head, batch): each row's D elements are read by 4 threads, D/4 each in
 * 16-byte pieces (the layout of the forward's global-to-shared copy), multiplied in f32,
 * summed per thread and over the 4 (two xor shuffles); the thread holding the row's
 * column 0 writes it. */
#include "cutec/notation.h"
#include "cutec/peer.h"
#include "cutec/reduce.h"
#include "cutec/sync.h"
#include "kernels/attention/attention_bwd.h"

/* D's tile of block (blk, h, b); sem: with the fused dQ's turns (hopper_bwd_dq.c), the
 * counts of dQ's sums (B, H, Sq / 64) u32, back to zero.  The user pointer is the
 * Hopper plan (bwd_compile.c makes one for both hosts; its first member, pre, is this
 * kernel's plan): with PDL (attn_hop_bwd_plan.pdl) the next kernel is let in as each block
 * starts (it waits for this grid's end before it reads D or the counts) */
static void pre_body(cute_ctx *c, cute_tensor mO, cute_tensor mdO, cute_tensor mD, const cute_tensor *sem)
{
    const attn_hop_bwd_plan *hp = cute_ctx_user(c);
    const attn_plan *p = &hp->pre;
    if (hp->pdl) cute_griddepcontrol_launch_dependents(c);
    cute_alg *a = cute_ctx_alg(c);
    int64_t rows = p->threads / 4;
    cute_int blk = cute_block_idx(c, 0), h = cute_block_idx(c, 1), b = cute_block_idx(c, 2);
    cute_int sq = mO.layout.shape.leaf[1];
    cute_tensor id = cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%lld)", sq, (long long)p->d));
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)p->d);
    cute_tensor cO = cute_tensor_local_tile(c, id, tile, CUTE_CRD(blk, 0), NULL);
    /* D's rows of the tile, (rows):(s), seen as (rows, D):(s, 0) like O */
    cute_tensor dv = cute_tensor_local_tile(c, CUTE_SLICE(c, mD, b, h, CUTE_ALL), cute_tuple_fmt(a, "(%lld)", (long long)rows),
                                            CUTE_CRD(blk), NULL);
    cute_layout bcast = cute_layout_fmt(a, "(%lld,%lld):(1,0)", (long long)rows, (long long)p->d);
    cute_tiler bt = cute_tiler_layout(&bcast);
    cute_thr_copy thr = cute_tiled_copy_slice(&p->g2s, cute_thread_idx(c, 0));
    cute_tensor pc = cute_partition_S(c, thr, cO);
    cute_ssa in = cute_elem_less(c, pc, cute_tuple_fmt(a, "(%I,%lld)", sq, (long long)p->d));
    cute_ssa o = cute_tensor_load_if(c, cute_partition_S(c, thr, attn_bwd_rows_tile(c, p, mO, b, h, blk, rows)), in, 0.0);
    cute_ssa d = cute_tensor_load_if(c, cute_partition_S(c, thr, attn_bwd_rows_tile(c, p, mdO, b, h, blk, rows)), in, 0.0);
    cute_ssa prod = cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_cvt(c, o, CUTE_F32), cute_ssa_cvt(c, d, CUTE_F32));
    cute_val sum = cute_ssa_reduce(c, CUTE_OP_ADD, prod);
    cute_reducer add = cute_reducer_op(CUTE_OP_ADD);
    cute_warp_allreduce(c, &add, &sum, 4);
    /* the one element of the thread's part at column 0 of a row inside Sq, if any */
    cute_ssa first = cute_elem_less(c, pc, cute_tuple_fmt(a, "(%I,1)", sq));
    cute_tensor gd = cute_partition_S(c, thr, cute_tensor_compose(c, dv, &bt));
    cute_tensor_store_if(c, gd, cute_ssa_scalar(c, sum, gd.layout.shape), first);
    if (!sem) return;
    cute_int row0 = cute_mul(a, blk, cute_i(rows));
    cute_val zeroes = cute_val_binop(c, CUTE_OP_AND, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)),
                                     cute_int_eq(c, cute_mod(a, row0, cute_i(64)), cute_i(0)));
    CUTE_IF(c, zeroes) {
        cute_grid_flag_release(c, CUTE_SLICE(c, *sem, b, h, CUTE_ALL), cute_div(a, row0, cute_i(64)), cute_i(0));
    }
}

static void pre_kernel(cute_ctx *c, cute_tensor mO, cute_tensor mdO, cute_tensor mD)
{
    pre_body(c, mO, mdO, mD, NULL);
}

static void pre_counts_kernel(cute_ctx *c, cute_tensor mO, cute_tensor mdO, cute_tensor mD, cute_tensor mSem)
{
    pre_body(c, mO, mdO, mD, &mSem);
}

void attn_bwd_pre_launch(cute_ctx *c, const attn_plan *p, const cute_arg *arg, bool counts)
{
    cute_alg *a = cute_ctx_alg(c);
    const cute_int *e = arg[ATTN_BWD_O].tensor.layout.shape.leaf; /* (B, Sq, H, D) */
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->threads / 4)), e[2], e[0]},
                           .block = {cute_i(p->threads)}};
    cute_tensor o = arg[ATTN_BWD_O].tensor, d_o = arg[ATTN_BWD_DO].tensor, d = arg[ATTN_BWD_D].tensor;
    if (counts)
        CUTE_LAUNCH(c, pre_counts_kernel, cfg, o, d_o, d, arg[ATTN_BWD_SEM].tensor);
    else
        CUTE_LAUNCH(c, pre_kernel, cfg, o, d_o, d);
}
