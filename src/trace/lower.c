/* Lowering index integers to IR: a dynamic cute_int is an exact expression over symbols
 * bound to IR values; it is emitted when used, once per open scope (a memo), in 64 bits. */
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"

static uint32_t memo_slot(int64_t key, uint32_t cap)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

static cute_vreg memo_get(cute_ctx *c, int64_t key)
{
    if (!c->capmemo) return 0;
    for (uint32_t k = memo_slot(key, c->capmemo);; k = (k + 1) & (c->capmemo - 1)) {
        memo_entry *e = &c->memo[k];
        if (!e->reg) return 0;
        if (e->key == key && scope_open(c, e->scope)) return e->reg;
    }
}

static void memo_put(cute_ctx *c, int64_t key, cute_vreg reg)
{
    if (2 * (c->nmemo + 1) > c->capmemo) { /* grow and rehash, dropping dead scopes */
        uint32_t cap = c->capmemo ? c->capmemo * 2 : 256;
        memo_entry *old = c->memo, *m = calloc(cap, sizeof *m);
        if (!m) return; /* the memo is an optimisation: just don't remember */
        uint32_t oldcap = c->capmemo;
        c->memo = m, c->capmemo = cap, c->nmemo = 0;
        for (uint32_t i = 0; i < oldcap; i++)
            if (old[i].reg && scope_open(c, old[i].scope)) memo_put(c, old[i].key, old[i].reg);
        free(old);
    }
    uint32_t k = memo_slot(key, c->capmemo);
    while (c->memo[k].reg) k = (k + 1) & (c->capmemo - 1);
    c->memo[k] = (memo_entry){key, reg, c->scopes[c->depth].id};
    c->nmemo++;
}

static cute_vreg i64_const(cute_ctx *c, int64_t v) { return cute_ir_const_int(&c->b, CUTE_I64, v); }

static cute_vreg bin(cute_ctx *c, cute_op op, cute_vreg a, cute_vreg b)
{
    return cute_ir_op(&c->b, op, cute_type_of(CUTE_I64), a, b, 0);
}

static cute_vreg lower(cute_ctx *c, cute_int x);

/* divide an exact multiple by a positive constant */
static cute_vreg exact_div(cute_ctx *c, cute_vreg v, int64_t scale)
{
    if (scale == 1) return v;
    return bin(c, CUTE_OP_DIV, v, i64_const(c, scale));
}

static cute_vreg lower_atom(cute_ctx *c, uint32_t id)
{
    cute_symbolic_atom a;
    if (!cute_symbolic_get_atom(c->sym, id, &a)) {
        cute_ctx_fail(c, "internal: a malformed index expression");
        return 0;
    }
    if (a.is_symbol) {
        if ((uint32_t)a.symbol >= c->nbind || !c->bind[a.symbol].reg) {
            const char *name = "?";
            int64_t div, lb;
            cute_symbolic_symbol_info(c->sym, a.symbol, &name, &div, &lb);
            cute_ctx_fail(c, "the dynamic value '%s' has no value in this kernel (it belongs to "
                             "another kernel or to the host side)", name);
            return 0;
        }
        if (!scope_open(c, c->bind[a.symbol].scope)) {
            const char *name = "?";
            int64_t div, lb;
            cute_symbolic_symbol_info(c->sym, a.symbol, &name, &div, &lb);
            cute_ctx_fail(c, "the value '%s' was defined inside a loop or if body that has "
                             "ended: it cannot be used here", name);
            return 0;
        }
        return exact_div(c, c->bind[a.symbol].reg, a.scale);
    }
    cute_vreg x = lower(c, a.a), y = 0, r = 0;
    bool binary = a.op != CUTE_IABS && a.op != CUTE_ISGN;
    if (binary) y = lower(c, a.b);
    if (c->alg.failed) return 0;
    switch (a.op) {
    case CUTE_IADD: r = bin(c, CUTE_OP_ADD, x, y); break;
    case CUTE_ISUB: r = bin(c, CUTE_OP_SUB, x, y); break;
    case CUTE_IMUL: r = bin(c, CUTE_OP_MUL, x, y); break;
    case CUTE_IDIV: r = bin(c, CUTE_OP_DIV, x, y); break;
    case CUTE_IMOD: r = bin(c, CUTE_OP_REM, x, y); break;
    case CUTE_IMIN: r = bin(c, CUTE_OP_MIN, x, y); break;
    case CUTE_IMAX: r = bin(c, CUTE_OP_MAX, x, y); break;
    case CUTE_IXOR: r = bin(c, CUTE_OP_XOR, x, y); break;
    case CUTE_IAND: r = bin(c, CUTE_OP_AND, x, y); break;
    case CUTE_ISHL: r = bin(c, CUTE_OP_SHL, x, y); break;
    case CUTE_ISHR: r = bin(c, CUTE_OP_SHR, x, y); break;
    case CUTE_ICEILDIV: /* a >= 0, b > 0 */
        r = bin(c, CUTE_OP_DIV, bin(c, CUTE_OP_SUB, bin(c, CUTE_OP_ADD, x, y), i64_const(c, 1)), y);
        break;
    case CUTE_IABS: r = cute_ir_op(&c->b, CUTE_OP_ABS, cute_type_of(CUTE_I64), x, 0, 0); break;
    case CUTE_ISGN: {
        cute_vreg zero = i64_const(c, 0);
        cute_vreg pos = cute_ir_op(&c->b, CUTE_OP_GT, cute_type_of(CUTE_I1), x, zero, 0);
        cute_vreg neg = cute_ir_op(&c->b, CUTE_OP_LT, cute_type_of(CUTE_I1), x, zero, 0);
        cute_vreg p = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I64), pos, 0, 0);
        cute_vreg n = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I64), neg, 0, 0);
        r = bin(c, CUTE_OP_SUB, p, n);
        break;
    }
    }
    return exact_div(c, r, a.scale);
}

static cute_vreg lower(cute_ctx *c, cute_int x)
{
    if (c->alg.failed) return 0;
    if (cute_is_static(x)) return i64_const(c, x.v);
    if (!cute_is_dynamic(x)) {
        cute_ctx_fail(c, "'_' used as a number");
        return 0;
    }
    cute_vreg r = memo_get(c, x.v);
    if (r) return r;
    int n = cute_symbolic_nterms(c->sym, x);
    if (n < 0) {
        cute_ctx_fail(c, "a dynamic value from another context");
        return 0;
    }
    for (int i = 0; i < n && !c->alg.failed; i++) {
        cute_symbolic_term t;
        cute_symbolic_get_term(c->sym, x, i, &t);
        cute_vreg v = 0;
        for (int k = 0; k < t.deg; k++) {
            /* a symbol s stands for value/div: when div divides the coefficient, multiply
             * the value by coef/div instead of dividing it (M*16 for 16 * (M/16)) */
            cute_symbolic_atom at;
            cute_vreg a;
            if (cute_symbolic_get_atom(c->sym, t.atom[k], &at) && at.is_symbol && at.scale > 1 &&
                t.coef % at.scale == 0 && (uint32_t)at.symbol < c->nbind &&
                c->bind[at.symbol].reg && scope_open(c, c->bind[at.symbol].scope)) {
                a = c->bind[at.symbol].reg;
                t.coef /= at.scale;
            } else {
                a = lower_atom(c, t.atom[k]);
            }
            v = v ? bin(c, CUTE_OP_MUL, v, a) : a;
        }
        if (!v)
            v = i64_const(c, t.coef);
        else if (t.coef != 1)
            v = bin(c, CUTE_OP_MUL, v, i64_const(c, t.coef));
        r = r ? bin(c, CUTE_OP_ADD, r, v) : v;
    }
    if (!r) r = i64_const(c, 0);
    if (!c->alg.failed) memo_put(c, x.v, r);
    return r;
}

cute_val cute_int_value(cute_ctx *c, cute_int x, cute_dtype d)
{
    if (!ctx_ok(c)) return (cute_val){0, cute_type_of(d)};
    if (!cute_dtype_is_int(d)) {
        cute_ctx_fail(c, "an index integer can only become an integer type, not %s",
                      cute_dtype_name(d));
        return (cute_val){0, cute_type_of(d)};
    }
    cute_vreg r = lower(c, x);
    if (d != CUTE_I64 && r) r = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(d), r, 0, 0);
    return ctx_val(c, r);
}

cute_int cute_int_from_val(cute_ctx *c, cute_val v, int64_t lower_bound)
{
    if (!ctx_ok(c)) return cute_i(0);
    if (!cute_dtype_is_int((cute_dtype)v.t.dtype) || v.t.lanes != 1) {
        cute_ctx_fail(c, "an index integer needs an integer value, not %s",
                      cute_dtype_name((cute_dtype)v.t.dtype));
        return cute_i(0);
    }
    cute_vreg r = v.r;
    if (v.t.dtype != CUTE_I64) r = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I64), r, 0, 0);
    cute_int x = cute_symbolic_symbol(c->sym, "v", 1, lower_bound);
    ctx_bind(c, x, r);
    return x;
}

/* One symbol per special register while the scope that read it is open, so that two
 * reads of threadIdx.x are provably equal. */
static cute_int sreg_int(cute_ctx *c, cute_sreg s, int64_t lower_bound, const char *name)
{
    if (!ctx_ok(c)) return cute_i(0);
    cute_int x = c->sreg_sym[s];
    int i = cute_is_dynamic(x) ? cute_symbolic_symbol_index(c->sym, x) : -1;
    if (i >= 0 && (uint32_t)i < c->nbind && c->bind[i].reg && scope_open(c, c->bind[i].scope))
        return x;
    cute_vreg r = cute_ir_sreg(&c->b, s);
    r = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I64), r, 0, 0);
    x = cute_symbolic_symbol(c->sym, name, 1, lower_bound);
    ctx_bind(c, x, r);
    c->sreg_sym[s] = x;
    return x;
}

static bool dim_ok(cute_ctx *c, int dim)
{
    return (dim >= 0 && dim < 3) || cute_ctx_fail(c, "dimension %d (0, 1 or 2)", dim);
}

cute_int cute_thread_idx(cute_ctx *c, int dim)
{
    static const char *n[] = {"tid.x", "tid.y", "tid.z"};
    return dim_ok(c, dim) ? sreg_int(c, (cute_sreg)(CUTE_SREG_TID_X + dim), 0, n[dim]) : cute_i(0);
}
cute_int cute_block_idx(cute_ctx *c, int dim)
{
    static const char *n[] = {"bid.x", "bid.y", "bid.z"};
    return dim_ok(c, dim) ? sreg_int(c, (cute_sreg)(CUTE_SREG_CTAID_X + dim), 0, n[dim]) : cute_i(0);
}
cute_int cute_block_dim(cute_ctx *c, int dim)
{
    static const char *n[] = {"bdim.x", "bdim.y", "bdim.z"};
    return dim_ok(c, dim) ? sreg_int(c, (cute_sreg)(CUTE_SREG_NTID_X + dim), 1, n[dim]) : cute_i(0);
}
cute_int cute_grid_dim(cute_ctx *c, int dim)
{
    static const char *n[] = {"gdim.x", "gdim.y", "gdim.z"};
    return dim_ok(c, dim) ? sreg_int(c, (cute_sreg)(CUTE_SREG_NCTAID_X + dim), 1, n[dim]) : cute_i(0);
}
cute_int cute_lane_idx(cute_ctx *c) { return sreg_int(c, CUTE_SREG_LANEID, 0, "lane"); }
cute_int cute_warp_idx(cute_ctx *c) { return sreg_int(c, CUTE_SREG_WARPID, 0, "warp"); }

static cute_val int_pred(cute_ctx *c, cute_op op, cute_int a, cute_int b)
{
    cute_truth t = cute_int_cmp(&c->alg, op == CUTE_OP_LT ? CUTE_CMP_LT : CUTE_CMP_EQ, a, b);
    if (!ctx_ok(c)) return (cute_val){0, cute_type_of(CUTE_I1)};
    if (t != CUTE_UNKNOWN) /* decided at trace time: a constant predicate */
        return ctx_val(c, cute_ir_const_int(&c->b, CUTE_I1, t == CUTE_TRUE));
    cute_vreg x = lower(c, a), y = lower(c, b);
    return ctx_val(c, cute_ir_op(&c->b, op, cute_type_of(CUTE_I1), x, y, 0));
}

cute_val cute_int_lt(cute_ctx *c, cute_int a, cute_int b) { return int_pred(c, CUTE_OP_LT, a, b); }
cute_val cute_int_eq(cute_ctx *c, cute_int a, cute_int b) { return int_pred(c, CUTE_OP_EQ, a, b); }
