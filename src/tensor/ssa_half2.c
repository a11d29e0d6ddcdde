/* TensorSSA arithmetic on f16 and bf16 in the paired instructions (issue 12, 8c): elements
 * 2i and 2i+1 travel in one 32-bit word through fma.rn/min/max/neg .f16x2 or .bf16x2
 * (HFMA2, HMNMX2), so a vector of 16-bit values costs half the instructions of widening
 * each to f32.  add, sub and mul are fma rows, rounded once as add.rn/sub.rn/mul.rn are
 * (their .bf16x2 forms need sm_90; the fma forms run from sm_80):
 *   a + b = fma(a, 1, b),  a - b = fma(b, -1, a),  a b = fma(a, b, -0)
 * An odd last element is paired with itself.  The results of add, sub and mul are those of
 * the scalar path, whose f32 arithmetic rounded to 16 bits is correctly rounded too (24 bits
 * >= 2 x 11 + 2: double rounding is innocuous); fma is now rounded once. */
#define CUTEC_NO_SITE_MACROS
#include <string.h>

#include "cutec/inst.h"
#include "tensor_internal.h"
#include "trace/ctx_internal.h"

static bool half2_ok(cute_ctx *c, cute_dtype d)
{
    return (d == CUTE_F16 || d == CUTE_BF16) && (!c->target_sm || c->target_sm >= 80);
}

/* the word of the splatted 16-bit pattern h (1.0, -1.0, -0.0 in f16 or bf16) */
static cute_vreg splat(cute_ctx *c, uint32_t h)
{
    return cute_ir_const_int(&c->b, CUTE_U32, (int64_t)(h << 16 | h));
}

static uint32_t bits_of(cute_dtype d, const char *what)
{
    bool bf = d == CUTE_BF16;
    switch (what[0]) {
    case '1': return bf ? 0x3f80u : 0x3c00u;  /* 1.0 */
    case 'm': return bf ? 0xbf80u : 0xbc00u;  /* -1.0 */
    default: return 0x8000u;                  /* -0.0 */
    }
}

bool ssa_pairs_alloc(cute_ctx *c, cute_ssa *a)
{
    int n = (a->n + 1) / 2;
    a->pairs = cute_ir_alloc(c->fn, (size_t)(3 * n + 1) * sizeof(cute_vreg));
    if (!a->pairs) return cute_ctx_fail(c, "out of memory"), false;
    memset(a->pairs, 0, (size_t)(3 * n + 1) * sizeof(cute_vreg));
    return true;
}

void ssa_pair_set(cute_ssa *a, int i, cute_vreg w)
{
    cute_vreg *p = a->pairs + 3 * (i / 2);
    p[0] = w, p[1] = a->v[i], p[2] = a->v[i + 1];
}

cute_vreg ssa_pair_word(const cute_ssa *a, int i)
{
    if (!a->pairs || i % 2 || i + 1 >= a->n) return 0;
    const cute_vreg *p = a->pairs + 3 * (i / 2);
    return p[0] && p[1] == a->v[i] && p[2] == a->v[i + 1] ? p[0] : 0;
}

/* the word of operand a's elements i, i+1 (an odd last element paired with itself): the
 * word a holds them in, else the two packed */
static cute_vreg word_of(cute_ctx *c, cute_dtype d, const cute_ssa *a, int i)
{
    cute_vreg w = ssa_pair_word(a, i);
    if (w) return w;
    cute_vreg two[2] = {a->v[i], a->v[i + 1 < a->n ? i + 1 : i]};
    return tensor_word_of(c, d, two);
}

/* r's elements i, i+1 = row(the words of the operands' elements i, i+1; consts[k] where an
 * operand is NULL), and the word recorded as r's pair */
static void pair(cute_ctx *c, cute_inst row, cute_dtype d, const cute_ssa *const ops[3], int nops,
                 const cute_vreg *consts, int i, cute_ssa *r)
{
    cute_vreg in[3], out = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), NULL, false);
    for (int k = 0; k < nops; k++) in[k] = ops[k] ? word_of(c, d, ops[k], i) : consts[k];
    cute_ir_inst_op(&c->b, row, &out, 1, in, nops, 0);
    r->v[i] = tensor_word_lane(c, d, out, 0);
    if (i + 1 < r->n) {
        r->v[i + 1] = tensor_word_lane(c, d, out, 1);
        ssa_pair_set(r, i, out);
    }
}

static void pairs(cute_ctx *c, cute_inst row, cute_dtype d, const cute_ssa *const ops[3], int nops,
                  const cute_vreg *consts, cute_ssa *r)
{
    if (!ssa_pairs_alloc(c, r)) return;
    for (int i = 0; i < r->n && !c->alg.failed; i += 2) pair(c, row, d, ops, nops, consts, i, r);
}

bool ssa_half2_binop(cute_ctx *c, cute_op op, const cute_ssa *a, const cute_ssa *b, cute_ssa *r)
{
    cute_dtype d = (cute_dtype)a->dtype;
    bool bf = d == CUTE_BF16;
    if (!half2_ok(c, d)) return false;
    cute_vreg k[3] = {0, 0, 0};
    const cute_ssa *ops[3] = {a, b, NULL};
    cute_inst row = bf ? CUTE_INST_FMA_RN_BF16X2 : CUTE_INST_FMA_RN_F16X2;
    switch (op) {
    case CUTE_OP_ADD: ops[1] = NULL, ops[2] = b, k[1] = splat(c, bits_of(d, "1")); break;
    case CUTE_OP_SUB: ops[0] = b, ops[1] = NULL, ops[2] = a, k[1] = splat(c, bits_of(d, "m1")); break;
    case CUTE_OP_MUL: k[2] = splat(c, bits_of(d, "-0")); break;
    case CUTE_OP_MIN: row = bf ? CUTE_INST_MIN_BF16X2 : CUTE_INST_MIN_F16X2; break;
    case CUTE_OP_MAX: row = bf ? CUTE_INST_MAX_BF16X2 : CUTE_INST_MAX_F16X2; break;
    default: return false;
    }
    pairs(c, row, d, ops, op == CUTE_OP_MIN || op == CUTE_OP_MAX ? 2 : 3, k, r);
    return true;
}

bool ssa_half2_fma(cute_ctx *c, const cute_ssa *a, const cute_ssa *b, const cute_ssa *e, cute_ssa *r)
{
    cute_dtype d = (cute_dtype)a->dtype;
    if (!half2_ok(c, d)) return false;
    const cute_ssa *ops[3] = {a, b, e};
    pairs(c, d == CUTE_BF16 ? CUTE_INST_FMA_RN_BF16X2 : CUTE_INST_FMA_RN_F16X2, d, ops, 3, NULL, r);
    return true;
}

bool ssa_half2_neg(cute_ctx *c, const cute_ssa *a, cute_ssa *r)
{
    cute_dtype d = (cute_dtype)a->dtype;
    if (!half2_ok(c, d)) return false;
    const cute_ssa *ops[3] = {a, NULL, NULL};
    pairs(c, d == CUTE_BF16 ? CUTE_INST_NEG_BF16X2 : CUTE_INST_NEG_F16X2, d, ops, 1, NULL, r);
    return true;
}

cute_ssa cute_ssa_e2m1_words(cute_ctx *c, cute_ssa words)
{
    if (!ctx_ok(c) || !ssa_usable(c, &words, "cute_ssa_e2m1_words")) return bad_ssa();
    if (words.dtype != CUTE_U32 || 8 * words.n > 4096) {
        cute_ctx_fail(c, "cute_ssa_e2m1_words: %d %s words (u32 words of 8 e2m1, at most 512)",
                      words.n, cute_dtype_name((cute_dtype)words.dtype));
        return bad_ssa();
    }
    if (c->target_sm && c->target_sm < 100) {
        cute_ctx_fail(c, "cute_ssa_e2m1_words: cvt.rn.f16x2.e2m1x2 needs sm_100a (the target is sm_%d)",
                      c->target_sm);
        return bad_ssa();
    }
    cute_ssa w = cute_ssa_fill(c, CUTE_U32, cute_tuple_int(cute_i(4 * words.n)), 0);
    for (int i = 0; i < words.n && w.v && !c->alg.failed; i++) {
        for (int j = 0; j < 4; j++) w.v[4 * i + j] = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), NULL, false);
        cute_ir_inst_op(&c->b, CUTE_INST_CVT_RN_F16X2_E2M1X2_X4, w.v + 4 * i, 4, &words.v[i], 1, 0);
    }
    return c->alg.failed ? bad_ssa() : cute_ssa_from_words(c, w, CUTE_F16);
}

cute_ssa cute_ssa_words(cute_ctx *c, cute_ssa a)
{
    if (!ctx_ok(c) || !ssa_usable(c, &a, "cute_ssa_words")) return bad_ssa();
    if ((a.dtype != CUTE_F16 && a.dtype != CUTE_BF16) || a.n % 2) {
        cute_ctx_fail(c, "cute_ssa_words: %d %s elements (an even number of f16 or bf16)", a.n,
                      cute_dtype_name((cute_dtype)a.dtype));
        return bad_ssa();
    }
    cute_ssa w = cute_ssa_fill(c, CUTE_U32, cute_tuple_int(cute_i(a.n / 2)), 0);
    for (int i = 0; i < a.n / 2 && w.v && !c->alg.failed; i++) w.v[i] = word_of(c, (cute_dtype)a.dtype, &a, 2 * i);
    return c->alg.failed ? bad_ssa() : w;
}
