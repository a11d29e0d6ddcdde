/* cutec/tcgen05.h: tcgen05.ld / st (T2R, R2T) as DSL calls, every data-movement shape of the
 * PTX ISA with .pack::16b / .unpack::16b.  The row is found by its mnemonic (cute_inst_lookup),
 * so a shape / num / pack the table lacks is refused at the call site. */
#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include <stdio.h>

#include "ctx_internal.h"
#include "cutec/inst.h"
#include "cutec/tcgen05.h"

/* each shape's name and registers a lane in one repetition (.x1) */
static const struct {
    const char *name;
    int regs;
} shapes[] = {
    [CUTE_TMEM_32x32b] = {"32x32b", 1},   [CUTE_TMEM_16x64b] = {"16x64b", 1}, [CUTE_TMEM_16x128b] = {"16x128b", 2},
    [CUTE_TMEM_16x256b] = {"16x256b", 4}, [CUTE_TMEM_16x32bx2] = {"16x32bx2", 1},
};

int cute_tmem_regs(cute_tmem_shape shape, int num)
{
    if ((unsigned)shape > CUTE_TMEM_16x32bx2 || num < 1 || num > 128 || (num & (num - 1))) return 0;
    int regs = shapes[shape].regs * num;
    return regs <= 128 ? regs : 0;
}

/* the row of tcgen05.<op> shape .x num (packed or not); CUTE_INST_COUNT after a diagnostic */
static cute_inst ldst_row(cute_ctx *c, bool store, cute_tmem_shape shape, int num, bool pack, int half_split,
                          const char *call)
{
    char mnemonic[96];
    if (!cute_tmem_regs(shape, num)) {
        cute_ctx_fail(c, "%s: shape %d .x%d: the shapes are CUTE_TMEM_32x32b, _16x64b, _16x32bx2 (x1 .. x128), "
                      "_16x128b (x1 .. x64), _16x256b (x1 .. x32), num a power of two", call, (int)shape, num);
        return CUTE_INST_COUNT;
    }
    if (shape == CUTE_TMEM_16x32bx2 ? half_split <= 0 || half_split >= 512 : half_split != 0) {
        cute_ctx_fail(c, "%s: half_split %d: 16x32bx2 takes the column offset of warp lanes 16..31 (1..511), the other "
                      "shapes 0", call, half_split);
        return CUTE_INST_COUNT;
    }
    snprintf(mnemonic, sizeof mnemonic, "tcgen05.%s.sync.aligned.%s.x%d%s.b32", store ? "st" : "ld",
             shapes[shape].name, num, !pack ? "" : store ? ".unpack::16b" : ".pack::16b");
    cute_inst row = cute_inst_lookup(mnemonic);
    return ctx_row_ok(c, row, call) ? row : CUTE_INST_COUNT;
}

void cute_tmem_load(cute_ctx *c, cute_tmem_shape shape, int num, bool pack16, cute_val taddr, int half_split,
                    cute_val *out)
{
    static const char call[] = "cute_tmem_load";
    cute_vreg a, r[128];
    if (!ctx_ok(c)) return;
    cute_inst row = ldst_row(c, false, shape, num, pack16, half_split, call);
    if (row == CUTE_INST_COUNT || !ctx_u32_operand(c, taddr, call, "the address", &a)) return;
    int n = cute_tmem_regs(shape, num);
    for (int j = 0; j < n; j++) r[j] = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), "t", false);
    cute_ir_inst_op(&c->b, row, r, n, &a, 1, half_split);
    for (int j = 0; j < n; j++) out[j] = ctx_val(c, r[j]);
}

void cute_tmem_store(cute_ctx *c, cute_tmem_shape shape, int num, bool unpack16, cute_val taddr, int half_split,
                     const cute_val *v)
{
    static const char call[] = "cute_tmem_store";
    cute_vreg in[129];
    if (!ctx_ok(c)) return;
    cute_inst row = ldst_row(c, true, shape, num, unpack16, half_split, call);
    if (row == CUTE_INST_COUNT || !ctx_u32_operand(c, taddr, call, "the address", &in[0])) return;
    int n = cute_tmem_regs(shape, num);
    for (int j = 0; j < n; j++) {
        if (!ctx_usable(c, v[j], "a value")) return;
        if (cute_dtype_bits((cute_dtype)v[j].t.dtype) * v[j].t.lanes != 32) {
            cute_ctx_fail(c, "%s: value %d is %s: each register is 32 bits (u32, i32, f32, f16x2 ...)", call, j,
                          cute_dtype_name((cute_dtype)v[j].t.dtype));
            return;
        }
        in[1 + j] = v[j].r;
    }
    cute_ir_inst_op(&c->b, row, NULL, 0, in, n + 1, half_split);
}

void cute_tmem_load_32dp32b(cute_ctx *c, cute_val taddr, int n, cute_val *out)
{
    cute_tmem_load(c, CUTE_TMEM_32x32b, n, false, taddr, 0, out);
}
