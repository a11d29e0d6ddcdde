/* f32's skinny GEMM on sm_90's wgmma, 3xTF32 (the default on sm_90 targets; docs/gemv.md, "f32
 * on wgmma").  Y(M,N) = alpha A(M,K) X(K,N) + beta Y with 16 to GEMV_WGMMA_MAX_VECTORS vectors
 * (a multiple of 16), K-major A in 16-byte vectors: the register form of mma.c's f32 at 32
 * vectors and past, whose mma.sync 3xTF32 tops out near a third of tf32's mma.sync rate.
 *
 * A block is two warpgroups on 128 rows of A (one on 64 where the vectors are not a multiple
 * of 32; at 64 vectors each warpgroup on two m64 tiles, 256 rows: mtiles), the weight, as
 * wgmma's A from registers (the RS atom m64nNk8 tf32, N the vectors),
 * one split of K in k-tiles of 32 columns.  A's
 * fragments come straight from global memory: the product over a k-tile may take its 32
 * columns in any order A and X agree on, so logical column i = q + 4 v + 8 j (q the lane's
 * column in an atom, v its two values' half, j = j0 + 2 j1 the atom) is A's column
 * 4 q + v + 2 j0 + 16 j1: lane q's 8 values of a row are two 16-byte vectors, and the four
 * lanes of a row read 64 contiguous bytes a load.  X's k-tile goes
 * through shared memory, as wgmma's B must: each thread loads 16-byte vectors of it, splits
 * them into their tf32 halves by bits and stores both halves at the logical columns of the
 * same permutation (the view `perm_inv` below), in X_STAGES (three) stages (one barrier a
 * k-tile; X_STAGES says why not two).  The
 * A fragment is split in registers, then twelve wgmma (4 atoms x small big', big small',
 * big big') run on the accumulators, left running while the next k-tile's halves are made.
 * The accumulators end as mma.c's (gemv_mma_finish). */
#include <stdio.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"
#include "kernels/gemv/gemv_internal.h"

enum { WG_BK = 32 };

/* the warpgroups a block, each on 64 x mtiles rows: 2 (X's halves made once for 128 rows: half the X a
 * byte of A, from L2 and split; 61.2% of the copy at 64 vectors against one's 58.6 on an H200)
 * where the vectors are a multiple of 32 (X's k-tile a thread's whole vectors), else 1 */
static int groups(const cute_gemv_config *cfg)
{
    return gemv_nvec(cfg) % 32 == 0 ? 2 : 1;
}

/* the m64 tiles of A each warpgroup multiplies a k-tile: 2 at 64 vectors in blocks of two
 * warpgroups (256 rows: X's halves and each step's fixed instructions for twice A's bytes; on
 * an H200 at 8192x8192 71.5 / 71.8% of the copy against 65.4 / 64.9 with one, in 4 splits
 * against 2; at 32 vectors 84.1 against 86.4, one turn: bench/RESULTS.md, f32sk43), else 1
 * (past 64 vectors the accumulators would not fit) */
static int mtiles(const cute_gemv_config *cfg)
{
    return groups(cfg) == 2 && gemv_nvec(cfg) == 64 ? 2 : 1;
}

int gemv_wgmma_rows(const cute_gemv_config *cfg)
{
    return 64 * groups(cfg) * mtiles(cfg);
}

bool gemv_wgmma(const cute_gemv_config *cfg, int arch)
{
    int n = gemv_nvec(cfg);
    return arch == 90 && cfg->mma && cfg->dtype == CUTE_F32 && !cfg->smem_stages && n % 16 == 0 &&
           n <= GEMV_WGMMA_MAX_VECTORS;
}

/* X's halves' stages: three.  Each k-tile's halves are stored by every thread of the block into
 * stage n % 3 before the k-tile's barrier; the stage's last readers are batches n - 3, which
 * each warpgroup waited for before the barrier of k-tile n - 1 (with two stages, a thread's
 * stores reached the stage the other warpgroup's batch before last might still read: only its
 * own warpgroup had waited for that batch) */
enum { X_STAGES = 3 };

/* X's k-tile, big and small halves, X_STAGES stages */
static int64_t halves_bytes(const cute_gemv_config *cfg)
{
    return 2 * X_STAGES * (int64_t)gemv_nvec(cfg) * WG_BK * 4;
}

/* a stage of the A ring (gemv_wgmma_ring): the block's k-tile of A and of X, f32 */
static int64_t ring_stage_bytes(const cute_gemv_config *cfg)
{
    return (int64_t)(gemv_wgmma_rows(cfg) + gemv_nvec(cfg)) * WG_BK * 4;
}

/* the A ring's stages: 6 where they fit (session 42 on an H200, 64 vectors on 128-row blocks:
 * 64.1 / 64.1% of the copy against 62.0 / 62.2 for the loads two k-tiles ahead in registers,
 * deleted; 4 stages 64.7, one warpgroup a block with 4, two blocks an SM, 55.5, two batches
 * left running 59.1); 64 vectors on 256-row blocks (two m64 tiles a warpgroup, session 43):
 * 4 stages of 40 KB beside X's halves, 208 KB */
int gemv_wgmma_ring(const cute_gemv_config *cfg)
{
    int d = 6;
    /* fewer stages where the block's shared memory would not hold them (128 vectors: 4) */
    while (d > 2 && halves_bytes(cfg) + d * ring_stage_bytes(cfg) > GEMV_MMA_RING_MAX) d -= 2;
    return d;
}

static int64_t smem_bytes(const cute_gemv_config *cfg)
{
    return halves_bytes(cfg) + gemv_wgmma_ring(cfg) * ring_stage_bytes(cfg);
}

int gemv_wgmma_blocks(const cute_gemv_config *cfg)
{
    return gemv_smem_blocks(smem_bytes(cfg), groups(cfg) == 2 ? 1 : 2);
}

bool gemv_plan_wgmma(cute_alg *a, const cute_gemv_config *cfg, gemv_plan *p)
{
    char name[64];
    snprintf(name, sizeof name, "SM90_64x%dx8_F32TF32TF32_RS_TN", gemv_nvec(cfg));
    cute_mma_atom atom;
    if (!cute_mma_atom_named(a, name, &atom)) return false;
    int g = groups(cfg);
    cute_layout wgs = cute_layout_fmt(a, "(%d,1,1):(1,0,0)", g);
    p->mma = cute_make_tiled_mma(a, &atom, &wgs, NULL, NULL, NULL);
    p->threads = 128 * g;
    p->bm = gemv_wgmma_rows(cfg), p->bn = gemv_nvec(cfg), p->bk = WG_BK, p->bkx = WG_BK, p->ktile = WG_BK;
    return !a->failed;
}

/* a (rows, 32) k-tile by logical column: logical i = (q, v, j0, j1) is column
 * 4 q + v + 2 j0 + 16 j1 */
static cute_tensor by_logical(cute_ctx *c, cute_tensor t, int64_t rows)
{
    cute_alg *a = cute_ctx_alg(c);
    long long r = rows;
    cute_layout P = cute_layout_fmt(a, "(%lld,(4,2,2,2)):(1,(%lld,%lld,%lld,%lld))", r, 4 * r, r, 2 * r, 16 * r);
    t.layout = cute_compose(a, &t.layout, &P);
    return t;
}

/* a (rows, 32) k-tile by physical column (the inverse): column p = (v, j0, q, j1) is logical
 * q + 4 v + 8 j0 + 16 j1 */
static cute_tensor perm_inv(cute_ctx *c, cute_tensor t, int64_t rows)
{
    cute_alg *a = cute_ctx_alg(c);
    long long r = rows;
    cute_layout P = cute_layout_fmt(a, "(%lld,(2,2,4,2)):(1,(%lld,%lld,%lld,%lld))", r, 4 * r, 8 * r, r, 16 * r);
    t.layout = cute_compose(a, &t.layout, &P);
    return t;
}

/* thread t's part of X's (bn, 32) k-tile: 16-byte vectors along K, 8 threads a vector's 32
 * columns, threads / 8 vectors at a time: ((4 columns), bn / (threads / 8) vectors) */
static cute_tensor x_part(cute_ctx *c, const gemv_plan *p, cute_tensor t)
{
    cute_alg *a = cute_ctx_alg(c);
    long long n = p->bn, v = p->threads / 8;
    cute_layout T = cute_layout_fmt(a, "((8,%lld),(4,%lld)):((%lld,1),(%lld,%lld))", v, n / v, 4 * n, n, v);
    t.layout = cute_compose(a, &t.layout, &T);
    return CUTE_SLICE(c, t, cute_thread_idx(c, 0), CUTE_ALL);
}

typedef struct wg_thread {
    cute_thr_mma thr;
    cute_tensor acc; /* (V,M,N) f32 */
    cute_copy_atom vec16;
    cute_tensor sX; /* (bn, 32, (half, stage)) tf32: X's big and small halves by logical column */
    /* the A ring (gemv_wgmma_ring): each thread's 16-byte vectors of A's fragments and of its
     * part of X's k-tile, (4, vectors, threads, stages), the block's threads side by side for
     * each vector; the 16-byte cp.async (A around L1, X through it) */
    cute_tensor ringA, ringX;
    cute_copy_atom cpa, cpx;
} wg_thread;

static const int vec_a[2] = {1, 3}; /* a fragment's leaves (v, j0) by_logical: 4 contiguous columns */

/* A's fragment ((2,2),M,4) (M: the warpgroup's m64 tiles) with its atoms as (j0, j1) */
static cute_tensor frag_by_atoms(cute_ctx *c, const gemv_plan *p, cute_tensor frag)
{
    int m = p->bm / (64 * groups(&p->cfg));
    frag.layout = m == 1 ? cute_layout_parse(cute_ctx_alg(c), "((2,2),1,(2,2)):((1,2),0,(4,8))")
                         : cute_layout_fmt(cute_ctx_alg(c), "((2,2),%d,(2,2)):((1,2),4,(%d,%d))", m, 4 * m, 8 * m);
    return frag;
}

/* A's fragments of k-tile kt in f32 registers (pred: bounds-checked by coordinates) */
static cute_tensor load_a(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, cute_int kt,
                          bool pred)
{
    cute_tensor gA = CUTE_SLICE(c, t->gA, CUTE_ALL, CUTE_ALL, kt);
    cute_tensor frag = cute_make_rmem_tensor_like(c, cute_partition_fragment_A(c, th->thr, gA), CUTE_F32);
    cute_tensor src = gemv_mma_by_vector(c, cute_partition_A(c, th->thr, by_logical(c, gA, p->bm)), vec_a, 2);
    cute_tensor dst = frag_by_atoms(c, p, frag);
    dst = gemv_mma_by_vector(c, dst, vec_a, 2);
    if (!pred) {
        cute_copy(c, &th->vec16, src, dst);
        return frag;
    }
    cute_clear(c, frag);
    cute_tensor cA = by_logical(c, CUTE_SLICE(c, t->cA, CUTE_ALL, CUTE_ALL, kt), p->bm);
    cute_tensor pc = gemv_mma_by_vector(c, cute_partition_A(c, th->thr, cA), vec_a, 2);
    cute_copy_if_whole(c, &th->vec16, cute_elem_less(c, pc, t->boundA), src, dst);
    return frag;
}

/* a k-tile's operands in f32 registers: A's fragments and the thread's part of X's k-tile */
typedef struct wg_regs {
    cute_tensor rA, rX;
} wg_regs;

/* k-tile kt's loads (predA / predX: bounds-checked by coordinates, X along K) */
static wg_regs load_tile(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, cute_int kt,
                         bool predA, bool predX)
{
    wg_regs r = {.rA = load_a(c, p, th, t, kt, predA)};
    cute_tensor src = x_part(c, p, CUTE_SLICE(c, t->gX, CUTE_ALL, CUTE_ALL, kt));
    r.rX = cute_make_rmem_tensor_like(c, src, CUTE_F32);
    if (!predX) {
        cute_copy(c, &th->vec16, src, r.rX);
        return r;
    }
    cute_clear(c, r.rX);
    cute_tensor crd = x_part(c, p, CUTE_SLICE(c, t->cX, CUTE_ALL, CUTE_ALL, kt));
    cute_copy_if_whole(c, &th->vec16, cute_elem_less(c, crd, t->boundX), src, r.rX);
    return r;
}

/* acc += A's k-tile times X's in 3xTF32, X's halves through stage n % X_STAGES (n: the batch's place
 * in the block's sequence of them, so that consecutive batches alternate stages); `left` of
 * the batches (0 or 1) left running after it: 1 only where the next batch's A halves are other
 * registers than this one's (another place in the code: the same place in a loop writes the
 * same registers while wgmma still reads them, which the GPU showed and the interpreter, whose
 * wgmma reads its registers at once, does not) */
static void products(cute_ctx *c, const gemv_plan *p, const wg_thread *th, cute_int n, const wg_regs *r, int left)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int s2 = cute_mul(a, cute_mod(a, n, cute_i(X_STAGES)), cute_i(2));
    cute_tensor xb, xs;
    /* the halves' big one by truncation in the two-tile blocks (one instruction fewer a value; at
     * 64 vectors on an H200 72.9 / 73.0% of the copy against 71.2 / 71.2 rounded; elsewhere not
     * timed: bench/RESULTS.md, f32sk43) */
    bool trunc = p->bm == 128 * groups(&p->cfg);
    gemv_split_tf32_bits(c, r->rX, &xb, &xs, true, trunc);
    cute_tensor halves[2] = {xb, xs}, stage[2];
    for (int h = 0; h < 2; h++) {
        stage[h] = CUTE_SLICE(c, th->sX, CUTE_ALL, CUTE_ALL, cute_add(a, s2, cute_i(h)));
        cute_tensor dst = x_part(c, p, perm_inv(c, cute_tensor_recast(c, stage[h], CUTE_F32), p->bn));
        cute_tensor_store(c, dst, cute_tensor_load(c, cute_tensor_recast(c, halves[h], CUTE_F32)));
    }
    cute_fence_proxy_async_shared_cta(c); /* the halves' stores, read by wgmma (the async proxy) */
    cute_barrier(c);
    cute_tensor aB, aS;
    gemv_split_tf32_bits(c, r->rA, &aB, &aS, true, trunc);
    cute_tensor bB = cute_partition_B(c, th->thr, stage[0]), bS = cute_partition_B(c, th->thr, stage[1]);
    cute_warpgroup_arrive(c);
    cute_gemm(c, &p->mma, th->acc, aS, bB, th->acc);
    cute_gemm(c, &p->mma, th->acc, aB, bS, th->acc);
    cute_gemm(c, &p->mma, th->acc, aB, bB, th->acc);
    cute_warpgroup_commit_batch(c);
    /* (1) the previous k-tile's batch done (its stage is written again next), this one's left
     * to run while the next k-tile's halves are made */
    cute_warpgroup_wait(c, left);
}

/* the thread's place in `ring` at stage s, shaped as `like` (its vector first, in
 * column-major order) */
static cute_tensor ring_lane(cute_ctx *c, cute_tensor ring, cute_tensor like, cute_int s)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor t = cute_tensor_slice(c, ring, CUTE_CRD(CUTE_ALL, CUTE_ALL, cute_thread_idx(c, 0), s));
    cute_layout order = cute_make_layout(a, like.layout.shape);
    t.layout = cute_compose(a, &t.layout, &order);
    return t;
}

/* A's fragment of k-tile kt (by vector) and the thread's part of X's, as global tensors */
static void ring_sources(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, cute_int kt,
                         cute_tensor *srcA, cute_tensor *srcX)
{
    cute_tensor gA = CUTE_SLICE(c, t->gA, CUTE_ALL, CUTE_ALL, kt);
    *srcA = gemv_mma_by_vector(c, cute_partition_A(c, th->thr, by_logical(c, gA, p->bm)), vec_a, 2);
    *srcX = x_part(c, p, CUTE_SLICE(c, t->gX, CUTE_ALL, CUTE_ALL, kt));
}

/* k-tile kt's A and X into stage s, by cp.async */
static void ring_issue(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, cute_int kt,
                       cute_int s)
{
    cute_tensor srcA, srcX;
    ring_sources(c, p, th, t, kt, &srcA, &srcX);
    cute_copy(c, &th->cpa, srcA, ring_lane(c, th->ringA, srcA, s));
    cute_copy(c, &th->cpx, srcX, ring_lane(c, th->ringX, srcX, s));
}

/* stage s read back into registers, as load_tile gives them */
static wg_regs ring_read(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, cute_int s)
{
    cute_tensor gA = CUTE_SLICE(c, t->gA, CUTE_ALL, CUTE_ALL, cute_i(0)), srcA, srcX;
    ring_sources(c, p, th, t, cute_i(0), &srcA, &srcX);
    wg_regs r = {.rA = cute_make_rmem_tensor_like(c, cute_partition_fragment_A(c, th->thr, gA), CUTE_F32),
                 .rX = cute_make_rmem_tensor_like(c, srcX, CUTE_F32)};
    cute_tensor dst = frag_by_atoms(c, p, r.rA);
    dst = gemv_mma_by_vector(c, dst, vec_a, 2);
    cute_copy(c, &th->vec16, ring_lane(c, th->ringA, dst, s), dst);
    cute_copy(c, &th->vec16, ring_lane(c, th->ringX, r.rX, s), r.rX);
    return r;
}

/* the in-bounds block's `full` whole k-tiles through the A ring (gemv_wgmma_ring): each
 * thread's loads into stages of its own by cp.async, stages - 1 k-tiles ahead of the products
 * (a thread reads back only what it copied: the wait for its own copies orders them, no
 * barrier), so that the bytes in flight an SM are the ring's (3 stages of 32 KB of A at 64
 * vectors on 256-row blocks, against 32 KB in registers two k-tiles ahead), not registers'; two
 * k-tiles a step at two places of the code, whose registers differ, so that each batch is
 * left running while the next one's halves are made, then the last k-tile if `full` is odd */
static void ring_whole(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, cute_int full,
                       int d)
{
    cute_alg *a = cute_ctx_alg(c);
    for (int s = 0; s < d - 1; s++) {
        CUTE_IF(c, cute_int_lt(c, cute_i(s), full)) { ring_issue(c, p, th, t, cute_i(s), cute_i(s)); }
        cute_cp_async_commit_group(c);
    }
    cute_int steps = cute_div(a, full, cute_i(2));
    CUTE_FOR(c, st, cute_i(0), steps)
    {
        for (int i = 0; i < 2; i++) {
            cute_int kt = cute_add(a, cute_mul(a, st, cute_i(2)), cute_i(i));
            cute_int ahead = cute_add(a, kt, cute_i(d - 1));
            CUTE_IF(c, cute_int_lt(c, ahead, full)) { ring_issue(c, p, th, t, ahead, cute_mod(a, ahead, cute_i(d))); }
            cute_cp_async_commit_group(c);
            cute_cp_async_wait_group(c, d - 1); /* k-tile kt has landed */
            wg_regs r = ring_read(c, p, th, t, cute_mod(a, kt, cute_i(d)));
            products(c, p, th, kt, &r, 1);
        }
    }
    cute_int kt = cute_mul(a, steps, cute_i(2)); /* the last, where full is odd (issued ahead) */
    CUTE_IF(c, cute_int_lt(c, kt, full))
    {
        cute_cp_async_wait_group(c, 0);
        wg_regs r = ring_read(c, p, th, t, cute_mod(a, kt, cute_i(d)));
        products(c, p, th, kt, &r, 0);
    }
}

/* the split's full k-tiles (through the ring, or, where `rows_out` (the block reaches past
 * A's last row), one at a time with A predicated), then the partial last one, predicated */
static void walk(cute_ctx *c, const gemv_plan *p, const wg_thread *th, const gemv_mma_tiles *t, bool rows_out)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int full = cute_div(a, cute_sub(a, t->kend, t->k0), cute_i(p->bk));
    if (!rows_out) {
        ring_whole(c, p, th, t, full, gemv_wgmma_ring(&p->cfg));
    } else {
        CUTE_FOR(c, kt, cute_i(0), full)
        {
            wg_regs r = load_tile(c, p, th, t, kt, true, false);
            products(c, p, th, kt, &r, 0); /* one place in the loop: its registers again next */
        }
    }
    CUTE_IF(c, cute_int_lt(c, cute_add(a, t->k0, cute_mul(a, full, cute_i(p->bk))), t->kend))
    {
        wg_regs r = load_tile(c, p, th, t, full, true, true);
        products(c, p, th, full, &r, 0);
    }
    cute_warpgroup_wait(c, 0);
}

typedef struct wg_block {
    const gemv_plan *p;
    const wg_thread *th;
    const gemv_mma_tiles *t;
} wg_block;

static void block_walk(cute_ctx *c, bool rows_out, void *user)
{
    const wg_block *b = user;
    walk(c, b->p, b->th, b->t, rows_out);
}

void gemv_wgmma_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW, cute_int kchunk,
                       cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_min_blocks(c, gemv_wgmma_blocks(&p->cfg));
    gemv_mma_tiles t = gemv_mma_block_tiles(c, p, mA, mX, kchunk);
    wg_thread th = {.thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0)),
                    .vec16 = cute_copy_atom_universal(a, CUTE_F32, 128)};
    cute_composed atom;
    cute_smem_atom_gmma(a, "Layout_K_SW128_Atom", CUTE_TF32, &atom);
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%d,%d)", (long long)p->bn, WG_BK, 2 * X_STAGES);
    cute_composed L = cute_smem_layout_staged(a, &atom, &shape);
    cute_smem_allocator al = cute_smem_allocator_new(c);
    th.sX = cute_smem_alloc_tensor_composed(c, &al, CUTE_TF32, L, 16);
    int d = gemv_wgmma_ring(&p->cfg);
    if (d) {
        long long T = p->threads, va = p->bm * WG_BK / (4 * T), vx = p->bn * WG_BK / (4 * T);
        cute_layout la = cute_layout_fmt(a, "(4,%lld,%lld,%d):(1,%lld,4,%lld)", va, T, d, 4 * T, 4 * T * va);
        cute_layout lx = cute_layout_fmt(a, "(4,%lld,%lld,%d):(1,%lld,4,%lld)", vx, T, d, 4 * T, 4 * T * vx);
        th.ringA = cute_smem_alloc_tensor(c, &al, CUTE_F32, la, 16);
        th.ringX = cute_smem_alloc_tensor(c, &al, CUTE_F32, lx, 16);
        cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>", CUTE_F32, &th.cpa);
        cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEALWAYS<uint128>", CUTE_F32, &th.cpx);
    }
    wg_block b = {p, &th, &t};
    gemv_mma_block(c, p, th.thr, &th.acc, &t, mA, (gemv_mma_ends){mY, mW, alpha, beta}, block_walk, &b);
}
