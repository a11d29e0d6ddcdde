/* cute_tune_run's parallel build, for real: a kernel with two parameters (threads per
 * block, elements per thread) traced on each worker's own interpreter runtime, compiled by
 * NVRTC in the worker's thread (cute_fn_code; skipped visibly without NVRTC), and checked on
 * the interpreter against the CPU.  Builds overlap (asserted), every candidate is right, a
 * deliberately wrong one is caught.  make TSAN=1 tsan-test runs it under ThreadSanitizer. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "cutec/tune.h"

enum { N = 1000, WRONG_PER = 3 }; /* per == 3: the candidate that skips an element */

static atomic_int in_flight, most_in_flight, nvrtc_compiles;
static bool have_nvrtc;

typedef struct params {
    int threads, per;
} params;

/* y[i] = 2 x[i] + y[i], each thread `per` elements a block-stride apart */
static void scale_kernel(cute_ctx *c, cute_tensor x, cute_tensor y, cute_int n)
{
    const params *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int base = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(p->threads * p->per)), cute_thread_idx(c, 0));
    for (int k = 0; k < p->per - (p->per == WRONG_PER); k++) { /* unrolled at trace time */
        cute_int i = cute_add(a, base, cute_i(k * p->threads));
        CUTE_IF(c, cute_int_lt(c, i, n))
        {
            cute_ssa xi = cute_tensor_load(c, cute_tensor_slice(c, x, cute_tuple_int(i)));
            cute_tensor yi = cute_tensor_slice(c, y, cute_tuple_int(i));
            cute_ssa two = cute_ssa_binop(c, CUTE_OP_ADD, xi, xi);
            cute_tensor_store(c, yi, cute_ssa_binop(c, CUTE_OP_ADD, two, cute_tensor_load(c, yi)));
        }
    }
}

static void scale_host(cute_ctx *c, const cute_arg *arg)
{
    const params *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = cute_size(a, &arg[1].tensor.layout);
    cute_launch_cfg cfg = {.grid = {cute_ceil_div(a, n, cute_i(p->threads * p->per))}, .block = {cute_i(p->threads)}};
    CUTE_LAUNCH(c, scale_kernel, cfg, arg[0].tensor, arg[1].tensor, n);
}

typedef struct worker {
    cute_runtime *rt;
    const cute_fn *f;
} worker;

static void *worker_new(void *user, char *err, size_t n)
{
    (void)user;
    worker *w = calloc(1, sizeof *w);
    if (w && cute_runtime_new("interp", &w->rt, err, n) == CUTE_OK) return w;
    free(w);
    return NULL;
}

static void worker_free(void *user, void *p)
{
    (void)user;
    worker *w = p;
    cute_fn_free(w->f);
    cute_runtime_free(w->rt);
    free(w);
}

/* wait (2 s at most) until another build is in flight too, so overlap is seen */
static void overlap(void)
{
    int now = atomic_fetch_add(&in_flight, 1) + 1, most = atomic_load(&most_in_flight);
    while (now > most && !atomic_compare_exchange_weak(&most_in_flight, &most, now)) {}
    for (int i = 0; i < 200 && atomic_load(&most_in_flight) < 2; i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
}

static cute_status build(void *user, void *p, const int *point, char *why, size_t n)
{
    (void)user;
    worker *w = p;
    overlap();
    params prm = {point[0], point[1]};
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(?):(1)", 4), cute_spec_tensor(CUTE_F32, "(?):(1)", 4)};
    cute_fn_free(w->f);
    w->f = cute_compile(w->rt, "scale", scale_host, &prm, 2, specs, why, n);
    char *ptx = NULL;
    cute_status s = w->f ? CUTE_OK : CUTE_ERR_COMPILE;
    if (s == CUTE_OK && have_nvrtc) s = cute_fn_code(w->f, "ptx", "sm_80", &ptx, why, n);
    if (ptx && strstr(ptx, ".entry")) atomic_fetch_add(&nvrtc_compiles, 1);
    free(ptx);
    atomic_fetch_sub(&in_flight, 1);
    return s;
}

static cute_status check(void *user, void *p, const int *point, double *stat, char *why, size_t n)
{
    (void)user, (void)point, (void)stat;
    worker *w = p;
    cute_backend *b = cute_runtime_backend(w->rt);
    float hx[N], hy[N], got[N];
    for (int i = 0; i < N; i++) hx[i] = (float)(i % 17 - 8), hy[i] = (float)(i % 5), got[i] = -1e30f;
    cute_buffer X = {0}, Y = {0};
    int64_t len = N, one = 1;
    cute_status s = b->vt->alloc(b->self, sizeof hx, &X);
    if (s == CUTE_OK) s = b->vt->alloc(b->self, sizeof hy, &Y);
    if (s == CUTE_OK) s = b->vt->upload(b->self, &X, 0, hx, sizeof hx);
    if (s == CUTE_OK) s = b->vt->upload(b->self, &Y, 0, hy, sizeof hy);
    cute_call_arg args[2] = {cute_call_tensor(&X, 0, CUTE_F32, 1, &len, &one), cute_call_tensor(&Y, 0, CUTE_F32, 1, &len, &one)};
    if (s == CUTE_OK) s = cute_call(w->f, NULL, 2, args, why, n);
    if (s == CUTE_OK) s = b->vt->download(b->self, got, &Y, 0, sizeof got);
    int wrong = 0;
    for (int i = 0; i < N && s == CUTE_OK; i++) wrong += got[i] != 2 * hx[i] + hy[i];
    b->vt->free(b->self, &X), b->vt->free(b->self, &Y);
    if (s == CUTE_OK && wrong) snprintf(why, n, "%d of %d elements wrong", wrong, N), s = CUTE_ERR_CHECK;
    return s;
}

int main(void)
{
    cute_nvrtc *nv;
    char err[512];
    have_nvrtc = cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK;
    if (have_nvrtc) cute_nvrtc_close(nv);
    else SKIP("no NVRTC: the candidates are traced in parallel but not compiled to PTX");
    cute_tune_space s;
    memset(&s, 0, sizeof s);
    cute_tune_space_add(&s, "threads", 3, (int[]){64, 32, 128}, NULL);
    cute_tune_space_add(&s, "per", 3, (int[]){1, 2, WRONG_PER}, NULL);
    cute_tuner t = {.space = &s, .worker_new = worker_new, .worker_free = worker_free, .build = build, .check = check};
    cute_tune_result *r;
    int count, best, right = 0, wrong = 0;
    CHECK(cute_tune_run(&t, &(cute_tune_opts){.jobs = 4}, &r, &count, &best, err, sizeof err) == CUTE_OK, "%s", err);
    for (int i = 0; i < count; i++) {
        right += r[i].state == CUTE_TUNE_CHECKED;
        wrong += r[i].state == CUTE_TUNE_WRONG && r[i].point[1] == WRONG_PER && strstr(r[i].why, "elements wrong");
        if (r[i].state != CUTE_TUNE_CHECKED && r[i].state != CUTE_TUNE_WRONG) fprintf(stderr, "%s\n", r[i].why);
    }
    CHECK(count == 9 && right == 6 && wrong == 3, "%d candidates: %d right, %d caught wrong", count, right, wrong);
    CHECK(best == -1, "nothing timed, nothing chosen");
    CHECK(atomic_load(&most_in_flight) >= 2, "builds never overlapped (at most %d at once)", atomic_load(&most_in_flight));
    if (have_nvrtc) CHECK(atomic_load(&nvrtc_compiles) == 9, "%d PTX compiles of 9", atomic_load(&nvrtc_compiles));
    free(r);
    return CHECK_DONE("tune/parallel_test");
}
