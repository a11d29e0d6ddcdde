/* Tilers built from parts (the atom layer composes per-mode tilers this way). */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "atom/atom_internal.h"

cute_tiler tiler_tuple(cute_alg *c, int n, const cute_tiler *const *parts)
{
    cute_tiler T;
    memset(&T, 0, sizeof T);
    cute_tuple trees[CUTE_MAX_RANK];
    for (int i = 0; i < n && !c->failed; i++) {
        trees[i] = parts[i]->tree;
        for (int k = 0; k < trees[i].nleaves; k++) {
            if (cute_is_underscore(trees[i].leaf[k])) continue;
            int idx = (int)trees[i].leaf[k].v;
            if (T.nlayouts == CUTE_MAX_TILER_LAYOUTS) {
                cute_alg_fail(c, "a tiler of more than %d layouts", CUTE_MAX_TILER_LAYOUTS);
                break;
            }
            T.layouts[T.nlayouts] = parts[i]->layouts[idx];
            T.from_int[T.nlayouts] = parts[i]->from_int[idx];
            trees[i].leaf[k] = cute_i(T.nlayouts++);
        }
    }
    T.tree = cute_tuple_of(c, n, trees);
    return T;
}

cute_tiler int_tiler(cute_alg *c, cute_int n)
{
    cute_tuple t = cute_tuple_int(n);
    return cute_tiler_shape(c, &t);
}
