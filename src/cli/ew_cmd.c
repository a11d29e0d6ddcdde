/* cutec compile|run|bench elementwise: what cutec generates (no GPU needed), a verified run
 * with its time, and a benchmark table against a device-to-device copy in the same process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli/plot.h"
#include "cutec/cuda_c.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "cutec/cuda_driver.h"
#include "kernels/ew_ref.h"

typedef struct ew_opts {
    cute_ew_op op;
    cute_dtype dtype, out_dtype;
    int ndim;
    int64_t shape[4];
    const char *emit, *arch, *backend;
    const char *plot; /* bench: the chart's SVG file */
    int iters;
    bool transpose_a; /* rank 2: A stored column-major (the strided path) */
} ew_opts;

static int usage(const char *cmd)
{
    fprintf(stderr,
            "usage: cutec %s elementwise [--op add|sub|mul|div|max|min|relu|gelu|silu|exp|neg|abs|cast]\n"
            "         [--dtype f32|f16|bf16] [--out-dtype T] [--shape 8192x8192]\n"
            "         [--emit ir|cuda|ptx|sass|time] [--arch sm_90a] [--backend cuda|interp] [--iters N]\n"
            "         [--plot FILE.svg] (bench: GB/s of each dtype and of a device copy against size)\n"
            "       cutec %s gemm ...           (`cutec %s gemm help`)\n"
            "       cutec %s softmax|log-softmax|rmsnorm|layernorm|cross-entropy|sum|mean|amax|amin|prod ...\n"
            "         (docs/reductions.md)\n",
            cmd, cmd, cmd, cmd);
    return CLI_USAGE;
}

/* extents and their product stay below 2^59: a byte count of 8-byte elements never wraps */
#define EW_MAX_ELEMS (INT64_MAX / 16)

static bool parse_shape(const char *s, ew_opts *o, char *why, size_t n)
{
    return cli_dims(s, 4, EW_MAX_ELEMS, o->shape, &o->ndim, why, n);
}

static int parse(int argc, char **argv, ew_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = o->out_dtype = CUTE_F32;
    o->ndim = 1;
    o->shape[0] = 1 << 20;
    o->iters = 20;
    bool out_given = false;
    if (argc >= 2 && cli_is_help(argv[1])) return usage(argv[0]), -1; /* exit 0 */
    if (argc >= 2 && strcmp(argv[1], "elementwise") != 0)
        fprintf(stderr, "cutec %s: unknown kernel \"%s\"\n", argv[0], argv[1]);
    if (argc < 2 || strcmp(argv[1], "elementwise") != 0) return usage(argv[0]);
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage(argv[0]);
        i++;
        bool ok = true;
        char why[160] = "";
        int64_t x = 0;
        if (!strcmp(k, "--op")) ok = cute_ew_op_parse(v, &o->op);
        else if (!strcmp(k, "--dtype")) ok = cute_dtype_parse(v, &o->dtype);
        else if (!strcmp(k, "--out-dtype")) ok = cute_dtype_parse(v, &o->out_dtype), out_given = true;
        else if (!strcmp(k, "--shape")) ok = parse_shape(v, o, why, sizeof why);
        else if (!strcmp(k, "--emit")) o->emit = v;
        else if (!strcmp(k, "--arch")) o->arch = v, ok = cli_arch(v, why, sizeof why);
        else if (!strcmp(k, "--backend")) o->backend = v;
        else if (!strcmp(k, "--plot")) o->plot = v;
        else if (!strcmp(k, "--iters")) {
            ok = cli_int(v, 1, 1000000, &x, why, sizeof why);
            o->iters = (int)x;
        }
        else if (!strcmp(k, "--transpose-a")) o->transpose_a = !strcmp(v, "1");
        else ok = false;
        if (!ok) {
            fprintf(stderr, "cutec %s elementwise: bad option %s %s%s%s\n", argv[0], k, v,
                    why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
    }
    if (!out_given) o->out_dtype = o->dtype;
    if (!o->arch) o->arch = getenv("CUTEC_ARCH"); /* compile for a GPU that is not here */
    return CLI_OK;
}

static void row_major(const ew_opts *o, int64_t *stride)
{
    int64_t s = 1;
    for (int i = o->ndim - 1; i >= 0; i--) stride[i] = s, s *= o->shape[i];
}

static int64_t count(const ew_opts *o)
{
    int64_t n = 1;
    for (int i = 0; i < o->ndim; i++) n *= o->shape[i];
    return n;
}

/* --- compile: trace with the interpreter backend (no GPU), then print ---------------- */
static int emit(const ew_opts *o)
{
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile: %s\n", err);
        return CLI_FAIL;
    }
    cute_runtime_set_target_arch(rt, o->arch); /* atoms are checked against it */
    int64_t stride[4];
    row_major(o, stride);
    /* aligned, never read; the output apart from the inputs (the kernel a call with
     * separate tensors gets, with __restrict__ pointers) */
    cute_buffer fake = {(void *)(uintptr_t)4096, (size_t)1 << 40, 0, 0};
    cute_buffer fake_out = {(void *)((uintptr_t)1 << 41), (size_t)1 << 40, 0, 1};
    cute_call_arg a = cute_call_tensor(&fake, 0, o->dtype, o->ndim, o->shape, stride);
    cute_call_arg c = cute_call_tensor(&fake_out, 0, o->out_dtype, o->ndim, o->shape, stride);
    cute_call_arg in[2] = {a, a};
    cli_clock t0 = cli_clock_now();
    const cute_fn *f = cute_ew_compile(rt, "ew", cute_ew_op_expr, (void *)(intptr_t)o->op,
                                 cute_ew_op_arity(o->op), in, &c, NULL, err, sizeof err);
    cli_clock trace = cli_clock_since(t0);
    int rc = CLI_OK;
    if (!f) {
        fprintf(stderr, "cutec compile: %s\n", err);
        cute_runtime_free(rt);
        return CLI_FAIL;
    }
    rc = cli_emit_kernel(f, o->emit, o->arch, trace);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return rc;
}

/* --- run and bench ------------------------------------------------------------------- */
typedef struct dev_tensor {
    cute_buffer buf;
    void *host;
    size_t bytes;
} dev_tensor;

static bool dev_make(cute_backend *b, dev_tensor *t, cute_dtype d, int64_t n, uint64_t *seed, bool poison)
{
    t->bytes = (size_t)(n ? n : 1) * (size_t)cute_dtype_bytes(d);
    t->host = malloc(t->bytes);
    if (!t->host || b->vt->alloc(b->self, t->bytes, &t->buf) != CUTE_OK) return false;
    for (int64_t i = 0; i < n; i++) ew_set(d, t->host, i, poison ? NAN : ew_random(seed));
    return b->vt->upload(b->self, &t->buf, 0, t->host, t->bytes) == CUTE_OK;
}

static void dev_drop(cute_backend *b, dev_tensor *t)
{
    b->vt->free(b->self, &t->buf);
    free(t->host);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median milliseconds of one call, timed with device events (CUDA) or the wall clock */
typedef cute_status (*timed_fn)(void *user);
static double time_median(cute_runtime *rt, timed_fn fn, void *user, int iters)
{
    cute_backend *b = cute_runtime_backend(rt);
    bool cuda = cute_runtime_on_gpu(rt);
    cute_cuda *cu = cuda ? cute_cuda_backend_driver(b) : NULL;
    for (int w = 0; w < 3; w++) fn(user); /* warm-up */
    b->vt->sync(b->self, NULL);
    double t[64];
    int reps = iters < 64 ? iters : 64;
    for (int r = 0; r < reps; r++) {
        if (cu) {
            void *e0, *e1;
            float ms = 0;
            cute_cuda_event_new(cu, &e0), cute_cuda_event_new(cu, &e1);
            cute_cuda_event_record(cu, e0, NULL);
            fn(user);
            cute_cuda_event_record(cu, e1, NULL);
            cute_cuda_event_sync(cu, e1);
            cute_cuda_event_elapsed(cu, e0, e1, &ms);
            cute_cuda_event_free(cu, e0), cute_cuda_event_free(cu, e1);
            t[r] = ms;
        } else {
            double t0 = now_ms();
            fn(user);
            b->vt->sync(b->self, NULL);
            t[r] = now_ms() - t0;
        }
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

typedef struct ew_call {
    cute_ew_lib *lib;
    cute_ew_op op;
    cute_call_arg out, a, b;
    char err[1024];
} ew_call;

static cute_status call_ew(void *user)
{
    ew_call *e = user;
    return cute_ew(e->lib, e->op, &e->out, &e->a, &e->b, NULL, e->err, sizeof e->err);
}

typedef struct copy_call {
    cute_cuda *cu;
    cute_buffer *dst, *src;
    size_t bytes;
} copy_call;

static cute_status call_copy(void *user)
{
    copy_call *c = user;
    return cute_cuda_copy_dtod_async(c->cu, (cute_devptr)(uintptr_t)c->dst->ptr,
                                     (cute_devptr)(uintptr_t)c->src->ptr, c->bytes, NULL);
}

/* run op on o's shape: verify against the CPU reference, return the median ms (or < 0) */
static double run_one(cute_runtime *rt, cute_ew_lib *lib, const ew_opts *o, bool verify, int *bad)
{
    cute_backend *b = cute_runtime_backend(rt);
    int64_t n = count(o), stride[4];
    row_major(o, stride);
    uint64_t seed = (uint64_t)time(NULL) | 1;
    dev_tensor A, B, C;
    if (!dev_make(b, &A, o->dtype, n, &seed, false) || !dev_make(b, &B, o->dtype, n, &seed, false) ||
        !dev_make(b, &C, o->out_dtype, n, &seed, true)) {
        fprintf(stderr, "cutec: out of memory for %lld elements\n", (long long)n);
        return -1;
    }
    int64_t astride[4] = {stride[0], stride[1], stride[2], stride[3]};
    bool tr = o->transpose_a && o->ndim == 2;
    if (tr) astride[0] = 1, astride[1] = o->shape[0];
    ew_call e = {lib, o->op, cute_call_tensor(&C.buf, 0, o->out_dtype, o->ndim, o->shape, stride),
                 cute_call_tensor(&A.buf, 0, o->dtype, o->ndim, o->shape, astride),
                 cute_call_tensor(&B.buf, 0, o->dtype, o->ndim, o->shape, stride), ""};
    double ms = -1;
    if (call_ew(&e) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec: %s\n", e.err[0] ? e.err : b->vt->error(b->self));
    } else {
        *bad = 0;
        if (verify) {
            b->vt->download(b->self, C.host, &C.buf, 0, C.bytes);
            double tol = ew_tolerance(o->op, o->out_dtype);
            cute_dtype comp = ew_compute_type(o->op, o->dtype);
            for (int64_t i = 0; i < n; i++) {
                int64_t ia = tr ? (i / o->shape[1]) + (i % o->shape[1]) * o->shape[0] : i;
                double want = ew_ref(o->op, comp, ew_get(o->dtype, A.host, ia), ew_get(o->dtype, B.host, i));
                uint64_t tmp = 0;
                ew_set(o->out_dtype, &tmp, 0, want);
                want = ew_get(o->out_dtype, &tmp, 0);
                double got = ew_get(o->out_dtype, C.host, i);
                if (got != want && !(fabs(got - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1))) ++*bad;
            }
        }
        ms = time_median(rt, call_ew, &e, o->iters);
    }
    dev_drop(b, &A), dev_drop(b, &B), dev_drop(b, &C);
    return ms;
}

static int run(const ew_opts *o)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(o->backend, &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec run: %s\n", err);
        return CLI_FAIL;
    }
    if (!cli_interp_fits("run elementwise", rt, (double)count(o), CLI_INTERP_ELEMENTWISE)) {
        cute_runtime_free(rt);
        return CLI_USAGE;
    }
    cute_ew_lib *lib = cute_ew_lib_new(rt);
    int bad = -1;
    double ms = run_one(rt, lib, o, true, &bad);
    int64_t n = count(o);
    int nin = cute_ew_op_arity(o->op);
    double bytes = (double)n * (nin * cute_dtype_bytes(o->dtype) + cute_dtype_bytes(o->out_dtype));
    if (ms >= 0)
        printf("elementwise %s %s n=%lld backend=%s: %s (%d wrong), %.4f ms, %.1f GB/s\n",
               cute_ew_op_name(o->op), cute_dtype_name(o->dtype), (long long)n,
               cute_runtime_backend_name(rt), bad ? "FAILED" : "verified", bad, ms, bytes / ms / 1e6);
    cute_ew_lib_free(lib);
    cute_runtime_free(rt);
    return ms >= 0 && bad == 0 ? CLI_OK : CLI_FAIL;
}

/* --plot: one line per dtype, the device copy as the reference and its best as the ceiling */
static void chart_point(plot *c, const ew_opts *o, double bytes, double gbs, double copy)
{
    char name[48];
    snprintf(name, sizeof name, "%s %s", cute_ew_op_name(o->op), cute_dtype_name(o->dtype));
    if (gbs > 0) plot_add(c, name, false, bytes, gbs);
    if (copy > 0) plot_add(c, "device copy", true, bytes, copy), c->ceiling = fmax(c->ceiling, copy);
}

static bool write_chart(plot *c, const ew_opts *o, const char *device)
{
    snprintf(c->title, sizeof c->title, "elementwise %s, %.100s", cute_ew_op_name(o->op), device);
    snprintf(c->x_label, sizeof c->x_label, "bytes per tensor");
    snprintf(c->y_label, sizeof c->y_label, "GB/s (bytes read + written)");
    snprintf(c->ceiling_label, sizeof c->ceiling_label, "device copy's best");
    return plot_write(c, o->plot);
}

static int bench(const ew_opts *base)
{
    static plot chart; /* large for a stack frame */
    memset(&chart, 0, sizeof chart);
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench elementwise: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    const cute_device_info *dev = cute_cuda_device(cute_cuda_backend_driver(cute_runtime_backend(rt)));
    printf("# %s, %d SMs, SM clock %d MHz (peak), memory clock %d MHz\n", dev->name, dev->sm_count,
           dev->clock_khz / 1000, dev->mem_clock_khz / 1000);
    printf("%-6s %-5s %12s %10s %10s %10s %8s\n", "op", "dtype", "elements", "ms", "GB/s", "copy GB/s", "of copy");
    cute_ew_lib *lib = cute_ew_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    const int64_t sizes[] = {(int64_t)1 << 20, (int64_t)1 << 24, (int64_t)1 << 28};
    int rc = CLI_OK;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 3; s++) {
            ew_opts o = *base;
            o.dtype = o.out_dtype = dts[d];
            o.ndim = 1;
            o.shape[0] = sizes[s];
            int bad = 0;
            plot_progress("%s %s, %lld elements", cute_ew_op_name(o.op), cute_dtype_name(dts[d]),
                          (long long)sizes[s]);
            double ms = run_one(rt, lib, &o, s < 2, &bad); /* verify all but the largest */
            plot_progress_done();
            if (ms < 0 || bad) rc = CLI_FAIL;
            size_t bytes = (size_t)sizes[s] * (size_t)cute_dtype_bytes(dts[d]);
            cute_buffer x, y;
            double copy_ms = -1;
            if (b->vt->alloc(b->self, bytes, &x) == CUTE_OK && b->vt->alloc(b->self, bytes, &y) == CUTE_OK) {
                copy_call cc = {cute_cuda_backend_driver(b), &y, &x, bytes};
                copy_ms = time_median(rt, call_copy, &cc, o.iters);
                b->vt->free(b->self, &x), b->vt->free(b->self, &y);
            }
            int nin = cute_ew_op_arity(o.op);
            double moved = (double)bytes * (nin + 1), gbs = moved / ms / 1e6, copy = 2.0 * bytes / copy_ms / 1e6;
            chart_point(&chart, &o, (double)bytes, gbs, copy);
            printf("%-6s %-5s %12lld %10.4f %10.1f %10.1f %7.1f%%%s\n", cute_ew_op_name(o.op),
                   cute_dtype_name(dts[d]), (long long)sizes[s], ms, gbs, copy, 100 * gbs / copy,
                   bad ? "  WRONG" : "");
        }
    /* the strided path: A transposed in memory */
    for (int d = 0; d < 3; d++) {
        ew_opts o = *base;
        o.dtype = o.out_dtype = dts[d];
        o.ndim = 2;
        o.shape[0] = o.shape[1] = 1 << 14;
        o.transpose_a = true;
        int bad = 0;
        double ms = run_one(rt, lib, &o, false, &bad);
        if (ms < 0) rc = CLI_FAIL;
        double moved = 3.0 * (double)(1 << 28) * cute_dtype_bytes(dts[d]);
        printf("%-6s %-5s %12s %10.4f %10.1f\n", cute_ew_op_name(o.op), cute_dtype_name(dts[d]),
               "16384^2 A^T", ms, moved / ms / 1e6);
    }
    cute_ew_lib_free(lib);
    if (base->plot && !write_chart(&chart, base, dev->name)) rc = CLI_FAIL;
    cute_runtime_free(rt);
    return rc;
}

int cmd_compile(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "gemm") == 0) return cmd_compile_gemm(argc, argv);
    if (argc >= 2 && cli_rows_op(argv[1])) return cmd_compile_rows(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "gemv") == 0) return cmd_gemv(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "attention") == 0) return cmd_attention(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "hstu") == 0) return cmd_hstu(argc, argv);
    ew_opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (!(o.emit = cli_emit_form(o.emit))) return usage(argv[0]);
    return cli_parse_only() ? CLI_OK : emit(&o);
}

int cmd_run(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "gemm") == 0) return cmd_run_gemm(argc, argv);
    if (argc >= 2 && cli_rows_op(argv[1])) return cmd_run_rows(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "gemv") == 0) return cmd_gemv(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "attention") == 0) return cmd_attention(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "hstu") == 0) return cmd_hstu(argc, argv);
    ew_opts o;
    int rc = parse(argc, argv, &o);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : run(&o);
}

int cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "jit") == 0) return cli_parse_only() ? CLI_OK : cmd_bench_jit();
    if (argc >= 2 && strcmp(argv[1], "tiers") == 0) return cmd_bench_tiers(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "gemm") == 0) return cmd_bench_gemm(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "gemv") == 0) return cmd_gemv(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "attention") == 0) return cmd_attention(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "hstu") == 0) return cmd_hstu(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "mma") == 0) return cmd_bench_mma(argc, argv);
    if (argc >= 2 && cli_rows_op(argv[1])) return cmd_bench_rows(argc, argv);
    if (argc >= 2 && cli_comm_op(argv[1])) return cmd_bench_comm(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "tp-gemm") == 0) return cmd_bench_tp(argc, argv);
    ew_opts o;
    int rc = parse(argc, argv, &o);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : bench(&o);
}
