/* Every misuse of the row kernels' entry points is an error that names the op and the
 * argument, never a crash or a wrong run: ranks, shapes, dtypes, strides, missing tensors,
 * parameters out of range. */
#include <string.h>

#include "kernels/rows/rows_testkit.h"

static void expect(cute_status s, const char *err, const char *want, const char *what)
{
    CHECK(s == CUTE_ERR_INVALID && strstr(err, want), "%s: want an error with '%s', got %d: %s", what, want, s, err);
}

int main(void)
{
    cute_runtime *rt;
    char err[512];
    cutec_rows *lib = tk_begin("interp", &rt, err, sizeof err);
    CHECK(lib != NULL, "interpreter: %s", err);
    if (!lib) return CHECK_DONE("rows_misuse_test");
    cute_backend *be = cute_runtime_backend(rt);
    tmat x, y, v, f64, w, rstd, strided, bad_rstd;
    tk_init(&x, be, CUTE_BF16, 2, 4, 40, 40, 1), tk_init(&y, be, CUTE_BF16, 2, 4, 40, 40, 0);
    tk_init(&v, be, CUTE_BF16, 1, 40, 1, 1, 1), tk_init(&f64, be, CUTE_F64, 2, 4, 40, 40, 1);
    tk_init(&w, be, CUTE_BF16, 1, 41, 1, 1, 1), tk_init(&rstd, be, CUTE_F32, 1, 4, 1, 1, 0);
    tk_init(&strided, be, CUTE_BF16, 2, 4, 40, 40, 1), tk_init(&bad_rstd, be, CUTE_BF16, 1, 4, 1, 1, 0);
    strided.arg.stride[0] = 1, strided.arg.stride[1] = 4; /* column-major: columns not unit-stride */
    expect(cutec_softmax(lib, &y.arg, &v.arg, false, NULL, err, sizeof err), err, "must be a matrix", "rank 1 x");
    expect(cutec_softmax(lib, &y.arg, &f64.arg, false, NULL, err, sizeof err), err, "f64 (f32, f16 or bf16)", "f64");
    expect(cutec_softmax(lib, &strided.arg, &x.arg, false, NULL, err, sizeof err), err, "y's columns must be unit-stride", "strided y");
    tmat y2;
    tk_init(&y2, be, CUTE_BF16, 2, 4, 39, 39, 0);
    expect(cutec_softmax(lib, &y2.arg, &x.arg, false, NULL, err, sizeof err), err, "y is 4x39, x 4x40", "shape");
    cutec_norm_args a = {&x.arg, NULL, &w.arg, NULL, &y.arg, NULL, NULL, &rstd.arg, 1e-5};
    expect(cutec_rmsnorm(lib, &a, NULL, err, sizeof err), err, "weight has 41 elements, not 40", "weight length");
    a.weight = &v.arg, a.rstd = &bad_rstd.arg;
    expect(cutec_rmsnorm(lib, &a, NULL, err, sizeof err), err, "rstd must be f32", "rstd dtype");
    a.rstd = &rstd.arg, a.bias = &v.arg;
    expect(cutec_rmsnorm(lib, &a, NULL, err, sizeof err), err, "no bias and no mean", "rmsnorm bias");
    a.bias = NULL, a.y = NULL;
    expect(cutec_rmsnorm(lib, &a, NULL, err, sizeof err), err, "y is required", "no y");
    cutec_xent_args xa = {&x.arg, &rstd.arg, &rstd.arg, NULL, NULL, -100, 0.1, 1};
    expect(cutec_cross_entropy(lib, &xa, NULL, err, sizeof err), err, "labels must be i32 or i64", "f32 labels");
    xa.smoothing = 1.5;
    expect(cutec_cross_entropy(lib, &xa, NULL, err, sizeof err), err, "smoothing must lie in [0, 1]", "smoothing");
    tmat *all[] = {&x, &y, &v, &f64, &w, &rstd, &strided, &bad_rstd, &y2};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tk_free(all[i]);
    tk_end(lib, rt);
    return CHECK_DONE("rows_misuse_test");
}
