/* cutec/tma.h — TMA tensor maps (CUtensorMap) as data: the fields, the driver's rules, the
 * encoding for each backend.
 *
 * A tensor map describes a global tensor (dtype, up to 5 dimensions, byte strides) and the
 * box that one TMA instruction moves between it and shared memory (box extents, the
 * shared-memory swizzle, what fills elements outside the tensor).  On a GPU the 128 bytes
 * are what cuTensorMapEncodeTiled writes (opaque); on the interpreter they are these fields
 * themselves (cute_tma_pack), which the interpreter's TMA emulation reads back
 * (cute_tma_unpack), so both backends run from the same validated description.
 *
 * Dimension 0 is the contiguous one (stride: the element's size); dims are innermost first,
 * as the driver takes them.  docs/tma.md has the rules and an example.
 */
#ifndef CUTEC_TMA_H
#define CUTEC_TMA_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutec/backend.h"

#define CUTE_TMA_MAX_RANK 5
#define CUTE_TMA_MAP_BYTES 128

/* the values are cuda.h's CUtensorMapSwizzle / L2promotion / FloatOOBfill */
typedef enum {
    CUTE_TMA_SWIZZLE_NONE = 0,
    CUTE_TMA_SWIZZLE_32B = 1, /* 16-byte chunks permuted within 32-byte spans: Sw<1,4,3> on bytes */
    CUTE_TMA_SWIZZLE_64B = 2, /* Sw<2,4,3> on byte addresses */
    CUTE_TMA_SWIZZLE_128B = 3 /* Sw<3,4,3> on byte addresses */
} cute_tma_swizzle;
typedef enum { CUTE_TMA_L2_NONE, CUTE_TMA_L2_64B, CUTE_TMA_L2_128B, CUTE_TMA_L2_256B } cute_tma_l2;
typedef enum {
    CUTE_TMA_OOB_ZERO = 0, /* elements outside the tensor load as zero */
    CUTE_TMA_OOB_NAN = 1   /* ... as NaN (float types only) */
} cute_tma_oob;

typedef struct cute_tma_desc {
    cute_dtype dtype;                        /* 1, 2, 4 or 8 bytes (cute_tma_data_type) */
    int rank;                                /* 1 to 5 */
    uint64_t address;                        /* the tensor's first element: a device address
                                                (CUDA) or a host address (interpreter); 16-byte
                                                aligned */
    uint64_t dims[CUTE_TMA_MAX_RANK];        /* elements, 1 to 2^32 */
    uint64_t strides[CUTE_TMA_MAX_RANK];     /* bytes; strides[0] is ignored (the element's
                                                size), the others multiples of 16, < 2^40 */
    uint32_t box[CUTE_TMA_MAX_RANK];         /* elements per instruction, 1 to 256 */
    uint32_t elem_strides[CUTE_TMA_MAX_RANK];/* 1 to 8 (0 counts as 1); [0] must be 1 */
    cute_tma_swizzle swizzle;
    cute_tma_l2 l2;
    cute_tma_oob oob;
} cute_tma_desc;

/* cuda.h's CUtensorMapDataType for d, or -1 when TMA cannot move it */
int cute_tma_data_type(cute_dtype d);
/* the swizzle's span in bytes (32, 64, 128; 0 for none) */
int cute_tma_swizzle_bytes(cute_tma_swizzle s);
/* The driver's rules (cuTensorMapEncodeTiled's documentation), checked before the driver
 * sees the fields: CUTE_ERR_INVALID with err naming the field and the rule
 * ("box[0] = 72: box[0] * 2 bytes = 144 is more than the 128B swizzle's span"). */
cute_status cute_tma_desc_check(const cute_tma_desc *d, char *err, size_t n);
/* elements (and bytes) one instruction moves: the product of ceil(box[i] / elem_strides[i]) */
uint64_t cute_tma_box_elems(const cute_tma_desc *d);
uint64_t cute_tma_box_bytes(const cute_tma_desc *d);

/* the interpreter's 128 bytes: the fields, behind a tag that unpack checks (a map written
 * by the driver, or by nobody, is refused: false) */
void cute_tma_pack(const cute_tma_desc *d, void *map);
bool cute_tma_unpack(const void *map, cute_tma_desc *out);

/* Encode d into map (128 bytes, 64-byte aligned) for backend b: the driver's encoding on the
 * CUDA backend (cached per process on every field and the driver, thread-safe), the packed
 * fields on the interpreter.  The fields are checked first; a driver without
 * cuTensorMapEncodeTiled is CUTE_ERR_UNSUPPORTED naming it; err says why. */
cute_status cute_tma_encode(cute_backend *b, const cute_tma_desc *d, void *map, char *err,
                            size_t n);
/* the encode cache's counts since the process began (hits, misses): for tests */
void cute_tma_cache_counts(uint64_t *hits, uint64_t *misses);

CUTE_API_END
#endif
