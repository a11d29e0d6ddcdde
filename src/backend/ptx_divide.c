/* Integer DIV and REM by a constant, as multiplications and shifts.  ptxas does not
 * strength-reduce a div.s32 by an immediate (the step-5 GEMM's stage index, `k % 3`, was
 * the generic sequence: I2F, MUFU.RCP and a dozen more), where NVVM did for the CUDA C path.
 * Unsigned n / d (d not a power of two), with l = ceil(log2 d) and
 * m = floor(2^32 (2^l - d) / d) + 1 (< 2^32): t = mulhi(m, n), q = (t + ((n - t) >> 1)) >> (l - 1)
 * (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994).
 * Signed n / d (d > 0) truncates toward zero as C: the quotient of |n|, negated for n < 0;
 * by 2^k, n plus the bias 2^k - 1 when negative, shifted.  REM is n - q d.
 * 64-bit: ptxas makes every div/rem.s64 and .u64, by an immediate 2^k too, a call of a
 * ~70-instruction routine (the Hopper GEMM's epilogue had 24).  By 2^k it is a shift (a
 * mask for REM) where the dividend is never negative (ptx_range.c), else the biased shift;
 * by anything else, NVVM's bypass: where dividend and divisor both fit in 32 bits (the
 * index arithmetic's values always do), the 32-bit op, else the 64-bit one. */
#include <stdio.h>

#include "ptx_internal.h"

static int ceil_log2(uint32_t d)
{
    int l = 0;
    while (((uint64_t)1 << l) < d) l++;
    return l;
}

/* q = n / d, unsigned, into q (n, q: b32 registers; n may be a literal only for d = 2^k) */
static void udiv(px_fn *e, const char *q, const char *n, uint32_t d)
{
    int l = ceil_log2(d);
    if (((uint64_t)1 << l) == d) {
        px_line(e, "shr.u32 %s, %s, %d;", q, n, l);
        return;
    }
    uint32_t m = (uint32_t)((((uint64_t)1 << l) - d) * ((uint64_t)1 << 32) / d + 1);
    char t[PX_NAME], u[PX_NAME];
    px_temp(e, PX_B32, t), px_temp(e, PX_B32, u);
    px_line(e, "mul.hi.u32 %s, %s, %u;", t, n, m);
    px_line(e, "sub.u32 %s, %s, %s;", u, n, t);
    px_line(e, "shr.u32 %s, %s, 1;", u, u);
    px_line(e, "add.u32 %s, %s, %s;", u, u, t);
    px_line(e, "shr.u32 %s, %s, %d;", q, u, l - 1);
}

/* a 64-bit DIV or REM by 2^k */
static void pow2_64(px_fn *e, const cute_ir_inst *in, bool sgn, int k)
{
    char n[PX_NAME], dst[PX_NAME], b[PX_NAME];
    px_reg(e, in->a[0], -1, n);
    px_reg(e, in->dst, -1, dst);
    bool div = in->op == CUTE_OP_DIV;
    if (!sgn) {
        if (div) px_line(e, "shr.u64 %s, %s, %d;", dst, n, k);
        else px_line(e, "and.b64 %s, %s, %llu;", dst, n, (unsigned long long)(((uint64_t)1 << k) - 1));
        return;
    }
    px_temp(e, PX_B64, b); /* n + (n < 0 ? 2^k - 1 : 0) */
    px_line(e, "shr.s64 %s, %s, 63;", b, n);
    px_line(e, "shr.u64 %s, %s, %d;", b, b, 64 - k);
    px_line(e, "add.s64 %s, %s, %s;", b, b, n);
    if (div) {
        px_line(e, "shr.s64 %s, %s, %d;", dst, b, k);
    } else { /* n - (biased & -2^k) */
        px_line(e, "and.b64 %s, %s, %lld;", b, b, (long long)(~(((uint64_t)1 << k) - 1)));
        px_line(e, "sub.s64 %s, %s, %s;", dst, n, b);
    }
}

/* a 64-bit DIV or REM: by 2^k as above; else the 32-bit op where both operands fit in 32
 * bits (then both are non-negative), the 64-bit one where not */
static bool divide64(px_fn *e, const cute_ir_inst *in, bool sgn)
{
    const cute_ir_inst *c = px_const(e, in->a[1]);
    int64_t dv = c ? c->imm : 0;
    if (c && (dv == 0 || (sgn && dv < 0) || dv == 1)) return false; /* as they are */
    if (c && (dv & (dv - 1)) == 0) {
        int k = 0;
        while (((uint64_t)1 << k) != (uint64_t)dv) k++;
        pow2_64(e, in, sgn && !(e->nonneg && e->nonneg[in->a[0]]), k);
        return true;
    }
    if (c && (uint64_t)dv >> 32) return false;
    char n[PX_NAME], d[PX_NAME], dst[PX_NAME], w[PX_NAME], p[PX_NAME], n32[PX_NAME], d32[PX_NAME], q32[PX_NAME];
    px_reg(e, in->a[0], -1, n);
    px_opnd(e, in->a[1], -1, d);
    px_reg(e, in->dst, -1, dst);
    px_temp(e, PX_B64, w), px_temp(e, PX_PRED, p);
    px_temp(e, PX_B32, n32), px_temp(e, PX_B32, d32), px_temp(e, PX_B32, q32);
    const char *op = in->op == CUTE_OP_DIV ? "div" : "rem";
    uint32_t slow = px_label(e), end = px_label(e);
    if (c) px_line(e, "shr.u64 %s, %s, 32;", w, n);
    else px_line(e, "or.b64 %s, %s, %s;", w, n, d), px_line(e, "shr.u64 %s, %s, 32;", w, w);
    px_line(e, "setp.ne.u64 %s, %s, 0;", p, w);
    px_line(e, "@%s bra $L%u;", p, slow);
    px_line(e, "cvt.u32.u64 %s, %s;", n32, n);
    if (c) {
        udiv(e, q32, n32, (uint32_t)dv);
        if (in->op == CUTE_OP_REM) px_line(e, "mad.lo.s32 %s, %s, %d, %s;", q32, q32, (int32_t)(0u - (uint32_t)dv), n32);
    } else {
        px_line(e, "cvt.u32.u64 %s, %s;", d32, d);
        px_line(e, "%s.u32 %s, %s, %s;", op, q32, n32, d32);
    }
    px_line(e, "cvt.u64.u32 %s, %s;", dst, q32);
    px_line(e, "bra.uni $L%u;", end);
    cc_printf(e->out, "$L%u:\n", slow);
    px_line(e, "%s.%s64 %s, %s, %s;", op, sgn ? "s" : "u", dst, n, d);
    cc_printf(e->out, "$L%u:\n", end);
    return true;
}

bool px_divide_const(px_fn *e, const cute_ir_inst *in)
{
    cute_op op = (cute_op)in->op;
    if (op != CUTE_OP_DIV && op != CUTE_OP_REM) return false;
    cute_type t = cute_ir_type(e->f, in->a[0]);
    cute_dtype dt = (cute_dtype)t.dtype;
    if (t.lanes == 1 && (dt == CUTE_I64 || dt == CUTE_U64)) return divide64(e, in, dt == CUTE_I64);
    const cute_ir_inst *c = px_const(e, in->a[1]);
    if (t.lanes != 1 || !c || (dt != CUTE_I32 && dt != CUTE_U32)) return false;
    bool sgn = dt == CUTE_I32;
    int64_t dv = sgn ? (int32_t)c->imm : (int64_t)(uint32_t)c->imm;
    if (dv <= 1) return false; /* 0 (undefined), 1 and negative divisors: as they are */
    /* not the unsigned op where the dividend is never negative: fewer instructions, but
     * ptxas then took 1,032 SASS instructions for the step-5 bf16 GEMM against 984, and
     * spilled 56 bytes in the e4m3 one (its k-loop's stage index, k % 3) */
    uint32_t d = (uint32_t)dv;
    char n[PX_NAME], dst[PX_NAME], q[PX_NAME];
    px_reg(e, in->a[0], -1, n);
    px_reg(e, in->dst, -1, dst);
    px_temp(e, PX_B32, q);
    int l = ceil_log2(d);
    if (!sgn) {
        udiv(e, q, n, d);
    } else if (((uint64_t)1 << l) == d) { /* (n + (n < 0 ? d - 1 : 0)) >> l */
        char b[PX_NAME];
        px_temp(e, PX_B32, b);
        px_line(e, "shr.s32 %s, %s, 31;", b, n);
        px_line(e, "shr.u32 %s, %s, %d;", b, b, 32 - l);
        px_line(e, "add.s32 %s, %s, %s;", b, b, n);
        px_line(e, "shr.s32 %s, %s, %d;", q, b, l);
    } else {
        char a[PX_NAME], neg[PX_NAME], p[PX_NAME];
        px_temp(e, PX_B32, a), px_temp(e, PX_B32, neg), px_temp(e, PX_PRED, p);
        px_line(e, "abs.s32 %s, %s;", a, n); /* |INT_MIN| is 2^31 as u32 */
        udiv(e, q, a, d);
        px_line(e, "setp.lt.s32 %s, %s, 0;", p, n);
        px_line(e, "neg.s32 %s, %s;", neg, q);
        px_line(e, "selp.b32 %s, %s, %s, %s;", q, neg, q, p);
    }
    if (op == CUTE_OP_DIV)
        px_line(e, "mov.b32 %s, %s;", dst, q);
    else /* n - q d */
        px_line(e, "mad.lo.s32 %s, %s, %d, %s;", dst, q, (int32_t)(0u - d), n);
    return true;
}
