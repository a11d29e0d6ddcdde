/* cutec compile|run|bench attention: the forward kernel's code (no GPU needed), a run
 * checked against the float64 reference with its time and TFLOP/s, and a benchmark table
 * of the shapes, causal and not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli/attention_cli.h"
#include "cli/cli_torch.h"
#include "cutec/attention.h"
#include "cutec/cuda_driver.h"
#include "gpu_timing.h"
#include "cli/mirror.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/ew_ref.h"


static int usage(const char *cmd)
{
    fprintf(stderr,
            "usage: cutec %s attention [--batch B] [--heads H] [--kv-heads G] [--seqlen S]\n"
            "         [--headdim D (32..256, a multiple of 32)] [--causal] [--bwd] [--dtype bf16|f16] [--scale X] [--iters N]\n"
            "         [--variant auto|sm80|hopper|blackwell] [--block-n N] [--block-m 128|192] [--persistent 1|0]\n"
            "         [--kv-stages 1|2]\n"
            "         [--emit ir|cuda|ptx|sass|usage|time] [--arch sm_80|sm_90a|sm_100a] [--backend cuda|interp]\n"
            "  O = softmax(scale Q K^T) V, Q and O (B,S,H,D), K and V (B,S,G,D), G dividing H;\n"
            "  run: gaussian inputs, checked against float64 (every row up to 4096, else a sample);\n"
            "  bench: 8x16x4096 d128 and 16x32x2048 d64 (or the shape given), causal and not, with torch\n"
            "  SDPA (bench/torch_attention.py) beside; --backend interp checks without timing;\n"
            "  --bwd (or --backward): the backward (dQ, dK, dV; head dim to 128), SDPA's beside;\n"
            "  --decode [--splits N] [--kv-layout bshd|bhsd]: one query row against --seqlen keys (bench:\n"
            "  8x32x32768 d128, 32 and 8 KV heads), GB/s of K and V read beside a device copy's and SDPA's;\n"
            "  K and V in memory as (B,S,G,D) (bshd) or each head's keys together (bhsd, SDPA's);\n"
            "  --variant: the kernels (auto: hopper on sm_90, blackwell (forward) on sm_100, sm80 elsewhere); --block-n: the forward's keys a tile\n"
            "  (sm80: keys a softmax step, 64 or 32);\n"
            "  --block-m: the Hopper forward's query rows a tile (192: three consumer warpgroups, head dim 64);\n"
            "  --persistent 1|0: the Hopper forward's persistent grid (a block an SM) or a block a\n"
            "  tile (unset: its choice, persistent at head dims 64 and 128); --kv-stages 2: the SM80 forward's K\n"
            "  and V tiles loaded a whole tile ahead (two stages each, one barrier a tile);\n"
            "  run --turns A[/B...] [--rounds R]: on one set of inputs the default and each form (A: NAME=VALUE\n"
            "  settings of CUTEC_ variables, ',' between them; a library compiled and called under them) in turns,\n"
            "  R rounds (2), every second reversed, each form's first call checked against float64;\n"
            "  --rest MS: every timing after MS ms of an idle GPU (a rested card's burst); bench times SDPA\n"
            "  before ours and again after, each of its timings after the same rest, and prints both;\n"
            "  --rows noncausal|causal|both: bench's rows (both)\n",
            cmd);
    return CLI_USAGE;
}

static const char *const variant_names[] = {"auto", "sm80", "hopper", "blackwell"};

static bool variant_parse(const char *v, cute_attention_variant *out)
{
    for (int i = 0; i < (int)(sizeof variant_names / sizeof variant_names[0]); i++)
        if (!strcmp(v, variant_names[i])) return *out = (cute_attention_variant)i, true;
    return false;
}

static bool option(attn_opts *o, const char *k, const char *v, char *why, size_t n)
{
    bool ok = true;
    if (cli_kernel_option(&o->k, k, v, &ok, why, n))
        return ok;
    if (!strcmp(k, "--dtype"))
        ok = cute_dtype_parse(v, &o->dtype) && (o->dtype == CUTE_BF16 || o->dtype == CUTE_F16),
        snprintf(why, n, "bf16 or f16");
    else if (!strcmp(k, "--batch"))
        ok = cli_int(v, 1, 1 << 20, &o->B, why, n), o->shape_given = true;
    else if (!strcmp(k, "--heads"))
        ok = cli_int(v, 1, 1 << 16, &o->H, why, n), o->shape_given = true;
    else if (!strcmp(k, "--kv-heads"))
        ok = cli_int(v, 1, 1 << 16, &o->G, why, n);
    else if (!strcmp(k, "--seqlen"))
        ok = cli_int(v, 1, 1 << 24, &o->S, why, n), o->shape_given = true;
    else if (!strcmp(k, "--headdim"))
        ok = cli_int(v, 32, 256, &o->D, why, n) && o->D % 32 == 0, /* what the library takes: lib.c */
        snprintf(why, n, "a multiple of 32 from 32 to 256");
    else if (!strcmp(k, "--variant"))
        ok = variant_parse(v, &o->variant), snprintf(why, n, "auto, sm80, hopper or blackwell");
    else if (!strcmp(k, "--block-n"))
        ok = cli_int(v, 16, 256, &o->block_n, why, n);
    else if (!strcmp(k, "--block-m"))
        ok = cli_int(v, 128, 192, &o->block_m, why, n) && o->block_m % 64 == 0, snprintf(why, n, "128 or 192");
    else if (!strcmp(k, "--kv-stages"))
        ok = cli_int(v, 1, 2, &o->kv_stages, why, n);
    else if (!strcmp(k, "--persistent"))
        ok = cli_int(v, 0, 1, &o->persistent, why, n);
    else if (!strcmp(k, "--splits"))
        ok = cli_int(v, 1, 1 << 16, &o->splits, why, n);
    else if (!strcmp(k, "--kv-layout"))
        ok = !strcmp(v, "bshd") || !strcmp(v, "bhsd"), o->kv_bhsd = !strcmp(v, "bhsd"),
        snprintf(why, n, "bshd or bhsd");
    else if (!strcmp(k, "--turns")) {
        turn_form forms[TURN_FORMS];
        int nf;
        ok = turns_parse(v, forms, &nf), o->turns = v;
        snprintf(why, n, "forms of CUTEC_NAME=VALUE settings, ',' between them, '/' between forms (%d forms of %d "
                 "at most)", TURN_FORMS - 1, TURN_SETTINGS);
    }
    else if (!strcmp(k, "--rounds"))
        ok = cli_int(v, 1, 100, &o->rounds, why, n);
    else if (!strcmp(k, "--rest"))
        ok = cli_int(v, 0, 10000, &o->rest_ms, why, n);
    else if (!strcmp(k, "--rows"))
        ok = (o->rows = !strcmp(v, "noncausal") ? 1 : !strcmp(v, "causal") ? 2 : !strcmp(v, "both") ? 3 : 0) != 0,
        snprintf(why, n, "noncausal, causal or both");
    else if (!strcmp(k, "--scale"))
        ok = sscanf(v, "%lf", &o->scale) == 1 && isfinite(o->scale) && o->scale > 0;
    else
        ok = false;
    return ok;
}

static int parse(int argc, char **argv, attn_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = CUTE_BF16, o->B = 8, o->H = 16, o->S = 4096, o->D = 128, o->k.iters = 20, o->persistent = -1;
    if (argc < 2 || strcmp(argv[1], "attention") != 0) return usage(argv[0]);
    for (int i = 2; i < argc; i += 2) {
        char why[160] = "";
        bool bwd = !strcmp(argv[i], "--bwd") || !strcmp(argv[i], "--backward"), dec = !strcmp(argv[i], "--decode");
        if (!strcmp(argv[i], "--causal") || bwd || dec) { /* flags: no value */
            *(bwd ? &o->bwd : dec ? &o->decode : &o->causal) = true, i--;
            continue;
        }
        if (i + 1 >= argc) return usage(argv[0]);
        if (!option(o, argv[i], argv[i + 1], why, sizeof why)) {
            fprintf(stderr, "cutec %s attention: bad option %s %s%s%s\n", argv[0], argv[i], argv[i + 1],
                    why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
    }
    if (!o->G) o->G = o->H;
    if (o->H % o->G) {
        fprintf(stderr, "cutec %s attention: --kv-heads %lld does not divide --heads %lld\n", argv[0],
                (long long)o->G, (long long)o->H);
        return CLI_USAGE;
    }
    o->arch_given = o->k.arch != NULL;
    if (!o->k.arch) o->k.arch = getenv("CUTEC_ARCH");
    return CLI_OK;
}

/* --- compile --------------------------------------------------------------------------- */
static const cute_fn *compile(cute_runtime *rt, const void *cfg, char *err, size_t n)
{
    return cute_attention_compile(rt, cfg, err, n);
}

static const cute_fn *compile_bwd(cute_runtime *rt, const void *cfg, char *err, size_t n)
{
    return cute_attention_bwd_compile(rt, cfg, err, n);
}

static const cute_fn *compile_decode(cute_runtime *rt, const void *cfg, char *err, size_t n)
{
    return cute_attention_decode_compile(rt, cfg, err, n);
}

/* the forward's grid of --persistent (unset: the library's choice) */
static int grid_of(const attn_opts *o)
{
    return o->persistent < 0 ? CUTE_ATTENTION_GRID_AUTO
           : o->persistent  ? CUTE_ATTENTION_GRID_PERSISTENT
                            : CUTE_ATTENTION_GRID_TILES;
}

static int emit(const attn_opts *o)
{
    cute_attention_config cfg = {.dtype = o->dtype, .head_dim = (int)o->D, .causal = o->causal && !o->decode, .lse = true,
                                 .variant = o->decode ? CUTE_ATTENTION_AUTO : o->variant,
                                 .block_n = o->bwd || o->decode ? 0 : (int)o->block_n,
                                 .block_m = o->bwd || o->decode ? 0 : (int)o->block_m, .grid = grid_of(o),
                                 .kv_stages = o->bwd || o->decode ? 0 : (int)o->kv_stages};
    return cli_emit_compiled("attention", o->bwd ? compile_bwd : o->decode ? compile_decode : compile, &cfg, o->k.emit,
                             o->k.arch);
}

/* --- run and bench ------------------------------------------------------------------- */
enum { NFWD = 5, NBUF = 10 };

typedef struct problem {
    cute_runtime *rt;
    cute_attention_lib *lib;
    cli_mirror m[NBUF]; /* Q, K, V, O, LSE; with --bwd dO, dQ, dK, dV, delta */
    cute_call_arg q, k, v, o, lse, grad[5]; /* grad: dO, dQ, dK, dV, delta */
    bool causal;
    double scale;
    char err[4096]; /* a launch's interpreter reports (a deadlock names every warp) */
} problem;

/* the outputs poisoned (all ones bits: NaN), on the host and the device */
static bool problem_poison(problem *p, const attn_opts *o)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    for (int i = 3; i < (o->bwd ? NBUF : NFWD); i++)
        if (i != NFWD && !cli_mirror_poison(b, &p->m[i])) return false; /* dO: an input */
    return true;
}

/* Q, K, V (and dO) gaussian in dtype, the outputs poisoned */
static bool problem_make(problem *p, const attn_opts *o, uint64_t *seed)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    int64_t nq = o->B * o->S * o->H * o->D, nk = o->B * o->S * o->G * o->D;
    size_t es = (size_t)cute_dtype_bytes(o->dtype), nl = (size_t)(o->B * o->H * o->S) * 4;
    size_t sizes[NBUF] = {nq * es, nk * es, nk * es, nq * es, nl, nq * es, nq * es, nk * es, nk * es, nl};
    for (int i = 0; i < (o->bwd ? NBUF : NFWD); i++) {
        bool input = i < 3 || i == NFWD;
        if (!cli_mirror_alloc(b, &p->m[i], sizes[i]) || (input && !cli_mirror_gaussian(b, &p->m[i], o->dtype, seed)))
            return false;
    }
    if (!problem_poison(p, o)) return false;
    p->q = cli_bshd_tensor(&p->m[0].dev, o->dtype, o->B, o->S, o->H, o->D);
    p->k = cli_bshd_tensor(&p->m[1].dev, o->dtype, o->B, o->S, o->G, o->D);
    p->v = cli_bshd_tensor(&p->m[2].dev, o->dtype, o->B, o->S, o->G, o->D);
    p->o = cli_bshd_tensor(&p->m[3].dev, o->dtype, o->B, o->S, o->H, o->D);
    p->lse = cute_call_tensor(&p->m[4].dev, 0, CUTE_F32, 3, (int64_t[]){o->B, o->H, o->S},
                              (int64_t[]){o->H * o->S, o->S, 1});
    for (int i = 0; i < 4 && o->bwd; i++) {
        bool kv = i >= 2;
        p->grad[i] = kv ? p->k : p->q;
        p->grad[i].buf = &p->m[NFWD + i].dev;
    }
    p->grad[4] = p->lse;
    p->grad[4].buf = &p->m[NBUF - 1].dev;
    p->causal = o->causal, p->scale = o->scale;
    return true;
}

static void problem_drop(problem *p)
{
    cli_mirrors_free(cute_runtime_backend(p->rt), p->m, NBUF);
}

static cute_status call_fwd(void *user, int set)
{
    (void)set;
    problem *p = user;
    return cutec_attention_fwd(p->lib, &p->q, &p->k, &p->v, &p->o, &p->lse, p->scale, p->causal, NULL,
                               p->err, sizeof p->err);
}

static cute_status call_bwd(void *user, int set)
{
    (void)set;
    problem *p = user;
    const cute_call_arg *g = p->grad;
    return cutec_attention_bwd(p->lib, &p->q, &p->k, &p->v, &p->o, &g[0], &p->lse, &g[1], &g[2], &g[3], &g[4],
                               p->scale, p->causal, NULL, p->err, sizeof p->err);
}

/* the rows checked: all up to 4096, else up to 2048 spread over the whole output, fewer for
 * long rows (each row's reference reads S keys and values of D: 2^30 / (S D) rows, 64 to
 * 2048; 512 at 16k keys d128, 256 at d256, where 512 took longer than the bench's step) */
static int64_t verify(const problem *p, const attn_opts *o, int64_t *rows)
{
    int64_t n = o->D * o->B * o->S * o->G, total = o->B * o->S * o->H, bad = 0;
    double *w[3], want[256], mag[256], l;
    for (int i = 0; i < 3; i++) {
        int64_t m = i ? n : total * o->D;
        w[i] = malloc((size_t)m * sizeof(double));
        for (int64_t j = 0; j < m; j++) w[i][j] = ew_get(o->dtype, p->m[i].host, j);
    }
    attn_ref_problem rp = {o->B, o->S, o->S, o->H, o->G, o->D, o->causal, p->scale > 0 ? p->scale : 1 / sqrt((double)o->D),
                           {w[0], {p->q.stride[0], p->q.stride[1], p->q.stride[2], 1}},
                           {w[1], {p->k.stride[0], p->k.stride[1], p->k.stride[2], 1}},
                           {w[2], {p->k.stride[0], p->k.stride[1], p->k.stride[2], 1}}};
    int64_t sample = (1 << 30) / (o->S * o->D), step;
    sample = sample > 2048 ? 2048 : sample < 64 ? 64 : sample;
    step = total <= 4096 ? 1 : total / sample;
    *rows = 0;
    for (int64_t e = 0; e < total; e += step, ++*rows) {
        int64_t b = e / (o->S * o->H), i = e / o->H % o->S, h = e % o->H;
        attn_ref_row(&rp, b, i, h, want, mag, &l);
        for (int64_t d = 0; d < o->D; d++)
            bad += !attn_ref_close(ew_get(o->dtype, p->m[3].host, e * o->D + d), want[d], mag[d], o->dtype == CUTE_BF16);
        float got = ((const float *)p->m[4].host)[(b * o->H + h) * o->S + i];
        bad += !(fabs(got - l) <= 1e-4 * (1 + fabs(l)));
    }
    for (int i = 0; i < 3; i++) free(w[i]);
    return bad;
}

static double *widen(const attn_opts *o, const void *host, int64_t n, bool f32)
{
    double *w = malloc((size_t)n * sizeof *w);
    for (int64_t j = 0; j < n; j++) w[j] = f32 ? ((const float *)host)[j] : ew_get(o->dtype, host, j);
    return w;
}

/* bad elements of D values at got against want within the backward's rounding */
static int64_t bad_grads(const attn_opts *o, const void *got, int64_t at, const double *want, const double *mag)
{
    int64_t bad = 0;
    for (int64_t d = 0; d < o->D; d++)
        bad += !attn_ref_close_grad(ew_get(o->dtype, got, at + d), want[d], mag[d], o->dtype == CUTE_BF16);
    return bad;
}

/* the backward against float64 given the forward's O and LSE: up to 256 query rows of dQ and
 * 256 key rows of dK and dV, spread over the outputs */
static int64_t verify_bwd(const problem *p, const attn_opts *o, int64_t *rows)
{
    int64_t nq = o->B * o->S * o->H * o->D, nk = o->B * o->S * o->G * o->D, bad = 0;
    int64_t tq = o->B * o->S * o->H, tk = o->B * o->S * o->G;
    double *q = widen(o, p->m[0].host, nq, false), *k = widen(o, p->m[1].host, nk, false), *v = widen(o, p->m[2].host, nk, false);
    double *out = widen(o, p->m[3].host, nq, false), *dout = widen(o, p->m[NFWD].host, nq, false);
    double *lse = widen(o, p->m[4].host, tq, true), w[4][256], *row[4] = {w[0], w[1], w[2], w[3]};
    attn_ref_tensor tq4 = {q, {o->S * o->H * o->D, o->H * o->D, o->D, 1}}, tk4 = {k, {o->S * o->G * o->D, o->G * o->D, o->D, 1}};
    attn_ref_problem rp = {o->B, o->S, o->S, o->H, o->G, o->D, o->causal, p->scale > 0 ? p->scale : 1 / sqrt((double)o->D),
                           tq4, tk4, tk4};
    rp.v.v = v;
    attn_ref_given f = {tq4, tq4, lse};
    f.dout.v = dout, f.o.v = out;
    *rows = 0;
    for (int64_t e = 0; e < tq; e += tq <= 256 ? 1 : tq / 256, ++*rows) {
        attn_ref_dq_row(&rp, &f, e / (o->S * o->H), e / o->H % o->S, e % o->H, w[0], w[1]);
        bad += bad_grads(o, p->m[NFWD + 1].host, e * o->D, w[0], w[1]);
    }
    for (int64_t e = 0; e < tk; e += tk <= 256 ? 1 : tk / 256, ++*rows) {
        attn_ref_dkv_row(&rp, &f, e / (o->S * o->G), e / o->G % o->S, e % o->G, row);
        bad += bad_grads(o, p->m[NFWD + 2].host, e * o->D, w[0], w[1]) + bad_grads(o, p->m[NFWD + 3].host, e * o->D, w[2], w[3]);
    }
    double *all[6] = {q, k, v, out, dout, lse};
    for (int i = 0; i < 6; i++) free(all[i]);
    return bad;
}

/* the flops FlashAttention counts: 4 B H S^2 D forward, 2.5 times that backward (its five
 * products to the forward's two), half of it causal */
static double flops(const attn_opts *o)
{
    return (o->bwd ? 10.0 : 4.0) * (double)o->B * o->H * o->S * o->S * o->D / (o->causal ? 2 : 1);
}

/* o's rest before a timing on the GPU: its streams drained, then o->rest_ms of an idle card;
 * false where the drain failed */
static bool rested(problem *p, const attn_opts *o)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    if (!o->rest_ms || !cute_cuda_backend_driver(b)) return true;
    if (b->vt->sync(b->self, NULL) != CUTE_OK) return false;
    gpu_idle_ms((int)o->rest_ms);
    return true;
}

/* the median time of o's calls on p's inputs (device events), no rest; < 0 where not timed
 * (the interpreter) */
static double time_calls(problem *p, const attn_opts *o)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(p->rt));
    return cu ? gpu_time_calls(cu, o->bwd ? call_bwd : call_fwd, p, 1, o->k.iters) : -1;
}

/* ... after o's rest */
static double timed(problem *p, const attn_opts *o)
{
    return rested(p, o) ? time_calls(p, o) : -2;
}

/* one checked call, then the median time (device events on the GPU, else < 0: not timed) */
static double run_one(problem *p, const attn_opts *o, int64_t *bad, int64_t *rows)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    if (call_fwd(p, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec: %s\n", p->err[0] ? p->err : b->vt->error(b->self));
        return -2;
    }
    cli_mirror_download(b, &p->m[3]), cli_mirror_download(b, &p->m[4]);
    *bad = verify(p, o, rows);
    if (o->bwd) {
        if (call_bwd(p, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
            fprintf(stderr, "cutec: %s\n", p->err[0] ? p->err : b->vt->error(b->self));
            return -2;
        }
        for (int i = NFWD + 1; i < NBUF - 1; i++) cli_mirror_download(b, &p->m[i]);
        int64_t brows = 0;
        *bad += verify_bwd(p, o, &brows);
        *rows += brows;
    }
    return timed(p, o);
}

static void describe(const attn_opts *o, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s B=%lld H=%lld G=%lld S=%lld D=%lld%s%s%s%s", cute_dtype_name(o->dtype),
                       (long long)o->B, (long long)o->H, (long long)o->G, (long long)o->S, (long long)o->D,
                       o->causal ? " causal" : "", o->bwd ? " bwd" : "", o->variant ? " " : "",
                       o->variant ? variant_names[o->variant] : "");
    if (o->block_n && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " bn%lld", (long long)o->block_n);
    if (o->block_m && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " bm%lld", (long long)o->block_m);
    if (o->kv_stages == 2 && len > 0 && (size_t)len < n) len += snprintf(buf + len, n - (size_t)len, " kv2");
    if (o->persistent == 0 && len > 0 && (size_t)len < n) snprintf(buf + len, n - (size_t)len, " tiles");
}

/* the multiply-adds of a call: Q K^T and P V (the backward's five products: 2.5 times) */
static double interp_work(const attn_opts *o)
{
    double macs = 2.0 * (double)o->B * (double)o->H * (double)o->S * (double)o->S * (double)o->D;
    return o->bwd ? 2.5 * macs : macs;
}

/* the forward's and backward's turns: the problem and its options */
typedef struct fwd_turns {
    problem *p;
    const attn_opts *o;
} fwd_turns;

static cute_attention_lib *turn_lib(void *user)
{
    const fwd_turns *t = user;
    cute_attention_lib *lib = cute_attention_lib_new(t->p->rt);
    cute_attention_lib_set_kernel(lib, t->o->variant, (int)t->o->block_n);
    cute_attention_lib_set_block_m(lib, (int)t->o->block_m, grid_of(t->o));
    cute_attention_lib_set_kv_stages(lib, (int)t->o->kv_stages);
    return lib;
}

static double turn_checked(void *user, cute_attention_lib *lib, int64_t *bad, int64_t *rows)
{
    const fwd_turns *t = user;
    t->p->lib = lib;
    return problem_poison(t->p, t->o) ? run_one(t->p, t->o, bad, rows) : -2;
}

static double turn_timed(void *user, cute_attention_lib *lib)
{
    const fwd_turns *t = user;
    t->p->lib = lib;
    return time_calls(t->p, t->o);
}

static bool turn_rest(void *user)
{
    const fwd_turns *t = user;
    return rested(t->p, t->o);
}

/* `cutec run attention --turns`: the default and each form on one set of inputs in turns
 * (turns_run: attention_turns.c), a library each, made and called under the form's settings
 * (the kernels read them as they compile, the backward's workspace at each call) */
static int run_turns(problem *p, const attn_opts *o)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    if (!problem_make(p, o, &seed)) return problem_drop(p), CLI_FAIL;
    char what[160];
    describe(o, what, sizeof what);
    fwd_turns t = {p, o};
    turn_ops ops = {cute_cuda_backend_driver(cute_runtime_backend(p->rt)), &t, turn_lib, turn_checked, turn_timed,
                    flops(o) / 1e9, "TFLOP/s", turn_rest};
    int rc = turns_run(o->turns, (int)o->rounds, what, &ops);
    p->lib = NULL;
    problem_drop(p);
    return rc;
}

static int run(const attn_opts *o)
{
    problem p = {0};
    if (cute_runtime_new(o->k.backend, &p.rt, p.err, sizeof p.err) != CUTE_OK) {
        fprintf(stderr, "cutec run attention: %s\n", p.err);
        return CLI_FAIL;
    }
    if (o->arch_given && cute_runtime_on_gpu(p.rt)) { /* as `cutec run gemm` says it */
        fprintf(stderr, "cutec run attention: --arch %s is the interpreter's target (--backend interp); a GPU runs "
                        "its own arch\n", o->k.arch);
        cute_runtime_free(p.rt);
        return CLI_USAGE;
    }
    if (!cli_interp_fits("run attention", p.rt, interp_work(o), CLI_INTERP_ATTENTION)) {
        cute_runtime_free(p.rt);
        return CLI_USAGE;
    }
    if (o->k.arch && !cute_runtime_on_gpu(p.rt)) /* the interpreter's target: sm_100a runs the Blackwell kernel */
        cute_runtime_set_target_arch(p.rt, o->k.arch);
    if (o->turns) {
        int rc = run_turns(&p, o);
        cute_runtime_free(p.rt);
        return rc;
    }
    p.lib = turn_lib(&(fwd_turns){&p, o}); /* (the library a form's turns make, here the one) */
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int64_t bad = -1, rows = 0;
    double ms = problem_make(&p, o, &seed) ? run_one(&p, o, &bad, &rows) : -2;
    char what[160];
    describe(o, what, sizeof what);
    if (ms > -2) printf("attention %s, backend %s: %s (%lld wrong in %lld rows)", what, cute_runtime_backend_name(p.rt),
                        bad ? "FAILED" : "verified against float64", (long long)bad, (long long)rows);
    if (ms >= 0) printf(", %.4f ms, %.1f TFLOP/s", ms, flops(o) / ms / 1e9);
    if (ms > -2) printf("\n");
    problem_drop(&p);
    cute_attention_lib_free(p.lib);
    cute_runtime_free(p.rt);
    return ms > -2 && bad == 0 ? CLI_OK : CLI_FAIL;
}

/* SDPA's ms for each shape, non-causal and causal (< 0: not taken), from one run of
 * bench/torch_attention.py ($CUTEC_TORCH_ATTENTION): its own gaussian inputs, each timing
 * after rest_ms of an idle GPU, the rows --rows asks (0: both) */
static void torch_ms(cute_dtype d, bool bwd, int64_t rest_ms, int rows, const int64_t (*shapes)[4], int n,
                     double (*ms)[2])
{
    char args[1024];
    int len = snprintf(args, sizeof args, "%s", bwd ? "--bwd " : "");
    if (rest_ms) len += snprintf(args + len, sizeof args - (size_t)len, "--rest %lld ", (long long)rest_ms);
    if (rows) len += snprintf(args + len, sizeof args - (size_t)len, "--rows %d ", rows);
    len += snprintf(args + len, sizeof args - (size_t)len, "%s", cute_dtype_name(d));
    for (int i = 0; i < n; i++) {
        const int64_t *x = shapes[i];
        len += snprintf(args + len, sizeof args - (size_t)len, " %lldx%lldx%lldx%lld", (long long)x[0],
                        (long long)x[1], (long long)x[2], (long long)x[3]);
        ms[i][0] = ms[i][1] = -1;
    }
    cli_torch t = cli_torch_lines("SDPA", "CUTEC_TORCH_ATTENTION", "bench/torch_attention.py", "torch ", args);
    for (int l = 0; l < t.n; l++) {
        long long b, h, sq, dd;
        int causal;
        double v;
        if (sscanf(t.line[l], "torch %lldx%lldx%lldx%lld %d %lf", &b, &h, &sq, &dd, &causal, &v) != 6) continue;
        for (int i = 0; i < n; i++)
            if (shapes[i][0] == b && shapes[i][1] == h && shapes[i][2] == sq && shapes[i][3] == dd)
                ms[i][causal != 0] = v;
    }
    cli_torch_free(&t);
}

/* one row on the inputs of p (made for o's shape): its outputs poisoned, checked, timed (the
 * ms into *out) */
static int bench_one(problem *p, const attn_opts *o, double sdpa, double *out)
{
    int64_t bad = -1, rows = 0;
    p->causal = o->causal;
    double ms = problem_poison(p, o) ? run_one(p, o, &bad, &rows) : -2;
    *out = ms;
    char what[160];
    describe(o, what, sizeof what);
    if (ms > 0) printf("%-40s %9.4f %9.1f %8lld", what, ms, flops(o) / ms / 1e9, (long long)rows);
    else if (ms > -2) printf("%-40s %9s %9s %8lld", what, "-", "-", (long long)rows); /* checked, not timed */
    else printf("%-40s %9s %9s %8s", what, "failed", "-", "-"); /* the reason is on stderr above */
    if (sdpa > 0) printf(" %9.1f", flops(o) / sdpa / 1e9); else printf(" %9s", "-");
    if (sdpa > 0 && ms > 0) printf(" %6.1f%%", 100 * sdpa / ms); else printf(" %7s", "-");
    printf("%s\n", bad > 0 ? "  WRONG" : "");
    fflush(stdout);
    bool timed = cute_cuda_backend_driver(cute_runtime_backend(p->rt)) != NULL;
    return bad == 0 && (timed ? ms > 0 : ms > -2) ? CLI_OK : CLI_FAIL;
}

/* base's options at one of bench's shapes (B, H, S, D): G = H unless the shape was given */
static attn_opts shape_opts(const attn_opts *base, const int64_t shape[4])
{
    attn_opts o = *base;
    o.B = shape[0], o.H = shape[1], o.S = shape[2], o.D = shape[3];
    if (!base->shape_given) o.G = o.H;
    return o;
}

/* whether bench times the row of this causality (--rows; 0: both) */
static bool wants_row(const attn_opts *o, int causal)
{
    return !o->rows || (o->rows >> causal & 1);
}

/* a shape's rows, non-causal and causal, on one set of inputs (drawing gaussian numbers on
 * the host is most of a large row's time) */
static int bench_shape(cute_runtime *rt, cute_attention_lib *lib, const attn_opts *o, const double sdpa[2],
                       uint64_t *seed, double ours[2])
{
    problem p = {.rt = rt, .lib = lib};
    bool made = problem_make(&p, o, seed);
    int rc = made ? CLI_OK : CLI_FAIL;
    for (int causal = 0; causal < 2 && made; causal++) {
        if (!wants_row(o, causal)) continue;
        attn_opts oc = *o;
        oc.causal = causal;
        if (bench_one(&p, &oc, sdpa[causal], &ours[causal]) != CLI_OK) rc = CLI_FAIL;
    }
    if (!made) fprintf(stderr, "cutec bench attention: the inputs of a shape could not be made (out of memory)\n");
    problem_drop(&p);
    return rc;
}

/* --rest: SDPA timed again after ours (so that each side is seen both first and second, each
 * timing after the same rest), a row each beside the first timing's */
static void sdpa_after(const attn_opts *base, int64_t (*shapes)[4], int n, double (*first)[2], double (*ours)[2])
{
    double again[2][2] = {{-1, -1}, {-1, -1}};
    torch_ms(base->dtype, base->bwd, base->rest_ms, base->rows, (const int64_t (*)[4])shapes, n, again);
    printf("# both orders: SDPA timed before ours (1st) and after (2nd), each timing after %lld ms of an idle GPU\n",
           (long long)base->rest_ms);
    printf("%-40s %9s %9s %9s %7s %7s\n", base->bwd ? "attention backward" : "attention forward", "TFLOP/s", "SDPA 1st",
           "SDPA 2nd", "of 1st", "of 2nd");
    for (int s = 0; s < n; s++)
        for (int causal = 0; causal < 2; causal++) {
            if (!wants_row(base, causal)) continue;
            attn_opts o = shape_opts(base, shapes[s]);
            o.causal = causal;
            char what[160];
            describe(&o, what, sizeof what);
            double f = flops(&o) / 1e9, m = ours[s][causal], a = first[s][causal], b = again[s][causal];
            printf("%-40s", what);
            double col[3] = {m, a, b};
            for (int c = 0; c < 3; c++)
                if (col[c] > 0) printf(" %9.1f", f / col[c]); else printf(" %9s", "-");
            for (int c = 1; c < 3; c++)
                if (col[c] > 0 && m > 0) printf(" %6.1f%%", 100 * col[c] / m); else printf(" %7s", "-");
            printf("\n");
        }
}

static int bench(const attn_opts *base)
{
    char err[1024], clock[128];
    cute_runtime *rt;
    if (cute_runtime_new(base->k.backend ? base->k.backend : "cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench attention: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt)); /* NULL: --backend interp, checks only */
    int64_t shapes[2][4] = {{8, 16, 4096, 128}, {16, 32, 2048, 64}}; /* B, H, S, D */
    int n = base->shape_given ? 1 : 2;
    if (base->shape_given) shapes[0][0] = base->B, shapes[0][1] = base->H, shapes[0][2] = base->S, shapes[0][3] = base->D;
    double work = 0;
    for (int s = 0; s < n; s++) {
        attn_opts o = shape_opts(base, shapes[s]);
        work += interp_work(&o);
    }
    if (!cli_interp_fits("bench attention", rt, work, CLI_INTERP_ATTENTION)) return cute_runtime_free(rt), CLI_USAGE;
    double sdpa[2][2] = {{-1, -1}, {-1, -1}}, ours[2][2] = {{-1, -1}, {-1, -1}};
    if (cu) torch_ms(base->dtype, base->bwd, base->rest_ms, base->rows, (const int64_t (*)[4])shapes, n, sdpa);
    const cute_device_info *dev = cu ? cute_cuda_device(cu) : NULL;
    gpu_sm_clock(cu, clock, sizeof clock);
    printf("# %s, %d SMs, %s; gaussian inputs; TFLOP/s = %s B H S^2 D / t (half causal)\n",
           dev ? dev->name : "interpreter", dev ? dev->sm_count : 0, clock, base->bwd ? "10" : "4");
    printf("%-40s %9s %9s %8s %9s %7s\n", base->bwd ? "attention backward" : "attention forward", "ms", "TFLOP/s",
           "checked", "SDPA", "of SDPA");
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    cute_attention_lib_set_kernel(lib, base->variant, (int)base->block_n);
    cute_attention_lib_set_block_m(lib, (int)base->block_m, grid_of(base));
    cute_attention_lib_set_kv_stages(lib, (int)base->kv_stages);
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int rc = CLI_OK;
    for (int s = 0; s < n; s++) {
        attn_opts o = shape_opts(base, shapes[s]);
        if (bench_shape(rt, lib, &o, sdpa[s], &seed, ours[s]) != CLI_OK) rc = CLI_FAIL;
    }
    if (cu && base->rest_ms) sdpa_after(base, shapes, n, sdpa, ours);
    cute_attention_lib_free(lib);
    cute_runtime_free(rt);
    return rc;
}

int cmd_attention(int argc, char **argv)
{
    attn_opts o;
    int rc = parse(argc, argv, &o);
    if (rc || cli_parse_only()) return rc;
    if (!strcmp(argv[0], "compile")) {
        if (!(o.k.emit = cli_emit_form(o.k.emit))) return usage(argv[0]);
        return emit(&o);
    }
    if (o.decode && (o.rest_ms || o.rows)) {
        fprintf(stderr, "cutec %s attention: --%s is not taken with --decode (its bench times a device copy beside)\n",
                argv[0], o.rest_ms ? "rest" : "rows");
        return CLI_USAGE;
    }
    if (o.rows && strcmp(argv[0], "bench")) {
        fprintf(stderr, "cutec %s attention: --rows chooses bench's rows; run times the one row it is given\n", argv[0]);
        return CLI_USAGE;
    }
    if (o.decode) return attention_decode_cmd(&o, !strcmp(argv[0], "bench"));
    return !strcmp(argv[0], "run") ? run(&o) : bench(&o);
}
