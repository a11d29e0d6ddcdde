/* Packed register fragments: CuTe's recast<uint32_t> of a fragment.
 *
 * A register tensor normally holds one IR register per element.  A packed one holds its
 * 8- and 16-bit elements in 32-bit words, as the tensor cores' instructions hold them:
 * element o (o = offset + layout(i)) is lane o % k of word o / k, k = 4 bytes / element
 * size (lane 0 is the low half or byte, PTX's order).  ldmatrix then writes, and mma.sync
 * reads, the very registers of the fragment: no per-element registers live between them,
 * where unpacked 16-bit values each take a 32-bit register of their own (and fp8 four).
 * Element access (loads, stores, fills, the epilogue, a user indexing the fragment) extracts
 * and inserts lanes, so a packed tensor behaves as any register tensor. */
#define CUTEC_NO_SITE_MACROS
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

/* the type values travel in inside a word: the narrow floats (tf32, float8), which no
 * arithmetic runs in, as the unsigned integers of their width */
static cute_dtype carrier(cute_dtype d)
{
    if (!cute_dtype_is_narrow_float(d)) return d;
    int b = cute_dtype_bytes(d);
    return b == 1 ? CUTE_U8 : b == 2 ? CUTE_U16 : CUTE_U32;
}

int tensor_vals_per_word(cute_dtype d)
{
    int bits = cute_dtype_bits(d);
    return bits == 8 || bits == 16 ? 32 / bits : 1;
}

cute_type tensor_word_type(cute_dtype d)
{
    return tensor_vals_per_word(d) == 1 ? cute_type_of(carrier(d)) : cute_type_of(CUTE_U32);
}

cute_type tensor_word_lanes(cute_dtype d)
{
    return cute_type_vec(carrier(d), tensor_vals_per_word(d));
}

cute_vreg tensor_word_lane(cute_ctx *c, cute_dtype d, cute_vreg w, int lane)
{
    cute_type vt = tensor_word_lanes(d);
    cute_vreg v = cute_ir_op(&c->b, CUTE_OP_BITCAST, vt, w, 0, 0);
    cute_vreg e = cute_ir_op(&c->b, CUTE_OP_EXTRACT, cute_type_of(vt.dtype), v, 0, 0);
    c->b.last->imm = lane;
    return tensor_bits_as(c, e, d);
}

cute_vreg tensor_word_of(cute_ctx *c, cute_dtype d, const cute_vreg *vals)
{
    int k = tensor_vals_per_word(d);
    cute_type vt = tensor_word_lanes(d);
    cute_vreg v = cute_ir_op(&c->b, CUTE_OP_CONST, vt, 0, 0, 0); /* every lane is set below */
    for (int j = 0; j < k; j++) {
        v = cute_ir_op(&c->b, CUTE_OP_INSERT, vt, v, tensor_carried(c, d, vals[j]), 0);
        c->b.last->imm = j;
    }
    return cute_ir_op(&c->b, CUTE_OP_BITCAST, tensor_word_type(d), v, 0, 0);
}

cute_vreg tensor_bits_as(cute_ctx *c, cute_vreg v, cute_dtype d)
{
    if (cute_ir_type(c->fn, v).dtype == d) return v;
    return cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_of(d), v, 0, 0);
}

cute_vreg tensor_carried(cute_ctx *c, cute_dtype d, cute_vreg v)
{
    return tensor_bits_as(c, v, carrier(d));
}

/* The words start at zero: a word written one element at a time is read by each INSERT
 * before all of its lanes are set (the compiler drops the zeros a whole write overwrites). */
cute_tensor tensor_make_packed_rmem(cute_ctx *c, cute_dtype d, cute_layout layout)
{
    int k = tensor_vals_per_word(d);
    cute_type wt = tensor_word_type(d);
    cute_tensor t = tensor_rmem_alloc(c, d, layout, k, wt);
    if (c->alg.failed || k == 1) return t;
    cute_vreg zero = cute_ir_op(&c->b, CUTE_OP_CONST, wt, 0, 0, 0);
    int64_t words = (cute_cosize(&c->alg, &layout).v + k - 1) / k;
    for (int64_t w = 0; w < words; w++) cute_ir_mov(&c->b, t.regs[w], zero);
    return t;
}

/* the register offset of element i (-1: not static, the context failed) */
static int64_t reg_offset(cute_ctx *c, const cute_tensor *t, int64_t i)
{
    cute_int off = cute_add(&c->alg, t->offset, cute_layout_eval(&c->alg, &t->layout, cute_i(i)));
    if (cute_is_static(off)) return off.v;
    cute_ctx_fail(c, "a register tensor is statically indexed");
    return -1;
}

static int pack_of(const cute_tensor *t) { return t->pack > 1 ? t->pack : 1; }

cute_vreg tensor_rmem_get(cute_ctx *c, const cute_tensor *t, int64_t i)
{
    int64_t o = reg_offset(c, t, i);
    int k = pack_of(t);
    if (o < 0) return 0;
    if (k == 1) return tensor_bits_as(c, t->regs[o], (cute_dtype)t->dtype);
    return tensor_word_lane(c, (cute_dtype)t->dtype, t->regs[o / k], (int)(o % k));
}

void tensor_rmem_set(cute_ctx *c, const cute_tensor *t, int64_t i, cute_vreg v)
{
    int64_t o = reg_offset(c, t, i);
    int k = pack_of(t);
    if (o < 0) return;
    cute_vreg r = t->regs[o / k];
    if (k == 1) {
        cute_ir_mov(&c->b, r, tensor_bits_as(c, v, (cute_dtype)cute_ir_type(c->fn, r).dtype));
        return;
    }
    cute_type vt = tensor_word_lanes((cute_dtype)t->dtype);
    cute_vreg lanes = cute_ir_op(&c->b, CUTE_OP_BITCAST, vt, r, 0, 0);
    lanes = cute_ir_op(&c->b, CUTE_OP_INSERT, vt, lanes, tensor_bits_as(c, v, (cute_dtype)vt.dtype), 0);
    c->b.last->imm = o % k;
    cute_ir_mov(&c->b, r, cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_of(CUTE_U32), lanes, 0, 0));
}

bool tensor_rmem_words(cute_ctx *c, const cute_tensor *t, int n, cute_vreg *words)
{
    int k = pack_of(t);
    if (k == 1 || n % k) return false;
    for (int w = 0; w < n / k; w++) {
        int64_t o = reg_offset(c, t, (int64_t)w * k);
        if (o < 0 || o % k) return false;
        for (int j = 1; j < k; j++)
            if (reg_offset(c, t, (int64_t)w * k + j) != o + j) return false;
        words[w] = t->regs[o / k];
    }
    return true;
}
