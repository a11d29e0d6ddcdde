/* Folding: a value with one use is written into that use as an expression instead of a
 * statement of its own, a scalar constant as a literal at every use, and a vector built
 * lane by lane (a CONST then INSERTs, how fragments are packed for an MMA) as one brace
 * initializer.  NVRTC's front end and optimizer take time in proportion to the statements
 * they get: the step-5 GEMM lost three fifths of its lines (docs/compile_time.md).
 *
 * What may fold, and why it means the same:
 * - a scalar CONST, anywhere: a literal has no state;
 * - a scalar value (arithmetic, comparison, conversion, select, lane, pointer arithmetic,
 *   a load) used once, by an instruction of the same block that evaluates its operands once
 *   (not a FOR or WHILE, whose bounds are evaluated per iteration).  Its expression names
 *   only registers that never change (SSA) — or, when it names a mutable register or reads
 *   memory, its use is the very next instruction, and that instruction assigns no mutable
 *   register before reading it (a MOV reads its source first);
 * - a vector CONST / INSERT whose one use is an INSERT right after it: the lanes wait for
 *   the last INSERT of the chain, with no instruction between them.
 * An expression longer than FOLD_MAX stays a statement (names fit CC_NAME bytes). */
#include <stdlib.h>
#include <string.h>

#include "cuda_c_internal.h"

enum { FOLD_MAX = 56, FOLD_LANES = 16 };

struct cc_value {
    uint32_t uses;                   /* operand slots that name it, anywhere in the kernel */
    const cute_ir_block *user_block; /* where its (last) use is */
    const cute_ir_inst *user;
    char *text;         /* folded: what its use prints instead of its name */
    bool reads_mutable; /* text names a register that may be assigned */
    bool bound;         /* an instruction's output written straight into its MOV's register */
};

struct cc_pending {
    cute_vreg reg; /* 0: no vector waits */
    char lane[FOLD_LANES][CC_NAME];
};

static void note(cc_fn *e, cute_vreg r, const cute_ir_block *b, const cute_ir_inst *in)
{
    if (!r || r >= e->f->nvregs) return;
    e->val[r].uses++;
    e->val[r].user_block = b;
    e->val[r].user = in;
}

static void count(cc_fn *e, const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        for (int k = 0; k < 3; k++) note(e, in->a[k], b, in);
        /* an INST's first `flags` operands are its outputs: definitions, not uses */
        uint32_t first = in->op == CUTE_OP_INST ? in->flags : 0;
        for (uint32_t k = first; k < in->nvar; k++) note(e, in->var[k], b, in);
        count(e, in->body[0]);
        count(e, in->body[1]);
    }
}

bool cc_fold_begin(cc_fn *e)
{
    e->val = calloc(e->f->nvregs ? e->f->nvregs : 1, sizeof *e->val);
    e->pend = calloc(1, sizeof *e->pend);
    if (!e->val || !e->pend) return cc_fail(e, CUTE_ERR_OOM, "out of memory");
    count(e, &e->f->body);
    return true;
}

void cc_fold_end(cc_fn *e)
{
    for (uint32_t r = 0; e->val && r < e->f->nvregs; r++) free(e->val[r].text);
    free(e->val);
    free(e->pend);
    e->val = NULL, e->pend = NULL;
}

bool cc_fold_uses_one(const cc_fn *e, cute_vreg r)
{
    return e->val && r && r < e->f->nvregs && e->val[r].uses == 1;
}

/* a C token needs no parentheses around it: "8ll", "r5", "0.5f" */
static bool token(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.'))
            return false;
    return true;
}

const char *cc_fold_text(const cc_fn *e, cute_vreg r, char *buf)
{
    const char *t = e->val && r < e->f->nvregs ? e->val[r].text : NULL;
    if (!t) return NULL;
    snprintf(buf, CC_NAME, token(t) ? "%s" : "(%s)", t);
    return buf;
}

static bool is_mutable(const cc_fn *e, cute_vreg r)
{
    return r && r < e->f->nvregs && e->f->vregs[r].mutable_;
}

/* whether in's value may change if it is evaluated later: it reads memory, or a register
 * that may be assigned (itself or through a folded operand) */
static bool reads_mutable(const cc_fn *e, const cute_ir_inst *in)
{
    if (in->op == CUTE_OP_LOAD) return true;
    int n = cute_op_nargs((cute_op)in->op);
    for (int k = 0; k < n && k < 3; k++)
        if (is_mutable(e, in->a[k]) || (in->a[k] && e->val[in->a[k]].reads_mutable)) return true;
    return false;
}

/* a value op with one scalar result in a register that is never assigned again */
static bool scalar_value(const cc_fn *e, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    cute_op_group g = cute_op_group_of(op);
    bool value = g == CUTE_GROUP_VALUE || g == CUTE_GROUP_CONVERT || op == CUTE_OP_CONST ||
                 op == CUTE_OP_SELECT || op == CUTE_OP_EXTRACT || op == CUTE_OP_PTR_ADD ||
                 op == CUTE_OP_LOAD;
    cute_vreg d = in->dst;
    return value && d && d < e->f->nvregs && !e->f->vregs[d].mutable_ && !e->f->vregs[d].param &&
           cute_ir_type(e->f, d).lanes == 1;
}

static bool may_fold_scalar(const cc_fn *e, const cute_ir_block *b, const cute_ir_inst *in,
                            const cute_ir_inst *next)
{
    if (!scalar_value(e, in)) return false;
    if (in->op == CUTE_OP_CONST) return true;
    const struct cc_value *v = &e->val[in->dst];
    if (v->uses != 1 || v->user_block != b) return false;
    if (v->user->op == CUTE_OP_FOR || v->user->op == CUTE_OP_WHILE) return false;
    if (!reads_mutable(e, in)) return true;
    return v->user == next && (!is_mutable(e, next->dst) || next->op == CUTE_OP_MOV);
}

/* whether any instruction of b (its bodies too) reads r */
static bool reads(const cute_ir_block *b, cute_vreg r)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        uint32_t first = in->op == CUTE_OP_INST ? in->flags : 0;
        for (int k = 0; k < 3; k++)
            if (in->a[k] == r) return true;
        for (uint32_t k = first; k < in->nvar; k++)
            if (in->var[k] == r) return true;
        if (reads(in->body[0], r) || reads(in->body[1], r)) return true;
    }
    return false;
}

bool cc_fold_bound(const cc_fn *e, const cute_ir_block *b, uint32_t i)
{
    const cute_ir_inst *in = &b->inst[i], *next = i + 1 < b->n ? &b->inst[i + 1] : NULL;
    return e->val && next && next->op == CUTE_OP_FOR && next->imm == CUTE_FOR_PEEL_FIRST && next->a[2] == in->dst &&
           next->a[1] != in->dst && scalar_value(e, in) && in->op != CUTE_OP_LOAD && in->op != CUTE_OP_CONST &&
           !reads_mutable(e, in) && !reads(next->body[0], in->dst);
}

/* emit `in` into a scratch buffer: its expression when it is one line "<def>EXPR;" */
static bool capture(cc_fn *e, const cute_ir_inst *in, char **expr)
{
    cc_buf tmp = {0}, *saved = e->out;
    int indent = e->indent;
    e->out = &tmp, e->indent = 0;
    cute_op_group g = cute_op_group_of((cute_op)in->op);
    bool ok = g == CUTE_GROUP_ADDRESS || g == CUTE_GROUP_MEMORY ? cc_mem(e, in) : cc_expr(e, in);
    e->out = saved, e->indent = indent;
    *expr = NULL;
    char def[CC_NAME];
    size_t dl = strlen(cc_def(e, in->dst, def));
    if (ok && !tmp.oom && tmp.len > dl + 2 && !strncmp(tmp.p, def, dl) &&
        strchr(tmp.p, '\n') == tmp.p + tmp.len - 1 && tmp.p[tmp.len - 2] == ';' &&
        tmp.len - dl - 2 <= FOLD_MAX) {
        tmp.p[tmp.len - 2] = 0;
        memmove(tmp.p, tmp.p + dl, tmp.len - dl - 1);
        *expr = tmp.p;
        return true;
    }
    free(tmp.p);
    return ok;
}

static bool fold_scalar(cc_fn *e, const cute_ir_inst *in, bool *done)
{
    char *expr;
    if (!capture(e, in, &expr)) return false;
    if (!expr) return true; /* not one short line: a statement after all */
    free(e->val[in->dst].text); /* (a body emitted twice, CUTE_FOR_PEEL_FIRST: the copy's) */
    e->val[in->dst].text = expr;
    e->val[in->dst].reads_mutable = in->op != CUTE_OP_CONST && reads_mutable(e, in);
    *done = true;
    return true;
}

/* --- vectors built lane by lane ------------------------------------------------------- */

static bool lane_vector(const cc_fn *e, const cute_ir_inst *in)
{
    cute_vreg d = in->dst;
    if (!d || d >= e->f->nvregs || e->f->vregs[d].mutable_) return false;
    cute_type t = cute_ir_type(e->f, d);
    return t.lanes > 1 && t.lanes <= FOLD_LANES && !cute_dtype_is_narrow_float((cute_dtype)t.dtype) &&
           t.dtype != CUTE_PTR && t.dtype != CUTE_TMAP;
}

/* whether d's one use is the INSERT right after it, into the same vector */
static bool chained(const cc_fn *e, cute_vreg d, const cute_ir_inst *next)
{
    return next && next->op == CUTE_OP_INSERT && next->a[0] == d && e->val[d].uses == 1 &&
           lane_vector(e, next) && next->imm >= 0 && next->imm < cute_ir_type(e->f, d).lanes;
}

/* "T d = {{l0, l1, ...}};" */
static bool brace_init(cc_fn *e, cute_vreg d)
{
    char def[CC_NAME];
    cc_printf(e->out, "%*s%s{{", 4 * e->indent, "", cc_def(e, d, def));
    for (int l = 0; l < cute_ir_type(e->f, d).lanes; l++)
        cc_printf(e->out, "%s%s", l ? ", " : "", e->pend->lane[l]);
    cc_puts(e->out, "}};\n");
    e->pend->reg = 0;
    return true;
}

static bool fold_vector(cc_fn *e, const cute_ir_inst *in, const cute_ir_inst *next, bool *done)
{
    cute_vreg d = in->dst;
    cute_type t = cute_ir_type(e->f, d);
    if (in->op == CUTE_OP_CONST) {
        cute_type lane = t;
        lane.lanes = 1;
        char k[CC_NAME];
        const char *v = cc_const(e, lane, in->imm, k);
        if (!v) return false;
        if (!chained(e, d, next)) {
            if (in->imm) return true; /* the statements of a splat */
            char def[CC_NAME];
            cc_line(e, "%s{};", cc_def(e, d, def));
            return *done = true;
        }
        for (int l = 0; l < t.lanes; l++) snprintf(e->pend->lane[l], CC_NAME, "%s", v);
        e->pend->reg = d;
        return *done = true;
    }
    if (e->pend->reg != in->a[0] || in->imm < 0 || in->imm >= t.lanes) return true;
    cc_reg(e, in->a[1], e->pend->lane[in->imm]);
    e->pend->reg = d;
    *done = true;
    return chained(e, d, next) || brace_init(e, d);
}

/* --- instruction outputs copied into mutable registers ----------------------------------- */

static int output_index(const cute_ir_inst *in, cute_vreg r)
{
    for (uint32_t k = 0; k < in->flags && k < in->nvar; k++)
        if (in->var[k] == r) return (int)k;
    return -1;
}

/* whether the MOVs in [from, to) of b already assign r */
static bool assigned(const cute_ir_block *b, uint32_t from, uint32_t to, cute_vreg r)
{
    for (uint32_t j = from; j < to; j++)
        if (b->inst[j].dst == r) return true;
    return false;
}

/* An INST's outputs that the MOVs right after it copy into mutable registers (an MMA's
 * accumulators): the asm writes those registers itself and the MOVs go.  Nothing runs
 * between the asm and the MOVs but other such MOVs, which read only fresh outputs, so no
 * one sees a register's new value early. */
static bool bind_outputs(cc_fn *e, const cute_ir_block *b, uint32_t i)
{
    const cute_ir_inst *in = &b->inst[i];
    for (uint32_t j = i + 1; j < b->n && b->inst[j].op == CUTE_OP_MOV; j++) {
        const cute_ir_inst *mv = &b->inst[j];
        cute_vreg out = mv->a[0], to = mv->dst;
        if (output_index(in, out) < 0 || e->val[out].uses != 1 || !is_mutable(e, to) ||
            is_mutable(e, out) || !cute_type_eq(cute_ir_type(e->f, out), cute_ir_type(e->f, to)) ||
            assigned(b, i + 1, j, to))
            break;
        char name[CC_NAME], *t = strdup(cc_reg(e, to, name));
        if (!t) return cc_fail(e, CUTE_ERR_OOM, "out of memory");
        free(e->val[out].text); /* (a body emitted twice: the copy's) */
        e->val[out].text = t;
        e->val[out].bound = e->val[out].reads_mutable = true;
    }
    return true;
}

bool cc_fold(cc_fn *e, const cute_ir_block *b, uint32_t i, bool *done)
{
    const cute_ir_inst *in = &b->inst[i], *next = i + 1 < b->n ? &b->inst[i + 1] : NULL;
    *done = false;
    if (in->op == CUTE_OP_INST) return bind_outputs(e, b, i);
    if (in->op == CUTE_OP_MOV && in->a[0] < e->f->nvregs && e->val[in->a[0]].bound)
        return *done = true;
    if ((in->op == CUTE_OP_CONST || in->op == CUTE_OP_INSERT) && lane_vector(e, in))
        return fold_vector(e, in, next, done);
    if (may_fold_scalar(e, b, in, next)) return fold_scalar(e, in, done);
    return true;
}
