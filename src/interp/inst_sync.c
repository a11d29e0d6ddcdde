/* The sm_90 synchronization rows that are not mbarriers (mbarrier.c) or named barriers
 * (barrier.c): fences, elect.sync, setmaxnreg, the cluster special registers, mapa and
 * distributed shared memory (addresses as cluster.c says), griddepcontrol, and the
 * non-tensor bulk copy. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/mbarrier.h"

static uint32_t grid_dim(const ictx *X, int k)
{
    return k == 0 ? X->L->grid.x : k == 1 ? X->L->grid.y : X->L->grid.z;
}

void inst_sreg90(ictx *X, const dinst *d, const imask *m)
{
    int k = d->row->flag;
    uint32_t v = 0;
    switch (d->row->num) {
    case SR_CLUSTERID: v = X->ctaid[k] / interp_cluster_dim(X, k); break;
    case SR_NCLUSTERID: v = grid_dim(X, k) / interp_cluster_dim(X, k); break;
    case SR_CLUSTER_CTAID: v = X->ctaid[k] % interp_cluster_dim(X, k); break;
    case SR_CLUSTER_NCTAID: v = interp_cluster_dim(X, k); break;
    case SR_CLUSTER_CTARANK: v = interp_cluster_rank(X); break;
    default: v = interp_cluster_size(X); break;
    }
    EACH(X, m, t, { interp_put32(X, d, 0, t, v); });
}

/* mapa d, a, rank */
static void mapa(ictx *X, const dinst *d, const imask *m)
{
    uint32_t n = interp_cluster_size(X);
    EACH(X, m, t, {
        uint32_t a = interp_get32(X, d, 1, t), rank = interp_get32(X, d, 2, t);
        if (rank >= n) {
            interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, 0, 0,
                          "mapa to cluster rank %u: the cluster has %u block%s", rank, n,
                          n > 1 ? "s" : "");
            return;
        }
        uint32_t off = a & (INTERP_CLUSTER_OFFSET_MASK);
        interp_put32(X, d, 0, t, off | (rank + 1) << INTERP_CLUSTER_RANK_SHIFT);
    });
}

/* st.async dst, v, bar: the 4 bytes land in block Y (marked as its async proxy's, so that a
 * read must acquire them through the mbarrier's phase), then complete on Y's mbarrier at bar,
 * which must lie in the same block */
static void st_async(ictx *X, const dinst *d, uint32_t t)
{
    uint64_t off, bar;
    ictx *Y, *B;
    if (!interp_cluster_target(X, d, t, interp_get32(X, d, 0, t), &Y, &off) ||
        !interp_cluster_target(X, d, t, interp_get32(X, d, 2, t), &B, &bar))
        return;
    if (B != Y) {
        interp_report(X, d, t, CUTE_CHECK_SYNC_MISUSE, 0, (int64_t)off, 4, "%s: the mbarrier lies in "
                      "another block of the cluster than the store's address", interp_op_name(d));
        return;
    }
    if (!interp_sbounds(X, d, t, off, 4, 4, 1) || !interp_sbounds(X, d, t, bar, 8, 8, 0)) return;
    uint32_t v = interp_get32(X, d, 1, t), stamp = interp_hb_async_stamp(Y);
    memcpy(Y->smem + off, &v, 4);
    if (Y == X && !interp_async_proxy_write(X, d, t, off, 4, stamp)) return;
    if (Y != X) {
        Y->writes++;
        for (uint32_t i = 0; i < 4; i++) Y->shadow[off + i] = (sshadow){.w_epoch = stamp, .writer = (uint16_t)HB_PROXY(Y)};
    }
    interp_mbarrier_complete_tx(X, Y, Y, d, t, bar, 4, stamp);
}

/* ld/st.shared::cluster.u32: the checks of shared memory in the block's own; in another
 * block's of the cluster, those of interp_remote_access (flag 2: st.async, above) */
void inst_dsmem(ictx *X, const dinst *d, const imask *m)
{
    if (d->row->flag == 2) {
        EACH(X, m, t, { st_async(X, d, t); });
        return;
    }
    bool store = d->row->flag;
    uint32_t k = store ? 0 : 1;
    EACH(X, m, t, {
        uint64_t off;
        ictx *Y;
        if (!interp_cluster_target(X, d, t, interp_get32(X, d, k, t), &Y, &off)) return;
        if (Y == X ? !interp_scheck(X, d, t, off, 4, 4, store) : !interp_remote_access(X, Y, d, t, off, 4, 4, store))
            continue;
        uint32_t v;
        if (store) {
            v = interp_get32(X, d, 1, t);
            memcpy(Y->smem + off, &v, 4);
        } else {
            memcpy(&v, Y->smem + off, 4);
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
                      interp_op_name(d), n, bad);
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
    case SY_FENCE_ASYNC: interp_proxy_fence(X, m); break;
    default: break; /* fences order what the interpreter already runs in order */
    }
}

/* --- cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes dst, src, n, bar --- */

/* a bulk copy's operands: n a positive multiple of 16, both addresses 16-byte aligned */
static bool bulk_operands_ok(ictx *X, const dinst *d, uint32_t t, uint64_t shared, uint64_t global, uint32_t n)
{
    const char *bad = n == 0 || n % 16 ? "the size is not a positive multiple of 16"
                      : shared % 16    ? "the shared address is not 16-byte aligned"
                      : global % 16    ? "the global address is not 16-byte aligned"
                                       : NULL;
    if (bad)
        interp_report(X, d, t, CUTE_CHECK_MISALIGNED, 0, (int64_t)shared, n,
                      "%s of %u bytes at shared offset %" PRIu64 ": %s", interp_op_name(d), n, shared, bad);
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
        if (!interp_mbarrier_complete_tx(X, X, X, d, t, interp_addr(X, d, 3, t), n, stamp)) return;
    });
}

/* prefetch.global.L2 [a]: a hint, no data moves; a must lie inside a buffer the launch
 * holds */
void inst_l2_prefetch(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, { (void)interp_gcheck(X, d, t, interp_addr(X, d, 0, t), 1, 1, 0); });
}

/* --- cp.async.bulk.global.shared::cta.bulk_group dst, src, n; its groups ------------------ */

uint32_t *interp_bulk_groups(ictx *X)
{
    if (!X->bulk_groups && !(X->bulk_groups = calloc(X->nthr, sizeof *X->bulk_groups))) X->oom = X->stop = true;
    return X->bulk_groups;
}

void inst_bulk_s2g(ictx *X, const dinst *d, const imask *m)
{
    uint32_t *groups = interp_bulk_groups(X);
    if (!groups) return;
    EACH(X, m, t, {
        uint64_t dst = interp_addr(X, d, 0, t), src = interp_addr(X, d, 1, t);
        uint32_t n = interp_get32(X, d, 2, t);
        if (!bulk_operands_ok(X, d, t, src, dst, n)) return;
        if (!interp_scheck(X, d, t, src, n, 16, 0) || !interp_gcheck(X, d, t, dst, n, 16, 1)) return;
        if (checking(X, CUTE_CHECK_SHARED_RACE) && !interp_proxy_fenced(X, d, t, src, n)) return;
        memcpy((void *)(uintptr_t)dst, X->smem + src, n);
        if (!interp_async_read_begin(X, d, t, src, n, AREAD_BULK, groups[t])) return;
    });
}

void inst_bulk_commit(ictx *X, const dinst *d, const imask *m)
{
    (void)d;
    uint32_t *groups = interp_bulk_groups(X);
    if (groups) EACH(X, m, t, { groups[t]++; });
}

void inst_bulk_wait_read(ictx *X, const dinst *d, const imask *m)
{
    uint32_t *groups = interp_bulk_groups(X);
    if (!groups || !X->nareads) return;
    EACH(X, m, t, {
        uint32_t below = (int64_t)groups[t] > d->imm ? groups[t] - (uint32_t)d->imm : 0;
        interp_async_read_end(X, t, AREAD_BULK, below);
    });
}
