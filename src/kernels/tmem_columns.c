/* kernels_tmem_columns: one warp allocates tensor memory, every thread reads where */
#include "kernels/tmem_columns.h"

#include "cutec/notation.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"

cute_val kernels_tmem_columns(cute_ctx *c, cute_smem_allocator *al, cute_int warp, int allocator, int columns,
                              bool cluster)
{
    cute_tensor slot = cute_make_tensor(c, cute_smem_alloc_array(c, al, CUTE_U32, 1, 4),
                                        cute_layout_parse(cute_ctx_alg(c), "1:0"), 4);
    CUTE_IF(c, cute_int_eq(c, warp, cute_i(allocator))) {
        cute_tmem_alloc(c, cute_tensor_ptr(c, slot, cute_i(0)), columns);
        cute_tmem_relinquish_alloc_permit(c);
    }
    cute_tcgen05_fence_before_thread_sync(c);
    if (cluster) cute_cluster_arrive(c), cute_cluster_wait(c);
    else cute_barrier(c);
    cute_tcgen05_fence_after_thread_sync(c);
    return cute_ssa_get(c, cute_tensor_load(c, slot), 0);
}
