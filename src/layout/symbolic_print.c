/* The symbolic backend's readable form: "(M*16)", "ceil_div(M, 16)". */
#include "symbolic_internal.h"
#include "sink.h"

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
    uint32_t e = sym_from_int(S, x);
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
