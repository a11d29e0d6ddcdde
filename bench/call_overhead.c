/* The C side of python/bench_overhead.py, in the same process as the Python side: host
 * microseconds per call of cutec_gemm and of cutec_call_packed on one packed call's
 * arguments, and a launch that does nothing (to time the host path without a GPU).
 *   cc -O2 -shared -fPIC -Iinclude bench/call_overhead.c -o build/call_overhead.so
 * It links no cutec: the bench hands it the entry points of the library the package loaded
 * (two copies of the library in one process would not share their state). */
#include <time.h>

#include "cutec/backend.h"
#include "cutec/kernels.h"
#include "cutec/packed_call.h"

typedef cute_status gemm_fn(cute_gemm_lib *, cute_gemm_variant, const cute_call_arg *,
                            const cute_call_arg *, const cute_call_arg *, double, double, void *,
                            char *, size_t);
typedef cute_status packed_fn(cutec_packed_call *);

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* cutec_gemm n times on p's arguments (after one cutec_call_packed set their buffers);
 * -1 when a call fails */
double bench_gemm_us(gemm_fn *gemm, cutec_packed_call *p, int n)
{
    int failed = 0;
    double t0 = now_us();
    for (int i = 0; i < n; i++)
        failed |= gemm(p->lib, (cute_gemm_variant)p->which, &p->arg[0], &p->arg[1], &p->arg[2],
                       p->alpha, p->beta, p->stream, p->err, sizeof p->err);
    return failed ? -1 : (now_us() - t0) / n;
}

double bench_packed_us(packed_fn *call, cutec_packed_call *p, int n)
{
    int failed = 0;
    double t0 = now_us();
    for (int i = 0; i < n; i++) failed |= call(p);
    return failed ? -1 : (now_us() - t0) / n;
}

static cute_status no_launch(void *self, cute_module *m, int kernel, const cute_launch *cfg,
                             const cute_launch_arg *args, int nargs)
{
    (void)self, (void)m, (void)kernel, (void)cfg, (void)args, (void)nargs;
    return CUTE_OK;
}

/* b's launches do nothing from now on (b's other entry points stay) */
void bench_stub_launch(cute_backend *b)
{
    static cute_backend_vtable vt;
    vt = *b->vt;
    vt.launch = no_launch;
    b->vt = &vt;
}
