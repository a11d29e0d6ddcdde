/* A predicated load: an IF whose body only loads one scalar from global memory into a
 * mutable register (how a tensor's elements are read under a predicate, e.g. C under beta
 * in every GEMM epilogue) becomes one `@p ld.global` asm statement.  As a C `if`, each such
 * load is a basic block of its own; NVVM's optimizer takes time more than linear in those
 * blocks (the step-5 GEMM's 128 of them cost a third of its NVVM time: docs/compile_time.md),
 * and ptxas predicates the load in the end anyway.  The register keeps its value when the
 * predicate is false ("+" operand), as the IF did.  The asm is volatile: NVVM treats it as
 * touching memory, so it stays ordered with the kernel's other accesses. */
#include <string.h>

#include "cuda_c_internal.h"

/* whether IF `in` is "if (c) { x = LOAD p; m = MOV x }" with x used only there */
static bool load_only(const cc_fn *e, const cute_ir_inst *in, cute_type *t)
{
    const cute_ir_block *b = in->body[0];
    if ((in->body[1] && in->body[1]->n) || !b || b->n != 2) return false;
    const cute_ir_inst *ld = &b->inst[0], *mv = &b->inst[1];
    if (ld->op != CUTE_OP_LOAD || mv->op != CUTE_OP_MOV || mv->a[0] != ld->dst) return false;
    if (!cc_fold_uses_one(e, ld->dst) || !e->f->vregs[mv->dst].mutable_) return false;
    cute_type p = cute_ir_type(e->f, ld->a[0]);
    *t = ld->type;
    int bits = cute_dtype_bits((cute_dtype)t->dtype);
    return p.dtype == CUTE_PTR && p.space == CUTE_GMEM && t->lanes == 1 &&
           cute_type_eq(*t, cute_ir_type(e->f, mv->dst)) && (bits == 16 || bits == 32 || bits == 64) &&
           !cute_dtype_is_narrow_float((cute_dtype)t->dtype) && ld->imm >= bits / 8;
}

bool cc_pred_load(cc_fn *e, const cute_ir_inst *in, bool *done)
{
    cute_type t;
    *done = false;
    if (!load_only(e, in, &t)) return true;
    const cute_ir_block *b = in->body[0];
    char text[96];
    snprintf(text, sizeof text, "{ .reg .pred p; setp.ne.b32 p, %%1, 0; @p ld.global.b%d %%0, [%%2]; }",
             cute_dtype_bits((cute_dtype)t.dtype));
    cute_vreg var[3] = {b->inst[1].dst, in->a[0], b->inst[0].a[0]};
    cc_asm_dir dir[3] = {CC_ASM_INOUT, CC_ASM_IN, CC_ASM_IN};
    *done = true;
    return cc_asm(e, text, var, dir, NULL, 3, false);
}
