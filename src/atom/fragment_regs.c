/* Register fragments as instruction operands: a fragment's values in order, and values
 * packed into an instruction's 32-bit registers (two 16-bit, four 8-bit) and unpacked.  A
 * packed fragment (packed_regs.c) whose words hold the operand's values in order gives its
 * words to the instruction as they are: nothing is packed or unpacked. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

static bool statically_indexed(cute_ctx *c, const cute_tensor *t, int n, const char *who)
{
    if (t->kind != CUTE_TENSOR_RMEM)
        return cute_ctx_fail(c, "%s: this operand must be registers", who);
    cute_int last = cute_add(&c->alg, t->offset, cute_layout_eval(&c->alg, &t->layout, cute_i(n - 1)));
    if (n > 0 && !cute_is_static(last)) return cute_ctx_fail(c, "%s: registers are statically indexed", who);
    return !c->alg.failed;
}

bool atom_rmem_read(cute_ctx *c, const cute_tensor *t, int n, cute_vreg *out, const char *who)
{
    if (!statically_indexed(c, t, n, who)) return false;
    for (int i = 0; i < n && !c->alg.failed; i++) out[i] = tensor_rmem_get(c, t, i);
    return !c->alg.failed;
}

bool atom_rmem_write(cute_ctx *c, const cute_tensor *t, int n, const cute_vreg *vals, const char *who)
{
    if (!statically_indexed(c, t, n, who)) return false;
    for (int i = 0; i < n && !c->alg.failed; i++) tensor_rmem_set(c, t, i, vals[i]);
    return !c->alg.failed;
}

int atom_vals_per_reg(cute_dtype d) { return tensor_vals_per_word(d); }

cute_type atom_reg_type(cute_dtype d) { return tensor_word_type(d); }

void atom_pack(cute_ctx *c, cute_dtype d, const cute_vreg *vals, int n, cute_vreg *regs)
{
    int k = atom_vals_per_reg(d);
    for (int r = 0; r < n / k; r++)
        regs[r] = k == 1 ? tensor_carried(c, d, vals[r]) : tensor_word_of(c, d, vals + r * k);
}

/* value i of the instruction's registers regs, as d */
static cute_vreg unpacked(cute_ctx *c, cute_dtype d, const cute_vreg *regs, int i)
{
    int k = atom_vals_per_reg(d);
    return k == 1 ? tensor_bits_as(c, regs[i], d) : tensor_word_lane(c, d, regs[i / k], i % k);
}

bool atom_operand_in_place(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, cute_vreg *words)
{
    if (!tensor_rmem_words(c, t, n, words)) return false;
    cute_type want = atom_reg_type(d), have = cute_ir_type(c->fn, words[0]);
    return want.dtype == have.dtype && want.lanes == have.lanes;
}

bool atom_words_in_place(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, cute_vreg *words)
{
    if (atom_vals_per_reg(d) != 1 || t->kind != CUTE_TENSOR_RMEM || t->pack > 1 ||
        !statically_indexed(c, t, n, "an instruction's operand"))
        return false;
    cute_type want = atom_reg_type(d);
    for (int i = 0; i < n; i++) {
        cute_int o = cute_add(&c->alg, t->offset, cute_layout_eval(&c->alg, &t->layout, cute_i(i)));
        cute_type have = cute_ir_type(c->fn, t->regs[o.v]);
        if (have.dtype != want.dtype || have.lanes != want.lanes) return false;
        words[i] = t->regs[o.v];
    }
    return true;
}

bool atom_operand_in(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, cute_vreg *regs,
                     const char *who)
{
    if (atom_operand_in_place(c, d, t, n, regs)) return true;
    cute_vreg vals[ATOM_MAX_VALS];
    if (n > ATOM_MAX_VALS) return cute_ctx_fail(c, "%s: %d values per thread (at most %d)", who, n, ATOM_MAX_VALS);
    if (!atom_rmem_read(c, t, n, vals, who)) return false;
    atom_pack(c, d, vals, n, regs);
    return true;
}

void atom_operand_out(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, const cute_vreg *regs)
{
    cute_vreg words[ATOM_MAX_VALS];
    if (!statically_indexed(c, t, n, "an instruction's result")) return;
    if (atom_operand_in_place(c, d, t, n, words)) {
        for (int w = 0; w < n / atom_vals_per_reg(d); w++) cute_ir_mov(&c->b, words[w], regs[w]);
        return;
    }
    for (int i = 0; i < n && !c->alg.failed; i++) tensor_rmem_set(c, t, i, unpacked(c, d, regs, i));
}

void atom_new_regs(cute_ctx *c, cute_type t, int n, cute_vreg *out)
{
    for (int i = 0; i < n; i++) out[i] = cute_ir_new_vreg(c->fn, t, NULL, false);
}
