/* The symbolic backend's ranges and proofs: interval bounds of atoms and polynomials, and
 * the facts decide() proves from them and from the normal form. */
#include "symbolic_internal.h"

/* --- intervals -------------------------------------------------------------------- */

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

ival sym_ival_meet(ival a, ival b)
{
    ival r = {a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
    return r.lo > r.hi ? a : r; /* contradictory facts: keep one, never claim emptiness */
}

/* the range of x/scale for x in r, x a multiple of scale */
ival sym_ival_div_exact(ival r, int64_t scale)
{
    if (scale == 1) return r;
    ival q = {r.lo == NO_LO ? NO_LO : sym_ceil_div_any(r.lo, scale),
              r.hi == NO_HI ? NO_HI : sym_floor_div(r.hi, scale)};
    return q.lo > q.hi ? IVAL_ANY : q;
}

static bool excludes_zero(ival r) { return r.lo > 0 || r.hi < 0; }

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
ival sym_poly_range(const cute_symbolic *S, const poly *p)
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
    if (!sym_poly_exact_div(&q, &v, &(poly){1, {g}})) return r;
    ival f = ival_add(ival_point(c0), ival_mul(mono_range(S, &g), poly_range_plain(S, &q)));
    return sym_ival_meet(r, f);
}

/* p - q >= k, provably */
bool sym_prove_ge(const cute_symbolic *S, const poly *p, const poly *q, int64_t k)
{
    poly d;
    if (!sym_poly_add(&d, p, q, -1)) return false;
    ival r = sym_poly_range(S, &d);
    return r.lo != NO_LO && r.lo >= k;
}

bool sym_prove_nonneg(const cute_symbolic *S, const poly *p)
{
    ival r = sym_poly_range(S, p);
    return r.lo != NO_LO && r.lo >= 0;
}

bool sym_prove_nonpos(const cute_symbolic *S, const poly *p)
{
    ival r = sym_poly_range(S, p);
    return r.hi != NO_HI && r.hi <= 0;
}

/* TRUE: p != 0 for every valid value; FALSE: p is the zero polynomial; else UNKNOWN */
static cute_truth poly_nonzero(const cute_symbolic *S, const poly *p)
{
    if (p->n == 0) return CUTE_FALSE;
    int64_t k, g = sym_poly_content(p, true);
    if (sym_poly_is_const(p, &k)) return CUTE_TRUE;
    /* g divides every non-constant term: p == 0 needs g | constant */
    k = p->t[0].deg == 0 ? p->t[0].coef : 0;
    if (g > 1 && k % g != 0) return CUTE_TRUE;
    if (excludes_zero(sym_poly_range(S, p))) return CUTE_TRUE;
    mono m;
    common_atoms(p, &m);
    if (m.deg > 0) {
        for (int i = 0; i < m.deg; i++)
            if (!excludes_zero(S->atoms[m.atom[i]].range)) return CUTE_UNKNOWN;
        poly q;
        if (sym_poly_exact_div(&q, p, &(poly){1, {m}}) && poly_nonzero(S, &q) == CUTE_TRUE)
            return CUTE_TRUE;
    }
    return CUTE_UNKNOWN;
}

static int64_t max_abs(ival r) /* NO_HI when unbounded */
{
    if (r.lo == NO_LO || r.hi == NO_HI || r.hi == INT64_MIN) return NO_HI;
    int64_t a = r.lo < 0 ? -r.lo : r.lo, b = r.hi < 0 ? -r.hi : r.hi;
    return a > b ? a : b;
}

/* bounds of op(a, b) assuming the op's own precondition holds */
ival sym_op_range(const cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    poly pa, pb;
    sym_load(S, a, &pa);
    sym_load(S, b, &pb);
    ival ra = sym_poly_range(S, &pa), rb = sym_poly_range(S, &pb), r = IVAL_ANY;
    int64_t k;
    switch (op) {
    case CUTE_IADD: return ival_add(ra, rb);
    case CUTE_ISUB: return ival_add(ra, ival_mul(rb, ival_point(-1)));
    case CUTE_IMUL: return ival_mul(ra, rb);
    case CUTE_IDIV:
        if (sym_poly_is_const(&pb, &k) && k > 0)
            return (ival){ra.lo == NO_LO ? NO_LO : ra.lo / k, ra.hi == NO_HI ? NO_HI : ra.hi / k};
        if (ra.lo >= 0 && rb.lo >= 1) return (ival){0, ra.hi};
        return IVAL_ANY;
    case CUTE_ICEILDIV: /* a >= 0, b > 0: 0 <= ceil(a/b) <= a */
        r = (ival){ra.lo >= 1 ? 1 : 0, ra.hi};
        if (sym_poly_is_const(&pb, &k) && k > 0 && ra.hi != NO_HI)
            r.hi = sym_ceil_div_any(ra.hi, k);
        return r;
    case CUTE_IMOD: {
        int64_t m = max_abs(rb); /* |a % b| <= |b| - 1 */
        if (ra.lo >= 0) return (ival){0, m == NO_HI || ra.hi < m - 1 ? ra.hi : m - 1};
        if (ra.hi != NO_HI && ra.hi <= 0)
            return (ival){m == NO_HI || ra.lo > 1 - m ? ra.lo : 1 - m, 0};
        if (m != NO_HI) return (ival){1 - m, m - 1};
        return IVAL_ANY;
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
    case CUTE_IXOR: return ra.lo >= 0 && rb.lo >= 0 ? (ival){0, NO_HI} : IVAL_ANY;
    case CUTE_IAND:
        if (ra.lo >= 0 && rb.lo >= 0) return (ival){0, ra.hi < rb.hi ? ra.hi : rb.hi};
        if (ra.lo >= 0) return (ival){0, ra.hi};
        if (rb.lo >= 0) return (ival){0, rb.hi};
        return IVAL_ANY;
    case CUTE_ISHL: return ra.lo >= 0 ? (ival){ra.lo, NO_HI} : IVAL_ANY;
    case CUTE_ISHR:
        if (ra.lo >= 0) return (ival){0, ra.hi};
        if (ra.hi != NO_HI && ra.hi < 0) return (ival){ra.lo, -1};
        return ra;
    }
    return IVAL_ANY;
}

cute_truth sym_decide(void *self, cute_cmp cmp, cute_int a, cute_int b)
{
    cute_symbolic *S = self;
    uint32_t ea = sym_from_int(S, a), eb = sym_from_int(S, b);
    if (ea == BAD || eb == BAD) return CUTE_UNKNOWN;
    poly pa, pb, d, q;
    sym_load(S, ea, &pa);
    sym_load(S, eb, &pb);
    int64_t k;
    ival r;
    switch (cmp) {
    case CUTE_CMP_EQ:
        if (ea == eb) return CUTE_TRUE;
        if (!sym_poly_add(&d, &pa, &pb, -1)) return CUTE_UNKNOWN;
        return poly_nonzero(S, &d) == CUTE_TRUE ? CUTE_FALSE : CUTE_UNKNOWN;
    case CUTE_CMP_LT:
        if (!sym_poly_add(&d, &pb, &pa, -1)) return CUTE_UNKNOWN;
        r = sym_poly_range(S, &d);
        if (r.lo != NO_LO && r.lo >= 1) return CUTE_TRUE;
        if (r.hi != NO_HI && r.hi <= 0) return CUTE_FALSE;
        return CUTE_UNKNOWN;
    case CUTE_CMP_DIVIDES: {
        cute_truth nz = poly_nonzero(S, &pa);
        if (nz == CUTE_FALSE) return CUTE_FALSE; /* 0 divides nothing */
        if (sym_poly_exact_div(&q, &pb, &pa)) return nz == CUTE_TRUE ? CUTE_TRUE : CUTE_UNKNOWN;
        if (sym_poly_is_const(&pa, &k) && k != INT64_MIN) {
            int64_t K = k < 0 ? -k : k, rem;
            if (sym_poly_split(&q, &rem, &pb, K)) return rem % K == 0 ? CUTE_TRUE : CUTE_FALSE;
        }
        if (sym_poly_is_const(&pb, &k) && k != 0) {
            /* a | b implies content(a) | b and |a| <= |b| */
            int64_t g = sym_poly_content(&pa, false);
            if (g > 1 && k % g != 0) return CUTE_FALSE;
            ival ra = sym_poly_range(S, &pa);
            int64_t K = k < 0 ? -k : k;
            if ((ra.lo != NO_LO && ra.lo > K) || (ra.hi != NO_HI && ra.hi < -K))
                return CUTE_FALSE;
        }
        return CUTE_UNKNOWN;
    }
    }
    return CUTE_UNKNOWN;
}
