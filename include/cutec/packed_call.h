/* cutec/packed_call.h — one library call in one struct, for bindings (the Python package's
 * ctypes) to whom each converted argument costs more than cutec's own checks.
 *
 * A binding keeps one cutec_packed_call per call signature (kernel, dtypes, shapes,
 * strides): it fills the struct once, and for each call writes only the first fields (the
 * data pointers, the stream, the scales) and calls cutec_call_packed.  The call is exactly
 * cutec_gemm / cute_ew on buf and arg, with every check those make. */
#ifndef CUTEC_PACKED_CALL_H
#define CUTEC_PACKED_CALL_H

#include <stdint.h>

#include "cutec/api.h"
#include "cutec/jit.h"

CUTE_API_BEGIN

enum { CUTEC_PACKED_TENSORS = 4 };

typedef enum {
    CUTEC_PACKED_GEMM = 1, /* cutec_gemm(lib, which = variant, arg 0..2 = A, B, C, alpha, beta) */
    CUTEC_PACKED_EW = 2,   /* cute_ew(lib, which = op, inputs arg 0 (and 1), out the last) */
} cutec_packed_kernel;

typedef struct cutec_packed_call {
    /* written for every call, together at the start */
    void *data[CUTEC_PACKED_TENSORS]; /* tensor i's memory: copied into buf[i].ptr */
    void *stream;                     /* a CUstream, NULL: the default stream */
    double alpha, beta;
    /* written once per signature */
    uint32_t size;  /* sizeof(cutec_packed_call) as the binding lays it out */
    int32_t kernel; /* cutec_packed_kernel */
    int32_t which;  /* the GEMM variant, or the elementwise op */
    int32_t ntensors;
    void *lib; /* the cute_gemm_lib or cute_ew_lib */
    cute_buffer buf[CUTEC_PACKED_TENSORS];
    cute_call_arg arg[CUTEC_PACKED_TENSORS]; /* arg[i].buf is set to &buf[i] by the call */
    char err[512];                           /* why the last call failed */
} cutec_packed_call;

/* the call the struct describes; CUTE_ERR_INVALID (and the reason in err) for a struct of
 * another size, an unknown kernel or a tensor count that kernel does not take */
cute_status cutec_call_packed(cutec_packed_call *call);

CUTE_API_END
#endif
