/* The symbolic backend's operations: each result in the normal form where an exact
 * simplification applies, else an opaque atom with a known divisor and range. */
#include "symbolic_internal.h"

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
    case CUTE_IMAX: return sym_gcd64(ca, cb) ? sym_gcd64(ca, cb) : 1;
    case CUTE_IMUL: return __builtin_mul_overflow(ca, cb, &r) || r <= 0 ? 1 : r;
    case CUTE_IABS: return ca ? ca : 1;
    case CUTE_IXOR:
    case CUTE_IAND: {
        if (!ca || !cb) return 1; /* simplified before; be safe */
        int pa = sym_v2(ca), pb = sym_v2(cb), p = op == CUTE_IXOR ? (pa < pb ? pa : pb)
                                                           : (pa > pb ? pa : pb);
        return p > 62 ? 1 : (int64_t)1 << p;
    }
    default: return 1;
    }
}

/* op(a, b) as an atom, times the divisor known for it; a constant if its range is a point */
static uint32_t opaque(cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    if (commutative(op) && a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint64_t h = sym_mix(sym_mix(sym_mix(0x0badcafe, (uint64_t)op), a), b);
    if (S->acap) {
        for (uint32_t k = (uint32_t)h & (S->acap - 1); S->atab[k]; k = (k + 1) & (S->acap - 1)) {
            const atom *t = &S->atoms[S->atab[k] - 1];
            if (t->hash == h && t->kind == ATOM_OP && t->op == op && t->a == a && t->b == b)
                return sym_intern_atom(S, S->atab[k] - 1, t->scale);
        }
    }
    int64_t scale = op_scale(S, op, a, b);
    ival r = sym_op_range(S, op, a, b);
    r = sym_ival_div_exact(r.lo > r.hi ? IVAL_ANY : r, scale);
    if (r.lo != NO_LO && r.hi != NO_HI && r.lo == r.hi) {
        int64_t v;
        if (!__builtin_mul_overflow(r.lo, scale, &v)) return sym_intern_const(S, v);
    }
    uint32_t id;
    if (!sym_new_atom(S, &id)) return BAD;
    atom *t = &S->atoms[id];
    t->kind = ATOM_OP;
    t->op = (uint8_t)op;
    t->a = a;
    t->b = b;
    t->scale = scale;
    t->range = r;
    t->hash = h;
    if (!sym_table_insert(S, &S->atab, &S->acap, id, id, sym_atom_hash_of)) return BAD;
    return sym_intern_atom(S, id, scale);
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
    return ok ? sym_intern(S, r) : opaque(S, op, a, b);
}

static uint32_t compute_div(cute_symbolic *S, int op, uint32_t a, uint32_t b, const poly *pa,
                            const poly *pb)
{
    poly q, t;
    int64_t k, r;
    bool kconst = sym_poly_is_const(pb, &k);
    if (kconst && k == 0) return fail_compute(S, op, a, b, "division by zero");
    if (op == CUTE_ICEILDIV && kconst && k < 0)
        return fail_compute(S, op, a, b, "ceil_div by a negative number");
    if (sym_poly_exact_div(&q, pa, pb)) return sym_intern(S, &q);
    if (kconst && k != INT64_MIN) {
        int64_t K = k < 0 ? -k : k;
        if (sym_poly_split(&q, &r, pa, K)) {
            /* a = K*q + r: floor(a/K) = q + floor(r/K), ceil likewise */
            int64_t add;
            bool ok = true;
            if (op == CUTE_ICEILDIV)
                add = sym_ceil_div_any(r, K);
            else if (sym_prove_nonneg(S, pa))
                add = sym_floor_div(r, K); /* truncation is floor here */
            else if (sym_prove_nonpos(S, pa))
                add = sym_ceil_div_any(r, K);
            else
                ok = false;
            if (ok) {
                poly addp;
                sym_poly_const(&addp, add);
                if (sym_poly_add(&t, &q, &addp, 1)) {
                    if (k < 0 && !sym_poly_scale(&q, &t, -1)) return opaque(S, op, a, b);
                    return sym_intern(S, k < 0 ? &q : &t);
                }
            }
        }
    }
    if (op == CUTE_IDIV && sym_prove_nonneg(S, pa) && sym_prove_ge(S, pb, pa, 1))
        return sym_intern_const(S, 0); /* 0 <= a < b */
    if (op == CUTE_ICEILDIV && sym_prove_ge(S, pa, &(poly){0}, 1) && sym_prove_ge(S, pb, pa, 0))
        return sym_intern_const(S, 1); /* 1 <= a <= b */
    return opaque(S, op, a, b);
}

static uint32_t compute_mod(cute_symbolic *S, uint32_t a, uint32_t b, const poly *pa,
                            const poly *pb)
{
    poly q;
    int64_t k, r;
    if (sym_poly_is_const(pb, &k) && k == 0)
        return fail_compute(S, CUTE_IMOD, a, b, "remainder of a division by zero");
    if (sym_poly_exact_div(&q, pa, pb)) return sym_intern_const(S, 0);
    bool nonneg = sym_prove_nonneg(S, pa);
    if (nonneg && sym_poly_is_const(pb, &k) && k != INT64_MIN) {
        int64_t K = k < 0 ? -k : k;
        if (sym_poly_split(&q, &r, pa, K)) return sym_intern_const(S, ((r % K) + K) % K);
    }
    if (nonneg && sym_prove_ge(S, pb, pa, 1)) return a; /* 0 <= a < b */
    return opaque(S, CUTE_IMOD, a, b);
}

static uint32_t compute_expr(cute_symbolic *S, int op, uint32_t a, uint32_t b)
{
    poly pa, pb, r;
    sym_load(S, a, &pa);
    sym_load(S, b, &pb);
    int64_t k;
    switch (op) {
    case CUTE_IADD: return poly_or_opaque(S, sym_poly_add(&r, &pa, &pb, 1), &r, op, a, b);
    case CUTE_ISUB: return poly_or_opaque(S, sym_poly_add(&r, &pa, &pb, -1), &r, op, a, b);
    case CUTE_IMUL: return poly_or_opaque(S, sym_poly_mul(&r, &pa, &pb), &r, op, a, b);
    case CUTE_IDIV:
    case CUTE_ICEILDIV: return compute_div(S, op, a, b, &pa, &pb);
    case CUTE_IMOD: return compute_mod(S, a, b, &pa, &pb);
    case CUTE_IMIN:
    case CUTE_IMAX:
        if (a == b) return a;
        if (sym_prove_ge(S, &pb, &pa, 0)) return op == CUTE_IMIN ? a : b;
        if (sym_prove_ge(S, &pa, &pb, 0)) return op == CUTE_IMIN ? b : a;
        return opaque(S, op, a, b);
    case CUTE_IABS:
        if (sym_prove_nonneg(S, &pa)) return a;
        if (sym_prove_nonpos(S, &pa))
            return poly_or_opaque(S, sym_poly_scale(&r, &pa, -1), &r, op, a, b);
        return opaque(S, op, a, sym_intern_const(S, 0));
    case CUTE_ISGN:
        if (pa.n == 0) return sym_intern_const(S, 0);
        return opaque(S, op, a, sym_intern_const(S, 0)); /* a point range folds */
    case CUTE_IXOR:
        if (pa.n == 0) return b;
        if (pb.n == 0) return a;
        if (a == b) return sym_intern_const(S, 0);
        return opaque(S, op, a, b);
    case CUTE_IAND:
        if (pa.n == 0 || pb.n == 0) return sym_intern_const(S, 0);
        if (a == b) return a;
        return opaque(S, op, a, b);
    case CUTE_ISHL:
        if (sym_poly_is_const(&pb, &k)) {
            if (k < 0 || k > 62) return fail_compute(S, op, a, b, "shift out of range");
            return poly_or_opaque(S, sym_poly_scale(&r, &pa, (int64_t)1 << k), &r, op, a, b);
        }
        return opaque(S, op, a, b);
    case CUTE_ISHR:
        if (sym_poly_is_const(&pb, &k)) {
            if (k < 0 || k > 63) return fail_compute(S, op, a, b, "shift out of range");
            if (k == 0) return a;
            if (k < 63) {
                int64_t K = (int64_t)1 << k, rem;
                poly q, t, addp;
                if (sym_poly_split(&q, &rem, &pa, K)) { /* floor((K*q + r)/K) = q + floor(r/K) */
                    sym_poly_const(&addp, sym_floor_div(rem, K));
                    if (sym_poly_add(&t, &q, &addp, 1)) return sym_intern(S, &t);
                }
            }
        }
        return opaque(S, op, a, b);
    }
    return fail_compute(S, op, a, b, "unknown operation");
}

cute_int sym_compute(void *self, cute_int_op op, cute_int a, cute_int b)
{
    cute_symbolic *S = self;
    bool unary = op == CUTE_IABS || op == CUTE_ISGN;
    uint32_t ea = sym_from_int(S, a), eb = unary ? sym_intern_const(S, 0) : sym_from_int(S, b);
    if (ea == BAD || eb == BAD) {
        if (S->alg && !S->oom)
            cute_alg_fail(S->alg, "symbolic arithmetic: a dynamic value that this backend did "
                                  "not make");
        return cute_i(0);
    }
    return sym_to_int(S, compute_expr(S, (int)op, ea, eb));
}
