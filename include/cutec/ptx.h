/* cutec/ptx.h — the PTX backend's code generator: IR kernels straight to one PTX module,
 * for ptxas (the toolkit's binary, or the driver's JIT) with no NVRTC in between
 * (docs/ptx_backend.md).
 *
 * The module keeps the CUDA C backend's contract (cutec/cuda_c.h) where a launch can see
 * it: each kernel is `.visible .entry <name>` with its parameters in IR order and the same
 * sizes and alignments (cute_cuda_c_param_abi), so the same launch code works; dynamic
 * shared memory is `.extern .shared cute_smem[]`; values convert, round and saturate as the
 * CUDA C backend's do.  What it does not say (printf, the narrow floats but tf32, math
 * functions without one PTX instruction, CAS-loop atomics) is CUTE_ERR_UNSUPPORTED with
 * the reason, and the caller compiles that module through CUDA C instead.
 */
#ifndef CUTEC_PTX_H
#define CUTEC_PTX_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>

#include "cutec/backend.h"
#include "cutec/ir.h"

typedef struct cute_ptx_opts {
    const char *arch; /* "sm_90a", "sm_80": the .target (required: sm_80 at least) */
    bool no_sums;     /* CUTEC_PTX_SUMS's sums and counters off (a module said again after a spill) */
} cute_ptx_opts;

/* Generate the PTX of n verified kernels as one module.  CUTE_OK: *out is malloc'd text
 * (caller frees).  CUTE_ERR_UNSUPPORTED: something this generator does not say (err says
 * what, with the call site: the caller falls back to CUDA C); CUTE_ERR_INVALID: bad
 * arguments; CUTE_ERR_OOM.  *out is NULL on failure. */
cute_status cute_ptx_emit(const cute_ir_func *const *kernels, int n, const cute_ptx_opts *opts,
                          char **out, char *err, size_t errn);

/* Which code generator a compile uses: CUTEC_CODEGEN=ptx (or the CLI's --codegen ptx, which
 * sets it) asks for this one; anything else, or unset, CUDA C. */
bool cute_ptx_wanted(void);

/* Who assembles the PTX backend's modules (CUTEC_PTX_ASM; docs/ptx_backend.md): the driver's
 * JIT linker (cuLinkCreate: a relocatable unit), the toolkit's ptxas binary (the default), the
 * same ptxas inside the process (libnvJitLink: a relocatable unit too), or the driver's JIT
 * compiler loading a first tier's PTX as a module (cuModuleLoadDataEx: the whole program; the
 * binary for any other module).  A value not among them is said once on stderr: the default. */
typedef enum { CUTE_PTX_ASM_DRIVER, CUTE_PTX_ASM_PTXAS, CUTE_PTX_ASM_NVJITLINK, CUTE_PTX_ASM_LOADDATA } cute_ptx_asm;
cute_ptx_asm cute_ptx_assembler(void);

/* The toolkit's ptxas binary on ptx (no GPU needed): $CUTEC_PTXAS, else ptxas on PATH,
 * else /usr/local/cuda/bin/ptxas; libnvJitLink's ptxas instead where CUTEC_PTX_ASM=nvjitlink
 * and the library loads.
 * opt: ptxas's -O level (0-4; < 0: its default).
 * CUTE_OK: *cubin (malloc'd, *cubin_len bytes; cubin may be NULL when not wanted) and
 * *log (malloc'd: ptxas's --verbose report, or its errors; may be NULL); *cpu_ms the
 * child's CPU time (nvJitLink: the calling thread's).  CUTE_ERR_NO_DRIVER: no ptxas found (err says so); CUTE_ERR_COMPILE:
 * ptxas refused it (its words in *log and err). */
cute_status cute_ptx_assemble(const char *ptx, const char *arch, int opt, void **cubin, size_t *cubin_len,
                              char **log, double *cpu_ms, char *err, size_t errn);
/* the bytes a ptxas --verbose report spills (stores and loads, every kernel) */
long cute_ptx_spilled(const char *log);
/* cute_ptx_assemble of *ptx, the module of kernels k[0..n) said with o; where it spills and
 * CUTEC_PTX_SUMS is on, the kernels said again without it and assembled, and the module
 * that spills less kept (*ptx, *cubin and *log replaced: the e4m3 step-5 GEMM spills 56
 * bytes with SUMS, none without) */
cute_status cute_ptx_assemble_kernels(const cute_ir_func *const *k, int n, const cute_ptx_opts *o, char **ptx, int opt,
                                      void **cubin, size_t *cubin_len, char **log, double *cpu_ms, char *err,
                                      size_t errn);
/* whether cute_ptx_assemble finds a ptxas binary (CUTEC_PTX_ASM=nvjitlink: the library, where
 * it loads); id (when not NULL): its path, mtime and size (the library's name), for a cache key */
bool cute_ptx_ptxas_found(char *id, size_t n);

CUTE_API_END
#endif
