/* The verifier: every register defined before use (definitions inside a body do not
 * escape it, except assignments to mutable registers defined outside), types as the op
 * table's class says, control flow well nested. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/ir.h"
#include "ir/ir_internal.h"

typedef enum { SAME, CMP, UNARY, MATH, CAST, NONE, SPEC, OTHER } op_class;

static const op_class classes[CUTE_OP_COUNT] = {
#define X(name, nargs, cls, group, meaning) [CUTE_OP_##name] = cls,
#include "cutec/ir_ops.def"
#undef X
};

typedef struct verifier {
    const cute_ir_func *f;
    uint8_t *defined; /* per register */
    int loops;        /* open FOR/WHILE bodies (for BREAK) */
    char *err;
    size_t n;
    bool failed;
} verifier;

static bool fail(verifier *v, const cute_ir_inst *in, const char *fmt, ...)
{
    if (v->failed) return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ir_verify_message(v->err, v->n, v->f, in, msg);
    v->failed = true;
    return false;
}

void ir_verify_message(char *err, size_t n, const cute_ir_func *f, const cute_ir_inst *in, const char *msg)
{
    snprintf(err, n, "verify %s: %s:%d: %s: %s", f->name, in && in->file ? in->file : "?", in ? in->line : 0,
             in ? cute_op_name((cute_op)in->op) : "function", msg);
}

static bool reg_ok(verifier *v, const cute_ir_inst *in, cute_vreg r, const char *what)
{
    if (r == 0 || r >= v->f->nvregs) return fail(v, in, "%s: no such register %%%u", what, r);
    if (!v->defined[r]) return fail(v, in, "%s: %%%u used before it is defined", what, r);
    return true;
}

static cute_type T(verifier *v, cute_vreg r) { return v->f->vregs[r].type; }

static bool numeric(cute_type t)
{
    return t.dtype != CUTE_VOID && t.dtype != CUTE_PTR && t.dtype != CUTE_TMAP;
}

/* a type arithmetic runs in: the narrow floats are only moved and converted */
static bool computable(cute_type t) { return numeric(t) && !cute_dtype_is_narrow_float(t.dtype); }

static bool same_type(verifier *v, const cute_ir_inst *in, cute_vreg r, cute_type want,
                      const char *what)
{
    if (cute_type_eq(T(v, r), want)) return true;
    char a[64], b[64];
    cute_type_str(T(v, r), a, sizeof a);
    cute_type_str(want, b, sizeof b);
    return fail(v, in, "%s has type %s, expected %s", what, a, b);
}

static bool define(verifier *v, const cute_ir_inst *in, cute_vreg r)
{
    if (r == 0 || r >= v->f->nvregs) return fail(v, in, "result: no such register %%%u", r);
    const cute_ir_vreg_info *info = &v->f->vregs[r];
    if (v->defined[r] && !info->mutable_)
        return fail(v, in, "%%%u is defined twice and is not mutable", r);
    if (info->param) return fail(v, in, "%%%u is a parameter and cannot be assigned", r);
    v->defined[r] = 1;
    return true;
}

static bool check_block(verifier *v, const cute_ir_block *b);

/* a body sees what is defined now; what it defines is forgotten after it, except
 * mutable registers already defined before (assignments to them stay visible) */
static bool check_body(verifier *v, const cute_ir_block *b, cute_vreg loop_var)
{
    uint8_t *saved = malloc(v->f->nvregs);
    if (!saved) return fail(v, NULL, "out of memory");
    memcpy(saved, v->defined, v->f->nvregs);
    if (loop_var) v->defined[loop_var] = 1;
    bool ok = !b || check_block(v, b);
    memcpy(v->defined, saved, v->f->nvregs);
    free(saved);
    return ok;
}

/* elements narrower than a byte (e2m1) have no address of their own: memory holds them
 * packed, and kernels move them as bytes (a pointer to u8) and BITCAST the bytes */
static bool packed_pointee(verifier *v, const cute_ir_inst *in, cute_type p)
{
    if (p.dtype != CUTE_PTR || !cute_dtype_is_packed(p.pointee)) return false;
    return !fail(v, in, "addresses a %s element: sub-byte elements are accessed as whole bytes "
                        "through a pointer to u8", cute_dtype_name(p.pointee));
}

static bool check_memory(verifier *v, const cute_ir_inst *in)
{
    cute_type p = T(v, in->a[0]);
    if (p.dtype != CUTE_PTR) return fail(v, in, "operand 0 is not a pointer");
    if (packed_pointee(v, in, p)) return false;
    cute_type val = in->op == CUTE_OP_LOAD ? in->type : T(v, in->a[1]);
    if (val.dtype != p.pointee)
        return fail(v, in, "accesses %s through a pointer to %s", cute_dtype_name(val.dtype),
                    cute_dtype_name(p.pointee));
    int64_t bytes = (int64_t)cute_dtype_bytes((cute_dtype)val.dtype) * val.lanes;
    if (bytes > 16) return fail(v, in, "a %lld-byte access (at most 16)", (long long)bytes);
    int64_t align = in->imm;
    if (align < 1 || (align & (align - 1)) || align < bytes)
        return fail(v, in, "alignment %lld must be a power of two >= the %lld bytes accessed",
                    (long long)align, (long long)bytes);
    return true;
}

/* the registers of one group of an instruction row: what the group's role and class take */
static bool check_group(verifier *v, const cute_ir_inst *in, const cute_inst_info *I,
                        const cute_inst_group *G, const cute_vreg *r)
{
    for (int k = 0; k < G->count; k++) {
        cute_type t = T(v, r[k]);
        bool ok = G->role == CUTE_IG_SADDR   ? t.dtype == CUTE_PTR && t.space == CUTE_SMEM
                  : G->role == CUTE_IG_GADDR ? t.dtype == CUTE_PTR && t.space == CUTE_GMEM
                  : G->role == CUTE_IG_TMAP  ? t.dtype == CUTE_TMAP || (t.dtype == CUTE_PTR && t.space == CUTE_GMEM)
                                             : cute_inst_class_accepts((cute_inst_class)G->cls, t);
        if (ok) continue;
        char have[64];
        cute_type_str(t, have, sizeof have);
        const char *want = G->role == CUTE_IG_SADDR   ? "a shared-memory pointer ptr<T,smem>"
                           : G->role == CUTE_IG_GADDR ? "a global pointer ptr<T,gmem>"
                           : G->role == CUTE_IG_TMAP  ? "a tensor map (tmap, or ptr<T,gmem> to one)"
                                                      : cute_inst_class_name((cute_inst_class)G->cls);
        return fail(v, in, "%s: operand %s[%d] (%%%u) is %s, the row takes %s", I->id, G->name, k,
                    r[k], have, want);
    }
    return true;
}

/* registers an instruction reads and writes (wgmma's accumulators): mutable, defined */
static bool check_inout(verifier *v, const cute_ir_inst *in, const cute_inst_info *I,
                        const cute_inst_group *G, const cute_vreg *r)
{
    for (int k = 0; k < G->count; k++) {
        if (!v->f->vregs[r[k]].mutable_)
            return fail(v, in, "%s: %s[%d] (%%%u) is read and written: it must be mutable", I->id,
                        G->name, k, r[k]);
        if (!reg_ok(v, in, r[k], "an accumulator")) return false;
    }
    return true;
}

/* an INST op against its row: counts, then each group's registers */
static bool check_inst_row(verifier *v, const cute_ir_inst *in)
{
    const cute_inst_info *I = cute_inst_info_of((cute_inst)in->imm2);
    if (!I) return fail(v, in, "no instruction row %lld", (long long)in->imm2);
    uint32_t nout = in->flags;
    if (nout > in->nvar || (int)nout != I->nout || (int)(in->nvar - nout) != I->nin)
        return fail(v, in, "%s (%s) takes %d outputs and %d inputs, got %u and %u", I->id,
                    I->mnemonic, I->nout, I->nin, nout < in->nvar ? nout : in->nvar,
                    nout < in->nvar ? in->nvar - nout : 0);
    if (!I->has_imm && (in->imm & ~(int64_t)I->imm_bits) != 0)
        return fail(v, in, "%s takes no immediate%s (got %lld)", I->id,
                    I->imm_bits ? " but its flag bits" : "", (long long)in->imm);
    if (I->has_imm && (in->imm < 0 || in->imm > INT32_MAX))
        return fail(v, in, "%s: immediate %lld out of range", I->id, (long long)in->imm);
    for (uint32_t k = nout; k < in->nvar; k++)
        if (!reg_ok(v, in, in->var[k], "an input")) return false;
    for (uint32_t k = 0; k < nout; k++)
        if (in->var[k] == 0 || in->var[k] >= v->f->nvregs)
            return fail(v, in, "output: no such register %%%u", in->var[k]);
    const cute_vreg *out = in->var, *inp = in->var + nout;
    for (int g = 0; g < I->ngroups; g++) {
        const cute_inst_group *G = &I->groups[g];
        bool written = G->role == CUTE_IG_OUT || G->role == CUTE_IG_INOUT;
        const cute_vreg **at = written ? &out : &inp;
        if (!check_group(v, in, I, G, *at)) return false;
        if (G->role == CUTE_IG_INOUT && !check_inout(v, in, I, G, *at)) return false;
        *at += G->count;
    }
    return true;
}

static bool check_other(verifier *v, const cute_ir_inst *in)
{
    cute_type t = in->type;
    switch ((cute_op)in->op) {
    case CUTE_OP_CONST: /* a narrow float's constant holds its code */
        return numeric(t) || fail(v, in, "a constant needs a numeric type");
    case CUTE_OP_SELECT:
        return same_type(v, in, in->a[0], cute_type_of(CUTE_I1), "the condition") &&
               same_type(v, in, in->a[1], t, "operand 1") && same_type(v, in, in->a[2], t, "operand 2");
    case CUTE_OP_EXTRACT: {
        cute_type vt = T(v, in->a[0]);
        if (vt.lanes <= 1 || in->imm < 0 || in->imm >= vt.lanes)
            return fail(v, in, "lane %lld of a %d-lane value", (long long)in->imm, vt.lanes);
        return same_type(v, in, in->dst, cute_type_of((cute_dtype)vt.dtype), "the result");
    }
    case CUTE_OP_INSERT: {
        cute_type vt = T(v, in->a[0]);
        if (vt.lanes <= 1 || in->imm < 0 || in->imm >= vt.lanes)
            return fail(v, in, "lane %lld of a %d-lane value", (long long)in->imm, vt.lanes);
        return same_type(v, in, in->a[1], cute_type_of((cute_dtype)vt.dtype), "the lane value") &&
               same_type(v, in, in->dst, vt, "the result");
    }
    case CUTE_OP_PTR_ADD:
        if (T(v, in->a[0]).dtype != CUTE_PTR) return fail(v, in, "operand 0 is not a pointer");
        if (packed_pointee(v, in, T(v, in->a[0]))) return false;
        if (!cute_dtype_is_int((cute_dtype)T(v, in->a[1]).dtype))
            return fail(v, in, "the offset is not an integer");
        return same_type(v, in, in->dst, T(v, in->a[0]), "the result");
    case CUTE_OP_LOAD:
        return check_memory(v, in);
    case CUTE_OP_SMEM_PTR:
        return (t.dtype == CUTE_PTR && t.space == CUTE_SMEM) ||
               fail(v, in, "the result must be a shared-memory pointer");
    case CUTE_OP_SHFL: {
        int bits = cute_dtype_bits((cute_dtype)t.dtype);
        if (t.lanes != 1 || (bits != 32 && bits != 64))
            return fail(v, in, "shuffles move 32- or 64-bit scalars");
        return same_type(v, in, in->a[0], t, "the value") &&
               same_type(v, in, in->a[1], cute_type_of(CUTE_I32), "the lane");
    }
    case CUTE_OP_VOTE:
        return same_type(v, in, in->a[0], cute_type_of(CUTE_I1), "the predicate") &&
               ((in->imm == CUTE_VOTE_BALLOT && cute_type_eq(t, cute_type_of(CUTE_U32))) ||
                (in->imm != CUTE_VOTE_BALLOT && cute_type_eq(t, cute_type_of(CUTE_I1))) ||
                fail(v, in, "any/all give i1, ballot gives u32"));
    case CUTE_OP_ATOMIC:
    case CUTE_OP_ATOMIC_CAS: {
        cute_type p = T(v, in->a[0]);
        if (p.dtype != CUTE_PTR || p.pointee != t.dtype)
            return fail(v, in, "needs a pointer to the result type");
        if (!computable(t)) return fail(v, in, "atomics need a type arithmetic runs in");
        return same_type(v, in, in->a[1], t, "operand 1") &&
               (in->op == CUTE_OP_ATOMIC || same_type(v, in, in->a[2], t, "operand 2"));
    }
    case CUTE_OP_INST:
        return check_inst_row(v, in);
    case CUTE_OP_ASM:
        if (!in->str) return fail(v, in, "no PTX text");
        if (in->imm < 0 || (uint32_t)in->imm > in->nvar || in->imm2 < 0 || in->imm2 > in->imm)
            return fail(v, in, "%lld in-outs and %lld outputs of %u operands", (long long)in->imm2,
                        (long long)(in->imm - in->imm2), in->nvar);
        for (uint32_t k = 0; k < (uint32_t)in->imm2; k++)
            if (!reg_ok(v, in, in->var[k], "an in-out operand") ||
                (!v->f->vregs[in->var[k]].mutable_ &&
                 !fail(v, in, "in-out operand %%%u is not mutable", in->var[k])))
                return false;
        return true;
    default:
        return true;
    }
}

static bool check_types(verifier *v, const cute_ir_inst *in)
{
    cute_type t = in->type;
    int nargs = cute_op_nargs((cute_op)in->op);
    switch (classes[in->op]) {
    case SAME:
        if (!computable(t)) return fail(v, in, "needs operands of a type arithmetic runs in");
        for (int k = 0; k < nargs; k++)
            if (!same_type(v, in, in->a[k], t, "an operand")) return false;
        if ((in->op == CUTE_OP_SHL || in->op == CUTE_OP_SHR) &&
            !cute_dtype_is_int((cute_dtype)t.dtype))
            return fail(v, in, "shifts need integers");
        return true;
    case UNARY:
        if (in->op != CUTE_OP_MOV && !computable(t))
            return fail(v, in, "needs an operand of a type arithmetic runs in");
        return same_type(v, in, in->a[0], t, "the operand");
    case MATH:
        if (!cute_dtype_is_float((cute_dtype)t.dtype)) return fail(v, in, "needs floats");
        for (int k = 0; k < nargs; k++)
            if (!same_type(v, in, in->a[k], t, "an operand")) return false;
        return true;
    case CMP:
        if (T(v, in->a[0]).dtype != CUTE_PTR && !computable(T(v, in->a[0]))) /* pointers compare */
            return fail(v, in, "compares a type arithmetic runs in");
        return same_type(v, in, in->dst, cute_type_of(CUTE_I1), "the result") &&
               same_type(v, in, in->a[1], T(v, in->a[0]), "operand 1");
    case CAST:
        if (in->op == CUTE_OP_BITCAST &&
            cute_dtype_bits((cute_dtype)t.dtype) * t.lanes !=
                cute_dtype_bits((cute_dtype)T(v, in->a[0]).dtype) * T(v, in->a[0]).lanes)
            return fail(v, in, "a bitcast between types of different sizes");
        if (in->op == CUTE_OP_BITCAST && (t.dtype == CUTE_E2M1) != (T(v, in->a[0]).dtype == CUTE_E2M1) &&
            t.dtype != CUTE_U8 && T(v, in->a[0]).dtype != CUTE_U8)
            return fail(v, in, "e2m1 lanes bitcast to and from u8 lanes only");
        if (in->op == CUTE_OP_CVT &&
            !cute_cvt_supported((cute_dtype)T(v, in->a[0]).dtype, (cute_dtype)t.dtype))
            return fail(v, in, "no conversion from %s to %s",
                        cute_dtype_name((cute_dtype)T(v, in->a[0]).dtype), cute_dtype_name((cute_dtype)t.dtype));
        return numeric(t) || t.dtype == CUTE_PTR || fail(v, in, "casts to a numeric type");
    case SPEC:
        return (in->imm >= 0 && in->imm < CUTE_SREG_COUNT) ||
               fail(v, in, "no special register %lld", (long long)in->imm);
    case NONE:
        if (in->op == CUTE_OP_STORE) return check_memory(v, in);
        return true;
    case OTHER:
        return check_other(v, in);
    }
    return true;
}

static bool check_inst(verifier *v, const cute_ir_inst *in)
{
    if (in->op >= CUTE_OP_COUNT) return fail(v, in, "unknown op %u", in->op);
    int nargs = cute_op_nargs((cute_op)in->op);
    cute_op op = (cute_op)in->op;
    if (op == CUTE_OP_FOR) {
        cute_vreg var = in->a[0];
        if (var == 0 || var >= v->f->nvregs) return fail(v, in, "no loop variable");
        if (!reg_ok(v, in, in->a[1], "the lower bound") || !reg_ok(v, in, in->a[2], "the bound"))
            return false;
        if (!cute_dtype_is_int((cute_dtype)T(v, var).dtype))
            return fail(v, in, "the loop variable must be an integer");
        if (!same_type(v, in, in->a[1], T(v, var), "the lower bound") ||
            !same_type(v, in, in->a[2], T(v, var), "the bound"))
            return false;
        if (in->imm2 == 0) return fail(v, in, "a step of 0");
        if (in->imm < CUTE_FOR_PEEL_FIRST)
            return fail(v, in, "unroll %lld: not 0, 1, n > 1 or CUTE_FOR_PEEL_FIRST (-1)",
                        (long long)in->imm);
        /* (the peeled copy is no loop: a BREAK there would have nothing to leave) */
        if (in->imm == CUTE_FOR_PEEL_FIRST && cute_ir_breaks(in->body[0]))
            return fail(v, in, "a FOR peeled first (CUTE_FOR_PEEL_FIRST) with a BREAK of its own");
        v->loops++;
        bool ok = check_body(v, in->body[0], var);
        v->loops--;
        return ok;
    }
    if (op == CUTE_OP_IF) {
        if (!reg_ok(v, in, in->a[0], "the condition") ||
            !same_type(v, in, in->a[0], cute_type_of(CUTE_I1), "the condition"))
            return false;
        return check_body(v, in->body[0], 0) && check_body(v, in->body[1], 0);
    }
    if (op == CUTE_OP_WHILE) {
        uint8_t *saved = malloc(v->f->nvregs);
        if (!saved) return fail(v, in, "out of memory");
        memcpy(saved, v->defined, v->f->nvregs);
        bool ok = !in->body[0] || check_block(v, in->body[0]);
        if (ok && (in->nvar != 1 || !reg_ok(v, in, in->var[0], "the condition") ||
                   !same_type(v, in, in->var[0], cute_type_of(CUTE_I1), "the condition")))
            ok = false;
        v->loops++;
        ok = ok && check_body(v, in->body[1], 0);
        v->loops--;
        memcpy(v->defined, saved, v->f->nvregs);
        free(saved);
        return ok;
    }
    if (op == CUTE_OP_BREAK && v->loops == 0) return fail(v, in, "outside a loop");
    if (nargs < 0) {
        for (uint32_t k = 0; k < in->nvar; k++)
            if (op != CUTE_OP_INST &&
                (op != CUTE_OP_ASM || k >= (uint32_t)in->imm) &&
                !reg_ok(v, in, in->var[k], "an operand"))
                return false;
        if (op == CUTE_OP_PRINTF && !in->str) return fail(v, in, "no format");
    } else {
        for (int k = 0; k < nargs; k++)
            if (!reg_ok(v, in, in->a[k], "an operand")) return false;
    }
    if (op == CUTE_OP_MOV && !v->f->vregs[in->dst].mutable_)
        return fail(v, in, "assigns %%%u, which is not mutable", in->dst);
    if (!check_types(v, in)) return false;
    if (op == CUTE_OP_ASM || op == CUTE_OP_INST) /* the outputs (ASM: in-outs stay defined) */
        for (uint32_t k = op == CUTE_OP_ASM ? (uint32_t)in->imm2 : 0;
             k < (op == CUTE_OP_ASM ? (uint32_t)in->imm : in->flags); k++)
            if (!define(v, in, in->var[k])) return false;
    if (in->dst) {
        if (!same_type(v, in, in->dst, in->type, "the result")) return false;
        if (!define(v, in, in->dst)) return false;
    }
    return true;
}

static bool check_block(verifier *v, const cute_ir_block *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (!check_inst(v, &b->inst[i])) return false;
    return true;
}

int cute_ir_verify(const cute_ir_func *f, char *err, size_t n)
{
    verifier v = {f, calloc(f->nvregs, 1), 0, err, n, false};
    if (!v.defined) {
        snprintf(err, n, "verify %s: out of memory", f->name);
        return -1;
    }
    for (uint32_t i = 0; i < f->nparams; i++) v.defined[f->params[i]] = 1;
    bool ok = check_block(&v, &f->body);
    free(v.defined);
    if (ok && n) err[0] = 0;
    return ok ? ir_verify_wgmma(f, err, n) : -1;
}
