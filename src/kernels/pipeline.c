/* cutec/pipeline.h: PipelineAsync, PipelineTmaAsync, and sm_100's PipelineTmaUmma and
 * PipelineUmmaAsync over the mbarrier rows (cutec/sync.h) and tcgen05.commit (cutec/tcgen05.h),
 * and the PipelineState that walks their stages. */
#define CUTEC_NO_SITE_MACROS /* the user's call site stays the site of what this emits */
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"
#include "cutec/tma_copy.h"
#include "trace/ctx_internal.h"

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

cute_pipeline_state cute_make_pipeline_state(cute_ctx *c, cute_pipeline_role role, int stages)
{
    cute_pipeline_state s = {stages, {0}, {0}, {0}};
    if (!ctx_ok(c)) return s;
    if (stages < 1) {
        cute_ctx_fail(c, "cute_make_pipeline_state: %d stages (at least 1)", stages);
        return s;
    }
    s.index = cute_val_var(c, u32(c, 0));
    s.phase = cute_val_var(c, u32(c, role == CUTE_PIPELINE_PRODUCER)); /* every stage starts free */
    s.count = cute_val_var(c, u32(c, 0));
    return s;
}

/* index + 1, wrapping to 0 (and flipping the phase) at `stages` */
void cute_pipeline_state_advance(cute_ctx *c, cute_pipeline_state *s)
{
    if (!ctx_ok(c)) return;
    cute_val next = cute_val_binop(c, CUTE_OP_ADD, s->index, u32(c, 1));
    cute_val wrap = cute_val_cmp(c, CUTE_OP_EQ, next, u32(c, s->stages));
    cute_val_assign(c, s->index, cute_val_select(c, wrap, u32(c, 0), next));
    cute_val_assign(c, s->phase, cute_val_binop(c, CUTE_OP_XOR, s->phase, cute_val_cvt(c, wrap, CUTE_U32)));
    cute_val_assign(c, s->count, cute_val_binop(c, CUTE_OP_ADD, s->count, u32(c, 1)));
}

/* n single advances at once (CUTLASS's PipelineState::advance(n)): the stages passed wrap
 * (index + n) / stages times, each flipping the phase */
void cute_pipeline_state_advance_by(cute_ctx *c, cute_pipeline_state *s, cute_val n)
{
    if (!ctx_ok(c)) return;
    cute_val to = cute_val_binop(c, CUTE_OP_ADD, s->index, cute_val_cvt(c, n, CUTE_U32));
    cute_val wraps = cute_val_binop(c, CUTE_OP_DIV, to, u32(c, s->stages));
    cute_val_assign(c, s->index, cute_val_binop(c, CUTE_OP_REM, to, u32(c, s->stages)));
    cute_val_assign(c, s->phase, cute_val_binop(c, CUTE_OP_XOR, s->phase, cute_val_binop(c, CUTE_OP_AND, wraps, u32(c, 1))));
    cute_val_assign(c, s->count, cute_val_binop(c, CUTE_OP_ADD, s->count, cute_val_cvt(c, n, CUTE_U32)));
}

/* the stages' barriers, initialized by thread 0 with these arrival counts, then a barrier */
static cute_pipeline create(cute_ctx *c, cute_smem_allocator *a, cute_pipeline p, const char *call)
{
    if (!ctx_ok(c)) return p;
    if (p.stages < 1 || p.producer_threads < 1 || p.consumer_threads < 1 || p.tx_bytes < 0 || p.tx_bytes >= 1 << 20) {
        cute_ctx_fail(c, "%s: %d stages, %d producer and %d consumer threads, %lld transaction bytes: "
                      "each count must be positive (bytes below 2^20)", call, p.stages, p.producer_threads,
                      p.consumer_threads, (long long)p.tx_bytes);
        return p;
    }
    cute_alg *alg = cute_ctx_alg(c);
    cute_layout L = cute_make_layout(alg, cute_tuple_int(cute_i(p.stages))); /* stages:1 */
    p.full = cute_make_tensor(c, cute_smem_alloc_array(c, a, CUTE_U64, p.stages, 8), L, 8);
    p.empty = cute_make_tensor(c, cute_smem_alloc_array(c, a, CUTE_U64, p.stages, 8), L, 8);
    ctx_open_if(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)).r);
    for (int i = 0; i < p.stages; i++) {
        cute_mbarrier_init(c, cute_tensor_ptr(c, p.full, cute_i(i)), u32(c, p.producer_threads));
        cute_mbarrier_init(c, cute_tensor_ptr(c, p.empty, cute_i(i)), u32(c, p.consumer_threads));
    }
    cute_mbarrier_init_fence(c);
    ctx_close(c);
    if (p.peers.r) /* the other blocks release into and multicast onto these barriers */
        cute_cluster_arrive(c), cute_cluster_wait(c);
    else
        cute_barrier(c);
    return p;
}

cute_pipeline cute_pipeline_async_create(cute_ctx *c, cute_smem_allocator *a, int stages, int producer_threads,
                                         int consumer_threads)
{
    cute_pipeline p = {.kind = CUTE_PIPELINE_ASYNC, .stages = stages, .producer_threads = producer_threads,
                       .consumer_threads = consumer_threads};
    return create(c, a, p, "cute_pipeline_async_create");
}

cute_pipeline cute_pipeline_tma_async_create(cute_ctx *c, cute_smem_allocator *a, int stages, int consumer_threads,
                                             int64_t tx_bytes)
{
    cute_pipeline p = {.kind = CUTE_PIPELINE_TMA_ASYNC, .stages = stages, .producer_threads = 1,
                       .consumer_threads = consumer_threads, .tx_bytes = tx_bytes};
    return create(c, a, p, "cute_pipeline_tma_async_create");
}

cute_pipeline cute_pipeline_tma_umma_create(cute_ctx *c, cute_smem_allocator *a, int stages, int64_t tx_bytes)
{
    cute_pipeline p = {.kind = CUTE_PIPELINE_TMA_UMMA, .stages = stages, .producer_threads = 1,
                       .consumer_threads = 1, .tx_bytes = tx_bytes};
    return create(c, a, p, "cute_pipeline_tma_umma_create");
}

cute_pipeline cute_pipeline_umma_async_create(cute_ctx *c, cute_smem_allocator *a, int stages, int consumer_threads)
{
    cute_pipeline p = {.kind = CUTE_PIPELINE_UMMA_ASYNC, .stages = stages, .producer_threads = 1,
                       .consumer_threads = consumer_threads};
    return create(c, a, p, "cute_pipeline_umma_async_create");
}

/* the CTA pair's: this block's rank with its low bit cleared (the leader's) and the pair's mask */
static cute_val pair_leader(cute_ctx *c)
{
    return cute_val_binop(c, CUTE_OP_AND, cute_val_cvt(c, cute_block_idx_in_cluster(c), CUTE_U32), u32(c, ~1u));
}

static cute_pipeline create_pair(cute_ctx *c, cute_smem_allocator *a, cute_pipeline p, const char *call)
{
    if (!ctx_ok(c)) return p;
    if (c->tc05_group != 2) {
        cute_ctx_fail(c, "%s: the CTA pair's pipeline in a kernel of cta_group::1 (cute_tcgen05_cta_group(c, 2) "
                      "first)", call);
        return p;
    }
    p.pair = true;
    p.peers = cute_val_binop(c, CUTE_OP_SHL, u32(c, 3), pair_leader(c));
    return create(c, a, p, call);
}

cute_pipeline cute_pipeline_tma_umma_create_pair(cute_ctx *c, cute_smem_allocator *a, int stages, int64_t tx_bytes)
{
    cute_pipeline p = {.kind = CUTE_PIPELINE_TMA_UMMA, .stages = stages, .producer_threads = 1,
                       .consumer_threads = 1, .tx_bytes = tx_bytes};
    return create_pair(c, a, p, "cute_pipeline_tma_umma_create_pair");
}

cute_pipeline cute_pipeline_umma_async_create_pair(cute_ctx *c, cute_smem_allocator *a, int stages,
                                                   int consumer_threads)
{
    /* the leader's empty stages count both blocks' consumers */
    cute_pipeline p = {.kind = CUTE_PIPELINE_UMMA_ASYNC, .stages = stages, .producer_threads = 1,
                       .consumer_threads = 2 * consumer_threads};
    return create_pair(c, a, p, "cute_pipeline_umma_async_create_pair");
}

/* the cluster ranks in this block's row or column of `cluster`, a static rank-2 layout
 * (cluster M, cluster N) -> rank: a u32 mask (unset after a report of a bad layout) */
static cute_val peers_of(cute_ctx *c, cute_layout cluster, const char *call)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout L = cute_flatten(a, &cluster);
    if (L.shape.nleaves != 2 || !cute_tuple_is_static(&L.shape) || !cute_tuple_is_static(&L.stride)) {
        char got[256];
        cute_layout_str(&cluster, got, sizeof got);
        cute_ctx_fail(c, "%s: the cluster %s is not a static (cluster M, cluster N) layout", call, got);
        return (cute_val){0};
    }
    cute_int rank = cute_int_from_val(c, cute_block_idx_in_cluster(c), 0), at[2];
    for (int m = 0; m < 2; m++) /* rank -> coordinate: the layout is a bijection onto its ranks */
        at[m] = cute_mod(a, cute_div(a, rank, L.stride.leaf[m]), L.shape.leaf[m]);
    cute_val row = cute_tma_multicast_mask(c, L, at, 1), column = cute_tma_multicast_mask(c, L, at, 0);
    return cute_val_cvt(c, cute_val_binop(c, CUTE_OP_OR, row, column), CUTE_U32);
}

cute_pipeline cute_pipeline_tma_async_create_cluster(cute_ctx *c, cute_smem_allocator *a, int stages,
                                                     int consumer_threads, int64_t tx_bytes, cute_layout cluster)
{
    static const char call[] = "cute_pipeline_tma_async_create_cluster";
    cute_pipeline p = {.kind = CUTE_PIPELINE_TMA_ASYNC, .stages = stages, .producer_threads = 1,
                       .consumer_threads = consumer_threads, .tx_bytes = tx_bytes, .cluster = cluster};
    if (!ctx_ok(c)) return p;
    if (consumer_threads < 32 || consumer_threads % 32) {
        cute_ctx_fail(c, "%s: %d consumer threads (whole warps: each warp releases once to each block)", call,
                      consumer_threads);
        return p;
    }
    p.peers = peers_of(c, cluster, call);
    if (!p.peers.r) return p;
    cute_layout L = cute_flatten(cute_ctx_alg(c), &cluster);
    /* a release per consumer warp from each block of this one's row and column */
    p.consumer_threads = consumer_threads / 32 * (int)(L.shape.leaf[0].v + L.shape.leaf[1].v - 1);
    return create(c, a, p, call);
}

/* the mbarrier of the state's stage in barriers t */
static cute_val stage_barrier(cute_ctx *c, cute_tensor t, const cute_pipeline_state *s)
{
    return cute_tensor_ptr(c, t, cute_int_from_val(c, s->index, 0));
}

static bool state_fits(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s, const char *call)
{
    if (!ctx_ok(c)) return false;
    if (s->stages != p->stages)
        return cute_ctx_fail(c, "%s: a state of %d stages for a pipeline of %d", call, s->stages, p->stages);
    return true;
}

/* wait for the stage's phase on t unless the token (a peek's result) says it completed */
static void wait_unless(cute_ctx *c, cute_tensor t, const cute_pipeline_state *s, cute_val token)
{
    if (token.r) ctx_open_if(c, cute_val_unop(c, CUTE_OP_NOT, token).r);
    cute_mbarrier_wait(c, stage_barrier(c, t, s), s->phase);
    if (token.r) ctx_close(c);
}

cute_val cute_pipeline_producer_try_acquire(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s)
{
    if (!state_fits(c, p, s, "cute_pipeline_producer_try_acquire")) return (cute_val){0, cute_type_of(CUTE_I1), 0};
    return cute_mbarrier_try_wait(c, stage_barrier(c, p->empty, s), s->phase);
}

void cute_pipeline_producer_acquire(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s, cute_val token)
{
    if (!state_fits(c, p, s, "cute_pipeline_producer_acquire")) return;
    wait_unless(c, p->empty, s, token);
    bool tma = p->kind == CUTE_PIPELINE_TMA_ASYNC || p->kind == CUTE_PIPELINE_TMA_UMMA;
    if (tma && p->pair) /* the pair's bytes land on the leader's full stage */
        ctx_open_if(c, cute_val_cmp(c, CUTE_OP_EQ, pair_leader(c), cute_val_cvt(c, cute_block_idx_in_cluster(c),
                                                                                CUTE_U32)).r);
    if (tma) /* the copies complete the bytes */
        cute_mbarrier_arrive_and_expect_tx(c, stage_barrier(c, p->full, s), u32(c, p->tx_bytes));
    if (tma && p->pair) ctx_close(c);
}

void cute_pipeline_producer_acquire_bytes(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s,
                                          cute_val token, cute_val bytes)
{
    if (!state_fits(c, p, s, "cute_pipeline_producer_acquire_bytes")) return;
    if (p->kind != CUTE_PIPELINE_TMA_ASYNC && p->kind != CUTE_PIPELINE_TMA_UMMA) {
        cute_ctx_fail(c, "cute_pipeline_producer_acquire_bytes: a pipeline whose copies complete no bytes "
                         "(PipelineTmaAsync or PipelineTmaUmma only)");
        return;
    }
    wait_unless(c, p->empty, s, token);
    cute_mbarrier_arrive_and_expect_tx(c, stage_barrier(c, p->full, s), cute_val_cvt(c, bytes, CUTE_U32));
}

void cute_pipeline_producer_commit(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s)
{
    if (!state_fits(c, p, s, "cute_pipeline_producer_commit")) return;
    if (p->kind == CUTE_PIPELINE_ASYNC) cute_mbarrier_arrive(c, stage_barrier(c, p->full, s));
    if (p->kind == CUTE_PIPELINE_UMMA_ASYNC && p->pair)
        cute_tcgen05_commit_multicast(c, stage_barrier(c, p->full, s), p->peers);
    else if (p->kind == CUTE_PIPELINE_UMMA_ASYNC)
        cute_tcgen05_commit(c, stage_barrier(c, p->full, s));
}

cute_val cute_pipeline_producer_barrier(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s)
{
    if (!state_fits(c, p, s, "cute_pipeline_producer_barrier")) return (cute_val){0, cute_type_ptr(CUTE_U64, CUTE_SMEM), 0};
    if (p->pair) return cute_mapa(c, stage_barrier(c, p->full, s), pair_leader(c)); /* the leader's */
    return stage_barrier(c, p->full, s);
}

void cute_pipeline_producer_tail(cute_ctx *c, const cute_pipeline *p, cute_pipeline_state *s)
{
    if (!state_fits(c, p, s, "cute_pipeline_producer_tail")) return;
    for (int i = 0; i < p->stages; i++) {
        cute_mbarrier_wait(c, stage_barrier(c, p->empty, s), s->phase);
        cute_pipeline_state_advance(c, s);
    }
}

cute_val cute_pipeline_consumer_try_wait(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s)
{
    if (!state_fits(c, p, s, "cute_pipeline_consumer_try_wait")) return (cute_val){0, cute_type_of(CUTE_I1), 0};
    return cute_mbarrier_try_wait(c, stage_barrier(c, p->full, s), s->phase);
}

void cute_pipeline_consumer_wait(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s, cute_val token)
{
    if (state_fits(c, p, s, "cute_pipeline_consumer_wait")) wait_unless(c, p->full, s, token);
}

/* in a cluster: lane r of the warp releases the stage of block r when r is a peer */
static void release_in_cluster(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s)
{
    cute_val lane = cute_int_value(c, cute_lane_idx(c), CUTE_U32);
    cute_val bit = cute_val_binop(c, CUTE_OP_AND, cute_val_binop(c, CUTE_OP_SHR, p->peers, lane), u32(c, 1));
    ctx_open_if(c, cute_val_cmp(c, CUTE_OP_NE, bit, u32(c, 0)).r);
    cute_mbarrier_arrive_cluster_cta(c, stage_barrier(c, p->empty, s), lane); /* no cluster-wide fence */
    ctx_close(c);
}

void cute_pipeline_consumer_release(cute_ctx *c, const cute_pipeline *p, const cute_pipeline_state *s)
{
    if (!state_fits(c, p, s, "cute_pipeline_consumer_release")) return;
    if (p->pair && p->kind == CUTE_PIPELINE_TMA_UMMA)
        cute_tcgen05_commit_multicast(c, stage_barrier(c, p->empty, s), p->peers);
    else if (p->pair) /* to the leader's empty stage */
        cute_mbarrier_arrive_cluster(c, stage_barrier(c, p->empty, s), pair_leader(c));
    else if (p->peers.r) release_in_cluster(c, p, s);
    else if (p->kind == CUTE_PIPELINE_TMA_UMMA) cute_tcgen05_commit(c, stage_barrier(c, p->empty, s));
    else cute_mbarrier_arrive(c, stage_barrier(c, p->empty, s));
}
