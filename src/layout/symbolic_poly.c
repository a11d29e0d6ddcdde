/* The symbolic backend's normal form: polynomials (sums of int64 coefficients times
 * products of atoms), kept sorted, with exact arithmetic that refuses to overflow. */
#include "symbolic_internal.h"

/* --- small arithmetic ------------------------------------------------------------ */

int64_t sym_gcd64(int64_t a, int64_t b)
{
    uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x > INT64_MAX ? 1 : (int64_t)x; /* only |INT64_MIN| overflows; never a coef */
}

int64_t sym_floor_div(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

int64_t sym_ceil_div_any(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a > 0) ? q + 1 : q;
}

int sym_v2(int64_t x) /* largest p with 2^p | x; x != 0 */
{
    return __builtin_ctzll((unsigned long long)x);
}

/* --- polynomials ----------------------------------------------------------------- */

static int mono_cmp(const mono *a, const mono *b)
{
    if (a->deg != b->deg) return a->deg < b->deg ? -1 : 1;
    for (int i = 0; i < a->deg; i++)
        if (a->atom[i] != b->atom[i]) return a->atom[i] < b->atom[i] ? -1 : 1;
    return 0;
}

/* p += m; false on overflow or too many terms */
bool sym_poly_add_term(poly *p, const mono *m)
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

void sym_poly_const(poly *p, int64_t k)
{
    p->n = 0;
    if (k != 0) {
        p->n = 1;
        p->t[0].coef = k;
        p->t[0].deg = 0;
    }
}

bool sym_poly_is_const(const poly *p, int64_t *k)
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
bool sym_poly_add(poly *r, const poly *a, const poly *b, int sign)
{
    *r = *a;
    for (int i = 0; i < b->n; i++) {
        mono m = b->t[i];
        if (sign < 0) {
            if (m.coef == INT64_MIN) return false;
            m.coef = -m.coef;
        }
        if (!sym_poly_add_term(r, &m)) return false;
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

bool sym_poly_mul(poly *r, const poly *a, const poly *b)
{
    r->n = 0;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            mono m;
            if (!mono_mul(&m, &a->t[i], &b->t[j]) || !sym_poly_add_term(r, &m)) return false;
        }
    return true;
}

bool sym_poly_scale(poly *r, const poly *a, int64_t k)
{
    poly kp;
    sym_poly_const(&kp, k);
    return sym_poly_mul(r, a, &kp);
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
bool sym_poly_exact_div(poly *q, const poly *a, const poly *b)
{
    if (b->n == 0) return false;
    q->n = 0;
    if (b->n == 1) {
        for (int i = 0; i < a->n; i++) {
            mono m;
            if (!mono_div(&m, &a->t[i], &b->t[0]) || !sym_poly_add_term(q, &m)) return false;
        }
        return true;
    }
    if (a->n == 0) return true;
    mono m;
    if (!mono_div(&m, &a->t[a->n - 1], &b->t[b->n - 1])) return false;
    poly mp = {0}, prod;
    if (!sym_poly_add_term(&mp, &m) || !sym_poly_mul(&prod, b, &mp) || prod.n != a->n) return false;
    for (int i = 0; i < a->n; i++)
        if (prod.t[i].coef != a->t[i].coef || mono_cmp(&prod.t[i], &a->t[i]) != 0) return false;
    *q = mp;
    return true;
}

/* a == k*q + r with r the constant term: every other coefficient divisible by k (k > 0) */
bool sym_poly_split(poly *q, int64_t *r, const poly *a, int64_t k)
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
        if (!sym_poly_add_term(q, &m)) return false;
    }
    return true;
}

int64_t sym_poly_content(const poly *p, bool skip_const)
{
    int64_t g = 0;
    for (int i = 0; i < p->n; i++)
        if (!skip_const || p->t[i].deg > 0) g = sym_gcd64(g, p->t[i].coef);
    return g;
}
