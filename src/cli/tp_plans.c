/* The schedules of `cutec bench tp-gemm` (tp.h), enqueued on every GPU's two streams and
 * ordered across GPUs by events (a flag a GPU's stream waits for, recorded by another's), or
 * (g->flags) by flags in memory that the GEMM kernels themselves wait for and signal
 * (cutec_gemm_peer), so that no event or host round trip sits between the pieces.
 *
 * Row parallel (K split over 2 GPUs, C all-reduced): C's rows are cut into chunks owned
 * alternately by the two ranks.  Each rank computes its partial of the chunks the other
 * owns first and pushes each (a peer copy into the owner's C) as soon as its GEMM ends;
 * the owner then runs its own chunk's GEMM with beta = 1 on top of the pushed partial (the
 * sum happens in the epilogue, no reduction kernel) and pushes the finished chunk back.
 * The order p0 p1 o0 p2 o1 ... o(G-1) leaves a whole GEMM chunk between a push and its use.
 * Fused (g->fused, 2 GPUs): rank r owns C's half r and runs two GEMMs.  The first multiplies
 * the other's half and its epilogue stores each tile straight into the other's C, flagging it
 * there (the reduce-scatter); the second multiplies its own half, each tile's producer
 * waiting for the tile's flag, its epilogue adding the pushed partial (beta = 1) and storing
 * the sum into its C and into the other's (the mirror: the all-gather).  No copy, no NCCL, no
 * SM spent on anything but the GEMM's tiles; the last tile's stores are all that is left
 * when the GEMM ends.
 * Column parallel (A's rows gathered, B's rows split): each rank pushes its shard of A into
 * every peer's gathered A while it multiplies its own shard; each peer shard's GEMM starts
 * when that shard's copy has landed (with flags: its producer waits for the flag the
 * pushing GPU's copy stream writes after the copy, cuStreamWriteValue32). */
#include <stdio.h>

#include "tp.h"

enum { EV_G = 0, EV_PUSH = TP_MAX_CHUNKS, EV_B = 2 * TP_MAX_CHUNKS, EV_FORK = 3 * TP_MAX_CHUNKS,
       EV_SIDE, EV_DONE };

static cute_status fail(tp_group *g, cute_status s, int r, const char *what)
{
    if (s != CUTE_OK && !g->err[0])
        snprintf(g->err, sizeof g->err, "GPU %d: %s: %s", r, what, cute_cuda_error(g->r[r].cu));
    return s;
}

static cute_status record(tp_group *g, int r, void *stream, int ev)
{
    return fail(g, cute_cuda_event_record(g->r[r].cu, g->r[r].ev[ev], stream), r, "event record");
}

/* rank r's stream waits for event ev of rank q */
static cute_status wait_for(tp_group *g, int r, void *stream, int q, int ev)
{
    return fail(g, cute_cuda_stream_wait_event(g->r[r].cu, stream, g->r[q].ev[ev]), r, "stream wait");
}

static cute_status copy(tp_group *g, int r, const cute_buffer *dst, const cute_buffer *src, size_t off, size_t bytes)
{
    cute_devptr d = (cute_devptr)(uintptr_t)dst->ptr + off, s = (cute_devptr)(uintptr_t)src->ptr + off;
    return fail(g, cute_cuda_copy_dtod_async(g->r[r].cu, d, s, bytes, g->r[r].s1), r, "peer copy");
}

/* a row-major (rows, cols) matrix at byte off of b: an operand (A, B) of g's input dtype */
static cute_call_arg operand(const tp_group *g, const cute_buffer *b, size_t off, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols}, stride[2] = {cols, 1};
    return cute_call_tensor(b, off, g->in, 2, shape, stride);
}

/* ... or a C (bf16) */
static cute_call_arg matrix(const cute_buffer *b, size_t off, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols}, stride[2] = {cols, 1};
    return cute_call_tensor(b, off, CUTE_BF16, 2, shape, stride);
}

/* the same matrix seen transposed: (cols, rows) */
static cute_call_arg transposed(cute_call_arg x)
{
    int64_t e = x.shape[0], st = x.stride[0];
    x.shape[0] = x.shape[1], x.stride[0] = x.stride[1], x.shape[1] = e, x.stride[1] = st;
    return x;
}

/* where a GEMM's flags are: the wait's and the signal's buffer and byte offset (NULL: none),
 * and whether one flag stands for the whole C (strides 0) or one each 64 x 64 block */
typedef struct tp_flags {
    const cute_buffer *wait, *signal;
    size_t wait_off, signal_off;
    bool one;
    const cute_call_arg *mirror; /* a second C (row-major as C) the tiles are stored into, or NULL */
} tp_flags;

/* the flags tensor at b + off for a kernel's C */
static cute_call_arg flags_for(const tp_flags *f, const cute_buffer *b, size_t off, const cute_call_arg *C)
{
    int64_t shape[2] = {(C->shape[0] + 63) / 64, (C->shape[1] + 63) / 64};
    int64_t stride[2] = {f->one ? 0 : 1, f->one ? 0 : shape[0]};
    return cute_call_tensor(b, off, CUTE_U32, 2, shape, stride);
}

/* the library of rank r's overlapped GEMMs: the one in g->tiling where the bench set one */
static cute_gemm_lib *pieces(const tp_group *g, int r)
{
    return g->tiled && g->r[r].tiled ? g->r[r].tiled : g->r[r].gemm;
}

/* C (rows, nc) [+]= A (rows, kc) B (nc, kc)^T on rank r's s0, by cutec's `lib` (as C^T = B A^T
 * where g->swap; its tiles ordered by flags where f) or, lib NULL, by cuBLAS */
static cute_status gemm_flagged(tp_group *g, int r, cute_gemm_lib *lib, cute_call_arg A, cute_call_arg B,
                                cute_call_arg C, double beta, const tp_flags *f)
{
    tp_rank *x = &g->r[r];
    bool ours = lib != NULL;
    if (ours && g->swap) {
        cute_call_arg t = A;
        A = B, B = t, C = transposed(C);
    }
    cute_call_arg w = f && f->wait ? flags_for(f, f->wait, f->wait_off, &C) : C;
    cute_call_arg sg = f && f->signal ? flags_for(f, f->signal, f->signal_off, &C) : C;
    cute_call_arg mirror = f && f->mirror ? (ours && g->swap ? transposed(*f->mirror) : *f->mirror) : C;
    cute_gemm_peer peer = {.wait = f && f->wait ? &w : NULL, .signal = f && f->signal ? &sg : NULL,
                           .wait_value = g->epoch, .signal_value = g->epoch,
                           .mirror = f && f->mirror ? &mirror : NULL};
    cute_status s = !ours ? cute_ref_gemm(x->blas, &A, &B, &C, 1.0, beta, x->s0)
                    : f   ? cutec_gemm_peer(lib, &A, &B, &C, 1.0, beta, &peer, x->s0, g->err, sizeof g->err)
                          : cutec_gemm(lib, g->variant, &A, &B, &C, 1.0, beta, x->s0, g->err, sizeof g->err);
    if (s != CUTE_OK && !ours && !g->err[0])
        snprintf(g->err, sizeof g->err, "GPU %d: cuBLAS: %s", r, cute_cublas_error(x->blas));
    return s;
}

cute_status tp_fork(tp_group *g)
{
    cute_status s = record(g, 0, g->r[0].s0, EV_FORK);
    for (int r = 0; r < g->n && s == CUTE_OK; r++) {
        if (r) s = wait_for(g, r, g->r[r].s0, 0, EV_FORK);
        if (s == CUTE_OK) s = wait_for(g, r, g->r[r].s1, 0, EV_FORK);
    }
    return s;
}

cute_status tp_join(tp_group *g)
{
    cute_status s = CUTE_OK;
    for (int r = 0; r < g->n && s == CUTE_OK; r++) {
        s = record(g, r, g->r[r].s1, EV_SIDE);
        if (s == CUTE_OK) s = wait_for(g, r, g->r[r].s0, r, EV_SIDE);
        if (s == CUTE_OK) s = record(g, r, g->r[r].s0, EV_DONE);
    }
    for (int r = 1; r < g->n && s == CUTE_OK; r++) s = wait_for(g, 0, g->r[0].s0, r, EV_DONE);
    return s;
}

/* --- row parallel ------------------------------------------------------------------------- */

int tp_row_chunk(int r, int k, int J, bool *own)
{
    int q = k - 2;
    *own = k == J - 1 || (k >= 2 && q % 2 == 0);
    int half = k == J - 1 ? J / 2 - 1 : k < 2 ? k : *own ? q / 2 : q / 2 + 2;
    return 2 * half + (*own ? r : 1 - r);
}

/* row chunk j on rank r: its A rows, B, its C's byte offset and bytes, and the two Cs */
typedef struct row_piece {
    cute_call_arg A, B;
    int64_t rows;
    size_t crow, bytes;
    const cute_buffer *mine, *theirs;
} row_piece;

static row_piece row_piece_of(const tp_group *g, int r, int j)
{
    int64_t mc = g->rows[j], at = tp_chunk_start(g->rows, j), kr = g->k / g->n;
    size_t arow = (size_t)(at * kr * g->es);
    return (row_piece){operand(g, &g->r[r].a, arow, mc, kr), operand(g, &g->r[r].b, 0, g->nn, kr), mc,
                       (size_t)(at * g->nn * 2), (size_t)(mc * g->nn * 2), cute_peer_buffer(g->sym, r),
                       cute_peer_buffer(g->sym, 1 - r)};
}

static cute_status row_step(tp_group *g, int r, int j, bool own)
{
    row_piece c = row_piece_of(g, r, j);
    tp_rank *x = &g->r[r];
    const cute_buffer *out = own ? c.mine : &x->p;
    cute_status s = own ? wait_for(g, r, x->s0, 1 - r, EV_PUSH + j) : CUTE_OK;
    if (s == CUTE_OK)
        s = gemm_flagged(g, r, pieces(g, r), c.A, c.B, matrix(out, c.crow, c.rows, g->nn), own ? 1.0 : 0.0, NULL);
    if (s == CUTE_OK) s = record(g, r, x->s0, EV_G + j);
    if (s == CUTE_OK) s = wait_for(g, r, x->s1, r, EV_G + j);
    if (s == CUTE_OK) s = copy(g, r, c.theirs, out, c.crow, c.bytes);
    if (s == CUTE_OK) s = record(g, r, x->s1, (own ? EV_B : EV_PUSH) + j);
    return s;
}

/* the flags of piece j of `pieces` row pieces of C: one per 64 x 64 block of its C, after
 * the pieces before it */
static size_t piece_flags(const tp_group *g, int pieces, int j)
{
    int64_t mc = g->m / pieces;
    return (size_t)j * (size_t)(((mc + 63) / 64) * ((g->nn + 63) / 64)) * 4;
}

/* the flags of row chunk j: one per 64 x 64 block of its C, after the chunks before it */
static size_t chunk_flags(const tp_group *g, int j)
{
    size_t blocks = 0;
    for (int i = 0; i < j; i++) blocks += (size_t)((g->rows[i] + 63) / 64);
    return blocks * (size_t)((g->nn + 63) / 64) * 4;
}

size_t tp_flag_bytes(const tp_group *g)
{
    /* any chunking: a chunk's partial 64-row block costs one more row of flags at most */
    return g->mode == TP_ROW ? (size_t)((g->m + 63) / 64 + TP_MAX_CHUNKS) * (size_t)((g->nn + 63) / 64) * 4
                             : (size_t)g->n * 4;
}

/* The same with flags, no events between the GPUs: the other's chunk is written straight
 * into its owner's C, each tile flagged there as it lands; the owner's GEMM waits for each
 * tile's flag before it loads it (its epilogue adds the partial), and its finished chunk is
 * copied back when its GEMM ends (an event on this GPU only) */
static cute_status row_step_flags(tp_group *g, int r, int j, bool own)
{
    row_piece c = row_piece_of(g, r, j);
    tp_rank *x = &g->r[r];
    tp_flags push = {.signal = cute_peer_buffer(g->flagbuf, 1 - r), .signal_off = chunk_flags(g, j)};
    tp_flags add = {.wait = cute_peer_buffer(g->flagbuf, r), .wait_off = chunk_flags(g, j)};
    if (!own) return gemm_flagged(g, r, pieces(g, r), c.A, c.B, matrix(c.theirs, c.crow, c.rows, g->nn), 0.0, &push);
    cute_status s = gemm_flagged(g, r, pieces(g, r), c.A, c.B, matrix(c.mine, c.crow, c.rows, g->nn), 1.0, &add);
    if (s == CUTE_OK) s = record(g, r, x->s0, EV_G + j);
    if (s == CUTE_OK) s = wait_for(g, r, x->s1, r, EV_G + j);
    if (s == CUTE_OK) s = copy(g, r, c.theirs, c.mine, c.crow, c.bytes);
    return s;
}

/* rank r's GEMM of C's half h: the other's half (its partial pushed into the other's C and
 * flagged there), or its own (each tile after its flag, the sum mirrored into the other's C) */
static cute_status half_gemm(tp_group *g, int r, int h)
{
    int64_t rows = g->m / 2, kr = g->k / 2;
    size_t at = (size_t)(h * rows * g->nn * 2);
    const cute_buffer *mine = cute_peer_buffer(g->sym, r), *theirs = cute_peer_buffer(g->sym, 1 - r);
    cute_call_arg A = operand(g, &g->r[r].a, (size_t)(h * rows * kr * g->es), rows, kr);
    cute_call_arg B = operand(g, &g->r[r].b, 0, g->nn, kr), mirror = matrix(theirs, at, rows, g->nn);
    size_t flags = piece_flags(g, 2, h);
    tp_flags push = {.signal = cute_peer_buffer(g->flagbuf, 1 - r), .signal_off = flags};
    tp_flags add = {.wait = cute_peer_buffer(g->flagbuf, r), .wait_off = flags, .mirror = &mirror};
    bool own = h == r;
    return gemm_flagged(g, r, pieces(g, r), A, B, matrix(own ? mine : theirs, at, rows, g->nn), own ? 1.0 : 0.0,
                        own ? &add : &push);
}

/* the fused schedule: both ranks' GEMMs of the other's half, then of their own.  A rank's C
 * is whole once the other's second GEMM (its mirror) has ended: the iteration's join (every
 * GPU's streams into GPU 0's, tp_join) waits for that, as it waits for the other schedules'
 * last copies. */
static cute_status row_fused(tp_group *g)
{
    cute_status s = CUTE_OK;
    for (int step = 0; step < 2 && s == CUTE_OK; step++)
        for (int r = 0; r < 2 && s == CUTE_OK; r++) s = half_gemm(g, r, step ? r : 1 - r);
    return s;
}

static cute_status row_overlapped(tp_group *g)
{
    if (g->fused && g->n == 2) return row_fused(g);
    if (g->n != 2 || g->chunks % 2 || g->chunks > TP_MAX_CHUNKS)
        return snprintf(g->err, sizeof g->err, "the row-parallel overlap runs on 2 GPUs with an even "
                        "number of chunks up to %d", TP_MAX_CHUNKS), CUTE_ERR_UNSUPPORTED;
    cute_status s = CUTE_OK;
    for (int k = 0; k < g->chunks && s == CUTE_OK; k++)
        for (int r = 0; r < 2 && s == CUTE_OK; r++) {
            bool own;
            int j = tp_row_chunk(r, k, g->chunks, &own);
            s = g->flags ? row_step_flags(g, r, j, own) : row_step(g, r, j, own);
        }
    return s;
}

/* --- column parallel ---------------------------------------------------------------------- */

/* after rank r's push of its shard to p (on r's copy stream): p's flag of shard r set to the
 * epoch by the stream itself (no SM, no event) */
static cute_status signal_shard(tp_group *g, int r, int p)
{
    cute_devptr flag = (cute_devptr)(uintptr_t)cute_peer_buffer(g->flagbuf, p)->ptr + (cute_devptr)r * 4;
    return fail(g, cute_cuda_stream_write_u32(g->r[r].cu, g->r[r].s1, flag, g->epoch), r, "flag write");
}

static cute_status column_overlapped(tp_group *g)
{
    int n = g->n;
    int64_t ms = g->m / n, nr = g->nn / n;
    size_t shard = (size_t)(ms * g->k * g->es);
    cute_status s = CUTE_OK;
    for (int r = 0; r < n && s == CUTE_OK; r++) /* pushes: to r-1 first, whom r+1 ... feeds last */
        for (int d = 1; d < n && s == CUTE_OK; d++) {
            int p = (r - d + n) % n;
            s = copy(g, r, cute_peer_buffer(g->sym, p), cute_peer_buffer(g->sym, r), (size_t)r * shard, shard);
            if (s == CUTE_OK && !g->flags) s = record(g, r, g->r[r].s1, EV_PUSH + p);
            if (s == CUTE_OK && g->flags) s = signal_shard(g, r, p);
        }
    for (int r = 0; r < n && s == CUTE_OK; r++) {
        const cute_buffer *ag = cute_peer_buffer(g->sym, r);
        cute_call_arg B = operand(g, &g->r[r].b, 0, nr, g->k);
        for (int d = 0; d < n && s == CUTE_OK; d++) { /* its own shard first, then as they land */
            int q = (r + d) % n;
            /* the flags: every tile of q's shard waits for q's one flag in the kernel */
            tp_flags landed = {.wait = g->flags ? cute_peer_buffer(g->flagbuf, r) : NULL, .wait_off = (size_t)q * 4,
                               .one = true};
            if (d && !g->flags) s = wait_for(g, r, g->r[r].s0, q, EV_PUSH + r);
            if (s == CUTE_OK)
                s = gemm_flagged(g, r, pieces(g, r), operand(g, ag, (size_t)q * shard, ms, g->k), B,
                                 matrix(&g->r[r].p, (size_t)(q * ms * nr * 2), ms, nr), 0.0,
                                 d && g->flags ? &landed : NULL);
        }
    }
    return s;
}

cute_status tp_overlapped(tp_group *g)
{
    g->epoch += g->flags; /* the flags count up: nothing to reset between iterations */
    return g->mode == TP_ROW ? row_overlapped(g) : column_overlapped(g);
}

/* --- the pieces' tiling ------------------------------------------------------------------- */

/* The overlapped GEMMs' tiling: with `library` (--pieces library) the library's own pick for a rank's
 * whole local GEMM (what `cutec bench gemm` times at that shape: its pieces then run the
 * kernel the whole GEMM would), each tiling option given on top; zero: the kernels' own
 * defaults (the flag kernels keep their plan's: 128 x 256, 1x1, stores piece by piece).
 * The fused schedule takes the pick without its cluster: every tile of its two GEMMs a GPU
 * is stored to the other GPU (the partial, then the mirror).  Two H200s, 2026-11-27 mid
 * pass, bf16 8192 x 8192 x 16384, C column-major, each beside the plan's in one process:
 * fused 1x1 whole tile 1.652 ms against 1.762, 2x1 whole tile 1.732 against 1.735, 2x1
 * piece stores 1.702 against 1.711; events in 4 chunks 2x1 whole tile 1.655 against 1.746
 * (8 chunks 1.714 against 1.702), flags 1.784 against 1.811, the column schedule 0.725
 * against 0.796 (bench/RESULTS.md). */
cute_gemm_tiling tp_pieces_tiling(const tp_group *g, bool library, const cute_gemm_tiling *x)
{
    cute_gemm_tiling t = {0};
    if (library) {
        int64_t m = g->m, n = g->mode == TP_ROW ? g->nn : g->nn / g->n, k = g->mode == TP_ROW ? g->k / g->n : g->k;
        cute_gemm_config cfg = {.dtype = g->in, .c_dtype = CUTE_BF16};
        t = cute_gemm_default_tiling(CUTE_GEMM_HOPPER, &cfg, g->swap ? n : m, g->swap ? m : n, k, 1);
        if (g->fused) t.cluster_m = t.cluster_n = 0; /* as measured: no cluster given */
    }
    if (x->bm) t.bm = x->bm, t.bn = x->bn, t.bk = x->bk;
    if (x->warps_m) t.warps_m = x->warps_m, t.warps_n = x->warps_n;
    if (x->cluster_m) t.cluster_m = x->cluster_m, t.cluster_n = x->cluster_n;
    if (x->stages) t.stages = x->stages;
    if (x->raster) t.raster = x->raster;
    if (x->read_bytes) t.read_bytes = x->read_bytes;
    if (x->c_store) t.c_store = x->c_store;
    if (x->schedule) t.schedule = x->schedule;
    if (x->scale_mul) t.scale_mul = x->scale_mul;
    return t;
}

/* --- GEMM then NCCL, and the parts alone ---------------------------------------------------- */

/* every rank's whole local GEMM on its s0 (row: its K slice; column: the gathered A) */
static cute_status local_gemms(tp_group *g, bool ours)
{
    int n = g->n;
    cute_status s = CUTE_OK;
    for (int r = 0; r < n && s == CUTE_OK; r++) {
        tp_rank *x = &g->r[r];
        cute_gemm_lib *lib = ours ? x->gemm : NULL; /* the library's own pick: what a caller gets */
        if (g->mode == TP_ROW)
            s = gemm_flagged(g, r, lib, operand(g, &x->a, 0, g->m, g->k / n), operand(g, &x->b, 0, g->nn, g->k / n),
                             matrix(&x->cb, 0, g->m, g->nn), 0.0, NULL);
        else
            s = gemm_flagged(g, r, lib, operand(g, &x->ab, 0, g->m, g->k), operand(g, &x->b, 0, g->nn / n, g->k),
                             matrix(&x->cb, 0, g->m, g->nn / n), 0.0, NULL);
    }
    return s;
}

/* NCCL on every rank's s0: row, all-reduce of C in place; column, all-gather of A */
static cute_status collective(tp_group *g)
{
    int n = g->n;
    void *streams[TP_MAX] = {0};
    cute_call_arg send[TP_MAX] = {{0}}, recv[TP_MAX] = {{0}};
    int64_t one = 1, cn = g->m * g->nn, an = g->m * g->k, sn = g->m / n * g->k;
    for (int r = 0; r < n; r++) {
        streams[r] = g->r[r].s0;
        if (g->mode == TP_ROW) {
            send[r] = recv[r] = cute_call_tensor(&g->r[r].cb, 0, CUTE_BF16, 1, &cn, &one);
        } else {
            send[r] = cute_call_tensor(cute_peer_buffer(g->sym, r), (size_t)(r * sn * g->es), g->in, 1, &sn, &one);
            recv[r] = cute_call_tensor(&g->r[r].ab, 0, g->in, 1, &an, &one);
        }
    }
    return g->mode == TP_ROW ? cute_comm_all_reduce(g->comm, send, recv, CUTE_COMM_SUM, streams, g->err, sizeof g->err)
                             : cute_comm_all_gather(g->comm, send, recv, streams, g->err, sizeof g->err);
}

cute_status tp_sequential(tp_group *g, bool ours)
{
    cute_status s = g->mode == TP_ROW ? local_gemms(g, ours) : collective(g);
    if (s == CUTE_OK) s = g->mode == TP_ROW ? collective(g) : local_gemms(g, ours);
    return s;
}

cute_status tp_part(tp_group *g, tp_part_kind k)
{
    if (k == TP_PART_NOTHING) return CUTE_OK;
    if (k == TP_PART_GEMM || k == TP_PART_BLAS) return local_gemms(g, k == TP_PART_GEMM);
    if (k == TP_PART_COLLECTIVE) return collective(g);
    return copy(g, 0, cute_peer_buffer(g->sym, 1), cute_peer_buffer(g->sym, 0), 0, tp_push_bytes(g));
}

size_t tp_push_bytes(const tp_group *g)
{
    return g->mode == TP_ROW ? (size_t)(g->rows[0] * g->nn * 2) : (size_t)(g->m / g->n * g->k * g->es);
}
