/* cutec/umma.h — sm_100's tcgen05.mma as CuTe atoms (CuTe's SM100_MMA_*_SS traits and the
 * cute::gemm that issues them; CuTe DSL's tcgen05.MmaF16BF16Op ...).  An sm_100 MMA is issued
 * by one thread: A and B are shared-memory tiles (their descriptors come from their layouts,
 * cutec/gmma_desc.h), D is tensor memory (cutec/tcgen05.h).  The rows and their layouts:
 * `cutec show atom SM100_MMA_F16BF16_SS`; docs/blackwell.md.  Verified by the interpreter
 * and by ptxas for sm_100a only: no Blackwell has run them. */
#ifndef CUTEC_UMMA_H
#define CUTEC_UMMA_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/atom_table.h"
#include "cutec/tcgen05.h"

/* The atom `name` (an _SS row of the table: SM100_MMA_F16BF16_SS, _TF32_SS, _F8F6F4_SS; or a _TS
 * one of one block: SM100_MMA_F16BF16_TS, _TF32_TS, issued by cute_umma_gemm_ts) for A
 * and B of type ab and an f32 accumulator, of shape M x N (M 64 or 128, N a multiple of 8 (M
 * 64) or 16 (M 128) up to 256) and the row's K; or the CTA pair's (SM100_MMA_F16BF16_2x1SM_SS,
 * _TF32_2x1SM_SS, _F8F6F4_2x1SM_SS: M 256, N a multiple of 32 up to 256, each block's tiles
 * M / 2 rows of A and N / 2 of B; its kernel calls cute_tcgen05_cta_group(c, 2)); false with
 * the reason in c's error (an unknown name, a type or shape the instruction has not). */
bool cute_umma_atom(cute_alg *c, const char *name, cute_dtype ab, int m, int n, cute_mma_atom *out);

/* D (tensor memory at d: lane 0, D's first column) = A B^T, + D where accumulate (a u32,
 * nonzero: yes) — A (M, K) and B (N, K) shared tiles of the atom's type (the pair's: this
 * block's (M / 2, K) and (N / 2, K)), K a multiple of the
 * atom's: one tcgen05.mma per K of the atom, the later ones accumulating.  Issue it from one
 * thread (cute_elect_one); its completion is a tcgen05.commit's (cute_tcgen05_commit). */
void cute_umma_gemm(cute_ctx *c, const cute_mma_atom *atom, cute_val d, cute_tensor A, cute_tensor B,
                    cute_val accumulate);

/* The _TS atoms (SM100_MMA_F16BF16_TS, SM100_MMA_TF32_TS; one block, M 64 or 128): D = A B^T
 * (+ D) with A in tensor memory at a_tmem — row m in lane m (M 64: where D's M = 64 rows lie, from
 * lane 0 or 16), K-major along the columns, two f16 / bf16 a 32-bit column (the first in the low
 * half) or one tf32, as an R2T atom stores them — and B an (N, K) shared tile of the atom's type:
 * one tcgen05.mma per K of the atom, each reading the next 8 columns of A.  From one thread. */
void cute_umma_gemm_ts(cute_ctx *c, const cute_mma_atom *atom, cute_val d, cute_val a_tmem, cute_tensor B,
                       cute_val accumulate);

/* The block-scaled atoms (cute_umma_atom): SM100_MMA_MXF8F6F4_SS (MXFP8: e4m3 / e5m2 A and B,
 * shared tiles of that type, either major, K 32 an instruction, ue8m0 scales per 32 of K),
 * SM100_MMA_MXF4_SS (MXFP4: e2m1, ue8m0 per 32) and SM100_MMA_MXF4NVF4_SS (NVFP4: e2m1, ue4m3
 * per 16); the 4-bit ones take A (M, K) and B (N, K) as shared tiles of their e2m1 as bytes (u8,
 * K / 2 of them a row, K-major), K 64 an instruction.  The scales sit in tensor memory at sfa and
 * sfb where cute_umma_copy_scales puts them: a word of 4 scales a row for each 64 of K (NVFP4)
 * or 128 of K (the MX kinds), held by SfKMajorAtoms of 128 rows (4 columns each; N 64 uses
 * half of one), the atoms of a word side by side, the words one after another along K; the
 * instruction's scale-factor ids walk the bytes of a word. */
void cute_umma_gemm_scaled(cute_ctx *c, const cute_mma_atom *atom, cute_val d, cute_tensor A, cute_tensor B,
                           cute_val sfa, cute_val sfb, cute_val accumulate);
/* S2T (SM100_UTCCP_4x32dp128bit_1cta): the scales in shared tile sf (bytes, whole 512-byte
 * SfKMajorAtoms of 128 rows by 4 scales) into tensor memory from taddr, 4 columns an atom,
 * duplicated into the four lane quarters; one thread, before the MMAs that read them */
void cute_umma_copy_scales(cute_ctx *c, cute_val taddr, cute_tensor sf);

/* The tensor-memory copy atoms by CuTe's names (cute_copy_atom_named; `cutec show atom list`):
 *   SM100_TMEM_LOAD_<dp><N>x[_16b]  (T2R) and SM100_TMEM_STORE_<dp><N>x[_16b] (R2T), dp one of
 *     32dp32b, 16dp32b (tcgen05's 16x32bx2, half_split N columns, 2N packed), 16dp64b, 16dp128b,
 *     16dp256b; N 1, 2, 4 .. (128; 64 for 16dp128b, 32 for 16dp256b); _16b: .pack::16b /
 *     .unpack::16b (a register's halves in the low 16 bits of two columns);
 *   SM100_UTCCP_<shape>_1cta / _2cta (S2T): 128dp256bit, 128dp128bit, 4dp256bit, 4x32dp128bit,
 *     2x64dp128bitlw0213, 2x64dp128bitlw0123 (the _2cta ones in a kernel of the CTA pair).
 * Their layouts are CuTe's, in bits: register bit (t, i) of a T2R (DstLayout; an R2T's
 * SrcLayout) is logical bit L, at tensor-memory bit address ValID(L) from taddr's (a lane is
 * 2^21); a UTCCP value v lands at ValID(v).  cute_tmem_copy issues a T2R atom into regs (atom
 * .bits / 32 u32 values, usable after cute_tcgen05_wait_ld) or an R2T atom from them (done at
 * cute_tcgen05_wait_st), by a whole warp; cute_utccp_copy issues an S2T atom from one thread
 * (the shared matrix of descriptor s_desc; complete at a tcgen05.commit's mbarrier). */
void cute_tmem_copy(cute_ctx *c, const cute_copy_atom *atom, cute_val taddr, cute_val *regs);
void cute_utccp_copy(cute_ctx *c, const cute_copy_atom *atom, cute_val taddr, cute_val s_desc);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_tmem_copy(c, ...) CUTE__CTX_AT((c), cute_tmem_copy((c), __VA_ARGS__))
#define cute_utccp_copy(c, ...) CUTE__CTX_AT((c), cute_utccp_copy((c), __VA_ARGS__))
#define cute_umma_gemm(c, ...) CUTE__CTX_AT((c), cute_umma_gemm((c), __VA_ARGS__))
#define cute_umma_gemm_ts(c, ...) CUTE__CTX_AT((c), cute_umma_gemm_ts((c), __VA_ARGS__))
#define cute_umma_gemm_scaled(c, ...) CUTE__CTX_AT((c), cute_umma_gemm_scaled((c), __VA_ARGS__))
#define cute_umma_copy_scales(c, ...) CUTE__CTX_AT((c), cute_umma_copy_scales((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
