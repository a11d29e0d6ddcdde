/* cutec/atom_table.h — the hardware's atoms by CuTe C++'s names (CuTe's atom/ traits as
 * table rows).
 *
 * An MMA row holds what CuTe's MMA_Traits hold: the value types of D, A, B, C, Shape_MNK,
 * ThrID and the ALayout / BLayout / CLayout, (thread, value) -> column-major (m,k) /
 * (n,k) / (m,n), exactly as CuTe writes them; plus its minimum architecture and traits.
 * A copy row holds CuTe's Copy_Traits: ThrID and the SrcLayout / DstLayout / RefLayout
 * in bits.  A copy atom is made for a value type: its layouts are then upcast to elements
 * of that type (CuTe's Copy_Atom<Traits, T> does the same), and the type must not split a
 * thread's contiguous bits (f64 through a 16-bit transposing ldmatrix is refused).
 *
 *   cute_mma_atom mma;
 *   cute_mma_atom_named(c, "SM80_16x8x16_F32BF16BF16F32_TN", &mma);
 *   cute_copy_atom ld;
 *   cute_copy_atom_named(c, "SM75_U32x4_LDSM_N", CUTE_BF16, &ld);
 *
 * Both return false with an error in c naming what is wrong (an unknown name lists the
 * nearest ones; a type the row does not take says which it takes).
 */
#ifndef CUTEC_ATOM_TABLE_H
#define CUTEC_ATOM_TABLE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/copy.h"

bool cute_mma_atom_named(cute_alg *c, const char *name, cute_mma_atom *out);
bool cute_copy_atom_named(cute_alg *c, const char *name, cute_dtype d, cute_copy_atom *out);

/* One row as CuTe prints it: the fields of its traits, in CuTe notation (copy layouts in
 * bits).  For `cutec show atom` and the documentation. */
typedef struct cute_atom_info {
    const char *name; /* CuTe C++'s name */
    const char *dsl;  /* CuTe DSL's spelling, or "" */
    bool mma;
    int min_arch; /* 80 = sm_80 */
    cute_atom_traits traits;
    const char *types; /* MMA: "D,A,B,C" types ("f32,bf16,bf16,f32"); copy: "" (any) */
    const char *inst;  /* the instruction, in PTX's words ("mma.sync.aligned.m16n8k16..."), or
                        * the id of its row where rows share a mnemonic (..._VIA_F16) */
    /* MMA: Shape_MNK, ThrID, ALayout, BLayout, CLayout (and a block-scaled sm_100 MMA's
     * scale factors' layout, SFLayout); copy: ThrID, SrcLayout, DstLayout, RefLayout (bits);
     * unused fields NULL */
    const char *field_name[6];
    const char *field[6];
} cute_atom_info;

int cute_atom_count(void);
/* row i (0 <= i < cute_atom_count()), MMA rows first */
cute_atom_info cute_atom_info_at(int i);
/* the row called name, or false */
bool cute_atom_info_find(const char *name, cute_atom_info *out);

/* --- cp.async's groups: CuTe's cp_async_fence / cp_async_wait<N> ------------------------- */
/* the cp.async copies this thread issued since the last commit form one group */
void cute_cp_async_commit_group(cute_ctx *c);
/* wait until at most n of this thread's committed groups are still in flight */
void cute_cp_async_wait_group(cute_ctx *c, int n);
/* wait for every cp.async this thread issued */
void cute_cp_async_wait_all(cute_ctx *c);

/* --- wgmma's ordering: CuTe's warpgroup_arrive / warpgroup_commit_batch / warpgroup_wait<N>,
 * each executed by the whole warpgroup (128 threads), converged ---------------------------- */
/* wgmma.fence: the warpgroup's register writes are ordered before the wgmma that follow
 * (needed before the first wgmma, and after any write of an accumulator or A register) */
void cute_warpgroup_arrive(cute_ctx *c);
/* the wgmma issued since the last commit form one group */
void cute_warpgroup_commit_batch(cute_ctx *c);
/* wait until at most n of the warpgroup's groups are in flight; only then may their
 * accumulators be read and the shared memory they read be written */
void cute_warpgroup_wait(cute_ctx *c, int n);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_warpgroup_arrive(c) CUTE__CTX_AT((c), cute_warpgroup_arrive(c))
#define cute_warpgroup_commit_batch(c) CUTE__CTX_AT((c), cute_warpgroup_commit_batch(c))
#define cute_warpgroup_wait(c, ...) CUTE__CTX_AT((c), cute_warpgroup_wait((c), __VA_ARGS__))
#define cute_cp_async_commit_group(c) CUTE__CTX_AT((c), cute_cp_async_commit_group(c))
#define cute_cp_async_wait_group(c, ...) CUTE__CTX_AT((c), cute_cp_async_wait_group((c), __VA_ARGS__))
#define cute_cp_async_wait_all(c) CUTE__CTX_AT((c), cute_cp_async_wait_all(c))
/* the algebra-level operations record their site too (as cutec/layout_sites.h) */
#define cute_mma_atom_named(a, ...) CUTE__ALG_AT((a), cute_mma_atom_named((a), __VA_ARGS__))
#define cute_copy_atom_named(a, ...) CUTE__ALG_AT((a), cute_copy_atom_named((a), __VA_ARGS__))
#endif

CUTE_API_END
#endif
