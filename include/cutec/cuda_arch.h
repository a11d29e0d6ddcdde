/* cutec/cuda_arch.h — CUDA targets by name, and what an architecture's blocks and SMs have:
 * the one rule by which cutec reads a target's name ("sm_90a" is 90: the CLI's --arch,
 * CUTEC_ARCH, the CUDA C and PTX backends, NVRTC's refusal of a target it lacks, export's
 * table), its inverse from a compute capability, and the CUDA programming guide's table of
 * shared memory by architecture.  Pure functions of their arguments: no driver, no GPU
 * (docs/cards.md). */
#ifndef CUTEC_CUDA_ARCH_H
#define CUTEC_CUDA_ARCH_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stddef.h>

/* The compute capability's NVRTC arch into buf: "sm_80", "sm_90a", "sm_100a" (the
 * arch-specific target from 9.0 on) */
void cute_cuda_arch_name(int cc_major, int cc_minor, char *buf, size_t n);
/* The shared memory a block may opt in to on sm_<sm> ("sm_86" is 86), the architecture's
 * (cudaDevAttrMaxSharedMemoryPerBlockOptin of its cards), for choices made for a target
 * without its device (the interpreter's, `--arch`); 0 for an architecture not in the table.
 * 99 KB on sm_86, sm_89 and sm_120, 163 KB on sm_80, 227 KB on sm_90, sm_100 and sm_110. */
int cute_cuda_arch_smem_per_block(int sm);
/* ... and the shared memory an SM of sm_<sm> has, its blocks' together, each with the 1 KB
 * the hardware keeps for it (cudaDevAttrMaxSharedMemoryPerMultiprocessor): 228 KB on sm_90 */
int cute_cuda_arch_smem_per_sm(int sm);
/* The SM version of a target's name, cute_cuda_arch_name's inverse ("sm_90a" is 90): sm_XX
 * from sm_70 on, sm_XXa from sm_90a on, sm_XXf from sm_100f on.  0 for anything else, with
 * why[n] saying so and naming the valid names (`--arch sm_80a`: sm_80 names an A100).  A
 * portable target from sm_90 on ("sm_90") is a name, but without the instructions the
 * library's kernels for that card use (wgmma, tcgen05, the e2m1 conversions): its number,
 * with why saying so and naming the 'a' target (the CLI refuses it, CUTEC_ARCH warns);
 * why is "" otherwise. */
int cute_cuda_arch_sm(const char *name, char *why, size_t n);

CUTE_API_END
#endif
