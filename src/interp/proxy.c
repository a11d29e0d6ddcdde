/* The generic and async proxies of shared memory (PTX ISA, "Proxies"): shared bytes a thread
 * stores through the generic proxy (st.shared, ...) are seen by the async proxy (wgmma's
 * operands) only after that thread's fence.proxy.async.  Each thread counts its fences;
 * each shared byte keeps its writer's count at the write (sshadow.w_fences), so a byte whose
 * writer has not fenced since is reported when the async proxy reads it.  (Ordering the
 * fence before the reader, by a barrier, is the race checker's part.) */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

void interp_proxy_fence(ictx *X, const imask *m)
{
    if (!X->proxy_fences && !(X->proxy_fences = calloc(X->nthr, sizeof *X->proxy_fences))) {
        X->oom = X->stop = true;
        return;
    }
    EACH(X, m, t, { X->proxy_fences[t]++; });
}

uint32_t interp_proxy_fences(const ictx *X, uint32_t t)
{
    return X->proxy_fences && t < X->nthr ? X->proxy_fences[t] : 0;
}

bool interp_proxy_fenced(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes)
{
    for (uint32_t i = 0; i < bytes; i++) {
        const sshadow *s = &X->shadow[off + i];
        if (s->writer >= X->nthr || s->w_epoch < X->block_epoch) continue; /* the async proxy's, atomics, none */
        if (s->w_fences != interp_proxy_fences(X, s->writer)) continue;
        char site[160];
        cute_dim3 o;
        interp_thread_dim3(X, s->writer, &o);
        return interp_report(X, d, t, CUTE_CHECK_SHARED_RACE, 0, (int64_t)(off + i), 1,
                             "async-proxy read of shared byte %" PRIu64 ", which thread (%u,%u,%u) "
                             "stored at %s through the generic proxy with no fence.proxy.async "
                             "since", off + i, o.x, o.y, o.z,
                             interp_site(&X->P->code[s->w_inst], site, sizeof site));
    }
    return true;
}

void interp_proxy_block_end(ictx *X)
{
    if (X->proxy_fences) memset(X->proxy_fences, 0, X->nthr * sizeof *X->proxy_fences);
}
