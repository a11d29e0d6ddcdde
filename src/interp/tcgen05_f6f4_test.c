/* The 6- and 4-bit operands of tcgen05.mma kind::f8f6f4 and kind::mxf8f6f4 (MXFP6, MXFP4 by
 * the 8-bit kind) on the interpreter: e2m3, e3m2 and e2m1 "unpacked" in shared memory (each 16
 * elements packed into the low 12 or 8 bytes of a 16-byte chunk, as TMA's 16U6 / 16U4
 * ALIGN16B loads leave them), alone and mixed with e4m3 / e5m2, in a 128 x 64 x 64 product of
 * two MMAs (K 32 each) into tensor memory, read back by four warps (T2R); for mxf8f6f4 every
 * warp first writes the ue8m0 scales into tensor memory (R2T, duplicated to the four lane
 * quarters) and the two MMAs pick bytes 0 and 1 of each row's scale word.  Against a float64
 * decode with random codes; then the broken variants (a reserved format, an MN-major 6-bit
 * operand, a chunk never written); and the kernels compiled for sm_100a by NVRTC. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

/* the descriptor codes of kind::f8f6f4's formats */
enum { F_E4M3 = 0, F_E5M2 = 1, F_RESERVED = 2, F_E2M3 = 3, F_E3M2 = 4, F_E2M1 = 5 };
enum { K = 64, COLS = 128, SFA_COL = 64, SFB_COL = 68, SF_WORDS = TC_M + TC_N };

typedef enum { FF_GOOD, FF_MN_MAJOR, FF_UNWRITTEN } ff_variant;

typedef struct fcase {
    int fa, fb;
    bool scaled;
    ff_variant v;
} fcase;

static uint8_t A[TC_M][K], B[TC_N][K];   /* the codes */
static uint8_t SFA[TC_M][2], SFB[TC_N][2]; /* ue8m0, one a row for each MMA's 32 of K */

static int bits_of(int f) { return f == F_E2M1 ? 4 : f == F_E2M3 || f == F_E3M2 ? 6 : 8; }

static double value(int f, uint8_t code)
{
    switch (f) {
    case F_E4M3: return cute_e4m3_to_f32(code);
    case F_E5M2: return cute_e5m2_to_f32(code);
    case F_E2M3: return cute_e2m3_to_f32(code);
    case F_E3M2: return cute_e3m2_to_f32(code);
    default: return cute_e2m1_to_f32(code);
    }
}

static uint8_t code(int f)
{
    for (;;) {
        uint8_t v = (uint8_t)(rand() & ((1 << bits_of(f)) - 1));
        if (isfinite(value(f, v)) && fabs(value(f, v)) < 512) return v;
    }
}

/* element (r, k) of a K-major operand of byte slots in the image at `base`: 8-row core matrices
 * of 16-byte rows, LBO 128 between K's chunks, SBO 512 between 8-row groups (tc_desc's);
 * a 6- or 4-bit element is element k % 16 of its slot's chunk, packed from bit 0 */
static void put(uint8_t *img, uint32_t base, int f, int r, int k, uint8_t v)
{
    uint32_t chunk = base + (uint32_t)((r / 8) * 512 + (k / 16) * 128 + (r % 8) * 16);
    int w = bits_of(f), bit = (k % 16) * w;
    if (w == 8) {
        img[chunk + (uint32_t)(k % 16)] = v;
        return;
    }
    uint32_t at = chunk + (uint32_t)(bit / 8), word = (uint32_t)v << (bit % 8);
    img[at] |= (uint8_t)word;
    if (bit % 8 + w > 8) img[at + 1] |= (uint8_t)(word >> 8);
}

/* the operands' image, then the scale words of A's rows and of B's (bytes 0 and 1) */
static void operands(const fcase *c, uint32_t *img)
{
    memset(img, 0, TC_WORDS * 4);
    for (int r = 0; r < TC_M; r++)
        for (int k = 0; k < K; k++) {
            put((uint8_t *)img, TC_A_OFF, c->fa, r, k, A[r][k] = code(c->fa));
            if (r < TC_N) put((uint8_t *)img, TC_B_OFF, c->fb, r, k, B[r][k] = code(c->fb));
        }
    for (int r = 0; r < TC_M; r++)
        for (int j = 0; j < 2; j++) {
            SFA[r][j] = (uint8_t)(122 + rand() % 11);
            if (r < TC_N) SFB[r][j] = (uint8_t)(122 + rand() % 11);
        }
    for (int r = 0; r < TC_M; r++) img[TC_WORDS + r] = (uint32_t)SFA[r][0] | (uint32_t)SFA[r][1] << 8;
    for (int r = 0; r < TC_N; r++) img[TC_WORDS + TC_M + r] = (uint32_t)SFB[r][0] | (uint32_t)SFB[r][1] << 8;
}

static uint32_t idesc(const fcase *c, int mma)
{
    uint32_t mn = c->v == FF_MN_MAJOR ? 1u << 15 : 0, d = (uint32_t)c->fa << 7 | (uint32_t)c->fb << 10 | mn |
                                                            (uint32_t)(TC_N >> 3) << 17 | (128u >> 4) << 24;
    if (!c->scaled) return d | 1u << 4;                           /* f32 D */
    return d | (uint32_t)mma << 4 | 1u << 23 | (uint32_t)mma << 29; /* B's and A's scale ids, ue8m0 */
}

/* every warp: its lanes' scale words into the four columns of A's and two of B's (R2T) */
static void scales_in(kt *k, cute_vreg src, cute_vreg tid, cute_vreg taddr)
{
    cute_vreg lane = kt_bin(k, CUTE_OP_AND, tid, sk_u32(k, 31)), warp = kt_bin(k, CUTE_OP_SHR, tid, sk_u32(k, 5));
    cute_vreg at = kt_bin(k, CUTE_OP_ADD, taddr, kt_bin(k, CUTE_OP_SHL, warp, sk_u32(k, 21)));
    cute_vreg a[4], b[2];
    for (int c = 0; c < 4; c++)
        a[c] = kt_load(k, kt_ptr_add(k, src, kt_cvt(k, kt_bin(k, CUTE_OP_ADD, lane, sk_u32(k, TC_WORDS + 32 * c)), CUTE_I64)));
    for (int c = 0; c < 2; c++)
        b[c] = kt_load(k, kt_ptr_add(k, src, kt_cvt(k, kt_bin(k, CUTE_OP_ADD, lane, sk_u32(k, TC_WORDS + TC_M + 32 * c)),
                                                    CUTE_I64)));
    SK_DO(k, CUTE_INST_TCGEN05_ST_32x32b_X4, kt_bin(k, CUTE_OP_ADD, at, sk_u32(k, SFA_COL)), a[0], a[1], a[2], a[3]);
    SK_DO(k, CUTE_INST_TCGEN05_ST_32x32b_X2, kt_bin(k, CUTE_OP_ADD, at, sk_u32(k, SFB_COL)), b[0], b[1]);
    SK_DO(k, CUTE_INST_TCGEN05_WAIT_ST);
}

/* thread 0: two MMAs (K 32 each: 256 bytes, two chunks of LBO, apart), the commit */
static void issue(kt *k, const fcase *c, cute_vreg tid, cute_vreg taddr, cute_vreg bar, int *line)
{
    sk_if(k, CUTE_OP_EQ, tid, sk_u32(k, 0));
    cute_vreg a = kt_cvt(k, kt_smem(k, CUTE_U8, TC_A_OFF), CUTE_U32), b = kt_cvt(k, kt_smem(k, CUTE_U8, TC_B_OFF), CUTE_U32);
    for (int i = 0; i < 2; i++) {
        cute_vreg da = tc_desc(k, a, 16 * i, false), db = tc_desc(k, b, 16 * i, false), acc = sk_u32(k, i);
        KT_AT(&k->b), *line = __LINE__;
        if (c->scaled)
            SK_DO(k, CUTE_INST_TCGEN05_MMA_MXF8F6F4, taddr, da, db, sk_u32(k, idesc(c, i)),
                  kt_bin(k, CUTE_OP_ADD, taddr, sk_u32(k, SFA_COL)), kt_bin(k, CUTE_OP_ADD, taddr, sk_u32(k, SFB_COL)), acc);
        else
            SK_DO(k, CUTE_INST_TCGEN05_MMA_F8F6F4, taddr, da, db, sk_u32(k, idesc(c, i)), acc);
    }
    SK_DO(k, CUTE_INST_TCGEN05_COMMIT, bar);
    cute_ir_end(&k->b);
}

/* tcgen05_testkit's kernel with these MMAs; *line: the MMA's */
static cute_ir_func *kernel(const fcase *c, int *line)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tcgen05_f6f4", TC_SMEM, &src), tid = sk_tid(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, TC_BAR_OFF);
    tc_copy_words(&k, src, tid, c->v == FF_UNWRITTEN ? TC_WORDS - 128 : TC_WORDS); /* B's last 8 rows unwritten */
    cute_vreg taddr = tc_prologue(&k, tid, bar, TC_SLOT_OFF, COLS);
    if (c->scaled) {
        scales_in(&k, src, tid, taddr);
        SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
        kt_barrier(&k);
        SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    }
    issue(&k, c, tid, taddr, bar, line);
    tc_epilogue(&k, out, tid, taddr, bar, COLS);
    return k.f;
}

/* case c on one block of four warps: the status; out (128 x 64 words) poisoned first */
static cute_status run(cute_backend be, const fcase *c, int *line, uint32_t *out)
{
    static uint32_t img[TC_WORDS + SF_WORDS];
    operands(c, img);
    return tc_run(be, kernel(c, line), 1, 1, img, sizeof img, out, TC_M * TC_N);
}

/* D against float64: the decoded codes, times 2^(sf - 127) of each row's scale for its half of K */
static double worst_error(const fcase *c, const uint32_t *out)
{
    double worst = 0;
    for (int m = 0; m < TC_M; m++)
        for (int n = 0; n < TC_N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = value(c->fa, A[m][k]) * value(c->fb, B[n][k]);
                if (c->scaled) p *= ldexp(1, SFA[m][k / 32] - 127) * ldexp(1, SFB[n][k / 32] - 127);
                want += p, mag += fabs(p);
            }
            float got;
            memcpy(&got, &out[m * TC_N + n], 4);
            double err = fabs(got - want) / (mag + 1e-30);
            worst = err > worst || err != err ? err : worst;
        }
    return worst;
}

static void good(cute_backend be)
{
    static const int pairs[][2] = {{F_E2M3, F_E2M3}, {F_E3M2, F_E3M2}, {F_E2M1, F_E2M1}, {F_E2M3, F_E2M1},
                                   {F_E4M3, F_E3M2}, {F_E2M1, F_E5M2}};
    static uint32_t out[TC_M * TC_N];
    for (int scaled = 0; scaled < 2; scaled++)
        for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
            fcase c = {pairs[i][0], pairs[i][1], scaled, FF_GOOD};
            int line;
            cute_status s = run(be, &c, &line, out);
            const cute_interp_report *r = kt_report(be, 0);
            CHECK(s == CUTE_OK, "%s formats %d x %d run: %s", scaled ? "mxf8f6f4" : "f8f6f4", c.fa, c.fb,
                  r ? r->msg : be.vt->error(be.self));
            double w = worst_error(&c, out);
            CHECK(w < 1e-6, "%s formats %d x %d (128x64x64, f32 in tensor memory) against float64: worst %.3g of "
                  "sum |ab|", scaled ? "mxf8f6f4" : "f8f6f4", c.fa, c.fb, w);
        }
}

static void each_broken(cute_backend be)
{
    static uint32_t out[TC_M * TC_N];
    const struct {
        fcase c;
        cute_interp_check kind;
        const char *words;
    } cases[] = {
        {{F_RESERVED, F_E2M1, false, FF_GOOD}, CUTE_CHECK_TMEM, "are not this kind's"},
        {{F_E2M1, F_RESERVED, true, FF_GOOD}, CUTE_CHECK_TMEM, "must be E4M3 0"},
        {{F_E2M3, F_E4M3, false, FF_MN_MAJOR}, CUTE_CHECK_UNSUPPORTED, "MN-major 6- or 4-bit A"},
        {{F_E3M2, F_E2M1, true, FF_MN_MAJOR}, CUTE_CHECK_UNSUPPORTED, "MN-major 6- or 4-bit A"},
        {{F_E2M3, F_E2M1, false, FF_UNWRITTEN}, CUTE_CHECK_UNINIT_SHARED, ""},
        {{F_E4M3, F_E3M2, true, FF_UNWRITTEN}, CUTE_CHECK_UNINIT_SHARED, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int line;
        cute_status s = run(be, &cases[i].c, &line, out);
        const cute_interp_report *r = kt_report(be, 0);
        CHECK(s != CUTE_OK && r && r->kind == cases[i].kind && strstr(r->msg, cases[i].words) && r->line == line &&
                  r->thread.x == 0,
              "broken case %zu: reported (%s at line %d), want kind %d at the MMA (line %d, thread 0) with \"%s\"", i,
              r ? r->msg : "none", r ? r->line : 0, (int)cases[i].kind, line, cases[i].words);
    }
}

int main(void)
{
    srand(2106);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    good(be);
    each_broken(be);
    be.vt->destroy(be.self);
    int line;
    kt_compiles_for((cute_ir_func *[]){kernel(&(fcase){F_E2M3, F_E2M1, false, FF_GOOD}, &line)}, 1, "sm_100a",
                    "tcgen05.mma.cta_group::1.kind::f8f6f4");
    kt_compiles_for((cute_ir_func *[]){kernel(&(fcase){F_E3M2, F_E4M3, true, FF_GOOD}, &line)}, 1, "sm_100a",
                    "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X");
    return CHECK_DONE("interp/tcgen05_f6f4");
}
