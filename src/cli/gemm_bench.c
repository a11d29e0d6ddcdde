/* `cutec bench gemm`: the library's variants against cuBLAS in one process, on the same
 * gaussian inputs in device memory, for square sizes or M x N x K: time, TFLOP/s (TOPS), the ratio to
 * cuBLAS, each result's largest difference from cuBLAS's, and a sample of its elements
 * against float64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/cli_torch.h"
#include "cli/cublas.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"
#include "cli/plot.h"
#include "cutec/gemm_tune.h"
#include "kernels/ew_ref.h"

enum { SAMPLES = 256 };

typedef struct bench_ctx {
    const gemm_opts *o;
    cute_runtime *rt;
    cute_backend *b;
    cute_cuda *cu;
    cute_gemm_lib *lib;
    cute_cublas *h;
    plot chart; /* --plot */
    double ceiling; /* --ceiling, given or measured (0: none) */
    char ceiling_words[512]; /* its header line */
    double torch_ms[GEMM_MAX_SIZES][2]; /* --scale: torch._scaled_mm, default and fast accumulation (< 0: none) */
    int size;                           /* the size being benched */
} bench_ctx;

static void print_row(const bench_ctx *x, int64_t size, const char *name, double ms, double flops, double ref_ms,
                      double diff, const char *verdict);

/* --scale: torch._scaled_mm's ms for every size, from one run of bench/torch_scaled_mm.py
 * ($CUTEC_TORCH_SCALED_MM): its own gaussian inputs of the same shapes */
static void torch_scaled_ms(bench_ctx *x)
{
    const gemm_opts *o = x->o;
    char args[1024];
    int len = snprintf(args, sizeof args, "%s%s %s", o->scale == CUTE_GEMM_SCALE_BLOCK ? "--block " : "",
                       cli_gemm_dtype_name(o->in), cli_gemm_dtype_name(o->out));
    for (int i = 0; i < o->nsizes; i++) {
        len += snprintf(args + len, sizeof args - (size_t)len, " %lldx%lldx%lld", (long long)o->sizes[i][0],
                        (long long)o->sizes[i][1], (long long)o->sizes[i][2]);
        x->torch_ms[i][0] = x->torch_ms[i][1] = -1;
    }
    cli_torch t = cli_torch_lines("torch._scaled_mm", "CUTEC_TORCH_SCALED_MM", "bench/torch_scaled_mm.py", "torch ", args);
    for (int l = 0; l < t.n; l++) {
        long long m, n, k;
        int fast;
        double ms;
        if (sscanf(t.line[l], "torch %lldx%lldx%lld %d %lf", &m, &n, &k, &fast, &ms) != 5) continue;
        for (int i = 0; i < o->nsizes; i++)
            if (o->sizes[i][0] == m && o->sizes[i][1] == n && o->sizes[i][2] == k) x->torch_ms[i][fast != 0] = ms;
    }
    cli_torch_free(&t);
}

/* the torch._scaled_mm rows of this size (where taken) */
static void torch_rows(bench_ctx *x, const gemm_problem *p, double ref_ms)
{
    static const char *const names[2] = {"torch_smm", "torch_smm_fast"};
    for (int fast = 0; fast < 2 && x->o->scale; fast++) {
        double ms = x->torch_ms[x->size][fast];
        if (ms > 0) print_row(x, p->m, names[fast], ms, gemm_flops(p), ref_ms, -1,
                              fast ? "(use_fast_accum=True)" : "(use_fast_accum=False, torch's default)");
    }
}

/* a variant's rate against torch._scaled_mm's, in its row's verdict */
static void torch_share(const bench_ctx *x, double ms, char *buf, size_t n)
{
    const double *t = x->torch_ms[x->size];
    int len = 0;
    for (int fast = 0; fast < 2 && x->o->scale; fast++)
        if (t[fast] > 0)
            len += snprintf(buf + len, n - (size_t)len, "; %.1f%% of torch_smm%s", 100 * t[fast] / ms, fast ? "_fast" : "");
}

typedef struct ref_call {
    cute_cublas *h;
    const gemm_problem *p;
    double alpha, beta;
} ref_call;

static cute_status call_ref(void *user, int set)
{
    ref_call *r = user;
    const gemm_problem *p = &r->p[set];
    cute_call_arg A = gemm_operand_arg(&p->a, p->l), B = gemm_operand_arg(&p->b, p->l),
                  C = gemm_operand_arg(&p->c, p->l);
    return cute_ref_gemm(r->h, &A, &B, &C, r->alpha, r->beta, NULL);
}

/* max |x - r| / max |r| over C's elements; NaN anywhere gives NaN */
static double max_rel_diff(const gemm_problem *p, const void *x, const void *r)
{
    double d = 0, big = 0;
    for (int64_t i = 0; i < p->c.elems; i++) {
        double xv = ew_get(p->out, x, i), rv = ew_get(p->out, r, i);
        if (xv != xv || rv != rv) return NAN;
        if (fabs(xv - rv) > d) d = fabs(xv - rv);
        if (fabs(rv) > big) big = fabs(rv);
    }
    return d / (big > 0 ? big : 1);
}

/* f32 and f64 results must also agree with cuBLAS's: two results in the same precision,
 * summed in different orders, differ by rounding that grows like sqrt(K) relative to
 * max |C| (about 3e-6 in f32 at K = 4096 on the H200): 8 u sqrt(K), u the unit roundoff,
 * and never below the per-element tolerance.  TF32 (u = 2^-11) lands thousands of times
 * above it.  The tensor-core dtypes: no bound (their float64 samples decide). */
static double diff_bound(cute_dtype d, int64_t k)
{
    if (d != CUTE_F32 && d != CUTE_F64) return INFINITY;
    double u = d == CUTE_F64 ? ldexp(1, -53) : ldexp(1, -24), t = 8 * u * sqrt((double)k);
    double tol = gemm_ref_tolerance(d, d);
    return t > tol ? t : tol;
}

/* a row of the table; "of ceiling" (after "of cuBLAS", so that the columns before it and
 * the verdict last stay where scripts read them) only with --ceiling */
static void print_row(const bench_ctx *x, int64_t size, const char *name, double ms, double flops, double ref_ms,
                      double diff, const char *verdict)
{
    char ratio[16] = "-", dif[16] = "-", ceil_share[24] = "";
    if (ref_ms > 0) snprintf(ratio, sizeof ratio, "%.1f%%", 100.0 * ref_ms / ms);
    if (diff >= 0 || diff != diff) snprintf(dif, sizeof dif, "%.2e", diff);
    if (x->ceiling > 0) snprintf(ceil_share, sizeof ceil_share, " %10.1f%%", 100.0 * flops / ms / 1e9 / x->ceiling);
    printf("%-6lld %-10s %10.4f %9.2f %9s%s %12s  %s\n", (long long)size, name, ms, flops / ms / 1e9, ratio, ceil_share,
           dif, verdict);
}

int gemm_bench_sets(cute_cuda *cu, cute_dtype in, cute_dtype out, int64_t l, const int64_t mnk[3])
{
    size_t m = (size_t)mnk[0], n = (size_t)mnk[1], k = (size_t)mnk[2];
    size_t set_bytes = (size_t)l * ((m + n) * k * (size_t)cute_dtype_bytes(in) + m * n * (size_t)cute_dtype_bytes(out));
    size_t l2 = (size_t)cute_cuda_device(cu)->l2_bytes;
    int sets = (int)((3 * l2 + set_bytes - 1) / set_bytes);
    return sets < 1 ? 1 : sets > 8 ? 8 : sets;
}

static int sets_for(bench_ctx *x, const int64_t mnk[3])
{
    return gemm_bench_sets(x->cu, x->o->in, x->o->out, x->o->l, mnk);
}

/* cuBLAS on set 0 from C0 (its result, sampled against float64, into ref), then timed;
 * the milliseconds per call, 0 when cuBLAS has no kernel for the problem, < 0 on failure */
static double bench_cublas(bench_ctx *x, const gemm_problem *p, int sets, void *ref)
{
    const gemm_opts *o = x->o;
    cute_backend *b = x->b;
    ref_call rc = {x->h, p, o->alpha, o->beta};
    cute_status s = call_ref(&rc, 0);
    if (s == CUTE_ERR_INVALID) {
        printf("%-6lld %-10s %10s  unsupported: %s\n", (long long)p->m, "cublas", "-", cute_cublas_error(x->h));
        return 0;
    }
    if (s != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK ||
        b->vt->download(b->self, ref, &p[0].c.buf, 0, gemm_operand_bytes(&p->c)) != CUTE_OK) {
        printf("%-6lld %-10s failed: %s\n", (long long)p->m, "cublas",
               s != CUTE_OK ? cute_cublas_error(x->h) : b->vt->error(b->self));
        return -1;
    }
    gemm_verdict v;
    gemm_check_sample(p, ref, o->alpha, o->beta, gemm_ref_tolerance(o->in, o->out), o->seed, SAMPLES, &v);
    double ms = gpu_time_calls(x->cu, call_ref, &rc, sets, o->iters);
    if (ms < 0) return printf("%-6lld cublas     timing failed: %s\n", (long long)p->m, cute_cublas_error(x->h)), -1;
    plot_add(&x->chart, "cuBLAS", true, (double)p->m, gemm_flops(p) / ms / 1e9);
    print_row(x, p->m, "cublas", ms, gemm_flops(p), ms, -1,
              v.bad ? "WRONG vs float64 (sampled)" : "ok vs float64 (256 samples)");
    return v.bad ? -1 : ms;
}

/* the row's name: the sweep's (the variant's, its cluster and raster), "+" the fused
 * epilogue's, the scales' */
static const char *row_name(const gemm_problem *p, const char *name, char *buf, size_t n)
{
    if (p->dual) return snprintf(buf, n, "%s+swiglu", name), buf;
    if (p->scale)
        return snprintf(buf, n, "%s+%s%s%s", name, p->scale == CUTE_GEMM_SCALE_BLOCK ? "blk" : "scl",
                        p->amax ? "+amax" : "", p->out_scale ? "+os" : ""), buf;
    if (!cute_gemm_epilogue_fused(&p->epi)) return name;
    snprintf(buf, n, "%s%s%s%s", name, p->epi.bias ? "+bias" : "", p->epi.act ? "+" : "",
             p->epi.act ? cute_gemm_act_name(p->epi.act) : "");
    return buf;
}

/* the first call of c on q (c's problem, set 0), checked: C back to C0 and amax to 0, one
 * call, C downloaded into got and sampled against float64 into v; CALL_CHECKED, or the row's
 * line printed and CALL_UNSUPPORTED (a variant that cannot take this yet) or CALL_FAILED */
typedef enum { CALL_CHECKED, CALL_UNSUPPORTED, CALL_FAILED } call_checked;
static call_checked call_and_check(bench_ctx *x, gemm_lib_call *c, gemm_problem *q, const char *name, void *got,
                                   gemm_verdict *v)
{
    const gemm_opts *o = x->o;
    cute_backend *b = x->b;
    size_t cbytes = gemm_operand_bytes(&q->c);
    static const float zero = 0;
    if (b->vt->upload(b->self, &q->c.buf, 0, q->c0, cbytes) != CUTE_OK ||
        (q->amax && b->vt->upload(b->self, &q->amax_v.buf, 0, &zero, sizeof zero) != CUTE_OK))
        return printf("%-6lld %-10s failed: %s\n", (long long)q->m, name, b->vt->error(b->self)), CALL_FAILED;
    cute_status s = gemm_call_lib(c, 0);
    if (s == CUTE_ERR_COMPILE || s == CUTE_ERR_INVALID)
        return printf("%-6lld %-10s %10s  unsupported: %.90s\n", (long long)q->m, name, "-", c->err), CALL_UNSUPPORTED;
    if (s != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK || b->vt->download(b->self, got, &q->c.buf, 0, cbytes) != CUTE_OK)
        return printf("%-6lld %-10s failed: %s\n", (long long)q->m, name, c->err[0] ? c->err : b->vt->error(b->self)),
               CALL_FAILED;
    gemm_check_sample(q, got, c->alpha, c->beta, gemm_ref_tolerance(o->in, o->out), o->seed + 1, SAMPLES, v);
    return CALL_CHECKED;
}

/* each round's ratio of call 1's timing to call 0's, in time (rt) and in cycles (time x clock:
 * rc); true when every timing had its clock */
static bool turn_ratios(const gpu_turns *t, double *rt, double *rc)
{
    bool clocked = true;
    for (int r = 0; r < t->rounds; r++) {
        rt[r] = t->ms[1][r] / t->ms[0][r];
        rc[r] = t->ms[1][r] * t->mhz[1][r] / (t->ms[0][r] * t->mhz[0][r]);
        clocked = clocked && t->mhz[0][r] > 0 && t->mhz[1][r] > 0;
    }
    return clocked;
}

/* the variant's call c timed alone: the median ms of --iters timings */
static double gemm_time_calls_of(bench_ctx *x, gemm_lib_call *c, int sets)
{
    return gpu_time_calls(x->cu, gemm_call_lib, c, sets, x->o->iters);
}

/* --turns: cuBLAS and the variant's call c timed in turns (AB BA ...), --iters rounds of one
 * timing each, the clock beside; prints the turns' line (the median of the rounds' ratios, their
 * least and largest, in time and in cycles, and each one's clock) and sets *ref_ms to cuBLAS's
 * median of these turns; the variant's median ms, < 0 on failure */
static double time_turns_cublas(bench_ctx *x, const gemm_problem *p, int sets, gemm_lib_call *c, const char *name,
                                double *ref_ms)
{
    static gpu_turns t;
    static double rt[GPU_TURNS_MAX], rc[GPU_TURNS_MAX];
    ref_call r = {x->h, p, x->o->alpha, x->o->beta};
    gpu_timed_call fn[2] = {gemm_call_lib, call_ref};
    void *user[2] = {c, &r};
    if (!gpu_time_turns(x->cu, fn, user, sets, x->o->iters, &t)) return -1;
    bool clocked = turn_ratios(&t, rt, rc); /* cuBLAS's time over ours: % of cuBLAS */
    double ms[2], mhz[2];
    for (int i = 0; i < 2; i++) ms[i] = gpu_median(t.ms[i], t.rounds), mhz[i] = gpu_median(t.mhz[i], t.rounds);
    double mid = gpu_median(rt, t.rounds), lo = rt[0], hi = rt[t.rounds - 1]; /* (sorted) */
    printf("turns %s at %lldx%lldx%lld: %.1f%% of cuBLAS (the median of %d rounds' ratios; least %.1f%%, largest "
           "%.1f%%)", name, (long long)p->m, (long long)p->n, (long long)p->k, 100 * mid, t.rounds, 100 * lo, 100 * hi);
    if (clocked) printf(", in cycles %.1f%%; clock %.0f MHz, cuBLAS's %.0f", 100 * gpu_median(rc, t.rounds), mhz[0], mhz[1]);
    else printf(", no clock (no NVML)");
    printf("; cuBLAS %.4f ms\n", ms[1]);
    *ref_ms = ms[1];
    return ms[0];
}

/* one variant: C back to C0, one call checked (against cuBLAS too where there is no fused
 * epilogue), then timed; CLI_OK, CLI_FAIL */
static int bench_variant(bench_ctx *x, gemm_problem *p, int sets, cute_gemm_variant var, const char *sweep_name,
                         const void *ref, double ref_ms, void *got)
{
    const gemm_opts *o = x->o;
    cute_backend *b = x->b;
    gemm_lib_call c = {x->lib, var, p, o->alpha, o->beta, ""};
    char buf[96];
    const char *name = row_name(p, sweep_name, buf, sizeof buf);
    gemm_verdict v;
    call_checked called = call_and_check(x, &c, p, name, got, &v);
    if (called != CALL_CHECKED) return called == CALL_UNSUPPORTED ? CLI_OK : CLI_FAIL;
    double diff = ref_ms > 0 && !cute_gemm_epilogue_fused(&p->epi) && !p->dual && !p->scale ? max_rel_diff(p, got, ref)
                                                                                            : -1;
    bool ok = v.bad == 0 && !(diff > diff_bound(o->in, p->k)) && diff == diff;
    plot_progress("size %lld: %s", (long long)p->m, name);
    double ms = o->turns && ref_ms > 0 ? time_turns_cublas(x, p, sets, &c, name, &ref_ms) /* (cuBLAS has a kernel) */
                                        : gemm_time_calls_of(x, &c, sets);
    plot_progress_done();
    if (ms >= 0) plot_add(&x->chart, name, false, (double)p->m, gemm_flops(p) / ms / 1e9);
    if (ms < 0) {
        printf("%-6lld %-10s timing failed: %s\n", (long long)p->m, name, c.err[0] ? c.err : b->vt->error(b->self));
        return CLI_FAIL;
    }
    char verdict[160];
    snprintf(verdict, sizeof verdict, "%s", ok ? "ok" : v.bad ? "WRONG vs float64 (sampled)" : "WRONG vs cuBLAS");
    torch_share(x, ms, verdict + strlen(verdict), sizeof verdict - strlen(verdict));
    print_row(x, p->m, name, ms, gemm_flops(p), ref_ms, diff, verdict);
    return ok ? CLI_OK : CLI_FAIL;
}

/* --epilogue-cost: amax against the largest |C| of the checked call (before the output
 * scale), within C's rounding; C itself is sampled against float64 */
static bool amax_consistent(bench_ctx *x, const gemm_problem *p, const void *got, char *why, size_t n)
{
    float amax = 0;
    if (x->b->vt->download(x->b->self, &amax, &p->amax_v.buf, 0, sizeof amax) != CUTE_OK)
        return snprintf(why, n, "amax: %s", x->b->vt->error(x->b->self)), false;
    double big = 0, so = p->out_scale ? ew_get(CUTE_F32, p->so.host, 0) : 1;
    for (int64_t i = 0; i < p->c.elems; i++) big = fmax(big, fabs(ew_get(p->out, got, i)) / so);
    double rel = p->out == CUTE_F32 ? 1e-6 : p->out == CUTE_F16 ? 1e-3 : 8e-3; /* C's unit roundoff, and some */
    bool ok = fabs(amax - big) <= rel * big;
    snprintf(why, n, "amax %.6g, max |C| %.6g%s; ", amax, big, ok ? "" : ": WRONG");
    return ok;
}

/* --epilogue-cost: the variant plain (alpha 1, beta 0, no epilogue, amax or output scale) and
 * with p's epilogue, each from C0 and sampled against float64 (amax against C), then timed in
 * turns with the clock beside; a row each and the cost line; CLI_OK, CLI_FAIL */
static int bench_cost(bench_ctx *x, gemm_problem *p, int sets, cute_gemm_variant var, const char *sweep_name,
                      double ref_ms, void *got)
{
    const gemm_opts *o = x->o;
    cute_backend *b = x->b;
    gemm_problem plain[8];
    for (int i = 0; i < sets; i++) {
        plain[i] = p[i];
        plain[i].epi = (cute_gemm_epilogue){0}, plain[i].amax = false, plain[i].out_scale = false;
    }
    static gemm_lib_call c[2];
    c[0] = (gemm_lib_call){x->lib, var, plain, 1, 0, ""}, c[1] = (gemm_lib_call){x->lib, var, p, o->alpha, o->beta, ""};
    char name[2][128], epi[96], notes[2][160] = {"", ""};
    int len = snprintf(name[1], sizeof name[1], "%s", row_name(p, sweep_name, epi, sizeof epi));
    if (o->alpha != 1) len += snprintf(name[1] + len, sizeof name[1] - (size_t)len, "+a%g", o->alpha);
    if (o->beta != 0) snprintf(name[1] + len, sizeof name[1] - (size_t)len, "+b%g", o->beta);
    snprintf(name[0], sizeof name[0], "%s", row_name(plain, sweep_name, epi, sizeof epi));
    for (int i = 0; i < 2; i++) {
        gemm_problem *q = i ? p : plain;
        gemm_verdict v;
        call_checked called = call_and_check(x, &c[i], q, name[i], got, &v);
        if (called != CALL_CHECKED) return called == CALL_UNSUPPORTED ? CLI_OK : CLI_FAIL;
        bool ok = v.bad == 0 && (!q->amax || amax_consistent(x, q, got, notes[i], sizeof notes[i]));
        if (!ok) {
            printf("%-6lld %-10s %s%s\n", (long long)p->m, name[i], notes[i], v.bad ? "WRONG vs float64 (sampled)" : "");
            return CLI_FAIL;
        }
    }
    static gpu_turns t;
    gpu_timed_call fn[2] = {gemm_call_lib, gemm_call_lib};
    void *user[2] = {&c[0], &c[1]};
    plot_progress("size %lld: %s in turns", (long long)p->m, name[1]);
    bool timed = gpu_time_turns(x->cu, fn, user, sets, o->iters, &t);
    plot_progress_done();
    if (!timed) {
        printf("%-6lld %-10s timing failed: %s\n", (long long)p->m, name[1], c[1].err[0] ? c[1].err : c[0].err[0] ? c[0].err
                                                                                                : b->vt->error(b->self));
        return CLI_FAIL;
    }
    /* each round's ratio (epilogue / plain), in time and in cycles (time x clock) */
    static double rt[GPU_TURNS_MAX], rc[GPU_TURNS_MAX];
    double ms[2], mhz[2];
    bool clocked = turn_ratios(&t, rt, rc);
    for (int i = 0; i < 2; i++) {
        ms[i] = gpu_median(t.ms[i], t.rounds), mhz[i] = gpu_median(t.mhz[i], t.rounds);
        char verdict[512];
        if (clocked) snprintf(verdict, sizeof verdict, "%.0f MHz, %.3f Mcycles; %sok", mhz[i], ms[i] * mhz[i] / 1e3, notes[i]);
        else snprintf(verdict, sizeof verdict, "no clock (no NVML); %sok", notes[i]);
        plot_add(&x->chart, name[i], false, (double)p->m, gemm_flops(p) / ms[i] / 1e9);
        print_row(x, p->m, name[i], ms[i], gemm_flops(p), ref_ms, -1, verdict);
    }
    double cost_t = 100 * (gpu_median(rt, t.rounds) - 1);
    printf("cost %s at %lldx%lldx%lld: time %+.2f%%", name[1], (long long)p->m, (long long)p->n, (long long)p->k, cost_t);
    if (clocked) printf(", cycles %+.2f%%", 100 * (gpu_median(rc, t.rounds) - 1));
    else printf(", cycles - (no clock)");
    printf(" (median of %d rounds' ratios; plain %.4f ms", t.rounds, ms[0]);
    if (clocked) printf(" at %.0f MHz", mhz[0]);
    printf(", with it %.4f ms", ms[1]);
    if (clocked) printf(" at %.0f MHz", mhz[1]);
    printf(")\n");
    return CLI_OK;
}

/* the sweep's lists, each its count or 1: clusters, rasters, schedules, tiles, stores */
enum { SWEEP_LISTS = 6 };
static void sweep_counts(const gemm_opts *o, int count[SWEEP_LISTS])
{
    const int n[SWEEP_LISTS] = {o->nclusters, o->nrasters, o->nschedules, o->ntiles, o->nstores, o->nstages};
    for (int i = 0; i < SWEEP_LISTS; i++) count[i] = n[i] ? n[i] : 1;
}

/* the sweep's combination i: its tiling (the command's, with the listed values of i set)
 * and its row's name, the variant's and what it sets: hopper2x1r16-pp-t64x256x64-tile */
static cute_gemm_tiling sweep_at(const gemm_opts *o, int i, cute_gemm_variant var, char *name, size_t n)
{
    static const char *sched_tags[] = {"-auto", "-coop", "-pp", "-persistent", "-sk"};
    static const char *store_tags[] = {"-sauto", "-tma", "-st", "-tile"};
    cute_gemm_tiling t = o->tiling;
    int len = snprintf(name, n, "%s", cute_gemm_variant_name(var)), count[SWEEP_LISTS], at[SWEEP_LISTS];
    sweep_counts(o, count);
    for (int d = 0; d < SWEEP_LISTS; d++) at[d] = i % count[d], i /= count[d];
    if (o->nclusters) {
        t.cluster_m = o->clusters[at[0]][0], t.cluster_n = o->clusters[at[0]][1];
        len += snprintf(name + len, n - (size_t)len, "%dx%d", t.cluster_m, t.cluster_n);
    }
    if (o->nrasters) len += snprintf(name + len, n - (size_t)len, "r%d", t.raster = o->rasters[at[1]]);
    if (o->nschedules) t.schedule = o->schedules[at[2]].schedule;
    if (o->nschedules) len += snprintf(name + len, n - (size_t)len, "%s", sched_tags[t.schedule]);
    if (o->ntiles) {
        t.bm = o->tiles[at[3]].bm, t.bn = o->tiles[at[3]].bn, t.bk = o->tiles[at[3]].bk;
        len += snprintf(name + len, n - (size_t)len, "-t%dx%dx%d", t.bm, t.bn, t.bk);
    }
    if (o->nstores) t.c_store = o->stores[at[4]].c_store;
    if (o->nstores) len += snprintf(name + len, n - (size_t)len, "%s", store_tags[t.c_store]);
    if (o->nstages) len += snprintf(name + len, n - (size_t)len, "-s%d", t.stages = o->stage_list[at[5]].stages);
    static const char *mul_tags[] = {[CUTE_GEMM_SCALE_MUL_PROMOTE] = "prom", [CUTE_GEMM_SCALE_MUL_LOAD] = "load",
                                     [CUTE_GEMM_SCALE_MUL_STAGED] = "staged", [CUTE_GEMM_SCALE_MUL_INTERLEAVE] = "ilv"};
    if (t.scale_mul) snprintf(name + len, n - (size_t)len, "-mul%s", mul_tags[t.scale_mul]);
    return t;
}

/* the variant with each combination of the sweep (the lib's tiling set for each), a row each */
static int bench_sweep(bench_ctx *x, gemm_problem *p, int sets, cute_gemm_variant var, const void *ref,
                       double ref_ms, void *got)
{
    int rc = CLI_OK, count[SWEEP_LISTS], combos = 1;
    sweep_counts(x->o, count);
    for (int d = 0; d < SWEEP_LISTS; d++) combos *= count[d];
    for (int i = 0; i < combos && rc == CLI_OK; i++) {
        char name[96];
        cute_gemm_tiling t = sweep_at(x->o, i, var, name, sizeof name);
        cute_gemm_lib_tiling(x->lib, &t);
        rc = x->o->epilogue_cost ? bench_cost(x, p, sets, var, name, ref_ms, got)
                                 : bench_variant(x, p, sets, var, name, ref, ref_ms, got);
    }
    return rc;
}

/* --epilogue swiglu: the unfused reference (two cuBLAS GEMMs and silu(x) * y), then each
 * variant's dual GEMM against it, on the problems with a B1 added */
static int bench_swiglu(bench_ctx *x, gemm_problem *p, int sets, const void *ref, void *got)
{
    const gemm_opts *o = x->o;
    for (int i = 0; i < sets; i++)
        if (!gemm_problem_dual(x->b, &p[i], o->seed + 100 + (uint64_t)i)) return CLI_FAIL;
    char err[512] = "";
    double ms = gemm_bench_swiglu_ref(x->rt, x->h, p, sets, o->iters, err, sizeof err);
    if (ms < 0) return printf("%-6lld cublas x2 + silu*mul failed: %s\n", (long long)p->m, err), CLI_FAIL;
    print_row(x, p->m, "cublas x2 + silu*mul", ms, gemm_flops(p), ms, -1, "(the unfused reference)");
    int rc = CLI_OK;
    for (int i = 0; i < o->nvariants && rc == CLI_OK; i++) rc = bench_sweep(x, p, sets, o->variants[i], ref, ms, got);
    return rc;
}

/* the auto row's configuration: the tuning file's entry for the shape, or the default, and why */
static void print_choice(bench_ctx *x, const int64_t mnk[3])
{
    const gemm_opts *o = x->o;
    int major[3];
    cute_gemm_choice c;
    cli_gemm_layout_majors(o->layout, major);
    cute_gemm_lib_choice(x->lib, o->in, o->out, major, mnk[0], mnk[1], mnk[2], &c);
    char text[512] = "";
    if (c.tuned) cute_gemm_tune_config_text(c.variant, &c.tiling, text, sizeof text);
    printf("# auto: %s%s%s\n", c.why, c.tuned ? ": " : "", text);
}

static int bench_size(bench_ctx *x, const int64_t mnk[3])
{
    const gemm_opts *o = x->o;
    int sets = sets_for(x, mnk), made = 0, rc = CLI_OK;
    gemm_problem p[8];
    int64_t size = mnk[0], mnkl[4] = {mnk[0], mnk[1], mnk[2], o->l};
    if (mnk[1] != size || mnk[2] != size) /* the rows name M only */
        printf("# M %lld, N %lld, K %lld:\n", (long long)mnk[0], (long long)mnk[1], (long long)mnk[2]);
    for (; made < sets; made++)
        if (!gemm_problem_make(x->b, &p[made], o->in, o->out, mnkl, o->layout, 0, o->seed + (uint64_t)made) ||
            (o->coarse && !gemm_problem_coarsen(x->b, &p[made]))) {
            gemm_problem_drop(x->b, &p[made]);
            break;
        }
    size_t cbytes = made ? gemm_operand_bytes(&p[0].c) : 0;
    void *ref = made == sets ? malloc(cbytes) : NULL, *got = ref ? malloc(cbytes) : NULL;
    if (!got) {
        printf("%-6lld out of device or host memory for %d input sets\n", (long long)size, sets);
        rc = CLI_FAIL;
    }
    double ref_ms = got ? bench_cublas(x, p, sets, ref) : -1;
    if (ref_ms < 0) rc = CLI_FAIL;
    for (int i = 0; i < made && rc == CLI_OK && o->scale; i++) /* --scale: after cuBLAS's unscaled reference */
        if (!gemm_problem_scale(x->b, &p[i], o, o->seed + (uint64_t)i)) rc = CLI_FAIL;
    if (rc == CLI_OK) torch_rows(x, p, ref_ms);
    for (int i = 0; i < o->nvariants && rc == CLI_OK; i++)
        if (o->variants[i] == CUTE_GEMM_AUTO) print_choice(x, mnk);
    /* --epilogue-cost: the epilogue fused first; each variant then times itself plain beside it */
    for (int i = 0; i < made && rc == CLI_OK && o->epilogue_cost && cute_gemm_epilogue_fused(&o->epi); i++)
        if (!gemm_problem_fuse(x->b, &p[i], &o->epi, o->seed + (uint64_t)i)) rc = CLI_FAIL;
    for (int i = 0; i < o->nvariants && rc == CLI_OK; i++)
        if (bench_sweep(x, p, sets, o->variants[i], ref, ref_ms, got) != CLI_OK) rc = CLI_FAIL;
    /* --epilogue: each variant again with it (those without one say so), on the same inputs */
    for (int i = 0; i < made && rc == CLI_OK && !o->epilogue_cost && cute_gemm_epilogue_fused(&o->epi); i++)
        if (!gemm_problem_fuse(x->b, &p[i], &o->epi, o->seed + (uint64_t)i)) rc = CLI_FAIL;
    for (int i = 0; i < o->nvariants && rc == CLI_OK && !o->epilogue_cost && cute_gemm_epilogue_fused(&o->epi); i++)
        if (bench_sweep(x, p, sets, o->variants[i], ref, ref_ms, got) != CLI_OK) rc = CLI_FAIL;
    if (rc == CLI_OK && o->dual) rc = bench_swiglu(x, p, made, ref, got);
    char clock[128];
    gpu_sm_clock(x->cu, clock, sizeof clock);
    if (clock[0]) printf("#      SM clock after these runs (now, max): %s; %d input set%s rotated\n", clock,
                         sets, sets > 1 ? "s" : "");
    free(ref), free(got);
    for (int i = 0; i < made; i++) gemm_problem_drop(x->b, &p[i]);
    return rc;
}

static const char *cublas_words(cute_dtype in)
{
    switch (in) {
    case CUTE_F32: return "cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_32F: no TF32";
    case CUTE_F64: return "cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_64F";
    case CUTE_I8: return "cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_32I";
    case CUTE_TF32: return "cublasGemmStridedBatchedEx on the f32 words, CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUTE_E4M3:
    case CUTE_E5M2: return "cublasLtMatmul, CUBLAS_COMPUTE_32F, unit per-tensor scales";
    default: return "cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_32F";
    }
}

static void print_header(bench_ctx *x)
{
    const gemm_opts *o = x->o;
    const cute_device_info *d = cute_cuda_device(x->cu);
    printf("# %s (%s), %d SMs, peak SM clock %d MHz, L2 %d MB; cuBLAS %s (version %d)\n", d->name, d->arch,
           d->sm_count, d->clock_khz / 1000, d->l2_bytes >> 20, cute_cublas_path(x->h), cute_cublas_version(x->h));
    printf("# %s -> %s M=N=K", cli_gemm_dtype_name(o->in), cli_gemm_dtype_name(o->out));
    if (o->l > 1) printf(", L=%lld", (long long)o->l);
    /* (gemm_problem_coarsen cuts f16, f32 and tf32 operands; the others are left as they are) */
    bool cut = o->in == CUTE_F16 || o->in == CUTE_F32 || o->in == CUTE_TF32;
    printf(", layout %s (%s), alpha %g, beta %g, seed %llu, gaussian inputs%s\n", o->layout,
           cli_gemm_major_words(o->layout), o->alpha, o->beta, (unsigned long long)o->seed,
           !o->coarse ? ""
           : cut      ? " (A and B cut to bf16's 8 significant bits: --fill coarse)"
                      : " (--fill coarse: no change for this dtype)");
    printf("# cuBLAS: %s\n", cublas_words(o->in));
    if (o->dual)
        printf("# then --epilogue swiglu: C = silu(A B0^T) (A B1^T), two cuBLAS calls and cutec's elementwise silu(x) y, "
               "then each variant's dual GEMM (TFLOP/s of both products; of cuBLAS: of that)\n");
    if (o->scale)
        printf("# each variant with %s fp8 scales%s%s (f32 in device memory; the check: float64 with them); cuBLAS's "
               "row unscaled; torch._scaled_mm (bench/torch_scaled_mm.py) in a process of its own on inputs alike\n",
               o->scale == CUTE_GEMM_SCALE_BLOCK ? "block (1x128 A, 128x128 B)" : "per-tensor", o->amax ? ", amax" : "",
               o->out_scale > 0 ? ", an output scale" : "");
    if (cute_gemm_epilogue_fused(&o->epi))
        printf("# then each variant with the fused epilogue%s%s (its check: float64 with the epilogue; of cuBLAS: plain "
               "cuBLAS's time)\n", o->epi.bias ? o->epi.bias == CUTE_GEMM_BIAS_ROW ? ", row bias" : ", column bias" : "",
               o->epi.act ? cute_gemm_act_name(o->epi.act) : "");
    static const char *widths[] = {("each variant's faster width where extents and leading dimensions are <= 32768"),
                                   "32-bit where extents and leading dimensions are <= 32768 (--index 32)",
                                   "64-bit (--index 64)"};
    printf("# index arithmetic: %s\n", widths[o->index_bits / 32]);
    if (x->ceiling_words[0]) printf("%s\n", x->ceiling_words);
    if (o->epilogue_cost)
        printf("# --epilogue-cost: each variant plain (alpha 1, beta 0, no epilogue%s) and with the epilogue, both checked,\n"
               "#   then timed in turns (AB BA ...), %d rounds of one timing each; the SM clock (NVML) sampled beside each\n"
               "#   timing; ms and MHz the medians; cost: the median of the rounds' ratios, in time and in cycles\n",
               o->scale ? ", amax or output scale; the input scales kept" : "", o->iters);
    else if (o->turns)
        printf("# --turns: each variant checked, then timed in turns with cuBLAS (AB BA ...), %d rounds of one timing each\n"
               "#   (about 2 ms, or $CUTEC_BENCH_SPAN_MS), the SM clock (NVML) sampled beside each; ms the median, of cuBLAS: against cuBLAS's\n"
               "#   median of the same turns (cuBLAS's own row: its earlier timing, alone); the turns line: the rounds' ratios\n",
               o->iters);
    else
        printf("# time: median of %d CUDA-event timings, each over back-to-back calls (about 2 ms)\n", o->iters);
    printf("# check: %d elements of each result against float64, error relative to the sum of |terms|\n"
           "#   (allowed %g); diff: max |C - C_cuBLAS| / max |C_cuBLAS|", SAMPLES, gemm_ref_tolerance(o->in, o->out));
    if (isfinite(diff_bound(o->in, 4096))) printf(", allowed max(%g, 8 u sqrt(K))", gemm_ref_tolerance(o->in, o->in));
    printf("\n%-6s %-10s %10s %9s %9s%s %12s  %s\n", "size", "kernel", "ms", gemm_rate_unit(o->in), "of cuBLAS",
           x->ceiling > 0 ? " of ceiling" : "", "diff", "check");
}

/* --plot: each variant and cuBLAS against size, the ceiling given or cuBLAS's best */
static bool write_chart(bench_ctx *x)
{
    const gemm_opts *o = x->o;
    plot *c = &x->chart;
    const cute_device_info *d = cute_cuda_device(x->cu);
    snprintf(c->title, sizeof c->title, "GEMM %s -> %s, layout %s, %.100s", cli_gemm_dtype_name(o->in),
             cli_gemm_dtype_name(o->out), o->layout, d->name);
    snprintf(c->x_label, sizeof c->x_label, "M = N = K");
    snprintf(c->y_label, sizeof c->y_label, "%s", gemm_rate_unit(o->in));
    c->ceiling = x->ceiling;
    snprintf(c->ceiling_label, sizeof c->ceiling_label, "ceiling (--ceiling)");
    for (int i = 0; !x->ceiling && i < c->nseries; i++)
        for (int k = 0; c->series[i].reference && k < c->series[i].n; k++)
            c->ceiling = fmax(c->ceiling, c->series[i].y[k]);
    if (!x->ceiling) snprintf(c->ceiling_label, sizeof c->ceiling_label, "cuBLAS's best");
    return plot_write(c, o->plot);
}

double gemm_bench_ceiling(cute_runtime *rt, const gemm_opts *o, char *words, size_t n)
{
    const char *unit = gemm_rate_unit(o->in);
    words[0] = 0;
    if (o->ceiling > 0) return snprintf(words, n, "# ceiling: %g %s (--ceiling)", o->ceiling, unit), o->ceiling;
    if (!o->ceiling_auto) return 0;
    char what[160], err[2048];
    cli_clock t0 = cli_clock_now();
    double rate = mma_ceiling(rt, cli_gemm_dtype_name(o->in), 10, what, sizeof what, err, sizeof err);
    double s = cli_clock_since(t0).wall_ms / 1e3;
    if (rate <= 0) {
        fprintf(stderr, "cutec bench gemm: --ceiling auto: %s\n",
                rate < 0 ? err : "`cutec bench mma` has no row of this dtype that this card runs: give --ceiling TFLOPS");
        return -1;
    }
    snprintf(words, n, "# ceiling: %.1f %s, `cutec bench mma`'s row %s measured first in this process (checked, median "
             "of 10 timings; it took %.2f s)", rate, unit, what, s);
    return rate;
}

int gemm_bench(const gemm_opts *given)
{
    char err[1024], skipped[256];
    static bench_ctx x; /* the chart is large for a stack frame */
    static gemm_opts opts;
    memset(&x, 0, sizeof x);
    opts = *given;
    const gemm_opts *o = x.o = &opts;
    if (cute_runtime_new("cuda", &x.rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench gemm: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    cli_gemm_card_variants(&opts, cute_runtime_target_arch(x.rt), skipped, sizeof skipped);
    x.b = cute_runtime_backend(x.rt);
    x.cu = cute_cuda_backend_driver(x.b);
    if (cute_cublas_open(x.cu, &x.h, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec bench gemm: %s\n", err);
        cute_runtime_free(x.rt);
        return CLI_FAIL;
    }
    x.lib = cute_gemm_lib_new(x.rt);
    if (x.lib) cute_gemm_lib_index_width(x.lib, o->index_bits), cute_gemm_lib_tiling(x.lib, &o->tiling);
    if ((x.ceiling = gemm_bench_ceiling(x.rt, o, x.ceiling_words, sizeof x.ceiling_words)) < 0) {
        cute_gemm_lib_free(x.lib);
        cute_cublas_close(x.h);
        cute_runtime_free(x.rt);
        return CLI_FAIL;
    }
    print_header(&x);
    if (skipped[0]) printf("# not run on this card (--variants names them anyway): %s\n", skipped);
    int rc = x.lib ? CLI_OK : CLI_FAIL;
    if (o->scale && !o->epilogue_cost) torch_scaled_ms(&x); /* --epilogue-cost: ours against ours only */
    for (int i = 0; i < o->nsizes && x.lib; i++)
        if ((x.size = i, bench_size(&x, o->sizes[i])) != CLI_OK) rc = CLI_FAIL;
    if (o->plot && !write_chart(&x)) rc = CLI_FAIL;
    cute_gemm_lib_free(x.lib);
    cute_cublas_close(x.h);
    cute_runtime_free(x.rt);
    return rc;
}
