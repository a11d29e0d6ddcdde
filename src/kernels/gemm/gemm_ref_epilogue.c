/* The float64 reference of a fused epilogue's built-in steps (cute_gemm_epilogue): bias and
 * activation, written from their definitions (not from the kernel's TensorSSA). */
#include <math.h>

#include "kernels/gemm/gemm_ref.h"

double gemm_ref_epilogue(const cute_gemm_epilogue *e, double x, double v)
{
    if (!e) return x;
    if (e->bias != CUTE_GEMM_BIAS_NONE) x += v;
    switch (e->act) {
    case CUTE_GEMM_ACT_RELU: return x > 0 ? x : 0;
    case CUTE_GEMM_ACT_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case CUTE_GEMM_ACT_GELU_ERF: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case CUTE_GEMM_ACT_SILU: return x / (1 + exp(-x));
    default: return x;
    }
}
