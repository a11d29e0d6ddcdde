/* Internal: tiler building blocks the atom layer shares. */
#ifndef CUTEC_ATOM_INTERNAL_H
#define CUTEC_ATOM_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/layout.h"

/* a tiler of n parts, each a whole tiler of its own (a layout, an int, '_' or a tuple) */
cute_tiler tiler_tuple(cute_alg *c, int n, const cute_tiler *const *parts);
/* the tiler of one int: n:1 */
cute_tiler int_tiler(cute_alg *c, cute_int n);

/* is this a UniversalCopy atom (one access of its values, as tensor_access_chunk does)? */
bool copy_atom_is_universal(const cute_copy_atom *a);

#endif
