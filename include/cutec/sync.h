/* cutec/sync.h — sm_90 synchronization as DSL calls, with CuTe DSL's names (cute.arch /
 * nvvm wrappers): mbarriers, fences, named barriers, elect, register reallocation, clusters
 * and distributed shared memory, programmatic dependent launch, the non-tensor bulk copy.
 *
 * Each call appends one row of the instruction table (cutec/inst.h, docs/instructions.md).
 * An mbarrier is a shared-memory pointer (ptr<T,smem>, 8-byte aligned, 8 bytes); counts,
 * byte counts, phases and ranks are integer values (any integer type; cute_val_int makes a
 * constant).  A misuse (a barrier that is not a shared pointer, a row newer than the
 * target's sm) is a diagnostic at the call site.  The interpreter runs them all
 * (docs/interpreter.md: a kernel that waits runs under its warp scheduler). */
#ifndef CUTEC_SYNC_H
#define CUTEC_SYNC_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/trace.h"

/* --- mbarriers -------------------------------------------------------------------------- */
void cute_mbarrier_init(cute_ctx *c, cute_val bar, cute_val count);
void cute_mbarrier_init_fence(cute_ctx *c); /* fence.mbarrier_init.release.cluster */
void cute_mbarrier_arrive(cute_ctx *c, cute_val bar);
/* arrive on the mbarrier at bar's offset in the shared memory of cluster block `rank` */
void cute_mbarrier_arrive_cluster(cute_ctx *c, cute_val bar, cute_val rank);
/* the same with release at CTA scope (CUTLASS's ClusterBarrier::arrive(cta_id)), without the
 * cluster-wide fence (MEMBAR.ALL.GPU) the form above costs: where the waiter needs only the
 * arrival, e.g. a consumer releasing a stage it read through wgmma */
void cute_mbarrier_arrive_cluster_cta(cute_ctx *c, cute_val bar, cute_val rank);
void cute_mbarrier_arrive_and_expect_tx(cute_ctx *c, cute_val bar, cute_val bytes);
void cute_mbarrier_expect_tx(cute_ctx *c, cute_val bar, cute_val bytes);
/* i1: whether the phase of parity `phase` completed (try_wait may wait a while first) */
cute_val cute_mbarrier_try_wait(cute_ctx *c, cute_val bar, cute_val phase);
cute_val cute_mbarrier_test_wait(cute_ctx *c, cute_val bar, cute_val phase);
/* waits until the phase of parity `phase` completed (a try_wait loop) */
void cute_mbarrier_wait(cute_ctx *c, cute_val bar, cute_val phase);

/* --- fences, barriers, warps ----------------------------------------------------------- */
void cute_fence_proxy_async(cute_ctx *c);            /* fence.proxy.async */
void cute_fence_proxy_async_shared_cta(cute_ctx *c); /* fence.proxy.async.shared::cta */
/* named barrier `id` (1..15; 0 is __syncthreads') for `threads` threads (a multiple of 32) */
void cute_named_barrier_sync(cute_ctx *c, int id, int threads);
void cute_named_barrier_arrive(cute_ctx *c, int id, int threads);
cute_val cute_elect_one(cute_ctx *c); /* i1: true in one lane of the (converged) warp */
void cute_setmaxregister_increase(cute_ctx *c, int regs); /* setmaxnreg.inc, 24..256 by 8 */
void cute_setmaxregister_decrease(cute_ctx *c, int regs);

/* --- clusters ---------------------------------------------------------------------------- */
cute_val cute_block_idx_in_cluster(cute_ctx *c);         /* %cluster_ctarank (u32) */
cute_val cute_cluster_size(cute_ctx *c);                 /* %cluster_nctarank */
cute_val cute_block_in_cluster_idx(cute_ctx *c, int dim); /* %cluster_ctaid.{x,y,z} */
cute_val cute_cluster_dim(cute_ctx *c, int dim);          /* %cluster_nctaid.{x,y,z} */
cute_val cute_cluster_idx(cute_ctx *c, int dim);          /* %clusterid.{x,y,z} */
cute_val cute_cluster_grid_dim(cute_ctx *c, int dim);     /* %nclusterid.{x,y,z} */
/* the shared::cluster address (u32) of shared pointer p in the block of cluster rank `rank` */
cute_val cute_mapa(cute_ctx *c, cute_val p, cute_val rank);
cute_val cute_ld_shared_cluster_u32(cute_ctx *c, cute_val addr);
void cute_st_shared_cluster_u32(cute_ctx *c, cute_val addr, cute_val v);
/* st.async: v (32 bits) to a shared::cluster address, then 4 transaction bytes completed on
 * the mbarrier at shared::cluster address bar of the same block (both from cute_mapa): the
 * receiver arms the phase with expect_tx and waits on it; no fence, no cluster barrier */
void cute_st_async_u32(cute_ctx *c, cute_val addr, cute_val v, cute_val bar);
void cute_cluster_arrive(cute_ctx *c);
void cute_cluster_arrive_relaxed(cute_ctx *c);
void cute_cluster_wait(cute_ctx *c);

/* --- grids and copies -------------------------------------------------------------------- */
void cute_griddepcontrol_wait(cute_ctx *c);
/* bar.warp.sync -1 (__syncwarp()): the warp's lanes meet, its memory accesses ordered.  A
 * kernel that loads the next tile through weak (not read-only) loads before this one's
 * arithmetic puts it after the loads: ptxas then keeps them there (left alone, it sinks
 * them towards their use to save registers) */
void cute_syncwarp(cute_ctx *c);
void cute_griddepcontrol_launch_dependents(cute_ctx *c);
/* fence.acq_rel.gpu (__threadfence()): after a barrier, one thread's fence then atomic
 * publishes the block's earlier writes to the grid (release); the atomic then fence of the
 * thread that sees every block's count makes theirs visible to its block after a barrier
 * (acquire): the last block of a group of blocks reads what the others wrote */
void cute_fence_acq_rel_gpu(cute_ctx *c);
/* `bytes` (a multiple of 16) from global src to shared dst, both 16-byte aligned, completing
 * as transaction bytes on the mbarrier bar */
void cute_cp_async_bulk_g2s(cute_ctx *c, cute_val dst, cute_val src, cute_val bytes, cute_val bar);
/* `bytes` from shared src to global dst (a TMA store's non-tensor twin), in the thread's
 * bulk groups: commit closes a group; wait_group_read(n) waits until at most n groups still
 * read their shared sources (then they may be overwritten) */
void cute_cp_async_bulk_s2g(cute_ctx *c, cute_val dst, cute_val src, cute_val bytes);
void cute_cp_async_bulk_commit_group(cute_ctx *c);
void cute_cp_async_bulk_wait_group_read(cute_ctx *c, int n);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_mbarrier_init(c, ...) CUTE__CTX_AT((c), cute_mbarrier_init((c), __VA_ARGS__))
#define cute_mbarrier_init_fence(c) CUTE__CTX_AT((c), cute_mbarrier_init_fence(c))
#define cute_mbarrier_arrive(c, ...) CUTE__CTX_AT((c), cute_mbarrier_arrive((c), __VA_ARGS__))
#define cute_mbarrier_arrive_cluster(c, ...) CUTE__CTX_AT((c), cute_mbarrier_arrive_cluster((c), __VA_ARGS__))
#define cute_mbarrier_arrive_cluster_cta(c, ...) CUTE__CTX_AT((c), cute_mbarrier_arrive_cluster_cta((c), __VA_ARGS__))
#define cute_mbarrier_arrive_and_expect_tx(c, ...) CUTE__CTX_AT((c), cute_mbarrier_arrive_and_expect_tx((c), __VA_ARGS__))
#define cute_mbarrier_expect_tx(c, ...) CUTE__CTX_AT((c), cute_mbarrier_expect_tx((c), __VA_ARGS__))
#define cute_mbarrier_try_wait(c, ...) CUTE__CTX_AT((c), cute_mbarrier_try_wait((c), __VA_ARGS__))
#define cute_mbarrier_test_wait(c, ...) CUTE__CTX_AT((c), cute_mbarrier_test_wait((c), __VA_ARGS__))
#define cute_mbarrier_wait(c, ...) CUTE__CTX_AT((c), cute_mbarrier_wait((c), __VA_ARGS__))
#define cute_fence_proxy_async(c) CUTE__CTX_AT((c), cute_fence_proxy_async(c))
#define cute_fence_proxy_async_shared_cta(c) CUTE__CTX_AT((c), cute_fence_proxy_async_shared_cta(c))
#define cute_named_barrier_sync(c, ...) CUTE__CTX_AT((c), cute_named_barrier_sync((c), __VA_ARGS__))
#define cute_named_barrier_arrive(c, ...) CUTE__CTX_AT((c), cute_named_barrier_arrive((c), __VA_ARGS__))
#define cute_elect_one(c) CUTE__CTX_AT((c), cute_elect_one(c))
#define cute_setmaxregister_increase(c, ...) CUTE__CTX_AT((c), cute_setmaxregister_increase((c), __VA_ARGS__))
#define cute_setmaxregister_decrease(c, ...) CUTE__CTX_AT((c), cute_setmaxregister_decrease((c), __VA_ARGS__))
#define cute_block_idx_in_cluster(c) CUTE__CTX_AT((c), cute_block_idx_in_cluster(c))
#define cute_cluster_size(c) CUTE__CTX_AT((c), cute_cluster_size(c))
#define cute_block_in_cluster_idx(c, ...) CUTE__CTX_AT((c), cute_block_in_cluster_idx((c), __VA_ARGS__))
#define cute_cluster_dim(c, ...) CUTE__CTX_AT((c), cute_cluster_dim((c), __VA_ARGS__))
#define cute_cluster_idx(c, ...) CUTE__CTX_AT((c), cute_cluster_idx((c), __VA_ARGS__))
#define cute_cluster_grid_dim(c, ...) CUTE__CTX_AT((c), cute_cluster_grid_dim((c), __VA_ARGS__))
#define cute_mapa(c, ...) CUTE__CTX_AT((c), cute_mapa((c), __VA_ARGS__))
#define cute_ld_shared_cluster_u32(c, ...) CUTE__CTX_AT((c), cute_ld_shared_cluster_u32((c), __VA_ARGS__))
#define cute_st_shared_cluster_u32(c, ...) CUTE__CTX_AT((c), cute_st_shared_cluster_u32((c), __VA_ARGS__))
#define cute_st_async_u32(c, ...) CUTE__CTX_AT((c), cute_st_async_u32((c), __VA_ARGS__))
#define cute_cluster_arrive(c) CUTE__CTX_AT((c), cute_cluster_arrive(c))
#define cute_cluster_arrive_relaxed(c) CUTE__CTX_AT((c), cute_cluster_arrive_relaxed(c))
#define cute_cluster_wait(c) CUTE__CTX_AT((c), cute_cluster_wait(c))
#define cute_griddepcontrol_wait(c) CUTE__CTX_AT((c), cute_griddepcontrol_wait(c))
#define cute_syncwarp(c) CUTE__CTX_AT((c), cute_syncwarp(c))
#define cute_griddepcontrol_launch_dependents(c) CUTE__CTX_AT((c), cute_griddepcontrol_launch_dependents(c))
#define cute_fence_acq_rel_gpu(c) CUTE__CTX_AT((c), cute_fence_acq_rel_gpu(c))
#define cute_cp_async_bulk_g2s(c, ...) CUTE__CTX_AT((c), cute_cp_async_bulk_g2s((c), __VA_ARGS__))
#define cute_cp_async_bulk_s2g(c, ...) CUTE__CTX_AT((c), cute_cp_async_bulk_s2g((c), __VA_ARGS__))
#define cute_cp_async_bulk_commit_group(c) CUTE__CTX_AT((c), cute_cp_async_bulk_commit_group(c))
#define cute_cp_async_bulk_wait_group_read(c, ...) CUTE__CTX_AT((c), cute_cp_async_bulk_wait_group_read((c), __VA_ARGS__))

#endif

CUTE_API_END
#endif
