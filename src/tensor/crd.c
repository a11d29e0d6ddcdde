/* CUTE_CRD: coordinates built element by element (CUTE_ALL, index ints, C integers,
 * nested coordinates), without a context: the tuple is a plain value. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/tensor.h"

cute_crd_elem cute__crd_all(cute_all_t x)
{
    (void)x;
    return (cute_crd_elem){false, cute_tuple_int(cute_underscore())};
}
cute_crd_elem cute__crd_int(cute_int x) { return (cute_crd_elem){false, cute_tuple_int(x)}; }
cute_crd_elem cute__crd_ll(long long x) { return (cute_crd_elem){false, cute_tuple_int(cute_i(x))}; }
cute_crd_elem cute__crd_ull(unsigned long long x)
{
    /* beyond INT64_MAX no coordinate exists: poison, reported by whoever uses it */
    return (cute_crd_elem){false, x > INT64_MAX ? cute_tuple_poison() : cute_tuple_int(cute_i((int64_t)x))};
}
cute_crd_elem cute__crd_tuple(cute_tuple x) { return (cute_crd_elem){false, x}; }
cute_crd_elem cute__crd_ctx(const cute_ctx *c)
{
    (void)c;
    cute_crd_elem e;
    memset(&e, 0, sizeof e);
    e.skip = true;
    return e;
}

cute_tuple cute_crd_of(int n, const cute_crd_elem *e)
{
    cute_tuple elems[13];
    int k = 0;
    for (int i = 0; i < n && i < 13; i++) {
        if (e[i].skip) continue;
        if (cute_tuple_is_poison(&e[i].t)) return cute_tuple_poison();
        elems[k++] = e[i].t;
    }
    if (k == 1) return elems[0];
    cute_alg a; /* only for capacity errors: they make the poison tuple */
    cute_alg_init(&a, NULL);
    cute_tuple r = cute_tuple_of(&a, k, elems);
    return a.failed ? cute_tuple_poison() : r;
}
