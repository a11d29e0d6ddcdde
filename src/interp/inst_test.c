/* The instruction table under the interpreter.
 *  - every case of hw_mma_cases.h (run on an H200 by src/interp/gpu/hw_mma.cu: each lane's
 *    registers in and out) replayed through its row, bit for bit (a few ulp where the
 *    tensor cores' rounding of wide sums is not modelled exactly);
 *  - every mma row against a float64 reference, its fragments placed by CuTe's MMA traits
 *    (ALayout/BLayout/CLayout in CuTe notation, evaluated by the layout algebra), fresh
 *    random inputs: a wrong fragment layout or a wrong element decoding fails;
 *  - stmatrix then ldmatrix of the same addresses gives the registers back;
 *  - a warp-collective row with lanes missing is a check (inline PTX refused: checks_test.c). */
#include <math.h>

#include "cutec/inst.h"
#include "cutec/notation.h"
#include "interp/hw_mma_cases.h"
#include "interp/interp_testkit.h"

static cute_backend be;

static cute_type class_type(const cute_inst_group *G)
{
    return G->cls == CUTE_RC_F32 ? cute_type_of(CUTE_F32) : G->cls == CUTE_RC_F64 ? cute_type_of(CUTE_F64)
                                                                                  : cute_type_of(CUTE_U32);
}

typedef struct rk {
    kt k;
    cute_vreg in, in64, out, out64, t;
    cute_vreg saddr; /* the word of the last shared address */
    int wi, wo; /* words of a lane consumed from IN / produced to OUT */
} rk;

/* word w of this lane's inputs as a register of the group's class (f64: two words) */
static cute_vreg input(rk *K, const cute_inst_group *G)
{
    kt *k = &K->k;
    cute_vreg at = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, K->t, kt_i64(k, HW_NIN)), kt_i64(k, K->wi));
    if (G->cls == CUTE_RC_F64) {
        K->wi += 2;
        return kt_load(k, kt_ptr_add(k, K->in64, kt_bin(k, CUTE_OP_DIV, at, kt_i64(k, 2))));
    }
    K->wi++;
    cute_vreg v = kt_load(k, kt_ptr_add(k, K->in, at));
    if (G->role == CUTE_IG_SADDR) /* a byte offset into shared memory */
        return kt_ptr_add(k, kt_smem(k, CUTE_U8, 0), kt_cvt(k, K->saddr = v, CUTE_I64));
    return G->cls == CUTE_RC_F32 ? kt_op(k, CUTE_OP_BITCAST, cute_type_of(CUTE_F32), v, 0, 0) : v;
}

static void output(rk *K, cute_vreg r)
{
    kt *k = &K->k;
    cute_type ty = cute_ir_type(k->f, r);
    cute_vreg at = kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, K->t, kt_i64(k, HW_NOUT)), kt_i64(k, K->wo));
    if (ty.dtype == CUTE_F64) {
        kt_store(k, kt_ptr_add(k, K->out64, kt_bin(k, CUTE_OP_DIV, at, kt_i64(k, 2))), r);
        K->wo += 2;
        return;
    }
    if (ty.dtype == CUTE_F32) r = kt_op(k, CUTE_OP_BITCAST, cute_type_of(CUTE_U32), r, 0, 0);
    kt_store(k, kt_ptr_add(k, K->out, at), r);
    K->wo++;
}

/* a kernel of one warp running `row` on each lane's words; shared memory holds hw_img
 * first; a row writing shared memory (stmatrix) gives back the 16 bytes at the lane's
 * address */
static cute_module *row_kernel(cute_inst row)
{
    const cute_inst_info *I = cute_inst_info_of(row);
    rk K = {.wi = 0};
    kt *k = &K.k;
    kt_begin(k, I->id);
    K.in = kt_param_ptr(k, CUTE_U32, "in"), K.in64 = kt_param_ptr(k, CUTE_F64, "in64");
    K.out = kt_param_ptr(k, CUTE_U32, "out"), K.out64 = kt_param_ptr(k, CUTE_F64, "out64");
    cute_vreg img = kt_param_ptr(k, CUTE_U32, "img");
    K.t = kt_sreg64(k, CUTE_SREG_TID_X);
    k->f->smem_bytes = 1024;
    cute_vreg s = kt_smem(k, CUTE_U32, 0);
    for (int r = 0; r < 8; r++) {
        cute_vreg i = kt_bin(k, CUTE_OP_ADD, K.t, kt_i64(k, 32 * r));
        kt_store(k, kt_ptr_add(k, s, i), kt_load(k, kt_ptr_add(k, img, i)));
    }
    kt_barrier(k);
    cute_vreg out[16], in[40];
    int no = 0, ni = 0;
    for (int g = 0; g < I->ngroups; g++) {
        const cute_inst_group *G = &I->groups[g];
        for (int q = 0; q < G->count; q++) {
            if (G->role == CUTE_IG_OUT) out[no++] = cute_ir_new_vreg(k->f, class_type(G), G->name, false);
            else in[ni++] = input(&K, G);
        }
    }
    cute_ir_inst_op(&k->b, row, out, no, in, ni, 0);
    for (int q = 0; q < no; q++) output(&K, out[q]);
    if (!no && K.saddr) {
        kt_barrier(k);
        cute_vreg w = kt_bin(k, CUTE_OP_DIV, kt_cvt(k, K.saddr, CUTE_I64), kt_i64(k, 4));
        for (int q = 0; q < 4; q++)
            output(&K, kt_load(k, kt_ptr_add(k, s, kt_bin(k, CUTE_OP_ADD, w, kt_i64(k, q)))));
    }
    return kt_compile(be, k);
}

/* run row on one warp: in[32][HW_NIN] words -> out[32][HW_NOUT]; false after a failed check */
static bool run_row(cute_inst row, const uint32_t (*in)[HW_NIN], uint32_t (*out)[HW_NOUT],
                    const uint16_t *img)
{
    cute_module *m = row_kernel(row);
    CHECK(m != NULL, "%s compiles", cute_inst_info_of(row)->id);
    if (!m) return false;
    memset(out, 0xa5, 32 * HW_NOUT * 4); /* poison */
    size_t nin = 32 * HW_NIN * 4, nout = 32 * HW_NOUT * 4;
    cute_buffer bi = kt_buf(be, in, nin), bo = kt_buf(be, out, nout), bm = kt_buf(be, img, sizeof hw_img);
    cute_launch_arg args[5] = {kt_arg_buf(&bi, CUTE_U32), kt_arg_buf(&bi, CUTE_F64), kt_arg_buf(&bo, CUTE_U32),
                               kt_arg_buf(&bo, CUTE_F64), kt_arg_buf(&bm, CUTE_U32)};
    cute_status s = kt_launch(be, m, 1, 32, 0, args, 5);
    CHECK(s == CUTE_OK, "%s runs: %s", cute_inst_info_of(row)->id, be.vt->error(be.self));
    be.vt->download(be.self, out, &bo, 0, nout);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bi), be.vt->free(be.self, &bo), be.vt->free(be.self, &bm);
    return s == CUTE_OK;
}

/* --- the hardware's results ------------------------------------------------------------- */

static void replay(void)
{
    for (size_t q = 0; q < sizeof hw_cases / sizeof hw_cases[0]; q++) {
        const hw_case *c = &hw_cases[q];
        cute_inst row = cute_inst_lookup(c->row);
        CHECK(row != CUTE_INST_COUNT, "%s: no row %s", c->name, c->row);
        if (row == CUTE_INST_COUNT) continue;
        cute_ir_inst probe = {.op = CUTE_OP_INST, .imm2 = row};
        CHECK(be.vt->supports_op(be.self, &probe), "%s: supports_op", c->name);
        uint32_t out[32][HW_NOUT];
        if (!run_row(row, c->in, out, hw_img)) continue;
        int bad = 0, close = 0, worst = 0;
        /* random inputs of similar scale in f16: the model of the tensor cores' addition is
         * exact; for bf16, tf32, fp8, f64 and f16 of widely spread scales it is off by a few
         * ulp in some results (4 at most in these samples) */
        bool random = strstr(c->name, "random") != NULL;
        bool exact = !random || !strcmp(c->name, "mma f16 k16 random") || !strcmp(c->name, "mma f16 k8 random") ||
                     strstr(c->name, "accumulate") || strstr(c->name, " s8") || strstr(c->name, " u8");
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < c->nout; r++) {
                uint32_t got = out[l][r], want = c->out[l][r];
                if (got == want) continue;
                int ulp = abs((int32_t)got - (int32_t)want);
                if (!exact && ulp <= 4) {
                    worst = ulp > worst ? ulp : worst;
                    close++;
                    continue;
                }
                if (bad++ < 3)
                    fprintf(stderr, "%s: lane %d word %d: got %08x, the H200 gave %08x\n", c->name, l, r, got, want);
            }
        CHECK(bad == 0, "%s: %d words differ from the hardware's", c->name, bad);
        if (random)
            printf("%s: %d of %d results differ from the H200's, by at most %d ulp\n", c->name, close,
                   32 * c->nout, worst);
    }
}

/* --- every mma row against float64, fragments placed by CuTe's traits ---------------------- */

enum { T_F16, T_BF16, T_TF32, T_F32, T_F64, T_S8, T_U8, T_S32, T_E4M3, T_E5M2 };
static int bits_of(int t) { return t == T_F16 || t == T_BF16 ? 16 : t == T_S8 || t == T_U8 || t == T_E4M3 || t == T_E5M2 ? 8 : t == T_F64 ? 64 : 32; }

/* CuTe's (thread, value) -> index layouts (mma_traits_sm80/sm89/sm90.hpp) */
#define C16x8 "((4,8),(2,2)):((32,1),(16,8))"
#define A16x8x16_16b "((4,8),(2,2,2)):((32,1),(16,8,128))"
#define B8x16_16b "((4,8),(2,2)):((16,1),(8,64))"
#define A16x8x8_32b "((4,8),(2,2)):((16,1),(8,64))"
#define B8x8_32b "((4,8),2):((8,1),32)"
#define A16x8x32_8b "((4,8),(4,2,2)):((64,1),(16,8,256))"
#define B8x32_8b "((4,8),(4,2)):((32,1),(8,128))"
static const struct mma_case {
    const char *row, *A, *B, *C;
    int m, n, k, d, a, b;
} mma_cases[] = {
    {"MMA_16x8x8_F16F16F16F16", C16x8, "((4,8),2):((16,1),8)", C16x8, 16, 8, 8, T_F16, T_F16, T_F16},
    {"MMA_16x8x8_F32F16F16F32", C16x8, "((4,8),2):((16,1),8)", C16x8, 16, 8, 8, T_F32, T_F16, T_F16},
    {"MMA_16x8x8_F32BF16BF16F32", C16x8, "((4,8),2):((16,1),8)", C16x8, 16, 8, 8, T_F32, T_BF16, T_BF16},
    {"MMA_16x8x16_F16F16F16F16", A16x8x16_16b, B8x16_16b, C16x8, 16, 8, 16, T_F16, T_F16, T_F16},
    {"MMA_16x8x16_F32F16F16F32", A16x8x16_16b, B8x16_16b, C16x8, 16, 8, 16, T_F32, T_F16, T_F16},
    {"MMA_16x8x16_F32BF16BF16F32", A16x8x16_16b, B8x16_16b, C16x8, 16, 8, 16, T_F32, T_BF16, T_BF16},
    {"MMA_16x8x4_F32TF32TF32F32", "((4,8),2):((16,1),8)", "((4,8),1):((8,1),0)", C16x8, 16, 8, 4, T_F32, T_TF32, T_TF32},
    {"MMA_16x8x8_F32TF32TF32F32", A16x8x8_32b, B8x8_32b, C16x8, 16, 8, 8, T_F32, T_TF32, T_TF32},
    {"MMA_8x8x4_F64F64F64F64", "((4,8),1):((8,1),0)", "((4,8),1):((8,1),0)", "((4,8),2):((16,1),8)", 8, 8, 4, T_F64, T_F64, T_F64},
    {"MMA_16x8x4_F64F64F64F64", "((4,8),2):((16,1),8)", "((4,8),1):((8,1),0)", C16x8, 16, 8, 4, T_F64, T_F64, T_F64},
    {"MMA_16x8x8_F64F64F64F64", A16x8x8_32b, B8x8_32b, C16x8, 16, 8, 8, T_F64, T_F64, T_F64},
    {"MMA_16x8x16_F64F64F64F64", "((4,8),(2,4)):((16,1),(8,64))", "((4,8),4):((8,1),32)", C16x8, 16, 8, 16, T_F64, T_F64, T_F64},
    {"MMA_16x8x16_S32S8S8S32", "((4,8),(4,2)):((64,1),(16,8))", "((4,8),4):((32,1),8)", C16x8, 16, 8, 16, T_S32, T_S8, T_S8},
    {"MMA_16x8x16_S32S8U8S32", "((4,8),(4,2)):((64,1),(16,8))", "((4,8),4):((32,1),8)", C16x8, 16, 8, 16, T_S32, T_S8, T_U8},
    {"MMA_16x8x16_S32U8S8S32", "((4,8),(4,2)):((64,1),(16,8))", "((4,8),4):((32,1),8)", C16x8, 16, 8, 16, T_S32, T_U8, T_S8},
    {"MMA_16x8x16_S32U8U8S32", "((4,8),(4,2)):((64,1),(16,8))", "((4,8),4):((32,1),8)", C16x8, 16, 8, 16, T_S32, T_U8, T_U8},
    {"MMA_16x8x32_S32S8S8S32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_S32, T_S8, T_S8},
    {"MMA_16x8x32_S32S8U8S32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_S32, T_S8, T_U8},
    {"MMA_16x8x32_S32U8S8S32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_S32, T_U8, T_S8},
    {"MMA_16x8x32_S32U8U8S32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_S32, T_U8, T_U8},
    {"MMA_16x8x32_F32E4M3E4M3F32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_F32, T_E4M3, T_E4M3},
    {"MMA_16x8x32_F32E4M3E5M2F32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_F32, T_E4M3, T_E5M2},
    {"MMA_16x8x32_F32E5M2E4M3F32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_F32, T_E5M2, T_E4M3},
    {"MMA_16x8x32_F32E5M2E5M2F32", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_F32, T_E5M2, T_E5M2},
};

/* a random value of type t: its bits and its value (fp8 from a table of known encodings) */
static uint64_t random_value(int t, double *v)
{
    static const struct { uint8_t bits; double v; } e4m3[] = {
        {0x38, 1}, {0x40, 2}, {0xb8, -1}, {0x3c, 1.5}, {0x30, 0.5}, {0x7e, 448}, {0x01, 0x1p-9}, {0xc5, -3.25}};
    static const struct { uint8_t bits; double v; } e5m2[] = {
        {0x3c, 1}, {0x40, 2}, {0xbc, -1}, {0x3e, 1.5}, {0x38, 0.5}, {0x7b, 57344}, {0x01, 0x1p-16}, {0xc5, -5}};
    int r = rand();
    float f = (float)(r % 33 - 16) / 8;
    uint32_t u;
    memcpy(&u, &f, 4);
    switch (t) {
    case T_F16: return *v = f, cute_f32_to_f16(f);
    case T_BF16: return *v = f, cute_f32_to_bf16(f);
    case T_TF32: return *v = f, f == 0 ? 0 : u | (uint32_t)(rand() & 0x1fff); /* junk below tf32 */
    case T_F32: f = (float)(r % 2001 - 1000) / 64, memcpy(&u, &f, 4); return *v = f, u;
    case T_S8: return *v = (int8_t)(r & 0xff), (uint64_t)(r & 0xff);
    case T_U8: return *v = r & 0xff, (uint64_t)(r & 0xff);
    case T_S32: return *v = r % 200001 - 100000, (uint32_t)(int32_t)(r % 200001 - 100000);
    case T_E4M3: return *v = e4m3[r % 8].v, e4m3[r % 8].bits;
    case T_E5M2: return *v = e5m2[r % 8].v, e5m2[r % 8].bits;
    default: {
        double d = ldexp((double)r / RAND_MAX - 0.5, rand() % 12 - 6);
        uint64_t b;
        memcpy(&b, &d, 8);
        return *v = d, b;
    }
    }
}

/* put value number v (CuTe's value index) of type t into lane words w (from word 0) */
static void pack(uint32_t *w, int t, int v, uint64_t bits)
{
    int b = bits_of(t);
    if (b == 64) {
        w[2 * v] = (uint32_t)bits, w[2 * v + 1] = (uint32_t)(bits >> 32);
        return;
    }
    int per = 32 / b, r = v / per, h = v % per;
    uint32_t mask = b == 32 ? ~0u : (1u << b) - 1;
    w[r] = (w[r] & ~(mask << (b * h))) | ((uint32_t)bits & mask) << (b * h);
}

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
    if (!run_row(row, (const uint32_t(*)[HW_NIN])in, out, hw_img)) return;
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
    CHECK(sizeof mma_cases / sizeof mma_cases[0] == 24, "every mma row has a case");
    for (size_t q = 0; q < sizeof mma_cases / sizeof mma_cases[0]; q++) mma_reference(&mma_cases[q], &c);
    cute_alg_clear(&c);
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
        if (!run_row(st[q], (const uint32_t(*)[HW_NIN])in, out, hw_img)) continue;
        /* the rows stmatrix wrote (each lane read its own back), as ldmatrix's image */
        uint16_t img[512];
        memcpy(img, hw_img, sizeof img);
        for (int l = 0; l < 8 * n; l++) memcpy(&img[in[l][0] / 2], out[l], 16);
        run_row(ld[q], (const uint32_t(*)[HW_NIN])in, back, img);
        int bad = 0;
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < n; j++) bad += back[l][j] != in[l][1 + j];
        CHECK(bad == 0, "%s then %s: %d registers differ", cute_inst_info_of(st[q])->id, cute_inst_info_of(ld[q])->id,
              bad);
    }
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
    divergent_mma();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp inst");
}
