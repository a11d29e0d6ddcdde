/* Internal helpers shared by the algebra's files. */
#ifndef CUTEC_LAYOUT_INTERNAL_H
#define CUTEC_LAYOUT_INTERNAL_H

#include "cutec/layout.h"
#include "tuple_build.h"

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

/* stride arithmetic that carries a basis: k * (d@b) = (k*d)@b */
typedef struct stride_val {
    cute_int v;
    cute_basis b;
} stride_val;

#endif
