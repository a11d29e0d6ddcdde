/* Lowering index integers to IR: a dynamic cute_int is an exact expression over symbols
 * bound to IR values; it is emitted when used, once per open scope (a memo).  Its width is
 * chosen by proven bounds (DESIGN.md): 32 bits when every value computed on the way, as this
 * file emits it (each product, partial sum and operation), provably fits in an int32 by
 * the ranges the symbols carry; else 64 bits.  Never by truncation: a 64-bit symbol is
 * narrowed only where its own range fits. */
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"

/* What a memo entry holds: an expression (key: its handle), a symbol converted to the other
 * width (key: its index), a constant (key: its value, key2: its type) or a pure operation on
 * immutable registers (key: the operands, key2: the op and type).  The last two make the
 * lowering a value numbering: a sub-expression, a constant or a comparison that two index
 * expressions share is emitted once in the scopes where both live. */
enum { MEMO_EXPR64, MEMO_EXPR32, MEMO_CONST, MEMO_OP };

static uint32_t memo_slot(int64_t key, int64_t key2, int kind, uint32_t cap)
{
    uint64_t h = ((uint64_t)key ^ ((uint64_t)kind << 58)) * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)key2 * 0xc2b2ae3d27d4eb4full;
    return (uint32_t)(h >> 32) & (cap - 1);
}

/* Where an entry made in scope `id` may be used: any open scope for a whole expression (as
 * before); a constant or an op only within the innermost loop body (or the kernel's top
 * level) it was made in, and the IF/ELSE bodies inside it.  Reusing across a loop boundary
 * keeps values live through the loop: the pipelined GEMM then spilled. */
static bool visible(const cute_ctx *c, int kind, uint32_t id)
{
    int loop = 0;
    if (kind == MEMO_CONST || kind == MEMO_OP)
        for (int d = c->depth; d > 0 && !loop; d--)
            if (c->scopes[d].kind != SCOPE_IF && c->scopes[d].kind != SCOPE_ELSE) loop = d;
    for (int d = loop; d <= c->depth; d++)
        if (c->scopes[d].id == id) return true;
    return false;
}

static cute_vreg memo_get(cute_ctx *c, int kind, int64_t key, int64_t key2)
{
    if (!c->capmemo) return 0;
    for (uint32_t k = memo_slot(key, key2, kind, c->capmemo);; k = (k + 1) & (c->capmemo - 1)) {
        memo_entry *e = &c->memo[k];
        if (!e->reg) return 0;
        if (e->key == key && e->key2 == key2 && e->kind == kind && visible(c, kind, e->scope))
            return e->reg;
    }
}

/* put e into the table m of capacity cap (a power of two) */
static void memo_insert(memo_entry *m, uint32_t cap, memo_entry e)
{
    uint32_t k = memo_slot(e.key, e.key2, e.kind, cap);
    while (m[k].reg) k = (k + 1) & (cap - 1);
    m[k] = e;
}

static void memo_put(cute_ctx *c, int kind, int64_t key, int64_t key2, cute_vreg reg)
{
    if (2 * (c->nmemo + 1) > c->capmemo) { /* grow and rehash, dropping dead scopes */
        uint32_t cap = c->capmemo ? c->capmemo * 2 : 256;
        memo_entry *old = c->memo, *m = calloc(cap, sizeof *m);
        if (!m) return; /* the memo is an optimisation: just don't remember */
        uint32_t oldcap = c->capmemo;
        c->memo = m, c->capmemo = cap, c->nmemo = 0;
        for (uint32_t i = 0; i < oldcap; i++)
            if (old[i].reg && scope_open(c, old[i].scope)) memo_insert(m, cap, old[i]), c->nmemo++;
        free(old);
    }
    memo_insert(c->memo, c->capmemo,
                (memo_entry){key, key2, reg, c->scopes[c->depth].id, (uint8_t)kind});
    c->nmemo++;
}

static int64_t type_key(cute_op op, cute_type t)
{
    return (int64_t)op | (int64_t)t.dtype << 16 | (int64_t)t.lanes << 24 |
           (int64_t)t.pointee << 32 | (int64_t)t.space << 40;
}

static bool is_mutable(cute_ctx *c, cute_vreg r) { return r && c->fn->vregs[r].mutable_; }

cute_vreg ctx_pure_op(cute_ctx *c, cute_op op, cute_type t, cute_vreg a, cute_vreg b)
{
    /* a mutable register may be assigned between two uses: its ops are not shared */
    if (is_mutable(c, a) || is_mutable(c, b)) return cute_ir_op(&c->b, op, t, a, b, 0);
    int64_t key = (int64_t)a << 32 | b, key2 = type_key(op, t);
    cute_vreg r = memo_get(c, MEMO_OP, key, key2);
    if (r) return r;
    r = cute_ir_op(&c->b, op, t, a, b, 0);
    if (!c->b.oom) memo_put(c, MEMO_OP, key, key2, r);
    return r;
}

cute_vreg ctx_const(cute_ctx *c, cute_type t, int64_t bits)
{
    int64_t key2 = type_key(CUTE_OP_CONST, t);
    cute_vreg r = memo_get(c, MEMO_CONST, bits, key2);
    if (r) return r;
    r = cute_ir_op(&c->b, CUTE_OP_CONST, t, 0, 0, 0);
    c->b.last->imm = bits;
    if (!c->b.oom) memo_put(c, MEMO_CONST, bits, key2, r);
    return r;
}

cute_vreg ctx_const_int(cute_ctx *c, cute_dtype d, int64_t v) { return ctx_const(c, cute_type_of(d), v); }

static cute_type int_type(int w) { return cute_type_of(w == 32 ? CUTE_I32 : CUTE_I64); }
static int width_of_reg(cute_ctx *c, cute_vreg r) { return cute_ir_type(c->fn, r).dtype == CUTE_I32 ? 32 : 64; }

static cute_vreg iconst(cute_ctx *c, int w, int64_t v) { return ctx_const_int(c, (cute_dtype)int_type(w).dtype, v); }

static cute_vreg bin(cute_ctx *c, int w, cute_op op, cute_vreg a, cute_vreg b)
{
    return ctx_pure_op(c, op, int_type(w), a, b);
}

/* --- proving that 32 bits suffice ------------------------------------------------ */

#define I32_LIMIT ((int64_t)INT32_MAX) /* magnitudes up to this; INT32_MIN is never needed */

static bool magnitude(int64_t lo, int64_t hi, int64_t *m)
{
    if (lo < -I32_LIMIT || hi > I32_LIMIT) return false;
    *m = -lo > hi ? -lo : hi;
    return true;
}

static bool mul_within(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r) && *r <= I32_LIMIT;
}

/* every value lowering x computes lies in [-2^31+1, 2^31-1] */
static bool fits32(cute_ctx *c, cute_int x);

/* an op atom's operands, and what it computes on the way, fit in 32 bits */
static bool operands_fit32(cute_ctx *c, const cute_symbolic_atom *a)
{
    if (a->op == CUTE_IABS || a->op == CUTE_ISGN) return fits32(c, a->a);
    if (!fits32(c, a->a) || !fits32(c, a->b)) return false;
    if (a->op == CUTE_ICEILDIV) { /* emitted as (x + y - 1) / y */
        int64_t xl, xh, yl, yh, mx, my;
        if (!cute_symbolic_range(c->sym, a->a, &xl, &xh) || !cute_symbolic_range(c->sym, a->b, &yl, &yh) ||
            !magnitude(xl, xh, &mx) || !magnitude(yl, yh, &my) || mx + my > I32_LIMIT)
            return false;
    }
    return true;
}

/* the atom's value fits in 32 bits; when its operands do not (kt % 2 of a 64-bit kt), it is
 * computed in 64 and narrowed (lower_atom), so the expression around it stays 32-bit */
static bool atom_fits32(cute_ctx *c, uint32_t id, int64_t *mag)
{
    cute_symbolic_atom a;
    int64_t raw;
    if (!cute_symbolic_get_atom(c->sym, id, &a) || !magnitude(a.lo, a.hi, mag)) return false;
    /* the value before the exact division by scale (a symbol's IR value, an op's result) */
    return mul_within(*mag, a.scale, &raw);
}

static bool fits32(cute_ctx *c, cute_int x)
{
    if (cute_is_static(x)) return x.v >= -I32_LIMIT && x.v <= I32_LIMIT;
    int n = cute_symbolic_nterms(c->sym, x);
    if (n < 0) return false;
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        cute_symbolic_term t;
        if (!cute_symbolic_get_term(c->sym, x, i, &t) || t.coef < -I32_LIMIT || t.coef > I32_LIMIT)
            return false;
        int64_t p = t.coef < 0 ? -t.coef : t.coef, m;
        for (int k = 0; k < t.deg; k++)
            if (!atom_fits32(c, t.atom[k], &m) || !mul_within(p, m > 1 ? m : 1, &p)) return false;
        sum += p;
        if (sum > I32_LIMIT) return false;
    }
    return true;
}

int ctx_index_width(cute_ctx *c, cute_int x) { return fits32(c, x) ? 32 : 64; }

/* --- emitting ------------------------------------------------------------------------ */

static cute_vreg lower_w(cute_ctx *c, cute_int x, int w);

/* log2 of k, a positive power of two, else -1 */
static int log2_of(int64_t k)
{
    if (k <= 0 || (k & (k - 1))) return -1;
    int s = 0;
    while ((int64_t)1 << s != k) s++;
    return s;
}

/* divide an exact multiple by a positive constant (by a power of two: an arithmetic shift,
 * exact for an exact multiple of either sign, where a signed division adds a fix-up) */
static cute_vreg exact_div(cute_ctx *c, int w, cute_vreg v, int64_t scale)
{
    if (scale == 1) return v;
    int s = log2_of(scale);
    if (s > 0) return bin(c, w, CUTE_OP_SHR, v, iconst(c, w, s));
    return bin(c, w, CUTE_OP_DIV, v, iconst(c, w, scale));
}

/* a / b or a % b (mod): by a power of two of an `a` proven nonnegative, a shift or a mask
 * (a signed division by 2^s costs four or five more instructions on 64 bits: the fix-up
 * of negative values) */
static cute_vreg div_or_mod(cute_ctx *c, int w, const cute_symbolic_atom *a, cute_vreg x, cute_vreg y,
                            bool mod)
{
    int64_t lo, hi;
    int s = cute_is_static(a->b) ? log2_of(a->b.v) : -1;
    if (s < 0 || !cute_symbolic_range(c->sym, a->a, &lo, &hi) || lo < 0)
        return bin(c, w, mod ? CUTE_OP_REM : CUTE_OP_DIV, x, y);
    if (mod) return bin(c, w, CUTE_OP_AND, x, iconst(c, w, a->b.v - 1));
    return s ? bin(c, w, CUTE_OP_SHR, x, iconst(c, w, s)) : x;
}

/* the IR value of symbol i in width w (converted once per scope) */
static cute_vreg symbol_reg(cute_ctx *c, int i, int w)
{
    if ((uint32_t)i >= c->nbind || !c->bind[i].reg) {
        const char *name = "?";
        cute_symbolic_symbol_info(c->sym, i, &name, NULL, NULL);
        cute_ctx_fail(c, "the dynamic value '%s' has no value in this kernel (it belongs to "
                         "another kernel or to the host side)", name);
        return 0;
    }
    if (!scope_open(c, c->bind[i].scope)) {
        const char *name = "?";
        cute_symbolic_symbol_info(c->sym, i, &name, NULL, NULL);
        cute_ctx_fail(c, "the value '%s' was defined inside a loop or if body that has "
                         "ended: it cannot be used here", name);
        return 0;
    }
    cute_vreg r = c->bind[i].reg;
    if (width_of_reg(c, r) == w) return r;
    return ctx_pure_op(c, CUTE_OP_CVT, int_type(w), r, 0);
}

static cute_vreg lower_atom(cute_ctx *c, uint32_t id, int w)
{
    cute_symbolic_atom a;
    if (!cute_symbolic_get_atom(c->sym, id, &a)) {
        cute_ctx_fail(c, "internal: a malformed index expression");
        return 0;
    }
    if (a.is_symbol) return exact_div(c, w, symbol_reg(c, a.symbol, w), a.scale);
    if (w == 32 && !operands_fit32(c, &a)) /* its value fits (atom_fits32), its operands not */
        return ctx_pure_op(c, CUTE_OP_CVT, int_type(32), lower_atom(c, id, 64), 0);
    cute_vreg x = lower_w(c, a.a, w), y = 0, r = 0;
    bool binary = a.op != CUTE_IABS && a.op != CUTE_ISGN;
    if (binary) y = lower_w(c, a.b, w);
    if (c->alg.failed) return 0;
    switch (a.op) {
    case CUTE_IADD: r = bin(c, w, CUTE_OP_ADD, x, y); break;
    case CUTE_ISUB: r = bin(c, w, CUTE_OP_SUB, x, y); break;
    case CUTE_IMUL: r = bin(c, w, CUTE_OP_MUL, x, y); break;
    case CUTE_IDIV: r = div_or_mod(c, w, &a, x, y, false); break;
    case CUTE_IMOD: r = div_or_mod(c, w, &a, x, y, true); break;
    case CUTE_IMIN: r = bin(c, w, CUTE_OP_MIN, x, y); break;
    case CUTE_IMAX: r = bin(c, w, CUTE_OP_MAX, x, y); break;
    case CUTE_IXOR: r = bin(c, w, CUTE_OP_XOR, x, y); break;
    case CUTE_IAND: r = bin(c, w, CUTE_OP_AND, x, y); break;
    case CUTE_ISHL: r = bin(c, w, CUTE_OP_SHL, x, y); break;
    case CUTE_ISHR: r = bin(c, w, CUTE_OP_SHR, x, y); break;
    case CUTE_ICEILDIV: /* a >= 0, b > 0 */
        r = bin(c, w, CUTE_OP_DIV, bin(c, w, CUTE_OP_SUB, bin(c, w, CUTE_OP_ADD, x, y), iconst(c, w, 1)), y);
        break;
    case CUTE_IABS: r = cute_ir_op(&c->b, CUTE_OP_ABS, int_type(w), x, 0, 0); break;
    case CUTE_ISGN: {
        cute_vreg zero = iconst(c, w, 0);
        cute_vreg pos = cute_ir_op(&c->b, CUTE_OP_GT, cute_type_of(CUTE_I1), x, zero, 0);
        cute_vreg neg = cute_ir_op(&c->b, CUTE_OP_LT, cute_type_of(CUTE_I1), x, zero, 0);
        cute_vreg p = cute_ir_op(&c->b, CUTE_OP_CVT, int_type(w), pos, 0, 0);
        cute_vreg n = cute_ir_op(&c->b, CUTE_OP_CVT, int_type(w), neg, 0, 0);
        r = bin(c, w, CUTE_OP_SUB, p, n);
        break;
    }
    }
    return exact_div(c, w, r, a.scale);
}

/* x's term of degree 0 */
static int64_t constant_term(cute_ctx *c, cute_int x)
{
    if (cute_is_static(x)) return x.v;
    int n = cute_symbolic_nterms(c->sym, x);
    cute_symbolic_term t;
    for (int i = 0; i < n; i++)
        if (cute_symbolic_get_term(c->sym, x, i, &t) && t.deg == 0) return t.coef;
    return 0;
}

/* x in width w; w == 32 only where fits32(x) */
static cute_vreg lower_w(cute_ctx *c, cute_int x, int w)
{
    if (c->alg.failed) return 0;
    if (cute_is_static(x)) return iconst(c, w, x.v);
    if (!cute_is_dynamic(x)) {
        cute_ctx_fail(c, "'_' used as a number");
        return 0;
    }
    cute_vreg r = memo_get(c, w == 32 ? MEMO_EXPR32 : MEMO_EXPR64, x.v, 0);
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
                t.coef % at.scale == 0) {
                a = symbol_reg(c, at.symbol, w);
                t.coef /= at.scale;
            } else {
                a = lower_atom(c, t.atom[k], w);
            }
            v = v ? bin(c, w, CUTE_OP_MUL, v, a) : a;
        }
        if (!v)
            v = iconst(c, w, t.coef);
        else if (t.coef != 1)
            v = bin(c, w, CUTE_OP_MUL, v, iconst(c, w, t.coef));
        r = r ? bin(c, w, CUTE_OP_ADD, r, v) : v;
    }
    if (!r) r = iconst(c, w, 0);
    if (!c->alg.failed) memo_put(c, w == 32 ? MEMO_EXPR32 : MEMO_EXPR64, x.v, 0, r);
    return r;
}

cute_vreg ctx_lower(cute_ctx *c, cute_int x, int w) { return lower_w(c, x, w); }

static cute_vreg lower(cute_ctx *c, cute_int x) { return lower_w(c, x, ctx_index_width(c, x)); }

void ctx_hoist_offset(cute_ctx *c, cute_int off)
{
    int64_t k = cute_is_dynamic(off) ? constant_term(c, off) : off.v;
    if (k) lower(c, cute_i(k));
}

cute_vreg ctx_ptr_add(cute_ctx *c, cute_val base, cute_int off)
{
    int64_t k = cute_is_dynamic(off) ? constant_term(c, off) : 0;
    cute_vreg p = base.r;
    if (k) {
        cute_int rest = cute_sub(&c->alg, off, cute_i(k));
        if (c->alg.failed) return 0;
        p = ctx_pure_op(c, CUTE_OP_PTR_ADD, base.t, p, lower(c, rest));
        off = cute_i(k);
    }
    if (cute_is_const(off, 0)) return p;
    return ctx_pure_op(c, CUTE_OP_PTR_ADD, base.t, p, lower(c, off));
}

cute_val cute_int_value(cute_ctx *c, cute_int x, cute_dtype d)
{
    if (!ctx_ok(c)) return (cute_val){0, cute_type_of(d), 0};
    if (!cute_dtype_is_int(d)) {
        cute_ctx_fail(c, "an index integer can only become an integer type, not %s",
                      cute_dtype_name(d));
        return (cute_val){0, cute_type_of(d), 0};
    }
    /* an i64 is always exact; an i32 where proven, else an explicit conversion */
    cute_vreg r = lower_w(c, x, d == CUTE_I64 ? 64 : ctx_index_width(c, x));
    if (r && cute_ir_type(c->fn, r).dtype != d) r = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(d), r, 0, 0);
    return ctx_val(c, r);
}

cute_val cute_int_index(cute_ctx *c, cute_int x)
{
    if (!ctx_ok(c)) return (cute_val){0, cute_type_of(CUTE_I64), 0};
    return ctx_val(c, lower(c, x));
}

cute_int cute_int_from_val(cute_ctx *c, cute_val v, int64_t lower_bound)
{
    if (!ctx_ok(c) || !ctx_usable(c, v, "the value")) return cute_i(0);
    if (!cute_dtype_is_int((cute_dtype)v.t.dtype) || v.t.lanes != 1) {
        cute_ctx_fail(c, "an index integer needs an integer value, not %s",
                      cute_dtype_name((cute_dtype)v.t.dtype));
        return cute_i(0);
    }
    cute_vreg r = v.r;
    /* an i32 stays one (its range is known); other types become i64 */
    if (v.t.dtype != CUTE_I64 && v.t.dtype != CUTE_I32)
        r = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I64), r, 0, 0);
    cute_int x = cute_symbolic_symbol(c->sym, "v", 1, lower_bound);
    int64_t lo, hi;
    if (cute_dtype_int_range((cute_dtype)v.t.dtype, &lo, &hi))
        cute_symbolic_tighten(c->sym, cute_symbolic_symbol_index(c->sym, x), lo, hi);
    ctx_bind(c, x, r);
    return x;
}

cute_int cute_int_now(cute_ctx *c, cute_int x)
{
    int64_t lo, hi;
    if (!ctx_ok(c) || cute_is_static(x) || !cute_symbolic_range(c->sym, x, &lo, &hi)) return x;
    /* a variable of its own: a value used once is written into its use by the CUDA C
     * backend (cuda_c_fold.c), which would put the expression back where it was used */
    cute_int y = cute_int_from_val(c, cute_val_var(c, cute_int_index(c, x)), lo);
    cute_symbolic_tighten(c->sym, cute_symbolic_symbol_index(c->sym, y), lo, hi);
    return y;
}

cute_int cute_int_var(cute_ctx *c, cute_int x, cute_val *var)
{
    int64_t lo, hi;
    *var = (cute_val){0};
    if (!ctx_ok(c) || cute_is_static(x) || !cute_symbolic_range(c->sym, x, &lo, &hi)) return x;
    /* (0 until assigned: x itself may read values not yet computed here) */
    *var = cute_val_var(c, cute_val_int(c, ctx_index_width(c, x) == 32 ? CUTE_I32 : CUTE_I64, 0));
    cute_int y = cute_int_from_val(c, *var, lo);
    cute_symbolic_tighten(c->sym, cute_symbolic_symbol_index(c->sym, y), lo, hi);
    return y;
}

void cute_int_assign(cute_ctx *c, cute_val var, cute_int x)
{
    if (var.r) cute_val_assign(c, var, cute_int_index(c, x));
}

/* the largest value special register s can hold in this kernel */
static int64_t sreg_max(const cute_ctx *c, cute_sreg s)
{
    static const int64_t hw_grid[3] = {INT32_MAX, 65535, 65535}, hw_block[3] = {1024, 1024, 64};
    int d;
    switch (s) {
    case CUTE_SREG_TID_X: case CUTE_SREG_TID_Y: case CUTE_SREG_TID_Z:
        d = s - CUTE_SREG_TID_X;
        return (c->block_max[d] ? c->block_max[d] : hw_block[d]) - 1;
    case CUTE_SREG_NTID_X: case CUTE_SREG_NTID_Y: case CUTE_SREG_NTID_Z:
        d = s - CUTE_SREG_NTID_X;
        return c->block_max[d] ? c->block_max[d] : hw_block[d];
    case CUTE_SREG_CTAID_X: case CUTE_SREG_CTAID_Y: case CUTE_SREG_CTAID_Z:
        d = s - CUTE_SREG_CTAID_X;
        return (c->grid_max[d] ? c->grid_max[d] : hw_grid[d]) - 1;
    case CUTE_SREG_NCTAID_X: case CUTE_SREG_NCTAID_Y: case CUTE_SREG_NCTAID_Z:
        d = s - CUTE_SREG_NCTAID_X;
        return c->grid_max[d] ? c->grid_max[d] : hw_grid[d];
    case CUTE_SREG_LANEID: return 31;
    default: return INT32_MAX; /* %warpid and the like: an i32 */
    }
}

/* One symbol per special register while the scope that read it is open, so that two
 * reads of threadIdx.x are provably equal.  Its range is what the launch allows. */
static cute_int sreg_int(cute_ctx *c, cute_sreg s, int64_t lower_bound, const char *name)
{
    if (!ctx_ok(c)) return cute_i(0);
    cute_int x = c->sreg_sym[s];
    int i = cute_is_dynamic(x) ? cute_symbolic_symbol_index(c->sym, x) : -1;
    if (i >= 0 && (uint32_t)i < c->nbind && c->bind[i].reg && scope_open(c, c->bind[i].scope))
        return x;
    cute_vreg r = cute_ir_sreg(&c->b, s); /* an i32 */
    x = cute_symbolic_symbol(c->sym, name, 1, lower_bound);
    cute_symbolic_tighten(c->sym, cute_symbolic_symbol_index(c->sym, x), lower_bound, sreg_max(c, s));
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

/* a < b is a - r < b when b and a - r are multiples of some d > r >= 0 (a - r <= b - d, so
 * a < b).  So the bounds checks of a vector's elements, x, x+1, ..., x+3 < M with x and M
 * multiples of 4, all become the one check x < M. */
static cute_int lt_multiple(cute_ctx *c, cute_int a, cute_int b)
{
    int64_t d = cute_is_dynamic(b) ? b.div : 0;
    if (!cute_is_dynamic(a) || d < 2) return a;
    for (int64_t r = 1; r < d && r < 16; r++) {
        cute_int x = cute_sub(&c->alg, a, cute_i(r));
        if (c->alg.failed) return a;
        if (cute_is_dynamic(x) && x.div % d == 0) return x;
    }
    return a;
}

static cute_val int_pred(cute_ctx *c, cute_op op, cute_int a, cute_int b)
{
    cute_truth t = cute_int_cmp(&c->alg, op == CUTE_OP_LT ? CUTE_CMP_LT : CUTE_CMP_EQ, a, b);
    if (!ctx_ok(c)) return (cute_val){0, cute_type_of(CUTE_I1), 0};
    if (t != CUTE_UNKNOWN) /* decided at trace time: a constant predicate */
        return ctx_val(c, ctx_const_int(c, CUTE_I1, t == CUTE_TRUE));
    if (op == CUTE_OP_LT) a = lt_multiple(c, a, b);
    int w = ctx_index_width(c, a) == 32 && ctx_index_width(c, b) == 32 ? 32 : 64;
    cute_vreg x = lower_w(c, a, w), y = lower_w(c, b, w);
    return ctx_val(c, ctx_pure_op(c, op, cute_type_of(CUTE_I1), x, y));
}

cute_val cute_int_lt(cute_ctx *c, cute_int a, cute_int b) { return int_pred(c, CUTE_OP_LT, a, b); }
cute_val cute_int_eq(cute_ctx *c, cute_int a, cute_int b) { return int_pred(c, CUTE_OP_EQ, a, b); }
