/* The interpreter's tensor memory (sm_100): per block, 128 lanes x 512 columns of 32 bits,
 * the allocations made of its columns, and for every cell the write that put its value
 * there, so that a read is checked against it (tmem.c says the rules). */
#ifndef CUTEC_INTERP_TMEM_H
#define CUTEC_INTERP_TMEM_H

#include "interp/interp_internal.h"

enum { TMEM_LANES = 128, TMEM_COLS = 512 };

/* a write of tensor memory: by the async proxy (tcgen05.mma, tcgen05.cp; visible after the
 * mbarrier its thread's tcgen05.commit arrives on) or by a warp (tcgen05.st) */
typedef struct itmem_write {
    const dinst *site;
    uint32_t tid, stamp; /* the writing thread; its stamp (interp_hb_*) */
    bool async;
    int64_t bar; /* async: the shared offset of its commit's mbarrier; -1: not committed yet */
    uint32_t bar_rank; /* the cluster rank of the block holding that mbarrier */
    ictx *by;          /* the block whose thread wrote (another for the CTA pair's MMA) */
} itmem_write;

typedef struct itmem_alloc {
    uint32_t col, ncols, tid;
    bool pair; /* made with cta_group::2 (the CTA pair's) */
    const dinst *site, *freed; /* where it was allocated; freed (NULL: live) */
} itmem_alloc;

typedef struct itmem {
    uint32_t cell[TMEM_LANES * TMEM_COLS];
    uint32_t who[TMEM_LANES * TMEM_COLS]; /* 1 + the index of its write; 0: never written */
    itmem_write *w;
    uint32_t nw, cw;
    itmem_alloc *a;
    uint32_t na, ca;
    const dinst *relinquished; /* the relinquish_alloc_permit that ran, or NULL */
    uint32_t uncommitted;      /* async writes no commit covers yet */
} itmem;

#define TMEM_AT(lane, col) ((size_t)(lane) * TMEM_COLS + (col))
#define TMEM_LANE(addr) ((addr) >> 16)
#define TMEM_COL(addr) ((addr) & 0xffffu)

/* the block's tensor memory (made at its first use); NULL when out of memory */
itmem *interp_tmem(ictx *X);
/* columns [col, col + n) lie in one live allocation (else reported for thread t at d) */
bool interp_tmem_columns(ictx *X, const dinst *d, uint32_t t, uint32_t col, uint32_t n);
/* a tcgen05.mma's accumulator of m rows (128, or 64) at taddr: lane 0 (M 64: 0 or 16), n columns of
 * a live allocation (else reported for thread t at d) */
bool interp_tmem_mma_d(ictx *X, const dinst *d, uint32_t t, uint32_t taddr, uint32_t m, uint32_t n);
/* a new write by thread t at d (async: the async proxy's, for its commit to cover): its
 * number for `who`; 0 when out of memory */
uint32_t interp_tmem_record(ictx *X, const dinst *d, uint32_t t, bool async);
/* an async write of thread t of X (the CTA pair's MMA) into Y's tensor memory: as above */
uint32_t interp_tmem_record_in(ictx *X, ictx *Y, const dinst *d, uint32_t t);
/* columns [col, col + n) of Y lie in one live allocation of the CTA pair (cta_group::2), else
 * reported for thread t of X at d */
bool interp_tmem_pair_columns(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint32_t col, uint32_t n);
/* thread t reads cell (lane, col): true when it was written, and the write is visible to t
 * (else reported) */
bool interp_tmem_readable(ictx *X, const dinst *d, uint32_t t, uint32_t lane, uint32_t col);

/* thread t's MMA at d reads cell (lane, col) as its A (the _TS form): written, by the thread's
 * own earlier tcgen05.mma or tcgen05.cp (ordered), or visible to it as above */
bool interp_tmem_mma_readable(ictx *X, const dinst *d, uint32_t t, uint32_t lane, uint32_t col);

/* the CTA pair's peer of X for thread t's cta_group::2 row d (tmem_alloc.c), or NULL after a
 * report (no peer in the cluster, or it exited) */
ictx *interp_tmem_pair_peer(ictx *X, const dinst *d, uint32_t t);
/* an sm_100 shared-memory descriptor of thread t's tcgen05 instruction at d (version 1, no
 * base offset, a swizzle emulated); false after a report (inst_tcgen05.c) */
/* one MMA row on each active thread of m: one(X, d, t, scratch) with `scratch` bytes of
 * scratch (malloc'd once for the row; out of memory stops the run) */
void interp_tcgen05_each(ictx *X, const dinst *d, const imask *m, size_t scratch,
                         void (*one)(ictx *X, const dinst *d, uint32_t t, void *scratch));
bool interp_tcgen05_sdesc(ictx *X, const dinst *d, uint32_t t, uint64_t desc, interp_smem_desc *D);
/* the CTA pair's MMA at d by thread t (inst_tcgen05.c): the pair's blocks, EF[0] the even one,
 * [1] the odd; D at lane 0 and its n columns the pair's allocation in both; false after a report */
bool interp_tcgen05_pair_d(ictx *X, const dinst *d, uint32_t t, uint32_t n, ictx *EF[2]);

#endif
