/* Timing on the GPU for the benchmark commands (gemm_cmd.c, mma_bench.c): CUDA events
 * around back-to-back calls, and the SM clock as NVML reports it. */
#ifndef CUTEC_CLI_GPU_TIMING_H
#define CUTEC_CLI_GPU_TIMING_H

#include <stdbool.h>
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
/* the SM clock of cu's device now and its maximum, "1980 MHz, 1980 MHz" (nvidia-smi's csv
 * form); "" with a NULL cu (the interpreter) or without NVML (libnvidia-ml through
 * runtime/dynlib, the device found by its PCI bus id; said once on stderr) */
void gpu_sm_clock(cute_cuda *cu, char *buf, size_t n);

/* Two calls timed in turns (`cutec bench gemm --epilogue-cost`): warm-up and the batch sized
 * for each as gpu_time_calls does, then `rounds` rounds of one timing of each, the order
 * alternating (AB BA AB ...) so that a clock drifting under the power cap weighs on both
 * alike.  Beside each timing, the mean SM clock while it ran (NVML as gpu_sm_clock reads it,
 * sampled by a thread of its own about every 0.2 ms, $CUTEC_BENCH_CLOCK_US; 0 where NVML or the
 * device is missing, said once on stderr, or with CUTEC_BENCH_CLOCK_US=0).
 * ms[i][r], mhz[i][r]: call i's timing of round r.  false on failure. */
enum { GPU_TURNS_MAX = 1000 };
typedef struct gpu_turns {
    double ms[2][GPU_TURNS_MAX], mhz[2][GPU_TURNS_MAX];
    int rounds;
} gpu_turns;
bool gpu_time_turns(cute_cuda *cu, gpu_timed_call fn[2], void *user[2], int sets, int rounds, gpu_turns *t);
/* the median of x[0 .. n) (x is sorted in place) */
double gpu_median(double *x, int n);

#endif
