/* All-reduce over groups of consecutive threads of a block: within a warp by shuffles;
 * across warps by one shared-memory value per warp, one barrier, and a butterfly over the
 * group's warps' values in every warp (so each thread of a group gets the same bits). */
#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/notation.h"
#include "cutec/reduce.h"

cute_reduce_scratch cute_reduce_scratch_alloc(cute_ctx *c, cute_smem_allocator *A, const cute_reducer *r,
                                              cute_dtype d, int block_threads)
{
    cute_reduce_scratch s = {0};
    if (cute_ctx_failed(c)) return s;
    if (block_threads < 32 || block_threads % 32 || block_threads > 1024) {
        cute_ctx_fail(c, "reduction scratch for %d threads: a multiple of 32 up to 1024", block_threads);
        return s;
    }
    s.warps = block_threads / 32, s.arity = r->arity;
    cute_layout lay = cute_layout_fmt(cute_ctx_alg(c), "(%d,%d):(1,%d)", s.warps, s.arity, s.warps);
    s.s = cute_smem_alloc_tensor(c, A, d, lay, 16);
    return s;
}

static cute_tensor slot(cute_ctx *c, const cute_reduce_scratch *s, cute_int warp, int k)
{
    return cute_tensor_slice(c, s->s, cute_tuple_fmt(cute_ctx_alg(c), "(%I,%d)", warp, k));
}

static bool group_ok(cute_ctx *c, const cute_reduce_scratch *s, int group)
{
    if (cute_ctx_failed(c)) return false;
    if (group < 1 || group > 1024 || (group & (group - 1)))
        return cute_ctx_fail(c, "group all-reduce over %d threads: a power of two up to 1024", group);
    if (group > 32 && (!s || group / 32 > s->warps))
        return cute_ctx_fail(c, "group all-reduce over %d threads: the scratch holds %d warps", group,
                             s ? s->warps : 0);
    return true;
}

void cute_group_allreduce(cute_ctx *c, const cute_reducer *r, cute_val *v, cute_int tid, int group,
                          const cute_reduce_scratch *s)
{
    if (!group_ok(c, s, group)) return;
    cute_warp_allreduce(c, r, v, group < 32 ? group : 32);
    if (group <= 32 || cute_ctx_failed(c)) return;
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple one = cute_tuple_int(cute_i(1));
    cute_int warp = cute_div(a, tid, cute_i(32));
    CUTE_IF(c, cute_int_eq(c, cute_mod(a, tid, cute_i(32)), cute_i(0))) {
        for (int k = 0; k < r->arity; k++) cute_tensor_store(c, slot(c, s, warp, k), cute_ssa_scalar(c, v[k], one));
    }
    cute_barrier(c);
    /* lane l of every warp of the group takes warp (l mod warps)'s value, and a butterfly
     * over aligned groups of `warps` lanes combines them: log2(warps) steps, not warps - 1
     * in a chain (each lane group applies the same steps to the same values: the same bits
     * in every thread) */
    int warps = group / 32;
    cute_int first = cute_mul(a, cute_div(a, tid, cute_i(group)), cute_i(warps));
    cute_int at = cute_add(a, first, cute_mod(a, cute_mod(a, tid, cute_i(32)), cute_i(warps)));
    for (int k = 0; k < r->arity; k++) v[k] = cute_ssa_get(c, cute_tensor_load(c, slot(c, s, at, k)), 0);
    cute_warp_allreduce(c, r, v, warps);
}
