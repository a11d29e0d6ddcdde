/* Happens-before between the warps of a block (interp_internal.h says the model).  Stamps
 * come from one counter (X->epoch), so every interval of every warp has its own stamp and a
 * warp's stamps grow: an access stamped s by warp o is ordered before warp w's present
 * when w has acquired o's interval s or a later one.  Within one warp, lockstep orders
 * nothing between different threads: two of its accesses race unless a synchronization of
 * the warp (which moves its clock) lies between them. */
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

static uint32_t warp_of(const ictx *X, uint32_t t) { return t >= X->nthr ? X->nwarps : t / 32; }

uint32_t interp_hb_now(const ictx *X, uint32_t t)
{
    return X->warps ? X->warps[t / 32].clock : X->epoch;
}

bool interp_hb_concurrent_slow(const ictx *X, uint32_t stamp, uint32_t other, uint32_t t)
{
    if (stamp < X->block_epoch || other == SH_REMOTE) return false; /* an earlier block's; another
                                                                       block's (not checked) */
    const iwarp *w = &X->warps[t / 32];
    if (other == SH_MANY || other == SH_ATOMIC) /* several threads: after w's last sync, surely */
        return stamp >= w->clock;
    uint32_t o = warp_of(X, other);
    return o == t / 32 ? stamp == w->clock : stamp > w->vc[o];
}

uint32_t interp_hb_len(const ictx *X)
{
    return X->nwarps + 1 + (X->group ? interp_group_warps(X->group) : 0);
}

uint32_t *interp_hb_new_vc(ictx *X)
{
    uint32_t *vc = calloc(interp_hb_len(X), sizeof *vc);
    if (!vc) X->oom = X->stop = true;
    return vc;
}

static void join(uint32_t *into, const uint32_t *from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

void interp_hb_release(ictx *X, uint32_t t, uint32_t *vc)
{
    if (!X->warps || !vc) return;
    iwarp *w = &X->warps[t / 32];
    join(vc, w->vc, interp_hb_len(X));
    if (w->clock > vc[t / 32]) vc[t / 32] = w->clock;
    w->clock = ++X->epoch;
    if (X->group) interp_group_release(X, t, vc + X->nwarps + 1);
}

void interp_hb_acquire(ictx *X, uint32_t t, const uint32_t *vc)
{
    if (!X->warps || !vc) return;
    iwarp *w = &X->warps[t / 32];
    join(w->vc, vc, interp_hb_len(X));
    w->clock = ++X->epoch;
}

uint32_t interp_hb_async_stamp(ictx *X)
{
    return X->warps ? ++X->epoch : X->epoch;
}
