/* Inline PTX from the DSL (cute_asm): the escape hatch for what the instruction table lacks.
 * Operands are listed in any order, %k in the text naming operand k; the IR's ASM op wants
 * in-outs, then outputs, then inputs (as GCC numbers asm operands), so the operands are
 * reordered and the text renumbered here, immediates are written into the text, and a guard
 * wraps the instruction in a predicate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"

/* growable text */
typedef struct text {
    char *p;
    size_t len, cap;
    bool oom;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (t->oom) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = true;
            return;
        }
        t->p = p, t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static int rank(cute_asm_kind k) { return k == CUTE_ASM_INOUT ? 0 : k == CUTE_ASM_OUT ? 1 : 2; }

/* each operand's kind, type and value checked; false after a report */
static bool check_operand(cute_ctx *c, const cute_asm_operand *o, int k, int *guards)
{
    cute_type t = o->kind == CUTE_ASM_OUT ? o->type : o->v.t;
    if (o->kind == CUTE_ASM_IMM) return true;
    if (o->kind > CUTE_ASM_GUARD)
        return cute_ctx_fail(c, "cute_asm: operand %d has no kind %d", k, (int)o->kind);
    char what[48];
    snprintf(what, sizeof what, "cute_asm: operand %d", k);
    if (o->kind != CUTE_ASM_OUT && !ctx_usable(c, o->v, what)) return false;
    if (o->kind == CUTE_ASM_INOUT && !c->fn->vregs[o->v.r].mutable_)
        return cute_ctx_fail(c, "cute_asm: in-out operand %d must be a variable (cute_val_var)", k);
    if (o->kind == CUTE_ASM_GUARD && (!cute_type_eq(t, cute_type_of(CUTE_I1)) || ++*guards > 1))
        return cute_ctx_fail(c, "cute_asm: operand %d: one guard, an i1 predicate", k);
    int bits = t.dtype == CUTE_PTR ? 64 : cute_dtype_bits((cute_dtype)t.dtype) * t.lanes;
    if (t.dtype == CUTE_VOID || (t.dtype != CUTE_PTR && t.dtype != CUTE_I1 && bits != 8 && bits != 16 &&
                                 bits != 32 && bits != 64)) {
        char tb[64];
        cute_type_str(t, tb, sizeof tb);
        return cute_ctx_fail(c, "cute_asm: operand %d of type %s (registers of 8 to 64 bits)", k, tb);
    }
    return true;
}

/* the text with %k renumbered to the reordered operands (pos[k]), immediates in place */
static bool rewrite(cute_ctx *c, const char *ptx, const cute_asm_operand *ops, int n,
                    const int *pos, text *out)
{
    for (const char *s = ptx; *s; s++) {
        if (*s != '%' || s[1] < '0' || s[1] > '9') {
            add(out, s, *s == '%' && s[1] == '%' ? 2 : 1);
            if (*s == '%' && s[1] == '%') s++;
            continue;
        }
        char *end;
        long k = strtol(s + 1, &end, 10);
        if (k >= n) return cute_ctx_fail(c, "cute_asm: %%%ld names no operand (%d given)", k, n);
        char num[32];
        if (ops[k].kind == CUTE_ASM_IMM)
            snprintf(num, sizeof num, "%lld", (long long)ops[k].imm);
        else
            snprintf(num, sizeof num, "%%%d", pos[k]);
        add(out, num, strlen(num));
        s = end - 1;
    }
    return true;
}

bool cute_asm(cute_ctx *c, const char *ptx, cute_asm_operand *ops, int n, unsigned flags)
{
    if (!ctx_ok(c)) return false;
    if (!ptx || n < 0 || (n && !ops)) return cute_ctx_fail(c, "cute_asm: no PTX text or operands");
    if (c->target_interp)
        return cute_ctx_fail(c, "cute_asm: the interpreter runs the instruction table's rows "
                                "(cutec/inst.h) but not inline PTX: `%s` (cute_ctx_on_interp lets a "
                                "kernel take another path there)",
                             ptx);
    int guards = 0, guard = -1, count[3] = {0};
    for (int k = 0; k < n; k++) {
        if (!check_operand(c, &ops[k], k, &guards)) return false;
        if (ops[k].kind == CUTE_ASM_GUARD) guard = k;
        if (ops[k].kind != CUTE_ASM_IMM) count[rank(ops[k].kind)]++;
    }
    int *pos = malloc((size_t)(n + 1) * sizeof *pos);
    cute_vreg *var = malloc((size_t)(n + 1) * sizeof *var);
    text body = {0}, full = {0};
    bool ok = pos && var;
    int next[3] = {0, count[0], count[0] + count[1]};
    for (int k = 0; ok && k < n; k++) {
        if (ops[k].kind == CUTE_ASM_IMM) continue;
        if (ops[k].kind == CUTE_ASM_OUT) ops[k].v = ctx_val(c, cute_ir_new_vreg(c->fn, ops[k].type, "asm", false));
        pos[k] = next[rank(ops[k].kind)]++;
        var[pos[k]] = ops[k].v.r;
    }
    ok = ok && rewrite(c, ptx, ops, n, pos, &body);
    if (ok && guard >= 0) { /* the guard as a predicate register, the instruction under it */
        char head[96];
        snprintf(head, sizeof head, "{ .reg .pred asm_guard; setp.ne.b32 asm_guard, %%%d, 0; @asm_guard ", pos[guard]);
        add(&full, head, strlen(head));
        add(&full, body.p ? body.p : "", body.len);
        add(&full, " }", 2);
    }
    ok = ok && !body.oom && !full.oom;
    if (ok) {
        int total = count[0] + count[1] + count[2];
        cute_ir_varop(&c->b, CUTE_OP_ASM, guard >= 0 ? full.p : body.p ? body.p : "", var, total,
                      count[0] + count[1]);
        c->b.last->imm2 = count[0];
        c->b.last->flags = (uint16_t)(flags & CUTE_ASM_NO_MEMORY ? CUTE_IR_ASM_PURE : 0);
    } else if (!c->alg.failed) {
        cute_ctx_fail(c, "cute_asm: out of memory");
    }
    free(pos), free(var), free(body.p), free(full.p);
    return ok;
}

cute_val cute_smem_addr(cute_ctx *c, cute_val p)
{
    cute_type u = cute_type_of(CUTE_U32);
    cute_val none = {0, u, 0};
    if (!ctx_ok(c) || !ctx_usable(c, p, "cute_smem_addr's pointer")) return none;
    if (p.t.dtype != CUTE_PTR || p.t.space != CUTE_SMEM) {
        cute_ctx_fail(c, "cute_smem_addr needs a shared-memory pointer");
        return none;
    }
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_CVT, u, p.r, 0, 0));
}
