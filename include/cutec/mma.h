/* cutec/mma.h — MMA atoms as data and their tiling (CuTe's MMA_Atom / TiledMMA / ThrMMA),
 * at the level of layouts: which (thread, value) owns which element of a C, A or B tile.
 *
 * An atom is a table row: its M,N,K shape, the layout of its threads (ThrID), and for each
 * operand a thread-value layout (thread, value) -> (m,k) / (n,k) / (m,n) inside the atom,
 * column-major.  A TiledMMA repeats the atom over an atom layout of threads (M,N,K) after
 * permuting M, N and K by the given tilers.  partition_* then gives one thread's values of
 * a tile as a layout (and its offset), exactly as CuTe's thrfrg_* and get_slice do.
 * The rows of CuTe's hardware atoms (mma.sync of SM80/SM89/SM90) and their emitters are in
 * cutec/atom_table.h; this header is the partitioning they stand on.
 */
#ifndef CUTEC_MMA_H
#define CUTEC_MMA_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/atom_traits.h"
#include "cutec/ir.h"
#include "cutec/layout.h"
#include "cutec/tensor.h"

typedef struct cute_mma_atom cute_mma_atom;

/* One atom's multiply-accumulate for one thread: D = A * B + C, where A, B, C, D are the
 * thread's values of one atom (rank-1 register tensors, or for SM90 atoms shared-memory
 * tensors the emitter makes descriptors of).  A warp- or warpgroup-collective instruction
 * is one emitter call per thread with that thread's values: the interface is the same. */
typedef void (*cute_mma_emit_fn)(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D,
                                 cute_tensor A, cute_tensor B, cute_tensor C);

struct cute_mma_atom {
    const char *name;      /* "UniversalFMA<f32>" */
    uint8_t a_type, b_type, c_type;
    int64_t m, n, k;       /* the atom's shape */
    cute_layout thr_id;    /* atom thread -> thread index within the atom's group */
    cute_layout a_tv, b_tv, c_tv; /* (thread, value) -> column-major (m,k) / (n,k) / (m,n) */
    int min_arch;          /* 0: any; 80 = sm_80 */
    cute_atom_traits traits;
    cute_mma_emit_fn emit; /* NULL: a row that is listed but cannot be emitted yet */
    bool zero_d;           /* D = A * B, C unread (cute_gemm_zero's first k; wgmma's scale-d 0) */
    bool desc_stage;       /* wgmma: shared operands' descriptors from the tensor's base plus each
                              k-block's offset (CUTEC_WGMMA_DESC=stage; the variable, when set,
                              decides for every atom) */
};

/* the scalar FMA: one thread, one value, 1x1x1 (CuTe's UniversalFMA); d for every operand */
cute_mma_atom cute_mma_atom_universal(cute_alg *c, cute_dtype d);
/* the same with A and B of type ab (f16, bf16, f32, f64) accumulating in acc (f32 for the
 * 16-bit types): the inputs are converted, the FMA runs in acc's type */
cute_mma_atom cute_mma_atom_universal_mixed(cute_alg *c, cute_dtype ab, cute_dtype acc);

typedef struct cute_tiled_mma {
    cute_mma_atom atom;
    cute_layout thr_vmnk; /* (ThrV,ThrM,ThrN,ThrK) -> thread index */
    cute_tiler perm[3];   /* per M, N, K: the permutation tiler ('_' when none was given) */
    bool perm_given[3];
} cute_tiled_mma;

/* atom_layout: (M,N[,K]) of atoms over threads; perm: up to 3 tilers (NULL or '_' for none) */
cute_tiled_mma cute_make_tiled_mma(cute_alg *c, const cute_mma_atom *atom,
                                   const cute_layout *atom_layout, const cute_tiler *perm_m,
                                   const cute_tiler *perm_n, const cute_tiler *perm_k);
int64_t cute_tiled_mma_threads(const cute_tiled_mma *t);
/* the tile the TiledMMA covers in mode i (0 M, 1 N, 2 K) */
cute_int cute_tiled_mma_tile_size(cute_alg *c, const cute_tiled_mma *t, int i);

/* which operand */
typedef enum { CUTE_MMA_A, CUTE_MMA_B, CUTE_MMA_C } cute_mma_operand;

/* CuTe's thrfrg_A/B/C: a tile's layout (M,N) / (M,K) / (N,K) as
 * ((ThrV,(Thr0,Thr1)),(FrgV,(Rest0,Rest1,...))) */
cute_layout cute_tiled_mma_thrfrg(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op,
                                  const cute_layout *tile);
/* thread `thr`'s part of a tile: (FrgV,Rest0,Rest1,...), and its offset (get_slice +
 * partition_A/B/C) */
cute_layout cute_tiled_mma_partition(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op,
                                     cute_int thr, const cute_layout *tile, cute_tuple *offset);

/* (thread index, value) -> column-major index into the operand's tile of the TiledMMA
 * ((M,K), (N,K) or (M,N) of tile_size): CuTe's get_layoutA_TV / B_TV / C_TV */
cute_layout cute_tiled_mma_layout_tv(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op);

/* --- on tensors (inside a kernel) --------------------------------------------------- */
/* thread thr's part of a tile tensor (CuTe: tiled_mma.get_slice(thr).partition_C(t)) */
cute_tensor cute_thr_mma_partition(cute_ctx *c, const cute_tiled_mma *t, cute_mma_operand op,
                                   cute_int thr, cute_tensor tile);
/* a thread's slice of a TiledMMA (CuTe's ThrMMA: tiled_mma.get_slice(thr)) */
typedef struct cute_thr_mma {
    const cute_tiled_mma *mma;
    cute_int thr;
} cute_thr_mma;
cute_thr_mma cute_tiled_mma_slice(const cute_tiled_mma *t, cute_int thr);
cute_tensor cute_partition_A(cute_ctx *c, cute_thr_mma thr, cute_tensor tile); /* (V,M,K,...) */
cute_tensor cute_partition_B(cute_ctx *c, cute_thr_mma thr, cute_tensor tile); /* (V,N,K,...) */
cute_tensor cute_partition_C(cute_ctx *c, cute_thr_mma thr, cute_tensor tile); /* (V,M,N,...) */
/* registers shaped like the thread's partition of a tile (partition_fragment_A/B/C) */
cute_tensor cute_partition_fragment_A(cute_ctx *c, cute_thr_mma thr, cute_tensor tile);
cute_tensor cute_partition_fragment_B(cute_ctx *c, cute_thr_mma thr, cute_tensor tile);
cute_tensor cute_partition_fragment_C(cute_ctx *c, cute_thr_mma thr, cute_tensor tile);
/* registers for a partition: compact, same shape (make_fragment_A/B/C) */
cute_tensor cute_mma_make_fragment(cute_ctx *c, const cute_tiled_mma *t, cute_mma_operand op,
                                   cute_tensor part);
#define cute_make_fragment_A(c, t, part) cute_mma_make_fragment((c), (t), CUTE_MMA_A, (part))
#define cute_make_fragment_B(c, t, part) cute_mma_make_fragment((c), (t), CUTE_MMA_B, (part))
#define cute_make_fragment_C(c, t, part) cute_mma_make_fragment((c), (t), CUTE_MMA_C, (part))
/* D = A * B + C on fragments (V,M,K) x (V,N,K) -> (V,M,N), or (V,M) x (V,N) for one k;
 * D may be C.  One atom emitter call per (m, n, k), k outermost. */
void cute_gemm(cute_ctx *c, const cute_tiled_mma *t, cute_tensor D, cute_tensor A, cute_tensor B,
               cute_tensor C);
/* D = A * B, D's old values unread (CuTe's GMMA::ScaleOut::Zero on the first k).  With a
 * wgmma atom the first k's instructions take scale-d 0 and D's own registers as their
 * accumulators: the batch overwrites D in place, so ptxas keeps it in D's registers (a
 * zero fill then cute_gemm makes a fresh value that it may place elsewhere, while D's old
 * values are still read).  Other atoms: D zeroed, then cute_gemm. */
void cute_gemm_zero(cute_ctx *c, const cute_tiled_mma *t, cute_tensor D, cute_tensor A, cute_tensor B);
/* every register of an rmem tensor set to v */
void cute_fill(cute_ctx *c, cute_tensor t, double v);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_thr_mma_partition(c, ...) CUTE__CTX_AT((c), cute_thr_mma_partition((c), __VA_ARGS__))
#define cute_mma_make_fragment(c, ...) CUTE__CTX_AT((c), cute_mma_make_fragment((c), __VA_ARGS__))
#define cute_gemm(c, ...) CUTE__CTX_AT((c), cute_gemm((c), __VA_ARGS__))
#define cute_partition_A(c, ...) CUTE__CTX_AT((c), cute_partition_A((c), __VA_ARGS__))
#define cute_partition_B(c, ...) CUTE__CTX_AT((c), cute_partition_B((c), __VA_ARGS__))
#define cute_partition_C(c, ...) CUTE__CTX_AT((c), cute_partition_C((c), __VA_ARGS__))
#define cute_partition_fragment_A(c, ...) CUTE__CTX_AT((c), cute_partition_fragment_A((c), __VA_ARGS__))
#define cute_partition_fragment_B(c, ...) CUTE__CTX_AT((c), cute_partition_fragment_B((c), __VA_ARGS__))
#define cute_partition_fragment_C(c, ...) CUTE__CTX_AT((c), cute_partition_fragment_C((c), __VA_ARGS__))
#define cute_fill(c, ...) CUTE__CTX_AT((c), cute_fill((c), __VA_ARGS__))
/* the algebra-level operations record their site too (as cutec/layout_sites.h) */
#define cute_mma_atom_universal(a, ...) CUTE__ALG_AT((a), cute_mma_atom_universal((a), __VA_ARGS__))
#define cute_mma_atom_universal_mixed(a, ...) CUTE__ALG_AT((a), cute_mma_atom_universal_mixed((a), __VA_ARGS__))
#define cute_make_tiled_mma(a, ...) CUTE__ALG_AT((a), cute_make_tiled_mma((a), __VA_ARGS__))
#define cute_tiled_mma_tile_size(a, ...) CUTE__ALG_AT((a), cute_tiled_mma_tile_size((a), __VA_ARGS__))
#define cute_tiled_mma_thrfrg(a, ...) CUTE__ALG_AT((a), cute_tiled_mma_thrfrg((a), __VA_ARGS__))
#define cute_tiled_mma_partition(a, ...) CUTE__ALG_AT((a), cute_tiled_mma_partition((a), __VA_ARGS__))
#define cute_tiled_mma_layout_tv(a, ...) CUTE__ALG_AT((a), cute_tiled_mma_layout_tv((a), __VA_ARGS__))
#endif

CUTE_API_END
#endif
