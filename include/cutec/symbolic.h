/* cutec/symbolic.h — a cute_arith backend of named symbols and exact expressions.
 *
 * It lets the algebra run on dynamic leaves today, without the tracer: a dynamic value is
 * an expression over named unknowns (M, N, the strides of a tensor ...), and substituting
 * real values gives back a static result to compare with the all-static algebra.
 *
 * Normal form.  A value is a polynomial: a sum of monomials, each an int64 coefficient times
 * a product of atoms.  An atom is a symbol or an opaque term (ceil_div, min, %, ... that did
 * not simplify), hash-consed, so equal terms have equal ids and equal polynomials have equal
 * handles.  A symbol M declared with divisor d is stored as d*M' (M' an integer unknown),
 * so divisibility by constants is read off the coefficients: a value's `.div` is the gcd of
 * its coefficients, always a true divisor.  An opaque term known to be a multiple of g
 * (e.g. min(16*M', 32*N')) is stored the same way, as g times an atom.
 *
 * Facts.  decide() answers only what holds for EVERY value of the symbols that respects
 * their declared divisor and lower bound (and wherever the expression is defined: a term
 * like ceil_div(a,b) assumes its own precondition a >= 0, b > 0).  Proofs use the normal
 * form (identical forms are equal), divisibility of coefficients, and interval bounds
 * (each atom has a range: symbols from their lower bound, opaque terms from their
 * arguments).  Anything else is CUTE_UNKNOWN.  Coefficient overflow never wraps: the
 * operation becomes an opaque term, and a proof that would overflow is not made.
 *
 * Simplifications (each exact): x*1, x+0, x-x = 0; a/b, ceil_div(a,b) when b divides a as
 * polynomials; (k*q + r)/k for constant k and r, where the sign of a is known; ceil_div
 * likewise, and ceil_div(a,b) = 1 when 1 <= a <= b; a % b = 0 when b divides a, = a when
 * 0 <= a < b; min/max/abs/sgn when the order is provable; x << k = x * 2^k.
 *
 * Memory: everything lives in the cute_symbolic object (no globals); free releases all.
 * A handle is only meaningful to the object that made it.
 */
#ifndef CUTEC_SYMBOLIC_H
#define CUTEC_SYMBOLIC_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/layout.h"

typedef struct cute_symbolic cute_symbolic;

/* "no lower bound" for cute_symbolic_symbol and cute_symbolic_set_make_bound */
#define CUTE_SYM_NO_BOUND INT64_MIN

cute_symbolic *cute_symbolic_new(void); /* NULL when out of memory */
void cute_symbolic_free(cute_symbolic *s);

/* The backend, to pass to cute_alg_init.  Valid until cute_symbolic_free. */
const cute_arith *cute_symbolic_arith(cute_symbolic *s);
/* cute_alg_init(c, arith) and make c the context that compute() reports errors into
 * (a division by a provable zero, out of memory).  Without a bound context such a
 * computation yields an opaque term whose evaluation fails. */
void cute_symbolic_bind(cute_symbolic *s, cute_alg *c);

/* A named unknown, known to be a multiple of div (>= 1) and >= lower_bound
 * (CUTE_SYM_NO_BOUND: any sign).  Symbols are numbered 0, 1, ... in creation order (the
 * anonymous ones from the parser's '?' included); values passed to eval are indexed so.
 * Returns cute_i(0) when out of memory or when div < 1. */
cute_int cute_symbolic_symbol(cute_symbolic *s, const char *name, int64_t div,
                              int64_t lower_bound);
/* The lower bound given to the anonymous symbols that cute_arith.make creates (the parser's
 * '?' and '?{div=N}'; they are named ?1, ?2, ...).  Default: CUTE_SYM_NO_BOUND, because a
 * '?' may be a stride of any sign.  Set 1 when every '?' parsed is a shape. */
void cute_symbolic_set_make_bound(cute_symbolic *s, int64_t lower_bound);

int cute_symbolic_nsymbols(const cute_symbolic *s);
/* the name, divisor and lower bound of symbol i; false if i is out of range */
bool cute_symbolic_symbol_info(const cute_symbolic *s, int i, const char **name, int64_t *div,
                               int64_t *lower_bound);
/* Narrow symbol i's bounds to [lower_bound, upper_bound] (CUTE_SYM_NO_BOUND / INT64_MAX:
 * leave that side): facts proven afterwards use them, and eval refuses values outside.
 * Terms built from the symbol before keep their wider ranges (still true).  False if i is
 * out of range. */
bool cute_symbolic_tighten(cute_symbolic *s, int i, int64_t lower_bound, int64_t upper_bound);
/* Bounds of x's value over every value of the symbols their facts allow: *lo = INT64_MIN
 * when unbounded below, *hi = INT64_MAX when unbounded above.  False for a foreign handle. */
bool cute_symbolic_range(cute_symbolic *s, cute_int x, int64_t *lo, int64_t *hi);
/* the index of x if x is exactly one symbol (any multiple is not), else -1 */
int cute_symbolic_symbol_index(const cute_symbolic *s, cute_int x);

/* Substitute values (values[i] for symbol i) into x.  Static x is its own value.  Returns 0
 * and *out, or -1 with a message in cute_symbolic_error(): a value that breaks its symbol's
 * divisor or bound, division by zero, a precondition (ceil_div of a negative), 64-bit
 * overflow, or (a bug in this backend) a value contradicting a fact it claimed. */
int cute_symbolic_eval(cute_symbolic *s, cute_int x, const int64_t *values, int64_t *out);
const char *cute_symbolic_error(const cute_symbolic *s);

/* Substitution into a whole tuple / layout: a static result (poison and an error in c on
 * failure).  '_' leaves and bases are kept. */
cute_tuple cute_symbolic_substitute_tuple(cute_alg *c, cute_symbolic *s, const cute_tuple *t,
                                          const int64_t *values);
cute_layout cute_symbolic_substitute(cute_alg *c, cute_symbolic *s, const cute_layout *L,
                                     const int64_t *values);

/* A readable form: "M", "(M*16)", "(M*N + 4)", "ceil_div(M, 16)", "min(M, (N*2))";
 * static ints print as numbers.  Returns the full length, like snprintf. */
int cute_symbolic_describe(cute_symbolic *s, cute_int x, char *buf, size_t n);
/* cute_tuple_str / cute_layout_str with every dynamic leaf described: "(16,M):(1,16)" */
int cute_symbolic_tuple_str(cute_symbolic *s, const cute_tuple *t, char *buf, size_t n);
int cute_symbolic_layout_str(cute_symbolic *s, const cute_layout *L, char *buf, size_t n);

/* --- walking a value (for code generators: the tracer lowers values to IR) ----------
 * x = sum over terms of coef * atom[0] * ... * atom[deg-1].  An atom is a symbol s, whose
 * value is value(s) / div(s) (exact), or op(a, b) / scale (exact) for an operation that did
 * not simplify; a and b are values again.  Static x has one term of degree 0. */
#define CUTE_SYMBOLIC_MAX_DEG 8
typedef struct cute_symbolic_term {
    int64_t coef;
    int deg;
    uint32_t atom[CUTE_SYMBOLIC_MAX_DEG];
} cute_symbolic_term;
typedef struct cute_symbolic_atom {
    bool is_symbol;
    int symbol;        /* is_symbol: its index; its value is value(symbol) / scale */
    cute_int_op op;    /* else: op(a, b) / scale; b unused for unary ops */
    cute_int a, b;
    int64_t scale;
    int64_t lo, hi; /* the atom's range (INT64_MIN / INT64_MAX: unbounded) */
} cute_symbolic_atom;
/* the number of terms of x (0 for the static 0), or -1 for a foreign handle */
int cute_symbolic_nterms(cute_symbolic *s, cute_int x);
bool cute_symbolic_get_term(cute_symbolic *s, cute_int x, int i, cute_symbolic_term *out);
bool cute_symbolic_get_atom(cute_symbolic *s, uint32_t atom, cute_symbolic_atom *out);

CUTE_API_END
#endif
