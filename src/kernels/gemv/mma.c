/* Many vectors through the tensor cores (cfg.mma): Y(M,N) = alpha A(M,K) X(K,N) + beta Y for
 * f16 and bf16 with N up to CUTE_GEMV_MAX_MMA_VECTORS, the skinny GEMM of LLM decoding with
 * a batch of 9 to 128 tokens.  A, the weight, streams from memory once; X, the tokens, is
 * small and read through L1 by every warp of a block.
 *
 * mma.sync m16n8k16 with A's rows on its 16-row side and the vectors on its 8-column side:
 * a block of 8 warps takes 128 rows of A (16 a warp) and all N vectors (bn, N rounded up to
 * whole atoms), one split of K, k-tiles of bk.  The TiledMMA permutes K so that each lane's
 * values of two atoms along K are 8 consecutive columns ((2,4,2,2):(1,8,2,4): lane t's k
 * 2t, 2t+1, 2t+8, 2t+9 of both atoms at 8t .. 8t+7): a product over K may take its terms in
 * any order A and X agree on.  Each lane then loads its fragments of A and of X straight from
 * global memory in 16-byte vectors, one per row and 32 columns, with no shared memory and
 * no barrier.  A block whose rows are all in A runs its full k-tiles unpredicated, the last,
 * partial one predicated (whole vectors: 8 divides K); the block past A's last row
 * predicates every tile.  With cfg.smem_stages (the library's choice at 8 to 16 vectors:
 * compile.c's mma_ring_default) A's and X's whole k-tiles go through a ring of shared
 * memory per warp instead, by cp.async, stages - 1 ahead, in blocks of 4 warps (ring_walk
 * below).  The f32 accumulators go to the split-K workspace (the ordered reduction of
 * parts.c adds the splits) or, unsplit, to Y. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "kernels/gemv/gemv_internal.h"

/* a block's warps: 8 through registers; 4 through the ring, whose warps share nothing but X
 * through L1 (smaller blocks: more of them for rows alone to spread over the SMs), each k
 * group's (f32: two of them, gemv_mma_kgroups) */
static int mma_warps(const cute_gemv_config *cfg)
{
    return cfg->smem_stages ? 4 : 8;
}

int gemv_mma_kgroups(const cute_gemv_config *cfg)
{
    return cfg->mma && cfg->dtype == CUTE_F32 && cfg->smem_stages ? 2 : 1;
}

int gemv_mma_rows(const cute_gemv_config *cfg, int arch)
{
    return gemv_wgmma(cfg, arch) ? gemv_wgmma_rows(cfg) : 16 * mma_warps(cfg);
}

/* One input dtype's form: the atom, the K permutation that makes a lane's columns of a
 * row 16 contiguous bytes (f16/bf16: lane t's k 2t, 2t+1, 2t+8, 2t+9 of two atoms at
 * 8t .. 8t+7; tf32: t, t+4 of two atoms at 4t .. 4t+3), which a product over K may take
 * in any order A and x agree on, X's columns a step (one TiledMMA k-tile: bn / 2 registers
 * a lane), and which leaves of a thread's flattened A and B partitions (V..., M|N, the
 * atoms along K, the k-tiles) are that vector. */
typedef struct mma_form {
    const char *atom, *perm_k;
    int64_t kx;
    int vec_a[3], vec_b[3], vec_leaves;
} mma_form;

static const mma_form forms[] = {
    {"SM80_16x8x16_F32F16F16F32_TN", "(2,4,2,2):(1,8,2,4)", 32, {0, 2, 4}, {0, 1, 3}, 3},
    {"SM80_16x8x16_F32BF16BF16F32_TN", "(2,4,2,2):(1,8,2,4)", 32, {0, 2, 4}, {0, 1, 3}, 3},
    {"SM80_16x8x8_F32TF32TF32F32_TN", "(4,2,2):(4,1,2)", 16, {1, 3}, {0, 2}, 2},
};

static const mma_form *form_of(cute_dtype d)
{
    return &forms[d == CUTE_F16 ? 0 : d == CUTE_BF16 ? 1 : 2];
}

int64_t gemv_mma_k_tile(const cute_gemv_config *cfg)
{
    /* A's fragments of a k-tile, 16 bk / 32 values a lane (16 rows a warp), loaded before
     * its first product: 4 KB of A a warp in flight; 2 KB where 128 vectors' X fragments
     * and accumulators (64 registers each) leave too few registers, or f32 (whose big and
     * small tf32 halves double A's and X's fragments), or through the ring (a stage of 2 KB
     * a warp: stages - 1 of them in flight) */
    if (cfg->dtype == CUTE_F32) return gemv_mma_kgroups(cfg) == 2 ? 64 : 32;
    return gemv_nvec(cfg) > 64 || cfg->smem_stages ? 64 : 128;
}

/* a warp's stage of the ring: its 16 rows of a k-tile of A and X's k-tile (its own copy; with
 * two k groups, its group's half of the k-tile's columns) */
static int64_t ring_stage_bytes(const cute_gemv_config *cfg)
{
    int64_t rows = 16 + gemv_nvec(cfg);
    return rows * gemv_mma_k_tile(cfg) / gemv_mma_kgroups(cfg) * cute_dtype_bytes(cfg->dtype);
}

/* two k groups' handover of the second group's sums (pair_sum): 4 f32 an atom of 8 vectors a
 * thread of a group */
static int64_t pair_sums_bytes(const cute_gemv_config *cfg)
{
    return gemv_mma_kgroups(cfg) == 2 ? (gemv_nvec(cfg) + 7) / 8 * 4 * 32 * mma_warps(cfg) * 4 : 0;
}

int64_t gemv_mma_ring_bytes(const cute_gemv_config *cfg)
{
    int warps = mma_warps(cfg) * gemv_mma_kgroups(cfg);
    return cfg->smem_stages ? warps * cfg->smem_stages * ring_stage_bytes(cfg) + pair_sums_bytes(cfg) : 0;
}

int gemv_mma_blocks(const cute_gemv_config *cfg, int arch)
{
    if (gemv_wgmma(cfg, arch)) return gemv_wgmma_blocks(cfg);
    /* 16 warps an SM up to 64 vectors (128 registers a thread), 8 past */
    int blocks = (gemv_nvec(cfg) <= 64 ? 16 : 8) / (mma_warps(cfg) * gemv_mma_kgroups(cfg));
    return cfg->smem_stages ? gemv_smem_blocks(gemv_mma_ring_bytes(cfg), blocks) : blocks;
}

bool gemv_plan_mma(cute_alg *a, const cute_gemv_config *cfg, gemv_plan *p)
{
    if (gemv_wgmma(cfg, p->arch)) return gemv_plan_wgmma(a, cfg, p);
    const mma_form *f = form_of(cfg->dtype);
    cute_mma_atom atom;
    if (!cute_mma_atom_named(a, f->atom, &atom)) return false;
    int w = mma_warps(cfg);
    p->kgroups = gemv_mma_kgroups(cfg);
    /* two k groups (f32): warps (4, 1, 2), group g on columns 16 g .. 16 g + 15 of each 32 (a
     * lane's q + 4 v + 8 g + 16 r at 4 q + v + 2 r + 16 g: its 4 columns of a row contiguous) */
    cute_layout warps = p->kgroups == 2 ? cute_layout_fmt(a, "(%d,1,2):(1,0,%d)", w, w)
                                        : cute_layout_fmt(a, "(%d,1,1):(1,0,0)", w);
    cute_tiler perm_k = cute_tiler_parse(a, p->kgroups == 2 ? "(4,2,2,2):(4,1,16,2)" : f->perm_k);
    p->mma = cute_make_tiled_mma(a, &atom, &warps, NULL, NULL, &perm_k);
    p->threads = 32 * w * p->kgroups;
    p->bm = 16 * w, p->bn = (p->nvec + 7) / 8 * 8, p->bk = gemv_mma_k_tile(cfg);
    p->bkx = f->kx * p->kgroups;
    p->ktile = p->bk;
    return !a->failed;
}

cute_tensor gemv_mma_by_vector(cute_ctx *c, cute_tensor t, const int *vec, int nv)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout f = cute_flatten(a, &t.layout);
    int n = cute_rank(&f), rest[8], nr = 0;
    for (int i = 0; i < n && nr < 8; i++) {
        bool in = false;
        for (int j = 0; j < nv; j++) in = in || vec[j] == i;
        if (!in) rest[nr++] = i;
    }
    cute_layout modes[2] = {cute_select(a, &f, nv, vec), cute_select(a, &f, nr, rest)};
    t.layout = cute_make_layout_modes(a, 2, modes);
    return t;
}


static cute_tensor ktiles(cute_ctx *c, cute_tensor t, int64_t rows, int64_t bk, cute_int k0, cute_int blk)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor from = cute_tensor_domain_offset(c, t, CUTE_CRD(0, k0));
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)bk);
    return cute_tensor_local_tile(c, from, tile, CUTE_CRD(blk, CUTE_ALL), NULL);
}

gemv_mma_tiles gemv_mma_block_tiles(cute_ctx *c, const gemv_plan *p, cute_tensor mA, cute_tensor mX, cute_int kchunk)
{
    cute_alg *a = cute_ctx_alg(c);
    gemv_mma_tiles t;
    t.s = cute_block_idx(c, 1), t.l = cute_block_idx(c, 2);
    cute_int M = mA.layout.shape.leaf[0], K = mA.layout.shape.leaf[1], N = cute_i(p->nvec);
    t.k0 = cute_mul(a, t.s, kchunk), t.kend = cute_min(a, K, cute_add(a, t.k0, kchunk));
    t.boundA = cute_tuple_fmt(a, "(%I,%I)", M, t.kend);
    t.boundX = cute_tuple_fmt(a, "(%I,%I)", N, t.kend);
    cute_tensor x = CUTE_SLICE(c, mX, CUTE_ALL, CUTE_ALL, t.l); /* (K,N) */
    x.layout = cute_select(a, &x.layout, 2, (int[]){1, 0});     /* (N,K), the MMA's B */
    cute_int b = cute_block_idx(c, 0);
    t.gA = ktiles(c, CUTE_SLICE(c, mA, CUTE_ALL, CUTE_ALL, t.l), p->bm, p->bk, t.k0, b);
    t.gX = ktiles(c, x, p->bn, p->bkx, t.k0, cute_i(0));
    t.cA = ktiles(c, cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", M, K)), p->bm, p->bk, t.k0, b);
    t.cX = ktiles(c, cute_make_identity_tensor(c, cute_tuple_fmt(a, "(%I,%I)", N, K)), p->bn, p->bkx, t.k0,
                  cute_i(0));
    return t;
}

typedef struct mma_thread {
    cute_thr_mma thr;
    cute_tensor acc;      /* (V,M,N) f32 */
    cute_tensor small[2]; /* gemv_f32_chains: the two small-term products' own sums, as acc */
    bool chains;
    cute_copy_atom vec16;
    cute_copy_atom cp16, cpx; /* the ring's 16-byte cp.async (A around L1, X through it) */
    cute_tensor ring;         /* the ring (cfg.smem_stages): A's (E, R, 1, lanes, warps, stages) */
    cute_tensor ring_x;       /* ... and X's: (E, Rx, parts, lanes, warps, stages) */
    cute_tensor pair_sums;    /* two k groups: the second's sums for the first, (acc, threads / 2) */
} mma_thread;

/* a thread's partition of operand op's tile g regrouped by vector (by_vector) */
static cute_tensor operand_part(cute_ctx *c, const gemv_plan *p, const mma_thread *th, cute_mma_operand op,
                                cute_tensor g)
{
    const mma_form *f = form_of(p->cfg.dtype);
    bool isA = op == CUTE_MMA_A;
    cute_tensor part = isA ? cute_partition_A(c, th->thr, g) : cute_partition_B(c, th->thr, g);
    return gemv_mma_by_vector(c, part, isA ? f->vec_a : f->vec_b, f->vec_leaves);
}

/* a register fragment for operand op's tile g, of the operand's dtype (f32: not yet split
 * into tf32 halves) */
static cute_tensor operand_frag(cute_ctx *c, const gemv_plan *p, const mma_thread *th, cute_mma_operand op,
                                cute_tensor g)
{
    bool isA = op == CUTE_MMA_A;
    cute_tensor frag = isA ? cute_partition_fragment_A(c, th->thr, g) : cute_partition_fragment_B(c, th->thr, g);
    return p->cfg.dtype == CUTE_F32 ? cute_make_rmem_tensor_like(c, frag, CUTE_F32) : frag;
}

/* one operand's fragments of k-tile kt in registers of its dtype (f32: not yet split into
 * tf32 halves): 16-byte loads, predicated by the coordinates where `pred` */
static cute_tensor load_operand(cute_ctx *c, const gemv_plan *p, const mma_thread *th, cute_mma_operand op,
                                cute_tensor g, cute_tensor crd, cute_tuple bound, bool pred)
{
    const mma_form *f = form_of(p->cfg.dtype);
    bool isA = op == CUTE_MMA_A;
    const int *vec = isA ? f->vec_a : f->vec_b;
    int nv = f->vec_leaves;
    cute_tensor frag = operand_frag(c, p, th, op, g);
    cute_tensor src = operand_part(c, p, th, op, g), dst = gemv_mma_by_vector(c, frag, vec, nv);
    if (!pred) {
        cute_copy(c, &th->vec16, src, dst);
        return frag;
    }
    cute_tensor pc = isA ? cute_partition_A(c, th->thr, crd) : cute_partition_B(c, th->thr, crd);
    cute_copy_if_whole(c, &th->vec16, cute_elem_less(c, gemv_mma_by_vector(c, pc, vec, nv), bound), src, dst);
    return frag;
}

/* f32 fragments as two tf32 ones, big = tf32(x) and small = tf32(x - big): x times y is
 * big big' + big small' + small big' within about 2^-21 of x y (small small' dropped), f32's
 * accuracy at a third of tf32's rate (3xTF32) */
static void split_tf32(cute_ctx *c, cute_tensor x, cute_tensor *big, cute_tensor *small)
{
    cute_ssa v = cute_tensor_load(c, x), b = cute_ssa_cvt(c, v, CUTE_TF32);
    cute_ssa r = cute_ssa_binop(c, CUTE_OP_SUB, v, cute_ssa_cvt(c, b, CUTE_F32));
    *big = cute_make_rmem_tensor_like(c, x, CUTE_TF32), *small = cute_make_rmem_tensor_like(c, x, CUTE_TF32);
    cute_tensor_store(c, *big, b);
    cute_tensor_store(c, *small, cute_ssa_cvt(c, r, CUTE_TF32));
}

/* ... by bits (cfg.tf32_bits; gemv_internal.h): big = x rounded to tf32 by adding half its last place to the
 * bits and clearing the low 13 (inf and NaN stay so: the half never carries past their
 * mantissa), small = x - big (exact), both handed to mma.sync as f32 bits, whose low 13 bits
 * it ignores (small's are cut off there): each product within ~1.25 x 2^-20 of x y (3xTF32 by
 * cvt.rna: ~2^-22), in three instructions a value where cvt.rna.tf32.f32 takes four or five
 * for each half on sm_90; `trunc`: big is x with its low 13 bits cleared, no add (two
 * instructions a value; small below 2^-10 of x) */
void gemv_split_tf32_bits(cute_ctx *c, cute_tensor x, cute_tensor *big, cute_tensor *small, bool words, bool trunc)
{
    cute_ssa v = cute_tensor_load(c, x);
    cute_tensor bits = cute_make_rmem_tensor_like(c, x, CUTE_U32), rest = cute_make_rmem_tensor_like(c, x, CUTE_F32);
    if (words) rest = cute_tensor_recast(c, cute_make_rmem_tensor_like(c, x, CUTE_U32), CUTE_F32);
    cute_ssa half = cute_ssa_fill(c, CUTE_U32, v.shape, (double)0x1000u);
    cute_ssa top = cute_ssa_fill(c, CUTE_U32, v.shape, (double)0xffffe000u);
    cute_ssa up = cute_tensor_load(c, cute_tensor_recast(c, x, CUTE_U32));
    if (!trunc) up = cute_ssa_binop(c, CUTE_OP_ADD, up, half);
    cute_tensor_store(c, bits, cute_ssa_binop(c, CUTE_OP_AND, up, top));
    cute_tensor b = cute_tensor_recast(c, bits, CUTE_F32);
    cute_tensor_store(c, rest, cute_ssa_binop(c, CUTE_OP_SUB, v, cute_tensor_load(c, b)));
    *big = cute_tensor_recast(c, b, CUTE_TF32), *small = cute_tensor_recast(c, rest, CUTE_TF32);
}

/* acc += rA rX, f32 as three tf32 products, the small terms first */
static void products(cute_ctx *c, const gemv_plan *p, const mma_thread *th, cute_tensor rA, cute_tensor rX)
{
    if (p->cfg.dtype != CUTE_F32) {
        cute_gemm(c, &p->mma, th->acc, rA, rX, th->acc);
        return;
    }
    cute_tensor aB, aS, xB, xS;
    if (p->cfg.tf32_bits)
        gemv_split_tf32_bits(c, rA, &aB, &aS, false, false), gemv_split_tf32_bits(c, rX, &xB, &xS, false, false);
    else
        split_tf32(c, rA, &aB, &aS), split_tf32(c, rX, &xB, &xS);
    cute_tensor s0 = th->chains ? th->small[0] : th->acc, s1 = th->chains ? th->small[1] : th->acc;
    cute_gemm(c, &p->mma, s0, aS, xB, s0);
    cute_gemm(c, &p->mma, s1, aB, xS, s1);
    cute_gemm(c, &p->mma, th->acc, aB, xB, th->acc);
}

/* The ring (cfg.smem_stages): each warp streams its 16 rows' whole k-tiles of A into stages
 * of its own by cp.async, stages - 1 k-tiles ahead of the one it multiplies, so that the
 * bytes a warp has in flight are the ring's, whatever ptxas makes of the loop.  A stage holds
 * a lane's 16-byte vectors in the order of its fragment, the warp's 32 lanes side by side for
 * each (512 contiguous bytes: no bank conflict in the copies or the reads).  A lane reads back
 * only what it copied itself, so the warp needs no barrier: the wait for its own copies
 * orders them before its reads, and its products, which use what it read, come before the
 * copies that refill the stage.  X's k-tiles go through it too (each warp its own copy,
 * through L1: the block's other warps read the same lines), in the same layout, one TiledMMA
 * k-tile (bkx) of X after another: no k-tile waits on X's loads from L1 or L2 (without them
 * in the ring it ran 1-15 points behind the register form on an H200; bench/RESULTS.md,
 * skinny38a).  The vectors are a multiple of 8 (cute_gemv_ring_able): X's copies need no
 * bounds. */
static void ring_make(cute_ctx *c, const gemv_plan *p, mma_thread *th)
{
    cute_alg *a = cute_ctx_alg(c);
    long long e = 16 / cute_dtype_bytes(p->cfg.dtype), lanes = 32 * e;
    long long g = p->kgroups, r = 16 * p->bk / g * cute_dtype_bytes(p->cfg.dtype) / (32 * 16); /* a lane's vectors of A */
    cute_smem_allocator A = cute_smem_allocator_new(c);
    int w = mma_warps(&p->cfg) * p->kgroups, d = p->cfg.smem_stages;
    cute_layout l = cute_layout_fmt(a, "(%lld,%lld,1,32,%d,%d):(1,%lld,0,%lld,%lld,%lld)", e, r, w, d, lanes, e,
                                    lanes * r, lanes * r * w);
    th->ring = cute_smem_alloc_tensor(c, &A, p->cfg.dtype, l, 16);
    cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>", p->cfg.dtype, &th->cp16);
    long long parts = p->bk / p->bkx, rx = p->bn * p->bkx / g * cute_dtype_bytes(p->cfg.dtype) / (32 * 16);
    l = cute_layout_fmt(a, "(%lld,%lld,%lld,32,%d,%d):(1,%lld,%lld,%lld,%lld,%lld)", e, rx, parts, w, d, lanes,
                        lanes * rx, e, lanes * rx * parts, lanes * rx * parts * w);
    th->ring_x = cute_smem_alloc_tensor(c, &A, p->cfg.dtype, l, 16);
    cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEALWAYS<uint128>", p->cfg.dtype, &th->cpx);
}

/* the lane's part of `ring` (A's or X's) for TiledMMA k-tile `part` of stage s (A: one part),
 * shaped as `like` (a partition regrouped by vector: its vector first, taken in column-major
 * order) */
static cute_tensor ring_lane(cute_ctx *c, cute_tensor ring, cute_tensor like, int64_t part, cute_int s)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor t =
        cute_tensor_slice(c, ring, CUTE_CRD(CUTE_ALL, CUTE_ALL, (int)part, cute_lane_idx(c), cute_warp_idx(c), s));
    cute_layout order = cute_make_layout(a, like.layout.shape);
    t.layout = cute_compose(a, &t.layout, &order);
    return t;
}

/* acc += rA (A's fragments of k-tile kt) times X's, X a TiledMMA k-tile (bkx) at a time from
 * global memory (predX: bounds-checked), or where `stage` from that stage of the ring */
static void ktile_products(cute_ctx *c, const gemv_plan *p, const mma_thread *th, const gemv_mma_tiles *t, cute_int kt,
                           cute_tensor rA, bool predX, const cute_int *stage)
{
    cute_alg *a = cute_ctx_alg(c);
    const mma_form *f = form_of(p->cfg.dtype);
    int64_t parts = p->bk / p->bkx;
    for (int64_t i = 0; i < parts; i++) { /* unrolled at trace time */
        cute_int kx = cute_add(a, cute_mul(a, kt, cute_i(parts)), cute_i(i));
        cute_tensor gX = CUTE_SLICE(c, t->gX, CUTE_ALL, CUTE_ALL, kx), cX = CUTE_SLICE(c, t->cX, CUTE_ALL, CUTE_ALL, kx);
        cute_tensor rX;
        if (stage) {
            rX = operand_frag(c, p, th, CUTE_MMA_B, gX);
            cute_tensor dst = gemv_mma_by_vector(c, rX, f->vec_b, f->vec_leaves);
            cute_copy(c, &th->vec16, ring_lane(c, th->ring_x, dst, i, *stage), dst);
        } else {
            rX = load_operand(c, p, th, CUTE_MMA_B, gX, cX, t->boundX, predX);
        }
        /* A's fragments of this part: mode K is (the TiledMMA's atoms, parts) */
        products(c, p, th, CUTE_SLICE(c, rA, CUTE_ALL, CUTE_ALL, CUTE_CRD(CUTE_ALL, (int)i)), rX);
    }
}

/* acc += A's k-tile kt times X's, A loaded from global memory; predA / predX: bounds-check
 * that operand's vectors */
static void ktile_mma(cute_ctx *c, const gemv_plan *p, const mma_thread *th, const gemv_mma_tiles *t, cute_int kt,
                      bool predA, bool predX)
{
    cute_alg *a = cute_ctx_alg(c);
    if (p->cfg.l2_prefetch && !predA) /* the warp's 16 rows' k-tile ahead into L2 */
        gemv_prefetch_tile(c, p, t->gA, cute_mul(a, cute_warp_idx(c), cute_i(16)), 16, p->bk, kt, t->k0, t->kend);
    cute_tensor gA = CUTE_SLICE(c, t->gA, CUTE_ALL, CUTE_ALL, kt), cA = CUTE_SLICE(c, t->cA, CUTE_ALL, CUTE_ALL, kt);
    ktile_products(c, p, th, t, kt, load_operand(c, p, th, CUTE_MMA_A, gA, cA, t->boundA, predA), predX, NULL);
}

/* k-tile kt of A and X into stage s */
static void ring_issue(cute_ctx *c, const gemv_plan *p, const mma_thread *th, const gemv_mma_tiles *t, cute_int kt,
                       cute_int s)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor src = operand_part(c, p, th, CUTE_MMA_A, CUTE_SLICE(c, t->gA, CUTE_ALL, CUTE_ALL, kt));
    cute_copy(c, &th->cp16, src, ring_lane(c, th->ring, src, 0, s));
    int64_t parts = p->bk / p->bkx;
    for (int64_t i = 0; i < parts; i++) {
        cute_int kx = cute_add(a, cute_mul(a, kt, cute_i(parts)), cute_i(i));
        cute_tensor x = operand_part(c, p, th, CUTE_MMA_B, CUTE_SLICE(c, t->gX, CUTE_ALL, CUTE_ALL, kx));
        cute_copy(c, &th->cpx, x, ring_lane(c, th->ring_x, x, i, s));
    }
}

/* the split's `full` whole k-tiles through the ring (the block's rows all in A) */
static void ring_walk(cute_ctx *c, const gemv_plan *p, const mma_thread *th, const gemv_mma_tiles *t, cute_int full)
{
    cute_alg *a = cute_ctx_alg(c);
    const mma_form *f = form_of(p->cfg.dtype);
    int d = p->cfg.smem_stages;
    for (int s = 0; s < d - 1; s++) { /* the first stages - 1 k-tiles, a group each */
        CUTE_IF(c, cute_int_lt(c, cute_i(s), full)) { ring_issue(c, p, th, t, cute_i(s), cute_i(s)); }
        cute_cp_async_commit_group(c);
    }
    CUTE_FOR(c, kt, cute_i(0), full)
    {
        cute_int ahead = cute_add(a, kt, cute_i(d - 1));
        CUTE_IF(c, cute_int_lt(c, ahead, full)) { ring_issue(c, p, th, t, ahead, cute_mod(a, ahead, cute_i(d))); }
        cute_cp_async_commit_group(c);
        cute_cp_async_wait_group(c, d - 1); /* k-tile kt has landed */
        cute_tensor gA = CUTE_SLICE(c, t->gA, CUTE_ALL, CUTE_ALL, kt);
        cute_tensor rA = operand_frag(c, p, th, CUTE_MMA_A, gA), dst = gemv_mma_by_vector(c, rA, f->vec_a, f->vec_leaves);
        cute_int s = cute_mod(a, kt, cute_i(d));
        cute_copy(c, &th->vec16, ring_lane(c, th->ring, dst, 0, s), dst);
        ktile_products(c, p, th, t, kt, rA, false, &s);
    }
}

/* the split's full k-tiles (A predicated where `rows_out`: the block reaches past A's last
 * row; X where its vectors do not fill bn; through the ring where there is one and A is not
 * predicated), then the partial last one, all predicated */
static void walk(cute_ctx *c, const gemv_plan *p, const mma_thread *th, const gemv_mma_tiles *t, bool rows_out)
{
    cute_alg *a = cute_ctx_alg(c);
    bool x_short = p->nvec < p->bn;
    cute_int full = cute_div(a, cute_sub(a, t->kend, t->k0), cute_i(p->bk));
    if (p->cfg.smem_stages && !rows_out)
        ring_walk(c, p, th, t, full);
    else
        CUTE_FOR(c, kt, cute_i(0), full)
        {
            ktile_mma(c, p, th, t, kt, rows_out, x_short);
        }
    CUTE_IF(c, cute_int_lt(c, cute_add(a, t->k0, cute_mul(a, full, cute_i(p->bk))), t->kend))
    {
        ktile_mma(c, p, th, t, full, true, true);
    }
}

/* the end of a tensor-core form: thread thr's accumulators acc (its partition of the block's
 * (bm, bn) tile of Y) inside (M, N) to the workspace's split (ordered reduction), added to
 * its one sum (atomic), or scaled into Y */
static void gemv_mma_finish(cute_ctx *c, const gemv_plan *p, cute_thr_mma thr, cute_tensor acc, const gemv_mma_tiles *t,
                            cute_tensor mY, cute_tensor mW, cute_val alpha, cute_val beta)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = mY.layout.shape.leaf[0], b = cute_block_idx(c, 0);
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    cute_tuple bound = cute_tuple_fmt(a, "(%I,%d)", M, p->nvec);
    cute_tensor id = cute_make_identity_tensor(c, bound);
    cute_tensor crd = cute_partition_C(c, thr, cute_tensor_local_tile(c, id, tile, CUTE_CRD(b, 0), NULL));
    cute_ssa in = cute_elem_less(c, crd, bound);
    cute_tensor out = !p->cfg.split ? CUTE_SLICE(c, mY, CUTE_ALL, CUTE_ALL, t->l)
                      : CUTE_SLICE(c, mW, CUTE_ALL, CUTE_ALL, t->l, p->cfg.atomic ? cute_i(0) : t->s);
    cute_tensor part = cute_partition_C(c, thr, cute_tensor_local_tile(c, out, tile, CUTE_CRD(b, 0), NULL));
    if (!p->cfg.split) {
        gemv_scale_into(c, acc, part, in, alpha, beta);
        return;
    }
    if (!p->cfg.atomic) {
        cute_tensor_store_if(c, part, cute_tensor_load(c, acc), in);
        return;
    }
    cute_ssa sums = cute_tensor_load(c, acc);
    for (int i = 0; i < sums.n; i++) CUTE_IF(c, cute_ssa_get(c, in, i))
        {
            cute_val_atomic(c, cute_tensor_ptr(c, part, cute_i(i)), cute_ssa_get(c, sums, i), CUTE_ATOMIC_ADD);
        }
}

void gemv_mma_block(cute_ctx *c, const gemv_plan *p, cute_thr_mma thr, cute_tensor *acc, const gemv_mma_tiles *t,
                    cute_tensor mA, gemv_mma_ends e, gemv_mma_walk_fn walk, void *user)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor gY = CUTE_SLICE(c, e.mY, CUTE_ALL, CUTE_ALL, t->l);
    cute_tuple tile = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm, (long long)p->bn);
    *acc = cute_partition_fragment_C(c, thr, cute_tensor_local_tile(c, gY, tile, CUTE_CRD(0, 0), NULL));
    cute_clear(c, *acc);
    cute_int M = mA.layout.shape.leaf[0];
    cute_int end = cute_mul(a, cute_add(a, cute_block_idx(c, 0), cute_i(1)), cute_i(p->bm));
    CUTE_IF(c, cute_int_lt(c, M, end)) /* the block reaches past A's last row */
    {
        walk(c, true, user);
    }
    CUTE_ELSE(c)
    {
        walk(c, false, user);
    }
    if (p->kgroups != 2) {
        gemv_mma_finish(c, p, thr, *acc, t, e.mY, e.mW, e.alpha, e.beta);
        return;
    }
    CUTE_IF(c, cute_int_lt(c, cute_thread_idx(c, 0), cute_i(p->threads / 2))) /* k group 0 */
    {
        gemv_mma_finish(c, p, thr, *acc, t, e.mY, e.mW, e.alpha, e.beta);
    }
}

/* two k groups: group 1's sums (threads 128 on, the same elements of Y as thread - 128's) added
 * into group 0's through shared memory; group 0 alone finishes (gemv_mma_block) */
static void pair_sum(cute_ctx *c, const gemv_plan *p, const mma_thread *th)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t half = p->threads / 2;
    cute_tensor sums = th->pair_sums;
    cute_int tid = cute_thread_idx(c, 0);
    cute_tensor mine = cute_tensor_slice(c, sums, CUTE_CRD(CUTE_ALL, cute_mod(a, tid, cute_i(half))));
    cute_layout order = cute_make_layout(a, th->acc.layout.shape);
    mine.layout = cute_compose(a, &mine.layout, &order);
    CUTE_IF(c, cute_int_lt(c, cute_i(half - 1), tid)) { cute_tensor_store(c, mine, cute_tensor_load(c, th->acc)); }
    cute_barrier(c);
    CUTE_IF(c, cute_int_lt(c, tid, cute_i(half)))
    {
        cute_tensor_store(c, th->acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, th->acc), cute_tensor_load(c, mine)));
    }
}

typedef struct mma_block {
    const gemv_plan *p;
    const mma_thread *th;
    const gemv_mma_tiles *t;
} mma_block;

/* With gemv_f32_chains, the block's walk keeps each 3xTF32 product's sum apart (acc for big
 * big', two more for the small terms), so that a k-tile's mma.sync form three chains a
 * vector atom instead of one of 12 (8 vectors: a warp's whole k-tile one chain, each
 * waiting on the last), and adds them at the end: acc += small[0] + small[1] */
static void block_walk(cute_ctx *c, bool rows_out, void *user)
{
    const mma_block *b = user;
    mma_thread th = *b->th;
    th.chains = gemv_f32_chains(&b->p->cfg, b->p->arch);
    for (int i = 0; i < 2 && th.chains; i++) {
        th.small[i] = cute_make_rmem_tensor_like(c, th.acc, CUTE_F32);
        cute_clear(c, th.small[i]);
    }
    walk(c, b->p, &th, b->t, rows_out);
    if (th.chains) {
        cute_ssa small = cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, th.small[0]), cute_tensor_load(c, th.small[1]));
        cute_tensor_store(c, th.acc, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, th.acc), small));
    }
    if (b->p->kgroups == 2) pair_sum(c, b->p, &th);
}

bool gemv_f32_chains(const cute_gemv_config *cfg, int arch)
{
    /* one atom of vectors (8 vectors in k pairs: 95.9 / 95.9% of the copy against 94.8 / 94.8
     * without; 16 vectors 90.6 / 90.1 against 91.8 / 91.6: an H200, session 42) */
    return cfg->mma && cfg->dtype == CUTE_F32 && !gemv_wgmma(cfg, arch) && gemv_nvec(cfg) <= 8;
}

static void mma_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mX, cute_tensor mY, cute_tensor mW,
                       cute_int kchunk, cute_val alpha, cute_val beta)
{
    const gemv_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    gemv_let_dependents_in(c, p);
    if (gemv_wgmma(&p->cfg, p->arch)) {
        gemv_wgmma_kernel(c, mA, mX, mY, mW, kchunk, alpha, beta);
        return;
    }
    /* 16 warps an SM up to 64 vectors (through registers 64 KB of A in flight): 128 registers */
    cute_kernel_min_blocks(c, gemv_mma_blocks(&p->cfg, p->arch));
    gemv_mma_tiles t = gemv_mma_block_tiles(c, p, mA, mX, kchunk);
    mma_thread th = {.thr = cute_tiled_mma_slice(&p->mma, cute_thread_idx(c, 0)),
                     .vec16 = cute_copy_atom_universal(a, p->cfg.dtype, 128)};
    if (p->cfg.smem_stages) ring_make(c, p, &th);
    if (p->kgroups == 2) {
        cute_smem_allocator al = cute_smem_allocator_new(c);
        long long n = p->bn / 8 * 4, half = p->threads / 2; /* a thread's sums: pair_sums_bytes */
        th.pair_sums = cute_smem_alloc_tensor(c, &al, CUTE_F32, cute_layout_fmt(a, "(%lld,%lld):(%lld,1)", n, half, half), 16);
    }
    mma_block b = {p, &th, &t};
    gemv_mma_block(c, p, th.thr, &th.acc, &t, mA, (gemv_mma_ends){mY, mW, alpha, beta}, block_walk, &b);
}

void gemv_mma_host(cute_ctx *c, const cute_arg *arg)
{
    const gemv_plan *p = cute_ctx_user(c);
    gemv_host_args g = gemv_host_unpack(c, arg, p->bm);
    CUTE_LAUNCH(c, mma_kernel, g.launch, g.mA, arg[1].tensor, g.mY, g.mW, g.kchunk, g.alpha, g.beta);
    gemv_reduce_launch(c, p, g.mY, g.mW, g.alpha, g.beta);
}
