/* Happens-before between the warps of a cluster's blocks (interp_internal.h says the model).
 * A block's stamps come from one counter (X->epoch), so every interval of every warp has its
 * own stamp and a warp's stamps grow; a vector clock has a slot for each warp (and the async
 * proxy) of each block of the cluster, so an access of distributed shared memory is ordered
 * like a block's own: an access stamped s by warp o is ordered before warp w's present
 * when w has acquired o's interval s or a later one.  Within one warp, lockstep orders
 * nothing between different threads: two of its accesses race unless a synchronization of
 * the warp (which moves its clock) lies between them. */
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

/* entries of a vector clock: nwarps + 1 for each block of the cluster */
static uint32_t vc_len(const ictx *X) { return X->cl->n * (X->nwarps + 1); }

uint32_t interp_hb_slot(const ictx *X, uint32_t t)
{
    return X->rank * (X->nwarps + 1) + (t >= X->nthr ? X->nwarps : t / 32);
}

uint32_t interp_hb_now(const ictx *X, uint32_t t)
{
    return X->warps ? X->warps[t / 32].clock : X->epoch;
}

/* Stamps of another block of the cluster come from its own counter: they are compared only
 * with that block's slots (a warp of it released them) and its block_epoch. */
bool interp_hb_concurrent_slow(const ictx *X, const ictx *owner, uint32_t stamp, uint32_t other, uint32_t t)
{
    const ictx *W = owner; /* the block whose stamp it is */
    if (SH_IS_PEER(other)) {
        W = &X->cl->blk[SH_PEER_RANK(other)];
        other = SH_PEER_TID(other);
    }
    if (stamp < W->block_epoch) return false; /* an earlier block's */
    const iwarp *w = &X->warps[t / 32];
    if (other == SH_MANY || other == SH_ATOMIC) /* several threads: after w's last sync, surely */
        return W == X && stamp >= w->clock;   /* (several of another block's: not checked) */
    if (W == X && other < X->nthr && other / 32 == t / 32) return stamp == w->clock;
    return stamp > w->vc[interp_hb_slot(W, other)];
}

uint32_t *interp_hb_new_vc(ictx *X)
{
    uint32_t *vc = calloc(vc_len(X), sizeof *vc);
    if (!vc) X->oom = X->stop = true;
    return vc;
}

static void join(uint32_t *into, const uint32_t *from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

void interp_hb_join(const ictx *X, uint32_t *into, const uint32_t *from)
{
    if (into && from) join(into, from, vc_len(X));
}

void interp_hb_release(ictx *X, uint32_t t, uint32_t *vc)
{
    if (!X->warps || !vc) return;
    iwarp *w = &X->warps[t / 32];
    uint32_t me = interp_hb_slot(X, t);
    join(vc, w->vc, vc_len(X));
    if (w->clock > vc[me]) vc[me] = w->clock;
    w->clock = ++X->epoch;
}

void interp_hb_acquire(ictx *X, uint32_t t, const uint32_t *vc)
{
    if (!X->warps || !vc) return;
    iwarp *w = &X->warps[t / 32];
    join(w->vc, vc, vc_len(X));
    w->clock = ++X->epoch;
}

uint32_t interp_hb_async_stamp(ictx *X)
{
    return X->warps ? ++X->epoch : X->epoch;
}
