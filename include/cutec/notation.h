/* cutec/notation.h — CuTe's print notation, in and out.
 *
 *   IntTuple ::= Int | '?' | '?{div=N}' | '_' | '(' IntTuple (',' IntTuple)* ')' | '()'
 *   Layout   ::= IntTuple ':' IntTuple      Int ::= '-'? [0-9]+ ('@' [0-9]+)*
 *   Tiler    ::= Layout | IntTuple-of-tilers (see oracle README "Tiler disambiguation")
 *
 * Whitespace is ignored on input and never printed.  `(4)` (a rank-1 tuple) and `4` (an int)
 * are different values.  A '?' leaf becomes a fresh dynamic int of the context's backend
 * (an error without one).  Errors name the text, the column and what was expected.
 */
#ifndef CUTEC_NOTATION_H
#define CUTEC_NOTATION_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdio.h>

#include "cutec/layout.h"

cute_tuple cute_tuple_parse(cute_alg *c, const char *text);
cute_layout cute_layout_parse(cute_alg *c, const char *text);
cute_tiler cute_tiler_parse(cute_alg *c, const char *text);
/* a layout or an int-tuple shape (a shape s means make_layout(s)) */
cute_layout cute_layout_or_shape_parse(cute_alg *c, const char *text);

/* "Sw<B,M,S> o OFFSET o LAYOUT" (as printed), or "Sw<B,M,S> o LAYOUT" (offset 0) */
cute_composed cute_composed_parse(cute_alg *c, const char *text);

/* printf-like: "%d" int, "%ld" long, "%lld" long long, "%I" a cute_int (may be dynamic),
 * "%%" a percent sign; the text is then parsed as a layout / tuple. */
cute_layout cute_layout_fmt(cute_alg *c, const char *fmt, ...);
cute_tuple cute_tuple_fmt(cute_alg *c, const char *fmt, ...);

/* Print into buf (always NUL-terminated when n > 0); returns the full length, like snprintf.
 * Poison prints as "<poison>". */
int cute_tuple_str(const cute_tuple *t, char *buf, size_t n);
int cute_layout_str(const cute_layout *L, char *buf, size_t n);
int cute_tiler_str(const cute_tiler *T, char *buf, size_t n);
int cute_composed_str(const cute_composed *L, char *buf, size_t n); /* "Sw<3,4,3> o 0 o L" */
void cute_layout_print(FILE *f, const cute_layout *L);
/* the same, with each leaf's integer written by fn (e.g. to name dynamic values); structure,
 * bases and truncation as above; fn NULL: the plain notation */
typedef int (*cute_leaf_writer)(void *user, cute_int x, char *buf, size_t n);
int cute_tuple_str_with(const cute_tuple *t, char *buf, size_t n, cute_leaf_writer fn, void *user);
int cute_layout_str_with(const cute_layout *L, char *buf, size_t n, cute_leaf_writer fn, void *user);

CUTE_API_END
#endif
