/* The instruction table under the interpreter.
 *  - every case of hw_mma_cases.h (recorded on an H100 by src/interp/gpu/hw_mma.cu: each
 *    lane's registers in and out) replayed through its row, bit for bit (the tensor cores'
 *    alignment and truncation are modelled exactly: inst_mma.c);
 *  - every mma row against a float64 reference, its fragments placed by CuTe's MMA traits
 *    (ALayout/BLayout/CLayout in CuTe notation, evaluated by the layout algebra), fresh
 *    random inputs: a wrong fragment layout or a wrong element decoding fails;
 *  - stmatrix then ldmatrix of the same addresses gives the registers back;
 *  - a warp-collective row with lanes missing is a check (inline PTX refused: checks_test.c). */
#include "cutec/notation.h"
#include "interp/inst_testkit.h"

static cute_backend be;

/* --- every mma row against float64, fragments placed by CuTe's traits ---------------------- */

/* one operand matrix: M[idx] for idx = L(t, v), random, packed into words from `at` */
static void fill(cute_alg *c, const char *layout, int t, int nvals, double *M, uint32_t (*in)[HW_NIN], int at)
{
    cute_layout L = cute_layout_parse(c, layout);
    for (int v = 0; v < nvals; v++)
        for (int l = 0; l < 32; l++) {
            double x;
            uint64_t b = random_value(t, &x);
            int64_t idx = cute_layout_eval(c, &L, cute_i(l + 32 * v)).v;
            M[idx] = x;
            pack(&in[l][at], t, v, b);
        }
}

static double value_of(int t, const uint32_t *w, int v)
{
    if (t == T_F64) {
        uint64_t b = (uint64_t)w[2 * v] | (uint64_t)w[2 * v + 1] << 32;
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    if (t == T_F16) return cute_f16_to_f32((uint16_t)(w[v / 2] >> (16 * (v % 2))));
    if (t == T_S32) return (int32_t)w[v];
    float f;
    memcpy(&f, &w[v], 4);
    return f;
}

static void mma_reference(const struct mma_case *mc, cute_alg *c)
{
    cute_inst row = cute_inst_lookup(mc->row);
    CHECK(row != CUTE_INST_COUNT, "no row %s", mc->row);
    if (row == CUTE_INST_COUNT) return;
    int M = mc->m, N = mc->n, K = mc->k, nc = M * N / 32;
    int na = M * K / 32, nb = N * K / 32;
    double A[16 * 32], B[8 * 32], C[16 * 8], mag[16 * 8];
    static uint32_t in[32][HW_NIN], out[32][HW_NOUT];
    memset(in, 0, sizeof in);
    int wa = na * bits_of(mc->a) / 32, wb = nb * bits_of(mc->b) / 32;
    fill(c, mc->A, mc->a, na, A, in, 0);
    fill(c, mc->B, mc->b, nb, B, in, wa);
    fill(c, mc->C, mc->d == T_F16 ? T_F16 : mc->d == T_F64 ? T_F64 : mc->d, nc, C, in, wa + wb);
    if (!run_row(be, row, (const uint32_t(*)[HW_NIN])in, out, hw_img)) return;
    cute_layout L = cute_layout_parse(c, mc->C);
    int bad = 0;
    for (int v = 0; v < nc; v++)
        for (int l = 0; l < 32; l++) {
            int64_t idx = cute_layout_eval(c, &L, cute_i(l + 32 * v)).v;
            int m = (int)(idx % M), n = (int)(idx / M);
            double ref = C[idx];
            mag[idx] = fabs(C[idx]);
            for (int k = 0; k < K; k++) ref += A[m + M * k] * B[n + N * k], mag[idx] += fabs(A[m + M * k] * B[n + N * k]);
            double got = value_of(mc->d, out[l], v);
            double tol = mc->d == T_S32 ? 0 : mc->d == T_F64 ? 0x1p-50 * mag[idx]
                         : mc->d == T_F16                   ? 0x1p-10 * mag[idx]
                                                            : 0x1p-21 * mag[idx];
            if (mc->d == T_S32) ref = (double)(int32_t)(int64_t)ref; /* wraps */
            if (!(fabs(got - ref) <= tol) && bad++ < 3)
                fprintf(stderr, "%s: lane %d value %d (D[%d][%d]): got %.17g, want %.17g\n", mc->row, l, v, m, n,
                        got, ref);
        }
    CHECK(bad == 0, "%s: %d results off the float64 reference", mc->row, bad);
}

static void mma_all(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    CHECK(sizeof mma_cases / sizeof mma_cases[0] == 26, "every mma row has a case");
    for (size_t q = 0; q < sizeof mma_cases / sizeof mma_cases[0]; q++) mma_reference(&mma_cases[q], &c);
    cute_alg_clear(&c);
}

/* --- the hardware's results ------------------------------------------------------------- */

static void replay(void)
{
    for (int r = 0; r < CUTE_INST_COUNT; r++) { /* every row runs here */
        cute_ir_inst probe = {.op = CUTE_OP_INST, .imm2 = r};
        CHECK(be.vt->supports_op(be.self, &probe), "%s has no emulation", cute_inst_info_of((cute_inst)r)->id);
    }
    for (size_t q = 0; q < sizeof hw_cases / sizeof hw_cases[0]; q++) {
        const hw_case *c = &hw_cases[q];
        cute_inst row = cute_inst_lookup(c->row);
        CHECK(row != CUTE_INST_COUNT, "%s: no row %s", c->name, c->row);
        if (row == CUTE_INST_COUNT) continue;
        cute_ir_inst probe = {.op = CUTE_OP_INST, .imm2 = row};
        CHECK(be.vt->supports_op(be.self, &probe), "%s: supports_op", c->name);
        uint32_t out[32][HW_NOUT];
        if (!run_row(be, row, c->in, out, hw_img)) continue;
        const struct mma_case *mc = mma_case_of(c->row);
        bool wide = mc && mc->d == T_F64;
        int bad = 0, nregs = wide ? c->nout / 2 : c->nout;
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < nregs; r++) {
                int64_t got = reg_bits(out[l], r, wide), want = reg_bits(c->out[l], r, wide);
                if (got != want && bad++ < 3)
                    fprintf(stderr, "%s: lane %d register %d: got %llx, the hardware gave %llx\n", c->name, l, r,
                            (unsigned long long)got, (unsigned long long)want);
            }
        CHECK(bad == 0, "%s: %d registers differ from the hardware's", c->name, bad);
    }
}

/* --- stmatrix: ldmatrix of the same addresses gives the registers back ------------------------ */

static void stmatrix_roundtrip(void)
{
    static const cute_inst st[] = {CUTE_INST_STMATRIX_X1, CUTE_INST_STMATRIX_X1_TRANS, CUTE_INST_STMATRIX_X2,
                                   CUTE_INST_STMATRIX_X2_TRANS, CUTE_INST_STMATRIX_X4, CUTE_INST_STMATRIX_X4_TRANS};
    static const cute_inst ld[] = {CUTE_INST_LDMATRIX_X1, CUTE_INST_LDMATRIX_X1_TRANS, CUTE_INST_LDMATRIX_X2,
                                   CUTE_INST_LDMATRIX_X2_TRANS, CUTE_INST_LDMATRIX_X4, CUTE_INST_LDMATRIX_X4_TRANS};
    for (int q = 0; q < 6; q++) {
        int n = cute_inst_info_of(st[q])->nin - 1;
        static uint32_t in[32][HW_NIN], out[32][HW_NOUT], back[32][HW_NOUT];
        memset(in, 0, sizeof in);
        for (int l = 0; l < 32; l++) {
            in[l][0] = (uint32_t)((l * 13 + q * 7) % 64) * 16; /* a distinct row each */
            for (int j = 0; j < n; j++) in[l][1 + j] = (uint32_t)rand() ^ (uint32_t)rand() << 16;
        }
        if (!run_row(be, st[q], (const uint32_t(*)[HW_NIN])in, out, hw_img)) continue;
        /* the rows stmatrix wrote (each lane read its own back), as ldmatrix's image */
        uint16_t img[512];
        memcpy(img, hw_img, sizeof img);
        for (int l = 0; l < 8 * n; l++) memcpy(&img[in[l][0] / 2], out[l], 16);
        run_row(be, ld[q], (const uint32_t(*)[HW_NIN])in, back, img);
        int bad = 0;
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < n; j++) bad += back[l][j] != in[l][1 + j];
        CHECK(bad == 0, "%s then %s: %d registers differ", cute_inst_info_of(st[q])->id, cute_inst_info_of(ld[q])->id,
              bad);
    }
}

/* --- prmt: each byte of d picked from b:a by a nibble of the selector ------------------------ */

static void prmt_bytes(void)
{
    static uint32_t in[32][HW_NIN], out[32][HW_NOUT];
    for (int l = 0; l < 32; l++) in[l][0] = (uint32_t)rand() ^ (uint32_t)rand() << 16, in[l][1] = (uint32_t)rand() << 7;
    in[0][1] |= 0x00800000u, in[1][1] &= ~0x00800000u; /* b's byte 2 negative and not */
    if (!run_row(be, CUTE_INST_PRMT_B32, (const uint32_t(*)[HW_NIN])in, out, hw_img)) return;
    int bad = 0;
    for (int l = 0; l < 32; l++) {
        uint32_t a = in[l][0], b = in[l][1];
        uint32_t want = (a >> 8 & 0xff) | (b & 0xff) << 8 | (b >> 16 & 0x80 ? 0xffu << 16 : 0) |
                        (a >> 8 & 0x80 ? 0xffu << 24 : 0); /* nibbles 1, 4, 0xe, 9 */
        if (out[l][0] != want && bad++ < 3)
            fprintf(stderr, "prmt lane %d: %08x %08x -> %08x, want %08x\n", l, a, b, out[l][0], want);
    }
    CHECK(bad == 0, "prmt.b32 0x%x: %d lanes wrong", PRMT_TEST_SEL, bad);
}

/* --- prmt with a register selector (a byte table lookup) and dp4a ---------------------------- */

/* each lane's selector: a random word, so its low four nibbles pick bytes of b:a, some with
 * bit 3 (the byte's sign replicated) */
static void prmt_register(void)
{
    static uint32_t in[32][HW_NIN], out[32][HW_NOUT];
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < 3; j++) in[l][j] = (uint32_t)rand() ^ (uint32_t)rand() << 16;
    if (!run_row(be, CUTE_INST_PRMT_B32_R, (const uint32_t(*)[HW_NIN])in, out, hw_img)) return;
    int bad = 0;
    for (int l = 0; l < 32; l++) {
        uint8_t tab[8];
        for (int i = 0; i < 4; i++) tab[i] = (uint8_t)(in[l][0] >> 8 * i), tab[4 + i] = (uint8_t)(in[l][1] >> 8 * i);
        uint32_t want = 0;
        for (int i = 0; i < 4; i++) {
            int n = (int)(in[l][2] >> 4 * i & 15);
            uint8_t byte = n & 8 ? (tab[n & 7] >= 128 ? 255 : 0) : tab[n];
            want |= (uint32_t)byte << 8 * i;
        }
        bad += out[l][0] != want;
    }
    CHECK(bad == 0, "prmt.b32 with a register selector: %d lanes wrong", bad);
}

/* random bytes, with -128 and 127 in lane 0 (the products' extremes) and an accumulator
 * near the 32-bit limits in lane 1 (wrap-around) */
static void dp4a_bytes(void)
{
    static uint32_t in[32][HW_NIN], out[32][HW_NOUT];
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < 3; j++) in[l][j] = (uint32_t)rand() ^ (uint32_t)rand() << 16;
    in[0][0] = 0x80807f80u, in[0][1] = 0x807f8080u, in[1][2] = 0x7ffffff0u;
    if (!run_row(be, CUTE_INST_DP4A_S32, (const uint32_t(*)[HW_NIN])in, out, hw_img)) return;
    int bad = 0;
    for (int l = 0; l < 32; l++) {
        int64_t sum = (int32_t)in[l][2];
        for (int i = 0; i < 4; i++) sum += (int64_t)(int8_t)(in[l][0] >> 8 * i) * (int8_t)(in[l][1] >> 8 * i);
        bad += out[l][0] != (uint32_t)(uint64_t)sum;
    }
    CHECK(bad == 0, "dp4a.s32.s32: %d lanes wrong", bad);
}

/* --- misuse ------------------------------------------------------------------------------------ */

/* an mma with half of the warp diverged away */
static void divergent_mma(void)
{
    kt k;
    kt_begin(&k, "divergent_mma");
    cute_vreg t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X), d[4], in[10];
    for (int q = 0; q < 4; q++) d[q] = cute_ir_new_vreg(k.f, cute_type_of(CUTE_F32), "d", false);
    for (int q = 0; q < 10; q++)
        in[q] = q < 6 ? cute_ir_const_int(&k.b, CUTE_U32, 0x3c00) : cute_ir_const_float(&k.b, CUTE_F32, 1);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i32(&k, 16)));
    KT_AT(&k.b); int line = __LINE__;
    cute_ir_inst_op(&k.b, CUTE_INST_MMA_16x8x16_F32F16F16F32, d, 4, in, 10, 0);
    cute_ir_end(&k.b);
    cute_module *m = kt_compile(be, &k);
    CHECK(m && kt_launch(be, m, 1, 32, 0, NULL, 0) == CUTE_ERR_CHECK, "a check");
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(r && r->kind == CUTE_CHECK_WARP_INACTIVE && r->line == line &&
              strstr(r->msg, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 is warp-collective: 16 of 32"),
          "%s", r ? r->msg : "no report");
    be.vt->module_free(be.self, m);
}

int main(void)
{
    cute_interp_opts o = {.threads = 1};
    be = kt_backend(&o);
    srand(13);
    replay();
    mma_all();
    stmatrix_roundtrip();
    prmt_bytes();
    prmt_register();
    dp4a_bytes();
    divergent_mma();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp inst");
}
