/* INST: one row of the instruction table (ir_insts.def) as an asm statement.  The PTX is
 * the row's mnemonic and its groups (or its template, $k for group k), operands numbered
 * as the op holds them (outputs, then inputs); a "memory" clobber only for rows that touch
 * memory or order it (mma.sync and cvt are register operations: none). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "cuda_c_internal.h"

typedef struct ptx_text {
    char *p;
    size_t len, cap;
} ptx_text;

static void put(ptx_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(ptx_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len = n < 0 || (size_t)n >= t->cap - t->len ? t->cap : t->len + (size_t)n;
}

/* group g: {%a, %b}, %a, [%a], or its constant; first[g] is its first operand number; a
 * predicate is the `p` that row_text sets from its register */
static void group_text(ptx_text *t, const cute_inst_group *G, int first, int64_t imm)
{
    if (G->role == CUTE_IG_K) return put(t, "%d", G->value);
    if (G->role == CUTE_IG_IMM) return put(t, "%lld", (long long)imm);
    if (G->role == CUTE_IG_IMM_BIT) return put(t, "%d", (int)(imm >> G->value & 1));
    if (G->role == CUTE_IG_IMM_SIGN) return put(t, "%d", imm >> G->value & 1 ? -1 : 1);
    if (G->role == CUTE_IG_PRED) return put(t, "p");
    bool addr = G->role == CUTE_IG_SADDR || G->role == CUTE_IG_GADDR || G->role == CUTE_IG_CADDR;
    put(t, "%s", addr ? "[" : G->braced ? "{" : "");
    for (int k = 0; k < G->count; k++) put(t, "%s%%%d", k ? ", " : "", first + k);
    put(t, "%s", addr ? "]" : G->braced ? "}" : "");
}

static bool is_out(const cute_inst_group *G)
{
    return G->role == CUTE_IG_OUT || G->role == CUTE_IG_INOUT;
}

/* the row's PTX for an op whose outputs are numbered from 0 and inputs from nout; a row
 * with a predicate operand sets it from its i32 register in a scope of its own */
static void row_text(ptx_text *t, const cute_inst_info *I, int64_t imm)
{
    int first[CUTE_INST_MAX_GROUPS], nout = 0, nin = I->nout, pred = -1;
    for (int g = 0; g < I->ngroups; g++) {
        const cute_inst_group *G = &I->groups[g];
        int *next = is_out(G) ? &nout : &nin;
        first[g] = *next;
        if (G->role == CUTE_IG_PRED) pred = *next;
        *next += G->count;
    }
    bool whole = I->tmpl && strstr(I->tmpl, "$M"); /* the template is the whole statement */
    if (pred >= 0) put(t, "{ .reg .pred p; setp.ne.b32 p, %%%d, 0; ", pred);
    if (!whole) put(t, "%s ", I->mnemonic);
    if (!I->tmpl) {
        for (int g = 0; g < I->ngroups; g++) {
            if (g) put(t, ", ");
            group_text(t, &I->groups[g], first[g], imm);
        }
    } else {
        for (const char *s = I->tmpl; *s; s++) {
            if (*s == '$' && s[1] == 'M') {
                put(t, "%s", I->mnemonic);
                s++;
            } else if (*s == '$' && s[1] >= '0' && s[1] < '0' + I->ngroups && s[2] == '[') {
                /* $g[i]: register i of group g alone */
                char *end;
                int g = s[1] - '0', i = (int)strtol(s + 3, &end, 10);
                put(t, "%%%d", first[g] + i);
                s = end; /* at the ']' */
            } else if (*s == '$' && s[1] >= '0' && s[1] < '0' + I->ngroups) {
                s++;
                group_text(t, &I->groups[*s - '0'], first[*s - '0'], imm);
            } else {
                put(t, "%c", *s);
            }
        }
    }
    if (!whole) put(t, ";");
    if (pred >= 0) put(t, " }");
}

/* the row's statement with operands %0.. (outputs, then inputs), for the PTX backend too */
bool cc_inst_text(const cute_ir_inst *in, const cute_inst_info **row, char *buf, size_t n)
{
    const cute_inst_info *I = cute_inst_info_of((cute_inst)in->imm2);
    *row = I;
    if (!I) return false;
    ptx_text t = {buf, 0, n};
    row_text(&t, I, in->imm);
    return t.len < t.cap;
}

/* outputs then inputs; b32 registers travel as their bits ("r"), whatever their type */
static void operand_modes(const cute_inst_info *I, const cute_ir_inst *in, cc_asm_dir *dir,
                          bool *raw)
{
    uint32_t o = 0, i = in->flags;
    for (int g = 0; g < I->ngroups; g++) {
        const cute_inst_group *G = &I->groups[g];
        for (int k = 0; k < G->count; k++) {
            uint32_t at = is_out(G) ? o++ : i++;
            dir[at] = G->role == CUTE_IG_OUT ? CC_ASM_OUT : G->role == CUTE_IG_INOUT ? CC_ASM_INOUT : CC_ASM_IN;
            raw[at] = G->cls == CUTE_RC_B32;
        }
    }
}

bool cc_inst(cc_fn *e, const cute_ir_inst *in)
{
    const cute_inst_info *I = cute_inst_info_of((cute_inst)in->imm2);
    if (!I) return cc_fail(e, CUTE_ERR_INVALID, "no instruction row %lld", (long long)in->imm2);
    const char *arch = e->m->o->arch;
    if (arch && cc_arch_number(arch) < I->arch)
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "%s (%s) needs sm_%d; this module is for %s", I->id,
                       I->mnemonic, I->arch, arch);
    char buf[4096]; /* m64n256: 128 accumulators */
    if (!cc_inst_text(in, &I, buf, sizeof buf)) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "%s: PTX text too long", I->id);
    size_t n = in->nvar ? in->nvar : 1;
    cc_asm_dir *dir = malloc(n * sizeof *dir);
    bool *raw = malloc(n * sizeof *raw), ok = dir && raw;
    if (ok) {
        operand_modes(I, in, dir, raw);
        ok = cc_asm(e, buf, in->var, dir, raw, (int)in->nvar, (I->flags & CUTE_INST_MEMORY_EFFECTS) != 0);
    } else {
        cc_fail(e, CUTE_ERR_OOM, "out of memory");
    }
    free(dir), free(raw);
    return ok;
}
