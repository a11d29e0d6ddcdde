/* tcgen05.mma with M = 64 (cta_group::1) on the interpreter: D's row m in tensor-memory lane
 * 32 (m / 16) + m % 16 from d's lane (0 or 16), the first half of each warp's lane quarter (the
 * PTX ISA's M = 64 data-path layout, CUTLASS's tmem_frg_1sm for M_MMA 64).  Two M = 64 tiles of a
 * 128 x 64 x 32 bf16 product, the second at lane 16 (CUTLASS's interleaved allocation), are read
 * back by each warp with tcgen05.ld 16x32bx2 (half_split 32, as CUTLASS's 16dp32b T2R reads an
 * M = 64 accumulator) and compared with float64; a tile at lane 8 and a read of lanes the tile
 * never wrote are reported.  Compiled for sm_100a by NVRTC.  Verified by emulation only. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

typedef enum { M64_GOOD, M64_LANE8, M64_ONE_TILE } m64_variant;

static uint16_t A[TC_M][TC_K], B[TC_N][TC_K];

/* kind::f16 instruction descriptor: f32 D, bf16 A and B K-major, M 64, N */
static uint32_t idesc64(int n) { return 1u << 4 | 1u << 7 | 1u << 10 | (uint32_t)(n >> 3) << 17 | (64u >> 4) << 24; }

/* thread 0: tile i (A's rows 64 i ..) into D at lane 16 i (8 for M64_LANE8's second), K/16 MMAs */
static void issue(kt *k, m64_variant v, cute_vreg tid, cute_vreg taddr, cute_vreg bar, int *mma)
{
    sk_if(k, CUTE_OP_EQ, tid, sk_u32(k, 0));
    cute_vreg a = kt_cvt(k, kt_smem(k, CUTE_U8, TC_A_OFF), CUTE_U32), b = kt_cvt(k, kt_smem(k, CUTE_U8, TC_B_OFF), CUTE_U32);
    for (int tile = 0; tile < (v == M64_ONE_TILE ? 1 : 2); tile++) {
        cute_vreg at = kt_bin(k, CUTE_OP_ADD, a, sk_u32(k, tile * 64 / 8 * TC_K * 16));
        cute_vreg d = kt_bin(k, CUTE_OP_ADD, taddr, sk_u32(k, (uint32_t)(tile * (v == M64_LANE8 ? 8 : 16)) << 16));
        for (int k0 = 0; k0 < TC_K; k0 += 16) {
            KT_AT(&k->b), *mma = __LINE__;
            SK_DO(k, CUTE_INST_TCGEN05_MMA_F16, d, tc_desc(k, at, k0, false), tc_desc(k, b, k0, false),
                  sk_u32(k, idesc64(TC_N)), sk_u32(k, k0 > 0));
        }
    }
    SK_DO(k, CUTE_INST_TCGEN05_COMMIT, bar);
    cute_ir_end(&k->b);
}

/* warp w: the 16 lanes at 32 w + 16 h (tile h's rows 16 w ..), 16x32bx2.x32 with half_split 32:
 * warp lane l < 16 row 16 w + l, columns 0..31; l >= 16 row 16 w + l - 16, columns 32..63; into
 * out's row 64 h + 16 w + l % 16, column 32 (l / 16) */
static void drain(kt *k, cute_vreg out, cute_vreg tid, cute_vreg taddr, int h, int *ld)
{
    cute_vreg warp = kt_bin(k, CUTE_OP_SHR, tid, sk_u32(k, 5)), l = kt_bin(k, CUTE_OP_AND, tid, sk_u32(k, 31)), d[32];
    cute_vreg lane = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, warp, sk_u32(k, 32)), sk_u32(k, 16 * (uint32_t)h));
    cute_vreg at = kt_bin(k, CUTE_OP_ADD, taddr, kt_bin(k, CUTE_OP_SHL, lane, sk_u32(k, 16)));
    for (int j = 0; j < 32; j++) d[j] = cute_ir_new_vreg(k->f, cute_type_of(CUTE_U32), "d", false);
    KT_AT(&k->b), *ld = __LINE__;
    cute_ir_inst_op(&k->b, CUTE_INST_TCGEN05_LD_16x32bx2_X32, d, 32, &at, 1, 32);
    SK_DO(k, CUTE_INST_TCGEN05_WAIT_LD);
    cute_vreg row = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, warp, sk_u32(k, 16)),
                           kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_AND, l, sk_u32(k, 15)), sk_u32(k, 64 * (uint32_t)h)));
    cute_vreg base = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, row, sk_u32(k, TC_N)),
                            kt_bin(k, CUTE_OP_MUL, kt_bin(k, CUTE_OP_SHR, l, sk_u32(k, 4)), sk_u32(k, 32)));
    base = kt_cvt(k, base, CUTE_I64);
    for (int j = 0; j < 32; j++) kt_store(k, kt_ptr_add(k, out, kt_bin(k, CUTE_OP_ADD, base, kt_i64(k, j))), d[j]);
}

static cute_ir_func *m64_kernel(m64_variant v, int *mma, int *ld)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tcgen05_m64", TC_SMEM, &src), tid = sk_tid(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, TC_BAR_OFF);
    tc_copy_in(&k, src, tid);
    cute_vreg taddr = tc_prologue(&k, tid, bar, TC_SLOT_OFF, TC_COLS);
    issue(&k, v, tid, taddr, bar, mma);
    sk_wait(&k, bar, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    drain(&k, out, tid, taddr, 0, ld);
    drain(&k, out, tid, taddr, 1, ld);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(&k);
    tc_columns(&k, tid, taddr, 0, TC_COLS);
    return k.f;
}


static cute_status run(cute_backend be, m64_variant v, int *mma, int *ld, uint32_t *out)
{
    static uint32_t img[TC_WORDS];
    tc_operands(img, A, B);
    return tc_run(be, m64_kernel(v, mma, ld), 1, 1, img, sizeof img, out, TC_M * TC_N);
}

static void good(cute_backend be)
{
    static uint32_t out[TC_M * TC_N];
    int mma, ld;
    CHECK(run(be, M64_GOOD, &mma, &ld, out) == CUTE_OK, "the M = 64 kernel runs: %s", be.vt->error(be.self));
    double worst = tc_worst_error(out, A, B);
    CHECK(worst < 1e-6, "two M = 64 tiles (64x64x32 bf16 each, lanes 0 and 16) read by 16x32bx2 against float64: "
          "worst %.3g of sum |ab|", worst);
}

static void broken(cute_backend be)
{
    static uint32_t out[TC_M * TC_N];
    int mma, ld;
    cute_status s = run(be, M64_LANE8, &mma, &ld, out);
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(s != CUTE_OK && r && strstr(r->msg, "lane 0 or 16") && strstr(r->msg, "warp 0") && r->line == mma,
          "an M = 64 D at lane 8 reported at the MMA (line %d): %s", mma, r ? r->msg : "nothing");
    s = run(be, M64_ONE_TILE, &mma, &ld, out);
    r = kt_report(be, 0);
    CHECK(s != CUTE_OK && r && strstr(r->msg, "lane 16 column") && strstr(r->msg, "never written") && r->line == ld,
          "lanes 16..31 of an M = 64 tile at lane 0 are never written: reported at the T2R (line %d): %s", ld,
          r ? r->msg : "nothing");
}

int main(void)
{
    srand(64);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    good(be);
    broken(be);
    be.vt->destroy(be.self);
    int mma, ld;
    kt_compiles_for((cute_ir_func *[]){m64_kernel(M64_GOOD, &mma, &ld)}, 1, "sm_100a",
                    "tcgen05.ld.sync.aligned.16x32bx2.x32.b32");
    return CHECK_DONE("interp/tcgen05_m64");
}
