/* Tensors: making them, and the layout algebra applied to them. */
#include <stdio.h>
#include <string.h>

#include "cutec/notation.h"
#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/tensor.h"
#include "tensor_internal.h"
#include "trace/ctx_internal.h"

static cute_tensor bad_tensor(void)
{
    cute_tensor t;
    memset(&t, 0, sizeof t);
    t.layout = cute_layout_poison();
    t.host_arg = -1;
    return t;
}

bool tensor_usable(cute_ctx *c, const cute_tensor *t, const char *what)
{
    char w[96];
    if (t->kind == CUTE_TENSOR_RMEM) {
        snprintf(w, sizeof w, "%s: the register tensor", what);
        return ctx_same_kernel(c, t->kernel, w);
    }
    if (t->kind != CUTE_TENSOR_GMEM && t->kind != CUTE_TENSOR_SMEM) return true;
    if (t->base.r == 0 && t->host_arg >= 0)
        return cute_ctx_fail(c, "%s: a tensor of the host function used in a kernel (pass it as "
                                "an argument of CUTE_LAUNCH)", what);
    snprintf(w, sizeof w, "%s: the tensor's pointer", what);
    return ctx_usable(c, t->base, w);
}

cute_tensor cute_make_tensor(cute_ctx *c, cute_val ptr, cute_layout layout, int align_bytes)
{
    if (!ctx_ok(c) || !ctx_usable(c, ptr, "the pointer")) return bad_tensor();
    if (ptr.t.dtype != CUTE_PTR) {
        cute_ctx_fail(c, "cute_make_tensor needs a pointer");
        return bad_tensor();
    }
    if (cute_layout_is_poison(&layout)) {
        cute_ctx_fail(c, "cute_make_tensor: the layout is poison (an earlier error)");
        return bad_tensor();
    }
    int esize = cute_dtype_bytes((cute_dtype)ptr.t.pointee);
    if (align_bytes < esize || (align_bytes & (align_bytes - 1))) {
        cute_ctx_fail(c, "cute_make_tensor: alignment %d must be a power of two >= the %d-byte "
                         "element", align_bytes, esize);
        return bad_tensor();
    }
    cute_tensor t = bad_tensor();
    t.kind = ptr.t.space == CUTE_SMEM ? CUTE_TENSOR_SMEM : CUTE_TENSOR_GMEM;
    t.dtype = ptr.t.pointee;
    t.align = align_bytes;
    t.base = ptr;
    t.offset = cute_i(0);
    t.layout = layout;
    return t;
}

cute_tensor cute_make_identity_tensor(cute_ctx *c, cute_tuple shape)
{
    if (!ctx_alive(c)) return bad_tensor();
    cute_tensor t = bad_tensor();
    t.kind = CUTE_TENSOR_COORD;
    t.dtype = CUTE_I64;
    t.layout = cute_make_identity_layout(&c->alg, shape);
    /* the base coordinate: zeros shaped like the coordinate space (one per top mode) */
    int r = cute_tuple_rank(&shape);
    cute_tuple zeros[CUTE_MAX_RANK];
    for (int i = 0; i < r; i++) {
        cute_tuple mi = cute_tuple_get(&shape, i);
        zeros[i] = cute_tuple_is_int(&mi) ? cute_tuple_int(cute_i(0)) : cute_tuple_fill_like(&mi, cute_i(0));
    }
    t.coord = cute_tuple_is_int(&shape) ? cute_tuple_int(cute_i(0)) : cute_tuple_of(&c->alg, r, zeros);
    return c->alg.failed ? bad_tensor() : t;
}

/* registers for a static layout, k elements to a register of type rt (packed_regs.c) */
cute_tensor tensor_rmem_alloc(cute_ctx *c, cute_dtype d, cute_layout layout, int k, cute_type rt)
{
    if (!ctx_ok(c)) return bad_tensor();
    if (!cute_tuple_is_static(&layout.shape) || !cute_tuple_is_static(&layout.stride)) {
        cute_ctx_fail(c, "a register tensor needs a static layout");
        return bad_tensor();
    }
    cute_int cos = cute_cosize(&c->alg, &layout);
    if (c->alg.failed) return bad_tensor();
    if (cos.v > 4096) {
        cute_ctx_fail(c, "a register tensor of %lld registers (at most 4096)", (long long)cos.v);
        return bad_tensor();
    }
    int64_t n = (cos.v + k - 1) / k;
    cute_tensor t = bad_tensor();
    t.kind = CUTE_TENSOR_RMEM;
    t.kernel = c->kernel;
    t.dtype = (uint8_t)d;
    t.pack = (uint8_t)k;
    t.offset = cute_i(0);
    t.layout = layout;
    t.regs = cute_ir_alloc(c->fn, (size_t)(n ? n : 1) * sizeof(cute_vreg));
    if (!t.regs) {
        cute_ctx_fail(c, "out of memory");
        return bad_tensor();
    }
    for (int64_t i = 0; i < n; i++) t.regs[i] = cute_ir_new_vreg(c->fn, rt, "f", true);
    return t;
}

cute_tensor cute_make_rmem_tensor(cute_ctx *c, cute_dtype d, cute_layout layout)
{
    return tensor_rmem_alloc(c, d, layout, 1, cute_type_of(d));
}

cute_tensor cute_make_fragment_like(cute_ctx *c, cute_tensor t)
{
    if (!ctx_ok(c)) return bad_tensor();
    cute_layout L = cute_make_layout(&c->alg, t.layout.shape);
    if (!cute_tuple_is_static(&L.shape)) {
        cute_ctx_fail(c, "a fragment needs a static shape");
        return bad_tensor();
    }
    return cute_make_rmem_tensor(c, t.kind == CUTE_TENSOR_COORD ? CUTE_I64 : (cute_dtype)t.dtype, L);
}

/* a dynamic move of a swizzled shared tensor by a multiple of the swizzle's period (which
 * keeps the base's alignment: the period covers it) */
static bool moves_base(const cute_tensor *t, cute_int d)
{
    int64_t P = cute_swizzle_period(t->sw);
    return P > 1 && cute_is_dynamic(d) && d.div % P == 0 && t->base.r != 0;
}

cute_tensor tensor_moved(cute_ctx *c, cute_tensor t, cute_layout L, cute_tuple off)
{
    if (c->alg.failed) return bad_tensor();
    t.layout = L;
    if (t.kind == CUTE_TENSOR_COORD) {
        /* add coordinate to coordinate, mode by mode (off has the basis's structure) */
        cute_tuple sum = t.coord;
        if (cute_tuple_is_int(&off)) {
            if (sum.nleaves > 0) sum.leaf[0] = cute_add(&c->alg, sum.leaf[0], off.leaf[0]);
        } else {
            for (int i = 0; i < off.nleaves && i < sum.nleaves; i++)
                sum.leaf[i] = cute_add(&c->alg, sum.leaf[i], off.leaf[i]);
        }
        t.coord = sum;
    } else if (t.kind == CUTE_TENSOR_SMEM && moves_base(&t, off.leaf[0])) {
        /* sw(offset + d + x) = d + sw(offset + x) for d a multiple of the swizzle's period:
         * the pointer takes d, and the swizzled part stays what it was (a pipeline's stage
         * then costs one add, and the swizzled addresses are loop-invariant) */
        cute_val d = cute_int_index(c, off.leaf[0]);
        t.base = ctx_val(c, cute_ir_op(&c->b, CUTE_OP_PTR_ADD, t.base.t, t.base.r, d.r, 0));
    } else {
        t.offset = cute_add(&c->alg, t.offset, off.leaf[0]);
        if (t.kind == CUTE_TENSOR_RMEM && !cute_is_static(t.offset)) {
            cute_ctx_fail(c, "a register tensor sliced at a dynamic coordinate (registers are "
                             "statically indexed)");
            return bad_tensor();
        }
    }
    return c->alg.failed ? bad_tensor() : t;
}

cute_tensor cute_tensor_slice(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    if (!ctx_alive(c)) return bad_tensor();
    cute_tuple off;
    cute_layout L = cute_slice_and_offset(&c->alg, &crd, &t.layout, &off);
    return tensor_moved(c, t, L, off);
}

static cute_tensor relayout(cute_ctx *c, cute_tensor t, cute_layout L)
{
    if (c->alg.failed) return bad_tensor();
    t.layout = L;
    return t;
}

cute_tensor cute_tensor_compose(cute_ctx *c, cute_tensor t, const cute_tiler *T)
{
    if (!ctx_alive(c)) return bad_tensor();
    return relayout(c, t, cute_composition(&c->alg, &t.layout, T));
}

cute_tensor cute_tensor_zipped_divide(cute_ctx *c, cute_tensor t, const cute_tiler *T)
{
    if (!ctx_alive(c)) return bad_tensor();
    return relayout(c, t, cute_zipped_divide(&c->alg, &t.layout, T));
}

cute_tensor cute_tensor_logical_divide(cute_ctx *c, cute_tensor t, const cute_tiler *T)
{
    if (!ctx_alive(c)) return bad_tensor();
    return relayout(c, t, cute_logical_divide(&c->alg, &t.layout, T));
}

cute_tensor cute_tensor_group_modes(cute_ctx *c, cute_tensor t, int begin, int end)
{
    if (!ctx_alive(c)) return bad_tensor();
    return relayout(c, t, cute_group_modes(&c->alg, &t.layout, begin, end));
}

cute_tensor cute_tensor_local_tile(cute_ctx *c, cute_tensor t, cute_tuple tile, cute_tuple coord,
                                   const cute_tuple *proj)
{
    if (!ctx_alive(c)) return bad_tensor();
    cute_tuple off;
    cute_layout L = cute_local_tile(&c->alg, &t.layout, &tile, &coord, proj, &off);
    return tensor_moved(c, t, L, off);
}

cute_tensor cute_tensor_local_partition(cute_ctx *c, cute_tensor t, cute_layout thr, cute_int idx)
{
    if (!ctx_alive(c)) return bad_tensor();
    cute_tuple off;
    cute_layout L = cute_local_partition(&c->alg, &t.layout, &thr, idx, &off);
    return tensor_moved(c, t, L, off);
}

/* The alignment of the iterator (base + offset), in bytes, as CuTe DSL tracks it: the
 * base's (registers: 32, as CuTe DSL allocates them) and the offset's largest power-of-two
 * factor in bytes (a dynamic offset's: its known divisor's), whichever is smaller. */
static int64_t iterator_align(const cute_tensor *t)
{
    int esize = cute_dtype_bytes((cute_dtype)t->dtype);
    int64_t a = t->kind == CUTE_TENSOR_RMEM ? 32 : t->align;
    int64_t f = cute_is_static(t->offset) ? t->offset.v : cute_is_dynamic(t->offset) ? t->offset.div : 0;
    if (f != 0) {
        int64_t low = (f < 0 ? -f : f) & -(f < 0 ? -f : f);
        if (low <= a / esize) a = low * esize;
    }
    return a;
}

/* CuTe DSL's forms: tensor<ptr<f32, gmem, align<16>> o L>; the align<..> clause only when
 * it says more than the element's size (tensor<ptr<f32, gmem> o L>); a swizzled tensor
 * as a composed layout, S<B,M,S> o offset o L; a coordinate tensor as its base
 * coordinate o its basis-stride layout, tensor<(0,0) o (4,8):(1@0,1@1)>. */
int cute_tensor_str(cute_ctx *c, cute_tensor t, char *buf, size_t n)
{
    (void)c;
    char lay[2048];
    cute_layout_str(&t.layout, lay, sizeof lay);
    if (t.kind == CUTE_TENSOR_COORD) {
        char crd[512];
        cute_tuple_str(&t.coord, crd, sizeof crd);
        return snprintf(buf, n, "tensor<%s o %s>", crd, lay);
    }
    static const char *space[] = {"gmem", "smem", "rmem"};
    cute_dtype d = (cute_dtype)t.dtype;
    char align[32] = "";
    if (t.sw.B > 0) { /* the swizzle acts on the whole offset: the iterator is the base */
        if (t.align > cute_dtype_bytes(d)) snprintf(align, sizeof align, ", align<%d>", t.align);
        char off[128];
        cute_int_str(t.offset, off, sizeof off);
        return snprintf(buf, n, "tensor<ptr<%s, %s%s> o S<%d,%d,%d> o %s o %s>", cute_dtype_name(d),
                        space[t.kind], align, t.sw.B, t.sw.M, t.sw.S, off, lay);
    }
    int64_t a = iterator_align(&t);
    if (a > cute_dtype_bytes(d)) snprintf(align, sizeof align, ", align<%lld>", (long long)a);
    return snprintf(buf, n, "tensor<ptr<%s, %s%s> o %s>", cute_dtype_name(d), space[t.kind], align, lay);
}

cute_tensor cute_make_rmem_tensor_like(cute_ctx *c, cute_tensor t, cute_dtype d)
{
    if (!ctx_ok(c)) return bad_tensor();
    if (d == CUTE_VOID) d = t.kind == CUTE_TENSOR_COORD ? CUTE_I64 : (cute_dtype)t.dtype;
    if (d == CUTE_PTR) {
        cute_ctx_fail(c, "cute_make_rmem_tensor_like: no register tensor of pointers");
        return bad_tensor();
    }
    cute_layout L = cute_make_layout(&c->alg, t.layout.shape);
    if (!c->alg.failed && !cute_tuple_is_static(&L.shape)) {
        cute_ctx_fail(c, "cute_make_rmem_tensor_like needs a static shape");
        return bad_tensor();
    }
    return cute_make_rmem_tensor(c, d, L);
}

cute_tensor cute_tensor_domain_offset(cute_ctx *c, cute_tensor t, cute_tuple crd)
{
    if (!ctx_alive(c)) return bad_tensor();
    if (cute_tuple_has_underscore(&crd)) {
        cute_ctx_fail(c, "cute_tensor_domain_offset: a coordinate, not a slice ('_' in it)");
        return bad_tensor();
    }
    cute_tuple off = cute_layout_offset(&c->alg, &t.layout, &crd);
    return tensor_moved(c, t, t.layout, off);
}

/* log2 of a power of two, else -1 */
static int log2_exact(int64_t x)
{
    int k = 0;
    while (x > 1 && !(x & 1)) x >>= 1, k++;
    return x == 1 ? k : -1;
}

/* x old elements as new ones: x * old / new, which must divide when the new are wider */
static cute_int rescale(cute_ctx *c, cute_int x, int old_bits, int new_bits)
{
    if (new_bits <= old_bits) return cute_mul(&c->alg, x, cute_i(old_bits / new_bits));
    cute_int r = cute_i(new_bits / old_bits);
    if (cute_int_cmp(&c->alg, CUTE_CMP_DIVIDES, r, x) != CUTE_TRUE) {
        char s[128];
        cute_int_str(x, s, sizeof s);
        cute_ctx_fail(c, "cute_tensor_recast: the offset %s is not provably a multiple of %lld "
                         "(the new elements are %d times wider)", s, (long long)r.v, (int)r.v);
        return cute_i(0);
    }
    return cute_div(&c->alg, x, r);
}

cute_tensor cute_tensor_recast(cute_ctx *c, cute_tensor t, cute_dtype d)
{
    if (!ctx_alive(c)) return bad_tensor();
    cute_dtype old = (cute_dtype)t.dtype;
    int ob = cute_dtype_bits(old), nb = cute_dtype_bits(d);
    if (t.kind == CUTE_TENSOR_COORD || d == CUTE_VOID || d == CUTE_PTR || d == CUTE_I1 || old == CUTE_I1) {
        cute_ctx_fail(c, "cute_tensor_recast: %s to %s", t.kind == CUTE_TENSOR_COORD ? "a coordinate tensor"
                                                                               : cute_dtype_name(old),
                      cute_dtype_name(d));
        return bad_tensor();
    }
    if (t.kind == CUTE_TENSOR_RMEM) { /* the registers keep their type; accesses bitcast */
        if (ob != nb) {
            cute_ctx_fail(c, "cute_tensor_recast: registers of %s cannot be recast to %s (only to a "
                             "type of the same width)", cute_dtype_name(old), cute_dtype_name(d));
            return bad_tensor();
        }
        t.dtype = (uint8_t)d;
        return t;
    }
    if (t.align < cute_dtype_bytes(d)) {
        cute_ctx_fail(c, "cute_tensor_recast: the pointer is proven %d-byte aligned, %s needs %d",
                      t.align, cute_dtype_name(d), cute_dtype_bytes(d));
        return bad_tensor();
    }
    if (t.sw.B > 0) { /* the swizzle's fields move with the element size */
        int k = log2_exact(ob > nb ? ob / nb : nb / ob);
        int M = ob > nb ? t.sw.M + k : t.sw.M - k;
        if (k < 0 || M < 0) {
            cute_ctx_fail(c, "cute_tensor_recast: swizzle Sw<%d,%d,%d> of %s has no form in %s",
                          t.sw.B, t.sw.M, t.sw.S, cute_dtype_name(old), cute_dtype_name(d));
            return bad_tensor();
        }
        t.sw.M = M;
    }
    cute_layout L = cute_recast(&c->alg, &t.layout, ob, nb);
    cute_int off = rescale(c, t.offset, ob, nb);
    if (c->alg.failed) return bad_tensor();
    cute_type pt = cute_type_ptr(d, (cute_space)t.base.t.space);
    if (t.base.r) /* in a kernel: the same address, retyped */
        t.base = ctx_val(c, cute_ir_op(&c->b, CUTE_OP_BITCAST, pt, t.base.r, 0, 0));
    else
        t.base.t = pt; /* a host tensor: the kernel parameter takes the new type */
    t.dtype = (uint8_t)d;
    t.layout = L;
    t.offset = off;
    return t;
}
