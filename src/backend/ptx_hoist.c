/* Loop-invariant values out of FOR loops.  The tracer writes a loop's address arithmetic in
 * its body even where it depends only on the thread and constants (the step-5 GEMM's
 * swizzled shared-memory offsets, in i64, recomputed every k-tile); NVVM hoisted those for
 * the CUDA C path, ptxas hoists few of them.  An instruction at the top level of a FOR's body
 * (a FOR with no FOR inside, that issues instruction rows: see px_hoist) moves before the
 * loop when it computes a value with no other effect (arithmetic, comparisons, selects,
 * conversions, lanes, addresses, constants, special registers), is defined once, and reads
 * only registers the loop does not define (or that moved out too).  Computing it once even
 * when the loop runs no trip changes nothing: it has no effect but its register, and an
 * integer division by zero in PTX does not trap. */
#include "ptx_internal.h"

static bool pure(const cute_ir_inst *in)
{
    switch (cute_op_group_of((cute_op)in->op)) {
    case CUTE_GROUP_VALUE:
    case CUTE_GROUP_SPECIAL:
    case CUTE_GROUP_CONVERT:
    case CUTE_GROUP_ADDRESS:
        return true;
    case CUTE_GROUP_MOVE:
        return in->op != CUTE_OP_MOV; /* MOV assigns a mutable register again */
    default:
        return false;
    }
}

/* stamp every register the block defines (results, MOV targets, ASM and INST outputs) */
static void stamp_defs(const cute_ir_block *b, uint32_t *stamp, uint32_t mark)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->dst) stamp[in->dst] = mark;
        if (in->op == CUTE_OP_ASM || in->op == CUTE_OP_INST || in->op == CUTE_OP_PRINTF)
            for (uint32_t k = 0; k < in->nvar; k++) stamp[in->var[k]] = mark;
        if (in->op == CUTE_OP_FOR) stamp[in->a[0]] = mark;
        stamp_defs(in->body[0], stamp, mark);
        stamp_defs(in->body[1], stamp, mark);
    }
}

/* whether the block holds a FOR (at any depth; a WHILE is an mbarrier's wait, here) */
static bool has_loop(const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->op == CUTE_OP_FOR || has_loop(in->body[0]) || has_loop(in->body[1])) return true;
    }
    return false;
}

/* whether the block's top level issues an instruction row (mma, ldmatrix, cp.async ...) */
static bool has_row(const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++)
        if (b->inst[i].op == CUTE_OP_INST) return true;
    return false;
}

bool px_hoist(px_fn *e, const cute_ir_inst *loop, bool (*emit)(px_fn *, const cute_ir_block *, uint32_t))
{
    const cute_ir_block *body = loop->body[0];
    /* innermost loops that issue instruction rows only (a GEMM's k-loop: 402 SASS
     * instructions a k-tile before, 295 after, NVVM's 364).  Out of an outer loop the values
     * stay live across the inner ones; out of the row kernels' loops over rows (loads and
     * FMAs, memory-bound) they cost registers, RMSNorm 110 against 95. */
    if (!body || !e->stamp || !e->hoisted || has_loop(body) || !has_row(body)) return true;
    uint32_t mark = ++e->nstamp;
    stamp_defs(body, e->stamp, mark);
    e->stamp[loop->a[0]] = mark;
    for (uint32_t i = 0; i < body->n; i++) {
        const cute_ir_inst *in = &body->inst[i];
        if (!in->dst || !pure(in) || e->f->vregs[in->dst].mutable_ || e->hoisted[in->dst]) continue;
        /* predicates stay: the hardware has 7 */
        if (cute_ir_type(e->f, in->dst).dtype == CUTE_I1) continue;
        bool invariant = true;
        for (int k = 0; k < 3 && invariant; k++)
            if (in->a[k] && e->stamp[in->a[k]] == mark && !e->hoisted[in->a[k]]) invariant = false;
        if (!invariant) continue;
        if (!emit(e, body, i)) return false;
        e->hoisted[in->dst] = true;
    }
    return true;
}
