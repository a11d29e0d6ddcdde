/* A one-block kernel of the sm_100 tcgen05 rows (tcgen05_test.c runs it on the interpreter and
 * compiles it for sm_100a): four warps; shared memory holds A (128 x K) and B (N x K) bf16,
 * K-major in the canonical layout without swizzle (8-row core matrices of 16 bytes, LBO 128
 * between the K halves of a core row, SBO K*16 between 8-row groups), copied in from `src`;
 * warp 0 allocates tensor memory, thread 0 issues K/16 tcgen05.mma and commits them to an
 * mbarrier, every warp waits for it and reads its 32 lanes of D (tcgen05.ld 32x32b) into
 * `out` (row-major 128 x N f32), warp 0 frees the columns.  Each variant breaks one rule. */
#ifndef CUTEC_TCGEN05_TESTKIT_H
#define CUTEC_TCGEN05_TESTKIT_H

#include <math.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/numeric.h"
#include "interp/sync_testkit.h"

enum { TC_M = 128, TC_N = 64, TC_K = 32, TC_COLS = 64 };
enum { TC_A_OFF = 0, TC_B_OFF = TC_M * TC_K * 2, TC_BAR_OFF = TC_B_OFF + TC_N * TC_K * 2,
       TC_SLOT_OFF = TC_BAR_OFF + 8, TC_SMEM = TC_SLOT_OFF + 8, TC_WORDS = TC_BAR_OFF / 4 };
typedef enum {
    TC_GOOD, TC_NO_WAIT, TC_NO_COMMIT, TC_NO_DEALLOC, TC_FREE_TWICE, TC_WRONG_LANES, TC_TOO_MANY,
    TC_HOPPER_DESC, TC_BARRIER_NOT_WAIT, TC_VARIANTS
} tc_variant;

typedef struct tc_lines {
    int alloc, mma, ld, dealloc, wait;
} tc_lines;

/* byte offset of element (r, k) of a K-major bf16 operand of TC_K columns (the canonical
 * layout without swizzle, as the PTX ISA draws it) */
static inline uint32_t tc_kmajor_offset(int r, int k)
{
    return (uint32_t)((r / 8) * (TC_K * 16) + (k / 8) * 128 + (r % 8) * 16 + (k % 8) * 2);
}

/* the sm_100 descriptor of an operand starting at shared address `addr` (u32) + k0 columns */
static inline cute_vreg tc_desc(kt *k, cute_vreg addr, int k0, bool hopper)
{
    uint64_t fixed = (uint64_t)(128 >> 4) << 16 | (uint64_t)((TC_K * 16) >> 4) << 32 | (hopper ? 0 : 1ull << 46);
    cute_vreg start = kt_bin(k, CUTE_OP_ADD, addr, sk_u32(k, (k0 / 8) * 128));
    cute_vreg lo = kt_cvt(k, kt_bin(k, CUTE_OP_SHR, start, sk_u32(k, 4)), CUTE_U64);
    return kt_bin(k, CUTE_OP_OR, lo, cute_ir_const_int(&k->b, CUTE_U64, (int64_t)fixed));
}

/* kind::f16 instruction descriptor: f32 D, bf16 A and B, both K-major, M 128, N */
static inline uint32_t tc_idesc(int n) { return 1u << 4 | 1u << 7 | 1u << 10 | (uint32_t)(n >> 3) << 17 | (128u >> 4) << 24; }

/* the first `words` words of src into shared memory, by 128 threads */
static inline void tc_copy_words(kt *k, cute_vreg src, cute_vreg tid, int words)
{
    cute_vreg s = kt_smem(k, CUTE_U32, 0);
    for (int i = 0; i < words / 128; i++) {
        cute_vreg at = kt_cvt(k, kt_bin(k, CUTE_OP_ADD, tid, sk_u32(k, 128 * i)), CUTE_I64);
        kt_store(k, kt_ptr_add(k, s, at), kt_load(k, kt_ptr_add(k, src, at)));
    }
}

static inline void tc_copy_in(kt *k, cute_vreg src, cute_vreg tid) { tc_copy_words(k, src, tid, TC_WORDS); }

/* thread 0: the MMAs over K, then the commit */
static inline void tc_issue(kt *k, tc_variant v, cute_vreg tid, cute_vreg taddr, cute_vreg bar, tc_lines *L)
{
    sk_if(k, CUTE_OP_EQ, tid, sk_u32(k, 0));
    cute_vreg a = kt_cvt(k, kt_smem(k, CUTE_U8, TC_A_OFF), CUTE_U32), b = kt_cvt(k, kt_smem(k, CUTE_U8, TC_B_OFF), CUTE_U32);
    for (int k0 = 0; k0 < TC_K; k0 += 16) {
        KT_AT(&k->b), L->mma = __LINE__;
        SK_DO(k, CUTE_INST_TCGEN05_MMA_F16, taddr, tc_desc(k, a, k0, v == TC_HOPPER_DESC), tc_desc(k, b, k0, false),
              sk_u32(k, tc_idesc(TC_N)), sk_u32(k, k0 > 0));
    }
    if (v != TC_NO_COMMIT) SK_DO(k, CUTE_INST_TCGEN05_COMMIT, bar);
    cute_ir_end(&k->b);
}

/* every warp: its 32 lanes of D, TC_N columns, into out's row `row` (thread tid's: tid, or for
 * the CTA pair tid plus the block's 128 rows); *ld: the T2R's line */
/* warp's 32 lanes of cols (32 or 64) columns from taddr (T2R) into out's row `row`, rows `stride`
 * words apart; *ld: the load's line */
static inline void tc_drain_cols(kt *k, cute_vreg warp, cute_vreg out, cute_vreg row, cute_vreg taddr, int cols,
                                 int stride, int *ld)
{
    cute_vreg at = kt_bin(k, CUTE_OP_ADD, taddr, kt_bin(k, CUTE_OP_SHL, warp, sk_u32(k, 21)));
    cute_vreg d[TC_N];
    for (int j = 0; j < cols; j++) d[j] = cute_ir_new_vreg(k->f, cute_type_of(CUTE_U32), "d", false);
    KT_AT(&k->b), *ld = __LINE__;
    cute_ir_inst_op(&k->b, cols == 32 ? CUTE_INST_TCGEN05_LD_32x32b_X32 : CUTE_INST_TCGEN05_LD_32x32b_X64, d, cols, &at,
                    1, 0);
    SK_DO(k, CUTE_INST_TCGEN05_WAIT_LD);
    cute_vreg base = kt_cvt(k, kt_bin(k, CUTE_OP_MUL, row, sk_u32(k, (uint32_t)stride)), CUTE_I64);
    for (int j = 0; j < cols; j++) kt_store(k, kt_ptr_add(k, out, kt_bin(k, CUTE_OP_ADD, base, kt_i64(k, j))), d[j]);
}

static inline void tc_drain(kt *k, tc_variant v, cute_vreg out, cute_vreg tid, cute_vreg row, cute_vreg taddr, int *ld)
{
    cute_vreg warp = kt_bin(k, CUTE_OP_SHR, tid, sk_u32(k, 5));
    if (v == TC_WRONG_LANES) warp = kt_bin(k, CUTE_OP_AND, kt_bin(k, CUTE_OP_ADD, warp, sk_u32(k, 1)), sk_u32(k, 3));
    tc_drain_cols(k, warp, out, row, taddr, TC_N, TC_N, ld);
}

/* warp 0: alloc (and, for TC_TOO_MANY, 512 columns more) into the slot */
static inline void tc_alloc(kt *k, tc_variant v, cute_vreg tid, tc_lines *L)
{
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    KT_AT(&k->b), L->alloc = __LINE__;
    SK_DO(k, CUTE_INST_TCGEN05_ALLOC, kt_smem(k, CUTE_U32, TC_SLOT_OFF), sk_u32(k, TC_COLS));
    if (v == TC_TOO_MANY) SK_DO(k, CUTE_INST_TCGEN05_ALLOC, kt_smem(k, CUTE_U32, TC_SLOT_OFF + 4), sk_u32(k, 512));
    SK_DO(k, CUTE_INST_TCGEN05_RELINQUISH_ALLOC_PERMIT);
    cute_ir_end(&k->b);
}

static inline void tc_dealloc(kt *k, tc_variant v, cute_vreg tid, cute_vreg taddr, tc_lines *L)
{
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(k);
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    KT_AT(&k->b), L->dealloc = __LINE__;
    if (v != TC_NO_DEALLOC) SK_DO(k, CUTE_INST_TCGEN05_DEALLOC, taddr, sk_u32(k, TC_COLS));
    if (v == TC_FREE_TWICE) SK_DO(k, CUTE_INST_TCGEN05_DEALLOC, taddr, sk_u32(k, TC_COLS));
    cute_ir_end(&k->b);
}

static inline cute_ir_func *tc_kernel(tc_variant v, tc_lines *L)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tcgen05_gemm", TC_SMEM, &src), tid = sk_tid(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, TC_BAR_OFF);
    tc_copy_in(&k, src, tid);
    sk_if(&k, CUTE_OP_EQ, tid, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 1));
    cute_ir_end(&k.b);
    tc_alloc(&k, v, tid, L);
    SK_DO(&k, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(&k);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    cute_vreg taddr = kt_load(&k, kt_smem(&k, CUTE_U32, TC_SLOT_OFF));
    tc_issue(&k, v, tid, taddr, bar, L);
    KT_AT(&k.b), L->wait = __LINE__;
    if (v == TC_BARRIER_NOT_WAIT) kt_barrier(&k); /* orders the threads, not the MMA's completion */
    else if (v != TC_NO_WAIT) sk_wait(&k, bar, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    tc_drain(&k, v, out, tid, tid, taddr, &L->ld);
    tc_dealloc(&k, v, tid, taddr, L);
    return k.f;
}

/* warp 0 allocates `cols` columns into the slot at shared offset slot_off (taddr 0), or frees them */
static inline void tc_columns(kt *k, cute_vreg tid, cute_vreg taddr, int slot_off, int cols)
{
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    if (taddr) SK_DO(k, CUTE_INST_TCGEN05_DEALLOC, taddr, sk_u32(k, cols));
    else SK_DO(k, CUTE_INST_TCGEN05_ALLOC, kt_smem(k, CUTE_U32, slot_off), sk_u32(k, cols));
    cute_ir_end(&k->b);
}

/* one block's start, its operands already stored: the mbarrier at bar initialized, `cols`
 * columns allocated, the stores fenced for the async proxy, a barrier: the columns' address */
static inline cute_vreg tc_prologue(kt *k, cute_vreg tid, cute_vreg bar, int slot_off, int cols)
{
    sk_if(k, CUTE_OP_EQ, tid, sk_u32(k, 0));
    SK_DO(k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(k, 1));
    cute_ir_end(&k->b);
    tc_columns(k, tid, 0, slot_off, cols);
    SK_DO(k, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA);
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(k);
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    return kt_load(k, kt_smem(k, CUTE_U32, slot_off));
}

/* one block's end: every warp waits for the commit's mbarrier, reads its lanes of D (TC_N
 * columns) into out's rows, then warp 0 frees the columns */
static inline void tc_epilogue(kt *k, cute_vreg out, cute_vreg tid, cute_vreg taddr, cute_vreg bar, int cols)
{
    int ld;
    sk_wait(k, bar, sk_u32(k, 0));
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    tc_drain(k, TC_GOOD, out, tid, tid, taddr, &ld);
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(k);
    tc_columns(k, tid, taddr, 0, cols);
}

/* f (freed) on `blocks` blocks of 128 threads in clusters of `cluster` (the CTA pair: 2), with
 * the u32 buffers src (src_bytes of img) and out (out_words, poisoned first, downloaded after):
 * the launch's status */
static inline cute_status tc_run(cute_backend be, cute_ir_func *f, uint32_t blocks, uint32_t cluster,
                                 const uint32_t *img, size_t src_bytes, uint32_t *out, size_t out_words)
{
    for (size_t i = 0; i < out_words; i++) out[i] = 0xdeadbeef;
    char name[64];
    snprintf(name, sizeof name, "%s", f->name); /* kt_compile frees f */
    kt k = {f, {0}};
    cute_module *m = kt_compile(be, &k);
    CHECK(m != NULL, "%s compiles", name);
    if (!m) return CUTE_ERR_COMPILE;
    cute_buffer bs = kt_buf(be, img, src_bytes), bo = kt_buf(be, out, out_words * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&bs, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    cute_launch cfg = {.grid = {blocks, 1, 1}, .block = {128, 1, 1}, .cluster = {cluster, 1, 1}};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, args, 2);
    be.vt->download(be.self, out, &bo, 0, out_words * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s;
}

/* random bf16 operands A (TC_M x TC_K) and B (TC_N x TC_K), and their shared-memory image */
static inline void tc_operands(uint32_t *img, uint16_t (*A)[TC_K], uint16_t (*B)[TC_K])
{
    uint8_t *bytes = (uint8_t *)img;
    for (int r = 0; r < TC_M; r++)
        for (int k = 0; k < TC_K; k++) {
            A[r][k] = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 256.0f);
            memcpy(bytes + TC_A_OFF + tc_kmajor_offset(r, k), &A[r][k], 2);
        }
    for (int r = 0; r < TC_N; r++)
        for (int k = 0; k < TC_K; k++) {
            B[r][k] = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 300.0f);
            memcpy(bytes + TC_B_OFF + tc_kmajor_offset(r, k), &B[r][k], 2);
        }
}

/* the worst error of out (TC_M x TC_N f32, row-major) against float64 A B^T, relative to the
 * sum of |ab| */
static inline double tc_worst_error(const uint32_t *out, uint16_t (*A)[TC_K], uint16_t (*B)[TC_K])
{
    double worst = 0;
    for (int m = 0; m < TC_M; m++)
        for (int n = 0; n < TC_N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < TC_K; k++) {
                double p = (double)cute_bf16_to_f32(A[m][k]) * cute_bf16_to_f32(B[n][k]);
                want += p, mag += fabs(p);
            }
            float got;
            memcpy(&got, &out[m * TC_N + n], 4);
            double err = fabs(got - want) / (mag + 1e-30);
            worst = err > worst ? err : worst;
        }
    return worst;
}

#endif
