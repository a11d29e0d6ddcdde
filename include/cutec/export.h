/* cutec/export.h — ahead-of-time export: a compiled function as files that run without
 * cutec (CuTe DSL 4.4's export; docs/export.md).
 *
 *   const cute_fn *f = cute_compile(rt, "gemm_bf16", host, NULL, 5, specs, err, sizeof err);
 *   cute_export(f, &(cute_export_opts){.dir = "out", .archs = (const char *[]){"sm_90a",
 *               "sm_80"}, .narchs = 2}, err, sizeof err);
 *   // out/gemm_bf16.sm_90a.cubin, out/gemm_bf16.sm_80.cubin, out/gemm_bf16.h, out/gemm_bf16.c
 *   // cc app.c out/gemm_bf16.c -I/usr/local/cuda/include -lcuda
 *
 * The launcher (NAME.c) holds the cubins, the function's argument specs and launch recipes,
 * and a small runtime: NAME_load picks the cubin of the current context's device;
 * NAME_call checks its arguments as cute_call does (kind, DLPack dtype, rank, static
 * extents and strides, divisibility, alignment, compact strides, index bound, aliasing)
 * and launches through the CUDA driver.  It needs neither NVRTC nor cutec.
 */
#ifndef CUTEC_EXPORT_H
#define CUTEC_EXPORT_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

typedef struct cute_export_opts {
    const char *dir;          /* where the files go (it must exist); NULL: "." */
    const char *name;         /* the files' and the launcher's C prefix; NULL: the name
                                 given to cute_compile (a C identifier) */
    const char *const *archs; /* NVRTC's real archs, one cubin each ("sm_90a", "sm_80");
                                 none: sm_90a */
    int narchs;
} cute_export_opts;

/* Write f's cubins and launcher.  CUTE_ERR_NO_NVRTC without NVRTC, CUTE_ERR_COMPILE when
 * NVRTC refuses an arch, CUTE_ERR_UNSUPPORTED for what a launcher cannot do without cutec
 * (a tensor-map parameter), CUTE_ERR_INVALID for a bad name or a file that cannot be
 * written; err says which. */
cute_status cute_export(const cute_fn *f, const cute_export_opts *opts, char *err, size_t n);

CUTE_API_END
#endif
