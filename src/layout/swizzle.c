/* Swizzles (XOR of one bit field into another) and layouts composed with them. */
#include "layout_internal.h"

bool cute_swizzle_valid(cute_swizzle sw)
{
    int as = sw.S < 0 ? -sw.S : sw.S;
    return sw.B >= 0 && sw.M >= 0 && as >= sw.B && sw.B + sw.M + as <= 62;
}

int64_t cute_swizzle_apply(cute_swizzle sw, int64_t x)
{
    if (sw.B == 0) return x;
    int64_t bits = ((int64_t)1 << sw.B) - 1;
    if (sw.S >= 0) {
        int64_t mask = bits << (sw.M + sw.S);
        return x ^ ((x & mask) >> sw.S);
    }
    int64_t mask = bits << sw.M; /* S < 0: the field at M moves up by -S */
    return x ^ ((x & mask) << -sw.S);
}

static cute_composed composed_poison(void)
{
    cute_composed R = {{0, 0, 0}, {0, 0}, cute_layout_poison()};
    return R;
}

cute_composed cute_make_composed(cute_alg *c, cute_swizzle sw, cute_int offset, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "composed layout", 1, &L)) return composed_poison();
    if (!cute_swizzle_valid(sw)) {
        cute_alg_fail(c, "swizzle Sw<%d,%d,%d>: needs B >= 0, M >= 0, |S| >= B and fewer than "
                         "62 bits in all", sw.B, sw.M, sw.S);
        return composed_poison();
    }
    cute_composed R = {sw, offset, *L};
    return R;
}

/* sw(x) for a possibly dynamic x, through the integer ops (so the tracer emits it) */
static cute_int swizzle_int(cute_alg *c, cute_swizzle sw, cute_int x)
{
    if (cute_is_static(x)) return cute_i(cute_swizzle_apply(sw, x.v));
    if (sw.B == 0) return x;
    cute_int bits = cute_i(((int64_t)1 << sw.B) - 1);
    if (sw.S >= 0) {
        cute_int mask = cute_int_op2(c, CUTE_ISHL, bits, cute_i(sw.M + sw.S));
        cute_int field = cute_int_op2(c, CUTE_IAND, x, mask);
        return cute_int_op2(c, CUTE_IXOR, x, cute_int_op2(c, CUTE_ISHR, field, cute_i(sw.S)));
    }
    cute_int mask = cute_int_op2(c, CUTE_ISHL, bits, cute_i(sw.M));
    cute_int field = cute_int_op2(c, CUTE_IAND, x, mask);
    return cute_int_op2(c, CUTE_IXOR, x, cute_int_op2(c, CUTE_ISHL, field, cute_i(-sw.S)));
}

int64_t cute_swizzle_period(cute_swizzle sw)
{
    int as = sw.S < 0 ? -sw.S : sw.S;
    return sw.B == 0 ? 1 : (int64_t)1 << (sw.B + sw.M + as);
}

/* sw(offset + inner).  A swizzle reads and writes only the bits below its period P, so for
 * q a multiple of P, sw(q + y) = q + sw(y) (two's complement too: q leaves y's low bits
 * alone).  Parts of the sum that are multiples of P are therefore kept out of the swizzle:
 * a dynamic offset proven a multiple of P (a stage of a pipeline), and the multiple-of-P
 * part of the static terms, of inner and of a dynamic offset (a slice's constant: so
 * values P apart, the MMA's tiles along M or N, share one swizzled dynamic address). */
cute_int cute_composed_eval(cute_alg *c, const cute_composed *L, cute_int i)
{
    cute_int inner = cute_layout_eval(c, &L->layout, i);
    int64_t P = cute_swizzle_period(L->sw);
    cute_int off = L->offset, q = cute_i(0);
    if (P > 1 && cute_is_dynamic(off) && off.div % P == 0) q = off, off = cute_i(0);
    if (P > 1 && cute_is_static(inner) && cute_is_dynamic(off)) {
        int64_t k = inner.v + cute_int_constant_term(c, off), r = ((k % P) + P) % P;
        q = cute_add(c, q, cute_i(k - r));
        off = cute_sub(c, off, cute_i(k - inner.v)); /* off's dynamic terms */
        inner = cute_i(r);
    }
    return cute_add(c, q, swizzle_int(c, L->sw, cute_add(c, off, inner)));
}

static cute_composed rewrap(cute_alg *c, const cute_composed *L, cute_layout inner, cute_int off)
{
    if (c->failed) return composed_poison();
    cute_composed R = {L->sw, off, inner};
    return R;
}

cute_composed cute_composed_composition(cute_alg *c, const cute_composed *L, const cute_tiler *T)
{
    return rewrap(c, L, cute_composition(c, &L->layout, T), L->offset);
}

cute_composed cute_composed_logical_divide(cute_alg *c, const cute_composed *L, const cute_tiler *T)
{
    return rewrap(c, L, cute_logical_divide(c, &L->layout, T), L->offset);
}

cute_composed cute_composed_zipped_divide(cute_alg *c, const cute_composed *L, const cute_tiler *T)
{
    return rewrap(c, L, cute_zipped_divide(c, &L->layout, T), L->offset);
}

cute_composed cute_composed_logical_product(cute_alg *c, const cute_composed *L, const cute_tiler *T)
{
    return rewrap(c, L, cute_logical_product(c, &L->layout, T), L->offset);
}

cute_composed cute_composed_slice(cute_alg *c, const cute_tuple *crd, const cute_composed *L)
{
    cute_tuple off;
    cute_layout inner = cute_slice_and_offset(c, crd, &L->layout, &off);
    if (c->failed) return composed_poison();
    if (!cute_tuple_is_int(&off)) {
        cute_alg_fail(c, "slice: a swizzled layout needs integer strides");
        return composed_poison();
    }
    return rewrap(c, L, inner, cute_add(c, L->offset, off.leaf[0]));
}

cute_composed cute_composed_tile_to_shape(cute_alg *c, const cute_composed *block,
                                          const cute_tuple *shape, const cute_tuple *order)
{
    return rewrap(c, block, cute_tile_to_shape(c, &block->layout, shape, order), block->offset);
}
