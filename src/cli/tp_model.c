/* The scale model of tensor-parallel GEMM (docs/peer.md): GEMM time from one GPU's rate,
 * collectives from link bandwidth and latency (NVLink inside a host, each GPU's NIC between
 * hosts), and the overlapped schedules as pipelines of the same pieces.
 * `cutec model tp-gemm` prints it for several machines; `cutec bench tp-gemm` fits it to
 * what it measured on this host's GPUs and prints both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tp.h"

static double xfer_ms(double bytes, double gbs, double us) { return bytes / (gbs * 1e6) + us * 1e-3; }

/* a hierarchical all-reduce of `bytes` (ring inside each host, then between hosts on each
 * GPU's 1/L of it, then the ring's all-gather) */
static double all_reduce_ms(double bytes, const tp_machine *mc)
{
    int L = mc->gpus / mc->hosts, H = mc->hosts;
    double t = L > 1 ? 2.0 * (L - 1) * xfer_ms(bytes / L, mc->link_gbs, mc->link_us) : 0;
    return t + (H > 1 ? 2.0 * (H - 1) * xfer_ms(bytes / L / H, mc->net_gbs, mc->net_us) : 0);
}

/* the time shard i (0: the GPU's own) has arrived: the host's shards over NVLink first,
 * one after another, then the other hosts' over the NIC */
static double arrival_ms(int i, double shard, const tp_machine *mc)
{
    int L = mc->gpus / mc->hosts;
    if (i < L) return i * xfer_ms(shard, mc->link_gbs, mc->link_us);
    return (L - 1) * xfer_ms(shard, mc->link_gbs, mc->link_us) + (i - L + 1) * xfer_ms(shard, mc->net_gbs, mc->net_us);
}

double tp_predict_rows(int64_t m, int64_t n, int64_t k, int chunks, const int64_t *rows, const tp_machine *mc)
{
    /* equal chunks of GEMM t and collective c give t + (J-1) max(t, c) + c */
    double gemm = 2.0 * (double)m * (double)n * (double)k / mc->gpus / (mc->tflops * 1e9) * mc->slowdown;
    double ended = 0, reduced = 0;
    for (int j = 0; j < chunks; j++) {
        ended += gemm * (double)rows[j] / (double)m;
        reduced = fmax(reduced, ended) + all_reduce_ms((double)rows[j] * n * 2, mc);
    }
    return reduced;
}

tp_prediction tp_predict(tp_mode mode, int64_t m, int64_t n, int64_t k, int chunks, const tp_machine *mc)
{
    tp_prediction p;
    int P = mc->gpus;
    p.gemm_ms = 2.0 * (double)m * (double)n * (double)k / P / (mc->tflops * 1e9);
    double t_slow = p.gemm_ms * mc->slowdown;
    if (mode == TP_ROW) { /* a pipeline of J chunks: GEMM of chunk j+1 while chunk j is
                             reduced; chunks 0: the best J of 2, 4, ... 64 (more chunks hide more
                             but pay the collective's latency once each) */
        p.comm_ms = all_reduce_ms((double)m * n * 2, mc);
        p.overlapped_ms = INFINITY;
        for (int J = chunks ? chunks : 2; J <= (chunks ? chunks : 64); J *= 2) {
            int64_t rows[TP_MAX_CHUNKS];
            tp_chunks_equal(m, J, rows);
            double o = tp_predict_rows(m, n, k, J, rows, mc);
            if (o < p.overlapped_ms) p.overlapped_ms = o, p.chunks = J;
        }
    } else { /* the own shard first, then each as it lands */
        double shard = (double)m * k * 2 / P, t = t_slow / P, f = t;
        p.comm_ms = arrival_ms(P - 1, shard, mc);
        for (int i = 1; i < P; i++) f = fmax(f, arrival_ms(i, shard, mc)) + t;
        p.overlapped_ms = f, p.chunks = P;
    }
    p.sequential_ms = p.gemm_ms + p.comm_ms;
    return p;
}

static const char *argv_chunks(int j)
{
    static _Thread_local char buf[16];
    snprintf(buf, sizeof buf, "%d", j);
    return buf;
}

/* --- cutec model tp-gemm ------------------------------------------------------------------- */

typedef struct model_opts {
    tp_machine mc;
    int64_t m, n, k;
    int chunks;
    int64_t rows[TP_MAX_CHUNKS]; /* --chunk-rows: the row schedule in these chunks too */
    int nrows;
} model_opts;

static bool number(const char *v, double lo, double *out, char *why, size_t n)
{
    char *end;
    double x = strtod(v, &end);
    if (*v && !*end && x >= lo && isfinite(x)) return *out = x, true;
    return snprintf(why, n, "\"%s\" is not a number of at least %g", v, lo), false;
}

static int parse(int argc, char **argv, model_opts *o)
{
    *o = (model_opts){{.gpus = 8, .hosts = 1, .tflops = 700, .link_gbs = 370, .link_us = 5, .net_gbs = 50,
                       .net_us = 15, .slowdown = 1.05}, 8192, 8192, 0, 0, {0}, 0};
    char why[256] = "";
    for (int i = 2; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        int64_t x = 0;
        bool ok;
        if (!strcmp(k, "--gpus") || !strcmp(k, "--hosts") || !strcmp(k, "--chunks"))
            ok = cli_int(v, 1, k[2] == 'c' ? TP_MAX_CHUNKS : 4096, &x, why, sizeof why),
            *(k[2] == 'g' ? &o->mc.gpus : k[2] == 'h' ? &o->mc.hosts : &o->chunks) = (int)x;
        else if (!strcmp(k, "--m") || !strcmp(k, "--n") || !strcmp(k, "--k"))
            ok = cli_int(v, 1, 1 << 20, &x, why, sizeof why), *(k[2] == 'm' ? &o->m : k[2] == 'n' ? &o->n : &o->k) = x;
        else if (!strcmp(k, "--chunk-rows")) ok = tp_chunks_parse(v, o->rows, &o->nrows, why, sizeof why);
        else if (!strcmp(k, "--tflops")) ok = number(v, 1e-3, &o->mc.tflops, why, sizeof why);
        else if (!strcmp(k, "--link-gbs")) ok = number(v, 1e-3, &o->mc.link_gbs, why, sizeof why);
        else if (!strcmp(k, "--link-us")) ok = number(v, 0, &o->mc.link_us, why, sizeof why);
        else if (!strcmp(k, "--net-gbs")) ok = number(v, 1e-3, &o->mc.net_gbs, why, sizeof why);
        else if (!strcmp(k, "--net-us")) ok = number(v, 0, &o->mc.net_us, why, sizeof why);
        else if (!strcmp(k, "--slowdown")) ok = number(v, 1, &o->mc.slowdown, why, sizeof why);
        else ok = false, snprintf(why, sizeof why, "unknown option %s", k);
        if (!ok) return fprintf(stderr, "cutec model tp-gemm: %s\n", why), CLI_USAGE;
    }
    if (o->mc.gpus % o->mc.hosts || o->m % o->mc.gpus || o->n % o->mc.gpus || (o->k && o->k % o->mc.gpus))
        return fprintf(stderr, "cutec model tp-gemm: %d GPUs must spread evenly over %d hosts and divide "
                       "M, N and K\n", o->mc.gpus, o->mc.hosts), CLI_USAGE;
    if (o->nrows && !tp_chunks_check(o->rows, o->nrows, o->m, 1, why, sizeof why))
        return fprintf(stderr, "cutec model tp-gemm: --chunk-rows: %s\n", why), CLI_USAGE;
    return CLI_OK;
}

void tp_model_print(tp_mode mode, int64_t m, int64_t n, int64_t k, int chunks, const tp_machine *mc)
{
    tp_prediction p = tp_predict(mode, m, n, k, chunks, mc);
    printf("%-7s %5d %5d %9.3f %9.3f %12.3f %12.3f %7d %8.2f\n", mode == TP_ROW ? "row" : "column", mc->gpus,
           mc->hosts, p.gemm_ms, p.comm_ms, p.sequential_ms, p.overlapped_ms, p.chunks,
           p.overlapped_ms / p.sequential_ms);
}

void tp_model_header(void)
{
    printf("%-7s %5s %5s %9s %9s %12s %12s %7s %8s\n", "mode", "gpus", "hosts", "gemm ms", "comm ms",
           "sequential", "overlapped", "pieces", "ratio");
}

static const char model_usage[] =
    "usage: cutec model tp-gemm [--gpus 8] [--hosts 1] [--m 8192] [--n 8192] [--k K] [--chunks J] [--chunk-rows R,...]\n"
    "         [--tflops 700] [--link-gbs 370] [--link-us 5] [--net-gbs 50] [--net-us 15] [--slowdown 1.05]\n"
    "       tensor-parallel GEMM (row: K split, C all-reduced; column: A gathered) on GPUs and hosts,\n"
    "       GEMM then collective against the overlapped schedules of `cutec bench tp-gemm` (docs/peer.md)\n";

int cmd_model(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "help")) return fputs(model_usage, stdout), CLI_OK;
    if (argc < 2 || strcmp(argv[1], "tp-gemm")) return fputs(model_usage, stderr), CLI_USAGE;
    model_opts o;
    int rc = parse(argc, argv, &o);
    if (rc || cli_parse_only()) return rc;
    printf("# tensor-parallel bf16 GEMM, C (%lld, %lld) = A (%lld, K) B^T, K = %lld (column: %lld): one GPU's GEMM %.0f TFLOP/s, "
           "NVLink %.0f GB/s + %.0f us, network %.0f GB/s a GPU + %.0f us, GEMM %.2fx slower under traffic, "
           "row parallel in %s chunks\n", (long long)o.m, (long long)o.n, (long long)o.m, (long long)(o.k ? o.k : 16384), (long long)(o.k ? o.k : 8192),
           o.mc.tflops, o.mc.link_gbs, o.mc.link_us, o.mc.net_gbs, o.mc.net_us, o.mc.slowdown,
           o.chunks ? argv_chunks(o.chunks) : "the best number of");
    tp_model_header();
    for (int mode = 0; mode < 2; mode++)
        tp_model_print((tp_mode)mode, o.m, o.n, o.k ? o.k : mode == TP_ROW ? 16384 : 8192, o.chunks, &o.mc);
    if (o.nrows) {
        char text[256];
        tp_chunks_text(o.rows, o.nrows, text, sizeof text);
        printf("row parallel in chunks of %s rows: overlapped %.3f ms\n", text,
               tp_predict_rows(o.m, o.n, o.k ? o.k : 16384, o.nrows, o.rows, &o.mc));
    }
    return CLI_OK;
}
