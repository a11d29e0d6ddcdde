/* GPU timing for the benchmark commands (see gpu_timing.h). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/gpu_timing.h"
#include "cutec/backend.h"
#include "cutec/jit.h"
#include "runtime/dynlib.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The span of one timing in ms: 2, or $CUTEC_BENCH_SPAN_MS (1 to 10000).  Short spans time
 * the chip at the clock it starts a burst at; long ones (100 ms and more) include what the
 * power cap does to the clock under sustained load, as a training step sees it. */
static double timing_span_ms(void)
{
    const char *v = getenv("CUTEC_BENCH_SPAN_MS");
    if (!v || !*v) return 2.0;
    char *end;
    double ms = strtod(v, &end);
    if (*end || !(ms >= 1 && ms <= 10000)) {
        fprintf(stderr, "cutec: CUTEC_BENCH_SPAN_MS=%s: not a number of milliseconds from 1 to 10000; timing 2 ms spans\n", v);
        return 2.0;
    }
    return ms;
}

/* warm-up (module load, first touches), then one call timed: the batch of calls that makes a
 * timing of about the span; 0 on failure */
static int warm_batch(cute_cuda *cu, void *e0, void *e1, gpu_timed_call fn, void *user, int sets, int *calls)
{
    float e = 0;
    for (int w = 0; w < 2 + sets; w++)
        if (fn(user, (*calls)++ % sets) != CUTE_OK) return 0;
    if (cute_cuda_event_record(cu, e0, NULL) != CUTE_OK || fn(user, (*calls)++ % sets) != CUTE_OK ||
        cute_cuda_event_record(cu, e1, NULL) != CUTE_OK || cute_cuda_event_sync(cu, e1) != CUTE_OK ||
        cute_cuda_event_elapsed(cu, e0, e1, &e) != CUTE_OK)
        return 0;
    double one = e > 0 ? e : 1e-3, span = timing_span_ms();
    int batch = (int)fmin(ceil(span / one), 100 * span); /* at most 200 calls a timing at 2 ms */
    return batch < 1 ? 1 : batch;
}

/* one timing: ms per call over a batch of back-to-back calls; < 0 on failure */
static double time_batch(cute_cuda *cu, void *e0, void *e1, gpu_timed_call fn, void *user, int sets, int batch,
                         int *calls)
{
    float e = 0;
    if (cute_cuda_event_record(cu, e0, NULL) != CUTE_OK) return -1;
    for (int i = 0; i < batch; i++)
        if (fn(user, (*calls)++ % sets) != CUTE_OK) return -1;
    if (cute_cuda_event_record(cu, e1, NULL) != CUTE_OK || cute_cuda_event_sync(cu, e1) != CUTE_OK ||
        cute_cuda_event_elapsed(cu, e0, e1, &e) != CUTE_OK)
        return -1;
    return (double)e / batch;
}

double gpu_median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return x[n / 2];
}

double gpu_time_calls(cute_cuda *cu, gpu_timed_call fn, void *user, int sets, int reps)
{
    void *e0 = NULL, *e1 = NULL;
    double ms = -1, t[1000];
    int calls = 0, batch;
    if (cute_cuda_event_new(cu, &e0) != CUTE_OK || cute_cuda_event_new(cu, &e1) != CUTE_OK ||
        !(batch = warm_batch(cu, e0, e1, fn, user, sets, &calls)))
        goto out;
    for (int r = 0; r < reps; r++)
        if ((t[r] = time_batch(cu, e0, e1, fn, user, sets, batch, &calls)) < 0) goto out;
    ms = gpu_median(t, reps);
out:
    if (e0) cute_cuda_event_free(cu, e0);
    if (e1) cute_cuda_event_free(cu, e1);
    return ms;
}

/* --- the SM clock: NVML (libnvidia-ml, with the driver) through runtime/dynlib -------------- */

typedef struct nvml_api {
    int (*Init)(void);
    int (*HandleByPciBusId)(const char *bus_id, void **dev);
    int (*ClockInfo)(void *dev, int type, unsigned *mhz);    /* now */
    int (*MaxClockInfo)(void *dev, int type, unsigned *mhz); /* its maximum */
} nvml_api;
enum { NVML_CLOCK_SM = 1 };

/* nvmlInit_v2 once the entry points are in (dynlib_open_once runs it once for the process) */
static bool nvml_init(void *table, const char *path, char *err, size_t n)
{
    int r = ((nvml_api *)table)->Init();
    if (r != 0) snprintf(err, n, "%s: nvmlInit_v2 failed (%d)", path, r);
    return r == 0;
}

static const char *const nvml_files[] = {"libnvidia-ml.so.1", NULL};
static const dynlib_sym nvml_syms[] = {
    DYNLIB_SYM(nvml_api, Init, "nvmlInit_v2"),
    DYNLIB_SYM(nvml_api, HandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2"),
    DYNLIB_SYM(nvml_api, ClockInfo, "nvmlDeviceGetClockInfo"),
    DYNLIB_SYM(nvml_api, MaxClockInfo, "nvmlDeviceGetMaxClockInfo"),
};
static const dynlib_spec nvml_spec = {"NVML", NULL, nvml_files, NULL, nvml_syms, sizeof nvml_syms / sizeof *nvml_syms,
                                      "it comes with the NVIDIA driver", NULL, nvml_init};
static nvml_api nvml;

/* NVML's handle of cu's device, found by its PCI bus id (CUDA_VISIBLE_DEVICES honoured; NVML's
 * indices do not); false where there is none (NULL cu, the interpreter: silently; else said
 * once on stderr) */
static bool nvml_device(cute_cuda *cu, void **dev)
{
    static dynlib_once lib = DYNLIB_ONCE_INIT;
    static atomic_bool said;
    char why[640];
    if (!cu) return false;
    const char *id = cute_cuda_device(cu)->pci_bus_id;
    bool ok = dynlib_open_once(&lib, &nvml_spec, &nvml, why, sizeof why);
    if (ok && !*id) ok = false, snprintf(why, sizeof why, "the CUDA driver gave no PCI bus id");
    else if (ok && nvml.HandleByPciBusId(id, dev) != 0)
        ok = false, snprintf(why, sizeof why, "NVML has no device at PCI bus id %s", id);
    if (!ok && !atomic_exchange(&said, true)) fprintf(stderr, "cutec: no SM clock: %s\n", why);
    return ok;
}

void gpu_sm_clock(cute_cuda *cu, char *buf, size_t n)
{
    void *dev;
    unsigned now, max;
    buf[0] = 0;
    if (nvml_device(cu, &dev) && nvml.ClockInfo(dev, NVML_CLOCK_SM, &now) == 0 &&
        nvml.MaxClockInfo(dev, NVML_CLOCK_SM, &max) == 0)
        snprintf(buf, n, "%u MHz, %u MHz", now, max); /* (nvidia-smi's csv, as scripts read it) */
}

/* The pause between two samples of the clock beside a timing, in microseconds: 200, or
 * $CUTEC_BENCH_CLOCK_US (0 to 100000; 0: no samples, the timings without a clock, to see what
 * the sampling itself costs the GPU) */
static long clock_pause_us(void)
{
    const char *v = getenv("CUTEC_BENCH_CLOCK_US");
    if (!v || !*v) return 200;
    char *end;
    long us = strtol(v, &end, 10);
    if (*end || us < 0 || us > 100000) {
        fprintf(stderr, "cutec: CUTEC_BENCH_CLOCK_US=%s: not a number of microseconds from 0 to 100000; sampling every "
                        "200 us\n", v);
        return 200;
    }
    return us;
}

/* the clock beside a timing: sampled by a thread of its own */
typedef struct clock_sampler {
    pthread_t thread;
    void *dev;
    atomic_bool on;
    long pause_us;
    double sum;
    long n;
} clock_sampler;

static void clock_sample(clock_sampler *s)
{
    unsigned mhz = 0;
    if (nvml.ClockInfo(s->dev, NVML_CLOCK_SM, &mhz) == 0) s->sum += mhz, s->n++;
}

static void *clock_loop(void *arg)
{
    clock_sampler *s = arg;
    const struct timespec pause = {s->pause_us / 1000000, s->pause_us % 1000000 * 1000};
    while (atomic_load(&s->on)) clock_sample(s), nanosleep(&pause, NULL);
    return NULL;
}

static bool clock_start(cute_cuda *cu, clock_sampler *s)
{
    s->sum = 0, s->n = 0, s->pause_us = clock_pause_us();
    atomic_store(&s->on, true);
    return s->pause_us > 0 && nvml_device(cu, &s->dev) && pthread_create(&s->thread, NULL, clock_loop, s) == 0;
}

/* the mean MHz since clock_start (0 without NVML) */
static double clock_stop(clock_sampler *s, bool started)
{
    atomic_store(&s->on, false);
    if (!started) return 0;
    pthread_join(s->thread, NULL);
    if (!s->n) clock_sample(s); /* a timing shorter than one pause */
    return s->n ? s->sum / (double)s->n : 0;
}

bool gpu_time_turns(cute_cuda *cu, gpu_timed_call fn[2], void *user[2], int sets, int rounds, gpu_turns *t)
{
    void *e0 = NULL, *e1 = NULL;
    int calls[2] = {0, 0}, batch[2] = {0, 0};
    bool ok = rounds >= 1 && rounds <= GPU_TURNS_MAX && cute_cuda_event_new(cu, &e0) == CUTE_OK &&
              cute_cuda_event_new(cu, &e1) == CUTE_OK;
    for (int i = 0; i < 2 && ok; i++) ok = (batch[i] = warm_batch(cu, e0, e1, fn[i], user[i], sets, &calls[i])) > 0;
    t->rounds = rounds;
    for (int r = 0; r < rounds && ok; r++)
        for (int j = 0; j < 2 && ok; j++) {
            int i = j ^ (r & 1); /* AB, then BA */
            clock_sampler s;
            bool sampled = clock_start(cu, &s);
            t->ms[i][r] = time_batch(cu, e0, e1, fn[i], user[i], sets, batch[i], &calls[i]);
            t->mhz[i][r] = clock_stop(&s, sampled);
            ok = t->ms[i][r] >= 0;
        }
    if (e0) cute_cuda_event_free(cu, e0);
    if (e1) cute_cuda_event_free(cu, e1);
    return ok;
}

typedef struct copy_call {
    cute_cuda *cu;
    cute_buffer *dst, *src;
    size_t bytes;
} copy_call;

static cute_status call_copy(void *user, int set)
{
    (void)set;
    copy_call *c = user;
    return cute_cuda_copy_dtod_async(c->cu, (cute_devptr)(uintptr_t)c->dst->ptr,
                                     (cute_devptr)(uintptr_t)c->src->ptr, c->bytes, NULL);
}

double gpu_copy_gbs(struct cute_runtime *rt, size_t bytes, int iters)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer s, d;
    double ms = -1;
    if (b->vt->alloc(b->self, bytes, &s) != CUTE_OK) return -1;
    if (b->vt->alloc(b->self, bytes, &d) == CUTE_OK) {
        copy_call cc = {cute_cuda_backend_driver(b), &d, &s, bytes};
        ms = gpu_time_calls(cc.cu, call_copy, &cc, 1, iters);
        b->vt->free(b->self, &d);
    }
    b->vt->free(b->self, &s);
    return ms > 0 ? 2.0 * (double)bytes / ms / 1e6 : -1;
}
