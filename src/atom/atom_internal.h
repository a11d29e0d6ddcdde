/* Internal: what the atom layer's files share (tilers, register fragments, instructions). */
#ifndef CUTEC_ATOM_INTERNAL_H
#define CUTEC_ATOM_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/inst.h"
#include "cutec/layout.h"
#include "cutec/tensor.h"

/* a tiler of n parts, each a whole tiler of its own (a layout, an int, '_' or a tuple) */
cute_tiler tiler_tuple(cute_alg *c, int n, const cute_tiler *const *parts);
/* the tiler of one int: n:1 */
cute_tiler int_tiler(cute_alg *c, cute_int n);

/* is this a UniversalCopy atom (one access of its values, as tensor_access_chunk does)? */
bool copy_atom_is_universal(const cute_copy_atom *a);
/* the values of a register tensor's n elements in order, and assignments to them (false:
 * not a register tensor, or not statically indexed; the context is failed naming `who`) */
bool atom_rmem_read(cute_ctx *c, const cute_tensor *t, int n, cute_vreg *out, const char *who);
bool atom_rmem_write(cute_ctx *c, const cute_tensor *t, int n, const cute_vreg *vals, const char *who);

/* A fragment's values packed into an instruction's registers and back: n values of d, k
 * per register (4 bytes / size of d, at least 1), value i in lane i % k of register i / k
 * (PTX's order: lane 0 is the low half or byte).  The register type is d for 4- and 8-byte
 * types, else the 32-bit vector of d (tensor_word_type). */
#define ATOM_MAX_VALS 64
cute_type atom_reg_type(cute_dtype d);
int atom_vals_per_reg(cute_dtype d);
void atom_pack(cute_ctx *c, cute_dtype d, const cute_vreg *vals, int n, cute_vreg *regs);
/* An instruction's operand from register fragment t (n values of d): its registers, read
 * (in) or assigned from the instruction's new registers regs (out).  A packed fragment
 * whose words hold the values in order is used in place; any other is packed or unpacked. */
bool atom_operand_in(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, cute_vreg *regs,
                     const char *who);
/* true, with its words in `words`, when fragment t is a packed one whose words hold the
 * instruction's n values of d in order (used in place: no register is written for it) */
bool atom_operand_in_place(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, cute_vreg *words);
/* ... an operand of one value a word (tf32) whose registers already have the word's type (a
 * view of u32 registers): those registers, read as they are (nothing is written for the
 * instruction); false otherwise */
bool atom_words_in_place(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, cute_vreg *words);
void atom_operand_out(cute_ctx *c, cute_dtype d, const cute_tensor *t, int n, const cute_vreg *regs);
/* n new registers of type t, for an instruction's outputs */
void atom_new_regs(cute_ctx *c, cute_type t, int n, cute_vreg *out);

/* false (the context failed, naming the branch) when the atom, warp-collective, is inside
 * a dynamic IF whose condition provably differs between the lanes of a warp */
bool atom_check_converged(cute_ctx *c, const char *atom);

/* Trace-time proofs on atoms (atom_checks.c), each reporting a misuse at the user's call:
 * the atom's minimum architecture against the compile target, and a TiledCopy's or
 * TiledMMA's thread count against the kernel's static block size. */
typedef struct cute_ctx cute_ctx;
bool atom_arch_ok(cute_ctx *c, int min_arch, const char *atom, const char *what);
bool atom_threads_ok(cute_ctx *c, int64_t threads, const char *tiled, const char *what);
/* the threads of the block that reach the trace's point, proven from the dynamic IFs around
 * it (divergence.c); -1 when unproven */
int64_t atom_threads_here(const cute_ctx *c);

#endif
