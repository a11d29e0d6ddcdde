/* The PTX ISA's ordering rules of wgmma, checked over a function's structured control flow
 * (the verifier's second part, run when a function holds a wgmma):
 *   - wgmma.fence (cute_warpgroup_arrive) must come between a write of a register by any
 *     other instruction and a wgmma.mma_async that reads it (its accumulators, A's
 *     registers); accumulators passed from one wgmma to the next need none;
 *   - a wgmma's accumulators are written asynchronously: no other instruction may read or
 *     write them until a wgmma.wait_group covers its group (wait_group N leaves the N
 *     newest committed groups, and the uncommitted one, in flight).
 * The state per register: the op that wrote it since the last fence (NULL: none), and, for
 * an accumulator in flight, how many commits ago it was issued (0: in the open group).
 * Loops are walked twice, the second time from the join of their entry and their end
 * (the state an iteration after the first starts from); branches are joined.  A join keeps
 * a register dirty or in flight if either side does, with the fewer commits. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/ir.h"
#include "ir/ir_internal.h"

typedef struct wg_state {
    const cute_ir_inst **dirty; /* per register: the op that wrote it since the last fence */
    const cute_ir_inst **issued; /* per register: the wgmma whose accumulator it is, in flight */
    int16_t *age;               /* per register in flight: commits since its wgmma */
} wg_state;

typedef struct wg_check {
    const cute_ir_func *f;
    char *err;
    size_t n;
    bool failed;
} wg_check;

static bool state_new(wg_state *s, uint32_t n)
{
    s->dirty = calloc(n, sizeof *s->dirty);
    s->issued = calloc(n, sizeof *s->issued);
    s->age = calloc(n, sizeof *s->age);
    return s->dirty && s->issued && s->age;
}

static void state_free(wg_state *s)
{
    free(s->dirty), free(s->issued), free(s->age);
}

static void state_copy(wg_state *to, const wg_state *from, uint32_t n)
{
    memcpy(to->dirty, from->dirty, n * sizeof *to->dirty);
    memcpy(to->issued, from->issued, n * sizeof *to->issued);
    memcpy(to->age, from->age, n * sizeof *to->age);
}

/* into `to`: what either state has dirty or in flight (the fewer commits) */
static void state_join(wg_state *to, const wg_state *other, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        if (!to->dirty[r]) to->dirty[r] = other->dirty[r];
        if (other->issued[r] && (!to->issued[r] || other->age[r] < to->age[r]))
            to->issued[r] = other->issued[r], to->age[r] = other->age[r];
    }
}

static bool fail(wg_check *w, const cute_ir_inst *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(wg_check *w, const cute_ir_inst *in, const char *fmt, ...)
{
    if (w->failed) return false;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ir_verify_message(w->err, w->n, w->f, in, msg);
    w->failed = true;
    return false;
}

static const cute_inst_info *wgmma_row(const cute_ir_inst *in)
{
    if (in->op != CUTE_OP_INST) return NULL;
    const cute_inst_info *I = cute_inst_info_of((cute_inst)in->imm2);
    return I && (I->flags & CUTE_INST_WARPGROUP) ? I : NULL;
}

static const char *site(const cute_ir_inst *in, char *buf, size_t n)
{
    snprintf(buf, n, "%s:%d (%s)", in->file ? in->file : "?", in->line, cute_op_name((cute_op)in->op));
    return buf;
}

/* --- one instruction ------------------------------------------------------------------------- */

/* a register another instruction reads: not an accumulator in flight */
static bool read_ok(wg_check *w, const wg_state *s, const cute_ir_inst *in, cute_vreg r)
{
    char at[200];
    if (r >= w->f->nvregs || !s->issued[r]) return true;
    return fail(w, in, "reads %%%u, an accumulator of the wgmma at %s that is still in flight: a "
                       "cute_warpgroup_wait (wgmma.wait_group) covering its group must come first",
                r, site(s->issued[r], at, sizeof at));
}

static bool write_ok(wg_check *w, wg_state *s, const cute_ir_inst *in, cute_vreg r)
{
    char at[200];
    if (r == 0 || r >= w->f->nvregs) return true;
    if (s->issued[r])
        return fail(w, in, "writes %%%u, an accumulator of the wgmma at %s that is still in flight: a "
                           "cute_warpgroup_wait (wgmma.wait_group) covering its group must come first",
                    r, site(s->issued[r], at, sizeof at));
    s->dirty[r] = in;
    return true;
}

/* a wgmma.mma_async: the registers it reads were not written since the last fence; its
 * accumulators are in flight from here */
static bool mma_async(wg_check *w, wg_state *s, const cute_ir_inst *in, const cute_inst_info *I)
{
    char at[200];
    const cute_vreg *out = in->var, *inp = in->var + in->flags;
    for (int g = 0; g < I->ngroups; g++) {
        const cute_inst_group *G = &I->groups[g];
        bool acc = G->role == CUTE_IG_INOUT, a = G->role == CUTE_IG_IN && G->cls == CUTE_RC_B32;
        const cute_vreg *r = acc || G->role == CUTE_IG_OUT ? out : inp;
        for (int k = 0; (acc || a) && k < G->count; k++)
            if (r[k] < w->f->nvregs && s->dirty[r[k]])
                return fail(w, in, "%s reads %%%u (%s[%d]), written at %s since the last wgmma.fence: "
                                   "cute_warpgroup_arrive must come between them",
                            I->id, r[k], G->name, k, site(s->dirty[r[k]], at, sizeof at));
        if (acc)
            for (int k = 0; k < G->count; k++) s->issued[r[k]] = in, s->age[r[k]] = 0;
        if (acc || G->role == CUTE_IG_OUT) out += G->count;
        else if (G->count) inp += G->count;
    }
    return true;
}

static bool warpgroup_op(wg_check *w, wg_state *s, const cute_ir_inst *in, const cute_inst_info *I)
{
    uint32_t n = w->f->nvregs;
    if (in->imm2 == CUTE_INST_WGMMA_FENCE) memset(s->dirty, 0, n * sizeof *s->dirty);
    else if (in->imm2 == CUTE_INST_WGMMA_COMMIT_GROUP) {
        for (uint32_t r = 0; r < n; r++)
            if (s->issued[r] && s->age[r] < INT16_MAX) s->age[r]++;
    } else if (in->imm2 == CUTE_INST_WGMMA_WAIT_GROUP) {
        for (uint32_t r = 0; r < n; r++)
            if (s->issued[r] && s->age[r] > in->imm) s->issued[r] = NULL;
    } else {
        return mma_async(w, s, in, I);
    }
    return true;
}

/* any other op: what it reads and writes */
static bool plain_op(wg_check *w, wg_state *s, const cute_ir_inst *in)
{
    int nargs = cute_op_nargs((cute_op)in->op);
    uint32_t outs = in->op == CUTE_OP_INST ? in->flags : in->op == CUTE_OP_ASM ? (uint32_t)in->imm : 0;
    uint32_t inouts = in->op == CUTE_OP_ASM ? (uint32_t)in->imm2 : 0;
    for (int k = 0; k < nargs; k++)
        if (!read_ok(w, s, in, in->a[k])) return false;
    for (uint32_t k = 0; nargs < 0 && k < in->nvar; k++)
        if ((k < inouts || k >= outs) && !read_ok(w, s, in, in->var[k])) return false;
    for (uint32_t k = 0; nargs < 0 && k < outs && k < in->nvar; k++)
        if (!write_ok(w, s, in, in->var[k])) return false;
    return write_ok(w, s, in, in->dst);
}

/* --- control flow ------------------------------------------------------------------------------ */

static bool walk(wg_check *w, wg_state *s, const cute_ir_block *b);

/* a loop body (FOR: one block; WHILE: the condition's, then the body's): the state after
 * any number of iterations, from entry; checked for the first iteration and for those
 * after it */
static bool loop(wg_check *w, wg_state *s, const cute_ir_block *b0, const cute_ir_block *b1)
{
    uint32_t n = w->f->nvregs;
    wg_state entry;
    bool ok = state_new(&entry, n);
    if (!ok) return fail(w, b0 && b0->n ? &b0->inst[0] : NULL, "out of memory");
    state_copy(&entry, s, n);
    for (int pass = 0; ok && pass < 2; pass++) {
        ok = (!b0 || walk(w, s, b0)) && (!b1 || walk(w, s, b1));
        state_join(s, &entry, n); /* the next iteration's start, or the exit */
        if (pass == 0) state_copy(&entry, s, n);
    }
    state_free(&entry);
    return ok;
}

static bool branches(wg_check *w, wg_state *s, const cute_ir_inst *in)
{
    uint32_t n = w->f->nvregs;
    wg_state other;
    if (!state_new(&other, n)) return fail(w, in, "out of memory");
    state_copy(&other, s, n);
    bool ok = (!in->body[0] || walk(w, s, in->body[0])) && (!in->body[1] || walk(w, &other, in->body[1]));
    state_join(s, &other, n);
    state_free(&other);
    return ok;
}

static bool step(wg_check *w, wg_state *s, const cute_ir_inst *in)
{
    const cute_inst_info *I = wgmma_row(in);
    switch ((cute_op)in->op) {
    case CUTE_OP_FOR:
        return read_ok(w, s, in, in->a[1]) && read_ok(w, s, in, in->a[2]) && write_ok(w, s, in, in->a[0]) &&
               loop(w, s, in->body[0], NULL);
    case CUTE_OP_IF: return read_ok(w, s, in, in->a[0]) && branches(w, s, in);
    case CUTE_OP_WHILE: return loop(w, s, in->body[0], in->body[1]);
    case CUTE_OP_BREAK: return true;
    default: return I ? warpgroup_op(w, s, in, I) : plain_op(w, s, in);
    }
}

static bool walk(wg_check *w, wg_state *s, const cute_ir_block *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (!step(w, s, &b->inst[i])) return false;
    return true;
}

static bool has_wgmma(const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++)
        if (wgmma_row(&b->inst[i]) || has_wgmma(b->inst[i].body[0]) || has_wgmma(b->inst[i].body[1])) return true;
    return false;
}

int ir_verify_wgmma(const cute_ir_func *f, char *err, size_t n)
{
    if (!has_wgmma(&f->body)) return 0;
    wg_check w = {f, err, n, false};
    wg_state s;
    bool ok = state_new(&s, f->nvregs) && walk(&w, &s, &f->body);
    if (!ok && !w.failed) snprintf(err, n, "verify %s: out of memory", f->name);
    state_free(&s);
    return ok ? 0 : CUTE_IR_VERIFY_MISUSE;
}
