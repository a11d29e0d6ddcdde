/* Internal: what the tensor layer shares with the layers above it (atoms). */
#ifndef CUTEC_TENSOR_INTERNAL_H
#define CUTEC_TENSOR_INTERNAL_H

#include "cutec/tensor.h"

/* t with layout L and its iterator moved by off (an int for pointers and registers, a
 * coordinate for coordinate tensors): the result of any slice or partition */
cute_tensor tensor_moved(cute_ctx *c, cute_tensor t, cute_layout L, cute_tuple off);

/* Register tensors (tensor.c, packed_regs.c).  tensor_rmem_alloc: registers of type rt
 * for a static layout, k elements to a register.  A packed tensor keeps its 8- and 16-bit
 * elements in 32-bit words (k = tensor_vals_per_word: 4 bytes / element size, else 1), of
 * type tensor_word_type: u32 (a plain 32-bit value, which the C compiler keeps whole where
 * it splits a vector into its lanes), the element's carrier for 4- and 8-byte types (the
 * narrow floats travel as unsigned integers of their width).  tensor_word_lanes is the
 * word seen as the vector of its lanes, tensor_word_lane one lane of word w, as d. */
cute_tensor tensor_rmem_alloc(cute_ctx *c, cute_dtype d, cute_layout layout, int k, cute_type rt);
cute_tensor tensor_make_packed_rmem(cute_ctx *c, cute_dtype d, cute_layout layout);
int tensor_vals_per_word(cute_dtype d);
cute_type tensor_word_type(cute_dtype d);
cute_type tensor_word_lanes(cute_dtype d);
cute_vreg tensor_word_lane(cute_ctx *c, cute_dtype d, cute_vreg w, int lane);
/* the word of the k (tensor_vals_per_word) values vals[0..k) of d, value j in lane j */
cute_vreg tensor_word_of(cute_ctx *c, cute_dtype d, const cute_vreg *vals);
/* v's bits as d (v itself when it is of d already); v of d as its carrier */
cute_vreg tensor_bits_as(cute_ctx *c, cute_vreg v, cute_dtype d);
cute_vreg tensor_carried(cute_ctx *c, cute_dtype d, cute_vreg v);
/* element i (in layout order) of a register tensor: its value now (of the tensor's dtype;
 * for an unpacked tensor of its own type, the mutable register itself), and an assignment */
cute_vreg tensor_rmem_get(cute_ctx *c, const cute_tensor *t, int64_t i);
void tensor_rmem_set(cute_ctx *c, const cute_tensor *t, int64_t i, cute_vreg v);
/* the words holding elements 0..n of a packed tensor, when each word holds k consecutive
 * elements in lane order (false otherwise, and for unpacked tensors): an instruction's
 * operands, read or written in place */
bool tensor_rmem_words(cute_ctx *c, const cute_tensor *t, int n, cute_vreg *words);

/* one access of w elements at element i of a global/shared tensor: a LOAD into regs[i..i+w)
 * (assign: into existing mutable registers) or a STORE from them; the caller has proved the
 * chunk contiguous */
void tensor_access_chunk(cute_ctx *c, const cute_tensor *t, int i, int w, bool load,
                         cute_vreg *regs, bool assign);
/* the widest access (elements) whose chunks of a tensor of n elements are contiguous and
 * aligned, as far as the algebra proves */
/* A predicated load of the w-element chunk at element i of t (contiguous and aligned, as
 * tensor_vector_width proves) into the mutable registers regs[0..w): one vector access
 * where `all` holds, else element by element where each[j] holds (`fill` elsewhere).
 * The two branches join on 32-bit words (a vector of u32), not on elements: joined element
 * by element, the 16-bit halves the vector access gives and the 16-bit values of the
 * fallback each take a register of their own, and sixteen predicated f16 chunks per thread
 * then spill (255 registers against 191).  For elements narrower than 4 bytes whose chunk
 * is whole words (tensor_load_by_words). */
bool tensor_load_by_words(const cute_tensor *t, int w);
void tensor_load_chunk_if(cute_ctx *c, const cute_tensor *t, int i, int w, cute_vreg all,
                          const cute_vreg *each, double fill, cute_vreg *regs);
/* compute the pointer to element i of a global/shared tensor now, in the current scope,
 * for the accesses of the scopes opened after it, and the immediates that address the
 * elements i+1 .. i+w-1 from it (a no-op for other tensors) */
void tensor_hoist_ptr(cute_ctx *c, const cute_tensor *t, int i, int w);
int tensor_vector_width(cute_ctx *c, const cute_tensor *t, int n);

/* the alignment, in bytes, the algebra proves for element 0 of a global/shared tensor: the
 * base pointer's, as far as the element offset keeps it */
int tensor_proven_align(cute_ctx *c, const cute_tensor *t);
/* TensorSSA arithmetic on f16/bf16 in the paired instructions (ssa_half2.c): r (made like
 * the operands) gets a op b, a b + d, or -a two elements to an instruction; false (and
 * nothing emitted) for another dtype or op, or a target older than sm_80 */
bool ssa_half2_binop(cute_ctx *c, cute_op op, const cute_ssa *a, const cute_ssa *b, cute_ssa *r);
bool ssa_half2_fma(cute_ctx *c, const cute_ssa *a, const cute_ssa *b, const cute_ssa *d, cute_ssa *r);
bool ssa_half2_neg(cute_ctx *c, const cute_ssa *a, cute_ssa *r);

/* paired values (cute_ssa.pairs): the word holding elements i and i+1 of a (i even), or 0
 * where a has none or v no longer holds the halves it gave; and the record that word w
 * holds a's elements i and i+1 as they are now (a.pairs allocated) */
cute_vreg ssa_pair_word(const cute_ssa *a, int i);
void ssa_pair_set(cute_ssa *a, int i, cute_vreg w);
/* a.pairs for a's pairs, none set yet (false: out of memory, the context failed) */
bool ssa_pairs_alloc(cute_ctx *c, cute_ssa *a);

/* the TensorSSA a failed operation gives (no registers, the poison shape) */
cute_ssa bad_ssa(void);
/* a TensorSSA operand of the kernel being traced (made by it, not by an earlier error) */
bool ssa_usable(cute_ctx *c, const cute_ssa *a, const char *what);
/* a tensor whose iterator belongs to the kernel being traced: its pointer (a value of this
 * kernel, not a host argument that was not passed to the launch) or its registers */
bool tensor_usable(cute_ctx *c, const cute_tensor *t, const char *what);

#endif
