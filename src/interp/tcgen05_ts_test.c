/* tcgen05.mma's _TS form on the interpreter (A from tensor memory): four warps store A's 128
 * rows into tensor memory (tcgen05.st 32x32b: row m in lane m, K packed along the columns, two
 * bf16 or one tf32 a cell), a fence, a barrier and a fence order the stores before thread 0's
 * two MMAs (K 16 bf16 or 8 tf32 each) with B from shared memory (tcgen05_testkit.h's layout),
 * committed, waited and read back (T2R); 128 x 64 against float64 for bf16 and tf32, and bf16 as
 * two M = 64 tiles (A and D at lanes 0 and 16: A's rows where D's M = 64 rows lie, an assumption).
 * Then the broken variants (no barrier between the stores and the MMA, A never stored, an MN-major
 * A, an M = 64 A at lane 8), each reported at the MMA with thread 0; and the kernels compiled for
 * sm_100a by NVRTC (ptxas). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

enum { A_WORDS = 16, A_COL = 64, COLS = 128, B_OFF = 0, BAR_OFF = TC_N * 64, SLOT_OFF = BAR_OFF + 8,
       SMEM = SLOT_OFF + 8, B_WORDS = BAR_OFF / 4 };

typedef enum { TS_GOOD, TS_NO_BARRIER, TS_NOT_STORED, TS_MN_MAJOR, TS_M64_LANE8 } ts_variant;

typedef struct tcase {
    bool tf32;
    ts_variant v;
    bool m64; /* two M = 64 tiles (A and D at lanes 0 and 16) instead of one of M = 128 */
} tcase;

static double A[TC_M][32], B[TC_N][32]; /* the values */

static int kk(const tcase *c) { return c->tf32 ? 16 : 32; } /* K of the two MMAs */

/* a random value of the case's type, and its bits */
static uint32_t draw(const tcase *c, double *v)
{
    float f = (float)(rand() % 2001 - 1000) / 256.0f;
    if (c->tf32) {
        f = cute_f32_to_tf32(f);
        uint32_t u;
        memcpy(&u, &f, 4);
        return *v = f, u;
    }
    uint16_t h = cute_f32_to_bf16(f);
    return *v = cute_bf16_to_f32(h), h;
}

/* B's image (K-major, 64 bytes a row: tcgen05_testkit.h's canonical layout) then A's rows of 16 words */
static void operands(const tcase *c, uint32_t *img)
{
    uint8_t *bytes = (uint8_t *)img;
    int eb = c->tf32 ? 4 : 2;
    for (int r = 0; r < TC_N; r++)
        for (int k = 0; k < kk(c); k++) {
            uint32_t u = draw(c, &B[r][k]);
            int slot = k * eb / 2; /* the bf16 position of its first byte */
            memcpy(bytes + B_OFF + tc_kmajor_offset(r, slot), &u, (size_t)eb);
        }
    for (int r = 0; r < TC_M; r++) {
        uint32_t *row = img + B_WORDS + r * A_WORDS;
        memset(row, 0, A_WORDS * 4);
        for (int k = 0; k < kk(c); k++) {
            uint32_t u = draw(c, &A[r][k]);
            row[c->tf32 ? k : k / 2] |= c->tf32 ? u : u << (16 * (k % 2));
        }
    }
}

/* every warp: its 32 rows of A (16 cells each) into tensor memory at A_COL (R2T) */
static void store_a(kt *k, cute_vreg src, cute_vreg tid, cute_vreg taddr)
{
    cute_vreg warp = kt_bin(k, CUTE_OP_SHR, tid, sk_u32(k, 5)), v[A_WORDS];
    cute_vreg at = kt_bin(k, CUTE_OP_ADD, taddr, kt_bin(k, CUTE_OP_SHL, warp, sk_u32(k, 21)));
    cute_vreg row = kt_bin(k, CUTE_OP_ADD, sk_u32(k, B_WORDS), kt_bin(k, CUTE_OP_MUL, tid, sk_u32(k, A_WORDS)));
    for (int j = 0; j < A_WORDS; j++)
        v[j] = kt_load(k, kt_ptr_add(k, src, kt_cvt(k, kt_bin(k, CUTE_OP_ADD, row, sk_u32(k, j)), CUTE_I64)));
    cute_vreg in[1 + A_WORDS] = {kt_bin(k, CUTE_OP_ADD, at, sk_u32(k, A_COL))};
    memcpy(in + 1, v, sizeof v);
    sk_do(k, CUTE_INST_TCGEN05_ST_32x32b_X16, in, 1 + A_WORDS, 0);
    SK_DO(k, CUTE_INST_TCGEN05_WAIT_ST);
}

/* thread 0: two MMAs, A from tensor memory (8 cells apart for bf16, 8 for tf32's K 8), the commit;
 * M = 64: two tiles of two, A and D at lanes 0 and 16 (so D's lane L is A's lane L times B, as
 * with M = 128) */
static void issue(kt *k, const tcase *c, cute_vreg tid, cute_vreg taddr, cute_vreg bar, int *line)
{
    sk_if(k, CUTE_OP_EQ, tid, sk_u32(k, 0));
    cute_vreg b = kt_cvt(k, kt_smem(k, CUTE_U8, B_OFF), CUTE_U32);
    uint32_t fmt = c->tf32 ? 2 : 1, idesc = 1u << 4 | fmt << 7 | fmt << 10 | (c->v == TS_MN_MAJOR ? 1u << 15 : 0) |
                                            (uint32_t)(TC_N >> 3) << 17 | (c->m64 ? 64u : 128u) >> 4 << 24;
    for (int tile = 0; tile < (c->m64 ? 2 : 1); tile++)
        for (int i = 0; i < 2; i++) {
            uint32_t lane = (uint32_t)(16 * tile) << 16, a_lane = c->v == TS_M64_LANE8 ? 8u << 16 : lane;
            cute_vreg a = kt_bin(k, CUTE_OP_ADD, taddr, sk_u32(k, a_lane + A_COL + 8 * i));
            KT_AT(&k->b), *line = __LINE__;
            SK_DO(k, c->tf32 ? CUTE_INST_TCGEN05_MMA_TF32_TS : CUTE_INST_TCGEN05_MMA_F16_TS,
                  kt_bin(k, CUTE_OP_ADD, taddr, sk_u32(k, lane)), a, tc_desc(k, b, 16 * i, false), sk_u32(k, idesc),
                  sk_u32(k, i));
        }
    SK_DO(k, CUTE_INST_TCGEN05_COMMIT, bar);
    cute_ir_end(&k->b);
}

static cute_ir_func *kernel(const tcase *c, int *line)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, c->m64 ? "tcgen05_ts_m64" : "tcgen05_ts", SMEM, &src), tid = sk_tid(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, BAR_OFF);
    tc_copy_words(&k, src, tid, B_WORDS);
    cute_vreg taddr = tc_prologue(&k, tid, bar, SLOT_OFF, COLS);
    if (c->v != TS_NOT_STORED) store_a(&k, src, tid, taddr);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    if (c->v != TS_NO_BARRIER) kt_barrier(&k); /* the stores before the MMA */
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    issue(&k, c, tid, taddr, bar, line);
    tc_epilogue(&k, out, tid, taddr, bar, COLS);
    return k.f;
}

static cute_status run(cute_backend be, const tcase *c, int *line, uint32_t *out)
{
    static uint32_t img[B_WORDS + TC_M * A_WORDS];
    operands(c, img);
    return tc_run(be, kernel(c, line), 1, 1, img, sizeof img, out, TC_M * TC_N);
}

static void good(cute_backend be)
{
    static uint32_t out[TC_M * TC_N];
    for (int i = 0; i < 3; i++) {
        bool tf32 = i == 1;
        tcase c = {tf32, TS_GOOD, i == 2};
        int line;
        cute_status s = run(be, &c, &line, out);
        const cute_interp_report *r = kt_report(be, 0);
        CHECK(s == CUTE_OK, "%s _TS runs: %s", tf32 ? "tf32" : "bf16", r ? r->msg : be.vt->error(be.self));
        double worst = 0;
        for (int m = 0; m < TC_M; m++)
            for (int n = 0; n < TC_N; n++) {
                double want = 0, mag = 0;
                for (int k = 0; k < kk(&c); k++) want += A[m][k] * B[n][k], mag += fabs(A[m][k] * B[n][k]);
                float got;
                memcpy(&got, &out[m * TC_N + n], 4);
                double err = fabs(got - want) / (mag + 1e-30);
                worst = err != err ? INFINITY : err > worst ? err : worst;
            }
        CHECK(worst < 1e-6, "%s: D = A B (128x64x%d, A from tensor memory%s) against float64: worst %.3g of sum |ab|",
              tf32 ? "tf32" : "bf16", kk(&c), c.m64 ? ", two tiles of M = 64" : "", worst);
    }
}

static void each_broken(cute_backend be)
{
    static uint32_t out[TC_M * TC_N];
    const struct {
        tcase c;
        const char *words, *or_words; /* the race: warp 1's store not seen, or not made yet */
    } cases[] = {
        {{false, TS_NO_BARRIER, false}, "with no synchronization since", "lane 32 column 64, never written"},
        {{true, TS_NOT_STORED, false}, "lane 0 column 64, never written", NULL},
        {{false, TS_MN_MAJOR, false}, "A is K-major there", NULL},
        {{false, TS_M64_LANE8, true}, "names lane 8; M = 64 takes lane 0 or 16", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int line;
        cute_status s = run(be, &cases[i].c, &line, out);
        const cute_interp_report *r = kt_report(be, 0);
        bool said = r && (strstr(r->msg, cases[i].words) || (cases[i].or_words && strstr(r->msg, cases[i].or_words)));
        CHECK(s != CUTE_OK && said && r->kind == CUTE_CHECK_TMEM && r->line == line && r->thread.x == 0,
              "broken case %zu: reported (%s at line %d), want the MMA (line %d, thread 0) with \"%s\"", i,
              r ? r->msg : "none", r ? r->line : 0, line, cases[i].words);
    }
}

int main(void)
{
    srand(2108);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    good(be);
    each_broken(be);
    be.vt->destroy(be.self);
    int line;
    kt_compiles_for((cute_ir_func *[]){kernel(&(tcase){false, TS_GOOD, false}, &line)}, 1, "sm_100a",
                    "tcgen05.mma.cta_group::1.kind::f16 [");
    kt_compiles_for((cute_ir_func *[]){kernel(&(tcase){true, TS_GOOD, false}, &line), kernel(&(tcase){false, TS_GOOD, true}, &line)},
                    2, "sm_100a", "tcgen05.mma.cta_group::1.kind::tf32 [");
    return CHECK_DONE("interp/tcgen05_ts");
}
