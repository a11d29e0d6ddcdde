/* cute_call: check the arguments against the specs, put the host values into the call's
 * frame, run the launch program there and launch.  Nothing here writes to the cute_fn. */
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

/* DLPack type codes (dlpack.h's DLDataTypeCode): 0 int, 1 uint, 2 float, 4 bfloat,
 * 10 float8_e4m3fn, 12 float8_e5m2, 14 float8_e8m0fnu, 17 float4_e2m1fn (4 bits); tf32 and
 * ue4m3 have no code */
static const struct { int code, bits; cute_dtype d; } dlpack_map[] = {
    {0, 8, CUTE_I8}, {0, 16, CUTE_I16}, {0, 32, CUTE_I32}, {0, 64, CUTE_I64},
    {1, 8, CUTE_U8}, {1, 16, CUTE_U16}, {1, 32, CUTE_U32}, {1, 64, CUTE_U64},
    {2, 16, CUTE_F16}, {2, 32, CUTE_F32}, {2, 64, CUTE_F64}, {4, 16, CUTE_BF16},
    {10, 8, CUTE_E4M3}, {12, 8, CUTE_E5M2}, {14, 8, CUTE_UE8M0}, {17, 4, CUTE_E2M1}};
#define NDLPACK (sizeof dlpack_map / sizeof *dlpack_map)

static bool dlpack_dtype(int code, int bits, int lanes, cute_dtype *d)
{
    for (size_t i = 0; i < NDLPACK; i++)
        if (dlpack_map[i].code == code && dlpack_map[i].bits == bits && lanes == 1) {
            *d = dlpack_map[i].d;
            return true;
        }
    return false;
}

bool cute__dtype_dlpack(cute_dtype d, int *code, int *bits)
{
    for (size_t i = 0; i < NDLPACK; i++)
        if (dlpack_map[i].d == d) return *code = dlpack_map[i].code, *bits = dlpack_map[i].bits, true;
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

/* a call's error goes to its own frame's buffer: calls on other threads keep theirs */
static cute_status call_fail(struct cute_call_frame *fr, cute_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static cute_status call_fail(struct cute_call_frame *fr, cute_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (fr->errn) vsnprintf(fr->err, fr->errn, fmt, ap);
    va_end(ap);
    return s;
}
#define bad(fr, ...) call_fail((fr), CUTE_ERR_INVALID, __VA_ARGS__)

static const char *const kinds[] = {"a tensor", "an int", "a float"};

/* one leaf: a static one must match; a dynamic one must keep its promises, then binds */
static cute_status leaf(const cute_fn *f, cute_call_frame *fr, int k, const spec_leaf *s, int64_t v, const char *what, int i)
{
    if (!s->dynamic) {
        if (v != s->value)
            return bad(fr,
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
        return bad(fr,
                   "argument %d: %s %d is %lld, below %lld (dynamic strides must be positive: "
                   "compile a static 0 for a broadcast mode)",
                   k, what, i, (long long)v, (long long)h->lb);
    if (h->div > 1 && v % h->div != 0)
        return bad(fr, "argument %d: %s %d is %lld, not a multiple of %lld as the spec promises", k,
                   what, i, (long long)v, (long long)h->div);
    int64_t bound = f->index_bound;
    if (bound && (v > bound || v < -bound))
        return bad(fr,
                   "argument %d: %s %d is %lld, beyond the bound %lld the function was compiled "
                   "with (cute_index_bound: its index arithmetic is 32-bit)",
                   k, what, i, (long long)v, (long long)bound);
    fr->values[s->hsym] = v;
    return CUTE_OK;
}

/* the count, and each argument's kind, dtype, rank and buffer: what every call must get
 * right, an empty one too */
static cute_status forms(const cute_fn *f, cute_call_frame *fr, int nargs, const cute_call_arg *args)
{
    if (nargs != f->nargs)
        return bad(fr, "%d arguments given, the function takes %d", nargs, f->nargs);
    for (int k = 0; k < nargs; k++) {
        const arg_info *a = &f->args[k];
        const cute_call_arg *x = &args[k];
        if (x->kind != a->spec.kind)
            return bad(fr, "argument %d: %s given where %s is expected", k, kinds[x->kind % 3],
                       kinds[a->spec.kind % 3]);
        if (x->kind != CUTE_ARG_TENSOR) continue;
        if (x->dtype != a->spec.dtype)
            return bad(fr, "argument %d: %s elements given, %s expected", k,
                       cute_dtype_name((cute_dtype)x->dtype),
                       cute_dtype_name((cute_dtype)a->spec.dtype));
        if (x->ndim != a->nleaves) /* before any shape[i] is read: ndim may be anything */
            return bad(fr, "argument %d: %d dimensions given, %d expected", k, x->ndim, a->nleaves);
        if (!x->buf) return bad(fr, "argument %d: no buffer", k);
    }
    return CUTE_OK;
}

static cute_status bind(const cute_fn *f, cute_call_frame *fr, int nargs, const cute_call_arg *args)
{
    for (int k = 0; k < nargs; k++) { /* forms() has checked count, kinds, dtypes, ranks */
        const arg_info *a = &f->args[k];
        const cute_call_arg *x = &args[k];
        if (x->kind == CUTE_ARG_INT) {
            cute_status s = leaf(f, fr, k, &a->shape[0], x->i, "value", 0);
            if (s) return s;
            continue;
        }
        if (x->kind == CUTE_ARG_FLOAT) continue;
        uintptr_t addr = (uintptr_t)x->buf->ptr + x->offset;
        if (addr % (uintptr_t)a->spec.align)
            return bad(fr,
                       "argument %d: the data pointer is not %d-byte aligned as the spec "
                       "assumes",
                       k, a->spec.align);
        for (int i = 0; i < x->ndim; i++) {
            cute_status s = leaf(f, fr, k, &a->shape[i], x->shape[i], "shape", i);
            if (!s) s = leaf(f, fr, k, &a->stride[i], x->stride[i], "stride", i);
            if (s) return s;
            if (x->shape[i] < 0) return bad(fr, "argument %d: negative extent", k);
        }
        /* the bytes the elements touch (e2m1: two elements a byte), overflow-checked */
        cute_dtype d = (cute_dtype)x->dtype;
        int ebits = cute_dtype_is_packed(d) ? cute_dtype_bits(d) : 8 * cute_dtype_bytes(d);
        bool empty = false;
        for (int i = 0; i < x->ndim; i++) empty |= x->shape[i] == 0;
        if (!empty && !cute__arg_inside_buffer(x, ebits))
            return bad(fr, "argument %d: the tensor reaches outside its buffer (%zu bytes)", k,
                       x->buf->bytes);
    }
    return CUTE_OK;
}

/* derived strides (compact specs), now that the launch program computed them; strides a
 * spec shares with another argument (strides_of) */
static cute_status check_derived(const cute_fn *f, cute_call_frame *fr, const cute_call_arg *args)
{
    for (int k = 0; k < f->nargs; k++)
        for (int i = 0; i < f->args[k].nleaves; i++) {
            const spec_leaf *s = &f->args[k].stride[i];
            if (!s->dynamic || s->hsym >= 0) continue;
            int64_t want = fr->regs[s->step];
            if (want != args[k].stride[i] && args[k].shape[i] > 1)
                return bad(fr, "argument %d: stride %d is %lld, but a compact tensor of this shape "
                               "has %lld", k, i, (long long)args[k].stride[i], (long long)want);
        }
    for (int k = 0; k < f->nargs; k++) {
        int j = f->args[k].spec.strides_of - 1;
        for (int i = 0; j >= 0 && i < args[k].ndim && i < args[j].ndim; i++)
            if (args[k].stride[i] != args[j].stride[i] && args[k].shape[i] > 1)
                return bad(fr, "argument %d: stride %d is %lld, argument %d's %lld: the kernels address both "
                               "with one set of offsets, so their strides must be equal", k, i,
                           (long long)args[k].stride[i], j, (long long)args[j].stride[i]);
    }
    return CUTE_OK;
}

/* launch r's configuration and arguments into the frame (nothing when its grid is empty) */
static cute_status prepare_launch(const cute_fn *f, cute_call_frame *fr, const launch_rec *r,
                                  const cute_call_arg *args)
{
    const int64_t *R = fr->regs;
    uint32_t g[3], b[3];
    for (int i = 0; i < 3; i++) {
        int64_t gi = R[r->grid_step[i]], bi = R[r->block_step[i]];
        if (gi < 0 || gi > 0x7fffffff || bi < 1 || bi > 1024)
            return bad(fr, "launch at line %d: grid %lld or block %lld out of range", r->line,
                       (long long)gi, (long long)bi);
        if (gi == 0) return CUTE_OK; /* no work: nothing to launch */
        g[i] = (uint32_t)gi, b[i] = (uint32_t)bi;
    }
    int64_t smem = R[r->smem_step];
    if (smem < 0 || smem > UINT32_MAX)
        return bad(fr, "launch at line %d: %lld bytes of shared memory", r->line, (long long)smem);
    uint32_t cl[3] = {0, 0, 0};
    for (int i = 0; i < 3 && r->has_cluster; i++) {
        int64_t ci = R[r->cluster_step[i]];
        if (ci < 1 || ci > 1024 || g[i] % ci)
            return bad(fr, "launch at line %d: a cluster of %lld blocks in %c does not divide the "
                           "grid's %u", r->line, (long long)ci, "xyz"[i], g[i]);
        cl[i] = (uint32_t)ci;
    }
    int n = fr->nlaunch++;
    cute_launch_arg *la = fr->args[n];
    for (int p = 0; p < r->nparams; p++) {
        const kparam *q = &r->params[p];
        la[p] = (cute_launch_arg){.type = q->type};
        if (q->kind == P_SYM) la[p].v.i = fr->values[q->index];
        if (q->kind == P_FLOAT) la[p].v.f = args[q->index].f;
        if (q->kind == P_PTR) la[p].buf = args[q->index].buf, la[p].offset = args[q->index].offset;
        if (q->kind == P_OPAQUE) la[p].bytes = fr->opaque[q->index];
    }
    fr->rec[n] = (int)(r - f->launches);
    fr->cfg[n] = (cute_launch){.grid = {g[0], g[1], g[2]},
                               .block = {b[0], b[1], b[2]},
                               .smem_bytes = (uint32_t)smem,
                               .cluster = {cl[0], cl[1], cl[2]},
                               .pdl = r->pdl};
    return CUTE_OK;
}

/* every value the launches need, from this call's host values */
static cute_status run_program(const cute_fn *f, cute_call_frame *fr)
{
    const char *why = NULL;
    int failed = lp_run(&f->prog, fr->values, fr->regs, &why);
    if (failed < 0) return CUTE_OK;
    if (fr->errn) lp_describe_failure(&f->prog, failed, why, fr->err, fr->errn);
    return CUTE_ERR_INVALID;
}

/* the prepare step: each opaque parameter (a tensor map) from this call's arguments */
static cute_status build_opaques(const cute_fn *f, cute_call_frame *fr, int nargs,
                                 const cute_call_arg *args)
{
    for (int i = 0; i < f->nopaques; i++) {
        char why[512];
        why[0] = 0;
        const opaque_rec *o = &f->opaques[i];
        memset(fr->opaque[i], 0, OPAQUE_BYTES);
        cute_status s = o->build(o->user, f->rt, args, nargs, fr->opaque[i], why, sizeof why);
        if (s != CUTE_OK)
            return call_fail(fr, s, "tensor map %d: %s", i, why[0] ? why : cute_status_name(s));
    }
    return CUTE_OK;
}

static void frame_init(cute_call_frame *fr, const cute_fn *f, char *err, size_t n)
{
    fr->fn = f;
    fr->nlaunch = 0;
    fr->err = n ? err : NULL;
    fr->errn = err ? n : 0;
    if (fr->errn) err[0] = 0;
}

cute_status cute_call_prepare(const cute_fn *f, cute_call_frame *fr, int nargs,
                              const cute_call_arg *args, char *err, size_t n)
{
    frame_init(fr, f, err, n);
    cute_status s = forms(f, fr, nargs, args);
    if (s) return s;
    /* a call with an empty tensor has nothing to do (extents are promised >= 1) */
    for (int k = 0; k < nargs; k++)
        if (args[k].kind == CUTE_ARG_TENSOR)
            for (int i = 0; i < args[k].ndim; i++)
                if (args[k].shape[i] == 0) return CUTE_OK;
    s = bind(f, fr, nargs, args);
    if (s == CUTE_OK) s = run_program(f, fr);
    if (s == CUTE_OK) s = check_derived(f, fr, args);
    if (s == CUTE_OK) s = build_opaques(f, fr, nargs, args);
    if (s == CUTE_OK) s = jit_check_alias(f, fr, nargs, args);
    for (int i = 0; i < f->nlaunches && s == CUTE_OK; i++)
        s = prepare_launch(f, fr, &f->launches[i], args);
    if (s != CUTE_OK) fr->nlaunch = 0;
    return s;
}

cute_status cute_call_launch(const cute_fn *f, cute_call_frame *fr, void *stream, char *err,
                             size_t n)
{
    fr->err = n ? err : NULL;
    fr->errn = err ? n : 0;
    if (fr->fn != f) return bad(fr, "cute_call_launch: the frame was prepared for another function");
    const cute_backend *be = &f->rt->b;
    for (int i = 0; i < fr->nlaunch; i++) {
        const launch_rec *r = &f->launches[fr->rec[i]];
        char why[1024]; /* not zero-filled: this is the per-call path */
        why[0] = 0;
        fr->cfg[i].stream = stream;
        fr->cfg[i].err = why, fr->cfg[i].errn = sizeof why; /* this call's own message */
        cute_status s = be->vt->launch(be->self, f->module, r->kernel, &fr->cfg[i], fr->args[i],
                                       r->nparams);
        fr->cfg[i].err = NULL, fr->cfg[i].errn = 0;
        if (s != CUTE_OK)
            return call_fail(fr, s, "launch of %s: %s: %s", f->kernels[r->kernel]->name,
                             cute_status_name(s), why[0] ? why : be->vt->error(be->self));
    }
    return CUTE_OK;
}

/* aligned as the struct asks (its tensor maps: calloc's 16 bytes are not enough) */
cute_call_frame *cute_call_frame_new(void)
{
    cute_call_frame *fr = aligned_alloc(_Alignof(cute_call_frame), sizeof *fr); /* a multiple of it */
    if (fr) memset(fr, 0, sizeof *fr);
    return fr;
}
void cute_call_frame_free(cute_call_frame *fr) { free(fr); }

cute_status cute_call(const cute_fn *f, void *stream, int nargs, const cute_call_arg *args,
                      char *err, size_t n)
{
    cute_call_frame fr; /* this call's own state, on this thread's stack */
    cute_status s = cute_call_prepare(f, &fr, nargs, args, err, n);
    return s != CUTE_OK ? s : cute_call_launch(f, &fr, stream, err, n);
}
