/* fp8 scales in the Hopper GEMM (cute_gemm_scales; docs/gemm.md, "Scaled fp8"): what a
 * consumer reads once from the call's scale tensors, and the amax of C.
 *
 *  - per-tensor scales fold into alpha: alpha sa sb, read from device memory by every
 *    consumer thread when it starts (the scales are device values, as torch._scaled_mm
 *    takes them: no host round trip);
 *  - the output scale multiplies x after the fused epilogue, before the rounding;
 *  - amax: each thread keeps the largest |x| of its elements inside C as f32 bits (an
 *    unsigned maximum orders non-negative floats as their values, and puts NaN above
 *    infinity), its warp reduces them by shuffles, and lane 0 raises amax with one
 *    atomicMax on the bits: the same value whatever order the warps come in. */
#include "cutec/notation.h"
#include "cutec/reduce.h"
#include "kernels/gemm/gemm_internal.h"

/* element 0 of a rank-1 f32 tensor of the call, as a value */
static cute_val scalar(cute_ctx *c, cute_tensor t)
{
    cute_tensor one = cute_make_tensor(c, cute_tensor_ptr(c, t, cute_i(0)), cute_layout_parse(cute_ctx_alg(c), "1:0"), 4);
    return cute_ssa_get(c, cute_tensor_load(c, one), 0);
}

cute_val gemm_scales_begin(cute_ctx *c, const gemm_plan *p, gemm_scales *s, cute_val alpha)
{
    s->out_scale = (cute_val){0}, s->amax_bits = (cute_val){0};
    if (p->cfg.out_scale) s->out_scale = scalar(c, s->out);
    if (p->cfg.amax) s->amax_bits = cute_val_var(c, cute_val_int(c, CUTE_U32, 0));
    if (p->cfg.scale != CUTE_GEMM_SCALE_TENSOR) return alpha;
    return cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_MUL, alpha, scalar(c, s->sa)), scalar(c, s->sb));
}

/* x (f32, after the fused epilogue) of elements `in` (inside C): the amax raised by them,
 * then x times the output scale */
cute_ssa gemm_scales_out(cute_ctx *c, const gemm_plan *p, const gemm_scales *s, cute_ssa x, cute_ssa in)
{
    if (!s) return x;
    if (p->cfg.amax) {
        cute_val most = s->amax_bits, zero = cute_val_int(c, CUTE_U32, 0);
        for (int i = 0; i < x.n; i++) {
            cute_val bits = cute_val_bitcast(c, cute_val_unop(c, CUTE_OP_ABS, cute_ssa_get(c, x, i)),
                                             cute_type_of(CUTE_U32));
            most = cute_val_binop(c, CUTE_OP_MAX, most, cute_val_select(c, cute_ssa_get(c, in, i), bits, zero));
        }
        cute_val_assign(c, s->amax_bits, most);
    }
    if (!p->cfg.out_scale) return x;
    return cute_ssa_binop(c, CUTE_OP_MUL, x, cute_ssa_scalar(c, s->out_scale, x.shape));
}

/* after the thread's last tile: its warp's largest bits into amax (lane 0, one atomic) */
void gemm_scales_end(cute_ctx *c, const gemm_plan *p, const gemm_scales *s)
{
    if (!p->cfg.amax) return;
    cute_reducer r = cute_reducer_op(CUTE_OP_MAX);
    cute_val v = s->amax_bits;
    cute_warp_reduce(c, &r, &v, 32);
    CUTE_IF(c, cute_int_eq(c, cute_lane_idx(c), cute_i(0))) {
        cute_tensor bits = cute_tensor_recast(c, s->amax, CUTE_U32);
        cute_val_atomic(c, cute_tensor_ptr(c, bits, cute_i(0)), v, CUTE_ATOMIC_MAX);
    }
}
