/* TiledMMA on tensors: per-thread partitions, fragments, and cute_gemm with the universal
 * FMA atom (one FMA per (m, n, k) of the fragments). */
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/atom.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

cute_tensor cute_thr_mma_partition(cute_ctx *c, const cute_tiled_mma *t, cute_mma_operand op,
                                   cute_int thr, cute_tensor tile)
{
    if (!ctx_alive(c)) return tile;
    cute_tuple off;
    cute_layout P = cute_tiled_mma_partition(&c->alg, t, op, thr, &tile.layout, &off);
    return tensor_moved(c, tile, P, off);
}

cute_tensor cute_mma_make_fragment(cute_ctx *c, const cute_tiled_mma *t, cute_mma_operand op,
                                   cute_tensor part)
{
    cute_dtype d = (cute_dtype)(op == CUTE_MMA_A ? t->atom.a_type : op == CUTE_MMA_B ? t->atom.b_type : t->atom.c_type);
    cute_layout L = cute_make_layout(&c->alg, part.layout.shape);
    return cute_make_rmem_tensor(c, d, L);
}

/* register of element crd of an rmem tensor */
static cute_vreg reg_at(cute_ctx *c, cute_tensor t, int64_t v, int64_t i, int64_t j)
{
    int64_t idx[3] = {v, i, j};
    cute_tuple crd = cute_tuple_ints(&c->alg, 3, idx);
    cute_int off = cute_add(&c->alg, t.offset, cute_layout_eval_crd(&c->alg, &t.layout, &crd));
    if (!cute_is_static(off)) {
        cute_ctx_fail(c, "cute_gemm: register fragments are statically indexed");
        return 0;
    }
    return t.regs[off.v];
}

static int64_t extent(cute_ctx *c, cute_tensor t, int mode)
{
    cute_layout m = cute_get(&c->alg, &t.layout, mode);
    cute_int s = cute_size(&c->alg, &m);
    return cute_is_static(s) ? s.v : -1;
}

void cute_gemm(cute_ctx *c, const cute_tiled_mma *t, cute_tensor D, cute_tensor A, cute_tensor B,
               cute_tensor C)
{
    if (!ctx_ok(c)) return;
    (void)t;
    cute_tensor all[4] = {D, A, B, C};
    for (int i = 0; i < 4; i++)
        if (all[i].kind != CUTE_TENSOR_RMEM || cute_rank(&all[i].layout) != 3) {
            cute_ctx_fail(c, "cute_gemm: operands are (V,M,K), (V,N,K), (V,M,N) register fragments");
            return;
        }
    int64_t M = extent(c, C, 1), N = extent(c, C, 2), K = extent(c, A, 2);
    if (extent(c, A, 1) != M || extent(c, B, 1) != N || extent(c, B, 2) != K || extent(c, D, 1) != M ||
        extent(c, D, 2) != N || extent(c, A, 0) != 1) {
        cute_ctx_fail(c, "cute_gemm: fragment shapes do not agree (M %lld, N %lld, K %lld)",
                      (long long)M, (long long)N, (long long)K);
        return;
    }
    cute_type ty = cute_type_of((cute_dtype)C.dtype);
    /* k outermost: each accumulator is touched once per k, in order (CuTe's order) */
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t m = 0; m < M; m++) {
                cute_vreg a = reg_at(c, A, 0, m, k), b = reg_at(c, B, 0, n, k);
                cute_vreg acc = reg_at(c, k == 0 ? C : D, 0, m, n), dst = reg_at(c, D, 0, m, n);
                if (c->alg.failed) return;
                cute_vreg r = cute_ir_op(&c->b, CUTE_OP_FMA, ty, a, b, acc);
                cute_ir_mov(&c->b, dst, r);
            }
}

void cute_fill(cute_ctx *c, cute_tensor t, double v)
{
    if (!ctx_ok(c)) return;
    if (t.kind != CUTE_TENSOR_RMEM) {
        cute_ctx_fail(c, "cute_fill needs a register tensor");
        return;
    }
    cute_int cos = cute_cosize(&c->alg, &t.layout);
    cute_vreg k = cute_dtype_is_float((cute_dtype)t.dtype) ? cute_ir_const_float(&c->b, (cute_dtype)t.dtype, v)
                                                            : cute_ir_const_int(&c->b, (cute_dtype)t.dtype, (int64_t)v);
    for (int64_t i = 0; i < cos.v; i++) cute_ir_mov(&c->b, t.regs[i], k);
}
