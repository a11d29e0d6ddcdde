/* cute_call: check the arguments against the specs, bind the host unknowns to their values,
 * evaluate each launch's recipe and launch. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "jit_internal.h"

cute_call_arg cute_call_tensor(const cute_buffer *buf, size_t offset, cute_dtype d, int ndim,
                               const int64_t *shape, const int64_t *stride)
{
    cute_call_arg a;
    memset(&a, 0, sizeof a);
    a.kind = CUTE_ARG_TENSOR;
    a.dtype = (uint8_t)d;
    a.buf = buf;
    a.offset = offset;
    a.ndim = ndim;
    for (int i = 0; i < ndim && i < 8; i++) a.shape[i] = shape[i], a.stride[i] = stride[i];
    return a;
}

/* DLPack type codes: 0 int, 1 uint, 2 float, 4 bfloat */
static bool dlpack_dtype(int code, int bits, int lanes, cute_dtype *d)
{
    static const struct { int code, bits; cute_dtype d; } map[] = {
        {0, 8, CUTE_I8}, {0, 16, CUTE_I16}, {0, 32, CUTE_I32}, {0, 64, CUTE_I64},
        {1, 8, CUTE_U8}, {1, 16, CUTE_U16}, {1, 32, CUTE_U32}, {1, 64, CUTE_U64},
        {2, 16, CUTE_F16}, {2, 32, CUTE_F32}, {2, 64, CUTE_F64}, {4, 16, CUTE_BF16}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (map[i].code == code && map[i].bits == bits && lanes == 1) {
            *d = map[i].d;
            return true;
        }
    return false;
}

bool cute_call_dlpack(const cute_dlpack_tensor *t, const cute_buffer *buf, cute_call_arg *out,
                      char *err, size_t n)
{
    cute_dtype d;
    if (!t || !buf || !t->shape) return snprintf(err, n, "DLTensor: missing tensor, shape or buffer"), false;
    if (!dlpack_dtype(t->dtype.code, t->dtype.bits, t->dtype.lanes, &d))
        return snprintf(err, n, "DLTensor: dtype code %d, %d bits, %d lanes is not supported",
                        t->dtype.code, t->dtype.bits, t->dtype.lanes), false;
    if (t->ndim < 0 || t->ndim > 8) return snprintf(err, n, "DLTensor: rank %d (at most 8)", t->ndim), false;
    int64_t stride[8], s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        stride[i] = t->strides ? t->strides[i] : s;
        if (t->shape[i] < 0 || __builtin_mul_overflow(s, t->shape[i], &s))
            return snprintf(err, n, "DLTensor: shape %d is negative or the size overflows 64 bits",
                            i), false;
    }
    uintptr_t base = (uintptr_t)t->data + t->byte_offset, start = (uintptr_t)buf->ptr;
    if (base < start || base - start > buf->bytes)
        return snprintf(err, n, "DLTensor: its data does not lie in the given buffer"), false;
    *out = cute_call_tensor(buf, (size_t)(base - start), d, t->ndim, t->shape, stride);
    return true;
}

bool cute_call_arg_row_major(const cute_call_arg *x)
{
    int64_t want = 1;
    for (int i = x->ndim - 1; i >= 0; i--) {
        if (x->shape[i] != 1 && x->stride[i] != want) return false;
        if (__builtin_mul_overflow(want, x->shape[i], &want)) return false;
    }
    return true;
}

int cute_call_arg_alignment(const cute_call_arg *x, int most)
{
    uintptr_t addr = (uintptr_t)x->buf->ptr + x->offset;
    int a = most;
    while (a > 1 && addr % (uintptr_t)a) a /= 2;
    return a;
}

cute_call_arg cute_call_int(int64_t v)
{
    cute_call_arg a;
    memset(&a, 0, sizeof a);
    a.kind = CUTE_ARG_INT;
    a.dtype = CUTE_I64;
    a.i = v;
    return a;
}

cute_call_arg cute_call_float(double v)
{
    cute_call_arg a;
    memset(&a, 0, sizeof a);
    a.kind = CUTE_ARG_FLOAT;
    a.f = v;
    return a;
}

static cute_status bad(cute_fn *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cute_status bad(cute_fn *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->err, sizeof f->err, fmt, ap);
    va_end(ap);
    return CUTE_ERR_INVALID;
}

static const char *const kinds[] = {"a tensor", "an int", "a float"};

/* one leaf: a static one must match; a dynamic one must keep its promises, then binds */
static cute_status leaf(cute_fn *f, int k, const spec_leaf *s, int64_t v, const char *what, int i)
{
    if (!s->dynamic) {
        if (v != s->value)
            return bad(f,
                       "argument %d: %s %d is %lld, but the compiled function has it static "
                       "%lld",
                       k, what, i, (long long)v, (long long)s->value);
        return CUTE_OK;
    }
    if (s->hsym < 0) { /* a derived stride: checked once the extents are bound */
        return CUTE_OK;
    }
    const host_sym *h = &f->hsyms[s->hsym];
    if (v < h->lb)
        return bad(f,
                   "argument %d: %s %d is %lld, below %lld (dynamic strides must be positive: "
                   "compile a static 0 for a broadcast mode)",
                   k, what, i, (long long)v, (long long)h->lb);
    if (h->div > 1 && v % h->div != 0)
        return bad(f, "argument %d: %s %d is %lld, not a multiple of %lld as the spec promises", k,
                   what, i, (long long)v, (long long)h->div);
    int64_t bound = cute_ctx_index_bound(f->c);
    if (bound && (v > bound || v < -bound))
        return bad(f,
                   "argument %d: %s %d is %lld, beyond the bound %lld the function was compiled "
                   "with (cute_index_bound: its index arithmetic is 32-bit)",
                   k, what, i, (long long)v, (long long)bound);
    f->values[h->sym] = v;
    return CUTE_OK;
}

/* the count, and each argument's kind, dtype, rank and buffer: what every call must get
 * right, an empty one too */
static cute_status forms(cute_fn *f, int nargs, const cute_call_arg *args)
{
    if (nargs != f->nargs)
        return bad(f, "%d arguments given, the function takes %d", nargs, f->nargs);
    for (int k = 0; k < nargs; k++) {
        const arg_info *a = &f->args[k];
        const cute_call_arg *x = &args[k];
        if (x->kind != a->spec.kind)
            return bad(f, "argument %d: %s given where %s is expected", k, kinds[x->kind % 3],
                       kinds[a->spec.kind % 3]);
        if (x->kind != CUTE_ARG_TENSOR) continue;
        if (x->dtype != a->spec.dtype)
            return bad(f, "argument %d: %s elements given, %s expected", k,
                       cute_dtype_name((cute_dtype)x->dtype),
                       cute_dtype_name((cute_dtype)a->spec.dtype));
        if (x->ndim != a->nleaves) /* before any shape[i] is read: ndim may be anything */
            return bad(f, "argument %d: %d dimensions given, %d expected", k, x->ndim, a->nleaves);
        if (!x->buf) return bad(f, "argument %d: no buffer", k);
    }
    return CUTE_OK;
}

static cute_status bind(cute_fn *f, int nargs, const cute_call_arg *args)
{
    for (int k = 0; k < nargs; k++) { /* forms() has checked count, kinds, dtypes, ranks */
        const arg_info *a = &f->args[k];
        const cute_call_arg *x = &args[k];
        if (x->kind == CUTE_ARG_INT) {
            cute_status s = leaf(f, k, &a->shape[0], x->i, "value", 0);
            if (s) return s;
            continue;
        }
        if (x->kind == CUTE_ARG_FLOAT) continue;
        uintptr_t addr = (uintptr_t)x->buf->ptr + x->offset;
        if (addr % (uintptr_t)a->spec.align)
            return bad(f,
                       "argument %d: the data pointer is not %d-byte aligned as the spec "
                       "assumes",
                       k, a->spec.align);
        for (int i = 0; i < x->ndim; i++) {
            cute_status s = leaf(f, k, &a->shape[i], x->shape[i], "shape", i);
            if (!s) s = leaf(f, k, &a->stride[i], x->stride[i], "stride", i);
            if (s) return s;
            if (x->shape[i] < 0) return bad(f, "argument %d: negative extent", k);
        }
        for (int i = 0; i < x->ndim; i++) { /* derived strides, now that every extent is bound */
            if (a->stride[i].dynamic && a->stride[i].hsym < 0) {
                int64_t want;
                cute_status e = CUTE_OK;
                if (cute_symbolic_eval(f->c->sym, a->stride[i].expr, f->values, &want) != 0)
                    e = bad(f, "argument %d: stride %d: %s", k, i, cute_symbolic_error(f->c->sym));
                else if (want != x->stride[i] && x->shape[i] > 1)
                    e = bad(f,
                            "argument %d: stride %d is %lld, but a compact tensor of this "
                            "shape has %lld",
                            k, i, (long long)x->stride[i], (long long)want);
                if (e) return e;
            }
        }
        bool empty = false;
        for (int i = 0; i < x->ndim; i++) empty |= x->shape[i] == 0;
        if (!empty && !cute__arg_inside_buffer(x, cute_dtype_bytes((cute_dtype)x->dtype)))
            return bad(f, "argument %d: the tensor reaches outside its buffer (%zu bytes)", k,
                       x->buf->bytes);
    }
    return CUTE_OK;
}

static cute_status eval(cute_fn *f, cute_int x, int64_t *out, const char *what, int line)
{
    if (cute_symbolic_eval(f->c->sym, x, f->values, out) != 0)
        return bad(f, "launch at line %d: %s cannot be evaluated: %s", line, what,
                   cute_symbolic_error(f->c->sym));
    return CUTE_OK;
}

static cute_status launch_one(cute_fn *f, const launch_rec *r, void *stream,
                              const cute_call_arg *args)
{
    int64_t g[3], b[3], smem = 0;
    for (int i = 0; i < 3; i++) {
        cute_status s = eval(f, r->grid[i], &g[i], "the grid", r->line);
        if (!s) s = eval(f, r->block[i], &b[i], "the block", r->line);
        if (s) return s;
        if (g[i] < 0 || g[i] > 0x7fffffff || b[i] < 1 || b[i] > 1024)
            return bad(f, "launch at line %d: grid %lld or block %lld out of range", r->line,
                       (long long)g[i], (long long)b[i]);
        if (g[i] == 0) return CUTE_OK; /* no work: nothing to launch */
    }
    if (eval(f, r->smem, &smem, "the shared memory", r->line)) return CUTE_ERR_INVALID;
    if (smem < 0 || smem > UINT32_MAX) /* before it narrows to the launch's 32 bits */
        return bad(f, "launch at line %d: %lld bytes of shared memory", r->line, (long long)smem);
    cute_launch_arg la[64];
    if (r->nparams > 64) return bad(f, "a kernel with more than 64 parameters");
    for (int p = 0; p < r->nparams; p++) {
        const kparam *q = &r->params[p];
        memset(&la[p], 0, sizeof la[p]);
        la[p].type = q->type;
        if (q->kind == P_SYM) la[p].v.i = f->values[q->index];
        if (q->kind == P_FLOAT) la[p].v.f = args[q->index].f;
        if (q->kind == P_PTR) {
            la[p].buf = args[q->index].buf;
            la[p].offset = args[q->index].offset;
        }
    }
    cute_launch cfg = {{(uint32_t)g[0], (uint32_t)g[1], (uint32_t)g[2]},
                       {(uint32_t)b[0], (uint32_t)b[1], (uint32_t)b[2]},
                       (uint32_t)smem,
                       stream};
    cute_backend *be = &f->rt->b;
    launch_rec *w = (launch_rec *)r;
    w->last_cfg = cfg;
    memcpy(w->last_args, la, (size_t)r->nparams * sizeof *la);
    w->last_valid = true;
    cute_status s = be->vt->launch(be->self, f->module, r->kernel, &cfg, la, r->nparams);
    if (s != CUTE_OK)
        snprintf(f->err, sizeof f->err, "launch of %s: %s: %s", f->kernels[r->kernel]->name,
                 cute_status_name(s), be->vt->error(be->self));
    return s;
}

cute_status cute_fn_relaunch(cute_fn *f, void *stream)
{
    cute_backend *be = &f->rt->b;
    for (int i = 0; i < f->nlaunches; i++) {
        launch_rec *r = &f->launches[i];
        if (!r->last_valid) continue;
        r->last_cfg.stream = stream;
        cute_status s = be->vt->launch(be->self, f->module, r->kernel, &r->last_cfg, r->last_args,
                                       r->nparams);
        if (s != CUTE_OK) return s;
    }
    return CUTE_OK;
}

cute_status cute_call(cute_fn *f, void *stream, int nargs, const cute_call_arg *args)
{
    f->err[0] = 0;
    cute_status s = forms(f, nargs, args);
    if (s) return s;
    /* a call with an empty tensor has nothing to do (extents are promised >= 1) */
    for (int k = 0; k < nargs; k++)
        if (args[k].kind == CUTE_ARG_TENSOR)
            for (int i = 0; i < args[k].ndim; i++)
                if (args[k].shape[i] == 0) return CUTE_OK;
    s = bind(f, nargs, args);
    for (int i = 0; i < f->nlaunches && s == CUTE_OK; i++)
        s = launch_one(f, &f->launches[i], stream, args);
    return s;
}
