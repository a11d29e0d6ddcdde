/* The symbolic backend's evaluation: values substituted for the symbols. */
#include "symbolic_internal.h"

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
    uint32_t e = sym_from_int(S, x);
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
