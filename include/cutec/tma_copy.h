/* cutec/tma_copy.h — TMA copy atoms: CuTe DSL's cpasync.make_tiled_tma_atom and the copies
 * a kernel issues with one (docs/tma.md).
 *
 * In the host function, cute_make_tma_atom reads the box and the swizzle off the shared
 * layout of one tile (CuTe's smem layout: compact, the global tensor's contiguous mode
 * fastest, composed with a 16-byte-chunk swizzle Sw<B, log2(16/sizeof(T)), 3> or none) and
 * records a tensor map of the global argument, which the compiled function encodes at each
 * call and passes as a __grid_constant__ parameter (CUTE_LAUNCH it like any argument).
 * In the kernel, one thread issues each copy: a box whose first element is at `coord` (one
 * index per mode of the global tensor; any tile, the edges' partial ones included) moves
 * between global and shared memory.  A load completes transaction bytes on an mbarrier
 * (expect cute_tma_atom.bytes on it); stores and reduce-adds go in bulk groups. */
#ifndef CUTEC_TMA_COPY_H
#define CUTEC_TMA_COPY_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"
#include "cutec/tma.h"

typedef enum {
    CUTE_TMA_OP_LOAD,           /* SM90_TMA_LOAD */
    CUTE_TMA_OP_LOAD_MULTICAST, /* SM90_TMA_LOAD_MULTICAST: one box shared by num_multicast CTAs */
    CUTE_TMA_OP_STORE,          /* SM90_TMA_STORE */
    CUTE_TMA_OP_REDUCE_ADD,     /* SM90_TMA_REDUCE_ADD */
    CUTE_TMA_OP_LOAD_2SM,       /* SM100_TMA_2SM_LOAD: the CTA pair's (cta_group::2): this CTA's box, its
                                   bytes counted on an mbarrier of either block of the pair (sm_100) */
} cute_tma_op;

typedef struct cute_tma_atom {
    cute_tma_op op;
    cute_dtype dtype;
    cute_tma_map_spec spec;  /* the map's recipe: TMA dimension j is the tensor's mode spec.mode[j] */
    cute_host_opaque map;    /* the host function's map (pass it to CUTE_LAUNCH) */
    int modes;               /* the global tensor's modes */
    int64_t extent[CUTE_TMA_MAX_RANK]; /* the tile's extent per mode of the global tensor */
    int num_multicast;       /* LOAD_MULTICAST: CTAs sharing a tile, each loading 1/num of it */
    int split;               /* ... along this TMA dimension (the outermost of extent > 1) */
    int64_t bytes;           /* bytes one tile delivers to each CTA's mbarrier */
} cute_tma_atom;

/* In a host function: the atom for copies of tiles of `smem` (a static layout with one mode
 * per mode of gmem, composed with sw) between shared memory and gmem, a tensor argument of
 * the host function as it was given.  Misuse (a layout TMA cannot write, a swizzle it has
 * not, a box over the driver's limits) is reported at the call site; the atom is then
 * unusable (map.index < 0). */
cute_tma_atom cute_make_tma_atom(cute_ctx *c, cute_tma_op op, cute_tensor gmem, cute_layout smem,
                                 cute_swizzle sw, int num_multicast);

/* CuTe DSL's cute.copy(tma_atom, src, dst, tma_bar_ptr=, mcast_mask=), by one thread: one
 * side is a tile of the TMA tensor (a coordinate tensor of the global tensor's shape,
 * cute_make_identity_tensor, tiled like the shared tile by local_tile / zipped_divide: its
 * base coordinate is the box's first element, CuTe's tma_partition), the other a shared tile
 * of the atom's layout.  Coordinate tile -> shared: a load (multicast with o.mask and
 * o.mc_rank), completing on o.bar; shared -> coordinate tile: a store or reduce-add. */
typedef struct cute_tma_copy_opts {
    cute_val bar;    /* loads: the mbarrier */
    cute_val mask;   /* multicast loads: the CTAs (cute_tma_multicast_mask) */
    cute_int mc_rank;/* multicast loads: this CTA's share */
} cute_tma_copy_opts;
void cute_tma_copy(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor src,
                   cute_tensor dst, cute_tma_copy_opts o);

/* In a kernel, by one thread: tile -> smem (a tensor of the atom's shared layout), the tile's
 * bytes completing on bar (a ptr<u64,smem>; for a CUTE_TMA_OP_LOAD_2SM atom, the u32
 * shared::cluster address of an mbarrier of either block of the CTA pair, from cute_mapa).
 * coord: the tile's first element, per mode. */
void cute_tma_load(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                   const cute_int *coord, cute_val bar);
/* the same for LOAD_MULTICAST: this CTA, number mc_rank of the num_multicast sharing the
 * tile, loads its 1/num slice (along the tile's outermost TMA dimension of extent > 1, as
 * CuTe splits it) into smem and bar
 * of every CTA in mask (a u16 of cluster ranks, cute_tma_multicast_mask) */
void cute_tma_load_multicast(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                             const cute_int *coord, cute_val bar, cute_val mask, cute_int mc_rank);
/* smem -> the tile at coord (STORE), or tile += smem (REDUCE_ADD); then commit the group */
void cute_tma_store(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                    const cute_int *coord);
/* wait until at most n bulk groups of this thread are pending (read_only: only their reads
 * of shared memory, so that it may be overwritten) */
void cute_tma_store_wait(cute_ctx *c, int n, bool read_only);

/* The CTAs a tile is multicast to: those of the cluster whose coordinate in `cluster` (a
 * static layout: cluster coordinate -> cluster rank) equals cta's in every mode but `mode`
 * (CuTe's create_tma_multicast_mask).  A u16 value. */
cute_val cute_tma_multicast_mask(cute_ctx *c, cute_layout cluster, const cute_int *cta, int mode);

/* Maps retargeted on the device (grouped GEMM; docs/tma.md).  gmap: a ptr<T,gmem> to 128
 * bytes of global memory, 64-byte aligned, that one thread owns.
 * cute_tma_map_copy: copy the map parameter `map` (an atom's .map, CUTE_LAUNCHed) there;
 * cute_tma_map_retarget: point the copy at tensor t (the atom's dtype and modes, any extents
 * and strides TMA takes: a 16-byte-aligned base, byte strides multiples of 16), keeping the
 * box, swizzle and fill (tensormap.replace);
 * then the writer's cute_tma_map_fence_release and the issuing thread's
 * cute_tma_map_fence_acquire(gmap) before TMA goes through gmap (the interpreter reports a
 * copy through a map replaced and not so fenced). */
void cute_tma_map_copy(cute_ctx *c, cute_val map, cute_val gmap);
void cute_tma_map_retarget(cute_ctx *c, const cute_tma_atom *a, cute_val gmap, cute_tensor t);
void cute_tma_map_fence_release(cute_ctx *c);
void cute_tma_map_fence_acquire(cute_ctx *c, cute_val gmap);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_tma_map_copy(c, ...) CUTE__CTX_AT((c), cute_tma_map_copy((c), __VA_ARGS__))
#define cute_tma_map_retarget(c, ...) CUTE__CTX_AT((c), cute_tma_map_retarget((c), __VA_ARGS__))
#define cute_tma_map_fence_release(c) CUTE__CTX_AT((c), cute_tma_map_fence_release(c))
#define cute_tma_map_fence_acquire(c, ...) CUTE__CTX_AT((c), cute_tma_map_fence_acquire((c), __VA_ARGS__))
#define cute_make_tma_atom(c, ...) CUTE__CTX_AT((c), cute_make_tma_atom((c), __VA_ARGS__))
#define cute_tma_copy(c, ...) CUTE__CTX_AT((c), cute_tma_copy((c), __VA_ARGS__))
#define cute_tma_load(c, ...) CUTE__CTX_AT((c), cute_tma_load((c), __VA_ARGS__))
#define cute_tma_load_multicast(c, ...) CUTE__CTX_AT((c), cute_tma_load_multicast((c), __VA_ARGS__))
#define cute_tma_store(c, ...) CUTE__CTX_AT((c), cute_tma_store((c), __VA_ARGS__))
#define cute_tma_store_wait(c, ...) CUTE__CTX_AT((c), cute_tma_store_wait((c), __VA_ARGS__))
#define cute_tma_multicast_mask(c, ...) CUTE__CTX_AT((c), cute_tma_multicast_mask((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
