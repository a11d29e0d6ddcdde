/* The shared-memory tiles of A and B: always M- (N-) major, so that each thread reads its
 * runs of consecutive rows with one wide load; when the global operand is K-major the
 * column stride is padded by 16 bytes, so the transposing stores of a warp hit 32
 * different banks (ampere/sgemm.py's padding). */
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

cute_layout gemm_smem_layout(cute_alg *a, const gemm_plan *p, int operand, int stages)
{
    int64_t rows = operand == 0 ? p->bm : p->bn;
    int major = p->cfg.major[operand];
    int64_t ld = rows + (major == 1 ? 16 / cute_dtype_bytes(p->cfg.dtype) : 0);
    return cute_layout_fmt(a, "(%lld,%lld,%d):(1,%lld,%lld)", (long long)rows, (long long)p->bk,
                           stages, (long long)ld, (long long)(ld * p->bk));
}
