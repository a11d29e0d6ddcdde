/* cute_call_peers (cutec/peer.h): one call a rank, all at once.  On GPUs each rank's call is
 * enqueued on its own stream and the GPUs run them together; on the interpreter the ranks
 * are emulated devices of one interpreter, and their launches run as one group
 * (cute_interp_launch_peers) so that a rank may wait for another's signal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/interp.h"
#include "cutec/peer.h"
#include "jit/jit_internal.h"

static cute_status on_gpus(const cute_fn *const *fs, int nranks, void *const *streams, int nargs,
                           const cute_call_arg *args, char *err, size_t n)
{
    for (int r = 0; r < nranks; r++) {
        char why[1024] = "";
        cute_status s = cute_call(fs[r], streams ? streams[r] : NULL, nargs, args + (size_t)r * (size_t)nargs,
                                  why, sizeof why);
        if (s != CUTE_OK) return snprintf(err, n, "cute_call_peers: rank %d: %s", r, why), s;
    }
    return CUTE_OK;
}

/* rank r's one launch must match rank 0's (kernel, grid, block) */
static cute_status same_launch(const cute_call_frame *fr, int r, char *err, size_t n)
{
    const cute_launch *a = &fr[0].cfg[0], *b = &fr[r].cfg[0];
    if (fr[r].nlaunch != 1)
        return snprintf(err, n, "cute_call_peers: rank %d's call makes %d launches; a call on emulated "
                        "devices makes exactly one", r, fr[r].nlaunch), CUTE_ERR_UNSUPPORTED;
    if (fr[r].rec[0] != fr[0].rec[0] || memcmp(&a->grid, &b->grid, sizeof a->grid) ||
        memcmp(&a->block, &b->block, sizeof a->block))
        return snprintf(err, n, "cute_call_peers: rank %d launches grid (%u,%u,%u) of blocks (%u,%u,%u), "
                        "rank 0 grid (%u,%u,%u) of (%u,%u,%u): emulated devices run one grid", r,
                        b->grid.x, b->grid.y, b->grid.z, b->block.x, b->block.y, b->block.z, a->grid.x,
                        a->grid.y, a->grid.z, a->block.x, a->block.y, a->block.z), CUTE_ERR_UNSUPPORTED;
    return CUTE_OK;
}

static cute_status launch_group(const cute_fn *f, cute_call_frame *fr, int nranks, char *err, size_t n)
{
    const launch_rec *rec = &f->launches[fr[0].rec[0]];
    int np = rec->nparams;
    cute_launch_arg *la = calloc((size_t)nranks * (size_t)(np + 1), sizeof *la);
    if (!la) return snprintf(err, n, "cute_call_peers: out of memory"), CUTE_ERR_OOM;
    for (int r = 0; r < nranks; r++) memcpy(la + (size_t)r * (size_t)np, fr[r].args[0], (size_t)np * sizeof *la);
    char why[2048] = "";
    cute_launch cfg = fr[0].cfg[0];
    cfg.err = why, cfg.errn = sizeof why;
    cute_status s = cute_interp_launch_peers(f->rt->b, f->module, rec->kernel, &cfg, nranks, la, np);
    free(la);
    if (s != CUTE_OK)
        snprintf(err, n, "launch of %s on %d emulated devices: %s: %s", f->kernels[rec->kernel]->name,
                 nranks, cute_status_name(s), why);
    return s;
}

cute_status cute_call_peers(const cute_fn *const *fs, int nranks, void *const *streams, int nargs,
                            const cute_call_arg *args, char *err, size_t n)
{
    char scratch[8];
    if (!err) err = scratch, n = sizeof scratch;
    if (nranks < 1 || !fs || (nargs && !args))
        return snprintf(err, n, "cute_call_peers: %d ranks, functions %p, arguments %p", nranks,
                        (const void *)fs, (const void *)args), CUTE_ERR_INVALID;
    bool one = true;
    for (int r = 0; r < nranks; r++) {
        if (!fs[r]) return snprintf(err, n, "cute_call_peers: rank %d's function is NULL", r), CUTE_ERR_INVALID;
        one &= fs[r] == fs[0];
    }
    if (!cute_runtime_interprets(fs[0]->rt)) return on_gpus(fs, nranks, streams, nargs, args, err, n);
    if (!one)
        return snprintf(err, n, "cute_call_peers: on the interpreter every rank calls the same function "
                        "(one interpreter emulates every device)"), CUTE_ERR_INVALID;
    cute_call_frame *fr = aligned_alloc(_Alignof(cute_call_frame), (size_t)nranks * sizeof *fr); /* its tensor maps' alignment */
    if (!fr) return snprintf(err, n, "cute_call_peers: out of memory"), CUTE_ERR_OOM;
    memset(fr, 0, (size_t)nranks * sizeof *fr);
    cute_status s = CUTE_OK;
    for (int r = 0; r < nranks && s == CUTE_OK; r++) {
        char why[1024] = "";
        s = cute_call_prepare(fs[0], &fr[r], nargs, args + (size_t)r * (size_t)nargs, why, sizeof why);
        if (s != CUTE_OK) snprintf(err, n, "cute_call_peers: rank %d: %s", r, why);
        else s = same_launch(fr, r, err, n);
    }
    if (s == CUTE_OK) s = launch_group(fs[0], fr, nranks, err, n);
    free(fr);
    return s;
}
