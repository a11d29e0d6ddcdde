/* Where the proof that pointers do not alias lives (issue 12 item 8d).  A kernel whose pointer
 * parameters are __restrict__ is undefined when memory it writes through one of them is also
 * reached through another; an in-place call (out = a + b with out == a) is exactly that.  So
 * the specs decide: where none says `may_alias`, the kernels get __restrict__ and each call
 * proves it, refusing a call in which a tensor some kernel writes overlaps another argument;
 * where one does, no pointer is restrict-qualified and any call may alias. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

/* the parameter each register's pointer derives from (-1: none), and which are stored to */
static void walk(const cute_ir_func *k, const cute_ir_block *blk, int *root, bool *written)
{
    for (uint32_t i = 0; i < blk->n; i++) {
        const cute_ir_inst *in = &blk->inst[i];
        switch ((cute_op)in->op) {
        case CUTE_OP_PTR_ADD:
        case CUTE_OP_BITCAST:
        case CUTE_OP_MOV:
            if (in->dst && root[in->a[0]] >= 0) root[in->dst] = root[in->a[0]];
            break;
        case CUTE_OP_STORE:
        case CUTE_OP_ATOMIC:
        case CUTE_OP_ATOMIC_CAS:
            if (root[in->a[0]] >= 0) written[root[in->a[0]]] = true;
            break;
        case CUTE_OP_ASM: /* raw PTX may store through any pointer it is given */
            for (uint32_t v = 0; v < in->nvar; v++)
                if (root[in->var[v]] >= 0) written[root[in->var[v]]] = true;
            break;
        default:
            break;
        }
        for (int b = 0; b < 2; b++)
            if (in->body[b]) walk(k, in->body[b], root, written);
    }
}

/* mark the arguments whose pointers launch r's kernel stores to */
static void mark_written(cute_fn *f, const launch_rec *r)
{
    const cute_ir_func *k = f->kernels[r->kernel];
    int *root = calloc(k->nvregs + 1, sizeof *root);
    bool *written = calloc(k->nparams + 1, sizeof *written);
    if (root && written) {
        for (uint32_t v = 0; v <= k->nvregs; v++) root[v] = -1;
        for (uint32_t p = 0; p < k->nparams; p++) root[k->params[p]] = (int)p;
        walk(k, &k->body, root, written);
        for (int p = 0; p < r->nparams && p < (int)k->nparams; p++)
            if (r->params[p].kind == P_PTR && written[p]) f->args[r->params[p].index].written = true;
    } else { /* out of memory: assume every argument is written */
        for (int a = 0; a < f->nargs; a++) f->args[a].written = true;
    }
    free(root);
    free(written);
}

void jit_mark_aliasing(cute_fn *f)
{
    f->noalias = true;
    for (int a = 0; a < f->nargs; a++)
        if (f->args[a].spec.kind == CUTE_ARG_TENSOR && f->args[a].spec.may_alias) f->noalias = false;
    for (int i = 0; i < f->nkernels; i++) f->kernels[i]->noalias = f->noalias;
    for (int i = 0; i < f->nlaunches; i++) mark_written(f, &f->launches[i]);
}

/* the bytes a tensor argument spans, [lo, hi) as addresses (a 4-bit element shares its
 * byte: the span is in bits, then rounded out to bytes); false for an empty tensor or one
 * whose span does not fit (the call refuses those before) */
static bool span(const cute_call_arg *x, uintptr_t *lo, uintptr_t *hi)
{
    cute_dtype d = (cute_dtype)x->dtype;
    int64_t first = 0, last = 0, bits = cute_dtype_is_packed(d) ? cute_dtype_bits(d) : 8 * cute_dtype_bytes(d);
    for (int i = 0; i < x->ndim && i < 8; i++) {
        int64_t reach;
        if (x->shape[i] <= 0) return false;
        if (__builtin_mul_overflow(x->shape[i] - 1, x->stride[i], &reach)) return false;
        if (__builtin_add_overflow(reach < 0 ? first : last, reach, reach < 0 ? &first : &last))
            return false;
    }
    int64_t a, b;
    if (__builtin_mul_overflow(first, bits, &a) || __builtin_mul_overflow(last + 1, bits, &b) ||
        b > INT64_MAX - 7)
        return false;
    a = a >= 0 ? a / 8 : -((-a + 7) / 8), b = (b + 7) / 8; /* whole bytes around the bits */
    uintptr_t base = (uintptr_t)x->buf->ptr + x->offset;
    *lo = base + (uintptr_t)a, *hi = base + (uintptr_t)b;
    return true;
}

bool cute_call_args_overlap(const cute_call_arg *a, const cute_call_arg *b)
{
    uintptr_t alo, ahi, blo, bhi;
    if (a->kind != CUTE_ARG_TENSOR || b->kind != CUTE_ARG_TENSOR || !a->buf || !b->buf) return false;
    return span(a, &alo, &ahi) && span(b, &blo, &bhi) && alo < bhi && blo < ahi;
}

cute_status jit_check_alias(const cute_fn *f, struct cute_call_frame *fr, int nargs,
                            const cute_call_arg *args)
{
    if (!f->noalias) return CUTE_OK;
    for (int i = 0; i < nargs && i < f->nargs; i++)
        for (int j = i + 1; j < nargs && j < f->nargs; j++)
            if ((f->args[i].written || f->args[j].written) && cute_call_args_overlap(&args[i], &args[j])) {
                if (fr->errn)
                    snprintf(fr->err, fr->errn,
                             "arguments %d and %d share memory, and the kernel writes argument %d "
                             "through a __restrict__ pointer: compile with .may_alias = 1 in the "
                             "spec of an argument that may overlap another (an in-place call)",
                             i, j, f->args[i].written ? i : j);
                return CUTE_ERR_INVALID;
            }
    return CUTE_OK;
}
