/* Cross-entropy forward and fused backward on the interpreter against the float64
 * reference: i32 and i64 labels, ignored rows, label smoothing, a gradient scale, logits of
 * +-1e4, odd row lengths, padded rows, a row of two chunks; a label out of range gives a
 * NaN loss; fresh random inputs, poisoned outputs. */
#include "cutec/interp.h"
#include "kernels/rows/rows_ref.h"
#include "kernels/rows/rows_testkit.h"

typedef struct xcase {
    int64_t m, n, pad;
    double scale, smoothing;
    cute_dtype labels;
} xcase;

static const xcase cases[] = {
    {7, 1003, 5, 8, 0, CUTE_I64}, {3, 1, 0, 8, 0.1, CUTE_I32}, {5, 33, 3, 2e4, 0.1, CUTE_I64},
    {2, 4097, 0, 8, 0, CUTE_I32}, {21, 4096, 8, 8, 0.05, CUTE_I64}, {2, 33000, 0, 8, 0.1, CUTE_I32},
};

/* labels in [0, n), every third row ignored (-100), row `bad` (if >= 0) out of range; row 0's
 * the last column (in a row of chunks, the last chunk's) */
static void make_labels(tmat *t, cute_backend *be, cute_dtype d, int64_t m, int64_t n, int64_t bad, int64_t *host)
{
    tk_init(t, be, d, 1, m, 1, 1, 0);
    int32_t *h32 = malloc(sizeof(int32_t) * (size_t)m);
    for (int64_t i = 0; i < m; i++) {
        host[i] = i % 3 == 1 ? -100 : i == bad ? n : i == 0 ? n - 1 : (int64_t)(fabs(ew_random(&tk_seed)) * 1e6) % n;
        h32[i] = (int32_t)host[i];
    }
    be->vt->upload(be->self, &t->buf, 0, d == CUTE_I32 ? (void *)h32 : (void *)host, (size_t)m * (size_t)cute_dtype_bytes(d));
    free(h32);
}

static void run(cutec_rows *lib, cute_backend *be, cute_dtype d, xcase xc, bool grad, int64_t bad)
{
    int64_t ld = xc.n + xc.pad, mn = xc.m * xc.n;
    tmat x, labels, loss, lse, dx;
    int64_t *lab = malloc(sizeof(int64_t) * (size_t)xc.m);
    tk_init(&x, be, d, 2, xc.m, xc.n, ld, xc.scale), make_labels(&labels, be, xc.labels, xc.m, xc.n, bad, lab);
    tk_init(&loss, be, CUTE_F32, 1, xc.m, 1, 1, 0), tk_init(&lse, be, CUTE_F32, 1, xc.m, 1, 1, 0);
    tk_init(&dx, be, d, 2, xc.m, xc.n, ld, 0);
    double scale = 1.0 / (double)xc.m;
    cutec_xent_args a = {&x.arg, &labels.arg, &loss.arg, &lse.arg, grad ? &dx.arg : NULL, -100, xc.smoothing, scale};
    char err[1024] = "", first[256] = "";
    cute_status s = cutec_cross_entropy(lib, &a, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "cross_entropy %s %lldx%lld: %s", cute_dtype_name(d), (long long)xc.m, (long long)xc.n, err);
    double *xv = tk_get(&x), *wl = malloc(sizeof(double) * (size_t)(2 * xc.m + mn)), *wlse = wl + xc.m, *wdx = wlse + xc.m;
    rows_ref_cross_entropy(xv, lab, -100, xc.smoothing, scale, wl, wlse, wdx, xc.m, xc.n);
    double *gl = tk_get(&loss), *glse = tk_get(&lse), *gdx = grad ? tk_get(&dx) : NULL;
    int64_t nan_ok = 0, bad_loss = 0;
    for (int64_t i = 0; i < xc.m; i++) /* NaN where the reference says NaN, the values elsewhere */
        if (isnan(wl[i])) nan_ok += isnan(gl[i]), gl[i] = wl[i] = 0;
    if (s == CUTE_OK) {
        bad_loss = tk_compare(gl, wl, xc.m, 2e-5, 1, first, sizeof first);
        CHECK(bad_loss == 0 && nan_ok == (bad >= 0), "cross_entropy loss %s %lldx%lld s=%g: %lld wrong (%s), NaN for the bad label: %lld",
              cute_dtype_name(d), (long long)xc.m, (long long)xc.n, xc.smoothing, (long long)bad_loss, first, (long long)nan_ok);
        int64_t bl = tk_compare(glse, wlse, xc.m, 2e-5, 1, first, sizeof first);
        CHECK(bl == 0, "cross_entropy lse %s %lldx%lld: %lld wrong (%s)", cute_dtype_name(d), (long long)xc.m, (long long)xc.n, (long long)bl, first);
    }
    if (s == CUTE_OK && grad) {
        int64_t bg = tk_compare(gdx, wdx, mn, tk_tol(d), scale, first, sizeof first), pad = tk_padding_written(&dx);
        CHECK(bg == 0 && pad == 0, "cross_entropy dlogits %s %lldx%lld: %lld wrong (%s), %lld padding writes", cute_dtype_name(d),
              (long long)xc.m, (long long)xc.n, (long long)bg, first, (long long)pad);
    }
    free(lab), free(xv), free(wl), free(gl), free(glse), free(gdx);
    tk_free(&x), tk_free(&labels), tk_free(&loss), tk_free(&lse), tk_free(&dx);
}

int main(void)
{
    cute_runtime *rt;
    char err[256];
    cutec_rows *lib = tk_begin("interp", &rt, err, sizeof err);
    CHECK(lib != NULL, "interpreter: %s", err);
    if (!lib) return CHECK_DONE("cross_entropy_test");
    cute_backend *be = cute_runtime_backend(rt);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int d = 0; d < 3; d++) run(lib, be, dts[d], cases[k], d != 1 || k % 2, -1);
    run(lib, be, CUTE_BF16, cases[0], true, 5); /* row 5's label is n: NaN */
    /* a long row's bf16 read as words (a cluster's) */
    run(lib, be, CUTE_BF16, (xcase){2, 56000, 8, 8, 0.1, CUTE_I64}, true, -1);
    /* the forward alone on rows held in registers: a label n (NaN), ignored rows (rows10's
     * label-as-a-sum candidate ran these; it lost on the H200: 51.8% of the copy against 63.5%) */
    run(lib, be, CUTE_BF16, (xcase){21, 4096, 8, 2e4, 0.05, CUTE_I64}, false, 5);
    run(lib, be, CUTE_F16, (xcase){7, 1003, 5, 8, 0, CUTE_I32}, false, -1);
    run(lib, be, CUTE_F32, (xcase){5, 33, 3, 2e4, 0.1, CUTE_I64}, false, 2);
    /* rows split over a cluster of 9 blocks (the label's logit in one of them) */
    run(lib, be, CUTE_BF16, (xcase){3, 70000, 8, 8, 0.1, CUTE_I64}, true, -1);
    run(lib, be, CUTE_F32, (xcase){4, 40001, 0, 2e4, 0, CUTE_I32}, true, 2);
    /* a cluster's part gathers the label's logit at its first chunk (the default, over 32 KB
     * parts of 128 threads; the label n, NaN; ignored rows; the logit in the last part), then
     * over 64 KB parts (CUTEC_ROWS_HEX=0), and with the gather after the exchange
     * (CUTEC_ROWS_EARLY=0); a forward alone, walked in chunks from memory, has no cluster form.
     * A mutation that gathered 0 at the first chunk failed 12 checks */
    for (int t = 0; t < 3; t++) {
        if (t == 1) setenv("CUTEC_ROWS_HEX", "0", 1);
        if (t == 2) setenv("CUTEC_ROWS_EARLY", "0", 1);
        run(lib, be, CUTE_BF16, (xcase){3, 70000, 8, 8, 0.1, CUTE_I64}, true, -1);
        run(lib, be, CUTE_F16, (xcase){9, 131080, 0, 2e4, 0.05, CUTE_I32}, true, 5);
        run(lib, be, CUTE_F32, (xcase){3, 70000, 4, 8, 0.1, CUTE_I64}, true, 2);
        run(lib, be, CUTE_BF16, (xcase){4, 70000, 0, 8, 0, CUTE_I64}, false, 2);
    }
    unsetenv("CUTEC_ROWS_EARLY"), unsetenv("CUTEC_ROWS_HEX");
    cute_runtime_set_target_arch(rt, "sm_80"); /* the same rows in chunks */
    run(lib, be, CUTE_BF16, (xcase){3, 70000, 8, 8, 0.1, CUTE_I64}, true, -1);
    tk_end(lib, rt);
    return CHECK_DONE("cross_entropy_test");
}
