#ifndef CUTEC_KERNELS_RESIDENT_H
#define CUTEC_KERNELS_RESIDENT_H

#include "cutec/jit.h"

/* How many thread-block clusters of `size` blocks of `threads` threads the device holds at
 * once when each SM holds `per_sm` such blocks (what the kernel's registers or shared memory
 * allow).  Not the SMs' count over the cluster's size: a cluster's blocks must share a GPC,
 * and a persistent grid of more clusters than this runs the rest in a second wave (which
 * halves its rate).  0 where the driver cannot say (the interpreter, an old driver). */
int kernels_resident_clusters(cute_runtime *rt, int size, int threads, int per_sm);

#endif
