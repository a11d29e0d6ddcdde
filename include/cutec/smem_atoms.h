/* cutec/smem_atoms.h — the swizzled shared-memory layout atoms CuTe builds tiles from, and
 * the alignment a swizzled layout needs from its base.
 *
 * An atom is a small swizzled layout (a cute_composed: sw o 0 o L, in ELEMENTS of its type)
 * that cute_composed_tile_to_shape repeats over a stage (rows, cols, stages).  Its 8 rows of
 * at most 128 bytes each keep the 16-byte chunks of one column in 8 different bank groups,
 * so a warp's ldmatrix (eight 16-byte rows) or 128-bit accesses are conflict-free.
 *
 *   SM80 (CuTe DSL ampere/tensorop_gemm.py's _make_smem_layout_AB; CuTe C++'s examples):
 *     K-major 16-bit, 64 wide:  Sw<3,3,3> o 0 o (8,64):(64,1)
 *     MN-major 16-bit, 64 wide: Sw<3,3,3> o 0 o (64,8):(1,64)
 *     narrower major modes swizzle fewer bits: 32 wide is Sw<2,3,3> o 0 o (8,32):(32,1).
 *     8-bit types keep 16-byte chunks whole: Sw<3,4,3> o 0 o (8,128):(128,1).
 *   SM90 GMMA (CuTe's GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>): CuTe defines
 *     them in bits with a byte swizzle, Sw<b,4,3> o (8, 128*2^b bits); in elements of T
 *     they are Sw<b, 4 - log2(bytes of T), 3> o (8, 1024*2^b/bits(T)) (K-major) and the
 *     transpose (MN-major).  Layout_K_SW128_Atom<half_t> is Sw<3,3,3> o 0 o (8,64):(64,1),
 *     the SM80 atom above.
 */
#ifndef CUTEC_SMEM_ATOMS_H
#define CUTEC_SMEM_ATOMS_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/ir.h"
#include "cutec/layout.h"

/* which mode of a (MN, K) tile is contiguous */
typedef enum { CUTE_MAJOR_K, CUTE_MAJOR_MN } cute_major;

/* The SM80 atom for a tile whose major mode has major_size elements (64 and more use 128
 * bytes), filled by copies of copy_bits (128 for cp.async of 16 bytes). */
cute_composed cute_smem_atom_sm80(cute_alg *c, cute_dtype d, cute_major major, int64_t major_size,
                                  int copy_bits);
/* A GMMA atom by CuTe's name ("Layout_K_SW128_Atom", "Layout_MN_SW64_Atom", ...) for d.
 * false with an error naming the known ones. */
bool cute_smem_atom_gmma(cute_alg *c, const char *name, cute_dtype d, cute_composed *out);
/* the GMMA atom names, NULL-terminated */
extern const char *const cute_smem_atom_gmma_names[];

/* An atom repeated over a stage shape ((rows, cols) or (rows, cols, stages)), the atoms
 * ordered column-major (CuTe's tile_to_shape with order (0,1,2)). */
cute_composed cute_smem_layout_staged(cute_alg *c, const cute_composed *atom,
                                      const cute_tuple *shape);

/* A wgmma operand's tile: GMMA atom `name` of d staged over (rows, max(K, the atom's
 * width)), as a GEMM's K tile holds it (the operand is its first (rows, K) block). */
cute_composed cute_smem_layout_gmma_tile(cute_alg *c, const char *name, cute_dtype d, int64_t rows,
                                         int64_t K);

/* (the alignment a swizzled layout needs from its base: cute_swizzle_align_bytes in
 * cutec/smem.h; cute_smem_alloc_tensor_swizzled gives it) */

CUTE_API_END
#endif
