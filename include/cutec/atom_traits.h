/* cutec/atom_traits.h — what every atom, copy or MMA, says about how it may be used: the
 * threads that execute one instruction together, how it is predicated, whether its data
 * arrives only after a wait.  cutec/copy.h and cutec/mma.h build on it.
 */
#ifndef CUTEC_ATOM_TRAITS_H
#define CUTEC_ATOM_TRAITS_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stdint.h>

/* What every atom says about how it may be used (CuTe keeps this in prose; here it is
 * checked).  scope: how many threads execute one instruction together; a warp- or
 * warpgroup-collective atom must be reached by all of them (under a thread-dependent
 * branch it is an error).  pred: how cute_copy_if predicates it: by a branch around the
 * instruction, by the instruction itself zero-filling its destination (cp.async's
 * src-size 0), or not at all (a collective instruction cannot be skipped by some lanes).
 * async: the data is there only after a wait (cp.async: its wait-group). */
typedef enum { CUTE_SCOPE_THREAD, CUTE_SCOPE_WARP, CUTE_SCOPE_WARPGROUP } cute_atom_scope;
typedef enum { CUTE_PRED_BRANCH, CUTE_PRED_ZFILL, CUTE_PRED_NONE } cute_atom_pred;
typedef struct cute_atom_traits {
    uint8_t scope; /* cute_atom_scope */
    uint8_t pred;  /* cute_atom_pred */
    bool async;
} cute_atom_traits;
const char *cute_atom_scope_name(cute_atom_scope s); /* "thread", "warp", "warpgroup" */
const char *cute_atom_pred_name(cute_atom_pred p);   /* "branch", "zero-fill", "none" */

CUTE_API_END
#endif
