/* One compiled function, called by 8 threads at once, each with its own buffers, sizes,
 * strides and scalar: every element must be what one thread alone would get (issue 12).
 * The function's host values (n, the stride) decide the grid and the kernel's parameters,
 * so a call that saw another thread's values would write past its buffers or leave
 * elements unwritten.  Runs on the interpreter, and on the GPU when there is one (else that
 * half skips, visibly); make TSAN=1 tsan-test runs it under ThreadSanitizer. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/jit.h"

enum { THREADS = 8, CALLS = 400, BLOCK = 64 };

static pthread_barrier_t start; /* the threads begin together, so their calls overlap */

/* y[i] = alpha * x[i] + y[i] for i < n: x strided, y contiguous */
static void axpy_kernel(cute_ctx *c, cute_tensor x, cute_tensor y, cute_int n, cute_val alpha)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int i = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(BLOCK)), cute_thread_idx(c, 0));
    CUTE_IF(c, cute_int_lt(c, i, n))
    {
        cute_ssa xi = cute_tensor_load(c, cute_tensor_slice(c, x, cute_tuple_int(i)));
        cute_tensor yi = cute_tensor_slice(c, y, cute_tuple_int(i));
        cute_ssa ax = cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_scalar(c, alpha, xi.shape), xi);
        cute_tensor_store(c, yi, cute_ssa_binop(c, CUTE_OP_ADD, ax, cute_tensor_load(c, yi)));
    }
}

static void axpy_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = cute_size(a, &arg[1].tensor.layout);
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, n, cute_i(BLOCK))}, .block = {cute_i(BLOCK)}};
    CUTE_LAUNCH(c, axpy_kernel, cfg, arg[0].tensor, arg[1].tensor, n, arg[2].f);
}

typedef struct worker {
    const cute_fn *f;
    cute_backend *be;
    int id;
    int calls_failed, wrong;
    char why[1024];
} worker;

/* small integers: alpha * x + y is exact in f32, whatever the order of rounding */
static float x_at(int id, int call, int64_t i) { return (float)((i * 7 + id * 3 + call) % 13 - 6); }
static float y_at(int id, int64_t i) { return (float)((i * 5 + id) % 11 - 5); }

/* one call with sizes of its own; returns the wrong elements (and counts a failed call) */
static int one_call(worker *w, int call)
{
    int64_t n = 37 + 61 * w->id + 29 * (call % 16), stride = 1 + (w->id + call) % 3;
    float alpha = (float)(w->id % 4 + 1 + call % 3);
    size_t xb = (size_t)(n * stride) * sizeof(float), yb = (size_t)n * sizeof(float);
    float *hx = malloc(xb), *hy = malloc(yb), *got = malloc(yb);
    cute_buffer X = {0}, Y = {0};
    cute_backend *be = w->be;
    int wrong = (int)n;
    if (!hx || !hy || !got || be->vt->alloc(be->self, xb, &X) || be->vt->alloc(be->self, yb, &Y))
        goto done;
    for (int64_t i = 0; i < n * stride; i++) hx[i] = x_at(w->id, call, i / stride);
    for (int64_t i = 0; i < n; i++) hy[i] = y_at(w->id, i);
    be->vt->upload(be->self, &X, 0, hx, xb), be->vt->upload(be->self, &Y, 0, hy, yb);
    cute_call_arg args[3] = {cute_call_tensor(&X, 0, CUTE_F32, 1, &n, &stride),
                             cute_call_tensor(&Y, 0, CUTE_F32, 1, &n, (int64_t[]){1}),
                             cute_call_float(alpha)};
    cute_status s = cute_call(w->f, NULL, 3, args, w->why, sizeof w->why);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    for (int64_t i = 0; i < n; i++) got[i] = -1e30f; /* poison: an unwritten element shows */
    if (s == CUTE_OK) s = be->vt->download(be->self, got, &Y, 0, yb);
    if (s != CUTE_OK) {
        w->calls_failed++;
        goto done;
    }
    wrong = 0;
    for (int64_t i = 0; i < n; i++) wrong += got[i] != alpha * x_at(w->id, call, i) + y_at(w->id, i);
done:
    be->vt->free(be->self, &X), be->vt->free(be->self, &Y);
    free(hx), free(hy), free(got);
    return wrong;
}

static void *work(void *p)
{
    worker *w = p;
    pthread_barrier_wait(&start);
    for (int call = 0; call < CALLS; call++) w->wrong += one_call(w, call);
    return NULL;
}

static void run_threads(cute_runtime *rt, const char *where)
{
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "(?):(?)", 4),
                              cute_spec_tensor(CUTE_F32, "(?):(1)", 4), cute_spec_float(CUTE_F32)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "axpy", axpy_host, NULL, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", where, err);
    if (!f) return;
    worker w[THREADS];
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){f, cute_runtime_backend(rt), i, 0, 0, ""};
        CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0, "%s: thread %d", where, i);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        CHECK(w[i].calls_failed == 0, "%s: thread %d: %d calls failed: %s", where, i,
              w[i].calls_failed, w[i].why);
        CHECK(w[i].wrong == 0, "%s: thread %d: %d wrong elements", where, i, w[i].wrong);
    }
    cute_fn_free(f);
}

int main(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK) {
        run_threads(rt, "interp");
        cute_runtime_free(rt);
    } else {
        CHECK(false, "interpreter: %s", err);
    }
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        run_threads(rt, "cuda");
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: the 8 threads ran on the interpreter only");
    }
    return CHECK_DONE("thread_test");
}
