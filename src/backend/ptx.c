/* IR -> PTX: the module, each kernel's .entry and parameters, its registers, structured
 * control flow as labels and predicated branches; the public entry.  Values are in
 * ptx_value.c, memory and the rest in ptx_mem.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "ptx_internal.h"

bool px_fail(px_fn *e, cute_status s, const char *fmt, ...)
{
    if (e->failed) return false;
    e->failed = s;
    if (!e->errn) return false;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const cute_ir_inst *in = e->in;
    if (in && in->file)
        snprintf(e->err, e->errn, "ptx: kernel %s: %s (%s at %s:%d)", e->f ? e->f->name : "?", what,
                 cute_op_name((cute_op)in->op), in->file, in->line);
    else if (in)
        snprintf(e->err, e->errn, "ptx: kernel %s: %s (%s)", e->f ? e->f->name : "?", what,
                 cute_op_name((cute_op)in->op));
    else
        snprintf(e->err, e->errn, "ptx: %s", what);
    return false;
}

void px_line(px_fn *e, const char *fmt, ...)
{
    char buf[PX_TEXT];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        px_fail(e, CUTE_ERR_UNSUPPORTED, "a PTX line longer than %d bytes", PX_TEXT);
        return;
    }
    cc_puts(e->out, "\t");
    cc_puts(e->out, buf);
    cc_puts(e->out, "\n");
}

/* --- registers ------------------------------------------------------------------------ */

bool px_is_16f(cute_dtype d) { return d == CUTE_F16 || d == CUTE_BF16; }

bool px_is_smem_ptr(cute_type t) { return t.dtype == CUTE_PTR && t.space == CUTE_SMEM; }

px_class px_class_of(cute_type t)
{
    cute_dtype d = (cute_dtype)t.dtype;
    if (d == CUTE_PTR) return t.space == CUTE_SMEM ? PX_B32 : PX_B64;
    if (d == CUTE_I1) return PX_PRED;
    if (d == CUTE_F32) return PX_F32;
    if (d == CUTE_F64) return PX_F64;
    if (d == CUTE_TMAP) return PX_B64; /* its generic address */
    int bits = cute_dtype_bits(d);
    return bits <= 16 ? PX_B16 : bits == 32 ? PX_B32 : PX_B64;
}

static const char *const prefix[PX_NCLASS] = {"%p", "%h", "%r", "%f", "%rd", "%fd"};
static const char *const decl_type[PX_NCLASS] = {"pred", "b16", "b32", "f32", "b64", "f64"};

const char *px_bits_type(px_class c)
{
    static const char *const b[PX_NCLASS] = {"pred", "b16", "b32", "b32", "b64", "b64"};
    return b[c];
}

const char *px_reg(const px_fn *e, cute_vreg r, int lane, char *buf)
{
    cute_type t = cute_ir_type(e->f, r);
    const char *p = prefix[px_class_of(t)];
    if (lane >= 0 && t.lanes > 1)
        snprintf(buf, PX_NAME, "%s%u_%d", p, r, lane);
    else
        snprintf(buf, PX_NAME, "%s%u", p, r);
    return buf;
}

const cute_ir_inst *px_const(const px_fn *e, cute_vreg r)
{
    return e->cdef && r ? e->cdef[r] : NULL;
}

const char *px_opnd(const px_fn *e, cute_vreg r, int lane, char *buf)
{
    const cute_ir_inst *c = px_const(e, r);
    if (!c) return px_reg(e, r, lane, buf);
    cute_dtype d = (cute_dtype)c->type.dtype;
    int64_t x = c->imm;
    double v;
    memcpy(&v, &c->imm, sizeof v);
    switch (d) {
    case CUTE_I8: x = (int8_t)x; break;
    case CUTE_I16: x = (int16_t)x; break;
    case CUTE_I32: x = (int32_t)x; break;
    case CUTE_U8: x = (uint8_t)x; break;
    case CUTE_U16: x = (uint16_t)x; break;
    case CUTE_U32: x = (uint32_t)x; break;
    case CUTE_F32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        snprintf(buf, PX_NAME, "0f%08X", u);
        return buf;
    }
    case CUTE_F64:
        snprintf(buf, PX_NAME, "0d%016llX", (unsigned long long)c->imm);
        return buf;
    default:
        break;
    }
    if (d == CUTE_U64)
        snprintf(buf, PX_NAME, "%llu", (unsigned long long)x);
    else
        snprintf(buf, PX_NAME, "%lld", (long long)x);
    return buf;
}

/* the scalar constants a literal may stand for: integers, f32, f64, defined once */
static void find_consts(const cute_ir_func *f, const cute_ir_block *b, const cute_ir_inst **cdef)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        cute_dtype d = (cute_dtype)in->type.dtype;
        if (in->op == CUTE_OP_CONST && in->dst && in->type.lanes == 1 && !f->vregs[in->dst].mutable_ &&
            (cute_dtype_is_int(d) || d == CUTE_F32 || d == CUTE_F64))
            cdef[in->dst] = in;
        find_consts(f, in->body[0], cdef);
        find_consts(f, in->body[1], cdef);
    }
}

const char *px_temp(px_fn *e, px_class c, char *buf)
{
    snprintf(buf, PX_NAME, "%%x%s%u", prefix[c] + 1, e->ntemp[c]++);
    return buf;
}

uint32_t px_label(px_fn *e) { return ++e->nlabel; }

const char *px_arith_type(cute_dtype d)
{
    switch (d) {
    case CUTE_I8:
    case CUTE_I16:
        return "s16";
    case CUTE_U8:
    case CUTE_U16:
        return "u16";
    case CUTE_I32:
        return "s32";
    case CUTE_U32:
        return "u32";
    case CUTE_I64:
        return "s64";
    case CUTE_U64:
    case CUTE_PTR:
        return "u64";
    case CUTE_F32:
        return "f32";
    case CUTE_F64:
        return "f64";
    case CUTE_I1:
        return "pred";
    default:
        return "b16";
    }
}

/* --- control flow --------------------------------------------------------------------- */

static bool block(px_fn *e, const cute_ir_block *b);
static bool inst(px_fn *e, const cute_ir_block *b, uint32_t i);

static bool nested(px_fn *e, const cute_ir_block *b, int cond_depth)
{
    int saved = e->cond_depth;
    e->cond_depth = cond_depth;
    bool ok = !b || block(e, b);
    e->cond_depth = saved;
    return ok;
}

static const cute_ir_inst *const_def(const px_fn *e, const cute_ir_block *scope, cute_vreg r);

/* A FOR the IR asks to unroll fully (imm 1) over constant bounds, with few trips, is its
 * body once per value of the variable: NVVM unrolled those, ptxas would not. */
enum { UNROLL_MAX = 64 };

static bool for_loop(px_fn *e, const cute_ir_block *scope, const cute_ir_inst *in)
{
    char v[PX_NAME], lo[PX_NAME], hi[PX_NAME], p[PX_NAME];
    cute_vreg var = in->a[0];
    cute_type t = cute_ir_type(e->f, var);
    if (t.lanes != 1 || !cute_dtype_is_int((cute_dtype)t.dtype) || in->imm2 == 0)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "a FOR over a non-integer or by step 0");
    const char *ty = px_arith_type((cute_dtype)t.dtype);
    px_reg(e, var, -1, v);
    if (!px_hoist(e, in, inst)) return false;
    const cute_ir_inst *cl = const_def(e, scope, in->a[1]), *ch = const_def(e, scope, in->a[2]);
    if (in->imm == 1 && cl && ch && cute_dtype_bits((cute_dtype)t.dtype) >= 32) {
        int64_t a = cl->imm, b = ch->imm, s = in->imm2;
        int64_t trips = s > 0 ? (b > a ? (b - a + s - 1) / s : 0) : (a > b ? (a - b - s - 1) / -s : 0);
        if (trips <= UNROLL_MAX) {
            uint32_t end = px_label(e);
            e->loop_end[e->nloop++] = end;
            bool ok = true;
            for (int64_t k = 0; ok && k < trips; k++) {
                px_line(e, "mov.%s %s, %lld;", px_bits_type(px_class_of(t)), v, (long long)(a + k * s));
                ok = nested(e, in->body[0], 0);
            }
            /* C's variable after its loop: the first value past the bound (a BREAK skips it) */
            if (e->f->vregs[var].mutable_)
                px_line(e, "mov.%s %s, %lld;", px_bits_type(px_class_of(t)), v, (long long)(a + trips * s));
            e->nloop--;
            cc_printf(e->out, "$L%u:\n", end);
            return ok;
        }
    }
    px_counter counters[8];
    int ncounters = px_counters(e, in, cl, counters, 8);
    uint32_t head = px_label(e), end = px_label(e);
    px_line(e, "mov.%s %s, %s;", px_bits_type(px_class_of(t)), v, px_opnd(e, in->a[1], -1, lo));
    cc_printf(e->out, "$L%u:\n", head);
    px_temp(e, PX_PRED, p);
    px_line(e, "setp.%s.%s %s, %s, %s;", in->imm2 > 0 ? "ge" : "le", ty, p, v, px_opnd(e, in->a[2], -1, hi));
    px_line(e, "@%s bra $L%u;", p, end);
    if (e->nloop >= CUTE_IR_MAX_DEPTH) return px_fail(e, CUTE_ERR_UNSUPPORTED, "loops nested too deep");
    e->loop_end[e->nloop++] = end;
    bool ok = nested(e, in->body[0], 0);
    e->nloop--;
    px_counters_step(e, counters, ncounters);
    px_line(e, "add.%s %s, %s, %lld;", ty, v, v, (long long)in->imm2);
    px_line(e, "bra $L%u;", head);
    cc_printf(e->out, "$L%u:\n", end);
    return ok;
}

static bool if_else(px_fn *e, const cute_ir_inst *in)
{
    char c[PX_NAME];
    bool has_else = in->body[1] && in->body[1]->n;
    int known = px_known(e, in->a[0]); /* only the branch that runs */
    if (known) return known > 0 ? nested(e, in->body[0], e->cond_depth)
                                : !has_else || nested(e, in->body[1], e->cond_depth);
    cute_vreg saved[PX_FACTS];
    const cute_ir_inst *def = e->sunk ? e->sunk[in->a[0]] : NULL;
    if (def) {
        e->in = def;
        bool ok = px_value(e, def);
        e->in = in;
        if (!ok) return false;
    }
    if (has_else && e->mentions) { /* the else branch's values first, unconditionally (ptx_else.c) */
        int k = px_assume(e, in->a[0], -1, saved);
        bool first = px_else_first(e, in), ok = !first || nested(e, in->body[1], e->cond_depth);
        px_forget(e, saved, k);
        if (first) {
            uint32_t end = px_label(e);
            px_line(e, "@!%s bra $L%u;", px_reg(e, in->a[0], -1, c), end);
            k = px_assume(e, in->a[0], 1, saved);
            ok = ok && nested(e, in->body[0], e->cond_depth);
            px_forget(e, saved, k);
            cc_printf(e->out, "$L%u:\n", end);
            return ok;
        }
    }
    uint32_t other = px_label(e), end = px_label(e);
    px_line(e, "@!%s bra $L%u;", px_reg(e, in->a[0], -1, c), other);
    int k = px_assume(e, in->a[0], 1, saved);
    bool ok = nested(e, in->body[0], e->cond_depth);
    px_forget(e, saved, k);
    if (has_else) px_line(e, "bra $L%u;", end);
    cc_printf(e->out, "$L%u:\n", other);
    if (ok && has_else) {
        k = px_assume(e, in->a[0], -1, saved);
        ok = nested(e, in->body[1], e->cond_depth);
        px_forget(e, saved, k);
        cc_printf(e->out, "$L%u:\n", end);
    }
    return ok;
}

static bool while_loop(px_fn *e, const cute_ir_inst *in)
{
    char c[PX_NAME];
    if (in->nvar != 1) return px_fail(e, CUTE_ERR_INVALID, "a WHILE without its condition");
    if (e->nloop >= CUTE_IR_MAX_DEPTH) return px_fail(e, CUTE_ERR_UNSUPPORTED, "loops nested too deep");
    uint32_t head = px_label(e), end = px_label(e);
    cc_printf(e->out, "$L%u:\n", head);
    e->loop_end[e->nloop++] = end;
    bool ok = nested(e, in->body[0], 1);
    if (ok) {
        px_line(e, "@!%s bra $L%u;", px_reg(e, in->var[0], -1, c), end);
        ok = nested(e, in->body[1], 0);
    }
    e->nloop--;
    px_line(e, "bra $L%u;", head);
    cc_printf(e->out, "$L%u:\n", end);
    return ok;
}

static bool control(px_fn *e, const cute_ir_block *scope, const cute_ir_inst *in)
{
    switch ((cute_op)in->op) {
    case CUTE_OP_FOR:
        return for_loop(e, scope, in);
    case CUTE_OP_IF:
        return if_else(e, in);
    case CUTE_OP_WHILE:
        return while_loop(e, in);
    case CUTE_OP_BREAK:
        if (e->cond_depth) return px_fail(e, CUTE_ERR_UNSUPPORTED, "BREAK in a WHILE condition");
        if (!e->nloop) return px_fail(e, CUTE_ERR_INVALID, "BREAK outside a loop");
        px_line(e, "bra $L%u;", e->loop_end[e->nloop - 1]);
        return true;
    default:
        px_line(e, "ret;");
        return true;
    }
}

/* the CONST that defines r, if r is a constant defined in the kernel's top block or in
 * scope (where a FOR's bounds are), else NULL */
static const cute_ir_inst *const_def(const px_fn *e, const cute_ir_block *scope, cute_vreg r)
{
    if (e->f->vregs[r].mutable_) return NULL;
    const cute_ir_block *blocks[2] = {scope, &e->f->body};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; blocks[k] && i < blocks[k]->n; i++)
            if (blocks[k]->inst[i].dst == r)
                return blocks[k]->inst[i].op == CUTE_OP_CONST && blocks[k]->inst[i].type.lanes == 1
                           ? &blocks[k]->inst[i]
                           : NULL;
    return NULL;
}

static bool inst(px_fn *e, const cute_ir_block *b, uint32_t i)
{
    const cute_ir_inst *in = &b->inst[i];
    e->in = in;
    if (in->op >= CUTE_OP_COUNT) return px_fail(e, CUTE_ERR_INVALID, "unknown op %u", in->op);
    switch (cute_op_group_of((cute_op)in->op)) {
    case CUTE_GROUP_CONTROL:
        return control(e, b, in);
    case CUTE_GROUP_INST:
        return px_inst(e, in);
    case CUTE_GROUP_VALUE:
        if (in->dst && e->sum_at && e->sum_at[in->dst]) return px_sum_emit(e, in);
        return px_value(e, in);
    case CUTE_GROUP_MOVE:
    case CUTE_GROUP_SPECIAL:
    case CUTE_GROUP_CONVERT:
        return px_value(e, in);
    default:
        if (in->op == CUTE_OP_LOAD) {
            cute_vreg m = px_load_into(e, b, i); /* straight into the register it goes to */
            if (m) {
                cute_ir_inst into = *in;
                into.dst = m;
                return px_mem(e, &into);
            }
        }
        return px_mem(e, in);
    }
}

/* whether the block's instruction is emitted elsewhere */
static bool elsewhere(const px_fn *e, const cute_ir_block *b, uint32_t i)
{
    const cute_ir_inst *in = &b->inst[i];
    if (px_load_folded(e, b, i)) return true; /* by the load before it */
    if (in->dst && e->hoisted && e->hoisted[in->dst]) return true; /* before its loop */
    if (in->dst && e->folded && e->folded[in->dst]) return true;   /* in the sum that reads it */
    if (in->dst && e->counter && e->counter[in->dst]) return true; /* a counter of its loop */
    return in->dst && e->sunk && e->sunk[in->dst];                 /* at its IF */
}

static bool block(px_fn *e, const cute_ir_block *b)
{
    if (e->late_def) return px_late_block(e, b, elsewhere, inst);
    for (uint32_t i = 0; i < b->n; i++)
        if (!elsewhere(e, b, i) && (!inst(e, b, i) || e->failed)) return false;
    return true;
}

/* --- kernels -------------------------------------------------------------------------- */

/* whether any instruction turns a shared pointer into a global one (then global accesses
 * are generic: such a "global" pointer may hold a shared address) */
static bool smem_to_gmem(const cute_ir_func *f, const cute_ir_block *b)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if ((in->op == CUTE_OP_CVT || in->op == CUTE_OP_BITCAST) && in->type.dtype == CUTE_PTR &&
            in->type.space == CUTE_GMEM && px_is_smem_ptr(cute_ir_type(f, in->a[0])))
            return true;
        if (smem_to_gmem(f, in->body[0]) || smem_to_gmem(f, in->body[1])) return true;
    }
    return false;
}

static void param_decl(cc_buf *o, const cute_ir_func *f, uint32_t i)
{
    cute_type t = cute_ir_type(f, f->params[i]);
    size_t size, align;
    cute_cuda_c_param_abi(t, &size, &align);
    const char *name = f->name;
    if (t.dtype == CUTE_TMAP)
        cc_printf(o, "\t.param .align 64 .b8 %s_param_%u[128]", name, i);
    else if (t.lanes > 1 || px_is_16f((cute_dtype)t.dtype) || cute_dtype_is_narrow_float((cute_dtype)t.dtype))
        cc_printf(o, "\t.param .align %zu .b8 %s_param_%u[%zu]", align, name, i, size);
    else if (t.dtype == CUTE_PTR)
        cc_printf(o, "\t.param .u64 %s_param_%u", name, i);
    else if (t.dtype == CUTE_I1)
        cc_printf(o, "\t.param .u8 %s_param_%u", name, i);
    else
        cc_printf(o, "\t.param .%s %s_param_%u", cute_dtype_is_signed((cute_dtype)t.dtype) && cute_dtype_bits((cute_dtype)t.dtype) == 8 ? "s8" : cute_dtype_bits((cute_dtype)t.dtype) == 8 ? "u8" : px_arith_type((cute_dtype)t.dtype), name, i);
}

/* each parameter into its register(s) */
static bool param_load(px_fn *e, uint32_t i)
{
    const cute_ir_func *f = e->f;
    cute_vreg r = f->params[i];
    cute_type t = cute_ir_type(f, r);
    char d[PX_NAME], x[PX_NAME];
    if (px_is_smem_ptr(t))
        return px_fail(e, CUTE_ERR_UNSUPPORTED,
                       "parameter %u points to shared memory, which does not exist before the kernel runs", i);
    if (t.dtype == CUTE_TMAP) { /* its generic address, as the CUDA C backend's &param */
        px_line(e, "mov.u64 %s, %s_param_%u;", px_reg(e, r, -1, d), f->name, i);
        px_line(e, "cvta.param.u64 %s, %s;", d, d);
        return true;
    }
    if (t.dtype == CUTE_PTR) {
        px_line(e, "ld.param.u64 %s, [%s_param_%u];", px_reg(e, r, -1, d), f->name, i);
        return true;
    }
    cute_dtype dt = (cute_dtype)t.dtype;
    int eb = cute_dtype_bytes(dt);
    for (int l = 0; l < t.lanes; l++) {
        px_reg(e, r, t.lanes > 1 ? l : -1, d);
        if (dt == CUTE_I1) {
            px_temp(e, PX_B16, x);
            px_line(e, "ld.param.u8 %s, [%s_param_%u+%d];", x, f->name, i, l);
            px_line(e, "setp.ne.u16 %s, %s, 0;", d, x);
        } else if (eb == 1) {
            px_line(e, "ld.param.%s8 %s, [%s_param_%u+%d];", cute_dtype_is_signed(dt) ? "s" : "u", d, f->name, i, l);
        } else {
            px_line(e, "ld.param.b%d %s, [%s_param_%u+%d];", 8 * eb, d, f->name, i, l * eb);
        }
    }
    return true;
}

static void declarations(px_fn *e, cc_buf *o)
{
    const cute_ir_func *f = e->f;
    char name[PX_NAME];
    for (uint32_t r = 1; r < f->nvregs; r++) {
        cute_type t = f->vregs[r].type;
        if (t.dtype == CUTE_VOID) continue;
        px_class c = px_class_of(t);
        for (int l = 0; l < (t.lanes > 1 ? t.lanes : 1); l++)
            cc_printf(o, "\t.reg .%s %s;\n", decl_type[c], px_reg(e, r, t.lanes > 1 ? l : -1, name));
    }
    for (int c = 0; c < PX_NCLASS; c++)
        if (e->ntemp[c]) cc_printf(o, "\t.reg .%s %%x%s<%u>;\n", decl_type[c], prefix[c] + 1, e->ntemp[c]);
}

static cute_status kernel(cc_buf *o, const cute_ir_func *f, const cute_ptx_opts *opts, int sm, bool *uses_smem,
                   char *err, size_t errn)
{
    cc_buf body = {0};
    px_fn e = {.f = f, .o = opts, .sm = sm, .out = &body, .err = err, .errn = errn};
    e.generic_global = smem_to_gmem(f, &f->body);
    e.cdef = calloc(f->nvregs + 1, sizeof *e.cdef);
    if (!e.cdef) return CUTE_ERR_OOM;
    find_consts(f, &f->body, e.cdef);
    e.readonly = px_readonly(f);
    e.nonneg = px_nonneg(f);
    e.sunk = px_sink(f);
    e.pdef = px_pred_defs(f);
    e.known = calloc(f->nvregs + 1, sizeof *e.known);
    e.stamp = calloc(f->nvregs + 1, sizeof *e.stamp); /* NULL: nothing hoisted */
    e.hoisted = calloc(f->nvregs + 1, sizeof *e.hoisted);
    if (px_sums_wanted() || px_else_wanted()) { /* ptx_hoist.c's sums, ptx_else.c's loads */
        e.uses = calloc(f->nvregs + 1, sizeof *e.uses);
        if (e.uses) px_count_uses(&f->body, e.uses);
    }
    if (px_sums_wanted() && !opts->no_sums) {
        e.folded = calloc(f->nvregs + 1, sizeof *e.folded);
        e.sum_at = calloc(f->nvregs + 1, sizeof *e.sum_at);
        e.counter = calloc(f->nvregs + 1, sizeof *e.counter);
    }
    if (px_else_wanted() && (e.mentions = calloc(f->nvregs + 1, sizeof *e.mentions)))
        px_count_mentions(&f->body, e.mentions);
    if (px_late_wanted()) {
        e.late_def = calloc(f->nvregs + 1, sizeof *e.late_def);
        e.late_reads = calloc(f->nvregs + 1, sizeof *e.late_reads);
        if (!e.late_def || !e.late_reads) free(e.late_def), e.late_def = NULL; /* the plain order */
    }
    for (uint32_t i = 0; i < f->nparams && !e.failed; i++) param_load(&e, i);
    if (!e.failed) block(&e, &f->body);
    if (!e.failed) px_line(&e, "ret;");
    if (body.oom && !e.failed) px_fail(&e, CUTE_ERR_OOM, "out of memory");
    free(e.cdef);
    free(e.readonly), free(e.nonneg), free(e.sunk), free(e.pdef), free(e.known);
    free(e.stamp), free(e.hoisted), free(e.late_def), free(e.late_reads);
    free(e.uses), free(e.folded), free(e.sum_at), free(e.sums), free(e.mentions), free(e.counter);
    if (e.failed) {
        free(body.p);
        return e.failed;
    }
    *uses_smem |= e.uses_smem;
    cc_printf(o, "\n.visible .entry %s(\n", f->name);
    for (uint32_t i = 0; i < f->nparams; i++) {
        param_decl(o, f, i);
        cc_puts(o, i + 1 < f->nparams ? ",\n" : "\n");
    }
    cc_puts(o, ")\n");
    if (f->max_threads > 0) cc_printf(o, ".maxntid %d, 1, 1\n", f->max_threads);
    if (f->max_threads > 0 && f->min_blocks > 0) cc_printf(o, ".minnctapersm %d\n", f->min_blocks);
    const int *cd = f->cluster_dims;
    if (cd[0] > 0 && cd[1] > 0 && cd[2] > 0)
        cc_printf(o, ".explicitcluster\n.reqnctapercluster %d, %d, %d\n", cd[0], cd[1], cd[2]);
    cc_puts(o, "{\n");
    declarations(&e, o);
    cc_puts(o, body.p ? body.p : "");
    cc_puts(o, "}\n");
    free(body.p);
    return 0;
}

/* the PTX ISA version a target's kernels need (sm_90a: 8.1, for st.async, which the row
 * kernels' cluster exchange writes; 8.0 made ptxas refuse them; sm_100a: 8.6; sm_120a: 8.7) */
static const char *isa_version(int sm)
{
    return sm >= 120 ? "8.7" : sm >= 100 ? "8.6" : sm >= 90 ? "8.1" : "7.8";
}

/* the generator without CUTEC_CODEGEN (or with it empty): CUDA C and NVRTC.  The one-line
 * flip to the PTX backend (true) once scripts/device-ptx3.sh says its kernels are within 2%
 * of the CUDA C path's; CUTEC_CODEGEN=cuda then still chooses CUDA C. */
static const bool ptx_by_default = false;

bool cute_ptx_wanted(void)
{
    return cute_env_choice_warn("CUTEC_CODEGEN", "cuda|ptx", ptx_by_default) == 1;
}

cute_status cute_ptx_emit(const cute_ir_func *const *kernels, int n, const cute_ptx_opts *opts,
                          char **out, char *err, size_t errn)
{
    *out = NULL;
    if (errn) err[0] = 0;
    int sm = opts && opts->arch ? cc_arch_number(opts->arch) : 0;
    if (!kernels || n <= 0 || sm < 80 || strncmp(opts->arch, "sm_", 3) != 0) {
        if (errn) snprintf(err, errn, "ptx: expected kernels and an arch sm_XX, XX >= 80");
        return sm && sm < 80 ? CUTE_ERR_UNSUPPORTED : CUTE_ERR_INVALID;
    }
    cc_buf mod = {0}, text = {0};
    bool uses_smem = false;
    int align = 16;
    cute_status s = CUTE_OK;
    for (int i = 0; i < n && s == CUTE_OK; i++) {
        if (!kernels[i] || !kernels[i]->name) return CUTE_ERR_INVALID;
        s = kernel(&text, kernels[i], opts, sm, &uses_smem, err, errn);
        if (kernels[i]->smem_align > align) align = kernels[i]->smem_align;
    }
    if (s == CUTE_OK) {
        cc_printf(&mod, "// generated by cutec: IR straight to PTX\n.version %s\n.target %s\n.address_size 64\n",
                  isa_version(sm), opts->arch);
        if (uses_smem) cc_printf(&mod, "\n.extern .shared .align %d .b8 cute_smem[];\n", align);
        cc_puts(&mod, text.p ? text.p : "");
        if (mod.oom || text.oom) {
            s = CUTE_ERR_OOM;
            if (errn) snprintf(err, errn, "ptx: out of memory");
        }
    }
    free(text.p);
    if (s == CUTE_OK)
        *out = mod.p;
    else
        free(mod.p);
    return s;
}
