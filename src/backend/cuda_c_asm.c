/* Inline asm statements: the operands of an INST row or an ASM op as GCC-style asm
 * operands, one constraint each by the register's type, a temporary where C's type is not
 * what the constraint wants (vectors and i1 travel as their bits, pointers as integers), and
 * the clobbers the caller asks for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_c_internal.h"

/* the constraint letter for a register of type t, and the integer type it travels as when
 * that is not its own C type (NULL: itself) */
static bool operand_kind(cc_fn *e, cute_type t, bool raw, const char **letter, const char **bits)
{
    int total = t.dtype == CUTE_PTR ? 64 : cute_dtype_bits((cute_dtype)t.dtype) * t.lanes;
    *bits = NULL;
    if (cc_is_smem_ptr(t)) /* the shared-window address itself */
        return *letter = "r", true;
    if (t.dtype == CUTE_PTR) return *letter = "l", *bits = "u64", true;
    if (!raw && t.lanes == 1 && t.dtype == CUTE_F32) return *letter = "f", true;
    if (!raw && t.lanes == 1 && t.dtype == CUTE_F64) return *letter = "d", true;
    if (t.dtype == CUTE_I1 && t.lanes == 1) return *letter = "r", *bits = "u32", true;
    if (total == 16 || total == 32 || total == 64) {
        *letter = total == 16 ? "h" : total == 32 ? "r" : "l";
        bool plain = t.lanes == 1 && cute_dtype_is_int((cute_dtype)t.dtype);
        if (!plain || cute_dtype_bits((cute_dtype)t.dtype) < 16)
            *bits = total == 16 ? "u16" : total == 32 ? "u32" : "u64";
        if (t.lanes == 1 && cc_is_16f((cute_dtype)t.dtype)) *bits = NULL; /* x.bits */
        return true;
    }
    char tb[64];
    cute_type_str(t, tb, sizeof tb);
    return cc_fail(e, CUTE_ERR_UNSUPPORTED, "an asm operand of type %s (16, 32 or 64 bits)", tb);
}

/* the C expression operand k passes */
static void operand_text(cc_fn *e, cute_vreg r, int k, cc_asm_dir dir, const char *bits,
                         char *buf)
{
    char x[CC_NAME];
    cute_type t = cute_ir_type(e->f, r);
    cc_reg(e, r, x);
    if (dir != CC_ASM_IN && bits)
        snprintf(buf, CC_EXPR, "t%d", k);
    else if (!bits && t.lanes == 1 && cc_is_16f((cute_dtype)t.dtype))
        snprintf(buf, CC_EXPR, "%s.bits", x);
    else if (!bits)
        snprintf(buf, CC_EXPR, "%s", x);
    else if (t.dtype == CUTE_I1 || t.dtype == CUTE_PTR || (t.lanes == 1 && cute_dtype_is_int((cute_dtype)t.dtype)))
        snprintf(buf, CC_EXPR, "(%s)%s", bits, x);
    else {
        e->m->needs |= NEED_BITCAST;
        snprintf(buf, CC_EXPR, "cute_bitcast<%s>(%s)", bits, x);
    }
}

/* after the statement: a temporary back into its register */
static void write_back(cc_fn *e, cute_vreg r, int k)
{
    char x[CC_NAME], tb[CC_NAME];
    cute_type t = cute_ir_type(e->f, r);
    cc_reg(e, r, x);
    if (t.dtype == CUTE_I1)
        cc_line(e, "%s = t%d != 0;", x, k);
    else if (t.dtype == CUTE_PTR || (t.lanes == 1 && cute_dtype_is_int((cute_dtype)t.dtype)))
        cc_line(e, "%s = (%s)t%d;", x, cc_type(e, t, tb), k);
    else {
        e->m->needs |= NEED_BITCAST;
        cc_line(e, "%s = cute_bitcast<%s>(t%d);", x, cc_type(e, t, tb), k);
    }
}

static bool statement(cc_fn *e, const char *text, const cute_vreg *var, const cc_asm_dir *dir,
                      const bool *raw, int n, bool memory, const char **letter, const char **bits)
{
    bool temps = false;
    for (int k = 0; k < n; k++) {
        if (!operand_kind(e, cute_ir_type(e->f, var[k]), raw && raw[k], &letter[k], &bits[k]))
            return false;
        if (dir[k] != CC_ASM_IN) {
            temps |= bits[k] != NULL;
            if (dir[k] == CC_ASM_OUT) cc_decl(e, var[k]);
        }
    }
    if (temps) cc_line(e, "{"), e->indent++;
    for (int k = 0; k < n; k++) {
        if (dir[k] == CC_ASM_IN || !bits[k]) continue;
        char init[CC_EXPR] = "";
        if (dir[k] == CC_ASM_INOUT) operand_text(e, var[k], k, CC_ASM_IN, bits[k], init);
        cc_line(e, "%s t%d%s%s;", bits[k], k, *init ? " = " : "", init);
    }
    cc_buf *o = e->out;
    cc_printf(o, "%*sasm volatile(", 4 * e->indent, "");
    cc_c_string(o, text);
    char arg[CC_EXPR];
    for (int pass = 0; pass < 2; pass++) { /* " : outputs : inputs" */
        cc_puts(o, " :");
        bool first = true;
        for (int k = 0; k < n; k++) {
            if ((dir[k] == CC_ASM_IN) != (pass == 1)) continue;
            operand_text(e, var[k], k, dir[k], bits[k], arg);
            const char *mod = dir[k] == CC_ASM_OUT ? "=" : dir[k] == CC_ASM_INOUT ? "+" : "";
            cc_printf(o, "%s \"%s%s\"(%s)", first ? "" : ",", mod, letter[k], arg);
            first = false;
        }
    }
    cc_puts(o, memory ? " : \"memory\");\n" : ");\n");
    for (int k = 0; k < n; k++)
        if (dir[k] != CC_ASM_IN && bits[k]) write_back(e, var[k], k);
    if (temps) e->indent--, cc_line(e, "}");
    return true;
}

bool cc_asm(cc_fn *e, const char *text, const cute_vreg *var, const cc_asm_dir *dir,
            const bool *raw, int n, bool memory)
{
    const char **letter = malloc((size_t)(n ? n : 1) * 2 * sizeof *letter);
    if (!letter) return cc_fail(e, CUTE_ERR_OOM, "out of memory");
    bool ok = statement(e, text, var, dir, raw, n, memory, letter, letter + n);
    free(letter);
    return ok;
}
