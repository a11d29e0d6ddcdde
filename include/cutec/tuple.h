/* cutec/tuple.h — int-tuples: an int, or a tuple of int-tuples.
 *
 * A value type with fixed capacity (no allocation).  The tree is stored in preorder:
 * node[k] == -1 is a leaf (the next entry of leaf[]), node[k] == n >= 0 is a tuple of n
 * elements.  `4` is {-1}, `(4)` is {1,-1}, `()` is {0}, `(2,(3,4))` is {2,-1,2,-1,-1}.
 *
 * A leaf may carry a basis (CuTe's ScaledBasis, printed `3@1`): the leaf's value scales the
 * unit vector of the coordinate mode named by the basis path.  Only strides use it (identity
 * layouts); basis[i] == 0 means a plain integer.
 */
#ifndef CUTEC_TUPLE_H
#define CUTEC_TUPLE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/int.h"

#define CUTE_MAX_LEAVES 32
#define CUTE_MAX_NODES 64
#define CUTE_MAX_RANK 32

/* A basis path of up to 3 mode indices (each < 15) packed as: length in bits 0-1, then
 * (index+1) in 4 bits each.  0 is "no basis". */
typedef uint16_t cute_basis;

typedef struct cute_tuple {
    uint8_t nnodes; /* 0: poison, the value of a failed operation */
    uint8_t nleaves;
    int8_t node[CUTE_MAX_NODES];
    cute_int leaf[CUTE_MAX_LEAVES];
    cute_basis basis[CUTE_MAX_LEAVES];
} cute_tuple;

/* --- construction ------------------------------------------------------------------- */
cute_tuple cute_tuple_int(cute_int x);                    /* 4 */
cute_tuple cute_tuple_poison(void);                        /* the failed value */
cute_tuple cute_tuple_of(cute_alg *c, int n, const cute_tuple *elems); /* (e0,...,en-1) */
cute_tuple cute_tuple_ints(cute_alg *c, int n, const int64_t *v);     /* (v0,...) static */
/* (x, x, ..., x): n copies, always a tuple */
cute_tuple cute_tuple_repeat(cute_alg *c, int n, cute_tuple x);

/* --- queries ------------------------------------------------------------------------ */
static inline bool cute_tuple_is_poison(const cute_tuple *t) { return t->nnodes == 0; }
static inline bool cute_tuple_is_int(const cute_tuple *t) { return t->nnodes == 1 && t->node[0] == -1; }
int cute_tuple_rank(const cute_tuple *t);  /* 1 for an int */
int cute_tuple_depth(const cute_tuple *t); /* 0 for an int */
cute_tuple cute_tuple_get(const cute_tuple *t, int i); /* mode i; an int's mode 0 is itself */
/* the same tree shape (leaf values ignored) */
bool cute_tuple_congruent(const cute_tuple *a, const cute_tuple *b);
/* a's tree refines into b's: a leaf of a may stand for a whole subtree of b */
bool cute_tuple_weakly_congruent(const cute_tuple *a, const cute_tuple *b);
bool cute_tuple_equal(cute_alg *c, const cute_tuple *a, const cute_tuple *b); /* provably */
bool cute_tuple_has_underscore(const cute_tuple *t);
bool cute_tuple_is_static(const cute_tuple *t);

/* --- the int-tuple algebra --------------------------------------------------------- */
cute_int cute_tuple_product(cute_alg *c, const cute_tuple *t); /* of all leaves; () -> 1 */
cute_tuple cute_tuple_flatten(const cute_tuple *t);              /* leaves as one tuple */
cute_tuple cute_tuple_append(cute_alg *c, cute_tuple t, cute_tuple x);
cute_tuple cute_tuple_prepend(cute_alg *c, cute_tuple t, cute_tuple x);
cute_tuple cute_tuple_take(cute_alg *c, const cute_tuple *t, int begin, int end); /* modes [b,e) */
cute_tuple cute_tuple_replace(cute_alg *c, const cute_tuple *t, int i, cute_tuple x);
/* concatenate the modes of a and b (an int counts as one mode) */
cute_tuple cute_tuple_cat(cute_alg *c, const cute_tuple *a, const cute_tuple *b);
/* a tuple of the same tree as `like` with every leaf x */
cute_tuple cute_tuple_fill_like(const cute_tuple *like, cute_int x);
/* ceil_div folded over a tuple: (ceil_div(a0,b), ceil_div(a1, ceil_div(b,a0)), ...) */
cute_tuple cute_tuple_shape_ceil_div(cute_alg *c, const cute_tuple *a, cute_int b);
/* exclusive prefix product of the leaves, column-major (CuTe compact_major<LayoutLeft>):
 * size-1 modes get stride 0 */
cute_tuple cute_tuple_compact_col_major(cute_alg *c, const cute_tuple *shape);

/* colexicographic index <-> coordinate against a shape (the last mode of each tuple absorbs
 * the remainder: no modulo) */
cute_tuple cute_idx2crd(cute_alg *c, cute_int idx, const cute_tuple *shape);
/* inner product of a coordinate with strides over a shape; an int coordinate against a
 * tuple shape is split colexicographically first */
cute_int cute_crd2idx(cute_alg *c, const cute_tuple *crd, const cute_tuple *shape,
                      const cute_tuple *stride);

/* Index of the leaf of mode i at top level and how many leaves it has; -1 if bad i. */
int cute_tuple_mode_leaves(const cute_tuple *t, int i, int *first_leaf);

CUTE_API_END
#endif
