/* cutec/pipeline.h — producer/consumer pipelines over mbarriers, with CuTe DSL's names
 * (cutlass.pipeline: PipelineAsync, PipelineTmaAsync, PipelineState), so no kernel computes
 * a stage index or an mbarrier phase by hand.
 *
 * A pipeline of `stages` buffers has a "full" and an "empty" mbarrier per stage (in shared
 * memory from the allocator).  The producer acquires a stage (waits until its consumers
 * released it), fills it and commits it; the consumer waits until the stage is full, reads
 * it and releases it.  A PipelineState walks the stages: index (the stage), phase (the
 * parity to wait for, flipping at each wrap) and count (stages passed); a producer's
 * starts at phase 1 (every stage is free), a consumer's at phase 0.
 *
 *   PipelineAsync     the producer's threads commit by arriving on the full barrier
 *                     (producer_threads arrivals per phase; cp.async or plain stores);
 *   PipelineTmaAsync  one producer thread acquires (it arrives with the stage's expected
 *                     transaction bytes, tx_bytes) and the copies (TMA, or the bulk copy
 *                     cute_cp_async_bulk_g2s on cute_pipeline_producer_barrier) complete
 *                     them: commit does nothing.
 * Consumers release by each of consumer_threads arriving on the empty barrier.
 * try_acquire / try_wait peek without blocking and give a token (i1) that acquire / wait
 * then take (no wait when it is true); pass a token with .r == 0 for none.
 *
 * create initializes the barriers in thread 0 of the block, then a block barrier: call it
 * where every thread of the block runs.  Under the interpreter a pipeline's misuse is
 * reported with the warp, the site and the barrier's state (docs/interpreter.md). */
#ifndef CUTEC_PIPELINE_H
#define CUTEC_PIPELINE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/smem.h"
#include "cutec/tensor.h"

typedef enum { CUTE_PIPELINE_PRODUCER, CUTE_PIPELINE_CONSUMER } cute_pipeline_role;
typedef enum {
    CUTE_PIPELINE_ASYNC,
    CUTE_PIPELINE_TMA_ASYNC,
    CUTE_PIPELINE_TMA_UMMA,   /* sm_100: TMA fills, tcgen05.mma consumes */
    CUTE_PIPELINE_UMMA_ASYNC, /* sm_100: tcgen05.mma fills (an accumulator), threads consume */
} cute_pipeline_kind;

typedef struct cute_pipeline_state {
    int stages;
    cute_val index, phase, count; /* u32 variables */
} cute_pipeline_state;

typedef struct cute_pipeline {
    cute_pipeline_kind kind;
    int stages;
    cute_tensor full, empty; /* u64 mbarriers, one per stage */
    int producer_threads, consumer_threads;
    int64_t tx_bytes; /* TMA: per stage */
    cute_layout cluster; /* ..._create_cluster: (cluster M, cluster N) -> cluster rank; else unset */
    cute_val peers;      /* ... and the cluster ranks that share this block's row or column (u32
                            mask): whose multicasts fill its stages, and it theirs; for the CTA
                            pair's pipelines, the pair's two ranks */
    bool pair;           /* ..._create_pair: the CTA pair's (cta_group::2) */
} cute_pipeline;

cute_pipeline_state cute_make_pipeline_state(cute_ctx *c, cute_pipeline_role role, int stages);
void cute_pipeline_state_advance(cute_ctx *c, cute_pipeline_state *s);
/* n advances at once (n a non-negative integer value; CUTLASS's advance(n)): a consumer that
 * skips the stages another consumer reads, as the ping-pong GEMM's warpgroups do */
void cute_pipeline_state_advance_by(cute_ctx *c, cute_pipeline_state *s, cute_val n);

cute_pipeline cute_pipeline_async_create(cute_ctx *c, cute_smem_allocator *a, int stages,
                                         int producer_threads, int consumer_threads);
cute_pipeline cute_pipeline_tma_async_create(cute_ctx *c, cute_smem_allocator *a, int stages,
                                             int consumer_threads, int64_t tx_bytes);
/* sm_100a (cutec/tcgen05.h; verified on the interpreter and by ptxas only):
 *   PipelineTmaUmma   PipelineTmaAsync whose consumer is the one thread issuing tcgen05.mma:
 *                     its release is a tcgen05.commit on the stage's empty barrier, which
 *                     arrives once the MMAs issued so far have read the stage;
 *   PipelineUmmaAsync the MMA thread produces (an accumulator stage in tensor memory): its
 *                     commit is a tcgen05.commit on the full barrier; consumer_threads (the
 *                     epilogue's) wait on it and release by arriving on the empty barrier.
 * The calls that commit must run in exactly one thread (cute_elect_one, or a thread test). */
cute_pipeline cute_pipeline_tma_umma_create(cute_ctx *c, cute_smem_allocator *a, int stages, int64_t tx_bytes);
cute_pipeline cute_pipeline_umma_async_create(cute_ctx *c, cute_smem_allocator *a, int stages,
                                              int consumer_threads);
/* The same for the CTA pair (cute_tcgen05_cta_group(c, 2); CuTe DSL's create(...,
 * cta_layout_vmnk=) with V = 2).  Each block of the pair makes the pipeline; the even block
 * (the leader) holds the MMA thread.
 *   PipelineTmaUmma: tx_bytes are the pair's (both blocks' loads of a stage).  Each block's
 *     producer acquires its own empty stage; the leader's also arrives on its full stage
 *     expecting tx_bytes; both load with CUTE_TMA_OP_LOAD_2SM atoms onto the barrier that
 *     cute_pipeline_producer_barrier gives (the leader's full stage, a shared::cluster address).
 *     The MMA thread's release commits to the empty stage of both blocks.
 *   PipelineUmmaAsync: the MMA thread's commit reaches the full stage of both blocks; each
 *     block's consumer_threads wait on their own and release to the leader's empty stage. */
cute_pipeline cute_pipeline_tma_umma_create_pair(cute_ctx *c, cute_smem_allocator *a, int stages, int64_t tx_bytes);
cute_pipeline cute_pipeline_umma_async_create_pair(cute_ctx *c, cute_smem_allocator *a, int stages,
                                                   int consumer_threads);
/* PipelineTmaAsync in a cluster (CuTe DSL's create(..., cta_layout_vmnk=)): `cluster` is a
 * static rank-2 layout (cluster M, cluster N) -> cluster rank, and the blocks of one row or
 * column of it multicast their tiles into each other's stages (A along N, B along M), so a
 * stage is free only when the consumers of every such block released it.  Each consumer warp
 * releases once to each of them (lane r arrives on block r's empty barrier): consumer_threads
 * must be whole warps.  The barriers are initialized, then the cluster meets (every thread of
 * every block must call it); a block must not exit while the others may still release into
 * it: the producer ends with cute_pipeline_producer_tail. */
cute_pipeline cute_pipeline_tma_async_create_cluster(cute_ctx *c, cute_smem_allocator *a, int stages,
                                                     int consumer_threads, int64_t tx_bytes, cute_layout cluster);

cute_val cute_pipeline_producer_try_acquire(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s);
void cute_pipeline_producer_acquire(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s, cute_val token);
/* the same for a TMA pipeline whose fills differ in size: this fill's transaction bytes (an
 * integer value: a row's last, partial tile) in place of tx_bytes */
void cute_pipeline_producer_acquire_bytes(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s,
                                          cute_val token, cute_val bytes);
void cute_pipeline_producer_commit(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s);
/* the stage's full mbarrier: what a TMA or bulk copy completes its bytes on */
cute_val cute_pipeline_producer_barrier(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s);
/* CuTe DSL's producer_tail: the producer, after its last commit, waits until the consumers
 * (in a cluster, those of every block that shares its multicasts) released every stage, so
 * that nothing is in flight into its block's shared memory when the block exits.  Advances s. */
void cute_pipeline_producer_tail(cute_ctx *c, const cute_pipeline *p, cute_pipeline_state *s);
cute_val cute_pipeline_consumer_try_wait(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s);
void cute_pipeline_consumer_wait(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s, cute_val token);
void cute_pipeline_consumer_release(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s);

/* PipelineTmaStore (CuTe DSL's cutlass.pipeline.PipelineTmaStore): `stages` shared buffers
 * that TMA stores (cute_tma_store / cute_tma_copy to a coordinate tile) read out, in the bulk
 * groups of the one thread that issues them, with no barriers: acquire waits until at most
 * stages - 1 of that thread's stores still read their buffer (cp.async.bulk.wait_group.read),
 * so that the oldest buffer may be written again; commit closes the stores issued since
 * into a group (a cute_tma_store closes its own, so after one it adds an empty group, which
 * is never pending); tail waits until every store is complete (before the block exits, or
 * before the buffers are given another use).  One buffer's stores a group: a kernel that
 * writes buffer i % stages for its i-th group, acquiring after each commit, never writes a
 * buffer a store still reads.  The other threads that write the buffers meet the issuing
 * thread at a barrier after its acquire. */
typedef struct cute_pipeline_tma_store {
    int stages;
} cute_pipeline_tma_store;

cute_pipeline_tma_store cute_pipeline_tma_store_create(cute_ctx *c, int stages);
void cute_pipeline_tma_store_producer_acquire(cute_ctx *c, const cute_pipeline_tma_store *p);
void cute_pipeline_tma_store_producer_commit(cute_ctx *c, const cute_pipeline_tma_store *p);
void cute_pipeline_tma_store_producer_tail(cute_ctx *c, const cute_pipeline_tma_store *p);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_make_pipeline_state(c, ...) CUTE__CTX_AT((c), cute_make_pipeline_state((c), __VA_ARGS__))
#define cute_pipeline_state_advance(c, ...) CUTE__CTX_AT((c), cute_pipeline_state_advance((c), __VA_ARGS__))
#define cute_pipeline_state_advance_by(c, ...) CUTE__CTX_AT((c), cute_pipeline_state_advance_by((c), __VA_ARGS__))
#define cute_pipeline_async_create(c, ...) CUTE__CTX_AT((c), cute_pipeline_async_create((c), __VA_ARGS__))
#define cute_pipeline_tma_async_create(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_async_create((c), __VA_ARGS__))
#define cute_pipeline_tma_umma_create(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_umma_create((c), __VA_ARGS__))
#define cute_pipeline_umma_async_create(c, ...) CUTE__CTX_AT((c), cute_pipeline_umma_async_create((c), __VA_ARGS__))
#define cute_pipeline_tma_umma_create_pair(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_umma_create_pair((c), __VA_ARGS__))
#define cute_pipeline_umma_async_create_pair(c, ...)                                                   \
    CUTE__CTX_AT((c), cute_pipeline_umma_async_create_pair((c), __VA_ARGS__))
#define cute_pipeline_tma_async_create_cluster(c, ...)                                                          \
    CUTE__CTX_AT((c), cute_pipeline_tma_async_create_cluster((c), __VA_ARGS__))
#define cute_pipeline_producer_try_acquire(c, ...) CUTE__CTX_AT((c), cute_pipeline_producer_try_acquire((c), __VA_ARGS__))
#define cute_pipeline_producer_acquire(c, ...) CUTE__CTX_AT((c), cute_pipeline_producer_acquire((c), __VA_ARGS__))
#define cute_pipeline_producer_acquire_bytes(c, ...) CUTE__CTX_AT((c), cute_pipeline_producer_acquire_bytes((c), __VA_ARGS__))
#define cute_pipeline_producer_commit(c, ...) CUTE__CTX_AT((c), cute_pipeline_producer_commit((c), __VA_ARGS__))
#define cute_pipeline_producer_barrier(c, ...) CUTE__CTX_AT((c), cute_pipeline_producer_barrier((c), __VA_ARGS__))
#define cute_pipeline_producer_tail(c, ...) CUTE__CTX_AT((c), cute_pipeline_producer_tail((c), __VA_ARGS__))
#define cute_pipeline_consumer_try_wait(c, ...) CUTE__CTX_AT((c), cute_pipeline_consumer_try_wait((c), __VA_ARGS__))
#define cute_pipeline_consumer_wait(c, ...) CUTE__CTX_AT((c), cute_pipeline_consumer_wait((c), __VA_ARGS__))
#define cute_pipeline_consumer_release(c, ...) CUTE__CTX_AT((c), cute_pipeline_consumer_release((c), __VA_ARGS__))
#define cute_pipeline_tma_store_create(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_store_create((c), __VA_ARGS__))
#define cute_pipeline_tma_store_producer_acquire(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_store_producer_acquire((c), __VA_ARGS__))
#define cute_pipeline_tma_store_producer_commit(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_store_producer_commit((c), __VA_ARGS__))
#define cute_pipeline_tma_store_producer_tail(c, ...) CUTE__CTX_AT((c), cute_pipeline_tma_store_producer_tail((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
