/* Internal: what the tensor layer shares with the layers above it (atoms). */
#ifndef CUTEC_TENSOR_INTERNAL_H
#define CUTEC_TENSOR_INTERNAL_H

#include "cutec/tensor.h"

/* t with layout L and its iterator moved by off (an int for pointers and registers, a
 * coordinate for coordinate tensors): the result of any slice or partition */
cute_tensor tensor_moved(cute_ctx *c, cute_tensor t, cute_layout L, cute_tuple off);

/* one access of w elements at element i of a global/shared tensor: a LOAD into regs[i..i+w)
 * (assign: into existing mutable registers) or a STORE from them; the caller has proved the
 * chunk contiguous */
void tensor_access_chunk(cute_ctx *c, const cute_tensor *t, int i, int w, bool load,
                         cute_vreg *regs, bool assign);
/* the widest access (elements) whose chunks of a tensor of n elements are contiguous and
 * aligned, as far as the algebra proves */
int tensor_vector_width(cute_ctx *c, const cute_tensor *t, int n);

/* the alignment, in bytes, the algebra proves for element 0 of a global/shared tensor: the
 * base pointer's, as far as the element offset keeps it */
int tensor_proven_align(cute_ctx *c, const cute_tensor *t);
/* a TensorSSA operand of the kernel being traced (made by it, not by an earlier error) */
bool ssa_usable(cute_ctx *c, const cute_ssa *a, const char *what);
/* a tensor whose iterator belongs to the kernel being traced: its pointer (a value of this
 * kernel, not a host argument that was not passed to the launch) or its registers */
bool tensor_usable(cute_ctx *c, const cute_tensor *t, const char *what);

#endif
