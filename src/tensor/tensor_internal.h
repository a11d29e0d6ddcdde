/* Internal: what the tensor layer shares with the layers above it (atoms). */
#ifndef CUTEC_TENSOR_INTERNAL_H
#define CUTEC_TENSOR_INTERNAL_H

#include "cutec/tensor.h"

/* t with layout L and its iterator moved by off (an int for pointers and registers, a
 * coordinate for coordinate tensors): the result of any slice or partition */
cute_tensor tensor_moved(cute_ctx *c, cute_tensor t, cute_layout L, cute_tuple off);

#endif
