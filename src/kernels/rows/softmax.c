/* Softmax and log-softmax over rows, forward (one online (max, sum) reduction: the row is
 * read once) and backward (one sum). variant 1: log-softmax. */
#include <math.h>

#include "kernels/rows/rows_internal.h"

enum { X, Y };

static cute_reducer online(int stage)
{
    (void)stage;
    return cute_reducer_online_softmax();
}

static void fwd_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_online_softmax_of(c, io->t[X], out, &io->keep);
    io->keep_v = out[0];
}

/* d0 = max, d1 = 1/sum (softmax) or log(sum) (log-softmax) */
static void fwd_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    io->d[0] = stats[0][0];
    io->d[1] = io->variant ? cute_val_unop(c, CUTE_OP_LOG, stats[0][1])
                           : cute_val_binop(c, CUTE_OP_DIV, row_f32(c, 1), stats[0][1]);
}

static void fwd_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    if (io->variant)
        io->t[Y] = row_scalar_op(c, CUTE_OP_SUB, row_scalar_op(c, CUTE_OP_SUB, io->t[X], io->d[0]), io->d[1]);
    else
        io->t[Y] = row_probabilities(c, io, io->t[X], io->d[0], io->d[1]);
}

const row_op row_softmax_fwd = {
    "softmax", 2, {{"x", ROW_IN, false, -INFINITY}, {"y", ROW_OUT, false, 0}},
    1, online, fwd_partial, fwd_row, fwd_finish, false, 0, NULL, false, NULL,
};

enum { DY, YIN, DX };

static cute_reducer sum(int stage)
{
    (void)stage;
    return cute_reducer_op(CUTE_OP_ADD);
}

/* sum(dy y), or (log-softmax) sum(dy) */
static void bwd_partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    cute_ssa x = io->variant ? io->t[DY] : cute_ssa_binop(c, CUTE_OP_MUL, io->t[DY], io->t[YIN]);
    out[0] = cute_ssa_reduce(c, CUTE_OP_ADD, x);
}

static void bwd_row(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)c;
    io->d[0] = stats[0][0];
}

/* y (dy - S), or dy - e^y S */
static void bwd_finish(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    (void)stats;
    if (io->variant)
        io->t[DX] = cute_ssa_binop(c, CUTE_OP_SUB, io->t[DY], row_scalar_op(c, CUTE_OP_MUL, row_exp(c, io->t[YIN]), io->d[0]));
    else
        io->t[DX] = cute_ssa_binop(c, CUTE_OP_MUL, io->t[YIN], row_scalar_op(c, CUTE_OP_SUB, io->t[DY], io->d[0]));
}

const row_op row_softmax_bwd = {
    "softmax_backward", 3, {{"dy", ROW_IN, false, 0}, {"y", ROW_IN, false, 0}, {"dx", ROW_OUT, false, 0}},
    1, sum, bwd_partial, bwd_row, bwd_finish, false, 0, NULL, false, NULL,
};
