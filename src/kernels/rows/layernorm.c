/* LayerNorm over rows.  Forward: h = x (+ residual); over a row a block holds (or its
 * cluster part) one reduction of two sums about the row's first h, over a row walked in
 * chunks from memory each thread's (count, mean, sum of squares about its mean) merged by
 * Chan's rule (no cancellation); y = (h - mean) rstd (* w) (+ b).
 * Backward: with xhat = (x - mean) rstd and g = dy (* w),
 * dx = rstd (g - mean(g) - xhat mean(g xhat)); dw, db = the column sums of dy xhat, dy. */
#include "kernels/rows/rows_internal.h"

enum { X, RES, W, B, Y, RES_OUT, MEAN, RSTD };

static cute_ssa h_of(cute_ctx *c, const row_io *io)
{
    return io->has[RES] ? cute_ssa_binop(c, CUTE_OP_ADD, io->t[X], io->t[RES]) : io->t[X];
}

static cute_val f32_op(cute_ctx *c, cute_op op, cute_val a, cute_val b) { return cute_val_binop(c, op, a, b); }

/* (n, mean, m2) (+) (n, mean, m2): n = na + nb, mean = lo + d nb / n, m2 = m2a + m2b + d^2 na nb / n
 * with d = hi - lo the means' difference, the operands ordered by their means first, so that
 * both lanes of a butterfly compute the same bits (equal means: d = 0, symmetric anyway);
 * n = 0 (two threads past the row's end) stays (0, 0, 0) */
static void chan(cute_ctx *c, const cute_val *a, const cute_val *b, cute_val *out, const void *user)
{
    (void)user;
    cute_val a_lo = cute_val_cmp(c, CUTE_OP_LE, a[1], b[1]), lo[3], hi[3];
    for (int i = 0; i < 3; i++) lo[i] = cute_val_select(c, a_lo, a[i], b[i]), hi[i] = cute_val_select(c, a_lo, b[i], a[i]);
    cute_val n = f32_op(c, CUTE_OP_ADD, lo[0], hi[0]), zero = row_f32(c, 0);
    cute_val w = cute_val_select(c, cute_val_cmp(c, CUTE_OP_GT, n, zero), f32_op(c, CUTE_OP_DIV, hi[0], n), zero);
    cute_val d = f32_op(c, CUTE_OP_SUB, hi[1], lo[1]);
    out[0] = n;
    out[1] = cute_val_fma(c, d, w, lo[1]);
    cute_val extra = f32_op(c, CUTE_OP_MUL, f32_op(c, CUTE_OP_MUL, d, d), f32_op(c, CUTE_OP_MUL, lo[0], w));
    out[2] = f32_op(c, CUTE_OP_ADD, f32_op(c, CUTE_OP_ADD, lo[2], hi[2]), extra);
}

static cute_reducer moments(int stage)
{
    (void)stage;
    return (cute_reducer){3, CUTE_OP_ADD, chan, NULL, "count, mean, squares"};
}

/* this thread's (count, mean, sum of squares about the mean) of the elements inside */
static void fwd_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_ssa h = h_of(c, io);
    cute_val n = row_sum_inside_vectors(c, io, cute_ssa_fill(c, CUTE_F32, h.shape, 1)), zero = row_f32(c, 0);
    cute_val mean = cute_val_select(c, cute_val_cmp(c, CUTE_OP_GT, n, zero),
                                    f32_op(c, CUTE_OP_DIV, row_sum_inside_vectors(c, io, h), n), zero);
    cute_ssa dev = row_scalar_op(c, CUTE_OP_SUB, h, mean);
    out[0] = n, out[1] = mean;
    out[2] = row_sum_inside_vectors(c, io, cute_ssa_binop(c, CUTE_OP_MUL, dev, dev));
}

static void fwd_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val var = cute_val_binop(c, CUTE_OP_DIV, stats[0][2], row_n(c, io));
    io->d[0] = io->v[MEAN] = stats[0][1];
    io->d[1] = io->v[RSTD] = cute_val_unop(c, CUTE_OP_RSQRT, cute_val_binop(c, CUTE_OP_ADD, var, io->p[0]));
}

static void fwd_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    cute_ssa h = h_of(c, io);
    cute_ssa y = row_scalar_op(c, CUTE_OP_MUL, row_scalar_op(c, CUTE_OP_SUB, h, io->d[0]), io->d[1]);
    if (io->has[W]) y = cute_ssa_binop(c, CUTE_OP_MUL, y, io->t[W]);
    if (io->has[B]) y = cute_ssa_binop(c, CUTE_OP_ADD, y, io->t[B]);
    io->t[Y] = y;
    io->t[RES_OUT] = h;
}

/* A row one block holds (in registers, or staged in its shared memory, or a cluster's staged
 * part): one reduction of two sums about a shift, the row's first h (row_op.shifted: loaded
 * before the row).  With d = mean - shift, sum (h - shift)^2 / n = var + d^2: the shift lies
 * among the row's values, a few spreads from the mean at most (not 0, whose d^2 would swamp
 * var for a mean 1000 times the spread), so var loses a few bits at worst (checked on rows
 * whose mean is 3000 times their spread).  Chan's merge took a division and three values a
 * butterfly step; the mean's sum and then the squares' about it took two reductions (two
 * block barriers, two walks of a staged row, two cluster exchanges).  % of the copy on an
 * H200 (2026-11-27, bf16, 16384x4096 / 4096x32768 / 1024x262144): two sums 83.6 / 81.9 /
 * 72.9, shifted 86.8 / 87.5 / 75.8 in the same run. */
static cute_val shift_of(cute_ctx *c, const row_io *io)
{
    return io->has[RES] ? f32_op(c, CUTE_OP_ADD, io->first[X], io->first[RES]) : io->first[X];
}

static cute_reducer two_sums(int stage)
{
    (void)stage;
    return row_reducer_sums(2);
}

static void shifted_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_ssa dev = row_scalar_op(c, CUTE_OP_SUB, h_of(c, io), shift_of(c, io));
    out[0] = row_sum_inside_vectors(c, io, dev);
    out[1] = row_sum_inside_vectors(c, io, cute_ssa_binop(c, CUTE_OP_MUL, dev, dev));
}

static void shifted_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val n = row_n(c, io), d = f32_op(c, CUTE_OP_DIV, stats[0][0], n);
    cute_val var = f32_op(c, CUTE_OP_SUB, f32_op(c, CUTE_OP_DIV, stats[0][1], n), f32_op(c, CUTE_OP_MUL, d, d));
    var = cute_val_binop(c, CUTE_OP_MAX, var, row_f32(c, 0));
    io->d[0] = io->v[MEAN] = f32_op(c, CUTE_OP_ADD, shift_of(c, io), d);
    io->d[1] = io->v[RSTD] = cute_val_unop(c, CUTE_OP_RSQRT, f32_op(c, CUTE_OP_ADD, var, io->p[0]));
}

#define LAYERNORM_FWD_SLOTS                                                                                        \
    {{"x", ROW_IN, false, 0}, {"residual", ROW_IN, true, 0}, {"weight", COL_IN, true, 0},                          \
     {"bias", COL_IN, true, 0}, {"y", ROW_OUT, false, 0}, {"residual_out", ROW_OUT, true, 0},                      \
     {"mean", ROWVAL_OUT, true, 0}, {"rstd", ROWVAL_OUT, true, 0}}

static const row_op layernorm_fwd_held = {
    "layernorm_shifted", 8, LAYERNORM_FWD_SLOTS, 1, two_sums, shifted_partial, shifted_row, fwd_finish, true, 0, NULL, true,
    NULL,
};

const row_op row_layernorm_fwd = {
    "layernorm", 8, LAYERNORM_FWD_SLOTS, 1, moments, fwd_partial, fwd_row, fwd_finish, true, 0, &layernorm_fwd_held, false, NULL,
};

enum { DY, XB, WB, MEAN_IN, RSTD_IN, DX, DW, DB };

static cute_reducer sums(int stage)
{
    (void)stage;
    return row_reducer_sums(2);
}

static cute_ssa g_of(cute_ctx *c, const row_io *io)
{
    return io->has[WB] ? cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], io->t[WB]) : io->t[DY];
}

/* The backward, in lnb's lean form (rows_compile.c's row_plan_forms; the form before it,
 * (g - mean(g) - xhat mean(g xhat)) rstd with dw and db summed by a select an element, was
 * measured slower and deleted: bench/RESULTS.md, lnb and delnolnb): the fewest instructions
 * an element.  The row kernel of the norms' backward issues at about two thirds of the SM's
 * rate at 4096 and 32768 columns (H200: its time follows its loop's instruction count,
 * LayerNorm's 793 against RMSNorm's 605 sm_90a instructions a row at 32768, 1.31x, where the
 * times were 298 and 230 us), so an instruction an element is worth what a byte is
 * elsewhere.  With c = x - mean:
 *  - the stages sum g and g c (rstd applied to the sum once, not to each element);
 *  - dx = rstd g + (c A + B), A = -rstd^2 mean(g xhat), B = -rstd mean(g): two FMAs an
 *    element after g and c, where (g - mean(g) - xhat mean(g xhat)) rstd took five;
 *  - dw, db summed without a select an element (row_plan.partials_plain): past the matrix dy
 *    reads 0, so dy xhat and dy are 0 there;
 *  - the means by 1/n (hoisted out of the row loop), not a division each. */
static void lean_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_ssa g = g_of(c, io), centred = row_scalar_op(c, CUTE_OP_SUB, io->t[XB], io->v[MEAN_IN]);
    out[0] = cute_ssa_reduce(c, CUTE_OP_ADD, g); /* (g is 0 past the row's end: dy reads 0) */
    out[1] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_binop(c, CUTE_OP_MUL, g, centred));
}

static void lean_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val inv_n = f32_op(c, CUTE_OP_DIV, row_f32(c, 1), row_n(c, io)), rstd = io->v[RSTD_IN];
    cute_val mean_g = f32_op(c, CUTE_OP_MUL, stats[0][0], inv_n);
    cute_val mean_gc = f32_op(c, CUTE_OP_MUL, stats[0][1], inv_n); /* mean(g xhat) / rstd */
    cute_val neg_rstd = cute_val_unop(c, CUTE_OP_NEG, rstd);
    io->d[0] = f32_op(c, CUTE_OP_MUL, f32_op(c, CUTE_OP_MUL, neg_rstd, rstd), f32_op(c, CUTE_OP_MUL, rstd, mean_gc));
    io->d[1] = f32_op(c, CUTE_OP_MUL, neg_rstd, mean_g);
}

static void lean_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    cute_ssa centred = row_scalar_op(c, CUTE_OP_SUB, io->t[XB], io->v[MEAN_IN]);
    cute_ssa rstd = cute_ssa_scalar(c, io->v[RSTD_IN], centred.shape);
    cute_ssa a = cute_ssa_scalar(c, io->d[0], centred.shape), b = cute_ssa_scalar(c, io->d[1], centred.shape);
    cute_ssa cab = cute_ssa_fma(c, centred, a, b);
    io->t[DX] = cute_ssa_fma(c, g_of(c, io), rstd, cab);
    io->t[DW] = cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], cute_ssa_binop(c, CUTE_OP_MUL, centred, rstd));
    io->t[DB] = io->t[DY];
}

/* lnb2's "xfma" form (the default for 16-bit inputs; rows_compile.c's row_plan_forms):
 * lean's passes by one instruction an element fewer each, c = x - mean formed in neither:
 *  - the stage pass sums g x and takes mean sum g off once a chunk (an FMA; past the row's
 *    end g is 0);
 *  - the write pass forms xhat = fma(x, rstd, -mean rstd), one FMA where c and c rstd took
 *    two, and dx = rstd g + (xhat A' + B), A' = A / rstd = -rstd^2 mean(g c); dw += dy xhat.
 * Rounding: 2^-24 of |mean| / spread, relative, on mean(g c) and on xhat (~2e-4 where the
 * mean is 3000 times the spread: within f16's and bf16's tolerances; f32 inputs keep lean). */
static void xfma_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_ssa g = g_of(c, io);
    out[0] = cute_ssa_reduce(c, CUTE_OP_ADD, g);
    cute_val gx = cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_binop(c, CUTE_OP_MUL, g, io->t[XB]));
    out[1] = cute_val_fma(c, cute_val_unop(c, CUTE_OP_NEG, io->v[MEAN_IN]), out[0], gx);
}

static void xfma_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val inv_n = f32_op(c, CUTE_OP_DIV, row_f32(c, 1), row_n(c, io)), rstd = io->v[RSTD_IN];
    cute_val neg_rstd = cute_val_unop(c, CUTE_OP_NEG, rstd);
    cute_val mean_gc = f32_op(c, CUTE_OP_MUL, stats[0][1], inv_n); /* mean(g xhat) / rstd */
    io->d[0] = f32_op(c, CUTE_OP_MUL, f32_op(c, CUTE_OP_MUL, neg_rstd, rstd), mean_gc);
    io->d[1] = f32_op(c, CUTE_OP_MUL, neg_rstd, f32_op(c, CUTE_OP_MUL, stats[0][0], inv_n));
    io->d[2] = f32_op(c, CUTE_OP_MUL, neg_rstd, io->v[MEAN_IN]);
}

static void xfma_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    cute_tuple sh = io->t[XB].shape;
    cute_ssa rstd = cute_ssa_scalar(c, io->v[RSTD_IN], sh);
    cute_ssa xhat = cute_ssa_fma(c, io->t[XB], rstd, cute_ssa_scalar(c, io->d[2], sh));
    cute_ssa a = cute_ssa_scalar(c, io->d[0], sh), b = cute_ssa_scalar(c, io->d[1], sh);
    io->t[DX] = cute_ssa_fma(c, g_of(c, io), rstd, cute_ssa_fma(c, xhat, a, b));
    io->t[DW] = cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], xhat);
    io->t[DB] = io->t[DY];
}

#define LAYERNORM_BWD_SLOTS                                                                                        \
    {{"dy", ROW_IN, false, 0}, {"x", ROW_IN, false, 0}, {"weight", COL_IN, true, 0},                               \
     {"mean", ROWVAL_IN, false, 0}, {"rstd", ROWVAL_IN, false, 0}, {"dx", ROW_OUT, false, 0},                      \
     {"dweight", COL_PARTIAL, true, 0}, {"dbias", COL_PARTIAL, true, 0}}

const row_op row_layernorm_bwd_lean = {
    "layernorm_backward_lean", 8, LAYERNORM_BWD_SLOTS, 1, sums, lean_partial, lean_row, lean_finish,
    false, 0, NULL, false, NULL,
};

const row_op row_layernorm_bwd_xfma = {
    "layernorm_backward_xfma", 8, LAYERNORM_BWD_SLOTS, 1, sums, xfma_partial, xfma_row, xfma_finish,
    false, 0, NULL, false, NULL,
};

/* the library's call (the name its messages give), planned as the lean form or xfma's (the
 * kernels' names) */
const row_op row_layernorm_bwd = {
    "layernorm_backward", 8, LAYERNORM_BWD_SLOTS, 1, sums, lean_partial, lean_row, lean_finish, false, 0, NULL, false, NULL,
};
