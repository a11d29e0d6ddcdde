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

/* warp w0's tcgen05.alloc: the address lands at dst (lane 0 writes it) */
static void alloc(ictx *X, itmem *T, const dinst *d, uint32_t w0)
{
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
    T->a[T->na++] = (itmem_alloc){(uint32_t)col, ncols, w0, d, NULL};
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

/* thread t's tcgen05.commit: every MMA and copy it issued so far (committed before or not)
 * completes on the mbarrier at bar, which hands their writes to its waiters */
static void commit(ictx *X, itmem *T, const dinst *d, uint32_t t)
{
    uint64_t bar = interp_addr(X, d, 0, t);
    uint32_t stamp = 0;
    for (uint32_t i = T->nw; i-- > 0;) {
        itmem_write *w = &T->w[i];
        if (!w->async || w->tid != t) continue;
        if (w->stamp > stamp) stamp = w->stamp;
        if (w->bar >= 0) break; /* this one and those before it: committed already */
        w->bar = (int64_t)bar;
        T->uncommitted--;
    }
    interp_mbarrier_arrive_async(X, d, t, bar, stamp);
}

void inst_tcgen05(ictx *X, const dinst *d, const imask *m)
{
    int kind = d->row->num;
    itmem *T = kind == TC_NOTHING ? NULL : interp_tmem(X);
    if (!T) return;
    if (kind == TC_COMMIT) {
        EACH(X, m, t, { commit(X, T, d, t); });
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
            tmem_report(X, T->w[i].site, T->w[i].tid, "warp %u's %s is never covered by a "
                        "tcgen05.commit before the block ends", T->w[i].tid / 32, interp_op_name(T->w[i].site));
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
