/* sm_100's PipelineTmaUmma and PipelineUmmaAsync (cutec/pipeline.h) and the tcgen05 DSL calls
 * (cutec/tcgen05.h) on the interpreter: a warp-specialized 128 x 64 x 64 bf16 GEMM as seed
 * 001 shapes it.  One producer thread fills 2 stages with bulk copies (each stage a 16-deep
 * K slice of A and B, K-major, no swizzle), one MMA thread consumes them with tcgen05.mma
 * into tensor memory (releasing each stage by tcgen05.commit) and commits the accumulator to
 * a PipelineUmmaAsync, four epilogue warps wait for it and read their 32 lanes (T2R).
 * Against float64; an epilogue that does not wait for the accumulator, and a kernel that never
 * frees its tensor memory, are reported with the warp, the site and the state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/notation.h"
#include "cutec/numeric.h"
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"
#include "interp/gpu_testkit.h"

enum { M = 128, N = 64, KS = 16, KB = 4, STAGES = 2, A_BYTES = M * KS * 2, STAGE_BYTES = (M + N) * KS * 2,
       COLS = 64, THREADS = 192 };
typedef enum { GOOD, NO_ACC_WAIT, NO_DEALLOC } variant;
typedef struct lines {
    int ld, alloc;
} lines;

static cute_backend be;
static uint16_t A[M][KS * KB], B[N][KS * KB];

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

/* thread 160: stage k <- bytes [k STAGE_BYTES, (k+1) STAGE_BYTES) of src, by bulk copies */
static void producer(cute_ctx *c, const cute_pipeline *p, cute_tensor stage, cute_tensor src)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, STAGES);
    CUTE_FOR(c, k, cute_i(0), cute_i(KB)) {
        cute_pipeline_producer_acquire(c, p, &s, (cute_val){0});
        cute_val dst = cute_tensor_ptr(c, stage, cute_mul(a, cute_int_from_val(c, s.index, 0), cute_i(STAGE_BYTES)));
        cute_val from = cute_tensor_ptr(c, src, cute_mul(a, k, cute_i(STAGE_BYTES / 4)));
        cute_cp_async_bulk_g2s(c, dst, from, u32(c, STAGE_BYTES), cute_pipeline_producer_barrier(c, p, &s));
        cute_pipeline_producer_commit(c, p, &s);
        cute_pipeline_state_advance(c, &s);
    }
}

/* thread 128: an MMA per stage into the accumulator, then the accumulator's commit */
static void mma(cute_ctx *c, const cute_pipeline *ab, const cute_pipeline *acc, cute_tensor stage, cute_val taddr)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, STAGES);
    cute_pipeline_state out = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_BF16, CUTE_BF16, M, N, false, false);
    cute_pipeline_producer_acquire(c, acc, &out, (cute_val){0});
    CUTE_FOR(c, k, cute_i(0), cute_i(KB)) {
        cute_pipeline_consumer_wait(c, ab, &s, (cute_val){0});
        cute_tcgen05_fence_after_thread_sync(c);
        cute_int at = cute_mul(a, cute_int_from_val(c, s.index, 0), cute_i(STAGE_BYTES));
        cute_val da = cute_tcgen05_smem_desc(c, cute_tensor_ptr(c, stage, at), 128, 256, 0);
        cute_val db = cute_tcgen05_smem_desc(c, cute_tensor_ptr(c, stage, cute_add(a, at, cute_i(A_BYTES))), 128, 256, 0);
        cute_tcgen05_mma(c, CUTE_BF16, taddr, da, db, idesc, cute_int_value(c, k, CUTE_U32));
        cute_pipeline_consumer_release(c, ab, &s);
        cute_pipeline_state_advance(c, &s);
    }
    cute_pipeline_producer_commit(c, acc, &out);
}

/* threads 0..127: warp w reads lanes 32w..32w+31 of D, row t of out */
static void epilogue(cute_ctx *c, const cute_pipeline *acc, cute_tensor out, cute_int t, cute_val taddr, variant v,
                     lines *L)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    if (v != NO_ACC_WAIT) cute_pipeline_consumer_wait(c, acc, &s, (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_val warp = cute_val_binop(c, CUTE_OP_SHR, cute_int_value(c, t, CUTE_U32), u32(c, 5));
    cute_val at = cute_val_binop(c, CUTE_OP_ADD, taddr, cute_val_binop(c, CUTE_OP_SHL, warp, u32(c, 21)));
    cute_val d[N];
    L->ld = __LINE__ + 1;
    cute_tmem_load_32dp32b(c, at, N, d);
    cute_tcgen05_wait_ld(c);
    for (int j = 0; j < N; j++) {
        cute_tensor o = CUTE_SLICE(c, out, t, cute_i(j));
        cute_tensor_store(c, o, cute_ssa_scalar(c, d[j], o.layout.shape));
    }
    cute_pipeline_consumer_release(c, acc, &s);
}

/* warp 0 allocates the accumulator's columns; every thread reads their address */
static cute_val tmem_setup(cute_ctx *c, cute_smem_allocator *A, cute_int t, lines *L)
{
    cute_tensor slot = cute_make_tensor(c, cute_smem_alloc_array(c, A, CUTE_U32, 1, 4), cute_layout_parse(cute_ctx_alg(c), "1:0"), 4);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) {
        L->alloc = __LINE__ + 1;
        cute_tmem_alloc(c, cute_tensor_ptr(c, slot, cute_i(0)), COLS);
        cute_tmem_relinquish_alloc_permit(c);
    }
    cute_tcgen05_fence_before_thread_sync(c);
    cute_barrier(c);
    cute_tcgen05_fence_after_thread_sync(c);
    return cute_ssa_get(c, cute_tensor_load(c, slot), 0);
}

static cute_ir_func *kernel(variant v, lines *L)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "umma_gemm");
    cute_ctx_target_arch(c, 100);
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor src = cute_make_tensor(c, cute_param_ptr(c, "src", CUTE_U32), cute_layout_parse(a, "6144:1"), 16);
    cute_tensor out = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_parse(a, "(128,64):(64,1)"), 16);
    cute_smem_allocator S = cute_smem_allocator_new(c);
    cute_tensor stage = cute_make_tensor(c, cute_smem_alloc_array(c, &S, CUTE_U8, STAGES * STAGE_BYTES, 128),
                                         cute_layout_parse(a, "12288:1"), 128);
    cute_pipeline ab = cute_pipeline_tma_umma_create(c, &S, STAGES, STAGE_BYTES);
    cute_pipeline acc = cute_pipeline_umma_async_create(c, &S, 1, 128);
    cute_int t = cute_thread_idx(c, 0);
    cute_val taddr = tmem_setup(c, &S, t, L);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(128))) { epilogue(c, &acc, out, t, taddr, v, L); }
    CUTE_ELSE(c) {
        CUTE_IF(c, cute_int_eq(c, t, cute_i(128))) { mma(c, &ab, &acc, stage, taddr); }
        CUTE_IF(c, cute_int_eq(c, t, cute_i(160))) { producer(c, &ab, stage, src); }
    }
    cute_tcgen05_fence_before_thread_sync(c);
    cute_barrier(c);
    if (v != NO_DEALLOC) CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) { cute_tmem_dealloc(c, taddr, COLS); }
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* random bf16 A and B, and the global image of the stages: K slice k of A then of B, each
 * K-major in the canonical layout without swizzle (LBO 128 between the two 8-column halves,
 * SBO 256 between 8-row groups) */
static void operands(uint8_t *img)
{
    for (int r = 0; r < M + N; r++)
        for (int k = 0; k < KS * KB; k++) {
            uint16_t *x = r < M ? &A[r][k] : &B[r - M][k];
            *x = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 512.0f);
            int q = r < M ? r : r - M, kk = k % KS;
            size_t at = (size_t)(k / KS) * STAGE_BYTES + (r < M ? 0 : A_BYTES) + (size_t)(q / 8) * 256 +
                        (size_t)(kk / 8) * 128 + (size_t)(q % 8) * 16 + (size_t)(kk % 8) * 2;
            memcpy(img + at, x, 2);
        }
}

/* variant v on one block: the status; out (128 x 64 words) poisoned first */
static cute_status run(variant v, lines *L, uint32_t *out)
{
    static uint8_t img[KB * STAGE_BYTES];
    operands(img);
    for (int i = 0; i < M * N; i++) out[i] = 0xdeadbeef;
    kt k = {kernel(v, L), {0}};
    cute_module *m = k.f ? kt_compile(be, &k) : NULL;
    CHECK(m != NULL, "variant %d compiles", (int)v);
    if (!m) return CUTE_ERR_COMPILE;
    cute_buffer bs = kt_buf(be, img, sizeof img), bo = kt_buf(be, out, M * N * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&bs, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    cute_status s = kt_launch(be, m, 1, THREADS, 0, args, 2);
    be.vt->download(be.self, out, &bo, 0, M * N * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s;
}

static void good(void)
{
    static uint32_t out[M * N];
    lines L;
    CHECK(run(GOOD, &L, out) == CUTE_OK, "the warp-specialized tcgen05 GEMM runs: %s", be.vt->error(be.self));
    double worst = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < KS * KB; k++) {
                double p = (double)cute_bf16_to_f32(A[m][k]) * cute_bf16_to_f32(B[n][k]);
                want += p, mag += fabs(p);
            }
            float got;
            memcpy(&got, &out[m * N + n], 4);
            double err = fabs(got - want) / (mag + 1e-30);
            worst = err > worst ? err : worst;
        }
    CHECK(worst < 1e-6, "D = A B (128x64x64 bf16 through PipelineTmaUmma / PipelineUmmaAsync) against float64: "
                        "worst %.3g of sum |ab|", worst);
}

/* the first report: its kind, the user's line and words */
static void reported(variant v, cute_interp_check kind, const char *words)
{
    static uint32_t out[M * N];
    lines L;
    cute_status s = run(v, &L, out);
    int n;
    const cute_interp_report *r = cute_interp_reports(be, &n);
    char at[64];
    snprintf(at, sizeof at, "src/kernels/pipeline_umma_test.c:%d:", v == NO_ACC_WAIT ? L.ld : L.alloc);
    CHECK(s != CUTE_OK && n > 0 && r[0].kind == kind && strstr(r[0].msg, at) && strstr(r[0].msg, words) &&
              strstr(r[0].msg, "warp"),
          "variant %d: %s, want %s at %s with \"%s\"", (int)v, n ? r[0].msg : "no report", cute_interp_check_name(kind),
          at, words);
    if (n) printf("  %s\n", r[0].msg);
}

/* misuse of the tcgen05 calls: a diagnostic naming the call and what was wrong */
static void misuse(void)
{
    static const char *const want[] = {"cute_tmem_alloc: 48 columns", "cute_tcgen05_idesc: A f32, B f32",
                                       "cute_tcgen05_idesc: M 128, N 72", "needs sm_100; the target is sm_90"};
    for (int i = 0; i < 4; i++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "misuse");
        cute_ctx_target_arch(c, i == 3 ? 90 : 100);
        cute_smem_allocator S = cute_smem_allocator_new(c);
        cute_val slot = cute_smem_alloc_array(c, &S, CUTE_U32, 1, 4);
        if (i == 0) cute_tmem_alloc(c, slot, 48);
        if (i == 1) cute_tcgen05_idesc(c, CUTE_F32, CUTE_F32, 128, 64, false, false);
        if (i == 2) cute_tcgen05_idesc(c, CUTE_BF16, CUTE_BF16, 128, 72, false, false);
        if (i == 3) cute_tcgen05_commit(c, slot);
        const char *e = cute_ctx_error(c);
        CHECK(e && strstr(e, want[i]) && strstr(e, "pipeline_umma_test.c"), "misuse %d: %s", i, e ? e : "no error");
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
}

/* the same kernel as CUDA C, compiled by NVRTC and ptxas for sm_100a (no Blackwell runs it) */
static void compiles_for_sm100a(void)
{
    lines L;
    kt_compiles_for((cute_ir_func *[]){kernel(GOOD, &L)}, 1, "sm_100a", "tcgen05.commit.cta_group::1");
}

int main(void)
{
    srand(100);
    if (cute_interp_new(&(cute_interp_opts){0}, &be) != CUTE_OK) return 1;
    good();
    misuse();
    reported(NO_ACC_WAIT, CUTE_CHECK_TMEM, "reads");
    reported(NO_DEALLOC, CUTE_CHECK_TMEM, "never freed");
    be.vt->destroy(be.self);
    compiles_for_sm100a();
    return CHECK_DONE("kernels/pipeline_umma");
}
