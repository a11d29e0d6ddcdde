/* cutec compile|run|bench hstu: HSTU attention (cutec/hstu.h): the kernel's code (no GPU
 * needed), a run checked against the float64 reference with its time and TFLOP/s (dense, or
 * --jagged: a packed batch of the lengths given), and the example's shape (causal and not)
 * with PyTorch's unfused form beside it (bench/torch_hstu.py: matmul + RAB, silu, tril mask,
 * matmul). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cutec/cuda_driver.h"
#include "cutec/hstu.h"
#include "gpu_timing.h"
#include "cli/cli_torch.h"
#include "cli/mirror.h"
#include "kernels/attention/hstu_ref.h"
#include "kernels/ew_ref.h"

enum { MAX_SEQS = 1024 }; /* --jagged's lengths at most */

typedef struct hstu_opts {
    cute_dtype dtype;
    int64_t B, H, Sq, Sk, D;
    bool causal, fast, shape_given, lens_given;
    bool jagged;                  /* --jagged: B sequences, Sq = Sk = the longest */
    int32_t off[MAX_SEQS + 1];    /* their offsets (the lengths' running sums) */
    cli_kernel_opts k; /* --iters, --emit, --arch, --backend */
} hstu_opts;

static int usage(const char *cmd)
{
    fprintf(stderr,
            "usage: cutec %s hstu [--batch B] [--heads H] [--seqlen Sq] [--seqlen-k Sk] [--headdim 64|128]\n"
            "         [--jagged L0,L1,...] [--causal] [--fast-sigmoid] [--dtype bf16|f16]\n"
            "         [--variant auto|sm80|hopper] [--iters N]\n"
            "         [--emit ir|cuda|ptx|sass|usage|time] [--arch sm_80|sm_90a] [--backend cuda|interp]\n"
            "  O = silu(Q K^T + RAB) V (causal: keys j <= query i; no softmax, no scale): Q and O\n"
            "  (B,Sq,H,D), K and V (B,Sk,H,D), RAB (B,H,Sq,Sk); Sk defaults to Sq;\n"
            "  --jagged: sequences of these lengths (0 or more) packed: Q, K, V, O (T,H,D),\n"
            "  RAB (B,H,N,N) padded, N the longest (AUTO on sm_90: the Hopper kernel; --variant sm80 the SM80 one);\n"
            "  --fast-sigmoid: sigmoid(x) = 0.5 (1 + tanh.approx(x/2)) (one MUFU a score);\n"
            "  --variant: the SM80 kernel or the Hopper one (TMA + wgmma, sm_90; $CUTEC_HSTU_VARIANT);\n"
            "  run: gaussian inputs, checked against float64 (every row up to 4096, else a sample);\n"
            "  bench: 4x4x8192 d128 (the CuTe DSL example's; or the shape given), causal and not, with\n"
            "  PyTorch's unfused form (bench/torch_hstu.py) beside; --backend interp checks without timing\n",
            cmd);
    return CLI_USAGE;
}

/* --jagged's lengths, 1 to MAX_SEQS of them, each 0 to 2^20, their sum under 2^24: B, the
 * offsets, Sq = Sk = the longest */
static bool parse_lens(hstu_opts *o, const char *v, char *why, size_t n)
{
    char buf[8192];
    if (strlen(v) >= sizeof buf) return snprintf(why, n, "at most %d lengths", MAX_SEQS), false;
    strcpy(buf, v);
    o->B = 0, o->Sq = 0, o->off[0] = 0, o->jagged = true;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int64_t len;
        if (o->B == MAX_SEQS) return snprintf(why, n, "at most %d lengths", MAX_SEQS), false;
        if (!cli_int(t, 0, 1 << 20, &len, why, n)) return false;
        if (o->off[o->B] + len >= 1 << 24) return snprintf(why, n, "the lengths sum to 2^24 or more"), false;
        o->off[o->B + 1] = o->off[o->B] + (int32_t)len, o->B++;
        if (len > o->Sq) o->Sq = len;
    }
    if (!o->B) return snprintf(why, n, "one length or more, comma-separated"), false;
    o->Sk = o->Sq;
    return true;
}

static bool option(hstu_opts *o, const char *k, const char *v, char *why, size_t n)
{
    bool ok = true;
    if (cli_kernel_option(&o->k, k, v, &ok, why, n)) return ok;
    if (!strcmp(k, "--dtype"))
        ok = cute_dtype_parse(v, &o->dtype) && (o->dtype == CUTE_BF16 || o->dtype == CUTE_F16),
        snprintf(why, n, "bf16 or f16");
    else if (!strcmp(k, "--jagged"))
        ok = parse_lens(o, v, why, n), o->shape_given = true;
    else if (!strcmp(k, "--batch"))
        ok = cli_int(v, 1, 1 << 20, &o->B, why, n), o->shape_given = o->lens_given = true;
    else if (!strcmp(k, "--heads"))
        ok = cli_int(v, 1, 1 << 16, &o->H, why, n), o->shape_given = true;
    else if (!strcmp(k, "--seqlen"))
        ok = cli_int(v, 1, 1 << 20, &o->Sq, why, n), o->shape_given = o->lens_given = true;
    else if (!strcmp(k, "--seqlen-k"))
        ok = cli_int(v, 1, 1 << 20, &o->Sk, why, n), o->shape_given = o->lens_given = true;
    else if (!strcmp(k, "--variant")) /* the kernel: hstu.c's hstu_takes_hopper reads it as the library compiles */
        ok = (!strcmp(v, "auto") || !strcmp(v, "sm80") || !strcmp(v, "hopper")) &&
             !setenv("CUTEC_HSTU_VARIANT", v, 1), snprintf(why, n, "auto, sm80 or hopper");
    else if (!strcmp(k, "--headdim"))
        ok = cli_int(v, 64, 128, &o->D, why, n) && (o->D == 64 || o->D == 128), snprintf(why, n, "64 or 128");
    else
        ok = false;
    return ok;
}

static int parse(int argc, char **argv, hstu_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = CUTE_BF16, o->B = 4, o->H = 4, o->Sq = 8192, o->D = 128, o->k.iters = 20;
    if (argc < 2 || strcmp(argv[1], "hstu") != 0) return usage(argv[0]);
    for (int i = 2; i < argc; i += 2) {
        char why[160] = "";
        if (!strcmp(argv[i], "--causal") || !strcmp(argv[i], "--fast-sigmoid")) { /* flags: no value */
            *(argv[i][2] == 'c' ? &o->causal : &o->fast) = true, i--;
            continue;
        }
        if (i + 1 >= argc) return usage(argv[0]);
        if (!option(o, argv[i], argv[i + 1], why, sizeof why)) {
            fprintf(stderr, "cutec %s hstu: bad option %s %s%s%s\n", argv[0], argv[i], argv[i + 1], why[0] ? ": " : "",
                    why);
            return CLI_USAGE;
        }
    }
    if (o->jagged && o->lens_given) {
        fprintf(stderr, "cutec %s hstu: --jagged gives the batch and the lengths (not --batch, --seqlen, --seqlen-k)\n",
                argv[0]);
        return CLI_USAGE;
    }
    if (!o->Sk) o->Sk = o->Sq;
    if (o->causal && o->Sk < o->Sq) {
        fprintf(stderr,
                "cutec %s hstu: --causal with --seqlen-k %lld < --seqlen %lld (top-left causal asks Sk >= Sq)\n", argv[0], (long long)o->Sk, (long long)o->Sq);
        return CLI_USAGE;
    }
    if (!o->k.arch) o->k.arch = getenv("CUTEC_ARCH");
    return CLI_OK;
}

static const cute_fn *compile(cute_runtime *rt, const void *cfg, char *err, size_t n)
{
    return cute_hstu_compile(rt, cfg, err, n);
}

static int emit(const hstu_opts *o)
{
    cute_hstu_config cfg = {.dtype = o->dtype, .head_dim = (int)o->D, .causal = o->causal, .fast_sigmoid = o->fast,
                            .jagged = o->jagged};
    return cli_emit_compiled("hstu", compile, &cfg, o->k.emit, o->k.arch);
}

/* --- run and bench ------------------------------------------------------------------- */
enum { NT = 6 }; /* Q, K, V, RAB, O; jagged: the offsets */

typedef struct problem {
    cute_runtime *rt;
    cute_hstu_lib *lib;
    cli_mirror m[NT];
    cute_call_arg t[NT];
    bool causal, fast;
    const hstu_opts *o;
    char err[4096];
} problem;

static bool poison(problem *p)
{
    return cli_mirror_poison(cute_runtime_backend(p->rt), &p->m[4]);
}

/* jagged: Q, K, V, O (T, H, D) compact, RAB (B, H, N, N) (N the longest, at least 1), the
 * offsets uploaded */
static bool jagged_make(problem *p, const hstu_opts *o)
{
    int64_t T = o->off[o->B], H = o->H, D = o->D, N = o->Sq ? o->Sq : 1, row = (N + 7) / 8 * 8;
    cute_backend *b = cute_runtime_backend(p->rt);
    memcpy(p->m[5].host, o->off, (size_t)(o->B + 1) * sizeof(int32_t));
    if (b->vt->upload(b->self, &p->m[5].dev, 0, p->m[5].host, p->m[5].bytes) != CUTE_OK) return false;
    for (int i = 0; i < 5; i++)
        if (i != 3)
            p->t[i] = cute_call_tensor(&p->m[i].dev, 0, o->dtype, 3, (int64_t[]){T, H, D}, (int64_t[]){H * D, D, 1});
    p->t[3] = cute_call_tensor(&p->m[3].dev, 0, o->dtype, 4, (int64_t[]){o->B, H, N, N},
                               (int64_t[]){H * N * row, N * row, row, 1});
    p->t[5] = cute_call_tensor(&p->m[5].dev, 0, CUTE_I32, 1, (int64_t[]){o->B + 1}, (int64_t[]){1});
    return true;
}

/* Q, K, V, RAB gaussian in dtype, O poisoned; compact tensors, RAB's rows padded to 8 */
static bool problem_make(problem *p, const hstu_opts *o, uint64_t *seed)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    int64_t B = o->B, H = o->H, Sq = o->Sq, Sk = o->Sk, D = o->D, row = (Sk + 7) / 8 * 8;
    size_t es = (size_t)cute_dtype_bytes(o->dtype);
    int64_t n[NT] = {B * Sq * H * D, B * Sk * H * D, B * Sk * H * D, B * H * Sq * row, B * Sq * H * D, 0};
    if (o->jagged) { /* T rows (room for 1: every sequence may be empty); RAB (B, H, N, N); B + 1
                        offsets (4 bytes: 2 elements of the dtype) */
        int64_t T = o->off[B] ? o->off[B] : 1, N = Sq ? Sq : 1;
        row = (N + 7) / 8 * 8;
        n[0] = n[1] = n[2] = n[4] = T * H * D, n[3] = B * H * N * row, n[5] = 2 * (B + 1);
    }
    p->o = o;
    for (int i = 0; i < NT; i++)
        if (n[i] && (!cli_mirror_alloc(b, &p->m[i], (size_t)n[i] * es) ||
                     (i < 4 && !cli_mirror_gaussian(b, &p->m[i], o->dtype, seed))))
            return false;
    if (!poison(p)) return false;
    p->causal = o->causal, p->fast = o->fast;
    if (o->jagged) return jagged_make(p, o);
    p->t[0] = cli_bshd_tensor(&p->m[0].dev, o->dtype, B, Sq, H, D);
    p->t[1] = cli_bshd_tensor(&p->m[1].dev, o->dtype, B, Sk, H, D);
    p->t[2] = cli_bshd_tensor(&p->m[2].dev, o->dtype, B, Sk, H, D);
    p->t[3] = cute_call_tensor(&p->m[3].dev, 0, o->dtype, 4, (int64_t[]){B, H, Sq, Sk},
                               (int64_t[]){H * Sq * row, Sq * row, row, 1});
    p->t[4] = cli_bshd_tensor(&p->m[4].dev, o->dtype, B, Sq, H, D);
    return true;
}

static void problem_drop(problem *p)
{
    cli_mirrors_free(cute_runtime_backend(p->rt), p->m, NT);
}

static cute_status call(void *user, int set)
{
    (void)set;
    problem *p = user;
    if (p->o->jagged) {
        cute_hstu_jagged j = {&p->t[5], p->o->off, 0};
        return cutec_hstu_attention_jagged(p->lib, &p->t[0], &p->t[1], &p->t[2], &p->t[3], &p->t[4], &j, p->causal,
                                           p->fast, NULL, p->err, sizeof p->err);
    }
    return cutec_hstu_attention(p->lib, &p->t[0], &p->t[1], &p->t[2], &p->t[3], &p->t[4], p->causal, p->fast, NULL,
                                p->err, sizeof p->err);
}

/* the rows of O: B Sq H, jagged T H */
static int64_t o_rows(const hstu_opts *o)
{
    return (o->jagged ? o->off[o->B] : o->B * o->Sq) * o->H;
}

/* the sum over sequences of Sq Sk: their score matrices' sizes */
static double scores(const hstu_opts *o)
{
    double sum = 0;
    for (int64_t b = 0; o->jagged && b < o->B; b++)
        sum += (double)(o->off[b + 1] - o->off[b]) * (o->off[b + 1] - o->off[b]);
    return o->jagged ? sum : (double)o->B * (double)o->Sq * (double)o->Sk;
}

/* rows checked: all up to 4096, else a sample spread over O (fewer for long rows).  Q, K
 * and V are widened whole, RAB (Sq Sk values a head, 2 GiB at the example's shape) one
 * checked row at a time.  O's row e is (b, i, h) of (B, Sq, H), jagged row e / H of the
 * packed T (sequence b's i-th) and head e % H. */
static int64_t verify(const problem *p, const hstu_opts *o, int64_t *rows)
{
    int64_t total = o_rows(o), bad = 0, n[3];
    double *w[3];
    for (int i = 0; i < 3; i++) {
        n[i] = (int64_t)(p->m[i].bytes / (size_t)cute_dtype_bytes(o->dtype));
        w[i] = malloc((size_t)n[i] * sizeof(double));
        for (int64_t j = 0; w[i] && j < n[i]; j++) w[i][j] = ew_get(o->dtype, p->m[i].host, j);
    }
    double *want = malloc((size_t)o->D * 3 * sizeof(double)), *mag = want + o->D;
    double *rab = malloc((size_t)(o->Sk + 1) * sizeof(double));
    hstu_ref_problem rp = {o->B, o->Sq, o->Sk, o->H, o->D, o->causal, {w[0], {0}}, {w[1], {0}}, {w[2], {0}},
                           {rab, {0, 0, 0, 1}}, o->jagged ? o->off : NULL};
    for (int m = 0; m < 4; m++) /* jagged: (T, H, D) seen as (1, T, H, D) */
        rp.q.stride[m] = o->jagged ? (m ? p->t[0].stride[m - 1] : 0) : p->t[0].stride[m],
        rp.k.stride[m] = rp.v.stride[m] = o->jagged ? (m ? p->t[1].stride[m - 1] : 0) : p->t[1].stride[m];
    int64_t sample = (1 << 30) / ((o->Sk + 1) * o->D), step, seq = 0;
    sample = sample > 2048 ? 2048 : sample < 64 ? 64 : sample;
    step = total <= 4096 ? 1 : total / sample;
    *rows = 0;
    for (int64_t e = 0; e < total && w[0] && w[1] && w[2] && want && rab; e += step, ++*rows) {
        int64_t b = e / (o->Sq * o->H), i = e / o->H % o->Sq, h = e % o->H, keys = o->Sk;
        if (o->jagged) { /* e only grows: the sequence of row e / H from the last one on */
            while (o->off[seq + 1] <= e / o->H) seq++;
            b = seq, i = e / o->H - o->off[seq], keys = o->off[seq + 1] - o->off[seq];
        }
        const int64_t *sr = p->t[3].stride;
        for (int64_t j = 0; j < keys; j++)
            rab[j] = ew_get(o->dtype, p->m[3].host, b * sr[0] + h * sr[1] + i * sr[2] + j);
        hstu_ref_row(&rp, b, i, h, want, mag);
        for (int64_t d = 0; d < o->D; d++)
            bad += !hstu_ref_close(ew_get(o->dtype, p->m[4].host, e * o->D + d), want[d], mag[d], mag[o->D + d],
                                   o->dtype == CUTE_BF16, o->fast);
    }
    if (!*rows && total) bad = 1; /* out of memory: nothing checked */
    free(want), free(rab);
    for (int i = 0; i < 3; i++) free(w[i]);
    return bad;
}

/* 4 B H Sq Sk D (two products), half of it causal (Sq = Sk) */
static double flops(const hstu_opts *o)
{
    return 4.0 * scores(o) * (double)o->H * (double)o->D / (o->causal ? 2 : 1);
}

/* one checked call, then the median time (device events on the GPU, else < 0: not timed) */
static double run_one(problem *p, const hstu_opts *o, int64_t *bad, int64_t *rows)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    if (call(p, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec: %s\n", p->err[0] ? p->err : b->vt->error(b->self));
        return -2;
    }
    cli_mirror_download(b, &p->m[4]);
    *bad = verify(p, o, rows);
    cute_cuda *cu = cute_cuda_backend_driver(b);
    return cu ? gpu_time_calls(cu, call, p, 1, o->k.iters) : -1;
}

static void describe(const hstu_opts *o, char *buf, size_t n)
{
    if (o->jagged)
        snprintf(buf, n, "%s jagged B=%lld T=%lld H=%lld longest=%lld D=%lld%s%s", cute_dtype_name(o->dtype),
                 (long long)o->B, (long long)o->off[o->B], (long long)o->H, (long long)o->Sq, (long long)o->D,
                 o->causal ? " causal" : "", o->fast ? " fast" : "");
    else
        snprintf(buf, n, "%s B=%lld H=%lld Sq=%lld Sk=%lld D=%lld%s%s", cute_dtype_name(o->dtype), (long long)o->B,
                 (long long)o->H, (long long)o->Sq, (long long)o->Sk, (long long)o->D, o->causal ? " causal" : "",
                 o->fast ? " fast" : "");
}

/* the multiply-adds of a call: Q K^T and P V */
static double interp_work(const hstu_opts *o)
{
    return 2.0 * scores(o) * (double)o->H * (double)o->D;
}

static int run(const hstu_opts *o)
{
    problem p = {0};
    if (cute_runtime_new(o->k.backend, &p.rt, p.err, sizeof p.err) != CUTE_OK) {
        fprintf(stderr, "cutec run hstu: %s\n", p.err);
        return CLI_FAIL;
    }
    if (!cute_runtime_on_gpu(p.rt)) cute_runtime_set_target_arch(p.rt, o->k.arch); /* the interpreter's target */
    if (!cli_interp_fits("run hstu", p.rt, interp_work(o), CLI_INTERP_ATTENTION)) return cute_runtime_free(p.rt), CLI_USAGE;
    p.lib = cute_hstu_lib_new(p.rt);
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int64_t bad = -1, rows = 0;
    bool made = problem_make(&p, o, &seed);
    double ms = made ? run_one(&p, o, &bad, &rows) : -2;
    if (!made) fprintf(stderr, "cutec run hstu: the inputs could not be made (out of memory)\n");
    char what[160];
    describe(o, what, sizeof what);
    if (ms > -2) printf("hstu %s, backend %s: %s (%lld wrong in %lld rows)", what, cute_runtime_backend_name(p.rt),
                        bad ? "FAILED" : "verified against float64", (long long)bad, (long long)rows);
    if (ms >= 0) printf(", %.4f ms, %.1f TFLOP/s", ms, flops(o) / ms / 1e9);
    if (ms > -2) printf("\n");
    problem_drop(&p);
    cute_hstu_lib_free(p.lib);
    cute_runtime_free(p.rt);
    return ms > -2 && bad == 0 ? CLI_OK : CLI_FAIL;
}

/* PyTorch's ms for the shape, non-causal and causal (< 0: not taken), from one run of
 * bench/torch_hstu.py ($CUTEC_TORCH_HSTU) */
static void torch_ms(const hstu_opts *o, double ms[2])
{
    char args[256];
    snprintf(args, sizeof args, "%s %lldx%lldx%lldx%lldx%lld", cute_dtype_name(o->dtype), (long long)o->B,
             (long long)o->H, (long long)o->Sq, (long long)o->Sk, (long long)o->D);
    ms[0] = ms[1] = -1;
    cli_torch t = cli_torch_lines("torch", "CUTEC_TORCH_HSTU", "bench/torch_hstu.py", "torch ", args);
    for (int l = 0; l < t.n; l++) {
        int causal;
        double v;
        if (sscanf(t.line[l], "torch %*s %d %lf", &causal, &v) == 2 && (causal == 0 || causal == 1)) ms[causal] = v;
    }
    cli_torch_free(&t);
}

static int bench(const hstu_opts *base)
{
    char err[1024], clock[128];
    cute_runtime *rt;
    if (cute_runtime_new(base->k.backend ? base->k.backend : "cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench hstu: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt)); /* NULL: --backend interp, checks only */
    hstu_opts o = *base;
    if (!cli_interp_fits("bench hstu", rt, 2 * interp_work(&o), CLI_INTERP_ATTENTION)) /* causal and not */
        return cute_runtime_free(rt), CLI_USAGE;
    double torch[2] = {-1, -1};
    /* jagged: torch's dense form over the batch padded to the longest sequence (B x N), what a
     * PyTorch user without a jagged kernel runs (it does the padding's work too) */
    if (cu) torch_ms(&o, torch);
    const cute_device_info *dev = cu ? cute_cuda_device(cu) : NULL;
    gpu_sm_clock(cu, clock, sizeof clock);
    printf("# %s, %d SMs, %s; gaussian inputs; TFLOP/s = 4 H D sum Sq Sk / t (half causal); RAB %.3f GB read once\n",
           dev ? dev->name : "interpreter", dev ? dev->sm_count : 0, clock, 2.0 * (double)o.H * scores(&o) / 1e9);
    if (o.jagged) printf("# torch ms: its unfused dense form on the batch padded to the longest (%lld x %lld)\n",
                         (long long)o.B, (long long)o.Sq);
    printf("%-48s %9s %9s %8s %9s %9s\n", "hstu attention", "ms", "TFLOP/s", "checked", "torch ms", "speedup");
    problem p = {.rt = rt, .lib = cute_hstu_lib_new(rt)};
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int rc = problem_make(&p, &o, &seed) ? CLI_OK : CLI_FAIL;
    if (rc) fprintf(stderr, "cutec bench hstu: the inputs could not be made (out of memory)\n");
    for (int causal = 0; causal < 2 && rc == CLI_OK; causal++) {
        o.causal = causal, p.causal = causal;
        if (causal && o.Sk < o.Sq) break;
        int64_t bad = -1, rows = 0;
        double ms = poison(&p) ? run_one(&p, &o, &bad, &rows) : -2;
        char what[160];
        describe(&o, what, sizeof what);
        printf("%-48s %9.4f %9.1f %8lld", what, ms, ms > 0 ? flops(&o) / ms / 1e9 : 0.0, (long long)rows);
        if (torch[causal] > 0 && ms > 0) printf(" %9.4f %8.2fx", torch[causal], torch[causal] / ms);
        else printf(" %9s %9s", "-", "-");
        printf("%s\n", bad ? "  WRONG" : "");
        fflush(stdout);
        if (bad != 0 || (cu ? ms <= 0 : ms <= -2)) rc = CLI_FAIL;
    }
    problem_drop(&p);
    cute_hstu_lib_free(p.lib);
    cute_runtime_free(rt);
    return rc;
}

int cmd_hstu(int argc, char **argv)
{
    hstu_opts o;
    int rc = parse(argc, argv, &o);
    if (rc || cli_parse_only()) return rc;
    if (!strcmp(argv[0], "compile")) {
        if (!(o.k.emit = cli_emit_form(o.k.emit))) return usage(argv[0]);
        return emit(&o);
    }
    return !strcmp(argv[0], "run") ? run(&o) : bench(&o);
}
