/* The K-major kernels' shared-memory ring (cute_gemv_config.smem_stages): each warp streams
 * its rows' whole k-tiles and x's into `stages` buffers of its own by cp.async, stages - 1
 * k-tiles ahead of the one it multiplies, so that what a warp has in flight is set by the
 * ring's depth, not by its registers (docs/gemv.md, "The ring").  NVFP4's stages also hold
 * each lane's scale groups.  A lane reads back only what it copied itself (the same
 * TiledCopy partitions the global tile and the shared stage; each lane copies its own scale
 * groups), so the warp needs no barrier: the wait for its own copies (cp.async.wait_group)
 * orders them before its reads, and program order its reads of a stage before the copies
 * that later refill it.  A goes around L1 (.cg), x and the scales through it (.ca: every
 * warp of a batch reads the same x; a scale sector holds neighbouring rows').
 * cfg.ring_bulk fills the stages by bulk copies instead (cp.async.bulk: a lane a row's k-tile,
 * one x's), completing on an mbarrier a warp and stage; NVFP4's scales then move as 16-byte
 * quads, one cp.async a lane (bulk_walk below). */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "kernels/gemv/gemv_internal.h"

/* The scales as u32 groups of four, (rows, K / 64, L): the scale layout's tiles of 128 rows
 * by 4 scales are 128 words; row r = r0 + 32 r1 of a tile at word r0 * 4 + r1, K's tiles
 * next to each other, then the rows' tiles, then the batches (blockscaled.c's sf_layout,
 * four scales at a time) */
static cute_tensor sf_groups(cute_ctx *c, cute_tensor sf, cute_int rows, cute_int K, cute_int L)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int rm = cute_ceil_div(a, rows, cute_i(128)), rk = cute_ceil_div(a, K, cute_i(64));
    cute_int row_tiles = cute_mul(a, rk, cute_i(128)), batch = cute_mul(a, row_tiles, rm);
    sf.layout = cute_layout_parse(a, "(4):(1)");
    cute_tensor g = cute_tensor_recast(c, sf, CUTE_U32);
    g.layout = cute_layout_fmt(a, "(((32,4),%I),%I,%I):(((4,1),%I),128,%I)", rm, rk, L, row_tiles, batch);
    return g;
}

/* ... as 16-byte quads (gemv_sf_quad_layout), for the bulk ring */
static cute_tensor sf_quads(cute_ctx *c, cute_tensor sf, cute_int rows, cute_int K, cute_int L, int sfv)
{
    cute_alg *a = cute_ctx_alg(c);
    sf.layout = cute_layout_parse(a, "(4):(1)");
    cute_tensor q = cute_tensor_recast(c, sf, CUTE_U32);
    q.layout = gemv_sf_quad_layout(a, rows, K, L, sfv);
    return q;
}

/* the element type the ring holds: A's, or words of 8 e2m1 */
static cute_dtype ring_dtype(const gemv_plan *p)
{
    return p->words ? CUTE_U32 : p->cfg.dtype;
}

/* a k-tile's scale groups of 64 elements (NVFP4's: 8 words each) */
static int64_t ktile_groups(const gemv_plan *p)
{
    return p->ktile / 8;
}

int64_t gemv_ring_bytes(const gemv_plan *p)
{
    int64_t warps = p->threads / 32, tk = p->ktile, es = cute_dtype_bytes(ring_dtype(p));
    int64_t scales = !p->words ? 0 : p->cfg.ring_bulk ? 2 * 16 * ktile_groups(p) * warps : 4 * 32 * (p->rows + 1) * warps;
    int64_t bars = p->cfg.ring_bulk ? 8 * warps : 0;
    return p->cfg.smem_stages * (es * (warps * p->rows * tk + warps * tk) + scales + bars);
}

/* as many as an H100's or H200's 228 KB of shared memory an SM holds, 1 KB of it a block's */
int gemv_ring_blocks(const gemv_plan *p)
{
    int most = p->cfg.ring_bulk ? GEMV_RING_BULK_BLOCKS : GEMV_RING_BLOCKS;
    int64_t fit = 228 * 1024 / (gemv_ring_bytes(p) + 1024);
    return fit < 1 ? 1 : fit > most ? most : (int)fit;
}

gemv_ring gemv_ring_make(cute_ctx *c, const gemv_plan *p, const cute_tensor *sfa, const cute_tensor *sfb,
                         cute_int M, cute_int K, cute_int L)
{
    cute_alg *a = cute_ctx_alg(c);
    gemv_ring r = {.scales = sfa != NULL};
    int d = p->cfg.smem_stages, warps = p->threads / 32;
    long long tk = p->ktile, rows = warps * p->rows;
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_dtype e = ring_dtype(p);
    r.sA = cute_smem_alloc_tensor(c, &A, e, cute_layout_fmt(a, "(%lld,%lld,%d):(%lld,1,%lld)", rows, tk, d, tk, rows * tk),
                                  16);
    /* x once a warp: its rows read the first row's */
    r.sX = cute_smem_alloc_tensor(
        c, &A, e, cute_layout_fmt(a, "((%d,%d),%lld,%d):((0,%lld),1,%lld)", p->rows, warps, tk, d, tk, warps * tk), 16);
    if (p->cfg.ring_bulk) {
        r.bar = cute_smem_alloc_tensor(c, &A, CUTE_U64, cute_layout_fmt(a, "(%d,%d):(1,%d)", warps, d, warps), 8);
        CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
        {
            for (int i = 0; i < warps * d; i++) /* every (warp, stage) */
                cute_mbarrier_init(c, cute_tensor_ptr(c, r.bar, cute_i(i)), cute_val_int(c, CUTE_U32, 1));
            cute_mbarrier_init_fence(c);
        }
        cute_barrier(c);
    }
    if (!sfa) return r;
    if (p->cfg.ring_bulk) { /* a k-tile's quads of A's rows and of x's */
        long long g = ktile_groups(p);
        r.sQ = cute_smem_alloc_tensor(c, &A, CUTE_U32,
                                      cute_layout_fmt(a, "(4,%lld,2,%d,%d):(1,4,%lld,%lld,%lld)", g, warps, d, 4 * g,
                                                      8 * g, 8 * g * warps),
                                      16);
        cute_int k = cute_mul(a, K, cute_i(8)); /* K in words: elements */
        r.gQa = sf_quads(c, *sfa, M, k, L, p->cfg.sf_vec), r.gQb = sf_quads(c, *sfb, cute_i(1), k, L, p->cfg.sf_vec);
        r.scales = true;
        return r;
    }
    r.sS = cute_smem_alloc_tensor(
        c, &A, CUTE_U32,
        cute_layout_fmt(a, "(32,%d,%d,%d):(1,32,%d,%d)", p->rows + 1, warps, d, 32 * (p->rows + 1),
                        32 * (p->rows + 1) * warps),
        16);
    cute_int k = cute_mul(a, K, cute_i(8)); /* K in words: elements */
    r.gSa = sf_groups(c, *sfa, M, k, L), r.gSb = sf_groups(c, *sfb, cute_i(1), k, L);
    return r;
}

/* the one element of t at crd, as a tensor of one element */
static cute_tensor one_at(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    cute_tensor at = cute_tensor_domain_offset(c, t, crd);
    at.layout = cute_layout_parse(cute_ctx_alg(c), "(1):(1)");
    return at;
}

/* A lane's scale groups over the warp's k-tiles, (1, full):(1, step) from k-tile 0's (its
 * rows' and x's, x's last), and which half of a group is the lane's pair */
typedef struct ring_lane {
    cute_tensor g[GEMV_MAX_ROWS + 1];
    cute_val half;  /* the pair's shift in its group: 0 or 16 bits */
    cute_int group; /* the bulk ring: the lane's group of the k-tile's */
} ring_lane;

static ring_lane ring_lane_of(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                              const gemv_ring *r, cute_int full)
{
    cute_alg *a = cute_ctx_alg(c);
    ring_lane l = {0};
    if (!r->scales) return l;
    int64_t groups = p->ktile / 8; /* a k-tile's groups of 64 elements (8 words) */
    cute_tensor crd = cute_partition_S(c, th->thr, cute_tensor_slice(c, t->cA, CUTE_CRD(CUTE_ALL, CUTE_ALL, 0)));
    for (int row = 0; row < p->rows; row++) {
        cute_tensor cu = cute_tensor_slice(c, gemv_lane_row(c, p, crd, row), CUTE_CRD(CUTE_ALL, 0, 0));
        cute_int m = cu.coord.leaf[0], kw = cu.coord.leaf[1], g = cute_div(a, kw, cute_i(8));
        if (!p->cfg.ring_bulk) l.g[row] = gemv_scales_by_tile(c, r->gSa, CUTE_CRD(m, g, t->l), 1, groups, full);
        if (row) continue;
        if (p->cfg.ring_bulk)
            l.group = cute_mod(a, g, cute_i(groups));
        else
            l.g[p->rows] = gemv_scales_by_tile(c, r->gSb, CUTE_CRD(0, g, t->l), 1, groups, full);
        /* a vector (4 words) is half a group: the odd ones hold its upper pair */
        cute_int odd = cute_mod(a, cute_div(a, kw, cute_i(4)), cute_i(2));
        l.half = cute_val_binop(c, CUTE_OP_SHL, cute_int_value(c, odd, CUTE_U32), cute_val_int(c, CUTE_U32, 4));
    }
    return l;
}

/* the k-tile kt into stage s: A's rows and x by 16-byte copies, the scale groups by 4-byte */
static void ring_issue(cute_ctx *c, const gemv_plan *p, const gemv_tiles *t, const gemv_ring *r,
                       const ring_lane *l, cute_int kt, cute_int s)
{
    cute_tuple at = CUTE_CRD(CUTE_ALL, CUTE_ALL, kt), st = CUTE_CRD(CUTE_ALL, CUTE_ALL, s);
    cute_thr_copy ta = cute_tiled_copy_slice(&p->ring_a, cute_thread_idx(c, 0));
    cute_thr_copy tx = cute_tiled_copy_slice(&p->ring_x, cute_thread_idx(c, 0));
    cute_copy(c, &p->ring_a.atom, cute_partition_S(c, ta, cute_tensor_slice(c, t->gA, at)),
              cute_partition_D(c, ta, cute_tensor_slice(c, r->sA, st)));
    cute_copy(c, &p->ring_x.atom, gemv_lane_row(c, p, cute_partition_S(c, tx, cute_tensor_slice(c, t->gX[0], at)), 0),
              gemv_lane_row(c, p, cute_partition_D(c, tx, cute_tensor_slice(c, r->sX, st)), 0));
    if (!r->scales) return;
    cute_int lane = cute_lane_idx(c), warp = cute_warp_idx(c);
    for (int row = 0; row <= p->rows; row++)
        cute_copy(c, &p->ring_s, one_at(c, l->g[row], CUTE_CRD(0, kt)),
                  one_at(c, r->sS, CUTE_CRD(lane, row, warp, s)));
}

/* the lane's pair of a scale group (u32 word g, the pair `half` bits up) as a u16 register */
static cute_tensor pair_of(cute_ctx *c, cute_val g, cute_val half)
{
    cute_val v = cute_val_cvt(c, cute_val_binop(c, CUTE_OP_SHR, g, half), CUTE_U16);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_U16, cute_layout_parse(cute_ctx_alg(c), "(1):(1)"));
    cute_tensor_store(c, r, cute_ssa_scalar(c, v, r.layout.shape));
    return r;
}

/* `n` u32 words of shared tensor t into registers */
static cute_ssa words_at(cute_ctx *c, cute_tensor t, int n)
{
    cute_tensor w = cute_make_rmem_tensor(c, CUTE_U32, cute_layout_fmt(cute_ctx_alg(c), "(%d):(1)", n));
    cute_autovec_copy(c, t, w);
    return cute_tensor_load(c, w);
}

/* stage s's vectors of A's rows and of x into registers, as the lane's partition gives them */
static gemv_ring_tile stage_vectors(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_ring *r,
                                   cute_int s)
{
    cute_tuple st = CUTE_CRD(CUTE_ALL, CUTE_ALL, s);
    cute_tensor sA = cute_partition_S(c, th->thr, cute_tensor_slice(c, r->sA, st));
    cute_tensor sX = gemv_lane_row(c, p, cute_partition_S(c, th->thr, cute_tensor_slice(c, r->sX, st)), 0);
    gemv_ring_tile f = {.rA = cute_make_fragment_like(c, sA), .rX = cute_make_fragment_like(c, sX)};
    cute_copy(c, &p->tc.atom, sA, f.rA);
    cute_copy(c, &p->tc.atom, sX, f.rX);
    return f;
}

/* stage s read into registers */
static gemv_ring_tile ring_read(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_ring *r,
                                const ring_lane *l, cute_int s)
{
    gemv_ring_tile f = stage_vectors(c, p, th, r, s);
    if (!r->scales) return f;
    cute_int lane = cute_lane_idx(c), warp = cute_warp_idx(c);
    for (int row = 0; row <= p->rows; row++)
        f.pair[row] = pair_of(c, cute_ssa_get(c, words_at(c, one_at(c, r->sS, CUTE_CRD(lane, row, warp, s)), 1), 0), l->half);
    return f;
}

/* The bulk ring (cfg.ring_bulk): a lane's copies over the warp's whole k-tiles, their sources
 * by k-tile and destinations by stage, made once before the walk (the loop only steps them):
 * lane i < rows copies A's row i of the warp's (the block tile's row rows w + i), lane `rows`
 * x's; NVFP4's scales, lane j < 16 the quad of A's rows at the k-tile's group j, lane 16 + j
 * x's (a quad over the k-tiles: (4 words, k-tiles):(1, the scale layout's step of one)). */
typedef struct bulk_lane {
    cute_tensor a, sa, x, sx; /* A's row by k-tile (RestK) and its stages (stages); x's */
    cute_tensor qa, qb, sq;   /* A's and x's scale quads of the lane's group (4, k-tiles); the
                                 lane's quad's stages (4, stages) */
    cute_tensor bar;          /* the warp's mbarriers (stages) */
    cute_int lane;
} bulk_lane;

static bulk_lane bulk_lane_of(cute_ctx *c, const gemv_plan *p, const gemv_tiles *t, const gemv_ring *r,
                              cute_int full)
{
    cute_alg *a = cute_ctx_alg(c);
    bulk_lane b = {.lane = cute_lane_idx(c)};
    cute_int warp = cute_warp_idx(c), row0 = cute_mul(a, warp, cute_i(p->rows));
    cute_int row = cute_add(a, row0, cute_min(a, b.lane, cute_i(p->rows - 1)));
    b.a = cute_tensor_slice(c, t->gA, CUTE_CRD(row, 0, CUTE_ALL));
    b.sa = cute_tensor_slice(c, r->sA, CUTE_CRD(row, 0, CUTE_ALL));
    b.x = cute_tensor_slice(c, t->gX[0], CUTE_CRD(row0, 0, CUTE_ALL));
    b.sx = cute_tensor_slice(c, r->sX, CUTE_CRD(row0, 0, CUTE_ALL));
    b.bar = cute_tensor_slice(c, r->bar, CUTE_CRD(warp, CUTE_ALL));
    if (!r->scales) return b;
    int64_t g = ktile_groups(p), tk = p->ktile * 8; /* a k-tile's elements */
    /* the warp's first row (rows by scale tile: its others are +32, +64, +96, the quad's) and
     * the lane's group of k-tile 0 */
    cute_tensor cu = cute_tensor_slice(c, t->cA, CUTE_CRD(row0, CUTE_ALL, 0));
    cute_int j = cute_mod(a, b.lane, cute_i(g));
    cute_int kj = cute_add(a, cute_mul(a, cu.coord.leaf[1], cute_i(8)), cute_mul(a, j, cute_i(64)));
    b.qa = gemv_scales_by_tile(c, r->gQa, CUTE_CRD(cu.coord.leaf[0], kj, t->l), 4, tk, full);
    b.qb = gemv_scales_by_tile(c, r->gQb, CUTE_CRD(0, kj, t->l), 4, tk, full);
    b.sq = cute_tensor_slice(c, r->sQ, CUTE_CRD(CUTE_ALL, j, cute_div(a, b.lane, cute_i(g)), warp, CUTE_ALL));
    return b;
}

/* the k-tile kt into stage s of the warp, each copy issued by its lane (above): A's rows and
 * x's by cp.async.bulk, completing on the stage's mbarrier, which lane 0 arms with their bytes
 * (a copy may land before the arming: the phase waits for the one arrival too); NVFP4's scales
 * by cp.async, a 16-byte copy a lane into the lane's group of this k-tile (the caller commits
 * it).  (By bulk copies instead, 32 of 16 bytes a k-tile, ptxas loops over the lanes for each
 * copy whose operands are the lane's (ELECT, R2UR, UBLKCP: about 9 instructions a copy), some
 * 300 instructions a k-tile.) */
static void bulk_issue(cute_ctx *c, const gemv_plan *p, const gemv_ring *r, const bulk_lane *b, cute_int kt,
                       cute_int s)
{
    int64_t nb = p->ktile * cute_dtype_bytes(ring_dtype(p)), g = ktile_groups(p);
    cute_val bar = cute_tensor_ptr(c, b->bar, s), bytes = cute_val_int(c, CUTE_U32, nb);
    CUTE_IF(c, cute_int_eq(c, b->lane, cute_i(0)))
    {
        cute_mbarrier_arrive_and_expect_tx(c, bar, cute_val_int(c, CUTE_U32, (p->rows + 1) * nb));
    }
    CUTE_IF(c, cute_int_lt(c, b->lane, cute_i(p->rows)))
    {
        cute_cp_async_bulk_g2s(c, cute_tensor_ptr(c, b->sa, s), cute_tensor_ptr(c, b->a, kt), bytes, bar);
    }
    CUTE_IF(c, cute_int_eq(c, b->lane, cute_i(p->rows)))
    {
        cute_cp_async_bulk_g2s(c, cute_tensor_ptr(c, b->sx, s), cute_tensor_ptr(c, b->x, kt), bytes, bar);
    }
    if (!r->scales) return;
    cute_tensor dst = cute_tensor_slice(c, b->sq, CUTE_CRD(CUTE_ALL, s));
    CUTE_IF(c, cute_int_lt(c, b->lane, cute_i(g)))
    {
        cute_copy(c, &p->ring_x.atom, cute_tensor_slice(c, b->qa, CUTE_CRD(CUTE_ALL, kt)), dst);
    }
    CUTE_IF(c, cute_int_lt(c, cute_i(g - 1), b->lane))
    {
        cute_copy(c, &p->ring_x.atom, cute_tensor_slice(c, b->qb, CUTE_CRD(CUTE_ALL, kt)), dst);
    }
}

/* the bulk ring's stage s read into registers once its mbarrier's phase `phase` completed:
 * A's and x's vectors as the lane's partition gives them, the scale pairs from the quads of
 * the lane's group (row i's in word i, x's in word 0, the lane's pair `half` bits up; another
 * lane's copy: the caller waited for the warp's cp.async groups and met the warp) */
static gemv_ring_tile bulk_read(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_ring *r,
                                const ring_lane *l, cute_int s, cute_val phase)
{
    cute_int warp = cute_warp_idx(c);
    cute_mbarrier_wait(c, cute_tensor_ptr(c, one_at(c, r->bar, CUTE_CRD(warp, s)), cute_i(0)), phase);
    gemv_ring_tile f = stage_vectors(c, p, th, r, s);
    if (!r->scales) return f;
    cute_ssa qa = words_at(c, cute_tensor_slice(c, r->sQ, CUTE_CRD(CUTE_ALL, l->group, 0, warp, s)), 4);
    cute_ssa qb = words_at(c, one_at(c, r->sQ, CUTE_CRD(0, l->group, 1, warp, s)), 1);
    for (int row = 0; row <= p->rows; row++)
        f.pair[row] = pair_of(c, cute_ssa_get(c, row < p->rows ? qa : qb, row < p->rows ? row : 0), l->half);
    return f;
}

/* a PipelineState's stage as an index */
static cute_int stage_of(cute_ctx *c, const cute_pipeline_state *s)
{
    return cute_int_from_val(c, cute_val_cvt(c, s->index, CUTE_I64), 0);
}

/* the bulk ring's walk: stages - 1 k-tiles issued ahead; at each k-tile the warp meets (its
 * lanes done reading the stage the next copies refill), the copies of k-tile kt + stages - 1
 * issued, this k-tile's stage waited for (its phase: the stage's fills so far, mod 2) and
 * read */
static void bulk_walk(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                      const gemv_ring *r, const ring_lane *l, cute_int full, gemv_ring_fn fn, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    int d = p->cfg.smem_stages;
    bulk_lane b = bulk_lane_of(c, p, t, r, full);
    /* the stage read and its phase, and the stage filled next, as PipelineStates (a wrap
     * compared, not kt divided by the stages) */
    cute_pipeline_state rd = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, d);
    cute_pipeline_state fill = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, d);
    for (int s = 0; s < d - 1; s++) {
        CUTE_IF(c, cute_int_lt(c, cute_i(s), full)) { bulk_issue(c, p, r, &b, cute_i(s), cute_i(s)); }
        if (r->scales) cute_cp_async_commit_group(c);
        cute_pipeline_state_advance(c, &fill);
    }
    CUTE_FOR(c, kt, cute_i(0), full)
    {
        cute_int ahead = cute_add(a, kt, cute_i(d - 1));
        cute_syncwarp(c);
        CUTE_IF(c, cute_int_lt(c, ahead, full)) { bulk_issue(c, p, r, &b, ahead, stage_of(c, &fill)); }
        cute_pipeline_state_advance(c, &fill);
        if (r->scales) { /* k-tile kt's scale copies landed, every lane's */
            cute_cp_async_commit_group(c);
            cute_cp_async_wait_group(c, d - 1);
            cute_syncwarp(c);
        }
        gemv_ring_tile f = bulk_read(c, p, th, r, l, stage_of(c, &rd), rd.phase);
        cute_pipeline_state_advance(c, &rd);
        fn(c, p, &f, user);
    }
}

void gemv_ring_walk(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                    const gemv_ring *r, cute_int full, gemv_ring_fn fn, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    int d = p->cfg.smem_stages;
    ring_lane l = ring_lane_of(c, p, th, t, r, full);
    if (p->cfg.ring_bulk) {
        bulk_walk(c, p, th, t, r, &l, full, fn, user);
        return;
    }
    for (int s = 0; s < d - 1; s++) { /* the first stages - 1 k-tiles, a group each */
        CUTE_IF(c, cute_int_lt(c, cute_i(s), full)) { ring_issue(c, p, t, r, &l, cute_i(s), cute_i(s)); }
        cute_cp_async_commit_group(c);
    }
    CUTE_FOR(c, kt, cute_i(0), full)
    {
        cute_int ahead = cute_add(a, kt, cute_i(d - 1));
        CUTE_IF(c, cute_int_lt(c, ahead, full)) { ring_issue(c, p, t, r, &l, ahead, cute_mod(a, ahead, cute_i(d))); }
        cute_cp_async_commit_group(c);
        cute_cp_async_wait_group(c, d - 1); /* k-tile kt has landed */
        gemv_ring_tile f = ring_read(c, p, th, r, &l, cute_mod(a, kt, cute_i(d)));
        fn(c, p, &f, user);
    }
}
