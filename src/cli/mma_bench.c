/* `cutec bench mma`: the card's mma.sync and wgmma ceilings per dtype and shape.  mma.sync:
 * each SM runs BLOCKS_PER_SM blocks of THREADS threads; every thread keeps CHAINS
 * independent accumulators and issues mma.sync back to back from registers
 * (kernels/mma_peak.h).  wgmma: each SM runs one block of two warpgroups (--warpgroups 1:
 * one, a single accumulator chain an SM), each issuing m64n256 from shared memory back to
 * back into its accumulators (kernels/wgmma_peak.h).
 * The loop is long enough for a run of about RUN_MS.  Each row is first run with constant
 * operands and its result checked exactly (every instruction counted), then timed with
 * operands whose fraction bits vary; TFLOP/s (TOPS for s8) = instructions x 2MNK / t. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"
#include "kernels/mma_peak.h"
#include "kernels/wgmma_peak.h"

enum { THREADS = 256, BLOCKS_PER_SM = 2, CHAINS = 4, UNROLL = 2, CHECK_ITERS = 4, WG_UNROLL = 4 };
static const double RUN_MS = 1.0;

typedef struct mma_opts {
    const char *only; /* comma-separated row names, NULL: all */
    int iters;        /* timings per row */
    int warpgroups;   /* the wgmma rows' warpgroups an SM */
} mma_opts;

/* how a kind of row is compiled and counted */
typedef struct peak_kind {
    const cute_fn *(*compile)(cute_runtime *, const mma_peak_row *, const mma_peak_shape *, char *, size_t);
    mma_peak_shape shape;
    int inst_threads; /* threads one instruction takes: 32 (mma.sync), 128 (wgmma) */
} peak_kind;

static const peak_kind mma_sync_kind = {mma_peak_compile, {THREADS, CHAINS, UNROLL, BLOCKS_PER_SM}, 32};
static const peak_kind wgmma_kind = {wgmma_peak_compile, {THREADS, 1, WG_UNROLL, 1}, 128};

typedef struct peak_run {
    const cute_fn *f;
    cute_buffer *out;
    const mma_peak_row *row;
    const peak_kind *kind;
    int64_t blocks, iters;
    uint32_t vary;
    char err[1024];
} peak_run;

static cute_status call_peak(void *user, int set)
{
    (void)set;
    peak_run *r = user;
    int64_t threads = r->kind->shape.threads;
    cute_call_arg args[5] = {cute_call_tensor(r->out, 0, r->row->acc, 2, (int64_t[]){threads, r->blocks},
                                              (int64_t[]){1, threads}),
                             cute_call_int(r->iters), cute_call_int(r->row->a_bits), cute_call_int(r->row->b_bits),
                             cute_call_int(r->vary)};
    return cute_call(r->f, NULL, 5, args, r->err, sizeof r->err);
}

static double element(cute_dtype d, const void *p, int64_t i)
{
    return d == CUTE_F64 ? ((const double *)p)[i] : d == CUTE_I32 ? ((const int32_t *)p)[i] : ((const float *)p)[i];
}

/* constant operands, CHECK_ITERS rounds: every thread must write the exact count */
static bool check_row(cute_backend *b, peak_run *r, size_t bytes, char *why, size_t n)
{
    const mma_peak_shape s = r->kind->shape;
    void *host = malloc(bytes);
    r->iters = CHECK_ITERS, r->vary = 0;
    bool ok = host && call_peak(r, 0) == CUTE_OK && b->vt->sync(b->self, NULL) == CUTE_OK &&
              b->vt->download(b->self, host, r->out, 0, bytes) == CUTE_OK;
    if (!ok) snprintf(why, n, "%s", !host ? "out of memory" : r->err[0] ? r->err : b->vt->error(b->self));
    double want = mma_peak_expected(r->row, &s, CHECK_ITERS);
    for (int64_t i = 0; ok && i < r->blocks * s.threads; i++)
        if (element(r->row->acc, host, i) != want) {
            snprintf(why, n, "thread %lld wrote %g, want %g", (long long)i, element(r->row->acc, host, i), want);
            ok = false;
        }
    free(host);
    return ok;
}

static bool wanted(const mma_opts *o, const char *name)
{
    if (!o->only) return true;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->only);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, name) || (!strncmp(name, t, strlen(t)) && name[strlen(t)] == ' ')) return true;
    return false;
}

/* one row measured: compiled, checked, then timed; its rate (TFLOP/s, TOPS for s8), *ms and
 * *iters of its timing; < 0 on failure, "failed: ...", "WRONG: ..." or "timing failed: ..."
 * in why */
static double peak_measure(cute_runtime *rt, int timings, const mma_peak_row *row, const peak_kind *kind, double *ms_out,
                           int64_t *iters_out, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_cuda *cu = cute_cuda_backend_driver(b);
    const cute_device_info *d = cute_cuda_device(cu);
    char err[2048];
    const mma_peak_shape s = kind->shape;
    peak_run r = {kind->compile(rt, row, &s, err, sizeof err), NULL, row, kind, (int64_t)d->sm_count * s.blocks_per_sm, 0, 0, ""};
    cute_buffer out = {0};
    size_t bytes = (size_t)r.blocks * (size_t)s.threads * (size_t)cute_dtype_bytes(row->acc);
    double rate = -1;
    if (!r.f) {
        snprintf(why, n, "failed: %s", err);
    } else if (b->vt->alloc(b->self, bytes, &out) != CUTE_OK) {
        snprintf(why, n, "failed: %s", b->vt->error(b->self));
    } else if (r.out = &out, !check_row(b, &r, bytes, err, sizeof err)) {
        snprintf(why, n, "WRONG: %s", err);
    } else {
        /* size the loop: one timing of 256 rounds, scaled to RUN_MS */
        r.vary = row->vary, r.iters = 256;
        double ms = gpu_time_calls(cu, call_peak, &r, 1, 3);
        r.iters = ms > 0 ? (int64_t)ceil(256 * RUN_MS / ms) : 256;
        ms = ms > 0 ? gpu_time_calls(cu, call_peak, &r, 1, timings) : -1;
        double mmas = (double)r.blocks * (s.threads / kind->inst_threads) * s.chains * s.unroll * (double)r.iters;
        if (ms > 0) rate = mmas * mma_peak_flops(row) / ms / 1e9, *ms_out = ms, *iters_out = r.iters;
        else snprintf(why, n, "timing failed: %s", r.err[0] ? r.err : b->vt->error(b->self));
    }
    if (out.ptr) b->vt->free(b->self, &out);
    cute_fn_free(r.f);
    return rate;
}

/* one row: checked, then timed; CLI_OK or CLI_FAIL */
static int bench_row(cute_runtime *rt, const mma_opts *o, const mma_peak_row *row, const peak_kind *kind)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *d = cute_cuda_device(cu);
    const char *mnemonic = cute_inst_info_of(row->inst)->mnemonic;
    if (d->cc_major * 10 + d->cc_minor < row->arch) {
        printf("%-13s %-52s  needs sm_%d\n", row->name, mnemonic, row->arch);
        return CLI_OK;
    }
    char why[2100];
    double ms = 0;
    int64_t iters = 0;
    double rate = peak_measure(rt, o->iters, row, kind, &ms, &iters, why, sizeof why);
    if (rate < 0) return printf("%-13s %-52s  %s\n", row->name, mnemonic, why), CLI_FAIL;
    printf("%-13s %-52s %9.1f %-7s %8.3f %10lld  ok\n", row->name, mnemonic, rate, row->acc == CUTE_I32 ? "TOPS" : "TFLOP/s",
           ms, (long long)iters);
    return CLI_OK;
}

/* whether row is one of dtype's: "bf16" is, "wgmma bf16" is (wgmma true), "f64 m16n8k4" is f64's */
static bool row_of(const mma_peak_row *row, const char *dtype, bool wgmma)
{
    const char *name = row->name;
    if (wgmma && strncmp(name, "wgmma ", 6)) return false;
    if (wgmma) name += 6;
    size_t len = strlen(dtype);
    return !strncmp(name, dtype, len) && (!name[len] || !strncmp(name + len, " m", 2));
}

double mma_ceiling(cute_runtime *rt, const char *dtype, int timings, char *what, size_t wn, char *err, size_t en)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *d = cute_cuda_device(cu);
    int arch = d->cc_major * 10 + d->cc_minor;
    const char *row_dtype = !strcmp(dtype, "e5m2") ? "e4m3" : dtype; /* the same rate on the tensor cores */
    const mma_peak_row *rows;
    double best = 0;
    what[0] = 0;
    /* wgmma where the card has it (sm_90: mma.sync runs at about half its rate), else mma.sync */
    for (int wg = 1; wg >= 0 && best == 0; wg--) {
        int n = wg ? wgmma_peak_rows(&rows) : mma_peak_rows(&rows);
        peak_kind kind = wg ? wgmma_kind : mma_sync_kind;
        if (wg) kind.shape.threads = 256; /* two warpgroups an SM, `cutec bench mma`'s default */
        for (int i = 0; i < n; i++) {
            if (!row_of(&rows[i], row_dtype, wg) || arch < rows[i].arch || (wg && arch >= 100)) continue;
            double ms = 0;
            int64_t iters = 0;
            double rate = peak_measure(rt, timings, &rows[i], &kind, &ms, &iters, err, en);
            if (rate < 0) return -1;
            if (rate > best)
                best = rate, snprintf(what, wn, "%s (%s)", rows[i].name, cute_inst_info_of(rows[i].inst)->mnemonic);
        }
    }
    return best;
}

static int usage(void)
{
    fputs("usage: cutec bench mma [--dtypes bf16,f16,tf32,s8,e4m3,f64,wgmma] [--iters N] [--warpgroups 1|2]\n"
          "  The mma.sync ceiling: independent mma.sync back to back from registers on every SM\n"
          "  (2 blocks of 256 threads per SM, 4 accumulators per thread, runs of about 1 ms),\n"
          "  and the wgmma ceiling: two warpgroups per SM issuing wgmma m64n256 from shared\n"
          "  memory back to back; TFLOP/s (TOPS for s8) per dtype and shape.  --dtypes picks rows\n"
          "  by name (\"f64\": all four f64 shapes, \"f64 m8n8k4\" one, \"wgmma\": every wgmma\n"
          "  row, \"wgmma bf16\" one); --iters: timings per row (median, default 10);\n"
          "  --warpgroups: the wgmma rows' warpgroups per SM (default 2; 1: one accumulator\n"
          "  chain per SM, what a ping-pong GEMM's turn of wgmmas has).\n",
          stdout);
    return CLI_OK;
}

static int parse(int argc, char **argv, mma_opts *o)
{
    *o = (mma_opts){NULL, 10, 2};
    for (int i = 2; i < argc; i += 2) {
        if (!strcmp(argv[i], "help") || !strcmp(argv[i], "--help")) return usage(), -1;
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x = 0;
        char why[160] = "";
        if (v && !strcmp(argv[i], "--dtypes")) o->only = v;
        else if (v && !strcmp(argv[i], "--iters") && cli_int(v, 1, 1000, &x, why, sizeof why)) o->iters = (int)x;
        else if (v && !strcmp(argv[i], "--warpgroups") && cli_int(v, 1, 2, &x, why, sizeof why))
            o->warpgroups = (int)x;
        else {
            fprintf(stderr, "cutec bench mma: bad option %s%s%s%s%s (see `cutec bench mma help`)\n",
                    argv[i], v ? " " : "", v ? v : "", why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

int cmd_bench_mma(int argc, char **argv)
{
    mma_opts o;
    int rc = parse(argc, argv, &o);
    if (rc || cli_parse_only()) return rc < 0 ? CLI_OK : rc;
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench mma: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *d = cute_cuda_device(cu);
    printf("# %s (%s), %d SMs, peak SM clock %d MHz\n", d->name, d->arch, d->sm_count, d->clock_khz / 1000);
    printf("# independent mma.sync back to back from registers: %d blocks of %d threads per SM, %d accumulators\n"
           "# per thread, %d mmas per loop iteration; median of %d timings of about %.0f ms; operands vary per thread\n",
           BLOCKS_PER_SM, THREADS, CHAINS, CHAINS * UNROLL, o.iters, RUN_MS);
    peak_kind wgmma = wgmma_kind;
    wgmma.shape.threads = 128 * o.warpgroups;
    printf("# wgmma: %d block of %d threads (%d warpgroup%s) per SM, m64n256 from shared memory (K-major,\n"
           "# 128-byte swizzle), %d per commit group, at most 2 groups in flight\n",
           wgmma.shape.blocks_per_sm, wgmma.shape.threads, o.warpgroups, o.warpgroups > 1 ? "s" : "", WG_UNROLL);
    printf("%-13s %-52s %17s %8s %10s  %s\n", "dtype", "instruction", "rate", "ms", "iters", "check");
    const mma_peak_row *rows;
    int n = mma_peak_rows(&rows);
    for (int i = 0; i < n; i++)
        if (wanted(&o, rows[i].name) && bench_row(rt, &o, &rows[i], &mma_sync_kind) != CLI_OK) rc = CLI_FAIL;
    n = wgmma_peak_rows(&rows);
    for (int i = 0; i < n; i++)
        if (wanted(&o, rows[i].name) && bench_row(rt, &o, &rows[i], &wgmma) != CLI_OK) rc = CLI_FAIL;
    char clock[128];
    gpu_sm_clock(cu, clock, sizeof clock);
    if (clock[0]) printf("# SM clock after the runs (now, max): %s\n", clock);
    cute_runtime_free(rt);
    return rc;
}
