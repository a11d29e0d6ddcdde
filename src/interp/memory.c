/* Memory checks: bounds, alignment, uninitialized shared memory, races.
 *
 * Global memory: a pointer is a host address; an access must lie inside one buffer of the
 * launch (buffers sit between guard gaps, so a small overrun never lands in a neighbour).
 * Races in global memory are found per barrier interval: each access is logged (buffer,
 * offset, thread, instruction) and, at the next barrier or the block's end, the writes of
 * each buffer are sorted and every access is looked up among them.
 *
 * Shared memory: a pointer is a byte offset; each byte has a shadow holding the barrier
 * interval ("epoch") and thread of its last write and of its reads in the current
 * interval, so an uninitialized read (no write since the block began) and a race (another
 * thread's write, or a write after another thread's read, in the same interval) are found
 * at the access itself; so is an access to bytes an asynchronous copy has yet to land
 * (inst_async.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

/* how: 0 read, 1 write, 2 atomic (or a flag's release), 3 a flag's acquire (a read) */
static const char *how_name(int how) { return how == 0 || how == 3 ? "read" : how == 1 ? "write" : "atomic"; }

/* --- global bounds ------------------------------------------------------------------------ */

static bool inside(const ibuf *b, uint64_t addr, uint32_t bytes)
{
    return addr >= b->base && addr - b->base <= b->bytes && bytes <= b->bytes - (addr - b->base);
}

static const ibuf *find_buf(const ilaunch *L, uint64_t addr, uint32_t bytes)
{
    int lo = 0, hi = L->nbufs; /* the last buffer whose base <= addr */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (L->bufs[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && inside(&L->bufs[lo - 1], addr, bytes)) return &L->bufs[lo - 1];
    return NULL;
}

/* how far [addr, addr+bytes) is from b: 0 when it overlaps */
static uint64_t distance(const ibuf *b, uint64_t addr, uint32_t bytes)
{
    if (addr + bytes <= b->base) return b->base - addr;
    if (addr >= b->base + b->bytes) return addr - (b->base + b->bytes);
    return 0;
}

static void bounds_report(ictx *X, const dinst *d, uint32_t t, uint64_t addr, uint32_t bytes,
                          int how)
{
    const ilaunch *L = X->L;
    const char *what = how_name(how);
    if (addr < 4096) {
        interp_report(X, d, t, CUTE_CHECK_GLOBAL_BOUNDS, 0, (int64_t)addr, bytes,
                      "out-of-bounds global %s of %u bytes at a null pointer (+%" PRIu64 ")",
                      what, bytes, addr);
        return;
    }
    /* a live buffer that is not an argument of this launch? */
    uint64_t other = interp_backend_buffer_at(L->B, addr);
    const ibuf *near = NULL;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < L->nbufs; i++) {
        uint64_t dist = distance(&L->bufs[i], addr, bytes);
        if (dist < best) best = dist, near = &L->bufs[i];
    }
    char where[160] = "";
    if (near) {
        int64_t off = (int64_t)(addr - near->base);
        const char *p = near->param ? near->param : "?";
        if (addr < near->base)
            snprintf(where, sizeof where, "%" PRIu64 " bytes before the start of buffer %" PRIu64
                     " (parameter %s, %" PRIu64 " bytes)", near->base - addr, near->id, p,
                     near->bytes);
        else
            snprintf(where, sizeof where, "bytes [%" PRId64 ",%" PRId64 ") of buffer %" PRIu64
                     " (parameter %s, %" PRIu64 " bytes), %" PRIu64 " past its end", off,
                     off + (int64_t)bytes, near->id, p, near->bytes,
                     addr + bytes - (near->base + near->bytes));
    }
    if (other)
        interp_report(X, d, t, CUTE_CHECK_GLOBAL_BOUNDS, other, 0, bytes,
                      "global %s of %u bytes inside buffer %" PRIu64
                      ", which is not an argument of this launch (nearest argument: %s)",
                      what, bytes, other, near ? where : "none");
    else
        interp_report(X, d, t, CUTE_CHECK_GLOBAL_BOUNDS, near ? near->id : 0,
                      near ? (int64_t)(addr - near->base) : 0, bytes,
                      "out-of-bounds global %s of %u bytes: %s", what, bytes,
                      near ? where : "the launch has no buffers");
}

static void log_access(ictx *X, const ibuf *b, const dinst *d, uint32_t t, uint64_t addr,
                       uint32_t bytes, bool write)
{
    glog *g = &X->glogs[b - X->L->bufs];
    if (g->full) return;
    gacc **arr = write ? &g->w : &g->r;
    uint32_t *n = write ? &g->nw : &g->nr, *cap = write ? &g->cw : &g->cr;
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 1024;
        gacc *p = nc <= (1u << 24) ? realloc(*arr, nc * sizeof *p) : NULL;
        if (!p) { /* too many accesses in one barrier interval: stop checking them */
            g->full = true;
            return;
        }
        *arr = p;
        *cap = nc;
    }
    (*arr)[(*n)++] = (gacc){addr - b->base, X->seq++, interp_hb_now(X, t), (uint32_t)(d - X->P->code),
                            (uint16_t)t, (uint8_t)bytes, write};
}

const ibuf *interp_gcheck(ictx *X, const dinst *d, uint32_t t, uint64_t addr, uint32_t bytes,
                          uint32_t align, int how)
{
    const ilaunch *L = X->L;
    uint32_t idx = (uint32_t)(d - X->P->code);
    uint16_t c = X->bufcache[idx];
    const ibuf *b = c < L->nbufs && inside(&L->bufs[c], addr, bytes) ? &L->bufs[c] : NULL;
    if (!b) {
        b = find_buf(L, addr, bytes);
        if (!b) { /* never touch memory outside the buffers, checked or not */
            if (checking(X, CUTE_CHECK_GLOBAL_BOUNDS)) bounds_report(X, d, t, addr, bytes, how);
            return NULL;
        }
        X->bufcache[idx] = (uint16_t)(b - L->bufs);
    }
    if (align > 1 && (addr & (align - 1)) && checking(X, CUTE_CHECK_MISALIGNED))
        interp_report(X, d, t, CUTE_CHECK_MISALIGNED, b->id, (int64_t)(addr - b->base), bytes,
                      "misaligned global %s of %u bytes: offset %" PRIu64 " of buffer %" PRIu64
                      " is not a multiple of %u", how_name(how), bytes, addr - b->base, b->id,
                      align);
    if (how < 2 && checking(X, CUTE_CHECK_GLOBAL_RACE)) log_access(X, b, d, t, addr, bytes, how == 1);
    if (how < 2 && X->group) interp_peer_access(X, d, t, addr, bytes, how);
    X->writes += how == 1 || how == 2;
    X->accesses++;
    return b;
}

/* --- shared memory -------------------------------------------------------------------------- */

/* (owner: "" in the block's own shared memory, else which block's) */
static void race_report(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes, int how,
                        uint32_t other, bool other_wrote, uint32_t other_inst, const char *owner)
{
    cute_dim3 o;
    char site[160];
    const dinst *od = &X->P->code[other_inst];
    interp_site(od, site, sizeof site);
    if (other == SH_ATOMIC) {
        interp_report(X, d, t, CUTE_CHECK_SHARED_RACE, 0, (int64_t)off, bytes,
                      "shared-memory race on bytes [%" PRIu64 ",%" PRIu64 ")%s: a %s here, and "
                      "atomic updates by other threads at %s, with no barrier between",
                      off, off + bytes, owner, how_name(how), site);
        return;
    }
    if (other == HB_PROXY(X)) {
        interp_report(X, d, t, CUTE_CHECK_SHARED_RACE, 0, (int64_t)off, bytes,
                      "shared-memory race on bytes [%" PRIu64 ",%" PRIu64 ")%s: a %s here of what "
                      "the asynchronous copy at %s wrote, not waited for (no wait on the "
                      "mbarrier phase it completes on)",
                      off, off + bytes, owner, how_name(how), site);
        return;
    }
    if (other == SH_MANY) {
        interp_report(X, d, t, CUTE_CHECK_SHARED_RACE, 0, (int64_t)off, bytes,
                      "shared-memory race on bytes [%" PRIu64 ",%" PRIu64 ")%s: a write here, "
                      "after other threads read them at %s, with no barrier between",
                      off, off + bytes, owner, site);
        return;
    }
    char block[64] = "";
    if (SH_IS_PEER(other)) {
        const ictx *W = &X->cl->blk[SH_PEER_RANK(other)];
        snprintf(block, sizeof block, " of block (%u,%u,%u) (cluster rank %u)", W->ctaid[0],
                 W->ctaid[1], W->ctaid[2], W->rank);
        other = SH_PEER_TID(other);
    }
    interp_thread_dim3(X, other, &o);
    interp_report(X, d, t, CUTE_CHECK_SHARED_RACE, 0, (int64_t)off, bytes,
                  "shared-memory race on bytes [%" PRIu64 ",%" PRIu64 ")%s: a %s here, and "
                  "thread (%u,%u,%u)%s %s them at %s, with no barrier between",
                  off, off + bytes, owner, how_name(how), o.x, o.y, o.z, block,
                  other_wrote ? "wrote" : "read", site);
}

/* the bytes' last write belongs to the present run of the block that made it (Y's own
 * threads and proxy, or another block of the cluster, SH_PEER) */
static bool written(const ictx *Y, const sshadow *s)
{
    const ictx *W = SH_IS_PEER(s->writer) ? &Y->cl->blk[SH_PEER_RANK(s->writer)] : Y;
    return s->w_epoch >= W->block_epoch;
}

bool interp_sbounds(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                    uint32_t align, int how)
{
    uint64_t size = X->L->smem;
    if (off > size || bytes > size - off) {
        if (checking(X, CUTE_CHECK_SHARED_BOUNDS))
            interp_report(X, d, t, CUTE_CHECK_SHARED_BOUNDS, 0, (int64_t)off, bytes,
                          "out-of-bounds shared %s of %u bytes at offset %" PRId64
                          ": the kernel has %" PRIu64 " bytes of shared memory",
                          how_name(how), bytes, (int64_t)off, size);
        return false;
    }
    if (align > 1 && (off & (align - 1)) && checking(X, CUTE_CHECK_MISALIGNED))
        interp_report(X, d, t, CUTE_CHECK_MISALIGNED, 0, (int64_t)off, bytes,
                      "misaligned shared %s of %u bytes: offset %" PRIu64
                      " is not a multiple of %u", how_name(how), bytes, off, align);
    return true;
}

/* a shared access of [off, off+bytes) by d meets a cp.async copy that has not landed */
static bool async_conflict(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                           int how)
{
    const icopy *c = NULL;
    for (uint32_t i = 0; i < X->ncopies && !c; i++)
        if (X->copies[i].dst < off + bytes && off < X->copies[i].dst + X->copies[i].bytes)
            c = &X->copies[i];
    if (!c) return true;
    char site[160];
    cute_dim3 o;
    interp_site(c->site, site, sizeof site);
    interp_thread_dim3(X, c->tid, &o);
    return interp_report(X, d, t, CUTE_CHECK_ASYNC_COPY, 0, (int64_t)off, bytes,
                         "%s of shared bytes [%" PRIu64 ",%" PRIu64 ") before the cp.async that "
                         "writes them landed: thread (%u,%u,%u) issued it at %s, and no "
                         "cp.async.wait_group covering it ran since",
                         how == 0 ? "read" : "write", off, off + bytes, o.x, o.y, o.z, site);
}

/* a copy still in flight writes one of the bytes: the access comes before its wait */
static bool async_pending(ictx *X, uint64_t off, uint32_t bytes)
{
    if (!X->pending) return false;
    for (uint32_t i = 0; i < bytes; i++)
        if (X->pending[off + i]) return true;
    return false;
}

bool interp_scheck(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                   uint32_t align, int how)
{
    if (!interp_sbounds(X, d, t, off, bytes, align, how)) return false;
    if (X->ncopies && async_pending(X, off, bytes) && checking(X, CUTE_CHECK_ASYNC_COPY))
        async_conflict(X, d, t, off, bytes, how);
    if (X->nareads && how != 0 && checking(X, CUTE_CHECK_ASYNC_COPY)) interp_async_read_conflict(X, d, t, off, bytes);
    bool uninit = how != 1 && checking(X, CUTE_CHECK_UNINIT_SHARED);
    bool race = checking(X, CUTE_CHECK_SHARED_RACE);
    uint32_t idx = (uint32_t)(d - X->P->code), ep = interp_hb_now(X, t);
    uint16_t me = (uint16_t)t;
    X->writes += how != 0;
    X->accesses++;
    for (uint32_t i = 0; i < bytes; i++) {
        sshadow *s = &X->shadow[off + i];
        if (uninit && !written(X, s)) {
            interp_report(X, d, t, CUTE_CHECK_UNINIT_SHARED, 0, (int64_t)(off + i), bytes,
                          "read of uninitialized shared memory: byte %" PRIu64
                          " was not written by this block", off + i);
            uninit = false;
        }
        if (race && how != 2) {
            if (s->writer != me && interp_hb_concurrent(X, s->w_epoch, s->writer, t)) {
                race_report(X, d, t, off, bytes, how, s->writer, true, s->w_inst, "");
                race = false;
            } else if (how == 1 && s->reader != me && interp_hb_concurrent(X, s->r_epoch, s->reader, t)) {
                race_report(X, d, t, off, bytes, how, s->reader, false, s->r_inst, "");
                race = false;
            }
        }
        if (how == 0) {
            if (s->r_epoch != ep || SH_IS_PEER(s->reader)) /* (a peer's stamp is not X's) */
                s->r_epoch = ep, s->reader = me, s->r_inst = idx;
            else if (s->reader != me)
                s->reader = SH_MANY;
        } else {
            s->w_epoch = ep;
            s->writer = how == 2 ? SH_ATOMIC : me;
            s->w_inst = idx;
            s->w_fences = interp_proxy_fences(X, t);
        }
    }
    return true;
}

/* a race of thread t of X's access (how) with the last accesses s records in Y's memory */
static bool remote_race(ictx *X, ictx *Y, uint32_t t, const sshadow *s, uint16_t me, int how, bool *wrote)
{
    if (how == 2) return false; /* atomics among themselves: not races */
    if (s->writer != me && interp_hb_concurrent_slow(X, Y, s->w_epoch, s->writer, t)) return *wrote = true;
    return how == 1 && s->reader != me && interp_hb_concurrent_slow(X, Y, s->r_epoch, s->reader, t);
}

bool interp_remote_access(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                          uint32_t align, int how)
{
    if (!interp_sbounds(X, d, t, off, bytes, align, how)) return false; /* Y's size is X's */
    X->accesses++;
    Y->writes += how != 0;
    uint32_t idx = (uint32_t)(d - X->P->code), ep = interp_hb_now(X, t);
    uint16_t me = SH_PEER(X->rank, t);
    bool race = checking(X, CUTE_CHECK_SHARED_RACE), wrote = false;
    for (uint32_t i = 0; i < bytes; i++) {
        sshadow *s = &Y->shadow[off + i];
        if (how == 0 && !written(Y, s) && checking(X, CUTE_CHECK_UNINIT_SHARED))
            return interp_report(X, d, t, CUTE_CHECK_UNINIT_SHARED, 0, (int64_t)(off + i), bytes,
                                 "read of uninitialized shared memory: byte %" PRIu64 " of the "
                                 "cluster's block %u was not written by it", off + i, Y->rank);
        if (race && remote_race(X, Y, t, s, me, how, &wrote)) {
            char owner[64];
            snprintf(owner, sizeof owner, " of the cluster's block %u (distributed shared memory)", Y->rank);
            uint32_t other = wrote ? s->writer : s->reader;
            if (other < Y->nthr) other = SH_PEER(Y->rank, other); /* one of Y's own threads */
            race_report(X, d, t, off, bytes, how, other, wrote, wrote ? s->w_inst : s->r_inst, owner);
            race = false;
        }
        if (how == 0)
            s->r_epoch = ep, s->reader = me, s->r_inst = idx;
        else /* (an atomic too: SH_ATOMIC's stamps are the owner's) */
            s->w_epoch = ep, s->writer = me, s->w_inst = idx;
    }
    return true;
}

bool interp_async_proxy_write(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                              uint32_t stamp)
{
    if (!interp_scheck(X, d, t, off, bytes, 1, 1)) return false;
    for (uint32_t i = 0; i < bytes; i++) {
        sshadow *s = &X->shadow[off + i];
        s->w_epoch = stamp;
        s->writer = (uint16_t)HB_PROXY(X);
    }
    return true;
}

/* --- global races, at the end of a barrier interval ----------------------------------------- */

static int by_offset(const void *a, const void *b)
{
    const gacc *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void global_race(ictx *X, const ibuf *b, const gacc *x, const gacc *y)
{
    if (x->seq > y->seq) {
        const gacc *s = x;
        x = y, y = s;
    }
    /* y is the later access: the report is its */
    const dinst *dy = &X->P->code[y->inst], *dx = &X->P->code[x->inst];
    char site[160];
    cute_dim3 o;
    interp_site(dx, site, sizeof site);
    interp_thread_dim3(X, x->tid, &o);
    uint64_t lo = x->off > y->off ? x->off : y->off;
    interp_report(X, dy, y->tid, CUTE_CHECK_GLOBAL_RACE, b->id, (int64_t)y->off, y->bytes,
                  "global-memory race in buffer %" PRIu64 " (parameter %s) at offset %" PRIu64
                  ": a %s here, and thread (%u,%u,%u) %s it at %s, with no barrier between",
                  b->id, b->param ? b->param : "?", lo, y->write ? "write" : "read", o.x, o.y,
                  o.z, x->write ? "wrote" : "read", site);
}

static bool overlap(const gacc *x, const gacc *y)
{
    return x->off < y->off + y->bytes && y->off < x->off + x->bytes;
}

/* two accesses of one barrier interval by different threads: unordered, in lockstep.  Under
 * the warp scheduler, warps also order each other through mbarriers and named barriers,
 * which these logs do not see: only two threads of one warp are surely unordered, and only
 * when no synchronization of their warp (a named barrier, an mbarrier wait) came between. */
static bool unordered(const ictx *X, const gacc *x, const gacc *y)
{
    if (x->tid == y->tid) return false;
    return !X->warps || (x->tid / 32 == y->tid / 32 && x->stamp == y->stamp);
}

static void sweep(ictx *X, const ibuf *b, glog *g)
{
    qsort(g->w, g->nw, sizeof *g->w, by_offset);
    for (uint32_t i = 0; i < g->nw && !X->stop; i++)
        for (uint32_t j = i + 1; j < g->nw && g->w[j].off < g->w[i].off + g->w[i].bytes; j++)
            if (unordered(X, &g->w[j], &g->w[i])) {
                global_race(X, b, &g->w[i], &g->w[j]);
                break;
            }
    for (uint32_t k = 0; k < g->nr && !X->stop; k++) {
        const gacc *r = &g->r[k];
        uint64_t from = r->off > 16 ? r->off - 16 : 0;
        uint32_t lo = 0, hi = g->nw; /* the first write at or after `from` */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (g->w[mid].off < from)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t j = lo; j < g->nw && g->w[j].off < r->off + r->bytes; j++)
            if (unordered(X, &g->w[j], r) && overlap(&g->w[j], r)) {
                global_race(X, b, &g->w[j], r);
                break;
            }
    }
}

void interp_race_epoch_end(ictx *X)
{
    if (!X->glogs) return;
    for (int i = 0; i < X->L->nbufs; i++) {
        glog *g = &X->glogs[i];
        if (g->nw && !X->stop) sweep(X, &X->L->bufs[i], g);
        g->nr = g->nw = 0;
        g->full = false;
    }
}
