/* The plan of a row-reduction kernel (threads per row, values per thread, rows per block)
 * and its compile: each given slot's spec from the plan, the host function of rows_kernel.c.
 *
 * Sizing (docs/reductions.md): a thread holds at most 32 f32 values of each row-sized array
 * (16 where the op keeps three or more: inputs, weights, column sums), so that a block of
 * 1024 threads stays within 64 registers a thread.  Threads per row are the fewest powers
 * of two that hold the row so; a row longer than 1024 threads hold is walked in chunks.
 *
 * A row that would take more than 256 threads (one or two blocks an SM, whose reductions
 * leave the SM's loads idle) is staged in shared memory instead, where its row inputs fit
 * STAGE_BYTES (two blocks an SM): blocks of 256 threads walk it in chunks from there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_arch.h"
#include "env/env_choice.h"
#include "kernels/rows/rows_internal.h"

static int64_t pow2_at_least(int64_t x)
{
    int64_t p = 1;
    while (p < x) p *= 2;
    return p;
}

#define STAGE_THREADS 256
#define WALK_BYTES 64
#define STAGE_BYTES (100 * 1024)

int row_plan_slots(const row_plan *p, int role)
{
    int inputs = 0;
    for (int s = 0; s < p->op->nslots; s++) inputs += p->has[s] && p->op->slot[s].role == role;
    return inputs;
}

static int row_inputs(const row_plan *p) { return row_plan_slots(p, ROW_IN); }

/* The sm_90 forms (bulk copies with transaction counts, clusters of up to ROW_CLUSTER_MAX
 * blocks, a block's 227 KB of shared memory): on sm_90 and sm_100, and on the interpreter
 * (arch 0); sm_120's 99 KB a block, and older targets, take the SM80 forms (docs/cards.md) */
static bool sm90_forms(const row_plan *p)
{
    return !p->arch || (p->arch >= 90 && cute_cuda_arch_smem_per_block(p->arch) >= cute_cuda_arch_smem_per_block(90));
}

/* tiles of STAGE_THREADS K V columns that stage a row of n (0: the row is not staged: it
 * fits 256 threads' registers, its accesses are narrower than 16 bytes (a bulk copy moves
 * 16-byte units), the op has no row reduction, the target lacks the sm_90 forms (sm90_forms), or the row
 * is too long) */
static int stage_chunks(const row_plan *p, int64_t n, int kmax)
{
    int esize = cute_dtype_bytes(p->dtype[0]);
    int64_t tile = (int64_t)STAGE_THREADS * kmax * p->vec, chunks = (n + tile - 1) / tile;
    if (n <= tile || p->vec * esize != 16 || p->op->stages == 0) return 0;
    if (!sm90_forms(p)) return 0; /* bulk copies and transaction counts */
    return chunks * tile * esize * row_inputs(p) <= STAGE_BYTES ? (int)chunks : 0;
}

static int row_arrays(const row_plan *p)
{
    int arrays = 0;
    for (int s = 0; s < p->op->nslots; s++) {
        uint8_t r = p->op->slot[s].role;
        arrays += p->has[s] && (r == ROW_IN || (r == COL_IN && !p->op->columns_late) || r == COL_PARTIAL);
    }
    return arrays;
}

#define SMEM_MAX (200 * 1024) /* of a block's 227 KB, what staging and column sums may take */

static int sum_arrays(const row_plan *p) { return row_plan_slots(p, COL_PARTIAL); }

static bool keeps_sums(const row_plan *p) { return sum_arrays(p) > 0; }

bool row_plan_persistent(const row_plan *p) { return keeps_sums(p); }

int row_plan_sum_tiles(const row_plan *p) { return keeps_sums(p) && p->cluster > 1 && p->stage_chunks > 1 ? p->stage_chunks : 1; }

/* A row that needs more than 256 threads' registers and is too long to stage in one block's
 * shared memory, on sm_90 and later, is split over a cluster of up to ROW_CLUSTER_MAX blocks.
 * Not where a longer row's chunked walk reads it once anyway (cross-entropy's forward
 * without dlogits: one streaming pass at ~93% of the copy), nor for an op without a row
 * reduction.  False: no split. */
static bool cluster_allowed(const row_plan *p)
{
    bool writes = false; /* a write pass, which reads the row again in chunks */
    for (int s = 0; s < p->op->nslots; s++) writes |= p->has[s] && p->op->slot[s].role == ROW_OUT;
    return sm90_forms(p) && p->op->stages > 0 && !(p->looped && p->op->stages + writes < 2);
}

/* With 16-byte accesses each block of the cluster stages its part of the row in shared memory
 * (CLUSTER_STAGE_BYTES of inputs or the fewest chunks that keep the cluster within
 * ROW_CLUSTER_MAX blocks) and walks it in chunks of 256 threads from there, as a staged row does:
 * the registers hold a chunk at a time, never the row across its reduction (held so, the
 * cluster kernels spilled: softmax backward 100 bytes at 4096x32768, the norms' backward 76
 * to 224 at 262144), and the several blocks an SM keep its loads going while one of them
 * reduces.  Column sums (dw, db) stay in registers over the block's rows: one chunk a block
 * then, of up to 1024 threads.
 * 64 KB parts: three blocks an SM (80 registers of 256 threads) hold 192 KB in flight, what a
 * staged row of one block holds at 4096x32768 (softmax forward 92.8% of the copy); 32 KB
 * parts of 256 threads (clusters of 16 at 262144) held 96 KB and ran the forwards at 50-75%
 * (bench/RESULTS.md, rows7; deleted) */
#define CLUSTER_STAGE_BYTES (64 * 1024)
/* A forward's cluster parts (engineer lnf; H200, 2026-11-27, % of the copy at 1024x262144,
 * two passes, default -> hex / split / both; cross-entropy fwd+bwd at 8192x131072):
 *  - "hex": 32 KB parts, six blocks of 128 threads an SM (80 registers; clusters of 16 at
 *    262144, 8 at 131072), where three blocks of 256 threads held 64 KB each: the same 192 KB
 *    and 24 warps an SM in six blocks that load, reduce, exchange and write apart, so that
 *    fewer moments find none of an SM's blocks loading (with f the share of a block's life
 *    after its load, all k blocks of an SM are past their loads f^k of the time if they keep
 *    apart).  LayerNorm 74.8 / 74.6 -> 79.4 / 79.3, softmax 93.6 -> 95.3, cross-entropy 84.5
 *    -> 84.6; RMSNorm 86.0 -> 84.9: not for an op whose column inputs are loaded with the row
 *    (RMSNorm's weight), which CUTEC_ROWS_TRIAL=hex still times.  (quad, 48 KB parts of
 *    four blocks of 256 threads at 64 registers: LayerNorm 70.1, deleted; ln19's rows2, two
 *    rows a block of 256 threads over hex's parts, LayerNorm 74.6 against 81.3: deleted.)
 *  - "split": the part copied chunk by chunk, each completing on a barrier of its own, so
 *    that the stage walk starts on the first chunk while the others arrive (rows_kernel.c's
 *    fill_chunks, chunk_wait).  LayerNorm 77.1 / 77.2 alone, 79.3 -> 80.8 with hex; with hex
 *    RMSNorm -0.4, softmax -1.4, cross-entropy -7.5: for an op with late column inputs only
 *    (LayerNorm's weight and bias); the others' trial of it (rows35: RMSNorm's wchain with it
 *    85.6 against 87.4 and 87.2) was measured slower and deleted (bench/RESULTS.md, delnolnb).
 * CUTEC_ROWS_HEX=0 and CUTEC_ROWS_SPLIT=0 leave each out, so that one run can time both. */
#define CLUSTER_STAGE_BYTES_HEX (32 * 1024)
static bool late_columns(const row_plan *p) { return row_plan_slots(p, COL_IN) && p->op->columns_late; }
static bool hex_parts(const row_plan *p)
{
    bool with_row = row_plan_slots(p, COL_IN) && !p->op->columns_late;
    return !keeps_sums(p) && rows_env(ROWS_ENV_HEX) == 0 && (!with_row || rows_trial("hex"));
}
static bool split_parts(const row_plan *p)
{
    return !keeps_sums(p) && rows_env(ROWS_ENV_SPLIT) == 0 && late_columns(p);
}

/* parts of `part` bytes from blocks of `threads` threads on (exact: those or none, so that
 * hex's six blocks an SM are not asked of parts the cluster's 16 blocks make larger: f32 or a
 * residual at 262144, whose 64 KB parts of 128 threads would leave 12 warps an SM) */
static bool cluster_stage_at(row_plan *p, int64_t n, int kmax, int64_t part, int threads0, bool exact);

static bool cluster_stage(row_plan *p, int64_t n, int kmax)
{
    /* (ln43, measured and deleted: LayerNorm's forward over 64 KB parts of 128 threads in
     * clusters of 8 at 262144, three chunks staged and five read from global memory twice
     * (asked of L2 at the row's start), seven blocks an SM, 72 registers: the driver held 107
     * clusters of 8 (856 blocks) where 49 of 16 (784), yet H200 63.2 / 63.7% of the copy
     * against 85.2 / 85.3, 392 us: issue 43%, long scoreboard 10 warps an issue (the global
     * chunks' L2 round trips one after another).  Its rows past the clusters of 16 as a second
     * launch of 64 KB parts on a stream of its own (CUTEC_ROWS_SIDE) ran after the first, not
     * beside it: 48 rows -4.2, 32 rows -4.55, at the greatest stream priority -6.7.
     * bench/RESULTS.md, ln43) */
    if (hex_parts(p) && cluster_stage_at(p, n, kmax, CLUSTER_STAGE_BYTES_HEX, STAGE_THREADS / 2, true)) return true;
    return cluster_stage_at(p, n, kmax, CLUSTER_STAGE_BYTES, STAGE_THREADS, false);
}

static bool cluster_stage_at(row_plan *p, int64_t n, int kmax, int64_t part, int threads0, bool exact)
{
    int esize = cute_dtype_bytes(p->dtype[0]);
    bool sums = keeps_sums(p);
    if (p->vec * esize != 16) return false;
    for (int threads = threads0; threads <= 1024; threads *= 2) {
        int64_t tile = (int64_t)threads * kmax * p->vec, chunk_bytes = tile * esize * row_inputs(p);
        int64_t per = sums ? 1 : part / chunk_bytes > 1 ? part / chunk_bytes : 1;
        if (!sums && (n + per * tile - 1) / (per * tile) > ROW_CLUSTER_MAX) per = (n + ROW_CLUSTER_MAX * tile - 1) / (ROW_CLUSTER_MAX * tile);
        if (exact && (threads != threads0 || per * chunk_bytes > part)) return false;
        int64_t blocks = (n + per * tile - 1) / (per * tile);
        /* a tile of 1024 threads' is walked by 512 threads of twice the values (one block an
         * SM, 128 registers a thread: 64 cannot hold a chunk beside the sums, the norms'
         * backward spilled 76 to 224 bytes), which keep its column sums in registers, 32 a
         * thread an array, and walk it in tiles of their own, each with its sums, two an
         * array (RMSNorm's dw: two tiles of 16 values a thread; LayerNorm's dw and db: four of
         * 8), so that a tile's values at hand and the sums fit 128 registers (sm_90a bf16:
         * RMSNorm 127, LayerNorm 128, no spill; in one tile of 32 values they spilled 12 and
         * 240 bytes).  Their shared memory holds three 64 KB buffers and the pipelined walk.
         * H200, 2026-11-27, % of the copy at 1024x262144: RMSNorm 59.1 -> 67.2, LayerNorm
         * 43.1 (dw/db by a pass of their own) -> 55.9 (norms17's form before, the sums in
         * shared memory in one tile: measured slower, deleted; RMSNorm's dw in shared memory
         * in two tiles 58.7, LayerNorm's db there beside dw in registers in two 51.9) */
        bool halved = sums && threads == 1024;
        if (blocks > ROW_CLUSTER_MAX || per * chunk_bytes > STAGE_BYTES) continue;
        if (blocks < 2 && !sums) return false; /* one block: rows_compile's staging or registers */
        int split = halved ? 2 * sum_arrays(p) : 1;
        while (split > 1 && 2 * kmax % split) split /= 2;
        p->tpr = halved ? threads / 2 : threads, p->k = halved ? 2 * kmax / split : kmax;
        p->rows = 1, p->cluster = blocks > 1 ? (int)blocks : 0, p->stage_chunks = (int)per * split;
        p->looped = true, p->column_grid = blocks > 1;
        /* a block with column sums walks several rows (rows_call.c's persistent grid): up to
         * three rows' copies in flight during this one's work, as its share of the SM allows.
         * The forwards keep a block a row: walking rows with two 32 KB buffers (21 resident
         * clusters of 16 on an H200) ran RMSNorm's forward at 1024x262144 at 68.7% of the
         * copy, against 75.5% a block a row in the same run (bench/RESULTS.md, rows6) */
        int64_t room = SMEM_MAX / row_plan_blocks_per_sm(p), bufs = room / (per * chunk_bytes);
        per *= split, chunk_bytes /= split, tile /= split; /* (the same bytes a part) */
        bufs = bufs > 4 ? 4 : bufs < 1 ? 1 : bufs;
        /* a block with column sums keeps its part of the columns: its weight is staged once
         * where that leaves the buffers as many (the norms' backward at 4096 and 32768; at
         * 262144 the three buffers leave room only under wstage, below) */
        int64_t cols_bytes = per * tile * esize * row_plan_slots(p, COL_IN);
        /* (lnb's wstage: one block an SM may take the SM's 227 KB, less 2 KB for the
         * reductions' scratch, the exchange and the barriers: 1024x262144's three 64 KB
         * buffers and its 32 KB of bf16 weight; without it, the weight from L2 in both
         * passes, LayerNorm 63.5 against 78.6% of the copy: deleted) */
        int64_t whole = row_plan_blocks_per_sm(p) == 1 ? 225 * 1024 : room;
        p->stage_cols = sums && cols_bytes && (whole - cols_bytes) / (per * chunk_bytes) >= bufs;
        /* A forward's block stages one row's part and exits (three blocks of 256 threads an
         * SM, one 64 KB buffer each): an SM's next load starts only when one of its blocks
         * has exchanged and written its row and a whole cluster's new blocks find room, and
         * a block's exchange waits out the cluster with no load of its own in flight.  Yet
         * walking rows lost each time it was tried: one block of 512 threads an SM with
         * three buffers of its part (the same 192 KB), a persistent grid of clusters and the
         * pipelined exchange, two rows' loads in flight while it reduces one and writes the
         * one before (engineer ln18, H200, session 33, points of the copy at 1024x262144:
         * LayerNorm -3.4, RMSNorm -6.5, softmax -16.9; 16 warps an SM where a block a row
         * has 24), and rows6's two 32 KB buffers in clusters of 16 (68.7 against 75.5%). */
        p->stage_bufs = sums ? (int)bufs : 1;
        p->stage_split = split_parts(p) && p->cluster > 1 && p->stage_chunks > 1;
        /* with three buffers or more a block posts a row's exchange and writes the previous
         * row before it waits for the cluster (rows_kernel.c's rows_pipelined) */
        p->pipelined = p->cluster > 1 && p->stage_bufs >= 3 && p->op->stages == 1;
        return true;
    }
    return false;
}

/* Narrower accesses: each block holds a tile of the row in its registers, the fewest threads
 * a block (256, 512, 1024) whose tiles cover the row so. */
static bool cluster_split(row_plan *p, int64_t n, int kmax)
{
    for (int threads = 256; threads <= 1024; threads *= 2) {
        int64_t tile = (int64_t)threads * kmax * p->vec, blocks = (n + tile - 1) / tile;
        if (blocks > ROW_CLUSTER_MAX) continue;
        p->tpr = threads, p->k = kmax, p->rows = 1, p->cluster = (int)blocks;
        p->looped = false, p->column_grid = true;
        return true;
    }
    return false;
}

int row_plan_blocks_per_sm(const row_plan *p)
{
    bool sums = keeps_sums(p);
    /* Only a cluster's blocks, staged ones that keep column sums (two blocks an SM: 128
     * registers), and the resident plans of an op that says
     * so (row_op's resident_blocks) ask for an occupancy.  (A norm backward holding its row in
     * registers and asking for three an SM got 80: LayerNorm's spilled 72 bytes and fell from
     * 80.8% to 62.1% of the copy at 16384x4096 on an H100: bench/RESULTS.md.) */
    bool resident = !p->looped && p->cluster < 2 && !sums && p->tpr >= 64;
    if (resident && p->op->resident_blocks) return p->op->resident_blocks;
    if (p->cluster < 2 && !(p->stage_chunks && sums)) return 0;
    /* a staged cluster block walks its part with 80 registers (at 64 cross-entropy's backward
     * spilled 8 bytes, f32 softmax's 12); one holding its tile in registers, 64 */
    int blocks = (sums ? 512 : p->stage_chunks ? (p->tail_global ? 896 : 768) : 1024) / (p->tpr * p->rows);
    return blocks > 0 ? blocks : 1;
}

void row_plan_choose(row_plan *p, int64_t n, int vec)
{
    int per = row_arrays(p) <= 2 ? 32 : 16;
    int kmax = per / vec > 0 ? per / vec : 1;
    /* a row walked in chunks needs no more than 64 bytes of each input a thread in flight
     * (f32's 32 values a thread spilled at 64 registers) */
    int walk = WALK_BYTES / (vec * cute_dtype_bytes(p->dtype[0]));
    int kwalk = kmax < walk ? kmax : walk > 0 ? walk : 1;
    int64_t vectors = (n + vec - 1) / vec;
    int64_t tpr = pow2_at_least((vectors + kmax - 1) / kmax);
    p->vec = vec;
    p->looped = tpr > 1024;
    p->tpr = (int)(tpr > 1024 ? 1024 : tpr);
    p->k = p->looped ? kwalk : (int)((vectors + p->tpr - 1) / p->tpr);
    p->rows = p->tpr >= 256 ? 1 : 256 / p->tpr;
    /* column sums (dw, db) over rows of 256 threads or more: one tile a block, staged with
     * the next rows' copies in flight (a block walks many rows), split over a cluster where
     * one block's tile does not cover the row */
    if (keeps_sums(p) && p->rows == 1 && cluster_allowed(p) && cluster_stage(p, n, kwalk)) return;
    p->stage_chunks = stage_chunks(p, n, kwalk);
    /* ln39's "hexrow": a row one block would stage, with late column inputs (LayerNorm's
     * forward at 4096x32768), split over a cluster of hex's 32 KB parts instead, as the row of
     * 262144 is (two blocks of 128 threads, six an SM, each part copied chunk by chunk), where
     * one block of 256 threads staged 64 KB, three an SM.  H200, 2026-11-28 (ln39's mid pass,
     * % of the copy, bf16 4096x32768, two rounds): 86.2 / 86.1 -> 88.2 / 88.5; the one block's
     * row copied chunk by chunk instead ("split1") 86.5 / 86.4, deleted.  CUTEC_ROWS_HEX=0
     * stages the row in one block again */
    bool hexrow = late_columns(p) && hex_parts(p) && cluster_allowed(p);
    if (p->stage_chunks && hexrow && cluster_stage_at(p, n, kwalk, CLUSTER_STAGE_BYTES_HEX, STAGE_THREADS / 2, true)) return;
    if (p->stage_chunks) p->tpr = STAGE_THREADS, p->k = kwalk, p->rows = 1, p->looped = true;
    else if (p->tpr > 256 && cluster_allowed(p) && !cluster_stage(p, n, kwalk)) cluster_split(p, n, kmax);
}

/* The forms that depend on the row's length, chosen here and nowhere else (timed on an H200
 * on 2026-11-27, bench/RESULTS.md's rows10 section; % of the copy):
 *  - a row longer than 256 threads' registers hold (bf16: over 8192 elements, 4096 with
 *    column sums), which is staged, split over a cluster or walked in chunks, reads bf16 as
 *    32-bit words (sm_90 on): LayerNorm forward 4096x32768 77.8 -> 81.2 and 1024x262144
 *    71.1 -> 72.6, RMSNorm 92.4 -> 92.8 and 82.2 -> 85.4, softmax 1024x262144 91.2 -> 93.3,
 *    cross-entropy fwd+bwd 8192x131072 77.6 -> 81.7.  Shorter rows keep the 16-bit reads (not
 *    timed alone there; log-softmax 16384x4096 64 -> 71 registers, three blocks an SM, not
 *    four).  CUTEC_ROWS_WORDS=0 leaves them out, so that one run can time both;
 *  - such a row staged in one block writes its chunks two at a time (16-bit inputs with
 *    column inputs: rows_kernel.c's write_pass): RMSNorm 4096x32768 89.3 -> 93.3 (88.5 ->
 *    92.4 without the words).  A cluster's parts keep the chunk loop: paired, LayerNorm and
 *    RMSNorm at 1024x262144 ran 1.2 and 0.4 points slower.  CUTEC_ROWS_PAIRS=0 leaves them
 *    out;
 *  - an op's held form (LayerNorm's shifted sums) where a block holds its row or part of it:
 *    in registers, staged, or a cluster's staged part; a narrow-vector cluster split, whose
 *    blocks hold their tiles in registers, keeps Chan's merge. */
void row_plan_forms(row_plan *p, int64_t n)
{
    int per = row_arrays(p) <= 2 ? 32 : 16, kmax = per / p->vec > 0 ? per / p->vec : 1;
    bool long_row = (n + p->vec - 1) / p->vec > (int64_t)STAGE_THREADS * kmax;
    bool sm90 = sm90_forms(p);
    p->words = long_row && sm90 && rows_env(ROWS_ENV_WORDS) == 0;
    p->pairs = long_row && p->cluster < 2 && rows_env(ROWS_ENV_PAIRS) == 0;
    bool held = p->cluster < 2 ? !p->looped || p->stage_chunks : p->stage_chunks > 0;
    if (held && p->op->held_form) p->op = p->op->held_form;
    /* an op's cluster form (cross-entropy's label gathered at the block's first chunk: H200,
     * 2026-11-27, fwd+bwd 8192x131072 81.6 -> 84.0% of the copy); CUTEC_ROWS_EARLY=0 leaves it
     * out, so that one run can time both.  (On a staged row of one block, 4096x32768, its
     * fwd+bwd took 100 registers where 80, two blocks an SM where three: clusters only.) */
    if (p->op->cluster_form && p->cluster > 1 && rows_env(ROWS_ENV_EARLY) == 0) p->op = p->op->cluster_form;
    /* lnb's forms of the norms' backward (docs/reductions.md), the defaults.  H200, 2026-11-27,
     * LayerNorm 4096x32768: 64.7% of the copy, 72.5 with lean, 79.0 with lean, idx32
     * (rows_call.c's index_bound_of) and wf32:
     *  - lean: fewer instructions an element (layernorm.c, rmsnorm.c), dw and db summed without
     *    a select; the call's op planned as its lean form (the kernel's name);
     *  - wf32: a staged 16-bit weight widened once into an f32 copy in shared memory
     *    (rows_kernel.c's columns_widen), not in both passes of every row; not beside
     *    wstage's 225 KB (no room for twice its weight);
     *  - nopred: a 1024-thread part's staged chunks read without a predicate
     *    (rows_kernel.c's zero_staged, write_pass): 1024x262144 with lean 56.2 -> 63.5
     *    (LayerNorm), 67.5 -> 72.8 (RMSNorm); at 4096x32768 it cost 3.7 points.
     * idx32 and wf32 were timed together only: CUTEC_ROWS_TRIAL=no-idx32 / no-wf32 leave one
     * out (row_lnb_form), so that a pass can time each; the forms before lean, nopred, wstage
     * and xfma were measured slower and deleted (bench/RESULTS.md, delnolnb). */
    const row_op *lean = p->op == &row_layernorm_bwd ? &row_layernorm_bwd_lean
                         : p->op == &row_rmsnorm_bwd ? &row_rmsnorm_bwd_lean
                                                      : NULL;
    if (lean) p->op = lean, p->partials_plain = true;
    /* lnb2's xfma (layernorm.c): LayerNorm's passes without c = x - mean, 16-bit inputs (f32
     * keeps lean's).  The default since device-lnb2.sh's pass of 2026-11-27 21:41 (H200,
     * % of the copy, lean / xfma, two rounds): 1024x262144 77.6 / 79.6, 77.9 / 80.4;
     * 4096x32768 78.4 / 78.6, 78.0 / 78.5 */
    if (p->op == &row_layernorm_bwd_lean && cute_dtype_bytes(p->dtype[0]) <= 2) p->op = &row_layernorm_bwd_xfma;
    p->cols_f32 = row_lnb_form("wf32") && p->stage_cols && cute_dtype_bytes(p->dtype[0]) <= 2 &&
                  row_plan_sum_tiles(p) == 1;
    p->staged_plain = p->partials_plain && row_plan_sum_tiles(p) > 1;
    /* the trial "ahead": a cluster's staged part issues its first write chunk's column loads
     * (weight, bias: from L2) before the row's staged wait (rows_kernel.c's write_ahead; +0.6
     * points at 1024x262144, session 32: opt-in; each chunk's a chunk ahead, chunks of two
     * accesses, lnf's "chain": -1.9, deleted).  The flip: drop `rows_trial("ahead") &&` */
    bool late_cols = p->op->columns_late && row_plan_slots(p, COL_IN) && !row_plan_slots(p, COL_PARTIAL);
    bool part = p->cluster > 1 && p->stage_chunks > 0 && !p->pipelined;
    p->cols_ahead = rows_trial("ahead") && part && late_cols;
    /* rows35's wchain (rows_kernel.c's write_chain): a cluster's staged part with one column
     * input (RMSNorm's weight) writes its chunks unrolled, each chunk's columns a chunk ahead
     * (RMSNorm 1024x262144 +1.35, +1.85, +2.10 and +2.0 points of the copy in four H200
     * passes; 78 registers, no spill; its chunk loop, CUTEC_ROWS_TRIAL=no-wchain, measured slower
     * and deleted: the chunk loop stays the other ops') */
    bool one_col = row_plan_slots(p, COL_IN) == 1 && !row_plan_slots(p, COL_PARTIAL);
    p->cols_chain = part && one_col;
    /* (the trial "wchain1": the same for a row one block stages, 4096x32768's, in place of
     * its pairs; 16-bit inputs) */
    bool staged_row = p->cluster < 2 && p->stage_chunks > 1 && cute_dtype_bytes(p->dtype[0]) <= 2;
    p->cols_chain |= rows_trial("wchain1") && staged_row && one_col && !p->pipelined;
    /* ln39's "row128" (the default since session 39): rows held in registers with late column
     * inputs (LayerNorm's forward at 16384x4096 was two rows a block of 256 threads, three an
     * SM) of 64 or 128 threads a row in blocks of 128, a row a block at 4096 (72 registers,
     * seven an SM), which load, reduce and write apart, as hex's parts do at 262144 and 32768;
     * each block still loads its row's columns.  H200, bf16, % of the copy against the blocks
     * of 256: 16384x4096 (128 threads a row) 86.8 -> 93.6 in two rounds, 16384x2048 (64) 84.4
     * -> 88.6; at 32 and 16 threads a row (four and eight rows a block of 128) it lost:
     * 16384x1024 93.2 / 93.4 -> 90.7 / 91.3, 65536x512 94.1 -> 91.6, so those keep theirs.
     * `CUTEC_ROWS_TRIAL=no-row128` gives the blocks of 256 back everywhere.  (A persistent grid
     * of such blocks holding the columns in shared memory, held1, lost 4.6) */
    bool resident_row = !p->looped && p->cluster < 2 && !p->stage_chunks;
    /* rows40's "slim" (the default; rows_cluster.c's row_cluster_alloc): a cluster's exchange
     * slots sized to the op's stages and values, so that RMSNorm's three 64 KB blocks an SM fit
     * the 196 KB carveout (L1 60 KB where 28).  H200, bf16 1024x262144, % of the copy, two
     * rounds (rows40's mid pass): 86.8 / 87.4 -> 89.4 / 88.8.  CUTEC_ROWS_TRIAL=no-slim gives
     * every plan 4 values of 2 stages again.  (48 KB parts of 256 threads, three an SM in the
     * 164 KB carveout, "p48": RMSNorm 80.1 / 79.8, LayerNorm 69.7 / 69.4 against 81.2 / 81.3,
     * deleted) */
    p->slots_slim = row_lnb_form("slim") && p->cluster > 1;
    /* ln41's "tail7" (the default; rows_kernel.c's load_tail): hex's split parts of 128
     * threads (LayerNorm's forward at 262144 and hexrow's 32768) with their last chunk read
     * from global memory twice (HBM, then L2) instead of staged: 24,928 bytes a block where
     * 33,136, so that seven blocks an SM fit (72 registers, the 196 KB carveout) where six
     * took 228 KB: one more block loading while the others reduce and write.  H200, bf16, %
     * of the copy, two rounds in turns (ln41's final pass): 1024x262144 81.1 / 81.4 -> 85.1 /
     * 85.3, 4096x32768 88.3 / 88.0 -> 90.3 / 90.5.  The same tail at six blocks an SM (the
     * 164 KB carveout, L1 92 KB where 28) tied (80.6 / 80.6 against 80.6 / 81.2), and at
     * eight (64 registers, 228 KB) lost to seven (80.4 / 81.0, 84.5 / 84.4): both deleted.
     * CUTEC_ROWS_TRIAL=no-tail gives the six staged parts back */
    p->tail_global = row_lnb_form("tail") && p->stage_split && p->stage_chunks > 1 && p->tpr * p->rows == 128 && !p->cols_ahead;
    /* (ln43's diagnostic: the late columns never loaded, to time what they cost) */
    p->diag_cols = late_cols ? rows_env(ROWS_ENV_DIAG) : 0;
    if (p->diag_cols) cute_env_warn_diag("CUTEC_ROWS_DIAG");
    /* (ln43's "colpf", measured and deleted: the chunk loop's write chunks each asking L1 for
     * the next chunk's weight and bias by prefetch.global.L1, the first write chunk's before
     * the cluster exchange; 71 registers, no spill, the write loop 316 -> 366 sm_90a
     * instructions a chunk.  H200, % of the copy against the default in turns: 1024x262144
     * 80.9 / 80.8 against 85.0 / 85.2, 4096x32768 86.0 against 90.1: bench/RESULTS.md, ln43) */
    /* (ln42, measured and deleted; H200, % of the copy against the default in turns: the
     * write loop at 1024x262144 without predicates on whole chunks and y by two FMAs, 315 ->
     * 220 sm_90a instructions a chunk, 1024x262144 +0.8, -0.3, 0.0, +0.9 and 4096x32768 +0.5,
     * +0.7, +0.5, -0.2 over three passes: under the 0.4 asked; these plans' grid persistent,
     * clusters walking rows, -6.8 and -5.2; with each staged buffer refilled with the next row
     * in the write pass, -14.7 and -16.5: bench/RESULTS.md, ln42) */
    /* nb41's PDL forms of the norms' backward (the defaults where the row kernel is not a
     * persistent grid of clusters of two blocks an SM; rows_call.c, columns.c):
     *  - sumpdl: the column sums' pass (dw, then db) launched as the row kernel's dependent
     *    (PDL), let in at the row kernel's start: its blocks wait (griddepcontrol.wait) in the
     *    slots the row blocks leave, for the row kernel's end; LayerNorm's db pass as dw's;
     *  - rowpdl: the row kernel launched as the dependent of the kernel before it in the
     *    stream (in a loop of backwards, the pass, which lets it in at its start), its
     *    griddepcontrol.wait before its first global access (rows_kernel.c's rows_body).
     * H200, bf16, % of the copy (bench/RESULTS.md, nb41): with the pass's lanes sized to its
     * rows (columns.c's sumlanes) both gained at 16384x4096 (one block a row, 2 an SM: LayerNorm
     * 81.8 -> 84.1, RMSNorm 78.6 / 78.4 -> 80.7 / 80.9) and at 1024x262144 (clusters of 16, one
     * block an SM: 84.1 / 92.0 with sumlanes alone, 84.8 / 92.3 with both); at 4096x32768
     * (clusters of 8, two blocks an SM: 30 clusters on 120 of the 132 SMs) the three together
     * collapsed, 79.1 -> 62.1 and 62.3, 87.1 -> 63.1, where each alone and the two PDL forms
     * without sumlanes did not (80.2, 79.9; 87.7, 88.3): so not there.  CUTEC_ROWS_TRIAL=
     * no-sumpdl / no-rowpdl leave each out */
    bool pdl_plan = keeps_sums(p) && (!p->arch || p->arch >= 90) && !(p->cluster > 1 && row_plan_blocks_per_sm(p) > 1);
    p->sums_pdl = row_lnb_form("sumpdl") && pdl_plan;
    p->row_pdl = row_lnb_form("rowpdl") && pdl_plan;
    if (row_lnb_form("row128") && resident_row && late_cols && p->tpr >= 64 && p->tpr <= 128)
        p->rows = 128 / p->tpr;
}

bool row_lnb_form(const char *name)
{
    char off[32];
    snprintf(off, sizeof off, "no-%s", name);
    return !rows_trial(off);
}

static cute_arg_spec slot_spec(const row_plan *p, int s)
{
    char text[96];
    int v = p->vec, role = p->op->slot[s].role;
    cute_dtype d = p->dtype[s];
    int esize = cute_dtype_bytes(d);
    if (role == ROWVAL_IN || role == ROWVAL_OUT) return cute_spec_tensor(d, "?:1", esize);
    if (role == COL_IN) {
        snprintf(text, sizeof text, v > 1 ? "?{div=%d}:1" : "?:1", v);
        return cute_spec_tensor(d, text, v * esize);
    }
    if (v > 1)
        snprintf(text, sizeof text, "(?,?{div=%d}):(?{div=%d},1)", v, v);
    else
        snprintf(text, sizeof text, "(?,?):(?,1)");
    return cute_spec_tensor(d, text, v * esize);
}

const cute_fn *row_compile(cute_runtime *rt, const row_plan *p, char *err, size_t n)
{
    cute_arg_spec specs[ROW_SLOTS + 4];
    int k = 0;
    for (int s = 0; s < p->op->nslots; s++)
        if (p->has[s]) {
            specs[k] = slot_spec(p, s);
            specs[k++].may_alias = p->in_place;
        }
    specs[k++] = cute_spec_int("?"); /* row blocks per block */
    specs[k++] = cute_spec_int("?"); /* the integer parameter */
    specs[k++] = cute_spec_float(CUTE_F32);
    specs[k++] = cute_spec_float(CUTE_F32);
    row_plan copy = *p; /* the host function sets its TiledCopy */
    return cute_compile(rt, p->op->name, row_host_fn(), &copy, k, specs, err, n);
}
