/* Tensor maps retargeted on the device (grouped GEMM, CUTLASS's tensormaps_perform_update):
 * one thread copies a map parameter into 128 bytes of global memory, points the copy at
 * another tensor of the atom's shape (tensormap.replace of its address, extents and byte
 * strides), and fences it for the tensormap proxy (release by the writer, acquire by the
 * thread that issues TMA through it).  Only what varies between tensors of one kind is
 * replaced: dtype, box, swizzle and fill stay the parameter's. */
#include <stdio.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/inst.h"
#include "cutec/tma_copy.h"
#include "trace/ctx_internal.h"

static bool global_map(cute_ctx *c, cute_val gmap, const char *what)
{
    if (!ctx_ok(c)) return false;
    if (gmap.t.dtype == CUTE_PTR && gmap.t.space == CUTE_GMEM) return true;
    return cute_ctx_fail(c, "%s: the map's copy must be a global pointer (ptr<T,gmem>) to its 128 bytes", what);
}

void cute_tma_map_copy(cute_ctx *c, cute_val map, cute_val gmap)
{
    if (!global_map(c, gmap, "cute_tma_map_copy")) return;
    if (map.t.dtype != CUTE_TMAP) {
        cute_ctx_fail(c, "cute_tma_map_copy: the source is not a tensor map parameter");
        return;
    }
    cute_type u64 = cute_type_of(CUTE_U64);
    cute_vreg words = cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_ptr(CUTE_U64, CUTE_GMEM), gmap.r, 0, 0);
    for (int i = 0; i < CUTE_TMA_MAP_BYTES / 16; i++) {
        cute_vreg w[2] = {cute_ir_new_vreg(c->fn, u64, NULL, false), cute_ir_new_vreg(c->fn, u64, NULL, false)};
        cute_ir_inst_op(&c->b, CUTE_INST_TMAP_LOAD_WORDS, w, 2, &map.r, 1, 16 * i);
        for (int j = 0; j < 2; j++) {
            cute_vreg at = cute_ir_const_int(&c->b, CUTE_I64, 2 * i + j);
            cute_vreg p = cute_ir_op(&c->b, CUTE_OP_PTR_ADD, cute_type_ptr(CUTE_U64, CUTE_GMEM), words, at, 0);
            cute_ir_op_void(&c->b, CUTE_OP_STORE, u64, p, w[j], 0, 8);
        }
    }
}

void cute_tma_map_retarget(cute_ctx *c, const cute_tma_atom *a, cute_val gmap, cute_tensor t)
{
    if (!global_map(c, gmap, "cute_tma_map_retarget")) return;
    if (t.dtype != a->dtype || t.layout.shape.nleaves != a->modes) {
        cute_ctx_fail(c, "cute_tma_map_retarget: a %s tensor of %d modes for an atom of %s with %d",
                      cute_dtype_name(t.dtype), t.layout.shape.nleaves, cute_dtype_name(a->dtype), a->modes);
        return;
    }
    cute_val base = cute_val_bitcast(c, cute_tensor_ptr(c, t, cute_i(0)), cute_type_of(CUTE_U64));
    cute_ir_inst_op(&c->b, CUTE_INST_TENSORMAP_REPLACE_ADDRESS, NULL, 0, (cute_vreg[]){gmap.r, base.r}, 2, 0);
    int64_t es = cute_dtype_bytes(a->dtype);
    for (int j = 0; j < a->spec.rank; j++) {
        int m = a->spec.mode[j];
        cute_val dim = cute_int_value(c, t.layout.shape.leaf[m], CUTE_U32);
        cute_ir_inst_op(&c->b, CUTE_INST_TENSORMAP_REPLACE_DIM, NULL, 0, (cute_vreg[]){gmap.r, dim.r}, 2, j);
        if (j == 0) continue; /* dimension 0's stride is the element's size */
        cute_int bytes = cute_mul(&c->alg, t.layout.stride.leaf[m], cute_i(es));
        cute_val stride = cute_int_value(c, bytes, CUTE_U64);
        cute_ir_inst_op(&c->b, CUTE_INST_TENSORMAP_REPLACE_STRIDE, NULL, 0, (cute_vreg[]){gmap.r, stride.r}, 2, j - 1);
    }
}

void cute_tma_map_fence_release(cute_ctx *c)
{
    if (ctx_ok(c)) cute_ir_inst_op(&c->b, CUTE_INST_FENCE_PROXY_TENSORMAP_RELEASE, NULL, 0, NULL, 0, 0);
}

void cute_tma_map_fence_acquire(cute_ctx *c, cute_val gmap)
{
    if (global_map(c, gmap, "cute_tma_map_fence_acquire"))
        cute_ir_inst_op(&c->b, CUTE_INST_FENCE_PROXY_TENSORMAP_ACQUIRE, NULL, 0, &gmap.r, 1, 0);
}
