/* cutec/cuda_c.h — the CUDA C backend's code generator: IR kernels -> one self-contained
 * CUDA C++ translation unit that NVRTC compiles with no include path (cutec/nvrtc.h).
 *
 * What the source looks like (the contract the runtime and the interpreter rely on):
 *  - each kernel `extern "C" __global__ void <name>(params...)`, parameters in IR order:
 *    pointers `T *`, `T *__restrict__` where the kernel says no two of them reach the same
 *    memory (cute_ir_func.noalias; opts.no_restrict drops it anyway), scalars by value;
 *    `__launch_bounds__(max_threads)` when set; dynamic shared memory is
 *    `extern __shared__ __align__(1024) unsigned char cute_smem[]`;
 *  - C types: i1 bool, i8..u64 the fixed-width integers (typedefs i8 ... u64), f32 float,
 *    f64 double; f16 and bf16 are 16 raw bits (`struct f16 { u16 bits; }`): values convert
 *    through PTX cvt, arithmetic and math on them is done in f32 and rounded back once
 *    (round to nearest even), so f16 FMA rounds twice (f32, then f16);
 *  - a vector register (lanes > 1) is `struct __align__(A) <t>x<n> { <t> v[n]; }` with A the
 *    vector's size when that is a power of two <= 16 (else 16, or the element's size): a
 *    LOAD/STORE of 4, 8 or 16 bytes is one LDG/STG/LDS/STS of that width (a global STORE of
 *    8 or 16 bytes of 8- or 16-bit lanes is inline PTX st.global.v2/v4 of the value's
 *    32-bit words: NVVM would split that C assignment);
 *  - one C local per virtual register, `r<id>` or `r<id>_<hint>`; mutable registers are
 *    declared at the top of the kernel;
 *  - semantics where C leaves a choice: integer DIV/REM truncate (C); signed overflow and
 *    shifts by >= the width are undefined (C); float MIN/MAX are fminf/fmaxf (a NaN operand
 *    gives the other); CVT rounds to nearest even, once (also f64 and 64-bit integers to
 *    bf16); float -> int truncates toward zero, saturates to the target's range, NaN -> 0
 *    (PTX cvt.rzi, plus a NaN test where the hardware differs: from f64, and to 64 bits;
 *    cuda_c_gpu_test.c checks all 169 pairs on a GPU); float ATOMIC_CAS compares bits;
 *    SREG warpid is the linear thread index / 32, laneid is %laneid; MATH with CUTE_IR_FAST
 *    uses __expf, __logf, __log2f, __sinf, __cosf, __powf and PTX ex2/sqrt/rsqrt/tanh
 *    .approx (f32 only); ASM is `asm volatile` with a "memory" clobber (none with
 *    CUTE_IR_ASM_PURE), its text as written (operands %0.. in-outs "+", outputs "=", then
 *    inputs; a literal % written %%), a shared pointer operand as its u32 shared-window
 *    address; INST is its row's PTX (cutec/inst.h), clobbers from the row's flags;
 *  - a `// file:line` comment (or, with opts.line_directives, a `#line`) before the code of
 *    each new call site.
 */
#ifndef CUTEC_CUDA_C_H
#define CUTEC_CUDA_C_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>

#include "cutec/backend.h"
#include "cutec/ir.h"

typedef struct cute_cuda_c_opts {
    const char *arch;     /* "sm_90a", "sm_80", "compute_90": checked (sm_70 at least);
                             NULL: any.  The source itself does not depend on it. */
    bool line_directives; /* #line "file" from call sites (for -lineinfo) instead of comments */
    bool no_restrict;     /* no __restrict__, even on the parameters of a noalias kernel */
} cute_cuda_c_opts;

/* Generate the source of n kernels (verified IR: cute_ir_verify) as one translation unit.
 * opts may be NULL.  CUTE_OK: *out_src is malloc'd source (caller frees).
 * CUTE_ERR_UNSUPPORTED: an op/type combination the CUDA C backend cannot express (err says
 * which, with the kernel and call site); CUTE_ERR_INVALID: bad arguments (a kernel name that
 * is not a C identifier, two kernels of one name, a bad arch); CUTE_ERR_OOM.  *out_src is
 * NULL on failure. */
cute_status cute_cuda_c_emit(const cute_ir_func *const *kernels, int n,
                             const cute_cuda_c_opts *opts, char **out_src, char *err, size_t errn);

/* How a kernel parameter of type t is passed (cuLaunchKernel's argument buffers): its size
 * and alignment in bytes (bool 1, f16 2, pointers 8, vectors their struct's). */
void cute_cuda_c_param_abi(cute_type t, size_t *size, size_t *align);

/* Round a double to f16 / bf16 bits, to nearest even, once (what CONST and CVT do). */
unsigned short cute_f16_bits(double d);
unsigned short cute_bf16_bits(double d);

CUTE_API_END
#endif
