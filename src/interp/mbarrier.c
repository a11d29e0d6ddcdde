/* mbarriers under the interpreter (PTX ISA, "Parallel synchronization: mbarrier").
 *
 * init sets the expected arrivals; each phase completes when its pending arrivals and its
 * transaction count both reach zero (expect_tx raises the count, a bulk copy's or TMA's
 * complete_tx lowers it), and the next phase begins with the expected arrivals again.  A
 * wait names a phase by its parity: the phase of parity p has completed when the current
 * phase's parity is not p.  Arrivals release their warp's clocks into the phase; a wait that
 * sees the phase completed acquires them, and with them the async proxy's writes that
 * completed on it, so a read of a stage before its wait is a reported race.  try_wait blocks
 * the warp until its phase completes, or, as the GPU may, answers false first where the
 * options ask for it (cute_interp_opts.try_wait_false, try_wait_seed); test_wait never
 * blocks. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/mbarrier.h"

static imbar *find(ictx *X, uint64_t off)
{
    for (uint32_t i = 0; i < X->nmbars; i++)
        if (X->mbars[i].off == off) return &X->mbars[i];
    return NULL;
}

static imbar *add(ictx *X, uint64_t off)
{
    if (!interp_grow(X, (void **)&X->mbars, X->nmbars, &X->cmbars, sizeof *X->mbars, 8)) return NULL;
    imbar *b = &X->mbars[X->nmbars++];
    *b = (imbar){.off = off};
    return b;
}

imbar *interp_mbarrier_at(ictx *X, const dinst *d, uint32_t t, uint64_t off)
{
    imbar *b = find(X, off);
    if (!b) {
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, (int64_t)off, 8,
                      "%s on shared bytes [%" PRIu64 ",%" PRIu64 "), where no mbarrier.init ran "
                      "in this block", interp_op_name(d), off, off + 8);
        return NULL;
    }
    if (t != b->init_tid && t < X->nthr && interp_hb_concurrent(X, b->init_stamp, b->init_tid, t)) {
        char site[160];
        cute_dim3 o;
        interp_thread_dim3(X, b->init_tid, &o);
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, (int64_t)off, 8,
                      "%s on the mbarrier at shared offset %" PRIu64 " before its init is "
                      "visible here: thread (%u,%u,%u) initialized it at %s, with no barrier between",
                      interp_op_name(d), off, o.x, o.y, o.z, interp_site(b->init_site, site, sizeof site));
        return NULL;
    }
    return b;
}

/* the mbarrier at off in block Y of X's cluster (not X), for thread t of X: reported in X */
static imbar *remote(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off)
{
    imbar *b = find(Y, off);
    if (!b)
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, (int64_t)off, 8,
                      "%s on shared bytes [%" PRIu64 ",%" PRIu64 ") of the cluster's block %u, "
                      "where no mbarrier.init ran", interp_op_name(d), off, off + 8, Y->rank);
    return b;
}

static imbar *target(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off)
{
    return Y == X ? interp_mbarrier_at(X, d, t, off) : remote(X, Y, d, t, off);
}

static void complete_phase(ictx *X, imbar *b)
{
    free(b->done_vc);
    b->done_vc = b->vc;
    b->vc = NULL;
    b->phase++;
    b->pending = b->expected;
    b->tx = b->tx_expected = b->tx_came = 0;
    X->writes++; /* a spinning warp may see something new */
}

static void maybe_complete(ictx *X, imbar *b)
{
    if (b->pending == 0 && b->tx == 0) complete_phase(X, b);
}

/* thread t of X arrives on b, an mbarrier of block Y (X itself, or another block of its
 * cluster: a remote arrival releases X's clocks too, as .release.cluster does) */
static bool arrive(ictx *X, ictx *Y, const dinst *d, uint32_t t, imbar *b)
{
    if (b->pending == 0) { /* it waits for transaction bytes only */
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, (int64_t)b->off, 8,
                      "more arrivals on the mbarrier at shared offset %" PRIu64 " than its %u "
                      "expected in phase %u (it still waits for %" PRId64 " transaction bytes)",
                      b->off, b->expected, b->phase, b->tx);
        return false;
    }
    if (!b->vc && !(b->vc = interp_hb_new_vc(Y))) return false;
    interp_hb_release(X, t, b->vc);
    b->pending--;
    Y->writes++;
    maybe_complete(Y, b);
    return true;
}

static void expect_tx(ictx *X, imbar *b, uint32_t bytes)
{
    b->tx += bytes;
    b->tx_expected += bytes;
    X->writes++;
}

bool interp_mbarrier_complete_tx(ictx *X, ictx *Y, ictx *W, const dinst *d, uint32_t t, uint64_t off,
                                 uint32_t bytes, uint32_t stamp)
{
    imbar *b = target(X, Y, d, t, off);
    if (!b) return false;
    if (!b->vc && !(b->vc = interp_hb_new_vc(Y))) return false;
    uint32_t proxy = interp_hb_slot(W, HB_PROXY(W));
    if (stamp > b->vc[proxy]) b->vc[proxy] = stamp;
    b->tx -= bytes;
    b->tx_came += bytes;
    Y->writes++;
    maybe_complete(Y, b);
    return true;
}

bool interp_mbarrier_arrive_async(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, uint32_t stamp)
{
    imbar *b = interp_sbounds(X, d, t, off, 8, 8, 0) ? target(X, Y, d, t, off) : NULL;
    if (!b || (!b->vc && !(b->vc = interp_hb_new_vc(Y)))) return false;
    uint32_t proxy = interp_hb_slot(X, HB_PROXY(X));
    if (stamp > b->vc[proxy]) b->vc[proxy] = stamp;
    return arrive(X, Y, d, t, b);
}

static void init(ictx *X, const dinst *d, uint32_t t)
{
    uint64_t off = interp_addr(X, d, 0, t);
    uint32_t count = interp_get32(X, d, 1, t);
    if (!interp_sbounds(X, d, t, off, 8, 8, 1)) return;
    if (count == 0 || count >= 1u << 20) {
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, (int64_t)off, 8,
                      "mbarrier.init with %u expected arrivals: the count must be in 1..%u",
                      count, (1u << 20) - 1);
        return;
    }
    imbar *b = find(X, off);
    if (b) free(b->vc), free(b->done_vc);
    if (!b && !(b = add(X, off))) return;
    *b = (imbar){.off = off, .expected = count, .pending = count, .init_site = d, .init_tid = t,
                 .init_stamp = interp_hb_now(X, t)};
    X->writes++;
}

/* the mbarrier operand of thread t: a shared address, or a shared::cluster one (*Y: the
 * block of the cluster it lies in) */
static imbar *operand(ictx *X, const dinst *d, uint32_t t, ictx **Y)
{
    uint64_t off = interp_addr(X, d, 0, t);
    *Y = X;
    if (d->row->flag && !interp_cluster_target(X, d, t, interp_get32(X, d, 0, t), Y, &off)) return NULL;
    if (!interp_sbounds(X, d, t, off, 8, 8, 0)) return NULL;
    return target(X, *Y, d, t, off);
}

/* the phase of parity p has completed: the current phase is of the other parity */
static bool completed(const imbar *b, uint32_t parity) { return (b->phase & 1) != (parity & 1); }

/* a wait's mbarrier (operand 1, after the result) */
static imbar *waited(ictx *X, const dinst *d, uint32_t t)
{
    uint64_t off = interp_addr(X, d, 1, t);
    return interp_sbounds(X, d, t, off, 8, 8, 0) ? interp_mbarrier_at(X, d, t, off) : NULL;
}

static bool waits_done(ictx *X, const dinst *d, const imask *m)
{
    bool all = true;
    EACH(X, m, t, {
        imbar *b = waited(X, d, t);
        if (!b) return true; /* reported: the block stops */
        all = all && completed(b, interp_get32(X, d, 2, t));
    });
    return all;
}

static void wait_state(ictx *X, const dinst *d, const imask *m, char *buf, size_t n)
{
    uint32_t t = m->lo;
    while (t < m->hi && !m->on[t]) t++;
    imbar *b = find(X, interp_addr(X, d, 1, t));
    char site[160];
    if (!b) {
        snprintf(buf, n, "waits on an mbarrier that is gone");
        return;
    }
    snprintf(buf, n, "waits for the phase of parity %u of the mbarrier at shared offset %" PRIu64
             " (phase %u: %u of %u arrivals, %" PRId64 " of %" PRId64 " transaction bytes; "
             "initialized at %s)", interp_get32(X, d, 2, t) & 1, b->off, b->phase,
             b->expected - b->pending, b->expected, b->tx_came, b->tx_expected,
             interp_site(b->init_site, site, sizeof site));
}

void interp_mbarrier_state(const ictx *X, uint64_t off, char *buf, size_t n)
{
    const imbar *b = find((ictx *)X, off);
    if (!b) snprintf(buf, n, "no mbarrier there now");
    else snprintf(buf, n, "phase %u, %u of %u arrivals, %" PRId64 " of %" PRId64 " tx bytes",
                  b->phase, b->expected - b->pending, b->expected, b->tx_came, b->tx_expected);
}

/* done = whether each thread's phase completed; those that see it acquire its clocks */
static void test(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, {
        imbar *b = waited(X, d, t);
        if (!b) return;
        bool done = completed(b, interp_get32(X, d, 2, t));
        X->accesses++; /* a loop around it waits for other warps */
        if (done) interp_hb_acquire(X, t, b->done_vc);
        interp_put32(X, d, 0, t, done);
    });
}

/* xorshift64: the block's next draw */
static uint64_t draw(ictx *X)
{
    X->rng ^= X->rng << 13, X->rng ^= X->rng >> 7, X->rng ^= X->rng << 17;
    return X->rng;
}

/* whether this try_wait of the warp of m, whose phase has not completed for every thread,
 * answers (false) at once rather than wait (cute_interp_opts.try_wait_false / _seed): never
 * twice running at one site, so that the next one waits and a deadlock is reported with the
 * barrier's state */
static bool answer_now(ictx *X, const dinst *d, const imask *m)
{
    const ilaunch *L = X->L;
    if (!X->warps || !(L->try_wait_false || L->try_wait_seed)) return false;
    iwarp *w = &X->warps[m->lo / 32];
    bool now = w->false_at != d && (!L->try_wait_seed || draw(X) >> 63);
    w->false_at = now ? d : NULL;
    return now;
}

/* try_wait: when its phase has completed, or it answers at once, each thread's answer;
 * else the warp waits for the phase (false when the block stopped meanwhile) */
static bool try_wait(ictx *X, const dinst *d, const imask *m)
{
    if (waits_done(X, d, m) || X->stop || answer_now(X, d, m)) return !X->stop;
    return interp_wait(X, d, m, waits_done, wait_state);
}

void inst_mbarrier(ictx *X, const dinst *d, const imask *m)
{
    int kind = d->row->num;
    if (kind == MB_INIT) {
        EACH(X, m, t, { init(X, d, t); });
        return;
    }
    if (kind == MB_TRY_WAIT && !try_wait(X, d, m)) return;
    if (kind == MB_TRY_WAIT || kind == MB_TEST_WAIT) {
        test(X, d, m);
        return;
    }
    EACH(X, m, t, {
        ictx *Y;
        imbar *b = operand(X, d, t, &Y);
        if (!b) return;
        if (kind == MB_ARRIVE_TX || kind == MB_EXPECT_TX) expect_tx(Y, b, interp_get32(X, d, 1, t));
        if (kind != MB_EXPECT_TX && !arrive(X, Y, d, t, b)) return;
    });
}

void interp_mbarrier_block_end(ictx *X)
{
    for (uint32_t i = 0; i < X->nmbars; i++) free(X->mbars[i].vc), free(X->mbars[i].done_vc);
    X->nmbars = 0;
}
