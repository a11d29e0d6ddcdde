#ifndef CUTEC_KERNELS_WARP_ROLES_H
#define CUTEC_KERNELS_WARP_ROLES_H

#include "cutec/trace.h"

/* The warp specialization of the Hopper kernels (GEMM, attention forward and backward):
 * warpgroup 0 is the producer, gives registers up to `producer_regs` (setmaxnreg.dec) and one
 * elected thread of its first warp runs `produce`; the other warpgroups are the consumers,
 * take `consumer_regs` (setmaxnreg.inc) and run `consume`.  tid: the thread's index in the
 * block (produce) or among the consumers (consume). */
typedef void kernel_warp_role(cute_ctx *c, void *arg, cute_int tid);
void kernel_warp_roles(cute_ctx *c, int producer_regs, int consumer_regs, kernel_warp_role *produce,
                       kernel_warp_role *consume, void *arg);

/* The named barriers of one kernel (bar.sync / bar.arrive take ids 0-15; 0 is __syncthreads'),
 * handed out by purpose so that a role added later cannot meet at an id another role uses: a
 * kernel fills one table as it traces, holding the ids a shared helper fixes (attn_hop_ring's
 * 1 + warpgroup) and taking each of its own, the lowest free id, in a fixed order.  A clash
 * or a seventeenth barrier fails the trace (cute_ctx_fail) with both purposes named. */
enum { KERNEL_NAMED_BARRIERS = 16 };
typedef struct kernel_bars {
    const char *purpose[KERNEL_NAMED_BARRIERS]; /* who meets at each id; NULL: free */
} kernel_bars;
/* a table with id 0 held (__syncthreads) and the others free */
kernel_bars kernel_bars_new(void);
/* ids first .. first + count - 1 for purpose; false (the trace failed) where one is past 15 or
 * held already */
bool kernel_bars_hold(cute_ctx *c, kernel_bars *b, int first, int count, const char *purpose);
/* the lowest free id, now purpose's; -1 (the trace failed) when all 16 are held */
int kernel_bar_take(cute_ctx *c, kernel_bars *b, const char *purpose);

#endif
