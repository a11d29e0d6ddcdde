/* IR functions: arena, registers, the builder. */
#include <stdlib.h>
#include <string.h>

#include "cutec/ir.h"

/* --- the arena: chunks freed together with the function ----------------------------- */

struct cute_ir_arena {
    struct cute_ir_arena *next;
    size_t used, cap;
    max_align_t data[];
};

void *cute_ir_alloc(cute_ir_func *f, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    cute_ir_arena *a = f->arena;
    if (!a || a->used + n > a->cap) {
        size_t cap = n > 65536 ? n : 65536;
        a = malloc(sizeof *a + cap);
        if (!a) return NULL;
        a->next = f->arena;
        a->used = 0;
        a->cap = cap;
        f->arena = a;
    }
    void *p = (char *)a->data + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

const char *cute_ir_strdup(cute_ir_func *f, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = cute_ir_alloc(f, n);
    if (p) memcpy(p, s, n);
    return p;
}

static void block_free(cute_ir_block *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        for (int k = 0; k < 2; k++)
            if (b->inst[i].body[k]) {
                block_free(b->inst[i].body[k]);
                free(b->inst[i].body[k]);
            }
    free(b->inst);
}

cute_ir_func *cute_ir_func_new(const char *name)
{
    cute_ir_func *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->nvregs = 1; /* register 0 is "none" */
    f->vcap = 64;
    f->vregs = calloc(f->vcap, sizeof *f->vregs);
    f->name = cute_ir_strdup(f, name ? name : "kernel");
    if (!f->vregs || !f->name) {
        cute_ir_func_free(f);
        return NULL;
    }
    return f;
}

void cute_ir_func_free(cute_ir_func *f)
{
    if (!f) return;
    block_free(&f->body);
    free(f->vregs);
    free(f->params);
    while (f->arena) {
        cute_ir_arena *next = f->arena->next;
        free(f->arena);
        f->arena = next;
    }
    free(f);
}

cute_vreg cute_ir_new_vreg(cute_ir_func *f, cute_type t, const char *name, bool mutable_)
{
    if (f->nvregs == f->vcap) {
        uint32_t cap = f->vcap * 2;
        cute_ir_vreg_info *v = realloc(f->vregs, cap * sizeof *v);
        if (!v) return 0;
        f->vregs = v;
        f->vcap = cap;
    }
    cute_ir_vreg_info *info = &f->vregs[f->nvregs];
    info->type = t;
    info->name = name ? cute_ir_strdup(f, name) : NULL;
    info->mutable_ = mutable_;
    info->param = false;
    return f->nvregs++;
}

cute_vreg cute_ir_add_param(cute_ir_func *f, cute_type t, const char *name)
{
    if (f->nparams == f->pcap) {
        uint32_t cap = f->pcap ? f->pcap * 2 : 8;
        cute_vreg *p = realloc(f->params, cap * sizeof *p);
        if (!p) return 0;
        f->params = p;
        f->pcap = cap;
    }
    cute_vreg v = cute_ir_new_vreg(f, t, name, false);
    if (!v) return 0;
    f->vregs[v].param = true;
    f->params[f->nparams++] = v;
    return v;
}

/* --- the builder ------------------------------------------------------------------- */

void cute_ir_builder_init(cute_ir_builder *b, cute_ir_func *f)
{
    memset(b, 0, sizeof *b);
    b->f = f;
    b->stack[0] = &f->body;
}

cute_ir_inst *cute_ir_append(cute_ir_builder *b, cute_op op)
{
    cute_ir_block *blk = b->stack[b->depth];
    /* after out-of-memory, writes go to a scratch instruction that nothing reads */
    if (b->oom) return b->last = memset(&b->scratch, 0, sizeof b->scratch);
    if (blk->n == blk->cap) {
        uint32_t cap = blk->cap ? blk->cap * 2 : 16;
        cute_ir_inst *p = realloc(blk->inst, cap * sizeof *p);
        if (!p) {
            b->oom = true;
            return b->last = memset(&b->scratch, 0, sizeof b->scratch);
        }
        /* only the innermost block grows, and no open body's owner lives in it */
        blk->inst = p;
        blk->cap = cap;
    }
    cute_ir_inst *in = &blk->inst[blk->n++];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->type = cute_type_of(CUTE_VOID);
    in->file = b->file;
    in->line = b->line;
    return b->last = in;
}

cute_vreg cute_ir_op(cute_ir_builder *b, cute_op op, cute_type t, cute_vreg a0, cute_vreg a1,
                     cute_vreg a2)
{
    cute_vreg dst = cute_ir_new_vreg(b->f, t, NULL, false);
    if (!dst) b->oom = true;
    cute_ir_inst *in = cute_ir_append(b, op);
    in->type = t;
    in->dst = dst;
    in->a[0] = a0, in->a[1] = a1, in->a[2] = a2;
    return dst;
}

void cute_ir_op_void(cute_ir_builder *b, cute_op op, cute_type t, cute_vreg a0, cute_vreg a1,
                     cute_vreg a2, int64_t imm)
{
    cute_ir_inst *in = cute_ir_append(b, op);
    in->type = t;
    in->a[0] = a0, in->a[1] = a1, in->a[2] = a2;
    in->imm = imm;
}

void cute_ir_varop(cute_ir_builder *b, cute_op op, const char *str, const cute_vreg *var, int n,
                   int64_t imm)
{
    cute_vreg *copy = n > 0 ? cute_ir_alloc(b->f, (size_t)n * sizeof *copy) : NULL;
    const char *text = str ? cute_ir_strdup(b->f, str) : NULL;
    if ((n > 0 && !copy) || (str && !text)) b->oom = true;
    cute_ir_inst *in = cute_ir_append(b, op);
    if (copy) memcpy(copy, var, (size_t)n * sizeof *copy);
    in->str = text;
    in->var = copy;
    in->nvar = copy ? (uint32_t)n : 0;
    in->imm = imm;
}

cute_vreg cute_ir_const_int(cute_ir_builder *b, cute_dtype d, int64_t v)
{
    cute_vreg r = cute_ir_op(b, CUTE_OP_CONST, cute_type_of(d), 0, 0, 0);
    b->last->imm = v;
    return r;
}

cute_vreg cute_ir_const_float(cute_ir_builder *b, cute_dtype d, double v)
{
    int64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return cute_ir_const_int(b, d, bits);
}

cute_vreg cute_ir_sreg(cute_ir_builder *b, cute_sreg s)
{
    cute_vreg r = cute_ir_op(b, CUTE_OP_SREG, cute_type_of(CUTE_I32), 0, 0, 0);
    b->last->imm = s;
    return r;
}

void cute_ir_mov(cute_ir_builder *b, cute_vreg dst, cute_vreg src)
{
    cute_ir_inst *in = cute_ir_append(b, CUTE_OP_MOV);
    in->type = b->f->vregs[dst].type;
    in->dst = dst;
    in->a[0] = src;
}

/* open body k of the instruction just appended */
static void open_body(cute_ir_builder *b, cute_ir_inst *in, int k)
{
    if (b->oom) return;
    if (b->depth + 1 >= CUTE_IR_MAX_DEPTH) {
        b->oom = true; /* the verifier reports nesting; treat as failure */
        return;
    }
    if (!in->body[k]) in->body[k] = calloc(1, sizeof(cute_ir_block));
    if (!in->body[k]) {
        b->oom = true;
        return;
    }
    b->depth++;
    b->stack[b->depth] = in->body[k];
    b->owner[b->depth] = in;
}

void cute_ir_for(cute_ir_builder *b, cute_vreg var, cute_vreg lo, cute_vreg hi, int64_t step,
                 int unroll)
{
    cute_ir_inst *in = cute_ir_append(b, CUTE_OP_FOR);
    in->a[0] = var, in->a[1] = lo, in->a[2] = hi;
    in->imm = unroll;
    in->imm2 = step;
    open_body(b, in, 0);
}

bool cute_ir_breaks(const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->op == CUTE_OP_BREAK) return true;
        if (in->op == CUTE_OP_IF && (cute_ir_breaks(in->body[0]) || cute_ir_breaks(in->body[1])))
            return true;
    }
    return false;
}

void cute_ir_if(cute_ir_builder *b, cute_vreg cond)
{
    cute_ir_inst *in = cute_ir_append(b, CUTE_OP_IF);
    in->a[0] = cond;
    open_body(b, in, 0);
}

void cute_ir_else(cute_ir_builder *b)
{
    if (b->oom || b->depth == 0) return;
    cute_ir_inst *in = b->owner[b->depth];
    cute_ir_end(b);
    open_body(b, in, 1);
}

void cute_ir_while(cute_ir_builder *b)
{
    cute_ir_inst *in = cute_ir_append(b, CUTE_OP_WHILE);
    open_body(b, in, 0);
}

void cute_ir_while_body(cute_ir_builder *b, cute_vreg cond)
{
    if (b->oom || b->depth == 0) return;
    cute_ir_inst *in = b->owner[b->depth];
    in->var = cute_ir_alloc(b->f, sizeof(cute_vreg));
    if (!in->var) {
        b->oom = true;
        return;
    }
    in->var[0] = cond;
    in->nvar = 1;
    cute_ir_end(b);
    open_body(b, in, 1);
}

void cute_ir_end(cute_ir_builder *b)
{
    if (b->depth > 0) {
        b->owner[b->depth] = NULL;
        b->depth--;
    }
}

void cute_ir_reopen_else(cute_ir_builder *b)
{
    cute_ir_block *blk = b->stack[b->depth];
    if (b->oom || blk->n == 0 || blk->inst[blk->n - 1].op != CUTE_OP_IF) {
        b->oom = b->oom || blk->n == 0;
        return;
    }
    open_body(b, &blk->inst[blk->n - 1], 1);
}
