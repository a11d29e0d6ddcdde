/* Host-side helpers shared by the elementwise test, the CLI's run/bench and the tour:
 * element conversion (f16/bf16 by their bit patterns), random fill, and the CPU reference. */
#ifndef CUTEC_EW_REF_H
#define CUTEC_EW_REF_H

#include <stdint.h>

#include "cutec/kernels.h"

double ew_get(cute_dtype d, const void *base, int64_t i);       /* element i as a double */
void ew_set(cute_dtype d, void *base, int64_t i, double v);     /* round to d, store */
/* the op on doubles exactly as the kernels compute it: f16/bf16 in f32, f32 in f32 */
double ew_ref(cute_ew_op op, cute_dtype compute, double a, double b);
/* the type the kernel computes op in for inputs of type d */
cute_dtype ew_compute_type(cute_ew_op op, cute_dtype d);
/* allowed |got - want| relative error for the op (0: exact) */
double ew_tolerance(cute_ew_op op, cute_dtype out);
/* a reproducible xorshift stream: uniform in [-2, 2), never exactly 0 */
double ew_random(uint64_t *state);

#endif
