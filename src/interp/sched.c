/* The warp scheduler: the warps of a cluster's blocks (one block without clusters) as
 * cooperative units.
 *
 * Each warp runs the body it is given (exec.c's executor) on a thread of its own over its
 * 32 threads (lockstep inside the warp), and exactly one warp of the cluster runs at a
 * time: it holds the baton (isched.cur) until it waits (a barrier, an mbarrier wait) or ends
 * an iteration of a while loop that touched memory (a spin, maybe).
 * Then the next warp in round-robin order that may go on takes the baton: a ready one, a
 * spinning one whose loop can still change, or a waiting one whose condition now holds.
 * Execution is therefore deterministic.  When no warp may go on, nothing can ever change:
 * every waiting warp is reported as a deadlock, with its site and what it waits for (a
 * spinning warp counts as waiting when its iteration repeated the one before, registers and
 * all, with no memory written anywhere since: it would repeat it for ever).  "Anywhere"
 * spans the launch: with several workers a cluster with nothing to run first waits for the
 * others' blocks to write or retire (progress.c), and is deadlocked only when they all wait. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

typedef struct isched {
    iwarp_body body; /* what each warp runs */
    pthread_mutex_t mu;
    pthread_cond_t *go; /* per warp of the cluster (block by block): its turn */
    pthread_cond_t done;
    pthread_t *th;
    uint32_t nw;    /* warps per block */
    uint32_t total; /* warps of the cluster */
    uint32_t cur;   /* the warp holding the baton (an index into the cluster's warps) */
    uint32_t ndone; /* warps of the cluster that ended */
} isched;

typedef struct warp_arg {
    icluster *C;
    uint32_t g;
} warp_arg;

#define NONE UINT32_MAX

static ictx *block_of(const icluster *C, uint32_t g) { return &C->blk[g / C->sched->nw]; }
static iwarp *warp_at(const icluster *C, uint32_t g) { return &block_of(C, g)->warps[g % C->sched->nw]; }
static iwarp *current(ictx *X) { return warp_at(X->cl, X->cl->sched->cur); }

/* memory writes anywhere in the cluster (a spinning warp may read another block's) */
static uint64_t cluster_writes(const icluster *C)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < C->n; i++) n += C->blk[i].writes;
    return n;
}

/* what a spinning warp may see change: memory written in the cluster, and what the launch's
 * other workers did (a group of devices runs in this one cluster) */
static uint64_t progress(const icluster *C)
{
    return cluster_writes(C) + interp_progress_now(C->blk[0].L);
}

/* the cluster's writes since its last switch, counted for the other workers' spins */
static void publish_writes(icluster *C)
{
    uint64_t n = cluster_writes(C);
    if (n == C->published) return;
    C->published = n;
    interp_progress_bump(C->blk[0].L);
}

/* a block that stopped (a failed check, out of memory) stops its cluster: the others would
 * wait for it */
static void stop_together(icluster *C)
{
    bool stop = false;
    for (uint32_t i = 0; i < C->n; i++) stop |= C->blk[i].stop;
    for (uint32_t i = 0; stop && i < C->n; i++)
        if (!C->blk[i].stop) C->blk[i].stop = C->blk[i].halted = true;
}

/* whether warp g may take the baton */
static bool may_run(icluster *C, uint32_t g)
{
    ictx *X = block_of(C, g);
    iwarp *w = warp_at(C, g);
    if (w->state == W_DONE) return false;
    if (X->stop || w->state == W_READY) return true;
    if (w->state == W_SPIN) return !(w->idle && progress(C) == w->spin_writes);
    if (!w->ready(X, w->site, w->mask)) return false;
    w->state = W_READY;
    return true;
}

/* the next warp after `from` (itself last) that may run, or NONE */
static uint32_t choose(icluster *C, uint32_t from)
{
    uint32_t total = C->sched->total;
    stop_together(C);
    for (uint32_t k = 1; k <= total; k++)
        if (may_run(C, (from + k) % total)) return (from + k) % total;
    return NONE;
}

/* the next warp that may run, after waiting for the other workers while none may; NONE:
 * nothing can change any more (or every warp is done) */
static uint32_t choose_or_await(icluster *C, uint32_t from)
{
    for (;;) {
        uint64_t seen = interp_progress_now(C->blk[0].L);
        uint32_t next = choose(C, from);
        if (next != NONE || C->sched->ndone == C->sched->total) return next;
        if (!interp_progress_await(C->blk[0].L, seen)) return NONE;
    }
}

/* why a spin may wait for a later block: the interpreter runs `workers` clusters at a time */
static void unstarted_text(const ictx *X, char *buf, size_t n)
{
    uint64_t k = X->group ? 0 : interp_progress_unstarted(X->L);
    if (k) snprintf(buf, n, "; %" PRIu64 " later block%s not started: %d at a time run, in order", k,
                    k > 1 ? "s" : "", X->L->workers * (int)X->cl->n);
}

static void report_waiter(ictx *X, iwarp *w, uint32_t nwait)
{
    char what[300] = "", later[100] = "";
    char flag[120] = "";
    if (X->group && w->flag) interp_peer_flag_text(X, w->flag, flag, sizeof flag);
    unstarted_text(X, later, sizeof later);
    if (w->state == W_SPIN && flag[0])
        snprintf(what, sizeof what, "waits for a flag no device will change (%s)", flag);
    else if (w->state == W_SPIN)
        snprintf(what, sizeof what, "spins in a loop that cannot end (an iteration repeated "
                 "the one before, registers and all, and no thread of any block wrote memory since%s)", later);
    else
        w->describe(X, w->site, w->mask, what, sizeof what);
    uint32_t t = w->lo;
    while (t < w->hi && !w->mask->on[t]) t++;
    interp_report(X, w->site, t < w->hi ? t : w->lo, CUTE_CHECK_DEADLOCK, 0, 0, 0,
                  "no warp can go on (%u wait): warp %u %s", nwait, (uint32_t)(w - X->warps), what);
}

/* nobody may run: report every waiting warp of every block, then let them all unwind */
static void deadlock(icluster *C)
{
    isched *S = C->sched;
    uint32_t nwait = S->total - S->ndone;
    for (uint32_t i = 0; i < C->n; i++) C->blk[i].halted = true; /* until a warp of it waits */
    for (uint32_t g = 0; g < S->total; g++) {
        ictx *X = block_of(C, g);
        if (warp_at(C, g)->state == W_DONE) continue;
        X->halted = false;
        if (checking(X, CUTE_CHECK_DEADLOCK)) report_waiter(X, warp_at(C, g), nwait);
    }
    for (uint32_t i = 0; i < C->n; i++) C->blk[i].stop = true;
}

/* (under mu) the warp `me` gives the baton away and, unless it is done, waits for it back */
static void pass(icluster *C, uint32_t me)
{
    isched *S = C->sched;
    publish_writes(C);
    uint32_t next = choose_or_await(C, me);
    if (next == NONE && S->ndone < S->total) {
        deadlock(C);
        next = choose(C, me);
    }
    if (next == NONE) { /* every warp is done */
        pthread_cond_signal(&S->done);
        return;
    }
    S->cur = next;
    pthread_cond_signal(&S->go[next]);
    if (warp_at(C, me)->state == W_DONE) return;
    while (S->cur != me) pthread_cond_wait(&S->go[me], &S->mu);
}

static void *warp_main(void *arg)
{
    warp_arg *a = arg;
    icluster *C = a->C;
    uint32_t me = a->g;
    isched *S = C->sched;
    pthread_mutex_lock(&S->mu);
    while (S->cur != me) pthread_cond_wait(&S->go[me], &S->mu);
    pthread_mutex_unlock(&S->mu);
    ictx *X = block_of(C, me);
    iwarp *w = warp_at(C, me);
    imask m = {X->top, w->hi - w->lo, w->lo, w->hi};
    S->body(X, &m);
    X->fell_off += m.n;
    pthread_mutex_lock(&S->mu);
    w->state = W_DONE;
    X->ndone++;
    S->ndone++;
    pass(C, me);
    pthread_mutex_unlock(&S->mu);
    return NULL;
}

static bool block_init(ictx *X)
{
    uint32_t nw = (X->nthr + 31) / 32;
    X->nwarps = nw;
    if (!(X->warps = calloc(nw, sizeof *X->warps))) return false;
    for (uint32_t i = 0; i < nw; i++)
        if (!(X->warps[i].vc = calloc(interp_hb_len(X), sizeof *X->warps[i].vc))) return false;
    return true;
}

static bool sched_init(icluster *C)
{
    isched *S = C->sched = calloc(1, sizeof *C->sched);
    if (!S) return false;
    S->nw = (C->blk[0].nthr + 31) / 32;
    S->total = S->nw * C->n;
    pthread_cond_t *go = calloc(S->total, sizeof *go);
    pthread_t *th = calloc(S->total, sizeof *th);
    if (!go || !th) return free(go), free(th), false;
    S->go = go, S->th = th; /* from here on interp_sched_cluster_free destroys what is made */
    pthread_mutex_init(&S->mu, NULL);
    pthread_cond_init(&S->done, NULL);
    for (uint32_t i = 0; i < S->total; i++) pthread_cond_init(&S->go[i], NULL);
    for (uint32_t i = 0; i < C->n; i++)
        if (!block_init(&C->blk[i])) return false;
    return true;
}

static void block_begin(ictx *X)
{
    X->ndone = X->fell_off = 0;
    for (uint32_t i = 0; i < X->nwarps; i++) {
        iwarp *w = &X->warps[i];
        w->lo = i * 32;
        w->hi = w->lo + 32 < X->nthr ? w->lo + 32 : X->nthr;
        w->state = W_READY;
        w->idle = w->cluster_arrived = false;
        w->false_at = NULL;
        w->spin_accesses = UINT64_MAX;
        w->spin_start = 0;
        w->clock = ++X->epoch;
        memset(w->vc, 0, interp_hb_len(X) * sizeof *w->vc);
        w->gclock = X->group ? interp_group_tick(X->group) : 0;
        w->flag = 0;
    }
}

/* no thread for every warp: what was not started counts as done, and nothing runs */
static void start_failed(icluster *C, uint32_t started)
{
    isched *S = C->sched;
    for (uint32_t g = started; g < S->total; g++) {
        warp_at(C, g)->state = W_DONE;
        block_of(C, g)->ndone++;
    }
    S->ndone += S->total - started;
    for (uint32_t i = 0; i < C->n; i++) C->blk[i].oom = C->blk[i].stop = true;
}

void interp_sched_run(icluster *C, iwarp_body body)
{
    if (!C->sched && !sched_init(C)) {
        for (uint32_t i = 0; i < C->n; i++) C->blk[i].oom = C->blk[i].stop = true;
        return;
    }
    isched *S = C->sched;
    for (uint32_t i = 0; i < C->n; i++) block_begin(&C->blk[i]);
    S->body = body;
    S->cur = S->ndone = 0;
    warp_arg *args = malloc(S->total * sizeof *args);
    uint32_t started = 0;
    pthread_mutex_lock(&S->mu);
    for (; args && started < S->total; started++) {
        args[started] = (warp_arg){C, started};
        if (pthread_create(&S->th[started], NULL, warp_main, &args[started])) break;
    }
    if (started < S->total) start_failed(C, started);
    pthread_cond_signal(&S->go[0]);
    while (S->ndone < S->total) pthread_cond_wait(&S->done, &S->mu);
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
    isched *S = X->cl->sched;
    pthread_mutex_lock(&S->mu);
    pass(X->cl, S->cur);
    pthread_mutex_unlock(&S->mu);
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

/* The iteration's memory as it saw it: what its cluster wrote up to now (its warps run one at
 * a time), and the other workers' progress from before its loads (they run meanwhile: a
 * flag written and counted during the iteration must make it run again) */
bool interp_sched_spin(ictx *X, const dinst *d, const imask *m)
{
    iwarp *w = current(X);
    if (w->spin_accesses == X->accesses) { /* no memory: it waits for nobody */
        w->spin_start = interp_progress_now(X->L);
        return !X->stop;
    }
    uint64_t h = warp_hash(X, w), writes = cluster_writes(X->cl) + w->spin_start;
    w->idle = w->site == d && w->spin_hash == h && w->spin_writes == writes;
    w->site = d;
    w->mask = m;
    w->spin_hash = h;
    w->spin_writes = writes;
    w->state = W_SPIN;
    isched *S = X->cl->sched;
    pthread_mutex_lock(&S->mu);
    pass(X->cl, S->cur);
    pthread_mutex_unlock(&S->mu);
    w->state = W_READY;
    w->spin_accesses = X->accesses;
    w->spin_start = interp_progress_now(X->L); /* the next iteration's loads come after */
    return !X->stop;
}

uint32_t interp_sched_live(ictx *X, const imask *m)
{
    uint32_t n = 0;
    for (uint32_t t = m->lo; t < m->hi; t++) n += !X->returned[t];
    return n;
}

bool interp_sched_exited(const ictx *X)
{
    return X->warps && X->ndone == X->nwarps;
}

void interp_sched_free(ictx *X)
{
    for (uint32_t i = 0; X->warps && i < X->nwarps; i++) free(X->warps[i].vc);
    free(X->warps);
    X->warps = NULL;
}

void interp_sched_cluster_free(icluster *C)
{
    isched *S = C->sched;
    if (S && S->go) {
        for (uint32_t i = 0; i < S->total; i++) pthread_cond_destroy(&S->go[i]);
        pthread_cond_destroy(&S->done);
        pthread_mutex_destroy(&S->mu);
    }
    if (S) free(S->go), free(S->th);
    free(S);
    C->sched = NULL;
}
