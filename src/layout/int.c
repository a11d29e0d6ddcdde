/* Static folding and dynamic dispatch for the algebra's integers; the error state. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cutec/int.h"

void cute_alg_init(cute_alg *c, const cute_arith *arith)
{
    memset(c, 0, sizeof *c);
    c->arith = arith;
}

void cute_alg_clear(cute_alg *c)
{
    c->failed = false;
    c->error[0] = 0;
}

void cute_alg_trial_begin(cute_alg *c, cute_alg_trial *t)
{
    t->undecided = c->undecided;
    t->assumed = c->assumed;
}

bool cute_alg_trial_end(cute_alg *c, const cute_alg_trial *t)
{
    bool clean = !c->failed && c->assumed == t->assumed;
    c->undecided = t->undecided;
    c->assumed = t->assumed;
    cute_alg_clear(c);
    return clean;
}

bool cute_alg_fail(cute_alg *c, const char *fmt, ...)
{
    if (c->failed) return false; /* the first error is the one that explains */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    c->failed = true;
    if (c->on_error) c->on_error(c->user, c->error);
    return false;
}

bool cute_alg_fail_form(cute_alg *c, bool dynamic, const char *fmt, ...)
{
    char msg[sizeof c->error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (dynamic && c->undecided > 0)
        return cute_alg_fail(c, "cannot decide at trace time (%u earlier choices were made "
                                "without proof, so this dynamic form may not be the launch-time "
                                "one): %s", c->undecided, msg);
    return cute_alg_fail(c, "%s", msg);
}

cute_int cute_int_dynamic(cute_alg *c, int64_t div, const char *name)
{
    if (c->failed) return cute_i(0);
    if (!c->arith) {
        cute_alg_fail(c, "dynamic integer '%s': this context has no arithmetic backend for "
                         "dynamic values (only static integers)", name ? name : "?");
        return cute_i(0);
    }
    if (div < 1) div = 1;
    return c->arith->make(c->arith->self, div, name);
}

const char *cute_int_op_name(cute_int_op op)
{
    static const char *names[] = {"+", "-", "*", "/", "ceil_div", "%", "min", "max", "abs",
                                  "sgn", "^", "&", "<<", ">>"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?op";
}

static cute_int fold_fail(cute_alg *c, cute_int_op op, int64_t a, int64_t b, const char *why)
{
    cute_alg_fail(c, "integer arithmetic: %lld %s %lld: %s", (long long)a, cute_int_op_name(op),
                  (long long)b, why);
    return cute_i(0);
}

bool cute_int_apply(cute_int_op op, int64_t a, int64_t b, int64_t *out, const char **why)
{
    *why = "overflows 64 bits";
    switch (op) {
    case CUTE_IADD: return !__builtin_add_overflow(a, b, out);
    case CUTE_ISUB: return !__builtin_sub_overflow(a, b, out);
    case CUTE_IMUL: return !__builtin_mul_overflow(a, b, out);
    case CUTE_IDIV:
    case CUTE_IMOD:
        if (b == 0) return *why = "division by zero", false;
        if (a == INT64_MIN && b == -1) return false;
        return *out = op == CUTE_IDIV ? a / b : a % b, true;
    case CUTE_ICEILDIV:
        if (b <= 0 || a < 0) return *why = "needs a >= 0 and b > 0", false;
        return *out = a / b + (a % b != 0), true;
    case CUTE_IMIN: return *out = a < b ? a : b, true;
    case CUTE_IMAX: return *out = a > b ? a : b, true;
    case CUTE_IABS: return a != INT64_MIN && (*out = a < 0 ? -a : a, true);
    case CUTE_ISGN: return *out = (a > 0) - (a < 0), true;
    case CUTE_IXOR: return *out = a ^ b, true;
    case CUTE_IAND: return *out = a & b, true;
    case CUTE_ISHL:
        if (b < 0 || b > 62 || a < 0 || (a >> (62 - b)) != 0) return *why = "shift out of range", false;
        return *out = a << b, true;
    case CUTE_ISHR:
        if (b < 0 || b > 63) return *why = "shift out of range", false;
        return *out = a >> b, true;
    }
    return *why = "unknown operation", false;
}

static cute_int fold(cute_alg *c, cute_int_op op, int64_t a, int64_t b)
{
    int64_t r;
    const char *why;
    return cute_int_apply(op, a, b, &r, &why) ? cute_i(r) : fold_fail(c, op, a, b, why);
}

/* Identities that hold for any value, so that x*1, x+0, x/1 stay x without a backend call. */
static bool trivial(cute_int_op op, cute_int a, cute_int b, cute_int *out)
{
    bool bs = cute_is_static(b), as = cute_is_static(a);
    if ((op == CUTE_IMUL || op == CUTE_IDIV || op == CUTE_ICEILDIV) && bs && b.v == 1) {
        *out = a;
        return true;
    }
    if (op == CUTE_IMUL && as && a.v == 1) {
        *out = b;
        return true;
    }
    if (op == CUTE_IMUL && ((as && a.v == 0) || (bs && b.v == 0))) {
        *out = cute_i(0);
        return true;
    }
    if ((op == CUTE_IADD || op == CUTE_ISUB) && bs && b.v == 0) {
        *out = a;
        return true;
    }
    if (op == CUTE_IADD && as && a.v == 0) {
        *out = b;
        return true;
    }
    return false;
}

cute_int cute_int_op2(cute_alg *c, cute_int_op op, cute_int a, cute_int b)
{
    if (c->failed) return cute_i(0);
    bool unary = op == CUTE_IABS || op == CUTE_ISGN;
    if (cute_is_underscore(a) || (!unary && cute_is_underscore(b))) {
        cute_alg_fail(c, "integer arithmetic: '_' used as a number in '%s'", cute_int_op_name(op));
        return cute_i(0);
    }
    if (cute_is_static(a) && (unary || cute_is_static(b))) return fold(c, op, a.v, b.v);
    cute_int r;
    if (trivial(op, a, b, &r)) return r;
    if (!c->arith) {
        cute_alg_fail(c, "integer arithmetic '%s' on a dynamic value without a backend",
                      cute_int_op_name(op));
        return cute_i(0);
    }
    return c->arith->compute(c->arith->self, op, a, b);
}

int64_t cute_int_constant_term(cute_alg *c, cute_int x)
{
    if (cute_is_static(x)) return x.v;
    if (c->failed || cute_is_underscore(x) || !c->arith || !c->arith->constant) return 0;
    return c->arith->constant(c->arith->self, x);
}

cute_truth cute_int_cmp(cute_alg *c, cute_cmp cmp, cute_int a, cute_int b)
{
    if (cute_is_underscore(a) || cute_is_underscore(b)) return CUTE_UNKNOWN;
    if (cute_is_static(a) && cute_is_static(b)) {
        switch (cmp) {
        case CUTE_CMP_EQ: return a.v == b.v ? CUTE_TRUE : CUTE_FALSE;
        case CUTE_CMP_LT: return a.v < b.v ? CUTE_TRUE : CUTE_FALSE;
        case CUTE_CMP_DIVIDES:
            if (a.v == 0) return CUTE_FALSE;
            if (a.v == -1) return CUTE_TRUE;
            return b.v % a.v == 0 ? CUTE_TRUE : CUTE_FALSE;
        }
    }
    /* facts that follow from divisibility alone */
    if (cmp == CUTE_CMP_DIVIDES && cute_is_static(a) && a.v != 0 && cute_is_dynamic(b) &&
        b.div % a.v == 0)
        return CUTE_TRUE;
    if (cmp == CUTE_CMP_DIVIDES && cute_is_static(a) && (a.v == 1 || a.v == -1))
        return CUTE_TRUE;
    if (cmp == CUTE_CMP_EQ && cute_is_static(a) && cute_is_dynamic(b) && b.div > 1 &&
        a.v % b.div != 0)
        return CUTE_FALSE;
    if (cmp == CUTE_CMP_EQ && cute_is_static(b) && cute_is_dynamic(a) && a.div > 1 &&
        b.v % a.div != 0)
        return CUTE_FALSE;
    if (!c->arith) return CUTE_UNKNOWN;
    return c->arith->decide(c->arith->self, cmp, a, b);
}

bool cute_decide_or(cute_alg *c, cute_truth t, bool otherwise)
{
    if (t == CUTE_UNKNOWN) {
        c->undecided++;
        return otherwise;
    }
    return t == CUTE_TRUE;
}

bool cute_assume(cute_alg *c, cute_truth t)
{
    c->assumed += t == CUTE_UNKNOWN;
    return t != CUTE_FALSE;
}

bool cute_decide_required(cute_alg *c, cute_truth t, const char *op, const char *what)
{
    if (t == CUTE_UNKNOWN) {
        cute_alg_fail(c, "%s: cannot decide at trace time whether %s (a static value is "
                         "required here)", op, what);
        return false;
    }
    return t == CUTE_TRUE;
}

int cute_int_str(cute_int x, char *buf, size_t n)
{
    if (cute_is_underscore(x)) return snprintf(buf, n, "_");
    if (cute_is_static(x)) return snprintf(buf, n, "%lld", (long long)x.v);
    if (x.div == 1) return snprintf(buf, n, "?");
    return snprintf(buf, n, "?{div=%lld}", (long long)x.div);
}
