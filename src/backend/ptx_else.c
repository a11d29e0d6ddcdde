/* An IF's else branch written first, unconditionally, then the branch to skip its then
 * branch: `else; @!p bra end; then; end:` (NVVM's form of a guarded load: the zeros moved in,
 * then the predicated load over them).  The rows kernels load a vector under p and fill it
 * with zeros in the else branch; as two branches ptxas if-converted them with p live across
 * the load, and it moved two of RMSNorm's four weight loads past the reduction's barrier.
 * Allowed where running the else branch on the then path changes nothing the program reads:
 *  - what the else branch writes (as written: branches its conditions decide are not) is
 *    values only: arithmetic, moves, conversions, addresses, special registers, and IFs of
 *    those (no memory, barriers, loops, warps, instructions, ASM);
 *  - the then branch reads nothing the else branch writes;
 *  - a register the else branch writes is assigned again at the then branch's top level, or
 *    named nowhere outside the else branch.
 * On unless CUTEC_PTX_ELSE=0 (H200, session 33: the final pass made it the
 * default; bench/RESULTS.md, the lead's section). */
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "ptx_internal.h"

bool px_else_wanted(void)
{
    return cute_env_choice_warn("CUTEC_PTX_ELSE", "0|1", 1) == 1;
}

/* every register the block names (results, operands, a FOR's variable), counted into n */
void px_count_mentions(const cute_ir_block *b, uint32_t *n)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        n[in->dst]++;
        for (int k = 0; k < 3; k++) n[in->a[k]]++;
        for (uint32_t k = 0; k < in->nvar; k++) n[in->var[k]]++;
        px_count_mentions(in->body[0], n);
        px_count_mentions(in->body[1], n);
    }
}

/* whether the block, as it would be written here, only computes values; w[r] set for
 * each register it writes */
static bool values_only(const px_fn *e, const cute_ir_block *b, bool *w)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->op == CUTE_OP_IF) {
            int known = px_known(e, in->a[0]);
            if (known >= 0 && !values_only(e, in->body[0], w)) return false;
            if (known <= 0 && !values_only(e, in->body[1], w)) return false;
            continue;
        }
        switch (cute_op_group_of((cute_op)in->op)) {
        case CUTE_GROUP_VALUE:
        case CUTE_GROUP_MOVE:
        case CUTE_GROUP_CONVERT:
        case CUTE_GROUP_ADDRESS:
        case CUTE_GROUP_SPECIAL:
            break;
        default:
            return false;
        }
        if (in->dst) w[in->dst] = true;
    }
    return true;
}

/* whether the block (at any depth, with the predicates written at its IFs) reads a
 * register of w */
static bool reads_any(const px_fn *e, const cute_ir_block *b, const bool *w)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        for (int k = 0; k < 3; k++) {
            if (w[in->a[k]]) return true;
            const cute_ir_inst *s = e->sunk ? e->sunk[in->a[k]] : NULL;
            if (s && (w[s->a[0]] || w[s->a[1]])) return true;
        }
        for (uint32_t k = 0; k < in->nvar; k++)
            if (w[in->var[k]]) return true;
        if (reads_any(e, in->body[0], w) || reads_any(e, in->body[1], w)) return true;
    }
    return false;
}

bool px_else_first(px_fn *e, const cute_ir_inst *in)
{
    const cute_ir_func *f = e->f;
    const cute_ir_block *then = in->body[0], *other = in->body[1];
    if (!e->mentions || !then || !other || !other->n) return false;
    bool *w = calloc(f->nvregs + 1, sizeof *w);
    uint32_t *local = calloc(f->nvregs + 1, sizeof *local);
    bool ok = w && local && values_only(e, other, w);
    if (ok) w[0] = false, ok = !reads_any(e, then, w);
    if (ok) {
        px_count_mentions(other, local);
        bool *again = calloc(f->nvregs + 1, sizeof *again); /* assigned at then's top level */
        ok = again != NULL;
        for (uint32_t i = 0; ok && i < then->n; i++)
            if (then->inst[i].dst) again[then->inst[i].dst] = true;
        for (uint32_t r = 1; ok && r < f->nvregs; r++)
            if (w[r] && !again[r] && local[r] != e->mentions[r]) ok = false;
        free(again);
    }
    free(w), free(local);
    return ok;
}

/* --- the load into the register its branch assigns ------------------------------------
 * The then branch of such an IF is `r = LOAD p; q = BITCAST r; m = MOV q` (the vector and
 * its words); written as they are, the load's registers go to m by moves that ptxas
 * predicates on p, so p stays live past the load and, seven predicates for eight loads,
 * RMSNorm's weight loads waited past the barrier.  Where r (and q) have no other use and m
 * is a mutable register of the same size, the load writes m's registers itself (NVVM's
 * `ld.global.nc.v4.u32 {%r350, ...}` over the zeros): RMSNorm's eight loads all ahead of the
 * reduction, 600 -> 568 SASS instructions (NVVM's 552).  Part of CUTEC_PTX_ELSE. */

cute_vreg px_load_into(const px_fn *e, const cute_ir_block *b, uint32_t i)
{
    const cute_ir_func *f = e->f;
    if (!e->mentions || !e->uses || i + 1 >= b->n) return 0;
    const cute_ir_inst *ld = &b->inst[i], *mv = &b->inst[i + 1];
    if (ld->op != CUTE_OP_LOAD || !ld->dst || e->uses[ld->dst] != 1 || cute_ir_type(f, ld->dst).lanes < 2) return 0;
    if (mv->op == CUTE_OP_BITCAST && mv->a[0] == ld->dst && i + 2 < b->n && e->uses[mv->dst] == 1 &&
        !f->vregs[mv->dst].mutable_) {
        const cute_ir_inst *bc = mv;
        mv = &b->inst[i + 2];
        if (mv->op != CUTE_OP_MOV || mv->a[0] != bc->dst) return 0;
    } else if (mv->op != CUTE_OP_MOV || mv->a[0] != ld->dst) {
        return 0;
    }
    cute_type tr = cute_ir_type(f, ld->dst), tm = cute_ir_type(f, mv->dst);
    bool same = tr.lanes * cute_dtype_bytes((cute_dtype)tr.dtype) == tm.lanes * cute_dtype_bytes((cute_dtype)tm.dtype);
    if (!f->vregs[mv->dst].mutable_ || !same || tm.lanes < 2 || tm.dtype == CUTE_I1 || tm.dtype == CUTE_PTR) return 0;
    return mv->dst;
}

bool px_load_folded(const px_fn *e, const cute_ir_block *b, uint32_t i)
{
    if (!e->mentions || !e->uses) return false;
    for (uint32_t back = 1; back <= 2 && back <= i; back++) {
        const cute_ir_inst *ld = &b->inst[i - back];
        if (ld->op == CUTE_OP_LOAD && px_load_into(e, b, i - back)) {
            bool bitcast = b->inst[i - back + 1].op == CUTE_OP_BITCAST;
            return back == 1 || bitcast; /* the BITCAST and the MOV, or the MOV */
        }
    }
    return false;
}
