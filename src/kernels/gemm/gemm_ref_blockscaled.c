/* The float64 reference of the block-scaled GEMMs (NVFP4, MXFP8): their operands' codes and
 * scales made fresh and decoded exactly (gemm_ref.h). */
#include <math.h>
#include <stdlib.h>

#include "cutec/gemv.h"
#include "cutec/numeric.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

/* a random code of d (e4m3: not NaN) and scale of sf */
static uint8_t code(cute_dtype d, uint64_t *state)
{
    uint8_t c = (uint8_t)((int64_t)(fabs(ew_random(state)) * 1e4) & 0xff);
    return d == CUTE_E4M3 && (c & 0x7f) == 0x7f ? c ^ 1 : c;
}
static uint8_t scale(cute_dtype sf, uint64_t *state)
{
    double g = ew_random(state);
    return sf == CUTE_UE4M3 ? cute_f64_to_ue4m3(0.25 + fabs(g)) : (uint8_t)(124 + (int)(fabs(g) * 7) % 7);
}

bool gemm_bs_make(gemm_bs_operand *o, cute_dtype d, cute_dtype sf, int64_t rows, int64_t K, uint64_t *state)
{
    bool fp4 = d == CUTE_E2M1;
    *o = (gemm_bs_operand){.d = d, .sf = sf, .vec = sf == CUTE_UE4M3 ? 16 : 32, .rows = rows, .K = K};
    if ((!fp4 && (d != CUTE_E4M3 || sf != CUTE_UE8M0)) || (sf != CUTE_UE4M3 && sf != CUTE_UE8M0)) return false;
    o->bytes = fp4 ? rows * K / 2 : rows * K, o->nsf = cute_gemv_sf_count(rows, K, 1, o->vec);
    o->codes = malloc((size_t)o->bytes + 1), o->scales = malloc((size_t)o->nsf + 1);
    if (!o->codes || !o->scales) return gemm_bs_free(o), false;
    for (int64_t i = 0; i < o->bytes; i++) o->codes[i] = code(d, state);
    for (int64_t i = 0; i < o->nsf; i++) o->scales[i] = scale(o->sf, state);
    return true;
}

void gemm_bs_free(gemm_bs_operand *o)
{
    free(o->codes), free(o->scales);
    o->codes = o->scales = NULL;
}

double gemm_bs_value(const gemm_bs_operand *o, int64_t r, int64_t k)
{
    uint8_t s = o->scales[cute_gemv_sf_index(r, k, 0, o->rows, o->K, o->vec)];
    double sf = o->sf == CUTE_UE4M3 ? cute_ue4m3_to_f32(s) : cute_ue8m0_to_f32(s);
    if (o->d == CUTE_E2M1) return cute_e2m1_to_f32((uint8_t)(o->codes[(r * o->K + k) / 2] >> (4 * (k % 2)))) * sf;
    return (double)cute_e4m3_to_f32(o->codes[r * o->K + k]) * sf;
}

double gemm_bs_dot(const gemm_bs_operand *A, const gemm_bs_operand *B, int64_t m, int64_t n, double *mag)
{
    double sum = 0;
    *mag = 0;
    for (int64_t k = 0; k < A->K; k++) {
        double t = gemm_bs_value(A, m, k) * gemm_bs_value(B, n, k);
        sum += t, *mag += fabs(t);
    }
    return sum;
}
