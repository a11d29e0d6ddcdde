/* A plain reduction of each row: torch.sum / mean / amax / amin / prod over the last
 * dimension (CuTe DSL's blackwell/reduce.py), out(M) f32.  One reduction stage whose
 * operation is the op's; the elements past the row's end read as its identity (the slot's
 * fill), so partial reduces every value it holds.  Mean is the sum's variant 1: divided by
 * the row's length once, at the end. */
#include <math.h>

#include "kernels/rows/rows_internal.h"

enum { X, OUT };

static cute_reducer add(int stage) { return (void)stage, cute_reducer_op(CUTE_OP_ADD); }
static cute_reducer max(int stage) { return (void)stage, cute_reducer_op(CUTE_OP_MAX); }
static cute_reducer min(int stage) { return (void)stage, cute_reducer_op(CUTE_OP_MIN); }
static cute_reducer mul(int stage) { return (void)stage, cute_reducer_op(CUTE_OP_MUL); }

#define PARTIAL(name, OP)                                                                                      \
    static void name(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out)             \
    {                                                                                                          \
        (void)stage, (void)stats;                                                                              \
        out[0] = cute_ssa_reduce(c, OP, io->t[X]);                                                             \
    }
PARTIAL(add_partial, CUTE_OP_ADD)
PARTIAL(max_partial, CUTE_OP_MAX)
PARTIAL(min_partial, CUTE_OP_MIN)
PARTIAL(mul_partial, CUTE_OP_MUL)

static void row_value(cute_ctx *c, row_io *io, const cute_val stats[][4])
{
    io->v[OUT] = io->variant ? cute_val_binop(c, CUTE_OP_DIV, stats[0][0], row_n(c, io)) : stats[0][0];
}

/* no (M,N) output: nothing to write per element */
static void finish(cute_ctx *c, row_io *io, const cute_val stats[][4]) { (void)c, (void)io, (void)stats; }

#define REDUCE_OP(var, name, fill, reducer, partial)                                                           \
    const row_op var = {name, 2, {{"x", ROW_IN, false, fill}, {"out", ROWVAL_OUT, false, 0}},                  \
                        1, reducer, partial, row_value, finish, false, 0, NULL, false, NULL}
REDUCE_OP(row_reduce_sum, "reduce_sum", 0, add, add_partial);
REDUCE_OP(row_reduce_max, "reduce_max", -INFINITY, max, max_partial);
REDUCE_OP(row_reduce_min, "reduce_min", INFINITY, min, min_partial);
REDUCE_OP(row_reduce_prod, "reduce_prod", 1, mul, mul_partial);
