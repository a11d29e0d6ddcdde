/* TiledMMA on tensors: per-thread partitions, fragments, and cute_gemm with the universal
 * FMA atom (one FMA per (m, n, k) of the fragments). */
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/mma.h"
#include "cutec/notation.h"
#include "atom/atom_internal.h"
#include "atom/atom_rows.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

cute_tensor cute_thr_mma_partition(cute_ctx *c, const cute_tiled_mma *t, cute_mma_operand op,
                                   cute_int thr, cute_tensor tile)
{
    static const char *const what[] = {"cute_partition_A", "cute_partition_B", "cute_partition_C"};
    if (!ctx_alive(c) || !atom_threads_ok(c, cute_tiled_mma_threads(t), "TiledMMA", what[op % 3]))
        return tile;
    cute_tuple off;
    cute_layout P = cute_tiled_mma_partition(&c->alg, t, op, thr, &tile.layout, &off);
    return tensor_moved(c, tile, P, off);
}

cute_tensor cute_mma_make_fragment(cute_ctx *c, const cute_tiled_mma *t, cute_mma_operand op,
                                   cute_tensor part)
{
    cute_dtype d = (cute_dtype)(op == CUTE_MMA_A ? t->atom.a_type : op == CUTE_MMA_B ? t->atom.b_type : t->atom.c_type);
    cute_layout L = cute_make_layout(&c->alg, part.layout.shape);
    return tensor_make_packed_rmem(c, d, L); /* the instruction's registers: see packed_regs.c */
}

static int64_t extent(cute_ctx *c, cute_tensor t, int mode)
{
    if (mode >= cute_rank(&t.layout)) return 1;
    cute_layout m = cute_get(&c->alg, &t.layout, mode);
    cute_int s = cute_size(&c->alg, &m);
    return cute_is_static(s) ? s.v : -1;
}

/* the atom's values of fragment t at (m, k) (or (m, n)): a rank-1 tensor over mode 0 */
static cute_tensor atom_values(cute_ctx *c, cute_tensor t, int64_t i, int64_t j)
{
    int r = cute_rank(&t.layout);
    cute_tuple crd = r == 2 ? cute_tuple_fmt(&c->alg, "(_,%lld)", (long long)i)
                            : cute_tuple_fmt(&c->alg, "(_,%lld,%lld)", (long long)i, (long long)j);
    cute_tuple off;
    cute_layout L = cute_slice_and_offset(&c->alg, &crd, &t.layout, &off);
    return tensor_moved(c, t, L, off);
}

/* the operands' ranks and shapes agree; their M, N, K */
static bool gemm_shapes(cute_ctx *c, const cute_tiled_mma *t, cute_tensor D, cute_tensor A, cute_tensor B,
                        cute_tensor C, const char *what, int64_t mnk[3])
{
    if (!ctx_ok(c) || !atom_arch_ok(c, t->atom.min_arch, t->atom.name, what) ||
        !tensor_usable(c, &D, what) || !tensor_usable(c, &A, what) || !tensor_usable(c, &B, what) ||
        !tensor_usable(c, &C, what))
        return false;
    int ra = cute_rank(&A.layout), rb = cute_rank(&B.layout);
    if (ra != rb || ra < 2 || ra > 3 || cute_rank(&C.layout) != 3 || cute_rank(&D.layout) != 3)
        return cute_ctx_fail(c, "%s: operands are (V,M,K) x (V,N,K) -> (V,M,N) fragments, or "
                                "(V,M) x (V,N) for one k (got ranks %d, %d, %d)", what, ra, rb, cute_rank(&C.layout)),
               false;
    int64_t M = extent(c, C, 1), N = extent(c, C, 2), K = extent(c, A, 2);
    if (M < 0 || N < 0 || K < 0 || extent(c, A, 1) != M || extent(c, B, 1) != N || extent(c, B, 2) != K ||
        extent(c, D, 1) != M || extent(c, D, 2) != N)
        return cute_ctx_fail(c, "%s: fragment shapes do not agree (M %lld, N %lld, K %lld)", what, (long long)M,
                             (long long)N, (long long)K),
               false;
    mnk[0] = M, mnk[1] = N, mnk[2] = K;
    return true;
}

/* Every atom call of the product, first the k == 0 ones with atom `first` (t's own, or
 * one that zeroes D).  k outermost: each accumulator is touched once per k.  Within a k, a
 * serpentine down m for even n and back up for odd n: the column-major order of the
 * accumulator fragment, so consecutive instructions share an operand at every step, the
 * turns included (ptxas's register reuse cache), and update accumulators in the order a
 * column-major C's vector runs store them.  The order decides how ptxas banks the pipelined
 * SGEMM's FFMA operands (with the epilogue one run of C at a time, parts.c): 131
 * bank-conflicted FFMAs of its main loop's 1,024 in this order, 289 across n (NVRTC,
 * sm_90a; bench/RESULTS.md) */
static void gemm_calls(cute_ctx *c, const cute_tiled_mma *t, const cute_mma_atom *first, cute_tensor D,
                       cute_tensor A, cute_tensor B, cute_tensor C, const int64_t mnk[3])
{
    for (int64_t k = 0; k < mnk[2] && !c->alg.failed; k++) {
        const cute_mma_atom *atom = k ? &t->atom : first;
        for (int64_t n = 0; n < mnk[1]; n++)
            for (int64_t i = 0; i < mnk[0] && !c->alg.failed; i++) {
                int64_t m = n % 2 ? mnk[0] - 1 - i : i;
                atom->emit(c, atom, atom_values(c, D, m, n), atom_values(c, A, m, k),
                           atom_values(c, B, n, k), atom_values(c, k == 0 ? C : D, m, n));
            }
    }
}

void cute_gemm(cute_ctx *c, const cute_tiled_mma *t, cute_tensor D, cute_tensor A, cute_tensor B,
               cute_tensor C)
{
    int64_t mnk[3];
    if (gemm_shapes(c, t, D, A, B, C, "cute_gemm", mnk)) gemm_calls(c, t, &t->atom, D, A, B, C, mnk);
}

void cute_gemm_zero(cute_ctx *c, const cute_tiled_mma *t, cute_tensor D, cute_tensor A, cute_tensor B)
{
    int64_t mnk[3];
    if (!gemm_shapes(c, t, D, A, B, D, "cute_gemm_zero", mnk)) return;
    cute_mma_atom first = t->atom;
    first.zero_d = atom_takes_zero_d(&first);
    if (!first.zero_d) cute_fill(c, D, 0);
    gemm_calls(c, t, &first, D, A, B, D, mnk);
}

void cute_fill(cute_ctx *c, cute_tensor t, double v)
{
    if (!ctx_ok(c) || !tensor_usable(c, &t, "cute_fill")) return;
    if (t.kind != CUTE_TENSOR_RMEM) {
        cute_ctx_fail(c, "cute_fill needs a register tensor");
        return;
    }
    cute_int n = cute_size(&c->alg, &t.layout);
    cute_vreg k = cute_val_const(c, (cute_dtype)t.dtype, v).r;
    for (int64_t i = 0; i < n.v && !c->alg.failed; i++) tensor_rmem_set(c, &t, i, k);
}

cute_thr_mma cute_tiled_mma_slice(const cute_tiled_mma *t, cute_int thr)
{
    cute_thr_mma s = {t, thr};
    return s;
}

cute_tensor cute_partition_A(cute_ctx *c, cute_thr_mma thr, cute_tensor tile)
{
    return cute_thr_mma_partition(c, thr.mma, CUTE_MMA_A, thr.thr, tile);
}
cute_tensor cute_partition_B(cute_ctx *c, cute_thr_mma thr, cute_tensor tile)
{
    return cute_thr_mma_partition(c, thr.mma, CUTE_MMA_B, thr.thr, tile);
}
cute_tensor cute_partition_C(cute_ctx *c, cute_thr_mma thr, cute_tensor tile)
{
    return cute_thr_mma_partition(c, thr.mma, CUTE_MMA_C, thr.thr, tile);
}

static cute_tensor partition_fragment(cute_ctx *c, cute_thr_mma thr, cute_mma_operand op, cute_tensor tile)
{
    return cute_mma_make_fragment(c, thr.mma, op, cute_thr_mma_partition(c, thr.mma, op, thr.thr, tile));
}
cute_tensor cute_partition_fragment_A(cute_ctx *c, cute_thr_mma thr, cute_tensor tile)
{
    return partition_fragment(c, thr, CUTE_MMA_A, tile);
}
cute_tensor cute_partition_fragment_B(cute_ctx *c, cute_thr_mma thr, cute_tensor tile)
{
    return partition_fragment(c, thr, CUTE_MMA_B, tile);
}
cute_tensor cute_partition_fragment_C(cute_ctx *c, cute_thr_mma thr, cute_tensor tile)
{
    return partition_fragment(c, thr, CUTE_MMA_C, tile);
}
