/* Copy atoms as table rows, and the emitter of the universal (one thread, one access) atoms.
 * The SM80/SM90 atoms (cp.async, ldmatrix, TMA) are rows of the same table with their own
 * emitters. */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "cutec/copy.h"
#include "atom/atom_internal.h"
#include "cutec/notation.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

/* is the tensor's rank-1 value mode provably n consecutive elements? */
static bool contiguous(cute_ctx *c, const cute_tensor *t, int n)
{
    cute_alg_trial trial;
    cute_alg_trial_begin(&c->alg, &trial);
    cute_layout compact = cute_make_layout(&c->alg, t->layout.shape);
    cute_int run = cute_max_common_vector(&c->alg, &t->layout, &compact);
    bool ok = !c->alg.failed && cute_int_cmp(&c->alg, CUTE_CMP_DIVIDES, cute_i(n), run) == CUTE_TRUE;
    cute_alg_trial_end(&c->alg, &trial);
    return ok;
}

/* the atom's one access of n elements needs the address aligned to its width: proven at
 * trace time, as CuTe DSL does (a wider access than the proof fails at run time, and only
 * when the address happens to be misaligned) */
static bool aligned_enough(cute_ctx *c, const cute_copy_atom *atom, const cute_tensor *t, int n,
                           const char *side)
{
    if (t->kind == CUTE_TENSOR_RMEM || n <= 1) return true;
    int bytes = n * cute_dtype_bytes((cute_dtype)t->dtype), proven = tensor_proven_align(c, t);
    if (proven >= bytes) return true;
    char ty[512];
    cute_tensor_str(c, *t, ty, sizeof ty);
    return cute_ctx_fail(c, "%s: a %d-byte access, but the %s is proven aligned to %d bytes only "
                            "(%s): use a narrower copy atom, or promise the alignment where the "
                            "tensor is made (the argument spec's align, cute_make_tensor)",
                         atom->name, bytes, side, proven, ty);
}

/* UniversalCopy: each thread's n values move with one access of n elements on each memory
 * side (the atom's promise: they are contiguous and aligned), or register moves */
static void universal_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
                           cute_vreg pred)
{
    cute_int sz = cute_size(&c->alg, &src.layout);
    int n = cute_is_static(sz) ? (int)sz.v : -1;
    if (n <= 0 || n > 64) {
        cute_ctx_fail(c, "%s: a call moves a static number of values (got %s)", atom->name,
                      n < 0 ? "a dynamic size" : "too many");
        return;
    }
    const cute_tensor *sides[2] = {&src, &dst};
    for (int s = 0; s < 2; s++)
        if (sides[s]->kind != CUTE_TENSOR_RMEM && n > 1 && !contiguous(c, sides[s], n)) {
            char lay[256];
            cute_layout_str(&sides[s]->layout, lay, sizeof lay);
            cute_ctx_fail(c, "%s: the %s values %s are not %d consecutive elements (choose a "
                             "thread/value layout that gives each thread contiguous values)",
                          atom->name, s ? "destination" : "source", lay, n);
            return;
        }
    for (int s = 0; s < 2; s++)
        if (!aligned_enough(c, atom, sides[s], n, s ? "destination" : "source")) return;
    if (pred) ctx_open_if(c, pred);
    cute_vreg regs[64];
    if (src.kind == CUTE_TENSOR_RMEM)
        atom_rmem_read(c, &src, n, regs, atom->name);
    else
        tensor_access_chunk(c, &src, 0, n, true, regs, false);
    if (dst.kind == CUTE_TENSOR_RMEM) {
        atom_rmem_write(c, &dst, n, regs, atom->name);
    } else {
        tensor_access_chunk(c, &dst, 0, n, false, regs, false);
    }
    if (pred) ctx_close(c);
}

bool copy_atom_is_universal(const cute_copy_atom *a) { return a->emit == universal_emit && !a->autovec; }

static cute_copy_atom atom_row(cute_alg *c, const char *name, cute_dtype d, int vals, int bits)
{
    cute_copy_atom a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.dtype = (uint8_t)d;
    a.bits = bits;
    a.thr_id = cute_layout_parse(c, "1:0");
    a.src_tv = a.dst_tv = a.ref_tv = cute_layout_fmt(c, "(1,%d):(0,1)", vals);
    a.emit = universal_emit;
    return a;
}

cute_copy_atom cute_copy_atom_universal(cute_alg *c, cute_dtype d, int bits)
{
    static const char *const names[] = {"UniversalCopy<uint8>", "UniversalCopy<uint16>",
                                        "UniversalCopy<uint32>", "UniversalCopy<uint64>",
                                        "UniversalCopy<uint128>"};
    int ebits = 8 * cute_dtype_bytes(d);
    int which = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : bits == 128 ? 4 : -1;
    if (which < 0 || ebits <= 0 || bits < ebits || bits % ebits) {
        cute_alg_fail(c, "copy atom: UniversalCopy of %d bits cannot move %s elements (8, 16, 32, "
                         "64 or 128 bits, a multiple of the element)", bits, cute_dtype_name(d));
        return atom_row(c, "UniversalCopy<invalid>", d, 1, ebits);
    }
    return atom_row(c, names[which], d, bits / ebits, bits);
}

cute_copy_atom cute_copy_atom_autovec(cute_alg *c, cute_dtype d)
{
    cute_copy_atom a = atom_row(c, "AutoVectorizingCopyWithAssumedAlignment<128>", d, 1,
                                8 * cute_dtype_bytes(d));
    a.autovec = true;
    return a;
}
