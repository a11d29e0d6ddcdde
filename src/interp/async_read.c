/* Shared memory that an asynchronous operation still reads (a bulk copy to global memory;
 * wgmma's operands): from its issue until the wait that covers it, a write to those bytes,
 * by any thread, is reported with both sites.  Reads are kept per issuing thread, in that
 * thread's groups (commit closes a group; a wait ends all but the newest N). */
#include <inttypes.h>
#include <stdlib.h>

#include "interp/interp_internal.h"

typedef struct iaread {
    uint64_t off;
    uint32_t bytes, tid, group;
    interp_areader who; /* whose groups (and wait) it belongs to */
    const dinst *site;
} iaread;

bool interp_async_read_begin(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                             interp_areader who, uint32_t group)
{
    if (!interp_grow(X, (void **)&X->areads, X->nareads, &X->careads, sizeof *X->areads, 64)) return false;
    X->areads[X->nareads++] = (iaread){off, bytes, t, group, who, d};
    return true;
}

void interp_async_read_end(ictx *X, uint32_t t, interp_areader who, uint32_t below)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < X->nareads; i++) {
        const iaread *r = &X->areads[i];
        if (r->tid != t || r->who != who || r->group >= below) X->areads[keep++] = *r;
    }
    X->nareads = keep;
}

/* the wait that would have covered a read of `who` */
static const char *wait_of(interp_areader who)
{
    return who == AREAD_WGMMA ? "wgmma.wait_group" : "cp.async.bulk.wait_group.read";
}

bool interp_async_read_conflict(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes)
{
    for (uint32_t i = 0; i < X->nareads; i++) {
        const iaread *r = &X->areads[i];
        if (!(r->off < off + bytes && off < r->off + r->bytes)) continue;
        char site[160];
        cute_dim3 o;
        interp_thread_dim3(X, r->tid, &o);
        return interp_report(X, d, t, CUTE_CHECK_ASYNC_COPY, 0, (int64_t)off, bytes,
                             "write of shared bytes [%" PRIu64 ",%" PRIu64 ") still read by %s at "
                             "%s (thread (%u,%u,%u), warp %u, group %u): no %s since", off,
                             off + bytes, interp_op_name(r->site),
                             interp_site(r->site, site, sizeof site), o.x, o.y, o.z, r->tid / 32,
                             r->group, wait_of(r->who));
    }
    return true;
}

void interp_async_read_block_end(ictx *X)
{
    for (uint32_t i = 0; i < X->nareads && !X->stop && checking(X, CUTE_CHECK_ASYNC_COPY); i++) {
        const iaread *r = &X->areads[i];
        interp_report(X, r->site, r->tid, CUTE_CHECK_ASYNC_COPY, 0, (int64_t)r->off, r->bytes,
                      "this asynchronous read of shared bytes [%" PRIu64 ",%" PRIu64 ") is still "
                      "pending when the kernel ends: no %s after it covers its group",
                      r->off, r->off + r->bytes, wait_of(r->who));
    }
    X->nareads = 0;
}
