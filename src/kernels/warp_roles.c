/* The producer / consumer split of a warp-specialized kernel (warp_roles.h). */
#include "kernels/warp_roles.h"

#include "cutec/sync.h"

enum { WARPGROUP = 128 };

void kernel_warp_roles(cute_ctx *c, int producer_regs, int consumer_regs, kernel_warp_role *produce,
                       kernel_warp_role *consume, void *arg)
{
    cute_int tid = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(WARPGROUP))) {
        cute_setmaxregister_decrease(c, producer_regs);
        CUTE_IF(c, cute_int_eq(c, cute_warp_idx(c), cute_i(0))) {
            CUTE_IF(c, cute_elect_one(c)) produce(c, arg, tid);
        }
    }
    CUTE_ELSE(c) {
        cute_setmaxregister_increase(c, consumer_regs);
        consume(c, arg, cute_sub(cute_ctx_alg(c), tid, cute_i(WARPGROUP)));
    }
}
