/* The Hopper attention kernels' warp specialization (hopper_fwd.c, hopper_bwd.c): warpgroup 0
 * is the producer, gives registers up (setmaxnreg) and one elected thread of its first warp
 * issues the loads; the other warpgroups are the consumers and take the registers.  And the
 * two consumers' ping-pong: they take turns issuing their GEMMs, so that one's softmax (or
 * gradients) runs while the other's GEMMs do.  Warpgroup w waits at named barrier 1 + w (its
 * own 128 threads and the other's 128 arriving) before issuing, and arrives at the other's
 * after.  The second arrives once before its first turn so that the first goes first, and
 * the first syncs once after its last turn, taking that arrival back: each barrier ends with
 * nothing pending. */
#include "cutec/sync.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/warp_roles.h"

enum { WARPGROUP = 128, CONSUMERS = 256, PRODUCER_REGS = 24, CONSUMER_REGS = 240 };

void attn_hop_roles(cute_ctx *c, attn_hop_role *produce, attn_hop_role *consume, void *arg)
{
    kernel_warp_roles(c, PRODUCER_REGS, CONSUMER_REGS, produce, consume, arg);
}

cute_val attn_hop_pingpong_start(cute_ctx *c, cute_int tid)
{
    CUTE_IF(c, cute_int_lt(c, cute_i(WARPGROUP - 1), tid)) { cute_named_barrier_arrive(c, 1, CONSUMERS); }
    return cute_int_lt(c, tid, cute_i(WARPGROUP));
}

void attn_hop_my_turn(cute_ctx *c, cute_val first)
{
    CUTE_IF(c, first) { cute_named_barrier_sync(c, 1, CONSUMERS); }
    CUTE_ELSE(c) { cute_named_barrier_sync(c, 2, CONSUMERS); }
}

void attn_hop_your_turn(cute_ctx *c, cute_val first)
{
    CUTE_IF(c, first) { cute_named_barrier_arrive(c, 2, CONSUMERS); }
    CUTE_ELSE(c) { cute_named_barrier_arrive(c, 1, CONSUMERS); }
}

void attn_hop_pingpong_end(cute_ctx *c, cute_val first)
{
    CUTE_IF(c, first) { cute_named_barrier_sync(c, 1, CONSUMERS); }
}
