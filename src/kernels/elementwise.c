/* Elementwise kernels: out = expr(in...) over any shape and strides, written as CuTe DSL's
 * elementwise_apply and DESIGN.md's add_kernel are: zipped_divide by the block's tile, a
 * TiledCopy's thread slice, a coordinate tensor partitioned like the data for the bounds
 * predicate, copies predicated by it.  No index is computed by hand.
 *
 * The iteration space is the 1-D index over out's shape, ordered so that out's unit-stride
 * mode comes first (the other modes from the last one back: row-major tensors are walked in
 * memory order).  Each tensor's layout is coalesced on its own (coalescing keeps the
 * function of the 1-D index): compact tensors become N:1, strided ones keep their modes.  A
 * block's tile is threads * vectors * vec indices; a TiledCopy of `threads` threads by
 * `vec` values gives thread t its vec-index chunks t, t + threads, ... of the tile, so that
 * neighbouring threads touch neighbouring chunks.  A one-mode tensor is zipped_divide'd and
 * partitioned like the coordinates; a tensor that kept several modes (its 1-D index does
 * not divide through them at trace time) is viewed at each chunk's first coordinate, as
 * CuTe's domain_offset, composed with vec:1.  The copies are AutoVectorizing
 * (cute_copy_atom_autovec): each tensor moves its chunk with the widest access its layout
 * and alignment prove, up to 16 bytes. */
#include <stdlib.h>
#include <string.h>

#include "cutec/copy.h"
#include "cutec/kernels.h"
#include "cutec/notation.h"

#define EW_MAX_IN 3

typedef struct ew_plan {
    cute_ew_expr expr;
    void *user;
    int nin;
    int threads, vectors, vec;
    bool walk[EW_MAX_IN + 1]; /* viewed at each chunk's coordinate (several modes) */
    cute_tiled_copy tc; /* threads x vec values; its atom only lays out the partition */
} ew_plan;

/* one vec-element chunk of every tensor: in, compute, out */
static void ew_chunk(cute_ctx *c, const ew_plan *p, cute_tensor tOut, const cute_tensor *tIn,
                     cute_tensor tCrd, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_ssa pred = cute_elem_less(c, tCrd, CUTE_CRD(n));
    cute_ssa v[EW_MAX_IN];
    for (int i = 0; i < p->nin; i++) {
        cute_tensor rIn = cute_make_fragment_like(c, tIn[i]);
        cute_copy_atom atom = cute_copy_atom_autovec(a, (cute_dtype)tIn[i].dtype);
        cute_copy_if(c, &atom, pred, tIn[i], rIn);
        v[i] = cute_tensor_load(c, rIn);
    }
    cute_tensor rOut = cute_make_fragment_like(c, tOut);
    cute_tensor_store(c, rOut, cute_ssa_cvt(c, p->expr(c, v, p->nin, p->user), (cute_dtype)tOut.dtype));
    cute_copy_atom atom = cute_copy_atom_autovec(a, (cute_dtype)tOut.dtype);
    cute_copy_if(c, &atom, pred, rOut, tOut);
}

/* tensor k's values of chunk u: a slice of its partition, or (several modes) the tensor
 * viewed at the chunk's first coordinate, vec consecutive indices */
static cute_tensor chunk_of(cute_ctx *c, const ew_plan *p, int k, cute_tensor part, int u,
                            cute_tensor crd)
{
    if (!p->walk[k]) return CUTE_SLICE(c, part, CUTE_ALL, u);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor at = cute_tensor_domain_offset(c, part, crd.coord);
    cute_layout run = cute_make_layout(a, crd.layout.shape); /* vec:1, shaped as the others */
    at.layout = cute_compose(a, &at.layout, &run);
    return at;
}

/* a tensor's values of this block for this thread: its partition (one mode), or itself */
static cute_tensor thread_part(cute_ctx *c, const ew_plan *p, int k, cute_thr_copy thr,
                               cute_tensor g, cute_tuple blk)
{
    return p->walk[k] ? g : cute_partition_S(c, thr, cute_tensor_slice(c, g, blk));
}

static void ew_kernel(cute_ctx *c, cute_tensor gOut, cute_tensor gIn0, cute_tensor gIn1,
                      cute_tensor gIn2, cute_tensor cOut, cute_int n)
{
    const ew_plan *p = cute_ctx_user(c);
    cute_tensor gIn[EW_MAX_IN] = {gIn0, gIn1, gIn2}, tIn[EW_MAX_IN], in[EW_MAX_IN];
    cute_tuple blk = CUTE_CRD(CUTE_ALL, cute_block_idx(c, 0)); /* (tile, this block) */
    cute_thr_copy thr = cute_tiled_copy_slice(&p->tc, cute_thread_idx(c, 0));
    cute_tensor tCrd = cute_partition_S(c, thr, cute_tensor_slice(c, cOut, blk)); /* (vec, U) */
    cute_tensor tOut = thread_part(c, p, p->nin, thr, gOut, blk);
    for (int i = 0; i < p->nin; i++) tIn[i] = thread_part(c, p, i, thr, gIn[i], blk);
    for (int u = 0; u < p->vectors; u++) { /* unrolled at trace time, chunk by chunk */
        cute_tensor crd = CUTE_SLICE(c, tCrd, CUTE_ALL, u);
        for (int i = 0; i < p->nin; i++) in[i] = chunk_of(c, p, i, tIn[i], u, crd);
        ew_chunk(c, p, chunk_of(c, p, p->nin, tOut, u, crd), in, crd, n);
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

/* the widest chunk (16 bytes of the widest type, down to one element) that every tensor
 * divides into without assuming anything */
static int chunk_width(cute_alg *a, const cute_tensor *t, int n)
{
    int maxbytes = 1;
    for (int i = 0; i < n; i++) {
        int b = cute_dtype_bytes((cute_dtype)t[i].dtype);
        if (b > maxbytes) maxbytes = b;
    }
    int vec = 16 / maxbytes;
    for (; vec > 1; vec /= 2) {
        cute_alg_trial trial;
        cute_alg_trial_begin(a, &trial);
        for (int i = 0; i < n && !a->failed; i++) {
            cute_layout unit = cute_make_layout(a, cute_tuple_int(cute_i(vec)));
            cute_compose(a, &t[i].layout, &unit);
        }
        if (cute_alg_trial_end(a, &trial)) break; /* else: try a narrower chunk */
    }
    return vec;
}

static void ew_host(cute_ctx *c, const cute_arg *args)
{
    ew_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor out = args[p->nin].tensor;
    int first = -1, r = cute_rank(&out.layout);
    for (int i = 0; i < r && !cute_tuple_is_int(&out.layout.shape); i++)
        if (cute_is_const(out.layout.stride.leaf[i], 1)) first = i;
    cute_tensor t[EW_MAX_IN + 1], g[EW_MAX_IN + 1];
    for (int i = 0; i <= p->nin; i++) {
        t[i] = reorder(c, args[i].tensor, first);
        t[i].layout = cute_coalesce(a, &t[i].layout);
    }
    p->vec = chunk_width(a, t, p->nin + 1);
    cute_layout thr = cute_make_layout(a, cute_tuple_int(cute_i(p->threads)));
    cute_layout val = cute_make_layout(a, cute_tuple_int(cute_i(p->vec)));
    cute_copy_atom atom = cute_copy_atom_autovec(a, (cute_dtype)out.dtype);
    p->tc = cute_make_tiled_copy_tv(a, &atom, &thr, &val);
    cute_layout tile = cute_make_layout(a, cute_tuple_int(cute_i(p->threads * p->vectors * p->vec)));
    cute_tiler tiler = cute_tiler_layout(&tile);
    for (int i = 0; i <= p->nin; i++) {
        p->walk[i] = cute_rank(&t[i].layout) > 1;
        g[i] = p->walk[i] ? t[i] : cute_tensor_zipped_divide(c, t[i], &tiler);
    }
    cute_int n = cute_size(a, &out.layout);
    cute_tensor cOut = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, cute_tuple_int(n)), &tiler);
    cute_layout rest = cute_get(a, &cOut.layout, 1);
    cute_launch_cfg cfg = {.grid = {cute_size(a, &rest)}, .block = {cute_i(p->threads)}};
    cute_tensor in1 = g[p->nin > 1 ? 1 : 0], in2 = g[p->nin > 2 ? 2 : 0];
    CUTE_LAUNCH(c, ew_kernel, cfg, g[p->nin], g[0], in1, in2, cOut, n);
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
    ew_plan p;
    memset(&p, 0, sizeof p);
    p.expr = expr, p.user = user, p.nin = nin;
    p.threads = cfg && cfg->threads ? cfg->threads : 256;
    p.vectors = cfg && cfg->vectors ? cfg->vectors : 4;
    cute_arg_spec specs[EW_MAX_IN + 1];
    /* the data pointers' alignment is what the call gives: promise only what it has */
    for (int i = 0; i <= nin; i++) {
        const cute_call_arg *x = i < nin ? &in[i] : out;
        specs[i] = spec_of(x);
        specs[i].align = cute_call_arg_alignment(x, specs[i].align);
    }
    /* an in-place call (out overlaps an input) gets a kernel without __restrict__ */
    for (int i = 0; i < nin; i++) specs[nin].may_alias |= cute_call_args_overlap(out, &in[i]);
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
