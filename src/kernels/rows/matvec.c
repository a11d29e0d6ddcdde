/* The GEMV y = alpha A x + beta y as a row reduction (CUTEC_GEMV_TRIAL=rows|rows6, gemv/lib.c's
 * trial): A the row input, x a column input (loaded with the row, as a norm's weight), y the
 * per-row output, f32 or A's dtype (rows_internal.h's row_slot_gemv_y).  The row kernels read
 * a row whole at once, as the read-only row sum does (104% of the copy at 16384x4096 where the
 * GEMV's ring ran 87-90%: bench/RESULTS.md, gemv7 and gemv41). */
#include "kernels/rows/rows_internal.h"

enum { A, X, Y_IN, Y };

static cute_reducer sum(int stage) { return (void)stage, cute_reducer_op(CUTE_OP_ADD); }

/* the products past the row's end are 0: A and x both read 0 there */
static void partial(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)
{
    (void)stage, (void)stats;
    out[0] = cute_ssa_reduce(c, CUTE_OP_ADD, cute_ssa_binop(c, CUTE_OP_MUL, io->t[A], io->t[X]));
}

/* y = alpha s (+ beta y: y_in given where beta is not 0); p = {alpha, beta} */
static void row_value(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    cute_val ax = cute_val_binop(c, CUTE_OP_MUL, io->p[0], stats[0][0]);
    io->v[Y] = io->has[Y_IN] ? cute_val_fma(c, io->p[1], cute_val_cvt(c, io->v[Y_IN], CUTE_F32), ax) : ax;
}

static void finish(cute_ctx *c, row_io *io, const cute_val stats[][4]) { (void)c, (void)io, (void)stats; }

#define MATVEC(var, blocks)                                                                                    \
    const row_op var = {"matvec", 4,                                                                           \
                        {{"A", ROW_IN, false, 0}, {"x", COL_IN, false, 0}, {"y_in", ROWVAL_IN, true, 0},            \
                         {"y", ROWVAL_OUT, false, 0}},                                                          \
                        1, sum, partial, row_value, finish, false, blocks, NULL, false, NULL}
/* as ptxas allocates (sm_90a: 52-54 registers, 4 blocks of 256 threads an SM where the row is
 * held in registers), and six blocks an SM (40 registers, no spill; the row sum's 38-39) */
MATVEC(row_matvec, 0);
MATVEC(row_matvec6, 6);
