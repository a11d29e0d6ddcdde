/* The bytes a tensor argument reaches, in overflow-checked arithmetic: cute_call refuses a
 * tensor that reaches outside its buffer, and a size whose arithmetic overflows 64 bits is
 * outside every buffer (2^62+1 f32 elements in 4 bytes wrapped to "fits" in plain int64). */
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

/* floor(v / 8) and ceil(v / 8) for any sign */
static int64_t floor8(int64_t v) { return v >= 0 ? v / 8 : -((-(v + 1)) / 8) - 1; }
static int64_t ceil8(int64_t v) { return -floor8(-v); }

bool cute__arg_inside_buffer(const cute_call_arg *x, int ebits)
{
    int64_t lo, hi, first, end, offset;
    if (x->offset > (size_t)INT64_MAX || !element_span(x, &lo, &hi)) return false;
    offset = (int64_t)x->offset;
    /* first byte: offset + floor(lo*bits/8) >= 0; one past the last: offset + ceil((hi+1)*bits/8)
     * <= bytes (a 4-bit element shares its byte) */
    if (__builtin_mul_overflow(lo, ebits, &first) || __builtin_add_overflow(hi, 1, &end) ||
        __builtin_mul_overflow(end, ebits, &end) || end == INT64_MIN)
        return false;
    first = floor8(first), end = ceil8(end);
    if (__builtin_add_overflow(first, offset, &first) || __builtin_add_overflow(end, offset, &end))
        return false;
    return first >= 0 && (uint64_t)end <= x->buf->bytes;
}
