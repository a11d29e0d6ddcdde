/* The SM90 wgmma atoms, by CuTe's names (mma_traits_sm90_gmma.hpp): one row per family,
 * N and SS/RS, generated once from the families below, as the instruction rows are
 * (ir_insts.def).  Layouts, exactly as CuTe writes them:
 *   ThrID   128:1
 *   ALayout SS: ABLayout<64,K> = (128,(64,K)):(0,(1,64)) (every thread sees the shared tile)
 *           RS: ALayout_64x16 (16-bit) = CLayout_64x16, ALayout_64x8 (tf32),
 *               ALayout_64x32 (8-bit)
 *   BLayout ABLayout<N,K> = (128,(N,K)):(0,(1,N))
 *   CLayout CLayout_64xN = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) (N = 8: ((4,8,4),(2,2)))
 * The 16-bit atoms take either major mode for their shared operands (CuTe's tnspA/tnspB
 * template arguments): here the descriptor's recognition of the shared layout picks it.  The
 * others are K-major only, "_TN" in CuTe's names. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_rows.h"

typedef struct wg_family {
    const char *types;  /* "F32BF16BF16" */
    const char *dabc;   /* "f32,bf16,bf16,f32" */
    const char *ptx;    /* "f32.bf16.bf16" */
    int k;
    const char *a_rs;   /* ALayout of the RS atom */
    bool tn;            /* "_TN": K-major only */
    bool integer;       /* N: 8, 16, 24, then multiples of 16 */
} wg_family;

#define A_RS_16 "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"
#define A_RS_8 "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))"
static const wg_family families[] = {
    {"F16F16F16", "f16,f16,f16,f16", "f16.f16.f16", 16, A_RS_16, false, false},
    {"F32F16F16", "f32,f16,f16,f32", "f32.f16.f16", 16, A_RS_16, false, false},
    {"F32BF16BF16", "f32,bf16,bf16,f32", "f32.bf16.bf16", 16, A_RS_16, false, false},
    {"F32TF32TF32", "f32,tf32,tf32,f32", "f32.tf32.tf32", 8, "((4,8,4),(2,2)):((64,1,16),(8,256))", true, false},
    {"F32E4M3E4M3", "f32,e4m3,e4m3,f32", "f32.e4m3.e4m3", 32, A_RS_8, true, false},
    {"F32E4M3E5M2", "f32,e4m3,e5m2,f32", "f32.e4m3.e5m2", 32, A_RS_8, true, false},
    {"F32E5M2E4M3", "f32,e5m2,e4m3,f32", "f32.e5m2.e4m3", 32, A_RS_8, true, false},
    {"F32E5M2E5M2", "f32,e5m2,e5m2,f32", "f32.e5m2.e5m2", 32, A_RS_8, true, false},
    {"S32S8S8", "i32,i8,i8,i32", "s32.s8.s8", 32, A_RS_8, true, true},
    {"S32S8U8", "i32,i8,u8,i32", "s32.s8.u8", 32, A_RS_8, true, true},
    {"S32U8S8", "i32,u8,i8,i32", "s32.u8.s8", 32, A_RS_8, true, true},
    {"S32U8U8", "i32,u8,u8,i32", "s32.u8.u8", 32, A_RS_8, true, true},
};
enum { NFAM = sizeof families / sizeof families[0], MAX_ROWS = NFAM * 32 * 2 };

/* the strings of one generated row */
typedef struct wg_text {
    char name[64], inst_id[64], ptx[96], shape[64], a[64], b[64], c[80]; /* room for any int */
} wg_text;

static atom_row rows[MAX_ROWS];
static wg_text texts[MAX_ROWS];
static int nrows;

static bool n_exists(const wg_family *f, int n)
{
    return !f->integer || n <= 32 || n % 16 == 0;
}

static void make_row(const wg_family *f, int n, bool rs)
{
    wg_text *t = &texts[nrows];
    atom_row *r = &rows[nrows++];
    const char *form = rs ? "RS" : "SS";
    snprintf(t->name, sizeof t->name, "SM90_64x%dx%d_%s_%s%s", n, f->k, f->types, form, f->tn ? "_TN" : "");
    snprintf(t->inst_id, sizeof t->inst_id, "WGMMA_64x%dx%d_%s_%s", n, f->k, f->types, form);
    snprintf(t->ptx, sizeof t->ptx, "wgmma.mma_async.sync.aligned.m64n%dk%d.%s", n, f->k, f->ptx);
    snprintf(t->shape, sizeof t->shape, "(64,%d,%d)", n, f->k);
    if (rs) snprintf(t->a, sizeof t->a, "%s", f->a_rs);
    else snprintf(t->a, sizeof t->a, "(128,(64,%d)):(0,(1,64))", f->k);
    snprintf(t->b, sizeof t->b, "(128,(%d,%d)):(0,(1,%d))", n, f->k, n);
    if (n == 8) snprintf(t->c, sizeof t->c, "((4,8,4),(2,2)):((128,1,16),(64,8))");
    else snprintf(t->c, sizeof t->c, "((4,8,4),(2,2,%d)):((128,1,16),(64,8,512))", n / 8);
    *r = (atom_row){{t->name, "", true, 90, {CUTE_SCOPE_WARPGROUP, CUTE_PRED_NONE, true}, f->dabc, t->ptx,
                     {"Shape_MNK", "ThrID", "ALayout", "BLayout", "CLayout"},
                     {t->shape, "128:1", t->a, t->b, t->c}},
                    rs ? ROW_WGMMA_RS : ROW_WGMMA_SS, {64, n, f->k}, 0, 0, false, NULL};
}

static void generate(void)
{
    for (int f = 0; f < NFAM; f++)
        for (int rs = 0; rs < 2; rs++)
            for (int n = 8; n <= 256; n += 8)
                if (n_exists(&families[f], n)) make_row(&families[f], n, rs);
}

static pthread_once_t generated = PTHREAD_ONCE_INIT;

const atom_row *atom_wgmma_rows(int *n)
{
    pthread_once(&generated, generate);
    *n = nrows;
    return rows;
}

const char *atom_wgmma_inst_id(const atom_row *r)
{
    int n;
    const atom_row *all = atom_wgmma_rows(&n);
    return r >= all && r < all + n ? texts[r - all].inst_id : NULL;
}
