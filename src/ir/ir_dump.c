/* The text form of a function: `%3:f32 = ADD %1, %2   ; add.c:12`, bodies indented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/ir.h"

static void reg(FILE *o, const cute_ir_func *f, cute_vreg r)
{
    if (r && r < f->nvregs && f->vregs[r].name)
        fprintf(o, "%%%u.%s", r, f->vregs[r].name);
    else
        fprintf(o, "%%%u", r);
}

static void imm_text(FILE *o, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    if (op == CUTE_OP_CONST && cute_dtype_is_float((cute_dtype)in->type.dtype)) {
        double d;
        memcpy(&d, &in->imm, sizeof d);
        fprintf(o, " %.17g", d);
    } else if (op == CUTE_OP_CONST || op == CUTE_OP_EXTRACT || op == CUTE_OP_INSERT ||
               op == CUTE_OP_SMEM_PTR) {
        fprintf(o, " %lld", (long long)in->imm);
    } else if (op == CUTE_OP_SREG) {
        fprintf(o, " %s", cute_sreg_name((cute_sreg)in->imm));
    } else if (op == CUTE_OP_LOAD || op == CUTE_OP_STORE) {
        fprintf(o, " align=%lld", (long long)in->imm);
    } else if (op == CUTE_OP_SHFL) {
        static const char *m[] = {"idx", "up", "down", "xor"};
        fprintf(o, " %s", in->imm >= 0 && in->imm < 4 ? m[in->imm] : "?");
    } else if (op == CUTE_OP_VOTE) {
        static const char *m[] = {"any", "all", "ballot"};
        fprintf(o, " %s", in->imm >= 0 && in->imm < 3 ? m[in->imm] : "?");
    } else if (op == CUTE_OP_ATOMIC) {
        static const char *m[] = {"add", "min", "max", "exch"};
        fprintf(o, " %s", in->imm >= 0 && in->imm < 4 ? m[in->imm] : "?");
    }
    if (op != CUTE_OP_INST && (in->flags & CUTE_IR_FAST)) fputs(" fast", o);
}

static void quoted(FILE *o, const char *s)
{
    fputc('"', o);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(o, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", o);
        else
            fputc(*s, o);
    }
    fputc('"', o);
}

static void block(FILE *o, const cute_ir_func *f, const cute_ir_block *b, int depth);

/* INST: " ROW outputs <- inputs", and the immediate when the row has one */
static void inst_row(FILE *o, const cute_ir_func *f, const cute_ir_inst *in)
{
    const cute_inst_info *I = cute_inst_info_of((cute_inst)in->imm2);
    fprintf(o, " %s", I ? I->id : "?");
    for (uint32_t k = 0; k < in->nvar; k++) {
        fputs(k == in->flags ? " <- " : k ? ", " : " ", o);
        reg(o, f, in->var[k]);
    }
    if (I && I->has_imm) fprintf(o, " imm %lld", (long long)in->imm);
}

static void inst(FILE *o, const cute_ir_func *f, const cute_ir_inst *in, int depth)
{
    cute_op op = (cute_op)in->op;
    fprintf(o, "%*s", 2 * depth, "");
    if (in->dst) {
        char t[64];
        cute_type_str(in->type, t, sizeof t);
        reg(o, f, in->dst);
        fprintf(o, ":%s = ", t);
    }
    fputs(cute_op_name(op), o);
    if (op == CUTE_OP_CVT || op == CUTE_OP_BITCAST || op == CUTE_OP_STORE) {
        char t[64];
        cute_type_str(in->type, t, sizeof t);
        if (!in->dst) fprintf(o, ".%s", t);
    }
    int nargs = cute_op_nargs(op);
    if (op == CUTE_OP_FOR) {
        fputc(' ', o);
        reg(o, f, in->a[0]);
        fputs(" = ", o);
        reg(o, f, in->a[1]);
        fputs(" .. ", o);
        reg(o, f, in->a[2]);
        fprintf(o, " step %lld", (long long)in->imm2);
        if (in->imm == CUTE_FOR_PEEL_FIRST)
            fputs(" peel first", o);
        else if (in->imm)
            fprintf(o, " unroll %lld", (long long)in->imm);
    } else if (op == CUTE_OP_INST) {
        inst_row(o, f, in);
    } else {
        for (int k = 0; k < nargs; k++) {
            fputs(k ? ", " : " ", o);
            reg(o, f, in->a[k]);
        }
        if (in->str) {
            fputc(' ', o);
            quoted(o, in->str);
        }
        for (uint32_t k = 0; k < in->nvar && op != CUTE_OP_WHILE; k++) {
            fputs(", ", o);
            reg(o, f, in->var[k]);
        }
        imm_text(o, in);
    }
    if (in->file) fprintf(o, "   ; %s:%d", in->file, in->line);
    fputc('\n', o);
    if (op == CUTE_OP_WHILE) {
        fprintf(o, "%*scond:\n", 2 * depth, "");
        if (in->body[0]) block(o, f, in->body[0], depth + 1);
        fprintf(o, "%*s  -> ", 2 * depth, "");
        if (in->nvar) reg(o, f, in->var[0]);
        fprintf(o, "\n%*sdo:\n", 2 * depth, "");
        if (in->body[1]) block(o, f, in->body[1], depth + 1);
    } else {
        if (in->body[0]) block(o, f, in->body[0], depth + 1);
        if (in->body[1]) {
            fprintf(o, "%*sELSE\n", 2 * depth, "");
            block(o, f, in->body[1], depth + 1);
        }
    }
    if (op == CUTE_OP_FOR || op == CUTE_OP_IF || op == CUTE_OP_WHILE)
        fprintf(o, "%*sEND\n", 2 * depth, "");
}

static void block(FILE *o, const cute_ir_func *f, const cute_ir_block *b, int depth)
{
    for (uint32_t i = 0; i < b->n; i++) inst(o, f, &b->inst[i], depth);
}

void cute_ir_dump(FILE *o, const cute_ir_func *f)
{
    fprintf(o, "kernel %s(", f->name);
    for (uint32_t i = 0; i < f->nparams; i++) {
        char t[64];
        cute_type_str(f->vregs[f->params[i]].type, t, sizeof t);
        if (i) fputs(", ", o);
        reg(o, f, f->params[i]);
        fprintf(o, ":%s", t);
    }
    fputs(")", o);
    if (f->smem_bytes) fprintf(o, " smem=%lld", (long long)f->smem_bytes);
    if (f->max_threads) fprintf(o, " max_threads=%d", f->max_threads);
    if (f->min_blocks) fprintf(o, " min_blocks=%d", f->min_blocks);
    fputs(" {\n", o);
    block(o, f, &f->body, 1);
    fputs("}\n", o);
}

char *cute_ir_text(const cute_ir_func *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o) return NULL;
    cute_ir_dump(o, f);
    if (fclose(o) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
