/* A block's place in its thread-block cluster, and shared::cluster addresses.
 *
 * A shared::cluster address (mapa's result) is, in the interpreter, a shared offset with
 * the target block's cluster rank + 1 in bits 24..31 (0: the block's own shared memory, as
 * a plain shared-window address is on the GPU too). */
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

bool interp_cluster_local(ictx *X, const dinst *d, uint32_t t, uint32_t caddr, uint64_t *off)
{
    uint32_t r = caddr >> INTERP_CLUSTER_RANK_SHIFT;
    *off = caddr & (INTERP_CLUSTER_OFFSET_MASK);
    if (r == 0 || r - 1 == interp_cluster_rank(X)) return true;
    interp_report(X, d, t, CUTE_CHECK_UNSUPPORTED, 0, (int64_t)*off, 0,
                  "%s: shared memory of the cluster's block %u (this is block %u): the "
                  "interpreter does not run a cluster's blocks together yet",
                  interp_op_name(d), r - 1, interp_cluster_rank(X));
    return false;
}
