/* The K-major kernels' shared-memory ring (cute_gemv_config.smem_stages): each warp streams
 * its rows' whole k-tiles and x's into `stages` buffers of its own by cp.async, stages - 1
 * k-tiles ahead of the one it multiplies, so that what a warp has in flight is set by the
 * ring's depth, not by its registers (docs/gemv.md, "The ring").  NVFP4's stages also hold
 * each lane's scale groups.  A lane reads back only what it copied itself (the same
 * TiledCopy partitions the global tile and the shared stage; each lane copies its own scale
 * groups), so the warp needs no barrier: the wait for its own copies (cp.async.wait_group)
 * orders them before its reads, and program order its reads of a stage before the copies
 * that later refill it.  A goes around L1 (.cg), x and the scales through it (.ca: every
 * warp of a batch reads the same x; a scale sector holds neighbouring rows'). */
#include "cutec/atom_table.h"
#include "cutec/cuda_arch.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
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

/* the element type the ring holds: A's, or words of 8 e2m1 */
static cute_dtype ring_dtype(const gemv_plan *p)
{
    return p->words ? CUTE_U32 : p->cfg.dtype;
}

int64_t gemv_ring_bytes(const gemv_plan *p)
{
    int64_t warps = p->threads / 32, tk = p->ktile, es = cute_dtype_bytes(ring_dtype(p));
    int64_t scales = p->words ? 4 * 32 * (p->rows + 1) * warps : 0;
    return p->cfg.smem_stages * (es * (warps * p->rows * tk + warps * tk) + scales);
}

int gemv_smem_blocks(int64_t bytes, int most)
{
    /* an H100's or H200's SM, as the driver's table has it (the config names no target): a
     * block's bytes and the 1 KB the hardware keeps for it, the SM's less a block's limit */
    int64_t sm = cute_cuda_arch_smem_per_sm(90), kept = sm - cute_cuda_arch_smem_per_block(90);
    int64_t fit = sm / (bytes + kept);
    return fit < 1 ? 1 : fit > most ? most : (int)fit;
}

int gemv_ring_blocks(const gemv_plan *p) { return gemv_smem_blocks(gemv_ring_bytes(p), GEMV_RING_BLOCKS); }

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
    if (!sfa) return r;
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
    cute_val half; /* the pair's shift in its group: 0 or 16 bits */
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
        l.g[row] = gemv_scales_by_tile(c, r->gSa, CUTE_CRD(m, g, t->l), 1, groups, full);
        if (row) continue;
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

/* a scale group's pair of the lane (shift `half`) as a u16 register */
static cute_tensor pair_of(cute_ctx *c, cute_tensor group, cute_val half)
{
    cute_val g = cute_ssa_get(c, cute_tensor_load(c, group), 0);
    cute_val v = cute_val_cvt(c, cute_val_binop(c, CUTE_OP_SHR, g, half), CUTE_U16);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_U16, cute_layout_parse(cute_ctx_alg(c), "(1):(1)"));
    cute_tensor_store(c, r, cute_ssa_scalar(c, v, r.layout.shape));
    return r;
}

/* stage s read into registers */
static gemv_ring_tile ring_read(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_ring *r,
                                const ring_lane *l, cute_int s)
{
    cute_tuple st = CUTE_CRD(CUTE_ALL, CUTE_ALL, s);
    cute_tensor sA = cute_partition_S(c, th->thr, cute_tensor_slice(c, r->sA, st));
    cute_tensor sX = gemv_lane_row(c, p, cute_partition_S(c, th->thr, cute_tensor_slice(c, r->sX, st)), 0);
    gemv_ring_tile f = {.rA = cute_make_fragment_like(c, sA), .rX = cute_make_fragment_like(c, sX)};
    cute_copy(c, &p->tc.atom, sA, f.rA);
    cute_copy(c, &p->tc.atom, sX, f.rX);
    if (!r->scales) return f;
    cute_int lane = cute_lane_idx(c), warp = cute_warp_idx(c);
    for (int row = 0; row <= p->rows; row++) {
        cute_tensor group = cute_make_rmem_tensor(c, CUTE_U32, cute_layout_parse(cute_ctx_alg(c), "(1):(1)"));
        cute_autovec_copy(c, one_at(c, r->sS, CUTE_CRD(lane, row, warp, s)), group);
        f.pair[row] = pair_of(c, group, l->half);
    }
    return f;
}

void gemv_ring_walk(cute_ctx *c, const gemv_plan *p, const gemv_thread *th, const gemv_tiles *t,
                    const gemv_ring *r, cute_int full, gemv_ring_fn fn, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    int d = p->cfg.smem_stages;
    ring_lane l = ring_lane_of(c, p, th, t, r, full);
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
