/* cute_make_tma_atom: the box and swizzle of a TMA copy read off the shared layout of one
 * tile, as CuTe's make_tma_copy does for the layouts TMA can write: a compact layout whose
 * modes, ordered by stride, are the TMA dimensions (the fastest one being the global
 * tensor's contiguous mode), composed with a swizzle of 16-byte chunks whose row is the
 * box's inner extent.  The map itself is cute_host_tma_map's. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/notation.h"
#include "cutec/tma_copy.h"
#include "jit_internal.h"

static bool fail_layout(cute_ctx *c, const cute_layout *L, const char *why)
{
    char s[256];
    cute_layout_str(L, s, sizeof s);
    return cute_ctx_fail(c, "cute_make_tma_atom: shared layout %s: %s", s, why);
}

/* a mode's place in the TMA order: by stride; extent-1 modes (any stride) last */
static int64_t order_key(const cute_layout *L, int m)
{
    return L->shape.leaf[m].v == 1 ? INT64_MAX : L->stride.leaf[m].v;
}

/* spec's modes and box from the flat static layout L: modes by increasing stride, each
 * stride the product of the extents before it */
static bool order_modes(cute_ctx *c, const cute_layout *L, cute_tma_atom *a)
{
    int n = L->shape.nleaves;
    int64_t expect = 1;
    bool used[CUTE_MAX_LEAVES] = {false};
    for (int j = 0; j < n; j++) {
        int best = -1;
        for (int m = 0; m < n; m++)
            if (!used[m] && (best < 0 || order_key(L, m) < order_key(L, best))) best = m;
        used[best] = true;
        int64_t ext = L->shape.leaf[best].v;
        if (ext > 1 && L->stride.leaf[best].v != expect)
            return fail_layout(c, L, "TMA writes a box densely: the layout must be compact, each "
                               "stride the product of the extents of the faster modes");
        a->spec.mode[j] = best, a->spec.box[j] = (uint32_t)ext, a->extent[best] = ext;
        expect *= ext;
    }
    return true;
}

/* the map's swizzle from sw, an element-unit swizzle of 16-byte chunks */
static bool swizzle_of(cute_ctx *c, cute_swizzle sw, cute_tma_atom *a)
{
    int es = cute_dtype_bytes(a->dtype), m = 0;
    while ((es << m) < 16) m++;
    a->spec.swizzle = CUTE_TMA_SWIZZLE_NONE;
    if (sw.B == 0) return true;
    if (sw.B > 3 || sw.M != m || sw.S != 3)
        return cute_ctx_fail(c, "cute_make_tma_atom: swizzle Sw<%d,%d,%d> is not one TMA applies to "
                             "%s: Sw<1..3,%d,3> (32, 64, 128 bytes of 16-byte chunks) or none",
                             sw.B, sw.M, sw.S, cute_dtype_name(a->dtype), m);
    a->spec.swizzle = (cute_tma_swizzle)sw.B;
    uint32_t inner = a->spec.box[0] * (uint32_t)es;
    if (inner != (uint32_t)cute_tma_swizzle_bytes(a->spec.swizzle))
        return cute_ctx_fail(c, "cute_make_tma_atom: the tile's inner extent is %u bytes; the %dB "
                             "swizzle needs rows of exactly %d bytes", inner,
                             cute_tma_swizzle_bytes(a->spec.swizzle), cute_tma_swizzle_bytes(a->spec.swizzle));
    return true;
}

/* LOAD_MULTICAST: each CTA loads 1/num of the tile along its outermost TMA dimension of
 * extent > 1 */
static bool split_multicast(cute_ctx *c, cute_tma_atom *a)
{
    int last = a->spec.rank - 1, span = cute_tma_swizzle_bytes(a->spec.swizzle);
    while (last > 0 && a->spec.box[last] == 1) last--;
    a->split = last;
    uint32_t box = a->spec.box[last];
    int64_t slice = a->bytes / a->num_multicast, period = span ? span * 8 : 128;
    if (a->num_multicast < 1 || a->num_multicast > 16 || box % (uint32_t)a->num_multicast)
        return cute_ctx_fail(c, "cute_make_tma_atom: %d CTAs cannot share a tile whose outermost "
                             "box extent is %u (1 to 16 CTAs, dividing it)", a->num_multicast, box);
    if (slice % period)
        return cute_ctx_fail(c, "cute_make_tma_atom: each of %d CTAs would load %lld bytes, not a "
                             "multiple of %lld (its slice must start where the swizzle repeats)",
                             a->num_multicast, (long long)slice, (long long)period);
    a->spec.box[last] = box / (uint32_t)a->num_multicast;
    return true;
}

cute_tma_atom cute_make_tma_atom(cute_ctx *c, cute_tma_op op, cute_tensor gmem, cute_layout smem,
                                 cute_swizzle sw, int num_multicast)
{
    cute_tma_atom a;
    memset(&a, 0, sizeof a);
    a.map.index = -1, a.op = op, a.dtype = (cute_dtype)gmem.dtype;
    a.num_multicast = op == CUTE_TMA_OP_LOAD_MULTICAST ? num_multicast : 1;
    cute_layout L = cute_flatten(cute_ctx_alg(c), &smem);
    if (gmem.host_arg < 0 || gmem.kind != CUTE_TENSOR_GMEM)
        return cute_ctx_fail(c, "cute_make_tma_atom: the global tensor must be an argument of the "
                             "host function, as given"), a;
    if (!cute_tuple_is_static(&L.shape) || !cute_tuple_is_static(&L.stride) ||
        L.shape.nleaves > CUTE_TMA_MAX_RANK || L.shape.nleaves != cute_rank(&gmem.layout))
        return fail_layout(c, &L, "TMA needs a static layout with one mode per mode of the global "
                           "tensor (at most 5)"), a;
    a.modes = a.spec.rank = L.shape.nleaves;
    a.spec.arg = gmem.host_arg;
    if (!order_modes(c, &L, &a) || !swizzle_of(c, sw, &a)) return a;
    a.bytes = (int64_t)cute_tma_box_elems(&(cute_tma_desc){.rank = a.spec.rank,
                                          .box = {a.spec.box[0], a.spec.box[1], a.spec.box[2],
                                                  a.spec.box[3], a.spec.box[4]}}) *
              cute_dtype_bytes(a.dtype);
    if (op == CUTE_TMA_OP_LOAD_MULTICAST && !split_multicast(c, &a)) return a;
    a.map = cute_host_tma_map(c, &a.spec);
    return a;
}
