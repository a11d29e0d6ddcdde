/* cutec/runtime.h — kept so that programs written against cutec 0.1.0-dev still build: the
 * CUDA driver and the CUDA backend are in cutec/cuda_driver.h; the runtime that picks a
 * backend, compiles and calls (cute_runtime, cute_compile, cute_call) in cutec/jit.h.  New
 * code includes those. */
#ifndef CUTEC_RUNTIME_H
#define CUTEC_RUNTIME_H
#include "cutec/cuda_driver.h"
#endif
