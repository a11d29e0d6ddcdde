/* cute_peer_alloc (cutec/peer.h): a buffer a rank, each reachable from every rank.  On GPUs
 * each rank's memory is made on its own device by the driver's virtual-memory API and
 * opened to every device of the group (cute_cuda_alloc_peer); on the interpreter the ranks
 * are emulated devices of one interpreter, whose buffers every launch may be given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_driver.h"
#include "cutec/peer.h"

struct cute_peer_buffers {
    int n;
    cute_runtime **rts;
    cute_buffer *bufs;
    size_t *mapped; /* GPUs: the mapped size of each (0: the backend's own buffer) */
};

int cute_peer_ranks(const cute_peer_buffers *p) { return p ? p->n : 0; }

const cute_buffer *cute_peer_buffer(const cute_peer_buffers *p, int rank)
{
    return p && rank >= 0 && rank < p->n ? &p->bufs[rank] : NULL;
}

static cute_cuda *driver_of(cute_runtime *rt) { return cute_cuda_backend_driver(cute_runtime_backend(rt)); }

void cute_peer_free(cute_peer_buffers *p)
{
    if (!p) return;
    for (int r = 0; r < p->n; r++) {
        if (!p->bufs[r].ptr) continue;
        cute_backend *b = cute_runtime_backend(p->rts[r]);
        if (p->mapped[r]) cute_cuda_free_peer(driver_of(p->rts[r]), (cute_devptr)(uintptr_t)p->bufs[r].ptr, p->mapped[r]);
        else b->vt->free(b->self, &p->bufs[r]);
    }
    free(p->rts), free(p->bufs), free(p->mapped), free(p);
}

/* the runtimes must be all GPUs' (distinct devices) or one interpreter's */
static cute_status check_runtimes(int nranks, cute_runtime *const *rts, int *devs, char *err, size_t n)
{
    bool interp = rts[0] && cute_runtime_interprets(rts[0]);
    for (int r = 0; r < nranks; r++) {
        if (!rts[r]) return snprintf(err, n, "cute_peer_alloc: rank %d's runtime is NULL", r), CUTE_ERR_INVALID;
        if (interp && rts[r] != rts[0])
            return snprintf(err, n, "cute_peer_alloc: rank %d's runtime is not rank 0's interpreter (the "
                            "emulated devices of a group share one)", r), CUTE_ERR_INVALID;
        cute_cuda *cu = interp ? NULL : driver_of(rts[r]);
        if (!interp && !cu)
            return snprintf(err, n, "cute_peer_alloc: rank %d's runtime is %s, neither a GPU's nor rank 0's "
                            "interpreter", r, cute_runtime_backend_name(rts[r])), CUTE_ERR_INVALID;
        devs[r] = cu ? cute_cuda_device(cu)->ordinal : 0;
        for (int q = 0; cu && q < r; q++)
            if (devs[q] == devs[r])
                return snprintf(err, n, "cute_peer_alloc: ranks %d and %d are both device %d", q, r, devs[r]),
                       CUTE_ERR_INVALID;
    }
    return CUTE_OK;
}

/* rank r's memory, zeroed */
static cute_status alloc_rank(cute_peer_buffers *p, int r, size_t bytes, const int *devs, char *err, size_t n)
{
    cute_backend *b = cute_runtime_backend(p->rts[r]);
    cute_cuda *cu = cute_runtime_interprets(p->rts[r]) ? NULL : driver_of(p->rts[r]);
    if (!cu) {
        cute_status s = b->vt->alloc(b->self, bytes, &p->bufs[r]);
        if (s != CUTE_OK) snprintf(err, n, "cute_peer_alloc: rank %d: %s", r, b->vt->error(b->self));
        return s;
    }
    cute_devptr d = 0;
    cute_status s = cute_cuda_alloc_peer(cu, bytes, devs, p->n, &d, &p->mapped[r]);
    if (s == CUTE_OK) s = cute_cuda_memset8(cu, d, 0, p->mapped[r]);
    if (s != CUTE_OK) return snprintf(err, n, "cute_peer_alloc: rank %d: %s", r, cute_cuda_error(cu)), s;
    p->bufs[r] = (cute_buffer){(void *)(uintptr_t)d, bytes, 0, 0};
    return CUTE_OK;
}

cute_status cute_peer_alloc(int nranks, cute_runtime *const *rts, size_t bytes, cute_peer_buffers **out,
                            char *err, size_t n)
{
    *out = NULL;
    if (nranks < 1 || nranks > 32 || !rts || !bytes)
        return snprintf(err, n, "cute_peer_alloc: %d ranks (1 to 32) of %zu bytes", nranks, bytes),
               CUTE_ERR_INVALID;
    int devs[32];
    cute_status s = check_runtimes(nranks, rts, devs, err, n);
    if (s != CUTE_OK) return s;
    cute_peer_buffers *p = calloc(1, sizeof *p);
    if (p) p->rts = calloc((size_t)nranks, sizeof *p->rts), p->bufs = calloc((size_t)nranks, sizeof *p->bufs),
           p->mapped = calloc((size_t)nranks, sizeof *p->mapped);
    if (!p || !p->rts || !p->bufs || !p->mapped) {
        cute_peer_free(p);
        return snprintf(err, n, "cute_peer_alloc: out of memory"), CUTE_ERR_OOM;
    }
    p->n = nranks;
    memcpy(p->rts, rts, (size_t)nranks * sizeof *rts);
    for (int r = 0; r < nranks && s == CUTE_OK; r++) s = alloc_rank(p, r, bytes, devs, err, n);
    if (s != CUTE_OK) return cute_peer_free(p), s;
    *out = p;
    return CUTE_OK;
}
