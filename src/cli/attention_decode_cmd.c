/* cutec run|bench attention --decode: one query row a sequence against a KV cache of
 * --seqlen keys (cutec_attention_decode), checked against the float64 reference (up to 64
 * rows of O and their LSE), timed, and measured as bytes of K and V read per second beside a
 * device-to-device copy's (read + write) and PyTorch SDPA's on the same shape
 * (bench/torch_attention.py --decode, enable_gqa). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/attention_cli.h"
#include "cli/cli_torch.h"
#include "cli/gpu_timing.h"
#include "cli/mirror.h"
#include "cutec/attention.h"
#include "cutec/cuda_driver.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/ew_ref.h"

typedef struct decode_problem {
    cute_runtime *rt;
    cute_attention_lib *lib;
    cli_mirror m[5]; /* Q, K, V, O, LSE */
    cute_call_arg arg[5];
    char err[4096];
} decode_problem;

static bool make(decode_problem *p, const attn_opts *o, uint64_t *seed)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    size_t es = (size_t)cute_dtype_bytes(o->dtype), nq = (size_t)(o->B * o->H * o->D), nk = (size_t)(o->B * o->S * o->G * o->D);
    size_t sizes[5] = {nq * es, nk * es, nk * es, nq * es, (size_t)(o->B * o->H) * 4};
    for (int i = 0; i < 5; i++)
        if (!cli_mirror_alloc(b, &p->m[i], sizes[i]) ||
            !(i < 3 ? cli_mirror_gaussian(b, &p->m[i], o->dtype, seed) : cli_mirror_poison(b, &p->m[i])))
            return false;
    for (int i = 0; i < 4; i++) /* Q and O: one query row a sequence */
        p->arg[i] = cli_bshd_tensor(&p->m[i].dev, o->dtype, o->B, i % 3 ? o->S : 1, i % 3 ? o->G : o->H, o->D);
    for (int i = 1; i < 3 && o->kv_bhsd; i++) /* (B,S,G,D) with each head's keys together */
        p->arg[i] = cute_call_tensor(&p->m[i].dev, 0, o->dtype, 4, (int64_t[]){o->B, o->S, o->G, o->D},
                                     (int64_t[]){o->G * o->S * o->D, o->D, o->S * o->D, 1});
    p->arg[4] = cute_call_tensor(&p->m[4].dev, 0, CUTE_F32, 3, (int64_t[]){o->B, o->H, 1}, (int64_t[]){o->H, 1, 1});
    return true;
}

static void drop(decode_problem *p)
{
    cli_mirrors_free(cute_runtime_backend(p->rt), p->m, 5);
}

static cute_status call(void *user, int set)
{
    (void)set;
    decode_problem *p = user;
    const cute_call_arg *a = p->arg;
    return cutec_attention_decode(p->lib, &a[0], &a[1], &a[2], &a[3], &a[4], 0, NULL, p->err, sizeof p->err);
}

/* n elements of dtype d from `host` at element offset `at`, widened */
static void widen(cute_dtype d, const void *host, int64_t at, int64_t n, double *out)
{
    for (int64_t j = 0; j < n; j++) out[j] = ew_get(d, host, at + j);
}

/* the rows of O (and their LSE) of KV head g of batch b against float64: the group's query
 * heads against that head's keys and values, widened alone (K and V at the bench's sizes
 * are gigabytes: widening them whole took longer than the bench) */
static int64_t verify_group(const decode_problem *p, const attn_opts *o, int64_t b, int64_t g, double *w[3])
{
    int64_t group = o->H / o->G, bad = 0;
    double want[256], mag[256], l;
    for (int64_t r = 0; r < group; r++) widen(o->dtype, p->m[0].host, (b * o->H + g * group + r) * o->D, o->D, w[0] + r * o->D);
    const int64_t *st = p->arg[1].stride; /* K's and V's (B,S,G,D), either layout */
    for (int64_t s = 0; s < o->S; s++)
        for (int i = 1; i < 3; i++) widen(o->dtype, p->m[i].host, b * st[0] + s * st[1] + g * st[2], o->D, w[i] + s * o->D);
    attn_ref_problem rp = {1, 1, o->S, group, 1, o->D, false, 1 / sqrt((double)o->D), {w[0], {0, 0, o->D, 1}},
                           {w[1], {0, o->D, 0, 1}}, {w[2], {0, o->D, 0, 1}}};
    for (int64_t r = 0; r < group; r++) {
        int64_t e = b * o->H + g * group + r;
        attn_ref_row(&rp, 0, 0, r, want, mag, &l);
        for (int64_t d = 0; d < o->D; d++)
            bad += !attn_ref_close(ew_get(o->dtype, p->m[3].host, e * o->D + d), want[d], mag[d], o->dtype == CUTE_BF16);
        bad += !(fabs(((const float *)p->m[4].host)[e] - l) <= 1e-4 * (1 + fabs(l)));
    }
    return bad;
}

/* every query head of up to 16 (batch, KV head) pairs spread over the problem, at most 64
 * rows: O and the LSE against float64 */
static int64_t verify(const decode_problem *p, const attn_opts *o, int64_t *rows)
{
    int64_t pairs = o->B * o->G, group = o->H / o->G, want = 64 / group < 16 ? 64 / group : 16;
    int64_t step = (pairs + want - 1) / want, bad = 0;
    double *w[3] = {malloc((size_t)(group * o->D) * sizeof(double)), malloc((size_t)(o->S * o->D) * sizeof(double)),
                    malloc((size_t)(o->S * o->D) * sizeof(double))};
    *rows = 0;
    for (int64_t e = 0; e < pairs && w[0] && w[1] && w[2]; e += step, *rows += group)
        bad += verify_group(p, o, e / o->G, e % o->G, w);
    if (!*rows) bad = 1; /* out of host memory: nothing checked */
    for (int i = 0; i < 3; i++) free(w[i]);
    return bad;
}

/* one checked call, then the median ms (< 0: not timed; -2: failed) */
static double run_one(decode_problem *p, const attn_opts *o, int64_t *bad, int64_t *rows)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    cute_attention_lib_decode_splits(p->lib, (int)o->splits);
    if (call(p, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec: %s\n", p->err[0] ? p->err : b->vt->error(b->self));
        return -2;
    }
    for (int i = 3; i < 5; i++) cli_mirror_download(b, &p->m[i]);
    *bad = verify(p, o, rows);
    cute_cuda *cu = cute_cuda_backend_driver(b);
    return cu ? gpu_time_calls(cu, call, p, 1, o->k.iters) : -1;
}

static double kv_bytes(const attn_opts *o)
{
    return 2.0 * (double)o->B * o->S * o->G * o->D * cute_dtype_bytes(o->dtype);
}

/* SDPA's ms on each shape (< 0: not taken), one run of bench/torch_attention.py --decode */
static void torch_ms(cute_dtype d, const attn_opts *shapes, int n, double *ms)
{
    char args[1024];
    int len = snprintf(args, sizeof args, "--decode %s", cute_dtype_name(d));
    for (int i = 0; i < n; i++, ms[i - 1] = -1)
        len += snprintf(args + len, sizeof args - (size_t)len, " %lldx%lldx%lldx%lldx%lld", (long long)shapes[i].B,
                        (long long)shapes[i].H, (long long)shapes[i].G, (long long)shapes[i].S, (long long)shapes[i].D);
    cli_torch t = cli_torch_lines("SDPA", "CUTEC_TORCH_ATTENTION", "bench/torch_attention.py", "torch ", args);
    for (int l = 0; l < t.n; l++) {
        long long b, h, g, s, dd;
        int causal;
        double v;
        if (sscanf(t.line[l], "torch %lldx%lldx%lldx%lldx%lld %d %lf", &b, &h, &g, &s, &dd, &causal, &v) != 7) continue;
        for (int i = 0; i < n; i++)
            if (shapes[i].B == b && shapes[i].H == h && shapes[i].G == g && shapes[i].S == s && shapes[i].D == dd) ms[i] = v;
    }
    cli_torch_free(&t);
}

static void describe(const attn_opts *o, char *buf, size_t n)
{
    snprintf(buf, n, "decode %s B=%lld H=%lld G=%lld Sk=%lld D=%lld%s", cute_dtype_name(o->dtype), (long long)o->B,
             (long long)o->H, (long long)o->G, (long long)o->S, (long long)o->D, o->kv_bhsd ? " bhsd" : "");
}

static int bench_one(cute_runtime *rt, cute_attention_lib *lib, const attn_opts *o, double sdpa, uint64_t *seed)
{
    decode_problem p = {.rt = rt, .lib = lib};
    int64_t bad = -1, rows = 0;
    double ms = make(&p, o, seed) ? run_one(&p, o, &bad, &rows) : -2, gbs = ms > 0 ? kv_bytes(o) / ms / 1e6 : 0;
    double copy = ms > 0 ? gpu_copy_gbs(rt, (size_t)kv_bytes(o), o->k.iters) : -1;
    char what[160];
    describe(o, what, sizeof what);
    printf("%-44s %8.4f %8.1f %9.1f %6.1f%%", what, ms, gbs, copy, copy > 0 ? 100 * gbs / copy : 0.0);
    if (sdpa > 0) printf(" %8.1f %6.1f%%", kv_bytes(o) / sdpa / 1e6, 100 * sdpa / ms); else printf(" %8s %7s", "-", "-");
    printf(" %5lld%s\n", (long long)rows, bad ? "  WRONG" : "");
    fflush(stdout);
    drop(&p);
    return bad == 0 && ms > -2 ? CLI_OK : CLI_FAIL;
}

/* the multiply-adds of a call: one query row's q K^T and p V */
static double interp_work(const attn_opts *o)
{
    return 2.0 * (double)o->B * (double)o->H * (double)o->S * (double)o->D;
}

static int bench(const attn_opts *base, cute_runtime *rt)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    attn_opts shapes[2] = {*base, *base};
    int n = base->shape_given ? 1 : 2;
    if (!base->shape_given)
        for (int i = 0; i < 2; i++) shapes[i].B = 8, shapes[i].H = 32, shapes[i].G = i ? 8 : 32, shapes[i].S = 32768, shapes[i].D = 128;
    double work = interp_work(&shapes[0]) + (n > 1 ? interp_work(&shapes[1]) : 0);
    if (!cli_interp_fits("bench attention --decode", rt, work, CLI_INTERP_DECODE))
        return CLI_USAGE;
    double sdpa[2] = {-1, -1};
    if (cu) torch_ms(base->dtype, shapes, n, sdpa);
    char clock[128];
    gpu_sm_clock(cu, clock, sizeof clock);
    const cute_device_info *dev = cu ? cute_cuda_device(cu) : NULL;
    printf("# %s, %d SMs, %s; gaussian inputs; GB/s of K and V read; copy: the same bytes D2D, (read + write) / t\n",
           dev ? dev->name : "interpreter", dev ? dev->sm_count : 0, clock);
    printf("%-44s %8s %8s %9s %7s %8s %7s %5s\n", "attention decode", "ms", "GB/s", "copy GB/s", "of copy", "SDPA",
           "of SDPA", "rows");
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int rc = CLI_OK;
    for (int i = 0; i < n; i++)
        if (bench_one(rt, lib, &shapes[i], sdpa[i], &seed) != CLI_OK) rc = CLI_FAIL;
    cute_attention_lib_free(lib);
    return rc;
}

static int run(const attn_opts *o, cute_runtime *rt)
{
    decode_problem p = {.rt = rt, .lib = cute_attention_lib_new(rt)};
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int64_t bad = -1, rows = 0;
    double ms = make(&p, o, &seed) ? run_one(&p, o, &bad, &rows) : -2;
    char what[160];
    describe(o, what, sizeof what);
    if (ms > -2) printf("attention %s, backend %s: %s (%lld wrong in %lld rows)", what, cute_runtime_backend_name(rt),
                        bad ? "FAILED" : "verified against float64", (long long)bad, (long long)rows);
    if (ms >= 0) printf(", %.4f ms, %.1f GB/s of K and V", ms, kv_bytes(o) / ms / 1e6);
    if (ms > -2) printf("\n");
    drop(&p);
    cute_attention_lib_free(p.lib);
    return ms > -2 && bad == 0 ? CLI_OK : CLI_FAIL;
}

/* decode's turns: the problem and its options */
typedef struct decode_turns {
    decode_problem *p;
    const attn_opts *o;
} decode_turns;

static cute_attention_lib *turn_lib(void *user)
{
    return cute_attention_lib_new(((decode_turns *)user)->p->rt);
}

static double turn_checked(void *user, cute_attention_lib *lib, int64_t *bad, int64_t *rows)
{
    decode_turns *t = user;
    cute_backend *b = cute_runtime_backend(t->p->rt);
    t->p->lib = lib;
    bool poisoned = cli_mirror_poison(b, &t->p->m[3]) && cli_mirror_poison(b, &t->p->m[4]);
    return poisoned ? run_one(t->p, t->o, bad, rows) : -2;
}

static double turn_timed(void *user, cute_attention_lib *lib)
{
    decode_turns *t = user;
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(t->p->rt));
    t->p->lib = lib;
    return cu ? gpu_time_calls(cu, call, t->p, 1, t->o->k.iters) : -1;
}

/* `run --decode --turns`: the default and each form on one set of inputs in turns
 * (turns_run: attention_turns.c), a library each, made and called under the form's settings */
static int run_turns(const attn_opts *o, cute_runtime *rt)
{
    decode_problem p = {.rt = rt};
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int rc = CLI_FAIL;
    if (make(&p, o, &seed)) {
        char what[160];
        describe(o, what, sizeof what);
        decode_turns t = {&p, o};
        turn_ops ops = {cute_cuda_backend_driver(cute_runtime_backend(rt)), &t, turn_lib, turn_checked, turn_timed,
                        kv_bytes(o) / 1e6, "GB/s of K and V", NULL};
        rc = turns_run(o->turns, (int)o->rounds, what, &ops);
    }
    drop(&p);
    return rc;
}

int attention_decode_cmd(const attn_opts *o, bool bench_it)
{
    char err[1024];
    cute_runtime *rt;
    const char *backend = o->k.backend ? o->k.backend : bench_it ? "cuda" : NULL;
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        if (bench_it) return printf("cutec bench attention: skipped: no GPU (%s)\n", err), CLI_OK;
        return fprintf(stderr, "cutec run attention: %s\n", err), CLI_FAIL;
    }
    if (!bench_it && !cli_interp_fits("run attention --decode", rt, interp_work(o), CLI_INTERP_DECODE))
        return cute_runtime_free(rt), CLI_USAGE;
    int rc = bench_it ? bench(o, rt) : o->turns ? run_turns(o, rt) : run(o, rt);
    cute_runtime_free(rt);
    return rc;
}
