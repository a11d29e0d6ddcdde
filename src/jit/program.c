/* The launch program: the recipes of a compiled function (grids, blocks, shared bytes,
 * derived strides) as flat steps over the call's host values, compiled once from their
 * symbolic forms while the tracing context is alive, then run by each call into its own
 * frame.  Its evaluator is these few lines; the trace-time symbolic engine and its memo
 * are not used after cute_compile. */
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

static bool push_step(launch_prog *p, cute_ctx *c, lp_step s, int *out)
{
    if (p->nsteps == LP_MAX_STEPS)
        return cute_ctx_fail(c, "the launch recipes need more than %d steps", LP_MAX_STEPS);
    if (p->nsteps == p->cap) {
        int cap = p->cap ? 2 * p->cap : 32;
        lp_step *q = realloc(p->steps, (size_t)cap * sizeof *q);
        if (!q) return cute_ctx_fail(c, "out of memory");
        p->steps = q, p->cap = cap;
    }
    *out = p->nsteps;
    p->steps[p->nsteps++] = s;
    return true;
}

static bool op_step(launch_prog *p, cute_ctx *c, int op, int a, int b, int *out)
{
    return push_step(p, c, (lp_step){LP_OP, (uint8_t)op, a, b, 0}, out);
}

static bool const_step(launch_prog *p, cute_ctx *c, int64_t k, int *out)
{
    return push_step(p, c, (lp_step){LP_CONST, 0, 0, 0, k}, out);
}

static int slot_of(const cute_fn *f, int sym)
{
    for (int i = 0; i < f->nhsyms; i++)
        if (f->hsyms[i].sym == sym) return i;
    return -1;
}

static bool memo_find(const launch_prog *p, uint32_t id, int *out)
{
    for (int i = 0; i < p->nmemo; i++)
        if (p->memo_atom[i] == id) return *out = p->memo_step[i], true;
    return false;
}

static bool memo_add(launch_prog *p, cute_ctx *c, uint32_t id, int step)
{
    if (p->nmemo == p->capmemo) {
        int cap = p->capmemo ? 2 * p->capmemo : 16;
        uint32_t *a = realloc(p->memo_atom, (size_t)cap * sizeof *a);
        int *s = a ? realloc(p->memo_step, (size_t)cap * sizeof *s) : NULL;
        if (a) p->memo_atom = a;
        if (!s) return cute_ctx_fail(c, "out of memory");
        p->memo_step = s, p->capmemo = cap;
    }
    p->memo_atom[p->nmemo] = id, p->memo_step[p->nmemo++] = step;
    return true;
}

static bool atom_steps_new(launch_prog *p, cute_ctx *c, const cute_fn *f, uint32_t id, int *out);

/* atom = value / scale: a host value, or an operation that did not simplify; each atom's
 * steps are made once per program (atoms are hash-consed, so equal terms share an id) */
static bool atom_steps(launch_prog *p, cute_ctx *c, const cute_fn *f, uint32_t id, int *out)
{
    if (memo_find(p, id, out)) return true;
    return atom_steps_new(p, c, f, id, out) && memo_add(p, c, id, *out);
}

static bool atom_steps_new(launch_prog *p, cute_ctx *c, const cute_fn *f, uint32_t id, int *out)
{
    cute_symbolic_atom a;
    if (!cute_symbolic_get_atom(c->sym, id, &a))
        return cute_ctx_fail(c, "internal: a malformed launch recipe");
    int x, y = 0;
    if (a.is_symbol) {
        int slot = slot_of(f, a.symbol);
        const char *name = "?";
        cute_symbolic_symbol_info(c->sym, a.symbol, &name, NULL, NULL);
        if (slot < 0)
            return cute_ctx_fail(c, "a launch depends on '%s', which does not come from an "
                                    "argument", name);
        if (!push_step(p, c, (lp_step){LP_VALUE, 0, slot, 0, 0}, &x)) return false;
    } else {
        bool unary = a.op == CUTE_IABS || a.op == CUTE_ISGN;
        if (!lp_compile_int(p, c, f, a.a, &x) || (!unary && !lp_compile_int(p, c, f, a.b, &y)) ||
            !op_step(p, c, a.op, x, y, &x))
            return false;
    }
    if (a.scale == 1) return *out = x, true;
    return push_step(p, c, (lp_step){LP_EXACT, 0, x, 0, a.scale}, out);
}

/* x = sum of coef * atom * ... (symbolic.h's walk), each atom once per program */
bool lp_compile_int(launch_prog *p, cute_ctx *c, const cute_fn *f, cute_int x, int *step)
{
    if (cute_is_static(x)) return const_step(p, c, x.v, step);
    int n = cute_symbolic_nterms(c->sym, x);
    if (n < 0) return cute_ctx_fail(c, "a launch recipe holds a value this compile did not make");
    if (n == 0) return const_step(p, c, 0, step);
    int sum = -1;
    for (int i = 0; i < n; i++) {
        cute_symbolic_term t;
        int prod = -1, at;
        if (!cute_symbolic_get_term(c->sym, x, i, &t)) return cute_ctx_fail(c, "internal: a term");
        if ((t.coef != 1 || t.deg == 0) && !const_step(p, c, t.coef, &prod)) return false;
        for (int k = 0; k < t.deg; k++) {
            if (!atom_steps(p, c, f, t.atom[k], &at)) return false;
            if (prod < 0) prod = at;
            else if (!op_step(p, c, CUTE_IMUL, prod, at, &prod)) return false;
        }
        if (sum < 0) sum = prod;
        else if (!op_step(p, c, CUTE_IADD, sum, prod, &sum)) return false;
    }
    *step = sum;
    return true;
}

/* the steps made since the last root compute `what` (for messages) */
bool lp_close_root(launch_prog *p, const char *what, int line)
{
    if (p->nroots == p->caproots) {
        int cap = p->caproots ? 2 * p->caproots : 8;
        lp_root *r = realloc(p->roots, (size_t)cap * sizeof *r);
        char(*nm)[48] = r ? realloc(p->names, (size_t)cap * sizeof *nm) : NULL;
        if (r) p->roots = r;
        if (!nm) return false;
        p->names = nm, p->caproots = cap;
    }
    snprintf(p->names[p->nroots], sizeof p->names[0], "%s", what);
    p->roots[p->nroots++] = (lp_root){p->nsteps, line};
    return true;
}

/* the compile is over: only the steps and roots are kept */
void lp_done_compiling(launch_prog *p)
{
    free(p->memo_atom);
    free(p->memo_step);
    p->memo_atom = NULL, p->memo_step = NULL;
    p->nmemo = p->capmemo = 0;
}

void lp_free(launch_prog *p)
{
    lp_done_compiling(p);
    free(p->steps);
    free(p->roots);
    free(p->names);
    memset(p, 0, sizeof *p);
}

void lp_describe_failure(const launch_prog *p, int step, const char *why, char *buf, size_t n)
{
    int r = 0;
    while (r < p->nroots - 1 && p->roots[r].end <= step) r++;
    if (p->roots[r].line)
        snprintf(buf, n, "launch at line %d: %s cannot be evaluated: %s", p->roots[r].line,
                 p->names[r], why);
    else
        snprintf(buf, n, "%s cannot be evaluated: %s", p->names[r], why);
}

int lp_run(const launch_prog *p, const int64_t *values, int64_t *R, const char **why)
{
    for (int i = 0; i < p->nsteps; i++) {
        const lp_step *s = &p->steps[i];
        switch (s->kind) {
        case LP_CONST: R[i] = s->k; break;
        case LP_VALUE: R[i] = values[s->a]; break;
        case LP_OP:
            if (!cute_int_apply((cute_int_op)s->op, R[s->a], R[s->b], &R[i], why)) return i;
            break;
        case LP_EXACT:
            if (R[s->a] % s->k != 0) /* the symbolic engine promised it: a bug if not */
                return *why = "internal: an inexact division", i;
            R[i] = R[s->a] / s->k;
            break;
        }
    }
    return -1;
}
