/* The warp scheduler: a block's warps as cooperative units.
 *
 * Each warp runs the body it is given (exec.c's executor) on a thread of its own over its
 * 32 threads (lockstep inside the warp), and exactly one warp runs at a time: it holds the
 * baton (X->cur) until it waits (a barrier, an mbarrier wait) or ends an iteration of a
 * while loop that touched memory (a spin, maybe).
 * Then the next warp in round-robin order that may go on takes the baton: a ready one, a
 * spinning one whose loop can still change, or a waiting one whose condition now holds.
 * Execution is therefore deterministic.  When no warp may go on, nothing can ever change:
 * every waiting warp is reported as a deadlock, with its site and what it waits for (a
 * spinning warp counts as waiting when its iteration repeated the one before, registers and
 * all, with no memory written anywhere since: it would repeat it for ever). */
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

typedef struct isched {
    iwarp_body body; /* what each warp runs */
    pthread_mutex_t mu;
    pthread_cond_t *go; /* per warp: its turn */
    pthread_cond_t done;
    pthread_t *th;
} isched;

typedef struct warp_arg {
    ictx *X;
    uint32_t w;
} warp_arg;

static iwarp *current(ictx *X) { return &X->warps[X->cur]; }

/* whether warp w may take the baton */
static bool may_run(ictx *X, iwarp *w)
{
    if (w->state == W_DONE) return false;
    if (X->stop || w->state == W_READY) return true;
    if (w->state == W_SPIN) return !(w->idle && X->writes == w->spin_writes);
    if (!w->ready(X, w->site, w->mask)) return false;
    w->state = W_READY;
    return true;
}

/* the next warp after `from` (itself last) that may run, or NULL */
static iwarp *choose(ictx *X, uint32_t from)
{
    for (uint32_t k = 1; k <= X->nwarps; k++) {
        iwarp *w = &X->warps[(from + k) % X->nwarps];
        if (may_run(X, w)) return w;
    }
    return NULL;
}

static void report_waiter(ictx *X, iwarp *w, uint32_t nwait)
{
    char what[200] = "";
    if (w->state == W_SPIN)
        snprintf(what, sizeof what, "spins in a loop that cannot end (an iteration repeated "
                 "the one before, registers and all, and no thread wrote memory since)");
    else
        w->describe(X, w->site, w->mask, what, sizeof what);
    uint32_t t = w->lo;
    while (t < w->hi && !w->mask->on[t]) t++;
    interp_report(X, w->site, t < w->hi ? t : w->lo, CUTE_CHECK_DEADLOCK, 0, 0, 0,
                  "no warp can go on (%u wait): warp %u %s", nwait, (uint32_t)(w - X->warps), what);
}

/* nobody may run: report every waiting warp, then let them all unwind */
static void deadlock(ictx *X)
{
    uint32_t nwait = X->nwarps - X->ndone;
    for (uint32_t i = 0; i < X->nwarps; i++)
        if (X->warps[i].state != W_DONE && checking(X, CUTE_CHECK_DEADLOCK))
            report_waiter(X, &X->warps[i], nwait);
    X->stop = true;
}

/* (under mu) the warp `me` gives the baton away and, unless it is done, waits for it back */
static void pass(ictx *X, uint32_t me)
{
    isched *S = X->sched;
    iwarp *next = choose(X, me);
    if (!next && X->ndone < X->nwarps) {
        deadlock(X);
        next = choose(X, me);
    }
    if (!next) { /* every warp is done */
        pthread_cond_signal(&S->done);
        return;
    }
    X->cur = (uint32_t)(next - X->warps);
    pthread_cond_signal(&S->go[X->cur]);
    if (X->warps[me].state == W_DONE) return;
    while (X->cur != me) pthread_cond_wait(&S->go[me], &S->mu);
}

static void *warp_main(void *arg)
{
    warp_arg *a = arg;
    ictx *X = a->X;
    uint32_t me = a->w;
    isched *S = X->sched;
    pthread_mutex_lock(&S->mu);
    while (X->cur != me) pthread_cond_wait(&S->go[me], &S->mu);
    pthread_mutex_unlock(&S->mu);
    iwarp *w = &X->warps[me];
    imask m = {X->top, w->hi - w->lo, w->lo, w->hi};
    S->body(X, &m);
    X->fell_off += m.n;
    pthread_mutex_lock(&S->mu);
    w->state = W_DONE;
    X->ndone++;
    pass(X, me);
    pthread_mutex_unlock(&S->mu);
    return NULL;
}

static bool sched_init(ictx *X)
{
    uint32_t nw = (X->nthr + 31) / 32;
    X->nwarps = nw;
    X->warps = calloc(nw, sizeof *X->warps);
    isched *S = X->sched = calloc(1, sizeof *X->sched);
    pthread_cond_t *go = calloc(nw, sizeof *go);
    pthread_t *th = calloc(nw, sizeof *th);
    if (!X->warps || !S || !go || !th) return free(go), free(th), false;
    S->go = go, S->th = th; /* from here on interp_sched_free destroys what is made */
    pthread_mutex_init(&S->mu, NULL);
    pthread_cond_init(&S->done, NULL);
    for (uint32_t i = 0; i < nw; i++) pthread_cond_init(&S->go[i], NULL);
    for (uint32_t i = 0; i < nw; i++)
        if (!(X->warps[i].vc = calloc(nw + 1, sizeof *X->warps[i].vc))) return false;
    return true;
}

static void block_begin(ictx *X)
{
    X->cur = X->ndone = X->fell_off = 0;
    for (uint32_t i = 0; i < X->nwarps; i++) {
        iwarp *w = &X->warps[i];
        w->lo = i * 32;
        w->hi = w->lo + 32 < X->nthr ? w->lo + 32 : X->nthr;
        w->state = W_READY;
        w->idle = w->cluster_arrived = false;
        w->false_at = NULL;
        w->spin_accesses = UINT64_MAX;
        w->clock = ++X->epoch;
        memset(w->vc, 0, (X->nwarps + 1) * sizeof *w->vc);
    }
}

void interp_sched_run_block(ictx *X, iwarp_body body)
{
    if (!X->warps && !sched_init(X)) {
        X->oom = X->stop = true;
        return;
    }
    block_begin(X);
    isched *S = X->sched;
    S->body = body;
    warp_arg *args = malloc(X->nwarps * sizeof *args);
    uint32_t started = 0;
    pthread_mutex_lock(&S->mu);
    for (; args && started < X->nwarps; started++) {
        args[started] = (warp_arg){X, started};
        if (pthread_create(&S->th[started], NULL, warp_main, &args[started])) break;
    }
    if (started < X->nwarps) { /* no thread for every warp: nothing runs */
        X->oom = X->stop = true;
        for (uint32_t i = started; i < X->nwarps; i++) X->warps[i].state = W_DONE;
        X->ndone += X->nwarps - started;
    }
    pthread_cond_signal(&S->go[0]);
    while (X->ndone < X->nwarps) pthread_cond_wait(&S->done, &S->mu);
    pthread_mutex_unlock(&S->mu);
    for (uint32_t i = 0; i < started; i++) pthread_join(S->th[i], NULL);
    free(args);
}

bool interp_wait(ictx *X, const dinst *d, const imask *m, iready_fn ready, idescribe_fn describe)
{
    if (X->stop) return false;
    if (ready(X, d, m)) return true;
    if (!X->warps) { /* lockstep: no other warp can make it hold */
        char what[200];
        describe(X, d, m, what, sizeof what);
        interp_report(X, d, m->lo, CUTE_CHECK_DEADLOCK, 0, 0, 0, "deadlock: the block %s", what);
        X->stop = true;
        return false;
    }
    iwarp *w = current(X);
    w->state = W_BLOCKED;
    w->site = d;
    w->mask = m;
    w->ready = ready;
    w->describe = describe;
    pthread_mutex_lock(&X->sched->mu);
    pass(X, X->cur);
    pthread_mutex_unlock(&X->sched->mu);
    return !X->stop;
}

/* FNV-1a of the warp's registers: an iteration that changes none repeats itself */
static uint64_t warp_hash(const ictx *X, const iwarp *w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t s = 0; s < X->P->nslots; s++) {
        const islot *r = X->regs + (size_t)s * X->nthr;
        for (uint32_t t = w->lo; t < w->hi; t++) h = (h ^ r[t].u64) * 1099511628211ull;
    }
    return h;
}

bool interp_sched_spin(ictx *X, const dinst *d, const imask *m)
{
    iwarp *w = current(X);
    if (w->spin_accesses == X->accesses) return !X->stop; /* no memory: it waits for nobody */
    uint64_t h = warp_hash(X, w);
    w->idle = w->site == d && w->spin_hash == h && w->spin_writes == X->writes;
    w->site = d;
    w->mask = m;
    w->spin_hash = h;
    w->spin_writes = X->writes;
    w->state = W_SPIN;
    pthread_mutex_lock(&X->sched->mu);
    pass(X, X->cur);
    pthread_mutex_unlock(&X->sched->mu);
    w->state = W_READY;
    w->spin_accesses = X->accesses;
    return !X->stop;
}

uint32_t interp_sched_live(ictx *X, const imask *m)
{
    uint32_t n = 0;
    for (uint32_t t = m->lo; t < m->hi; t++) n += !X->returned[t];
    return n;
}

void interp_sched_free(ictx *X)
{
    isched *S = X->sched;
    if (S && S->go) {
        for (uint32_t i = 0; i < X->nwarps; i++) pthread_cond_destroy(&S->go[i]);
        pthread_cond_destroy(&S->done);
        pthread_mutex_destroy(&S->mu);
    }
    if (S) free(S->go), free(S->th);
    free(S);
    for (uint32_t i = 0; X->warps && i < X->nwarps; i++) free(X->warps[i].vc);
    free(X->warps);
}
