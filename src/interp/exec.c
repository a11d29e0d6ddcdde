/* Running a block: the threads in lockstep through structured control flow (all of the
 * block's at once, or one warp's under the warp scheduler, sched.c).
 *
 * interp_exec runs code[lo, hi) for the threads of mask m and leaves in m the threads that
 * fall through to what follows: BREAK and RETURN take threads out of the current mask (a
 * RETURN also marks them returned for good), an IF runs its then-body for the active
 * threads whose condition holds and its else-body for the rest and continues with what is
 * left of both, and a loop continues, once it ends, with the threads that entered it and did
 * not return (those that broke out rejoin there).  Loop bounds, conditions and the number of
 * iterations may differ per thread: an iteration runs for the threads still in the loop. */
#include <inttypes.h>
#include <string.h>

#include "interp/interp_internal.h"

static void rejoin(ictx *X, const uint8_t *entry, imask *m)
{
    uint32_t c = 0;
    for (uint32_t t = m->lo; t < m->hi; t++) c += m->on[t] = entry[t] & !X->returned[t];
    m->n = c;
}

static uint32_t first_on(const imask *m)
{
    for (uint32_t t = m->lo; t < m->hi; t++)
        if (m->on[t]) return t;
    return m->lo;
}

static bool step(ictx *X, const dinst *d, const imask *m)
{
    if (++X->steps <= X->L->budget) return true;
    interp_report(X, d, first_on(m), CUTE_CHECK_STEP_BUDGET, 0, 0, 0,
                  "the block ran more than %" PRId64 " loop iterations (the step budget: "
                  "cute_interp_opts.step_budget or CUTEC_INTERP_STEPS)", X->L->budget);
    X->stop = true;
    return false;
}

static void exec_if(ictx *X, const dinst *d, uint32_t i, imask *m)
{
    uint8_t *th = MBUF(X, d->depth, 0), *el = MBUF(X, d->depth, 1);
    const islot *C = REG(X, d->a[0]);
    uint32_t ct = 0, ce = 0;
    for (uint32_t t = m->lo; t < m->hi; t++) {
        uint8_t on = m->on[t], c = C[t].u8 & on;
        th[t] = c;
        el[t] = on & !c;
        ct += c;
    }
    ce = m->n - ct;
    if (X->trace_t >= 0 && m->on[X->trace_t])
        interp_trace_ctl(X, d, th[X->trace_t] ? "then" : "else");
    imask mt = {th, ct, m->lo, m->hi}, me = {el, ce, m->lo, m->hi};
    if (ct) interp_exec(X, i + 1, d->mid, &mt);
    if (ce && d->mid < d->end) interp_exec(X, d->mid, d->end, &me);
    uint32_t c = 0;
    for (uint32_t t = m->lo; t < m->hi; t++) c += m->on[t] = th[t] | el[t];
    m->n = c;
}

/* live[t] &= var < hi (var > hi for a negative step); the count of those left */
#define FOR_COND(M)                                                                      \
    for (uint32_t t = lo; t < n; t++)                                                    \
        if (live[t]) {                                                                   \
            uint8_t in = up ? V[t].M < H[t].M : V[t].M > H[t].M;                         \
            live[t] = in;                                                                \
            c += in;                                                                     \
        }
#define FOR_STEP(M, T, W)                                                                \
    for (uint32_t t = lo; t < n; t++)                                                    \
        if (live[t]) V[t].M = (T)((W)V[t].M + (W)st);

static uint32_t for_cond(const dinst *d, islot *V, const islot *H, uint8_t *live, uint32_t lo,
                         uint32_t n)
{
    uint32_t c = 0;
    bool up = d->imm2 > 0;
    switch (d->dt) {
    case CUTE_I8: FOR_COND(i8) break;
    case CUTE_I16: FOR_COND(i16) break;
    case CUTE_I32: FOR_COND(i32) break;
    case CUTE_I64: FOR_COND(i64) break;
    case CUTE_U8: FOR_COND(u8) break;
    case CUTE_U16: FOR_COND(u16) break;
    case CUTE_U32: FOR_COND(u32) break;
    default: FOR_COND(u64) break;
    }
    return c;
}

static void for_step(const dinst *d, islot *V, const uint8_t *live, uint32_t lo, uint32_t n)
{
    int64_t st = d->imm2;
    switch (d->dt) {
    case CUTE_I8: FOR_STEP(i8, int8_t, uint32_t) break;
    case CUTE_I16: FOR_STEP(i16, int16_t, uint32_t) break;
    case CUTE_I32: FOR_STEP(i32, int32_t, uint32_t) break;
    case CUTE_I64: FOR_STEP(i64, int64_t, uint64_t) break;
    case CUTE_U8: FOR_STEP(u8, uint8_t, uint32_t) break;
    case CUTE_U16: FOR_STEP(u16, uint16_t, uint32_t) break;
    case CUTE_U32: FOR_STEP(u32, uint32_t, uint32_t) break;
    default: FOR_STEP(u64, uint64_t, uint64_t) break;
    }
}

static void exec_for(ictx *X, const dinst *d, uint32_t i, imask *m)
{
    uint32_t lo = m->lo, n = m->hi;
    uint8_t *entry = MBUF(X, d->depth, 0), *live = MBUF(X, d->depth, 1);
    islot *V = REG(X, d->a[0]);
    const islot *LO = REG(X, d->a[1]), *H = REG(X, d->a[2]);
    memcpy(entry + lo, m->on + lo, n - lo);
    memcpy(live + lo, m->on + lo, n - lo);
    for (uint32_t t = lo; t < n; t++)
        if (live[t]) V[t] = LO[t];
    for (;;) {
        uint32_t c = for_cond(d, V, H, live, lo, n);
        if (!c || !step(X, d, m)) break;
        if (X->trace_t >= 0 && live[X->trace_t]) interp_trace_ctl(X, d, "iteration");
        imask it = {live, c, lo, n};
        interp_exec(X, i + 1, d->end, &it);
        if (X->stop || !it.n) break;
        for_step(d, V, live, lo, n);
    }
    rejoin(X, entry, m);
}

/* under the warp scheduler, each iteration of a while loop lets the other warps run: the
 * loop may be waiting for one of them (a spin on shared memory) */
static void exec_while(ictx *X, const dinst *d, uint32_t i, imask *m)
{
    uint32_t lo = m->lo, n = m->hi;
    uint8_t *entry = MBUF(X, d->depth, 0), *live = MBUF(X, d->depth, 1);
    const islot *C = REG(X, d->a[0]);
    memcpy(entry + lo, m->on + lo, n - lo);
    memcpy(live + lo, m->on + lo, n - lo);
    imask lm = {live, m->n, lo, n};
    for (;;) {
        interp_exec(X, i + 1, d->mid, &lm); /* the condition */
        if (X->stop) break;
        uint32_t c = 0;
        for (uint32_t t = lo; t < n; t++) c += live[t] = live[t] & C[t].u8;
        lm.n = c;
        if (!c || !step(X, d, m)) break;
        if (X->trace_t >= 0 && live[X->trace_t]) interp_trace_ctl(X, d, "iteration");
        interp_exec(X, d->mid, d->end, &lm);
        if (X->stop || !lm.n) break;
        if (X->warps && !interp_sched_spin(X, d, &lm)) break;
    }
    rejoin(X, entry, m);
}

/* the live threads of m's range that m lacks: a barrier reached by part of them */
static void divergent_barrier(ictx *X, const dinst *d, const imask *m, uint32_t live)
{
    uint32_t miss = m->lo;
    while (miss < m->hi && (m->on[miss] || X->returned[miss])) miss++;
    cute_dim3 o;
    interp_thread_dim3(X, miss, &o);
    interp_report(X, d, first_on(m), CUTE_CHECK_DIVERGENT_BARRIER, 0, 0, 0,
                  "barrier reached by %u of the %s %u live threads (thread (%u,%u,%u) does not "
                  "reach it)", m->n, X->warps ? "warp's" : "block's", live, o.x, o.y, o.z);
}

static void exec_barrier(ictx *X, const dinst *d, imask *m)
{
    uint32_t live = X->warps ? interp_sched_live(X, m) : X->nthr - X->nreturned;
    if (m->n != live && checking(X, CUTE_CHECK_DIVERGENT_BARRIER)) divergent_barrier(X, d, m, live);
    if (X->trace_t >= 0 && m->on[X->trace_t]) interp_trace_ctl(X, d, "");
    if (X->warps) {
        interp_sched_block_barrier(X, d, m);
        return;
    }
    interp_race_epoch_end(X);
    X->epoch++;
}

void interp_exec(ictx *X, uint32_t lo, uint32_t hi, imask *m)
{
    const dinst *code = X->P->code;
    uint32_t i = lo;
    while (i < hi && m->n && !X->stop) {
        const dinst *d = &code[i];
        X->dispatched++;
        switch (d->kind) {
        case K_OP:
            X->thread_ops += m->n;
            d->fn(X, d, m);
            if (X->trace_t >= 0 && m->on[X->trace_t]) interp_trace_op(X, d);
            i++;
            break;
        case K_IF: exec_if(X, d, i, m), i = d->end; break;
        case K_FOR: exec_for(X, d, i, m), i = d->end; break;
        case K_WHILE: exec_while(X, d, i, m), i = d->end; break;
        case K_BARRIER: exec_barrier(X, d, m), i++; break;
        case K_RETURN:
            for (uint32_t t = m->lo; t < m->hi; t++)
                if (m->on[t]) X->returned[t] = 1;
            X->nreturned += m->n;
            /* they leave like a break, for good */
            __attribute__((fallthrough));
        default: /* K_BREAK */
            if (X->trace_t >= 0 && m->on[X->trace_t]) interp_trace_ctl(X, d, "");
            memset(m->on + m->lo, 0, m->hi - m->lo);
            m->n = 0;
            break;
        }
    }
}

/* one warp's run under the scheduler */
static void run_warp(ictx *X, imask *m) { interp_exec(X, 0, X->P->ncode, m); }

static void block_start(ictx *X, uint64_t blin)
{
    const ilaunch *L = X->L;
    X->blin = blin;
    X->ctaid[0] = (uint32_t)(blin % L->grid.x);
    X->ctaid[1] = (uint32_t)(blin / L->grid.x % L->grid.y);
    X->ctaid[2] = (uint32_t)(blin / L->grid.x / L->grid.y);
    X->epoch++;
    X->block_epoch = X->epoch;
    X->steps = 0;
    X->stop = X->halted = false;
    X->nreps = 0;
    X->seq = 0;
    X->rng = L->try_wait_seed ^ (blin + 1) * 0x9e3779b97f4a7c15ull;
    X->nreturned = 0;
    memset(X->returned, 0, X->nthr);
    if (L->smem) memset(X->smem, 0, L->smem);
    X->trace_t = L->trace && blin == L->trace_block && L->trace_thread < X->nthr
                     ? (int64_t)L->trace_thread : -1;
    memset(X->top, 1, X->nthr);
}

static void block_finish(ictx *X)
{
    const ilaunch *L = X->L;
    interp_tmem_block_end(X);
    interp_mbarrier_block_end(X);
    interp_async_block_end(X);
    interp_async_read_block_end(X);
    if (X->bulk_groups) memset(X->bulk_groups, 0, X->nthr * sizeof *X->bulk_groups);
    if (X->wgmma_groups) memset(X->wgmma_groups, 0, X->nthr * sizeof *X->wgmma_groups);
    interp_proxy_block_end(X);
    if (!X->stop) interp_race_epoch_end(X);
    else if (X->glogs)
        for (int i = 0; i < L->nbufs; i++) X->glogs[i].nr = X->glogs[i].nw = 0;
}

/* a block of a kernel that waits for no other warp, alone in its cluster, runs in lockstep;
 * every other under the warp scheduler, with the other blocks of its cluster */
void interp_run_cluster(icluster *C, uint64_t cid)
{
    for (uint32_t r = 0; r < C->n; r++) block_start(&C->blk[r], interp_cluster_block_index(C->blk[0].L, cid, r));
    ictx *X = &C->blk[0];
    if (C->n == 1 && !X->P->needs_warps) {
        imask m = {X->top, X->nthr, 0, X->nthr};
        interp_exec(X, 0, X->P->ncode, &m);
    } else {
        for (uint32_t r = 0; r < C->n; r++) interp_sched_barriers_reset(&C->blk[r]);
        C->bar_arrived = 0;
        interp_sched_run(C, run_warp);
    }
    for (uint32_t r = 0; r < C->n; r++) block_finish(&C->blk[r]);
}

void interp_run_group(icluster *C, uint64_t nblocks)
{
    for (uint32_t i = 0; i < C->n; i++) {
        block_start(&C->blk[i], i % nblocks);
        interp_sched_barriers_reset(&C->blk[i]);
    }
    C->bar_arrived = 0;
    interp_sched_run(C, run_warp);
    for (uint32_t i = 0; i < C->n; i++) block_finish(&C->blk[i]);
}
