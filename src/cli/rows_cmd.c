/* cutec compile|run|bench softmax|log-softmax|rmsnorm|layernorm|cross-entropy|sum|mean|amax|
 * amin|prod: what cutec
 * generates for the row-reduction kernels (no GPU needed), a verified run with its time,
 * and a benchmark beside a device copy and PyTorch in the same run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli/cli_torch.h"
#include "cli/gpu_timing.h"
#include "cli/rows_problem.h"
#include "cutec/runtime.h"
#include "kernels/rows/rows_lib.h"

typedef struct rows_opts {
    rp_op op;
    bool backward;
    bool columns; /* --dim 0 */
    cute_dtype dtype;
    int64_t m, n;
    cli_kernel_opts k; /* --iters, --emit, --arch, --backend */
} rows_opts;

static int usage(const char *cmd)
{
    fprintf(stderr,
            "usage: cutec %s softmax|log-softmax|rmsnorm|layernorm|cross-entropy|sum|mean|amax|amin|prod\n"
            "         [--dtype f32|f16|bf16] [--shape MxN] [--backward] [--dim 0|1|-1 (sum..prod: the\n"
            "         dimension reduced; 1 = -1, the last, by default)] [--iters N]\n"
            "         [--emit ir|cuda|ptx|sass|time] [--arch sm_90a]"
            " [--backend cuda|interp]\n",
            cmd);
    return CLI_USAGE;
}

static bool option(rows_opts *o, const char *k, const char *v, char *why, size_t n)
{
    int64_t dims[2];
    int nd = 0;
    if (!strcmp(k, "--dtype"))
        return cute_dtype_parse(v, &o->dtype) && (o->dtype == CUTE_F32 || o->dtype == CUTE_F16 || o->dtype == CUTE_BF16);
    if (!strcmp(k, "--dim")) {
        if (!rp_op_reduce(o->op)) return snprintf(why, n, "only the plain reductions (sum..prod) take a dimension"), false;
        if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "-1")) return snprintf(why, n, "0, 1 or -1 (a matrix's)"), false;
        return o->columns = !strcmp(v, "0"), true;
    }
    if (!strcmp(k, "--shape")) {
        if (!cli_dims(v, 2, (int64_t)1 << 40, dims, &nd, why, n)) return false;
        if (nd != 2 || dims[1] < 1) return snprintf(why, n, "the shape is MxN, N at least 1"), false;
        return o->m = dims[0], o->n = dims[1], true;
    }
    bool ok = false;
    return cli_kernel_option(&o->k, k, v, &ok, why, n) && ok;
}

static int parse(int argc, char **argv, rows_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = CUTE_BF16, o->m = 4096, o->n = 4096, o->k.iters = 20;
    if (argc < 2 || !rp_op_parse(argv[1], &o->op)) return usage(argv[0]);
    for (int i = 2; i < argc; i++) {
        char why[160] = "";
        if (!strcmp(argv[i], "--backward")) {
            o->backward = true;
            continue;
        }
        if (cli_is_help(argv[i])) return usage(argv[0]), -1; /* asked: exit 0 */
        if (i + 1 >= argc) {
            fprintf(stderr, "cutec %s %s: %s needs a value\n", argv[0], argv[1], argv[i]);
            return CLI_USAGE;
        }
        if (!option(o, argv[i], argv[i + 1], why, sizeof why)) {
            fprintf(stderr, "cutec %s %s: bad option %s %s%s%s\n", argv[0], argv[1], argv[i], argv[i + 1],
                    why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
        i++;
    }
    if (o->backward && rp_op_reduce(o->op)) {
        fprintf(stderr, "cutec %s %s: --backward: a plain reduction has no backward kernel here\n", argv[0], argv[1]);
        return CLI_USAGE;
    }
    if (!o->k.arch) o->k.arch = getenv("CUTEC_ARCH");
    return CLI_OK;
}

static void problem_of(const rows_opts *o, cute_runtime *rt, cutec_rows *lib, rows_problem *p)
{
    rp_init(p, o->op, o->backward, o->dtype, o->m, o->n, cute_runtime_backend(rt), lib);
    p->columns = o->columns;
}

/* trace on the interpreter with buffers never touched, print the kernel */
static int emit(const rows_opts *o)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return fprintf(stderr, "cutec compile: %s\n", err), CLI_FAIL;
    cute_runtime_set_target_arch(rt, o->k.arch);
    cutec_rows *lib = cutec_rows_new(rt);
    rows_problem p;
    problem_of(o, rt, lib, &p);
    rows_lib_dry_run(lib, true);
    int rc = CLI_FAIL;
    cli_clock t0 = cli_clock_now();
    if (!(rp_setup(&p, true) && rp_call(&p) == CUTE_OK))
        fprintf(stderr, "cutec compile %s: %s\n", rp_op_name(o->op), p.err);
    else if (!rows_lib_last(lib)) /* a zero extent: the call returns before compiling */
        fprintf(stderr, "cutec compile %s: --shape %lldx%lld launches no kernel: nothing to show (give both extents "
                        "at least 1)\n", rp_op_name(o->op), (long long)o->m, (long long)o->n), rc = CLI_USAGE;
    else
        rc = cli_emit_kernel(rows_lib_last(lib), o->k.emit, o->k.arch, cli_clock_since(t0));
    cutec_rows_free(lib);
    cute_runtime_free(rt);
    return rc;
}

static cute_status call_problem(void *user, int set)
{
    (void)set;
    return rp_call(user);
}

typedef struct copy_call {
    cute_cuda *cu;
    cute_buffer dst, src;
} copy_call;

static cute_status call_copy(void *user, int set)
{
    (void)set;
    copy_call *c = user;
    return cute_cuda_copy_dtod_async(c->cu, (cute_devptr)(uintptr_t)c->dst.ptr, (cute_devptr)(uintptr_t)c->src.ptr,
                                     c->src.bytes, NULL);
}

/* median ms of a device-to-device copy of `bytes` (< 0 without memory) */
static double copy_ms(cute_backend *be, size_t bytes, int iters)
{
    copy_call c = {cute_cuda_backend_driver(be), {0}, {0}};
    double ms = -1;
    if (be->vt->alloc(be->self, bytes, &c.src) == CUTE_OK && be->vt->alloc(be->self, bytes, &c.dst) == CUTE_OK)
        ms = gpu_time_calls(c.cu, call_copy, &c, 1, iters);
    if (c.src.bytes) be->vt->free(be->self, &c.src);
    if (c.dst.bytes) be->vt->free(be->self, &c.dst);
    return ms;
}

/* median ms of one call: device events on CUDA, the wall clock on the interpreter */
static double time_problem(cute_runtime *rt, rows_problem *p, int iters)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_cuda *cu = cute_cuda_backend_driver(be);
    if (cu) return gpu_time_calls(cu, call_problem, p, 1, iters);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cute_status s = rp_call(p);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return s == CUTE_OK ? (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6 : -1;
}

/* set up, call, check; the wrong count (< 0: the call failed, said on stderr) */
static int64_t run_checked(cute_runtime *rt, cutec_rows *lib, const rows_opts *o, rows_problem *p)
{
    problem_of(o, rt, lib, p);
    char first[256] = "";
    cute_status s = rp_setup(p, false) ? rp_call(p) : CUTE_ERR_INVALID;
    if (s == CUTE_OK) s = p->be->vt->sync(p->be->self, NULL);
    if (s != CUTE_OK) {
        if (p->err[0]) fprintf(stderr, "cutec: %s\n", p->err); /* the library's message names the op */
        else fprintf(stderr, "cutec: %s: %s\n", rp_op_name(o->op), p->be->vt->error(p->be->self));
        return -1;
    }
    int64_t bad = rp_check(p, o->m * o->n <= ((int64_t)1 << 24), first, sizeof first);
    if (bad) fprintf(stderr, "cutec: %s: %lld wrong, first: %s\n", rp_op_name(o->op), (long long)bad, first);
    return bad;
}

static int run(const rows_opts *o)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(o->k.backend, &rt, err, sizeof err) != CUTE_OK) return fprintf(stderr, "cutec run: %s\n", err), CLI_FAIL;
    if (!cute_runtime_on_gpu(rt)) cute_runtime_set_target_arch(rt, o->k.arch); /* the interpreter's target */
    char cmd[64];
    snprintf(cmd, sizeof cmd, "run %s", rp_op_name(o->op));
    if (!cli_interp_fits(cmd, rt, (double)o->m * (double)o->n, CLI_INTERP_ROWS)) return cute_runtime_free(rt), CLI_USAGE;
    cutec_rows *lib = cutec_rows_new(rt);
    rows_problem p;
    int64_t bad = run_checked(rt, lib, o, &p);
    double ms = bad < 0 ? -1 : time_problem(rt, &p, o->k.iters);
    /* on a GPU the timed calls' outputs checked again: a call whose kernels overlap the call
     * before it (programmatic dependent launches) and race it shows here */
    if (ms >= 0 && bad == 0 && cute_runtime_on_gpu(rt)) {
        char first[256] = "";
        bad = rp_check(&p, o->m * o->n <= ((int64_t)1 << 24), first, sizeof first);
        if (bad) fprintf(stderr, "cutec: %s: after the timed calls %lld wrong, first: %s\n", rp_op_name(o->op), (long long)bad, first);
    }
    if (ms >= 0)
        printf("%s%s %s %lldx%lld backend=%s: %s (%lld wrong), %.4f ms, %.1f GB/s\n", rp_op_name(o->op),
               o->backward ? " backward" : o->columns ? " over dim 0" : "", cute_dtype_name(o->dtype), (long long)o->m, (long long)o->n,
               cute_runtime_backend_name(rt), bad ? "FAILED" : "verified", (long long)bad, ms, rp_bytes(&p) / ms / 1e6);
    rp_free(&p);
    cutec_rows_free(lib);
    cute_runtime_free(rt);
    return bad == 0 && ms >= 0 ? CLI_OK : CLI_FAIL;
}

/* PyTorch's times (eager, compiled; < 0: not taken) for each shape, from one run of
 * bench/torch_rows.py ($CUTEC_TORCH_ROWS): its own gaussian inputs of the same shapes */
static void torch_ms(const rows_opts *o, const int64_t (*shapes)[2], int n, double (*ms)[2])
{
    char args[1024];
    int len = snprintf(args, sizeof args, "%s %s %s", rp_op_name(o->op), cute_dtype_name(o->dtype),
                       o->backward ? "backward" : o->columns ? "dim0" : "forward");
    for (int i = 0; i < n; i++) {
        len += snprintf(args + len, sizeof args - (size_t)len, " %lldx%lld", (long long)shapes[i][0], (long long)shapes[i][1]);
        ms[i][0] = ms[i][1] = -1;
    }
    cli_torch t = cli_torch_lines("torch", "CUTEC_TORCH_ROWS", "bench/torch_rows.py", "torch ", args);
    for (int l = 0; l < t.n; l++) {
        long long m, nn;
        double e, c;
        if (sscanf(t.line[l], "torch %lldx%lld %lf %lf", &m, &nn, &e, &c) != 4) continue;
        for (int i = 0; i < n; i++)
            if (shapes[i][0] == m && shapes[i][1] == nn) ms[i][0] = e, ms[i][1] = c;
    }
    cli_torch_free(&t);
}

static void bench_one(cute_runtime *rt, cutec_rows *lib, const rows_opts *o, const double torch[2], int *rc)
{
    rows_problem p;
    int64_t bad = run_checked(rt, lib, o, &p);
    double ms = bad < 0 ? -1 : time_problem(rt, &p, o->k.iters), bytes = rp_bytes(&p);
    rp_free(&p);
    /* the copy moves the bytes the op moves: half read, half written */
    double copy = copy_ms(cute_runtime_backend(rt), (size_t)(bytes / 2), o->k.iters), copy_gbs = bytes / copy / 1e6;
    double gbs = bytes / ms / 1e6;
    if (ms < 0 || bad) *rc = CLI_FAIL;
    char shape[48];
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)o->m, (long long)o->n);
    const char *dir = o->backward ? "bwd" : o->columns ? "dim0" : "fwd";
    if (ms < 0) { /* the run failed (its error printed above): no figures */
        printf("%-13s %-4s %-5s %13s  failed: no time\n", rp_op_name(o->op), dir, cute_dtype_name(o->dtype), shape);
        fflush(stdout);
        return;
    }
    printf("%-13s %-4s %-5s %13s %9.4f %8.1f %8.1f %6.1f%%", rp_op_name(o->op), dir, cute_dtype_name(o->dtype), shape,
           ms, gbs, copy_gbs, 100 * gbs / copy_gbs);
    for (int i = 0; i < 2; i++)
        if (torch[i] > 0) printf(" %8.1f", bytes / torch[i] / 1e6); else printf(" %8s", "-");
    printf("%s\n", bad ? "  WRONG" : "");
    fflush(stdout);
}

static int bench(const rows_opts *base, bool shape_given)
{
    char err[1024], clock[64];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench %s: skipped: no GPU (%s)\n", rp_op_name(base->op), err);
        return CLI_OK;
    }
    int64_t shapes[3][2] = {{16384, 4096}, {4096, 32768}, {1024, 262144}};
    int n = shape_given ? 1 : 3;
    if (shape_given) shapes[0][0] = base->m, shapes[0][1] = base->n;
    double torch[3][2];
    torch_ms(base, (const int64_t (*)[2])shapes, n, torch);
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *dev = cute_cuda_device(cu);
    gpu_sm_clock(cu, clock, sizeof clock);
    printf("# %s, %d SMs, SM clock (now, max) %s; GB/s of the bytes the op must move; torch: eager, compiled\n",
           dev->name, dev->sm_count, clock[0] ? clock : "?");
    printf("%-13s %-4s %-5s %13s %9s %8s %8s %7s %8s %8s\n", "op", "dir", "dtype", "shape", "ms", "GB/s", "copy",
           "of copy", "eager", "compiled");
    cutec_rows *lib = cutec_rows_new(rt);
    int rc = CLI_OK;
    for (int s = 0; s < n; s++) {
        rows_opts o = *base;
        o.m = shapes[s][0], o.n = shapes[s][1];
        bench_one(rt, lib, &o, torch[s], &rc);
    }
    cutec_rows_free(lib);
    cute_runtime_free(rt);
    return rc;
}

bool cli_rows_op(const char *name)
{
    rp_op op;
    return name && rp_op_parse(name, &op);
}

int cmd_compile_rows(int argc, char **argv)
{
    rows_opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (!(o.k.emit = cli_emit_form(o.k.emit))) return usage(argv[0]);
    return cli_parse_only() ? CLI_OK : emit(&o);
}

int cmd_run_rows(int argc, char **argv)
{
    rows_opts o;
    int rc = parse(argc, argv, &o);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : run(&o);
}

int cmd_bench_rows(int argc, char **argv)
{
    rows_opts o;
    int rc = parse(argc, argv, &o);
    bool shape_given = false;
    for (int i = 2; i < argc; i++) shape_given |= !strcmp(argv[i], "--shape");
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : bench(&o, shape_given);
}
