/* The Hopper GEMM (hopper.c) against the float64 reference (gemm_ref) on fresh gaussian
 * inputs, C poisoned (NaN where beta is 0, random where it is not):
 *  - on the interpreter, every check on, at small odd sizes whose edge tiles are partial in
 *    M, N and K (136x200x72 with the 128x256 tile: two M tiles, N and K tails), bf16 and f16,
 *    C of f32, bf16 and f16, row- and column-major, more k-tiles than stages, C through
 *    shared memory and straight from the accumulators, blocks walking several tiles (the
 *    persistent scheduler; the interpreter has 2 "SMs"); a 16-bit C by stmatrix and TMA
 *    stores (one or two buffers a warpgroup; C under beta loaded by TMA into them, beta_read)
 *    and by 16-byte stores;
 *  - the broken pipelines, each reported by the interpreter with the warp, the site and the
 *    barrier's state: too few transaction bytes expected, a consumer waiting for the wrong
 *    phase, a consumer that never releases a stage (alone and in a 2x1 cluster), a wgmma
 *    that reads a stage before its wait; and the TMA-store epilogue's, with both sites: a
 *    buffer written again before its store read it (no PipelineTmaStore acquire),
 *    stmatrix's writes not fenced for TMA, a store issued before the consumers met; a
 *    ping-pong warpgroup that never passes the MMA turn (a deadlock at its named barrier);
 *  - the ping-pong schedule (a tile each warpgroup, turns over named barriers): uneven tile
 *    counts, wrapping stages, 128-row tiles, f32 C, M-/N-major, a cluster, a fused epilogue;
 *  - A M-major, B N-major and both (64-row TMA boxes, wgmma's transposed operands);
 *  - the main loop's edges (mainloop_cases: ping-pong's stages wrapping, one k-tile);
 *  - 192-row tiles by three consumer warpgroups (three_warpgroups' cases);
 *  - what it refuses, named: an N-major B in tiles not a multiple of 64, unaligned rows,
 *    fp32, stages that do not fit, a TMA-store epilogue for an f32 C;
 *  - on an sm_90 GPU (else skipped, visibly), larger sizes (sampled) and the library's AUTO
 *    choosing it, and the fused epilogues' cases again (CUTEC_TEST_GPU_ONLY=1: only these,
 *    the interpreter's cases skipped, visibly). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;
enum { PP = CUTE_GEMM_SCHEDULE_PINGPONG };

typedef struct hcase {
    int64_t M, N, K;
    cute_dtype d, cd;
    int cmajor;            /* C: 1 row-major, 0 column-major */
    double alpha, beta;
    cute_gemm_tiling tile; /* zero: the plan's */
    int mn;                /* 1: A M-major, 2: B N-major, 3: both (0: both K-major) */
} hcase;

typedef gtk_operand operand;

static bool make(cute_backend *b, operand *x, cute_dtype d, int64_t rows, int64_t cols, int major, bool nan)
{
    return gtk_make(b, x, d, rows, cols, major, 0, nan, &seed);
}
#define arg gtk_arg

static cute_gemm_config config(const hcase *k)
{
    return (cute_gemm_config){.variant = CUTE_GEMM_HOPPER, .dtype = k->d, .c_dtype = k->cd,
                              .major = {!(k->mn & 1), !(k->mn & 2), k->cmajor}, .align_bytes = 16,
                              .tiling = k->tile};
}

/* elements off the reference: all of them when few, else a sample of 4096 */
/* the test's own epilogue function (TensorSSA) and its float64 reference: 0.5 x - v */
static cute_ssa half_minus_v(cute_ctx *c, cute_ssa x, cute_ssa v, const void *user)
{
    (void)user;
    cute_ssa half = cute_ssa_binop(c, CUTE_OP_MUL, x, cute_ssa_fill(c, CUTE_F32, x.shape, 0.5));
    return cute_ssa_binop(c, CUTE_OP_SUB, half, v);
}

/* the reference of element (m, n) after e (NULL: none): *mag grows by |v| */
static double fused_ref(const cute_gemm_epilogue *e, const operand *V, cute_dtype vd, double ref, int64_t m,
                        int64_t n, double *mag)
{
    if (!e) return ref;
    double v = e->bias == CUTE_GEMM_BIAS_NONE ? 0 : ew_get(vd, V->host, e->bias == CUTE_GEMM_BIAS_ROW ? m : n);
    *mag += fabs(v);
    double y = gemm_ref_epilogue(e, ref, v);
    return e->fn ? 0.5 * y - v : y;
}

static int64_t wrong(const hcase *k, const cute_gemm_epilogue *ep, const operand *A, const operand *B,
                     const operand *C, const operand *V, const void *got, double *worst)
{
    gemm_ref_problem p = {{A->host, A->ld, A->major}, {B->host, B->ld, B->major}, {C->host, C->ld, C->major}, k->d, k->cd,
                          {0, 0, 0}, k->M, k->N, k->K, 1, k->alpha, k->beta};
    double tol = gemm_ref_tolerance(k->d, k->cd);
    int64_t total = k->M * k->N, samples = total <= 1 << 16 ? total : 4096, bad = 0;
    *worst = 0;
    for (int64_t i = 0; i < samples; i++) {
        int64_t e = samples == total ? i : (int64_t)((ew_random(&seed) + 2.0) / 4.0 * (double)total) % total;
        int64_t m = e % k->M, n = e / k->M;
        double mag, ref = gemm_ref_value(&p, m, n, 0, &mag);
        ref = fused_ref(ep, V, k->cd, ref, m, n, &mag);
        double err = gemm_ref_error(ew_get(k->cd, got, gemm_ref_at(&p.C0, m, n)), ref, mag);
        if (!(err <= tol)) bad++;
        if (!(err <= *worst)) *worst = err;
    }
    return bad;
}

/* one run of the kernel (broken as asked): the call's status, its message in why, and
 * *bad the elements off the reference (-1: not checked) */
static cute_status run_fused(cute_runtime *rt, const hcase *k, const cute_gemm_epilogue *e, unsigned broken,
                             int64_t *bad, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = config(k);
    if (e) cfg.epilogue = *e;
    *bad = -1, why[0] = 0;
    const cute_fn *f = gemm_compile_broken(rt, &cfg, broken, why, n);
    if (!f) return CUTE_ERR_COMPILE;
    operand A, B, C, V; /* V: the epilogue's vector (a column: one value per row or column of C) */
    bool vec = e && e->bias != CUTE_GEMM_BIAS_NONE;
    bool ok = make(b, &A, k->d, k->M, k->K, !(k->mn & 1), false) && make(b, &B, k->d, k->N, k->K, !(k->mn & 2), false) &&
              make(b, &C, k->cd, k->M, k->N, k->cmajor, k->beta == 0) &&
              make(b, &V, k->cd, vec && e->bias == CUTE_GEMM_BIAS_ROW ? k->M : k->N, 1, 0, false);
    cute_call_arg args[6] = {arg(&A, k->d), arg(&B, k->d), arg(&C, k->cd), cute_call_float(k->alpha),
                             cute_call_float(k->beta), cute_call_tensor(&V.dev, 0, k->cd, 1, &V.rows, (int64_t[]){1})};
    cute_status s = ok ? cute_call(f, NULL, vec ? 6 : 5, args, why, n) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, n, "%s", b->vt->error(b->self));
    size_t bytes = (size_t)(k->M * k->N * cute_dtype_bytes(k->cd));
    void *got = malloc(bytes);
    double worst;
    if (s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK) {
        *bad = wrong(k, e, &A, &B, &C, &V, got, &worst);
        if (*bad) snprintf(why, n, "%lld wrong, worst relative error %g", (long long)*bad, worst);
    }
    operand *all[4] = {&A, &B, &C, &V};
    for (int i = 0; i < 4; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
    cute_fn_free(f);
    return s;
}

static cute_status run(cute_runtime *rt, const hcase *k, unsigned broken, int64_t *bad, char *why, size_t n)
{
    return run_fused(rt, k, NULL, broken, bad, why, n);
}

static void correct(cute_runtime *rt, const hcase *k, const char *where)
{
    char why[4096];
    int64_t bad;
    cute_status s = run(rt, k, 0, &bad, why, sizeof why);
    CHECK(s == CUTE_OK && bad == 0, "%s hopper %s->%s %lldx%lldx%lld A %s-major, B %s-major, C %s-major tile %dx%d, "
          "%d stages, cluster %dx%d%s: %s %s", where, cute_dtype_name(k->d), cute_dtype_name(k->cd), (long long)k->M, (long long)k->N,
          (long long)k->K, k->mn & 1 ? "M" : "K", k->mn & 2 ? "N" : "K", k->cmajor ? "row" : "column", k->tile.bm,
          k->tile.bn, k->tile.stages, k->tile.cluster_m, k->tile.cluster_n, k->tile.schedule == PP ? ", ping-pong" : "",
          cute_status_name(s), why);
}

/* the interpreter's report of a broken pipeline: not OK, and naming each thing in `want` */
static void broken(cute_runtime *rt, unsigned how, const char *const *want, const char *what, int cluster_m, int store)
{
    /* one N tile of 64, 64 rows (one consumer), 3 stages and 5 k-tiles: the producer wraps;
     * the TMA-store epilogue's: a bf16 C, 3 N tiles, each block's tiles reusing its buffer
     * (--store tile: 128-column tiles, two pieces, a buffer each, 2 N tiles) */
    hcase k = {72, 40, 5 * 64 - 8, CUTE_BF16, CUTE_F32, 1, 1.0, 0.0,
               {.bm = 64, .bn = store == CUTE_GEMM_STORE_TILE ? 128 : 64, .stages = 3, .cluster_m = cluster_m,
                .cluster_n = 1, .c_store = store}, 0};
    if (how >= GEMM_BREAK_STORE_ACQUIRE) k.N = store == CUTE_GEMM_STORE_TILE ? 200 : 136, k.cd = CUTE_BF16;
    if (how == GEMM_BREAK_TURN) k.tile.schedule = PP; /* 2 M x 3 N tiles: 3 a block */
    char why[8192];
    int64_t bad;
    cute_status s = run(rt, &k, how, &bad, why, sizeof why);
    printf("%s: %.1500s\n", what, why);
    bool named = s != CUTE_OK;
    for (int i = 0; named && want[i]; i++) named = strstr(why, want[i]) != NULL;
    CHECK(named, "%s: %s, the report wants each of %s%s%s: %s", what, cute_status_name(s), want[0],
          want[1] ? ", " : "", want[1] ? want[1] : "", why);
}

static void broken_all(cute_runtime *rt)
{
    /* a fresh barrier's phase of parity 1 counts as completed: the wrong parity does not wait,
     * and the wgmma reads the stage before TMA wrote it */
    static const struct {
        unsigned how;
        const char *want[4], *what;
        int cluster_m, store;
    } b[] = {
        {GEMM_BREAK_EXPECT_TX, {"deadlock", "16384 of 16368 transaction bytes", "hopper.c", NULL},
         "too few transaction bytes expected", 1, 0},
        {GEMM_BREAK_PHASE, {"shared", "wgmma", "hopper.c", NULL}, "a consumer waiting for the wrong phase", 1, 0},
        {GEMM_BREAK_RELEASE, {"deadlock", "0 of 128 arrivals", "hopper.c", NULL}, "a consumer that never releases", 1, 0},
        /* in a 2x1 cluster each of the 4 consumer warps of both blocks releases once */
        {GEMM_BREAK_RELEASE, {"deadlock", "0 of 8 arrivals", "hopper.c", NULL},
         "a consumer that never releases, in a 2x1 cluster", 2, 0},
        {GEMM_BREAK_EARLY_READ, {"shared", "wgmma", "hopper.c", NULL}, "a wgmma reading a stage before its wait", 1, 0},
        {GEMM_BREAK_STORE_ACQUIRE, {"still read by", "cp.async.bulk.tensor", "hopper_store.c", NULL},
         "a buffer written again before its TMA store read it", 1, 0},
        /* whole tiles: the next tile's first piece before the last tile's stores read theirs */
        {GEMM_BREAK_STORE_ACQUIRE, {"still read by", "cp.async.bulk.tensor", "hopper_store.c", NULL},
         "a whole tile's buffer written again before its TMA store read it (--store tile)", 1, CUTE_GEMM_STORE_TILE},
        {GEMM_BREAK_STORE_FENCE, {"no fence.proxy.async", "cp.async.bulk.tensor", "hopper_store.c", NULL},
         "a whole tile's stmatrix writes stored with no proxy fence (--store tile)", 1, CUTE_GEMM_STORE_TILE},
        {GEMM_BREAK_STORE_FENCE, {"no fence.proxy.async", "cp.async.bulk.tensor", "hopper_store.c", NULL},
         "stmatrix's writes stored by TMA with no proxy fence", 1, 0},
        {GEMM_BREAK_STORE_BARRIER, {"race on bytes", "cp.async.bulk.tensor", "hopper_store.c", NULL},
         "a TMA store issued before the consumers met", 1, 0},
        {GEMM_BREAK_TURN, {"deadlock", "waits at bar.sync 2: 128 of its 256 threads arrived", "hopper.c", NULL},
         "a ping-pong warpgroup that never passes the MMA turn", 1, 0},
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        broken(rt, b[i].how, b[i].want, b[i].what, b[i].cluster_m, b[i].store);
}

/* what the plan refuses, and why, in words */
static void refused(cute_runtime *rt)
{
    static const struct {
        cute_gemm_config cfg;
        const char *want;
    } r[] = {
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 0, 1}, .align_bytes = 16,
          .tiling = {.bm = 128, .bn = 48}}, "multiple of 64"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 4}, "16-byte"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_F32, .major = {1, 1, 1}, .align_bytes = 16}, "f16, bf16"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_E4M3, .c_dtype = CUTE_F32, .major = {0, 1, 1}, .align_bytes = 16},
         "K-major"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.bm = 128, .bn = 256, .stages = 9}}, "stages"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_F32, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.c_store = CUTE_GEMM_STORE_TMA}}, "16-bit C"},
        /* a whole tile's buffers (64 KB) beside 4 stages of 48 KB: more than 227 KB */
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.stages = 4, .c_store = CUTE_GEMM_STORE_TILE}}, "leave room for 3 stages of 48 KB (4 asked)"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_F32, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.c_store = CUTE_GEMM_STORE_TILE}}, "(--store tile) takes a 16-bit C"},
        /* 192-row tiles: three warpgroups' 128 registers hold 64 x 192, not 64 x 256; untried kinds */
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.bm = 192, .bn = 256}}, "192 cooperative with bn up to 192"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16, .dual = true,
          .tiling = {.bm = 192, .bn = 192}}, "192-row tiles run plain and fused-epilogue 16-bit GEMMs, not the dual GEMM"},
        {{.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
          .tiling = {.bm = 192, .bn = 192, .schedule = CUTE_GEMM_SCHEDULE_STREAMK}}, "not stream-K"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char err[1024] = "";
        const cute_fn *f = cute_gemm_compile(rt, &r[i].cfg, err, sizeof err);
        CHECK(!f && strstr(err, r[i].want), "refusal %zu: wanted '%s' in: %s", i, r[i].want, err);
        cute_fn_free(f);
    }
}

/* fused epilogues on the interpreter at small odd sizes, each against float64 */
static void fused_all(cute_runtime *rt)
{
    static const struct {
        hcase k;
        cute_gemm_epilogue e;
    } f[] = {
        {{136, 200, 72, CUTE_BF16, CUTE_BF16, 1, 1.5, -0.5, {0}, 0}, {CUTE_GEMM_BIAS_COL, CUTE_GEMM_ACT_RELU, 0, 0, 0}},
        {{136, 200, 72, CUTE_F16, CUTE_F16, 0, 1.0, 0.0, {0}, 0}, {CUTE_GEMM_BIAS_ROW, CUTE_GEMM_ACT_GELU_TANH, 0, 0, 0}},
        {{72, 136, 200, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5, {.bm = 64, .bn = 64, .stages = 2}, 0},
         {CUTE_GEMM_BIAS_NONE, CUTE_GEMM_ACT_GELU_ERF, 0, 0, 0}},
        {{136, 200, 72, CUTE_BF16, CUTE_BF16, 0, 1.0, 1.0, {0}, 0}, {CUTE_GEMM_BIAS_COL, CUTE_GEMM_ACT_SILU, 0, 0, 0}},
        {{136, 200, 72, CUTE_F16, CUTE_F16, 1, 0.5, 0.0, {.bm = 128, .bn = 128}, 0},
         {CUTE_GEMM_BIAS_ROW, CUTE_GEMM_ACT_NONE, half_minus_v, NULL, "half_minus_v"}},
        /* in the ping-pong schedule's epilogue (a warpgroup's 128 x 128 tile) */
        {{200, 136, 200, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5, {.stages = 2, .schedule = PP}, 0},
         {CUTE_GEMM_BIAS_COL, CUTE_GEMM_ACT_GELU_ERF, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char why[4096];
        int64_t bad;
        cute_status s = run_fused(rt, &f[i].k, &f[i].e, 0, &bad, why, sizeof why);
        CHECK(s == CUTE_OK && bad == 0, "fused epilogue %zu (bias %d, %s%s) %lldx%lldx%lld: %s %s", i, (int)f[i].e.bias,
              cute_gemm_act_name(f[i].e.act), f[i].e.fn ? ", a function" : "", (long long)f[i].k.M,
              (long long)f[i].k.N, (long long)f[i].k.K, cute_status_name(s), why);
    }
    /* refused, with the reason: an f32 C (no TMA-store epilogue), an SM80 kernel */
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_F32, .major = {1, 1, 1},
                            .align_bytes = 16, .epilogue = {.act = CUTE_GEMM_ACT_RELU}};
    char err[1024] = "";
    const cute_fn *fn = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!fn && strstr(err, "fused epilogue runs in the TMA-store epilogue"), "f32 C with an epilogue: %s", err);
    cute_fn_free(fn);
    cfg.variant = CUTE_GEMM_TENSOROP_SMEM, cfg.c_dtype = CUTE_BF16, err[0] = 0;
    fn = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!fn && strstr(err, "hopper kernel only"), "tensorop_smem with an epilogue: %s", err);
    cute_fn_free(fn);
}

/* cutec_gemm_ex: the library compiles the epilogue's kernel once and checks the vector */
static void lib_fused(cute_runtime *rt)
{
    cute_backend *b = cute_runtime_backend(rt);
    hcase k = {72, 136, 200, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 0};
    cute_gemm_epilogue e = {CUTE_GEMM_BIAS_COL, CUTE_GEMM_ACT_SILU, 0, 0, 0};
    operand A, B, C, V;
    bool ok = make(b, &A, k.d, k.M, k.K, 1, false) && make(b, &B, k.d, k.N, k.K, 1, false) &&
              make(b, &C, k.cd, k.M, k.N, 1, true) && make(b, &V, k.cd, k.N, 1, 0, false);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_call_arg a = arg(&A, k.d), bb = arg(&B, k.d), cc = arg(&C, k.cd);
    cute_call_arg v = cute_call_tensor(&V.dev, 0, k.cd, 1, &V.rows, (int64_t[]){1});
    char err[1024] = "";
    cute_status s = ok ? cutec_gemm_ex(lib, CUTE_GEMM_HOPPER, &a, &bb, &cc, 1.0, 0.0, &e, &v, NULL, err, sizeof err)
                       : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    size_t bytes = (size_t)(k.M * k.N * 2);
    void *got = malloc(bytes);
    double worst;
    int64_t bad = s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK
                      ? wrong(&k, &e, &A, &B, &C, &V, got, &worst) : -1;
    CHECK(s == CUTE_OK && bad == 0, "cutec_gemm_ex bias + silu: %s %s, %lld wrong", cute_status_name(s), err,
          (long long)bad);
    s = cutec_gemm_ex(lib, CUTE_GEMM_HOPPER, &a, &bb, &cc, 1.0, 0.0, &e, NULL, NULL, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "column bias must be a unit-stride rank-1 tensor"), "no vector: %s", err);
    CHECK(cute_gemm_lib_size(lib) == 1, "one kernel compiled, %d", cute_gemm_lib_size(lib));
    cute_gemm_lib_free(lib);
    operand *all[4] = {&A, &B, &C, &V};
    for (int i = 0; i < 4; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
}

/* the dual GEMM with SwiGLU: odd sizes against float64, and what it refuses */
static void swiglu_all(cute_runtime *rt)
{
    static const gtk_swiglu k[] = {
        {136, 200, 72, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0},
        {72, 136, 200, CUTE_F16, CUTE_F16, 0, 0.5, 1.0},
    };
    gtk_swiglu_check(rt, k, sizeof k / sizeof k[0], CUTE_GEMM_HOPPER, &seed);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 0, 1}, .align_bytes = 16,
                            .dual = true};
    char err[1024] = "";
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "B0 and B1 must be K-major"), "swiglu with an N-major B: %s", err);
    cute_fn_free(f);
    cfg.major[1] = 1, cfg.c_dtype = CUTE_F32, err[0] = 0;
    f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "SwiGLU"), "swiglu with an f32 C: %s", err);
    cute_fn_free(f);
}

/* lane 0 of each warp releasing a stage (CUTEC_GEMM_HOPPER_RELEASE=warp, hopper_plan.c),
 * the stages' empty barriers counting 4 a warpgroup: cooperative with stages wrapping, one
 * consumer warpgroup walking 6 tiles, ping-pong, and a 2x1 cluster (its pipeline's own
 * rule, the form ignored); a form it does not know, refused by name */
static void release_by_warp(cute_runtime *rt)
{
    static const hcase k[] = {
        {136, 328, 328, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {200, 136, 200, CUTE_F16, CUTE_F32, 0, 1.0, 0.5, {.bm = 64, .bn = 64, .stages = 2}, 0},
        {136, 136, 200, CUTE_BF16, CUTE_BF16, 1, 1.5, -0.5, {.bm = 64, .bn = 64, .stages = 2, .schedule = PP}, 3},
        {136, 200, 72, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {.bm = 128, .bn = 128, .cluster_m = 2, .cluster_n = 1}, 0},
    };
    setenv("CUTEC_GEMM_HOPPER_RELEASE", "warp", 1);
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "warp release");
    setenv("CUTEC_GEMM_HOPPER_RELEASE", "warpgroup", 1);
    char err[512] = "";
    cute_gemm_config cfg = config(&k[0]);
    const cute_fn *fn = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!fn && strstr(err, "CUTEC_GEMM_HOPPER_RELEASE=warpgroup: not one of thread|warp"), "release by warpgroup: %s", err);
    unsetenv("CUTEC_GEMM_HOPPER_RELEASE");
}

/* 192-row tiles by three consumer warpgroups (64 x bn each): the whole tile's store and
 * --store tma, 2x1 and 1x2 clusters, C of f32 straight from the accumulators, M-/N-major,
 * beta, several tiles a block with the stages wrapping (a fused epilogue: `cutec run gemm
 * --tile 192x128x64 --epilogue gelu`, scripts/device-hop22.sh) */
static void three_warpgroups(cute_runtime *rt)
{
    static const hcase k[] = {
        {200, 392, 200, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.bm = 192, .bn = 192, .c_store = CUTE_GEMM_STORE_TILE}, 0},
        {392, 200, 264, CUTE_F16, CUTE_F16, 0, 1.5, -0.5, {.bm = 192, .bn = 192, .c_store = CUTE_GEMM_STORE_TMA}, 3},
        /* (K 200: 4 k-tiles wrap the 3 stages beside the whole tile's buffers) */
        {392, 400, 200, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5,
         {.bm = 192, .bn = 192, .cluster_m = 1, .cluster_n = 2, .c_store = CUTE_GEMM_STORE_TILE}, 0},
        {392, 392, 136, CUTE_BF16, CUTE_BF16, 0, 1.0, 0.0, {.bm = 192, .bn = 192, .cluster_m = 2, .cluster_n = 1}, 1},
        {200, 392, 200, CUTE_BF16, CUTE_F32, 1, 0.75, 2.0, {.bm = 192, .bn = 192}, 0},
        {392, 264, 200, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.bm = 192, .bn = 64, .stages = 2}, 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "three warpgroups");
}

/* C under beta loaded by TMA into the store's buffers and read back by ldmatrix
 * (hopper_store.c; a tile's first group under its main loop), beside the list above's: tails
 * in M and N, beta 1 (a residual add), 0.5, 2 and -1; C row- and column-major, bf16 and f16,
 * M-/N-major operands, --store tile, 2x1 clusters, several tiles a block (each tile's loads
 * then wait for the last tile's stores).  Under a sanitizer the first case only */
static void beta_read(cute_runtime *rt)
{
    static const hcase k[] = {
        {136, 200, 72, CUTE_BF16, CUTE_BF16, 1, 1.5, 1.0, {0}, 0},
        {136, 328, 72, CUTE_F16, CUTE_F16, 0, 1.0, 0.5, {.c_store = CUTE_GEMM_STORE_TILE}, 3},
        {136, 200, 72, CUTE_BF16, CUTE_BF16, 0, -1.0, 2.0, {.bm = 128, .bn = 128, .cluster_m = 2, .cluster_n = 1}, 0},
        {136, 200, 72, CUTE_F16, CUTE_F16, 1, 1.5, -1.0, {.bm = 128, .bn = 128, .cluster_m = 2, .cluster_n = 1}, 1},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0] && check_sweep_runs((int)i); i++) correct(rt, &k[i], "beta read");
}

/* the main loop (hopper.c): one loop over every k-tile, the first releasing no stage,
 * computing the tile's coordinates and issuing C's first loads under beta (hinted
 * CUTE_FOR_PEEL_FIRST: the interpreter runs it as one loop, the first tier's form; the CUDA
 * C backend's copy of k-tile 0 is checked in cuda_c_test and on the GPU).  Ping-pong with
 * beta (9 tiles, the stages wrapping), a single k-tile in a 2x1 cluster (the copy alone),
 * C of f32 through shared memory (6 tiles a block), --store tile with M-/N-major operands */
static void mainloop_cases(cute_runtime *rt)
{
    static const hcase k[] = {
        {136, 136, 200, CUTE_BF16, CUTE_BF16, 1, 1.5, -0.5, {.bm = 64, .bn = 64, .stages = 2, .schedule = PP}, 0},
        {136, 200, 40, CUTE_F16, CUTE_F16, 0, 1.0, 0.5, {.bm = 128, .bn = 128, .cluster_m = 2, .cluster_n = 1}, 0},
        {200, 136, 200, CUTE_F16, CUTE_F32, 0, 1.0, 0.5, {.bm = 64, .bn = 64, .stages = 2}, 0},
        {136, 328, 200, CUTE_BF16, CUTE_BF16, 1, -1.0, 2.0, {.c_store = CUTE_GEMM_STORE_TILE}, 3},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0] && check_sweep_runs((int)i); i++) correct(rt, &k[i], "main loop");
}

static void interp(void)
{
    cute_runtime *rt = gtk_interp();
    if (!rt) return;
    static const hcase k[] = {
        {136, 200, 72, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {0}, 0},
        {136, 200, 72, CUTE_F16, CUTE_F16, 0, -1.0, 0.0, {.bm = 128, .bn = 128}, 0},
        {72, 48, 328, CUTE_BF16, CUTE_BF16, 1, 0.75, 2.0, {.bm = 64, .bn = 48, .stages = 2}, 0},
        /* 12 tiles on the interpreter's 2 resident blocks: 6 each, the raster's band narrower
         * than 8 N-tiles, C through shared memory */
        {200, 136, 200, CUTE_F16, CUTE_F32, 0, 1.0, 0.5, {.bm = 64, .bn = 64, .stages = 2}, 0},
        /* an f32 C's 128 x 256 tile in two parts of N (and the first case row-major) */
        {136, 264, 136, CUTE_BF16, CUTE_F32, 0, 1.0, -1.0, {0}, 0},
        /* M-major A, N-major B, both: TMA boxes of 64 rows, wgmma's transposed operands */
        {136, 264, 136, CUTE_BF16, CUTE_BF16, 1, 1.5, 0.0, {0}, 1},
        {136, 200, 72, CUTE_F16, CUTE_F32, 0, 1.0, 0.25, {.bm = 128, .bn = 128}, 2},
        {72, 136, 200, CUTE_BF16, CUTE_F16, 1, -0.5, 0.0, {.bm = 64, .bn = 64, .stages = 2}, 3},
        /* clusters: 2x1 multicasting B (one cluster walking two tiles), 1x2 multicasting A
         * with 3 N tiles (the last cluster's second tile wholly outside C), 2x1 with
         * M-/N-major operands (each 64-row box split between the two blocks along K) */
        {136, 200, 72, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {.bm = 128, .bn = 128, .cluster_m = 2, .cluster_n = 1}, 0},
        {200, 136, 200, CUTE_F16, CUTE_F16, 0, 1.0, 0.5, {.bm = 64, .bn = 64, .stages = 2, .cluster_m = 1, .cluster_n = 2}, 0},
        {136, 264, 136, CUTE_BF16, CUTE_BF16, 1, 1.5, 0.0, {.cluster_m = 2, .cluster_n = 1}, 3},
        /* 2x2: each stage filled by the block's row and column (3 releases a warp) */
        {136, 264, 72, CUTE_BF16, CUTE_F32, 0, 1.0, 0.0, {.bm = 128, .bn = 128, .cluster_m = 2, .cluster_n = 2}, 0},
        /* fp8: k-tiles of 128, wgmma of 32 of K */
        {136, 200, 336, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {72, 136, 208, CUTE_E5M2, CUTE_F32, 0, 0.5, -1.0, {.bm = 64, .bn = 64, .stages = 2}, 0},
        {136, 200, 336, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, {.bn = 128, .cluster_m = 1, .cluster_n = 2}, 0},
        /* a 16-bit C through shared memory and 16-byte stores (not the TMA store), and TMA
         * stores from one buffer a warpgroup (bn 192: three 64-column pieces a tile) */
        {136, 200, 72, CUTE_BF16, CUTE_BF16, 1, 1.5, -0.5, {.c_store = CUTE_GEMM_STORE_ST}, 0},
        {136, 200, 72, CUTE_F16, CUTE_F16, 0, 1.0, 0.5, {.bm = 128, .bn = 192, .c_store = CUTE_GEMM_STORE_TMA}, 0},
        /* ping-pong: 9 tiles on the 2 blocks (5 and 4: the warpgroups' counts differ, the
         * last tile passes no turn), more k-tiles than stages; the two warpgroups' 128 x 128
         * tiles (two 64-row TMA boxes each) by TMA stores; an f32 C straight from the
         * accumulators; M-/N-major operands; a 2x1 cluster */
        {136, 136, 200, CUTE_BF16, CUTE_BF16, 1, 1.5, -0.5, {.bm = 64, .bn = 64, .stages = 2, .schedule = PP}, 0},
        {200, 136, 200, CUTE_F16, CUTE_F16, 0, 1.0, 0.5, {.stages = 3, .schedule = PP}, 0},
        {136, 136, 136, CUTE_BF16, CUTE_F32, 1, 1.0, 0.25, {.bm = 64, .bn = 64, .stages = 2, .schedule = PP}, 3},
        {136, 200, 72, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.bm = 64, .bn = 128, .cluster_m = 2, .schedule = PP}, 0},
        /* 6 tiles of 128 x 128, 3 a block: warpgroup 0 stores two tiles, each piece two boxes
         * from two buffers (its next piece may write them only when both stores read them) */
        {136, 328, 400, CUTE_BF16, CUTE_BF16, 0, 1.0, 0.0, {.schedule = PP}, 0},
        /* --store tile: a buffer a piece, the stores waited for at the next tile's epilogue:
         * 4 tiles of 128 x 256 (2 a block) with beta; 128 x 192 (3 pieces, 9 tiles) row-major;
         * ping-pong */
        {136, 328, 136, CUTE_BF16, CUTE_BF16, 0, 1.0, 0.5, {.c_store = CUTE_GEMM_STORE_TILE}, 0},
        {264, 400, 72, CUTE_F16, CUTE_F16, 1, -1.0, 0.0, {.bn = 192, .c_store = CUTE_GEMM_STORE_TILE}, 0},
        {136, 328, 200, CUTE_BF16, CUTE_BF16, 0, 1.0, 0.0, {.schedule = PP, .c_store = CUTE_GEMM_STORE_TILE}, 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "interp");
    release_by_warp(rt);
    mainloop_cases(rt);
    beta_read(rt);
    three_warpgroups(rt);
    fused_all(rt);
    lib_fused(rt);
    swiglu_all(rt);
    broken_all(rt);
    refused(rt);
    cute_runtime_free(rt);
}

/* on an sm_90 GPU: sizes with tails, and the library's AUTO picking the kernel */
static void gpu(void)
{
    cute_runtime *rt = gtk_sm90();
    if (!rt) {
        SKIP("no sm_90 GPU: the Hopper GEMM ran on the interpreter only");
        return;
    }
    static const hcase k[] = {
        {1021, 512, 264, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {0}, 0},
        {1024, 520, 264, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5, {0}, 3},
        {2048, 2048, 2048, CUTE_F16, CUTE_F16, 0, 1.0, 0.0, {0}, 1},
        {1024, 509, 264, CUTE_F16, CUTE_F16, 0, 1.0, 0.0, {0}, 0},
        {2048, 2048, 2048, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {4096, 4096, 4096, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 0},
        {777, 1000, 1000, CUTE_BF16, CUTE_BF16, 1, 1.0, 1.0, {.bm = 128, .bn = 128}, 0},
        /* clusters: B multicast along M (odd M tiles: a block of the last cluster has none),
         * A along N with M-/N-major operands, and 2x2 */
        {1921, 1024, 1000, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5, {.cluster_m = 2, .cluster_n = 1}, 0},
        {1024, 1280, 264, CUTE_F16, CUTE_F32, 0, 1.0, 0.0, {.cluster_m = 1, .cluster_n = 2}, 3},
        {4096, 4096, 4096, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.cluster_m = 2, .cluster_n = 1}, 0},
        {2048, 2048, 1024, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.cluster_m = 2, .cluster_n = 2}, 0},
        {1024, 1000, 264, CUTE_BF16, CUTE_BF16, 0, 1.0, -1.0, {.c_store = CUTE_GEMM_STORE_ST}, 0},
        {1021, 1000, 264, CUTE_F16, CUTE_F16, 1, 1.0, 0.5, {.bm = 128, .bn = 192}, 0},
        /* ping-pong: 128 x 128 and 64 x 256 a warpgroup, an f32 C from the accumulators with
         * M-/N-major operands, a 2x1 cluster */
        {2048, 2048, 2048, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.schedule = PP}, 0},
        {1021, 1000, 264, CUTE_F16, CUTE_F16, 1, 1.0, 0.5, {.bm = 64, .bn = 256, .schedule = PP}, 0},
        {1024, 1000, 264, CUTE_BF16, CUTE_F32, 1, 1.5, -0.5, {.schedule = PP}, 3},
        {1921, 1024, 1000, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.5, {.cluster_m = 2, .schedule = PP}, 0},
        /* --store tile (a buffer a piece): cooperative, in a 2x1 cluster (C row-major: TMA needs
         * 16-byte rows, 1921 is not), 128 x 192, ping-pong */
        {4096, 4096, 4096, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.c_store = CUTE_GEMM_STORE_TILE}, 0},
        {1921, 1000, 1000, CUTE_F16, CUTE_F16, 1, 1.0, 0.5, {.cluster_m = 2, .c_store = CUTE_GEMM_STORE_TILE}, 0},
        {1021, 1000, 264, CUTE_BF16, CUTE_BF16, 1, 1.5, -0.5, {.bn = 192, .c_store = CUTE_GEMM_STORE_TILE}, 0},
        {2048, 2048, 1024, CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.schedule = PP, .c_store = CUTE_GEMM_STORE_TILE}, 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "cuda");
    fused_all(rt);
    lib_fused(rt);
    swiglu_all(rt);
    printf("resident blocks of 384 threads (one an SM): %d alone, %d in clusters of 2, %d of 4\n",
           gemm_resident_blocks(rt, 1, 384), gemm_resident_blocks(rt, 2, 384), gemm_resident_blocks(rt, 4, 384));
    cute_runtime_free(rt);
}

int main(void)
{
    return gtk_main("hopper_test", &seed, interp, gpu);
}
