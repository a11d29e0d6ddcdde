/* The symbolic arithmetic backend: polynomials over hash-consed atoms (see symbolic.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "cutec/symbolic.h"
#include "cutec/notation.h"
#include "sink.h"

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

/* --- small arithmetic ------------------------------------------------------------ */

static int64_t gcd64(int64_t a, int64_t b)
{
    uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x > INT64_MAX ? 1 : (int64_t)x; /* only |INT64_MIN| overflows; never a coef */
}

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t ceil_div_any(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a > 0) ? q + 1 : q;
}

static int v2(int64_t x) /* largest p with 2^p | x; x != 0 */
{
    return __builtin_ctzll((unsigned long long)x);
}

/* --- intervals -------------------------------------------------------------------- */

static const ival ANY = {NO_LO, NO_HI};

static ival ival_point(int64_t k) { return (ival){k, k}; }

static ival ival_add(ival a, ival b)
{
    ival r;
    if (a.lo == NO_LO || b.lo == NO_LO)
        r.lo = NO_LO;
    else if (__builtin_add_overflow(a.lo, b.lo, &r.lo))
        r.lo = a.lo > 0 ? INT64_MAX : NO_LO;
    if (a.hi == NO_HI || b.hi == NO_HI)
        r.hi = NO_HI;
    else if (__builtin_add_overflow(a.hi, b.hi, &r.hi))
        r.hi = a.hi > 0 ? NO_HI : INT64_MIN;
    return r;
}

/* one corner of an interval product: x and y are endpoints (inf = -1/+1 for infinite).
 * Too large magnitudes become INT64_MAX / INT64_MIN, which as a lower bound (resp. upper
 * bound) is still true, and as the other kind of bound means infinite. */
static int64_t corner(int64_t x, int xinf, int64_t y, int yinf)
{
    if ((!xinf && x == 0) || (!yinf && y == 0)) return 0;
    int sx = xinf ? xinf : (x > 0 ? 1 : -1), sy = yinf ? yinf : (y > 0 ? 1 : -1);
    int64_t r;
    if (!xinf && !yinf && !__builtin_mul_overflow(x, y, &r)) return r;
    return sx * sy > 0 ? INT64_MAX : INT64_MIN;
}

static ival ival_mul(ival a, ival b)
{
    int64_t ex[2] = {a.lo, a.hi}, ey[2] = {b.lo, b.hi};
    int ix[2] = {a.lo == NO_LO ? -1 : 0, a.hi == NO_HI ? 1 : 0};
    int iy[2] = {b.lo == NO_LO ? -1 : 0, b.hi == NO_HI ? 1 : 0};
    ival r = {INT64_MAX, INT64_MIN};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            int64_t p = corner(ex[i], ix[i], ey[j], iy[j]);
            if (p < r.lo) r.lo = p;
            if (p > r.hi) r.hi = p;
        }
    return r;
}

static ival ival_meet(ival a, ival b)
{
    ival r = {a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
    return r.lo > r.hi ? a : r; /* contradictory facts: keep one, never claim emptiness */
}

/* the range of x/scale for x in r, x a multiple of scale */
static ival ival_div_exact(ival r, int64_t scale)
{
    if (scale == 1) return r;
    ival q = {r.lo == NO_LO ? NO_LO : ceil_div_any(r.lo, scale),
              r.hi == NO_HI ? NO_HI : floor_div(r.hi, scale)};
    return q.lo > q.hi ? ANY : q;
}

static bool excludes_zero(ival r) { return r.lo > 0 || r.hi < 0; }

/* --- storage ---------------------------------------------------------------------- */

static bool out_of_memory(cute_symbolic *S)
{
    if (!S->oom && S->alg) cute_alg_fail(S->alg, "symbolic arithmetic: out of memory");
    S->oom = true;
    return false;
}

static bool grow(cute_symbolic *S, void **p, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint64_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    if (nc > UINT32_MAX / 2) return out_of_memory(S);
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q) return out_of_memory(S);
    *p = q;
    *cap = (uint32_t)nc;
    return true;
}


static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* insert id into an open-addressing table of (id+1), growing it at half load */
static bool table_insert(cute_symbolic *S, uint32_t **tab, uint32_t *cap, uint32_t count,
                         uint32_t id, uint64_t (*hash_of)(cute_symbolic *, uint32_t))
{
    if ((uint64_t)(count + 1) * 2 > *cap) {
        uint32_t nc = *cap ? *cap * 2 : 256;
        uint32_t *nt = calloc(nc, sizeof *nt);
        if (!nt) return out_of_memory(S);
        for (uint32_t i = 0; i < *cap; i++) {
            if (!(*tab)[i]) continue;
            uint32_t k = (uint32_t)hash_of(S, (*tab)[i] - 1) & (nc - 1);
            while (nt[k]) k = (k + 1) & (nc - 1);
            nt[k] = (*tab)[i];
        }
        free(*tab);
        *tab = nt;
        *cap = nc;
    }
    uint32_t k = (uint32_t)hash_of(S, id) & (*cap - 1);
    while ((*tab)[k]) k = (k + 1) & (*cap - 1);
    (*tab)[k] = id + 1;
    return true;
}

static uint64_t expr_hash_of(cute_symbolic *S, uint32_t id) { return S->exprs[id].hash; }
static uint64_t atom_hash_of(cute_symbolic *S, uint32_t id) { return S->atoms[id].hash; }

/* --- polynomials ----------------------------------------------------------------- */

static int mono_cmp(const mono *a, const mono *b)
{
    if (a->deg != b->deg) return a->deg < b->deg ? -1 : 1;
    for (int i = 0; i < a->deg; i++)
        if (a->atom[i] != b->atom[i]) return a->atom[i] < b->atom[i] ? -1 : 1;
    return 0;
}

/* p += m; false on overflow or too many terms */
static bool poly_add_term(poly *p, const mono *m)
{
    if (m->coef == 0) return true;
    int i = 0;
    while (i < p->n && mono_cmp(&p->t[i], m) < 0) i++;
    if (i < p->n && mono_cmp(&p->t[i], m) == 0) {
        int64_t c;
        if (__builtin_add_overflow(p->t[i].coef, m->coef, &c) || c == INT64_MIN) return false;
        if (c == 0) {
            memmove(&p->t[i], &p->t[i + 1], (size_t)(p->n - i - 1) * sizeof(mono));
            p->n--;
        } else {
            p->t[i].coef = c;
        }
        return true;
    }
    if (p->n == MAX_TERMS) return false;
    memmove(&p->t[i + 1], &p->t[i], (size_t)(p->n - i) * sizeof(mono));
    p->t[i] = *m;
    p->n++;
    return true;
}

static void poly_const(poly *p, int64_t k)
{
    p->n = 0;
    if (k != 0) {
        p->n = 1;
        p->t[0].coef = k;
        p->t[0].deg = 0;
    }
}

static bool poly_is_const(const poly *p, int64_t *k)
{
    if (p->n == 0) {
        *k = 0;
        return true;
    }
    if (p->n == 1 && p->t[0].deg == 0) {
        *k = p->t[0].coef;
        return true;
    }
    return false;
}

/* r = a + sign*b (r may alias neither) */
static bool poly_add(poly *r, const poly *a, const poly *b, int sign)
{
    *r = *a;
    for (int i = 0; i < b->n; i++) {
        mono m = b->t[i];
        if (sign < 0) {
            if (m.coef == INT64_MIN) return false;
            m.coef = -m.coef;
        }
        if (!poly_add_term(r, &m)) return false;
    }
    return true;
}

static bool mono_mul(mono *r, const mono *a, const mono *b)
{
    if (a->deg + b->deg > MAX_DEG) return false;
    if (__builtin_mul_overflow(a->coef, b->coef, &r->coef) || r->coef == INT64_MIN) return false;
    int i = 0, j = 0, k = 0;
    while (i < a->deg || j < b->deg) {
        if (j == b->deg || (i < a->deg && a->atom[i] <= b->atom[j]))
            r->atom[k++] = a->atom[i++];
        else
            r->atom[k++] = b->atom[j++];
    }
    r->deg = k;
    return true;
}

static bool poly_mul(poly *r, const poly *a, const poly *b)
{
    r->n = 0;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            mono m;
            if (!mono_mul(&m, &a->t[i], &b->t[j]) || !poly_add_term(r, &m)) return false;
        }
    return true;
}

static bool poly_scale(poly *r, const poly *a, int64_t k)
{
    poly kp;
    poly_const(&kp, k);
    return poly_mul(r, a, &kp);
}

/* m / d as monomials: coefficient divides and d's atoms are a sub-multiset of m's */
static bool mono_div(mono *q, const mono *m, const mono *d)
{
    if (d->coef == 0 || m->coef % d->coef != 0) return false;
    if (d->coef == -1 && m->coef == INT64_MIN) return false;
    q->coef = m->coef / d->coef;
    int i = 0, j = 0, k = 0;
    while (i < m->deg) {
        if (j < d->deg && m->atom[i] == d->atom[j]) {
            i++, j++;
        } else {
            if (j < d->deg && d->atom[j] < m->atom[i]) return false;
            q->atom[k++] = m->atom[i++];
        }
    }
    if (j < d->deg) return false;
    q->deg = k;
    return true;
}

/* a == b*q for a polynomial q: every term when b is one monomial; else q must be one
 * monomial (a's first term over b's first term) and b*q is checked to be a. */
static bool poly_exact_div(poly *q, const poly *a, const poly *b)
{
    if (b->n == 0) return false;
    q->n = 0;
    if (b->n == 1) {
        for (int i = 0; i < a->n; i++) {
            mono m;
            if (!mono_div(&m, &a->t[i], &b->t[0]) || !poly_add_term(q, &m)) return false;
        }
        return true;
    }
    if (a->n == 0) return true;
    mono m;
    if (!mono_div(&m, &a->t[a->n - 1], &b->t[b->n - 1])) return false;
    poly mp = {0}, prod;
    if (!poly_add_term(&mp, &m) || !poly_mul(&prod, b, &mp) || prod.n != a->n) return false;
    for (int i = 0; i < a->n; i++)
        if (prod.t[i].coef != a->t[i].coef || mono_cmp(&prod.t[i], &a->t[i]) != 0) return false;
    *q = mp;
    return true;
}

/* a == k*q + r with r the constant term: every other coefficient divisible by k (k > 0) */
static bool poly_split(poly *q, int64_t *r, const poly *a, int64_t k)
{
    q->n = 0;
    *r = 0;
    for (int i = 0; i < a->n; i++) {
        if (a->t[i].deg == 0) {
            *r = a->t[i].coef;
            continue;
        }
        if (a->t[i].coef % k != 0) return false;
        mono m = a->t[i];
        m.coef /= k;
        if (!poly_add_term(q, &m)) return false;
    }
    return true;
}

static int64_t poly_content(const poly *p, bool skip_const)
{
    int64_t g = 0;
    for (int i = 0; i < p->n; i++)
        if (!skip_const || p->t[i].deg > 0) g = gcd64(g, p->t[i].coef);
    return g;
}

/* --- interning ------------------------------------------------------------------- */

static uint64_t poly_hash(const poly *p)
{
    uint64_t h = 0x12345 + (uint64_t)p->n;
    for (int i = 0; i < p->n; i++) {
        h = mix(h, (uint64_t)p->t[i].coef);
        h = mix(h, (uint64_t)p->t[i].deg);
        for (int k = 0; k < p->t[i].deg; k++) h = mix(h, p->t[i].atom[k]);
    }
    return h;
}

static bool expr_is(const cute_symbolic *S, uint32_t id, const poly *p, uint64_t h)
{
    const expr *e = &S->exprs[id];
    if (e->hash != h || e->n != (uint32_t)p->n) return false;
    for (int i = 0; i < p->n; i++) {
        const term *t = &S->terms[e->first + i];
        if (t->coef != p->t[i].coef || t->deg != (uint32_t)p->t[i].deg) return false;
        if (memcmp(&S->ids[t->first], p->t[i].atom, t->deg * sizeof(uint32_t)) != 0)
            return false;
    }
    return true;
}

static uint32_t intern(cute_symbolic *S, const poly *p)
{
    if (S->oom) return BAD;
    uint64_t h = poly_hash(p);
    if (S->ecap) {
        for (uint32_t k = (uint32_t)h & (S->ecap - 1); S->etab[k]; k = (k + 1) & (S->ecap - 1))
            if (expr_is(S, S->etab[k] - 1, p, h)) return S->etab[k] - 1;
    }
    uint32_t natoms = 0;
    for (int i = 0; i < p->n; i++) natoms += (uint32_t)p->t[i].deg;
    if (!grow(S, (void **)&S->exprs, &S->capexprs, (uint64_t)S->nexprs + 1, sizeof(expr)) ||
        !grow(S, (void **)&S->terms, &S->capterms, (uint64_t)S->nterms + p->n, sizeof(term)) ||
        !grow(S, (void **)&S->ids, &S->capids, (uint64_t)S->nids + natoms, sizeof(uint32_t)))
        return BAD;
    expr *e = &S->exprs[S->nexprs];
    e->first = S->nterms;
    e->n = (uint32_t)p->n;
    e->content = poly_content(p, false);
    e->hash = h;
    for (int i = 0; i < p->n; i++) {
        term *t = &S->terms[S->nterms++];
        t->coef = p->t[i].coef;
        t->deg = (uint32_t)p->t[i].deg;
        t->first = S->nids;
        memcpy(&S->ids[S->nids], p->t[i].atom, t->deg * sizeof(uint32_t));
        S->nids += t->deg;
    }
    uint32_t id = S->nexprs++;
    if (!table_insert(S, &S->etab, &S->ecap, id, id, expr_hash_of)) return BAD;
    return id;
}

static void load(const cute_symbolic *S, uint32_t id, poly *p)
{
    const expr *e = &S->exprs[id];
    p->n = (int)e->n;
    for (uint32_t i = 0; i < e->n; i++) {
        const term *t = &S->terms[e->first + i];
        p->t[i].coef = t->coef;
        p->t[i].deg = (int)t->deg;
        memcpy(p->t[i].atom, &S->ids[t->first], t->deg * sizeof(uint32_t));
    }
}

static uint32_t intern_const(cute_symbolic *S, int64_t k)
{
    poly p;
    poly_const(&p, k);
    return intern(S, &p);
}

/* k * atom */
static uint32_t intern_atom(cute_symbolic *S, uint32_t a, int64_t k)
{
    poly p = {0};
    mono m = {.coef = k, .deg = 1, .atom = {a}};
    poly_add_term(&p, &m);
    return intern(S, &p);
}

static bool new_atom(cute_symbolic *S, uint32_t *id)
{
    if (!grow(S, (void **)&S->atoms, &S->capatoms, (uint64_t)S->natoms + 1, sizeof(atom)))
        return false;
    *id = S->natoms++;
    memset(&S->atoms[*id], 0, sizeof(atom));
    return true;
}

/* --- handles ---------------------------------------------------------------------- */

static cute_int to_int(cute_symbolic *S, uint32_t id)
{
    if (id == BAD) return cute_i(0);
    int64_t k;
    poly p;
    load(S, id, &p);
    if (poly_is_const(&p, &k)) return cute_i(k);
    return (cute_int){S->tag | (int64_t)id, S->exprs[id].content};
}

/* the expression of x (static ints are interned as constants); BAD if foreign */
static uint32_t from_int(cute_symbolic *S, cute_int x)
{
    if (cute_is_static(x)) return intern_const(S, x.v);
    if (!cute_is_dynamic(x) || (x.v & ~(int64_t)0xffffffff) != S->tag) return BAD;
    uint32_t id = (uint32_t)(x.v & 0xffffffff);
    return id < S->nexprs ? id : BAD;
}

/* --- ranges and proofs ------------------------------------------------------------ */

static ival mono_range(const cute_symbolic *S, const mono *m)
{
    ival r = ival_point(m->coef);
    for (int i = 0; i < m->deg; i++) r = ival_mul(r, S->atoms[m->atom[i]].range);
    return r;
}

static ival poly_range_plain(const cute_symbolic *S, const poly *p)
{
    ival r = ival_point(0);
    for (int i = 0; i < p->n; i++) r = ival_add(r, mono_range(S, &p->t[i]));
    return r;
}

/* the atoms every term shares (as a monomial with coefficient 1) */
static void common_atoms(const poly *p, mono *g)
{
    g->coef = 1;
    g->deg = 0;
    if (p->n == 0) return;
    *g = p->t[0];
    g->coef = 1;
    for (int i = 1; i < p->n && g->deg > 0; i++) {
        mono q;
        int a = 0, b = 0, k = 0;
        const mono *t = &p->t[i];
        while (a < g->deg && b < t->deg) {
            if (g->atom[a] == t->atom[b])
                q.atom[k++] = g->atom[a], a++, b++;
            else if (g->atom[a] < t->atom[b])
                a++;
            else
                b++;
        }
        q.deg = k;
        q.coef = 1;
        *g = q;
    }
}

/* bounds of p: term by term, and also with the atoms common to the non-constant terms
 * factored out (16*x*y - 16*x + 1 = 16*x*(y-1) + 1 >= 1 when x >= 0 and y >= 1) */
static ival poly_range(const cute_symbolic *S, const poly *p)
{
    ival r = poly_range_plain(S, p);
    poly v = *p;
    int64_t c0 = 0;
    if (v.n > 0 && v.t[0].deg == 0) { /* the constant term, first in the order */
        c0 = v.t[0].coef;
        memmove(&v.t[0], &v.t[1], (size_t)(v.n - 1) * sizeof(mono));
        v.n--;
    }
    if (v.n < 2) return r;
    mono g;
    common_atoms(&v, &g);
    if (g.deg == 0) return r;
    poly q;
    if (!poly_exact_div(&q, &v, &(poly){1, {g}})) return r;
    ival f = ival_add(ival_point(c0), ival_mul(mono_range(S, &g), poly_range_plain(S, &q)));
    return ival_meet(r, f);
}

/* p - q >= k, provably */
static bool prove_ge(const cute_symbolic *S, const poly *p, const poly *q, int64_t k)
{
    poly d;
    if (!poly_add(&d, p, q, -1)) return false;
    ival r = poly_range(S, &d);
    return r.lo != NO_LO && r.lo >= k;
}

static bool prove_nonneg(const cute_symbolic *S, const poly *p)
{
    ival r = poly_range(S, p);
    return r.lo != NO_LO && r.lo >= 0;
}

static bool prove_nonpos(const cute_symbolic *S, const poly *p)
{
    ival r = poly_range(S, p);
    return r.hi != NO_HI && r.hi <= 0;
}

/* TRUE: p != 0 for every valid value; FALSE: p is the zero polynomial; else UNKNOWN */
static cute_truth poly_nonzero(const cute_symbolic *S, const poly *p)
{
    if (p->n == 0) return CUTE_FALSE;
    int64_t k, g = poly_content(p, true);
    if (poly_is_const(p, &k)) return CUTE_TRUE;
    /* g divides every non-constant term: p == 0 needs g | constant */
    k = p->t[0].deg == 0 ? p->t[0].coef : 0;
    if (g > 1 && k % g != 0) return CUTE_TRUE;
    if (excludes_zero(poly_range(S, p))) return CUTE_TRUE;
    mono m;
    common_atoms(p, &m);
    if (m.deg > 0) {
        for (int i = 0; i < m.deg; i++)
            if (!excludes_zero(S->atoms[m.atom[i]].range)) return CUTE_UNKNOWN;
        poly q;
        if (poly_exact_div(&q, p, &(poly){1, {m}}) && poly_nonzero(S, &q) == CUTE_TRUE)
            return CUTE_TRUE;
    }
    return CUTE_UNKNOWN;
}

/* --- opaque terms ----------------------------------------------------------------- */

static bool commutative(int op)
{
    return op == CUTE_IADD || op == CUTE_IMUL || op == CUTE_IMIN || op == CUTE_IMAX ||
           op == CUTE_IXOR || op == CUTE_IAND;
}

static int64_t expr_content(const cute_symbolic *S, uint32_t e)
{
    int64_t c = S->exprs[e].content;
    return c; /* 0 for the zero polynomial: a multiple of everything */
}

/* a true divisor of op(a, b), for every valid value */
static int64_t op_scale(const cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    int64_t ca = expr_content(S, a), cb = expr_content(S, b), r;
    switch (op) {
    case CUTE_IADD:
    case CUTE_ISUB:
    case CUTE_IMOD:
    case CUTE_IMIN:
    case CUTE_IMAX: return gcd64(ca, cb) ? gcd64(ca, cb) : 1;
    case CUTE_IMUL: return __builtin_mul_overflow(ca, cb, &r) || r <= 0 ? 1 : r;
    case CUTE_IABS: return ca ? ca : 1;
    case CUTE_IXOR:
    case CUTE_IAND: {
        if (!ca || !cb) return 1; /* simplified before; be safe */
        int pa = v2(ca), pb = v2(cb), p = op == CUTE_IXOR ? (pa < pb ? pa : pb)
                                                           : (pa > pb ? pa : pb);
        return p > 62 ? 1 : (int64_t)1 << p;
    }
    default: return 1;
    }
}

static int64_t max_abs(ival r) /* NO_HI when unbounded */
{
    if (r.lo == NO_LO || r.hi == NO_HI || r.hi == INT64_MIN) return NO_HI;
    int64_t a = r.lo < 0 ? -r.lo : r.lo, b = r.hi < 0 ? -r.hi : r.hi;
    return a > b ? a : b;
}

/* bounds of op(a, b) assuming the op's own precondition holds */
static ival op_range(const cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    poly pa, pb;
    load(S, a, &pa);
    load(S, b, &pb);
    ival ra = poly_range(S, &pa), rb = poly_range(S, &pb), r = ANY;
    int64_t k;
    switch (op) {
    case CUTE_IADD: return ival_add(ra, rb);
    case CUTE_ISUB: return ival_add(ra, ival_mul(rb, ival_point(-1)));
    case CUTE_IMUL: return ival_mul(ra, rb);
    case CUTE_IDIV:
        if (poly_is_const(&pb, &k) && k > 0)
            return (ival){ra.lo == NO_LO ? NO_LO : ra.lo / k, ra.hi == NO_HI ? NO_HI : ra.hi / k};
        if (ra.lo >= 0 && rb.lo >= 1) return (ival){0, ra.hi};
        return ANY;
    case CUTE_ICEILDIV: /* a >= 0, b > 0: 0 <= ceil(a/b) <= a */
        r = (ival){ra.lo >= 1 ? 1 : 0, ra.hi};
        if (poly_is_const(&pb, &k) && k > 0 && ra.hi != NO_HI) r.hi = ceil_div_any(ra.hi, k);
        return r;
    case CUTE_IMOD: {
        int64_t m = max_abs(rb); /* |a % b| <= |b| - 1 */
        if (ra.lo >= 0) return (ival){0, m == NO_HI || ra.hi < m - 1 ? ra.hi : m - 1};
        if (ra.hi != NO_HI && ra.hi <= 0)
            return (ival){m == NO_HI || ra.lo > 1 - m ? ra.lo : 1 - m, 0};
        if (m != NO_HI) return (ival){1 - m, m - 1};
        return ANY;
    }
    case CUTE_IMIN: return (ival){ra.lo < rb.lo ? ra.lo : rb.lo, ra.hi < rb.hi ? ra.hi : rb.hi};
    case CUTE_IMAX: return (ival){ra.lo > rb.lo ? ra.lo : rb.lo, ra.hi > rb.hi ? ra.hi : rb.hi};
    case CUTE_IABS: {
        int64_t m = max_abs(ra);
        if (ra.lo >= 0) return ra;
        return (ival){ra.hi < 0 && ra.hi != INT64_MIN ? -ra.hi : 0, m};
    }
    case CUTE_ISGN:
        return (ival){ra.lo >= 1 ? 1 : (ra.lo >= 0 ? 0 : -1),
                      ra.hi <= -1 ? -1 : (ra.hi <= 0 ? 0 : 1)};
    case CUTE_IXOR: return ra.lo >= 0 && rb.lo >= 0 ? (ival){0, NO_HI} : ANY;
    case CUTE_IAND:
        if (ra.lo >= 0 && rb.lo >= 0) return (ival){0, ra.hi < rb.hi ? ra.hi : rb.hi};
        if (ra.lo >= 0) return (ival){0, ra.hi};
        if (rb.lo >= 0) return (ival){0, rb.hi};
        return ANY;
    case CUTE_ISHL: return ra.lo >= 0 ? (ival){ra.lo, NO_HI} : ANY;
    case CUTE_ISHR:
        if (ra.lo >= 0) return (ival){0, ra.hi};
        if (ra.hi != NO_HI && ra.hi < 0) return (ival){ra.lo, -1};
        return ra;
    }
    return ANY;
}

/* op(a, b) as an atom, times the divisor known for it; a constant if its range is a point */
static uint32_t opaque(cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    if (commutative(op) && a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint64_t h = mix(mix(mix(0x0badcafe, (uint64_t)op), a), b);
    if (S->acap) {
        for (uint32_t k = (uint32_t)h & (S->acap - 1); S->atab[k]; k = (k + 1) & (S->acap - 1)) {
            const atom *t = &S->atoms[S->atab[k] - 1];
            if (t->hash == h && t->kind == ATOM_OP && t->op == op && t->a == a && t->b == b)
                return intern_atom(S, S->atab[k] - 1, t->scale);
        }
    }
    int64_t scale = op_scale(S, op, a, b);
    ival r = op_range(S, op, a, b);
    r = ival_div_exact(r.lo > r.hi ? ANY : r, scale);
    if (r.lo != NO_LO && r.hi != NO_HI && r.lo == r.hi) {
        int64_t v;
        if (!__builtin_mul_overflow(r.lo, scale, &v)) return intern_const(S, v);
    }
    uint32_t id;
    if (!new_atom(S, &id)) return BAD;
    atom *t = &S->atoms[id];
    t->kind = ATOM_OP;
    t->op = (uint8_t)op;
    t->a = a;
    t->b = b;
    t->scale = scale;
    t->range = r;
    t->hash = h;
    if (!table_insert(S, &S->atab, &S->acap, id, id, atom_hash_of)) return BAD;
    return intern_atom(S, id, scale);
}

/* --- compute ---------------------------------------------------------------------- */

static uint32_t fail_compute(cute_symbolic *S, int op, uint32_t a, uint32_t b, const char *why)
{
    if (S->alg) {
        cute_alg_fail(S->alg, "symbolic arithmetic: %s", why);
        return BAD;
    }
    return opaque(S, op, a, b); /* evaluating it reports the problem */
}

static uint32_t poly_or_opaque(cute_symbolic *S, bool ok, const poly *r, int op, uint32_t a,
                               uint32_t b)
{
    return ok ? intern(S, r) : opaque(S, op, a, b);
}

static uint32_t compute_div(cute_symbolic *S, int op, uint32_t a, uint32_t b, const poly *pa,
                            const poly *pb)
{
    poly q, t;
    int64_t k, r;
    bool kconst = poly_is_const(pb, &k);
    if (kconst && k == 0) return fail_compute(S, op, a, b, "division by zero");
    if (op == CUTE_ICEILDIV && kconst && k < 0)
        return fail_compute(S, op, a, b, "ceil_div by a negative number");
    if (poly_exact_div(&q, pa, pb)) return intern(S, &q);
    if (kconst && k != INT64_MIN) {
        int64_t K = k < 0 ? -k : k;
        if (poly_split(&q, &r, pa, K)) {
            /* a = K*q + r: floor(a/K) = q + floor(r/K), ceil likewise */
            int64_t add;
            bool ok = true;
            if (op == CUTE_ICEILDIV)
                add = ceil_div_any(r, K);
            else if (prove_nonneg(S, pa))
                add = floor_div(r, K); /* truncation is floor here */
            else if (prove_nonpos(S, pa))
                add = ceil_div_any(r, K);
            else
                ok = false;
            if (ok) {
                poly addp;
                poly_const(&addp, add);
                if (poly_add(&t, &q, &addp, 1)) {
                    if (k < 0 && !poly_scale(&q, &t, -1)) return opaque(S, op, a, b);
                    return intern(S, k < 0 ? &q : &t);
                }
            }
        }
    }
    if (op == CUTE_IDIV && prove_nonneg(S, pa) && prove_ge(S, pb, pa, 1))
        return intern_const(S, 0); /* 0 <= a < b */
    if (op == CUTE_ICEILDIV && prove_ge(S, pa, &(poly){0}, 1) && prove_ge(S, pb, pa, 0))
        return intern_const(S, 1); /* 1 <= a <= b */
    return opaque(S, op, a, b);
}

static uint32_t compute_mod(cute_symbolic *S, uint32_t a, uint32_t b, const poly *pa,
                            const poly *pb)
{
    poly q;
    int64_t k, r;
    if (poly_is_const(pb, &k) && k == 0)
        return fail_compute(S, CUTE_IMOD, a, b, "remainder of a division by zero");
    if (poly_exact_div(&q, pa, pb)) return intern_const(S, 0);
    bool nonneg = prove_nonneg(S, pa);
    if (nonneg && poly_is_const(pb, &k) && k != INT64_MIN) {
        int64_t K = k < 0 ? -k : k;
        if (poly_split(&q, &r, pa, K)) return intern_const(S, ((r % K) + K) % K);
    }
    if (nonneg && prove_ge(S, pb, pa, 1)) return a; /* 0 <= a < b */
    return opaque(S, CUTE_IMOD, a, b);
}

static uint32_t compute_expr(cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    poly pa, pb, r;
    load(S, a, &pa);
    load(S, b, &pb);
    int64_t k;
    switch (op) {
    case CUTE_IADD: return poly_or_opaque(S, poly_add(&r, &pa, &pb, 1), &r, op, a, b);
    case CUTE_ISUB: return poly_or_opaque(S, poly_add(&r, &pa, &pb, -1), &r, op, a, b);
    case CUTE_IMUL: return poly_or_opaque(S, poly_mul(&r, &pa, &pb), &r, op, a, b);
    case CUTE_IDIV:
    case CUTE_ICEILDIV: return compute_div(S, op, a, b, &pa, &pb);
    case CUTE_IMOD: return compute_mod(S, a, b, &pa, &pb);
    case CUTE_IMIN:
    case CUTE_IMAX:
        if (a == b) return a;
        if (prove_ge(S, &pb, &pa, 0)) return op == CUTE_IMIN ? a : b;
        if (prove_ge(S, &pa, &pb, 0)) return op == CUTE_IMIN ? b : a;
        return opaque(S, op, a, b);
    case CUTE_IABS:
        if (prove_nonneg(S, &pa)) return a;
        if (prove_nonpos(S, &pa))
            return poly_or_opaque(S, poly_scale(&r, &pa, -1), &r, op, a, b);
        return opaque(S, op, a, intern_const(S, 0));
    case CUTE_ISGN:
        if (pa.n == 0) return intern_const(S, 0);
        return opaque(S, op, a, intern_const(S, 0)); /* a point range folds */
    case CUTE_IXOR:
        if (pa.n == 0) return b;
        if (pb.n == 0) return a;
        if (a == b) return intern_const(S, 0);
        return opaque(S, op, a, b);
    case CUTE_IAND:
        if (pa.n == 0 || pb.n == 0) return intern_const(S, 0);
        if (a == b) return a;
        return opaque(S, op, a, b);
    case CUTE_ISHL:
        if (poly_is_const(&pb, &k)) {
            if (k < 0 || k > 62) return fail_compute(S, op, a, b, "shift out of range");
            return poly_or_opaque(S, poly_scale(&r, &pa, (int64_t)1 << k), &r, op, a, b);
        }
        return opaque(S, op, a, b);
    case CUTE_ISHR:
        if (poly_is_const(&pb, &k)) {
            if (k < 0 || k > 63) return fail_compute(S, op, a, b, "shift out of range");
            if (k == 0) return a;
            if (k < 63) {
                int64_t K = (int64_t)1 << k, rem;
                poly q, t, addp;
                if (poly_split(&q, &rem, &pa, K)) { /* floor((K*q + r)/K) = q + floor(r/K) */
                    poly_const(&addp, floor_div(rem, K));
                    if (poly_add(&t, &q, &addp, 1)) return intern(S, &t);
                }
            }
        }
        return opaque(S, op, a, b);
    }
    return fail_compute(S, op, a, b, "unknown operation");
}

static cute_int sym_compute(void *self, cute_int_op op, cute_int a, cute_int b)
{
    cute_symbolic *S = self;
    bool unary = op == CUTE_IABS || op == CUTE_ISGN;
    uint32_t ea = from_int(S, a), eb = unary ? intern_const(S, 0) : from_int(S, b);
    if (ea == BAD || eb == BAD) {
        if (S->alg && !S->oom)
            cute_alg_fail(S->alg, "symbolic arithmetic: a dynamic value that this backend did "
                                  "not make");
        return cute_i(0);
    }
    return to_int(S, compute_expr(S, (int)op, ea, eb));
}

static cute_truth sym_decide(void *self, cute_cmp cmp, cute_int a, cute_int b)
{
    cute_symbolic *S = self;
    uint32_t ea = from_int(S, a), eb = from_int(S, b);
    if (ea == BAD || eb == BAD) return CUTE_UNKNOWN;
    poly pa, pb, d, q;
    load(S, ea, &pa);
    load(S, eb, &pb);
    int64_t k;
    ival r;
    switch (cmp) {
    case CUTE_CMP_EQ:
        if (ea == eb) return CUTE_TRUE;
        if (!poly_add(&d, &pa, &pb, -1)) return CUTE_UNKNOWN;
        return poly_nonzero(S, &d) == CUTE_TRUE ? CUTE_FALSE : CUTE_UNKNOWN;
    case CUTE_CMP_LT:
        if (!poly_add(&d, &pb, &pa, -1)) return CUTE_UNKNOWN;
        r = poly_range(S, &d);
        if (r.lo != NO_LO && r.lo >= 1) return CUTE_TRUE;
        if (r.hi != NO_HI && r.hi <= 0) return CUTE_FALSE;
        return CUTE_UNKNOWN;
    case CUTE_CMP_DIVIDES: {
        cute_truth nz = poly_nonzero(S, &pa);
        if (nz == CUTE_FALSE) return CUTE_FALSE; /* 0 divides nothing */
        if (poly_exact_div(&q, &pb, &pa)) return nz == CUTE_TRUE ? CUTE_TRUE : CUTE_UNKNOWN;
        if (poly_is_const(&pa, &k) && k != INT64_MIN) {
            int64_t K = k < 0 ? -k : k, rem;
            if (poly_split(&q, &rem, &pb, K)) return rem % K == 0 ? CUTE_TRUE : CUTE_FALSE;
        }
        if (poly_is_const(&pb, &k) && k != 0) {
            /* a | b implies content(a) | b and |a| <= |b| */
            int64_t g = poly_content(&pa, false);
            if (g > 1 && k % g != 0) return CUTE_FALSE;
            ival ra = poly_range(S, &pa);
            int64_t K = k < 0 ? -k : k;
            if ((ra.lo != NO_LO && ra.lo > K) || (ra.hi != NO_HI && ra.hi < -K))
                return CUTE_FALSE;
        }
        return CUTE_UNKNOWN;
    }
    }
    return CUTE_UNKNOWN;
}

/* --- symbols ---------------------------------------------------------------------- */

static cute_int make_symbol(cute_symbolic *S, const char *name, int64_t div, int64_t lb)
{
    if (S->oom || div < 1) return cute_i(0);
    char anon[32];
    if (!name) {
        snprintf(anon, sizeof anon, "?%d", ++S->nanon);
        name = anon;
    }
    char *copy = malloc(strlen(name) + 1);
    if (!copy) return out_of_memory(S), cute_i(0);
    strcpy(copy, name);
    uint32_t id;
    if (!grow(S, (void **)&S->syms, &S->capsyms, (uint64_t)S->nsyms + 1, sizeof(symbol)) ||
        !new_atom(S, &id)) {
        free(copy);
        return cute_i(0);
    }
    symbol *sy = &S->syms[S->nsyms];
    sy->name = copy;
    sy->div = div;
    sy->lb = lb;
    sy->ub = NO_HI;
    sy->atom = id;
    atom *t = &S->atoms[id];
    t->kind = ATOM_SYM;
    t->sym = (int)S->nsyms++;
    t->scale = div;
    t->range = (ival){lb == CUTE_SYM_NO_BOUND ? NO_LO : ceil_div_any(lb, div), NO_HI};
    t->hash = mix(0x5e, id);
    return to_int(S, intern_atom(S, id, div));
}

static cute_int sym_make(void *self, int64_t div, const char *name)
{
    cute_symbolic *S = self;
    cute_int x = make_symbol(S, name, div, S->make_lb);
    if (cute_is_static(x) && S->alg && !S->oom)
        cute_alg_fail(S->alg, "symbolic arithmetic: cannot make a symbol with divisor %lld",
                      (long long)div);
    return x;
}

static int sym_describe(void *self, cute_int a, char *buf, size_t n)
{
    return cute_symbolic_describe(self, a, buf, n);
}

cute_symbolic *cute_symbolic_new(void)
{
    cute_symbolic *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->arith.self = S;
    S->arith.make = sym_make;
    S->arith.compute = sym_compute;
    S->arith.decide = sym_decide;
    S->arith.describe = sym_describe;
    uint64_t h = mix(0x7a61, (uint64_t)(uintptr_t)S);
    S->tag = (int64_t)((h & 0x3fffffff) | 1) << 32;
    S->make_lb = CUTE_SYM_NO_BOUND;
    return S;
}

void cute_symbolic_free(cute_symbolic *S)
{
    if (!S) return;
    for (uint32_t i = 0; i < S->nsyms; i++) free(S->syms[i].name);
    free(S->syms);
    free(S->atoms);
    free(S->exprs);
    free(S->terms);
    free(S->ids);
    free(S->etab);
    free(S->atab);
    free(S->aval);
    free(S->astamp);
    free(S);
}

const cute_arith *cute_symbolic_arith(cute_symbolic *S) { return &S->arith; }

void cute_symbolic_bind(cute_symbolic *S, cute_alg *c)
{
    cute_alg_init(c, &S->arith);
    S->alg = c;
}

cute_int cute_symbolic_symbol(cute_symbolic *S, const char *name, int64_t div,
                              int64_t lower_bound)
{
    return make_symbol(S, name, div, lower_bound);
}

void cute_symbolic_set_make_bound(cute_symbolic *S, int64_t lower_bound)
{
    S->make_lb = lower_bound;
}

int cute_symbolic_nsymbols(const cute_symbolic *S) { return (int)S->nsyms; }

bool cute_symbolic_symbol_info(const cute_symbolic *S, int i, const char **name, int64_t *div,
                               int64_t *lower_bound)
{
    if (i < 0 || (uint32_t)i >= S->nsyms) return false;
    if (name) *name = S->syms[i].name;
    if (div) *div = S->syms[i].div;
    if (lower_bound) *lower_bound = S->syms[i].lb;
    return true;
}

bool cute_symbolic_tighten(cute_symbolic *S, int i, int64_t lower_bound, int64_t upper_bound)
{
    if (i < 0 || (uint32_t)i >= S->nsyms) return false;
    symbol *sy = &S->syms[i];
    if (lower_bound != CUTE_SYM_NO_BOUND && (sy->lb == CUTE_SYM_NO_BOUND || lower_bound > sy->lb))
        sy->lb = lower_bound;
    if (upper_bound < sy->ub) sy->ub = upper_bound;
    atom *t = &S->atoms[sy->atom];
    ival r = {sy->lb == CUTE_SYM_NO_BOUND ? NO_LO : ceil_div_any(sy->lb, sy->div),
              sy->ub == NO_HI ? NO_HI : floor_div(sy->ub, sy->div)};
    t->range = ival_meet(t->range, r);
    return true;
}

bool cute_symbolic_range(cute_symbolic *S, cute_int x, int64_t *lo, int64_t *hi)
{
    if (cute_is_static(x)) {
        *lo = *hi = x.v;
        return true;
    }
    uint32_t id = from_int(S, x);
    if (id == BAD) return false;
    poly p;
    load(S, id, &p);
    ival r = poly_range(S, &p);
    *lo = r.lo, *hi = r.hi;
    return true;
}

int cute_symbolic_symbol_index(const cute_symbolic *S, cute_int x)
{
    uint32_t e = from_int((cute_symbolic *)S, x);
    if (e == BAD || S->exprs[e].n != 1) return -1;
    const term *t = &S->terms[S->exprs[e].first];
    if (t->deg != 1) return -1;
    const atom *a = &S->atoms[S->ids[t->first]];
    return a->kind == ATOM_SYM && t->coef == a->scale ? a->sym : -1;
}

/* --- evaluation ------------------------------------------------------------------- */

static bool eval_fail(cute_symbolic *S, const char *fmt, const char *what, long long x,
                      long long y)
{
    snprintf(S->err, sizeof S->err, fmt, what, x, y);
    return false;
}

static bool eval_expr(cute_symbolic *S, uint32_t e, const int64_t *values, int64_t *out);

static bool apply_op(cute_symbolic *S, int op, int64_t a, int64_t b, int64_t *out)
{
    const char *why;
    if (cute_int_apply((cute_int_op)op, a, b, out, &why)) return true;
    snprintf(S->err, sizeof S->err, "eval: %lld %s %lld: %s", (long long)a,
             cute_int_op_name((cute_int_op)op), (long long)b, why);
    return false;
}

static bool eval_atom(cute_symbolic *S, uint32_t id, const int64_t *values, int64_t *out)
{
    if (S->astamp[id] == S->stamp) {
        *out = S->aval[id];
        return true;
    }
    const atom *t = &S->atoms[id];
    int64_t v;
    if (t->kind == ATOM_SYM) {
        const symbol *sy = &S->syms[t->sym];
        int64_t x = values[t->sym];
        if (x % sy->div != 0)
            return eval_fail(S, "symbol %s = %lld is not a multiple of its divisor %lld",
                             sy->name, x, sy->div);
        if (sy->lb != CUTE_SYM_NO_BOUND && x < sy->lb)
            return eval_fail(S, "symbol %s = %lld is below its lower bound %lld", sy->name, x,
                             sy->lb);
        if (x > sy->ub)
            return eval_fail(S, "symbol %s = %lld is above its upper bound %lld", sy->name, x,
                             sy->ub);
        v = x / sy->div;
    } else {
        int64_t a, b, r;
        if (!eval_expr(S, t->a, values, &a) || !eval_expr(S, t->b, values, &b) ||
            !apply_op(S, t->op, a, b, &r))
            return false;
        if (r % t->scale != 0)
            return eval_fail(S, "%s: BUG: %lld is not a multiple of the divisor %lld claimed "
                                "for it", "symbolic", r, t->scale);
        v = r / t->scale;
    }
    if ((t->range.lo != NO_LO && v < t->range.lo) || (t->range.hi != NO_HI && v > t->range.hi))
        return eval_fail(S, "%s: BUG: value %lld outside the range claimed for a term (lower "
                            "bound %lld)", "symbolic", v, t->range.lo);
    S->astamp[id] = S->stamp;
    S->aval[id] = v;
    *out = v;
    return true;
}

static bool eval_expr(cute_symbolic *S, uint32_t e, const int64_t *values, int64_t *out)
{
    const expr *x = &S->exprs[e];
    int64_t sum = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const term *t = &S->terms[x->first + i];
        int64_t p = t->coef;
        for (uint32_t k = 0; k < t->deg; k++) {
            int64_t v;
            if (!eval_atom(S, S->ids[t->first + k], values, &v)) return false;
            if (__builtin_mul_overflow(p, v, &p))
                return eval_fail(S, "%s: 64-bit overflow (%lld * %lld)", "eval", p, v);
        }
        if (__builtin_add_overflow(sum, p, &sum))
            return eval_fail(S, "%s: 64-bit overflow (%lld + %lld)", "eval", sum, p);
    }
    *out = sum;
    return true;
}

/* memo arrays for every atom, and a fresh stamp (so earlier values are forgotten) */
static bool memo_ready(cute_symbolic *S)
{
    if (S->capmemo < S->natoms) {
        uint32_t nc = S->capatoms;
        int64_t *v = realloc(S->aval, (size_t)nc * sizeof *v);
        if (v) S->aval = v;
        uint32_t *st = v ? realloc(S->astamp, (size_t)nc * sizeof *st) : NULL;
        if (!st) return false;
        S->astamp = st;
        memset(st + S->capmemo, 0, (size_t)(nc - S->capmemo) * sizeof *st);
        S->capmemo = nc;
    }
    if (++S->stamp == 0) { /* wrapped: forget everything */
        memset(S->astamp, 0, (size_t)S->capmemo * sizeof *S->astamp);
        S->stamp = 1;
    }
    return true;
}

int cute_symbolic_eval(cute_symbolic *S, cute_int x, const int64_t *values, int64_t *out)
{
    S->err[0] = 0;
    if (cute_is_static(x)) {
        *out = x.v;
        return 0;
    }
    uint32_t e = from_int(S, x);
    if (e == BAD) {
        snprintf(S->err, sizeof S->err, "eval: %s", cute_is_underscore(x) ? "'_' has no value"
                                        : "a dynamic value that this backend did not make");
        return -1;
    }
    if (!memo_ready(S)) {
        snprintf(S->err, sizeof S->err, "eval: out of memory");
        return -1;
    }
    return eval_expr(S, e, values, out) ? 0 : -1;
}

const char *cute_symbolic_error(const cute_symbolic *S) { return S->err; }

cute_tuple cute_symbolic_substitute_tuple(cute_alg *c, cute_symbolic *S, const cute_tuple *t,
                                          const int64_t *values)
{
    if (c->failed || cute_tuple_is_poison(t)) return cute_tuple_poison();
    cute_tuple r = *t;
    for (int i = 0; i < t->nleaves; i++) {
        if (!cute_is_dynamic(t->leaf[i])) continue;
        int64_t v;
        if (cute_symbolic_eval(S, t->leaf[i], values, &v) != 0) {
            char d[256];
            cute_symbolic_describe(S, t->leaf[i], d, sizeof d);
            cute_alg_fail(c, "substitute %s: %s", d, S->err);
            return cute_tuple_poison();
        }
        r.leaf[i] = cute_i(v);
    }
    return r;
}

cute_layout cute_symbolic_substitute(cute_alg *c, cute_symbolic *S, const cute_layout *L,
                                     const int64_t *values)
{
    if (c->failed || cute_layout_is_poison(L)) return cute_layout_poison();
    cute_layout R = {cute_symbolic_substitute_tuple(c, S, &L->shape, values),
                     cute_symbolic_substitute_tuple(c, S, &L->stride, values)};
    return c->failed ? cute_layout_poison() : R;
}

/* --- describing ------------------------------------------------------------------- */


static void put_i(sink *s, int64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    put(s, tmp);
}

static void put_expr(cute_symbolic *S, sink *s, uint32_t e, int depth);

static void put_atom_natural(cute_symbolic *S, sink *s, const atom *t, int depth)
{
    static const char *infix[] = {
        [CUTE_IADD] = " + ", [CUTE_ISUB] = " - ", [CUTE_IMUL] = " * ", [CUTE_IDIV] = " / ",
        [CUTE_IMOD] = " % ", [CUTE_IXOR] = " ^ ", [CUTE_IAND] = " & ", [CUTE_ISHL] = " << ",
        [CUTE_ISHR] = " >> "};
    static const char *prefix[] = {[CUTE_ICEILDIV] = "ceil_div(", [CUTE_IMIN] = "min(",
                                   [CUTE_IMAX] = "max(", [CUTE_IABS] = "abs(",
                                   [CUTE_ISGN] = "sgn("};
    if (t->kind == ATOM_SYM) {
        put(s, S->syms[t->sym].name);
        return;
    }
    if (depth > 16) {
        put(s, "...");
        return;
    }
    bool unary = t->op == CUTE_IABS || t->op == CUTE_ISGN;
    if (t->op < sizeof prefix / sizeof prefix[0] && prefix[t->op]) {
        put(s, prefix[t->op]);
        put_expr(S, s, t->a, depth + 1);
        if (!unary) {
            put(s, ", ");
            put_expr(S, s, t->b, depth + 1);
        }
        put(s, ")");
        return;
    }
    put(s, "(");
    put_expr(S, s, t->a, depth + 1);
    put(s, t->op < sizeof infix / sizeof infix[0] && infix[t->op] ? infix[t->op] : " ? ");
    put_expr(S, s, t->b, depth + 1);
    put(s, ")");
}

/* one term without its sign; returns the number of factors printed */
static int put_term(cute_symbolic *S, sink *s, const term *tm, int depth)
{
    int64_t c = tm->coef < 0 ? -tm->coef : tm->coef;
    int nf = 0;
    for (uint32_t k = 0; k < tm->deg; k++) {
        const atom *t = &S->atoms[S->ids[tm->first + k]];
        if (nf++) put(s, "*");
        if (c % t->scale == 0) { /* the atom's divisor goes back into it: 16*M' is M */
            c /= t->scale;
            put_atom_natural(S, s, t, depth);
        } else {
            put(s, "(");
            put_atom_natural(S, s, t, depth);
            put(s, "/");
            put_i(s, t->scale);
            put(s, ")");
        }
    }
    if (c != 1 || nf == 0) {
        if (nf++) put(s, "*");
        put_i(s, c);
    }
    return nf;
}

static void put_expr(cute_symbolic *S, sink *s, uint32_t e, int depth)
{
    const expr *x = &S->exprs[e];
    if (x->n == 0) {
        put(s, "0");
        return;
    }
    /* print into a scratch sink first to know whether parentheses are needed */
    char tmp[1024];
    sink in = {tmp, sizeof tmp, 0};
    tmp[0] = 0;
    int factors = 0;
    /* non-constant terms first, the constant last: M*16 + 4 */
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < x->n; i++) {
            const term *tm = &S->terms[x->first + i];
            if ((tm->deg == 0) != (pass == 1)) continue;
            bool first = in.len == 0;
            if (!first) put(&in, tm->coef < 0 ? " - " : " + ");
            else if (tm->coef < 0) put(&in, "-");
            factors = put_term(S, &in, tm, depth);
        }
    bool wrap = x->n > 1 || factors > 1 || x->n == 0 || S->terms[x->first].coef < 0;
    if (x->n == 1 && S->terms[x->first].deg == 0) wrap = false; /* a plain number */
    if (wrap) put(s, "(");
    put(s, tmp);
    if (wrap) put(s, ")");
}

int cute_symbolic_describe(cute_symbolic *S, cute_int x, char *buf, size_t n)
{
    sink s = {buf, n, 0};
    if (n) buf[0] = 0;
    if (!cute_is_dynamic(x)) {
        char tmp[32];
        cute_int_str(x, tmp, sizeof tmp);
        put(&s, tmp);
        return (int)s.len;
    }
    uint32_t e = from_int(S, x);
    if (e == BAD) {
        put(&s, "<foreign>");
        return (int)s.len;
    }
    put_expr(S, &s, e, 0);
    return (int)s.len;
}

static int describe_leaf(void *user, cute_int x, char *buf, size_t n)
{
    return cute_symbolic_describe(user, x, buf, n);
}

int cute_symbolic_tuple_str(cute_symbolic *S, const cute_tuple *t, char *buf, size_t n)
{
    return cute_tuple_str_with(t, buf, n, describe_leaf, S);
}

int cute_symbolic_layout_str(cute_symbolic *S, const cute_layout *L, char *buf, size_t n)
{
    return cute_layout_str_with(L, buf, n, describe_leaf, S);
}

/* --- walking ---------------------------------------------------------------------- */

int cute_symbolic_nterms(cute_symbolic *S, cute_int x)
{
    uint32_t id = from_int(S, x);
    if (id == BAD) return -1;
    return (int)S->exprs[id].n;
}

bool cute_symbolic_get_term(cute_symbolic *S, cute_int x, int i, cute_symbolic_term *out)
{
    uint32_t id = from_int(S, x);
    if (id == BAD || i < 0 || (uint32_t)i >= S->exprs[id].n) return false;
    const term *t = &S->terms[S->exprs[id].first + (uint32_t)i];
    if (t->deg > CUTE_SYMBOLIC_MAX_DEG) return false;
    out->coef = t->coef;
    out->deg = (int)t->deg;
    for (uint32_t k = 0; k < t->deg; k++) out->atom[k] = S->ids[t->first + k];
    return true;
}

bool cute_symbolic_get_atom(cute_symbolic *S, uint32_t id, cute_symbolic_atom *out)
{
    if (id >= S->natoms) return false;
    const atom *a = &S->atoms[id];
    memset(out, 0, sizeof *out);
    out->scale = a->scale;
    out->lo = a->range.lo;
    out->hi = a->range.hi;
    if (a->kind == ATOM_SYM) {
        out->is_symbol = true;
        out->symbol = a->sym;
        return true;
    }
    out->op = (cute_int_op)a->op;
    out->a = to_int(S, a->a);
    out->b = to_int(S, a->b);
    return true;
}
