/* The Hopper forward, FlashAttention 3's shape (CuTe DSL's hopper/fmha.py): one block of
 * three warpgroups per (128-row Q tile, head, batch), warp-specialized:
 *
 *   warpgroup 0, the producer: one elected thread loads Q's tile once, then K(n) and V(n)
 *     of every key tile by TMA into the stages of two PipelineTmaAsync (K's and V's), as far
 *     ahead as the stages allow;
 *   warpgroups 1 and 2, the consumers, 64 query rows each: wait K(n), S = Q K(n)^T by wgmma
 *     from the swizzled tiles, release K(n); mask where needed, the online softmax on the
 *     accumulator fragment (softmax.c: the same code as the SM80 kernel's, the wgmma's C
 *     fragment being m16n8's repeated along N); P converted to f16/bf16 in registers; wait
 *     V(n), O += P V(n) by wgmma with P as the A operand from registers (RS) and V^T read
 *     from V's tile as an MN-major B; release V(n).  Then O / l and the LSE (fwd_kernel.c's
 *     epilogue).
 *
 * The producer gives registers to the consumers (setmaxnreg 24 / 240: hopper_roles.c).  TMA clips the
 * tiles at Sq and Sk (zeros past them), so only the mask and the epilogue's predicate know
 * the sequence ends.  Nothing below computes an index by hand: the boxes are tiles of TMA
 * coordinate tensors, the stages slices picked by the pipeline's state. */
#include <math.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/attention/attention_internal.h"

enum { WARPGROUP = 128 };

typedef attn_hop_smem hop_smem;

/* the TMA maps of Q, K and V and their coordinate tensors (B,S,heads,D) */
typedef struct hop_maps {
    cute_val q, k, v;
    cute_tensor tq, tk;
} hop_maps;

/* what the roles (attn_hop_roles_n) read: the plan, the shared tiles, the maps, the call's
 * Q, K, V, O, LSE and the schedule of its tiles */
typedef struct hop_job {
    const attn_plan *p;
    const hop_smem *m;
    const hop_maps *x;
    cute_tensor t[5];
    attn_hop_sched sched;
    cute_val scale_log2;
} hop_job;

/* the tiles the block computes: the persistent grid's (hopper_sched.c), or with a block a
 * tile (p->sms 0) one */
static cute_int tiles_mine(cute_ctx *c, const hop_job *j)
{
    return j->p->sms ? attn_hop_sched_mine(c, &j->sched) : cute_i(1);
}

/* the block's w-th tile */
static attn_block tile_at(cute_ctx *c, const hop_job *j, cute_int w)
{
    const cute_tensor *t = j->t;
    if (!j->p->sms) return attn_block_tiles(c, j->p, t[0], t[1], t[2], t[3], t[4]);
    cute_int m, h, b;
    attn_hop_sched_tile(c, j->p, &j->sched, w, &m, &h, &b);
    /* with the fast finish, divided once here: the epilogue, after the key-tile loop (a
     * scope of its own), would divide again, on its way to O's addresses */
    if (j->p->fast_finish) m = cute_int_now(c, m), h = cute_int_now(c, h), b = cute_int_now(c, b);
    attn_seq seq = {b, b, cute_i(0), cute_i(0), t[0].layout.shape.leaf[1], t[1].layout.shape.leaf[1]};
    return attn_block_tiles_at(c, j->p, t, &seq, b, h, m);
}

/* Q's tile, or its stage of the state's (a staged tile has one mode more: `modes` counts the
 * unstaged tile's and the stage's) */
static cute_tensor q_stage(cute_ctx *c, const attn_plan *p, cute_tensor q, int modes, const cute_pipeline_state *s)
{
    return p->q_stages > 1 ? attn_hop_stage(c, q, modes, s) : q;
}

/* K(n) or V(n) into the stage of its pipeline */
static void produce_kv(cute_ctx *c, const attn_plan *p, const attn_block *t, const cute_pipeline *pipe,
                       const cute_tma_atom *atom, cute_val map, cute_tensor tk, cute_tensor smem, cute_int n,
                       const cute_pipeline_state *s)
{
    cute_pipeline_producer_acquire(c, pipe, s, (cute_val){0});
    attn_hop_load_rows(c, p, atom, map, tk, t->b, n, t->hk, attn_hop_stage(c, smem, 3, s),
                       cute_pipeline_producer_barrier(c, pipe, s));
    cute_pipeline_producer_commit(c, pipe, s);
}

/* a tile's Q, then K(n) and V(n) of every key tile it visits (the pipelines' states go on
 * from tile to tile; K's and V's stages go in step: one state) */
static void produce_tile(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, const hop_maps *x,
                         cute_pipeline_state *sq, cute_pipeline_state *skv)
{
    cute_pipeline_producer_acquire(c, &m->pq, sq, (cute_val){0});
    attn_hop_load_rows(c, p, &p->tma_q, x->q, x->tq, t->b, t->m_block, t->h, q_stage(c, p, m->q, 3, sq),
              cute_pipeline_producer_barrier(c, &m->pq, sq));
    cute_pipeline_producer_commit(c, &m->pq, sq);
    cute_pipeline_state_advance(c, sq);
    CUTE_FOR(c, n, t->n_begin, t->n_end) {
        produce_kv(c, p, t, &m->pk, &p->tma_k, x->k, x->tk, m->k, n, skv);
        produce_kv(c, p, t, &m->pv, &p->tma_v, x->v, x->tk, m->v, n, skv);
        cute_pipeline_state_advance(c, skv);
    }
}

static void producer(cute_ctx *c, const hop_job *j)
{
    const attn_plan *p = j->p;
    cute_pipeline_state sq = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->q_stages);
    cute_pipeline_state skv = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, p->stages);
    CUTE_FOR(c, w, cute_i(0), tiles_mine(c, j)) {
        attn_block t = tile_at(c, j, w);
        produce_tile(c, p, &t, j->m, j->x, &sq, &skv);
    }
}

/* a consumer thread's operands: its wgmma views of the shared tiles and its accumulators */
typedef struct hop_frag {
    cute_thr_mma qk, pv;
    cute_tensor sQ, sK, sVt; /* (MMA,M,K[,Q stages]); (MMA,N,K,stages) */
    cute_tensor acc_s, acc_o;
} hop_frag;

static hop_frag fragments(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, cute_int tid)
{
    hop_frag f;
    f.qk = cute_tiled_mma_slice(&p->mma, tid), f.pv = cute_tiled_mma_slice(&p->pv, tid);
    f.sQ = cute_partition_A(c, f.qk, m->q);
    f.sK = cute_partition_B(c, f.qk, m->k);
    f.sVt = cute_partition_B(c, f.pv, m->vt);
    f.acc_s = cute_partition_fragment_C(c, f.qk, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, 0));
    f.acc_o = cute_partition_fragment_C(c, f.pv, t->gO);
    return f;
}

/* issue acc_s = Q K^T of the states' Q and K tiles (a wgmma batch, not waited for) */
static void issue_scores(cute_ctx *c, const attn_plan *p, const hop_smem *m, const hop_frag *f,
                         const cute_pipeline_state *sq, const cute_pipeline_state *s)
{
    cute_pipeline_consumer_wait(c, &m->pk, s, (cute_val){0});
    cute_fill(c, f->acc_s, 0);
    cute_warpgroup_arrive(c);
    cute_gemm(c, &p->mma, f->acc_s, q_stage(c, p, f->sQ, 4, sq), attn_hop_stage(c, f->sK, 4, s), f->acc_s);
    cute_warpgroup_commit_batch(c);
}

/* issue acc_o += P V of the state's V tile: P (f16/bf16 registers laid out as S's
 * accumulators) read as the RS wgmma's A operand */
static void issue_attend(cute_ctx *c, const attn_plan *p, const hop_smem *m, const hop_frag *f, cute_tensor rp,
                         const cute_pipeline_state *s)
{
    cute_layout as_a = attn_c_as_a(cute_ctx_alg(c), &f->acc_s.layout);
    cute_tiler ta = cute_tiler_layout(&as_a);
    cute_tensor pa = cute_tensor_compose(c, rp, &ta);
    cute_pipeline_consumer_wait(c, &m->pv, s, (cute_val){0});
    cute_warpgroup_arrive(c);
    cute_gemm(c, &p->pv, f->acc_o, pa, attn_hop_stage(c, f->sVt, 4, s), f->acc_o);
    cute_warpgroup_commit_batch(c);
}

/* the batch's wgmmas before `pending` have retired: release their stage, on to the next */
static void retire(cute_ctx *c, int pending, const cute_pipeline *pipe, cute_pipeline_state *s)
{
    cute_warpgroup_wait(c, pending);
    cute_pipeline_consumer_release(c, pipe, s);
    cute_pipeline_state_advance(c, s);
}

/* which key tiles a loop masks: where the tile needs it (a branch), none, or every one */
typedef enum hop_mask { MASK_WHERE_NEEDED, MASK_NONE, MASK_EVERY } hop_mask;

/* S masked as `mask` says, then the softmax: P in place of S, O's factors in corr (O
 * rescaled every tile: FlashAttention 4's lazy rescale measured slower here, see
 * docs/attention.md) */
static void softmax(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_frag *f, attn_rows *r,
                    cute_int n, hop_mask mask, cute_val scale_log2, cute_val *corr)
{
    /* (partitioned here: in the branch below the tracer cannot tell which threads run) */
    cute_tensor coords = cute_partition_C(c, f->qk, CUTE_SLICE(c, t->cS, CUTE_ALL, CUTE_ALL, n));
    attn_band band = attn_cfg_band(&p->cfg);
    if (mask == MASK_EVERY) attn_mask_band(c, f->acc_s, coords, t->sk, band);
    if (mask == MASK_WHERE_NEEDED)
        CUTE_IF(c, attn_needs_mask(c, p, t, n)) { attn_mask_band(c, f->acc_s, coords, t->sk, band); }
    /* the softmax's diagnostics in the unmasked tiles alone (no -inf there, and the tiles'
     * first softmax keeps its own) */
    bool plain = mask == MASK_NONE;
    attn_p_form form = {plain && p->diag == ATTN_DIAG_NOEXP, plain && p->diag == ATTN_DIAG_NOSUM};
    attn_softmax_scores_as(c, r, f->acc_s, scale_log2, corr, form);
}

static void to_p(cute_ctx *c, const attn_plan *p, const hop_frag *f, cute_tensor rp)
{
    cute_tensor_store(c, rp, cute_ssa_cvt(c, cute_tensor_load(c, f->acc_s), p->cfg.dtype));
}

/* the pipelines' states of a consumer, going on from tile to tile, and its turn handle */
typedef struct hop_states {
    cute_pipeline_state q, k, v;
    cute_val wg;
} hop_states;

/* After the softmax of S(n): P(n-1) V(n-1) retired, V's stage released, O scaled by corr.  ptxas (CUDA 13) schedules the wait
 * (wgmma.wait_group 0) freely inside its basic block and puts it above the softmax's first
 * instruction: the softmax of S(n) runs once P(n-1) V(n-1) retired, and only the ping-pong
 * across the warpgroups overlaps it with GEMMs.  FlashAttention 3's orders, the softmax
 * before that wait (a branch ending the softmax's block) and O rescaled in the next turn
 * (between S(n+1)'s issue and P(n) V(n)'s), measured no faster on an H200 (sessions 29 and
 * 30, d128 8x16x4096: 644.8 and 663.1 TFLOP/s against 660.3 and 668.8 in the same runs;
 * 2x16x16384 641.9 against 724.2) and were removed in session 31.  (ptxas hoists any
 * wgmma wait to just below the wgmma issued before it, not for P's conversion alone: with P
 * in two register buffers the wait still stood above the exp2s.)  The softmax of S(n)
 * beside S(n+1)'s wgmma instead (two S accumulators, 96-key tiles, key tiles by pairs:
 * ptxas serializes a wgmma in flight across the loop's back edge) measured slower in
 * session 33 (8x16x4096 541.1, without the warpgroups' turns 612.6, against 663.4) and was
 * removed: docs/attention.md. */
static void after_softmax(cute_ctx *c, const hop_smem *m, const hop_frag *f, const attn_rows *r, const cute_val *corr,
                          hop_states *st)
{
    retire(c, 0, &m->pv, &st->v); /* O += P(n-1) V(n-1) is in */
    attn_rescale(c, r, f->acc_o, corr);
}

/* Key tile n after the first: S(n) = Q K(n)^T and O += P(n-1) V(n-1) issued together, in
 * the consumer's turn, then S(n)'s softmax (masked as `mask` says) and O's rescale */
static void key_tile(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, const hop_frag *f,
                     attn_rows *r, cute_tensor rp, hop_states *st, cute_int n, hop_mask mask, cute_val scale_log2)
{
    cute_val corr[8];
    attn_hop_ring_turn(c, st->wg, p->consumers);
    issue_scores(c, p, m, f, &st->q, &st->k);
    issue_attend(c, p, m, f, rp, &st->v);
    attn_hop_ring_pass(c, st->wg, p->consumers);
    retire(c, 1, &m->pk, &st->k); /* S(n) is in */
    if (p->diag == ATTN_DIAG_NOSOFTMAX) { /* a diagnostic, wrong by design: P = S, O never rescaled */
        retire(c, 0, &m->pv, &st->v);
        to_p(c, p, f, rp);
        return;
    }
    softmax(c, p, t, f, r, n, mask, scale_log2, corr);
    if (p->diag == ATTN_DIAG_NORESCALE) /* a diagnostic, wrong by design: O never rescaled */
        retire(c, 0, &m->pv, &st->v);
    else
        after_softmax(c, m, f, r, corr, st);
    to_p(c, p, f, rp);
}

/* The key tiles after the first.  One loop, each tile's mask behind a branch; or where the
 * plan splits it (p->split_mask; the band without a lower bound, as the Hopper forward's
 * always is), the tiles before the first that Sk or the band masks with no mask code at
 * all, then the rest each masked (from that tile on every one needs it: attn_band_hi_masked):
 * causal's diagonal, Sk's partial last tile.  The loops count in 32 bits (a sequence's key
 * tiles), and the boundary comes through a shuffle: ptxas (CUDA 13) otherwise recomputed
 * its 64-bit min/max chain from the tile's inputs inside the first loop, every tile (~40
 * uniform-datapath instructions; d64 causal's unmasked tile 491 instructions a warp with
 * it, 450 without) */
static void key_tiles(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, const hop_frag *f,
                      attn_rows *r, cute_tensor rp, hop_states *st, cute_val scale_log2)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int first = cute_add(a, t->n_begin, cute_i(1));
    attn_band band = attn_cfg_band(&p->cfg);
    if (!p->split_mask || band.has_lo) {
        CUTE_FOR(c, n, first, t->n_end) { key_tile(c, p, t, m, f, r, rp, st, n, MASK_WHERE_NEEDED, scale_log2); }
        return;
    }
    cute_int masked = attn_band_hi_masked(c, band, p->bm, p->bn, t->sk, t->m_block);
    cute_val mid32 = cute_int_value(c, cute_max(a, first, cute_min(a, t->n_end, masked)), CUTE_I32);
    mid32 = cute_val_shfl(c, mid32, cute_val_int(c, CUTE_I32, 0), CUTE_SHFL_IDX);
    cute_val end32 = cute_int_value(c, t->n_end, CUTE_I32);
    cute_int mid = cute_min(a, cute_int_from_val(c, mid32, 1), cute_i(1 << 30));
    cute_int end = cute_min(a, cute_int_from_val(c, end32, 0), cute_i(1 << 30));
    CUTE_FOR(c, n, first, mid) { key_tile(c, p, t, m, f, r, rp, st, n, MASK_NONE, scale_log2); }
    CUTE_FOR(c, n, mid, end) { key_tile(c, p, t, m, f, r, rp, st, n, MASK_EVERY, scale_log2); }
}

/* One tile.  S(n) = Q K(n)^T and O += P(n-1) V(n-1) are issued together, then the softmax
 * of S(n) and O's rescale (after_softmax: ptxas waits for both GEMMs first); the consumer
 * warpgroups take turns issuing (attn_hop_ring_turn: hopper_roles.c), so that one's softmax
 * runs while another's GEMMs do.  Q's stage is released after the tile's last softmax. */
static void consume_tile(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, cute_int tid,
                         hop_states *st, cute_val scale_log2)
{
    cute_alg *a = cute_ctx_alg(c);
    hop_frag f = fragments(c, p, t, m, tid);
    cute_fill(c, f.acc_o, 0);
    cute_layout rows_mode = cute_get(a, &f.acc_o.layout, 1);
    attn_rows r = attn_rows_start(c, 2 * (int)cute_size(a, &rows_mode).v);
    /* P(n-1), shaped as S's accumulators: the RS wgmma's A operand, in its packed words */
    cute_tensor rp = cute_make_fragment_A(c, &p->pv, f.acc_s);
    cute_pipeline_consumer_wait(c, &m->pq, &st->q, (cute_val){0});
    int ring = p->consumers;
    cute_val corr[8];
    attn_hop_ring_turn(c, st->wg, ring);
    issue_scores(c, p, m, &f, &st->q, &st->k);
    attn_hop_ring_pass(c, st->wg, ring);
    retire(c, 0, &m->pk, &st->k);
    softmax(c, p, t, &f, &r, t->n_begin, MASK_WHERE_NEEDED, scale_log2, corr); /* (O is 0: no rescale) */
    to_p(c, p, &f, rp);
    key_tiles(c, p, t, m, &f, &r, rp, st, scale_log2);
    cute_pipeline_consumer_release(c, &m->pq, &st->q); /* every S of the tile has retired */
    cute_pipeline_state_advance(c, &st->q);
    attn_hop_ring_turn(c, st->wg, ring);
    issue_attend(c, p, m, &f, rp, &st->v);
    attn_hop_ring_pass(c, st->wg, ring);
    retire(c, 0, &m->pv, &st->v);
    attn_epilogue(c, p, f.pv, t, &r, f.acc_o, scale_log2);
}

/* 1 where warpgroup wg (the ring's index) has a row of tile t inside Sq, else 0 */
static cute_int tile_busy(cute_ctx *c, const attn_plan *p, const attn_block *t, cute_val wg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int row0 = cute_mul(a, t->m_block, cute_i(p->bm));
    cute_int first_row = cute_add(a, row0, cute_mul(a, cute_int_from_val(c, wg, 0), cute_i(64)));
    return cute_min(a, cute_i(1), cute_max(a, cute_i(0), cute_sub(a, t->sq, first_row)));
}

static void pass_turn(cute_ctx *c, const attn_plan *p, hop_states *st)
{
    attn_hop_ring_turn(c, st->wg, p->consumers);
    attn_hop_ring_pass(c, st->wg, p->consumers);
}

static void skip_stage(cute_ctx *c, const cute_pipeline *pipe, cute_pipeline_state *s)
{
    cute_pipeline_consumer_wait(c, pipe, s, (cute_val){0});
    cute_pipeline_consumer_release(c, pipe, s);
    cute_pipeline_state_advance(c, s);
}

/* With p->skip_idle, a warpgroup whose 64 rows of the tile all lie at or past Sq (a head's
 * last Q tile when bm does not divide Sq: d64's 192 rows, 11 tiles for 2048) computes
 * nothing: it takes each of the tile's turns of the ring and passes it on at once (the
 * others' GEMMs run without its share), and waits for and releases each of Q's, K's and V's
 * stages as consume_tile would (their barriers count every consumer thread); no epilogue
 * (no row of it is stored). */
static void idle_tile(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, hop_states *st)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_consumer_wait(c, &m->pq, &st->q, (cute_val){0});
    pass_turn(c, p, st); /* S(first) */
    skip_stage(c, &m->pk, &st->k);
    CUTE_FOR(c, n, cute_add(a, t->n_begin, cute_i(1)), t->n_end) { /* S(n) and P(n-1) V(n-1) */
        (void)n;
        pass_turn(c, p, st);
        skip_stage(c, &m->pk, &st->k);
        skip_stage(c, &m->pv, &st->v);
    }
    cute_pipeline_consumer_release(c, &m->pq, &st->q);
    cute_pipeline_state_advance(c, &st->q);
    pass_turn(c, p, st); /* the last P V */
    skip_stage(c, &m->pv, &st->v);
}

/* The tiles joined (p->join, the persistent grid only; CUTEC_ATTN_FWD_JOIN, hopper_plan.c):
 * consume_tile's two half batches at a tile's ends, its last P V alone and the next tile's
 * first S alone, each a turn of its own with a wait behind it, become one batch: the next
 * tile's S(0) and this tile's last P V issued together in one turn (as a key tile's S(n)
 * and P(n-1) V(n-1) are), then this tile's epilogue and the next tile's first softmax, which
 * ptxas may interleave (they share nothing but the row statistics, reset between them).  A
 * tile boundary is then one turn and one wait where it was two of each: the loop over the
 * block's tiles rotated, iteration w finishing tile w - 1 and starting tile w.  Every block of
 * the persistent grid has a tile at least (its grid is at most the tiles' count). */

/* the rows' statistics back to a tile's start: no key seen */
static void rows_reset(cute_ctx *c, attn_rows *r)
{
    for (int i = 0; i < r->n; i++) {
        cute_val_assign(c, r->m[i], cute_val_const(c, CUTE_F32, -INFINITY));
        cute_val_assign(c, r->l[i], cute_val_const(c, CUTE_F32, 0));
    }
}

/* a tile's first key tile, after its Q's wait: S(0) alone in a turn, its softmax */
static void first_scores(cute_ctx *c, const attn_plan *p, const attn_block *t, const hop_smem *m, const hop_frag *f,
                         attn_rows *r, cute_tensor rp, hop_states *st, cute_val scale_log2)
{
    cute_val corr[8];
    attn_hop_ring_turn(c, st->wg, p->consumers);
    issue_scores(c, p, m, f, &st->q, &st->k);
    attn_hop_ring_pass(c, st->wg, p->consumers);
    retire(c, 0, &m->pk, &st->k);
    softmax(c, p, t, f, r, t->n_begin, MASK_WHERE_NEEDED, scale_log2, corr); /* (O is 0: no rescale) */
    to_p(c, p, f, rp);
}

/* the key tiles of `prev` after its first, then Q's stage released (every S of it retired) */
static void finish_keys(cute_ctx *c, const attn_plan *p, const attn_block *prev, const hop_smem *m,
                        const hop_frag *f, attn_rows *r, cute_tensor rp, hop_states *st, cute_val scale_log2)
{
    key_tiles(c, p, prev, m, f, r, rp, st, scale_log2);
    cute_pipeline_consumer_release(c, &m->pq, &st->q);
    cute_pipeline_state_advance(c, &st->q);
}

/* tile `prev`'s last P V and tile t's S(0) in one turn, prev's epilogue, t's first softmax */
static void join_tiles(cute_ctx *c, const attn_plan *p, const attn_block *prev, const attn_block *t,
                       const hop_smem *m, const hop_frag *f, attn_rows *r, cute_tensor rp, hop_states *st,
                       cute_val scale_log2)
{
    cute_val corr[8];
    cute_pipeline_consumer_wait(c, &m->pq, &st->q, (cute_val){0});
    attn_hop_ring_turn(c, st->wg, p->consumers);
    issue_scores(c, p, m, f, &st->q, &st->k);
    issue_attend(c, p, m, f, rp, &st->v);
    attn_hop_ring_pass(c, st->wg, p->consumers);
    retire(c, 1, &m->pk, &st->k); /* t's S(0) is in */
    retire(c, 0, &m->pv, &st->v); /* prev's O is whole */
    attn_epilogue(c, p, f->pv, prev, r, f->acc_o, scale_log2);
    rows_reset(c, r);
    cute_fill(c, f->acc_o, 0);
    softmax(c, p, t, f, r, t->n_begin, MASK_WHERE_NEEDED, scale_log2, corr); /* (O is 0: no rescale) */
    to_p(c, p, f, rp);
}

static void consume_joined(cute_ctx *c, const hop_job *j, cute_int tid, hop_states *st)
{
    const attn_plan *p = j->p;
    cute_alg *a = cute_ctx_alg(c);
    cute_int mine = tiles_mine(c, j);
    attn_block t0 = tile_at(c, j, cute_i(0));
    hop_frag f = fragments(c, p, &t0, j->m, tid); /* (registers: their shapes are every tile's) */
    cute_fill(c, f.acc_o, 0);
    cute_layout rows_mode = cute_get(a, &f.acc_o.layout, 1);
    attn_rows r = attn_rows_start(c, 2 * (int)cute_size(a, &rows_mode).v);
    cute_tensor rp = cute_make_fragment_A(c, &p->pv, f.acc_s);
    cute_pipeline_consumer_wait(c, &j->m->pq, &st->q, (cute_val){0});
    first_scores(c, p, &t0, j->m, &f, &r, rp, st, j->scale_log2);
    CUTE_FOR(c, w, cute_i(1), mine) {
        attn_block prev = tile_at(c, j, cute_sub(a, w, cute_i(1)));
        finish_keys(c, p, &prev, j->m, &f, &r, rp, st, j->scale_log2);
        attn_block t = tile_at(c, j, w);
        join_tiles(c, p, &prev, &t, j->m, &f, &r, rp, st, j->scale_log2);
    }
    attn_block last = tile_at(c, j, cute_sub(a, mine, cute_i(1)));
    finish_keys(c, p, &last, j->m, &f, &r, rp, st, j->scale_log2);
    attn_hop_ring_turn(c, st->wg, p->consumers);
    issue_attend(c, p, j->m, &f, rp, &st->v);
    attn_hop_ring_pass(c, st->wg, p->consumers);
    retire(c, 0, &j->m->pv, &st->v);
    attn_epilogue(c, p, f.pv, &last, &r, f.acc_o, j->scale_log2);
}

/* tid: the thread's index among the consumers (0 .. 128 consumers - 1) */
static void consumer(cute_ctx *c, const hop_job *j, cute_int tid)
{
    hop_states st = {cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, j->p->q_stages),
                     cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, j->p->stages),
                     cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, j->p->stages),
                     attn_hop_ring_start(c, tid, j->p->consumers)};
    if (j->p->join && j->p->sms)
        consume_joined(c, j, tid, &st);
    else
        CUTE_FOR(c, w, cute_i(0), tiles_mine(c, j)) {
            attn_block t = tile_at(c, j, w);
            if (j->p->skip_idle) {
                /* loops of one pass or none, not a branch: the partitions in consume_tile are
                 * checked against the threads that run them, which the tracer can tell from a
                 * branch on the thread index alone, not on the tile's rows */
                cute_int busy = tile_busy(c, j->p, &t, st.wg);
                CUTE_FOR(c, once, cute_i(0), busy) {
                    (void)once;
                    consume_tile(c, j->p, &t, j->m, tid, &st, j->scale_log2);
                }
                CUTE_FOR(c, once, cute_i(0), cute_sub(cute_ctx_alg(c), cute_i(1), busy)) {
                    (void)once;
                    idle_tile(c, j->p, &t, j->m, &st);
                }
            } else {
                consume_tile(c, j->p, &t, j->m, tid, &st, j->scale_log2);
            }
        }
    attn_hop_ring_end(c, st.wg);
}

attn_hop_smem attn_hop_shared_memory(cute_ctx *c, const attn_plan *p, cute_smem_allocator *al)
{
    cute_dtype d = p->cfg.dtype;
    hop_smem m;
    m.q = cute_smem_alloc_tensor_composed(c, al, d, p->smem_q, 16);
    m.k = cute_smem_alloc_tensor_composed(c, al, d, p->smem_kv, 16);
    m.v = cute_smem_alloc_tensor_composed(c, al, d, p->smem_kv, 16);
    long long D = p->d, bn = p->bn;
    cute_layout tr = cute_layout_fmt(cute_ctx_alg(c), "(%lld,%lld,%d):(%lld,1,%lld)", D, bn, p->stages, bn, bn * D);
    cute_tiler t = cute_tiler_layout(&tr);
    m.vt = cute_tensor_compose(c, m.v, &t); /* V's stages seen as (D, bn, stages) */
    int threads = p->consumers * WARPGROUP;
    m.pq = cute_pipeline_tma_async_create(c, al, p->q_stages, threads, p->tma_q.bytes * attn_hop_boxes(p));
    m.pk = cute_pipeline_tma_async_create(c, al, p->stages, threads, p->tma_k.bytes * attn_hop_boxes(p));
    m.pv = cute_pipeline_tma_async_create(c, al, p->stages, threads, p->tma_v.bytes * attn_hop_boxes(p));
    return m;
}

static void produce(cute_ctx *c, void *arg, cute_int tid)
{
    (void)tid;
    producer(c, arg);
}

/* With p->wg_uniform (hopper_plan.c's WG_UNIFORM; the plan's atoms then build their
 * descriptors a stage) the consumer's index is attn_hop_uniform_tid's, held uniform */
static void consume(cute_ctx *c, void *arg, cute_int tid)
{
    const hop_job *j = arg;
    consumer(c, arg, j->p->wg_uniform ? attn_hop_uniform_tid(c, tid) : tid);
}

static void hopper_kernel(cute_ctx *c, cute_tensor mQ, cute_tensor mK, cute_tensor mV, cute_tensor mO,
                          cute_tensor mL, cute_val scale_log2, cute_val map_q, cute_val map_k, cute_val map_v)
{
    const attn_plan *p = cute_ctx_user(c);
    cute_kernel_min_blocks(c, 1);
    cute_smem_allocator al = cute_smem_allocator_new(c);
    hop_smem m = attn_hop_shared_memory(c, p, &al);
    hop_maps x = {map_q, map_k, map_v, cute_make_identity_tensor(c, mQ.layout.shape),
                  cute_make_identity_tensor(c, mK.layout.shape)};
    hop_job j = {p, &m, &x, {mQ, mK, mV, mO, mL}, attn_hop_sched_make(c, p, mQ), scale_log2};
    attn_hop_roles_n(c, p->consumers, produce, consume, &j);
}

void attn_hopper_host(cute_ctx *c, const cute_arg *arg)
{
    attn_plan *p = cute_ctx_user(c); /* the atoms join the plan: the kernel reads them */
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mQ = arg[0].tensor, mL = p->cfg.lse ? arg[5].tensor : arg[3].tensor;
    p->tma_q = attn_hop_box_atom(c, p, mQ, p->bm);
    p->tma_k = attn_hop_box_atom(c, p, arg[1].tensor, p->bn);
    p->tma_v = attn_hop_box_atom(c, p, arg[2].tensor, p->bn);
    const cute_int *e = mQ.layout.shape.leaf; /* (B, Sq, H, D) */
    attn_hop_sched s = attn_hop_sched_make(c, p, mQ);
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, e[1], cute_i(p->bm)), e[2], e[0]}, .block = {cute_i(p->threads)}};
    if (p->sms) cfg.grid[0] = attn_hop_sched_grid(c, p, &s), cfg.grid[1] = cfg.grid[2] = cute_i(1);
    CUTE_LAUNCH(c, hopper_kernel, cfg, mQ, arg[1].tensor, arg[2].tensor, arg[3].tensor, mL, arg[4].f,
                p->tma_q.map, p->tma_k.map, p->tma_v.map);
}
