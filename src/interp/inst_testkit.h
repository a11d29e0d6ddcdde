/* Running one row of the instruction table on any backend (inst_test.c: the interpreter;
 * inst_gpu_test.c: the GPU against the interpreter): a one-warp kernel that takes each lane's
 * input words, runs the row and gives back its output words; the element types of every mma
 * row and CuTe's fragment layouts for them; random values of each type. */
#ifndef CUTEC_INST_TESTKIT_H
#define CUTEC_INST_TESTKIT_H

#include <math.h>

#include "cutec/inst.h"
#include "interp/hw_mma_cases.h"
#include "interp/interp_testkit.h"

enum { T_F16, T_BF16, T_TF32, T_F32, T_F64, T_S8, T_U8, T_S32, T_E4M3, T_E5M2 };

/* the sm_90 synchronization rows: tested by their behaviour (sync_test.c), not by lanes */
static inline bool sync_row(int r)
{
    return r >= CUTE_INST_MBARRIER_INIT && r <= CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP_READ;
}

static inline cute_type class_type(const cute_inst_group *G)
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
static inline cute_vreg input(rk *K, const cute_inst_group *G)
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

static inline void output(rk *K, cute_vreg r)
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

/* the immediate a row runs with here: prmt's selector takes bytes of both registers, one
 * with its sign replicated (nibbles 1, 4, 0xe, 9); other rows 0 */
#define PRMT_TEST_SEL 0x9e41
static inline int64_t row_imm(cute_inst row)
{
    return row == CUTE_INST_PRMT_B32 ? PRMT_TEST_SEL : 0;
}

/* a kernel of one warp running `row` on each lane's words; shared memory holds hw_img
 * first; a row writing shared memory (stmatrix) gives back the 16 bytes at the lane's
 * address */
static inline cute_ir_func *row_func(cute_inst row)
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
    cute_ir_inst_op(&k->b, row, out, no, in, ni, row_imm(row));
    for (int q = 0; q < no; q++) output(&K, out[q]);
    if (!no && K.saddr) {
        kt_barrier(k);
        cute_vreg w = kt_bin(k, CUTE_OP_DIV, kt_cvt(k, K.saddr, CUTE_I64), kt_i64(k, 4));
        for (int q = 0; q < 4; q++)
            output(&K, kt_load(k, kt_ptr_add(k, s, kt_bin(k, CUTE_OP_ADD, w, kt_i64(k, q)))));
    }
    return k->f;
}

static inline cute_module *row_kernel(cute_backend be, cute_inst row)
{
    kt k = {row_func(row), {0}};
    return kt_compile(be, &k);
}

/* run row on one warp: in[32][HW_NIN] words -> out[32][HW_NOUT]; false after a failed check */
static inline bool run_row(cute_backend be, cute_inst row, const uint32_t (*in)[HW_NIN],
                           uint32_t (*out)[HW_NOUT], const uint16_t *img)
{
    cute_module *m = row_kernel(be, row);
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

static inline int bits_of(int t) { return t == T_F16 || t == T_BF16 ? 16 : t == T_S8 || t == T_U8 || t == T_E4M3 || t == T_E5M2 ? 8 : t == T_F64 ? 64 : 32; }

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
    {"MMA_16x8x32_F32E4M3E4M3F32_VIA_F16", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_F32, T_E4M3, T_E4M3},
    {"MMA_16x8x32_F32E5M2E5M2F32_VIA_F16", A16x8x32_8b, B8x32_8b, C16x8, 16, 8, 32, T_F32, T_E5M2, T_E5M2},
};

static inline const struct mma_case *mma_case_of(const char *row)
{
    for (size_t q = 0; q < sizeof mma_cases / sizeof mma_cases[0]; q++)
        if (!strcmp(mma_cases[q].row, row)) return &mma_cases[q];
    return NULL;
}

/* a random value of type t: its bits and its value (fp8 from a table of known encodings) */
static inline uint64_t random_value(int t, double *v)
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
static inline void pack(uint32_t *w, int t, int v, uint64_t bits)
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

/* how close a replayed result must be to the hardware's: 0 exact, else at most this many
 * ulp of its register (f32 or f64).  Layouts, integers, small exact values and f16 of
 * similar magnitudes are exact (the model of the tensor cores' addition reproduces them);
 * bf16, tf32 and f16 of spread magnitudes differ by a few ulp in some results; fp8 and f64
 * (no model fitted yet) by more: a wrong layout or decoding is off by far more than that. */
/* register r of a lane's words (f64: two words) as a signed integer, for ulp distances */
static inline int64_t reg_bits(const uint32_t *w, int r, bool wide)
{
    return wide ? (int64_t)((uint64_t)w[2 * r] | (uint64_t)w[2 * r + 1] << 32) : (int32_t)w[r];
}

#endif
