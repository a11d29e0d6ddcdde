/* The Hopper GEMM's TMA-store epilogue (CuTe DSL's hopper/dense_gemm.py epilogue): each
 * consumer warpgroup cuts its 64 x bn accumulators into 64 x 64 pieces; a piece is scaled
 * (alpha acc + beta C) in f32, rounded to C's dtype, written by stmatrix into one of the
 * warpgroup's store_stages shared buffers (swizzled by 128 bytes, as the TMA box lies), and
 * sent to C by one TMA store that thread 0 of the warpgroup issues.  A PipelineTmaStore
 * counts the stores: before a buffer is written again, the store that read it has read it;
 * the last stores of a tile run on while the consumers start the next tile's main loop.
 * TMA clips the edge pieces (rows past M, columns past N are not written), so no predicate
 * guards the stores; C under beta (beta != 0) comes the same way back: TMA loads each group's
 * boxes of C into the buffers its stores will read (zero-filled past C's edge), a tile's
 * first group under its main loop, and ldmatrix reads them in the accumulators' layout: no
 * predicate and no global address an element (group_begins, gemm_hopper_store_prefetch).
 *
 * By groups of pieces, as many as the warpgroup has buffers (store_groups): thread 0 waits
 * until the stores before have read their buffers -> the warpgroup meets (under beta:
 * -> thread 0 loads the group's boxes of C -> all wait for them) -> stmatrix of the
 * group's pieces -> fence.proxy.async (the writes become visible to TMA) -> the warpgroup
 * meets -> thread 0 issues the group's stores.  A warpgroup writes, stores and frees only
 * boxes of its own, so its 128 threads meet alone: in the cooperative schedule
 * one warpgroup may start its next tile's wgmmas while the other still stores. */
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/pipeline.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"

/* A piece is 64 x 64: the box's contiguous mode spans the 128-byte swizzle exactly for a
 * 16-bit C; EPILOGUE_BARRIER + w warpgroup w's named barrier (ping-pong: both warpgroups'
 * EPILOGUE_BARRIER, their epilogues taking turns; hopper_epilogue.c's 1 all consumers') */
enum { PIECE = 64, PIECE_BLOCKS = PIECE / 8, WARPGROUP = 128, EPILOGUE_BARRIER = 1 };

/* the columns of C a tile has: the MMA's, or half of them for the dual GEMM (A B0^T's
 * beside A B1^T's) */
static int64_t c_cols(const gemm_plan *p) { return p->cfg.dual ? p->bn / 2 : p->bn; }

bool gemm_hopper_store_takes(const gemm_plan *p)
{
    bool fits = cute_dtype_bytes(cute_gemm_c_dtype(&p->cfg)) == 2 && c_cols(p) % PIECE == 0;
    return fits && p->cfg.tiling.c_store != CUTE_GEMM_STORE_ST;
}

/* whether every piece of a tile has a buffer of its own (CUTE_GEMM_STORE_TILE): one group
 * a tile, whose wait is for the last tile's stores (a main loop later: no wait in fact), at
 * the price of a stage (64 KB of buffers for 128 x 256 against 32 KB) */
static bool whole_tile(const gemm_plan *p) { return p->cfg.tiling.c_store == CUTE_GEMM_STORE_TILE; }

/* a buffer a piece (whole_tile); else two a warpgroup where its pieces a tile are even
 * (buffer j % 2 is then the same in every tile), else one */
static int store_stages(const gemm_plan *p)
{
    int pieces = (int)(c_cols(p) / PIECE);
    return whole_tile(p) ? pieces : pieces % 2 ? 1 : 2;
}

/* a tile's 64-row boxes, and the sets of buffers: one a ping-pong warpgroup (each stores
 * tiles of its own, its stores counted by its own issuing thread), else one */
static int row_boxes(const gemm_plan *p) { return (int)(p->bm / PIECE); }
static int buffer_sets(const gemm_plan *p) { return p->pingpong ? 2 : 1; }

int64_t gemm_hopper_store_bytes(const gemm_plan *p)
{
    return buffer_sets(p) * row_boxes(p) * store_stages(p) * PIECE * PIECE * cute_dtype_bytes(cute_gemm_c_dtype(&p->cfg));
}

/* The buffers take CuTe's 128-byte GMMA atom of C's unit-stride mode (K_SW128: 8 rows of 64
 * contiguous N; MN_SW128: 64 contiguous M by 8), and stmatrix its matching form (.trans
 * for a column-major C: the accumulators' pairs run along N). */
bool gemm_hopper_store_plan(cute_alg *a, gemm_plan *p)
{
    cute_dtype cd = cute_gemm_c_dtype(&p->cfg);
    int asked = p->cfg.tiling.c_store;
    if ((asked == CUTE_GEMM_STORE_TMA || asked == CUTE_GEMM_STORE_TILE) && !gemm_hopper_store_takes(p))
        return cute_alg_fail(a, "gemm hopper: the TMA-store epilogue (--store %s) takes a 16-bit C in tiles of whole "
                             "64-column blocks (C is %s, %lld columns)", asked == CUTE_GEMM_STORE_TILE ? "tile" : "tma",
                             cute_dtype_name(cd), (long long)c_cols(p));
    bool row_major = p->cfg.major[2] == 1;
    p->store_stages = store_stages(p);
    cute_mma_atom piece;
    cute_copy_atom stsm;
    cute_composed atom;
    if (!cute_mma_atom_named(a, "SM90_64x64x16_F32BF16BF16_SS", &piece) ||
        !cute_copy_atom_named(a, row_major ? "SM90_U32x4_STSM_N" : "SM90_U16x8_STSM_T", cd, &stsm) ||
        !cute_smem_atom_gmma(a, row_major ? "Layout_K_SW128_Atom" : "Layout_MN_SW128_Atom", cd, &atom))
        return false;
    cute_layout wgs = cute_layout_fmt(a, "(%d,1,1):(1,0,0)", p->pingpong ? 1 : p->consumers); /* as p->mma's */
    p->epi_mma = cute_make_tiled_mma(a, &piece, &wgs, NULL, NULL, NULL);
    p->r2s = cute_make_tiled_copy_mma(a, &stsm, &p->epi_mma, CUTE_MMA_C);
    cute_tuple shape = cute_tuple_fmt(a, "(%d,%d,%d)", PIECE, PIECE, p->store_stages * row_boxes(p) * buffer_sets(p));
    cute_tuple by_mode = cute_tuple_parse(a, "(1,1,1)");
    p->smem_store = cute_smem_layout_staged(a, &atom, &shape);
    p->smem_store.layout = cute_coalesce_profile(a, &p->smem_store.layout, &by_mode);
    return !a->failed;
}

void gemm_hopper_store_atom(cute_ctx *c, gemm_plan *p, cute_tensor mC, cute_tensor mirror)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout box = cute_take(a, &p->smem_store.layout, 0, 2);
    p->tma_c = cute_make_tma_atom(c, CUTE_TMA_OP_STORE, mC, box, p->smem_store.sw, 1);
    if (p->cfg.peer_mirror) p->tma_m = cute_make_tma_atom(c, CUTE_TMA_OP_STORE, mirror, box, p->smem_store.sw, 1);
}

/* the TMA stores of each box: to C, and to the mirror where the call has one */
static int copies(const gemm_plan *p) { return p->cfg.peer_mirror ? 2 : 1; }

/* A piece of the tile (bm, 64) for one thread: its fragment of C, of C's coordinates, of
 * the epilogue's vector (broadcast over C), and which of them lie inside C (`in`: read by
 * nothing since amax computes its own in edge pieces, session 39; NVRTC drops it, yet without
 * it ptxas orders the bias and amax kernels' SASS otherwise, the same instructions: it stays
 * until a pass times that) */
typedef struct piece_of {
    cute_tensor gC, vC, kC; /* kC: the fragment's coordinates in C */
    cute_ssa in;
} piece_of;

static piece_of piece_at(cute_ctx *c, const gemm_plan *p, cute_thr_mma thr, const gemm_tiles *t, cute_tensor vC,
                         int64_t j)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple shape = cute_tuple_fmt(a, "(%lld,%d)", (long long)p->bm, PIECE);
    cute_tuple at = cute_tuple_fmt(a, "(0,%lld)", (long long)j), MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    piece_of q;
    q.gC = cute_partition_C(c, thr, cute_tensor_local_tile(c, t->gC, shape, at, NULL));
    q.vC = cute_partition_C(c, thr, cute_tensor_local_tile(c, vC, shape, at, NULL));
    q.kC = cute_partition_C(c, thr, cute_tensor_local_tile(c, t->kC, shape, at, NULL));
    q.in = cute_elem_less(c, q.kC, MN);
    return q;
}

/* C under beta: loaded by TMA into the store's buffers, a tile's first group under its main
 * loop (gemm_hopper_store_prefetch; the rest at group_begins).  Each element's predicated
 * load (the form before), its coordinates clamped into C with no branch, and every group's
 * loads at the epilogue were measured slower on an H200 and deleted (bench/RESULTS.md
 * "dec-hgemm": 4096^3 beta 0.5, 93.8 / 94.8 / 100.7% of cuBLAS against 100.9).  A consumer
 * thread's part: the mbarriers and a phase variable (nothing without the TMA store). */
gemm_c_loads gemm_hopper_store_loads(cute_ctx *c, const gemm_plan *p, cute_tensor bars)
{
    gemm_c_loads l = {.bars = bars};
    if (!p->tma_store) return l;
    l.phase = cute_val_var(c, cute_val_int(c, CUTE_U32, 0));
    return l;
}

/* the loads' mbarriers, one an issuing warpgroup (as many as the consumers: cooperative,
 * each its own rows; ping-pong, each its own tiles), each completed by its warpgroup's loads
 * of a group (one arrival, their bytes), one phase a group; initialized by thread 0, the
 * block's barrier after them being the pipeline's (hopper.c) */
cute_tensor gemm_hopper_store_barriers(cute_ctx *c, cute_smem_allocator *al, const gemm_plan *p)
{
    cute_layout L = cute_make_layout(cute_ctx_alg(c), cute_tuple_int(cute_i(p->consumers)));
    cute_tensor bars = cute_make_tensor(c, cute_smem_alloc_array(c, al, CUTE_U64, p->consumers, 8), L, 8);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0))) {
        for (int w = 0; w < p->consumers; w++)
            cute_mbarrier_init(c, cute_tensor_ptr(c, bars, cute_i(w)), cute_val_int(c, CUTE_U32, 1));
        cute_mbarrier_init_fence(c);
    }
    return bars;
}

static cute_val beta_nonzero(cute_ctx *c, cute_val beta)
{
    return cute_val_cmp(c, CUTE_OP_NE, beta, cute_val_const(c, CUTE_F32, 0.0));
}

/* a consumer thread's view of the epilogue's buffers and of C's tile */
typedef struct store_view {
    cute_int wg;
    cute_thr_mma thr;
    cute_thr_copy r2s, s2r;     /* stmatrix's, and ldmatrix's (C under beta, from the buffers) */
    cute_tensor sC, tRS_sC, vC; /* the buffers; (CPY, M, N, stage) the thread's part of them; the vector */
    cute_tensor tSR_sC;         /* ... as ldmatrix reads them (C loaded by TMA) */
    const gemm_c_loads *cl;     /* C's loads by TMA into the buffers */
    bool early;                 /* ... the first group's loaded before the epilogue */
} store_view;

/* the thread's fragment of piece j of C from its buffer, where the group's loads put it
 * (group_begins), by ldmatrix in the accumulators' layout f (stmatrix's inverse: the same
 * shared addresses as the stmatrix that writes the piece back) */
static cute_ssa read_staged(cute_ctx *c, const gemm_plan *p, const store_view *v, int64_t j, cute_tensor f)
{
    cute_tensor in = cute_make_rmem_tensor_like(c, f, (cute_dtype)v->sC.dtype);
    cute_tensor src = cute_tensor_slice(c, v->tSR_sC, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,_,%lld)",
                                                                     (long long)(j % p->store_stages)));
    cute_copy(c, &v->s2r.tc->atom, src, cute_retile_D(c, v->s2r, in));
    return cute_tensor_load(c, in);
}

/* The vector (a bias) read a piece ahead: the vector's fragment of a piece repeats each
 * element along the broadcast mode (a column bias: the same 16 of a thread's 32 elements at
 * rows r and r + 8), so only its distinct elements are loaded (filter_zeros of the fragment's
 * layout), bounded along the vector's own mode only, into registers, piece j + 1's issued
 * before piece j is computed: their latency hides behind a piece's work, not in front of it.
 * Each element loaded under the whole bounds predicate as its piece was computed (32 loads a
 * piece, the form before) was measured slower on an H200 and deleted (8192^3 bf16, +4.9%
 * against +1.0% over the plain kernel: bench/RESULTS.md "epi38"). */
static bool bias_ahead(const gemm_plan *p) { return p->cfg.epilogue.bias != CUTE_GEMM_BIAS_NONE; }

/* the distinct elements of piece q's fragment of the vector, in registers (rows or columns
 * past the tile's broadcast extent read the vector's element all the same: it has one) */
static cute_tensor vector_regs(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, const piece_of *q)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor once = q->vC, at = q->kC;
    once.layout = cute_filter_zeros(a, &q->vC.layout);
    at.layout = cute_make_layout_stride(a, once.layout.shape, q->kC.layout.stride);
    bool row = p->cfg.epilogue.bias == CUTE_GEMM_BIAS_ROW; /* (M past any row of a tile: M + bm) */
    cute_int far_m = cute_add(a, t->M, cute_i(p->bm)), far_n = cute_add(a, t->N, cute_i(p->bn));
    cute_tuple bound = cute_tuple_fmt(a, "(%I,%I)", row ? t->M : far_m, row ? far_n : t->N);
    cute_tensor r = cute_make_rmem_tensor(c, (cute_dtype)once.dtype, cute_make_layout(a, once.layout.shape));
    cute_tensor_store(c, r, cute_tensor_load_if(c, once, cute_elem_less(c, at, bound), 0.0));
    return r;
}

/* the fused epilogue's step (epilogue.c) on x, the vector from regs (loaded ahead, broadcast
 * back over the fragment) where it has one, else zeros */
static cute_ssa fused(cute_ctx *c, const gemm_plan *p, const piece_of *q, cute_ssa x, const cute_tensor *regs)
{
    const cute_gemm_epilogue *e = &p->cfg.epilogue;
    if (!cute_gemm_epilogue_fused(e)) return x;
    if (!regs) return gemm_epilogue_apply(c, e, x, cute_ssa_fill(c, CUTE_F32, x.shape, 0.0));
    cute_tensor all = *regs;
    all.layout = cute_make_layout_stride(cute_ctx_alg(c), q->vC.layout.shape, regs->layout.stride);
    return gemm_epilogue_apply(c, e, x, cute_ssa_cvt(c, cute_tensor_load(c, all), CUTE_F32));
}

/* the 64 columns of the accumulators from column 64 j (the values (2,2,8j..8j+7) of CuTe's
 * CLayout_64xN, which are epi_mma's fragment of a piece), into f */
static cute_ssa columns(cute_ctx *c, cute_tensor acc, int64_t j, cute_tensor f)
{
    cute_alg *a = cute_ctx_alg(c);
    for (int64_t i = 0; i < PIECE_BLOCKS; i++) {
        cute_tuple from = cute_tuple_fmt(a, "((_,_,%lld),_,_)", (long long)(j * PIECE_BLOCKS + i));
        cute_tuple to = cute_tuple_fmt(a, "((_,_,%lld),_,_)", (long long)i);
        cute_tensor_store(c, cute_tensor_slice(c, f, to), cute_tensor_load(c, cute_tensor_slice(c, acc, from)));
    }
    return cute_tensor_load(c, f);
}

/* whether piece j of the tile lies wholly inside C (its last element does): the same for
 * the whole warpgroup */
static cute_val piece_inside(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, int64_t j)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple one = cute_tuple_parse(a, "(1,1)"), MN = cute_tuple_fmt(a, "(%I,%I)", t->M, t->N);
    cute_tuple last = cute_tuple_fmt(a, "(%lld,%lld)", (long long)p->bm - 1, (long long)(j * PIECE + PIECE - 1));
    cute_tensor corner = cute_tensor_local_tile(c, t->kC, one, last, NULL);
    return cute_ssa_get(c, cute_elem_less(c, corner, MN), 0);
}

/* Piece j of C's tile from the thread's accumulators: their 64 columns from 64 j, or for
 * the dual GEMM silu of those (A B0^T) times the same columns of A B1^T (c_cols further
 * on); then alpha x + beta C in f32, the fused epilogue, rounded to C's dtype; beta == 0
 * reads no C. */
static cute_tensor piece_values(cute_ctx *c, const gemm_plan *p, const store_view *sv, const gemm_tiles *t,
                                cute_tensor acc, int64_t j,
                                const piece_of *q, cute_val alpha, cute_val beta, const gemm_scales *sc,
                                const cute_tensor *regs)
{
    cute_tensor f = cute_make_rmem_tensor_like(c, q->gC, CUTE_F32);
    cute_ssa v = columns(c, acc, j, f);
    if (p->cfg.dual) {
        cute_tensor up = cute_make_rmem_tensor_like(c, q->gC, CUTE_F32);
        cute_ssa u = columns(c, acc, j + c_cols(p) / PIECE, up);
        cute_tensor_store(c, f, cute_ssa_binop(c, CUTE_OP_MUL, gemm_epilogue_silu(c, v), u));
        v = cute_tensor_load(c, f);
    }
    /* alpha 1 (the usual call) skips 32 FMULs a piece: 128 a thread a tile, the epilogue's
     * largest single part while the tensor cores wait */
    CUTE_IF(c, cute_val_cmp(c, CUTE_OP_NE, alpha, cute_val_const(c, CUTE_F32, 1.0)))
        cute_tensor_store(c, f, cute_ssa_binop(c, CUTE_OP_MUL, v, cute_ssa_scalar(c, alpha, v.shape)));
    CUTE_IF(c, beta_nonzero(c, beta)) {
        cute_ssa old = cute_ssa_cvt(c, read_staged(c, p, sv, j, f), CUTE_F32);
        cute_ssa bc = cute_ssa_binop(c, CUTE_OP_MUL, old, cute_ssa_scalar(c, beta, v.shape));
        cute_tensor_store(c, f, cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, f), bc));
    }
    cute_tensor out = cute_make_rmem_tensor_like(c, f, cute_gemm_c_dtype(&p->cfg));
    cute_val inside = {0};
    if (sc && p->cfg.amax) inside = piece_inside(c, p, t, j);
    cute_tuple MN = cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", t->M, t->N);
    cute_ssa x = gemm_scales_out(c, p, sc, fused(c, p, q, cute_tensor_load(c, f), regs), q->kC, MN, &inside);
    cute_tensor_store(c, out, cute_ssa_cvt(c, x, (cute_dtype)out.dtype));
    return out;
}

/* The buffers (64, 64, buffer), buffer (set * stages + s) * boxes + r the box of rows 64 r of
 * stage s (one TMA box; set: the ping-pong warpgroup's, else 0), seen as the set's (bm, 64)
 * pieces, one a stage: ((64, boxes), 64, stages) */
static cute_tensor pieces(cute_ctx *c, const gemm_plan *p, cute_tensor sC, cute_int set)
{
    cute_alg *a = cute_ctx_alg(c);
    int rb = row_boxes(p), box = PIECE * PIECE;
    cute_layout T = cute_layout_fmt(a, "((%d,%d),%d,%d,%d):((1,%d),%d,%d,%d)", PIECE, rb, PIECE, p->store_stages,
                                    buffer_sets(p), box, PIECE, box * rb, box * rb * p->store_stages);
    cute_tiler tiler = cute_tiler_layout(&T);
    sC.layout = cute_composition(a, &sC.layout, &tiler);
    return cute_tensor_slice(c, sC, cute_tuple_fmt(a, "(_,_,_,%I)", set));
}

/* the thread that issues its warpgroup's stores (thread 0 of it) */
static cute_val issuer(cute_ctx *c, cute_int tid)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_int_eq(c, cute_mod(a, tid, cute_i(WARPGROUP)), cute_i(0));
}

/* the epilogue's vector (a rank-1 tensor along M or N; unused where bias is NONE) as a
 * broadcast (M, N) tensor, from the tile's first element */
static cute_tensor broadcast(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, cute_tensor v)
{
    cute_alg *a = cute_ctx_alg(c);
    if (p->cfg.epilogue.bias == CUTE_GEMM_BIAS_NONE) return t->gC;
    bool row = p->cfg.epilogue.bias == CUTE_GEMM_BIAS_ROW;
    v.layout = cute_layout_fmt(a, row ? "(%I,%I):(1,0)" : "(%I,%I):(0,1)", t->M, t->N);
    return cute_tensor_domain_offset(c, v, t->kC.coord);
}

/* The boxes of a piece one issuing thread stores: cooperative, each warpgroup its own 64
 * rows (with 256 rows and two warpgroups, rows 64 wg and 128 + 64 wg: the MMA's waves);
 * ping-pong, the warpgroup all of its tile's */
static int issued_boxes(const gemm_plan *p) { return p->pingpong ? row_boxes(p) : row_boxes(p) / p->consumers; }

/* the issuing thread of warpgroup wg's r-th box of a piece */
static cute_int box_row(cute_ctx *c, const gemm_plan *p, cute_int wg, int r)
{
    cute_alg *a = cute_ctx_alg(c);
    return p->pingpong ? cute_i(r) : cute_add(a, wg, cute_i(r * p->consumers));
}

/* The TMA-store pipeline of one issuing thread, a bulk group a store of a box (copies of
 * them: to C and the mirror): one stage, acquired before each group of pieces is written
 * (every store issued before has read its buffer). */
static cute_pipeline_tma_store store_pipe(cute_ctx *c) { return cute_pipeline_tma_store_create(c, 1); }

/* box r of piece j (stage s) that warpgroup wg issues: its buffer of the set (*smem) and its
 * 64 x 64 box of C (*kC) */
static void box_of(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, cute_tensor sC, cute_int wg, int64_t j,
                   int r, cute_tensor *smem, cute_tensor *kC)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tuple box = cute_tuple_fmt(a, "(%d,%d)", PIECE, PIECE);
    int rb = row_boxes(p), s = (int)(j % p->store_stages);
    cute_int row = box_row(c, p, wg, r), set = p->pingpong ? wg : cute_i(0);
    cute_int buf = cute_add(a, cute_mul(a, set, cute_i(rb * p->store_stages)), cute_add(a, cute_i(s * rb), row));
    *kC = cute_tensor_local_tile(c, t->kC, box, cute_tuple_fmt(a, "(%I,%lld)", row, (long long)j), NULL);
    *smem = cute_tensor_slice(c, sC, cute_tuple_fmt(a, "(_,_,%I)", buf));
}

/* Thread 0 of warpgroup wg: the stores of piece j that its warpgroup issues, each from its
 * buffer to its box of C (and of the mirror, laid out as C: the same coordinates) */
static void store_piece(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, cute_tensor sC, cute_int wg, int64_t j,
                        const cute_val maps[2])
{
    for (int r = 0; r < issued_boxes(p); r++) {
        cute_tensor smem, kC;
        box_of(c, p, t, sC, wg, j, r, &smem, &kC);
        for (int i = 0; i < copies(p); i++)
            cute_tma_copy(c, i ? &p->tma_m : &p->tma_c, maps[i], smem, kC, (cute_tma_copy_opts){0});
    }
}

/* ... and the loads of the same boxes of C into the same buffers, completing on bar: through
 * the store's map (a tensor map serves either direction; the box and swizzle are the same),
 * zero-filled where a box runs past C's edge */
static void load_piece(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, cute_tensor sC, cute_int wg, int64_t j,
                       cute_val mapC, cute_val bar)
{
    cute_tma_atom load = p->tma_c;
    load.op = CUTE_TMA_OP_LOAD;
    for (int r = 0; r < issued_boxes(p); r++) {
        cute_tensor smem, kC;
        box_of(c, p, t, sC, wg, j, r, &smem, &kC);
        cute_tma_copy(c, &load, mapC, kC, smem, (cute_tma_copy_opts){.bar = bar});
    }
}

/* the 128 threads of warpgroup wg meet: in the cooperative schedule at the warpgroup's own
 * barrier (a branch each, a barrier's id being a constant) */
static void warpgroup_meets(cute_ctx *c, const gemm_plan *p, cute_int wg)
{
    if (p->pingpong || p->consumers == 1) {
        cute_named_barrier_sync(c, EPILOGUE_BARRIER, WARPGROUP);
        return;
    }
    for (int w = 0; w < p->consumers; w++)
        CUTE_IF(c, cute_int_eq(c, wg, cute_i(w))) cute_named_barrier_sync(c, EPILOGUE_BARRIER + w, WARPGROUP);
}

/* thread 0 of warpgroup wg: the loads of C's pieces g..end-1 into their buffers, their bytes
 * expected on bar */
static void load_group(cute_ctx *c, const gemm_plan *p, const gemm_tiles *t, cute_tensor sC, cute_int wg, int64_t g,
                       int64_t end, cute_val mapC, cute_val bar)
{
    int64_t bytes = (end - g) * issued_boxes(p) * p->tma_c.bytes;
    cute_mbarrier_arrive_and_expect_tx(c, bar, cute_val_int(c, CUTE_U32, bytes));
    for (int64_t j = g; j < end; j++) load_piece(c, p, t, sC, wg, j, mapC, bar);
}

/* A group's start: the warpgroup meets, its buffers free (thread 0 acquired them).  Where
 * beta != 0, thread 0 then loads the group's boxes of C into the buffers (unless the main
 * loop did: the first group, early), their bytes completing the warpgroup's mbarrier, and
 * the warpgroup waits for them: the phase of the thread's variable, which flips at each
 * group loaded (beta is the kernel's: every tile loads, or none). */
static void group_begins(cute_ctx *c, const gemm_plan *p, const store_view *v, cute_int tid, const gemm_tiles *t,
                         cute_val beta, cute_val mapC, int64_t g, int64_t end)
{
    warpgroup_meets(c, p, v->wg);
    CUTE_IF(c, beta_nonzero(c, beta)) {
        cute_val bar = cute_tensor_ptr(c, v->cl->bars, v->wg);
        if (!(g == 0 && v->early)) CUTE_IF(c, issuer(c, tid)) load_group(c, p, t, v->sC, v->wg, g, end, mapC, bar);
        cute_mbarrier_wait(c, bar, v->cl->phase);
        cute_val_assign(c, v->cl->phase, cute_val_binop(c, CUTE_OP_XOR, v->cl->phase, cute_val_int(c, CUTE_U32, 1)));
    }
}

/* piece j: its values from the accumulators, written by stmatrix into its buffer (the
 * vector from regs where they were loaded ahead, else NULL) */
static void write_piece(cute_ctx *c, const gemm_plan *p, const store_view *v, const gemm_tiles *t, cute_tensor acc,
                        int64_t j, cute_val alpha, cute_val beta, const gemm_scales *sc, const cute_tensor *regs)
{
    piece_of q = piece_at(c, p, v->thr, t, v->vC, j);
    cute_tensor out = piece_values(c, p, v, t, acc, j, &q, alpha, beta, sc, regs);
    cute_tensor dst = cute_tensor_slice(c, v->tRS_sC, cute_tuple_fmt(cute_ctx_alg(c), "(_,_,_,%lld)",
                                                                     (long long)(j % p->store_stages)));
    cute_copy(c, &p->r2s.atom, cute_retile_S(c, v->r2s, out), dst);
}

/* the writes so far made visible to TMA, and the warpgroup met: its buffers are written */
static void written(cute_ctx *c, const gemm_plan *p, cute_int wg)
{
    if (!(p->broken & GEMM_BREAK_STORE_FENCE)) cute_fence_proxy_async_shared_cta(c);
    if (!(p->broken & GEMM_BREAK_STORE_BARRIER)) warpgroup_meets(c, p, wg);
}

/* piece j's vector, loaded into registers ahead of its use (bias_ahead) */
static cute_tensor ahead_regs(cute_ctx *c, const gemm_plan *p, const store_view *v, const gemm_tiles *t, int64_t j)
{
    piece_of q = piece_at(c, p, v->thr, t, v->vC, j);
    return vector_regs(c, p, t, &q);
}

/* The pieces in groups of store_stages (the whole tile where every piece has a buffer, two
 * groups of two for 128 x 256 tiles through two buffers a warpgroup): thread 0 waits until
 * every store issued before has read its buffer (the first group: the last tile's, which had
 * this tile's main loop for it), the warpgroup meets, every piece of the group is written by
 * stmatrix, fenced, the warpgroup meets once more and thread 0 issues the group's stores,
 * waiting for none.  So a tile has one wait for a store's read fewer than it has groups, and
 * two barriers a group.  Two groups of two against piece by piece, each beside the whole tile
 * in the same run (H200, session 31, bench/RESULTS.md "hop18"): within the runs' spread. */
static void store_groups(cute_ctx *c, const gemm_plan *p, const store_view *v, cute_int tid, const gemm_tiles *t,
                         cute_tensor acc, cute_val alpha, cute_val beta, const cute_val maps[2], const gemm_scales *sc)
{
    cute_pipeline_tma_store pipe = store_pipe(c);
    int64_t pieces = c_cols(p) / PIECE;
    bool ahead = bias_ahead(p);
    cute_tensor next = {0};
    if (ahead) next = ahead_regs(c, p, v, t, 0);
    for (int64_t g = 0; g < pieces; g += p->store_stages) {
        int64_t end = g + p->store_stages < pieces ? g + p->store_stages : pieces;
        CUTE_IF(c, issuer(c, tid)) if (!(p->broken & GEMM_BREAK_STORE_ACQUIRE)) cute_pipeline_tma_store_producer_acquire(c, &pipe);
        group_begins(c, p, v, tid, t, beta, maps[0], g, end);
        for (int64_t j = g; j < end; j++) {
            cute_tensor now = next;
            if (ahead && j + 1 < pieces) next = ahead_regs(c, p, v, t, j + 1);
            write_piece(c, p, v, t, acc, j, alpha, beta, sc, ahead ? &now : NULL);
        }
        written(c, p, v->wg);
        CUTE_IF(c, issuer(c, tid)) for (int64_t j = g; j < end; j++) store_piece(c, p, t, v->sC, v->wg, j, maps);
    }
}

/* tid: the thread's index among the consumers (ping-pong: warpgroup tid / 128 stores its own
 * tile, its 128 threads meeting at the barrier; the two take turns, hopper.c) */
void gemm_hopper_store_epilogue(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t,
                                cute_tensor acc, cute_val alpha, cute_val beta, cute_tensor sC, const cute_val maps[2],
                                cute_tensor mV, const gemm_scales *sc, const gemm_c_loads *cl, bool early)
{
    cute_alg *a = cute_ctx_alg(c);
    store_view v = {.wg = cute_div(a, tid, cute_i(WARPGROUP)), .sC = sC, .cl = cl, .early = early};
    cute_int me = p->pingpong ? cute_mod(a, tid, cute_i(WARPGROUP)) : tid;
    v.thr = cute_tiled_mma_slice(&p->epi_mma, me), v.r2s = cute_tiled_copy_slice(&p->r2s, me);
    v.tRS_sC = cute_partition_D(c, v.r2s, pieces(c, p, sC, p->pingpong ? v.wg : cute_i(0)));
    /* C under beta by ldmatrix, stmatrix's inverse: the N form for a row-major C, .trans for
     * a column-major one (v.s2r points at s2r while the epilogue is traced) */
    cute_copy_atom ldsm;
    const char *name = p->cfg.major[2] == 1 ? "SM75_U32x4_LDSM_N" : "SM75_U16x8_LDSM_T";
    if (!cute_copy_atom_named(a, name, cute_gemm_c_dtype(&p->cfg), &ldsm)) return;
    cute_tiled_copy s2r = cute_make_tiled_copy_mma(a, &ldsm, &p->epi_mma, CUTE_MMA_C);
    v.s2r = cute_tiled_copy_slice(&s2r, me);
    v.tSR_sC = cute_partition_S(c, v.s2r, pieces(c, p, sC, p->pingpong ? v.wg : cute_i(0)));
    v.vC = broadcast(c, p, t, mV);
    store_groups(c, p, &v, tid, t, acc, alpha, beta, maps, sc);
}

/* The first group's loads of C for tile t, early (under the tile's main loop, not at its
 * epilogue): thread 0 of each warpgroup waits until its stores before have read their
 * buffers (the last tile's: they had this main loop's start to do it), then loads.  The
 * warpgroup's threads are past the last tile's epilogue (its barrier after the stmatrix):
 * none reads or writes the buffers until this tile's. */
void gemm_hopper_store_prefetch(cute_ctx *c, const gemm_plan *p, cute_int tid, const gemm_tiles *t, cute_val beta,
                                cute_val mapC, cute_tensor sC, const gemm_c_loads *cl)
{
    if (!p->tma_store) return;
    cute_int wg = cute_div(cute_ctx_alg(c), tid, cute_i(WARPGROUP));
    int64_t pieces = c_cols(p) / PIECE, end = p->store_stages < pieces ? p->store_stages : pieces;
    cute_pipeline_tma_store pipe = store_pipe(c);
    CUTE_IF(c, beta_nonzero(c, beta)) CUTE_IF(c, issuer(c, tid)) {
        cute_pipeline_tma_store_producer_acquire(c, &pipe);
        load_group(c, p, t, sC, wg, 0, end, mapC, cute_tensor_ptr(c, cl->bars, wg));
    }
}

void gemm_hopper_store_drain(cute_ctx *c, const gemm_plan *p, cute_int tid)
{
    if (!p->tma_store) return;
    cute_pipeline_tma_store pipe = store_pipe(c);
    CUTE_IF(c, issuer(c, tid)) cute_pipeline_tma_store_producer_tail(c, &pipe);
}
