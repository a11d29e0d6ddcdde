/* The sm_100 atoms by CuTe's names (mma_traits_sm100.hpp, copy_traits_sm100.hpp): the
 * tcgen05.mma families, the tensor-memory loads and stores (T2R, R2T) and the shared ->
 * tensor-memory copies (S2T, UTCCP).  CuTe's MMA traits are templates of M and N; a row
 * here shows them at M = 128 (one CTA) or 256 (a CTA pair), N = 256, and cute_umma_atom
 * (umma.c) makes an atom of any M and N the instruction has.  Layouts, as CuTe writes them:
 *   one CTA   ThrID 1:0, ALayout (1,(M,K)):(0,(1,M)), BLayout (1,(N,K)):(0,(1,N)),
 *             CLayout (1,(M,N)):(0,(1,M))   (one thread issues; the tiles are shared memory
 *             and tensor memory, not registers)
 *   2x1SM     ThrID 2:1, ALayout (2,(M/2,K)):(M/2,(1,M)), BLayout (2,(N/2,K)):(N/2,(1,N)),
 *             CLayout (2,(M/2,N)):(M/2,(1,M))  (the pair's peer CTA holds the second half)
 * K is 256 bits of A (16 f16/bf16, 8 tf32, 32 8-bit), 64 for the 4-bit kinds.  The
 * block-scaled kinds read one scale factor per SFVecSize elements of K from tensor memory,
 * laid out as CuTe's Sm1xxBlockScaledBasicChunk SfKMajorAtom: ((32,4),(SFVecSize,4)):
 * ((16,4),(0,1)), 128 rows of M (or N) by 4 scale factors of K.
 * The tensor-memory copies' layouts are CuTe's in bits, tensor memory's lane stride being
 * TMEM::DP_b = 2^21.  None of these has run on a Blackwell: docs/blackwell.md. */
#include <stddef.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_rows.h"

/* clang-format off */
#define UMMA_TRAITS {CUTE_SCOPE_THREAD, CUTE_PRED_NONE, true}
#define SF_FIELDS {"Shape_MNK", "ThrID", "ALayout", "BLayout", "CLayout", "SFLayout"}
#define ONE_CTA(k) "1:0", "(1,(128," #k ")):(0,(1,128))", "(1,(256," #k ")):(0,(1,256))", "(1,(128,256)):(0,(1,128))"
#define TWO_CTA(k) "2:1", "(2,(128," #k ")):(128,(1,256))", "(2,(128," #k ")):(128,(1,256))", \
                   "(2,(128,256)):(128,(1,256))"
#define SF_ATOM(vs) "((32,4),(" #vs ",4)):((16,4),(0,1))"

#define UMMA(nm, dsl_, ty, kind_, ptx, m, k, cta, ...)                                              \
    {{nm, dsl_, true, 100, UMMA_TRAITS, ty, "tcgen05.mma.cta_group::" #cta ".kind::" ptx, SF_FIELDS, \
      {"(" #m ",256," #k ")", __VA_ARGS__}}, kind_, {m, 256, k}, 0, 0, false, NULL}

#define COPY_FIELDS {"ThrID", "SrcLayout", "DstLayout", "RefLayout", NULL}
/* tcgen05.ld .32x32b.xN: lane i of the warp reads data path (lane) i, N 32-bit columns */
/* (the logical bits are ValID's, (32 N, 32):(1, DP_b): lane i's N words are bits 32 N i ..) */
#define T2R(n, bits, mine) {{"SM100_TMEM_LOAD_32dp32b" #n "x", "", false, 100, {CUTE_SCOPE_WARP, CUTE_PRED_NONE, true}, \
    "", "tcgen05.ld.sync.aligned.32x32b.x" #n ".b32", COPY_FIELDS, \
    {"32:1", "(32," #bits "):(0,1)", "(32," #mine "):(" #mine ",1)", "(32," #bits "):(0,1)", NULL}}, \
    ROW_TMEM_LOAD, {0, 0, 0}, 32 * n, 0, false, NULL}
#define R2T(n, bits, mine) {{"SM100_TMEM_STORE_32dp32b" #n "x", "", false, 100, {CUTE_SCOPE_WARP, CUTE_PRED_NONE, true}, \
    "", "tcgen05.st.sync.aligned.32x32b.x" #n ".b32", COPY_FIELDS, \
    {"32:1", "(32," #mine "):(" #mine ",1)", "(32," #bits "):(0,1)", "(32," #bits "):(0,1)", NULL}}, \
    ROW_TMEM_STORE, {0, 0, 0}, 32 * n, 0, false, NULL}
/* tcgen05.cp: one thread copies a shared-memory matrix (a descriptor) into tensor memory */
#define UTCCP_GROUP(nm, group, ptx, bits) {{nm, "", false, 100, {CUTE_SCOPE_THREAD, CUTE_PRED_NONE, true}, "", \
    "tcgen05.cp.cta_group::" #group "." ptx, COPY_FIELDS, \
    {"1:0", "(1," #bits "):(0,1)", "(1," #bits "):(0,1)", "(1," #bits "):(0,1)", NULL}}, \
    ROW_UTCCP, {0, 0, 0}, bits, 0, false, NULL}
#define UTCCP(nm, ptx, bits) UTCCP_GROUP(nm, 1, ptx, bits)
/* the CTA pair's: one thread's copy acts in both blocks (cta_group::2) */
#define UTCCP_PAIR(nm, ptx, bits) UTCCP_GROUP(nm, 2, ptx, bits)

static const atom_row rows[] = {
    UMMA("SM100_MMA_TF32_SS", "tcgen05.MmaTF32Op", "f32,tf32,tf32,f32", ROW_UMMA_SS, "tf32", 128, 8, 1, ONE_CTA(8)),
    UMMA("SM100_MMA_F16BF16_SS", "tcgen05.MmaF16BF16Op", "f32,bf16,bf16,f32", ROW_UMMA_SS, "f16", 128, 16, 1,
         ONE_CTA(16)),
    UMMA("SM100_MMA_F8F6F4_SS", "tcgen05.MmaF8Op", "f32,e4m3,e4m3,f32", ROW_UMMA_SS, "f8f6f4", 128, 32, 1,
         ONE_CTA(32)),
    UMMA("SM100_MMA_TF32_TS", "", "f32,tf32,tf32,f32", ROW_UMMA_TS, "tf32", 128, 8, 1, ONE_CTA(8)),
    UMMA("SM100_MMA_F16BF16_TS", "", "f32,bf16,bf16,f32", ROW_UMMA_TS, "f16", 128, 16, 1, ONE_CTA(16)),
    UMMA("SM100_MMA_MXF8F6F4_SS", "tcgen05.MmaMXF8Op", "f32,e4m3,e4m3,f32", ROW_UMMA_SS,
         "mxf8f6f4.block_scale", 128, 32, 1, ONE_CTA(32), SF_ATOM(32)),
    UMMA("SM100_MMA_MXF4_SS", "tcgen05.MmaMXF4Op", "f32,e2m1,e2m1,f32", ROW_UMMA_SS,
         "mxf4.block_scale", 128, 64, 1, ONE_CTA(64), SF_ATOM(32)),
    /* CuTe C++ spells NVFP4 SM100_MMA_MXF4_SS with VS = 16 and ue4m3 scale factors */
    UMMA("SM100_MMA_MXF4NVF4_SS", "tcgen05.MmaMXF4NVF4Op", "f32,e2m1,e2m1,f32", ROW_UMMA_SS,
         "mxf4nvf4.block_scale.scale_vec::4X", 128, 64, 1, ONE_CTA(64), SF_ATOM(16)),
    UMMA("SM100_MMA_TF32_2x1SM_SS", "", "f32,tf32,tf32,f32", ROW_UMMA_SS, "tf32", 256, 8, 2, TWO_CTA(8)),
    UMMA("SM100_MMA_F16BF16_2x1SM_SS", "", "f32,bf16,bf16,f32", ROW_UMMA_SS, "f16", 256, 16, 2, TWO_CTA(16)),
    UMMA("SM100_MMA_F8F6F4_2x1SM_SS", "", "f32,e4m3,e4m3,f32", ROW_UMMA_SS, "f8f6f4", 256, 32, 2, TWO_CTA(32)),
    UMMA("SM100_MMA_F16BF16_2x1SM_TS", "", "f32,bf16,bf16,f32", ROW_UMMA_TS, "f16", 256, 16, 2, TWO_CTA(16)),
    UMMA("SM100_MMA_MXF8F6F4_2x1SM_SS", "", "f32,e4m3,e4m3,f32", ROW_UMMA_SS, "mxf8f6f4.block_scale", 256, 32, 2,
         TWO_CTA(32), SF_ATOM(32)),
    UMMA("SM100_MMA_MXF4_2x1SM_SS", "", "f32,e2m1,e2m1,f32", ROW_UMMA_SS, "mxf4.block_scale", 256, 64, 2,
         TWO_CTA(64), SF_ATOM(32)),
    UMMA("SM100_MMA_MXF4NVF4_2x1SM_SS", "", "f32,e2m1,e2m1,f32", ROW_UMMA_SS, "mxf4nvf4.block_scale.scale_vec::4X",
         256, 64, 2, TWO_CTA(64), SF_ATOM(16)),
    T2R(1, 1024, 32), T2R(2, 2048, 64), T2R(4, 4096, 128), T2R(8, 8192, 256), T2R(16, 16384, 512),
    T2R(32, 32768, 1024), T2R(64, 65536, 2048), T2R(128, 131072, 4096),
    R2T(1, 1024, 32), R2T(2, 2048, 64), R2T(4, 4096, 128), R2T(8, 8192, 256), R2T(16, 16384, 512),
    R2T(32, 32768, 1024), R2T(64, 65536, 2048), R2T(128, 131072, 4096),
    UTCCP("SM100_UTCCP_128dp256bit_1cta", "128x256b", 32768),
    UTCCP("SM100_UTCCP_4x32dp128bit_1cta", "32x128b.warpx4", 4096), /* broadcast to the 4 lane quarters */
    UTCCP_PAIR("SM100_UTCCP_128dp256bit_2cta", "128x256b", 32768),    /* each block of the pair: its own */
    UTCCP_PAIR("SM100_UTCCP_4x32dp128bit_2cta", "32x128b.warpx4", 4096),
};
/* clang-format on */

const atom_row *atom_sm100_rows(int *n)
{
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}
