/* cutec/gmma_desc.h — the shared-memory matrix descriptors of wgmma (CuTe's GmmaDescriptor,
 * make_gmma_desc), derived from a shared tensor's layout by the layout algebra.
 *
 * A wgmma operand tile (A: 64 x K, B: N x K; K is 32 bytes: 16 f16/bf16, 8 tf32, 32 8-bit)
 * lives in shared memory as one of CuTe's canonical GMMA layouts: a GMMA atom
 * (Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom, cutec/smem_atoms.h) tiled over the tile.  In
 * 16-byte units (T = 16 / bytes elements each), those are (CuTe, mma_sm90_desc.hpp):
 *   K-major,  INTER:       ((8,m),(T,2)):((1T,SBO),(1,LBO))
 *   K-major,  SW32/64/128: ((8,m),(T,2)):((WT,SBO),(1,T))         W = 2, 4, 8 chunks a row
 *   MN-major, INTER:       ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
 *   MN-major, SW32/64/128: ((T,W,m),(8,k)):((1,T,LBO),(WT,SBO))
 * under the swizzle Sw<log2 W, 4, 3> of byte addresses.  The descriptor (64 bits, the PTX
 * ISA's matrix descriptor) holds the start address, LBO and SBO in 16-byte units (bits 0-13,
 * 16-29, 32-45), the base offset (bits 49-51) and the swizzle (bits 62-63: 0 none,
 * 1 128-byte, 2 64-byte, 3 32-byte).
 *
 * The recognizer checks the defining property over the whole tile, not the layout's
 * spelling: element (r, k) must sit where the canonical form puts it, for every r and k.
 * Anything else is refused with the layout named.  MN-major needs a 16-bit type (the PTX
 * ISA transposes only those).
 */
#ifndef CUTEC_GMMA_DESC_H
#define CUTEC_GMMA_DESC_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdint.h>

#include "cutec/layout.h"
#include "cutec/smem_atoms.h"

typedef enum {
    CUTE_GMMA_INTERLEAVE = 0, /* no swizzle: 8 x 16-byte core matrices */
    CUTE_GMMA_SW128 = 1,
    CUTE_GMMA_SW64 = 2,
    CUTE_GMMA_SW32 = 3,
} cute_gmma_layout_type;

typedef struct cute_gmma_desc {
    cute_major major;  /* K-major, or MN-major (wgmma's transpose bit) */
    uint8_t layout_type; /* cute_gmma_layout_type (the descriptor's encoding) */
    int64_t lbo, sbo;  /* leading / stride byte offsets, bytes */
    int base_offset;   /* bits 49-51: 0, the start's pattern aligned */
    int align;         /* bytes the tile's base must be aligned to (1024 for SW128) */
    int64_t start;     /* bytes from the layout's origin to element (0, 0) */
    uint64_t bits;     /* the descriptor without its start address */
} cute_gmma_desc;

/* The descriptor of a (rows, K) operand tile of type d laid out as sw o start o L (elements;
 * L of rank 2: rows x K, K of 32 bytes).  false with an error naming the layout when it is
 * none of the canonical forms above. */
bool cute_gmma_desc_make(cute_alg *c, cute_dtype d, cute_swizzle sw, const cute_layout *L,
                         cute_gmma_desc *out);
/* the descriptor's 64 bits with the tile's first element at shared byte address addr */
uint64_t cute_gmma_desc_bits(const cute_gmma_desc *g, uint32_t addr);
/* "K-major SW128, LBO 16, SBO 1024" */
int cute_gmma_desc_str(const cute_gmma_desc *g, char *buf, size_t n);

CUTE_API_END
#endif
