/* Block-scaled GEMV (cutec_gemv_nvfp4, cutec_gemv_blockscaled) on the interpreter: NVFP4
 * (e2m1 with a ue4m3 scale per 16) and MXFP8 (e4m3 with a ue8m0 scale per 32), scales placed
 * by an independent transcription of cuBLAS's 128x4 tile layout, y against the float64
 * decode of every code, at odd M (a partial 128-row scale tile), K not a multiple of the
 * k-tile (the predicated tail), batches; beta = 0 over a NaN-poisoned y; malformed calls
 * refused by name; the sm_100a PTX converting with cvt, the sm_90a PTX without. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_stderr.h"
#include "check_interp.h"
#include "kernels/gemv/refusal_testkit.h"
#include "cutec/gemv.h"
#include "cutec/numeric.h"
#include "kernels/ew_ref.h"

static uint64_t seed;
static int sf_shift; /* bytes the scale buffers start past their allocation's (2: not 4-aligned) */
static bool every_scale; /* NVFP4's scales: every ue4m3 code but NaN's, bit 7 set on half */

static uint64_t next(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
}

/* cuBLAS's block-scaling-factor layout, as its documentation draws it: 128x4 tiles of 512
 * bytes, K's tiles first; inside, row r at (r % 32) * 16 + (r / 32) * 4, scale column j at +j */
static int64_t sf_offset(int64_t row, int64_t kb, int64_t l, int64_t rows, int64_t K, int sfv)
{
    int64_t rk = (K + 4 * sfv - 1) / (4 * sfv), rm = (rows + 127) / 128;
    int64_t tile = (l * rm + row / 128) * rk + kb / 4;
    return tile * 512 + (row % 32) * 16 + (row % 128) / 32 * 4 + kb % 4;
}

typedef struct host_op {
    uint8_t *codes; /* A or x: e2m1 two to a byte, or e4m3 */
    uint8_t *sf;    /* scales, in the layout */
    int64_t rows, nsf;
    cute_buffer buf, sfbuf;
} host_op;

/* value (r, k, l) of an operand: its code decoded times its scale, exactly */
static double value(const host_op *o, cute_dtype d, int64_t r, int64_t k, int64_t l, int64_t K,
                    int sfv)
{
    int64_t i = (l * o->rows + r) * K + k;
    double v = d == CUTE_E2M1 ? cute_e2m1_to_f32((uint8_t)(o->codes[i / 2] >> (4 * (i % 2))))
                              : cute_e4m3_to_f32(o->codes[i]);
    uint8_t s = o->sf[sf_offset(r, k / sfv, l, o->rows, K, sfv)];
    return v * (d == CUTE_E2M1 ? cute_ue4m3_to_f32(s) : cute_ue8m0_to_f32(s));
}

/* random codes (never NaN) and random scales in [1/8, 2) (so that an f16 y never
 * overflows), uploaded */
static void make(cute_backend *b, host_op *o, cute_dtype d, int64_t rows, int64_t K, int64_t L,
                 int sfv)
{
    int64_t n = rows * K * L, bytes = d == CUTE_E2M1 ? n / 2 : n;
    o->rows = rows;
    o->nsf = cute_gemv_sf_count(rows, K, L, sfv);
    o->codes = malloc((size_t)bytes + 16), o->sf = malloc((size_t)o->nsf);
    for (int64_t i = 0; i < bytes; i++) /* any e2m1 pair; e4m3 of [-2, 2) */
        o->codes[i] = d == CUTE_E2M1 ? (uint8_t)next() : cute_f64_to_e4m3(ew_random(&seed));
    for (int64_t i = 0; i < o->nsf; i++) {
        double s = pow(2.0, (double)(next() % 4) - 3.0) * (1 + (double)(next() % 8) / 8);
        o->sf[i] = d == CUTE_E2M1 ? cute_f64_to_ue4m3(s) : cute_f64_to_ue8m0(s);
        if (every_scale && d == CUTE_E2M1) /* subnormal to 448, and the ignored bit 7 */
            o->sf[i] = (uint8_t)((next() % 127) | (next() % 2) << 7);
    }
    b->vt->alloc(b->self, (size_t)bytes + 16, &o->buf);
    b->vt->upload(b->self, &o->buf, 0, o->codes, (size_t)bytes + 16);
    b->vt->alloc(b->self, (size_t)(o->nsf + sf_shift), &o->sfbuf);
    b->vt->upload(b->self, &o->sfbuf, (size_t)sf_shift, o->sf, (size_t)o->nsf);
}

static void drop(cute_backend *b, host_op *o)
{
    b->vt->free(b->self, &o->buf), b->vt->free(b->self, &o->sfbuf);
    free(o->codes), free(o->sf);
}

/* v rounded to d, as the kernel's last step rounds: monotone, and past d's largest finite
 * value it is an infinity (f16 holds at most 65504: a true sum of -66058.7 must come back
 * as -inf, CUTEC_SEED=1795696989) */
static double rounded(cute_dtype d, double v)
{
    uint8_t b[8];
    ew_set(d, b, 0, v);
    return ew_get(d, b, 0);
}

static int64_t compare(const host_op *A, const host_op *x, cute_dtype d, cute_dtype yd,
                       const void *y, const void *y0, int64_t M, int64_t K, int64_t L, int sfv,
                       double beta)
{
    double ulp = yd == CUTE_F32 ? 0x1p-23 : yd == CUTE_F16 ? 0x1p-10 : 0x1p-7;
    int64_t bad = 0;
    for (int64_t l = 0; l < L; l++)
        for (int64_t m = 0; m < M; m++) {
            double sum = 0, mag = 0;
            for (int64_t k = 0; k < K; k++) {
                double t = value(A, d, m, k, l, K, sfv) * value(x, d, 0, k, l, K, sfv);
                sum += t, mag += fabs(t);
            }
            double yin = beta != 0 ? ew_get(yd, y0, m + l * M) : 0;
            double want = 1.5 * sum + beta * yin, got = ew_get(yd, y, m + l * M);
            double tol = (1.5 * mag + fabs(beta * yin)) * (K + 4) * 0x1p-23 + fabs(want) * ulp;
            /* the float32 sum within tol of want, then rounded to y's type */
            if (!(got >= rounded(yd, want - tol) && got <= rounded(yd, want + tol))) bad++;
        }
    return bad;
}

static void run_case(cute_runtime *rt, cute_gemv_lib *lib, cute_dtype d, cute_dtype yd, int64_t M,
                     int64_t K, int64_t L, double beta)
{
    cute_backend *b = cute_runtime_backend(rt);
    int sfv = d == CUTE_E2M1 ? 16 : 32;
    host_op A, x;
    make(b, &A, d, M, K, L, sfv);
    make(b, &x, d, 1, K, L, sfv);
    size_t ybytes = (size_t)(M * L) * (size_t)cute_dtype_bytes(yd);
    void *y = malloc(ybytes), *y0 = malloc(ybytes);
    for (int64_t i = 0; i < M * L; i++) ew_set(yd, y, i, beta != 0 ? ew_random(&seed) : NAN);
    memcpy(y0, y, ybytes);
    cute_buffer ybuf;
    b->vt->alloc(b->self, ybytes, &ybuf);
    b->vt->upload(b->self, &ybuf, 0, y, ybytes);
    int nd = L > 1 ? 3 : 2;
    cute_call_arg a =
        cute_call_tensor(&A.buf, 0, d, nd, (int64_t[]){M, K, L}, (int64_t[]){K, 1, M * K});
    cute_call_arg v = cute_call_tensor(&x.buf, 0, d, nd - 1, (int64_t[]){K, L}, (int64_t[]){1, K});
    cute_call_arg ya = cute_call_tensor(&ybuf, 0, yd, nd - 1, (int64_t[]){M, L}, (int64_t[]){1, M});
    cute_dtype sd = d == CUTE_E2M1 ? CUTE_UE4M3 : CUTE_UE8M0;
    cute_call_arg sa = cute_call_tensor(&A.sfbuf, sf_shift, sd, 1, (int64_t[]){A.nsf}, (int64_t[]){1});
    cute_call_arg sb = cute_call_tensor(&x.sfbuf, sf_shift, sd, 1, (int64_t[]){x.nsf}, (int64_t[]){1});
    char err[1024] = "";
    cute_status s =
        d == CUTE_E2M1
            ? cutec_gemv_nvfp4(lib, &a, &sa, &v, &sb, &ya, 1.5, beta, NULL, err, sizeof err)
            : cutec_gemv_blockscaled(lib, &a, &sa, &v, &sb, &ya, 1.5, beta, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "%s %lldx%lld L=%lld: %s", cute_dtype_name(d), (long long)M, (long long)K,
          (long long)L, err);
    b->vt->download(b->self, y, &ybuf, 0, ybytes);
    int64_t bad = s == CUTE_OK ? compare(&A, &x, d, yd, y, y0, M, K, L, sfv, beta) : -1;
    CHECK(bad == 0, "%s -> %s %lldx%lld L=%lld beta %g: %lld wrong", cute_dtype_name(d),
          cute_dtype_name(yd), (long long)M, (long long)K, (long long)L, beta, (long long)bad);
    drop(b, &A), drop(b, &x);
    b->vt->free(b->self, &ybuf);
    free(y), free(y0);
}

/* The ring when asked (the library's default is the register forms): k-tiles through shared
 * memory, stages - 1 ahead.  Four stages over five full k-tiles and a tail, a partial last
 * warp, batched; two stages over three k-tiles; three stages over two (fewer k-tiles than
 * the ring holds); a tail alone.  Scale buffers only 2-byte aligned take the register form. */
static void ring_forms(cute_runtime *rt, cute_gemv_lib *lib)
{
    cute_gemv_config last;
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 20, 1024 + 32, 1, 0.5);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(!last.smem_stages, "NVFP4's default: no ring (%d stages)", last.smem_stages);
    CHECK(cute_gemv_lib_smem_stages(lib, 4), "a ring of 4 stages");
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 37, 5 * 1024 + 96, 2, 0.5);
    int stages[] = {2, 3, 4}, tiles[] = {3, 2, 0};
    for (int i = 0; i < 3; i++) {
        CHECK(cute_gemv_lib_smem_stages(lib, stages[i]), "a ring of %d stages", stages[i]);
        run_case(rt, lib, CUTE_E2M1, CUTE_F32, 20, tiles[i] * 1024 + 32, 1 + i % 2, 0);
        cute_gemv_lib_last(lib, &last, NULL);
        CHECK(last.smem_stages == stages[i], "the library ran a ring of %d stages when asked (%d)", stages[i],
              last.smem_stages);
    }
    CHECK(!cute_gemv_lib_smem_stages(lib, 1) && !cute_gemv_lib_smem_stages(lib, CUTE_GEMV_MAX_SMEM_STAGES + 1),
          "a ring of 1 or of more than %d stages refused", CUTE_GEMV_MAX_SMEM_STAGES);
    sf_shift = 2; /* (4 stages asked) */
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 20, 4 * 1024, 1, 0);
    sf_shift = 0;
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(!last.smem_stages, "2-byte aligned scales: the register form (the ring copies groups of four)");
}

/* NVFP4's scales by their bits when asked (cute_gemv_lib_fma_decode 1), with every scale
 * code (subnormal ones, bit 7 set: the bits path masks it as the cvt path does) into f32 y:
 * one k-tile ahead over two full k-tiles and a tail, two ahead batched, each with a partial
 * last warp, a k-tile at a time (one partial k-tile); levels past the last, and other
 * dtypes, refused */
static void fma_decode_forms(cute_runtime *rt, cute_gemv_lib *lib)
{
    CHECK(!cute_gemv_lib_fma_decode(lib, CUTE_GEMV_MAX_FMA_DECODE + 1) && !cute_gemv_lib_fma_decode(lib, -2),
          "FMA decode levels: -1 to %d", CUTE_GEMV_MAX_FMA_DECODE);
    every_scale = true;
    cute_gemv_config last;
    for (int level = 1; level <= CUTE_GEMV_MAX_FMA_DECODE; level++) {
        CHECK(cute_gemv_lib_fma_decode(lib, level), "FMA decode level %d", level);
        for (int form = level < CUTE_GEMV_MAX_FMA_DECODE ? 2 : 0; form < 3; form++) { /* the last: every form */
            cute_gemv_lib_ahead(lib, form == 1 ? 2 : form == 0 ? 1 : 0);
            cute_gemv_lib_tile_at_a_time(lib, form == 2);
            run_case(rt, lib, CUTE_E2M1, CUTE_F32, form == 1 ? 5 : 9, form == 2 ? 96 : 2048 + 32,
                     form == 1 ? 2 : 1, form == 2 ? -0.5 : 0);
            cute_gemv_lib_last(lib, &last, NULL);
            CHECK(last.fma_decode == level && last.tile_at_a_time == (form == 2),
                  "form %d: NVFP4's FMA decode %d when asked (ran %d)", form, level, last.fma_decode);
        }
    }
    every_scale = false;
    cute_gemv_lib_tile_at_a_time(lib, false);
    cute_gemv_lib_ahead(lib, 0);
    cute_gemv_lib_fma_decode(lib, -1);
    cute_gemv_config no[] = {
        {.dtype = CUTE_E4M3, .a_major = 1, .vec = 16, .vectors = 1, .sf_vec = 32, .fma_decode = 1},
        {.dtype = CUTE_BF16, .a_major = 1, .vec = 8, .vectors = 1, .fma_decode = 2},
        {.dtype = CUTE_E2M1, .a_major = 1, .vec = 32, .vectors = 1, .sf_vec = 16,
         .fma_decode = CUTE_GEMV_MAX_FMA_DECODE + 1},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        char err[512] = "";
        const cute_fn *f = cute_gemv_compile(rt, &no[i], err, sizeof err);
        CHECK(!f && strstr(err, "FMA pipe"), "FMA decode refused (%zu): %s", i, err);
        cute_fn_free(f);
    }
}

/* on a runtime tracing for `arch`: sm_100a's body (cvt) or the one before it (words) */
/* NVFP4's register form two k-tiles ahead when asked (cute_gemv_lib_ahead), whatever the
 * shape (the library's own choice of it: results, below): four full k-tiles and a tail with a partial last warp (the loop unrolled by three:
 * one left over), two full and a tail batched, one full k-tile (the two ahead both load the
 * last), none (a partial k-tile only); then a k-tile at a time forced over it, and the
 * configurations it does not take refused with the reason */
static void ahead_forms(cute_runtime *rt, cute_gemv_lib *lib)
{
    CHECK(cute_gemv_lib_ahead(lib, 2) && !cute_gemv_lib_ahead(lib, CUTE_GEMV_MAX_AHEAD + 1) &&
              !cute_gemv_lib_ahead(lib, -1),
          "k-tiles ahead: 0 to %d", CUTE_GEMV_MAX_AHEAD);
    static const struct {
        int64_t M, K, L;
    } cases[] = {{177, 4096 + 64, 1}, {40, 2048 + 32, 2}, {17, 1024, 1}, {9, 96, 2}};
    cute_gemv_config last;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(rt, lib, CUTE_E2M1, CUTE_F16, cases[i].M, cases[i].K, cases[i].L, i % 2 ? 0 : -0.5);
        cute_gemv_lib_last(lib, &last, NULL);
        CHECK(last.ahead == 2 && !last.tile_at_a_time && !last.smem_stages,
              "case %zu: NVFP4's registers 2 k-tiles ahead when asked (ran %d, a k-tile at a time %d)", i, last.ahead,
              last.tile_at_a_time);
    }
    cute_gemv_lib_tile_at_a_time(lib, true);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 20, 2048, 1, 0);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(last.tile_at_a_time && last.ahead <= 1, "a k-tile at a time forced over the k-tiles ahead");
    cute_gemv_lib_tile_at_a_time(lib, false);
    cute_gemv_lib_ahead(lib, 0);
    cute_gemv_config no[] = {
        {.dtype = CUTE_E2M1, .a_major = 1, .vec = 32, .vectors = 1, .sf_vec = 16, .tile_at_a_time = true, .ahead = 2},
        {.dtype = CUTE_E2M1, .a_major = 1, .vec = 32, .vectors = 1, .sf_vec = 16, .smem_stages = 4, .ahead = 2},
        {.dtype = CUTE_E2M1, .a_major = 1, .vec = 32, .vectors = 1, .sf_vec = 16, .ahead = CUTE_GEMV_MAX_AHEAD + 1},
        {.dtype = CUTE_BF16, .a_major = 1, .vec = 8, .vectors = 1, .ahead = 2},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        char err[512] = "";
        const cute_fn *f = cute_gemv_compile(rt, &no[i], err, sizeof err);
        CHECK(!f && strstr(err, "k-tiles ahead"), "k-tiles ahead refused (%zu): %s", i, err);
        cute_fn_free(f);
    }
}

/* the scale words (cfg.scale_words, the library's k-tiles ahead): two ahead (four full k-tiles
 * and a tail, a partial last warp; batched), one ahead; a k-tile at a time keeps the 16-bit
 * pairs, and so does every form under CUTEC_GEMV_TRIAL=no-words; the wide k-tiles and the
 * trials narrow and blocks6; a value it does not know refused by name */
static void words_forms(cute_runtime *rt, cute_gemv_lib *lib)
{
    cute_gemv_config last;
    for (int no = 0; no < 2; no++) {
        if (no) setenv("CUTEC_GEMV_TRIAL", "no-words", 1);
        cute_gemv_lib_ahead(lib, 2);
        run_case(rt, lib, CUTE_E2M1, CUTE_F16, 37, 4096 + 64, 2, -0.5);
        cute_gemv_lib_last(lib, &last, NULL);
        CHECK(last.scale_words == !no && last.ahead == 2, "words %d two ahead (ran words %d, %d ahead)", !no,
              last.scale_words, last.ahead);
        cute_gemv_lib_ahead(lib, 0);
        run_case(rt, lib, CUTE_E2M1, CUTE_F32, 177, 4096 + 64, 1, 0.5);
        cute_gemv_lib_last(lib, &last, NULL);
        CHECK(last.scale_words == !no && last.ahead <= 1 && !last.tile_at_a_time,
              "words %d one ahead (ran words %d, %d ahead)", !no, last.scale_words, last.ahead);
    }
    run_case(rt, lib, CUTE_E2M1, CUTE_BF16, 161, 2048 + 64, 3, 0);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(!last.scale_words && last.tile_at_a_time, "a k-tile at a time keeps the pairs (ran words %d)",
          last.scale_words);
    /* the wide k-tiles (cfg.wide), the library's one ahead where two ahead paid: three full
     * k-tiles of 2,048 and a tail, a partial last warp, batched; two and a tail;
     * CUTEC_GEMV_TRIAL=narrow gives two ahead of 1,024 back.  A k-tile at a time runs at 7
     * blocks an SM (inside the kernel: cfg.min_blocks 0), blocks6 asks 6 */
    unsetenv("CUTEC_GEMV_TRIAL");
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 37, 3 * 2048 + 96, 2, -0.5);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(last.wide && last.scale_words && last.ahead == 1, "wide one ahead (ran wide %d, %d ahead)", last.wide,
          last.ahead);
    run_case(rt, lib, CUTE_E2M1, CUTE_F32, 21, 4096 + 32, 1, 0.5);
    setenv("CUTEC_GEMV_TRIAL", "narrow", 1);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 37, 3 * 2048 + 96, 2, 0);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(!last.wide && last.scale_words && last.ahead == 2, "narrow: two ahead (ran wide %d, %d ahead)", last.wide,
          last.ahead);
    for (int six = 0; six < 2; six++) {
        setenv("CUTEC_GEMV_TRIAL", six ? "blocks6" : "0", 1);
        run_case(rt, lib, CUTE_E2M1, CUTE_F16, 45, 2048 + 224, 2, 0.5);
        cute_gemv_lib_last(lib, &last, NULL);
        CHECK(last.tile_at_a_time && last.min_blocks == 6 * six, "a k-tile at a time asking %d blocks (ran %d)", 6 * six,
              last.min_blocks);
    }
    cute_gemv_config narrow = {.dtype = CUTE_E2M1, .a_major = 1, .vec = 32, .vectors = 1, .sf_vec = 16, .wide = true};
    char why[512] = "";
    const cute_fn *nf = cute_gemv_compile(rt, &narrow, why, sizeof why);
    CHECK(!nf && strstr(why, "wide k-tiles"), "wide without the scale words refused: %s", why);
    cute_fn_free(nf);
    cute_gemv_config many = {.dtype = CUTE_E2M1, .a_major = 1, .vec = 32, .vectors = 1, .sf_vec = 16, .min_blocks = 9};
    nf = cute_gemv_compile(rt, &many, why, sizeof why);
    CHECK(!nf && strstr(why, "resident blocks"), "9 blocks an SM refused: %s", why);
    cute_fn_free(nf);
    /* (the diagnostic, wrong by design, is not run: its value read) */
    char err[256] = "";
    setenv("CUTEC_GEMV_TRIAL", "noscales", 1);
    check_stderr_begin();
    int noscales = cute_gemv_trial(err, sizeof err);
    const char *said = check_stderr_end();
    CHECK(noscales == CUTE_GEMV_TRIAL_NOSCALES && strstr(said, "CUTEC_GEMV_TRIAL=noscales is a diagnostic"),
          "noscales read and said: %s; said %s", err, said);
    setenv("CUTEC_GEMV_TRIAL", "bogus", 1);
    CHECK(cute_gemv_trial(err, sizeof err) < 0 && strstr(err, "CUTEC_GEMV_TRIAL=bogus"), "a bad trial refused: %s", err);
    unsetenv("CUTEC_GEMV_TRIAL");
    CHECK(cute_gemv_trial(err, sizeof err) == 0, "no trial when unset");
}

static void results(const char *arch)
{
    cute_runtime *rt = check_interp();
    if (!rt) return;
    cute_runtime_set_target_arch(rt, arch);
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    uint64_t fresh = seed;
    seed = 1795696989 | 1; /* a row whose true sum overflows f16 (rounded's comment) */
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 131, 2112, 1, 0);
    seed = fresh;
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 131, 2112, 1, 0);   /* partial scale tile, tail */
    run_case(rt, lib, CUTE_E2M1, CUTE_F32, 9, 96, 3, -0.5);    /* batched, one partial k-tile */
    /* three full k-tiles (2,048 elements) and a tail, batched: with the L2 prefetch of the
     * next full k-tile (the interpreter checks its range), the last batch's last row
     * included; then without it (the default) */
    cute_gemv_lib_l2_prefetch(lib, 1);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 20, 3 * 2048 + 32, 2, 0);
    cute_gemv_config last;
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(last.l2_prefetch == 1, "the library ran NVFP4 with its L2 prefetch when asked");
    cute_gemv_lib_l2_prefetch(lib, 0);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 20, 3 * 2048 + 32, 2, 0);
    ring_forms(rt, lib);
    /* without the ring, the library loads the next k-tile (1,024 elements) into registers
     * before this one's products where K spans four k-tiles or more and the blocks (16 rows)
     * fill the SMs (2 on the interpreter) six each: four full k-tiles and a tail, a partial
     * last warp; the next two where they are four an SM or fewer; between, and a short K, a
     * k-tile at a time; then each k-tile just before its products when asked */
    cute_gemv_lib_smem_stages(lib, 0);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 177, 4096 + 64, 1, 0.5);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(!last.tile_at_a_time && !last.l2_prefetch && last.ahead <= 1,
          "NVFP4's pipelined form one k-tile ahead at K 4160, 12 blocks (ran %d ahead)", last.ahead);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 100, 4096 + 64, 1, -0.5);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(!last.tile_at_a_time && last.ahead == 1 && last.wide,
          "NVFP4 wide k-tiles one ahead where two ahead paid, at K 4160, 7 blocks (ran %d ahead, wide %d)", last.ahead,
          last.wide);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 130, 4096, 1, 0);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(last.tile_at_a_time, "NVFP4 a k-tile at a time at K 4096, 9 blocks (5 an SM)");
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 161, 1024 + 64, 1, 0.5);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(last.tile_at_a_time, "NVFP4 a k-tile at a time at K 1088");
    cute_gemv_lib_tile_at_a_time(lib, true);
    run_case(rt, lib, CUTE_E2M1, CUTE_F16, 20, 3 * 2048 + 32, 2, 0);
    cute_gemv_lib_last(lib, &last, NULL);
    CHECK(last.tile_at_a_time, "the library ran NVFP4 a k-tile at a time when asked");
    cute_gemv_lib_tile_at_a_time(lib, false);
    ahead_forms(rt, lib);
    if (!strcmp(arch, "sm_90a")) fma_decode_forms(rt, lib); /* (sm_100a decodes by cvt) */
    if (!strcmp(arch, "sm_90a")) words_forms(rt, lib);
    cute_gemv_lib_smem_stages(lib, -1);
    run_case(rt, lib, CUTE_E4M3, CUTE_BF16, 37, 544, 2, 0.25); /* MXFP8 */
    run_case(rt, lib, CUTE_E4M3, CUTE_F16, 5, 32, 1, 0);
    cute_gemv_lib_free(lib);
    cute_runtime_free(rt);
}

/* a call expected to be refused: INVALID, and `word` in the message */
static void refused(cute_gemv_lib *lib, const char *what, const cute_call_arg *A,
                    const cute_call_arg *sa, const cute_call_arg *x, const cute_call_arg *sb,
                    const cute_call_arg *y, const char *word)
{
    char err[512] = "";
    check_refused(what, cutec_gemv_nvfp4(lib, A, sa, x, sb, y, 1, 0, NULL, err, sizeof err), err, word);
}

static void validation(cute_runtime *rt)
{
    refusal_kit kit = refusal_kit_new(rt);
    cute_buffer buf = kit.buf;
    cute_gemv_lib *lib = kit.lib;
    int64_t M = 4, K = 64, nsa = cute_gemv_sf_count(M, K, 1, 16),
            nsb = cute_gemv_sf_count(1, K, 1, 16);
    cute_call_arg A = cute_call_tensor(&buf, 0, CUTE_E2M1, 2, (int64_t[]){M, K}, (int64_t[]){K, 1});
    cute_call_arg x = cute_call_tensor(&buf, 4096, CUTE_E2M1, 1, (int64_t[]){K}, (int64_t[]){1});
    cute_call_arg sa =
        cute_call_tensor(&buf, 8192, CUTE_UE4M3, 1, (int64_t[]){nsa}, (int64_t[]){1});
    cute_call_arg sb =
        cute_call_tensor(&buf, 16384, CUTE_UE4M3, 1, (int64_t[]){nsb}, (int64_t[]){1});
    cute_call_arg y = cute_call_tensor(&buf, 24576, CUTE_F16, 1, (int64_t[]){M}, (int64_t[]){1});
    cute_call_arg t;
    t = A, t.dtype = CUTE_F16;
    refused(lib, "f16 A", &t, &sa, &x, &sb, &y, "NVFP4 is e2m1");
    t = sa, t.shape[0] = nsa - 1;
    refused(lib, "short SFA", &A, &t, &x, &sb, &y, "SFA holds");
    t = sb, t.dtype = CUTE_UE8M0;
    refused(lib, "ue8m0 SFB", &A, &sa, &x, &t, &y, "scales of this format are ue4m3");
    t = A, t.shape[1] = 48;
    cute_call_arg x48 = x;
    x48.shape[0] = 48;
    refused(lib, "K = 48", &t, &sa, &x48, &sb, &y, "multiple of 32");
    t = A, t.offset = 8;
    refused(lib, "A 8 bytes off", &t, &sa, &x, &sb, &y, "16-byte aligned");
    t = sa, t.offset += 1, t.shape[0] -= 1;
    refused(lib, "SFA 1 byte off", &A, &t, &x, &sb, &y, "2-byte aligned");
    t = y, t.shape[0] = 5;
    refused(lib, "y of 5 rows", &A, &sa, &x, &sb, &t, "M mismatch");
    refusal_kit_free(&kit);
}

/* the NVFP4 kernel's PTX for `arch`, traced for that target (NULL: no NVRTC): with the L2
 * prefetch (each k-tile loaded just before its products), or the default (pipelined) */
static char *nvfp4_ptx(const char *arch, bool prefetch)
{
    char err[2048] = "", *ptx = NULL;
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return NULL;
    cute_runtime_set_target_arch(rt, arch);
    cute_gemv_config cfg = {.dtype = CUTE_E2M1,
                            .y_dtype = CUTE_F16,
                            .a_major = 1,
                            .vec = 32,
                            .vectors = 1,
                            .sf_vec = 16,
                            .l2_prefetch = prefetch};
    const cute_fn *f = cute_gemv_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "the NVFP4 kernel compiles for %s: %s", arch, err);
    cute_status s = f ? cute_fn_code(f, "ptx", arch, &ptx, err, sizeof err) : CUTE_ERR_INVALID;
    if (s == CUTE_ERR_NO_NVRTC)
        SKIP("NVRTC not found: no PTX of the NVFP4 kernel");
    else
        CHECK(s == CUTE_OK, "the NVFP4 kernel's PTX for %s: %s", arch, err);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return ptx;
}

/* Both move A and x in 128-bit loads of words (a k-tile's ten: two vectors of four rows and
 * two of x).  sm_100a decodes with PTX's cvt.rn.f16x2.e2m1x2, one a byte (a k-tile's 40
 * words of A and x, four cvt each, in each of the four walks' bodies) into f16 pairs whose
 * products add in paired f16 instructions (4 rows x 2 vectors x 2 scale blocks x 8 pairs a
 * body) on the decode's words themselves (no prmt re-packs their halves).  sm_90a has no
 * fp4 cvt: each word becomes bytes by four table lookups (prmt: a k-tile's 40 words, and
 * one that puts the table's low word in a register) and A's bytes meet x's in dp4a (A's 32
 * words, four each), no f16 arithmetic.  The other loads are the scale pairs (16 bits
 * each) and y. */
static void machine_code(void)
{
    char *ptx = nvfp4_ptx("sm_100a", true);
    if (ptx) {
        CHECK(check_count(ptx, "cvt.rn.f16x2.e2m1x2") == 4 * 40 * 4, "sm_100a: %d fp4 cvt",
              check_count(ptx, "cvt.rn.f16x2.e2m1x2"));
        CHECK(check_count(ptx, "fma.rn.f16x2") == 4 * 128 && check_count(ptx, "prmt") == 0,
              "sm_100a: %d paired f16 fma, %d prmt", check_count(ptx, "fma.rn.f16x2"),
              check_count(ptx, "prmt"));
    }
    free(ptx);
    ptx = nvfp4_ptx("sm_90a", true);
    if (ptx) {
        /* (the body with the prefetch's asm loses the read-only path: plain v4 loads there) */
        int v4 = check_count(ptx, "ld.global.nc.v4.u32") + check_count(ptx, "ld.global.v4.u32");
        int all = check_count(ptx, "ld.global");
        int pairs = check_count(ptx, "ld.global.nc.u16"), y = check_count(ptx, "ld.global.b16");
        CHECK(!strstr(ptx, "e2m1x2") && v4 >= 20 && pairs >= 20 && all == v4 + pairs + y,
              "sm_90a: no fp4 cvt, %d loads: %d of 128 bits, %d scale pairs, %d of y", all, v4,
              pairs, y);
        /* the next k-tile asked of L2 once, in the unpredicated body */
        CHECK(check_count(ptx, "prefetch.global.L2") == 1, "sm_90a: %d L2 prefetches",
              check_count(ptx, "prefetch.global.L2"));
        CHECK(check_count(ptx, "prmt.b32") == 4 * 40 * 4 + 1 && check_count(ptx, "dp4a.s32.s32") == 4 * 32 * 4 &&
                  check_count(ptx, "fma.rn.f16x2") == 0,
              "sm_90a: %d prmt, %d dp4a, %d paired f16 fma", check_count(ptx, "prmt.b32"),
              check_count(ptx, "dp4a.s32.s32"), check_count(ptx, "fma.rn.f16x2"));
    }
    free(ptx);
}

/* The default form loads a k-tile (one vector of four rows and one of x: five 128-bit loads,
 * five scale pairs) ahead of its products: the first before the loop, the next one's in it
 * (the predicated tiles load theirs just before their products),
 * as weak loads (no __restrict__: ld.global, not .nc) followed by a warp sync, which keeps
 * ptxas from sinking them below the products.  Four bodies of products (the loop, the
 * in-bounds warp's tail, the partial warp's loop and tail), each of 20 words. */
static void pipelined_code(void)
{
    char *ptx = nvfp4_ptx("sm_90a", false);
    if (!ptx) return;
    CHECK(check_count(ptx, "bar.warp.sync") == 1 && !strstr(ptx, "ld.global.nc"),
          "sm_90a pipelined: %d warp syncs, %d read-only loads", check_count(ptx, "bar.warp.sync"),
          check_count(ptx, "ld.global.nc"));
    CHECK(check_count(ptx, "ld.global.v4.u32") >= 4 * 5 && check_count(ptx, "ld.global.u16") == 5 * 5,
          "sm_90a pipelined: %d loads of 128 bits, %d scale pairs (five a k-tile's load, at the loop's "
          "head, in it, the tail, the partial warp's loop and tail)",
          check_count(ptx, "ld.global.v4.u32"), check_count(ptx, "ld.global.u16"));
    CHECK(check_count(ptx, "prmt.b32") == 4 * 20 * 4 + 1 && check_count(ptx, "dp4a.s32.s32") == 4 * 16 * 4,
          "sm_90a pipelined: %d prmt, %d dp4a", check_count(ptx, "prmt.b32"), check_count(ptx, "dp4a.s32.s32"));
    free(ptx);
}

int main(void)
{
    seed = check_seed("blockscaled_test");
    cute_runtime *rt = check_interp();
    if (!rt) return CHECK_DONE("blockscaled_test");
    results("sm_90a");
    results("sm_100a");
    validation(rt);
    machine_code();
    pipelined_code();
    cute_runtime_free(rt);
    return CHECK_DONE("blockscaled_test");
}
