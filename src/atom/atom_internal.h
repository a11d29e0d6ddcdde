/* Internal: tiler building blocks the atom layer shares. */
#ifndef CUTEC_ATOM_INTERNAL_H
#define CUTEC_ATOM_INTERNAL_H

#include "cutec/layout.h"

/* a tiler of n parts, each a whole tiler of its own (a layout, an int, '_' or a tuple) */
cute_tiler tiler_tuple(cute_alg *c, int n, const cute_tiler *const *parts);
/* the tiler of one int: n:1 */
cute_tiler int_tiler(cute_alg *c, cute_int n);

/* Trace-time proofs on atoms (atom_checks.c), each reporting a misuse at the user's call:
 * the atom's minimum architecture against the compile target, and a TiledCopy's or
 * TiledMMA's thread count against the kernel's static block size. */
typedef struct cute_ctx cute_ctx;
bool atom_arch_ok(cute_ctx *c, int min_arch, const char *atom, const char *what);
bool atom_threads_ok(cute_ctx *c, int64_t threads, const char *tiled, const char *what);

#endif
