/* tcgen05.alloc / dealloc / relinquish_alloc_permit and tcgen05.commit under the
 * interpreter (the allocator's rules: tmem.c); the fences and waits have nothing to do here
 * (tcgen05.ld and st complete when issued).  At the end of a block an allocation still live,
 * or an MMA no commit covered, is reported. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "interp/mbarrier.h"
#include "interp/tmem.h"

static bool tmem_report(ictx *X, const dinst *d, uint32_t t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool tmem_report(ictx *X, const dinst *d, uint32_t t, const char *fmt, ...)
{
    char msg[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return checking(X, CUTE_CHECK_TMEM) ? interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "%s", msg) : false;
}

/* the lowest multiple of 32 where ncols free columns start; -1: none */
static int64_t place(const itmem *T, uint32_t ncols)
{
    for (uint32_t col = 0; col + ncols <= TMEM_COLS; col += 32) {
        bool free_here = true;
        for (uint32_t i = 0; i < T->na && free_here; i++) {
            const itmem_alloc *a = &T->a[i];
            free_here = a->freed || col + ncols <= a->col || a->col + a->ncols <= col;
        }
        if (free_here) return col;
    }
    return -1;
}

static uint32_t live_columns(const itmem *T)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < T->na; i++) n += T->a[i].freed ? 0 : T->a[i].ncols;
    return n;
}

/* the CTA pair's peer of X (cta_group::2 rows: blocks of ranks 2i and 2i + 1 of a cluster), or
 * NULL after a report */
ictx *interp_tmem_pair_peer(ictx *X, const dinst *d, uint32_t t)
{
    uint32_t n = interp_cluster_size(X);
    ictx *Y = NULL;
    if ((X->rank ^ 1) >= n) {
        tmem_report(X, d, t, "%s (cta_group::2) by warp %u of the cluster's block %u: its CTA pair's peer, "
                    "block %u, is not in the cluster (%u block%s; the pair needs clusters of an even size)",
                    interp_op_name(d), t / 32, X->rank, X->rank ^ 1, n, n > 1 ? "s" : "");
        return NULL;
    }
    return interp_cluster_block(X, d, t, X->rank ^ 1, "the CTA pair's peer", &Y) ? Y : NULL;
}

/* warp w0's tcgen05.alloc: the address lands at dst (lane 0 writes it) */
static void alloc(ictx *X, itmem *T, const dinst *d, uint32_t w0)
{
    if (d->row->flag == 2 && !interp_tmem_pair_peer(X, d, w0)) return;
    uint32_t ncols = interp_get32(X, d, 1, w0);
    uint64_t dst = interp_addr(X, d, 0, w0);
    char site[120];
    if (T->relinquished) {
        tmem_report(X, d, w0, "tcgen05.alloc by warp %u after this block's relinquish_alloc_permit at %s",
                    w0 / 32, interp_site(T->relinquished, site, sizeof site));
        return;
    }
    if (ncols < 32 || ncols > TMEM_COLS || (ncols & (ncols - 1))) {
        tmem_report(X, d, w0, "tcgen05.alloc of %u columns by warp %u: a power of two in 32..512 "
                    "is needed", ncols, w0 / 32);
        return;
    }
    int64_t col = place(T, ncols);
    if (col < 0) {
        tmem_report(X, d, w0, "tcgen05.alloc of %u columns by warp %u: %u of the 512 are "
                    "allocated and not freed, no %u free in a row (it would wait for ever)",
                    ncols, w0 / 32, live_columns(T), ncols);
        return;
    }
    if (!interp_scheck(X, d, w0, dst, 4, 4, 1)) return;
    if (!interp_grow(X, (void **)&T->a, T->na, &T->ca, sizeof *T->a, 8)) return;
    T->a[T->na++] = (itmem_alloc){(uint32_t)col, ncols, w0, d->row->flag == 2, d, NULL};
    uint32_t addr = (uint32_t)col; /* lane 0 */
    memcpy(X->smem + dst, &addr, 4);
    X->writes++;
}

static void dealloc(ictx *X, itmem *T, const dinst *d, uint32_t w0)
{
    uint32_t taddr = interp_get32(X, d, 0, w0), ncols = interp_get32(X, d, 1, w0);
    uint32_t col = TMEM_COL(taddr);
    char site[120];
    itmem_alloc *freed = NULL;
    for (uint32_t i = 0; i < T->na; i++) {
        itmem_alloc *a = &T->a[i];
        if (a->col != col || a->ncols != ncols || TMEM_LANE(taddr) != 0) continue;
        if (!a->freed && a->pair != (d->row->flag == 2)) {
            tmem_report(X, d, w0, "tcgen05.dealloc.cta_group::%d by warp %u of columns [%u,%u), which %s "
                        "allocated with cta_group::%d", d->row->flag == 2 ? 2 : 1, w0 / 32, col, col + ncols,
                        interp_site(a->site, site, sizeof site), a->pair ? 2 : 1);
            return;
        }
        if (!a->freed) {
            a->freed = d;
            return;
        }
        freed = a;
    }
    if (freed)
        tmem_report(X, d, w0, "tcgen05.dealloc by warp %u of columns [%u,%u), freed already at %s",
                    w0 / 32, col, col + ncols, interp_site(freed->freed, site, sizeof site));
    else
        tmem_report(X, d, w0, "tcgen05.dealloc by warp %u of %u columns at lane %u column %u: no "
                    "live allocation is that", w0 / 32, ncols, TMEM_LANE(taddr), col);
}

/* thread t's MMAs and copies in T that no commit covers yet: committed to the mbarrier at
 * bar (of the block of rank bar_rank); the latest stamp among them raised into *stamp */
static void cover(itmem *T, uint32_t t, const ictx *by, uint64_t bar, uint32_t bar_rank, uint32_t *stamp)
{
    for (uint32_t i = T->nw; i-- > 0;) {
        itmem_write *w = &T->w[i];
        if (!w->async || w->tid != t || w->by != by) continue;
        if (w->stamp > *stamp) *stamp = w->stamp;
        if (w->bar >= 0) break; /* this one and those before it: committed already */
        w->bar = (int64_t)bar, w->bar_rank = bar_rank;
        T->uncommitted--;
    }
}

/* thread t's tcgen05.commit: every MMA and copy it issued so far (committed before or not)
 * completes on the mbarrier at bar, which hands their writes to its waiters */
static void commit(ictx *X, itmem *T, const dinst *d, uint32_t t)
{
    uint64_t bar = interp_addr(X, d, 0, t);
    uint32_t stamp = 0;
    cover(T, t, X, bar, X->rank, &stamp);
    interp_mbarrier_arrive_async(X, X, d, t, bar, stamp);
}

/* the CTA pair's commit (cta_group::2): the thread's MMAs wrote both blocks' tensor memory;
 * one arrival on the mbarrier at a shared::cluster address, or (multicast) on the one at bar's
 * offset in every block of the mask.  Visibility is then the vector clocks': the waiters of
 * those mbarriers, and whoever they release to, see the writes. */
static void commit_pair(ictx *X, const dinst *d, uint32_t t)
{
    ictx *P = interp_tmem_pair_peer(X, d, t), *Q = X;
    uint64_t bar = interp_addr(X, d, 0, t);
    uint32_t mask = d->row->num == TC_COMMIT_MULTICAST ? interp_get32(X, d, 1, t) & 0xffffu : 0, stamp = 0;
    if (!P || (!mask && !interp_cluster_target(X, d, t, interp_get32(X, d, 0, t), &Q, &bar))) return;
    if (!interp_tmem(P)) return;
    uint32_t first = mask ? (uint32_t)__builtin_ctz(mask | 0x10000u) : Q->rank;
    cover(X->tmem, t, X, bar, first, &stamp);
    cover(P->tmem, t, X, bar, first, &stamp);
    if (!mask) {
        interp_mbarrier_arrive_async(X, Q, d, t, bar, stamp);
        return;
    }
    for (uint32_t r = 0; r < 16 && !X->stop; r++)
        if (mask >> r & 1 && interp_cluster_block(X, d, t, r, "the commit's ctaMask", &Q))
            interp_mbarrier_arrive_async(X, Q, d, t, bar, stamp);
}

void inst_tcgen05(ictx *X, const dinst *d, const imask *m)
{
    int kind = d->row->num;
    itmem *T = kind == TC_NOTHING ? NULL : interp_tmem(X);
    if (!T) return;
    if (kind == TC_COMMIT || kind == TC_COMMIT_MULTICAST) {
        EACH(X, m, t, {
            if (X->stop) break;
            if (d->row->flag == 2) commit_pair(X, d, t);
            else commit(X, T, d, t);
        });
        return;
    }
    for (uint32_t w0 = m->lo - m->lo % 32; w0 < m->hi && !X->stop; w0 += 32) {
        if (!interp_whole_warp(X, d, m, w0)) continue;
        if (kind == TC_ALLOC) alloc(X, T, d, w0);
        else if (kind == TC_DEALLOC) dealloc(X, T, d, w0);
        else if (!T->relinquished) T->relinquished = d;
    }
}

void interp_tmem_block_end(ictx *X)
{
    itmem *T = X->tmem;
    if (!T) return;
    for (uint32_t i = 0; i < T->na && !X->stop; i++)
        if (!T->a[i].freed)
            tmem_report(X, T->a[i].site, T->a[i].tid, "%u tensor-memory columns [%u,%u) allocated "
                        "here by warp %u are never freed (tcgen05.dealloc) before the block ends",
                        T->a[i].ncols, T->a[i].col, T->a[i].col + T->a[i].ncols, T->a[i].tid / 32);
    for (uint32_t i = 0; i < T->nw && !X->stop && T->uncommitted; i++)
        if (T->w[i].async && T->w[i].bar < 0)
            tmem_report(X, T->w[i].site, T->w[i].tid, "warp %u%s's %s is never covered by a "
                        "tcgen05.commit before the block ends", T->w[i].tid / 32,
                        T->w[i].by != X ? " of the CTA pair's peer block" : "", interp_op_name(T->w[i].site));
    T->na = T->nw = T->uncommitted = 0;
    T->relinquished = NULL;
    memset(T->who, 0, sizeof T->who);
}

void interp_tmem_free(ictx *X)
{
    if (!X->tmem) return;
    free(X->tmem->w);
    free(X->tmem->a);
    free(X->tmem);
    X->tmem = NULL;
}
