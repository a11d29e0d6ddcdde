/* GPU timing for the benchmark commands (see gpu_timing.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gpu_timing.h"
#include "cutec/backend.h"
#include "cutec/jit.h"

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

double gpu_time_calls(cute_cuda *cu, gpu_timed_call fn, void *user, int sets, int reps)
{
    void *e0 = NULL, *e1 = NULL;
    double ms = -1, t[1000];
    if (cute_cuda_event_new(cu, &e0) != CUTE_OK || cute_cuda_event_new(cu, &e1) != CUTE_OK) goto out;
    int calls = 0, batch = 1;
    double span = timing_span_ms();
    for (int w = 0; w < 2 + sets; w++) /* warm-up: module load, first touches */
        if (fn(user, calls++ % sets) != CUTE_OK) goto out;
    for (int r = -1; r < reps; r++) { /* r = -1: measures one call to size the batch */
        float e = 0;
        if (cute_cuda_event_record(cu, e0, NULL) != CUTE_OK) goto out;
        for (int i = 0; i < batch; i++)
            if (fn(user, calls++ % sets) != CUTE_OK) goto out;
        if (cute_cuda_event_record(cu, e1, NULL) != CUTE_OK || cute_cuda_event_sync(cu, e1) != CUTE_OK ||
            cute_cuda_event_elapsed(cu, e0, e1, &e) != CUTE_OK)
            goto out;
        if (r < 0) {
            double one = e > 0 ? e : 1e-3;
            double most = 100 * span; /* calls a timing: 200 at 2 ms */
            batch = (int)fmin(ceil(span / one), most);
            batch = batch < 1 ? 1 : batch;
        } else {
            t[r] = (double)e / batch;
        }
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    ms = t[reps / 2];
out:
    if (e0) cute_cuda_event_free(cu, e0);
    if (e1) cute_cuda_event_free(cu, e1);
    return ms;
}

void gpu_sm_clock(char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = popen("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null", "r");
    if (!f) return;
    if (!fgets(buf, (int)n, f)) buf[0] = 0;
    pclose(f);
    buf[strcspn(buf, "\n")] = 0;
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
