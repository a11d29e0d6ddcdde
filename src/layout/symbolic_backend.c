/* The symbolic arithmetic backend (see symbolic.h): its symbols and the cute_arith vtable
 * that the algebra calls.  The other concepts live in symbolic_*.c (symbolic_internal.h). */
#include "symbolic_internal.h"

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
    if (!copy) return sym_out_of_memory(S), cute_i(0);
    strcpy(copy, name);
    uint32_t id;
    if (!sym_grow(S, (void **)&S->syms, &S->capsyms, (uint64_t)S->nsyms + 1, sizeof(symbol)) ||
        !sym_new_atom(S, &id)) {
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
    t->range = (ival){lb == CUTE_SYM_NO_BOUND ? NO_LO : sym_ceil_div_any(lb, div), NO_HI};
    t->hash = sym_mix(0x5e, id);
    return sym_to_int(S, sym_intern_atom(S, id, div));
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

/* the degree-0 term of the normal form */
static int64_t sym_constant(void *self, cute_int a)
{
    cute_symbolic_term t;
    int n = cute_symbolic_nterms(self, a);
    for (int i = 0; i < n; i++)
        if (cute_symbolic_get_term(self, a, i, &t) && t.deg == 0) return t.coef;
    return 0;
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
    S->arith.constant = sym_constant;
    uint64_t h = sym_mix(0x7a61, (uint64_t)(uintptr_t)S);
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
    ival r = {sy->lb == CUTE_SYM_NO_BOUND ? NO_LO : sym_ceil_div_any(sy->lb, sy->div),
              sy->ub == NO_HI ? NO_HI : sym_floor_div(sy->ub, sy->div)};
    t->range = sym_ival_meet(t->range, r);
    return true;
}

bool cute_symbolic_range(cute_symbolic *S, cute_int x, int64_t *lo, int64_t *hi)
{
    if (cute_is_static(x)) {
        *lo = *hi = x.v;
        return true;
    }
    uint32_t id = sym_from_int(S, x);
    if (id == BAD) return false;
    poly p;
    sym_load(S, id, &p);
    ival r = sym_poly_range(S, &p);
    *lo = r.lo, *hi = r.hi;
    return true;
}

int cute_symbolic_symbol_index(const cute_symbolic *S, cute_int x)
{
    uint32_t e = sym_from_int((cute_symbolic *)S, x);
    if (e == BAD || S->exprs[e].n != 1) return -1;
    const term *t = &S->terms[S->exprs[e].first];
    if (t->deg != 1) return -1;
    const atom *a = &S->atoms[S->ids[t->first]];
    return a->kind == ATOM_SYM && t->coef == a->scale ? a->sym : -1;
}
