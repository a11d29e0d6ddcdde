/* The CTA pair's block-scaled tcgen05 rows (cta_group::2) on the interpreter: a cluster of two
 * blocks of four warps; each block holds its 128 rows of A and its 32 of B's 64 rows (K-major,
 * the canonical layout without swizzle: tcgen05_testkit.h's, 64 bytes a row), the scales of its
 * own rows of A and of all of B's rows as CuTe's SfKMajorAtoms; thread 0 of block 0 copies the
 * scales into both blocks' tensor memory (tcgen05.cp.cta_group::2.32x128b.warpx4, each block's
 * shared memory into its own tensor memory), issues two M = 256, N = 64 block-scaled MMAs and
 * commits them to both blocks' mbarriers; every warp reads its block's half of D.  For NVFP4
 * (e2m1, ue4m3 per 16), MXFP4 (e2m1, ue8m0 per 32) and MXFP8 (e4m3, and e2m3 unpacked: ue8m0
 * per 32) against float64; the broken variants (the peer's scales never in its shared memory,
 * the scales copied by a one-block tcgen05.cp) are reported with the site, block and state;
 * the kernels compile for sm_100a (no Blackwell here). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

enum { N = 64, HALF_N = N / 2, THREADS = 128, ROW_BYTES = 64, COLS = 128, SFA_COL = 64, SFB_COL = 72, ATOM = 512 };
enum { A_OFF = 0, B_OFF = TC_M * ROW_BYTES, SFA_OFF = B_OFF + HALF_N * ROW_BYTES, SFB_OFF = SFA_OFF + 2 * ATOM,
       BAR_OFF = SFB_OFF + 2 * ATOM, SLOT_OFF = BAR_OFF + 8, SMEM = SLOT_OFF + 8, WORDS = BAR_OFF / 4 };

typedef enum { SP_GOOD, SP_PEER_SCALES_UNWRITTEN, SP_ONE_BLOCK_CP } sp_variant;

typedef struct skind {
    const char *name;
    cute_inst row;
    int k;       /* values of an instruction's K */
    int vec;     /* values a scale */
    int format;  /* idesc's A / B format code */
    int bits;    /* 4 (e2m1 two a byte), 6 (e2m3 unpacked) or 8 (e4m3) */
    bool ue4m3;  /* scales' format (else ue8m0) */
} skind;

static const skind kinds[] = {
    {"mxf4nvf4", CUTE_INST_TCGEN05_MMA_MXF4NVF4_2SM, 64, 16, 1, 4, true},
    {"mxf4", CUTE_INST_TCGEN05_MMA_MXF4_2SM, 64, 32, 1, 4, false},
    {"mxf8f6f4 e4m3", CUTE_INST_TCGEN05_MMA_MXF8F6F4_2SM, 32, 32, 0, 8, false},
    {"mxf8f6f4 e2m3", CUTE_INST_TCGEN05_MMA_MXF8F6F4_2SM, 32, 32, 3, 6, false},
};

typedef struct sp_lines {
    int cp, mma;
} sp_lines;

enum { KMAX = 128 };
static uint8_t A[2][TC_M][KMAX], B[N][KMAX], SFA[2][TC_M][8], SFB[N][8];

static int ktotal(const skind *s) { return 2 * s->k; } /* two MMAs */
static int scales(const skind *s) { return ktotal(s) / s->vec; } /* a row: 2, 4 or 8 */
static int words(const skind *s) { return (scales(s) + 3) / 4; }

static double value(const skind *s, uint8_t code)
{
    return s->bits == 4 ? cute_e2m1_to_f32(code) : s->bits == 6 ? cute_e2m3_to_f32(code) : cute_e4m3_to_f32(code);
}
static double scale(const skind *s, uint8_t code) { return s->ue4m3 ? cute_ue4m3_to_f32(code) : ldexp(1, code - 127); }

static uint8_t code(const skind *s)
{
    for (;;) {
        uint8_t v = (uint8_t)(rand() & ((1 << s->bits) - 1));
        if (isfinite(value(s, v)) && fabs(value(s, v)) < 512) return v;
    }
}

/* element k of row r of an operand image at base: byte slot k (8- and 6-bit, the 6-bit ones
 * unpacked: element k % 16 of the slot's 16-byte chunk) or nibble k % 2 of byte k / 2 (e2m1) */
static void put(const skind *s, uint8_t *img, uint32_t base, int r, int k, uint8_t v)
{
    int slot = s->bits == 4 ? k / 2 : k;
    uint32_t chunk = base + (uint32_t)((r / 8) * 512 + (slot / 16) * 128 + (r % 8) * 16);
    if (s->bits == 8) {
        img[chunk + (uint32_t)(slot % 16)] = v;
        return;
    }
    int bit = s->bits == 4 ? 8 * (slot % 16) + 4 * (k % 2) : 6 * (slot % 16);
    uint32_t at = chunk + (uint32_t)(bit / 8), word = (uint32_t)v << (bit % 8);
    img[at] |= (uint8_t)word;
    if (bit % 8 + s->bits > 8) img[at + 1] |= (uint8_t)(word >> 8);
}

/* the scales of `rows` rows into SfKMajorAtoms at base: word w's atom holds row r's scales
 * 4w .. 4w + 3 at (r % 32) 16 + (r / 32) 4 */
static void put_scales(const skind *s, uint8_t *img, uint32_t base, int rows, uint8_t (*sf)[8])
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < scales(s); j++) img[base + (uint32_t)(j / 4 * ATOM + (r % 32) * 16 + (r / 32) * 4 + j % 4)] = sf[r][j];
}

static uint8_t scale_code(const skind *s) { return s->ue4m3 ? (uint8_t)(0x28 + rand() % 40) : (uint8_t)(122 + rand() % 11); }

/* both blocks' images: block h's A rows, B's rows 32h.., its A scales and all of B's */
static void operands(const skind *s, uint32_t *img)
{
    memset(img, 0, 2 * WORDS * 4);
    for (int r = 0; r < N; r++)
        for (int j = 0; j < scales(s); j++) SFB[r][j] = scale_code(s);
    for (int h = 0; h < 2; h++) {
        uint8_t *bytes = (uint8_t *)(img + h * WORDS);
        for (int r = 0; r < TC_M; r++) {
            for (int k = 0; k < ktotal(s); k++) put(s, bytes, A_OFF, r, k, A[h][r][k] = code(s));
            for (int j = 0; j < scales(s); j++) SFA[h][r][j] = scale_code(s);
        }
        for (int r = 0; r < HALF_N; r++)
            for (int k = 0; k < ktotal(s); k++) put(s, bytes, B_OFF, r, k, B[h * HALF_N + r][k] = code(s));
        put_scales(s, bytes, SFA_OFF, TC_M, SFA[h]);
        put_scales(s, bytes, SFB_OFF, N, SFB);
    }
}

static cute_vreg rank_of(kt *k) { return SK_GET(k, CUTE_INST_CLUSTER_CTARANK); }
static void cluster_sync(kt *k)
{
    SK_DO(k, CUTE_INST_BARRIER_CLUSTER_ARRIVE);
    SK_DO(k, CUTE_INST_BARRIER_CLUSTER_WAIT);
}

/* words [from, to) of the block's image (src + rank * WORDS) into shared memory */
static void copy_words(kt *k, cute_vreg src, cute_vreg rank, cute_vreg tid, int from, int to)
{
    cute_vreg s = kt_smem(k, CUTE_U32, 0), base = kt_cvt(k, kt_bin(k, CUTE_OP_MUL, rank, sk_u32(k, WORDS)), CUTE_I64);
    for (int i = from / THREADS; i < to / THREADS; i++) {
        cute_vreg at = kt_cvt(k, kt_bin(k, CUTE_OP_ADD, tid, sk_u32(k, THREADS * i)), CUTE_I64);
        kt_store(k, kt_ptr_add(k, s, at), kt_load(k, kt_ptr_add(k, src, kt_bin(k, CUTE_OP_ADD, base, at))));
    }
}

/* the image; the broken variant leaves block 1's scales out */
static void copy_image(kt *k, sp_variant v, cute_vreg src, cute_vreg rank, cute_vreg tid)
{
    copy_words(k, src, rank, tid, 0, SFA_OFF / 4);
    if (v == SP_PEER_SCALES_UNWRITTEN) sk_if(k, CUTE_OP_EQ, rank, sk_u32(k, 0));
    copy_words(k, src, rank, tid, SFA_OFF / 4, WORDS);
    if (v == SP_PEER_SCALES_UNWRITTEN) cute_ir_end(&k->b);
}

/* the descriptor of an SfKMajorAtom at shared address addr: 32 rows of 16 bytes, K-major, no
 * swizzle, 8-row groups 128 bytes apart (what cute_umma_copy_scales makes) */
static cute_vreg sf_desc(kt *k, cute_vreg addr)
{
    cute_vreg lo = kt_cvt(k, kt_bin(k, CUTE_OP_SHR, addr, sk_u32(k, 4)), CUTE_U64);
    return kt_bin(k, CUTE_OP_OR, lo, cute_ir_const_int(&k->b, CUTE_U64, (int64_t)(8ull << 32 | 1ull << 46)));
}

/* MMA i reads scales j0 .. of each row: word j0 / 4 from byte j0 % 4 (the scale-factor id) */
static int first_scale(const skind *s, int i) { return i * (s->k / s->vec); }

static uint32_t idesc(const skind *s, int i)
{
    uint32_t id = (uint32_t)(first_scale(s, i) % 4);
    return id << 4 | (uint32_t)s->format << 7 | (uint32_t)s->format << 10 | (uint32_t)(N >> 3) << 17 |
           (uint32_t)!s->ue4m3 << 23 | (256u >> 4) << 24 | id << 29;
}

static cute_vreg plus(kt *k, cute_vreg a, int v) { return kt_bin(k, CUTE_OP_ADD, a, sk_u32(k, v)); }

/* thread 0 of block 0: the scales into both blocks' tensor memory, two MMAs, the commit to both */
static void issue(kt *k, const skind *s, sp_variant v, cute_vreg rank, cute_vreg tid, cute_vreg taddr, cute_vreg bar,
                  sp_lines *L)
{
    sk_if(k, CUTE_OP_EQ, kt_bin(k, CUTE_OP_OR, rank, tid), sk_u32(k, 0));
    cute_vreg base = kt_cvt(k, kt_smem(k, CUTE_U8, 0), CUTE_U32);
    cute_inst cp = v == SP_ONE_BLOCK_CP ? CUTE_INST_TCGEN05_CP_32x128b_WARPX4 : CUTE_INST_TCGEN05_CP_32x128b_WARPX4_2SM;
    for (int w = 0; w < words(s); w++) {
        KT_AT(&k->b), L->cp = __LINE__;
        SK_DO(k, cp, plus(k, taddr, SFA_COL + 4 * w), sf_desc(k, plus(k, base, SFA_OFF + ATOM * w)));
        SK_DO(k, cp, plus(k, taddr, SFB_COL + 4 * w), sf_desc(k, plus(k, base, SFB_OFF + ATOM * w)));
    }
    for (int i = 0; i < 2; i++) {
        int word = first_scale(s, i) / 4;
        cute_vreg da = tc_desc(k, plus(k, base, A_OFF), 16 * i, false), db = tc_desc(k, plus(k, base, B_OFF), 16 * i, false);
        KT_AT(&k->b), L->mma = __LINE__;
        SK_DO(k, s->row, taddr, da, db, sk_u32(k, idesc(s, i)), plus(k, taddr, SFA_COL + 4 * word),
              plus(k, taddr, SFB_COL + 4 * word), sk_u32(k, i));
    }
    SK_DO(k, CUTE_INST_TCGEN05_COMMIT_2SM_MULTICAST, bar, cute_ir_const_int(&k->b, CUTE_U16, 3));
    cute_ir_end(&k->b);
}

static void pair_columns(kt *k, cute_vreg tid, cute_vreg taddr)
{
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    if (taddr) SK_DO(k, CUTE_INST_TCGEN05_DEALLOC_2SM, taddr, sk_u32(k, COLS));
    else SK_DO(k, CUTE_INST_TCGEN05_ALLOC_2SM, kt_smem(k, CUTE_U32, SLOT_OFF), sk_u32(k, COLS));
    cute_ir_end(&k->b);
}

static cute_ir_func *pair_kernel(const skind *s, sp_variant v, sp_lines *L)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tcgen05_pair_scaled", SMEM, &src), tid = sk_tid(&k), rank = rank_of(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, BAR_OFF);
    copy_image(&k, v, src, rank, tid);
    sk_if(&k, CUTE_OP_EQ, tid, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 1));
    SK_DO(&k, CUTE_INST_FENCE_MBARRIER_INIT);
    cute_ir_end(&k.b);
    pair_columns(&k, tid, 0);
    SK_DO(&k, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    cluster_sync(&k);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    cute_vreg taddr = kt_load(&k, kt_smem(&k, CUTE_U32, SLOT_OFF));
    issue(&k, s, v, rank, tid, taddr, bar, L);
    sk_wait(&k, bar, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    int ld;
    tc_drain(&k, TC_GOOD, out, tid, kt_bin(&k, CUTE_OP_ADD, tid, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, TC_M))), taddr,
             &ld);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    cluster_sync(&k); /* neither block frees or exits while the other may still use the pair's */
    pair_columns(&k, tid, taddr);
    return k.f;
}

/* kind s, variant v on a cluster of two blocks: the status; out (256 x 64 words) poisoned */
static cute_status run(cute_backend be, const skind *s, sp_variant v, sp_lines *L, uint32_t *out)
{
    static uint32_t img[2 * WORDS];
    operands(s, img);
    return tc_run(be, pair_kernel(s, v, L), 2, 2, img, sizeof img, out, 2 * TC_M * N);
}

/* out against float64: row m of block h is A[h][m] SFA times B's 64 rows SFB */
static double worst_error(const skind *s, const uint32_t *out)
{
    double worst = 0;
    for (int h = 0; h < 2; h++)
        for (int m = 0; m < TC_M; m++)
            for (int n = 0; n < N; n++) {
                double want = 0, mag = 0;
                for (int k = 0; k < ktotal(s); k++) {
                    double p = value(s, A[h][m][k]) * scale(s, SFA[h][m][k / s->vec]) * value(s, B[n][k]) *
                               scale(s, SFB[n][k / s->vec]);
                    want += p, mag += fabs(p);
                }
                float got;
                memcpy(&got, &out[(h * TC_M + m) * N + n], 4);
                double err = fabs(got - want) / (mag + 1e-30);
                worst = err != err ? INFINITY : err > worst ? err : worst;
            }
    return worst;
}

static void good(cute_backend be)
{
    static uint32_t out[2 * TC_M * N];
    sp_lines L;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        const skind *s = &kinds[i];
        cute_status st = run(be, s, SP_GOOD, &L, out);
        const cute_interp_report *r = kt_report(be, 0);
        CHECK(st == CUTE_OK, "%s over the CTA pair runs: %s", s->name, r ? r->msg : be.vt->error(be.self));
        double w = worst_error(s, out);
        CHECK(w < 1e-6, "%s: D = (A SFA)(B SFB) (256x64x%d over the CTA pair) against float64: worst %.3g of "
              "sum |ab|", s->name, ktotal(s), w);
    }
}

static void each_broken(cute_backend be)
{
    static uint32_t out[2 * TC_M * N];
    sp_lines L;
    const struct {
        sp_variant v;
        cute_interp_check kind;
        const char *words;
        bool at_cp; /* the site: the tcgen05.cp (else the MMA) */
    } cases[] = {
        {SP_PEER_SCALES_UNWRITTEN, CUTE_CHECK_UNINIT_SHARED, "of the cluster's block 1", true},
        {SP_ONE_BLOCK_CP, CUTE_CHECK_TMEM, "of block 1 (lane 0 column 64) was never written", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cute_status st = run(be, &kinds[0], cases[i].v, &L, out);
        const cute_interp_report *r = kt_report(be, 0);
        int line = cases[i].at_cp ? L.cp : L.mma;
        CHECK(st != CUTE_OK && r && r->kind == cases[i].kind && strstr(r->msg, cases[i].words) && r->line == line &&
                  r->block.x == 0 && r->thread.x == 0,
              "variant %d: reported (%s at line %d), want kind %d at line %d, block 0 thread 0, with \"%s\"",
              (int)cases[i].v, r ? r->msg : "none", r ? r->line : 0, (int)cases[i].kind, line, cases[i].words);
    }
}

int main(void)
{
    srand(2107);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    good(be);
    each_broken(be);
    be.vt->destroy(be.self);
    sp_lines L;
    static const char *const ptx[] = {"tcgen05.cp.cta_group::2.32x128b.warpx4",
                                      "tcgen05.mma.cta_group::2.kind::mxf4.block_scale.scale_vec::2X",
                                      "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X"};
    for (size_t i = 0; i < 3; i++) /* the kind's row, ptxas accepting it (where NVRTC is installed) */
        kt_compiles_for((cute_ir_func *[]){pair_kernel(&kinds[i], SP_GOOD, &L)}, 1, "sm_100a", ptx[i]);
    return CHECK_DONE("interp/tcgen05_pair_scaled");
}
