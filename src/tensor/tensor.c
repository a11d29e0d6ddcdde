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

cute_tensor cute_make_tensor(cute_ctx *c, cute_val ptr, cute_layout layout, int align_bytes)
{
    if (!ctx_ok(c)) return bad_tensor();
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

cute_tensor cute_make_rmem_tensor(cute_ctx *c, cute_dtype d, cute_layout layout)
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
    cute_tensor t = bad_tensor();
    t.kind = CUTE_TENSOR_RMEM;
    t.dtype = (uint8_t)d;
    t.offset = cute_i(0);
    t.layout = layout;
    t.regs = cute_ir_alloc(c->fn, (size_t)(cos.v ? cos.v : 1) * sizeof(cute_vreg));
    if (!t.regs) {
        cute_ctx_fail(c, "out of memory");
        return bad_tensor();
    }
    for (int64_t i = 0; i < cos.v; i++)
        t.regs[i] = cute_ir_new_vreg(c->fn, cute_type_of(d), "f", true);
    return t;
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

int cute_tensor_str(cute_ctx *c, cute_tensor t, char *buf, size_t n)
{
    (void)c;
    char lay[2048];
    cute_layout_str(&t.layout, lay, sizeof lay);
    switch (t.kind) {
    case CUTE_TENSOR_GMEM:
    case CUTE_TENSOR_SMEM:
        return snprintf(buf, n, "tensor<ptr<%s, %s, align<%d>> o %s>", cute_dtype_name((cute_dtype)t.dtype),
                        t.kind == CUTE_TENSOR_SMEM ? "smem" : "gmem", t.align, lay);
    case CUTE_TENSOR_RMEM:
        return snprintf(buf, n, "tensor<ptr<%s, rmem, align<%d>> o %s>",
                        cute_dtype_name((cute_dtype)t.dtype), cute_dtype_bytes((cute_dtype)t.dtype), lay);
    default: {
        char crd[512];
        cute_tuple_str(&t.coord, crd, sizeof crd);
        return snprintf(buf, n, "tensor<%s o %s>", crd, lay);
    }
    }
}
