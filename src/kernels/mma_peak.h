/* The mma.sync ceiling microbenchmark (`cutec bench mma`): a kernel of independent mma.sync
 * instructions back to back from registers, one instruction-table row per shape and dtype.
 * Every thread keeps `chains` accumulators (each an mma's C/D fragment) and issues
 * `iters x unroll x chains` mmas of one A and one B fragment; at the end it writes the sum
 * of its accumulator registers to out[global thread index], so nothing is dead code.
 *
 * The A and B registers hold a_bits and b_bits (f64 rows: those integers as f64), XORed per
 * thread and register with a hash masked by `vary`: vary = 0 makes every element of A the
 * same value a and of B the same b, so every accumulator element after the run is
 * iters x unroll x K x a x b and the kernel's result is known exactly (the interpreter
 * test); the benchmark passes the row's `vary` (random fraction bits, as data would
 * have) so that the tensor cores do not run on constants. */
#ifndef CUTEC_KERNELS_MMA_PEAK_H
#define CUTEC_KERNELS_MMA_PEAK_H

#include "cutec/inst.h"
#include "cutec/jit.h"

typedef struct mma_peak_row {
    const char *name;  /* "bf16", "f64 m16n8k16" */
    cute_inst inst;    /* the instruction table's row */
    cute_dtype acc;    /* the accumulator's dtype (out's) */
    int m, n, k;
    int arch;          /* minimum SM */
    uint32_t vary;     /* the bits the benchmark varies per thread and register */
    double a, b;       /* the element values a_bits and b_bits stand for in the test */
    uint32_t a_bits, b_bits;
} mma_peak_row;

/* the table: bf16, f16 (m16n8k16), tf32 (m16n8k8), s8 (m16n8k32), e4m3 (m16n8k32),
 * f64 m8n8k4 and the sm_90 m16n8k4/k8/k16 */
int mma_peak_rows(const mma_peak_row **rows);

typedef struct mma_peak_shape {
    int threads; /* per block */
    int chains;  /* independent accumulators per thread */
    int unroll;  /* mma rounds per loop iteration */
    int blocks_per_sm; /* resident blocks the registers must allow (0: no request) */
} mma_peak_shape;

/* Compile the row's kernel.  Its arguments: out (acc dtype, (threads, blocks) compact
 * column-major), iters, a_bits, b_bits, vary (ints); grid = out's second extent. */
const cute_fn *mma_peak_compile(cute_runtime *rt, const mma_peak_row *row, const mma_peak_shape *s,
                          char *err, size_t n);
/* The launch of a peak kernel (this one and wgmma_peak.h's): out, (threads, blocks), made
 * one mode; a grid of `blocks` blocks of `threads` */
cute_launch_cfg mma_peak_launch(cute_ctx *c, cute_tensor *out, int threads);
/* What every thread writes when vary = 0: chains x acc registers x iters x unroll x K x a x b */
double mma_peak_expected(const mma_peak_row *row, const mma_peak_shape *s, int64_t iters);
/* flops (ops) one mma instruction does: 2 M N K */
double mma_peak_flops(const mma_peak_row *row);

#endif
