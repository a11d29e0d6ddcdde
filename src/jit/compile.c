/* cute_compile: run the host function on tensors whose dynamic leaves are unknowns, trace
 * every CUTE_LAUNCH into a kernel and its launch recipe, compile the kernels. */
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/cuda_driver.h"
#include "cutec/notation.h"
#include "jit_internal.h"

cute_arg_spec cute_spec_tensor(cute_dtype d, const char *layout, int align_bytes)
{
    cute_arg_spec s;
    memset(&s, 0, sizeof s);
    s.kind = CUTE_ARG_TENSOR;
    s.dtype = (uint8_t)d;
    s.align = align_bytes;
    snprintf(s.layout, sizeof s.layout, "%s", layout ? layout : "");
    return s;
}

cute_arg_spec cute_spec_tensor_compact(cute_dtype d, const char *shape, bool row_major,
                                       int align_bytes)
{
    cute_arg_spec s = cute_spec_tensor(d, shape, align_bytes);
    s.compact = row_major ? 2 : 1;
    return s;
}

cute_arg_spec cute_spec_int(const char *value)
{
    cute_arg_spec s = cute_spec_tensor(CUTE_I64, value, 0);
    s.kind = CUTE_ARG_INT;
    return s;
}

cute_arg_spec cute_spec_float(cute_dtype d)
{
    cute_arg_spec s = cute_spec_tensor(d, "", 0);
    s.kind = CUTE_ARG_FLOAT;
    return s;
}

static bool add_hsym(cute_fn *f, cute_int x, int arg, int leaf, src_kind kind, int *out)
{
    host_sym *h = realloc(f->hsyms, (size_t)(f->nhsyms + 1) * sizeof *h);
    if (!h) return cute_ctx_fail(f->c, "out of memory");
    f->hsyms = h;
    const char *name;
    int64_t div, lb;
    int sym = cute_symbolic_symbol_index(f->c->sym, x);
    cute_symbolic_symbol_info(f->c->sym, sym, &name, &div, &lb);
    h[f->nhsyms] = (host_sym){sym, arg, leaf, (uint8_t)kind, div, lb};
    *out = f->nhsyms++;
    return true;
}

/* a fresh host unknown for a '?' leaf: extents and strides >= 1 (a broadcast or reversed
 * mode must be written static; a call with an empty tensor does nothing) */
static cute_int host_unknown(cute_fn *f, const char *what, int arg, int leaf, int64_t div,
                             src_kind kind, int *hs)
{
    char name[48];
    snprintf(name, sizeof name, "%s%d.%d", what, arg, leaf);
    cute_int x = cute_symbolic_symbol(f->c->sym, name, div, kind == SRC_INT ? 0 : 1);
    if (!add_hsym(f, x, arg, leaf, kind, hs)) return cute_i(0);
    return x;
}

/* Read argument k's spec text as a layout (tensor) or a tuple (int) in a scratch context:
 * its '?' leaves are only marks (their divisors are kept in the ints), each then becomes a
 * named host unknown of this compile. */
static bool parse_spec(cute_fn *f, int k, bool layout, cute_layout *L, cute_tuple *t)
{
    const cute_arg_spec *spec = &f->args[k].spec;
    cute_alg marks;
    cute_symbolic *scratch = cute_symbolic_new();
    if (!scratch) return cute_ctx_fail(f->c, "out of memory");
    cute_symbolic_bind(scratch, &marks);
    if (!layout)
        *t = cute_tuple_parse(&marks, spec->layout);
    else if (spec->compact && strchr(spec->layout, ':'))
        cute_alg_fail(&marks, "a compact spec gives the shape only, not \"%s\"", spec->layout);
    else
        *L = spec->compact ? cute_layout_or_shape_parse(&marks, spec->layout)
                           : cute_layout_parse(&marks, spec->layout);
    cute_symbolic_free(scratch);
    if (marks.failed) return cute_ctx_fail(f->c, "argument %d: %s", k, marks.error);
    return true;
}

/* a spec's kind and dtype, before anything reads them (a void element has 0 bytes, a
 * divisor further on) */
static bool spec_valid(cute_fn *f, int k)
{
    const cute_arg_spec *s = &f->args[k].spec;
    cute_dtype d = (cute_dtype)s->dtype;
    if (s->kind > CUTE_ARG_FLOAT)
        return cute_ctx_fail(f->c, "argument %d: spec kind %d is not a tensor, an int or a float",
                             k, s->kind);
    if (d == CUTE_VOID || d == CUTE_I1 || d >= CUTE_PTR)
        return cute_ctx_fail(f->c, "argument %d: dtype %d (%s) is not an element type: give one "
                                   "of i8..i64, u8..u64, f16, bf16, f32, f64", k, s->dtype,
                             cute_dtype_name(d));
    int j = s->strides_of - 1;
    if (j >= 0 && (s->kind != CUTE_ARG_TENSOR || j >= k || f->args[j].spec.kind != CUTE_ARG_TENSOR))
        return cute_ctx_fail(f->c, "argument %d: strides_of names argument %d: it must be an earlier tensor "
                                   "argument, and this one a tensor", k, j);
    return true;
}

static bool tensor_arg(cute_fn *f, int k, cute_arg *out)
{
    arg_info *a = &f->args[k];
    cute_layout L;
    if (!parse_spec(f, k, true, &L, NULL)) return false;
    if (L.shape.nleaves > 8 || cute_depth(&L) > 1) {
        return cute_ctx_fail(f->c, "argument %d: a tensor spec is a flat layout of at most 8 "
                                   "modes (\"%s\")", k, a->spec.layout);
    }
    a->nleaves = L.shape.nleaves;
    for (int i = 0; i < L.shape.nleaves; i++) {
        for (int part = 0; part < 2 - (a->spec.compact != 0); part++) {
            cute_int *leaf = part ? &L.stride.leaf[i] : &L.shape.leaf[i];
            spec_leaf *s = part ? &a->stride[i] : &a->shape[i];
            if (cute_is_static(*leaf)) {
                *s = (spec_leaf){false, leaf->v, -1, cute_i(0), -1};
                continue;
            }
            int hs;
            *leaf = host_unknown(f, part ? "d" : "s", k, i, leaf->div, part ? SRC_STRIDE : SRC_SHAPE, &hs);
            *s = (spec_leaf){true, 0, hs, cute_i(0), -1};
        }
    }
    if (a->spec.compact) { /* strides follow from the (now symbolic) extents */
        cute_layout C = a->spec.compact == 2 ? cute_make_layout_row_major(&f->c->alg, L.shape)
                                             : cute_make_layout(&f->c->alg, L.shape);
        if (f->c->alg.failed) return false;
        L.stride = C.stride;
        for (int i = 0; i < L.shape.nleaves; i++)
            a->stride[i] = cute_is_static(L.stride.leaf[i])
                               ? (spec_leaf){false, L.stride.leaf[i].v, -1, cute_i(0), -1}
                               : (spec_leaf){true, 0, -1, L.stride.leaf[i], -1};
    }
    int esize = cute_dtype_bytes((cute_dtype)a->spec.dtype);
    if (a->spec.align < esize || (a->spec.align & (a->spec.align - 1)))
        return cute_ctx_fail(f->c, "argument %d: alignment %d must be a power of two >= the "
                                   "%d-byte element", k, a->spec.align, esize);
    cute_tensor t;
    memset(&t, 0, sizeof t);
    t.kind = CUTE_TENSOR_GMEM;
    t.dtype = a->spec.dtype;
    t.align = a->spec.align;
    /* on the host there is no IR: the base is "argument k's pointer" */
    t.base = (cute_val){0, cute_type_ptr((cute_dtype)a->spec.dtype, CUTE_GMEM), 0};
    t.host_arg = k;
    t.offset = cute_i(0);
    t.layout = L;
    out->kind = CUTE_ARG_TENSOR;
    out->tensor = t;
    return !f->c->alg.failed;
}

static bool scalar_arg(cute_fn *f, int k, cute_arg *out)
{
    arg_info *a = &f->args[k];
    out->kind = a->spec.kind;
    if (a->spec.kind == CUTE_ARG_FLOAT) {
        cute_dtype d = (cute_dtype)a->spec.dtype;
        if (!cute_dtype_is_float(d) && !cute_dtype_is_narrow_float(d)) /* narrow: passed as its code */
            return cute_ctx_fail(f->c, "argument %d: a float spec needs a float type", k);
        out->f = (cute_host_scalar){k, a->spec.dtype};
        return true;
    }
    cute_tuple t;
    bool ok = parse_spec(f, k, false, NULL, &t) && cute_tuple_is_int(&t) &&
              !cute_is_underscore(t.leaf[0]);
    cute_int v = ok ? t.leaf[0] : cute_i(0);
    if (!ok && f->c->alg.failed) return false;
    if (!ok)
        return cute_ctx_fail(f->c, "argument %d: an int spec is \"?\", \"?{div=N}\" or a number, "
                                   "not \"%s\"", k, a->spec.layout);
    a->nleaves = 1;
    if (cute_is_static(v)) {
        a->shape[0] = (spec_leaf){false, v.v, -1, cute_i(0), -1};
        out->i = v;
        return true;
    }
    int hs;
    out->i = host_unknown(f, "n", k, 0, v.div, SRC_INT, &hs);
    a->shape[0] = (spec_leaf){true, 0, hs, cute_i(0), -1};
    return !f->c->alg.failed;
}

/* A kernel whose shared memory a block of the target cannot have (a plan for sm_90's 227 KB
 * compiled for an sm_86's 99: cute_cuda_arch_smem_per_block) is refused here, in words,
 * rather than by the driver at its launch on that card (docs/cards.md) */
static cute_status smem_fits(const cute_fn *f, char *err, size_t n)
{
    int sm = f->rt ? f->rt->target_sm : 0;
    int64_t room = cute_cuda_arch_smem_per_block(sm);
    for (int i = 0; room && i < f->nkernels; i++)
        if (f->kernels[i]->smem_bytes > room) {
            snprintf(err, n, "compile %s: kernel %s takes %lld bytes of shared memory a block; sm_%d allows %lld",
                     f->name, f->kernels[i]->name, (long long)f->kernels[i]->smem_bytes, sm, (long long)room);
            return CUTE_ERR_UNSUPPORTED;
        }
    return CUTE_OK;
}

static cute_status compile_kernels(cute_fn *f, char *err, size_t n)
{
    if (f->nkernels == 0) return CUTE_OK;
    cute_status fits = smem_fits(f, err, n);
    if (fits != CUTE_OK) return fits;
    cute_backend *b = &f->rt->b;
    const char *log = NULL;
    cute_status s = b->vt->compile(b->self, f->kernels, f->nkernels, &f->module, &log);
    if (s != CUTE_OK) snprintf(err, n, "compile %s: %s: %s", f->kernels[0]->name, cute_status_name(s),
                               log ? log : "");
    return s;
}

/* the launch program: derived strides first (a call checks them with the arguments),
 * then each launch's grid, block and shared bytes */
static bool compile_root(cute_fn *f, cute_int x, int *step, const char *what, int line)
{
    return lp_compile_int(&f->prog, f->c, f, x, step) && lp_close_root(&f->prog, what, line);
}

static bool compile_launch(cute_fn *f, launch_rec *r)
{
    static const char *const axis = "xyz";
    char what[48];
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "the grid (%c)", axis[i]);
        if (!compile_root(f, r->grid[i], &r->grid_step[i], what, r->line)) return false;
        snprintf(what, sizeof what, "the block (%c)", axis[i]);
        if (!compile_root(f, r->block[i], &r->block_step[i], what, r->line)) return false;
        snprintf(what, sizeof what, "the cluster (%c)", axis[i]);
        if (!compile_root(f, r->cluster[i], &r->cluster_step[i], what, r->line)) return false;
    }
    for (int p = 0; p < r->nparams; p++) /* a host value's parameter: its slot */
        if (r->params[p].kind == P_SYM) {
            int slot = 0;
            while (f->hsyms[slot].sym != r->params[p].index) slot++; /* launch.c made sure */
            r->params[p].index = slot;
        }
    return compile_root(f, r->smem, &r->smem_step, "the shared memory", r->line);
}

static bool compile_program(cute_fn *f)
{
    if (f->nhsyms > MAX_VALUES)
        return cute_ctx_fail(f->c, "the arguments have %d dynamic values (at most %d)", f->nhsyms,
                             MAX_VALUES);
    if (f->nlaunches > MAX_LAUNCHES)
        return cute_ctx_fail(f->c, "the host function launches %d kernels (at most %d)",
                             f->nlaunches, MAX_LAUNCHES);
    char what[48];
    for (int k = 0; k < f->nargs; k++)
        for (int i = 0; i < f->args[k].nleaves; i++) {
            spec_leaf *s = &f->args[k].stride[i];
            if (!s->dynamic || s->hsym >= 0) continue;
            snprintf(what, sizeof what, "argument %d: stride %d", k, i);
            if (!compile_root(f, s->expr, &s->step, what, 0)) return false;
        }
    for (int i = 0; i < f->nlaunches; i++)
        if (!compile_launch(f, &f->launches[i])) return false;
    lp_done_compiling(&f->prog);
    return true;
}

/* trace: the specs become the host function's arguments, which it launches kernels with */
static void trace(cute_fn *f, cute_host_fn host, const cute_arg_spec *specs, cute_arg *args)
{
    for (int k = 0; k < f->nargs && !f->c->alg.failed; k++) {
        f->args[k].spec = specs[k];
        if (!spec_valid(f, k)) break;
        if (specs[k].kind == CUTE_ARG_TENSOR)
            tensor_arg(f, k, &args[k]);
        else
            scalar_arg(f, k, &args[k]);
    }
    if (!f->c->alg.failed) host(f->c, args);
    f->c->jit = NULL;
    if (!f->c->alg.failed && f->c->fn)
        cute_ctx_fail(f->c, "a kernel was left open (a CUTE_LAUNCH did not finish)");
    if (!f->c->alg.failed) compile_program(f);
    f->index_bound = cute_ctx_index_bound(f->c);
}

const cute_fn *cute_compile(cute_runtime *rt, const char *name, cute_host_fn host, void *user,
                            int nargs, const cute_arg_spec *specs, char *err, size_t n)
{
    if (n) err[0] = 0;
    cute_fn *f = calloc(1, sizeof *f);
    cute_arg *args = calloc((size_t)(nargs > 0 ? nargs : 1), sizeof *args);
    if (f) f->c = cute_ctx_new();
    if (f) f->args = calloc((size_t)(nargs > 0 ? nargs : 1), sizeof *f->args);
    if (!f || !args || !f->c || !f->args) {
        snprintf(err, n, "compile %s: out of memory", name);
        free(args);
        cute_fn_free(f);
        return NULL;
    }
    f->rt = rt;
    snprintf(f->name, sizeof f->name, "%s", name ? name : "fn");
    f->nargs = nargs;
    f->c->jit = f;
    f->c->user = user;
    cute_ctx_target_arch(f->c, rt ? rt->target_sm : 0);
    cute_ctx_target_interp(f->c, cute_runtime_interprets(rt));
    trace(f, host, specs, args);
    free(args);
    if (f->c->alg.failed) {
        snprintf(err, n, "compile %s: %s", name, cute_ctx_error(f->c));
        cute_fn_free(f);
        return NULL;
    }
    jit_mark_aliasing(f);
    cute_ctx_free(f->c); /* nothing after the compile needs the tracer */
    f->c = NULL;
    if (getenv("CUTEC_PRINT_IR")) /* CuTe DSL's CUTE_DSL_PRINT_IR: the traced kernels */
        for (int i = 0; i < f->nkernels; i++) cute_ir_dump(stderr, f->kernels[i]);
    if (compile_kernels(f, err, n) != CUTE_OK) {
        cute_fn_free(f);
        return NULL;
    }
    cute__fn_keep(f); /* CUTEC_KEEP on the interpreter too */
    return f;
}

void cute_fn_free(const cute_fn *fn)
{
    cute_fn *f = (cute_fn *)fn; /* the caller gives up its handle: nothing else reads it */
    if (!f) return;
    if (f->module && f->rt) f->rt->b.vt->module_free(f->rt->b.self, f->module);
    for (int i = 0; i < f->nkernels; i++) cute_ir_func_free(f->kernels[i]);
    free(f->kernels);
    for (int i = 0; i < f->nlaunches; i++) {
        free(f->launches[i].params);
        free(f->launches[i].map);
    }
    free(f->launches);
    free(f->args);
    free(f->hsyms);
    lp_free(&f->prog);
    cute_ctx_free(f->c);
    free(f);
}

int cute_fn_kernel_count(const cute_fn *f) { return f->nkernels; }
const cute_ir_func *cute_fn_kernel(const cute_fn *f, int i)
{
    return i >= 0 && i < f->nkernels ? f->kernels[i] : NULL;
}
cute_runtime *cute_fn_runtime(const cute_fn *f) { return f->rt; }
