/* The multi-stage family (steps 3-5: multistage, tensorop, tensorop_smem) through the
 * library (cutec_gemm), against a float64 reference computed from the very inputs the
 * kernel got (rounded to their dtype first): every input dtype with every C dtype it takes,
 * every combination of majors, odd sizes with tails in M, N and K, a batch, beta 0 (C
 * starts as NaN) and not.  On the interpreter at small sizes; on the GPU, where there is
 * one, at larger ones.
 *
 * Tolerances, relative to |alpha| sum |A B| + |beta C| (gemm_ref_error): the products of
 * 16-bit inputs are exact in the f32 accumulator, whose sum of K terms errs by about
 * K * 2^-24 relative; rounding C to bf16 (f16) adds 2^-9 (2^-12).  tf32 and fp8 inputs are
 * rounded to their dtype on the host, so their products are exact too.  s8 into s32 is
 * exact; f64 (DMMA) is within 1e-12. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "check_stderr.h"
#include "cutec/interp.h"
#include "cutec/numeric.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

static uint64_t seed;

/* a host value of dtype d at p[i], widened exactly */
static double get(const void *p, cute_dtype d, int64_t i)
{
    switch (d) {
    case CUTE_F16: return cute_f16_to_f32(((const uint16_t *)p)[i]);
    case CUTE_BF16: return cute_bf16_to_f32(((const uint16_t *)p)[i]);
    case CUTE_F32: return ((const float *)p)[i];
    case CUTE_F64: return ((const double *)p)[i];
    case CUTE_I8: return ((const int8_t *)p)[i];
    case CUTE_I32: return ((const int32_t *)p)[i];
    case CUTE_TF32: return ((const float *)p)[i];
    case CUTE_E4M3: return cute_e4m3_to_f32(((const uint8_t *)p)[i]);
    case CUTE_E5M2: return cute_e5m2_to_f32(((const uint8_t *)p)[i]);
    default: return NAN;
    }
}

/* v rounded to d (integers: v is already integral and in range) */
static void set(void *p, cute_dtype d, int64_t i, double v)
{
    switch (d) {
    case CUTE_F16: ((uint16_t *)p)[i] = cute_f64_to_f16(v); break;
    case CUTE_BF16: ((uint16_t *)p)[i] = cute_f64_to_bf16(v); break;
    case CUTE_F32: ((float *)p)[i] = (float)v; break;
    case CUTE_F64: ((double *)p)[i] = v; break;
    case CUTE_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case CUTE_I32: ((int32_t *)p)[i] = isnan(v) ? INT32_MIN : (int32_t)v; break;
    case CUTE_TF32: ((float *)p)[i] = cute_f64_to_tf32(v); break;
    case CUTE_E4M3: ((uint8_t *)p)[i] = cute_f64_to_e4m3(v); break;
    case CUTE_E5M2: ((uint8_t *)p)[i] = cute_f64_to_e5m2(v); break;
    default: break;
    }
}

/* a fresh input value of d: gaussian-like floats, integers in [-128, 127] for s8 and
 * [-1000, 1000] for an s32 C */
static double draw(cute_dtype d)
{
    double r = ew_random(&seed); /* [-2, 2) */
    if (d == CUTE_I8) return floor((r + 2.0) * 64.0) - 128.0;
    if (d == CUTE_I32) return floor(r * 500.0);
    return r;
}

typedef struct problem {
    int64_t M, N, K, L;
    int major[3];
    cute_dtype d, cd;
    double alpha, beta;
} problem;

/* one operand: host data (rows, cols, L) with unit stride in `major`, batch stride = size */
typedef struct operand {
    cute_dtype d;
    int64_t rows, cols, L, ld, size;
    int major;
    void *host;
    double *wide; /* the same values as f64, for the reference */
    cute_buffer dev;
} operand;

static void make(cute_backend *b, operand *x, cute_dtype d, int64_t rows, int64_t cols, int64_t L,
                 int major, bool nan)
{
    x->d = d, x->rows = rows, x->cols = cols, x->L = L, x->major = major;
    x->ld = major == 0 ? rows : cols;
    x->size = rows * cols;
    size_t n = (size_t)(x->size * L), es = (size_t)cute_dtype_bytes(d);
    x->host = malloc(n * es);
    x->wide = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        set(x->host, d, (int64_t)i, nan ? NAN : draw(d));
        x->wide[i] = get(x->host, d, (int64_t)i);
    }
    b->vt->alloc(b->self, n * es, &x->dev);
    b->vt->upload(b->self, &x->dev, 0, x->host, n * es);
}

static cute_call_arg arg(const operand *x, bool batched)
{
    int64_t shape[3] = {x->rows, x->cols, x->L};
    int64_t stride[3] = {x->major == 0 ? 1 : x->ld, x->major == 0 ? x->ld : 1, x->size};
    return cute_call_tensor(&x->dev, 0, x->d, batched ? 3 : 2, shape, stride);
}

static double tolerance(const problem *pr)
{
    if (pr->d == CUTE_I8) return 0;
    if (pr->d == CUTE_F64) return 1e-12;
    double acc = (double)pr->K * 0x1p-24 + 0x1p-22;
    return acc + (pr->cd == CUTE_BF16 ? 0x1p-8 : pr->cd == CUTE_F16 ? 0x1p-11 : 0);
}

static void run(cute_gemm_lib *lib, cute_backend *b, cute_gemm_variant v, const problem *pr,
                const char *backend)
{
    char what[200], err[2048];
    snprintf(what, sizeof what, "%s %s %s->%s %lldx%lldx%lldx%lld majors %d%d%d beta %g", backend,
             cute_gemm_variant_name(v), cute_dtype_name(pr->d), cute_dtype_name(pr->cd),
             (long long)pr->M, (long long)pr->N, (long long)pr->K, (long long)pr->L, pr->major[0],
             pr->major[1], pr->major[2], pr->beta);
    bool batched = pr->L > 1;
    operand A, B, C;
    make(b, &A, pr->d, pr->M, pr->K, pr->L, pr->major[0], false);
    make(b, &B, pr->d, pr->N, pr->K, pr->L, pr->major[1], false);
    make(b, &C, pr->cd, pr->M, pr->N, pr->L, pr->major[2], pr->beta == 0);
    cute_call_arg a = arg(&A, batched), bb = arg(&B, batched), c = arg(&C, batched);
    cute_status s = cutec_gemm(lib, v, &a, &bb, &c, pr->alpha, pr->beta, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    size_t es = (size_t)cute_dtype_bytes(pr->cd), n = (size_t)(C.size * pr->L);
    void *got = malloc(n * es);
    if (s == CUTE_OK) b->vt->download(b->self, got, &C.dev, 0, n * es);
    int64_t bad = 0;
    double worst = 0, tol = tolerance(pr);
    /* every element when small, else a random sample of 4096 */
    int64_t total = pr->M * pr->N * pr->L, samples = total <= 1 << 18 ? total : 4096;
    for (int64_t i = 0; i < samples && s == CUTE_OK; i++) {
        int64_t e = samples == total ? i : (int64_t)((ew_random(&seed) + 2.0) / 4.0 * (double)total) % total;
        int64_t m = e % pr->M, nn = e / pr->M % pr->N, l = e / (pr->M * pr->N);
        gemm_ref_operand rA = {A.wide + l * A.size, A.ld, A.major}, rB = {B.wide + l * B.size, B.ld, B.major},
                         rC = {C.wide + l * C.size, C.ld, C.major};
        double mag, ref = gemm_ref_element(CUTE_F64, &rA, &rB, &rC, pr->K, m, nn, pr->alpha, pr->beta, &mag);
        double err_rel = gemm_ref_error(get(got, pr->cd, l * C.size + gemm_ref_at(&rC, m, nn)), ref, mag);
        if (!(err_rel <= tol)) bad++;
        if (!(err_rel <= worst)) worst = err_rel;
    }
    CHECK(s != CUTE_OK || bad == 0, "%s: %lld wrong (worst relative error %g, tolerance %g)", what,
          (long long)bad, worst, tol);
    operand *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) {
        b->vt->free(b->self, &all[i]->dev);
        free(all[i]->host), free(all[i]->wide);
    }
    free(got);
}

/* input dtype -> the C dtypes it takes */
static const struct {
    cute_dtype d, cd[3];
    int ncd;
} pairs[] = {
    {CUTE_BF16, {CUTE_F32, CUTE_BF16, CUTE_F16}, 3},
    {CUTE_F16, {CUTE_F16, CUTE_F32, CUTE_BF16}, 3},
    {CUTE_I8, {CUTE_I32}, 1},
    {CUTE_F64, {CUTE_F64}, 1},
    {CUTE_TF32, {CUTE_F32}, 1},
    {CUTE_E4M3, {CUTE_F32, CUTE_BF16, CUTE_F16}, 3},
    {CUTE_E5M2, {CUTE_F16, CUTE_F32}, 2},
};

/* every major combination on the first shape and C dtype, the rest TN; on a GPU (each
 * kernel an NVRTC compile of seconds) TN and NN on the first */
static bool wanted(bool gpu, int s, int ci, int mj)
{
    if (mj == 3) return true;
    return s == 0 && ci == 0 && (!gpu || mj == 0);
}

static void matrix(cute_gemm_lib *lib, cute_backend *b, const char *backend, const int64_t (*shapes)[4],
                   int nshapes)
{
    bool gpu = strcmp(backend, "interp") != 0;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (int ci = 0; ci < pairs[p].ncd; ci++)
            for (int mj = 0; mj < 8; mj++)
                for (int s = 0; s < nshapes; s++) {
                    if (!wanted(gpu, s, ci, mj)) continue;
                    problem pr = {shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3],
                                  {mj & 1, (mj >> 1) & 1, (mj >> 2) & 1}, pairs[p].d, pairs[p].cd[ci],
                                  1.5, (s + mj) % 2 ? 0.0 : -0.5};
                    if (pr.cd == CUTE_I32) pr.alpha = 3, pr.beta = pr.beta ? -2 : 0; /* integral */
                    /* step 4 on one shape, step 5 (what AUTO runs) on all */
                    run(lib, b, s == 0 && mj == 3 ? CUTE_GEMM_TENSOROP : CUTE_GEMM_AUTO, &pr, backend);
                }
    /* step 3: FMA through the same multi-stage body */
    for (int d = 0; d < 2; d++)
        for (int mj = 0; mj < 8; mj += 3) {
            problem pr = {shapes[0][0], shapes[0][1], shapes[0][2], 1, {mj & 1, (mj >> 1) & 1, (mj >> 2) & 1},
                          d ? CUTE_F64 : CUTE_F32, d ? CUTE_F64 : CUTE_F32, -1.0, mj ? 0.25 : 0.0};
            run(lib, b, CUTE_GEMM_MULTISTAGE, &pr, backend);
        }
}

static void on(const char *backend, const int64_t (*shapes)[4], int nshapes)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        printf("%s: %s\n", backend, err);
        SKIP("no GPU: the tensor-core GEMMs ran on the interpreter only");
        return;
    }
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    matrix(lib, cute_runtime_backend(rt), backend, shapes, nshapes);
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
}

/* fp8 as sm_90 runs it (the _VIA_F16 rows: f16 steps into C), on the interpreter: the library
 * picks its kernel for the target, so these compile for sm_90a */
static void fp8_sm90(const int64_t shape[4])
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (check_failed) return;
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    const cute_dtype in[2] = {CUTE_E4M3, CUTE_E5M2}, out[2] = {CUTE_F32, CUTE_F16};
    for (int i = 0; i < 2; i++) {
        problem pr = {shape[0], shape[1], shape[2], shape[3], {1, 1, 0}, in[i], out[i], 1.5, -0.5};
        run(lib, cute_runtime_backend(rt), CUTE_GEMM_AUTO, &pr, "interp");
    }
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
}

/* a tiling whose f32 accumulators would not fit over its stages (256x256: 256 KB against
 * 96 KB of stages and 128 KB of bf16 C): the epilogue scales them before shared memory */
static void big_tile(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (check_failed) return;
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_gemm_tiling t = {.bm = 256, .bn = 256, .bk = 32, .stages = 3, .warps_m = 4, .warps_n = 2};
    CHECK(cute_gemm_lib_tiling(lib, &t), "tiling 256x256x32");
    problem pr = {256, 200, 40, 1, {1, 1, 0}, CUTE_BF16, CUTE_BF16, 1.5, -0.5};
    run(lib, cute_runtime_backend(rt), CUTE_GEMM_TENSOROP_SMEM, &pr, "interp");
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
}

/* The persistent kernel (CUTE_GEMM_SCHEDULE_PERSISTENT), each block walking several tiles
 * (the interpreter has 2 "SMs"), the next tile's first k-tiles loading during this one's
 * epilogue: the library's tiling (C's shared tile in two parts of N beside the stages) with
 * tails in M, N and K and beta; s8 at 128x128x128; a batch with an f32 row-major C and a
 * small tile (12 tiles a matrix on the interpreter); step 4 (no C tile).  On a GPU the same at `scale`
 * times the extents. */
static void persistent(const char *backend, int64_t scale)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: the persistent kernels ran on the interpreter only");
        return;
    }
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    enum { P = CUTE_GEMM_SCHEDULE_PERSISTENT };
    static const struct {
        problem pr;
        cute_gemm_tiling t;
        cute_gemm_variant v;
    } cases[] = {
        {{300, 260, 100, 1, {1, 1, 0}, CUTE_BF16, CUTE_BF16, 1.5, -0.5}, {.schedule = P}, CUTE_GEMM_TENSOROP_SMEM},
        {{300, 300, 150, 1, {1, 1, 0}, CUTE_I8, CUTE_I32, 3, -2},
         {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = P},
         CUTE_GEMM_TENSOROP_SMEM},
        {{200, 136, 72, 2, {0, 1, 1}, CUTE_BF16, CUTE_F32, 1.0, 0.25},
         {.bm = 64, .bn = 64, .bk = 32, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = P},
         CUTE_GEMM_TENSOROP_SMEM},
        {{129, 300, 33, 1, {1, 0, 0}, CUTE_F16, CUTE_F16, 1.5, 0.0}, {.schedule = P}, CUTE_GEMM_TENSOROP},
        /* two an SM (4 blocks on the interpreter), C over the last stage: s8 nt of one k-tile
         * (K under the prologue's two), bf16 128x128x64 in 3 stages, 9 tiles (3, 2, 2, 2) */
        {{260, 390, 100, 1, {0, 1, 0}, CUTE_I8, CUTE_I32, 2, 1},
         {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = P},
         CUTE_GEMM_TENSOROP_SMEM},
        {{300, 300, 200, 1, {1, 1, 0}, CUTE_BF16, CUTE_BF16, 1.5, -0.5},
         {.bm = 128, .bn = 128, .bk = 64, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = P},
         CUTE_GEMM_TENSOROP_SMEM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        problem pr = cases[i].pr;
        pr.M = pr.M * scale + (scale > 1), pr.N *= scale, pr.K = pr.K * scale + (scale > 1);
        CHECK(cute_gemm_lib_tiling(lib, &cases[i].t), "persistent tiling %zu", i);
        run(lib, cute_runtime_backend(rt), cases[i].v, &pr, backend);
    }
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
}

/* Trace-only: the persistent kernel's blocks an SM and shared memory (plan_multistage.c's
 * persistent_c_tile): two an SM where a block is 4 warps and its stages and C's tile from the
 * last stage on fit 113 KB (s8 128x128x128 in 3 stages: C's two 32 KB parts over the last
 * 32 KB stage, 96 KB a block, a block a tile's), else one (8 warps; 4 stages, 128 KB of them);
 * on sm_80 (163 KB an SM) one */
static void persistent_per_sm(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (check_failed) return;
    static const struct {
        cute_gemm_tiling t;
        int blocks;
        int64_t smem;
    } cases[] = {
        {{.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2}, 2, 96 * 1024},
        {{.bm = 256, .bn = 128, .bk = 128, .stages = 3, .warps_m = 4, .warps_n = 2}, 1, 224 * 1024},
        {{.bm = 128, .bn = 128, .bk = 128, .stages = 4, .warps_m = 2, .warps_n = 2}, 1, 160 * 1024},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_I8, .c_dtype = CUTE_I32,
                                .major = {1, 1, 0}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND,
                                .tiling = cases[i].t};
        cfg.tiling.schedule = CUTE_GEMM_SCHEDULE_PERSISTENT;
        const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
        CHECK(f != NULL, "persistent s8 case %zu: %s", i, err);
        if (!f) continue;
        const cute_ir_func *k = cute_fn_kernel(f, 0);
        /* (the counter's two shared slots add 16 bytes: CUTEC_GEMM_SM80_PERSISTENT=dynamic) */
        CHECK(k->min_blocks == cases[i].blocks && k->smem_bytes >= cases[i].smem && k->smem_bytes <= cases[i].smem + 16,
              "persistent s8 %lldx%lldx%lld, %d stages: %d blocks an SM, %lld bytes of shared memory (want %d, %lld)",
              (long long)cfg.tiling.bm, (long long)cfg.tiling.bn, (long long)cfg.tiling.bk, cfg.tiling.stages,
              k->min_blocks, (long long)k->smem_bytes, cases[i].blocks, (long long)cases[i].smem);
        cute_fn_free(f);
    }
    /* CUTEC_GEMM_SM80_PERSISTENT: a value outside static|dynamic refuses the compile by name */
    const char *was = getenv("CUTEC_GEMM_SM80_PERSISTENT");
    char keep[16];
    snprintf(keep, sizeof keep, "%s", was ? was : "");
    setenv("CUTEC_GEMM_SM80_PERSISTENT", "yes", 1);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_I8, .c_dtype = CUTE_I32,
                            .major = {1, 1, 0}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND,
                            .tiling = {.schedule = CUTE_GEMM_SCHEDULE_PERSISTENT}};
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "CUTEC_GEMM_SM80_PERSISTENT=yes: not one of static|dynamic"),
          "CUTEC_GEMM_SM80_PERSISTENT=yes: %s", f ? "taken" : err);
    if (was) setenv("CUTEC_GEMM_SM80_PERSISTENT", keep, 1);
    else unsetenv("CUTEC_GEMM_SM80_PERSISTENT");
    cute_runtime_free(rt);
}

/* the interpreter as an sm_90a target (NULL, a failed check, if it did not open) */
static cute_runtime *interp_sm90a(void)
{
    char err[2048] = "";
    cute_runtime *rt = NULL;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (rt) cute_runtime_set_target_arch(rt, "sm_90a");
    return rt;
}

/* a library on rt compiling with tiling t */
static cute_gemm_lib *tiled_lib(cute_runtime *rt, cute_gemm_tiling t, const char *what)
{
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    CHECK(cute_gemm_lib_tiling(lib, &t), "%s tiling", what);
    return lib;
}

/* the CUDA C of cfg compiled on rt (malloc'd; NULL, a failed check, where it did not compile) */
static char *cuda_of(cute_runtime *rt, const cute_gemm_config *cfg, const char *what)
{
    char err[2048] = "", *src = NULL;
    const cute_fn *f = cute_gemm_compile(rt, cfg, err, sizeof err);
    CHECK(f && cute_fn_code(f, "cuda", NULL, &src, err, sizeof err) == CUTE_OK, "%s: %s", what, err);
    cute_fn_free(f);
    return src;
}

/* a setting of an SM80 variable the plan refuses by name: cfg does not compile under
 * NAME=VALUE, the error saying `want` */
static void setting_refused(cute_runtime *rt, const cute_gemm_config *cfg, const char *name, const char *value,
                            const char *want)
{
    char err[2048] = "";
    setenv(name, value, 1);
    const cute_fn *f = cute_gemm_compile(rt, cfg, err, sizeof err);
    CHECK(!f && strstr(err, want), "%s=%s: %s", name, value, f ? "taken" : err);
    cute_fn_free(f);
    unsetenv(name);
}

/* Step 5's C tile in C's 16-bit dtype written by stmatrix where beta is 0 (CUTEC_GEMM_SM80_STSM,
 * plan_multistage.c's stsm_c_tile) on sm_90a, verified against float64: bf16 with C
 * column-major (stmatrix .trans), f16 with C row-major over a batch with K of one partial
 * k-tile, and bf16 under beta (the same kernel's f32 tile); 16-byte aligned operands, as the
 * form needs (else the f32 tile alone); the emitted CUDA has stmatrix with 1 and by default
 * (bf16), none with 0; a setting outside 0|1 refused by name */
static void sm80_stsm(void)
{
    cute_runtime *rt = interp_sm90a();
    if (!rt) return;
    cute_gemm_tiling t = {.bm = 128, .bn = 128, .bk = 32, .stages = 3, .warps_m = 2, .warps_n = 2};
    setenv("CUTEC_GEMM_SM80_STSM", "1", 1);
    cute_gemm_lib *lib = tiled_lib(rt, t, "stsm");
    /* every leading dimension a multiple of 8 (16-byte runs, the form's condition: the
     * library's alignment is the operands' least), the other extent and K partial tiles */
    problem col = {136, 140, 72, 1, {1, 1, 0}, CUTE_BF16, CUTE_BF16, 1.5, 0};
    problem row = {70, 136, 24, 2, {1, 0, 1}, CUTE_F16, CUTE_F16, 2, 0};
    problem under_beta = {136, 140, 72, 1, {1, 1, 0}, CUTE_BF16, CUTE_BF16, 1.5, -0.5}; /* the f32 tile's way */
    run(lib, cute_runtime_backend(rt), CUTE_GEMM_TENSOROP_SMEM, &col, "interp sm_90a stsm");
    run(lib, cute_runtime_backend(rt), CUTE_GEMM_TENSOROP_SMEM, &row, "interp sm_90a stsm");
    run(lib, cute_runtime_backend(rt), CUTE_GEMM_TENSOROP_SMEM, &under_beta, "interp sm_90a stsm");
    cute_gemm_lib_free(lib);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_BF16, .c_dtype = CUTE_BF16,
                            .major = {1, 1, 0}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND, .tiling = t};
    static const struct {
        const char *value; /* "": unset, the default */
        bool stmatrix;
    } settings[] = {{"0", false}, {"1", true}, {"", true}};
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        if (*settings[i].value) setenv("CUTEC_GEMM_SM80_STSM", settings[i].value, 1);
        else unsetenv("CUTEC_GEMM_SM80_STSM");
        char *src = cuda_of(rt, &cfg, settings[i].value);
        if (src) CHECK(!strstr(src, "stmatrix") == !settings[i].stmatrix, "CUTEC_GEMM_SM80_STSM=%s: stmatrix %s",
                       settings[i].value, strstr(src, "stmatrix") ? "in" : "not in");
        free(src);
    }
    setting_refused(rt, &cfg, "CUTEC_GEMM_SM80_STSM", "2", "CUTEC_GEMM_SM80_STSM=2: not one of 0|1");
    cute_runtime_free(rt);
}

/* A block a tile as a programmatic dependent launch (CUTEC_GEMM_SM80_PDL=1, plan_multistage.c):
 * s8 on sm_90a verified against float64 (two blocks, K of two k-tiles with a tail), its CUDA C
 * waiting first and letting the next grid in after (with 1 and by default); none of either with 0 or on sm_80; a
 * setting outside 0|1 refused by name, and one of CUTEC_GEMM_SM80_DIAG outside none|nostore */
static void sm80_pdl(void)
{
    char err[2048] = "";
    cute_runtime *rt = interp_sm90a();
    if (!rt) return;
    cute_gemm_tiling t = {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2};
    setenv("CUTEC_GEMM_SM80_PDL", "1", 1);
    cute_gemm_lib *lib = tiled_lib(rt, t, "pdl");
    problem pr = {129, 67, 140, 1, {1, 1, 0}, CUTE_I8, CUTE_I32, 3, -2};
    run(lib, cute_runtime_backend(rt), CUTE_GEMM_TENSOROP_SMEM, &pr, "interp sm_90a pdl");
    cute_gemm_lib_free(lib);
    static const struct {
        const char *arch, *pdl;
        bool waits;
    } forms[] = {{"sm_90a", "1", true}, {"sm_90a", "0", false}, {"sm_80", "1", false}, {"sm_90a", "", true}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        cute_runtime_set_target_arch(rt, forms[i].arch);
        if (*forms[i].pdl)
            setenv("CUTEC_GEMM_SM80_PDL", forms[i].pdl, 1);
        else
            unsetenv("CUTEC_GEMM_SM80_PDL"); /* "": the default */
        cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_I8, .c_dtype = CUTE_I32,
                                .major = {1, 1, 0}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND,
                                .tiling = t};
        char what[64];
        snprintf(what, sizeof what, "pdl %s %s", forms[i].arch, forms[i].pdl);
        char *src = cuda_of(rt, &cfg, what);
        if (src) {
            const char *wait = strstr(src, "griddepcontrol.wait"), *let = strstr(src, "griddepcontrol.launch_dependents");
            CHECK(forms[i].waits ? wait && let && wait < let : !wait && !let, "pdl %s %s: wait %s, launch_dependents %s",
                  forms[i].arch, forms[i].pdl, wait ? "in" : "not in", let ? "in" : "not in");
        }
        free(src);
    }
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_I8, .c_dtype = CUTE_I32,
                            .major = {1, 1, 0}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND};
    setting_refused(rt, &cfg, "CUTEC_GEMM_SM80_PDL", "yes", "CUTEC_GEMM_SM80_PDL=yes: not one of 0|1");
    /* the diagnostic's setting, as strict */
    setting_refused(rt, &cfg, "CUTEC_GEMM_SM80_DIAG", "nostores", "CUTEC_GEMM_SM80_DIAG=nostores: not one of none|nostore");
    /* a diagnostic in force is said once, on stderr: never silently wrong output */
    setenv("CUTEC_GEMM_SM80_DIAG", "nostore", 1);
    check_stderr_begin();
    for (int i = 0; i < 2; i++) cute_fn_free(cute_gemm_compile(rt, &cfg, err, sizeof err));
    const char *text = check_stderr_end();
    const char *w = strstr(text, "CUTEC_GEMM_SM80_DIAG=nostore is a diagnostic");
    CHECK(w && strstr(w, "wrong results by design") && !strstr(w + 1, "CUTEC_GEMM_SM80_DIAG=nostore is"),
          "the diagnostic said once: \"%s\"", text);
    unsetenv("CUTEC_GEMM_SM80_DIAG");
    cute_runtime_free(rt);
}

/* Two stages refused (trace only): ov2's 2-stage pipeline measured slower on the H200
 * (bench/RESULTS.md, dec-s8), so at least three, as the message says */
static void two_stages_refused(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (check_failed) return;
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_I8, .c_dtype = CUTE_I32,
                            .major = {1, 1, 0}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND,
                            .tiling = {.bm = 128, .bn = 128, .bk = 128, .stages = 2, .warps_m = 2, .warps_n = 2}};
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "3 stages or more"), "2 stages: %s", f ? "taken" : err);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* The step-5 kernel's shared-memory accesses are conflict-free, counted by the interpreter:
 * cp.async, ldmatrix, and the epilogue's stores and reads of the f32 accumulators (its reads
 * took twice the wavefronts when 32 threads ran along a 1 KB column of the tile).  Row-major
 * C: the accumulators' 8-byte stores take twice the ideal, as they did for f32 C before (one
 * swizzle cannot serve those stores and the reads' 16-byte phases both).  s8 at AUTO's tiling:
 * every site at the ideal, B's ldmatrix.x4 as A's. */
static void banks(void)
{
    char err[512];
    cute_runtime *rt;
    setenv("CUTEC_BANK_CONFLICTS", "1", 1); /* read when the backend is made */
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    unsetenv("CUTEC_BANK_CONFLICTS");
    if (check_failed) return;
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_backend *be = cute_runtime_backend(rt);
    for (int mc = 0; mc < 2; mc++) {
        problem pr = {256, 128, 64, 1, {1, 1, mc}, CUTE_BF16, CUTE_BF16, 1.5, -0.5};
        run(lib, be, CUTE_GEMM_TENSOROP_SMEM, &pr, "interp");
        int n, epilogue = 0;
        const cute_interp_bank_site *site = cute_interp_bank_sites(*be, &n);
        for (int i = 0; i < n; i++) {
            bool epi = site[i].file && strstr(site[i].file, "epilogue_smem.c") != NULL;
            epilogue += epi;
            if (mc == 1 && epi && !strcmp(site[i].op, "STORE")) {
                CHECK(site[i].wavefronts <= 2 * site[i].ideal, "row-major C: the accumulators' stores %llu, ideal %llu",
                      (unsigned long long)site[i].wavefronts, (unsigned long long)site[i].ideal);
                continue;
            }
            CHECK(site[i].wavefronts == site[i].ideal, "C major %d: %s:%d %s: %llu wavefronts, ideal %llu", mc,
                  site[i].file ? site[i].file : "?", site[i].line, site[i].op,
                  (unsigned long long)site[i].wavefronts, (unsigned long long)site[i].ideal);
        }
        CHECK(epilogue == 2, "C major %d: %d epilogue sites (its store and its read)", mc, epilogue);
    }
    /* s8 tn at AUTO's 128x128x128 (2x2 warps, 3 stages): A's and B's cp.async and
     * ldmatrix.x4 and the s32 accumulators' stores and reads, each at the ideal wavefronts */
    cute_gemm_tiling t8 = {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2};
    CHECK(cute_gemm_lib_tiling(lib, &t8), "s8 banks tiling");
    problem p8 = {128, 128, 128, 1, {1, 1, 0}, CUTE_I8, CUTE_I32, 3, 0};
    run(lib, be, CUTE_GEMM_TENSOROP_SMEM, &p8, "interp");
    int n, ldsm = 0;
    const cute_interp_bank_site *site = cute_interp_bank_sites(*be, &n);
    for (int i = 0; i < n; i++) {
        ldsm += strstr(site[i].op, "ldmatrix") != NULL;
        CHECK(site[i].wavefronts == site[i].ideal, "s8: %s:%d %s: %llu wavefronts, ideal %llu",
              site[i].file ? site[i].file : "?", site[i].line, site[i].op, (unsigned long long)site[i].wavefronts,
              (unsigned long long)site[i].ideal);
    }
    CHECK(ldsm == 2 && n == 5, "s8: %d sites, %d of ldmatrix (want 5: A's and B's ldmatrix)", n, ldsm);
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    if (getenv("CUTEC_SEED")) seed = strtoull(getenv("CUTEC_SEED"), NULL, 10);
    printf("tensorop_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    /* {M, N, K, L}: the odd 129x67x33, a batch of 3 with tails, one full tile */
    static const int64_t small[][4] = {{129, 67, 33, 1}, {40, 72, 24, 3}, {128, 256, 64, 1}};
    on("interp", small, 3);
    fp8_sm90(small[0]);
    big_tile();
    persistent("interp", 1);
    persistent_per_sm();
    sm80_pdl();
    sm80_stsm();
    two_stages_refused();
    banks();
    static const int64_t big[][4] = {{1021, 509, 263, 1}, {1024, 768, 520, 2}, {2048, 2048, 2048, 1}};
    on("cuda", big, 3);
    persistent("cuda", 7);
    return CHECK_DONE("tensorop_test");
}
