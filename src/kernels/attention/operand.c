/* The MMA operands of the SM80 attention kernels (forward and backward): a shared tile read
 * by ldmatrix into the fragments of one operand, the two GEMMs every kernel is made of
 * (shared x shared, and an accumulator re-used in registers as the A operand), and the
 * cp.async fill of a (rows, D) tile. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "kernels/attention/attention_internal.h"

attn_operand attn_operand_make(cute_ctx *c, const attn_plan *p, const cute_tiled_copy *s2r, cute_tensor s,
                               bool a_side)
{
    cute_int tid = cute_thread_idx(c, 0);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_thr_copy x = cute_tiled_copy_slice(s2r, tid);
    attn_operand o = {s2r, cute_partition_S(c, x, s), {0}, {0}};
    o.regs = a_side ? cute_partition_fragment_A(c, thr, s) : cute_partition_fragment_B(c, thr, s);
    o.view = cute_retile_D(c, x, o.regs);
    return o;
}

static void load_kblock(cute_ctx *c, const attn_operand *o, int64_t kb)
{
    cute_copy(c, &o->s2r->atom, CUTE_SLICE(c, o->smem, CUTE_ALL, CUTE_ALL, kb),
              CUTE_SLICE(c, o->view, CUTE_ALL, CUTE_ALL, kb));
}

static int64_t kblocks(cute_ctx *c, const attn_operand *o)
{
    cute_layout k = cute_get(cute_ctx_alg(c), &o->regs.layout, 2);
    return cute_size(cute_ctx_alg(c), &k).v;
}

void attn_gemm_ss(cute_ctx *c, const attn_plan *p, const attn_operand *x, const attn_operand *y, cute_tensor acc)
{
    cute_clear(c, acc);
    attn_gemm_ss_acc(c, p, x, y, acc);
}

void attn_gemm_ss_acc(cute_ctx *c, const attn_plan *p, const attn_operand *x, const attn_operand *y, cute_tensor acc)
{
    for (int64_t kb = 0; kb < kblocks(c, x); kb++) { /* unrolled */
        load_kblock(c, x, kb);
        load_kblock(c, y, kb);
        cute_gemm(c, &p->mma, acc, CUTE_SLICE(c, x->regs, CUTE_ALL, CUTE_ALL, kb),
                  CUTE_SLICE(c, y->regs, CUTE_ALL, CUTE_ALL, kb), acc);
    }
}

void attn_gemm_rs(cute_ctx *c, const attn_plan *p, cute_tensor acc_p, const attn_operand *y, cute_tensor acc)
{
    cute_tensor rp = cute_make_rmem_tensor_like(c, acc_p, p->cfg.dtype);
    cute_tensor_store(c, rp, cute_ssa_cvt(c, cute_tensor_load(c, acc_p), p->cfg.dtype));
    cute_layout as_a = attn_c_as_a(cute_ctx_alg(c), &acc_p.layout);
    cute_tiler t = cute_tiler_layout(&as_a);
    cute_tensor pa = cute_tensor_compose(c, rp, &t);
    for (int64_t kb = 0; kb < kblocks(c, y); kb++) {
        load_kblock(c, y, kb);
        cute_gemm(c, &p->mma, acc, CUTE_SLICE(c, pa, CUTE_ALL, CUTE_ALL, kb),
                  CUTE_SLICE(c, y->regs, CUTE_ALL, CUTE_ALL, kb), acc);
    }
}

void attn_load_tile(cute_ctx *c, const attn_plan *p, cute_tensor g, cute_tensor id, cute_int rows, cute_tensor s)
{
    cute_thr_copy thr = cute_tiled_copy_slice(&p->g2s, cute_thread_idx(c, 0));
    cute_tuple bound = cute_tuple_fmt(cute_ctx_alg(c), "(%I,%lld)", rows, (long long)p->d);
    cute_ssa in = cute_elem_less(c, cute_partition_S(c, thr, id), bound);
    cute_copy_if_whole(c, &p->g2s.atom, in, cute_partition_S(c, thr, g), cute_partition_D(c, thr, s));
}

cute_tensor attn_transposed(cute_ctx *c, const attn_plan *p, cute_tensor s, int64_t rows)
{
    cute_layout tr = cute_layout_fmt(cute_ctx_alg(c), "(%lld,%lld):(%lld,1)", (long long)p->d, (long long)rows,
                                     (long long)rows);
    cute_tiler t = cute_tiler_layout(&tr);
    return cute_tensor_compose(c, s, &t);
}
