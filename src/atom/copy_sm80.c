/* The emitters of ldmatrix, stmatrix and cp.async, and cp.async's groups.
 *
 * ldmatrix / stmatrix: a lane contributes one shared address, the start of its 16-byte row
 * (the thread's shared values of the atom: they must be proven contiguous and 16-byte
 * aligned at trace time), and its registers hold the values of the atom's register side in
 * order, two 16-bit values (or four 8-bit, or one 32-bit) to a register.
 * cp.async: one thread, one access of 4, 8 or 16 bytes, both sides proven contiguous and
 * aligned to the access; under a predicate it zero-fills instead (src-size 0). */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "atom/atom_rows.h"
#include "cutec/notation.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

static int static_size(cute_ctx *c, const cute_tensor *t)
{
    cute_int n = cute_size(&c->alg, &t->layout);
    return cute_is_static(n) && n.v <= 64 ? (int)n.v : -1;
}

/* the shared tensor's n values are one access of n elements: contiguous and aligned to it */
static bool one_access(cute_ctx *c, const cute_copy_atom *atom, const cute_tensor *t, int n,
                       const char *side)
{
    if (t->kind != CUTE_TENSOR_SMEM && t->kind != CUTE_TENSOR_GMEM)
        return cute_ctx_fail(c, "%s: the %s must be in %s memory", atom->name, side,
                             atom->traits.async && !strcmp(side, "source") ? "global" : "shared");
    if (static_size(c, t) == n && tensor_vector_width(c, t, n) == n) return true;
    char lay[256];
    cute_layout_str(&t->layout, lay, sizeof lay);
    return cute_ctx_fail(c,
                         "%s: a thread's %s values %s are not proven to be %d contiguous elements "
                         "aligned to %d bytes (one access); check the layout, its swizzle and the "
                         "tensor's alignment",
                         atom->name, side, lay, n, n * cute_dtype_bytes((cute_dtype)t->dtype));
}

static cute_inst row_of(cute_ctx *c, const cute_copy_atom *atom, const char *id)
{
    cute_inst row = cute_inst_lookup(id);
    if (row == CUTE_INST_COUNT) cute_ctx_fail(c, "%s: no instruction row %s", atom->name, id);
    return row;
}

static bool no_pred(cute_ctx *c, const cute_copy_atom *atom, cute_vreg pred)
{
    if (!pred) return true;
    return cute_ctx_fail(c,
                         "%s cannot be predicated: every lane of the warp executes it (copy whole "
                         "tiles with it, or predicate with a thread-scope atom)",
                         atom->name);
}

/* ldmatrix (load) and stmatrix (!load): the shared side is one row per lane */
static void matrix_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor smem, cute_tensor regs,
                        bool load, cute_vreg pred)
{
    const atom_row *r = atom_row_find(atom->name);
    cute_dtype d = (cute_dtype)atom->dtype;
    int row_elems = 16 / cute_dtype_bytes(d), n = static_size(c, &regs);
    if (!r || !no_pred(c, atom, pred) || !atom_check_converged(c, atom->name) ||
        !one_access(c, atom, &smem, row_elems, load ? "source" : "destination"))
        return;
    if (n != r->bits / (8 * cute_dtype_bytes(d))) {
        cute_ctx_fail(c, "%s: the registers hold %d values per thread; the atom moves %d",
                      atom->name, n, r->bits / (8 * cute_dtype_bytes(d)));
        return;
    }
    cute_inst row = row_of(c, atom, r->info.inst);
    cute_vreg words[4], addr = cute_tensor_ptr(c, smem, cute_i(0)).r;
    if (row == CUTE_INST_COUNT) return;
    if (load) {
        atom_new_regs(c, atom_reg_type(d), r->matrices, words);
        cute_ir_inst_op(&c->b, row, words, r->matrices, &addr, 1, 0);
        if (r->raw_dst && !ldsm_prmt_apply(c, r, atom_reg_type(d), words)) return;
        atom_operand_out(c, d, &regs, n, words);
        return;
    }
    cute_vreg in[5] = {addr};
    if (atom_operand_in(c, d, &regs, n, in + 1, atom->name))
        cute_ir_inst_op(&c->b, row, NULL, 0, in, 1 + r->matrices, 0);
}

void ldsm_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
               cute_vreg pred)
{
    matrix_emit(c, atom, src, dst, true, pred);
}

void stsm_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
               cute_vreg pred)
{
    matrix_emit(c, atom, dst, src, false, pred);
}

void cp_async_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
                   cute_vreg pred)
{
    int bytes = atom->bits / 8, n = bytes / cute_dtype_bytes((cute_dtype)atom->dtype);
    if (src.kind != CUTE_TENSOR_GMEM || dst.kind != CUTE_TENSOR_SMEM) {
        cute_ctx_fail(c, "%s: copies global memory into shared memory", atom->name);
        return;
    }
    if (!one_access(c, atom, &src, n, "source") || !one_access(c, atom, &dst, n, "destination"))
        return;
    char id[40];
    snprintf(id, sizeof id, "CP_ASYNC_%s_%d%s", strstr(atom->name, "CACHEGLOBAL") ? "CG" : "CA",
             bytes, pred ? "_ZFILL" : "");
    cute_inst row = row_of(c, atom, id);
    if (row == CUTE_INST_COUNT) return;
    cute_vreg in[3] = {cute_tensor_ptr(c, dst, cute_i(0)).r, cute_tensor_ptr(c, src, cute_i(0)).r,
                       0};
    if (pred) /* src-size: all of it, or nothing read and the destination zero-filled */
        in[2] = cute_ir_op(&c->b, CUTE_OP_SELECT, cute_type_of(CUTE_U32), pred,
                           cute_ir_const_int(&c->b, CUTE_U32, bytes),
                           cute_ir_const_int(&c->b, CUTE_U32, 0));
    cute_ir_inst_op(&c->b, row, NULL, 0, in, pred ? 3 : 2, 0);
}

static void group_op(cute_ctx *c, cute_inst row, int64_t n)
{
    if (!ctx_ok(c)) return;
    cute_ir_inst_op(&c->b, row, NULL, 0, NULL, 0, n);
}

void cute_cp_async_commit_group(cute_ctx *c)
{
    group_op(c, CUTE_INST_CP_ASYNC_COMMIT_GROUP, 0);
}

void cute_cp_async_wait_group(cute_ctx *c, int n)
{
    if (n < 0) {
        cute_ctx_fail(c, "cute_cp_async_wait_group(%d): at most n groups in flight, n >= 0", n);
        return;
    }
    group_op(c, CUTE_INST_CP_ASYNC_WAIT_GROUP, n);
}

void cute_cp_async_wait_all(cute_ctx *c)
{
    group_op(c, CUTE_INST_CP_ASYNC_WAIT_ALL, 0);
}
