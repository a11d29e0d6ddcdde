/* Predicated loads: an IF whose body only loads one scalar from global memory into a
 * mutable register (how a tensor's elements are read under a predicate: C under beta in
 * every GEMM epilogue) becomes one `@p ld.global` asm statement.  As a C `if`, each is a
 * basic block of its own that ends in a merge of the register (a phi); NVVM's optimizer
 * takes time more than linear in those (the step-5 GEMM's 128 of them cost a third of its
 * NVVM time: docs/compile_time.md), and ptxas predicates the load in the end anyway.
 * What the body computes before the load (its address: arithmetic that cannot fault) is
 * computed before the asm.  The register keeps its value when the predicate is false ("+"
 * operand), as the IF did; "memory": no other access moves across it, as none moved across
 * the IF.  Stores are left as they are: an IF around a store merges nothing, and NVVM
 * measured no faster with them as asm. */
#include <string.h>

#include "cuda_c_internal.h"

/* a scalar of 16, 32 or 64 bits in global memory through pointer p */
static bool global_scalar(const cc_fn *e, cute_vreg p, cute_type t, int64_t align)
{
    cute_type pt = cute_ir_type(e->f, p);
    int bits = cute_dtype_bits((cute_dtype)t.dtype);
    return pt.dtype == CUTE_PTR && pt.space == CUTE_GMEM && t.lanes == 1 &&
           (bits == 16 || bits == 32 || bits == 64) && !cute_dtype_is_narrow_float((cute_dtype)t.dtype) &&
           align >= bits / 8;
}

/* "x = LOAD p; m = MOV x" at b[at], the end of b, with x used only there: the LOAD, else NULL */
static const cute_ir_inst *load_at(const cc_fn *e, const cute_ir_block *b, uint32_t at)
{
    if (at + 2 != b->n) return NULL;
    const cute_ir_inst *ld = &b->inst[at], *mv = &b->inst[at + 1];
    if (ld->op != CUTE_OP_LOAD || mv->op != CUTE_OP_MOV || mv->a[0] != ld->dst) return NULL;
    if (!cc_fold_uses_one(e, ld->dst) || !e->f->vregs[mv->dst].mutable_) return NULL;
    bool same = cute_type_eq(ld->type, cute_ir_type(e->f, mv->dst));
    return same && global_scalar(e, ld->a[0], ld->type, ld->imm) ? ld : NULL;
}

/* arithmetic that cannot fault, on registers that keep their values: safe to compute
 * whether or not the predicate holds (the address of the access, mostly) */
static bool harmless(const cc_fn *e, const cute_ir_inst *in)
{
    switch ((cute_op)in->op) {
    case CUTE_OP_CONST:
    case CUTE_OP_PTR_ADD:
    case CUTE_OP_ADD:
    case CUTE_OP_SUB:
    case CUTE_OP_MUL:
    case CUTE_OP_AND:
    case CUTE_OP_OR:
    case CUTE_OP_XOR:
        break;
    default:
        return false;
    }
    return in->dst && !e->f->vregs[in->dst].mutable_ && cute_ir_type(e->f, in->dst).lanes == 1;
}

int cc_pred_at(const cc_fn *e, const cute_ir_inst *in)
{
    const cute_ir_block *b = in->body[0];
    if (in->op != CUTE_OP_IF || (in->body[1] && in->body[1]->n) || !b || !b->n) return -1;
    uint32_t at = 0;
    while (at < b->n && harmless(e, &b->inst[at])) at++;
    return at < b->n && load_at(e, b, at) ? (int)at : -1;
}

bool cc_pred_access(cc_fn *e, const cute_ir_inst *in, int at)
{
    const cute_ir_block *b = in->body[0];
    const cute_ir_inst *ld = &b->inst[at];
    char text[96];
    snprintf(text, sizeof text, "{ .reg .pred p; setp.ne.b32 p, %%1, 0; @p ld.global.b%d %%0, [%%2]; }",
             cute_dtype_bits((cute_dtype)ld->type.dtype));
    cute_vreg var[3] = {b->inst[at + 1].dst, in->a[0], ld->a[0]};
    cc_asm_dir dir[3] = {CC_ASM_INOUT, CC_ASM_IN, CC_ASM_IN};
    return cc_asm(e, text, var, dir, NULL, 3, true);
}
