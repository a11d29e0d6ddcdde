/* The global pointers whose loads may take the read-only (non-coherent) path, ld.global.nc:
 * in a noalias kernel (no memory is reached through two pointer parameters), a pointer
 * derived from a parameter that no store, atomic, inline PTX or instruction row reaches
 * memory through.  NVVM found the same for the CUDA C path from __restrict__ (LDG.CONSTANT
 * in the row kernels' SASS).  A pointer of unknown origin (loaded from memory, made from an
 * integer) that is written through, or an ASM op that takes any global pointer, turns it
 * off for the whole kernel. */
#include <stdlib.h>

#include "cutec/inst.h"
#include "ptx_internal.h"

enum { UNKNOWN = -1 };

/* root[v]: the parameter index a global pointer register derives from, or UNKNOWN */
static void roots(const cute_ir_func *f, const cute_ir_block *b, int *root)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->dst && (in->op == CUTE_OP_PTR_ADD || in->op == CUTE_OP_MOV ||
                        ((in->op == CUTE_OP_BITCAST || in->op == CUTE_OP_CVT) &&
                         cute_ir_type(f, in->a[0]).dtype == CUTE_PTR)))
            root[in->dst] = root[in->a[0]];
        roots(f, in->body[0], root);
        roots(f, in->body[1], root);
    }
}

/* mark the parameters written through; false when a write's target is unknown */
static bool writes(const cute_ir_func *f, const cute_ir_block *b, const int *root, bool *written)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        cute_op op = (cute_op)in->op;
        if (op == CUTE_OP_STORE || op == CUTE_OP_ATOMIC || op == CUTE_OP_ATOMIC_CAS) {
            cute_type pt = cute_ir_type(f, in->a[0]);
            if (pt.space == CUTE_GMEM) {
                if (root[in->a[0]] == UNKNOWN) return false;
                written[root[in->a[0]]] = true;
            }
        }
        if (op == CUTE_OP_ASM || op == CUTE_OP_INST || op == CUTE_OP_PRINTF)
            for (uint32_t k = 0; k < in->nvar; k++) {
                cute_type t = cute_ir_type(f, in->var[k]);
                if (t.dtype != CUTE_PTR || t.space != CUTE_GMEM) continue;
                if (root[in->var[k]] == UNKNOWN) return false;
                written[root[in->var[k]]] = true; /* reads through it too: not ours to say */
            }
        if (!writes(f, in->body[0], root, written) || !writes(f, in->body[1], root, written)) return false;
    }
    return true;
}

bool *px_readonly(const cute_ir_func *f)
{
    if (!f->noalias || f->reaches_buffers) return NULL;
    int *root = malloc((f->nvregs + 1) * sizeof *root);
    bool *written = calloc(f->nparams + 1, sizeof *written), *ro = calloc(f->nvregs + 1, sizeof *ro);
    bool ok = root && written && ro;
    for (uint32_t v = 0; ok && v <= f->nvregs; v++) root[v] = UNKNOWN;
    for (uint32_t p = 0; ok && p < f->nparams; p++) {
        cute_type t = cute_ir_type(f, f->params[p]);
        if (t.dtype == CUTE_PTR && t.space == CUTE_GMEM) root[f->params[p]] = (int)p;
    }
    if (ok) roots(f, &f->body, root);
    ok = ok && writes(f, &f->body, root, written);
    for (uint32_t v = 1; ok && v < f->nvregs; v++) ro[v] = root[v] != UNKNOWN && !written[root[v]];
    free(root), free(written);
    if (!ok) free(ro), ro = NULL;
    return ro;
}
