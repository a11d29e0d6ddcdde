/* Softmax and log-softmax, forward and backward, on the interpreter against the float64
 * reference: odd row lengths (1, 33, 1003, 4097), padded rows, the 16-byte path, a row
 * longer than one tile (staged in shared memory, or walked in chunks), logits of +-1e4; fresh random inputs, poisoned
 * outputs whose padding must stay poison. */
#include "cutec/interp.h"
#include "kernels/rows/rows_ref.h"
#include "kernels/rows/rows_testkit.h"

typedef struct shape_case {
    int64_t m, n, pad;
    double scale;
} shape_case;

static const shape_case cases[] = {
    {7, 1003, 5, 8}, {3, 1, 0, 8}, {5, 33, 3, 8}, {2, 4097, 0, 8}, {4, 4096, 8, 8}, {3, 64, 0, 2e4},
};

static void forward(cutec_rows *lib, cute_backend *be, cute_dtype d, shape_case sc, bool log)
{
    tmat x, y;
    tk_init(&x, be, d, 2, sc.m, sc.n, sc.n + sc.pad, sc.scale), tk_init(&y, be, d, 2, sc.m, sc.n, sc.n + sc.pad, 0);
    char err[1024] = "";
    cute_status s = cutec_softmax(lib, &y.arg, &x.arg, log, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "%s %s %lldx%lld: %s", log ? "log_softmax" : "softmax", cute_dtype_name(d), (long long)sc.m, (long long)sc.n, err);
    double *xv = tk_get(&x), *got = tk_get(&y), *want = malloc(sizeof(double) * (size_t)(sc.m * sc.n));
    rows_ref_softmax(xv, want, sc.m, sc.n, log);
    char first[256] = "";
    int64_t bad = s ? 0 : tk_compare(got, want, sc.m * sc.n, tk_tol(d), log ? 1 : 1e-3, first, sizeof first);
    int64_t pad = tk_padding_written(&y);
    CHECK(bad == 0 && pad == 0, "%s %s %lldx%lld (+%lld): %lld wrong (%s), %lld padding writes", log ? "log_softmax" : "softmax",
          cute_dtype_name(d), (long long)sc.m, (long long)sc.n, (long long)sc.pad, (long long)bad, first, (long long)pad);
    free(xv), free(got), free(want);
    tk_free(&x), tk_free(&y);
}

static void backward(cutec_rows *lib, cute_backend *be, cute_dtype d, shape_case sc, bool log)
{
    int64_t ld = sc.n + sc.pad;
    tmat x, y, dy, dx;
    tk_init(&x, be, d, 2, sc.m, sc.n, ld, 4), tk_init(&y, be, d, 2, sc.m, sc.n, ld, 0);
    tk_init(&dy, be, d, 2, sc.m, sc.n, ld, 2), tk_init(&dx, be, d, 2, sc.m, sc.n, ld, 0);
    char err[1024] = "";
    cute_status s = cutec_softmax(lib, &y.arg, &x.arg, log, NULL, err, sizeof err);
    if (s == CUTE_OK) s = cutec_softmax_backward(lib, &dx.arg, &dy.arg, &y.arg, log, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "%s backward %s %lldx%lld: %s", log ? "log_softmax" : "softmax", cute_dtype_name(d), (long long)sc.m, (long long)sc.n, err);
    double *yv = tk_get(&y), *g = tk_get(&dy), *got = tk_get(&dx), *want = malloc(sizeof(double) * (size_t)(sc.m * sc.n));
    rows_ref_softmax_backward(g, yv, want, sc.m, sc.n, log);
    char first[256] = "";
    /* the sum of n products cancels: the floor is the row's scale */
    int64_t bad = s ? 0 : tk_compare(got, want, sc.m * sc.n, tk_tol(d), log ? 4 : 4.0 / (double)sc.n, first, sizeof first);
    int64_t pad = tk_padding_written(&dx);
    CHECK(bad == 0 && pad == 0, "%s backward %s %lldx%lld: %lld wrong (%s), %lld padding writes", log ? "log_softmax" : "softmax",
          cute_dtype_name(d), (long long)sc.m, (long long)sc.n, (long long)bad, first, (long long)pad);
    free(yv), free(g), free(got), free(want);
    tk_free(&x), tk_free(&y), tk_free(&dy), tk_free(&dx);
}

/* y = softmax(y): an in-place call gets a kernel without __restrict__ and the right values */
static void in_place(cutec_rows *lib, cute_backend *be, cute_dtype d)
{
    tmat x;
    tk_init(&x, be, d, 2, 5, 1003, 1003, 8);
    double *before = tk_get(&x), *want = malloc(sizeof(double) * 5 * 1003);
    char err[1024] = "", first[256] = "";
    cute_status s = cutec_softmax(lib, &x.arg, &x.arg, false, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "in-place softmax %s: %s", cute_dtype_name(d), err);
    double *got = tk_get(&x);
    rows_ref_softmax(before, want, 5, 1003, false);
    int64_t bad = s ? 0 : tk_compare(got, want, 5 * 1003, tk_tol(d), 1e-3, first, sizeof first);
    CHECK(bad == 0, "in-place softmax %s: %lld wrong (%s)", cute_dtype_name(d), (long long)bad, first);
    free(before), free(want), free(got);
    tk_free(&x);
}

int main(void)
{
    cute_runtime *rt;
    char err[256];
    cutec_rows *lib = tk_begin("interp", &rt, err, sizeof err);
    CHECK(lib != NULL, "interpreter: %s", err);
    if (!lib) return CHECK_DONE("softmax_test");
    cute_backend *be = cute_runtime_backend(rt);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int d = 0; d < 3; d++) {
            forward(lib, be, dts[d], cases[k], false);
            forward(lib, be, dts[d], cases[k], true);
            backward(lib, be, dts[d], cases[k], k % 2 == 1);
        }
    forward(lib, be, CUTE_BF16, (shape_case){2, 33000, 0, 8}, false); /* staged in shared memory */
    forward(lib, be, CUTE_F16, (shape_case){3, 16392, 8, 8}, true);   /* staged, padded rows */
    forward(lib, be, CUTE_F32, (shape_case){2, 12000, 4, 8}, false);  /* staged f32 */
    /* rows split over a cluster's blocks (partials through distributed shared memory): 9
     * blocks of 256 threads x 32 values; padded; odd (one element in the last block) */
    forward(lib, be, CUTE_BF16, (shape_case){3, 70000, 8, 8}, false);
    forward(lib, be, CUTE_F16, (shape_case){2, 65537, 0, 2e4}, true);
    backward(lib, be, CUTE_BF16, (shape_case){2, 70000, 0, 8}, false);
    backward(lib, be, CUTE_F32, (shape_case){2, 33001, 3, 8}, true);
    backward(lib, be, CUTE_F32, (shape_case){3, 20000, 4, 8}, false); /* 1024 threads' row: 3 blocks of 256 */
    /* a long row's bf16 read as words: padded rows of -inf */
    forward(lib, be, CUTE_BF16, (shape_case){2, 40000, 8, 8}, true);
    /* before sm_90 (no clusters, no bulk copies) the same rows are walked in chunks */
    cute_runtime_set_target_arch(rt, "sm_80");
    forward(lib, be, CUTE_F32, (shape_case){2, 33000, 0, 8}, false); /* two chunks of 32768 */
    forward(lib, be, CUTE_BF16, (shape_case){2, 70000, 8, 8}, true);
    backward(lib, be, CUTE_BF16, (shape_case){2, 70000, 0, 8}, false);
    in_place(lib, be, CUTE_F32), in_place(lib, be, CUTE_BF16);
    tk_end(lib, rt);
    return CHECK_DONE("softmax_test");
}
