/* The identity of run-time values: the kernel that made a value, and where each register
 * got its value (the scope and the call site of its first definition).
 *
 * Instructions are checked after they are appended: ctx_walk goes over the instructions
 * appended since its last call.  The tracer calls it whenever the open scope or the call
 * site changes, so every instruction is checked in the scope it was appended in, before
 * the next DSL call runs, and a misuse is reported at the user's line of that instruction
 * with the line that defined the value -- not later by the verifier as "internal". */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"

static const char *scope_name(int kind)
{
    switch (kind) {
    case SCOPE_FOR: return "CUTE_FOR";
    case SCOPE_IF: return "CUTE_IF";
    case SCOPE_ELSE: return "CUTE_ELSE";
    case SCOPE_WHILE_COND: return "CUTE_WHILE condition";
    case SCOPE_WHILE: return "CUTE_WHILE";
    default: return "kernel";
    }
}

bool ctx_fail_at(cute_ctx *c, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vfail_at(c, (cute_site){file, line}, fmt, ap);
    va_end(ap);
    return false;
}

/* the origin table covers every register of the kernel */
static bool grow(cute_ctx *c)
{
    uint32_t n = c->fn->nvregs;
    if (n <= c->caporig) return true;
    uint32_t cap = c->caporig ? c->caporig : 256;
    while (cap < n) cap *= 2;
    origin *o = realloc(c->orig, cap * sizeof *o);
    if (!o) return cute_ctx_fail(c, "out of memory while tracing");
    memset(o + c->caporig, 0, (cap - c->caporig) * sizeof *o);
    c->orig = o, c->caporig = cap;
    return true;
}

static void define(cute_ctx *c, cute_vreg r, const cute_ir_inst *in)
{
    if (r && r < c->caporig) c->orig[r] = (origin){c->walk.in.id, (uint8_t)c->walk.in.kind, in->file, in->line};
}

static bool live(const cute_ctx *c, cute_vreg r)
{
    if (c->fn->vregs[r].param) return true;
    return r < c->caporig && c->orig[r].scope && scope_open(c, c->orig[r].scope);
}

/* operand r of instruction in: it must have a value here */
static void use(cute_ctx *c, const cute_ir_inst *in, cute_vreg r)
{
    if (r == 0 || r >= c->fn->nvregs) {
        ctx_fail_at(c, in->file, in->line, "internal: %s reads no register (%%%u)",
                    cute_op_name((cute_op)in->op), r);
        return;
    }
    if (live(c, r)) return;
    const origin *o = &c->orig[r];
    bool var = c->fn->vregs[r].mutable_;
    if (!o->scope)
        ctx_fail_at(c, in->file, in->line,
                    "%s reads a %s that was never given a value (write a register tensor "
                    "before reading it, e.g. with cute_fill)",
                    cute_op_name((cute_op)in->op), var ? "register" : "value");
    else if (var)
        ctx_fail_at(c, in->file, in->line,
                    "a register first written at %s:%d, inside a %s body, is read here after "
                    "that body has ended (give it a value before the body, e.g. with "
                    "cute_fill or cute_val_var)",
                    o->file ? o->file : "?", o->line, scope_name(o->kind));
    else
        ctx_fail_at(c, in->file, in->line,
                    "a value defined at %s:%d, inside a %s body, is used here after that body "
                    "has ended (a value made in a body lives only there: to carry it out, make "
                    "a variable before the body with cute_val_var and set it inside with "
                    "cute_val_assign)",
                    o->file ? o->file : "?", o->line, scope_name(o->kind));
}

static void walk_inst(cute_ctx *c, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    int nargs = cute_op_nargs(op);
    if (op == CUTE_OP_FOR) { /* its variable belongs to the body (ctx_define_in_scope) */
        use(c, in, in->a[1]);
        use(c, in, in->a[2]);
        return;
    }
    if (op == CUTE_OP_IF) {
        use(c, in, in->a[0]);
        return;
    }
    if (op == CUTE_OP_WHILE) return; /* its condition lives in its own block */
    if (nargs < 0) {
        for (uint32_t k = 0; k < in->nvar; k++) {
            /* outputs: ASM's first imm operands, INST's first flags (its row's OUT groups) */
            if ((op == CUTE_OP_ASM && k < (uint32_t)in->imm) || (op == CUTE_OP_INST && k < in->flags)) {
                /* like an assignment: a variable that has a value here keeps its scope */
                if (!live(c, in->var[k])) define(c, in->var[k], in);
            }
            else
                use(c, in, in->var[k]);
        }
    } else {
        for (int k = 0; k < nargs; k++) use(c, in, in->a[k]);
    }
    /* an assignment defines a register that has no value here yet (again, after a body) */
    if (in->dst && (op != CUTE_OP_MOV || !live(c, in->dst))) define(c, in->dst, in);
}

void ctx_walk(cute_ctx *c)
{
    if (!c->fn || c->alg.failed || c->b.oom) return;
    if (c->walk.blk && grow(c))
        for (uint32_t i = c->walk.n; i < c->walk.blk->n && !c->alg.failed; i++)
            walk_inst(c, &c->walk.blk->inst[i]);
    c->walk.blk = c->b.stack[c->b.depth];
    c->walk.n = c->walk.blk->n;
    c->walk.in = c->scopes[c->depth];
}

void ctx_walk_reset(cute_ctx *c)
{
    memset(&c->walk, 0, sizeof c->walk);
    if (c->orig) memset(c->orig, 0, c->caporig * sizeof *c->orig);
}

void ctx_define_in_scope(cute_ctx *c, cute_vreg r)
{
    if (!c->fn || !grow(c) || r == 0 || r >= c->caporig) return;
    scope s = c->scopes[c->depth];
    c->orig[r] = (origin){s.id, (uint8_t)s.kind, c->alg.site.file, c->alg.site.line};
}

static const char *kernel_name(const cute_ctx *c, uint32_t k)
{
    return k >= 1 && k <= c->kernel && c->kernel_names && c->kernel_names[k - 1]
               ? c->kernel_names[k - 1]
               : "?";
}

bool ctx_same_kernel(cute_ctx *c, uint32_t kernel, const char *what)
{
    if (kernel == c->kernel) return true;
    if (kernel == 0)
        return cute_ctx_fail(c, "%s was not made by a DSL call of a kernel", what);
    return cute_ctx_fail(c, "%s belongs to kernel '%s', not to '%s' (a value lives in the kernel "
                            "that made it: pass what a kernel needs as an argument of its launch)",
                         what, kernel_name(c, kernel), kernel_name(c, c->kernel));
}

bool ctx_usable(cute_ctx *c, cute_val v, const char *what)
{
    if (v.r == 0) return cute_ctx_fail(c, "%s is not a value (the result of a failed call?)", what);
    if (!ctx_same_kernel(c, v.kernel, what)) return false;
    if (v.r >= c->fn->nvregs) return cute_ctx_fail(c, "%s is not a value of this kernel", what);
    return true;
}
