/* Attention forward (cutec_attention_fwd), the SM80 kernel and the Hopper one, against the
 * float64 reference: on the interpreter at small odd sizes (partial Q and K tiles, causal
 * and not, grouped-query, Q and O in SDPA's transposed (B,H,S,D) memory, head dims 64, 128
 * and 256, f16 and bf16), every row of O and the LSE, the outputs poisoned first; on a GPU,
 * where there is one, at moderate sizes (the Hopper kernel on sm_90 only).  Beside them: the
 * layout fact the kernels stand on (P's accumulator fragment is the A fragment of P V), the
 * misuses the library refuses, and the kernels' register reports for sm_80 and sm_90a,
 * where NVRTC is installed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/attention.h"
#include "cutec/cuda_driver.h"
#include "cutec/numeric.h"
#include "cutec/nvrtc.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/attention/attention_testbuf.h"

static uint64_t seed;

typedef struct attn_case {
    int64_t B, Sq, Sk, H, G, D;
    bool causal, sdpa; /* sdpa: Q and O live as (B,H,S,D), seen through (B,S,H,D) strides */
    cute_dtype d;
    double scale;      /* 0: 1/sqrt(D) */
} attn_case;

typedef struct run_result {
    int64_t bad_o, bad_lse, rows;
    double worst;
} run_result;

static void check_rows(const attn_case *k, const attn_ref_problem *p, const buf *o, const buf *lse,
                       const int64_t so[4], int64_t stride_rows, run_result *r)
{
    double *want = malloc((size_t)k->D * 2 * sizeof(double)), *mag = want + k->D;
    int64_t total = k->B * k->Sq * k->H;
    for (int64_t e = 0; e < total; e += stride_rows, r->rows++) {
        int64_t b = e / (k->Sq * k->H), i = e / k->H % k->Sq, h = e % k->H;
        double l;
        attn_ref_row(p, b, i, h, want, mag, &l);
        for (int64_t d = 0; d < k->D; d++) {
            double got = ew_get(k->d, o->host, b * so[0] + i * so[1] + h * so[2] + d);
            double err = fabs(got - want[d]);
            if (!attn_ref_close(got, want[d], mag[d], k->d == CUTE_BF16)) r->bad_o++;
            if (!(err <= r->worst)) r->worst = err;
        }
        double got_l = ((const float *)lse->host)[(b * k->H + h) * k->Sq + i];
        if (!(fabs(got_l - l) <= 1e-4 * (1 + fabs(l)))) r->bad_lse++;
    }
    free(want);
}

/* the configuration without the LSE (another kernel) writes the same O, bit for bit */
static void same_without_lse(cute_attention_lib *lib, cute_backend *b, const attn_case *k, const cute_call_arg *q,
                             const cute_call_arg *kk, const cute_call_arg *v, const buf *o, const char *what)
{
    char err[1024];
    buf o2;
    make(b, &o2, k->d, o->n, true, &seed);
    cute_call_arg ao = *q;
    ao.buf = &o2.dev;
    cute_status s = cutec_attention_fwd(lib, q, kk, v, &ao, NULL, k->scale, k->causal, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    size_t bytes = o->n * (size_t)cute_dtype_bytes(k->d);
    if (s == CUTE_OK) b->vt->download(b->self, o2.host, &o2.dev, 0, bytes);
    CHECK(s == CUTE_OK && !memcmp(o2.host, o->host, bytes), "%s without the LSE: %s", what,
          s == CUTE_OK ? "another O" : err);
    drop(b, &o2);
}

/* the kernel run_case asks the library for (AUTO: the target's), and whether the Hopper
 * forward runs a block a tile (session 27's grid) instead of its persistent grid */
static cute_attention_variant wanted;
static bool one_tile;
static int block_n; /* the library's key tile (the SM80 kernel's softmax step: 32 or 64); 0: its choice */
static int block_m; /* the Hopper forward's query rows a tile (0: its choice) */
static int kv_stages; /* the SM80 kernel's K and V stages (0: one) */

static void run_case(cute_attention_lib *lib, cute_backend *b, const void *one, const char *backend)
{
    const attn_case *k = one;
    char what[200], err[2048];
    if (!attn_test_hopper_here(b, wanted, "the Hopper attention")) return;
    cute_attention_lib_set_kernel(lib, wanted, block_n);
    cute_attention_lib_set_kv_stages(lib, kv_stages);
    cute_attention_lib_set_block_m(lib, block_m, one_tile ? CUTE_ATTENTION_GRID_TILES : CUTE_ATTENTION_GRID_PERSISTENT);
    snprintf(what, sizeof what, "%s%s%s%s%s %s B%lld Sq%lld Sk%lld H%lld G%lld D%lld%s%s", backend,
             wanted == CUTE_ATTENTION_HOPPER ? " hopper" : wanted == CUTE_ATTENTION_SM80 ? " sm80" : "",
             one_tile ? " (a block a tile)" : "", block_n == 32 ? " (32-key steps)" : "",
             kv_stages == 2 ? " (K, V in 2 stages)" : "",
             cute_dtype_name(k->d), (long long)k->B, (long long)k->Sq, (long long)k->Sk, (long long)k->H,
             (long long)k->G, (long long)k->D, k->causal ? " causal" : "", k->sdpa ? " sdpa-layout" : "");
    attn_fwd_call c;
    cute_status s = attn_fwd_test_call(lib, b, k->B, k->Sq, k->Sk, k->H, k->G, k->D, k->causal, k->sdpa, k->d,
                                       k->scale, &seed, &c, err, sizeof err);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    if (s == CUTE_OK) {
        run_result r = {0};
        int64_t total = k->B * k->Sq * k->H;
        check_rows(k, &c.p, &c.o, &c.lse, c.sq, total > 4096 ? total / 4096 + 1 : 1, &r);
        printf("  %s: %lld rows checked, worst |O - O_ref| %.3g\n", what, (long long)r.rows, r.worst);
        CHECK(r.bad_o == 0 && r.bad_lse == 0, "%s: %lld wrong O elements, %lld wrong LSE of %lld rows (worst %g)",
              what, (long long)r.bad_o, (long long)r.bad_lse, (long long)r.rows, r.worst);
    }
    if (s == CUTE_OK && k->B == 1) same_without_lse(lib, b, k, &c.aq, &c.ak, &c.av, &c.o, what);
    attn_fwd_call_drop(b, &c);
}

/* The fact P V stands on: for every thread, A value i of the (bm, bn) tile of P (M x K) is
 * the element its C fragment of S holds at attn_c_as_a(i), by the TiledMMA's own layouts
 * (Hopper: S's C fragment is wgmma SS's, P's A fragment wgmma RS's). */
static void p_is_the_a_fragment(cute_dtype d, int D, bool hopper)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    attn_plan p;
    cute_attention_config cfg = {.dtype = d, .head_dim = D, .causal = false, .lse = true};
    CHECK(hopper ? attn_plan_hopper(&a, &cfg, 0, &p) : attn_plan_make(&a, &cfg, &p), "plan: %s", a.error);
    const cute_tiled_mma *pv = hopper ? &p.pv : &p.mma;
    cute_layout tile = cute_layout_fmt(&a, "(%lld,%lld):(1,%lld)", (long long)p.bm, (long long)p.bn, (long long)p.bm);
    int64_t bad = 0, n = 0;
    for (int t = 0; t < cute_tiled_mma_threads(&p.mma) && !a.failed; t++) {
        cute_tuple oc, oa;
        cute_layout C = cute_tiled_mma_partition(&a, &p.mma, CUTE_MMA_C, cute_i(t), &tile, &oc);
        cute_layout A = cute_tiled_mma_partition(&a, pv, CUTE_MMA_A, cute_i(t), &tile, &oa);
        cute_layout to_c = attn_c_as_a(&a, &C);
        int64_t size = cute_size(&a, &A).v;
        CHECK(size == cute_size(&a, &to_c).v && size == cute_size(&a, &C).v, "thread %d: sizes differ", t);
        for (int64_t i = 0; i < size && !a.failed; i++, n++) {
            int64_t at_a = cute_layout_eval(&a, &A, cute_i(i)).v + oa.leaf[0].v;
            int64_t j = cute_layout_eval(&a, &to_c, cute_i(i)).v;
            bad += at_a != cute_layout_eval(&a, &C, cute_i(j)).v + oc.leaf[0].v;
        }
    }
    CHECK(!a.failed && bad == 0 && n == p.bm * p.bn, "%s D%d%s: %lld of %lld A values are not where the C "
          "fragment holds them (%s)", cute_dtype_name(d), D, hopper ? " hopper" : "", (long long)bad, (long long)n,
          a.error);
}

/* calls the library refuses, each with the message that names the problem */
static void misuse(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    cute_buffer none = {0};
    int64_t st[4] = {2 * 4 * 64, 4 * 64, 64, 1}, sq[4] = {2 * 4 * 128, 4 * 128, 128, 1};
    cute_call_arg q = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, st);
    cute_call_arg k = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 3, 64}, st);
    cute_call_arg q32 = cute_call_tensor(&none, 0, CUTE_F32, 4, (int64_t[]){1, 2, 4, 64}, st);
    cute_call_arg q96 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 80}, sq);
    cute_call_arg qt = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, (int64_t[]){512, 256, 1, 4});
    cute_call_arg lse = cute_call_tensor(&none, 0, CUTE_F32, 3, (int64_t[]){1, 2, 4}, (int64_t[]){8, 4, 1});
    static const struct {
        int which;
        const char *says;
    } cases[] = {
        {0, "3 key/value heads do not divide 4 query heads"}, {1, "Q is f32 (f16 or bf16)"},
        {2, "head dim 80 (a multiple of 32 from 32 to 256)"}, {3, "head dim has stride 4"},
        {4, "lse is (1, 2, 4), not (B, H, Sq) = (1, 4, 2)"}, {5, "softmax scale -1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = cases[i].which;
        const cute_call_arg *Q = w == 1 ? &q32 : w == 2 ? &q96 : w == 3 ? &qt : &q;
        const cute_call_arg *K = w == 0 ? &k : Q;
        cute_status s = cutec_attention_fwd(lib, Q, K, K, Q, w == 4 ? &lse : NULL, w == 5 ? -1 : 0, false,
                                            NULL, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && strstr(err, cases[i].says), "case %d: %s (want \"%s\")", w, err,
              cases[i].says);
    }
    cute_attention_lib_free(lib);
    /* key and query tiles the kernels do not take; windows the Hopper kernel does not take */
    cute_attention_config bad[6] = {
        {.dtype = CUTE_BF16, .head_dim = 128, .variant = CUTE_ATTENTION_HOPPER, .block_n = 100},
        {.dtype = CUTE_BF16, .head_dim = 64, .variant = CUTE_ATTENTION_SM80, .block_n = 128},
        {.dtype = CUTE_BF16, .head_dim = 64, .variant = CUTE_ATTENTION_HOPPER, .window = true},
        {.dtype = CUTE_BF16, .head_dim = 256, .variant = CUTE_ATTENTION_HOPPER, .block_m = 192},
        {.dtype = CUTE_BF16, .head_dim = 64, .variant = CUTE_ATTENTION_HOPPER, .block_m = 64},
        {.dtype = CUTE_BF16, .head_dim = 64, .variant = CUTE_ATTENTION_SM80, .block_m = 128}};
    const char *says[6] = {"100 keys a tile at head dim 128 (a multiple of 16", "key tiles are 64 keys, in softmax steps of 64 or 32 (block_n 128)",
                           "hopper: sliding windows are not taken yet", "192 query rows a tile at head dim 256",
                           "64 query rows a tile at head dim 64 (128, or 192", "query tiles are its own (block_m 128"};
    for (int i = 0; i < 6; i++) {
        const cute_fn *f = cute_attention_compile(rt, &bad[i], err, sizeof err);
        CHECK(!f && strstr(err, says[i]), "case %d: %s (want \"%s\")", i, f ? "compiled" : err, says[i]);
        cute_fn_free(f);
    }
    /* the compiled function itself (no library in between) refuses a V whose strides are not
     * K's: its kernels address V with K's offsets (the spec's strides_of) */
    cute_attention_config plain = {.dtype = CUTE_BF16, .head_dim = 64, .variant = CUTE_ATTENTION_SM80};
    const cute_fn *f = cute_attention_compile(rt, &plain, err, sizeof err);
    CHECK(f != NULL, "compile: %s", err);
    cute_buffer big = {(void *)(uintptr_t)0x100000, (size_t)1 << 20, 0, 0};
    cute_call_arg qb = cute_call_tensor(&big, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, st);
    cute_call_arg vb = cute_call_tensor(&big, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, (int64_t[]){1024, 512, 64, 1});
    cute_call_arg args[5] = {qb, qb, vb, qb, cute_call_float(0.125)};
    cute_status s = f ? cute_call(f, NULL, 5, args, err, sizeof err) : CUTE_ERR_INVALID;
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "argument 2: stride 1 is 512, argument 1's 256"),
          "V with other strides than K's: %s", s ? err : "accepted");
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* the number before `what` in a ptxas report (-1: none) */
static long number_before(const char *text, const char *what)
{
    const char *p = strstr(text, what);
    if (!p) return -1;
    while (p > text && p[-1] == ' ') p--;
    while (p > text && p[-1] >= '0' && p[-1] <= '9') p--;
    return strtol(p, NULL, 10);
}

/* one kernel's ptxas report: its registers, and its spills held to max_spill bytes; false
 * where NVRTC is not installed */
static bool report(const cute_attention_config *cfg, const char *arch, long max_spill)
{
    char *text;
    if (!attn_test_usage(cute_attention_compile, cfg, arch, &text)) return false;
    const char *kind = cfg->variant == CUTE_ATTENTION_HOPPER ? " hopper" : "";
    long regs = strstr(text, "Used ") ? strtol(strstr(text, "Used ") + 5, NULL, 10) : -1;
    long spill = number_before(text, "bytes spill stores");
    printf("  %s d%d %s%s%s: %ld registers, %ld bytes spilled\n", cute_dtype_name(cfg->dtype), cfg->head_dim, arch,
           cfg->causal ? " causal" : "", kind, regs, spill);
    CHECK(regs > 0 && spill >= 0 && spill <= max_spill, "d%d %s%s: %ld registers, %ld bytes spilled:\n%s",
          cfg->head_dim, arch, kind, regs, spill, text);
    /* ptxas serializes wgmmas whose registers it cannot keep in place (a performance warning) */
    CHECK(!strstr(text, "serialized"), "d%d %s%s: ptxas serialized the wgmmas:\n%s", cfg->head_dim, arch, kind, text);
    free(text);
    return true;
}

/* Compile-only: NVRTC's ptxas report of the SM80 kernel for sm_80 and sm_90a (head dim 128
 * causal and not on both, 64 on sm_80, 256 on sm_90a; f16 and bf16), and of the Hopper kernel
 * (every head dim, causal and not).  SM80: no head dim spills (head dim 128 keeps O's 128
 * and S's 64 accumulators a thread at 255 registers; it spilled 8-52 bytes while each thread
 * copied a run of D/4 elements a row, whose swizzled pieces took four shared address
 * registers where the pieces 64 bytes apart take two: plan.c's make_g2s).  Hopper:
 * no spills (ptxas reports the launch's 168 registers, setmaxnreg gives the consumers 240;
 * at d64 non-causal, three consumer warpgroups: 128 at launch, 160; at d256 non-causal the persistent
 * grid's one word, stored before the loop over tiles and loaded once a tile, at most 8
 * bytes), and no wgmma serialized. */
static void register_reports(void)
{
    /* d64 causal sm_80, d128 causal and not on both, d256 sm_90a (d128's lazy rescale spilled
     * 8-12 bytes in one form or another as its compare changed: softmax.c) */
    static const struct { int d; bool causal, sm90; } sm80[] = {
        {64, true, false}, {128, false, false}, {128, true, false}, {128, false, true}, {128, true, true}, {256, false, true},
    };
    for (int i = 0; i < 6; i++) {
        cute_attention_config cfg = {.dtype = i & 1 ? CUTE_F16 : CUTE_BF16, .head_dim = sm80[i].d,
                                     .causal = sm80[i].causal, .lse = true, .variant = CUTE_ATTENTION_SM80};
        if (!report(&cfg, sm80[i].sm90 ? "sm_90a" : "sm_80", 0)) return;
    }
    for (int i = 0; i < 6; i++) { /* the Hopper kernel: d64, d128, d256, each causal and not */
        cute_attention_config cfg = {.dtype = i & 1 ? CUTE_F16 : CUTE_BF16, .head_dim = 64 << (i / 2),
                                     .causal = (i & 1) != 0, .lse = true, .variant = CUTE_ATTENTION_HOPPER};
        report(&cfg, "sm_90a", cfg.head_dim == 256 && !cfg.causal ? 8 : 0);
    }
}

/* attn_band_hi_masked (band.c; the split key-tile loop's boundary) against the elements:
 * key tile n of Q tile m needs the mask for Sk or the band's hi exactly where n is at or
 * past it, for every tile the band reaches, over tile sizes, Sk, hi (causal's 0, windows'
 * right sizes) and Q tiles */
static void hi_masked_exact(void)
{
    cute_ctx *c = cute_ctx_new();
    static const int64_t tiles[][2] = {{128, 128}, {128, 64}, {192, 128}, {128, 160}, {64, 64}};
    /* -1: no band (Sk alone); hi + 1 a multiple of some bn, or one off it */
    static const int64_t his[] = {-1, 0, 1, 62, 63, 64, 127, 128, 159, 200};
    int bad = 0, seen = 0;
    for (int t = 0; t < 5; t++)
        for (int64_t sk = 1; sk <= 700; sk += 61)
            for (int k = 0; k < 10; k++)
                for (int64_t m = 0; m < 4; m++) {
                    int64_t bm = tiles[t][0], bn = tiles[t][1], hi = his[k];
                    attn_band band = {.has_hi = hi >= 0, .hi = hi < 0 ? 0 : hi};
                    cute_int f = attn_band_hi_masked(c, band, bm, bn, cute_i(sk), cute_i(m));
                    if (!cute_is_static(f)) { bad++; continue; }
                    for (int64_t n = 0; n * bn < sk; n++, seen++) {
                        bool need = false; /* some element past Sk, or past its row's band */
                        for (int64_t r = m * bm; r < (m + 1) * bm && !need; r++)
                            for (int64_t col = n * bn; col < (n + 1) * bn && !need; col++)
                                need = col >= sk || (band.has_hi && col - r > band.hi);
                        if (need != (n >= f.v)) bad++;
                    }
                }
    CHECK(bad == 0, "attn_band_hi_masked: %d of %d tiles on the wrong side", bad, seen);
    cute_ctx_free(c);
}

/* Compile-only (CUDA C, no NVRTC): the Hopper forward's P V batch is one wgmma chain with
 * no fence inside (attn_test_split_chains), at every head dim, causal and not */
static void unsplit_chains(void)
{
    for (int i = 0; i < 6; i++) {
        cute_attention_config cfg = {.dtype = i & 1 ? CUTE_F16 : CUTE_BF16, .head_dim = 64 << (i / 2),
                                     .causal = (i & 1) != 0, .lse = true, .variant = CUTE_ATTENTION_HOPPER};
        int split = attn_test_split_chains(cute_attention_compile, &cfg);
        CHECK(split == 0, "hopper d%d%s: %d wgmmas fenced inside their batch", cfg.head_dim,
              cfg.causal ? " causal" : "", split);
    }
}

int main(void)
{
    seed = check_seed("attention_test");
    hi_masked_exact();
    static const attn_case small[] = {
        {1, 37, 37, 2, 2, 64, false, false, CUTE_BF16, 0},
        {1, 70, 70, 2, 1, 64, true, true, CUTE_F16, 0},
        {2, 37, 70, 4, 2, 64, false, true, CUTE_BF16, 0.2},
        {1, 150, 150, 1, 1, 64, true, false, CUTE_BF16, 0},
        {1, 70, 37, 2, 2, 128, true, false, CUTE_F16, 0},
        {1, 130, 130, 2, 1, 128, false, true, CUTE_BF16, 0},
        {1, 70, 70, 2, 1, 256, true, false, CUTE_BF16, 0},
        {1, 45, 70, 2, 1, 160, false, false, CUTE_BF16, 0},
    };
    /* the Hopper kernel: several key tiles (128 keys; 176 at d128 non-causal), partial ones;
     * at d64 non-causal 192-row Q tiles (three consumer warpgroups: their turns in a ring); its
     * persistent grid of 3 blocks on the interpreter walking 1 to 3 tiles (Q tile, head,
     * batch) each, the pipelines' phases and the ring's turns going on across them */
    static const attn_case hopper_small[] = {
        {1, 200, 200, 2, 2, 64, false, false, CUTE_BF16, 0},
        {1, 200, 131, 4, 2, 64, true, true, CUTE_F16, 0},
        {1, 200, 200, 2, 1, 128, true, false, CUTE_BF16, 0.2},
        {2, 70, 400, 1, 1, 128, false, true, CUTE_F16, 0},
        {1, 150, 150, 1, 1, 256, true, false, CUTE_BF16, 0},
        /* d256 non-causal: the one key-tile loop and the warpgroup index uniform (its
         * defaults), Sk's partial second tile masked */
        {1, 40, 100, 1, 1, 256, false, false, CUTE_BF16, 0},
        /* head dims 96, 160 and 224 (64-byte swizzled rows: 3, 5 and 7 32-column TMA boxes a
         * row) and 192 */
        {1, 257, 300, 4, 2, 96, true, false, CUTE_BF16, 0},
        {1, 130, 200, 2, 1, 192, false, true, CUTE_F16, 0},
        {1, 200, 150, 2, 1, 160, true, true, CUTE_F16, 0},
        {1, 100, 290, 2, 2, 224, false, false, CUTE_BF16, 0},
    };
    for (int hopper = 0; hopper < 2; hopper++) {
        p_is_the_a_fragment(CUTE_BF16, 128, hopper);
        p_is_the_a_fragment(CUTE_F16, 64, hopper);
    }
    p_is_the_a_fragment(CUTE_BF16, 256, true);
    misuse();
    wanted = CUTE_ATTENTION_SM80;
    ATTN_TEST_ON("interp", "attention", small);
    /* large scores, the lazy rescale (the default) taken after the first key tile: at scales
     * 4 and 40 a row's max grows by more than 8 in log2 units from tile to tile (several
     * tiles, a partial one, causal; at 40 by more than 128: exp2 overflows where the move is
     * skipped, and O is wrong at both where O is not rescaled with l); the Hopper kernel's
     * below (every tile's rescale) */
    static const attn_case rescaled[] = {
        {1, 70, 300, 2, 1, 64, false, false, CUTE_BF16, 40},
        {1, 130, 200, 1, 1, 128, true, false, CUTE_F16, 4},
    };
    ATTN_TEST_ON("interp", "attention (large scores)", rescaled);
    /* the SM80 kernel in two 32-key softmax steps a 64-key tile: partial tiles (a step past
     * Sk, a step half inside it), causal, every head dim */
    static const attn_case steps32[] = {
        {1, 70, 37, 2, 2, 64, true, true, CUTE_BF16, 0},
        {1, 130, 100, 2, 1, 128, false, true, CUTE_F16, 0},
        {1, 70, 70, 2, 1, 128, true, false, CUTE_BF16, 0.2},
        {1, 70, 90, 1, 1, 256, false, false, CUTE_BF16, 0},
    };
    block_n = 32;
    ATTN_TEST_ON("interp", "attention", steps32);
    /* and with K and V in two stages each, a tile ahead (several tiles, partial ones, a
     * causal band: the stage of every tile, the zero-filled one past the last) */
    static const attn_case staged[] = {
        {1, 70, 200, 2, 2, 64, false, true, CUTE_BF16, 0},
        {1, 200, 200, 2, 1, 128, true, false, CUTE_F16, 0},
        {1, 70, 150, 1, 1, 256, false, false, CUTE_BF16, 0},
    };
    kv_stages = 2;
    ATTN_TEST_ON("interp", "attention", staged);
    block_n = 0;
    ATTN_TEST_ON("interp", "attention", staged);
    kv_stages = 0;
    wanted = CUTE_ATTENTION_HOPPER;
    ATTN_TEST_ON("interp", "attention", hopper_small);
    static const attn_case hopper_tiles[] = {
        {1, 200, 131, 4, 2, 64, true, true, CUTE_F16, 0},
        {2, 70, 400, 1, 1, 128, false, true, CUTE_F16, 0},
    };
    one_tile = true;
    ATTN_TEST_ON("interp", "attention", hopper_tiles);
    one_tile = false;
    /* the large scores' maxima move by more than 8 in log2 units after the first key tile
     * (d64 on the persistent grid, d128 causal) */
    ATTN_TEST_ON("interp", "attention (large scores)", rescaled);
    /* the persistent grid's Q in two stages where they fit (the default: d64, d128 causal,
     * here d128 with 160-key tiles; hopper_small's run so), in one with
     * CUTEC_ATTN_FWD_QSTAGES=1;
     * causal tiles in the snake order (the default: 10 tiles on 3 blocks, the partial last
     * round an odd one, the last block's), or across every head with
     * CUTEC_ATTN_FWD_ORDER=across */
    static const attn_case q_staged160[] = {{1, 200, 400, 2, 2, 128, false, true, CUTE_BF16, 0}};
    static const attn_case snake[] = {{1, 200, 200, 5, 5, 64, true, false, CUTE_BF16, 0}};
    block_n = 160;
    ATTN_TEST_ON("interp", "attention (two Q stages, 160-key tiles)", q_staged160);
    block_n = 0;
    ATTN_TEST_ON("interp", "attention (the snake order)", snake);
    setenv("CUTEC_ATTN_FWD_QSTAGES", "1", 1);
    setenv("CUTEC_ATTN_FWD_ORDER", "across", 1);
    ATTN_TEST_ON("interp", "attention (one Q stage, the order across heads)", snake);
    unsetenv("CUTEC_ATTN_FWD_ORDER");
    unsetenv("CUTEC_ATTN_FWD_QSTAGES");
    /* the key-tile loop split (the default): causal's unmasked tiles between the first and
     * the diagonal (400 rows: Q tile 3 walks tiles 1 and 2 unmasked, 3 masked), Sk below Sq
     * (Sk's partial tile the diagonal's) and above it, GQA, and not causal (Sk's partial last
     * tile alone masked); persistent grid and a block a tile; the same cases in one loop
     * (CUTEC_ATTN_FWD_SPLIT=0), with the epilogue's approximate 1 / l and log2 l everywhere
     * (CUTEC_ATTN_FWD_FINISH=fast; the default not causal) and IEEE everywhere (=ieee) */
    static const attn_case split[] = {
        {1, 400, 400, 1, 1, 64, true, false, CUTE_BF16, 0}, /* (one head: two until session 40) */
        {1, 200, 131, 4, 2, 64, true, true, CUTE_F16, 0},
        {1, 131, 300, 2, 2, 128, true, false, CUTE_BF16, 0.2},
        {1, 70, 300, 2, 1, 128, false, true, CUTE_F16, 0},
    };
    ATTN_TEST_ON("interp", "attention (the key-tile loop split)", split);
    one_tile = true;
    ATTN_TEST_ON("interp", "attention (the key-tile loop split, a block a tile)", split);
    one_tile = false;
    setenv("CUTEC_ATTN_FWD_SPLIT", "0", 1);
    ATTN_TEST_ON("interp", "attention (one key-tile loop)", split);
    unsetenv("CUTEC_ATTN_FWD_SPLIT");
    setenv("CUTEC_ATTN_FWD_FINISH", "fast", 1);
    ATTN_TEST_ON("interp", "attention (the approximate 1 / l and log2 l)", split);
    setenv("CUTEC_ATTN_FWD_FINISH", "ieee", 1);
    ATTN_TEST_ON("interp", "attention (IEEE 1 / l and log2 l)", split);
    unsetenv("CUTEC_ATTN_FWD_FINISH");
    /* the tiles joined on the persistent grid (CUTEC_ATTN_FWD_JOIN=1: a tile's last P V and
     * the next tile's S(0) in one turn, its epilogue beside the next one's first softmax):
     * blocks of 3 walking 2 to 4 tiles each, so that every tile but a block's first starts in
     * a join and the row statistics and O go back to zero between them; 160-key tiles and GQA
     * with two Q stages, d64's 192-row tiles (three warpgroups in the ring), causal in the
     * snake order with Sq < Sk and with one Q stage, the large scores (a row max left from the
     * tile before would show there), f16 and bf16 */
    static const attn_case joined[] = {
        {1, 170, 400, 4, 2, 128, false, true, CUTE_BF16, 0}, /* (8 tiles, 3 to a block: 300 rows until session 40) */
        {2, 250, 170, 3, 1, 64, false, true, CUTE_F16, 0},
        {1, 131, 300, 4, 2, 128, true, false, CUTE_BF16, 0.2},
        {1, 200, 200, 5, 5, 64, true, true, CUTE_BF16, 0},
    };
    setenv("CUTEC_ATTN_FWD_JOIN", "1", 1);
    block_n = 160;
    ATTN_TEST_ON("interp", "attention (tiles joined, 160-key tiles)", joined);
    block_n = 0;
    ATTN_TEST_ON("interp", "attention (tiles joined)", joined);
    ATTN_TEST_ON("interp", "attention (tiles joined, large scores)", rescaled);
    setenv("CUTEC_ATTN_FWD_QSTAGES", "1", 1);
    ATTN_TEST_ON("interp", "attention (tiles joined, one Q stage)", snake);
    unsetenv("CUTEC_ATTN_FWD_QSTAGES");
    unsetenv("CUTEC_ATTN_FWD_JOIN");
    /* the consumer's warpgroup index shuffled from lane 0 and the descriptors a stage
     * (CUTEC_ATTN_FWD_WGU=1; d256 non-causal's default, hopper_small's run): three warpgroups
     * (d64's 192 rows), causal GQA at scale 0.2 */
    static const attn_case wgu[] = {
        {1, 100, 150, 1, 1, 64, false, false, CUTE_BF16, 0},
        {1, 131, 200, 2, 1, 128, true, false, CUTE_BF16, 0.2},
    };
    setenv("CUTEC_ATTN_FWD_WGU", "1", 1);
    ATTN_TEST_ON("interp", "attention (the warpgroup index uniform, descriptors a stage)", wgu);
    /* a warpgroup with no row inside Sq computing nothing, its turns passed and its stages
     * released (CUTEC_ATTN_FWD_SKIP=1; with wgu d64 non-causal's default), with wgu and alone:
     * d64's 192-row tiles at Sq 100 (the third warpgroup idle) and 250 (the second tile's
     * second and third; 6 tiles on the persistent grid, GQA, f16), causal d128 at Sq 70 (the
     * second); then d64 without either (the default before session 42) */
    static const attn_case skip[] = {
        {2, 250, 170, 3, 1, 64, false, true, CUTE_F16, 0},
        {1, 100, 150, 1, 1, 64, false, false, CUTE_BF16, 0},
        {1, 70, 300, 2, 1, 128, true, false, CUTE_BF16, 0.2},
    };
    setenv("CUTEC_ATTN_FWD_SKIP", "1", 1);
    ATTN_TEST_ON("interp", "attention (idle warpgroups skipped, wgu)", skip);
    setenv("CUTEC_ATTN_FWD_WGU", "0", 1);
    ATTN_TEST_ON("interp", "attention (idle warpgroups skipped)", skip);
    setenv("CUTEC_ATTN_FWD_SKIP", "0", 1);
    static const attn_case d64_before[] = {{2, 250, 170, 3, 1, 64, false, true, CUTE_F16, 0}};
    ATTN_TEST_ON("interp", "attention (d64 without skip and wgu)", d64_before);
    unsetenv("CUTEC_ATTN_FWD_WGU");
    unsetenv("CUTEC_ATTN_FWD_SKIP");
    /* head dim 128's 192-row tiles (block_m 192: three warpgroups in the ring, 80 keys a
     * tile, wgu and the idle ones skipped): Sq 300 (the second tile's third warpgroup idle;
     * GQA, Sk's partial fourth key tile masked), Sq < Sk in SDPA's layout, f16 at scale 0.2 */
    static const attn_case rows192[] = {
        {1, 300, 300, 2, 1, 128, false, false, CUTE_BF16, 0},
        {2, 131, 400, 3, 3, 128, false, true, CUTE_F16, 0.2},
    };
    block_m = 192;
    ATTN_TEST_ON("interp", "attention (head dim 128, 192-row tiles)", rows192);
    block_m = 0;
    unsplit_chains();
    register_reports();
    static const attn_case moderate[] = {
        {2, 1000, 1000, 6, 2, 128, true, true, CUTE_BF16, 0},
        {3, 777, 1025, 4, 4, 64, false, false, CUTE_F16, 0},
        {1, 2049, 2049, 8, 1, 64, true, false, CUTE_BF16, 0.05},
        {2, 513, 300, 2, 2, 128, false, true, CUTE_F16, 0},
        {1, 1000, 1000, 4, 2, 256, true, true, CUTE_F16, 0},
    };
    wanted = CUTE_ATTENTION_SM80;
    ATTN_TEST_ON("cuda", "attention", moderate);
    wanted = CUTE_ATTENTION_HOPPER;
    ATTN_TEST_ON("cuda", "attention (hopper)", moderate);
    /* head dim 128's 192-row tiles on the card (a call's choice) */
    static const attn_case rows192_gpu[] = {
        {2, 1000, 1000, 6, 2, 128, false, true, CUTE_BF16, 0},
        {1, 2049, 777, 4, 4, 128, false, false, CUTE_F16, 0.05},
    };
    block_m = 192;
    ATTN_TEST_ON("cuda", "attention (hopper, head dim 128, 192-row tiles)", rows192_gpu);
    block_m = 0;
    return CHECK_DONE("attention_test");
}
