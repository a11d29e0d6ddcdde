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
 * The tensor-memory copies (copy_traits_sm100.hpp) are generated below, once: every .xN of the
 * T2R / R2T families (32dp32b, 16dp32b (tcgen05's 16x32bx2, half_split N), 16dp64b, 16dp128b,
 * 16dp256b; "_16b": .pack::16b / .unpack::16b) and the S2T copies (UTCCP), each with CuTe's
 * ThrID, SrcLayout, DstLayout, RefLayout and ValID, in bits.  ValID maps the atom's logical
 * bits to tensor-memory bit addresses, the lane stride being TMEM::DP_b = 2^21: a register bit
 * of a T2R (DstLayout; an R2T's SrcLayout) is logical bit L, held at ValID(L); a UTCCP value
 * v (DstLayout: itself) lands at ValID(v) and comes from the shared matrix's bit that lands at
 * ValID(SrcLayout(v)) (SrcLayout's stride 0 is the broadcast to further lane quarters).  None
 * of these has run on a Blackwell: docs/blackwell.md. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_rows.h"
#include "cutec/tcgen05.h"

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

static const atom_row mma_rows[] = {
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
};
/* clang-format on */


/* the tensor-memory copies: one T2R / R2T family a shape, .xN for N = 1, 2, 4 .. max */
typedef struct tmem_family {
    const char *dp, *ptx; /* CuTe's "16dp256b", tcgen05's "16x256b" */
    int shape;            /* cute_tmem_shape */
    int max_n, bits;      /* the largest .xN; register bits a thread moves in .x1 */
} tmem_family;

static const tmem_family families[] = {
    {"32dp32b", "32x32b", CUTE_TMEM_32x32b, 128, 32},   {"16dp32b", "16x32bx2", CUTE_TMEM_16x32bx2, 128, 32},
    {"16dp64b", "16x64b", CUTE_TMEM_16x64b, 128, 32},   {"16dp128b", "16x128b", CUTE_TMEM_16x128b, 64, 64},
    {"16dp256b", "16x256b", CUTE_TMEM_16x256b, 32, 128},
};

/* the S2T copies: CuTe's name (less _1cta / _2cta), tcgen05.cp's shape, ValID, the value mode of
 * SrcLayout and of DstLayout (after the thread mode) and its strides */
typedef struct utccp_shape {
    const char *name, *ptx, *dsl; /* CuTe's, tcgen05.cp's, CuTe DSL's (tcgen05.<dsl>Op) */
    int shape; /* cute_tcgen05_cp_shape */
    const char *val_id, *src_shape, *src_stride, *dst_shape, *dst_stride;
    int bits; /* the value mode's size */
} utccp_shape;

#define DP "2097152" /* TMEM::DP_b: a lane, in bits */
static const utccp_shape utccps[] = {
    {"128dp256bit", "128x256b", "Cp128x256b", CUTE_TCGEN05_CP_128x256b, "(128,256):(" DP ",1)", "32768", "1", "32768", "1", 32768},
    {"128dp128bit", "128x128b", "Cp128x128b", CUTE_TCGEN05_CP_128x128b, "(128,128):(" DP ",1)", "16384", "1", "16384", "1", 16384},
    /* CuTe models 4dp as refreshing MMA's 128 rows of 256 bits: row i lands in lane 32 i */
    {"4dp256bit", "4x256b", "Cp4x256b", CUTE_TCGEN05_CP_4x256b, "(128,256):(" DP ",1)", "(4,256)", "(32,128)", "(4,256)",
     "(32,128)", 1024},
    {"4x32dp128bit", "32x128b.warpx4", "Cp4x32x128b", CUTE_TCGEN05_CP_32x128b_WARPX4, "(32,128,4):(" DP ",1,67108864)", "(32,128,4)",
     "(1,32,0)", "16384", "1", 16384},
    {"2x64dp128bitlw0213", "64x128b.warpx2::02_13", "Cp2x64x128b0213", CUTE_TCGEN05_CP_64x128b_WARPX2_02_13,
     "(64,128,2):(" DP ",1,134217728)", "(64,128,2)", "(1,64,0)", "16384", "1", 16384},
    {"2x64dp128bitlw0123", "64x128b.warpx2::01_23", "Cp2x64x128b0123", CUTE_TCGEN05_CP_64x128b_WARPX2_01_23,
     "(32,128,2,2):(" DP ",1,134217728,67108864)", "(32,128,2,2)", "(1,32,4096,0)", "16384", "1", 16384},
};

enum {
    NFAM = sizeof families / sizeof families[0], NCP = sizeof utccps / sizeof utccps[0],
    NMMA = sizeof mma_rows / sizeof mma_rows[0], MAX_ROWS = NMMA + NFAM * 8 * 2 * 2 + NCP * 2
};

/* the strings of one generated copy row */
typedef struct copy_text {
    char name[48], dsl[80], ptx[80], thr[8], src[96], dst[96], val_id[96];
} copy_text;

static atom_row rows[MAX_ROWS];
static copy_text texts[MAX_ROWS];
static int nrows;

/* a T2R's register side (CuTe's DstLayout; an R2T's SrcLayout) of family f at .xN, in bits */
static void register_layout(const tmem_family *f, int n, char *out, size_t len)
{
    if (f->shape == CUTE_TMEM_32x32b) snprintf(out, len, "(32,%d):(%d,1)", 32 * n, 32 * n);
    if (f->shape == CUTE_TMEM_16x32bx2) snprintf(out, len, "((16,2),%d):((%d,%d),1)", 32 * n, 64 * n, 32 * n);
    if (f->shape == CUTE_TMEM_16x64b)
        snprintf(out, len, n == 1 ? "((2,2,8),32):((512,32,64),1)" : "((2,2,8),(32,%d)):((%d,32,%d),(1,64))", n,
                 512 * n, 64 * n);
    int w = f->shape == CUTE_TMEM_16x128b ? 32 : 64; /* bits a thread takes of a lane's row */
    if (f->shape == CUTE_TMEM_16x128b || f->shape == CUTE_TMEM_16x256b) {
        if (n == 1) snprintf(out, len, "((4,8),(%d,2)):((%d,%d),(1,%d))", w, w, 4 * w, 32 * w);
        else snprintf(out, len, "((4,8),(%d,2,%d)):((%d,%d),(1,%d,%d))", w, n, w, 4 * w * n, 32 * w * n, 4 * w);
    }
}

static void tmem_row(const tmem_family *f, int n, bool pack, bool store)
{
    atom_row *r = &rows[nrows];
    copy_text *t = &texts[nrows++];
    int lanes = f->shape == CUTE_TMEM_32x32b ? 32 : 16, bits = 32 * f->bits * n; /* a warp's */
    int row_bits = bits / lanes;                                                    /* a lane's */
    snprintf(t->name, sizeof t->name, "SM100_TMEM_%s_%s%dx%s", store ? "STORE" : "LOAD", f->dp, n, pack ? "_16b" : "");
    snprintf(t->ptx, sizeof t->ptx, "tcgen05.%s.sync.aligned.%s.x%d%s.b32", store ? "st" : "ld", f->ptx, n,
             !pack ? "" : store ? ".unpack::16b" : ".pack::16b");
    snprintf(t->dsl, sizeof t->dsl, "tcgen05.%s%sOp(Repetition.x%d, %s)", store ? "St" : "Ld", f->ptx, n,
             store ? (pack ? "Unpack.UNPACK_32b_IN_16b" : "Unpack.NONE") : pack ? "Pack.PACK_16b_IN_32b" : "Pack.NONE");
    /* packed: the logical bits are 16-bit halves, each in the low half of its own column */
    if (pack) snprintf(t->val_id, sizeof t->val_id, "((16,%d),%d):((1,32),%s)", row_bits / 16, lanes, DP);
    else snprintf(t->val_id, sizeof t->val_id, "(%d,%d):(1,%s)", row_bits, lanes, DP);
    char tm[48], reg[96];
    snprintf(tm, sizeof tm, "(32,%d):(0,1)", bits); /* every thread sees the whole tensor-memory side */
    register_layout(f, n, reg, sizeof reg);
    snprintf(t->src, sizeof t->src, "%s", store ? reg : tm);
    snprintf(t->dst, sizeof t->dst, "%s", store ? tm : reg);
    *r = (atom_row){{t->name, t->dsl, false, 100, {CUTE_SCOPE_WARP, CUTE_PRED_NONE, true}, "", t->ptx,
                     {"ThrID", "SrcLayout", "DstLayout", "RefLayout", "ValID"},
                     {"32:1", t->src, t->dst, store ? t->dst : t->src, t->val_id}},
                    store ? ROW_TMEM_STORE : ROW_TMEM_LOAD, {f->shape, n, pack}, bits / 32, 0, false, NULL};
}

static void utccp_row(const utccp_shape *u, int group)
{
    atom_row *r = &rows[nrows];
    copy_text *t = &texts[nrows++];
    snprintf(t->name, sizeof t->name, "SM100_UTCCP_%s_%dcta", u->name, group);
    snprintf(t->ptx, sizeof t->ptx, "tcgen05.cp.cta_group::%d.%s", group, u->ptx);
    snprintf(t->thr, sizeof t->thr, group == 1 ? "1:0" : "2:1");
    snprintf(t->src, sizeof t->src, "(%d,%s):(0,%s)", group, u->src_shape, u->src_stride);
    snprintf(t->dst, sizeof t->dst, "(%d,%s):(0,%s)", group, u->dst_shape, u->dst_stride);
    snprintf(t->val_id, sizeof t->val_id, "%s", u->val_id);
    snprintf(t->dsl, sizeof t->dsl, "tcgen05.%sOp(CtaGroup.%s)", u->dsl, group == 1 ? "ONE" : "TWO");
    *r = (atom_row){{t->name, t->dsl, false, 100, {CUTE_SCOPE_THREAD, CUTE_PRED_NONE, true}, "", t->ptx,
                     {"ThrID", "SrcLayout", "DstLayout", "RefLayout", "ValID"}, {t->thr, t->src, t->dst, t->dst, t->val_id}},
                    ROW_UTCCP, {u->shape, group, 0}, u->bits, 0, false, NULL};
}

static void generate(void)
{
    memcpy(rows, mma_rows, sizeof mma_rows);
    nrows = NMMA;
    for (int store = 0; store < 2; store++)
        for (int f = 0; f < NFAM; f++)
            for (int n = 1; n <= families[f].max_n; n *= 2)
                for (int pack = 0; pack < 2; pack++) tmem_row(&families[f], n, pack, store);
    for (int u = 0; u < NCP; u++)
        for (int group = 1; group <= 2; group++) utccp_row(&utccps[u], group);
}

static pthread_once_t generated = PTHREAD_ONCE_INIT;

const atom_row *atom_sm100_rows(int *n)
{
    pthread_once(&generated, generate);
    *n = nrows;
    return rows;
}
