/* Several devices in one interpreter (cute_call_peers, cutec/peer.h): the blocks of every
 * rank run together under one warp scheduler, so a rank may wait for another's flag, and
 * happens-before reaches across them.  Each warp of the group has a group clock; a release
 * (st.release.sys of a flag, and every barrier arrival, hb.c) publishes the warp's view of
 * the group's clocks, an acquire (ld.acquire.sys of the flag) joins it.  Every byte of the
 * launch's buffers remembers its last plain writer and that writer's group interval; a load
 * of bytes another rank wrote, whose interval the loading warp has not acquired, is a race:
 * the tile was read before the signal that publishes it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "interp/peers.h"

enum { SHADOW_LIMIT = 16 << 20 }; /* bytes of buffers a group shadows at most (16 bytes of shadow each) */

static void join(uint32_t *into, const uint32_t *from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

static int by_base(const void *a, const void *b)
{
    const ipbuf *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* every rank's buffers once each, by base, with a shadow each (unless too large) */
static bool gather_buffers(igroup *G)
{
    int n = 0;
    for (int r = 0; r < G->nranks; r++) n += G->L[r]->nbufs;
    if (!(G->bufs = calloc((size_t)n + 1, sizeof *G->bufs))) return false;
    for (int r = 0; r < G->nranks; r++)
        for (int i = 0; i < G->L[r]->nbufs; i++) {
            const ibuf *b = &G->L[r]->bufs[i];
            bool seen = false;
            for (int k = 0; k < G->nbufs && !seen; k++) seen = G->bufs[k].base == b->base;
            if (!seen) G->bufs[G->nbufs++] = (ipbuf){b->base, b->bytes, b->id, b->param, NULL};
        }
    qsort(G->bufs, (size_t)G->nbufs, sizeof *G->bufs, by_base);
    uint64_t total = 0;
    for (int k = 0; k < G->nbufs; k++) total += G->bufs[k].bytes;
    G->shadowed = total <= SHADOW_LIMIT;
    for (int k = 0; G->shadowed && k < G->nbufs; k++)
        if (!(G->bufs[k].sh = calloc(G->bufs[k].bytes + 1, sizeof *G->bufs[k].sh))) return false;
    return true;
}

igroup *interp_group_new(int nranks, ilaunch **L, uint32_t nwarps)
{
    igroup *G = calloc(1, sizeof *G);
    if (!G) return NULL;
    G->nranks = nranks;
    G->L = L;
    G->nwarps = nwarps;
    G->rank_warps = (uint32_t)L[0]->nblocks * nwarps;
    G->warps = G->rank_warps * (uint32_t)nranks;
    if (!gather_buffers(G)) {
        interp_group_free(G);
        return NULL;
    }
    return G;
}

void interp_group_free(igroup *G)
{
    if (!G) return;
    for (int k = 0; k < G->nbufs; k++) free(G->bufs[k].sh);
    for (int i = 0; i < G->nflags; i++) free(G->flags[i].gvc);
    free(G->bufs), free(G->flags), free(G);
}

uint32_t interp_group_warps(const igroup *G) { return G->warps; }
uint32_t interp_group_tick(igroup *G) { return ++G->epoch; }

static uint32_t *group_view(const ictx *X, uint32_t t) { return X->warps[t / 32].vc + interp_hb_group_at(X); }

void interp_group_release(ictx *X, uint32_t t, uint32_t *gvc)
{
    iwarp *w = &X->warps[t / 32];
    uint32_t me = X->gwarp0 + t / 32;
    if (w->gclock > gvc[me]) gvc[me] = w->gclock;
    w->gclock = interp_group_tick(X->group);
}

static const ipbuf *find(const igroup *G, uint64_t addr)
{
    for (int k = 0; k < G->nbufs; k++)
        if (addr >= G->bufs[k].base && addr < G->bufs[k].base + G->bufs[k].bytes) return &G->bufs[k];
    return NULL;
}

/* the flag at addr (made when `make`), or NULL */
static iflag *flag_at(igroup *G, uint64_t addr, bool make)
{
    for (int i = 0; i < G->nflags; i++)
        if (G->flags[i].addr == addr) return &G->flags[i];
    if (!make) return NULL;
    if (G->nflags == G->cflags) {
        int nc = G->cflags ? 2 * G->cflags : 8;
        iflag *p = realloc(G->flags, (size_t)nc * sizeof *p);
        if (!p) return NULL;
        G->flags = p, G->cflags = nc;
    }
    iflag *f = &G->flags[G->nflags];
    *f = (iflag){addr, calloc(G->warps, sizeof *f->gvc), 0, NULL};
    if (!f->gvc) return NULL;
    return &G->flags[G->nflags++];
}

/* --- the race check ------------------------------------------------------------------------ */

static void writer_text(const igroup *G, const ipshadow *s, const iprog *P, char *buf, size_t n)
{
    uint32_t o = s->gw - 1, r = o / G->rank_warps, blin = o % G->rank_warps / G->nwarps;
    const ilaunch *L = G->L[r];
    char site[160];
    snprintf(buf, n, "stored by rank %u block (%u,%u,%u) thread (%u,%u,%u) at %s", r,
             blin % L->grid.x, blin / L->grid.x % L->grid.y, blin / L->grid.x / L->grid.y,
             L->tid[0][s->tid], L->tid[1][s->tid], L->tid[2][s->tid],
             interp_site(&P->code[s->inst], site, sizeof site));
}

static void race(ictx *X, const dinst *d, uint32_t t, const ipbuf *b, uint64_t off, uint32_t bytes,
                 const ipshadow *s)
{
    char who[200], flags[120];
    writer_text(X->group, s, X->P, who, sizeof who);
    interp_peer_flag_text(X, X->warps[t / 32].flag, flags, sizeof flags);
    interp_report(X, d, t, CUTE_CHECK_PEER_RACE, b->id, (int64_t)off, bytes,
                  "read of bytes [%" PRIu64 ",%" PRIu64 ") of buffer %" PRIu64 " (%s) %s; warp %u "
                  "acquired no release since (%s)", off, off + bytes, b->id, b->param ? b->param : "?",
                  who, t / 32, flags[0] ? flags : "it read no flag");
}

void interp_peer_access(ictx *X, const dinst *d, uint32_t t, uint64_t addr, uint32_t bytes, int how)
{
    igroup *G = X->group;
    const ipbuf *b = find(G, addr);
    if (!b || !b->sh || addr + bytes > b->base + b->bytes) return;
    uint64_t off = addr - b->base;
    if (how == 1) {
        ipshadow w = {X->gwarp0 + t / 32 + 1, X->warps[t / 32].gclock, (uint32_t)(d - X->P->code), (uint16_t)t};
        for (uint32_t i = 0; i < bytes; i++) b->sh[off + i] = w;
        return;
    }
    const uint32_t *seen = group_view(X, t);
    for (uint32_t i = 0; i < bytes; i++) {
        const ipshadow *s = &b->sh[off + i];
        if (!s->gw || (s->gw - 1) / G->rank_warps == X->grank || seen[s->gw - 1] >= s->stamp) continue;
        if (checking(X, CUTE_CHECK_PEER_RACE)) race(X, d, t, b, off, bytes, s);
        return;
    }
}

void interp_peer_flag_text(const ictx *X, uint64_t addr, char *buf, size_t n)
{
    const igroup *G = X->group;
    const iflag *f = G ? flag_at((igroup *)G, addr, false) : NULL;
    buf[0] = 0;
    if (!f) return;
    const ipbuf *b = find(G, f->addr);
    uint32_t v;
    memcpy(&v, (const void *)(uintptr_t)f->addr, 4);
    char from[48] = "never released in this launch";
    if (f->gw) snprintf(from, sizeof from, "released by rank %u", (f->gw - 1) / G->rank_warps);
    snprintf(buf, n, "flag %" PRIu64 ":%" PRIu64 " (buffer:byte) = %u, %s", b ? b->id : 0,
             b ? f->addr - b->base : 0, v, from);
}

/* --- st.release.sys / ld.acquire.sys ------------------------------------------------------ */

static void release(ictx *X, const dinst *d, uint32_t t, uint64_t addr)
{
    igroup *G = X->group;
    iflag *f = G ? flag_at(G, addr, true) : NULL;
    if (G && !f) {
        X->oom = X->stop = true;
        return;
    }
    if (!f) return;
    join(f->gvc, group_view(X, t), G->warps);
    interp_group_release(X, t, f->gvc);
    f->gw = X->gwarp0 + t / 32 + 1;
    f->site = d;
}

void inst_peer_flag(ictx *X, const dinst *d, const imask *m)
{
    bool store = d->row->flag;
    uint32_t k = store ? 0 : 1; /* the address: in[0], after the load's output */
    EACH(X, m, t, {
        uint64_t addr = REG(X, d->var[k])[t].u64;
        if (store) { /* how 2: synchronization, not data (no race log, no shadow) */
            if (!interp_gcheck(X, d, t, addr, 4, 4, 2)) continue;
            if (X->warps) release(X, d, t, addr);
            uint32_t v = interp_get32(X, d, 1, t);
            memcpy((void *)(uintptr_t)addr, &v, 4);
        } else {
            if (!interp_gcheck(X, d, t, addr, 4, 4, 3)) continue;
            uint32_t v;
            memcpy(&v, (const void *)(uintptr_t)addr, 4);
            interp_put32(X, d, 0, t, v);
            iflag *f = X->group && X->warps ? flag_at(X->group, addr, true) : NULL; /* known for reports */
            if (f) join(group_view(X, t), f->gvc, X->group->warps), X->warps[t / 32].flag = addr;
        }
    });
}
