/* cutec bench all-reduce|reduce-scatter|all-gather [--dtype bf16] [--sizes 8M,128M,512M]
 *                                                  [--gpus N] [--iters N]
 * NCCL's collectives through cutec/comm.h over the GPUs of this host, one process driving
 * them all.  Sizes are bytes in nccl-tests' convention (the send of all-reduce and
 * reduce-scatter, the gathered recv of all-gather); algbw = size / time and busbw = algbw x
 * 2(n-1)/n for all-reduce, x (n-1)/n for the others: the figure that compares across rank
 * counts and with bench/torch_nccl.py, which times torch.distributed on the same sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/comm.h"
#include "cutec/cuda_driver.h"

enum { MAX_GPUS = 8, MAX_SIZES = 16 };

typedef struct {
    const char *op;
    cute_dtype dtype;
    int64_t sizes[MAX_SIZES];
    int nsizes, gpus, iters;
} comm_opts;

typedef struct {
    int n;
    cute_runtime *rt[MAX_GPUS];
    cute_buffer send[MAX_GPUS], recv[MAX_GPUS];
    cute_comm *comm;
} gpus;

bool cli_comm_op(const char *name)
{
    return name && (!strcmp(name, "all-reduce") || !strcmp(name, "reduce-scatter") ||
                    !strcmp(name, "all-gather"));
}

/* "8M" (MiB), "64K", "1G", or plain bytes */
static bool parse_size(const char *s, int64_t *out, char *why, size_t n)
{
    char digits[32];
    size_t len = strlen(s);
    int64_t unit = 1;
    if (len && strchr("KMG", s[len - 1])) unit = (int64_t)1 << (s[len - 1] == 'K' ? 10 : s[len - 1] == 'M' ? 20 : 30), len--;
    if (len == 0 || len >= sizeof digits) return snprintf(why, n, "\"%s\" is not a size like 8M", s), false;
    memcpy(digits, s, len), digits[len] = 0;
    if (!cli_int(digits, 1, ((int64_t)1 << 40) / unit, out, why, n)) return false;
    *out *= unit;
    return true;
}

static int parse(int argc, char **argv, comm_opts *o)
{
    *o = (comm_opts){.op = argv[1], .dtype = CUTE_BF16, .gpus = 0, .iters = 20,
                     .sizes = {8 << 20, 128 << 20, 512 << 20}, .nsizes = 3};
    char why[256];
    for (int i = 2; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x = 0;
        bool ok = v != NULL;
        if (!v) snprintf(why, sizeof why, "%s needs a value", k);
        else if (!strcmp(k, "--dtype")) {
            cute_dtype d;
            ok = cute_dtype_parse(v, &d);
            if (ok) o->dtype = d;
            else snprintf(why, sizeof why, "no dtype %s", v);
        } else if (!strcmp(k, "--gpus")) {
            ok = cli_int(v, 1, MAX_GPUS, &x, why, sizeof why), o->gpus = (int)x;
        } else if (!strcmp(k, "--iters")) {
            ok = cli_int(v, 1, 1000, &x, why, sizeof why), o->iters = (int)x;
        } else if (!strcmp(k, "--sizes")) {
            char list[512];
            snprintf(list, sizeof list, "%s", v);
            o->nsizes = 0;
            for (char *save = NULL, *t = strtok_r(list, ",", &save); ok && t; t = strtok_r(NULL, ",", &save))
                if (o->nsizes == MAX_SIZES) ok = false, snprintf(why, sizeof why, "more than %d sizes", MAX_SIZES);
                else ok = parse_size(t, &o->sizes[o->nsizes++], why, sizeof why);
            if (ok && !o->nsizes) ok = false, snprintf(why, sizeof why, "--sizes is empty");
        } else {
            ok = false, snprintf(why, sizeof why, "unknown option %s", k);
        }
        if (!ok) {
            fprintf(stderr, "cutec bench %s: %s\n", o->op, why);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static int64_t largest(const comm_opts *o)
{
    int64_t m = 0;
    for (int i = 0; i < o->nsizes; i++) m = o->sizes[i] > m ? o->sizes[i] : m;
    return m;
}

/* a runtime, a send and a recv buffer of `bytes` a GPU (the largest size), a communicator */
static bool open_gpus(gpus *g, const comm_opts *o, char *err, size_t n)
{
    cute_cuda *cu;
    if (cute_cuda_open(NULL, &cu, err, n) != CUTE_OK) return false;
    int have = cute_cuda_device_count(cu);
    cute_cuda_close(cu);
    g->n = o->gpus ? o->gpus : have > MAX_GPUS ? MAX_GPUS : have;
    if (g->n > have) return snprintf(err, n, "--gpus %d: this host has %d", g->n, have), false;
    size_t bytes = (size_t)largest(o);
    for (int r = 0; r < g->n; r++) {
        char name[24]; /* "cuda:" and any int */
        snprintf(name, sizeof name, "cuda:%d", r);
        if (cute_runtime_new(name, &g->rt[r], err, n) != CUTE_OK) return false;
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        if (b->vt->alloc(b->self, bytes, &g->send[r]) != CUTE_OK ||
            b->vt->alloc(b->self, bytes, &g->recv[r]) != CUTE_OK ||
            cute_cuda_memset8(cute_cuda_backend_driver(b), (cute_devptr)(uintptr_t)g->send[r].ptr,
                              0x3c, bytes) != CUTE_OK)
            return snprintf(err, n, "GPU %d: no room for 2 x %zu bytes", r, bytes), false;
    }
    return cute_comm_open(g->n, g->rt, &g->comm, err, n) == CUTE_OK;
}

static void close_gpus(gpus *g)
{
    cute_comm_free(g->comm);
    for (int r = 0; r < g->n; r++) {
        if (!g->rt[r]) continue;
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        if (g->send[r].ptr) b->vt->free(b->self, &g->send[r]);
        if (g->recv[r].ptr) b->vt->free(b->self, &g->recv[r]);
        cute_runtime_free(g->rt[r]);
    }
}

/* one collective of `bytes` (nccl-tests' size) on every GPU */
static cute_status once(gpus *g, const char *op, cute_dtype d, int64_t bytes, char *err, size_t n)
{
    cute_call_arg send[MAX_GPUS], recv[MAX_GPUS];
    int64_t es = cute_dtype_bytes(d), total = bytes / es / g->n * g->n, part = total / g->n;
    bool gather = !strcmp(op, "all-gather"), scatter = !strcmp(op, "reduce-scatter");
    int64_t ns = gather ? part : total, nr = scatter ? part : total, unit = 1;
    for (int r = 0; r < g->n; r++) {
        send[r] = cute_call_tensor(&g->send[r], 0, d, 1, &ns, &unit);
        recv[r] = cute_call_tensor(&g->recv[r], 0, d, 1, &nr, &unit);
    }
    return gather ? cute_comm_all_gather(g->comm, send, recv, NULL, err, n)
         : scatter ? cute_comm_reduce_scatter(g->comm, send, recv, CUTE_COMM_SUM, NULL, err, n)
                   : cute_comm_all_reduce(g->comm, send, recv, CUTE_COMM_SUM, NULL, err, n);
}

/* median ms of one collective: 5 timings of `iters` back to back, CUDA events on GPU 0 */
static double time_op(gpus *g, const comm_opts *o, int64_t bytes, char *err, size_t n)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(g->rt[0]));
    void *ev[2] = {NULL, NULL};
    double ms[5];
    cute_status s = cute_cuda_event_new(cu, &ev[0]);
    if (s == CUTE_OK) s = cute_cuda_event_new(cu, &ev[1]);
    for (int w = 0; s == CUTE_OK && w < 3; w++) s = once(g, o->op, o->dtype, bytes, err, n);
    for (int k = 0; s == CUTE_OK && k < 5; k++) {
        s = cute_comm_sync(g->comm, NULL, err, n);
        if (s == CUTE_OK) s = cute_cuda_event_record(cu, ev[0], NULL);
        for (int i = 0; s == CUTE_OK && i < o->iters; i++) s = once(g, o->op, o->dtype, bytes, err, n);
        if (s == CUTE_OK) s = cute_cuda_event_record(cu, ev[1], NULL);
        if (s == CUTE_OK) s = cute_comm_sync(g->comm, NULL, err, n);
        float t = 0;
        if (s == CUTE_OK) s = cute_cuda_event_elapsed(cu, ev[0], ev[1], &t);
        ms[k] = t / o->iters;
    }
    for (int i = 0; i < 2; i++)
        if (ev[i]) cute_cuda_event_free(cu, ev[i]);
    if (s != CUTE_OK) return -1;
    for (int i = 1; i < 5; i++) /* insertion sort: the median of five */
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1], ms[j - 1] = t;
        }
    return ms[2];
}

int cmd_bench_comm(int argc, char **argv)
{
    comm_opts o;
    int rc = parse(argc, argv, &o);
    if (rc || cli_parse_only()) return rc;
    char err[1024] = "";
    gpus g = {0};
    if (!open_gpus(&g, &o, err, sizeof err)) {
        printf("cutec bench %s: skipped: %s\n", o.op, err);
        close_gpus(&g);
        return CLI_OK;
    }
    double factor = !strcmp(o.op, "all-reduce") ? 2.0 * (g.n - 1) / g.n : (double)(g.n - 1) / g.n;
    printf("# %s over %d GPUs through NCCL %d (cutec/comm.h), %s, %d back-to-back a timing, "
           "median of 5\n", o.op, g.n, cute_nccl_version(err, sizeof err), cute_dtype_name(o.dtype), o.iters);
    printf("%12s %10s %10s %10s\n", "bytes", "ms", "algbw GB/s", "busbw GB/s");
    for (int i = 0; rc == CLI_OK && i < o.nsizes; i++) {
        double ms = time_op(&g, &o, o.sizes[i], err, sizeof err);
        if (ms < 0) {
            fprintf(stderr, "cutec bench %s: %s\n", o.op, err);
            rc = CLI_FAIL;
            break;
        }
        double algbw = (double)o.sizes[i] / (ms * 1e6);
        printf("%12lld %10.4f %10.1f %10.1f\n", (long long)o.sizes[i], ms, algbw, algbw * factor);
    }
    close_gpus(&g);
    return rc;
}
