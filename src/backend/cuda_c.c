/* IR -> CUDA C: kernels, blocks and structured control flow; the public entry.
 * The value ops are in cuda_c_expr.c, memory and the rest in cuda_c_mem.c, the prelude in
 * cuda_c_prelude.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_c_internal.h"
#include "cutec/cuda_arch.h"

static bool block(cc_fn *e, const cute_ir_block *b);
static bool inst(cc_fn *e, const cute_ir_block *b, uint32_t i);

/* announce a new call site: a comment, or a #line for -lineinfo */
static void site(cc_fn *e, const cute_ir_inst *in)
{
    if (!in->file) return;
    if (e->site_file && in->line == e->site_line && strcmp(in->file, e->site_file) == 0) return;
    e->site_file = in->file;
    e->site_line = in->line;
    if (e->m->o->line_directives) {
        cc_printf(e->out, "#line %d ", in->line > 0 ? in->line : 1);
        cc_c_string(e->out, in->file);
        cc_puts(e->out, "\n");
        return;
    }
    char file[200];
    size_t k = 0;
    for (const char *p = in->file; *p && k + 1 < sizeof file; p++)
        file[k++] = (*p == '\n' || *p == '\r') ? ' ' : *p;
    file[k] = 0;
    cc_line(e, "// %s:%d", file, in->line);
}

/* a nested body in braces; loop: whether BREAK inside means this construct */
static bool body(cc_fn *e, const cute_ir_block *b, int cond_depth)
{
    int saved = e->cond_depth;
    e->cond_depth = cond_depth;
    e->indent++;
    bool ok = !b || block(e, b);
    e->indent--;
    e->cond_depth = saved;
    return ok;
}

/* CUTE_FOR_PEEL_FIRST: the body once with the variable bound to lo (its own braces: the
 * body's declarations do not clash), then the loop from lo + step; the bound's statement,
 * where the copy cannot change it, between them (cc_fold_bound: as a loop peeled by hand
 * has it, the Hopper GEMM's ping-pong SASS then the same as its peeled form's).  No test before the copy:
 * the hint promises an iteration (a test would leave the values from before the loop live
 * past it: ptxas then zeroed the Hopper GEMM's 128 accumulators by 64 CS2R instead of
 * folding the zero into the first wgmma).  A mutable variable (the body may write it) is
 * set to lo and stepped on from the copy. */
static bool for_peeled(cc_fn *e, const cute_ir_inst *in, const char *ty, const char *v,
                       const char *lo, const char *hi)
{
    const char *cmp = in->imm2 > 0 ? "<" : ">";
    long long step = (long long)in->imm2;
    const cute_ir_block *bound_b = e->bound_b; /* (block() left the bound's statement here) */
    uint32_t bound_i = e->bound_i;
    e->bound_b = NULL;
    cc_line(e, "{");
    e->indent++;
    if (*ty)
        cc_line(e, "const %s %s = %s;", ty, v, lo);
    else
        cc_line(e, "%s = %s;", v, lo);
    e->indent--;
    bool ok = body(e, in->body[0], 0);
    cc_line(e, "}");
    if (ok && bound_b) ok = inst(e, bound_b, bound_i);
    if (*ty)
        cc_line(e, "for (%s %s = %s + %lld; %s %s %s; %s += %lld) {", ty, v, lo, step, v, cmp, hi,
                v, step);
    else
        cc_line(e, "for (%s += %lld; %s %s %s; %s += %lld) {", v, step, v, cmp, hi, v, step);
    ok = ok && body(e, in->body[0], 0);
    cc_line(e, "}");
    return ok;
}

static bool for_loop(cc_fn *e, const cute_ir_inst *in)
{
    char v[CC_NAME], lo[CC_NAME], hi[CC_NAME], tb[CC_NAME];
    if (in->imm < CUTE_FOR_PEEL_FIRST)
        return cc_fail(e, CUTE_ERR_INVALID, "unroll %lld", (long long)in->imm);
    if (in->imm == 1)
        cc_line(e, "#pragma unroll");
    else if (in->imm > 1)
        cc_line(e, "#pragma unroll %lld", (long long)in->imm);
    cute_vreg var = in->a[0];
    cc_reg(e, var, v);
    const char *ty = e->f->vregs[var].mutable_ ? "" : cc_type(e, cute_ir_type(e->f, var), tb);
    if (!ty) return false;
    cc_reg(e, in->a[1], lo);
    cc_reg(e, in->a[2], hi);
    if (in->imm == CUTE_FOR_PEEL_FIRST) {
        if (cute_ir_breaks(in->body[0])) /* (the copy is no loop: its BREAK would leave nothing) */
            return cc_fail(e, CUTE_ERR_INVALID,
                           "a FOR peeled first (CUTE_FOR_PEEL_FIRST) with a BREAK of its own");
        return for_peeled(e, in, ty, v, lo, hi);
    }
    /* the op table: up to a2 for a positive step, down to a2 for a negative one */
    cc_line(e, "for (%s%s%s = %s; %s %s %s; %s += %lld) {", ty, *ty ? " " : "", v, lo, v,
            in->imm2 > 0 ? "<" : ">", hi, v, (long long)in->imm2);
    bool ok = body(e, in->body[0], 0);
    cc_line(e, "}");
    return ok;
}

static bool if_else(cc_fn *e, const cute_ir_inst *in)
{
    char c[CC_NAME];
    int at = cc_pred_at(e, in);
    if (at >= 0) { /* a predicated access: its address here, then the access */
        for (int i = 0; i < at; i++)
            if (!inst(e, in->body[0], (uint32_t)i)) return false;
        return cc_pred_access(e, in, at);
    }
    cc_line(e, "if (%s) {", cc_reg(e, in->a[0], c));
    bool ok = body(e, in->body[0], e->cond_depth);
    if (ok && in->body[1] && in->body[1]->n) {
        cc_line(e, "} else {");
        ok = body(e, in->body[1], e->cond_depth);
    }
    cc_line(e, "}");
    return ok;
}

/* WHILE: for (;;) { condition; if (!c) break; body } */
static bool while_loop(cc_fn *e, const cute_ir_inst *in)
{
    char c[CC_NAME];
    if (in->nvar != 1) return cc_fail(e, CUTE_ERR_INVALID, "a WHILE without its condition");
    cc_line(e, "for (;;) {");
    bool ok = body(e, in->body[0], 1);
    if (ok) {
        e->indent++;
        cc_line(e, "if (!%s) break;", cc_reg(e, in->var[0], c));
        e->indent--;
        ok = body(e, in->body[1], 0);
    }
    cc_line(e, "}");
    return ok;
}

static bool control(cc_fn *e, const cute_ir_inst *in)
{
    switch ((cute_op)in->op) {
    case CUTE_OP_FOR:
        return for_loop(e, in);
    case CUTE_OP_IF:
        return if_else(e, in);
    case CUTE_OP_WHILE:
        return while_loop(e, in);
    case CUTE_OP_BREAK:
        /* in a WHILE's condition, C's break would leave the WHILE, not the loop outside */
        if (e->cond_depth) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "BREAK in a WHILE condition");
        cc_line(e, "break;");
        return true;
    default:
        cc_line(e, "return;");
        return true;
    }
}

/* by the op's group (ir_ops.def): values in cuda_c_expr.c, memory and the rest in
 * cuda_c_mem.c, instruction rows in cuda_c_inst.c */
static bool inst(cc_fn *e, const cute_ir_block *b, uint32_t i)
{
    const cute_ir_inst *in = &b->inst[i];
    e->in = in;
    if (in->op >= CUTE_OP_COUNT) return cc_fail(e, CUTE_ERR_INVALID, "unknown op %u", in->op);
    bool folded;
    if (!cc_fold(e, b, i, &folded) || folded) return !e->m->failed;
    site(e, in);
    switch (cute_op_group_of((cute_op)in->op)) {
    case CUTE_GROUP_CONTROL:
        return control(e, in);
    case CUTE_GROUP_INST:
        return cc_inst(e, in);
    case CUTE_GROUP_VALUE:
    case CUTE_GROUP_MOVE:
    case CUTE_GROUP_SPECIAL:
    case CUTE_GROUP_CONVERT:
        return cc_expr(e, in);
    default:
        return cc_mem(e, in);
    }
}

static bool block(cc_fn *e, const cute_ir_block *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        if (cc_fold_bound(e, b, i)) { /* (for_peeled writes it after the copy) */
            e->bound_b = b, e->bound_i = i;
            continue;
        }
        if (!inst(e, b, i)) return false;
    }
    return true;
}

/* --- kernels ---------------------------------------------------------------------------- */

static bool identifier(const char *s)
{
    if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

static bool signature(cc_fn *e)
{
    const cute_ir_func *f = e->f;
    cc_puts(e->out, "extern \"C\" __global__ void ");
    if (f->max_threads > 0 && f->min_blocks > 0)
        cc_printf(e->out, "__launch_bounds__(%d, %d) ", f->max_threads, f->min_blocks);
    else if (f->max_threads > 0)
        cc_printf(e->out, "__launch_bounds__(%d) ", f->max_threads);
    const int *cd = f->cluster_dims;
    if (cd[0] > 0 && cd[1] > 0 && cd[2] > 0)
        cc_printf(e->out, "__cluster_dims__(%d, %d, %d) ", cd[0], cd[1], cd[2]);
    cc_printf(e->out, "%s(", f->name);
    for (uint32_t i = 0; i < f->nparams; i++) {
        char tb[CC_NAME], name[CC_NAME];
        cute_type t = cute_ir_type(f, f->params[i]);
        if (cc_is_smem_ptr(t))
            return cc_fail(e, CUTE_ERR_UNSUPPORTED,
                           "parameter %u points to shared memory, which does not exist before "
                           "the kernel runs",
                           i);
        const char *ty = cc_type(e, t, tb);
        if (!ty) return false;
        if (t.dtype == CUTE_PTR)
            cc_printf(e->out, "%s%s%s", ty, f->noalias && !e->m->o->no_restrict ? "__restrict__ " : "",
                      cc_reg(e, f->params[i], name));
        else if (t.dtype == CUTE_TMAP) /* by value, in parameter space: its address is TMA's */
            cc_printf(e->out, "const __grid_constant__ %s %s", ty, cc_reg(e, f->params[i], name));
        else
            cc_printf(e->out, "%s %s", ty, cc_reg(e, f->params[i], name));
        if (i + 1 < f->nparams) cc_puts(e->out, ", ");
    }
    cc_puts(e->out, ")\n{\n");
    return true;
}

static bool kernel(cc_module *m, const cute_ir_func *f)
{
    cc_fn e = {.m = m, .f = f, .out = &m->body, .indent = 1};
    if (!signature(&e)) return false;
    /* mutable registers live across bodies: declared once, at the top */
    for (uint32_t r = 1; r < f->nvregs; r++) {
        if (!f->vregs[r].mutable_ || f->vregs[r].param) continue;
        char tb[CC_NAME], name[CC_NAME];
        const char *ty = cc_type(&e, f->vregs[r].type, tb);
        if (!ty) return false;
        cc_line(&e, "%s%s%s;", ty, ty[strlen(ty) - 1] == '*' ? "" : " ", cc_reg(&e, r, name));
    }
    bool ok = cc_fold_begin(&e) && block(&e, &f->body);
    cc_fold_end(&e);
    cc_puts(&m->body, "}\n");
    return ok;
}

int cc_arch_number(const char *a)
{
    char real[32]; /* a virtual target (compute_90a) is numbered as its real one (sm_90a) */
    if (!strncmp(a, "compute_", 8) && snprintf(real, sizeof real, "sm_%s", a + 8) < (int)sizeof real) a = real;
    return cute_cuda_arch_sm(a, NULL, 0);
}

static cute_status check_args(const cute_ir_func *const *k, int n, const cute_cuda_c_opts *o,
                              cc_fn *e)
{
    if (!k || n <= 0) return cc_fail(e, CUTE_ERR_INVALID, "no kernels"), CUTE_ERR_INVALID;
    if (o->arch && cc_arch_number(o->arch) < 70)
        return cc_fail(e, CUTE_ERR_INVALID, "arch %s: expected sm_XX or compute_XX, XX >= 70",
                       o->arch),
               CUTE_ERR_INVALID;
    for (int i = 0; i < n; i++) {
        e->f = k[i];
        if (!k[i] || !identifier(k[i]->name))
            return cc_fail(e, CUTE_ERR_INVALID, "the kernel name is not a C identifier"),
                   CUTE_ERR_INVALID;
        for (int j = 0; j < i; j++)
            if (strcmp(k[i]->name, k[j]->name) == 0)
                return cc_fail(e, CUTE_ERR_INVALID, "two kernels of this name"), CUTE_ERR_INVALID;
    }
    return CUTE_OK;
}

cute_status cute_cuda_c_emit(const cute_ir_func *const *kernels, int n,
                             const cute_cuda_c_opts *opts, char **out_src, char *err, size_t errn)
{
    static const cute_cuda_c_opts defaults = {0};
    *out_src = NULL;
    if (errn) err[0] = 0;
    cc_module *m = calloc(1, sizeof *m);
    if (!m) {
        if (errn) snprintf(err, errn, "cuda_c: out of memory");
        return CUTE_ERR_OOM;
    }
    m->o = opts ? opts : &defaults;
    m->err = err;
    m->errn = errn;
    cc_fn top = {.m = m};
    cute_status s = check_args(kernels, n, m->o, &top);
    for (int i = 0; s == CUTE_OK && i < n; i++) {
        if (i) cc_puts(&m->body, "\n");
        if (!kernel(m, kernels[i])) s = m->failed;
    }
    cc_buf src = {0};
    if (s == CUTE_OK) {
        cc_prelude(m, &src);
        cc_puts(&src, "\n");
        cc_puts(&src, m->body.p ? m->body.p : "");
        if (src.oom || m->body.oom) {
            s = CUTE_ERR_OOM;
            if (errn) snprintf(err, errn, "cuda_c: out of memory");
        }
    }
    if (s == CUTE_OK)
        *out_src = src.p;
    else
        free(src.p);
    free(m->body.p);
    free(m);
    return s;
}

void cute_cuda_c_param_abi(cute_type t, size_t *size, size_t *align)
{
    if (t.dtype == CUTE_PTR) {
        *size = *align = 8;
        return;
    }
    size_t elem = (size_t)cute_dtype_bytes((cute_dtype)t.dtype);
    if (t.lanes <= 1) {
        *size = *align = elem;
        return;
    }
    *align = (size_t)cc_vec_align(t);
    *size = (elem * t.lanes + *align - 1) / *align * *align;
}
