/* TensorSSA: elementwise arithmetic, conversion, selection and reduction of statically
 * shaped values, one register per element. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/notation.h"
#include "cutec/tensor.h"
#include "tensor_internal.h"
#include "trace/ctx_internal.h"

cute_ssa bad_ssa(void)
{
    cute_ssa s;
    memset(&s, 0, sizeof s);
    s.shape = cute_tuple_poison();
    return s;
}

static cute_ssa like(cute_ctx *c, cute_dtype d, const cute_ssa *shape_of)
{
    cute_ssa s = *shape_of;
    s.dtype = (uint8_t)d;
    s.kernel = c->kernel;
    s.pairs = NULL; /* new registers: no words yet */
    s.v = cute_ir_alloc(c->fn, (size_t)(s.n ? s.n : 1) * sizeof(cute_vreg));
    if (!s.v) {
        cute_ctx_fail(c, "out of memory");
        return bad_ssa();
    }
    return s;
}

static bool ssa_ok(cute_ctx *c, const cute_ssa *a, const char *what)
{
    if (!ctx_ok(c)) return false;
    return ssa_usable(c, a, what);
}

static bool same_shape(cute_ctx *c, const cute_ssa *a, const cute_ssa *b, const char *what)
{
    if (!ssa_ok(c, a, what) || !ssa_ok(c, b, what)) return false;
    if (a->n == b->n && cute_tuple_congruent(&a->shape, &b->shape)) return true;
    char x[256], y[256];
    cute_tuple_str(&a->shape, x, sizeof x);
    cute_tuple_str(&b->shape, y, sizeof y);
    return cute_ctx_fail(c, "%s of TensorSSA values of shapes %s and %s", what, x, y);
}

static cute_val el(const cute_ssa *a, int i)
{
    return (cute_val){a->v[i], cute_type_of((cute_dtype)a->dtype), a->kernel};
}

bool ssa_usable(cute_ctx *c, const cute_ssa *a, const char *what)
{
    if (!a->v) return cute_ctx_fail(c, "%s: the operand is not a value (an earlier error?)", what);
    char w[96];
    snprintf(w, sizeof w, "%s: the TensorSSA operand", what);
    return ctx_same_kernel(c, a->kernel, w);
}

cute_ssa cute_ssa_binop(cute_ctx *c, cute_op op, cute_ssa a, cute_ssa b)
{
    if (!same_shape(c, &a, &b, cute_op_name(op))) return bad_ssa();
    cute_ssa r = like(c, (cute_dtype)a.dtype, &a);
    if (r.v && a.dtype == b.dtype && ssa_half2_binop(c, op, &a, &b, &r)) return c->alg.failed ? bad_ssa() : r;
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++)
        r.v[i] = cute_val_binop(c, op, el(&a, i), el(&b, i)).r;
    return c->alg.failed ? bad_ssa() : r;
}

cute_ssa cute_ssa_fma(cute_ctx *c, cute_ssa a, cute_ssa b, cute_ssa d)
{
    if (!same_shape(c, &a, &b, "fma") || !same_shape(c, &a, &d, "fma")) return bad_ssa();
    if (a.dtype != b.dtype || a.dtype != d.dtype) {
        cute_ctx_fail(c, "cute_ssa_fma: operands of %s, %s and %s (convert with cute_ssa_cvt)",
                      cute_dtype_name((cute_dtype)a.dtype), cute_dtype_name((cute_dtype)b.dtype),
                      cute_dtype_name((cute_dtype)d.dtype));
        return bad_ssa();
    }
    cute_ssa r = like(c, (cute_dtype)a.dtype, &a);
    if (r.v && ssa_half2_fma(c, &a, &b, &d, &r)) return c->alg.failed ? bad_ssa() : r;
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++)
        r.v[i] = cute_val_fma(c, el(&a, i), el(&b, i), el(&d, i)).r;
    return c->alg.failed ? bad_ssa() : r;
}

cute_ssa cute_ssa_unop(cute_ctx *c, cute_op op, cute_ssa a)
{
    if (!ssa_ok(c, &a, cute_op_name(op))) return bad_ssa();
    cute_ssa r = like(c, (cute_dtype)a.dtype, &a);
    if (r.v && op == CUTE_OP_NEG && ssa_half2_neg(c, &a, &r)) return c->alg.failed ? bad_ssa() : r;
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++) r.v[i] = cute_val_unop(c, op, el(&a, i)).r;
    return c->alg.failed ? bad_ssa() : r;
}

/* elementwise cute_val_fast: the math function's fast, approximate form */
cute_ssa cute_ssa_fast(cute_ctx *c, cute_op op, cute_ssa a)
{
    if (!ssa_ok(c, &a, cute_op_name(op))) return bad_ssa();
    cute_ssa r = like(c, (cute_dtype)a.dtype, &a);
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++) r.v[i] = cute_val_fast(c, op, el(&a, i)).r;
    return c->alg.failed ? bad_ssa() : r;
}

cute_ssa cute_ssa_cmp(cute_ctx *c, cute_op op, cute_ssa a, cute_ssa b)
{
    if (!same_shape(c, &a, &b, cute_op_name(op))) return bad_ssa();
    cute_ssa r = like(c, CUTE_I1, &a);
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++)
        r.v[i] = cute_val_cmp(c, op, el(&a, i), el(&b, i)).r;
    return c->alg.failed ? bad_ssa() : r;
}

cute_ssa cute_ssa_select(cute_ctx *c, cute_ssa p, cute_ssa a, cute_ssa b)
{
    if (!same_shape(c, &a, &b, "select") || !same_shape(c, &p, &a, "select")) return bad_ssa();
    cute_ssa r = like(c, (cute_dtype)a.dtype, &a);
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++)
        r.v[i] = cute_val_select(c, el(&p, i), el(&a, i), el(&b, i)).r;
    return c->alg.failed ? bad_ssa() : r;
}

cute_ssa cute_ssa_cvt(cute_ctx *c, cute_ssa a, cute_dtype d)
{
    if (!ssa_ok(c, &a, "cvt")) return bad_ssa();
    if (a.dtype == d) return a;
    cute_ssa r = like(c, d, &a);
    for (int i = 0; i < a.n && r.v && !c->alg.failed; i++) r.v[i] = cute_val_cvt(c, el(&a, i), d).r;
    return c->alg.failed ? bad_ssa() : r;
}

cute_ssa cute_ssa_scalar(cute_ctx *c, cute_val v, cute_tuple shape)
{
    if (!ctx_ok(c) || !ctx_usable(c, v, "the broadcast value")) return bad_ssa();
    cute_int n = cute_tuple_product(&c->alg, &shape);
    if (!cute_is_static(n) || n.v > 4096 || n.v < 0) {
        cute_ctx_fail(c, "a TensorSSA needs a static shape of at most 4096 elements");
        return bad_ssa();
    }
    cute_ssa s = {.dtype = (uint8_t)v.t.dtype, .n = (int)n.v, .shape = shape, .kernel = c->kernel};
    s = like(c, (cute_dtype)v.t.dtype, &s);
    for (int i = 0; i < s.n && s.v; i++) s.v[i] = v.r;
    return s;
}

cute_ssa cute_ssa_fill(cute_ctx *c, cute_dtype d, cute_tuple shape, double v)
{
    if (!ctx_ok(c)) return bad_ssa();
    return cute_ssa_scalar(c, cute_val_const(c, d, v), shape);
}

cute_val cute_ssa_reduce(cute_ctx *c, cute_op op, cute_ssa a)
{
    cute_val none = {0, cute_type_of((cute_dtype)a.dtype), 0};
    if (!ssa_ok(c, &a, "reduce")) return none;
    if (op != CUTE_OP_ADD && op != CUTE_OP_MUL && op != CUTE_OP_MIN && op != CUTE_OP_MAX) {
        cute_ctx_fail(c, "reduce with %s (ADD, MUL, MIN or MAX)", cute_op_name(op));
        return none;
    }
    if (a.n == 0) {
        cute_ctx_fail(c, "reduce of an empty TensorSSA");
        return none;
    }
    /* a balanced tree: log2(n) dependent steps instead of n */
    cute_vreg tmp[4096];
    int n = a.n;
    memcpy(tmp, a.v, (size_t)n * sizeof *tmp);
    while (n > 1 && !c->alg.failed) {
        int half = n / 2;
        for (int i = 0; i < half; i++)
            tmp[i] = cute_val_binop(c, op, el(&(cute_ssa){.dtype = a.dtype, .v = tmp, .shape = a.shape, .kernel = a.kernel}, i),
                                    el(&(cute_ssa){.dtype = a.dtype, .v = tmp, .shape = a.shape, .kernel = a.kernel}, i + half)).r;
        if (n % 2) tmp[half] = tmp[n - 1];
        n = half + n % 2;
    }
    return c->alg.failed ? none : el(&(cute_ssa){.dtype = a.dtype, .v = tmp, .shape = a.shape, .kernel = a.kernel}, 0);
}

cute_ssa cute_ssa_from_words(cute_ctx *c, cute_ssa words, cute_dtype d)
{
    if (!ssa_ok(c, &words, "cute_ssa_from_words")) return bad_ssa();
    if (words.dtype != CUTE_U32 || (d != CUTE_F16 && d != CUTE_BF16) || 2 * words.n > 4096) {
        cute_ctx_fail(c, "cute_ssa_from_words: %d %s words as %s (u32 words, at most 2048, as f16 or "
                         "bf16)", words.n, cute_dtype_name((cute_dtype)words.dtype), cute_dtype_name(d));
        return bad_ssa();
    }
    cute_ssa shape = {.n = 2 * words.n, .shape = cute_tuple_int(cute_i(2 * words.n))};
    cute_ssa r = like(c, d, &shape);
    if (!r.v || !ssa_pairs_alloc(c, &r)) return bad_ssa();
    for (int i = 0; i < words.n; i++) {
        r.v[2 * i] = tensor_word_lane(c, d, words.v[i], 0);
        r.v[2 * i + 1] = tensor_word_lane(c, d, words.v[i], 1);
        ssa_pair_set(&r, 2 * i, words.v[i]);
    }
    return c->alg.failed ? bad_ssa() : r;
}

cute_val cute_ssa_get(cute_ctx *c, cute_ssa a, int i)
{
    cute_val none = {0, cute_type_of((cute_dtype)a.dtype), 0};
    if (!ssa_ok(c, &a, "get")) return none;
    if (i < 0 || i >= a.n) {
        cute_ctx_fail(c, "element %d of a TensorSSA of %d", i, a.n);
        return none;
    }
    return el(&a, i);
}
