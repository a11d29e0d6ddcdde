/* MMA atoms as table rows, and the emitter of the universal FMA atom.  The SM80 mma.sync
 * and SM90 wgmma atoms are rows of the same table with their own emitters. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/mma.h"
#include "cutec/notation.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

/* value 0 of a rank-1 register tensor */
static cute_vreg val0(cute_ctx *c, cute_tensor t)
{
    if (t.kind != CUTE_TENSOR_RMEM || !cute_is_static(t.offset)) {
        cute_ctx_fail(c, "UniversalFMA: operands are register fragments");
        return 0;
    }
    return tensor_rmem_get(c, &t, 0);
}

static void universal_fma_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A,
                               cute_tensor B, cute_tensor C)
{
    cute_vreg a = val0(c, A), b = val0(c, B), acc = val0(c, C);
    if (c->alg.failed || D.kind != CUTE_TENSOR_RMEM) return;
    cute_type ty = cute_type_of((cute_dtype)atom->c_type);
    if (atom->a_type != atom->c_type) a = cute_ir_op(&c->b, CUTE_OP_CVT, ty, a, 0, 0);
    if (atom->b_type != atom->c_type) b = cute_ir_op(&c->b, CUTE_OP_CVT, ty, b, 0, 0);
    tensor_rmem_set(c, &D, 0, cute_ir_op(&c->b, CUTE_OP_FMA, ty, a, b, acc));
}

cute_mma_atom cute_mma_atom_universal_mixed(cute_alg *c, cute_dtype ab, cute_dtype acc)
{
    cute_mma_atom a;
    memset(&a, 0, sizeof a);
    bool ok = (ab == CUTE_F32 || ab == CUTE_F64 || ab == CUTE_F16 || ab == CUTE_BF16) &&
              (acc == ab || (acc == CUTE_F32 && (ab == CUTE_F16 || ab == CUTE_BF16)));
    if (!ok)
        cute_alg_fail(c, "mma atom: UniversalFMA of %s inputs into %s (f32, f64, or f16/bf16 into f32)",
                      cute_dtype_name(ab), cute_dtype_name(acc));
    static const char *const names[] = {"UniversalFMA<f32>", "UniversalFMA<f64>", "UniversalFMA<f16,f16,f32>",
                                        "UniversalFMA<bf16,bf16,f32>"};
    a.name = names[ab == CUTE_F64 ? 1 : ab == CUTE_F16 ? 2 : ab == CUTE_BF16 ? 3 : 0];
    a.a_type = a.b_type = (uint8_t)ab;
    a.c_type = (uint8_t)acc;
    a.m = a.n = a.k = 1;
    a.thr_id = cute_layout_parse(c, "1:0");
    a.a_tv = a.b_tv = a.c_tv = cute_layout_parse(c, "(1,1):(0,0)");
    a.emit = universal_fma_emit;
    return a;
}

cute_mma_atom cute_mma_atom_universal(cute_alg *c, cute_dtype d)
{
    return cute_mma_atom_universal_mixed(c, d, d);
}
