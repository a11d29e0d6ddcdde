/* Loop-invariant values out of FOR loops.  The tracer writes a loop's address arithmetic in
 * its body even where it depends only on the thread and constants (the step-5 GEMM's
 * swizzled shared-memory offsets, in i64, recomputed every k-tile); NVVM hoisted those for
 * the CUDA C path, ptxas hoists few of them.  An instruction at the top level of a FOR's body
 * (a FOR with no FOR inside, that issues instruction rows: see px_hoist) moves before the
 * loop when it computes a value with no other effect (arithmetic, comparisons, selects,
 * conversions, lanes, addresses, constants, special registers), is defined once, and reads
 * only registers the loop does not define (or that moved out too).  Computing it once even
 * when the loop runs no trip changes nothing: it has no effect but its register, and an
 * integer division by zero in PTX does not trap.  Then the invariant parts of the body's
 * integer sums (below). */
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "ptx_internal.h"

static bool px_sums(px_fn *e, const cute_ir_inst *loop, uint32_t mark);

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
    return px_sums(e, loop, mark);
}

/* --- invariant sums ---------------------------------------------------------------------
 * The tracer adds a copy's global offset up as ((((row + col) + k*64) + stride part) + ...):
 * the loop's variant term in the middle of loop-invariant ones, so nothing of it could leave
 * the loop and every cp.async of the step-5 GEMM's k-loop took an IMAD and a three-input
 * IADD3 before its address (NVVM reassociated: one VIADD).  An integer ADD of the body whose
 * operands are ADDs used once (at any depth) is the sum of its leaves; with two or more
 * leaves invariant and one or more not, the invariant ones are added up before the loop and
 * the ADD is that sum plus the variant leaves (two's-complement addition is associative:
 * the same bits).  The inner ADDs are then not written (e->folded).  A variant leaf must
 * hold the same value where the sum is read: not a register the body assigns again, but the
 * loop's variable (assigned at the loop's end).  On unless CUTEC_PTX_SUMS=0 (H200, session
 * 33: the final pass made it the default; bench/RESULTS.md, the lead's section). */
bool px_sums_wanted(void)
{
    return cute_env_choice_warn("CUTEC_PTX_SUMS", "0|1", 1) == 1;
}

typedef struct sum_walk {
    px_fn *e;
    const cute_ir_inst *loop;
    const cute_ir_inst **def; /* per register: its ADD at the top of the body */
    uint32_t mark;
    cute_vreg inv[PX_SUM_MAX * 2], var[PX_SUM_MAX];
    int ninv, nvar, nodes;
    bool ok;
} sum_walk;

static bool variant(const sum_walk *w, cute_vreg r)
{
    return w->e->stamp[r] == w->mark && !w->e->hoisted[r];
}

/* the leaves of the ADD tree at r (r itself when it is not a foldable ADD) */
static void leaves(sum_walk *w, cute_vreg r, bool root)
{
    px_fn *e = w->e;
    const cute_ir_inst *d = w->def[r];
    if (d && variant(w, r) && (root || e->uses[r] == 1) && !e->f->vregs[r].mutable_) {
        w->nodes++;
        leaves(w, d->a[0], false);
        leaves(w, d->a[1], false);
        return;
    }
    if (!variant(w, r)) {
        if (w->ninv == PX_SUM_MAX * 2) w->ok = false;
        else w->inv[w->ninv++] = r;
    } else {
        if (w->nvar == PX_SUM_MAX || (e->f->vregs[r].mutable_ && r != w->loop->a[0])) w->ok = false;
        else w->var[w->nvar++] = r;
    }
}

static void fold(sum_walk *w, cute_vreg r, bool root)
{
    const cute_ir_inst *d = w->def[r];
    if (!d || !variant(w, r) || (!root && w->e->uses[r] != 1) || w->e->f->vregs[r].mutable_) return;
    if (!root) w->e->folded[r] = d;
    fold(w, d->a[0], false);
    fold(w, d->a[1], false);
}

static bool sum_ok(const cute_ir_func *f, const cute_ir_inst *in)
{
    if (in->op != CUTE_OP_ADD || !in->dst || f->vregs[in->dst].mutable_ || in->type.lanes != 1) return false;
    cute_dtype d = (cute_dtype)in->type.dtype;
    return d == CUTE_I32 || d == CUTE_U32 || d == CUTE_I64 || d == CUTE_U64;
}

/* after px_hoist's values: the body's ADD trees with invariant leaves, their sums before it */
static bool px_sums(px_fn *e, const cute_ir_inst *loop, uint32_t mark)
{
    const cute_ir_block *body = loop->body[0];
    const cute_ir_func *f = e->f;
    if (!e->sum_at || !e->folded || !e->uses) return true;
    sum_walk w = {.e = e, .loop = loop, .mark = mark, .def = calloc(f->nvregs + 1, sizeof *w.def)};
    if (!w.def) return px_fail(e, CUTE_ERR_OOM, "out of memory");
    for (uint32_t i = 0; i < body->n; i++) {
        const cute_ir_inst *in = &body->inst[i];
        if (in->dst) e->folded[in->dst] = NULL, e->sum_at[in->dst] = 0; /* of an earlier copy */
        if (sum_ok(f, in)) w.def[in->dst] = in;
    }
    bool ok = true;
    for (uint32_t i = body->n; ok && i-- > 0;) {
        const cute_ir_inst *in = &body->inst[i];
        if (!w.def[in->dst] || e->folded[in->dst] || !variant(&w, in->dst)) continue;
        w.ninv = w.nvar = w.nodes = 0, w.ok = true;
        leaves(&w, in->dst, true);
        if (!w.ok || w.ninv < 2 || w.nvar < 1 || w.nodes < 2) continue;
        if (e->nsums == e->capsums) {
            uint32_t cap = e->capsums ? 2 * e->capsums : 64;
            px_sum *s = realloc(e->sums, cap * sizeof *s);
            if (!s) { ok = px_fail(e, CUTE_ERR_OOM, "out of memory"); break; }
            e->sums = s, e->capsums = cap;
        }
        px_sum *s = &e->sums[e->nsums];
        const char *ty = px_arith_type((cute_dtype)in->type.dtype);
        char a[PX_NAME], b[PX_NAME];
        px_temp(e, px_class_of(in->type), s->invariant);
        px_line(e, "add.%s %s, %s, %s;", ty, s->invariant, px_opnd(e, w.inv[0], -1, a), px_opnd(e, w.inv[1], -1, b));
        for (int k = 2; k < w.ninv; k++)
            px_line(e, "add.%s %s, %s, %s;", ty, s->invariant, s->invariant, px_opnd(e, w.inv[k], -1, a));
        memcpy(s->var, w.var, sizeof w.var);
        s->nvar = w.nvar;
        e->sum_at[in->dst] = ++e->nsums;
        fold(&w, in->dst, true);
    }
    free(w.def);
    return ok;
}

bool px_sum_emit(px_fn *e, const cute_ir_inst *in)
{
    const px_sum *s = &e->sums[e->sum_at[in->dst] - 1];
    const char *ty = px_arith_type((cute_dtype)in->type.dtype);
    char d[PX_NAME], a[PX_NAME];
    px_reg(e, in->dst, -1, d);
    px_line(e, "add.%s %s, %s, %s;", ty, d, s->invariant, px_opnd(e, s->var[0], -1, a));
    for (int k = 1; k < s->nvar; k++) px_line(e, "add.%s %s, %s, %s;", ty, d, d, px_opnd(e, s->var[k], -1, a));
    return true;
}
