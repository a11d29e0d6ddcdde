/* The reductions across threads and over TensorSSA modes, on the interpreter, against a
 * float64 reference on fresh random inputs with poisoned outputs: warp all-reduce and
 * reduce at every width, online softmax (max, sum) pairs over a warp and over groups of
 * warps through shared memory, sums over 64 to 256 threads, reduce over modes; and each
 * misuse as an error at the caller's line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/jit.h"
#include "cutec/reduce.h"

enum { THREADS = 256, VALS = 12 };
typedef enum { K_WARP_ALL, K_WARP_DOWN, K_GROUP_SUM, K_GROUP_SOFTMAX, K_MODES } kind;
typedef struct test_case {
    kind k;
    int width; /* lanes / threads per group */
} test_case;

static uint64_t seed;
static double uniform(void) /* in [-1, 1) */
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
}

static cute_tuple one(void) { return cute_tuple_int(cute_i(1)); }

static void put(cute_ctx *c, cute_tensor y, cute_int i, cute_val v)
{
    cute_tensor_store(c, cute_tensor_slice(c, y, cute_tuple_int(i)), cute_ssa_scalar(c, v, one()));
}

static void reduce_kernel(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    const test_case *tc = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int t = cute_thread_idx(c, 0);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_reducer sum = cute_reducer_op(CUTE_OP_ADD), mx = cute_reducer_op(CUTE_OP_MAX);
    cute_reducer sm = cute_reducer_online_softmax();
    cute_reduce_scratch s = cute_reduce_scratch_alloc(c, &A, tc->k == K_GROUP_SOFTMAX ? &sm : &sum, CUTE_F32, THREADS);
    cute_layout by_rows = cute_layout_parse(a, "(4,3):(1,4)");
    cute_tiler rows_of = cute_tiler_layout(&by_rows);
    cute_ssa v = cute_tensor_load(c, cute_tensor_compose(c, CUTE_SLICE(c, x, CUTE_ALL, t), &rows_of)); /* (4,3) */
    cute_val r[2] = {cute_ssa_get(c, v, 0)};
    switch (tc->k) {
    case K_WARP_ALL: cute_warp_allreduce(c, &sum, r, tc->width); break;
    case K_WARP_DOWN: cute_warp_reduce(c, &mx, r, tc->width); break;
    case K_GROUP_SUM: cute_group_allreduce(c, &sum, r, t, tc->width, &s); break;
    case K_GROUP_SOFTMAX:
        cute_online_softmax_of(c, v, r, NULL);
        cute_group_allreduce(c, &sm, r, t, tc->width, &s);
        put(c, y, cute_add(a, cute_mul(a, t, cute_i(4)), cute_i(1)), r[1]);
        break;
    case K_MODES: {
        cute_ssa rows = cute_ssa_reduce_modes(c, CUTE_OP_ADD, v, 0.5, CUTE_CRD(CUTE_ALL, 1));
        for (int i = 0; i < 4; i++) put(c, y, cute_add(a, cute_mul(a, t, cute_i(4)), cute_i(i)), cute_ssa_get(c, rows, i));
        return;
    }
    }
    put(c, y, cute_mul(a, t, cute_i(4)), r[0]);
}

static void reduce_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(THREADS)}};
    CUTE_LAUNCH(c, reduce_kernel, cfg, arg[0].tensor, arg[1].tensor);
}

/* the float64 reference of output element (t, i); false where nothing is defined */
static bool want(const test_case *tc, const float *x, int t, int i, double *w)
{
    int g = tc->width > 0 ? tc->width : 1, first = t / g * g;
    const float *xt = x + t * VALS;
    if (tc->k == K_MODES) {
        *w = 0.5 + xt[i] + xt[i + 4] + xt[i + 8];
        return true;
    }
    if (tc->k == K_WARP_DOWN && (i != 0 || t != first)) return false;
    if (tc->k != K_GROUP_SOFTMAX && i != 0) return false;
    if (tc->k == K_GROUP_SOFTMAX && i > 1) return false;
    double m = -INFINITY, s = 0;
    for (int u = first; u < first + g; u++)
        for (int j = 0; j < (tc->k == K_GROUP_SOFTMAX ? VALS : 1); j++) m = fmax(m, x[u * VALS + j]);
    for (int u = first; u < first + g; u++)
        for (int j = 0; j < (tc->k == K_GROUP_SOFTMAX ? VALS : 1); j++) s += tc->k == K_GROUP_SOFTMAX ? exp(x[u * VALS + j] - m) : x[u * VALS + j];
    *w = tc->k == K_WARP_DOWN || (tc->k == K_GROUP_SOFTMAX && i == 0) ? m : s;
    return true;
}

static void run(cute_runtime *rt, test_case tc, const char *name)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(12,256):(1,12)", 16),
                              cute_spec_tensor(CUTE_F32, "1024:1", 16)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "reduce", reduce_host, &tc, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s %d: %s", name, tc.width, err);
    if (!f) return;
    float x[THREADS * VALS], y[THREADS * 4];
    /* logits spread over +-1e4 in the softmax case: the max subtraction must hold */
    double scale = tc.k == K_GROUP_SOFTMAX ? 1e4 : 1;
    for (int i = 0; i < THREADS * VALS; i++) x[i] = (float)(uniform() * scale);
    for (int i = 0; i < THREADS * 4; i++) y[i] = NAN;
    cute_buffer X, Y;
    be->vt->alloc(be->self, sizeof x, &X), be->vt->alloc(be->self, sizeof y, &Y);
    be->vt->upload(be->self, &X, 0, x, sizeof x), be->vt->upload(be->self, &Y, 0, y, sizeof y);
    int64_t shx[2] = {VALS, THREADS}, stx[2] = {1, VALS}, shy[1] = {THREADS * 4}, sty[1] = {1};
    cute_call_arg args[2] = {cute_call_tensor(&X, 0, CUTE_F32, 2, shx, stx),
                             cute_call_tensor(&Y, 0, CUTE_F32, 1, shy, sty)};
    cute_status s = cute_call(f, NULL, 2, args, err, sizeof err);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s %d: %s", name, tc.width, err);
    be->vt->download(be->self, y, &Y, 0, sizeof y);
    int bad = 0;
    char first[200] = "";
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < 4; i++) {
            double w;
            if (!want(&tc, x, t, i, &w)) continue;
            if (fabs(y[t * 4 + i] - w) <= 1e-5 * fmax(1, fabs(w))) continue;
            if (!bad++) snprintf(first, sizeof first, "thread %d value %d: got %.9g want %.9g", t, i, y[t * 4 + i], w);
        }
    CHECK(bad == 0, "%s over %d: %d wrong (%s)", name, tc.width, bad, first);
    be->vt->free(be->self, &X), be->vt->free(be->self, &Y);
    cute_fn_free(f);
}

/* misuse: a width that does not divide the warp, a group beyond the scratch, a profile of
 * the wrong rank: errors naming the call, never a wrong kernel */
static int bad_line;
static void misuse_kernel(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    const test_case *tc = cute_ctx_user(c);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_reducer sum = cute_reducer_op(CUTE_OP_ADD);
    cute_reduce_scratch s = cute_reduce_scratch_alloc(c, &A, &sum, CUTE_F32, 64);
    cute_ssa v = cute_tensor_load(c, CUTE_SLICE(c, x, CUTE_ALL, 0));
    cute_val r = cute_ssa_get(c, v, 0);
    (void)y;
    if (tc->k == K_WARP_ALL) bad_line = __LINE__ + 1;
    if (tc->k == K_WARP_ALL) cute_warp_allreduce(c, &sum, &r, tc->width);
    if (tc->k == K_GROUP_SUM) bad_line = __LINE__ + 1;
    if (tc->k == K_GROUP_SUM) cute_group_allreduce(c, &sum, &r, cute_thread_idx(c, 0), tc->width, &s);
    if (tc->k == K_MODES) bad_line = __LINE__ + 1;
    if (tc->k == K_MODES) cute_ssa_reduce_modes(c, CUTE_OP_ADD, v, 0, CUTE_CRD(CUTE_ALL, 1, 1));
}

static void misuse_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(64)}};
    CUTE_LAUNCH(c, misuse_kernel, cfg, arg[0].tensor, arg[1].tensor);
}

static void misuse(cute_runtime *rt, test_case tc, const char *want_text)
{
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(12,256):(1,12)", 16),
                              cute_spec_tensor(CUTE_F32, "1024:1", 16)};
    char err[1024] = "", at[64];
    const cute_fn *f = cute_compile(rt, "misuse", misuse_host, &tc, 2, specs, err, sizeof err);
    snprintf(at, sizeof at, "reduce_test.c:%d:", bad_line);
    CHECK(f == NULL && strstr(err, want_text) && strstr(err, at), "want '%s' at %s, got: %s", want_text, at, err);
    if (f) cute_fn_free(f);
}

int main(void)
{
    seed = (uint64_t)time(NULL);
    printf("seed %llu\n", (unsigned long long)seed);
    cute_runtime *rt;
    char err[256];
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(0, "interpreter: %s", err);
        return CHECK_DONE("reduce_test");
    }
    for (int w = 1; w <= 32; w *= 2) run(rt, (test_case){K_WARP_ALL, w}, "warp all-reduce sum");
    for (int w = 2; w <= 32; w *= 4) run(rt, (test_case){K_WARP_DOWN, w}, "warp reduce max");
    for (int g = 16; g <= 256; g *= 2) run(rt, (test_case){K_GROUP_SUM, g}, "group all-reduce sum");
    for (int g = 8; g <= 256; g *= 4) run(rt, (test_case){K_GROUP_SOFTMAX, g}, "group online softmax");
    run(rt, (test_case){K_MODES, 0}, "reduce over modes");
    misuse(rt, (test_case){K_WARP_ALL, 12}, "width must be a power of two");
    misuse(rt, (test_case){K_GROUP_SUM, 128}, "the scratch holds 2 warps");
    misuse(rt, (test_case){K_MODES, 0}, "the profile has 3 modes");
    cute_runtime_free(rt);
    return CHECK_DONE("reduce_test");
}
