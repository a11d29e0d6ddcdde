/* The mma.sync emitter: one warp-collective instruction per atom.  The thread's A, B, C
 * values (rank-1 register fragments in the order of the atom's TV layouts' value modes)
 * are the instruction's registers, two 16-bit or four 8-bit values to a 32-bit register:
 * a packed fragment's words as they are, any other fragment's values packed (and D
 * unpacked from the outputs): CuTe's MMA_Atom::call. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "atom/atom_rows.h"
#include "trace/ctx_internal.h"

#define MMA_MAX_VALS 32

/* the values a thread holds of one operand: mode 1 of its TV layout */
static int atom_vals(cute_ctx *c, const cute_layout *tv)
{
    cute_layout v = cute_get(&c->alg, tv, 1);
    return (int)cute_size(&c->alg, &v).v;
}

/* the fragment holds exactly n values */
static bool operand(cute_ctx *c, const cute_mma_atom *atom, const cute_tensor *t, int n, char which)
{
    cute_int size = cute_size(&c->alg, &t->layout);
    if (!cute_is_static(size) || size.v != n || n > MMA_MAX_VALS)
        return cute_ctx_fail(c, "%s: operand %c holds %lld values per thread; the atom takes %d",
                             atom->name, which, (long long)(cute_is_static(size) ? size.v : -1), n);
    return true;
}

/* in[] of the row: A, B, C registers in order; returns how many (-1: failed) */
static int inputs(cute_ctx *c, const cute_mma_atom *atom, const cute_tensor *const ops[3], const int n[3],
                  cute_vreg *in)
{
    const cute_dtype types[3] = {(cute_dtype)atom->a_type, (cute_dtype)atom->b_type, (cute_dtype)atom->c_type};
    int k = 0;
    for (int i = 0; i < 3; i++) {
        if (!atom_operand_in(c, types[i], ops[i], n[i], in + k, atom->name)) return -1;
        k += n[i] / atom_vals_per_reg(types[i]);
    }
    return k;
}

void mma_sync_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A,
                   cute_tensor B, cute_tensor C)
{
    const atom_row *r = atom_row_find(atom->name);
    cute_inst row = r ? cute_inst_lookup(r->info.inst) : CUTE_INST_COUNT;
    if (row == CUTE_INST_COUNT) {
        cute_ctx_fail(c, "%s: no instruction row for %s", atom->name, r ? r->info.inst : "it");
        return;
    }
    if (!atom_check_converged(c, atom->name)) return;
    const int n[3] = {atom_vals(c, &atom->a_tv), atom_vals(c, &atom->b_tv), atom_vals(c, &atom->c_tv)};
    if (!operand(c, atom, &A, n[0], 'A') || !operand(c, atom, &B, n[1], 'B') ||
        !operand(c, atom, &C, n[2], 'C') || !operand(c, atom, &D, n[2], 'D'))
        return;
    const cute_tensor *ops[3] = {&A, &B, &C};
    cute_vreg in[3 * MMA_MAX_VALS], out[MMA_MAX_VALS];
    int nin = inputs(c, atom, ops, n, in);
    if (nin < 0) return;
    cute_dtype ct = (cute_dtype)atom->c_type;
    int nout = n[2] / atom_vals_per_reg(ct);
    atom_new_regs(c, atom_reg_type(ct), nout, out);
    cute_ir_inst_op(&c->b, row, out, nout, in, nin, 0);
    atom_operand_out(c, ct, &D, n[2], out);
}
