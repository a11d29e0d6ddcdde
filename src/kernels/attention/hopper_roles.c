/* The Hopper attention kernels' warp specialization (hopper_fwd.c, hopper_bwd.c): warpgroup 0
 * is the producer, gives registers up (setmaxnreg) and one elected thread of its first warp
 * issues the loads; the other warpgroups are the consumers and take the registers.  And the
 * consumers' ping-pong: they take turns issuing their GEMMs, so that one's softmax (or
 * gradients) runs while another's GEMMs do.  In a ring of n consumer warpgroups, warpgroup w
 * waits at named barrier 1 + w (its own 128 threads and the previous one's 128 arriving)
 * before issuing, and arrives at the next one's after.  The last arrives once at the first's
 * before its first turn so that the first goes first, and the first syncs once after its
 * last turn, taking the last's final arrival back: each barrier ends with nothing pending. */
#include "cutec/sync.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/warp_roles.h"

enum { WARPGROUP = 128, PAIR = 256 };

void attn_hop_roles(cute_ctx *c, attn_hop_role *produce, attn_hop_role *consume, void *arg)
{
    attn_hop_roles_n(c, 2, produce, consume, arg);
}

/* FlashAttention 3's registers: 24 / 240 with two consumer warpgroups (384 threads, 168 a
 * thread at launch), 32 / 160 with three (512 threads, 128 at launch) */
void attn_hop_roles_n(cute_ctx *c, int consumers, attn_hop_role *produce, attn_hop_role *consume, void *arg)
{
    kernel_warp_roles(c, consumers == 2 ? 24 : 32, consumers == 2 ? 240 : 160, produce, consume, arg);
}

cute_val attn_hop_pingpong_start(cute_ctx *c, cute_int tid)
{
    return attn_hop_ring_start(c, tid, 2);
}

void attn_hop_my_turn(cute_ctx *c, cute_val first)
{
    attn_hop_ring_turn(c, first, 2);
}

void attn_hop_your_turn(cute_ctx *c, cute_val first)
{
    attn_hop_ring_pass(c, first, 2);
}

void attn_hop_pingpong_end(cute_ctx *c, cute_val first)
{
    attn_hop_ring_end(c, first);
}

/* warpgroup wg (of n) syncs (or arrives) at the barrier of warpgroup wg + shift (mod n) */
static void at_barrier(cute_ctx *c, cute_val wg, int n, int shift, bool sync)
{
    for (int w = 0; w < n; w++) {
        int id = 1 + (w + shift) % n;
        CUTE_IF(c, cute_val_cmp(c, CUTE_OP_EQ, wg, cute_val_int(c, CUTE_I32, w))) {
            if (sync) cute_named_barrier_sync(c, id, PAIR);
            else cute_named_barrier_arrive(c, id, PAIR);
        }
    }
}

cute_val attn_hop_ring_start(cute_ctx *c, cute_int tid, int n)
{
    cute_val wg = cute_int_value(c, cute_div(cute_ctx_alg(c), tid, cute_i(WARPGROUP)), CUTE_I32);
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_EQ, wg, cute_val_int(c, CUTE_I32, n - 1))) { cute_named_barrier_arrive(c, 1, PAIR); }
    return wg;
}

void attn_hop_ring_turn(cute_ctx *c, cute_val wg, int n)
{
    at_barrier(c, wg, n, 0, true);
}

void attn_hop_ring_pass(cute_ctx *c, cute_val wg, int n)
{
    at_barrier(c, wg, n, 1, false);
}

void attn_hop_ring_end(cute_ctx *c, cute_val wg)
{
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_EQ, wg, cute_val_int(c, CUTE_I32, 0))) { cute_named_barrier_sync(c, 1, PAIR); }
}

cute_int attn_hop_uniform_tid(cute_ctx *c, cute_int tid)
{
    cute_val t = cute_int_value(c, tid, CUTE_U32), shift = cute_val_int(c, CUTE_U32, 7);
    cute_val wg = cute_val_shfl(c, cute_val_binop(c, CUTE_OP_SHR, t, shift), cute_val_int(c, CUTE_I32, 0), CUTE_SHFL_IDX);
    cute_val in_wg = cute_val_binop(c, CUTE_OP_AND, t, cute_val_int(c, CUTE_U32, WARPGROUP - 1));
    return cute_int_from_val(c, cute_val_binop(c, CUTE_OP_OR, cute_val_binop(c, CUTE_OP_SHL, wg, shift), in_wg), 0);
}
