/* Predicates computed where they are used.  The tracer computes a guarded epilogue's
 * conditions together, ahead of the loads they guard (the Hopper GEMM's 64 `row && col`
 * ANDs before its 64 loads of C); NVVM moved each AND down to its load, so a handful of
 * predicates are live at a time.  ptxas does not: it kept the 64 in a register's bits (79
 * P2R; the kernel 3,072 SASS instructions before this, 2,832 after).  An i1
 * value moves down to the IF it conditions when that IF is its one use, inside as many
 * loops as it (computed as often), and it is an AND, OR, XOR or comparison of registers
 * nothing assigns again (so they hold the same values there). */
#include <stdlib.h>

#include "ptx_internal.h"

void px_count_uses(const cute_ir_block *b, uint32_t *uses)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        for (int k = 0; k < 3; k++) uses[in->a[k]]++;
        for (uint32_t k = 0; k < in->nvar; k++) uses[in->var[k]]++;
        px_count_uses(in->body[0], uses);
        px_count_uses(in->body[1], uses);
    }
}

static bool movable(const cute_ir_func *f, const cute_ir_inst *d)
{
    cute_op op = (cute_op)d->op;
    if (d->type.dtype != CUTE_I1 || d->type.lanes != 1) return false;
    if (op != CUTE_OP_AND && op != CUTE_OP_OR && op != CUTE_OP_XOR && !(op >= CUTE_OP_EQ && op <= CUTE_OP_GE))
        return false;
    for (int k = 0; k < 2; k++)
        if (!d->a[k] || f->vregs[d->a[k]].mutable_) return false;
    return true;
}

typedef struct sink_walk {
    const cute_ir_func *f;
    const uint32_t *uses;
    const cute_ir_inst **def; /* per register: its definition, once walked past */
    int *depth;               /* ... and the loops around it */
    const cute_ir_inst **sunk;
} sink_walk;

static void find(sink_walk *w, const cute_ir_block *b, int depth)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        cute_vreg c = in->a[0];
        if (in->op == CUTE_OP_IF && c && w->uses[c] == 1 && w->def[c] && w->depth[c] == depth &&
            movable(w->f, w->def[c]))
            w->sunk[c] = w->def[c];
        bool loop = in->op == CUTE_OP_FOR || in->op == CUTE_OP_WHILE;
        find(w, in->body[0], depth + loop);
        find(w, in->body[1], depth + loop);
        if (in->dst && !w->f->vregs[in->dst].mutable_) w->def[in->dst] = in, w->depth[in->dst] = depth;
    }
}

const cute_ir_inst **px_sink(const cute_ir_func *f)
{
    uint32_t *uses = calloc(f->nvregs + 1, sizeof *uses);
    sink_walk w = {.f = f, .uses = uses, .def = calloc(f->nvregs + 1, sizeof *w.def),
                   .depth = calloc(f->nvregs + 1, sizeof *w.depth), .sunk = calloc(f->nvregs + 1, sizeof *w.sunk)};
    if (uses && w.def && w.depth && w.sunk) {
        px_count_uses(&f->body, uses);
        uses[0] = 0;
        find(&w, &f->body, 0);
    }
    free(uses), free(w.def), free(w.depth);
    return w.sunk;
}
