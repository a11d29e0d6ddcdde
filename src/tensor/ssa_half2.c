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

/* r[i], r[i+1] = row(the words of the operands' elements i, i+1; consts[k] where an operand
 * is NULL).  An odd last element (i + 1 == n) is paired with itself. */
static void pair(cute_ctx *c, cute_inst row, cute_dtype d, const cute_vreg *const ops[3], int nops,
                 const cute_vreg *consts, int i, int n, cute_vreg *r)
{
    cute_vreg in[3], out = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), NULL, false);
    for (int k = 0; k < nops; k++) {
        cute_vreg two[2] = {ops[k] ? ops[k][i] : 0, ops[k] ? ops[k][i + 1 < n ? i + 1 : i] : 0};
        in[k] = ops[k] ? tensor_word_of(c, d, two) : consts[k];
    }
    cute_ir_inst_op(&c->b, row, &out, 1, in, nops, 0);
    r[i] = tensor_word_lane(c, d, out, 0);
    if (i + 1 < n) r[i + 1] = tensor_word_lane(c, d, out, 1);
}

static void pairs(cute_ctx *c, cute_inst row, cute_dtype d, const cute_vreg *const ops[3], int nops,
                  const cute_vreg *consts, int n, cute_vreg *r)
{
    for (int i = 0; i < n && !c->alg.failed; i += 2) pair(c, row, d, ops, nops, consts, i, n, r);
}

bool ssa_half2_binop(cute_ctx *c, cute_op op, const cute_ssa *a, const cute_ssa *b, cute_ssa *r)
{
    cute_dtype d = (cute_dtype)a->dtype;
    bool bf = d == CUTE_BF16;
    if (!half2_ok(c, d)) return false;
    cute_vreg k[3] = {0, 0, 0};
    const cute_vreg *ops[3] = {a->v, b->v, NULL};
    cute_inst row = bf ? CUTE_INST_FMA_RN_BF16X2 : CUTE_INST_FMA_RN_F16X2;
    switch (op) {
    case CUTE_OP_ADD: ops[1] = NULL, ops[2] = b->v, k[1] = splat(c, bits_of(d, "1")); break;
    case CUTE_OP_SUB: ops[0] = b->v, ops[1] = NULL, ops[2] = a->v, k[1] = splat(c, bits_of(d, "m1")); break;
    case CUTE_OP_MUL: k[2] = splat(c, bits_of(d, "-0")); break;
    case CUTE_OP_MIN: row = bf ? CUTE_INST_MIN_BF16X2 : CUTE_INST_MIN_F16X2; break;
    case CUTE_OP_MAX: row = bf ? CUTE_INST_MAX_BF16X2 : CUTE_INST_MAX_F16X2; break;
    default: return false;
    }
    pairs(c, row, d, ops, op == CUTE_OP_MIN || op == CUTE_OP_MAX ? 2 : 3, k, a->n, r->v);
    return true;
}

bool ssa_half2_fma(cute_ctx *c, const cute_ssa *a, const cute_ssa *b, const cute_ssa *e, cute_ssa *r)
{
    cute_dtype d = (cute_dtype)a->dtype;
    if (!half2_ok(c, d)) return false;
    const cute_vreg *ops[3] = {a->v, b->v, e->v};
    pairs(c, d == CUTE_BF16 ? CUTE_INST_FMA_RN_BF16X2 : CUTE_INST_FMA_RN_F16X2, d, ops, 3, NULL, a->n, r->v);
    return true;
}

bool ssa_half2_neg(cute_ctx *c, const cute_ssa *a, cute_ssa *r)
{
    cute_dtype d = (cute_dtype)a->dtype;
    if (!half2_ok(c, d)) return false;
    const cute_vreg *ops[3] = {a->v, NULL, NULL};
    pairs(c, d == CUTE_BF16 ? CUTE_INST_NEG_BF16X2 : CUTE_INST_NEG_F16X2, d, ops, 1, NULL, a->n, r->v);
    return true;
}
