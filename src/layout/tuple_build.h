/* Internal: building and walking the preorder encoding of cute_tuple. */
#ifndef CUTEC_TUPLE_BUILD_H
#define CUTEC_TUPLE_BUILD_H

#include "cutec/tuple.h"

/* A tuple under construction: push tuple headers and leaves in preorder.  Running out of
 * room sets `overflow`; tb_finish turns that into an error naming the op. */
typedef struct tuple_builder {
    cute_tuple t;
    bool overflow;
} tuple_builder;

void tb_init(tuple_builder *b);
void tb_open(tuple_builder *b, int n);
void tb_leaf(tuple_builder *b, cute_int x, cute_basis basis);
/* copy the subtree of src rooted at node `pos` (its first leaf is leaf `leaf`) */
void tb_subtree(tuple_builder *b, const cute_tuple *src, int pos, int leaf);
void tb_tuple(tuple_builder *b, const cute_tuple *src); /* the whole of src */
cute_tuple tb_finish(tuple_builder *b, cute_alg *c, const char *op);

/* node index just past the subtree at pos; *leaves gets its leaf count */
int tuple_subtree_end(const cute_tuple *t, int pos, int *leaves);
/* node position and first leaf of top-level mode i; false if out of range */
bool tuple_mode_pos(const cute_tuple *t, int i, int *pos, int *leaf);

/* the coordinate of each leaf of shape for crd (weakly congruent; ints split
 * colexicographically, '_' as 0) into out[shape->nleaves] */
bool tuple_leaf_coords(cute_alg *c, const cute_tuple *crd, const cute_tuple *shape, cute_int *out);

#endif
