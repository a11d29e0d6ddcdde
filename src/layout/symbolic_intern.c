/* The symbolic backend's hash-consing: each polynomial and each atom is stored once, so
 * equal terms have equal ids and equal values equal handles; a handle is a cute_int. */
#include "symbolic_internal.h"

/* --- storage ---------------------------------------------------------------------- */

bool sym_out_of_memory(cute_symbolic *S)
{
    if (!S->oom && S->alg) cute_alg_fail(S->alg, "symbolic arithmetic: out of memory");
    S->oom = true;
    return false;
}

bool sym_grow(cute_symbolic *S, void **p, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint64_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    if (nc > UINT32_MAX / 2) return sym_out_of_memory(S);
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q) return sym_out_of_memory(S);
    *p = q;
    *cap = (uint32_t)nc;
    return true;
}

uint64_t sym_mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* insert id into an open-addressing table of (id+1), growing it at half load */
bool sym_table_insert(cute_symbolic *S, uint32_t **tab, uint32_t *cap, uint32_t count,
                         uint32_t id, uint64_t (*hash_of)(cute_symbolic *, uint32_t))
{
    if ((uint64_t)(count + 1) * 2 > *cap) {
        uint32_t nc = *cap ? *cap * 2 : 256;
        uint32_t *nt = calloc(nc, sizeof *nt);
        if (!nt) return sym_out_of_memory(S);
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
uint64_t sym_atom_hash_of(cute_symbolic *S, uint32_t id) { return S->atoms[id].hash; }

/* --- interning ------------------------------------------------------------------- */

static uint64_t poly_hash(const poly *p)
{
    uint64_t h = 0x12345 + (uint64_t)p->n;
    for (int i = 0; i < p->n; i++) {
        h = sym_mix(h, (uint64_t)p->t[i].coef);
        h = sym_mix(h, (uint64_t)p->t[i].deg);
        for (int k = 0; k < p->t[i].deg; k++) h = sym_mix(h, p->t[i].atom[k]);
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

uint32_t sym_intern(cute_symbolic *S, const poly *p)
{
    if (S->oom) return BAD;
    uint64_t h = poly_hash(p);
    if (S->ecap) {
        for (uint32_t k = (uint32_t)h & (S->ecap - 1); S->etab[k]; k = (k + 1) & (S->ecap - 1))
            if (expr_is(S, S->etab[k] - 1, p, h)) return S->etab[k] - 1;
    }
    uint32_t natoms = 0;
    for (int i = 0; i < p->n; i++) natoms += (uint32_t)p->t[i].deg;
    if (!sym_grow(S, (void **)&S->exprs, &S->capexprs, (uint64_t)S->nexprs + 1, sizeof(expr)) ||
        !sym_grow(S, (void **)&S->terms, &S->capterms, (uint64_t)S->nterms + p->n, sizeof(term)) ||
        !sym_grow(S, (void **)&S->ids, &S->capids, (uint64_t)S->nids + natoms, sizeof(uint32_t)))
        return BAD;
    expr *e = &S->exprs[S->nexprs];
    e->first = S->nterms;
    e->n = (uint32_t)p->n;
    e->content = sym_poly_content(p, false);
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
    if (!sym_table_insert(S, &S->etab, &S->ecap, id, id, expr_hash_of)) return BAD;
    return id;
}

void sym_load(const cute_symbolic *S, uint32_t id, poly *p)
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

uint32_t sym_intern_const(cute_symbolic *S, int64_t k)
{
    poly p;
    sym_poly_const(&p, k);
    return sym_intern(S, &p);
}

/* k * atom */
uint32_t sym_intern_atom(cute_symbolic *S, uint32_t a, int64_t k)
{
    poly p = {0};
    mono m = {.coef = k, .deg = 1, .atom = {a}};
    sym_poly_add_term(&p, &m);
    return sym_intern(S, &p);
}

bool sym_new_atom(cute_symbolic *S, uint32_t *id)
{
    if (!sym_grow(S, (void **)&S->atoms, &S->capatoms, (uint64_t)S->natoms + 1, sizeof(atom)))
        return false;
    *id = S->natoms++;
    memset(&S->atoms[*id], 0, sizeof(atom));
    return true;
}

/* --- handles ---------------------------------------------------------------------- */

cute_int sym_to_int(cute_symbolic *S, uint32_t id)
{
    if (id == BAD) return cute_i(0);
    int64_t k;
    poly p;
    sym_load(S, id, &p);
    if (sym_poly_is_const(&p, &k)) return cute_i(k);
    return (cute_int){S->tag | (int64_t)id, S->exprs[id].content};
}

/* the expression of x (static ints are interned as constants); BAD if foreign */
uint32_t sym_from_int(cute_symbolic *S, cute_int x)
{
    if (cute_is_static(x)) return sym_intern_const(S, x.v);
    if (!cute_is_dynamic(x) || (x.v & ~(int64_t)0xffffffff) != S->tag) return BAD;
    uint32_t id = (uint32_t)(x.v & 0xffffffff);
    return id < S->nexprs ? id : BAD;
}

/* --- walking ---------------------------------------------------------------------- */

int cute_symbolic_nterms(cute_symbolic *S, cute_int x)
{
    uint32_t id = sym_from_int(S, x);
    if (id == BAD) return -1;
    return (int)S->exprs[id].n;
}

bool cute_symbolic_get_term(cute_symbolic *S, cute_int x, int i, cute_symbolic_term *out)
{
    uint32_t id = sym_from_int(S, x);
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
    out->a = sym_to_int(S, a->a);
    out->b = sym_to_int(S, a->b);
    return true;
}
