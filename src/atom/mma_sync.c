/* The mma.sync emitter: one warp-collective instruction per atom.  The thread's A, B, C
 * values (rank-1 register fragments in the order of the atom's TV layouts' value modes)
 * are packed into the instruction's registers, two 16-bit or four 8-bit values to a
 * 32-bit register, and D is unpacked from its outputs: CuTe's MMA_Atom::call. */
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

/* the fragment's n registers, after checking it holds exactly n values */
static bool operand(cute_ctx *c, const cute_mma_atom *atom, const cute_tensor *t, int n, char which,
                    cute_vreg *regs)
{
    cute_int size = cute_size(&c->alg, &t->layout);
    if (!cute_is_static(size) || size.v != n || n > MMA_MAX_VALS)
        return cute_ctx_fail(c, "%s: operand %c holds %lld values per thread; the atom takes %d",
                             atom->name, which, (long long)(cute_is_static(size) ? size.v : -1), n);
    return atom_rmem_regs(c, t, n, regs, atom->name);
}

/* in[] of the row: A, B, C registers in order; returns how many */
static int inputs(cute_ctx *c, const cute_mma_atom *atom, const cute_vreg *a, int na,
                  const cute_vreg *b, int nb, const cute_vreg *cc, int nc, cute_vreg *in)
{
    int k = 0;
    atom_pack(c, (cute_dtype)atom->a_type, a, na, in + k);
    k += na / atom_vals_per_reg((cute_dtype)atom->a_type);
    atom_pack(c, (cute_dtype)atom->b_type, b, nb, in + k);
    k += nb / atom_vals_per_reg((cute_dtype)atom->b_type);
    atom_pack(c, (cute_dtype)atom->c_type, cc, nc, in + k);
    return k + nc / atom_vals_per_reg((cute_dtype)atom->c_type);
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
    int na = atom_vals(c, &atom->a_tv), nb = atom_vals(c, &atom->b_tv),
        nc = atom_vals(c, &atom->c_tv);
    cute_vreg a[MMA_MAX_VALS], b[MMA_MAX_VALS], cc[MMA_MAX_VALS], d[MMA_MAX_VALS];
    if (!operand(c, atom, &A, na, 'A', a) || !operand(c, atom, &B, nb, 'B', b) ||
        !operand(c, atom, &C, nc, 'C', cc) || !operand(c, atom, &D, nc, 'D', d))
        return;
    cute_vreg in[3 * MMA_MAX_VALS], out[MMA_MAX_VALS];
    int nin = inputs(c, atom, a, na, b, nb, cc, nc, in);
    int nout = nc / atom_vals_per_reg((cute_dtype)atom->c_type);
    atom_new_regs(c, atom_reg_type((cute_dtype)atom->c_type), nout, out);
    cute_ir_inst_op(&c->b, row, out, nout, in, nin, 0);
    atom_unpack(c, (cute_dtype)atom->c_type, out, nc, d);
}
