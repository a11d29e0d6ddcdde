/* The bytes a tensor argument reaches, in overflow-checked arithmetic: cute_call refuses a
 * tensor that reaches outside its buffer, and a size whose arithmetic overflows 64 bits is
 * outside every buffer (2^62+1 f32 elements in 4 bytes wrapped to "fits" in plain int64). */
#include <string.h>

#include "jit_internal.h"

/* [lo, hi] element offsets (relative to the data pointer) reached by a non-empty tensor;
 * false when a step overflows */
static bool element_span(const cute_call_arg *x, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    for (int i = 0; i < x->ndim; i++) {
        int64_t span;
        if (__builtin_mul_overflow(x->shape[i] - 1, x->stride[i], &span)) return false;
        if (__builtin_add_overflow(span < 0 ? *lo : *hi, span, span < 0 ? lo : hi)) return false;
    }
    return true;
}

bool cute__arg_inside_buffer(const cute_call_arg *x, int esize)
{
    int64_t lo, hi, first, last, offset;
    if (x->offset > (size_t)INT64_MAX) return false;
    offset = (int64_t)x->offset;
    if (!element_span(x, &lo, &hi)) return false;
    /* first byte: offset + lo*esize >= 0; one past the last: offset + (hi+1)*esize <= bytes */
    if (__builtin_mul_overflow(lo, esize, &first) || __builtin_add_overflow(first, offset, &first))
        return false;
    if (__builtin_add_overflow(hi, 1, &last) || __builtin_mul_overflow(last, esize, &last) ||
        __builtin_add_overflow(last, offset, &last))
        return false;
    return first >= 0 && (uint64_t)last <= x->buf->bytes;
}
