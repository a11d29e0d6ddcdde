/* The block-scaled sm_100 MMA atoms through cute_umma_gemm_scaled on the interpreter:
 * SM100_MMA_MXF8F6F4_SS (MXFP8, e4m3 and e5m2), SM100_MMA_MXF4_SS (MXFP4) and
 * SM100_MMA_MXF4NVF4_SS (NVFP4), 128 x 64 x 256 each, and the CTA pair's _2x1SM_SS of NVFP4 and
 * MXFP8 at 256 x 64 x 256 (a cluster of two blocks, each with its 128 rows of A, 32 of B, the
 * scales of its A rows and all of B's; cute_tcgen05_cta_group(c, 2)): A and B in 128-byte swizzled K-major
 * shared tiles, the scales' SfKMajorAtoms copied into tensor memory (S2T), one thread issuing
 * the MMAs (the scale-factor ids walking each word), four warps reading D (T2R); against a
 * float64 decode with random codes and scales.  Then the misuses: wrong scale ids, a 4-bit
 * MN-major operand, a dense atom in the scaled call and a scaled one in the dense call, and
 * an MMA whose scales were never copied in.  The kernels also compile for sm_100a (NVRTC;
 * ptxas where the toolkit has it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/interp.h"
#include "cutec/numeric.h"
#include "cutec/pipeline.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"
#include "cutec/umma.h"
#include "interp/gpu_testkit.h"

enum { M = 128, N = 64, K = 256, COLS = 128, SF_ATOM = 512 };

typedef struct scase {
    const char *atom;
    cute_dtype dt;
    int vec;        /* values a scale */
    bool no_scales; /* the broken variant: the MMA reads scales never copied in */
    bool pair;      /* the CTA pair's atom: two blocks, M 256 */
} scase;

static cute_backend be;
static uint8_t A[2 * M][K], B[N][K]; /* the codes: e2m1 in the low nibble */
static uint8_t SF[2][K / 16][2 * M]; /* the scales of A's rows, of B's, per vec of K */

static int blocks(const scase *s) { return s->pair ? 2 : 1; }

static bool fp4(const scase *s) { return s->dt == CUTE_E2M1; }
static int words(const scase *s) { return K / (4 * s->vec); } /* of 4 scales a row */
static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

static double value(const scase *s, uint8_t code)
{
    return s->dt == CUTE_E2M1 ? cute_e2m1_to_f32(code) : s->dt == CUTE_E4M3 ? cute_e4m3_to_f32(code)
                                                                           : cute_e5m2_to_f32(code);
}

static double scale(const scase *s, uint8_t code)
{
    return s->vec == 16 ? cute_ue4m3_to_f32(code) : cute_ue8m0_to_f32(code);
}

/* a random finite code of the case's type, and a random scale */
static uint8_t code(const scase *s)
{
    for (;;) {
        uint8_t v = (uint8_t)(rand() & (fp4(s) ? 15 : 255));
        if (isfinite(value(s, v))) return v;
    }
}
static uint8_t scale_code(const scase *s)
{
    return s->vec == 16 ? (uint8_t)(0x28 + rand() % 40) : (uint8_t)(120 + rand() % 15);
}

/* the operands' storage (e2m1 two a byte, element 0 low) and, for each block h, the scales'
 * SfKMajorAtoms of its rows of A then of all of B's: operand o's atom (word w) holds row r's 4
 * scales at (r % 32) 16 + (r / 32) 4 */
static void fill(const scase *s, uint8_t *a, uint8_t *b, uint8_t *sf)
{
    int kb = fp4(s) ? K / 2 : K, rows = blocks(s) * M;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < K; k++) A[r][k] = code(s), B[r % N][k] = r < N ? code(s) : B[r % N][k];
    memset(a, 0, (size_t)rows * kb), memset(b, 0, (size_t)N * kb);
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < K; k++) {
            if (fp4(s)) a[r * kb + k / 2] |= (uint8_t)(A[r][k] << (4 * (k % 2)));
            else a[r * kb + k] = A[r][k];
            if (r >= N) continue;
            if (fp4(s)) b[r * kb + k / 2] |= (uint8_t)(B[r][k] << (4 * (k % 2)));
            else b[r * kb + k] = B[r][k];
        }
    for (int o = 0; o < 2; o++)
        for (int g = 0; g < K / s->vec; g++)
            for (int r = 0; r < rows; r++) SF[o][g][r] = scale_code(s);
    for (int h = 0; h < blocks(s); h++)
        for (int o = 0; o < 2; o++)
            for (int g = 0; g < K / s->vec; g++)
                for (int r = 0; r < M; r++)
                    sf[((h * 2 + o) * words(s) + g / 4) * SF_ATOM + (r % 32) * 16 + (r / 32) * 4 + g % 4] =
                        SF[o][g][o ? r : h * M + r];
}

/* thread t copies row t of g's block h (rows h rows..) into the shared tile s, and element-wise
 * slices of block h's scales */
static void copy_in(cute_ctx *c, cute_tensor s, cute_tensor g, cute_int t, cute_int h, int64_t rows, int64_t kb)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int row = cute_add(a, cute_mul(a, h, cute_i(rows)), t);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(rows))) {
        CUTE_FOR(c, k, cute_i(0), cute_i(kb)) {
            cute_tensor_store(c, CUTE_SLICE(c, s, t, k), cute_tensor_load(c, CUTE_SLICE(c, g, row, k)));
        }
    }
}

static void copy_scales_in(cute_ctx *c, cute_tensor s, cute_tensor g, cute_int t, cute_int h, int64_t bytes)
{
    cute_alg *a = cute_ctx_alg(c);
    CUTE_FOR(c, i, cute_i(0), cute_i(bytes / M)) {
        cute_int at = cute_add(a, cute_mul(a, i, cute_i(M)), t);
        cute_tensor_store(c, CUTE_SLICE(c, s, at), cute_tensor_load(c, CUTE_SLICE(c, g, cute_add(a, cute_mul(a, h, cute_i(bytes)), at))));
    }
}

/* the block's threads meet (the CTA pair's: both blocks') */
static void meet(cute_ctx *c, const scase *s)
{
    if (s->pair) cute_cluster_arrive(c), cute_cluster_wait(c);
    else cute_barrier(c);
}

/* warp 0 (of each block of a pair) allocates the columns: D's N, then A's scales, then B's */
static cute_val tmem_setup(cute_ctx *c, const scase *s, cute_smem_allocator *S, cute_int t)
{
    cute_tensor slot = cute_make_tensor(c, cute_smem_alloc_array(c, S, CUTE_U32, 1, 4),
                                        cute_layout_parse(cute_ctx_alg(c), "1:0"), 4);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) {
        cute_tmem_alloc(c, cute_tensor_ptr(c, slot, cute_i(0)), COLS);
        cute_tmem_relinquish_alloc_permit(c);
    }
    cute_tcgen05_fence_before_thread_sync(c);
    meet(c, s);
    cute_tcgen05_fence_after_thread_sync(c);
    return cute_ssa_get(c, cute_tensor_load(c, slot), 0);
}

/* thread 0: the scales into tensor memory, the MMAs over K, the accumulator's commit */
static void issue(cute_ctx *c, const scase *s, const cute_pipeline *acc, cute_val taddr, cute_tensor sA,
                  cute_tensor sB, cute_tensor sfa, cute_tensor sfb)
{
    cute_mma_atom atom;
    if (!cute_umma_atom(cute_ctx_alg(c), s->atom, s->dt, blocks(s) * M, N, &atom)) return;
    cute_pipeline_state out = cute_make_pipeline_state(c, CUTE_PIPELINE_PRODUCER, 1);
    cute_val ta = cute_val_binop(c, CUTE_OP_ADD, taddr, u32(c, N));
    cute_val tb = cute_val_binop(c, CUTE_OP_ADD, ta, u32(c, 4 * words(s)));
    cute_pipeline_producer_acquire(c, acc, &out, (cute_val){0});
    if (!s->no_scales) cute_umma_copy_scales(c, ta, sfa), cute_umma_copy_scales(c, tb, sfb);
    cute_umma_gemm_scaled(c, &atom, taddr, sA, sB, ta, tb, u32(c, 0));
    cute_pipeline_producer_commit(c, acc, &out);
}

/* threads 0..127: row t of the block's D (block h's: row h 128 + t) into out */
static void drain(cute_ctx *c, const cute_pipeline *acc, cute_tensor out, cute_int t, cute_int h, cute_val taddr)
{
    cute_pipeline_state s = cute_make_pipeline_state(c, CUTE_PIPELINE_CONSUMER, 1);
    cute_pipeline_consumer_wait(c, acc, &s, (cute_val){0});
    cute_tcgen05_fence_after_thread_sync(c);
    cute_val warp = cute_val_binop(c, CUTE_OP_SHR, cute_int_value(c, t, CUTE_U32), u32(c, 5));
    cute_val at = cute_val_binop(c, CUTE_OP_ADD, taddr, cute_val_binop(c, CUTE_OP_SHL, warp, u32(c, 21)));
    cute_val d[N];
    cute_tmem_load_32dp32b(c, at, N, d);
    cute_tcgen05_wait_ld(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int row = cute_add(a, cute_mul(a, h, cute_i(M)), t);
    for (int j = 0; j < N; j++) {
        cute_tensor o = CUTE_SLICE(c, out, row, cute_i(j));
        cute_tensor_store(c, o, cute_ssa_scalar(c, d[j], o.layout.shape));
    }
    cute_pipeline_consumer_release(c, acc, &s);
}

static cute_tensor param(cute_ctx *c, const char *name, cute_dtype d, cute_layout layout)
{
    return cute_make_tensor(c, cute_param_ptr(c, name, d), layout, 16);
}

/* the block's place in the pair (0 for one block) */
static cute_int block_of(cute_ctx *c, const scase *s)
{
    return s->pair ? cute_int_from_val(c, cute_val_cvt(c, cute_block_idx_in_cluster(c), CUTE_U32), 0) : cute_i(0);
}

static cute_ir_func *kernel(const scase *s)
{
    char name[48];
    snprintf(name, sizeof name, "umma_scaled_%s_%d%s", cute_dtype_name(s->dt), s->vec, s->pair ? "_pair" : "");
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, name);
    cute_ctx_target_arch(c, 100);
    if (s->pair) cute_tcgen05_cta_group(c, 2);
    cute_alg *a = cute_ctx_alg(c);
    cute_dtype st = fp4(s) ? CUTE_U8 : s->dt;
    int kb = fp4(s) ? K / 2 : K, sf = words(s) * SF_ATOM, rows = blocks(s) * M, bn = N / blocks(s);
    cute_tensor gA = param(c, "a", st, cute_layout_fmt(a, "(%d,%d):(%d,1)", rows, kb, kb));
    cute_tensor gB = param(c, "b", st, cute_layout_fmt(a, "(%d,%d):(%d,1)", N, kb, kb));
    cute_tensor gS = param(c, "sf", CUTE_U8, cute_layout_fmt(a, "%d:1", 2 * sf * blocks(s)));
    cute_tensor out = param(c, "out", CUTE_U32, cute_layout_fmt(a, "(%d,%d):(%d,1)", rows, N, N));
    cute_smem_allocator S = cute_smem_allocator_new(c);
    cute_tensor sA = cute_smem_alloc_tensor_composed(c, &S, st, cute_smem_layout_gmma_tile(a, "Layout_K_SW128_Atom", st, M, kb), 1024);
    cute_tensor sB = cute_smem_alloc_tensor_composed(c, &S, st, cute_smem_layout_gmma_tile(a, "Layout_K_SW128_Atom", st, bn, kb), 1024);
    cute_tensor sS = cute_make_tensor(c, cute_smem_alloc_array(c, &S, CUTE_U8, 2 * sf, 128), cute_layout_fmt(a, "%d:1", 2 * sf), 128);
    cute_pipeline acc = s->pair ? cute_pipeline_umma_async_create_pair(c, &S, 1, 128)
                                : cute_pipeline_umma_async_create(c, &S, 1, 128);
    cute_int t = cute_thread_idx(c, 0), h = block_of(c, s);
    copy_in(c, sA, gA, t, h, M, kb), copy_in(c, sB, gB, t, h, bn, kb), copy_scales_in(c, sS, gS, t, h, 2 * sf);
    cute_fence_proxy_async_shared_cta(c);
    cute_val taddr = tmem_setup(c, s, &S, t);
    cute_tensor sfa = cute_tensor_local_tile(c, sS, cute_tuple_fmt(a, "(%d)", sf), cute_tuple_fmt(a, "(0)"), NULL);
    cute_tensor sfb = cute_tensor_local_tile(c, sS, cute_tuple_fmt(a, "(%d)", sf), cute_tuple_fmt(a, "(1)"), NULL);
    CUTE_IF(c, cute_int_eq(c, cute_add(a, t, h), cute_i(0))) { issue(c, s, &acc, taddr, sA, sB, sfa, sfb); }
    drain(c, &acc, out, t, h, taddr);
    cute_tcgen05_fence_before_thread_sync(c);
    meet(c, s); /* neither block of a pair frees or exits while the other may use its columns */
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) { cute_tmem_dealloc(c, taddr, COLS); }
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s: %s", s->atom, cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* case s on one block of four warps (a cluster of two for the pair): the status; out (128 or
 * 256 x 64 words) poisoned first */
static cute_status run(const scase *s, uint32_t *out)
{
    static uint8_t a[2 * M * K], b[N * K], sf[2 * 2 * (K / 64) * SF_ATOM];
    int kb = fp4(s) ? K / 2 : K, rows = blocks(s) * M;
    fill(s, a, b, sf);
    for (int i = 0; i < rows * N; i++) out[i] = 0xdeadbeef;
    kt k = {kernel(s), {0}};
    cute_module *m = k.f ? kt_compile(be, &k) : NULL;
    CHECK(m != NULL, "%s compiles", s->atom);
    if (!m) return CUTE_ERR_COMPILE;
    cute_dtype st = fp4(s) ? CUTE_U8 : s->dt;
    cute_buffer ba = kt_buf(be, a, (size_t)rows * kb), bb = kt_buf(be, b, (size_t)N * kb);
    cute_buffer bs = kt_buf(be, sf, (size_t)blocks(s) * 2 * words(s) * SF_ATOM), bo = kt_buf(be, out, (size_t)rows * N * 4);
    cute_launch_arg args[4] = {kt_arg_buf(&ba, st), kt_arg_buf(&bb, st), kt_arg_buf(&bs, CUTE_U8),
                               kt_arg_buf(&bo, CUTE_U32)};
    uint32_t n = (uint32_t)blocks(s);
    cute_launch cfg = {.grid = {n, 1, 1}, .block = {128, 1, 1}, .cluster = {n, 1, 1}};
    cute_status st_run = be.vt->launch(be.self, m, 0, &cfg, args, 4);
    be.vt->download(be.self, out, &bo, 0, (size_t)rows * N * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &ba), be.vt->free(be.self, &bb), be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return st_run;
}

/* D against the float64 decode: sum over k of A SFA B SFB, rounded once */
static void good(const scase *s)
{
    static uint32_t out[2 * M * N];
    CHECK(run(s, out) == CUTE_OK, "%s %s runs: %s", s->atom, cute_dtype_name(s->dt), be.vt->error(be.self));
    double worst = 0;
    for (int m = 0; m < blocks(s) * M; m++)
        for (int n = 0; n < N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = value(s, A[m][k]) * scale(s, SF[0][k / s->vec][m]) * value(s, B[n][k]) *
                           scale(s, SF[1][k / s->vec][n]);
                want += p, mag += fabs(p);
            }
            float got;
            memcpy(&got, &out[m * N + n], 4);
            double err = fabs(got - want) / (mag + 1e-300);
            worst = err > worst || isnan(err) ? err : worst;
        }
    CHECK(worst < 1e-6, "%s %s %dx64x256: D against float64, worst %.3g of sum |terms|", s->atom,
          cute_dtype_name(s->dt), blocks(s) * M, worst);
}

/* the MMA reads scales no tcgen05.cp wrote: reported with the warp and the columns */
static void unwritten_scales(void)
{
    static uint32_t out[2 * M * N];
    scase s = {"SM100_MMA_MXF8F6F4_SS", CUTE_E4M3, 32, true, false};
    cute_status st = run(&s, out);
    int n;
    const cute_interp_report *r = cute_interp_reports(be, &n);
    CHECK(st != CUTE_OK && n > 0 && r[0].kind == CUTE_CHECK_TMEM && strstr(r[0].msg, "never written") &&
              strstr(r[0].msg, "warp 0") && strstr(r[0].msg, "umma_scaled_test.c:"),
          "an MMA before its scales' copy: %s", n ? r[0].msg : "no report");
    if (n) printf("  %s\n", r[0].msg);
}

/* a trace-time misuse: the first error names the call and what was wrong */
static void misuse_idesc(cute_tcgen05_scaled_kind kind, cute_dtype ab, bool mn, int sfa_id, const char *want)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "misuse");
    cute_ctx_target_arch(c, 100);
    uint32_t idesc = cute_tcgen05_idesc_scaled(c, kind, ab, ab, M, N, mn, false, sfa_id, 0);
    const char *err = cute_ctx_error(c);
    CHECK(!idesc && err && strstr(err, want), "cute_tcgen05_idesc_scaled refuses: %s (want \"%s\")",
          err ? err : "no error", want);
    cute_ctx_free(c);
}

/* M = 64, which the dense kinds have and the block-scaled ones have not: refused by the atom and
 * the instruction descriptor, saying so */
static void misuse_m64(void)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    cute_mma_atom atom;
    CHECK(!cute_umma_atom(&a, "SM100_MMA_MXF4NVF4_SS", CUTE_E2M1, 64, 64, &atom) && strstr(a.error, "never 64"),
          "an M = 64 NVFP4 atom refused: %s", a.error);
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "misuse");
    cute_ctx_target_arch(c, 100);
    uint32_t idesc = cute_tcgen05_idesc_scaled(c, CUTE_TCGEN05_MXF8F6F4, CUTE_E4M3, CUTE_E4M3, 64, 64, false, false, 0, 0);
    const char *err = cute_ctx_error(c);
    CHECK(!idesc && err && strstr(err, "no M 64"), "an M = 64 MXFP8 descriptor refused: %s", err ? err : "no error");
    cute_ctx_free(c);
}

/* the dense call with a scaled atom, the scaled call with a dense one */
static void misuse_atoms(void)
{
    for (int scaled = 0; scaled < 2; scaled++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "misuse");
        cute_ctx_target_arch(c, 100);
        cute_alg *a = cute_ctx_alg(c);
        cute_mma_atom atom;
        CHECK(cute_umma_atom(a, scaled ? "SM100_MMA_F8F6F4_SS" : "SM100_MMA_MXF8F6F4_SS", CUTE_E4M3, M, N, &atom),
              "the atom");
        cute_smem_allocator S = cute_smem_allocator_new(c);
        cute_tensor sA = cute_smem_alloc_tensor_composed(c, &S, CUTE_E4M3, cute_smem_layout_gmma_tile(a, "Layout_K_SW128_Atom", CUTE_E4M3, M, 128), 1024);
        cute_tensor sB = cute_smem_alloc_tensor_composed(c, &S, CUTE_E4M3, cute_smem_layout_gmma_tile(a, "Layout_K_SW128_Atom", CUTE_E4M3, N, 128), 1024);
        if (scaled) cute_umma_gemm_scaled(c, &atom, u32(c, 0), sA, sB, u32(c, 64), u32(c, 72), u32(c, 0));
        else cute_umma_gemm(c, &atom, u32(c, 0), sA, sB, u32(c, 0));
        const char *err = cute_ctx_error(c), *want = scaled ? "is not a block-scaled" : "cute_umma_gemm_scaled";
        CHECK(err && strstr(err, want), "%s refuses %s: %s", scaled ? "cute_umma_gemm_scaled" : "cute_umma_gemm",
              atom.name, err ? err : "no error");
        cute_ctx_free(c);
    }
}

int main(void)
{
    srand((unsigned)check_seed("umma_scaled_test"));
    static const scase cases[] = {{"SM100_MMA_MXF8F6F4_SS", CUTE_E4M3, 32, false, false},
                                  {"SM100_MMA_MXF8F6F4_SS", CUTE_E5M2, 32, false, false},
                                  {"SM100_MMA_MXF4_SS", CUTE_E2M1, 32, false, false},
                                  {"SM100_MMA_MXF4NVF4_SS", CUTE_E2M1, 16, false, false},
                                  {"SM100_MMA_MXF4NVF4_2x1SM_SS", CUTE_E2M1, 16, false, true},
                                  {"SM100_MMA_MXF8F6F4_2x1SM_SS", CUTE_E4M3, 32, false, true}};
    cute_interp_opts o = {0};
    be = kt_backend(&o);
    for (int i = 0; i < 6; i++) good(&cases[i]);
    unwritten_scales();
    be.vt->destroy(be.self);
    misuse_idesc(CUTE_TCGEN05_MXF4, CUTE_E2M1, false, 1, "kind mxf4 (MXFP4) takes 0 or 2");
    misuse_idesc(CUTE_TCGEN05_MXF4NVF4, CUTE_E2M1, false, 2, "takes 0 only");
    misuse_idesc(CUTE_TCGEN05_MXF4NVF4, CUTE_E2M1, true, 0, "K-major e2m1 A and B");
    misuse_idesc(CUTE_TCGEN05_MXF8F6F4, CUTE_E2M1, false, 0, "e4m3 or e5m2 A and B");
    misuse_atoms();
    misuse_m64();
    cute_ir_func *f[3];
    for (int i = 0; i < 3; i++) f[i] = kernel(&cases[i == 2 ? 2 : i == 1 ? 3 : 0]);
    kt_compiles_for(f, 3, "sm_100a", "kind::mxf8f6f4.block_scale.scale_vec::1X");
    kt_compiles_for((cute_ir_func *[]){kernel(&cases[4])}, 1, "sm_100a",
                    "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X");
    return CHECK_DONE("atom/umma_scaled");
}
