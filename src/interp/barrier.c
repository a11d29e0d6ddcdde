/* Barriers under the warp scheduler: the block barrier (__syncthreads, which is barrier 0
 * with every live thread expected) and the named barriers of bar.sync / bar.arrive (16 of
 * them, each phase expecting the row's thread count).  A phase completes when its expected
 * threads have arrived; the arrivals release their clocks into it and the warps that sync
 * on it acquire them all.  A warp whose threads all ended counts no more for the block
 * barrier, as on the GPU. */
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

typedef struct ibarrier {
    uint32_t expected; /* threads this phase (0: no arrival yet) */
    uint32_t arrived;
    uint32_t gen;      /* completed phases */
    uint32_t *vc, *done_vc;
} ibarrier;

#define CLUSTER_BAR 16 /* after the 16 named barriers */
#define NBARS 17

void interp_sched_barriers_reset(ictx *X)
{
    for (int i = 0; X->bars && i < NBARS; i++) {
        ibarrier *b = &X->bars[i];
        free(b->vc), free(b->done_vc);
        *b = (ibarrier){0};
    }
}

void interp_sched_barriers_free(ictx *X)
{
    interp_sched_barriers_reset(X);
    free(X->bars);
    X->bars = NULL;
}

/* barrier i, the barriers made at the first use (NULL when out of memory: the block stops) */
static ibarrier *bar(ictx *X, int i)
{
    if (!X->bars && !(X->bars = calloc(NBARS, sizeof *X->bars))) {
        X->oom = X->stop = true;
        return NULL;
    }
    return &X->bars[i];
}

static void complete(ictx *X, ibarrier *b)
{
    free(b->done_vc);
    b->done_vc = b->vc;
    b->vc = NULL;
    b->expected = b->arrived = 0;
    b->gen++;
    X->writes++; /* a spinning warp may see something new */
}

/* the warp of m arrives on b with m's threads (releasing its clocks) */
static void arrive(ictx *X, ibarrier *b, const imask *m)
{
    if (!b->vc && !(b->vc = interp_hb_new_vc(X))) return;
    interp_hb_release(X, m->lo, b->vc);
    b->arrived += m->n;
}

static iwarp *warp_of_mask(ictx *X, const imask *m) { return &X->warps[m->lo / 32]; }

static uint32_t live_threads(const ictx *X) { return X->nthr - X->nreturned - X->fell_off; }

/* a barrier of every live thread (the block's, the cluster's): whether the phase the warp
 * of m arrived in (gen) completed; completes it when the last live thread has arrived */
static bool all_live_done(ictx *X, ibarrier *b, uint32_t gen, const imask *m)
{
    if (b->gen == gen && b->arrived >= live_threads(X)) {
        complete(X, b);
        if (b == &X->bars[0]) interp_race_epoch_end(X);
    }
    if (b->gen == gen) return false;
    interp_hb_acquire(X, m->lo, b->done_vc);
    return true;
}

static bool block_barrier_done(ictx *X, const dinst *d, const imask *m)
{
    (void)d;
    return all_live_done(X, &X->bars[0], warp_of_mask(X, m)->wait_gen, m);
}

static void block_barrier_state(ictx *X, const dinst *d, const imask *m, char *buf, size_t n)
{
    (void)d, (void)m;
    snprintf(buf, n, "waits at the block barrier: %u of the block's %u live threads arrived",
             X->bars[0].arrived, live_threads(X));
}

void interp_sched_block_barrier(ictx *X, const dinst *d, const imask *m)
{
    ibarrier *b = bar(X, 0);
    if (!b) return;
    warp_of_mask(X, m)->wait_gen = b->gen;
    arrive(X, b, m);
    interp_wait(X, d, m, block_barrier_done, block_barrier_state);
}

/* --- bar.sync / bar.arrive id, count ------------------------------------------------------ */

static bool named_done(ictx *X, const dinst *d, const imask *m)
{
    ibarrier *b = &X->bars[REG(X, d->var[0])[m->lo].u32 & 15];
    if (b->gen == warp_of_mask(X, m)->wait_gen) return false;
    interp_hb_acquire(X, m->lo, b->done_vc);
    return true;
}

static void named_state(ictx *X, const dinst *d, const imask *m, char *buf, size_t n)
{
    uint32_t id = REG(X, d->var[0])[m->lo].u32 & 15;
    const ibarrier *b = &X->bars[id];
    snprintf(buf, n, "waits at bar.sync %u: %u of its %u threads arrived in this phase", id,
             b->arrived, b->expected);
}

/* the row's id and count (those of the first active thread), or false after a report */
static bool named_operands(ictx *X, const dinst *d, const imask *m, uint32_t *id, uint32_t *count)
{
    uint32_t t = m->lo;
    while (!m->on[t]) t++;
    *id = REG(X, d->var[0])[t].u32, *count = REG(X, d->var[1])[t].u32;
    const char *bad = *id > 15                            ? "the barrier id is not in 0..15"
                      : *count == 0 || *count % 32        ? "the thread count is not a positive multiple of 32"
                      : *count > ((X->nthr + 31) & ~31u) ? "the thread count exceeds the block's threads"
                                                          : NULL;
    if (bad)
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0, "bar.%s %u, %u: %s",
                      d->row->flag ? "sync" : "arrive", *id, *count, bad);
    return !bad;
}

void inst_named_barrier(ictx *X, const dinst *d, const imask *m)
{
    uint32_t id, count;
    if (!named_operands(X, d, m, &id, &count)) return;
    if (!X->warps) { /* lockstep (no scheduler): every thread is here or none will be */
        interp_report(X, d, m->lo, CUTE_CHECK_UNSUPPORTED, 0, 0, 0,
                      "named barriers need the warp scheduler");
        return;
    }
    ibarrier *b = bar(X, (int)id);
    if (!b) return;
    if (b->expected && b->expected != count) {
        interp_report(X, d, m->lo, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0,
                      "bar.%s %u, %u: this phase of barrier %u expects %u threads (another "
                      "arrival gave that count)", d->row->flag ? "sync" : "arrive", id, count, id,
                      b->expected);
        return;
    }
    b->expected = count;
    warp_of_mask(X, m)->wait_gen = b->gen;
    arrive(X, b, m);
    if (b->arrived >= b->expected) complete(X, b);
    if (d->row->flag) interp_wait(X, d, m, named_done, named_state);
}

/* --- barrier.cluster.arrive / wait: every live thread of every block of the cluster -------
 * The phase is counted for the cluster (icluster.bar_arrived, bar_gen); each block's barrier
 * CLUSTER_BAR gathers the clocks its own warps release, and when the phase completes every
 * block's waiters acquire all of them (the barrier orders distributed shared memory). */

static uint32_t cluster_live(const icluster *C)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < C->n; i++) n += live_threads(&C->blk[i]);
    return n;
}

/* the phase's last arrival came: each block's part of it completes */
static void cluster_complete(icluster *C)
{
    uint32_t *all = NULL; /* the clocks every block's warps released */
    for (uint32_t i = 0; i < C->n; i++) {
        ibarrier *b = bar(&C->blk[i], CLUSTER_BAR);
        if (!b) continue;
        complete(&C->blk[i], b);
        if (!all) all = b->done_vc;
        else interp_hb_join(&C->blk[i], all, b->done_vc);
    }
    for (uint32_t i = 0; all && i < C->n; i++) {
        ibarrier *b = bar(&C->blk[i], CLUSTER_BAR);
        if (b && b->done_vc != all) interp_hb_join(&C->blk[i], b->done_vc, all);
    }
    C->bar_gen++;
    C->bar_arrived = 0;
}

static bool cluster_done(ictx *X, const dinst *d, const imask *m)
{
    (void)d;
    icluster *C = X->cl;
    uint32_t gen = warp_of_mask(X, m)->cluster_gen;
    if (C->bar_gen == gen && C->bar_arrived >= cluster_live(C)) cluster_complete(C);
    if (C->bar_gen == gen) return false;
    interp_hb_acquire(X, m->lo, X->bars[CLUSTER_BAR].done_vc);
    return true;
}

static void cluster_state(ictx *X, const dinst *d, const imask *m, char *buf, size_t n)
{
    (void)d, (void)m;
    snprintf(buf, n, "waits at barrier.cluster.wait: %u of the cluster's %u live threads arrived "
             "(%u block%s)", X->cl->bar_arrived, cluster_live(X->cl), X->cl->n, X->cl->n > 1 ? "s" : "");
}

void inst_cluster_barrier(ictx *X, const dinst *d, const imask *m)
{
    ibarrier *b = bar(X, CLUSTER_BAR);
    iwarp *w = warp_of_mask(X, m);
    if (!b) return;
    if (d->row->num != 2) { /* arrive (.relaxed: the same here, ordering being stronger) */
        if (w->cluster_arrived) {
            interp_report(X, d, m->lo, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0, "barrier.cluster.arrive "
                          "twice without a barrier.cluster.wait between");
            return;
        }
        w->cluster_arrived = true;
        w->cluster_gen = X->cl->bar_gen;
        arrive(X, b, m);
        X->cl->bar_arrived += m->n;
        return;
    }
    if (!w->cluster_arrived) {
        interp_report(X, d, m->lo, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0, "barrier.cluster.wait "
                      "without a barrier.cluster.arrive before it");
        return;
    }
    w->cluster_arrived = false;
    interp_wait(X, d, m, cluster_done, cluster_state);
}
