/* Tensor memory under the interpreter (sm_100; PTX ISA "Tensor Memory", tcgen05.alloc and
 * friends): the allocator and the checks on every access.
 *
 * One warp allocates a power of two of columns, 32..512, all 128 lanes each; the address
 * (lane 0, the first column) lands in shared memory.  Columns are placed at the lowest
 * multiple of 32 where they fit.  Reported (CUTE_CHECK_TMEM): more columns than are free
 * (the hardware would wait for ever: this block is alone on its SM here), a size that is
 * not a power of two in 32..512, an allocation after relinquish_alloc_permit, a dealloc of
 * columns no live allocation holds (freed twice, or never allocated), an allocation still
 * live when the block ends, and an access of columns outside every live allocation.
 *
 * Every cell remembers the write that put its value there.  tcgen05.mma and tcgen05.cp are
 * the async proxy's writes, done when issued but visible only through the mbarrier that the
 * issuing thread's next tcgen05.commit arrives on: a warp reading the cell must have waited
 * for that phase (it acquired the proxy's clock, as for a TMA load), else the read is
 * reported with the MMA's site and the barrier's state.  tcgen05.st is its warp's write:
 * another warp reads it after a synchronization.  A cell never written is reported too. */
#include <inttypes.h>
#include <string.h>

#include "interp/mbarrier.h"
#include "interp/tmem.h"

itmem *interp_tmem(ictx *X)
{
    if (!X->tmem && !(X->tmem = calloc(1, sizeof *X->tmem))) X->oom = X->stop = true;
    return X->tmem;
}

/* the live allocations, as "[0,128) [256,288)" */
static void live_list(const itmem *T, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < T->na && len < n; i++)
        if (!T->a[i].freed)
            len += (size_t)snprintf(buf + len, n - len, " [%u,%u)", T->a[i].col, T->a[i].col + T->a[i].ncols);
    if (!len) snprintf(buf, n, " none");
}

static const itmem_alloc *live_holding(const itmem *T, uint32_t col, uint32_t n)
{
    for (uint32_t i = 0; i < T->na; i++) {
        const itmem_alloc *a = &T->a[i];
        if (!a->freed && col >= a->col && col + n <= a->col + a->ncols) return a;
    }
    return NULL;
}

bool interp_tmem_columns(ictx *X, const dinst *d, uint32_t t, uint32_t col, uint32_t n)
{
    itmem *T = interp_tmem(X);
    if (!T) return false;
    if (live_holding(T, col, n) || !checking(X, CUTE_CHECK_TMEM)) return true;
    char live[96];
    live_list(T, live, sizeof live);
    return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col, n,
                         "tensor-memory columns [%u,%u) (warp %u) lie outside every live "
                         "allocation; live:%s", col, col + n, t / 32, live);
}

bool interp_tmem_mma_d(ictx *X, const dinst *d, uint32_t t, uint32_t taddr, uint32_t m, uint32_t n)
{
    uint32_t lane = TMEM_LANE(taddr);
    if (m == 64 && lane != 0 && lane != 16)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma (warp %u) with M = 64 writes 16 lanes of "
                             "each lane quarter, from d's lane: d must name lane 0 or 16, not %u", t / 32, lane);
    if (m != 64 && lane != 0)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma with M = 128 writes lanes "
                             "0..127: d must name lane 0, not %u", lane);
    return interp_tmem_columns(X, d, t, TMEM_COL(taddr), n);
}

static uint32_t record(ictx *X, ictx *Y, const dinst *d, uint32_t t, bool async)
{
    itmem *T = interp_tmem(Y);
    if (!T || !interp_grow(Y, (void **)&T->w, T->nw, &T->cw, sizeof *T->w, 64)) return 0;
    uint32_t stamp = async ? interp_hb_async_stamp(X) : interp_hb_now(X, t);
    T->w[T->nw++] = (itmem_write){d, t, stamp, async, -1, 0, X};
    T->uncommitted += async;
    return T->nw;
}

uint32_t interp_tmem_record(ictx *X, const dinst *d, uint32_t t, bool async) { return record(X, X, d, t, async); }
uint32_t interp_tmem_record_in(ictx *X, ictx *Y, const dinst *d, uint32_t t) { return record(X, Y, d, t, true); }

bool interp_tmem_pair_columns(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint32_t col, uint32_t n)
{
    itmem *T = interp_tmem(Y);
    if (!T) return false;
    const itmem_alloc *a = live_holding(T, col, n);
    if ((a && a->pair) || !checking(X, CUTE_CHECK_TMEM)) return true;
    char live[96];
    live_list(T, live, sizeof live);
    return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col, n, "the CTA pair's %s (warp %u) uses columns "
                         "[%u,%u) of block %u's tensor memory, which %s; live:%s", interp_op_name(d), t / 32, col,
                         col + n, Y->rank, a ? "were allocated with cta_group::1, not by the pair (cta_group::2)"
                                    : "lie outside its live allocations", live);
}

/* why write w is not visible to warp `warp`, in words */
static void unseen(ictx *X, const itmem_write *w, uint32_t warp, char *buf, size_t n)
{
    char site[64], state[80];
    interp_site(w->site, site, sizeof site);
    if (!w->async) {
        snprintf(buf, n, "warp %u reads what warp %u's %s at %s wrote, with no synchronization since",
                 warp, w->tid / 32, interp_op_name(w->site), site);
    } else if (w->bar < 0) {
        snprintf(buf, n, "warp %u reads what the MMA or copy at %s (warp %u) writes, which no "
                 "tcgen05.commit covers yet", warp, site, w->tid / 32);
    } else {
        char block[48] = "";
        if (w->bar_rank != X->rank) snprintf(block, sizeof block, " of the cluster's block %u", w->bar_rank);
        else interp_mbarrier_state(X, (uint64_t)w->bar, state, sizeof state);
        snprintf(buf, n, "warp %u reads before waiting for the mbarrier at shared offset %" PRId64
                 "%s (%s) that the MMA at %s (warp %u%s) committed to", warp, w->bar, block,
                 block[0] ? "another block's" : state, site, w->tid / 32, w->by != X ? " of the peer block" : "");
    }
}

bool interp_tmem_readable(ictx *X, const dinst *d, uint32_t t, uint32_t lane, uint32_t col)
{
    itmem *T = interp_tmem(X);
    if (!T) return false;
    if (!checking(X, CUTE_CHECK_TMEM)) return true;
    uint32_t who = T->who[TMEM_AT(lane, col)];
    if (!who)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col, 4,
                             "warp %u reads tensor memory lane %u column %u, never written",
                             t / 32, lane, col);
    const itmem_write *w = &T->w[who - 1];
    /* an MMA's or copy's result is seen through a commit and a wait only (a block in lockstep
     * waits for none: one that waits runs under the warp scheduler); a store, by its own
     * warp or after a synchronization */
    bool hidden = w->async ? w->bar < 0 || !X->warps ||
                                 interp_hb_concurrent_slow(X, w->by, w->stamp, HB_PROXY(w->by), t)
                           : w->tid / 32 != t / 32 && interp_hb_concurrent(X, w->stamp, w->tid, t);
    if (!hidden) return true;
    char why[400];
    unseen(X, w, t / 32, why, sizeof why);
    return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col, 4, "%s (lane %u column %u)", why, lane, col);
}

bool interp_tmem_mma_readable(ictx *X, const dinst *d, uint32_t t, uint32_t lane, uint32_t col)
{
    itmem *T = interp_tmem(X);
    if (!T) return false;
    uint32_t who = T->who[TMEM_AT(lane, col)];
    const itmem_write *w = who ? &T->w[who - 1] : NULL;
    if (w && w->async && w->tid == t && w->by == X) return true; /* the tcgen05 pipeline's order */
    return interp_tmem_readable(X, d, t, lane, col);
}
