/* The sm_90 synchronization rows that are not mbarriers (mbarrier.c) or named barriers
 * (barrier.c): fences, elect.sync, setmaxnreg, the cluster special registers, mapa and
 * distributed shared memory, griddepcontrol, and the non-tensor bulk copy.
 *
 * A shared::cluster address (mapa's result) is, in the interpreter, a shared offset with
 * the target block's cluster rank + 1 in bits 24..31 (0: the block's own shared memory, as
 * a plain shared-window address is on the GPU too). */
#include <inttypes.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/mbarrier.h"

#define CLUSTER_RANK_SHIFT 24

static const char *row_name(const dinst *d)
{
    const cute_inst_info *I = cute_inst_info_of((cute_inst)d->imm2);
    return I ? I->mnemonic : "?";
}

/* the block's place in its cluster, along dimension k */
static uint32_t cluster_dim(const ictx *X, int k)
{
    const cute_dim3 c = X->L->cluster;
    return k == 0 ? c.x : k == 1 ? c.y : c.z;
}

static uint32_t cluster_rank(const ictx *X)
{
    uint32_t cx = cluster_dim(X, 0), cy = cluster_dim(X, 1);
    return X->ctaid[0] % cx + X->ctaid[1] % cy * cx + X->ctaid[2] % cluster_dim(X, 2) * cx * cy;
}

static uint32_t cluster_size(const ictx *X)
{
    return cluster_dim(X, 0) * cluster_dim(X, 1) * cluster_dim(X, 2);
}

static uint32_t grid_dim(const ictx *X, int k)
{
    return k == 0 ? X->L->grid.x : k == 1 ? X->L->grid.y : X->L->grid.z;
}

void inst_sreg90(ictx *X, const dinst *d, const imask *m)
{
    int k = d->row->flag;
    uint32_t v = 0;
    switch (d->row->num) {
    case SR_CLUSTERID: v = X->ctaid[k] / cluster_dim(X, k); break;
    case SR_NCLUSTERID: v = grid_dim(X, k) / cluster_dim(X, k); break;
    case SR_CLUSTER_CTAID: v = X->ctaid[k] % cluster_dim(X, k); break;
    case SR_CLUSTER_NCTAID: v = cluster_dim(X, k); break;
    case SR_CLUSTER_CTARANK: v = cluster_rank(X); break;
    default: v = cluster_size(X); break;
    }
    EACH(X, m, t, { interp_put32(X, d, 0, t, v); });
}

bool interp_cluster_local(ictx *X, const dinst *d, uint32_t t, uint32_t caddr, uint64_t *off)
{
    uint32_t r = caddr >> CLUSTER_RANK_SHIFT;
    *off = caddr & ((1u << CLUSTER_RANK_SHIFT) - 1);
    if (r == 0 || r - 1 == cluster_rank(X)) return true;
    interp_report(X, d, t, CUTE_CHECK_UNSUPPORTED, 0, (int64_t)*off, 0,
                  "%s: shared memory of the cluster's block %u (this is block %u): the "
                  "interpreter does not run a cluster's blocks together yet",
                  row_name(d), r - 1, cluster_rank(X));
    return false;
}

/* mapa d, a, rank */
static void mapa(ictx *X, const dinst *d, const imask *m)
{
    uint32_t n = cluster_size(X);
    EACH(X, m, t, {
        uint32_t a = interp_get32(X, d, 1, t), rank = interp_get32(X, d, 2, t);
        if (rank >= n) {
            interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0,
                          "mapa to cluster rank %u: the cluster has %u block%s", rank, n,
                          n > 1 ? "s" : "");
            return;
        }
        uint32_t off = a & ((1u << CLUSTER_RANK_SHIFT) - 1);
        interp_put32(X, d, 0, t, off | (rank + 1) << CLUSTER_RANK_SHIFT);
    });
}

/* ld/st.shared::cluster.u32: the checks of shared memory, in the target block's */
void inst_dsmem(ictx *X, const dinst *d, const imask *m)
{
    bool store = d->row->flag;
    uint32_t k = store ? 0 : 1;
    EACH(X, m, t, {
        uint64_t off;
        if (!interp_cluster_local(X, d, t, interp_get32(X, d, k, t), &off)) return;
        if (!interp_scheck(X, d, t, off, 4, 4, store)) continue;
        uint32_t v;
        if (store) {
            v = interp_get32(X, d, 1, t);
            memcpy(X->smem + off, &v, 4);
        } else {
            memcpy(&v, X->smem + off, 4);
            interp_put32(X, d, 0, t, v);
        }
    });
}

/* elect.sync: the lowest lane of the (whole, converged) warp */
static void elect(ictx *X, const dinst *d, const imask *m)
{
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32)
        if (interp_whole_warp(X, d, m, w0))
            for (uint32_t t = w0; t < w0 + 32; t++) interp_put32(X, d, 0, t, t == w0);
}

static void setmaxnreg(ictx *X, const dinst *d, const imask *m)
{
    int64_t n = d->imm;
    const char *bad = n < 24 || n > 256 || n % 8 ? "the count must be in 24..256, a multiple of 8"
                      : X->nthr % 128             ? "the block is not made of whole warpgroups"
                                                  : NULL;
    if (bad) {
        interp_report(X, d, m->lo, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0, "%s %" PRId64 ": %s",
                      row_name(d), n, bad);
        return;
    }
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) interp_whole_warp(X, d, m, w0);
}

void inst_sync(ictx *X, const dinst *d, const imask *m)
{
    switch (d->row->num) {
    case SY_ELECT: elect(X, d, m); break;
    case SY_SETMAXNREG: setmaxnreg(X, d, m); break;
    case SY_MAPA: mapa(X, d, m); break;
    default: break; /* fences order what the interpreter already runs in order */
    }
}

/* --- cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes dst, src, n, bar --- */

static bool bulk_operands_ok(ictx *X, const dinst *d, uint32_t t, uint64_t dst, uint64_t src,
                             uint32_t n)
{
    const char *bad = n == 0 || n % 16 ? "the size is not a positive multiple of 16"
                      : dst % 16       ? "the shared destination is not 16-byte aligned"
                      : src % 16       ? "the global source is not 16-byte aligned"
                                       : NULL;
    if (bad)
        interp_report(X, d, t, CUTE_CHECK_MISALIGNED, 0, (int64_t)dst, n,
                      "cp.async.bulk of %u bytes to shared offset %" PRIu64 ": %s", n, dst, bad);
    return !bad;
}

void inst_bulk_g2s(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, {
        uint64_t dst = interp_addr(X, d, 0, t), src = interp_addr(X, d, 1, t);
        uint32_t n = interp_get32(X, d, 2, t);
        if (!bulk_operands_ok(X, d, t, dst, src, n)) return;
        if (!interp_sbounds(X, d, t, dst, n, 16, 1) || !interp_gcheck(X, d, t, src, n, 16, 0)) return;
        uint32_t stamp = interp_hb_async_stamp(X);
        memcpy(X->smem + dst, (const void *)(uintptr_t)src, n);
        if (!interp_async_proxy_write(X, d, t, dst, n, stamp)) return;
        if (!interp_mbarrier_complete_tx(X, d, t, interp_addr(X, d, 3, t), n, stamp)) return;
    });
}
