/* Lanes and widenings written where they are read.  The tracer unpacks a vector load at the
 * load: RMSNorm's weights are loaded as four 16-byte vectors, split into 32 bf16 lanes and
 * widened to f32 there, then read only after the block's reduction.  NVVM moved the split
 * and the widening down to the multiplies, so 16 packed words stay live across the
 * reduction; given 32 lanes (a register each), ptxas instead moved the loads themselves
 * past the reduction's barrier (read-only loads may), and every row waited for them.
 * Here a block's MOV, EXTRACT, BITCAST and 16-bit-float-to-f32 CVT instructions wait
 * (deferred) until the first later instruction of the block that names their result or
 * assigns one of their operands; what is left waits to the block's end.  An instruction
 * that can leave the block (a BREAK or RETURN anywhere in it) first writes them all.
 * On unless CUTEC_PTX_LATE=0 (H200, session 33: the final pass made it the
 * default; bench/RESULTS.md, the lead's section). */
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "ptx_internal.h"

bool px_late_wanted(void)
{
    return cute_env_choice_warn("CUTEC_PTX_LATE", "0|1", 1) == 1;
}

static bool late_op(const px_fn *e, const cute_ir_inst *in)
{
    if (!in->dst || in->type.dtype == CUTE_I1) return false;
    switch ((cute_op)in->op) {
    case CUTE_OP_MOV:
    case CUTE_OP_EXTRACT:
    case CUTE_OP_BITCAST:
        return true;
    case CUTE_OP_CVT:
        return in->type.dtype == CUTE_F32 && px_is_16f((cute_dtype)cute_ir_type(e->f, in->a[0]).dtype);
    default:
        return false;
    }
}

typedef struct late {
    px_fn *e;
    const cute_ir_block *b;
    bool (*emit)(px_fn *, const cute_ir_block *, uint32_t);
    uint32_t *wait; /* indices into b of the deferred instructions, in order */
    uint32_t n;
} late;

/* the operands a later instruction could assign (mutable ones: the others are defined once) */
static void operands(const px_fn *e, const cute_ir_inst *in, cute_vreg *r, int *n)
{
    *n = 0;
    for (int k = 0; k < 3; k++)
        if (in->a[k] && e->f->vregs[in->a[k]].mutable_) r[(*n)++] = in->a[k];
}

/* write deferred instruction b->inst[i] (first the deferred ones it reads) */
static bool flush_one(late *l, uint32_t i)
{
    px_fn *e = l->e;
    const cute_ir_inst *in = &l->b->inst[i];
    if (e->late_def[in->dst] != i + 1) return true; /* written already */
    e->late_def[in->dst] = 0;
    cute_vreg r[3];
    int n;
    operands(e, in, r, &n);
    for (int k = 0; k < n; k++) e->late_reads[r[k]]--;
    for (int k = 0; k < 3; k++)
        if (in->a[k] && e->late_def[in->a[k]] && !flush_one(l, e->late_def[in->a[k]] - 1)) return false;
    return l->emit(e, l->b, i) && !e->failed;
}

/* a register that instruction j names: write what depends on it first */
static bool touch(late *l, cute_vreg r)
{
    px_fn *e = l->e;
    if (!r) return true;
    if (e->late_def[r] && !flush_one(l, e->late_def[r] - 1)) return false;
    if (e->late_reads[r]) /* j may assign it: the deferred readers first */
        for (uint32_t k = 0; k < l->n; k++) {
            const cute_ir_inst *d = &l->b->inst[l->wait[k]];
            if (e->late_def[d->dst] == l->wait[k] + 1 && (d->a[0] == r || d->a[1] == r || d->a[2] == r) &&
                !flush_one(l, l->wait[k]))
                return false;
        }
    /* an ADD folded into a sum (ptx_hoist.c) reads its operands where the sum is */
    const cute_ir_inst *fd = e->folded ? e->folded[r] : NULL;
    for (int k = 0; fd && k < 2; k++)
        if (!touch(l, fd->a[k])) return false;
    /* a predicate defined at its IF (ptx_sink.c) reads its operands there */
    const cute_ir_inst *s = e->sunk ? e->sunk[r] : NULL;
    for (int k = 0; s && k < 3; k++)
        if (s->a[k] != r && !touch(l, s->a[k])) return false;
    return true;
}

static bool touch_block(late *l, const cute_ir_block *b);

static bool touch_inst(late *l, const cute_ir_inst *in)
{
    if (!touch(l, in->dst)) return false;
    for (int k = 0; k < 3; k++)
        if (!touch(l, in->a[k])) return false;
    for (uint32_t k = 0; k < in->nvar; k++)
        if (!touch(l, in->var[k])) return false;
    return touch_block(l, in->body[0]) && touch_block(l, in->body[1]);
}

static bool touch_block(late *l, const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++)
        if (!touch_inst(l, &b->inst[i])) return false;
    return true;
}

static bool leaves(const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->op == CUTE_OP_BREAK || in->op == CUTE_OP_RETURN || leaves(in->body[0]) || leaves(in->body[1]))
            return true;
    }
    return false;
}

static bool flush_all(late *l)
{
    for (uint32_t k = 0; k < l->n; k++)
        if (!flush_one(l, l->wait[k])) return false;
    l->n = 0;
    return true;
}

bool px_late_block(px_fn *e, const cute_ir_block *b, bool (*skip)(const px_fn *, const cute_ir_block *, uint32_t),
                   bool (*emit)(px_fn *, const cute_ir_block *, uint32_t))
{
    late l = {.e = e, .b = b, .emit = emit, .wait = malloc((b->n + 1) * sizeof *l.wait)};
    if (!l.wait) return px_fail(e, CUTE_ERR_OOM, "out of memory");
    bool ok = true;
    for (uint32_t i = 0; ok && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (skip(e, b, i)) continue;
        cute_ir_block one = {.inst = (cute_ir_inst *)in, .n = 1};
        bool defer = late_op(e, in);
        if (l.n && (in->op == CUTE_OP_BREAK || in->op == CUTE_OP_RETURN || leaves(&one)))
            ok = flush_all(&l);
        else if (l.n) /* a deferred instruction reads its operands when it is written */
            ok = defer ? touch(&l, in->dst) : touch_inst(&l, in) && touch(&l, px_load_into(e, b, i));
        if (!ok) break;
        if (defer) {
            l.wait[l.n++] = i;
            e->late_def[in->dst] = i + 1;
            cute_vreg r[3];
            int n;
            operands(e, in, r, &n);
            for (int k = 0; k < n; k++) e->late_reads[r[k]]++;
            continue;
        }
        ok = emit(e, b, i) && !e->failed;
    }
    ok = ok && flush_all(&l);
    free(l.wait);
    return ok;
}
