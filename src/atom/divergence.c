/* A warp-collective atom under a branch that splits a warp is an error; here it is caught
 * at trace time where it can be proven.  For each dynamic IF around the atom, its condition
 * is evaluated for every lane of every warp of the block, when it is a function of
 * threadIdx.x (or the lane, or such a value shuffled from a constant lane: CUTLASS's
 * canonical_warp_group_idx) and constants only: if the lanes of some warp disagree, the
 * warp diverges there.  A condition that depends on anything else (a parameter, a load, a
 * loop variable) proves nothing, and the interpreter checks at run time instead. */
#include <stdio.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "trace/ctx_internal.h"

/* the instruction of block b (or a body inside it) that defines v, or NULL */
static const cute_ir_inst *def_of(const cute_ir_block *b, cute_vreg v)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->dst == v) return in;
        for (int k = 0; k < 2; k++) {
            const cute_ir_inst *d = def_of(in->body[k], v);
            if (d) return d;
        }
    }
    return NULL;
}

static int64_t binop(int op, int64_t a, int64_t b, bool *ok)
{
    switch (op) {
    case CUTE_OP_ADD:
        return a + b;
    case CUTE_OP_SUB:
        return a - b;
    case CUTE_OP_MUL:
        return a * b;
    case CUTE_OP_DIV:
        return b ? a / b : (*ok = false, 0);
    case CUTE_OP_REM:
        return b ? a % b : (*ok = false, 0);
    case CUTE_OP_SHL:
        return b >= 0 && b < 63 ? a << b : (*ok = false, 0);
    case CUTE_OP_SHR:
        return b >= 0 && b < 63 ? a >> b : (*ok = false, 0);
    case CUTE_OP_AND:
        return a & b;
    case CUTE_OP_OR:
        return a | b;
    case CUTE_OP_XOR:
        return a ^ b;
    case CUTE_OP_MIN:
        return a < b ? a : b;
    case CUTE_OP_MAX:
        return a > b ? a : b;
    case CUTE_OP_EQ:
        return a == b;
    case CUTE_OP_NE:
        return a != b;
    case CUTE_OP_LT:
        return a < b;
    case CUTE_OP_LE:
        return a <= b;
    case CUTE_OP_GT:
        return a > b;
    case CUTE_OP_GE:
        return a >= b;
    default:
        *ok = false;
        return 0;
    }
}

/* the definitions looked up so far (each costs a walk of the function) */
typedef struct defs {
    const cute_ir_func *f;
    cute_vreg v[64];
    const cute_ir_inst *d[64];
    int n;
} defs;

static const cute_ir_inst *lookup(defs *D, cute_vreg v)
{
    for (int i = 0; i < D->n; i++)
        if (D->v[i] == v) return D->d[i];
    if (D->n == 64 || D->f->vregs[v].mutable_) return NULL;
    D->v[D->n] = v;
    return D->d[D->n++] = def_of(&D->f->body, v);
}

/* v for thread tid, when it is a function of tid and constants (else *ok = false) */
static int64_t eval(defs *f, cute_vreg v, int64_t tid, int depth, bool *ok)
{
    const cute_ir_inst *d = depth < 48 && *ok ? lookup(f, v) : NULL;
    if (!d || !(cute_dtype_is_int((cute_dtype)d->type.dtype) || d->type.dtype == CUTE_I1) ||
        d->type.lanes != 1)
        return *ok = false, 0;
    switch (d->op) {
    case CUTE_OP_CONST:
        return d->imm;
    case CUTE_OP_SREG:
        if (d->imm == CUTE_SREG_TID_X) return tid;
        if (d->imm == CUTE_SREG_LANEID) return tid % 32;
        if (d->imm == CUTE_SREG_WARPID) return tid / 32;
        return *ok = false, 0;
    case CUTE_OP_CVT:
        return eval(f, d->a[0], tid, depth + 1, ok);
    case CUTE_OP_NOT:
        return d->type.dtype == CUTE_I1 ? !eval(f, d->a[0], tid, depth + 1, ok)
                                        : ~eval(f, d->a[0], tid, depth + 1, ok);
    case CUTE_OP_SELECT:
        return eval(f, d->a[0], tid, depth + 1, ok) ? eval(f, d->a[1], tid, depth + 1, ok)
                                                    : eval(f, d->a[2], tid, depth + 1, ok);
    case CUTE_OP_SHFL: { /* an idx shuffle: a0 as the thread of lane a1 of this warp has it */
        int64_t lane = d->imm == CUTE_SHFL_IDX ? eval(f, d->a[1], tid, depth + 1, ok) : -1;
        if (lane < 0 || lane > 31) return *ok = false, 0;
        return eval(f, d->a[0], tid - tid % 32 + lane, depth + 1, ok);
    }
    default: {
        int64_t a = eval(f, d->a[0], tid, depth + 1, ok), b = eval(f, d->a[1], tid, depth + 1, ok);
        return *ok ? binop(d->op, a, b, ok) : 0;
    }
    }
}

/* the first warp whose lanes disagree on cond, or -1 (also when nothing is proven) */
static int64_t split_warp(const cute_ctx *c, cute_vreg cond)
{
    int64_t threads = c->block_max[0] ? c->block_max[0] : 1024;
    if (c->block_max[1] > 1 || c->block_max[2] > 1) return -1; /* 1-D blocks only */
    defs D = {.f = c->fn};
    for (int64_t w = 0; w * 32 < threads; w++) {
        bool ok = true;
        int64_t first = eval(&D, cond, w * 32, 0, &ok);
        for (int64_t l = 1; l < 32 && ok && w * 32 + l < threads; l++)
            if (eval(&D, cond, w * 32 + l, 0, &ok) != first && ok) return w;
        if (!ok) return -1;
    }
    return -1;
}

/* Threads of the block that reach the builder's point, when every dynamic IF around it has a
 * condition proven per thread (a function of threadIdx.x): a warp-specialized kernel's
 * branch for its consumers, say.  -1 when some condition proves nothing, or there is none. */
int64_t atom_threads_here(const cute_ctx *c)
{
    int64_t threads = c->block_max[0] ? c->block_max[0] : 0, here = 0;
    bool any = false;
    if (!threads || c->block_max[1] > 1 || c->block_max[2] > 1) return -1;
    defs D = {.f = c->fn};
    for (int64_t tid = 0; tid < threads; tid++) {
        bool ok = true, in = true;
        for (int k = 1; k <= c->b.depth && in; k++) {
            const cute_ir_inst *own = c->b.owner[k];
            if (!own || own->op != CUTE_OP_IF) continue;
            bool taken = eval(&D, own->a[0], tid, 0, &ok) != 0;
            if (!ok) return -1;
            in = c->b.stack[k] == own->body[1] ? !taken : taken; /* the else body: the others */
            any = true;
        }
        here += in;
    }
    return any ? here : -1;
}

bool atom_check_converged(cute_ctx *c, const char *atom)
{
    for (int k = 1; k <= c->b.depth; k++) {
        const cute_ir_inst *own = c->b.owner[k];
        if (!own || own->op != CUTE_OP_IF) continue;
        int64_t w = split_warp(c, own->a[0]);
        if (w >= 0)
            return cute_ctx_fail(
                c,
                "%s is warp-collective, but it is inside the branch at %s:%d whose "
                "condition differs between the lanes of warp %lld: every lane of a "
                "warp must execute it (move it out of the branch, or make the "
                "condition the same for a whole warp)",
                atom, own->file ? own->file : "?", own->line, (long long)w);
    }
    return true;
}
