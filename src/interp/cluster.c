/* A block's place in its thread-block cluster, and shared::cluster addresses.
 *
 * A shared::cluster address (mapa's result) is, in the interpreter, a shared offset with
 * the target block's cluster rank + 1 in bits 24..31 (0: the block's own shared memory, as
 * a plain shared-window address is on the GPU too).  The blocks of a cluster run together
 * (exec.c, sched.c), so another block's shared memory is there to access until that block
 * exits. */
#include <stdio.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

/* blocks per cluster along dimension k (1 without clusters) */
uint32_t interp_cluster_dim(const ictx *X, int k)
{
    const cute_dim3 c = X->L->cluster;
    return k == 0 ? c.x : k == 1 ? c.y : c.z;
}

uint32_t interp_cluster_rank(const ictx *X)
{
    uint32_t cx = interp_cluster_dim(X, 0), cy = interp_cluster_dim(X, 1);
    return X->ctaid[0] % cx + X->ctaid[1] % cy * cx + X->ctaid[2] % interp_cluster_dim(X, 2) * cx * cy;
}

uint32_t interp_cluster_size(const ictx *X)
{
    return interp_cluster_dim(X, 0) * interp_cluster_dim(X, 1) * interp_cluster_dim(X, 2);
}

uint64_t interp_cluster_block_index(const ilaunch *L, uint64_t cid, uint32_t rank)
{
    const cute_dim3 c = L->cluster, g = L->grid;
    uint64_t ncx = g.x / c.x, ncy = g.y / c.y; /* clusters per grid dimension */
    uint64_t x = cid % ncx * c.x + rank % c.x;
    uint64_t y = cid / ncx % ncy * c.y + rank / c.x % c.y;
    uint64_t z = cid / ncx / ncy * c.z + rank / c.x / c.y;
    return x + g.x * (y + (uint64_t)g.y * z);
}

bool interp_cluster_block(ictx *X, const dinst *d, uint32_t t, uint32_t rank, const char *what, ictx **Y)
{
    uint32_t n = interp_cluster_size(X);
    if (rank >= n)
        return interp_report(X, d, t, CUTE_CHECK_SHARED_BOUNDS, 0, 0, 0, "%s: %s names block %u of "
                             "the cluster, which has %u block%s", interp_op_name(d), what, rank, n,
                             n > 1 ? "s" : "");
    *Y = X->group ? X : &X->cl->blk[rank]; /* a group's blocks are clusters of one each */
    if (!interp_sched_exited(*Y)) return true;
    cute_dim3 b = {(*Y)->ctaid[0], (*Y)->ctaid[1], (*Y)->ctaid[2]};
    return interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0, "%s: %s names the shared "
                         "memory of the cluster's block %u, block (%u,%u,%u), which has exited "
                         "(a block's shared memory lives until it exits: the cluster must "
                         "barrier.cluster arrive and wait before its blocks exit)",
                         interp_op_name(d), what, rank, b.x, b.y, b.z);
}

bool interp_cluster_target(ictx *X, const dinst *d, uint32_t t, uint32_t caddr, ictx **Y, uint64_t *off)
{
    uint32_t r = caddr >> INTERP_CLUSTER_RANK_SHIFT;
    *off = caddr & (INTERP_CLUSTER_OFFSET_MASK);
    *Y = X;
    if (r == 0 || r - 1 == X->rank) return true;
    char what[64];
    snprintf(what, sizeof what, "the shared::cluster address 0x%x", caddr);
    return interp_cluster_block(X, d, t, r - 1, what, Y);
}
