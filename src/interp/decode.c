/* compile: verify a kernel's IR and decode it into a flat array of instructions, operands
 * resolved to register slots, control flow as nested index ranges, constants hoisted (they
 * are filled once per launch).  The program owns copies of every string it needs, so the
 * IR may be freed after compile. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

typedef struct decoder {
    const cute_ir_func *f;
    iprog *P;
    char *log;
    size_t n;
    bool failed;
    const char *last_file, *last_copy; /* call sites repeat: copy each once */
} decoder;

static bool fail(decoder *D, const cute_ir_inst *in, const char *fmt, ...)
{
    if (D->failed) return false;
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (in && in->file)
        snprintf(D->log, D->n, "%s:%d: %s", in->file, in->line, msg);
    else
        snprintf(D->log, D->n, "%s: %s", D->f->name ? D->f->name : "kernel", msg);
    D->failed = true;
    return false;
}

static void *own(decoder *D, size_t bytes)
{
    iprog *P = D->P;
    if (P->nowned == P->cowned) {
        uint32_t nc = P->cowned ? P->cowned * 2 : 16;
        void **o = realloc(P->owned, nc * sizeof *o);
        if (!o) return NULL;
        P->owned = o;
        P->cowned = nc;
    }
    void *p = calloc(1, bytes ? bytes : 1);
    if (p) P->owned[P->nowned++] = p;
    return p;
}

static const char *own_str(decoder *D, const char *s)
{
    if (!s) return NULL;
    char *p = own(D, strlen(s) + 1);
    if (p) strcpy(p, s);
    return p;
}

static const char *own_file(decoder *D, const char *file)
{
    if (!file) return NULL;
    if (file != D->last_file) {
        D->last_file = file;
        D->last_copy = own_str(D, file);
    }
    return D->last_copy;
}

static int emit(decoder *D, const cute_ir_inst *in, int kind)
{
    iprog *P = D->P;
    if (P->ncode == P->cap) {
        uint32_t nc = P->cap ? P->cap * 2 : 64;
        dinst *c = realloc(P->code, nc * sizeof *c);
        if (!c) return fail(D, in, "out of memory"), -1;
        P->code = c;
        P->cap = nc;
    }
    dinst *d = &P->code[P->ncode];
    memset(d, 0, sizeof *d);
    d->kind = (uint8_t)kind;
    d->op = (uint8_t)in->op;
    d->file = own_file(D, in->file);
    d->line = in->line;
    return (int)P->ncode++;
}

static cute_type T(decoder *D, cute_vreg r) { return D->f->vregs[r].type; }
static uint32_t S(decoder *D, cute_vreg r) { return r ? D->P->slot_of[r] : 0; }

static bool hoist_const(decoder *D, const cute_ir_inst *in)
{
    iprog *P = D->P;
    if (P->nconsts == P->cconsts) {
        uint32_t nc = P->cconsts ? P->cconsts * 2 : 32;
        iconst *c = realloc(P->consts, nc * sizeof *c);
        if (!c) return fail(D, in, "out of memory");
        P->consts = c;
        P->cconsts = nc;
    }
    iconst *c = &P->consts[P->nconsts++];
    c->slot = S(D, in->dst);
    c->lanes = in->type.lanes ? in->type.lanes : 1;
    interp_store_const(&c->v, in->type.dtype, in->imm);
    return true;
}

static bool operands(decoder *D, dinst *d, const cute_ir_inst *in)
{
    d->nvar = in->nvar;
    if (!in->nvar) return true;
    d->var = own(D, in->nvar * sizeof *d->var);
    d->vtype = own(D, in->nvar * sizeof *d->vtype);
    d->vvar = own(D, in->nvar * sizeof *d->vvar);
    if (!d->var || !d->vtype || !d->vvar) return fail(D, in, "out of memory");
    for (uint32_t k = 0; k < in->nvar; k++) {
        d->var[k] = S(D, in->var[k]);
        d->vtype[k] = T(D, in->var[k]);
        d->vvar[k] = in->var[k];
    }
    return true;
}

/* INST: the row's emulation, operands as slots (outputs first) */
static bool decode_inst(decoder *D, dinst *d, const cute_ir_inst *in)
{
    d->imm = in->imm;
    d->imm2 = in->imm2;
    d->flags = in->flags;
    if (!operands(D, d, in)) return false;
    d->row = interp_inst_row(in->imm2);
    const cute_inst_info *I = cute_inst_info_of((cute_inst)in->imm2);
    if (!d->row) return fail(D, in, "not supported in the interpreter: %s", I ? I->mnemonic : "?");
    d->fn = d->row->fn;
    if (I->flags & (CUTE_INST_BARRIER | CUTE_INST_MBAR_WAIT)) D->P->needs_warps = true;
    return true;
}

/* what a plain op needs: types, slots, sizes, and the function that runs it */
static bool decode_op(decoder *D, dinst *d, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    int nargs = cute_op_nargs(op);
    d->dt = in->type.dtype;
    d->lanes = in->type.lanes ? in->type.lanes : 1;
    d->flags = in->flags;
    d->imm = in->imm;
    d->imm2 = in->imm2;
    d->vd = in->dst;
    d->d = S(D, in->dst);
    for (int k = 0; k < nargs && k < 3; k++) {
        d->va[k] = in->a[k];
        d->a[k] = S(D, in->a[k]);
    }
    if (nargs >= 1 && in->a[0]) {
        cute_type s = T(D, in->a[0]);
        d->sdt = s.dtype;
        d->slanes = s.lanes ? s.lanes : 1;
        if (s.dtype == CUTE_PTR) {
            d->space = s.space;
            d->esize = cute_dtype_bytes((cute_dtype)s.pointee);
        }
    }
    if (op == CUTE_OP_STORE) { /* the stored value's type */
        cute_type v = T(D, in->a[1]);
        d->dt = v.dtype;
        d->lanes = v.lanes ? v.lanes : 1;
    }
    if (op == CUTE_OP_PTR_ADD) d->imm2 = T(D, in->a[1]).dtype;
    const char *why = "this op";
    switch (cute_op_group_of(op)) { /* the op's group (ir_ops.def) picks the file that runs it */
    case CUTE_GROUP_MOVE: case CUTE_GROUP_SPECIAL: case CUTE_GROUP_ADDRESS:
        d->fn = interp_pick_misc(d, &why);
        break;
    case CUTE_GROUP_PRINT:
        if (!operands(D, d, in)) return false;
        d->str = own_str(D, in->str);
        D->P->has_printf = true;
        d->fn = interp_pick_misc(d, &why);
        break;
    case CUTE_GROUP_INST:
        return decode_inst(D, d, in);
    case CUTE_GROUP_ASM:
        return fail(D, in, "not supported in the interpreter: inline PTX `%s` (the interpreter "
                    "runs the instructions of the table, cutec/inst.h, not PTX text)", in->str);
    case CUTE_GROUP_CONVERT: d->fn = interp_pick_convert(d, &why); break;
    case CUTE_GROUP_MEMORY: d->fn = interp_pick_mem(d, &why); break;
    case CUTE_GROUP_WARP: d->fn = interp_pick_warp(d, &why); break;
    default: d->fn = interp_pick_arith(d, &why); break;
    }
    if (!d->fn) {
        char t[64];
        cute_type_str(in->type, t, sizeof t);
        return fail(D, in, "not supported in the interpreter: %s of %s (%s)", cute_op_name(op),
                    d->op == CUTE_OP_STORE ? cute_dtype_name((cute_dtype)d->dt) : t, why);
    }
    return true;
}

static bool decode_block(decoder *D, const cute_ir_block *b, int depth);

static bool body(decoder *D, const cute_ir_block *b, int depth)
{
    return !b || decode_block(D, b, depth);
}

static bool decode_control(decoder *D, const cute_ir_inst *in, int depth)
{
    cute_op op = (cute_op)in->op;
    int kind = op == CUTE_OP_FOR ? K_FOR : op == CUTE_OP_IF ? K_IF : K_WHILE;
    int i = emit(D, in, kind);
    if (i < 0) return false;
    if (depth + 1 > D->P->maxdepth) D->P->maxdepth = depth + 1;
    if (op == CUTE_OP_WHILE) D->P->needs_warps = true; /* it may wait for another warp */
    dinst *d = &D->P->code[i];
    d->depth = (uint8_t)depth;
    d->imm = in->imm;
    d->imm2 = in->imm2;
    if (op == CUTE_OP_FOR) {
        d->dt = T(D, in->a[0]).dtype;
        for (int k = 0; k < 3; k++) d->a[k] = S(D, in->a[k]), d->va[k] = in->a[k];
    } else if (op == CUTE_OP_IF) {
        d->a[0] = S(D, in->a[0]);
        d->va[0] = in->a[0];
    } else {
        d->a[0] = S(D, in->var[0]);
        d->va[0] = in->var[0];
    }
    if (!body(D, in->body[0], depth + 1)) return false;
    D->P->code[i].mid = D->P->ncode;
    if (op != CUTE_OP_FOR && !body(D, in->body[1], depth + 1)) return false;
    D->P->code[i].end = D->P->ncode;
    return true;
}

static bool decode_block(decoder *D, const cute_ir_block *b, int depth)
{
    for (uint32_t k = 0; k < b->n && !D->failed; k++) {
        const cute_ir_inst *in = &b->inst[k];
        cute_op op = (cute_op)in->op;
        cute_op_group g = cute_op_group_of(op);
        if (op == CUTE_OP_CONST && !D->f->vregs[in->dst].mutable_) {
            if (!hoist_const(D, in)) return false;
        } else if (g == CUTE_GROUP_CONTROL && op != CUTE_OP_BREAK && op != CUTE_OP_RETURN) {
            if (!decode_control(D, in, depth)) return false;
        } else if (g == CUTE_GROUP_CONTROL || g == CUTE_GROUP_SYNC) {
            int kind = g == CUTE_GROUP_SYNC ? K_BARRIER : op == CUTE_OP_BREAK ? K_BREAK : K_RETURN;
            if (emit(D, in, kind) < 0) return false;
        } else {
            int i = emit(D, in, K_OP);
            if (i < 0 || !decode_op(D, &D->P->code[i], in)) return false;
        }
    }
    return !D->failed;
}

static bool layout_registers(decoder *D)
{
    const cute_ir_func *f = D->f;
    iprog *P = D->P;
    P->nvregs = f->nvregs;
    P->slot_of = calloc(f->nvregs, sizeof *P->slot_of);
    P->vtype = calloc(f->nvregs, sizeof *P->vtype);
    P->vname = calloc(f->nvregs, sizeof *P->vname);
    P->params = calloc(f->nparams + 1, sizeof *P->params);
    if (!P->slot_of || !P->vtype || !P->vname || !P->params) return fail(D, NULL, "out of memory");
    uint64_t slots = 1; /* slot 0: "no register" */
    for (uint32_t v = 1; v < f->nvregs; v++) {
        cute_type t = f->vregs[v].type;
        P->slot_of[v] = (uint32_t)slots;
        P->vtype[v] = t;
        P->vname[v] = (char *)own_str(D, f->vregs[v].name);
        slots += t.lanes ? t.lanes : 1;
    }
    if (slots > UINT32_MAX / 2) return fail(D, NULL, "too many registers");
    P->nslots = (uint32_t)slots;
    P->nparams = f->nparams;
    if (f->nparams) memcpy(P->params, f->params, f->nparams * sizeof *P->params);
    return true;
}

cute_status interp_compile_one(const cute_ir_func *f, iprog **out, char *log, size_t n)
{
    *out = NULL;
    if (cute_ir_verify(f, log, n) != 0) return CUTE_ERR_COMPILE;
    iprog *P = calloc(1, sizeof *P);
    if (!P) return CUTE_ERR_OOM;
    decoder D = {f, P, log, n, false, NULL, NULL};
    P->name = (char *)own_str(&D, f->name ? f->name : "kernel");
    P->smem_bytes = f->smem_bytes;
    P->reaches_buffers = f->reaches_buffers;
    if (layout_registers(&D)) decode_block(&D, &f->body, 0);
    if (D.failed) {
        bool oom = strstr(log, "out of memory") != NULL;
        interp_prog_free(P);
        return oom ? CUTE_ERR_OOM : CUTE_ERR_UNSUPPORTED;
    }
    *out = P;
    return CUTE_OK;
}

void interp_prog_free(iprog *P)
{
    if (!P) return;
    for (uint32_t i = 0; i < P->nowned; i++) free(P->owned[i]);
    free(P->owned);
    free(P->code);
    free(P->consts);
    free(P->slot_of);
    free(P->vtype);
    free(P->vname);
    free(P->params);
    free(P);
}
