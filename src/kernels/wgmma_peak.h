/* The wgmma ceiling microbenchmark (`cutec bench mma`, beside the mma.sync rows): every
 * warpgroup of a block issues wgmma m64n256 back to back, A (64 x K) and B (256 x K) from
 * shared memory in the GEMM's layout (K-major, 128-byte swizzle), all into one set of
 * accumulators (128 per thread), committing a group each loop iteration and keeping at
 * most one more in flight.  The shared tiles are filled once with a_bits / b_bits (each
 * element the low bits of the word: bf16 0x3FC0 is 1.5), XORed per element with a hash
 * masked by `vary`, as mma_peak.h does for registers: vary = 0 makes the result exact and
 * known (mma_peak_expected with chains = 1), the benchmark varies fraction bits.  At the end
 * each thread writes the sum of its accumulators to out[global thread index]. */
#ifndef CUTEC_KERNELS_WGMMA_PEAK_H
#define CUTEC_KERNELS_WGMMA_PEAK_H

#include "kernels/mma_peak.h"

/* the table: bf16, f16, tf32, e4m3, s8, each m64n256 from shared memory (_SS) */
int wgmma_peak_rows(const mma_peak_row **rows);

/* Compile the row's kernel for shape (threads a multiple of 128; chains must be 1: one
 * warpgroup's accumulators take 128 registers).  Arguments as mma_peak_compile's. */
const cute_fn *wgmma_peak_compile(cute_runtime *rt, const mma_peak_row *row, const mma_peak_shape *s,
                                  char *err, size_t n);

#endif
