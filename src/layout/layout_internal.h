/* Internal helpers shared by the algebra's files. */
#ifndef CUTEC_LAYOUT_INTERNAL_H
#define CUTEC_LAYOUT_INTERNAL_H

#include "cutec/layout.h"
#include "cutec/notation.h"
#include "tuple_build.h"

/* an int in notation, in a buffer that lives to the end of the enclosing statement's block */
/* an int for a message: notation when static, the backend's description when dynamic */
const char *int_text(const cute_alg *c, cute_int x, char *buf);
#define ITXT(x) int_text(c, (x), (char[96]){0})

/* false (and an error naming op) when the context failed or an input is malformed */
bool layout_inputs_ok(cute_alg *c, const char *op, int n, const cute_layout *const *Ls);
/* the layout's notation, into buf (for messages) */
const char *layout_text(const cute_layout *L, char *buf, size_t n);
/* {shape, stride}, or poison if either is */
cute_layout layout_of(cute_tuple shape, cute_tuple stride);

/* Flat lists of modes, the working form of coalesce, composition and the inverses. */
typedef struct mode_list {
    int n;
    cute_int s[CUTE_MAX_LEAVES], d[CUTE_MAX_LEAVES];
    cute_basis b[CUTE_MAX_LEAVES];
} mode_list;

bool modes_push(cute_alg *c, mode_list *m, cute_int s, cute_int d, cute_basis b, const char *op);
/* the leaves of L, in order */
void modes_of(const cute_layout *L, mode_list *m);
/* (s0,...):(d0,...), or s0:d0 when n == 1 and !wrap_one, or 1:0 when n == 0 */
cute_layout modes_layout(cute_alg *c, const mode_list *m, bool wrap_one, const char *op);

/* coalesce a flat list; keep_last never drops the last mode (composition's coalesce_x).
 * Returns the structural unknowns (undecided merges, kept possibly-size-1 modes). */
int modes_coalesce(cute_alg *c, const mode_list *in, mode_list *out, bool keep_last);
/* cute_coalesce, telling how many structural unknowns its form has */
cute_layout coalesce_counted(cute_alg *c, const cute_layout *L, int *unknowns);


/* the tiler is well formed and its layouts are usable */
bool tiler_ok(cute_alg *c, const cute_tiler *T, const char *who);
/* an int tiler element n as composition sees it: n:1 */
cute_tiler tiler_poison(void);
cute_layout tiler_int_layout(cute_int n);
/* tiler layout i as divides and products see it: an int n is make_layout(n) */
cute_layout tiler_layout_for_divide(cute_alg *c, const cute_tiler *T, int i);
/* A o B for a layout B.  uncertain_form: A came out of an op whose coalesced form the
 * launch-time values may change (a kept possibly-size-1 mode), so every divisibility the
 * walk uses must be proven, not assumed (as when A's own modes may merge). */
cute_layout compose_form(cute_alg *c, const cute_layout *A, const cute_layout *B, const char *who,
                         bool uncertain_form);
/* composition reporting errors as `who` (divide/product call it) */
cute_layout composition_named(cute_alg *c, const cute_layout *A, const cute_tiler *B,
                              const char *who);

#endif
