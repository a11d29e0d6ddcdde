/* cutec/kernels.h — the kernel library: elementwise (binary, unary, casts, and an "apply"
 * builder that fuses any TensorSSA expression over N inputs into one kernel).
 *
 * Tensors are passed as cute_call_arg (jit.h): a buffer, a byte offset, dtype, shape and
 * strides in elements, rank 1 to 4, any strides.  The first call with a new combination of
 * op, dtypes, rank and contiguity compiles (through the JIT cache); later calls reuse it.
 */
#ifndef CUTEC_KERNELS_H
#define CUTEC_KERNELS_H

#include "cutec/jit.h"

typedef enum {
    CUTE_EW_ADD, CUTE_EW_SUB, CUTE_EW_MUL, CUTE_EW_DIV, CUTE_EW_MAX, CUTE_EW_MIN, /* binary */
    CUTE_EW_RELU, CUTE_EW_GELU, CUTE_EW_SILU, CUTE_EW_EXP, CUTE_EW_NEG, CUTE_EW_ABS, /* unary */
    CUTE_EW_CAST, /* out = in converted to out's dtype */
    CUTE_EW_COUNT
} cute_ew_op;

const char *cute_ew_op_name(cute_ew_op op);
bool cute_ew_op_parse(const char *name, cute_ew_op *out);
int cute_ew_op_arity(cute_ew_op op); /* 1 or 2 */

/* An elementwise expression: the output TensorSSA from the inputs' (all of one shape). */
typedef cute_ssa (*cute_ew_expr)(cute_ctx *c, const cute_ssa *in, int nin, void *user);

typedef struct cute_ew_config {
    int threads;        /* per block; 0: 256 */
    int vectors;        /* 16-byte vectors per thread; 0: 4 */
} cute_ew_config;

/* Compile out = expr(in[0..nin)) for tensors like these (their dtypes, rank, and whether
 * they are compact row-major, which picks the 16-byte fast path).  The expression is traced
 * once.  name: the kernel's name (a C identifier). */
cute_fn *cute_ew_compile(cute_runtime *rt, const char *name, cute_ew_expr expr, void *user,
                         int nin, const cute_call_arg *in, const cute_call_arg *out,
                         const cute_ew_config *cfg, char *err, size_t n);
/* the arguments of a compiled elementwise function, in order: in..., out */
cute_status cute_ew_call(cute_fn *f, void *stream, int nin, const cute_call_arg *in,
                         const cute_call_arg *out);

/* the library op's expression; user is (void *)(intptr_t)op */
cute_ssa cute_ew_op_expr(cute_ctx *c, const cute_ssa *in, int nin, void *user);

/* The library's ops, compiled once per runtime and pattern and then reused. */
typedef struct cute_ew_lib cute_ew_lib;
cute_ew_lib *cute_ew_lib_new(cute_runtime *rt);
void cute_ew_lib_free(cute_ew_lib *lib);
/* out = op(a[, b]); b is ignored for unary ops; err gets the reason on failure */
cute_status cute_ew(cute_ew_lib *lib, cute_ew_op op, const cute_call_arg *out,
                    const cute_call_arg *a, const cute_call_arg *b, void *stream, char *err,
                    size_t n);
static inline cute_status cutec_add(cute_ew_lib *lib, const cute_call_arg *out,
                                    const cute_call_arg *a, const cute_call_arg *b, void *stream)
{
    return cute_ew(lib, CUTE_EW_ADD, out, a, b, stream, NULL, 0);
}

/* SGEMM, step 1 (seed 002): C(M,N) = alpha A(M,K) B(N,K)^T + beta C, column-major f32, any
 * M, N, K.  Call with (A, B, C, alpha, beta). */
cute_fn *cute_sgemm_compile(cute_runtime *rt, char *err, size_t n);

#endif
