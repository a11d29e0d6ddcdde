/* cutec/tcgen05.h — sm_100a tensor memory and the fifth-generation tensor cores as DSL calls
 * (CuTe DSL's cute.arch / tcgen05 wrappers; docs/blackwell.md).  Each call appends rows of
 * the instruction table (cutec/inst.h) after checking its operands and the target's sm at
 * the user's call site.  A tensor-memory address is a u32 value (lane << 16 | column).
 * Verified by the interpreter and by ptxas for sm_100a only: no Blackwell has run them. */
#ifndef CUTEC_TCGEN05_H
#define CUTEC_TCGEN05_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/trace.h"

/* --- the CTA group: one block (1, the default) or the CTA pair (2) ------------------------- */
/* The kernel's tcgen05 instructions act for one block or for a CTA pair (cta_group::2: the blocks
 * of cluster ranks 2i and 2i + 1 allocate the same columns together, and an MMA of M = 256 that
 * one thread of the pair issues takes A's rows 0..127 and B's first N/2 rows from the even
 * block's shared memory, the rest from the odd block's at the same offsets, and writes D's rows
 * 0..127 to the even block's tensor memory, 128..255 to the odd one's).  A kernel uses one group
 * for all its tcgen05 calls: set it before the first. */
void cute_tcgen05_cta_group(cute_ctx *c, int group);

/* --- the allocator: one warp, converged, calls each (for the pair: one warp of each block) -- */
/* ncols columns (a power of two in 32..512, static) of all 128 lanes; their address is
 * written to the u32 at dst (a shared-memory pointer), for every warp to read after a barrier */
void cute_tmem_alloc(cute_ctx *c, cute_val dst, int ncols);
void cute_tmem_dealloc(cute_ctx *c, cute_val taddr, int ncols);
void cute_tmem_relinquish_alloc_permit(cute_ctx *c);

/* --- the MMA: one thread issues it ------------------------------------------------------- */
/* the instruction descriptor (kind f16: f16 / bf16 A and B; tf32; f8f6f4: e4m3 / e5m2) with an
 * f32 D, M x N (M 256: the CTA pair's), A and B K-major or MN-major; 0 after a diagnostic (a type or shape tcgen05.mma
 * has not) */
uint32_t cute_tcgen05_idesc(cute_ctx *c, cute_dtype a, cute_dtype b, int m, int n, bool a_mn_major,
                            bool b_mn_major);
/* kind::f8f6f4's and mxf8f6f4's operand formats by their descriptor codes: the 6- and 4-bit
 * ones have no cute_dtype, they exist as MMA operands only, "unpacked" in shared memory (each 16
 * elements packed from bit 0 into the low 12 or 8 bytes of a 16-byte chunk, the image TMA's
 * CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B / 16U4_ALIGN16B loads leave: a byte slot an element on
 * average, so the operand's layout and descriptor are the 8-bit ones) */
typedef enum {
    CUTE_TCGEN05_E4M3 = 0, CUTE_TCGEN05_E5M2 = 1, CUTE_TCGEN05_E2M3 = 3, CUTE_TCGEN05_E3M2 = 4, CUTE_TCGEN05_E2M1 = 5
} cute_tcgen05_format;
/* idesc (cute_tcgen05_idesc of e4m3 / e5m2 operands, or cute_tcgen05_idesc_scaled of kind
 * CUTE_TCGEN05_MXF8F6F4) with A's and B's formats a and b; 0 after a diagnostic.  Issue it
 * with cute_tcgen05_mma(c, CUTE_E4M3, ...) (any 8-bit type or CUTE_E2M1 picks kind::f8f6f4)
 * or cute_tcgen05_mma_scaled(c, CUTE_TCGEN05_MXF8F6F4, ...).  The interpreter emulates the
 * 6- and 4-bit operands K-major only. */
uint32_t cute_tcgen05_idesc_formats(cute_ctx *c, uint32_t idesc, cute_tcgen05_format a, cute_tcgen05_format b);
/* the sm_100 shared-memory descriptor of the operand at p (a shared pointer): leading and
 * stride byte offsets (multiples of 16), swizzle 0 (none), 32, 64 or 128 bytes; a u64 value */
cute_val cute_tcgen05_smem_desc(cute_ctx *c, cute_val p, int lbo, int sbo, int swizzle_bytes);
/* D (tensor memory at d) = A B, + D where accumulate (an integer, nonzero: yes); the kind
 * follows A's type in idesc: f16 / bf16, tf32, or 8-bit floats and e2m1 (kind::f8f6f4) */
void cute_tcgen05_mma(cute_ctx *c, cute_dtype a_type, cute_val d, cute_val a_desc, cute_val b_desc,
                      uint32_t idesc, cute_val accumulate);
/* The _TS form (CuTe's SM100_MMA_F16BF16_TS / TF32_TS): A (M x K, K-major) from tensor memory
 * at a_tmem instead of shared memory: row m in lane m, K along the columns from a_tmem's in
 * 32-bit cells (two f16 / bf16 a cell, element 0 in the low half; one tf32), written by
 * tcgen05.st (ordered before the MMA by a fence, a barrier and a fence) or by the issuing
 * thread's earlier MMA; one block only, so far. */
void cute_tcgen05_mma_ts(cute_ctx *c, cute_dtype a_type, cute_val d, cute_val a_tmem, cute_val b_desc,
                         uint32_t idesc, cute_val accumulate);
/* The block-scaled kinds (CuTe's MmaMXF8Op, MmaMXF4Op, MmaMXF4NVF4Op), M 128 (256: the pair):
 *   CUTE_TCGEN05_MXF8F6F4 (MXFP8): e4m3 / e5m2 A and B, either major, K 32 an instruction,
 *                          one ue8m0 scale per 32 of K (scale_vec::1X)
 *   CUTE_TCGEN05_MXF4      (MXFP4): e2m1 A and B (K-major, two a byte), K 64, ue8m0 per 32 (2X)
 *   CUTE_TCGEN05_MXF4NVF4  (NVFP4): e2m1, K 64, ue4m3 per 16 (4X)
 * The scales of row r (of A, of B's N) are in tensor memory at sfa (sfb): lane r % 32 of every
 * quarter, column + r / 32, a 32-bit word of 4 scales (what cute_tcgen05_cp's 32x128b.warpx4
 * copies there from CuTe's SfKMajorAtom).  An instruction reads 4, 2 or 1 of them (4X, 2X, 1X),
 * starting at byte sfa_id (sfb_id) of idesc: 0 for NVFP4, 0 or 2 for MXFP4, 0..3 for MXFP8,
 * so one word serves 1, 2 or 4 instructions along K.  The CTA pair's (cute_tcgen05_cta_group(c,
 * 2), M 256): each block's tensor memory holds at sfa and sfb the scales of its own 128 rows of
 * A and of all N rows of B, which cute_tcgen05_cp of the pair copies there from each block's
 * shared memory. */
typedef enum { CUTE_TCGEN05_MXF8F6F4, CUTE_TCGEN05_MXF4, CUTE_TCGEN05_MXF4NVF4 } cute_tcgen05_scaled_kind;
uint32_t cute_tcgen05_idesc_scaled(cute_ctx *c, cute_tcgen05_scaled_kind kind, cute_dtype a, cute_dtype b, int m,
                                   int n, bool a_mn_major, bool b_mn_major, int sfa_id, int sfb_id);
void cute_tcgen05_mma_scaled(cute_ctx *c, cute_tcgen05_scaled_kind kind, cute_val d, cute_val a_desc,
                             cute_val b_desc, uint32_t idesc, cute_val sfa, cute_val sfb, cute_val accumulate);
/* tcgen05.cp (S2T), one thread: the shared matrix of descriptor s_desc (K-major rows of 16-byte
 * chunks) into tensor memory at taddr, 32-bit words along the columns:
 *   128x256b  128 rows of 32 bytes into lanes 0..127 (8 columns)
 *   128x128b  128 rows of 16 bytes into lanes 0..127 (4 columns)
 *   4x256b    4 rows of 32 bytes, row i into lane taddr's + 32 i (8 columns; taddr's lane < 32)
 *   32x128b.warpx4  32 rows of 16 bytes into every 32-lane quarter (4 columns; scale factors)
 *   64x128b.warpx2::02_13  64 rows of 16 bytes: rows 0..31 into quarters 0 and 2, 32..63 into
 *             quarters 1 and 3;  ::01_23: rows 0..31 into quarters 0 and 1, 32..63 into 2 and 3
 * In a kernel of the CTA pair (cta_group::2), one thread's copy acts in both blocks: each
 * block's shared matrix at the descriptor's offsets into its own tensor memory at taddr. */
typedef enum {
    CUTE_TCGEN05_CP_128x256b, CUTE_TCGEN05_CP_32x128b_WARPX4, CUTE_TCGEN05_CP_128x128b, CUTE_TCGEN05_CP_4x256b,
    CUTE_TCGEN05_CP_64x128b_WARPX2_02_13, CUTE_TCGEN05_CP_64x128b_WARPX2_01_23
} cute_tcgen05_cp_shape;
void cute_tcgen05_cp(cute_ctx *c, cute_tcgen05_cp_shape shape, cute_val taddr, cute_val s_desc);
/* the calling thread's earlier MMAs and copies arrive once on the mbarrier bar when done (a
 * shared pointer; for the CTA pair, a u32 shared::cluster address from cute_mapa: either
 * block's mbarrier) */
void cute_tcgen05_commit(cute_ctx *c, cute_val bar);
/* the CTA pair's commit: one arrival on the mbarrier at bar's offset in every block of the
 * cluster whose bit is set in cta_mask (an integer; 3: both blocks of the pair of ranks 0, 1) */
void cute_tcgen05_commit_multicast(cute_ctx *c, cute_val bar, cute_val cta_mask);
void cute_tcgen05_fence_before_thread_sync(cute_ctx *c);
void cute_tcgen05_fence_after_thread_sync(cute_ctx *c);

/* --- tensor memory <-> registers (warp-collective: tcgen05.ld / st) ------------------------ */
/* The PTX ISA's data-movement shapes: 32x32b (lane l of the warp: tensor-memory lane taddr's + l,
 * a column a register), or 16 lanes from taddr's: 16x64b, 16x128b, 16x256b (the fragments of
 * docs/blackwell.md) and 16x32bx2 (warp lanes 0..15 at taddr's column, 16..31 half_split columns
 * on); num (.xN) repeats the fragment along the columns.  Warp w reaches lanes 32 (w % 4) .. + 31,
 * a 16-lane shape starting at lane 0 or 16 of them. */
typedef enum { CUTE_TMEM_32x32b, CUTE_TMEM_16x64b, CUTE_TMEM_16x128b, CUTE_TMEM_16x256b, CUTE_TMEM_16x32bx2 } cute_tmem_shape;
/* the registers a lane of shape .x num moves; 0 for a shape / num that tcgen05.ld has not */
int cute_tmem_regs(cute_tmem_shape shape, int num);
/* T2R into out[0 .. cute_tmem_regs - 1] (u32 values, usable after cute_tcgen05_wait_ld); pack16
 * (.pack::16b): a register holds the low 16 bits of two adjacent columns, the first in its low
 * half; half_split: 16x32bx2's column offset (1..511), 0 for the other shapes */
void cute_tmem_load(cute_ctx *c, cute_tmem_shape shape, int num, bool pack16, cute_val taddr, int half_split,
                    cute_val *out);
/* R2T from v[0 .. cute_tmem_regs - 1] (32-bit values); unpack16 (.unpack::16b): a register's
 * halves into the low 16 bits of two adjacent columns; done at cute_tcgen05_wait_st */
void cute_tmem_store(cute_ctx *c, cute_tmem_shape shape, int num, bool unpack16, cute_val taddr, int half_split,
                     const cute_val *v);
/* shape 32x32b, no packing: cute_tmem_load(c, CUTE_TMEM_32x32b, n, false, taddr, 0, out) */
void cute_tmem_load_32dp32b(cute_ctx *c, cute_val taddr, int n, cute_val *out);
void cute_tcgen05_wait_ld(cute_ctx *c);
void cute_tcgen05_wait_st(cute_ctx *c);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_tmem_alloc(c, ...) CUTE__CTX_AT((c), cute_tmem_alloc((c), __VA_ARGS__))
#define cute_tmem_dealloc(c, ...) CUTE__CTX_AT((c), cute_tmem_dealloc((c), __VA_ARGS__))
#define cute_tmem_relinquish_alloc_permit(c) CUTE__CTX_AT((c), cute_tmem_relinquish_alloc_permit((c)))
#define cute_tcgen05_idesc(c, ...) CUTE__CTX_AT((c), cute_tcgen05_idesc((c), __VA_ARGS__))
#define cute_tcgen05_smem_desc(c, ...) CUTE__CTX_AT((c), cute_tcgen05_smem_desc((c), __VA_ARGS__))
#define cute_tcgen05_mma(c, ...) CUTE__CTX_AT((c), cute_tcgen05_mma((c), __VA_ARGS__))
#define cute_tcgen05_mma_ts(c, ...) CUTE__CTX_AT((c), cute_tcgen05_mma_ts((c), __VA_ARGS__))
#define cute_tcgen05_commit(c, ...) CUTE__CTX_AT((c), cute_tcgen05_commit((c), __VA_ARGS__))
#define cute_tcgen05_commit_multicast(c, ...) CUTE__CTX_AT((c), cute_tcgen05_commit_multicast((c), __VA_ARGS__))
#define cute_tcgen05_cta_group(c, ...) CUTE__CTX_AT((c), cute_tcgen05_cta_group((c), __VA_ARGS__))
#define cute_tcgen05_idesc_scaled(c, ...) CUTE__CTX_AT((c), cute_tcgen05_idesc_scaled((c), __VA_ARGS__))
#define cute_tcgen05_idesc_formats(c, ...) CUTE__CTX_AT((c), cute_tcgen05_idesc_formats((c), __VA_ARGS__))
#define cute_tcgen05_mma_scaled(c, ...) CUTE__CTX_AT((c), cute_tcgen05_mma_scaled((c), __VA_ARGS__))
#define cute_tcgen05_cp(c, ...) CUTE__CTX_AT((c), cute_tcgen05_cp((c), __VA_ARGS__))
#define cute_tcgen05_fence_before_thread_sync(c) CUTE__CTX_AT((c), cute_tcgen05_fence_before_thread_sync((c)))
#define cute_tcgen05_fence_after_thread_sync(c) CUTE__CTX_AT((c), cute_tcgen05_fence_after_thread_sync((c)))
#define cute_tmem_load_32dp32b(c, ...) CUTE__CTX_AT((c), cute_tmem_load_32dp32b((c), __VA_ARGS__))
#define cute_tcgen05_wait_ld(c) CUTE__CTX_AT((c), cute_tcgen05_wait_ld((c)))
#define cute_tcgen05_wait_st(c) CUTE__CTX_AT((c), cute_tcgen05_wait_st((c)))
#define cute_tmem_load(c, ...) CUTE__CTX_AT((c), cute_tmem_load((c), __VA_ARGS__))
#define cute_tmem_store(c, ...) CUTE__CTX_AT((c), cute_tmem_store((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
