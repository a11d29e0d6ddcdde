/* The Hopper attention kernels' warp specialization (hopper_fwd.c, hopper_bwd.c): warpgroup 0
 * is the producer, gives registers up (setmaxnreg) and one elected thread of its first warp
 * issues the loads; the other warpgroups are the consumers and take the registers. */
#include "cutec/sync.h"
#include "kernels/attention/attention_internal.h"

enum { WARPGROUP = 128, PRODUCER_REGS = 24, CONSUMER_REGS = 240 };

void attn_hop_roles(cute_ctx *c, attn_hop_role *produce, attn_hop_role *consume, void *arg)
{
    cute_int tid = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(WARPGROUP))) {
        cute_setmaxregister_decrease(c, PRODUCER_REGS);
        CUTE_IF(c, cute_int_eq(c, cute_warp_idx(c), cute_i(0))) {
            CUTE_IF(c, cute_elect_one(c)) produce(c, arg, tid);
        }
    }
    CUTE_ELSE(c) {
        cute_setmaxregister_increase(c, CONSUMER_REGS);
        consume(c, arg, cute_sub(cute_ctx_alg(c), tid, cute_i(WARPGROUP)));
    }
}
