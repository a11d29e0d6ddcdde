/* cutec/numeric.h — number types as raw bits on the host: the conversions the GPU's `cvt`
 * performs, bit for bit, for references, the interpreter and trace-time constants.
 *
 * Narrowing rounds to nearest even (tf32: ties away from zero, as cvt.rna; ue8m0: up, as
 * cvt.rp), from the exact value of the input (an f64 is rounded once, never through f32).
 * The float8/float4 conversions saturate as PTX's mandatory .satfinite says: a value beyond
 * the largest finite one, infinity included, becomes that largest value with its sign.
 * Widening is exact; a NaN widens to the canonical NaN (f32 0x7fffffff).
 *
 *   type   bits  values                          NaN from conversions  PTX cvt
 *   tf32   32    f32 with 10 fraction bits       0x7fffffff            cvt.rna.tf32.f32 (sm_80)
 *   e4m3   8     +-448, no infinity              0x7f                  cvt.rn.satfinite.e4m3x2 (sm_89)
 *   e5m2   8     +-57344, infinities not made    0x7f                  cvt.rn.satfinite.e5m2x2 (sm_89)
 *   e2m1   4     +-{0,.5,1,1.5,2,3,4,6}          none: NaN gives +6    cvt.rn.satfinite.e2m1x2 (sm_100a)
 *   ue8m0  8     2^-127 .. 2^127, sign ignored   0xff                  cvt.rp.satfinite.ue8m0x2 (sm_100a)
 *   ue4m3  8     0 .. 448, negatives give 0      0x7f                  cvt.rn.satfinite.relu.e4m3x2
 *
 * An e2m1 code is the low 4 bits of its byte; a ue4m3 code's top bit is zero (a code with it
 * set decodes as the code without it).
 */
#ifndef CUTEC_NUMERIC_H
#define CUTEC_NUMERIC_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdint.h>

#include "cutec/ir.h"

/* IEEE half and bfloat16: rounding to nearest even exactly as the GPU's cvt.rn does
 * (checked on an H200 for all 2^32 f32 inputs): overflow gives infinity; a NaN becomes
 * 0x7fff from f32, 0x7e00 (f16) or 0x7fc0 (bf16) from f64.  Widening is exact; an f16 NaN
 * widens to the canonical 0x7fffffff, a bf16 one keeps its bits. */
uint16_t cute_f32_to_f16(float x);
uint16_t cute_f64_to_f16(double x);
float cute_f16_to_f32(uint16_t h);
uint16_t cute_f32_to_bf16(float x);
uint16_t cute_f64_to_bf16(double x);
float cute_bf16_to_f32(uint16_t h);

/* tf32 as the f32 it is stored as: cvt.rna.tf32.f32 (overflow gives infinity) */
float cute_f32_to_tf32(float x);
float cute_f64_to_tf32(double x);

uint8_t cute_f32_to_e4m3(float x);
uint8_t cute_f64_to_e4m3(double x);
float cute_e4m3_to_f32(uint8_t v);

uint8_t cute_f32_to_e5m2(float x);
uint8_t cute_f64_to_e5m2(double x);
float cute_e5m2_to_f32(uint8_t v);

uint8_t cute_f32_to_e2m1(float x);
uint8_t cute_f64_to_e2m1(double x);
float cute_e2m1_to_f32(uint8_t v);

/* the 6-bit floats of tcgen05.mma kind::f8f6f4 (decode only: the low 6 bits of v):
 * e2m3 +-7.5 (bias 1), e3m2 +-28 (bias 3); neither has infinity or NaN */
float cute_e2m3_to_f32(uint8_t v);
float cute_e3m2_to_f32(uint8_t v);

uint8_t cute_f32_to_ue8m0(float x);
uint8_t cute_f64_to_ue8m0(double x);
float cute_ue8m0_to_f32(uint8_t v);

uint8_t cute_f32_to_ue4m3(float x);
uint8_t cute_f64_to_ue4m3(double x);
float cute_ue4m3_to_f32(uint8_t v);

/* by dtype, for the narrow floats (cute_dtype_is_narrow_float): v rounded to d's code (tf32:
 * the f32 bits), and a code's value (exact in f32) */
uint32_t cute_narrow_encode(cute_dtype d, double v);
float cute_narrow_decode(cute_dtype d, uint32_t code);

CUTE_API_END
#endif
