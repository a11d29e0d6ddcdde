/* cuda_args.h — launch arguments as cuLaunchKernel takes them: one pointer per kernel
 * parameter, each to a value of the parameter's size.  Internal to the runtime; no GPU
 * needed (cuda_args_test.c). */
#ifndef CUTEC_RUNTIME_CUDA_ARGS_H
#define CUTEC_RUNTIME_CUDA_ARGS_H

#include "cutec/backend.h"

/* Fill slots[i] (8 bytes each, aligned for any scalar) with args[i]'s value in the width of
 * params[i] and ptrs[i] = &slots[i]; a tensor map (CUTE_TMAP) is ptrs[i] = its bytes.  A pointer is its buffer's address plus the offset;
 * integers must fit their type (no silent truncation); floats are rounded to nearest even.
 * CUTE_ERR_INVALID with err when the count, a type, an offset or a value is wrong. */
cute_status cuda_pack_args(const cute_type *params, int nparams, const cute_launch_arg *args,
                           int nargs, uint64_t *slots, void **ptrs, char *err, size_t n);

#endif
