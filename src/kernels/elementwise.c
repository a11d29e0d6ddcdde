/* Elementwise kernels: out = expr(in...) over any shape and strides.
 *
 * The iteration space is out's shape, ordered so that out's unit-stride mode comes first.
 * Each tensor's layout over it is coalesced on its own (coalescing keeps the function of the
 * 1-D index), so compact tensors become N:1 and strided ones keep their modes.  The 1-D
 * domain is cut into chunks of `vec` elements (zipped_divide by vec:1); thread t of block b
 * takes chunks (b*U + u)*threads + t for u < U, so that neighbouring threads touch
 * neighbouring chunks.  A coordinate tensor cut the same way gives the bounds predicate.
 * Whether a chunk is one 16-byte access is decided by the algebra (cute_tensor_load). */
#include <stdlib.h>
#include <string.h>

#include "cutec/kernels.h"
#include "cutec/notation.h"

#define EW_MAX_IN 3

typedef struct ew_plan {
    cute_ew_expr expr;
    void *user;
    int nin;
    int threads, vectors, vec;
} ew_plan;

/* chunk q of t: elements [q*vec, (q+1)*vec) of its 1-D domain.  The slice at the 1-D
 * coordinate q*vec moves the iterator there; the chunk's layout is t o vec:1, the same for
 * every chunk once vec divides t's leading mode (the host checked). */
static cute_tensor chunk(cute_ctx *c, cute_tensor t, const ew_plan *p, cute_int q)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout unit = cute_make_layout(a, cute_tuple_int(cute_i(p->vec)));
    unit.stride.leaf[0] = cute_i(1);
    cute_layout L = cute_compose(a, &t.layout, &unit);
    cute_tensor at = cute_tensor_slice(c, t, cute_tuple_int(cute_mul(a, q, cute_i(p->vec))));
    at.layout = L;
    return at;
}

static void ew_kernel(cute_ctx *c, cute_tensor out, cute_tensor in0, cute_tensor in1,
                      cute_tensor in2, cute_tensor coords, cute_int n)
{
    const ew_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor ins[EW_MAX_IN] = {in0, in1, in2};
    cute_int tid = cute_thread_idx(c, 0), bid = cute_block_idx(c, 0);
    for (int u = 0; u < p->vectors; u++) { /* unrolled at trace time */
        cute_int q = cute_add(a, cute_mul(a, cute_add(a, cute_mul(a, bid, cute_i(p->vectors)), cute_i(u)),
                                          cute_i(p->threads)),
                              tid);
        cute_tensor crd = chunk(c, coords, p, q);
        cute_tuple extent = cute_tuple_int(n);
        cute_ssa pred = cute_elem_less(c, crd, extent);
        cute_ssa v[EW_MAX_IN];
        for (int i = 0; i < p->nin; i++) v[i] = cute_tensor_load_if(c, chunk(c, ins[i], p, q), pred, 0.0);
        cute_ssa r = p->expr(c, v, p->nin, p->user);
        cute_tensor_store_if(c, chunk(c, out, p, q), cute_ssa_cvt(c, r, (cute_dtype)out.dtype), pred);
    }
}

/* the iteration order: out's unit-stride mode first, then the others from the last one
 * back (row-major tensors are walked in memory order) */
static cute_tensor reorder(cute_ctx *c, cute_tensor t, int first)
{
    int r = cute_rank(&t.layout);
    if (first < 0 || r <= 1 || cute_tuple_is_int(&t.layout.shape)) return t;
    int modes[8], k = 0;
    modes[k++] = first;
    for (int i = r - 1; i >= 0; i--)
        if (i != first) modes[k++] = i;
    t.layout = cute_select(cute_ctx_alg(c), &t.layout, r, modes);
    return t;
}

static void ew_host(cute_ctx *c, const cute_arg *args)
{
    ew_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor out = args[p->nin].tensor;
    int first = -1, r = cute_rank(&out.layout);
    for (int i = 0; i < r && !cute_tuple_is_int(&out.layout.shape); i++)
        if (cute_is_const(out.layout.stride.leaf[i], 1)) first = i;
    cute_tensor t[EW_MAX_IN + 1];
    for (int i = 0; i <= p->nin; i++) {
        t[i] = reorder(c, args[i].tensor, first);
        t[i].layout = cute_coalesce(a, &t[i].layout);
    }
    cute_int n = cute_size(a, &out.layout);
    cute_tensor coords = cute_make_identity_tensor(c, cute_tuple_int(n));
    /* the widest chunk every tensor divides into without assuming anything */
    int maxbytes = 1;
    for (int i = 0; i <= p->nin; i++) {
        int b = cute_dtype_bytes((cute_dtype)t[i].dtype);
        if (b > maxbytes) maxbytes = b;
    }
    for (p->vec = 16 / maxbytes; p->vec > 1; p->vec /= 2) {
        cute_alg_trial trial;
        cute_alg_trial_begin(a, &trial);
        for (int i = 0; i <= p->nin && !a->failed; i++) {
            cute_layout unit = cute_make_layout(a, cute_tuple_int(cute_i(p->vec)));
            cute_compose(a, &t[i].layout, &unit);
        }
        if (cute_alg_trial_end(a, &trial)) break; /* else: try a narrower chunk */
    }
    int per_block = p->threads * p->vectors * p->vec;
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, n, cute_i(per_block))},
                           .block = {cute_i(p->threads)}};
    cute_tensor in1 = p->nin > 1 ? t[1] : t[p->nin], in2 = p->nin > 2 ? t[2] : t[p->nin];
    CUTE_LAUNCH(c, ew_kernel, cfg, t[p->nin], t[0], in1, in2, coords, n);
}

/* a spec for an argument: compact row-major when it is, else dynamic extents and strides
 * (a stride of 1 stays static, so the unit-stride mode is known) */
static cute_arg_spec spec_of(const cute_call_arg *x)
{
    char text[256];
    int len = 0;
    int esize = cute_dtype_bytes((cute_dtype)x->dtype);
    if (cute_call_arg_row_major(x)) {
        len += snprintf(text + len, sizeof text - len, "(");
        for (int i = 0; i < x->ndim; i++) len += snprintf(text + len, sizeof text - len, "%s?", i ? "," : "");
        snprintf(text + len, sizeof text - len, ")");
        return cute_spec_tensor_compact((cute_dtype)x->dtype, text, true, 16 >= esize ? 16 : esize);
    }
    len += snprintf(text + len, sizeof text - len, "(");
    for (int i = 0; i < x->ndim; i++) len += snprintf(text + len, sizeof text - len, "%s?", i ? "," : "");
    len += snprintf(text + len, sizeof text - len, "):(");
    for (int i = 0; i < x->ndim; i++)
        len += snprintf(text + len, sizeof text - len, "%s%s", i ? "," : "", x->stride[i] == 1 ? "1" : "?");
    snprintf(text + len, sizeof text - len, ")");
    return cute_spec_tensor((cute_dtype)x->dtype, text, esize);
}

const cute_fn *cute_ew_compile(cute_runtime *rt, const char *name, cute_ew_expr expr, void *user,
                         int nin, const cute_call_arg *in, const cute_call_arg *out,
                         const cute_ew_config *cfg, char *err, size_t n)
{
    if (nin < 1 || nin > EW_MAX_IN) {
        snprintf(err, n, "%s: %d inputs (1 to %d)", name, nin, EW_MAX_IN);
        return NULL;
    }
    ew_plan p = {expr, user, nin, cfg && cfg->threads ? cfg->threads : 256,
                 cfg && cfg->vectors ? cfg->vectors : 4, 1};
    cute_arg_spec specs[EW_MAX_IN + 1];
    /* the data pointers' alignment is what the call gives: promise only what it has */
    for (int i = 0; i <= nin; i++) {
        const cute_call_arg *x = i < nin ? &in[i] : out;
        specs[i] = spec_of(x);
        specs[i].align = cute_call_arg_alignment(x, specs[i].align);
    }
    for (int i = 0; i <= nin; i++)
        if (specs[i].align < cute_dtype_bytes((cute_dtype)specs[i].dtype)) {
            snprintf(err, n, "%s: argument %d is not aligned to its element size", name, i);
            return NULL;
        }
    return cute_compile(rt, name, ew_host, &p, nin + 1, specs, err, n);
}

cute_status cute_ew_call(const cute_fn *f, void *stream, int nin, const cute_call_arg *in,
                         const cute_call_arg *out, char *err, size_t n)
{
    cute_call_arg args[EW_MAX_IN + 1];
    if (nin < 1 || nin > EW_MAX_IN) return CUTE_ERR_INVALID;
    for (int i = 0; i < nin; i++) args[i] = in[i];
    args[nin] = *out;
    return cute_call(f, stream, nin + 1, args, err, n);
}
