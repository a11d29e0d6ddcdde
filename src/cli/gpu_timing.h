/* Timing on the GPU for the benchmark commands (gemm_cmd.c, mma_bench.c): CUDA events
 * around back-to-back calls, and the SM clock nvidia-smi reports. */
#ifndef CUTEC_CLI_GPU_TIMING_H
#define CUTEC_CLI_GPU_TIMING_H

#include <stddef.h>

#include "cutec/cuda_driver.h"

/* one call of the thing timed, on input set `set` */
typedef cute_status (*gpu_timed_call)(void *user, int set);

/* Median milliseconds per call: `reps` timings with device events, each around a batch of
 * back-to-back calls that rotate over `sets` input sets (so that inputs that fit in the L2
 * are not timed from it); the batch is chosen so that one timing spans about 2 ms
 * ($CUTEC_BENCH_SPAN_MS: that many).  < 0 on failure. */
double gpu_time_calls(cute_cuda *cu, gpu_timed_call fn, void *user, int sets, int reps);
/* GB/s of a device-to-device copy of `bytes` (read + write: 2 bytes / t), the same process's
 * device; < 0 on failure */
struct cute_runtime;
double gpu_copy_gbs(struct cute_runtime *rt, size_t bytes, int iters);
/* the SM clock now and its maximum, by nvidia-smi where it is installed ("" if not) */
void gpu_sm_clock(char *buf, size_t n);

#endif
