/* TensorSSA.reduce over modes: the elements that share the kept modes' coordinates are
 * combined (a balanced tree, then init), one result per kept coordinate. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/reduce.h"
#include "tensor_internal.h"
#include "trace/ctx_internal.h"

/* each top mode's static size and whether the profile keeps it; false after a misuse */
static bool modes_of(cute_ctx *c, const cute_ssa *a, const cute_tuple *profile, int *size, bool *keep,
                     int *rank)
{
    *rank = cute_tuple_rank(&a->shape);
    if (cute_tuple_is_poison(profile) || cute_tuple_rank(profile) != *rank)
        return cute_ctx_fail(c, "reduce over modes: the profile has %d modes, the TensorSSA %d",
                             cute_tuple_is_poison(profile) ? 0 : cute_tuple_rank(profile), *rank);
    for (int i = 0; i < *rank; i++) {
        cute_tuple m = cute_tuple_get(profile, i), s = cute_tuple_get(&a->shape, i);
        bool all = cute_tuple_is_int(&m) && cute_is_underscore(m.leaf[0]);
        if (!all && !(cute_tuple_is_int(&m) && cute_is_const(m.leaf[0], 1)))
            return cute_ctx_fail(c, "reduce over modes: profile mode %d is neither CUTE_ALL (keep) nor 1 "
                                    "(reduce)", i);
        keep[i] = all;
        size[i] = (int)cute_tuple_product(&c->alg, &s).v;
    }
    return true;
}

/* the kept modes' shape, and each element's result index (colexicographic over them) */
static cute_tuple kept_shape(cute_ctx *c, const cute_ssa *a, const bool *keep, int rank)
{
    cute_tuple modes[CUTE_MAX_RANK];
    int n = 0;
    for (int i = 0; i < rank; i++)
        if (keep[i]) modes[n++] = cute_tuple_get(&a->shape, i);
    if (n == 0) return cute_tuple_int(cute_i(1));
    return n == 1 ? modes[0] : cute_tuple_of(&c->alg, n, modes);
}

static int result_index(int e, const int *size, const bool *keep, int rank)
{
    int r = 0, scale = 1;
    for (int i = 0; i < rank; i++) {
        int crd = e % size[i];
        e /= size[i];
        if (keep[i]) r += crd * scale, scale *= size[i];
    }
    return r;
}

cute_ssa cute_ssa_reduce_modes(cute_ctx *c, cute_op op, cute_ssa a, double init, cute_tuple profile)
{
    int size[CUTE_MAX_RANK], rank;
    bool keep[CUTE_MAX_RANK];
    if (!ctx_ok(c) || !ssa_usable(c, &a, "reduce over modes") || !modes_of(c, &a, &profile, size, keep, &rank))
        return bad_ssa();
    cute_tuple shape = kept_shape(c, &a, keep, rank);
    cute_ssa r = cute_ssa_fill(c, (cute_dtype)a.dtype, shape, init); /* registers for the results */
    int per = r.n ? a.n / r.n : 0;
    cute_vreg *group = cute_ir_alloc(c->fn, (size_t)(per ? per : 1) * sizeof(cute_vreg));
    for (int j = 0; j < r.n && group && !c->alg.failed; j++) {
        int k = 0;
        for (int e = 0; e < a.n; e++)
            if (result_index(e, size, keep, rank) == j) group[k++] = a.v[e];
        cute_ssa g = {.dtype = a.dtype, .n = k, .v = group, .shape = cute_tuple_int(cute_i(k)), .kernel = a.kernel};
        cute_val init_v = cute_ssa_get(c, r, j);
        r.v[j] = cute_val_binop(c, op, init_v, cute_ssa_reduce(c, op, g)).r;
    }
    return c->alg.failed ? bad_ssa() : r;
}
