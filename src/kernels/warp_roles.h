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

#endif
