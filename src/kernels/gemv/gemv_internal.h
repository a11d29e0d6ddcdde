/* The GEMV kernels' shared plan and parts (src/kernels/gemv/). */
#ifndef CUTEC_GEMV_INTERNAL_H
#define CUTEC_GEMV_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/gemv.h"

/* What a host function and its kernels need, fixed at trace time. */
typedef struct gemv_plan {
    cute_gemv_config cfg;
    int threads;       /* per block */
    int unroll;        /* rows: vectors per lane per k-tile; cols: k columns per step */
    cute_tiled_copy tc; /* rows: (warps rows, 32 lanes x vec); cols: (threads x vec rows,
                           unroll columns) */
    cute_tuple tile;    /* a block's step: rows (warps, 32 x vec x unroll); cols tc's tile */
} gemv_plan;

/* K-major A: a warp per row (rows.c); M-major A: a thread per vector of rows (cols.c) */
void gemv_rows_host(cute_ctx *c, const cute_arg *arg);
void gemv_cols_host(cute_ctx *c, const cute_arg *arg);

/* the number of K splits, ceil(K / kchunk), and 1 for K = 0 (whose one split writes
 * y = beta y) */
cute_int gemv_splits(cute_ctx *c, cute_int K, cute_int kchunk);

/* x (K,L) as a matrix shaped like A, (M,K,L):(0,1,ldx): every row reads x, so x is
 * partitioned exactly as A is */
cute_tensor gemv_broadcast_x(cute_ctx *c, cute_tensor mX, cute_int M);

/* The end of a product: the f32 sums `acc` (rank 1, n of them) of rows m0 .. m0+n-1 of
 * batch l and split s: to the workspace W (M,L,S) when the plan splits K, else y = alpha acc
 * + beta y in f32, rounded once to y's dtype.  Rows past M are not touched. */
void gemv_finish(cute_ctx *c, const gemv_plan *p, cute_tensor acc, cute_int m0, cute_tensor mY,
                 cute_tensor mW, cute_int l, cute_int s, cute_val alpha, cute_val beta);
/* the launch of the ordered reduction of W's splits into y (split-K's second kernel) */
void gemv_reduce_launch(cute_ctx *c, cute_tensor mY, cute_tensor mW, cute_host_scalar alpha,
                        cute_host_scalar beta);

/* A call's operands, checked and made batched: A (M,K,L), x (K,L), y (M,L); A's unit-stride
 * mode and the vector width every address, stride and extent the kernel steps allows. */
typedef struct gemv_operands {
    cute_call_arg A, x, y;
    int major, vec;
} gemv_operands;
/* CUTE_ERR_INVALID and the reason, in words naming the operand, for a malformed call */
cute_status gemv_check(const cute_call_arg *A, const cute_call_arg *x, const cute_call_arg *y,
                       double alpha, double beta, gemv_operands *out, char *err, size_t n);

#endif
