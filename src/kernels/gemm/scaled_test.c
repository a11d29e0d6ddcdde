/* fp8 scaled GEMMs (cutec_gemm_scaled: per-tensor and block scales, output scale, amax)
 * against a float64 reference on fresh gaussian inputs and fresh positive scales, C
 * poisoned (NaN where beta is 0):
 *  - on the interpreter, every check on, at small odd sizes (partial tiles in M, N and K,
 *    two blocks of B's scales across N, a partial last K block), e4m3 and e5m2, C of bf16,
 *    f16 and f32, both C majors, 128- and 64-wide tiles, odd and even counts of k-tiles
 *    (block scales' main loop takes them in pairs, A's scales loaded two ahead), the
 *    earlier main loop (scales multiplied at the load), 256-row tiles (two waves a
 *    warpgroup), amax against the reference's
 *    max |x| (raised from a prior value, and never lowered; edge and inner pieces);
 *    256-row tiles with each thread
 *    loading its own rows' scales (CUTEC_GEMM_BLOCKSCALE_ROWS=own; by default shared by a
 *    warp), and shared rows asked of tiles they do not change; 256-row tiles with the
 *    consumers at 240 registers (CUTEC_GEMM_BLOCKSCALE_REGS=240) and with each wave's batch
 *    in two halves of N (CUTEC_GEMM_BLOCKSCALE_HALVES=1), in 1x1, 2x1 and 1x2; the two
 *    warpgroups' batches in turns (CUTEC_GEMM_BLOCKSCALE_TURNS=1) and B's scale by lane
 *    (CUTEC_GEMM_BLOCKSCALE_SB=lane), at 256 x 128 and 128 x 160;
 *  - what is refused, named: scales of bf16 inputs, block scales of the wrong shape, K = 0
 *    with block scales, amax of an f32 C, a tile wider than a block of B, an output scale
 *    without scales, a 256-row tile with per-tensor scales or an f32 C, the grouped kernel
 *    with scales;
 *  - on an sm_90 GPU (else skipped, visibly), 1024x1000x1008 and 1021x1016x4000 sampled, both kinds
 *    (CUTEC_TEST_GPU_ONLY=1: these alone, for a device pass; CUTEC_SEED repeats a run). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;

typedef struct scase {
    int64_t M, N, K;
    cute_dtype d, cd;
    int cmajor;
    double alpha, beta;
    cute_gemm_scale_kind kind;
    bool out, amax;
    int bm, bn; /* 0: the library's tile */
    int mul;    /* tiling.scale_mul: 0 the library's (PROMOTE), STAGED, LOAD and INTERLEAVE the others */
    int cm, cn; /* tiling.cluster_m and _n: 0 the library's */
} scase;

/* the operands, scales (f32: sa (M,KB) M-major, sb (NB,KB) row-major; one value each for
 * TENSOR), the output scale and amax, on the host and the device; A's and B's rows and the
 * scale of each (row, K block) of A and of B in float64 for the reference */
typedef struct sprob {
    gtk_operand A, B, C, sa, sb, so, amax;
    cute_call_arg arg[4];
    cute_gemm_scales s;
    double *a64, *b64, *sa64, *sb64;
} sprob;

static void fill_scales(cute_backend *b, gtk_operand *x, int64_t rows, int64_t cols, int major, double fill)
{
    gtk_make(b, x, CUTE_F32, rows, cols, major, 0, false, &seed);
    for (int64_t i = 0; i < rows * cols; i++) ew_set(CUTE_F32, x->host, i, fill >= 0 ? fill : exp2(2 * ew_random(&seed)));
    b->vt->upload(b->self, &x->dev, 0, x->host, (size_t)(rows * cols) * 4);
}

/* one value (per-tensor scales, the output scale, amax) as a rank-1 tensor; block scales stay
 * rank 2, (1, 1) included (M or N within one block, K within one) */
static cute_call_arg one_arg(const gtk_operand *x, bool blocks)
{
    cute_call_arg a = gtk_arg(x, CUTE_F32);
    if (x->rows * x->cols == 1 && !blocks) a.ndim = 1;
    return a;
}

static double host(const gtk_operand *x, cute_dtype d, int64_t i, int64_t j)
{
    return ew_get(d, x->host, x->major ? i * x->ld + j : i + j * x->ld);
}

/* rows x cols of x in float64, row-major; `broadcast`: x's one value everywhere */
static double *as_f64(const gtk_operand *x, cute_dtype d, int64_t rows, int64_t cols, bool broadcast)
{
    double *r = malloc(sizeof(double) * (size_t)(rows * cols));
    for (int64_t i = 0; r && i < rows; i++)
        for (int64_t j = 0; j < cols; j++) r[i * cols + j] = broadcast ? host(x, d, 0, 0) : host(x, d, i, j);
    return r;
}

static void make(cute_backend *b, const scase *k, sprob *p, double amax0)
{
    bool block = k->kind == CUTE_GEMM_SCALE_BLOCK;
    int64_t kb = (k->K + 127) / 128, nb = (k->N + 127) / 128;
    gtk_make(b, &p->A, k->d, k->M, k->K, 1, 0, false, &seed);
    gtk_make(b, &p->B, k->d, k->N, k->K, 1, 0, false, &seed);
    gtk_make(b, &p->C, k->cd, k->M, k->N, k->cmajor, 0, k->beta == 0, &seed);
    fill_scales(b, &p->sa, block ? k->M : 1, block ? kb : 1, 0, -1);
    fill_scales(b, &p->sb, block ? nb : 1, block ? kb : 1, 1, -1);
    fill_scales(b, &p->so, 1, 1, 0, 0.75);
    fill_scales(b, &p->amax, 1, 1, 0, amax0);
    const gtk_operand *x[4] = {&p->sa, &p->sb, &p->so, &p->amax};
    for (int i = 0; i < 4; i++) p->arg[i] = one_arg(x[i], block && i < 2);
    p->s = (cute_gemm_scales){.kind = k->kind, .a = &p->arg[0], .b = &p->arg[1], .out = k->out ? &p->arg[2] : NULL,
                              .amax = k->amax ? &p->arg[3] : NULL};
    p->a64 = as_f64(&p->A, k->d, k->M, k->K, false), p->b64 = as_f64(&p->B, k->d, k->N, k->K, false);
    p->sa64 = as_f64(&p->sa, CUTE_F32, k->M, kb, !block), p->sb64 = as_f64(&p->sb, CUTE_F32, nb, kb, !block);
}

static void drop(cute_backend *b, sprob *p)
{
    gtk_operand *all[7] = {&p->A, &p->B, &p->C, &p->sa, &p->sb, &p->so, &p->amax};
    for (int i = 0; i < 7; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(p->a64), free(p->b64), free(p->sa64), free(p->sb64);
}

/* element (m, n) before the output scale, in float64, and its magnitude */
static double reference(const scase *k, const sprob *p, int64_t m, int64_t n, double *mag)
{
    int64_t kb = (k->K + 127) / 128;
    const double *a = p->a64 + m * k->K, *b = p->b64 + n * k->K;
    double s = 0, t = 0;
    for (int64_t k0 = 0; k0 < k->K; k0 += 128) {
        double f = p->sa64[m * kb + k0 / 128] * p->sb64[n / 128 * kb + k0 / 128], bs = 0, bt = 0;
        for (int64_t kk = k0; kk < k0 + 128 && kk < k->K; kk++) bs += a[kk] * b[kk], bt += fabs(a[kk] * b[kk]);
        s += f * bs, t += fabs(f) * bt;
    }
    double c = k->beta == 0 ? 0 : host(&p->C, k->cd, m, n);
    *mag = fabs(k->alpha) * t + fabs(k->beta * c);
    return k->alpha * s + k->beta * c;
}

/* amax's float64 value: max(amax0, max |x| over every element), and in *slack the
 * tolerance of the largest magnitude */
static double amax_reference(const scase *k, const sprob *p, double amax0, double *slack)
{
    double want = amax0, tol = gemm_ref_tolerance(k->d, k->cd), mag;
    *slack = 0;
    for (int64_t m = 0; m < k->M; m++)
        for (int64_t n = 0; n < k->N; n++) {
            want = fmax(want, fabs(reference(k, p, m, n, &mag)));
            *slack = fmax(*slack, tol * mag);
        }
    return want;
}

/* elements off the reference (all, or a sample of 4096 when many), and amax's verdict */
static int64_t wrong(const scase *k, const sprob *p, const void *got, float amax, double amax0, char *why, size_t n)
{
    double tol = gemm_ref_tolerance(k->d, k->cd), so = k->out ? 0.75 : 1, worst = 0, slack = 0;
    int64_t total = k->M * k->N, samples = total <= 1 << 16 ? total : 4096, bad = 0;
    gtk_operand C = {.host = (void *)got, .ld = p->C.ld, .major = p->C.major};
    for (int64_t i = 0; i < samples; i++) {
        int64_t e = samples == total ? i : (int64_t)((ew_random(&seed) + 2.0) / 4.0 * (double)total) % total;
        int64_t m = e % k->M, nn = e / k->M;
        double mag, ref = reference(k, p, m, nn, &mag);
        double err = gemm_ref_error(host(&C, k->cd, m, nn), ref * so, mag * so);
        if (!(err <= tol)) bad++;
        if (!(err <= worst)) worst = err;
    }
    double want = k->amax ? amax_reference(k, p, amax0, &slack) : 0;
    snprintf(why, n, "%lld wrong of %lld, worst %g; amax %.9g, float64 %.9g (allowed %.3g)", (long long)bad,
             (long long)samples, worst, (double)amax, want, slack);
    return bad + (k->amax && !(fabs(amax - want) <= slack));
}

static void scaled(cute_runtime *rt, cute_gemm_lib *lib, const scase *k, const char *where)
{
    cute_backend *b = cute_runtime_backend(rt);
    sprob p;
    double amax0 = 0.5; /* amax only rises */
    make(b, k, &p, amax0);
    cute_call_arg A = gtk_arg(&p.A, k->d), B = gtk_arg(&p.B, k->d), C = gtk_arg(&p.C, k->cd);
    char err[2048] = "", why[512] = "";
    cute_gemm_lib_tiling(lib, &(cute_gemm_tiling){.bm = k->bm, .bn = k->bn, .scale_mul = k->mul, .cluster_m = k->cm,
                                                .cluster_n = k->cn});
    cute_status s = cutec_gemm_scaled(lib, CUTE_GEMM_HOPPER, &A, &B, &C, k->alpha, k->beta, &p.s, NULL, NULL, NULL,
                                      err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    size_t bytes = (size_t)(p.C.ld * (p.C.major ? k->M : k->N)) * (size_t)cute_dtype_bytes(k->cd);
    void *got = malloc(bytes);
    float amax = 0;
    int64_t bad = -1;
    if (s == CUTE_OK && b->vt->download(b->self, got, &p.C.dev, 0, bytes) == CUTE_OK &&
        b->vt->download(b->self, &amax, &p.amax.dev, 0, 4) == CUTE_OK)
        bad = wrong(k, &p, got, amax, amax0, why, sizeof why);
    CHECK(s == CUTE_OK && bad == 0,
          "%s %s scales %s->%s %lldx%lldx%lld C %s-major tile %dx%d cluster %dx%d%s%s%s: %s %s %s", where,
          cute_gemm_scale_name(k->kind), cute_dtype_name(k->d), cute_dtype_name(k->cd), (long long)k->M,
          (long long)k->N, (long long)k->K, k->cmajor ? "row" : "column", k->bm, k->bn, k->cm, k->cn,
          k->out ? ", out scale" : "",
          k->amax ? ", amax" : "", (const char *[]){"", ", scales in registers", ", multiplied at the load", ", staged", ", interleaved"}[k->mul],
          cute_status_name(s), err, why);
    free(got);
    drop(b, &p);
}

/* 256 x 128 in clusters (as device-fp8h.sh timed them, deleted since), on the interpreter and
 * on the GPU: 2x1 over three row tiles (the last cluster's second block has none; 3 k-tiles,
 * the last partial), 1x2 (A's tile multicast along N) over three column tiles, 3 k-tiles (the
 * last partial; 4 until session 37: the interpreter's time, 8 cases of it).  On the
 * interpreter one partial tile across the clusters' other way (session 40: two until then,
 * 12 runs of each, a fifth of the sanitizers' time of this test) */
static const scase tall[2][2] = {
    {{520, 120, 272, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, true, true, 256, 128, 0, 2, 0},
     {200, 264, 272, CUTE_E5M2, CUTE_F16, 1, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, false, false, 256, 128, 0, 1, 2}},
    {{1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 256, 128, 0, 2, 0},
     {1021, 1016, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 256, 128, 0, 1, 2}},
};

static void interp_cases(cute_runtime *rt, cute_gemm_lib *lib)
{
    static const scase c[] = {
        {136, 200, 272, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_TENSOR, true, true, 0, 0, 0, 0, 0},
        {136, 200, 272, CUTE_E5M2, CUTE_F32, 1, 1.0, 0.0, CUTE_GEMM_SCALE_TENSOR, false, false, 0, 0, 0, 0, 0},
        {136, 328, 400, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, true, true, 0, 0, 0, 0, 0},
        {136, 328, 400, CUTE_E5M2, CUTE_F32, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0,
         CUTE_GEMM_SCALE_MUL_STAGED, 0, 0},
        {72, 200, 144, CUTE_E4M3, CUTE_F16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, true, 64, 64, 0, 0, 0},
        /* the main loop's two partial sums: an odd count of k-tiles (3), and one alone */
        {72, 136, 304, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0, 0, 0, 0},
        {40, 200, 112, CUTE_E5M2, CUTE_F32, 0, 0.5, 0.25, CUTE_GEMM_SCALE_BLOCK, false, false, 64, 64, 0, 0, 0},
        /* the scales of A two k-tiles ahead: the last k-tiles' loads clamped (5 k-tiles: the
         * pairs, then one; 2: the pair's two alone); and the earlier loop, kept to measure */
        {72, 136, 560, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0, 0, 0, 0},
        {72, 200, 144, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 64, 128, 0, 0, 0},
        {136, 328, 400, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, true, true, 0, 0,
         CUTE_GEMM_SCALE_MUL_LOAD, 0, 0},
        /* the promotion in parts between the next batch's wgmmas (5 k-tiles: the pairs, then
         * one; 2: one pair alone, 64 wide: parts of 2 column groups) */
        {72, 136, 560, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0,
         CUTE_GEMM_SCALE_MUL_INTERLEAVE, 0, 0},
        {40, 200, 272, CUTE_E5M2, CUTE_F32, 1, 0.5, 0.25, CUTE_GEMM_SCALE_BLOCK, false, false, 64, 64,
         CUTE_GEMM_SCALE_MUL_INTERLEAVE, 0, 0},
        /* the scales staged in shared memory by cp.async (5 k-tiles: the ring's slots wrap) */
        {72, 136, 560, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0,
         CUTE_GEMM_SCALE_MUL_STAGED, 0, 0},
        {40, 200, 272, CUTE_E5M2, CUTE_F32, 1, 0.5, 0.25, CUTE_GEMM_SCALE_BLOCK, false, false, 64, 64,
         CUTE_GEMM_SCALE_MUL_STAGED, 0, 0},
        /* 192-wide tiles, one partial set, B's blocks by parts of 64 (a tile starting mid-block,
         * a part past N; 5 k-tiles, 3); and the scales through registers there */
        {136, 400, 560, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, true, true, 128, 192,
         CUTE_GEMM_SCALE_MUL_STAGED, 0, 0},
        {72, 328, 272, CUTE_E5M2, CUTE_F16, 1, 1.0, 0.5, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 192, 0, 0, 0},
        {72, 328, 400, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 192, 0, 0, 0},
        /* 160- and 176-wide tiles: B's blocks by parts of 32 and 16 (tiles across a block
         * boundary, and past N); 160 in 2x1 clusters, as the library takes it for large N
         * (B's tile multicast to two blocks along M, 3 k-tiles) */
        {136, 328, 272, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 160, 0, 2, 0},
        /* one row and one K block: sa is (1, 1), a rank-2 tensor all the same */
        {1, 168, 16, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 160, 0, 2, 0},
        {72, 400, 272, CUTE_E5M2, CUTE_F16, 1, 1.0, 0.5, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 176, 0, 0, 0},
        /* 256-row tiles: two waves a warpgroup, one partial set (5 k-tiles; 2, rows past M) */
        {264, 200, 560, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, true, true, 256, 128, 0, 0, 0},
        {296, 136, 144, CUTE_E5M2, CUTE_F16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 256, 128,
         CUTE_GEMM_SCALE_MUL_STAGED, 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) scaled(rt, lib, &c[i], "interp");
    for (size_t i = 0; i < 2; i++) scaled(rt, lib, &tall[0][i], "interp");
}

/* tall's cases with each thread loading its own rows' scales (CUTEC_GEMM_BLOCKSCALE_ROWS=own,
 * the form before shared rows), and on the interpreter shared rows asked where they change
 * nothing (128 x 128's two sets, 5 k-tiles; 160 wide) */
static void own_rows_cases(cute_runtime *rt, bool gpu)
{
    static const scase same[] = {
        {72, 136, 560, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0, 0, 0, 0},
        {136, 328, 272, CUTE_E4M3, CUTE_BF16, 0, 1.5, -0.5, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 160, 0, 2, 0},
    };
    for (int shfl = 0; shfl < 2 - gpu; shfl++) {
        setenv("CUTEC_GEMM_BLOCKSCALE_ROWS", shfl ? "shfl" : "own", 1); /* (read as the kernel is traced) */
        cute_gemm_lib *lib = cute_gemm_lib_new(rt); /* (its own: a library keeps kernels by configuration) */
        const scase *k = shfl ? same : tall[gpu];
        for (size_t i = 0; i < 2; i++)
            scaled(rt, lib, &k[i], gpu ? "gpu own rows" : shfl ? "interp shared rows asked" : "interp own rows");
        cute_gemm_lib_free(lib);
    }
    unsetenv("CUTEC_GEMM_BLOCKSCALE_ROWS");
}

/* sessions 35 and 36's forms of the one-set loop, each in a library of its own (the
 * environment is read as a kernel is traced): the consumers at 240 registers
 * (CUTEC_GEMM_BLOCKSCALE_REGS=240, hopper_blockscale.c's gemm_blockscale_consumer_regs) with
 * each thread its own rows' scales (tall's 2x1) and shared rows (tall's 1x2); each wave's
 * batch in two halves of N (CUTEC_GEMM_BLOCKSCALE_HALVES=1) at 232 (tall's 2x1) and at 240
 * (tall's 1x2); the warpgroups' batches in turns (CUTEC_GEMM_BLOCKSCALE_TURNS=1) in both and
 * B's scale by lane (CUTEC_GEMM_BLOCKSCALE_SB=lane) in 1x2; on the interpreter also 1x1 tiles
 * (two row tiles, 5 k-tiles) of each, turns with shared rows, and turns and sb by lane in 128
 * x 160 (one wave, three column tiles: the blocks walk several tiles, so a turn left
 * unmatched at a tile's end would deadlock the next), turns with B's scale uniform
 * (CUTEC_GEMM_BLOCKSCALE_SB=uniform), late turns (=late, the default) in both, and the loop
 * without turns (=0) at 256 x 128 */
static void forms_cases(cute_runtime *rt, bool gpu)
{
    /* (3 k-tiles, the last partial: 5 until session 37, the interpreter's time; interp_cases
     * keeps a 5-k-tile 256 x 128 case) */
    static const scase one = {264, 120, 304, CUTE_E5M2, CUTE_BF16, 0, 1.0, 0.5, CUTE_GEMM_SCALE_BLOCK, false, false,
                              256, 128, 0, 0, 0}; /* (one partial column tile: 200 until session 40) */
    static const scase wide = {136, 360, 400, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false,
                               128, 160, 0, 2, 0};
    const struct { const scase *k; const char *regs, *rows, *halves, *turns, *sb, *name; } r[] = {
        {&tall[gpu][0], "240", "own", "", "", "", "240 registers, own rows"},
        {&tall[gpu][1], "240", "shfl", "", "", "", "240 registers"},
        {&tall[gpu][0], "", "", "1", "", "", "halves"},
        {&tall[gpu][1], "240", "", "1", "", "", "halves, 240 registers"},
        {&tall[gpu][0], "", "", "", "1", "", "turns"},
        {&tall[gpu][1], "", "", "", "1", "", "turns"},
        {&tall[gpu][1], "", "", "", "0", "lane", "sb by lane, no turns"},
        {&tall[gpu][1], "", "", "", "0", "", "no turns"},
        {&one, "240", "", "", "", "", "240 registers"},
        {&one, "", "", "1", "", "", "halves"},
        {&one, "", "", "", "1", "", "turns"},
        {&one, "", "shfl", "", "1", "", "turns, shared rows"},
        {&wide, "", "", "", "1", "", "turns, one wave"},
        {&one, "", "", "", "1", "uniform", "turns, sb uniform"},
        {&one, "", "", "", "late", "", "late turns"},
        {&one, "", "", "", "0", "", "no turns"},
        {&wide, "", "", "", "late", "", "late turns, one wave"},
        {&wide, "", "", "", "0", "lane", "sb by lane, no turns"},
    };
    for (size_t i = 0; i < (gpu ? 8u : sizeof r / sizeof r[0]); i++) {
        setenv("CUTEC_GEMM_BLOCKSCALE_REGS", r[i].regs, 1);
        setenv("CUTEC_GEMM_BLOCKSCALE_ROWS", r[i].rows, 1);
        setenv("CUTEC_GEMM_BLOCKSCALE_HALVES", r[i].halves, 1);
        setenv("CUTEC_GEMM_BLOCKSCALE_TURNS", r[i].turns, 1);
        setenv("CUTEC_GEMM_BLOCKSCALE_SB", r[i].sb, 1);
        cute_gemm_lib *lib = cute_gemm_lib_new(rt); /* (its own: a library keeps kernels by configuration) */
        char where[64];
        snprintf(where, sizeof where, "%s %s", gpu ? "gpu" : "interp", r[i].name);
        scaled(rt, lib, r[i].k, where);
        cute_gemm_lib_free(lib);
    }
    unsetenv("CUTEC_GEMM_BLOCKSCALE_REGS");
    unsetenv("CUTEC_GEMM_BLOCKSCALE_ROWS");
    unsetenv("CUTEC_GEMM_BLOCKSCALE_HALVES");
    unsetenv("CUTEC_GEMM_BLOCKSCALE_TURNS");
    unsetenv("CUTEC_GEMM_BLOCKSCALE_SB");
}

static void refused(cute_runtime *rt, cute_gemm_lib *lib)
{
    cute_backend *b = cute_runtime_backend(rt);
    scase k = {72, 200, 144, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0, 0, 0, 0};
    sprob p;
    make(b, &k, &p, 0);
    cute_call_arg A = gtk_arg(&p.A, k.d), B = gtk_arg(&p.B, k.d), C = gtk_arg(&p.C, k.cd);
    cute_call_arg Cf = gtk_arg(&p.C, CUTE_F32), Ab = gtk_arg(&p.A, CUTE_BF16), Bb = gtk_arg(&p.B, CUTE_BF16);
    Ab.shape[1] = Bb.shape[1] = k.K / 2, Ab.stride[0] = Bb.stride[0] = k.K / 2;
    cute_call_arg wide = p.arg[1], K0 = A, B0 = B;
    wide.shape[1] += 1, K0.shape[1] = B0.shape[1] = 0;
    cute_gemm_scales s = p.s, tensor = {.kind = CUTE_GEMM_SCALE_TENSOR, .a = &p.arg[2], .b = &p.arg[2], .amax = &p.arg[3]};
    cute_gemm_scales bad_b = s, none_out = {.out = &p.arg[2]};
    bad_b.b = &wide;
    static const char *want[] = {"bf16 inputs", "(2, 3) but must be (2, 2)", "K >= 1", "TMA-store epilogue",
                                 "whose N divides 128", "needs per-tensor or block", "256 with block scales",
                                 "256-row tile runs in the TMA-store epilogue", "tiling.scale_mul 9"};
    struct { const cute_call_arg *A, *B, *C; const cute_gemm_scales *s; int bm, bn, mul; } r[] = {
        {&Ab, &Bb, &C, &s, 0, 0, 0}, {&A, &B, &C, &bad_b, 0, 0, 0}, {&K0, &B0, &C, &s, 0, 0, 0},
        {&A, &B, &Cf, &tensor, 0, 0, 0}, {&A, &B, &C, &s, 0, 256, 0}, {&A, &B, &C, &none_out, 0, 0, 0},
        {&A, &B, &C, &tensor, 256, 128, 0}, {&A, &B, &Cf, &s, 256, 128, 0}, {&A, &B, &C, &s, 0, 0, 9}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char err[2048] = "";
        cute_gemm_lib_tiling(lib, &(cute_gemm_tiling){.bm = r[i].bm, .bn = r[i].bn, .scale_mul = r[i].mul});
        cute_status st = cutec_gemm_scaled(lib, CUTE_GEMM_HOPPER, r[i].A, r[i].B, r[i].C, 1.0, 0.0, r[i].s, NULL, NULL,
                                           NULL, err, sizeof err);
        CHECK(st != CUTE_OK && strstr(err, want[i]), "refusal %zu: wanted '%s' in: %s", i, want[i], err);
    }
    drop(b, &p);
    /* the grouped kernel has no scales: refused, not run without them */
    cute_gemm_config g = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_E4M3, .c_dtype = CUTE_BF16, .major = {1, 1, 1},
                          .align_bytes = 16, .scale = CUTE_GEMM_SCALE_TENSOR};
    char err[512] = "";
    const cute_fn *f = cute_gemm_grouped_compile(rt, &g, err, sizeof err);
    CHECK(!f && strstr(err, "fp8-scaled"), "grouped with scales: wanted a refusal naming fp8-scaled: %s", err);
    cute_fn_free(f);
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    if (getenv("CUTEC_SEED")) seed = strtoull(getenv("CUTEC_SEED"), NULL, 10);
    printf("seed %llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(0, "interp: %s", err);
        return CHECK_DONE("scaled_test");
    }
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    /* a GPU pass short of time (CUTEC_TEST_GPU_ONLY=1: the GPU's cases only; CI runs the rest) */
    const char *gpu_only = getenv("CUTEC_TEST_GPU_ONLY");
    if (gpu_only && *gpu_only && strcmp(gpu_only, "0")) SKIP("the interpreter's cases (CUTEC_TEST_GPU_ONLY)");
    else {
        interp_cases(rt, lib), own_rows_cases(rt, false), forms_cases(rt, false);
    }
    refused(rt, lib);
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
    cute_runtime *gpu = gtk_sm90();
    if (!gpu) {
        SKIP("no sm_90 GPU: the scaled GEMMs at 1024x1000x1008");
        return CHECK_DONE("scaled_test");
    }
    lib = cute_gemm_lib_new(gpu);
    static const scase g[] = {
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_TENSOR, true, true, 0, 0, 0, 0, 0},
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, true, 0, 0, 0, 0, 0},
        {1021, 1016, 4000, CUTE_E4M3, CUTE_F32, 1, 1.0, 0.5, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0, 0, 0, 0},
        {1021, 1016, 4000, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0,
         CUTE_GEMM_SCALE_MUL_LOAD, 0, 0},
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0,
         CUTE_GEMM_SCALE_MUL_STAGED, 0, 0},
        {1024, 1000, 880, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 0, 0,
         CUTE_GEMM_SCALE_MUL_INTERLEAVE, 0, 0},
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 0, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, true, 128, 192, 0, 0, 0},
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 160, 0, 2, 0},
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, false, 128, 176, 0, 0, 0},
        {1024, 1000, 1008, CUTE_E4M3, CUTE_BF16, 1, 1.0, 0.0, CUTE_GEMM_SCALE_BLOCK, false, true, 256, 128, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) scaled(gpu, lib, &g[i], "gpu");
    for (size_t i = 0; i < 2; i++) scaled(gpu, lib, &tall[1][i], "gpu");
    own_rows_cases(gpu, true);
    forms_cases(gpu, true);
    cute_gemm_lib_free(lib);
    cute_runtime_free(gpu);
    return CHECK_DONE("scaled_test");
}
