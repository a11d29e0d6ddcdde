/* RMSNorm over rows.  Forward: h = x (+ residual); y = h rstd (* w), rstd = rsqrt(mean(h^2)
 * + eps); one sum.  Backward: with xhat = x rstd and g = dy (* w),
 * dx = rstd (g - xhat mean(g xhat)); dw = the column sums of dy xhat. */
#include "kernels/rows/rows_internal.h"

enum { X, RES, W, Y, RES_OUT, RSTD };

static cute_reducer sum(int stage)
{
    (void)stage;
    return cute_reducer_op(CUTE_OP_ADD);
}

static cute_ssa h_of(cute_ctx *c, const row_io *io)
{
    return io->has[RES] ? cute_ssa_binop(c, CUTE_OP_ADD, io->t[X], io->t[RES]) : io->t[X];
}

static void fwd_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_ssa h = h_of(c, io);
    out[0] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_binop(c, CUTE_OP_MUL, h, h));
}

static void fwd_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val ms = cute_val_binop(c, CUTE_OP_DIV, stats[0][0], row_n(c, io));
    io->d[0] = cute_val_unop(c, CUTE_OP_RSQRT, cute_val_binop(c, CUTE_OP_ADD, ms, io->p[0]));
    io->v[RSTD] = io->d[0];
}

static void fwd_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    cute_ssa h = h_of(c, io), y = row_scalar_op(c, CUTE_OP_MUL, h, io->d[0]);
    io->t[Y] = io->has[W] ? cute_ssa_binop(c, CUTE_OP_MUL, y, io->t[W]) : y;
    io->t[RES_OUT] = h;
}

const row_op row_rmsnorm_fwd = {
    "rmsnorm", 6,
    {{"x", ROW_IN, false, 0}, {"residual", ROW_IN, true, 0}, {"weight", COL_IN, true, 0},
     {"y", ROW_OUT, false, 0}, {"residual_out", ROW_OUT, true, 0}, {"rstd", ROWVAL_OUT, true, 0}},
    1, sum, fwd_partial, fwd_row, fwd_finish, false, 0, NULL, false, NULL,
};

enum { DY, XB, WB, RSTD_IN, DX, DW };

static cute_ssa g_of(cute_ctx *c, const row_io *io)
{
    return io->has[WB] ? cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], io->t[WB]) : io->t[DY];
}

/* The backward, in lnb's lean form (layernorm.c says why; the form before it was measured
 * slower and deleted): the stage sums g x (rstd applied to the sum once); dx = rstd g + x A,
 * A = -rstd^2 mean(g xhat); dw summed without a select an element (dy reads 0 past the
 * matrix); the mean by 1/n, hoisted out of the row loop. */
static void lean_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    out[0] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_binop(c, CUTE_OP_MUL, g_of(c, io), io->t[XB]));
}

static void lean_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val rstd = io->v[RSTD_IN], inv_n = cute_val_binop(c, CUTE_OP_DIV, row_f32(c, 1), row_n(c, io));
    cute_val mean_gxhat = cute_val_binop(c, CUTE_OP_MUL, cute_val_binop(c, CUTE_OP_MUL, stats[0][0], inv_n), rstd);
    cute_val neg_rstd2 = cute_val_unop(c, CUTE_OP_NEG, cute_val_binop(c, CUTE_OP_MUL, rstd, rstd));
    io->d[0] = cute_val_binop(c, CUTE_OP_MUL, neg_rstd2, mean_gxhat);
}

static void lean_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    cute_ssa x = io->t[XB], rstd = cute_ssa_scalar(c, io->v[RSTD_IN], x.shape);
    io->t[DX] = cute_ssa_fma(c, g_of(c, io), rstd, row_scalar_op(c, CUTE_OP_MUL, x, io->d[0]));
    io->t[DW] = cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], cute_ssa_binop(c, CUTE_OP_MUL, x, rstd));
}

#define RMSNORM_BWD_SLOTS                                                                                          \
    {{"dy", ROW_IN, false, 0}, {"x", ROW_IN, false, 0}, {"weight", COL_IN, true, 0},                               \
     {"rstd", ROWVAL_IN, false, 0}, {"dx", ROW_OUT, false, 0}, {"dweight", COL_PARTIAL, true, 0}}

const row_op row_rmsnorm_bwd_lean = {
    "rmsnorm_backward_lean", 6, RMSNORM_BWD_SLOTS, 1, sum, lean_partial, lean_row, lean_finish,
    false, 0, NULL, false, NULL,
};

/* the library's call (the name its messages give), planned as the lean form (the kernel's
 * name) */
const row_op row_rmsnorm_bwd = {
    "rmsnorm_backward", 6, RMSNORM_BWD_SLOTS, 1, sum, lean_partial, lean_row, lean_finish, false, 0, NULL, false, NULL,
};
