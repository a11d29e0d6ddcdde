/* cutec run|bench gemm --groups G: the grouped GEMM (cutec_gemm_grouped) on G problems of
 * one N and K and varied M, an MoE layer's shape (experts of different token counts):
 * every group's C checked against float64 (run) or sampled (bench), and timed beside a
 * loop of cuBLAS calls over the same groups in the same process (bench, on a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/cli_torch.h"
#include "cli/cublas.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"

enum { SAMPLES = 256 };

typedef struct grouped {
    const gemm_opts *o;
    cute_runtime *rt;
    cute_backend *b;
    int n;
    gemm_problem *p;
    cute_gemm_group *g;
    cute_gemm_lib *lib;
    /* the kernel called with its rows and workspace uploaded once (what is timed) */
    const cute_fn *f;
    cute_buffer rows, ws;
    cute_call_arg args[8];
    cute_cublas *h;
    double ceiling; /* bench --ceiling (0: none) */
    double torch_ms[GEMM_MAX_SIZES]; /* bench: torch._grouped_mm's ms per size (< 0: none) */
    bool torch_ok[GEMM_MAX_SIZES];   /* ... its result within bf16's tolerance of float64 */
    int size;                        /* the size being benched */
    char err[2048];
} grouped;

/* group g's M: uniform in [0, 2 mean], seeded (an MoE router's uneven split) */
static int64_t tokens(const gemm_opts *o, int64_t mean, int g)
{
    uint64_t z = o->seed + 0x9e3779b97f4a7c15u * (uint64_t)(g + 1); /* splitmix64 of (seed, g) */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    double u = (double)((z ^ (z >> 31)) >> 11) * 0x1p-53; /* [0, 1) */
    return (int64_t)(u * (double)(2 * mean + 1));
}

static bool make(grouped *x, int64_t mean, int64_t n, int64_t k)
{
    const gemm_opts *o = x->o;
    x->n = o->groups;
    x->p = calloc((size_t)x->n, sizeof *x->p), x->g = calloc((size_t)x->n, sizeof *x->g);
    if (!x->p || !x->g) return false;
    for (int i = 0; i < x->n; i++) {
        int64_t mnkl[4] = {tokens(o, mean, i), n, k, 1};
        if (!gemm_problem_make(x->b, &x->p[i], o->in, o->out, mnkl, o->layout, 0, o->seed + (uint64_t)i)) return false;
        x->g[i] = (cute_gemm_group){gemm_operand_arg(&x->p[i].a, 1), gemm_operand_arg(&x->p[i].b, 1),
                                    gemm_operand_arg(&x->p[i].c, 1)};
    }
    return true;
}

static void drop(grouped *x)
{
    for (int i = 0; x->p && i < x->n; i++) gemm_problem_drop(x->b, &x->p[i]);
    if (x->rows.ptr) x->b->vt->free(x->b->self, &x->rows);
    if (x->ws.ptr) x->b->vt->free(x->b->self, &x->ws);
    cute_fn_free(x->f);
    free(x->p), free(x->g);
}

static double flops(const grouped *x)
{
    double f = 0;
    for (int i = 0; i < x->n; i++) f += gemm_flops(&x->p[i]);
    return f;
}

/* the compiled kernel and its arguments, the rows uploaded, for timing */
static cute_status prepare(grouped *x)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = x->o->in, .c_dtype = x->o->out, .align_bytes = 16};
    cfg.major[0] = x->p[0].a.major, cfg.major[1] = x->p[0].b.major, cfg.major[2] = x->p[0].c.major;
    if (!(x->f = cute_gemm_grouped_compile(x->rt, &cfg, x->err, sizeof x->err))) return CUTE_ERR_COMPILE;
    size_t rbytes = (size_t)x->n * CUTE_GEMM_GROUP_WORDS * sizeof(int64_t), wbytes = cute_gemm_grouped_workspace(x->rt);
    int64_t *rows = malloc(rbytes);
    cute_status s = rows ? CUTE_OK : CUTE_ERR_OOM;
    for (int i = 0; i < x->n && s == CUTE_OK; i++)
        s = cute_gemm_group_row(&cfg, &x->g[i], rows + (size_t)i * CUTE_GEMM_GROUP_WORDS, x->err, sizeof x->err);
    if (s == CUTE_OK) s = x->b->vt->alloc(x->b->self, rbytes, &x->rows);
    if (s == CUTE_OK) s = x->b->vt->upload(x->b->self, &x->rows, 0, rows, rbytes);
    if (s == CUTE_OK) s = x->b->vt->alloc(x->b->self, wbytes, &x->ws);
    free(rows);
    int64_t rs[2] = {CUTE_GEMM_GROUP_WORDS, x->n}, rst[2] = {1, CUTE_GEMM_GROUP_WORDS}, ws[1] = {(int64_t)wbytes}, one[1] = {1};
    cute_call_arg a[8] = {x->g[0].A, x->g[0].B, x->g[0].C, cute_call_tensor(&x->rows, 0, CUTE_I64, 2, rs, rst),
                          cute_call_tensor(&x->ws, 0, CUTE_U8, 1, ws, one), cute_call_float(x->o->alpha),
                          cute_call_float(x->o->beta), cute_call_int(x->n)};
    memcpy(x->args, a, sizeof a);
    return s;
}

static cute_status call_cutec(void *user, int set)
{
    grouped *x = user;
    (void)set;
    return cute_call(x->f, NULL, 8, x->args, x->err, sizeof x->err);
}

static cute_status call_cublas(void *user, int set)
{
    grouped *x = user;
    cute_status s = CUTE_OK;
    (void)set;
    for (int i = 0; i < x->n && s == CUTE_OK; i++)
        if (x->p[i].m) s = cute_ref_gemm(x->h, &x->g[i].A, &x->g[i].B, &x->g[i].C, x->o->alpha, x->o->beta, NULL);
    return s;
}

/* every group's C against float64 (all of it, or `samples` elements); the groups off */
static int check(grouped *x, int samples)
{
    int bad = 0;
    double tol = gemm_ref_tolerance(x->o->in, x->o->out);
    for (int i = 0; i < x->n; i++) {
        gemm_problem *p = &x->p[i];
        gemm_verdict v = {0};
        if (x->b->vt->download(x->b->self, p->c.host, &p->c.buf, 0, gemm_operand_bytes(&p->c)) != CUTE_OK) return x->n;
        if (!samples && !gemm_check_all(p, p->c.host, x->o->alpha, x->o->beta, tol, &v)) return x->n;
        if (samples) gemm_check_sample(p, p->c.host, x->o->alpha, x->o->beta, tol, x->o->seed, samples, &v);
        bad += v.bad != 0;
        if (v.bad || !samples) printf("group %d: M=%lld: ", i, (long long)p->m), gemm_verdict_print(&v, tol);
    }
    return bad;
}

static double timed(grouped *x, gpu_timed_call fn, const char *what)
{
    double ms = gpu_time_calls(cute_cuda_backend_driver(x->b), fn, x, 1, x->o->iters);
    if (ms < 0) fprintf(stderr, "cutec gemm --groups: timing %s: %s\n", what, x->err[0] ? x->err : x->b->vt->error(x->b->self));
    return ms;
}

/* run: the library's call, every element checked; on a GPU the prepared call timed */
static int run_groups(grouped *x)
{
    const gemm_opts *o = x->o;
    printf("gemm grouped %s -> %s, %d groups of M in [0, %lld] (seeded), N=%lld K=%lld, layout %s, alpha %g, beta %g\n",
           cli_gemm_dtype_name(o->in), cli_gemm_dtype_name(o->out), o->groups, (long long)(2 * o->m), (long long)o->n,
           (long long)o->k, o->layout, o->alpha, o->beta);
    if (!make(x, o->m, o->n, o->k)) return fprintf(stderr, "cutec run gemm: out of memory\n"), CLI_FAIL;
    cute_status s = cutec_gemm_grouped(x->lib, x->g, x->n, o->alpha, o->beta, NULL, x->err, sizeof x->err);
    if (s != CUTE_OK) return fprintf(stderr, "cutec run gemm --groups: %s\n", x->err), CLI_FAIL;
    int bad = check(x, 0);
    if (bad || !cute_runtime_on_gpu(x->rt)) return bad ? CLI_FAIL : CLI_OK;
    if (prepare(x) != CUTE_OK) return fprintf(stderr, "cutec run gemm --groups: %s\n", x->err), CLI_FAIL;
    double ms = timed(x, call_cutec, "the grouped kernel");
    if (ms < 0) return CLI_FAIL;
    printf("time: %.4f ms (median of %d), %.2f %s\n", ms, o->iters, flops(x) / ms / 1e9, gemm_rate_unit(o->in));
    return CLI_OK;
}

/* bench: torch._grouped_mm's ms for every size on the same group sizes, from one run of
 * bench/torch_grouped.py (its own gaussian inputs; M of each group passed, not redrawn);
 * its '#' lines (the version, a skip and why) printed */
static void torch_grouped_ms(grouped *x)
{
    const gemm_opts *o = x->o;
    size_t n = 256 + (size_t)o->groups * 12 + (size_t)o->nsizes * 48;
    char *args = malloc(n);
    for (int i = 0; i < o->nsizes; i++) x->torch_ms[i] = -1;
    if (!args) return (void)printf("# torch._grouped_mm: skipped: out of memory\n");
    int len = snprintf(args, n, "%s %s ", cli_gemm_dtype_name(o->in), cli_gemm_dtype_name(o->out));
    for (int g = 0; g < o->groups; g++)
        len += snprintf(args + len, n - (size_t)len, "%s%lld", g ? "," : "", (long long)tokens(o, o->tokens, g));
    for (int i = 0; i < o->nsizes; i++)
        len += snprintf(args + len, n - (size_t)len, " %lldx%lld", (long long)o->sizes[i][1], (long long)o->sizes[i][2]);
    cli_torch t = cli_torch_lines("torch._grouped_mm", NULL, "bench/torch_grouped.py", "torch_grouped ", args);
    free(args);
    for (int l = 0; l < t.n; l++) {
        long long nn, kk;
        double ms;
        char check[16];
        if (sscanf(t.line[l], "torch_grouped %lldx%lld %lf %15s", &nn, &kk, &ms, check) != 4) continue;
        for (int i = 0; i < o->nsizes; i++)
            if (o->sizes[i][1] == nn && o->sizes[i][2] == kk) x->torch_ms[i] = ms, x->torch_ok[i] = !strcmp(check, "ok");
    }
    cli_torch_free(&t);
}

/* a row of the bench's table: N, K, groups, tokens, what, ms, rate[, of ceiling], note */
static void grouped_row(const grouped *x, const int64_t size[3], int64_t total, const char *what, double ms,
                        const char *note)
{
    double rate = flops(x) / ms / 1e9;
    printf("%-6lld %-6lld %-6d %-8lld %-17s %9.4f %9.1f", (long long)size[1], (long long)size[2], x->n, (long long)total,
           what, ms, rate);
    if (x->ceiling > 0) printf(" %9.1f%%", 100 * rate / x->ceiling);
    printf("  %s\n", note);
}

/* bench, one size (its N and K; M is the groups'): cuBLAS's loop, torch._grouped_mm (timed
 * before, in its own process), then the grouped kernel, sampled */
static int bench_groups(grouped *x, const int64_t size[3])
{
    const gemm_opts *o = x->o;
    if (!make(x, o->tokens, size[1], size[2])) return fprintf(stderr, "cutec bench gemm: out of memory\n"), CLI_FAIL;
    int64_t total = 0;
    for (int i = 0; i < x->n; i++) total += x->p[i].m;
    double ref = timed(x, call_cublas, "cuBLAS");
    if (prepare(x) != CUTE_OK) return fprintf(stderr, "cutec bench gemm --groups: %s\n", x->err), CLI_FAIL;
    for (int i = 0; i < x->n; i++) /* C back to C0 before the checked call */
        x->b->vt->upload(x->b->self, &x->p[i].c.buf, 0, x->p[i].c0, gemm_operand_bytes(&x->p[i].c));
    if (call_cutec(x, 0) != CUTE_OK || x->b->vt->sync(x->b->self, NULL) != CUTE_OK)
        return fprintf(stderr, "cutec bench gemm --groups: %s\n", x->err), CLI_FAIL;
    int bad = check(x, SAMPLES);
    double ms = timed(x, call_cutec, "the grouped kernel");
    if (ms < 0 || ref < 0) return CLI_FAIL;
    double torch = x->torch_ms[x->size];
    char note[256];
    grouped_row(x, size, total, "cublas loop", ref, "(a cuBLAS call a group; the reference)");
    if (torch > 0)
        grouped_row(x, size, total, "torch._grouped_mm", torch,
                    x->torch_ok[x->size] ? "ok vs float64 (sampled, in torch)" : "WRONG vs float64 (sampled, in torch)");
    int len = snprintf(note, sizeof note, "%s; %.1f%% of the cuBLAS loop", bad ? "WRONG vs float64 (sampled)" : "ok vs float64 (sampled)",
                       100.0 * ref / ms);
    if (torch > 0) snprintf(note + len, sizeof note - (size_t)len, ", %.1f%% of torch._grouped_mm", 100.0 * torch / ms);
    grouped_row(x, size, total, "grouped", ms, note);
    return bad ? CLI_FAIL : CLI_OK;
}

int gemm_grouped(const gemm_opts *o, bool bench)
{
    grouped x = {.o = o};
    if (cute_runtime_new(bench ? "cuda" : o->backend, &x.rt, x.err, sizeof x.err) != CUTE_OK)
        return fprintf(stderr, "cutec %s gemm: %s\n", bench ? "bench" : "run", x.err), CLI_FAIL;
    double macs = (double)o->groups * (double)o->m * (double)o->n * (double)o->k; /* M: each group's most */
    if (!bench && !cli_interp_fits("run gemm --groups", x.rt, macs, CLI_INTERP_GEMM))
        return cute_runtime_free(x.rt), CLI_USAGE;
    x.b = cute_runtime_backend(x.rt);
    x.lib = cute_gemm_lib_new(x.rt);
    int rc = CLI_FAIL;
    if (!bench) {
        rc = x.lib ? run_groups(&x) : CLI_FAIL;
        drop(&x);
    } else if (cute_cublas_open(cute_cuda_backend_driver(x.b), &x.h, x.err, sizeof x.err) != CUTE_OK) {
        fprintf(stderr, "cutec bench gemm: %s\n", x.err);
    } else if ((x.ceiling = gemm_bench_ceiling(x.rt, o, x.err, sizeof x.err)) < 0) {
        cute_cublas_close(x.h);
    } else {
        if (x.err[0]) printf("%s\n", x.err);
        x.err[0] = 0;
        torch_grouped_ms(&x);
        printf("N, K; groups; tokens (their M, summed; each uniform in [0, %lld], seed %llu); cuBLAS called once a group\n",
               (long long)(2 * o->tokens), (unsigned long long)o->seed);
        printf("%-6s %-6s %-6s %-8s %-17s %9s %9s%s  %s\n", "N", "K", "groups", "tokens", "kernel", "ms",
               gemm_rate_unit(o->in), x.ceiling > 0 ? " of ceiling" : "", "check");
        rc = CLI_OK;
        for (int i = 0; i < o->nsizes; i++) {
            x.size = i;
            int r = bench_groups(&x, o->sizes[i]);
            rc = rc ? rc : r;
            drop(&x);
            x.p = NULL, x.g = NULL, x.f = NULL, x.rows = x.ws = (cute_buffer){0};
        }
        cute_cublas_close(x.h);
    }
    cute_gemm_lib_free(x.lib);
    cute_runtime_free(x.rt);
    return rc;
}
