/* Tensor maps of a compiled function's tensor arguments (cute_host_tma_map): the recipe is
 * checked when the host function runs, as far as the argument's spec tells, and kept in the
 * function; each call's prepare step turns it and the call's argument (pointer, extents,
 * strides) into the map's fields and encodes them for the runtime's backend.  An argument of
 * elements narrower than a byte (e2m1) is mapped as its bytes (the kernel recasts it to u8:
 * the box is in bytes), its contiguous extent and its strides halved. */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "jit_internal.h"

/* the type TMA moves for elements of d: bytes for a packed sub-byte type */
static cute_dtype mapped(cute_dtype d) { return cute_dtype_bits(d) < 8 ? CUTE_U8 : d; }

/* the box against the driver's rules, on a tensor as large as the box */
static bool box_ok(cute_ctx *c, const cute_tma_map_spec *s, cute_dtype dt)
{
    cute_tma_desc d = {.dtype = mapped(dt), .rank = s->rank, .swizzle = s->swizzle, .l2 = s->l2, .oob = s->oob};
    for (int j = 0; j < s->rank; j++) {
        if (s->box[j] < 1 || s->box[j] > 256)
            return cute_ctx_fail(c, "cute_host_tma_map: box[%d] = %u: a box extent is 1 to 256", j, s->box[j]);
        d.dims[j] = d.box[j] = s->box[j], d.strides[j] = 16;
    }
    char why[256];
    if (cute_tma_desc_check(&d, why, sizeof why) != CUTE_OK)
        return cute_ctx_fail(c, "cute_host_tma_map: %s", why);
    return true;
}

/* the modes: in range, distinct, the first one contiguous where the spec says so */
static bool modes_ok(cute_ctx *c, const cute_tma_map_spec *s, const arg_info *a)
{
    unsigned seen = 0;
    for (int j = 0; j < s->rank; j++) {
        int m = s->mode[j];
        if (m < 0 || m >= a->nleaves || (seen >> m & 1))
            return cute_ctx_fail(c, "cute_host_tma_map: mode[%d] = %d: argument %d has modes 0 to "
                                 "%d, each used once", j, m, s->arg, a->nleaves - 1);
        seen |= 1u << m;
    }
    const spec_leaf *st = &a->stride[s->mode[0]];
    if (!st->dynamic && st->value != 1)
        return cute_ctx_fail(c, "cute_host_tma_map: mode %d of argument %d has stride %lld: TMA's "
                             "first dimension is the contiguous one (stride 1)", s->mode[0], s->arg,
                             (long long)st->value);
    return true;
}

/* one dimension of the map from the call's argument x */
static cute_status dim_from(const cute_tma_map_spec *s, const cute_call_arg *x, int j,
                            cute_tma_desc *d, char *err, size_t n)
{
    int m = s->mode[j], bits = cute_dtype_bits((cute_dtype)x->dtype);
    int64_t st = x->stride[m];
    if (j == 0 && st != 1 && x->shape[m] > 1)
        return snprintf(err, n, "argument %d: mode %d has stride %lld, TMA's first dimension "
                        "must be contiguous", s->arg, m, (long long)st), CUTE_ERR_INVALID;
    if (st < 0)
        return snprintf(err, n, "argument %d: mode %d has a negative stride (%lld), which TMA "
                        "cannot walk", s->arg, m, (long long)st), CUTE_ERR_INVALID;
    if (bits < 8 && (j == 0 ? x->shape[m] * bits % 8 : st * bits % 8))
        return snprintf(err, n, "argument %d: mode %d (extent %lld, stride %lld) is not whole bytes of %s, which TMA "
                        "moves as bytes", s->arg, m, (long long)x->shape[m], (long long)st,
                        cute_dtype_name((cute_dtype)x->dtype)), CUTE_ERR_INVALID;
    d->dims[j] = (uint64_t)(j == 0 && bits < 8 ? x->shape[m] * bits / 8 : x->shape[m]);
    d->strides[j] = (uint64_t)(st * bits / 8);
    d->box[j] = s->box[j];
    return CUTE_OK;
}

static cute_status build_map(void *user, cute_runtime *rt, const cute_call_arg *args, int nargs,
                             void *out, char *err, size_t n)
{
    const cute_tma_map_spec *s = user;
    const cute_call_arg *x = s->arg < nargs ? &args[s->arg] : NULL;
    if (!x || x->kind != CUTE_ARG_TENSOR || !x->buf)
        return snprintf(err, n, "argument %d is not a tensor", s->arg), CUTE_ERR_INVALID;
    cute_tma_desc d = {.dtype = mapped((cute_dtype)x->dtype), .rank = s->rank, .swizzle = s->swizzle,
                       .l2 = s->l2, .oob = s->oob};
    d.address = (uint64_t)(uintptr_t)x->buf->ptr + x->offset;
    unsigned used = 0;
    for (int j = 0; j < s->rank; j++) {
        cute_status st = dim_from(s, x, j, &d, err, n);
        if (st != CUTE_OK) return st;
        used |= 1u << s->mode[j];
    }
    for (int m = 0; m < x->ndim; m++)
        if (!(used >> m & 1) && x->shape[m] != 1)
            return snprintf(err, n, "argument %d: mode %d (extent %lld) is in no dimension of the "
                            "tensor map", s->arg, m, (long long)x->shape[m]), CUTE_ERR_INVALID;
    char why[256];
    cute_status st = cute_tma_encode(cute_runtime_backend(rt), &d, out, why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "argument %d: %s", s->arg, why);
    return st;
}

cute_host_opaque cute_host_tma_map(cute_ctx *c, const cute_tma_map_spec *s)
{
    cute_fn *f = c->jit;
    cute_host_opaque none = {-1};
    if (!f || c->fn)
        return cute_ctx_fail(c, "cute_host_tma_map belongs in the host function given to cute_compile"), none;
    if (!s || s->arg < 0 || s->arg >= f->nargs || f->args[s->arg].spec.kind != CUTE_ARG_TENSOR)
        return cute_ctx_fail(c, "cute_host_tma_map: argument %d is not a tensor", s ? s->arg : -1), none;
    if (s->rank < 1 || s->rank > CUTE_TMA_MAX_RANK)
        return cute_ctx_fail(c, "cute_host_tma_map: rank %d: a tensor map has 1 to 5 dimensions", s->rank), none;
    const arg_info *a = &f->args[s->arg];
    if (!modes_ok(c, s, a) || !box_ok(c, s, (cute_dtype)a->spec.dtype)) return none;
    cute_host_opaque h = cute_host_tensor_map(c, build_map, NULL);
    if (h.index < 0) return h;
    f->opaques[h.index].tma = *s;
    f->opaques[h.index].user = &f->opaques[h.index].tma;
    return h;
}
