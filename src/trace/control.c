/* Structured control flow for the block macros, barriers and printf.
 *
 * The macros are C `for` statements whose condition, cute__body_once, is true once (the
 * body runs once at trace time, recording IR into the open block) and then closes the
 * block.  A C `break` or `return` inside would skip the closing: the kernel then ends with
 * a block open, which cute_kernel_end reports. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"

static bool push_scope(cute_ctx *c, int kind)
{
    if (c->depth + 1 >= CUTE_IR_MAX_DEPTH)
        return cute_ctx_fail(c, "loops and ifs nested deeper than %d", CUTE_IR_MAX_DEPTH - 1);
    ctx_walk(c);
    c->depth++;
    c->scopes[c->depth] = (scope){++c->next_scope, false, kind};
    ctx_walk(c);
    return true;
}

cute_int cute__for_begin(cute_ctx *c, cute_int lo, cute_int hi, int64_t step, int unroll)
{
    if (!ctx_ok(c)) return cute_i(0);
    if (step == 0) {
        cute_ctx_fail(c, "a loop with step 0");
        return cute_i(0);
    }
    /* with a positive step the variable stays in [min lo, max hi - 1] inside the body; it
     * is an i32 when both bounds are and its last increment cannot overflow */
    int64_t llo = INT64_MIN, lhi = INT64_MAX, hlo, hhi = INT64_MAX;
    if (step > 0) {
        cute_symbolic_range(c->sym, lo, &llo, &lhi);
        cute_symbolic_range(c->sym, hi, &hlo, &hhi);
    }
    int w = step > 0 && ctx_index_width(c, lo) == 32 && ctx_index_width(c, hi) == 32 &&
                    hhi <= (int64_t)INT32_MAX - step
                ? 32
                : 64;
    cute_vreg l = ctx_lower(c, lo, w), h = ctx_lower(c, hi, w);
    if (c->alg.failed) return cute_i(0);
    cute_vreg var = cute_ir_new_vreg(c->fn, cute_type_of(w == 32 ? CUTE_I32 : CUTE_I64), "i", false);
    cute_ir_for(&c->b, var, l, h, step, unroll);
    if (!push_scope(c, SCOPE_FOR)) return cute_i(0);
    ctx_define_in_scope(c, var);
    cute_int i = cute_symbolic_symbol(c->sym, "i", 1, llo == INT64_MIN ? CUTE_SYM_NO_BOUND : llo);
    if (step > 0 && hhi != INT64_MAX)
        cute_symbolic_tighten(c->sym, cute_symbolic_symbol_index(c->sym, i), CUTE_SYM_NO_BOUND, hhi - 1);
    ctx_bind(c, i, var);
    return i;
}

bool cute__body_once(cute_ctx *c)
{
    if (c->depth == 0) { /* an error happened before the body opened: run it never */
        return false;
    }
    scope *s = &c->scopes[c->depth];
    if (!s->entered) {
        s->entered = true;
        return true;
    }
    if (s->kind == SCOPE_IF) { /* remember the IF so that CUTE_ELSE can open its else */
        cute_ir_block *outer = c->b.stack[c->b.depth - 1];
        c->last_if.blk = outer;
        c->last_if.index = outer->n - 1;
        c->last_if.valid = true;
    } else {
        c->last_if.valid = false;
    }
    ctx_walk(c);
    c->depth--;
    cute_ir_end(&c->b);
    ctx_walk(c);
    return false;
}

void cute__if_begin(cute_ctx *c, cute_val pred)
{
    if (!ctx_ok(c)) return;
    if (!ctx_usable(c, pred, "the CUTE_IF predicate")) return;
    if (!cute_type_eq(pred.t, cute_type_of(CUTE_I1))) {
        cute_ctx_fail(c, "CUTE_IF needs an i1 predicate (a comparison), not %s",
                      cute_dtype_name((cute_dtype)pred.t.dtype));
        return;
    }
    cute_ir_if(&c->b, pred.r);
    push_scope(c, SCOPE_IF);
}

void cute__else_begin(cute_ctx *c)
{
    if (!ctx_ok(c)) return;
    if (!c->last_if.valid) {
        cute_ctx_fail(c, "CUTE_ELSE without a CUTE_IF right before it");
        return;
    }
    c->last_if.valid = false;
    /* reopen the else-body of that IF (it is the last instruction of the current block) */
    cute_ir_block *blk = c->b.stack[c->b.depth];
    if (blk != c->last_if.blk || c->last_if.index != blk->n - 1) {
        cute_ctx_fail(c, "CUTE_ELSE must follow its CUTE_IF directly");
        return;
    }
    cute_ir_reopen_else(&c->b);
    push_scope(c, SCOPE_ELSE);
}

void cute__while_begin(cute_ctx *c)
{
    if (!ctx_ok(c)) return;
    cute_ir_while(&c->b);
    if (push_scope(c, SCOPE_WHILE_COND)) c->scopes[c->depth].entered = true;
}

void cute__while_cond(cute_ctx *c, cute_val pred)
{
    if (!ctx_ok(c) || c->scopes[c->depth].kind != SCOPE_WHILE_COND) return;
    if (!ctx_usable(c, pred, "the CUTE_WHILE condition")) return;
    if (!cute_type_eq(pred.t, cute_type_of(CUTE_I1))) {
        cute_ctx_fail(c, "CUTE_WHILE needs an i1 condition");
        return;
    }
    ctx_walk(c);
    cute_ir_while_body(&c->b, pred.r);
    /* the condition's scope ends; the body's begins (values of the condition block are not
     * visible in the body: recompute what you need) */
    c->scopes[c->depth] = (scope){++c->next_scope, false, SCOPE_WHILE};
    ctx_walk(c);
}

/* For library code that emits structured IR itself (predicated copies): the same scopes as
 * the macros, so values lowered inside a body are not reused after it. */
void ctx_open_if(cute_ctx *c, cute_vreg cond)
{
    cute_ir_if(&c->b, cond);
    if (push_scope(c, SCOPE_IF)) c->scopes[c->depth].entered = true;
}

void ctx_open_else(cute_ctx *c)
{
    ctx_walk(c);
    c->depth--;
    cute_ir_else(&c->b);
    if (push_scope(c, SCOPE_ELSE)) c->scopes[c->depth].entered = true;
}

void ctx_close(cute_ctx *c)
{
    ctx_walk(c);
    if (c->depth > 0) c->depth--;
    cute_ir_end(&c->b);
    ctx_walk(c);
}

void cute_barrier(cute_ctx *c)
{
    if (!ctx_ok(c)) return;
    cute_ir_op_void(&c->b, CUTE_OP_BARRIER, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
}

void cute_printf(cute_ctx *c, const char *fmt, int n, const cute_val *args)
{
    if (!ctx_ok(c)) return;
    if (!fmt) {
        cute_ctx_fail(c, "cute_printf without a format");
        return;
    }
    cute_ir_inst *in = cute_ir_append(&c->b, CUTE_OP_PRINTF);
    in->str = cute_ir_strdup(c->fn, fmt);
    in->var = n ? cute_ir_alloc(c->fn, (size_t)n * sizeof(cute_vreg)) : NULL;
    in->nvar = (uint32_t)n;
    for (int i = 0; i < n; i++) {
        if (!ctx_usable(c, args[i], "a cute_printf argument")) return;
        in->var[i] = args[i].r;
    }
}

void cute_kernel_min_blocks(cute_ctx *c, int blocks_per_sm)
{
    if (!ctx_ok(c)) return;
    if (blocks_per_sm < 0 || blocks_per_sm > 32) {
        cute_ctx_fail(c, "cute_kernel_min_blocks: %d blocks per SM (0 to 32)", blocks_per_sm);
        return;
    }
    c->fn->min_blocks = blocks_per_sm;
}

void cute_kernel_reaches_buffers(cute_ctx *c)
{
    if (ctx_ok(c)) c->fn->reaches_buffers = true;
}
