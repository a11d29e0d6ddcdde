/* cutec/copy.h — copy atoms as data, TiledCopy, and the copy algorithms
 * (CuTe's Copy_Atom / TiledCopy / ThrCopy, cute.copy, cute.autovec_copy).
 *
 * A copy atom is a table row: how many threads take part (thr_id), and for the source and
 * the destination a thread-value layout (thread, value) -> element index inside the atom
 * (CuTe keeps these in bits and upcasts them by the value type; here they are already in
 * elements of `dtype`), plus `ref_tv`, the layout the tiling is expressed in (the
 * destination's for loads into registers; CuTe's ValLayoutRef), and an emitter that turns
 * one atom's worth of one thread's values into instructions.  A warp-collective atom
 * (ldmatrix, 32 threads) is a row like any other: thr_id has 32 threads.
 *
 * A TiledCopy repeats an atom over threads: layout_tv maps (thread, value) of the whole
 * tiled copy to an element index of the tile `tiler` (column-major over the tiler's shape).
 * get_slice(tid).partition_S/D(tensor) gives a thread's values of every tile of a tensor
 * as (AtomVal, RestM, RestN, ...), exactly as CuTe's tidfrg_S/D does.
 */
#ifndef CUTEC_COPY_H
#define CUTEC_COPY_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/mma.h"

typedef struct cute_copy_atom cute_copy_atom;

/* one atom's work for one thread: src and dst are that thread's values of the atom (rank 1,
 * size = the atom's values per thread); pred is an i1 register or 0 (always) */
typedef void (*cute_copy_emit_fn)(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src,
                                  cute_tensor dst, cute_vreg pred);

struct cute_copy_atom {
    const char *name;       /* "UniversalCopy<uint128>" */
    uint8_t dtype;          /* the value type */
    int bits;               /* bits one thread moves per atom */
    cute_layout thr_id;     /* atom thread -> thread index in the atom's group */
    cute_layout src_tv, dst_tv, ref_tv; /* (thread, value) -> element in the atom */
    int min_arch;           /* 0: any; 80 = sm_80 */
    cute_atom_traits traits;
    bool autovec;           /* copy the whole partition with the widest proven accesses */
    cute_copy_emit_fn emit;
};

/* CuTe's UniversalCopy<uint{bits}>: one thread moves bits/esize(d) consecutive elements with
 * one access of `bits` (8..128; at least one element) */
cute_copy_atom cute_copy_atom_universal(cute_alg *c, cute_dtype d, int bits);
/* AutoVectorizingCopyWithAssumedAlignment<128>: one element per value; cute_copy vectorizes
 * the whole partition up to 128 bits where the layouts and alignment prove it */
cute_copy_atom cute_copy_atom_autovec(cute_alg *c, cute_dtype d);

typedef struct cute_tiled_copy {
    cute_copy_atom atom;
    cute_layout layout_tv; /* (tid, vid) -> element index in the tile (column-major) */
    cute_tiler tiler;      /* the tile: one layout (or int) per mode */
} cute_tiled_copy;

/* CuTe DSL make_tiled_copy_tv (C++ make_tiled_copy(atom, thr, val)): threads laid out by
 * thr_layout, each with a val_layout block of values; tile = raked_product(thr, val) */
cute_tiled_copy cute_make_tiled_copy_tv(cute_alg *c, const cute_copy_atom *atom,
                                        const cute_layout *thr_layout, const cute_layout *val_layout);
/* CuTe DSL make_tiled_copy: from a (thread, value) -> tile-index layout and the tile */
cute_tiled_copy cute_make_tiled_copy(cute_alg *c, const cute_copy_atom *atom,
                                     const cute_layout *layout_tv, const cute_tiler *tiler);
/* the TiledCopy that moves exactly what each thread of `mma` holds of operand A, B or C
 * (CuTe's make_tiled_copy_A/B/C) */
cute_tiled_copy cute_make_tiled_copy_mma(cute_alg *c, const cute_copy_atom *atom,
                                         const cute_tiled_mma *mma, cute_mma_operand op);
int64_t cute_tiled_copy_threads(const cute_tiled_copy *t);
/* the tile's shape (one int per mode) */
cute_tuple cute_tiled_copy_tile_shape(cute_alg *c, const cute_tiled_copy *t);

/* CuTe's tidfrg_S / tidfrg_D on a layout (M,N,...): ((Thr,Val),(RestM,RestN,...)) */
cute_layout cute_tiled_copy_tidfrg(cute_alg *c, const cute_tiled_copy *t, bool src,
                                   const cute_layout *tensor);
/* thread `thr`'s values: (AtomVal,(RestVal...),RestM,RestN,...) and its offset
 * (get_slice(thr).partition_S / partition_D) */
cute_layout cute_tiled_copy_partition(cute_alg *c, const cute_tiled_copy *t, bool src,
                                      cute_int thr, const cute_layout *tensor, cute_tuple *offset);
/* (thread, value) -> column-major index in the tile, for the source or destination side
 * (CuTe's get_layoutS_TV / get_layoutD_TV; for pictures and ownership checks) */
cute_layout cute_tiled_copy_layout_tv(cute_alg *c, const cute_tiled_copy *t, bool src);
/* CuTe's retile: a fragment partitioned for another TiledCopy/TiledMMA, (V,M,N,...),
 * reshaped to this copy's (AtomVal, RestV..., M', N', ...) */
cute_layout cute_tiled_copy_retile(cute_alg *c, const cute_tiled_copy *t, const cute_layout *frag);

/* --- on tensors (inside a kernel) --------------------------------------------------- */
typedef struct cute_thr_copy {
    const cute_tiled_copy *tc;
    cute_int thr;
} cute_thr_copy;

cute_thr_copy cute_tiled_copy_slice(const cute_tiled_copy *tc, cute_int thr);
cute_tensor cute_partition_S(cute_ctx *c, cute_thr_copy thr, cute_tensor t);
cute_tensor cute_partition_D(cute_ctx *c, cute_thr_copy thr, cute_tensor t);
cute_tensor cute_retile_S(cute_ctx *c, cute_thr_copy thr, cute_tensor frag);
cute_tensor cute_retile_D(cute_ctx *c, cute_thr_copy thr, cute_tensor frag);

/* dst = src, element by element, both shaped (AtomVal, Rest...) for `atom` (a TiledCopy's
 * atom, or any atom whose values per thread divide mode 0).  Registers, global and shared
 * memory in any combination; one atom instruction per AtomVal block. */
void cute_copy(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst);
/* as cute_copy where pred (an i1 TensorSSA shaped like src) holds; where it does not, a
 * register destination gets zero (CuTe's copy_if + clear of the fragment) and a memory
 * destination is left alone */
void cute_copy_if(cute_ctx *c, const cute_copy_atom *atom, cute_ssa pred, cute_tensor src,
                  cute_tensor dst);
/* CuTe's copy_if exactly: one predicate per atom, the AND of its values' (an atom runs
 * whole or not at all).  For callers that know no atom straddles the edge of the data
 * (the vector width divides the extent); else cute_copy_if. */
void cute_copy_if_whole(cute_ctx *c, const cute_copy_atom *atom, cute_ssa pred, cute_tensor src,
                        cute_tensor dst);
/* dst = src with the widest accesses (up to 16 bytes) the layouts and alignment prove */
void cute_autovec_copy(cute_ctx *c, cute_tensor src, cute_tensor dst);
/* every element of a register tensor set to 0 */
void cute_clear(cute_ctx *c, cute_tensor t);
/* y = alpha * x + beta * y, elementwise over equally shaped tensors (y in registers or
 * memory); beta == 0 reads no y (BLAS's rule: y may hold NaN) */
void cute_axpby(cute_ctx *c, cute_val alpha, cute_tensor x, cute_val beta, cute_tensor y);
/* the same where pred (an i1 TensorSSA shaped like y) holds; y elsewhere is not touched
 * (a GEMM epilogue's tails) */
void cute_axpby_if(cute_ctx *c, cute_ssa pred, cute_val alpha, cute_tensor x, cute_val beta,
                   cute_tensor y);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_partition_S(c, ...) CUTE__CTX_AT((c), cute_partition_S((c), __VA_ARGS__))
#define cute_partition_D(c, ...) CUTE__CTX_AT((c), cute_partition_D((c), __VA_ARGS__))
#define cute_retile_S(c, ...) CUTE__CTX_AT((c), cute_retile_S((c), __VA_ARGS__))
#define cute_retile_D(c, ...) CUTE__CTX_AT((c), cute_retile_D((c), __VA_ARGS__))
#define cute_copy(c, ...) CUTE__CTX_AT((c), cute_copy((c), __VA_ARGS__))
#define cute_copy_if(c, ...) CUTE__CTX_AT((c), cute_copy_if((c), __VA_ARGS__))
#define cute_copy_if_whole(c, ...) CUTE__CTX_AT((c), cute_copy_if_whole((c), __VA_ARGS__))
#define cute_autovec_copy(c, ...) CUTE__CTX_AT((c), cute_autovec_copy((c), __VA_ARGS__))
#define cute_clear(c, ...) CUTE__CTX_AT((c), cute_clear((c), __VA_ARGS__))
#define cute_axpby_if(c, ...) CUTE__CTX_AT((c), cute_axpby_if((c), __VA_ARGS__))
#define cute_axpby(c, ...) CUTE__CTX_AT((c), cute_axpby((c), __VA_ARGS__))
/* the algebra-level operations record their site too (as cutec/layout_sites.h) */
#define cute_copy_atom_universal(a, ...) CUTE__ALG_AT((a), cute_copy_atom_universal((a), __VA_ARGS__))
#define cute_copy_atom_autovec(a, ...) CUTE__ALG_AT((a), cute_copy_atom_autovec((a), __VA_ARGS__))
#define cute_make_tiled_copy_tv(a, ...) CUTE__ALG_AT((a), cute_make_tiled_copy_tv((a), __VA_ARGS__))
#define cute_make_tiled_copy(a, ...) CUTE__ALG_AT((a), cute_make_tiled_copy((a), __VA_ARGS__))
#define cute_make_tiled_copy_mma(a, ...) CUTE__ALG_AT((a), cute_make_tiled_copy_mma((a), __VA_ARGS__))
#define cute_tiled_copy_tile_shape(a, ...) CUTE__ALG_AT((a), cute_tiled_copy_tile_shape((a), __VA_ARGS__))
#define cute_tiled_copy_tidfrg(a, ...) CUTE__ALG_AT((a), cute_tiled_copy_tidfrg((a), __VA_ARGS__))
#define cute_tiled_copy_partition(a, ...) CUTE__ALG_AT((a), cute_tiled_copy_partition((a), __VA_ARGS__))
#define cute_tiled_copy_layout_tv(a, ...) CUTE__ALG_AT((a), cute_tiled_copy_layout_tv((a), __VA_ARGS__))
#define cute_tiled_copy_retile(a, ...) CUTE__ALG_AT((a), cute_tiled_copy_retile((a), __VA_ARGS__))
#endif

CUTE_API_END
#endif
