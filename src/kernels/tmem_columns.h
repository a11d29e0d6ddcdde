#ifndef CUTEC_KERNELS_TMEM_COLUMNS_H
#define CUTEC_KERNELS_TMEM_COLUMNS_H

#include <stdbool.h>

#include "cutec/smem.h"
#include "cutec/trace.h"

/* The Blackwell kernels' tensor memory (the GEMM's blackwell.c, the attention forward's
 * blackwell_fwd.c): `columns` of it allocated by warp `allocator` (warp: the thread's), which
 * then gives the allocation permit up, their address written to a u32 of al's shared memory
 * and read back by every thread.  Between the write and the read the block meets,
 * or where `cluster` the whole cluster (a CTA pair: its leader allocates the other block's
 * columns too), inside tcgen05's fences. */
cute_val kernels_tmem_columns(cute_ctx *c, cute_smem_allocator *al, cute_int warp, int allocator, int columns,
                              bool cluster);

#endif
