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

/* How a piece raises the thread's amax: a piece wholly inside C (a branch the warpgroup takes
 * together: the piece's last element inside C decides) by a tree of pairs over its 32 |x|
 * (depth 5, a level's pairs independent), the running value raised once by its root; an edge
 * piece computes its bounds there and only there and masks |x|'s bits by an AND (bits &
 * (in ? 0x7fffffff : 0)).  Measured slower on an H200 and deleted (8192^3 e4m3 per-tensor,
 * over the plain kernel in turns; bench/RESULTS.md "epi38", "epi39"): one chain of 32
 * dependent maxima a piece (+10.5% against +4.3%); the tree in every piece behind a select an
 * element, its bounds computed as the piece starts (ptxas packed a piece's 32 predicates into
 * registers and made the selects 16 branches a piece: +6.95% against this form's +2.47%); the
 * branch with every piece's bounds computed before it (+6.47% against the tree's +6.40%). */
enum { AMAX_MOST = 64 /* (the elements a tree: a piece's 32 fit) */ };

/* the largest of n values v (bits), most raised by it: a tree of pairs */
static cute_val tree(cute_ctx *c, cute_val most, cute_val *v, int n)
{
    for (int w = 1; w < n; w *= 2)
        for (int i = 0; i + w < n; i += 2 * w) v[i] = cute_val_binop(c, CUTE_OP_MAX, v[i], v[i + w]);
    return cute_val_binop(c, CUTE_OP_MAX, most, v[0]);
}

/* |x| of x's elements as f32 bits (where `in` is given, those not in it 0: an AND with
 * in ? 0x7fffffff : 0), most raised by them: a tree for each AMAX_MOST of them */
static cute_val raised(cute_ctx *c, cute_val most, cute_ssa x, const cute_ssa *in)
{
    cute_val zero = cute_val_int(c, CUTE_U32, 0), v[AMAX_MOST];
    cute_val low31 = in ? cute_val_int(c, CUTE_U32, 0x7fffffff) : zero;
    for (int at = 0; at < x.n; at += AMAX_MOST) {
        int n = x.n - at < AMAX_MOST ? x.n - at : AMAX_MOST;
        for (int i = 0; i < n; i++) {
            cute_val e = cute_ssa_get(c, x, at + i);
            if (in) {
                cute_val m = cute_val_select(c, cute_ssa_get(c, *in, at + i), low31, zero);
                v[i] = cute_val_binop(c, CUTE_OP_AND, cute_val_bitcast(c, e, cute_type_of(CUTE_U32)), m);
            } else {
                v[i] = cute_val_bitcast(c, cute_val_unop(c, CUTE_OP_ABS, e), cute_type_of(CUTE_U32));
            }
        }
        most = tree(c, most, v, n);
    }
    return most;
}

/* x (f32, after the fused epilogue), its elements at kC in C (M, N) = MN: the amax raised by
 * those inside C (all of them where *inside holds: a value the warpgroup shares), then x
 * times the output scale */
cute_ssa gemm_scales_out(cute_ctx *c, const gemm_plan *p, const gemm_scales *s, cute_ssa x, cute_tensor kC,
                         cute_tuple MN, const cute_val *inside)
{
    if (!s) return x;
    cute_val most = s->amax_bits;
    if (p->cfg.amax) {
        CUTE_IF(c, *inside) cute_val_assign(c, most, raised(c, most, x, NULL));
        CUTE_ELSE(c) {
            cute_ssa in = cute_elem_less(c, kC, MN);
            cute_val_assign(c, most, raised(c, most, x, &in));
        }
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
