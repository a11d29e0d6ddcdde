/* The atom table: one row per atom, named and laid out exactly as CuTe's traits
 * (atom/mma_traits_sm80.hpp, mma_traits_sm89.hpp, mma_traits_sm90.hpp,
 * copy_traits_sm75.hpp, copy_traits_sm80.hpp, copy_traits_sm90.hpp).  MMA layouts are
 * (thread, value) -> column-major (m,k) / (n,k) / (m,n); copy layouts are in bits.  The
 * CuTe DSL spelling is the alias docs/atoms.md gives. */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "atom/atom_rows.h"

/* the table reads as a table */
/* clang-format off */

/* CuTe's shared names for the layouts several rows use */
#define SM80_8x4 "((4,8),1):((8,1),0)"                        /* (T32,V1) -> (M8,N4) */
#define SM80_8x8_ROW "((4,8),2):((16,1),8)"                   /* (T32,V2) -> (M8,N8) */
#define SM80_8x16_ROW "((4,8),4):((32,1),8)"                  /* (T32,V4) -> (M8,N16) */
#define SM80_16x8_ROW "((4,8),(2,2)):((32,1),(16,8))"         /* (T32,V4) -> (M16,N8) */
#define A_16x8x16 "((4,8),(2,2,2)):((32,1),(16,8,128))"
#define B_16x8x16 "((4,8),(2,2)):((16,1),(8,64))"
#define A_16x8x32_8BIT "((4,8),(4,2,2)):((64,1),(16,8,256))"
#define B_16x8x32_8BIT "((4,8),(4,2)):((32,1),(8,128))"

#define WARP_SYNC {CUTE_SCOPE_WARP, CUTE_PRED_NONE, false}
#define MMA_FIELDS {"Shape_MNK", "ThrID", "ALayout", "BLayout", "CLayout"}
#define COPY_FIELDS {"ThrID", "SrcLayout", "DstLayout", "RefLayout", NULL}

#define MMA(nm, dsl_, ty, arch, m, n, k, ptx, a, b, cl)                                          \
    {{nm, dsl_, true, arch, WARP_SYNC, ty, ptx, MMA_FIELDS, {"(" #m "," #n "," #k ")", "32:1", a, b, cl}}, \
     ROW_MMA_SYNC, {m, n, k}, 0, 0, false, NULL}

#define LDSM(nm, dsl_, n, t, src, dst) \
    {{nm, dsl_, false, 75, WARP_SYNC, "", "ldmatrix.sync.aligned.m8n8.x" #n t ".shared.b16", COPY_FIELDS, \
      {"32:1", src, dst, dst, NULL}}, ROW_LDSM, {0, 0, 0}, 32 * n, n, sizeof t > 1, NULL}
#define STSM(nm, dsl_, n, t, src, dst) \
    {{nm, dsl_, false, 90, WARP_SYNC, "", "stmatrix.sync.aligned.m8n8.x" #n t ".shared.b16", COPY_FIELDS, \
      {"32:1", src, dst, src, NULL}}, ROW_STSM, {0, 0, 0}, 32 * n, n, sizeof t > 1, NULL}
/* ldmatrix.x4.trans of 8-bit pairs, then prmt: K-major 8-bit MMA fragments from an MN-major
 * tile (kernels/gemm, docs/atoms.md); not CuTe's (it has no 8-bit transposing ldmatrix
 * before sm_100) */
#define LDSM_PRMT(nm, dst) \
    {{nm, "", false, 75, WARP_SYNC, "", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", COPY_FIELDS, \
      {"32:1", LDSM_N_SRC4, dst, dst, NULL}}, ROW_LDSM, {0, 0, 0}, 128, 4, true, LDSM_T_DST8}
#define CP_ASYNC(nm, dsl_, ptx, bits, tv)                                                      \
    {{nm, dsl_, false, 80, {CUTE_SCOPE_THREAD, CUTE_PRED_ZFILL, true}, "", ptx, COPY_FIELDS, \
      {"1:0", tv, tv, tv, NULL}}, ROW_CP_ASYNC, {0, 0, 0}, bits, 0, false, NULL}
#define UCOPY(bits)                                                                            \
    {{"UniversalCopy<uint" #bits ">", "CopyUniversalOp", false, 0, {CUTE_SCOPE_THREAD, CUTE_PRED_BRANCH, false}, \
      "", "ld/st of " #bits " bits", COPY_FIELDS, {"1:0", "(1," #bits "):(0,1)", "(1," #bits "):(0,1)", \
      "(1," #bits "):(0,1)", NULL}}, ROW_UNIVERSAL_COPY, {0, 0, 0}, bits, 0, false, NULL}
#define UFMA(nm, ty)                                                                           \
    {{nm, "MmaUniversalOp", true, 0, {CUTE_SCOPE_THREAD, CUTE_PRED_BRANCH, false}, ty, "fma", MMA_FIELDS, \
      {"(1,1,1)", "1:0", "(1,1):(0,0)", "(1,1):(0,0)", "(1,1):(0,0)"}}, ROW_UNIVERSAL_FMA, {1, 1, 1}, 0, 0, false, NULL}

#define LDSM_N_SRC1 "((8,4),128):((128,0),1)"
#define LDSM_N_SRC2 "((16,2),128):((128,0),1)"
#define LDSM_N_SRC4 "(32,128):(128,1)"
#define LDSM_N_DST1 "(32,32):(32,1)"
#define LDSM_N_DST2 "(32,(32,2)):(32,(1,1024))"
#define LDSM_N_DST4 "(32,(32,4)):(32,(1,1024))"
#define LDSM_T_DST2 "((4,8),(16,2)):((256,16),(1,128))"
#define LDSM_T_DST4 "((4,8),(16,2,2)):((256,16),(1,128,1024))"
#define LDSM_T_DST8 "((4,8),(16,2,4)):((256,16),(1,128,1024))"

#define PTX_MMA "mma.sync.aligned."

const atom_row cute_atom_rows[] = {
    /* fp16 = fp16 * fp16 + fp16, fp32 = fp16 * fp16 + fp32, fp32 = bf16 * bf16 + fp32 */
    MMA("SM80_16x8x8_F16F16F16F16_TN", "MmaF16BF16Op(Float16, Float16, (16,8,8))", "f16,f16,f16,f16", 80, 16, 8, 8,
        PTX_MMA "m16n8k8.row.col.f16.f16.f16.f16", SM80_16x8_ROW, SM80_8x8_ROW, SM80_16x8_ROW),
    MMA("SM80_16x8x16_F16F16F16F16_TN", "MmaF16BF16Op(Float16, Float16, (16,8,16))", "f16,f16,f16,f16", 80, 16, 8, 16,
        PTX_MMA "m16n8k16.row.col.f16.f16.f16.f16", A_16x8x16, B_16x8x16, SM80_16x8_ROW),
    MMA("SM80_16x8x8_F32F16F16F32_TN", "MmaF16BF16Op(Float16, Float32, (16,8,8))", "f32,f16,f16,f32", 80, 16, 8, 8,
        PTX_MMA "m16n8k8.row.col.f32.f16.f16.f32", SM80_16x8_ROW, SM80_8x8_ROW, SM80_16x8_ROW),
    MMA("SM80_16x8x16_F32F16F16F32_TN", "MmaF16BF16Op(Float16, Float32, (16,8,16))", "f32,f16,f16,f32", 80, 16, 8, 16,
        PTX_MMA "m16n8k16.row.col.f32.f16.f16.f32", A_16x8x16, B_16x8x16, SM80_16x8_ROW),
    MMA("SM80_16x8x8_F32BF16BF16F32_TN", "MmaF16BF16Op(BFloat16, Float32, (16,8,8))", "f32,bf16,bf16,f32", 80, 16, 8, 8,
        PTX_MMA "m16n8k8.row.col.f32.bf16.bf16.f32", SM80_16x8_ROW, SM80_8x8_ROW, SM80_16x8_ROW),
    MMA("SM80_16x8x16_F32BF16BF16F32_TN", "MmaF16BF16Op(BFloat16, Float32, (16,8,16))", "f32,bf16,bf16,f32", 80, 16, 8, 16,
        PTX_MMA "m16n8k16.row.col.f32.bf16.bf16.f32", A_16x8x16, B_16x8x16, SM80_16x8_ROW),
    /* fp32 = tf32 * tf32 + fp32 */
    MMA("SM80_16x8x4_F32TF32TF32F32_TN", "MmaTF32Op((16,8,4))", "f32,tf32,tf32,f32", 80, 16, 8, 4,
        PTX_MMA "m16n8k4.row.col.f32.tf32.tf32.f32", "((4,8),2):((16,1),8)", SM80_8x4, SM80_16x8_ROW),
    MMA("SM80_16x8x8_F32TF32TF32F32_TN", "MmaTF32Op((16,8,8))", "f32,tf32,tf32,f32", 80, 16, 8, 8,
        PTX_MMA "m16n8k8.row.col.f32.tf32.tf32.f32", "((4,8),(2,2)):((16,1),(8,64))", "((4,8),2):((8,1),32)",
        SM80_16x8_ROW),
    /* fp64 = fp64 * fp64 + fp64: m8n8k4 on sm_80, the m16n8k{4,8,16} shapes sm_90 added */
    MMA("SM80_8x8x4_F64F64F64F64_TN", "", "f64,f64,f64,f64", 80, 8, 8, 4, PTX_MMA "m8n8k4.row.col.f64.f64.f64.f64",
        SM80_8x4, SM80_8x4, SM80_8x8_ROW),
    MMA("SM90_16x8x4_F64F64F64F64_TN", "", "f64,f64,f64,f64", 90, 16, 8, 4,
        PTX_MMA "m16n8k4.row.col.f64.f64.f64.f64", "((4,8),2):((16,1),8)", "((4,8),1):((8,1),0)", SM80_16x8_ROW),
    MMA("SM90_16x8x8_F64F64F64F64_TN", "", "f64,f64,f64,f64", 90, 16, 8, 8,
        PTX_MMA "m16n8k8.row.col.f64.f64.f64.f64", "((4,8),(2,2)):((16,1),(8,64))", "((4,8),2):((8,1),32)",
        SM80_16x8_ROW),
    MMA("SM90_16x8x16_F64F64F64F64_TN", "", "f64,f64,f64,f64", 90, 16, 8, 16,
        PTX_MMA "m16n8k16.row.col.f64.f64.f64.f64", "((4,8),(2,4)):((16,1),(8,64))", "((4,8),4):((8,1),32)",
        SM80_16x8_ROW),
    /* s32 = {s8,u8} * {s8,u8} + s32 */
#define IMMA(ab, ty, pa, pb)                                                                                 \
    MMA("SM80_16x8x16_S32" ab "S32_TN", "", ty, 80, 16, 8, 16, PTX_MMA "m16n8k16.row.col.s32." pa "." pb ".s32", \
        "((4,8),(4,2)):((64,1),(16,8))", SM80_8x16_ROW, SM80_16x8_ROW),                                      \
    MMA("SM80_16x8x32_S32" ab "S32_TN", "", ty, 80, 16, 8, 32, PTX_MMA "m16n8k32.row.col.s32." pa "." pb ".s32", \
        A_16x8x32_8BIT, B_16x8x32_8BIT, SM80_16x8_ROW)
    IMMA("S8S8", "i32,i8,i8,i32", "s8", "s8"),
    IMMA("S8U8", "i32,i8,u8,i32", "s8", "u8"),
    IMMA("U8S8", "i32,u8,i8,i32", "u8", "s8"),
    IMMA("U8U8", "i32,u8,u8,i32", "u8", "u8"),
    /* fp32 = fp8 * fp8 + fp32 (sm_89) */
#define QMMA(ab, ty, dsl_, pa, pb)                                                                          \
    MMA("SM89_16x8x32_F32" ab "F32_TN", dsl_, ty, 89, 16, 8, 32, PTX_MMA "m16n8k32.row.col.f32." pa "." pb ".f32", \
        A_16x8x32_8BIT, B_16x8x32_8BIT, SM80_16x8_ROW)
    QMMA("E4M3E4M3", "f32,e4m3,e4m3,f32", "MmaFP8Op(Float8E4M3FN, Float32, (16,8,32))", "e4m3", "e4m3"),
    QMMA("E4M3E5M2", "f32,e4m3,e5m2,f32", "", "e4m3", "e5m2"),
    QMMA("E5M2E4M3", "f32,e5m2,e4m3,f32", "", "e5m2", "e4m3"),
    QMMA("E5M2E5M2", "f32,e5m2,e5m2,f32", "MmaFP8Op(Float8E5M2, Float32, (16,8,32))", "e5m2", "e5m2"),
    /* the same on sm_90 as f16 steps accumulating into C (ir_insts.def: ptxas's own lowering
     * spills the library's GEMM); not CuTe's */
    MMA("SM89_16x8x32_F32E4M3E4M3F32_TN_VIA_F16", "", "f32,e4m3,e4m3,f32", 89, 16, 8, 32,
        "MMA_16x8x32_F32E4M3E4M3F32_VIA_F16", A_16x8x32_8BIT, B_16x8x32_8BIT, SM80_16x8_ROW),
    MMA("SM89_16x8x32_F32E5M2E5M2F32_TN_VIA_F16", "", "f32,e5m2,e5m2,f32", 89, 16, 8, 32,
        "MMA_16x8x32_F32E5M2E5M2F32_VIA_F16", A_16x8x32_8BIT, B_16x8x32_8BIT, SM80_16x8_ROW),
    /* the scalar FMA (CuTe's UniversalFMA) */
    UFMA("UniversalFMA<f32>", "f32,f32,f32,f32"),
    UFMA("UniversalFMA<f64>", "f64,f64,f64,f64"),
    UFMA("UniversalFMA<f16,f16,f32>", "f32,f16,f16,f32"),
    UFMA("UniversalFMA<bf16,bf16,f32>", "f32,bf16,bf16,f32"),

    /* ldmatrix (sm_75): a warp loads 8x8 matrices of 16-bit values, each lane giving the
     * address of one 16-byte row; .trans hands out the transpose */
    LDSM("SM75_U32x1_LDSM_N", "LdMatrix8x8x16bOp(transpose=False, num_matrices=1)", 1, "", LDSM_N_SRC1, LDSM_N_DST1),
    LDSM("SM75_U32x2_LDSM_N", "LdMatrix8x8x16bOp(transpose=False, num_matrices=2)", 2, "", LDSM_N_SRC2, LDSM_N_DST2),
    LDSM("SM75_U32x4_LDSM_N", "LdMatrix8x8x16bOp(transpose=False, num_matrices=4)", 4, "", LDSM_N_SRC4, LDSM_N_DST4),
    LDSM("SM75_U16x2_LDSM_T", "LdMatrix8x8x16bOp(transpose=True, num_matrices=1)", 1, ".trans", LDSM_N_SRC1, LDSM_T_DST2),
    LDSM("SM75_U16x4_LDSM_T", "LdMatrix8x8x16bOp(transpose=True, num_matrices=2)", 2, ".trans", LDSM_N_SRC2, LDSM_T_DST4),
    LDSM("SM75_U16x8_LDSM_T", "LdMatrix8x8x16bOp(transpose=True, num_matrices=4)", 4, ".trans", LDSM_N_SRC4, LDSM_T_DST8),
    /* An 8-bit MMA's A (B) fragment holds 4 consecutive k of one row (column) per register;
     * an MN-major tile gives ldmatrix rows of 16 consecutive m (n) at one k.  Lanes 8q+r
     * (matrix q = i1 + 2h, row r = 2t + j) address k = 2r + i1 + 16h, so that .trans hands
     * lane (t, g) the byte pairs m = 2g, 2g+1 at k = 4t + 2j + i1 (+16h); prmt gathers each
     * m's four k into one register.  The fragment's m are 2g and 2g+1, which the GEMM's
     * TiledMMA makes its rows g and g+8 (a permutation of M, or of N).  DstLayout in bits,
     * values (8 bits, i1, j), then m and h (A's register order) or h and m (B's). */
    LDSM_PRMT("SM75_U8x16_LDSM_T_PRMT_A", "((4,8),((8,2,2),2,2)):((256,16),((1,1024,128),8,2048))"),
    LDSM_PRMT("SM75_U8x16_LDSM_T_PRMT_B", "((4,8),((8,2,2),2,2)):((256,16),((1,1024,128),2048,8))"),
    /* stmatrix (sm_90): the same layouts, source and destination swapped */
    STSM("SM90_U32x1_STSM_N", "StMatrix8x8x16bOp(transpose=False, num_matrices=1)", 1, "", LDSM_N_DST1, LDSM_N_SRC1),
    STSM("SM90_U32x2_STSM_N", "StMatrix8x8x16bOp(transpose=False, num_matrices=2)", 2, "", LDSM_N_DST2, LDSM_N_SRC2),
    STSM("SM90_U32x4_STSM_N", "StMatrix8x8x16bOp(transpose=False, num_matrices=4)", 4, "", LDSM_N_DST4, LDSM_N_SRC4),
    STSM("SM90_U16x2_STSM_T", "StMatrix8x8x16bOp(transpose=True, num_matrices=1)", 1, ".trans", LDSM_T_DST2, LDSM_N_SRC1),
    STSM("SM90_U16x4_STSM_T", "StMatrix8x8x16bOp(transpose=True, num_matrices=2)", 2, ".trans", LDSM_T_DST4, LDSM_N_SRC2),
    STSM("SM90_U16x8_STSM_T", "StMatrix8x8x16bOp(transpose=True, num_matrices=4)", 4, ".trans", LDSM_T_DST8, LDSM_N_SRC4),
    /* cp.async (sm_80): one thread, global -> shared, completes at its wait-group; .cg
     * (bypassing L1) exists for 16 bytes only */
    CP_ASYNC("SM80_CP_ASYNC_CACHEALWAYS<uint32>", "CopyG2SOp(cache_mode=LoadCacheMode.ALWAYS)",
             "cp.async.ca.shared.global [d], [s], 4, src-size", 32, "(1,32):(0,1)"),
    CP_ASYNC("SM80_CP_ASYNC_CACHEALWAYS<uint64>", "CopyG2SOp(cache_mode=LoadCacheMode.ALWAYS)",
             "cp.async.ca.shared.global [d], [s], 8, src-size", 64, "(1,64):(0,1)"),
    CP_ASYNC("SM80_CP_ASYNC_CACHEALWAYS<uint128>", "CopyG2SOp(cache_mode=LoadCacheMode.ALWAYS)",
             "cp.async.ca.shared.global [d], [s], 16, src-size", 128, "(1,128):(0,1)"),
    CP_ASYNC("SM80_CP_ASYNC_CACHEGLOBAL<uint128>", "CopyG2SOp(cache_mode=LoadCacheMode.GLOBAL)",
             "cp.async.cg.shared.global [d], [s], 16, src-size", 128, "(1,128):(0,1)"),
    /* one thread, one access */
    UCOPY(8), UCOPY(16), UCOPY(32), UCOPY(64), UCOPY(128),
};
/* clang-format on */
const int cute_atom_nrows = (int)(sizeof cute_atom_rows / sizeof cute_atom_rows[0]);

/* name == row, or name == row with "_t" after its uintN ("<uint128_t>" for "<uint128>") */
static bool same_name(const char *name, const char *row)
{
    if (!strcmp(name, row)) return true;
    const char *lt = strchr(row, '<');
    size_t n = strlen(row);
    if (!lt || strncmp(lt + 1, "uint", 4) != 0 || strlen(name) != n + 2) return false;
    return !strncmp(name, row, n - 1) && !strcmp(name + n - 1, "_t>");
}

/* the table's MMA rows come first in it */
static int table_mma_rows(void)
{
    int k = 0;
    while (k < cute_atom_nrows && cute_atom_rows[k].info.mma) k++;
    return k;
}

int atom_row_count(void)
{
    int nw, ns;
    atom_wgmma_rows(&nw), atom_sm100_rows(&ns);
    return cute_atom_nrows + nw + ns;
}

/* the MMA rows first: the table's, the wgmma rows, the sm_100 MMA rows; then the copy rows:
 * the table's, the sm_100 ones */
const atom_row *atom_row_at(int i)
{
    int nw, ns, m = table_mma_rows(), sm = 0;
    const atom_row *w = atom_wgmma_rows(&nw), *s = atom_sm100_rows(&ns);
    while (sm < ns && s[sm].info.mma) sm++;
    int copies = cute_atom_nrows - m;
    if (i < 0 || i >= cute_atom_nrows + nw + ns) return NULL;
    if (i < m) return &cute_atom_rows[i];
    if ((i -= m) < nw) return &w[i];
    if ((i -= nw) < sm) return &s[i];
    if ((i -= sm) < copies) return &cute_atom_rows[m + i];
    return &s[sm + i - copies];
}

const atom_row *atom_row_find(const char *name)
{
    for (int i = 0; i < atom_row_count(); i++)
        if (same_name(name, atom_row_at(i)->info.name)) return atom_row_at(i);
    for (int i = 0; i < atom_row_count(); i++) /* CuTe DSL's spelling, whole ("tcgen05.MmaF16BF16Op") */
        if (atom_row_at(i)->info.dsl[0] && !strcmp(name, atom_row_at(i)->info.dsl)) return atom_row_at(i);
    /* CuTe's SM80_CP_ASYNC_*_ZFILL<T> are the same rows: every cp.async row zero-fills */
    const char *z = strstr(name, "_ZFILL<");
    if (!z || strncmp(name, "SM80_CP_ASYNC_", 14) != 0 || z - name > 40) return NULL;
    char plain[96];
    snprintf(plain, sizeof plain, "%.*s%s", (int)(z - name), name, z + 6);
    return atom_row_find(plain);
}

int cute_atom_count(void)
{
    return atom_row_count();
}

cute_atom_info cute_atom_info_at(int i)
{
    return atom_row_at(i)->info;
}

bool cute_atom_info_find(const char *name, cute_atom_info *out)
{
    const atom_row *r = atom_row_find(name);
    if (r) *out = r->info;
    return r != NULL;
}

const char *cute_atom_scope_name(cute_atom_scope s)
{
    return s == CUTE_SCOPE_WARP ? "warp" : s == CUTE_SCOPE_WARPGROUP ? "warpgroup" : "thread";
}

const char *cute_atom_pred_name(cute_atom_pred p)
{
    return p == CUTE_PRED_ZFILL ? "zero-fill" : p == CUTE_PRED_NONE ? "none" : "branch";
}
