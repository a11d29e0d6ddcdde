/* The producer / consumer split of a warp-specialized kernel, and the named barriers its
 * roles meet at (warp_roles.h). */
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

kernel_bars kernel_bars_new(void)
{
    return (kernel_bars){.purpose = {"__syncthreads"}};
}

bool kernel_bars_hold(cute_ctx *c, kernel_bars *b, int first, int count, const char *purpose)
{
    if (first < 0 || count < 1 || first + count > KERNEL_NAMED_BARRIERS)
        return cute_ctx_fail(c, "named barriers %d..%d for %s: the hardware has ids 0..%d", first, first + count - 1,
                             purpose, KERNEL_NAMED_BARRIERS - 1);
    for (int id = first; id < first + count; id++)
        if (b->purpose[id])
            return cute_ctx_fail(c, "named barrier %d for %s: already %s's", id, purpose, b->purpose[id]);
    for (int id = first; id < first + count; id++) b->purpose[id] = purpose;
    return true;
}

int kernel_bar_take(cute_ctx *c, kernel_bars *b, const char *purpose)
{
    for (int id = 0; id < KERNEL_NAMED_BARRIERS; id++)
        if (!b->purpose[id]) {
            b->purpose[id] = purpose;
            return id;
        }
    cute_ctx_fail(c, "no named barrier left for %s: all %d ids held (%s the last)", purpose, KERNEL_NAMED_BARRIERS,
                  b->purpose[KERNEL_NAMED_BARRIERS - 1]);
    return -1;
}
