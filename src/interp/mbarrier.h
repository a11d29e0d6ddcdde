/* The interpreter's mbarriers, for the emulations that complete transactions on one (the
 * bulk copy here, TMA in inst_tma.c).  An mbarrier lives at 8 bytes of a block's shared
 * memory from its mbarrier.init; its state (phase, pending arrivals, transaction bytes, the
 * clocks its arrivals released) is kept beside shared memory, keyed by the offset. */
#ifndef CUTEC_INTERP_MBARRIER_H
#define CUTEC_INTERP_MBARRIER_H

#include "interp/interp_internal.h"

typedef struct imbar {
    uint64_t off;       /* its 8 shared bytes */
    uint32_t expected;  /* arrivals per phase */
    uint32_t pending;   /* arrivals the current phase still waits for */
    int64_t tx;         /* transaction bytes the current phase still waits for (< 0: early) */
    int64_t tx_expected, tx_came; /* of the current phase, for reports */
    uint32_t phase;     /* the current phase (its parity: phase & 1) */
    uint32_t init_stamp, init_tid; /* the init, which every use must come after */
    const dinst *init_site;
    uint32_t *vc, *done_vc; /* the clocks of the current / last completed phase */
} imbar;

/* the mbarrier at shared offset off, or NULL after a report naming d and thread t */
imbar *interp_mbarrier_at(ictx *X, const dinst *d, uint32_t t, uint64_t off);
/* `bytes` of transactions completed on the mbarrier at off of block Y of X's cluster (X
 * itself, a multicast's other destination, or the CTA pair's mbarrier): a bulk copy or a TMA
 * load that thread t of X issued at d landed in block W (Y, or X for the pair's load); stamp:
 * the async proxy's stamp (interp_hb_async_stamp of W) of the bytes it wrote in W, which the
 * phase hands to its waiters.  False after a report (in X). */
bool interp_mbarrier_complete_tx(ictx *X, ictx *Y, ictx *W, const dinst *d, uint32_t t, uint64_t off,
                                 uint32_t bytes, uint32_t stamp);
/* thread t's tcgen05.commit d arrives once on the mbarrier at shared offset off of block Y (X,
 * or another of its cluster for the CTA pair's commit), handing its waiters X's async proxy's
 * writes up to `stamp` (the tensor memory its MMAs wrote); false after a report */
bool interp_mbarrier_arrive_async(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, uint32_t stamp);
/* the mbarrier's state in words ("phase 2: 0 of 1 arrivals, ...") into buf */
void interp_mbarrier_state(const ictx *X, uint64_t off, char *buf, size_t n);
/* the bytes [off, off+bytes) were written by the async proxy with `stamp` for thread t's
 * instruction d: checked as t's write, then marked as the proxy's (a read must acquire them
 * through the mbarrier) */
bool interp_async_proxy_write(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                              uint32_t stamp);

#endif
