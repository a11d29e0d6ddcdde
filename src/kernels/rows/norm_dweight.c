/* The norms' dw and db alone: the column sums of dy xhat and dy, xhat = (x - mean) rstd
 * (RMSNorm: no mean).  No row reduction, so blocks tile the columns as well as the rows:
 * what the backward of rows longer than a tile takes (its dx pass runs without them). */
#include "kernels/rows/rows_internal.h"

enum { DY, X, MEAN, RSTD, DW, DB };

static cute_reducer none(int stage)
{
    (void)stage;
    return cute_reducer_op(CUTE_OP_ADD);
}

static void no_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)c, (void)io, (void)stage, (void)stats, (void)out;
}

static void no_row_values(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)c, (void)io, (void)stats;
}

static void finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    cute_ssa centred = io->has[MEAN] ? row_scalar_op(c, CUTE_OP_SUB, io->t[X], io->v[MEAN]) : io->t[X];
    cute_ssa xhat = row_scalar_op(c, CUTE_OP_MUL, centred, io->v[RSTD]);
    io->t[DW] = cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], xhat);
    io->t[DB] = io->t[DY];
}

const row_op row_norm_dweight = {
    "norm_dweight", 6,
    {{"dy", ROW_IN, false, 0}, {"x", ROW_IN, false, 0}, {"mean", ROWVAL_IN, true, 0}, {"rstd", ROWVAL_IN, false, 0},
     {"dweight", COL_PARTIAL, false, 0}, {"dbias", COL_PARTIAL, true, 0}},
    0, none, no_partial, no_row_values, finish, false, 0, NULL, false, NULL,
};
