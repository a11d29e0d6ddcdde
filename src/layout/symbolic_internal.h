/* Internal to the symbolic backend (symbolic.h): the normal form's types and the functions
 * its files share.  One concept per file:
 *   symbolic_poly.c     polynomials over atoms: the normal form and its exact arithmetic
 *   symbolic_intern.c   hash-consing: every polynomial and atom stored once, handles, walking
 *   symbolic_range.c    ranges of values and the proofs made from them (decide)
 *   symbolic_compute.c  operations: simplify to the normal form, else an opaque atom
 *   symbolic_backend.c  the backend: symbols, facts about them, the cute_arith vtable
 *   symbolic_eval.c     substituting values
 *   symbolic_print.c    the readable form */
#ifndef CUTEC_SYMBOLIC_INTERNAL_H
#define CUTEC_SYMBOLIC_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "cutec/symbolic.h"

#define MAX_TERMS 48 /* monomials in one polynomial; more becomes an opaque term */
#define MAX_DEG 8    /* atoms in one monomial */
#define BAD UINT32_MAX

/* Bounds: lo == NO_LO is "unbounded below", hi == NO_HI "unbounded above".  Any other value
 * is a finite bound (a lower bound may be INT64_MAX, an upper bound INT64_MIN: both are
 * still true statements, which is all soundness asks). */
#define NO_LO INT64_MIN
#define NO_HI INT64_MAX
typedef struct ival {
    int64_t lo, hi;
} ival;

typedef struct mono {
    int64_t coef;
    int deg;
    uint32_t atom[MAX_DEG]; /* sorted ascending; repeats are powers */
} mono;

typedef struct poly {
    int n;
    mono t[MAX_TERMS]; /* sorted by (deg, atoms): the constant first; no zero coefficients */
} poly;

typedef struct term {
    int64_t coef;
    uint32_t first, deg; /* atoms in S->ids[first, first+deg) */
} term;

typedef struct expr {
    uint32_t first, n; /* terms in S->terms[first, first+n) */
    int64_t content;   /* gcd of |coefficients|; 0 for the zero polynomial */
    uint64_t hash;
} expr;

enum { ATOM_SYM, ATOM_OP };

typedef struct atom {
    uint8_t kind, op;
    int sym;       /* ATOM_SYM: the symbol's index */
    uint32_t a, b; /* ATOM_OP: argument expressions */
    int64_t scale; /* the atom is op(a,b) / scale (symbol: value / div) */
    ival range;    /* of the atom itself (after dividing by scale) */
    uint64_t hash;
} atom;

typedef struct symbol {
    char *name;
    int64_t div, lb, ub; /* ub: NO_HI when none */
    uint32_t atom;
} symbol;

struct cute_symbolic {
    cute_arith arith;
    cute_alg *alg;
    int64_t tag; /* high bits of every handle, so foreign handles are noticed */
    int64_t make_lb;
    int nanon;

    symbol *syms;
    uint32_t nsyms, capsyms;
    atom *atoms;
    uint32_t natoms, capatoms;
    expr *exprs;
    uint32_t nexprs, capexprs;
    term *terms;
    uint32_t nterms, capterms;
    uint32_t *ids;
    uint32_t nids, capids;
    uint32_t *etab, *atab; /* open-addressing tables of id+1 (0: empty) */
    uint32_t ecap, acap;

    /* evaluation memo: atom values valid where stamp matches */
    int64_t *aval;
    uint32_t *astamp, stamp, capmemo;

    bool oom;
    char err[256];
};

#define IVAL_ANY ((ival){NO_LO, NO_HI}) /* nothing known */

/* --- the normal form: small arithmetic and polynomials (symbolic_poly.c) ------------------- */
int64_t sym_gcd64(int64_t a, int64_t b);
int64_t sym_floor_div(int64_t a, int64_t b);
int64_t sym_ceil_div_any(int64_t a, int64_t b);
int sym_v2(int64_t x); /* the largest p with 2^p dividing x != 0 */
bool sym_poly_add_term(poly *p, const mono *m);
void sym_poly_const(poly *p, int64_t k);
bool sym_poly_is_const(const poly *p, int64_t *k);
bool sym_poly_add(poly *r, const poly *a, const poly *b, int sign);
bool sym_poly_mul(poly *r, const poly *a, const poly *b);
bool sym_poly_scale(poly *r, const poly *a, int64_t k);
bool sym_poly_exact_div(poly *q, const poly *a, const poly *b);
bool sym_poly_split(poly *q, int64_t *r, const poly *a, int64_t k);
int64_t sym_poly_content(const poly *p, bool skip_const);

/* --- hash-consing: storage, interning, handles (symbolic_intern.c) ------------------------- */
bool sym_out_of_memory(cute_symbolic *S);
bool sym_grow(cute_symbolic *S, void **p, uint32_t *cap, uint64_t need, size_t elem);
uint64_t sym_mix(uint64_t h, uint64_t x);
bool sym_table_insert(cute_symbolic *S, uint32_t **tab, uint32_t *cap, uint32_t count,
                      uint32_t id, uint64_t (*hash_of)(cute_symbolic *, uint32_t));
uint64_t sym_atom_hash_of(cute_symbolic *S, uint32_t id);
uint32_t sym_intern(cute_symbolic *S, const poly *p);
void sym_load(const cute_symbolic *S, uint32_t id, poly *p);
uint32_t sym_intern_const(cute_symbolic *S, int64_t k);
uint32_t sym_intern_atom(cute_symbolic *S, uint32_t a, int64_t k);
bool sym_new_atom(cute_symbolic *S, uint32_t *id);
cute_int sym_to_int(cute_symbolic *S, uint32_t id);
uint32_t sym_from_int(cute_symbolic *S, cute_int x);

/* --- ranges and proofs (symbolic_range.c) -------------------------------------------------- */
ival sym_ival_meet(ival a, ival b);
ival sym_ival_div_exact(ival r, int64_t scale);
ival sym_poly_range(const cute_symbolic *S, const poly *p);
bool sym_prove_ge(const cute_symbolic *S, const poly *p, const poly *q, int64_t k);
bool sym_prove_nonneg(const cute_symbolic *S, const poly *p);
bool sym_prove_nonpos(const cute_symbolic *S, const poly *p);
ival sym_op_range(const cute_symbolic *S, int op, uint32_t a, uint32_t b);
cute_truth sym_decide(void *self, cute_cmp cmp, cute_int a, cute_int b);

/* --- operations on the normal form (symbolic_compute.c) ------------------------------------ */
cute_int sym_compute(void *self, cute_int_op op, cute_int a, cute_int b);

#endif
