/* HSTU attention (cutec/hstu.h) on the Hopper forward's machinery (hopper_fwd.c): one block of
 * three warpgroups per (128-row Q tile, head, batch), warp-specialized:
 *
 *   warpgroup 0, the producer: one elected thread loads Q's tile once, then for every key
 *     tile n RAB(n) (the (bm, 128) tile of RAB (B, H, Sq, Sk): 128-byte swizzled boxes of 64
 *     keys), K(n) and V(n) by TMA, each into the stages of its PipelineTmaAsync;
 *   the consumers, 64 query rows a warpgroup: wait RAB(n), S = RAB(n) read from its swizzled
 *     tile into the wgmma's accumulator fragment (f32; conflict-free: a row's 16-byte chunk
 *     moves with the row), release RAB(n); S += Q K(n)^T by wgmma (SS, accumulating); P =
 *     silu(S) (hstu.c's), causal diagonal tiles P = 0 past the query; O += P V(n) by wgmma
 *     (RS: P in registers as the A operand).  The consumers take turns issuing their
 *     GEMMs (hopper_roles.c's ring), so that one's SiLU runs under another's GEMMs; S(n) and
 *     P(n-1) V(n-1) are issued together, as the forward does.
 *
 * No softmax: no row max, no rescale of O, no division; O is converted and stored once.  TMA
 * clips every box at the tensors' extents (zeros past Sq and Sk), so keys past Sk give S = 0
 * and silu(0) = 0 with no mask: only causal needs one.  RAB is read once (2 B H Sq Sk bytes:
 * 2.1 GB at 4 x 4 x 8192^2), its stages beside K's and V's: 128-key tiles (the forward's 160
 * leave no room for two stages of RAB at head dim 128).  A block a tile (no persistent
 * grid).  AUTO's choice on sm_90 (hstu.c's hstu_takes_hopper); CUTEC_HSTU_VARIANT=sm80 the
 * SM80 kernel.
 * Jagged batches (hh_jagged_kernel) in hstu.c's grid and tiles, the boxes from each
 * sequence's first row, the keys past it masked. */
#include <stdio.h>
#include <stdlib.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/attention/attention_internal.h"

enum { WARPGROUP = 128, RAB_KEYS = 128, RAB_BOX = 64 };

/* the Hopper forward's plan and what HSTU adds to it */
typedef struct hh_plan {
    attn_plan p;
    bool fast;            /* the sigmoid's form (hstu_silu) */
    bool jagged;          /* packed sequences (cutec/hstu.h): hh_jagged_kernel */
    cute_composed smem_r; /* RAB's (bm, bn, stages) tile */
    cute_tma_atom tma_r;  /* boxes (1, 1, bm, 64) of RAB */
} hh_plan;

/* the forward's tiles and pipelines, and RAB's */
typedef struct hh_smem {
    attn_hop_smem f;
    cute_tensor r; /* (bm,bn,stages) */
    cute_pipeline pr;
} hh_smem;

/* what both roles read */
typedef struct hh_job {
    const hh_plan *hp;
    const hh_smem *m;
    const attn_block *t;
    cute_val map_q, map_k, map_v, map_r;
    cute_tensor tq, tk, tr; /* the coordinate tensors of Q, K (V's alike) and RAB */
    cute_int qb;            /* the batch of Q's and K's rows: t->b, or 0 jagged (t->b the sequence) */
} hh_job;

/* RAB's tile n of the block's rows into the stage s of its shared tile, box by box */
static void load_rab(cute_ctx *c, const hh_job *j, cute_int n, cute_tensor s, cute_val bar)
{
    cute_alg *a = cute_ctx_alg(c);
    const attn_plan *p = &j->hp->p;
    long long bm = p->bm;
    cute_tuple box = cute_tuple_fmt(a, "(1,1,%lld,%d)", bm, RAB_BOX);
    cute_tuple block = cute_tuple_fmt(a, "(%lld,%d)", bm, RAB_BOX);
    cute_layout as4 = cute_layout_fmt(a, "(1,1,%lld,%d):(0,0,1,%lld)", bm, RAB_BOX, bm);
    cute_tiler four = cute_tiler_layout(&as4);
    cute_tuple by_mode = cute_tuple_parse(a, "(1,1,1,1)");
    for (int64_t i = 0; i < p->bn / RAB_BOX; i++) {
        cute_int col = cute_add(a, cute_mul(a, n, cute_i(p->bn / RAB_BOX)), cute_i(i));
        cute_tensor g = cute_tensor_local_tile(c, j->tr, box, cute_tuple_fmt(a, "(%I,%I,%I,%I)", j->t->b, j->t->h,
                                                                            j->t->m_block, col), NULL);
        cute_tensor si = cute_tensor_local_tile(c, s, block, cute_tuple_fmt(a, "(0,%lld)", (long long)i), NULL);
        si = cute_tensor_compose(c, si, &four);
        si.layout = cute_coalesce_profile(a, &si.layout, &by_mode);
        cute_tma_copy(c, &j->hp->tma_r, j->map_r, g, si, (cute_tma_copy_opts){.bar = bar});
    }
}

/* K(n) or V(n) into the stage of its pipeline */
static void produce_kv(cute_ctx *c, const hh_job *j, const cute_pipeline *pipe, const cute_tma_atom *atom,
                       cute_val map, cute_tensor smem, cute_int n, const cute_pipeline_state *s)
{
    cute_pipeline_producer_acquire(c, pipe, s, (cute_val){0});
    attn_hop_load_rows(c, &j->hp->p, atom, map, j->tk, j->qb, n, j->t->hk, attn_hop_stage(c, smem, 3, s),
                       cute_pipeline_producer_barrier(c, pipe, s));
    cute_pipeline_producer_commit(c, pipe, s);
}

/* Q, then RAB(n), K(n) and V(n) of every key tile (one state: their stages go in step) */
static void produce(cute_ctx *c, void *arg, cute_int tid)
{
    (void)tid;
    const hh_job *j = arg;
    const attn_plan *p = &j->hp->p;
    const hh_smem *m = j->m;
    cute_pipeline_state sq = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    cute_pipeline_producer_acquire(c, &m->f.pq, &sq, (cute_val){0});
    attn_hop_load_rows(c, p, &p->tma_q, j->map_q, j->tq, j->qb, j->t->m_block, j->t->h, m->f.q,
                       cute_pipeline_producer_barrier(c, &m->f.pq, &sq));
    cute_pipeline_producer_commit(c, &m->f.pq, &sq);
    CUTE_FOR(c, n, j->t->n_begin, j->t->n_end) {
        cute_pipeline_producer_acquire(c, &m->pr, &s, (cute_val){0});
        load_rab(c, j, n, attn_hop_stage(c, m->r, 3, &s), cute_pipeline_producer_barrier(c, &m->pr, &s));
        cute_pipeline_producer_commit(c, &m->pr, &s);
        produce_kv(c, j, &m->f.pk, &p->tma_k, j->map_k, m->f.k, n, &s);
        produce_kv(c, j, &m->f.pv, &p->tma_v, j->map_v, m->f.v, n, &s);
        cute_pipeline_state_advance(c, &s);
    }
}

/* a consumer thread's views and registers */
typedef struct hh_frag {
    cute_thr_mma qk, pv;
    cute_tensor sQ, sK, sVt;   /* the wgmma's views of the shared tiles */
    cute_tensor acc_s, acc_o;  /* S's and O's f32 accumulators */
    cute_tensor rp;            /* P in the dtype, shaped as S's accumulators */
    cute_pipeline_state r, k, v;
    cute_val wg;               /* the thread's warpgroup: its turn in the ring */
} hh_frag;

/* S = RAB(n): its tile's elements of the thread, from the stage, in f32 */
static void scores_from_rab(cute_ctx *c, const hh_job *j, hh_frag *f)
{
    cute_pipeline_consumer_wait(c, &j->m->pr, &f->r, (cute_val){0});
    cute_tensor r = cute_partition_C(c, f->qk, attn_hop_stage(c, j->m->r, 3, &f->r));
    cute_tensor_store(c, f->acc_s, cute_ssa_cvt(c, cute_tensor_load(c, r), CUTE_F32));
    cute_pipeline_consumer_release(c, &j->m->pr, &f->r);
    cute_pipeline_state_advance(c, &f->r);
}

/* issue S += Q K(n)^T (a wgmma batch; S holds RAB(n)) */
static void issue_scores(cute_ctx *c, const hh_job *j, const hh_frag *f)
{
    cute_pipeline_consumer_wait(c, &j->m->f.pk, &f->k, (cute_val){0});
    cute_warpgroup_arrive(c);
    cute_gemm(c, &j->hp->p.mma, f->acc_s, f->sQ, attn_hop_stage(c, f->sK, 4, &f->k), f->acc_s);
    cute_warpgroup_commit_batch(c);
}

/* issue O += P V(n) (P read as the RS wgmma's A operand) */
static void issue_attend(cute_ctx *c, const hh_job *j, const hh_frag *f)
{
    cute_layout as_a = attn_c_as_a(cute_ctx_alg(c), &f->acc_s.layout);
    cute_tiler ta = cute_tiler_layout(&as_a);
    cute_tensor pa = cute_tensor_compose(c, f->rp, &ta);
    cute_pipeline_consumer_wait(c, &j->m->f.pv, &f->v, (cute_val){0});
    cute_warpgroup_arrive(c);
    cute_gemm(c, &j->hp->p.pv, f->acc_o, pa, attn_hop_stage(c, f->sVt, 4, &f->v), f->acc_o);
    cute_warpgroup_commit_batch(c);
}

/* the batch's wgmmas before `pending` have retired: release their stage, on to the next */
static void retire(cute_ctx *c, int pending, const cute_pipeline *pipe, cute_pipeline_state *s)
{
    cute_warpgroup_wait(c, pending);
    cute_pipeline_consumer_release(c, pipe, s);
    cute_pipeline_state_advance(c, s);
}

/* S(n) = silu(S(n)), 0 past the query on causal diagonal tiles (keys past Sk hold 0 already;
 * jagged, they are the next sequence's: 0 past the sequence's keys too) */
static void activate(cute_ctx *c, const hh_job *j, const hh_frag *f, cute_int n)
{
    const attn_plan *p = &j->hp->p;
    cute_tensor_store(c, f->acc_s, hstu_silu(c, cute_tensor_load(c, f->acc_s), j->hp->fast));
    if (!p->cfg.causal && !j->hp->jagged) return;
    /* (partitioned here: inside the branch the tracer cannot tell which threads run) */
    cute_tensor coords = cute_partition_C(c, f->qk, CUTE_SLICE(c, j->t->cS, CUTE_ALL, CUTE_ALL, n));
    CUTE_IF(c, attn_needs_mask(c, p, j->t, n)) {
        attn_mask_band_fill(c, f->acc_s, coords, j->t->sk, attn_cfg_band(&p->cfg), 0);
    }
}

static void to_p(cute_ctx *c, const hh_job *j, const hh_frag *f)
{
    cute_tensor_store(c, f->rp, cute_ssa_cvt(c, cute_tensor_load(c, f->acc_s), j->hp->p.cfg.dtype));
}

/* tid: the thread's index among the consumers.  Tile n: S(n) = RAB(n) before the turn; in
 * the turn S(n) += Q K(n)^T and O += P(n-1) V(n-1) issued; once S(n) is in, its SiLU; once
 * P(n-1) V(n-1) is in, P(n) in P's registers */
static void consume(cute_ctx *c, void *arg, cute_int tid)
{
    const hh_job *j = arg;
    const attn_plan *p = &j->hp->p;
    const hh_smem *m = j->m;
    const attn_block *t = j->t;
    cute_alg *a = cute_ctx_alg(c);
    int ring = p->consumers;
    hh_frag f;
    f.qk = cute_tiled_mma_slice(&p->mma, tid), f.pv = cute_tiled_mma_slice(&p->pv, tid);
    f.sQ = cute_partition_A(c, f.qk, m->f.q);
    f.sK = cute_partition_B(c, f.qk, m->f.k);
    f.sVt = cute_partition_B(c, f.pv, m->f.vt);
    f.acc_s = cute_partition_fragment_C(c, f.qk, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, 0));
    f.acc_o = cute_partition_fragment_C(c, f.pv, t->gO);
    f.rp = cute_make_fragment_A(c, &p->pv, f.acc_s);
    f.r = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    f.k = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    f.v = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, p->stages);
    cute_pipeline_state sq = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    f.wg = attn_hop_ring_start(c, tid, ring);
    cute_fill(c, f.acc_o, 0);
    cute_pipeline_consumer_wait(c, &m->f.pq, &sq, (cute_val){0});
    scores_from_rab(c, j, &f);
    attn_hop_ring_turn(c, f.wg, ring);
    issue_scores(c, j, &f);
    attn_hop_ring_pass(c, f.wg, ring);
    retire(c, 0, &m->f.pk, &f.k);
    activate(c, j, &f, t->n_begin);
    to_p(c, j, &f);
    CUTE_FOR(c, n, cute_add(a, t->n_begin, cute_i(1)), t->n_end) {
        scores_from_rab(c, j, &f);
        attn_hop_ring_turn(c, f.wg, ring);
        issue_scores(c, j, &f);
        issue_attend(c, j, &f);
        attn_hop_ring_pass(c, f.wg, ring);
        retire(c, 1, &m->f.pk, &f.k); /* S(n) is in */
        activate(c, j, &f, n);
        retire(c, 0, &m->f.pv, &f.v); /* P(n-1) V(n-1) is in: P's registers are free */
        to_p(c, j, &f);
    }
    cute_pipeline_consumer_release(c, &m->f.pq, &sq); /* (one tile a block: nothing waits for it) */
    attn_hop_ring_turn(c, f.wg, ring);
    issue_attend(c, j, &f);
    attn_hop_ring_pass(c, f.wg, ring);
    retire(c, 0, &m->f.pv, &f.v);
    attn_hop_ring_end(c, f.wg);
    attn_store_o(c, p, f.pv, t, f.acc_o);
}

static hh_smem shared_memory(cute_ctx *c, const hh_plan *hp)
{
    const attn_plan *p = &hp->p;
    cute_smem_allocator al = cute_smem_allocator_new(c);
    hh_smem m;
    m.f = attn_hop_shared_memory(c, p, &al);
    m.r = cute_smem_alloc_tensor_composed(c, &al, p->cfg.dtype, hp->smem_r, 16);
    m.pr = cute_pipeline_tma_async_create(c, &al, p->stages, p->consumers * WARPGROUP,
                                          hp->tma_r.bytes * (p->bn / RAB_BOX));
    return m;
}

static void hh_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mR, cute_tensor mO,
                      cute_val map_q, cute_val map_k, cute_val map_v, cute_val map_r)
{
    const hh_plan *hp = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    hh_smem m = shared_memory(c, hp);
    attn_block t = attn_block_tiles(c, &hp->p, mQ, mK, mV, mO, mO);
    hh_job j = {hp, &m, &t, map_q, map_k, map_v, map_r, cute_make_identity_tensor(c, mQ.layout.shape),
                cute_make_identity_tensor(c, mK.layout.shape), cute_make_identity_tensor(c, mR.layout.shape), t.b};
    attn_hop_roles_n(c, hp->p.consumers, produce, consume, &j);
}

/* jagged: sequence b's block (hstu_jagged_tiles, in hstu.c's grid); TMA's boxes start at the
 * sequence's first row and run on into the next sequence's rows, which the mask (activate)
 * and O's predicated store leave out.  A block with no rows (past its sequence's last Q tile,
 * or an empty sequence) still runs one key tile, all of it masked, and stores nothing: the
 * roles' loops assume one (and a branch around them hides from the tracer which threads run) */
static void hh_jagged_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mR,
                             cute_tensor mO, cute_tensor mOff, cute_val map_q, cute_val map_k, cute_val map_v,
                             cute_val map_r)
{
    const hh_plan *hp = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    hh_smem m = shared_memory(c, hp);
    const cute_tensor ms[5] = {mQ, mK, mV, mO, mO};
    cute_int start;
    attn_block t = hstu_jagged_tiles(c, &hp->p, ms, mR, mOff, &start);
    cute_alg *a = cute_ctx_alg(c);
    t.n_end = cute_max(a, t.n_end, cute_add(a, t.n_begin, cute_i(1)));
    cute_tuple from = CUTE_CRD(0, start, 0, 0);
    hh_job j = {hp, &m, &t, map_q, map_k, map_v, map_r,
                cute_tensor_domain_offset(c, cute_make_identity_tensor(c, mQ.layout.shape), from),
                cute_tensor_domain_offset(c, cute_make_identity_tensor(c, mK.layout.shape), from),
                cute_make_identity_tensor(c, mR.layout.shape), cute_i(0)};
    attn_hop_roles_n(c, hp->p.consumers, produce, consume, &j);
}

static void hh_host(cute_ctx *c, const cute_arg *arg)
{
    hh_plan *hp = cute_ctx_user(c); /* the atoms join the plan: the kernel reads them */
    attn_plan *p = &hp->p;
    cute_alg *a = cute_ctx_alg(c);
    p->tma_q = attn_hop_box_atom(c, p, arg[0].tensor, p->bm);
    p->tma_k = attn_hop_box_atom(c, p, arg[1].tensor, p->bn);
    p->tma_v = attn_hop_box_atom(c, p, arg[2].tensor, p->bn);
    cute_layout box = cute_layout_fmt(a, "(1,1,%lld,%d):(0,0,%d,1)", (long long)p->bm, RAB_BOX, RAB_BOX);
    hp->tma_r = cute_make_tma_atom(c, CUTE_TMA_OP_LOAD, arg[3].tensor, box, hp->smem_r.sw, 1);
    const cute_int *e = arg[0].tensor.layout.shape.leaf; /* (B, Sq, H, D); jagged (1, T, H, D) */
    if (hp->jagged) {
        CUTE_LAUNCH(c, hh_jagged_kernel, hstu_jagged_grid(a, p, arg), arg[0].tensor,
                    arg[1].tensor, arg[2].tensor, arg[3].tensor, arg[4].tensor, arg[HSTU_OFFSETS].tensor, p->tma_q.map,
                    p->tma_k.map, p->tma_v.map, hp->tma_r.map);
        return;
    }
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0]}, .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, hh_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor, arg[4].tensor,
                p->tma_q.map, p->tma_k.map, p->tma_v.map, hp->tma_r.map);
}

/* the Hopper forward's tiles (not its own choices: the uniform warpgroup index, the mask's
 * split, the epilogue's, ... are its consume's), 128-row Q tiles (two consumer warpgroups;
 * the forward's 192 rows at d64 spill 4 bytes here, its three warpgroups at 160 registers)
 * and 128-key tiles, RAB's (128, 128) tile in each stage */
static bool plan(cute_alg *a, const cute_hstu_config *cfg, int arch, hh_plan *hp)
{
    cute_attention_config ac = {.dtype = cfg->dtype, .head_dim = cfg->head_dim, .causal = cfg->causal,
                                .block_m = 128, .block_n = RAB_KEYS};
    if (!attn_plan_hopper_tiles(a, &ac, arch, &hp->p)) return false;
    attn_plan *p = &hp->p;
    if (!attn_plan_hopper_extra(a, p, p->bm * p->bn * cute_dtype_bytes(cfg->dtype))) return false;
    hp->smem_r = attn_hop_tile(a, cfg->dtype, p->bm, p->bn, p->stages);
    hp->fast = cfg->fast_sigmoid, hp->jagged = cfg->jagged;
    return !a->failed;
}

const cute_fn *hstu_hopper_compile(cute_runtime *rt, const cute_hstu_config *cfg, char *err, size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    hh_plan *hp = calloc(1, sizeof *hp);
    if (!hp || !plan(&a, cfg, cute_runtime_target_arch(rt), hp)) {
        snprintf(err, n, "hstu %s", hp ? a.error : "attention: out of memory");
        free(hp);
        return NULL;
    }
    cute_arg_spec specs[HSTU_JAGGED_NARGS];
    hstu_arg_specs(cfg, specs);
    char name[96];
    snprintf(name, sizeof name, "hstu_hopper_%s_d%dx%lld_m%lld_s%d%s%s%s", cute_dtype_name(cfg->dtype), cfg->head_dim,
             (long long)hp->p.bn, (long long)hp->p.bm, hp->p.stages, cfg->causal ? "_causal" : "",
             cfg->fast_sigmoid ? "_fastsig" : "", cfg->jagged ? "_jagged" : "");
    const cute_fn *f = cute_compile(rt, name, hh_host, hp, cfg->jagged ? HSTU_JAGGED_NARGS : 5, specs, err, n);
    free(hp); /* only needed while tracing */
    return f;
}
