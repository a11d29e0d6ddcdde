/* The fused epilogues' GELU (erf form, epilogue.c: a fitted polynomial and ex2.approx) on
 * the interpreter against float64 x Phi(x): fresh uniform x in [-8, 8] and the edges (0, the
 * clamp at +-5.5, far tails), each within 1e-6 |x| (the fit's bound is 2.9e-7 |x|, f32 and
 * ex2.approx's rounding the rest).  The GEMM's own cases (hopper_test) check it in the
 * kernel. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/notation.h"
#include "kernels/gemm/gemm_internal.h"

enum { THREADS = 256, BLOCKS = 16, N = THREADS * BLOCKS };

static cute_backend be;

/* y[i] = act(x[i]), a thread an element */
static cute_ir_func *kernel(cute_gemm_act act)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "act");
    cute_alg *a = cute_ctx_alg(c);
    cute_layout L = cute_layout_fmt(a, "(%d):(1)", N);
    cute_tensor x = cute_make_tensor(c, cute_param_ptr(c, "x", CUTE_F32), L, 16);
    cute_tensor y = cute_make_tensor(c, cute_param_ptr(c, "y", CUTE_F32), L, 16);
    cute_int i = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(THREADS)), cute_thread_idx(c, 0));
    cute_tensor xi = CUTE_SLICE(c, x, i), yi = CUTE_SLICE(c, y, i);
    cute_ssa v = cute_tensor_load(c, xi);
    cute_gemm_epilogue e = {.act = act};
    cute_tensor_store(c, yi, gemm_epilogue_apply(c, &e, v, cute_ssa_fill(c, CUTE_F32, v.shape, 0.0)));
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* act over x on the interpreter into y; false when it did not run */
static bool run(cute_gemm_act act, const float *x, float *y)
{
    cute_ir_func *f = kernel(act);
    cute_module *m = NULL;
    const char *log = NULL;
    if (!f || be.vt->compile(be.self, &f, 1, &m, &log) != CUTE_OK) {
        CHECK(0, "compile: %s", log ? log : "");
        cute_ir_func_free(f);
        return false;
    }
    cute_ir_func_free(f);
    cute_buffer bx, by;
    be.vt->alloc(be.self, N * 4, &bx), be.vt->alloc(be.self, N * 4, &by);
    be.vt->upload(be.self, &bx, 0, x, N * 4);
    for (int i = 0; i < N; i++) y[i] = NAN; /* poisoned */
    be.vt->upload(be.self, &by, 0, y, N * 4);
    cute_launch_arg args[2] = {{.type = cute_type_ptr(CUTE_F32, CUTE_GMEM), .buf = &bx},
                               {.type = cute_type_ptr(CUTE_F32, CUTE_GMEM), .buf = &by}};
    cute_launch cfg = {.grid = {BLOCKS, 1, 1}, .block = {THREADS, 1, 1}};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, args, 2);
    CHECK(s == CUTE_OK, "launch: %s", be.vt->error(be.self));
    be.vt->download(be.self, y, &by, 0, N * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bx), be.vt->free(be.self, &by);
    return s == CUTE_OK;
}

static void gelu_erf(void)
{
    static float x[N], y[N];
    const float edges[] = {0.0f, 5.5f, -5.5f, 5.4999f, -5.5001f, 1e-3f, -1e-3f, 30.0f, -30.0f, 3.0f, -3.0f};
    int ne = (int)(sizeof edges / sizeof edges[0]);
    for (int i = 0; i < N; i++) x[i] = i < ne ? edges[i] : (float)(16.0 * rand() / RAND_MAX - 8.0);
    if (!run(CUTE_GEMM_ACT_GELU_ERF, x, y)) return;
    int bad = 0, at = 0;
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double ref = x[i] * 0.5 * erfc(-x[i] / sqrt(2.0)), err = fabs(y[i] - ref) / fmax(fabs(x[i]), 1e-30);
        if (!(err <= 1e-6)) bad++;
        if (!(err <= worst)) worst = err, at = i;
    }
    CHECK(bad == 0, "gelu (erf): %d of %d beyond 1e-6 |x|, worst %g at x = %.9g (%.9g, float64 %.9g)", bad, N, worst,
          x[at], y[at], x[at] * 0.5 * erfc(-x[at] / sqrt(2.0)));
    printf("gelu (erf): worst error %.3g |x| at x = %.6g\n", worst, x[at]);
}

int main(void)
{
    CHECK(cute_interp_new(&(cute_interp_opts){.threads = 1}, &be) == CUTE_OK, "interp");
    unsigned seed = (unsigned)time(NULL);
    if (getenv("CUTEC_SEED")) seed = (unsigned)strtoul(getenv("CUTEC_SEED"), NULL, 10);
    printf("epilogue_test: CUTEC_SEED=%u\n", seed);
    srand(seed);
    gelu_erf();
    be.vt->destroy(be.self);
    return CHECK_DONE("gemm epilogue");
}
