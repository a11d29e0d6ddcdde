/* What an IF's branch knows of its condition.  The rows kernels guard a row's vector load
 * by `p && p && ... && p` (a lane's bound, once per lane) and, in the else branch, load each
 * lane by itself under `p` again: that branch's loads can never run.  NVVM deleted them
 * (RMSNorm's CUDA C module has no scalar load); ptxas does not, and kept their registers
 * (95 against 76).  Inside the then branch of IF c every leaf of c's AND tree is true;
 * inside the else branch c is false, and so is any condition whose leaves include all of
 * c's (it implies c).  An IF whose condition is known emits only the branch that runs.  The leaves
 * are registers nothing assigns again, defined before the IF: the branch cannot change
 * them. */
#include <stdlib.h>

#include "ptx_internal.h"

static void find_defs(const cute_ir_func *f, const cute_ir_block *b, const cute_ir_inst **def)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->dst && !f->vregs[in->dst].mutable_ && in->type.dtype == CUTE_I1 && in->type.lanes == 1)
            def[in->dst] = in;
        find_defs(f, in->body[0], def);
        find_defs(f, in->body[1], def);
    }
}

const cute_ir_inst **px_pred_defs(const cute_ir_func *f)
{
    const cute_ir_inst **def = calloc(f->nvregs + 1, sizeof *def);
    if (def) find_defs(f, &f->body, def);
    return def;
}

enum { LEAVES = 64 };

/* the leaves of c's AND tree (c itself when it is no AND); false: more than LEAVES */
static bool leaves(const px_fn *e, cute_vreg c, cute_vreg *out, int *n, int depth)
{
    const cute_ir_inst *d = e->pdef ? e->pdef[c] : NULL;
    if (d && d->op == CUTE_OP_AND && depth < LEAVES)
        return leaves(e, d->a[0], out, n, depth + 1) && leaves(e, d->a[1], out, n, depth + 1);
    for (int i = 0; i < *n; i++)
        if (out[i] == c) return true;
    if (*n >= LEAVES) return false;
    out[(*n)++] = c;
    return true;
}

/* whether every leaf of `sub` is a leaf of `of` (then `of` implies `sub`) */
static bool within(const px_fn *e, cute_vreg sub, const cute_vreg *of, int n)
{
    cute_vreg l[LEAVES];
    int m = 0;
    if (!leaves(e, sub, l, &m, 0)) return false;
    for (int i = 0; i < m; i++) {
        bool found = false;
        for (int j = 0; j < n && !found; j++) found = of[j] == l[i];
        if (!found) return false;
    }
    return true;
}

int px_known(const px_fn *e, cute_vreg c)
{
    if (!e->known || e->f->vregs[c].mutable_) return 0;
    cute_vreg l[LEAVES];
    int n = 0;
    if (!leaves(e, c, l, &n, 0)) return 0;
    bool all = true;
    for (int i = 0; i < n; i++) all = all && e->known[l[i]] > 0;
    if (all) return 1;
    /* false where it implies a condition known false (its leaves include that one's) */
    for (int i = 0; i < e->nfalse; i++)
        if (within(e, e->falses[i], l, n)) return -1;
    return 0;
}

int px_assume(px_fn *e, cute_vreg c, int value, cute_vreg *saved)
{
    if (!e->known || e->f->vregs[c].mutable_) return 0;
    if (value < 0) { /* a leaf the branch may assign again would make that wrong */
        cute_vreg l[LEAVES];
        int n = 0;
        if (e->nfalse >= PX_FACTS || !leaves(e, c, l, &n, 0)) return 0;
        for (int i = 0; i < n; i++)
            if (e->f->vregs[l[i]].mutable_) return 0;
        e->falses[e->nfalse++] = c;
        return -1;
    }
    cute_vreg l[LEAVES];
    int n = 0, k = 0;
    if (!leaves(e, c, l, &n, 0)) return 0;
    for (int i = 0; i < n; i++)
        if (!e->f->vregs[l[i]].mutable_ && !e->known[l[i]]) saved[k++] = l[i], e->known[l[i]] = 1;
    return k;
}

void px_forget(px_fn *e, const cute_vreg *saved, int k)
{
    if (k < 0) e->nfalse--;
    while (k-- > 0) e->known[saved[k]] = 0;
}
