/* The plain row reductions (sum, mean, amax, amin, prod) on the interpreter against float64
 * sums, maxima and products of the same stored values: odd row lengths, padded rows (the
 * padding is NaN: a kernel reading it shows), a row staged in shared memory, a row split
 * over a cluster, the chunked walk before sm_90; fresh random inputs, poisoned outputs;
 * the misuses refused with a message. */
#include <stdlib.h>
#include <string.h>

#include "cutec/interp.h"
#include "kernels/rows/rows_lib.h"
#include "kernels/rows/rows_ref.h"
#include "kernels/rows/rows_testkit.h"

typedef struct shape_case {
    int64_t m, n, pad;
} shape_case;

static const char *const names[] = {"sum", "mean", "amax", "amin", "prod"};

/* every element v inside the matrix to sign(v) e^(v / 50): magnitudes within e^(+-0.16) of
 * 1, so that products of 70000 of them (and every partial product of a tree) stay well
 * inside f32's range */
static void near_one(tmat *t)
{
    size_t bytes = (size_t)(t->m * t->ld) * (size_t)cute_dtype_bytes(t->d);
    void *host = malloc(bytes);
    t->be->vt->download(t->be->self, host, &t->buf, 0, bytes);
    for (int64_t i = 0; i < t->m * t->ld; i++) {
        double v = ew_get(t->d, host, i);
        if (i % t->ld < t->n) ew_set(t->d, host, i, (v < 0 ? -1 : 1) * exp(v / 50));
    }
    t->be->vt->upload(t->be->self, &t->buf, 0, host, bytes);
    free(host);
}

static void one(cutec_rows *lib, cute_backend *be, cute_dtype d, shape_case sc, cutec_reduce_op op)
{
    tmat x, out;
    tk_init(&x, be, d, 2, sc.m, sc.n, sc.n + sc.pad, 8), tk_init(&out, be, CUTE_F32, 1, sc.m, 1, 1, 0);
    if (op == CUTEC_REDUCE_PROD) near_one(&x);
    char err[1024] = "", first[256] = "";
    cute_status s = cutec_reduce_rows(lib, &out.arg, &x.arg, op, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "reduce %s %s %lldx%lld: %s", names[op], cute_dtype_name(d), (long long)sc.m, (long long)sc.n, err);
    double *xv = tk_get(&x), *got = tk_get(&out);
    int64_t bad = 0;
    for (int64_t r = 0; s == CUTE_OK && r < sc.m; r++) {
        double scale, want = rows_ref_reduce(xv + r * sc.n, sc.n, op, &scale);
        if (rows_ref_reduce_close(got[r], want, scale, op, sc.n)) continue;
        if (!bad++) snprintf(first, sizeof first, "row %lld: got %.9g want %.9g", (long long)r, got[r], want);
    }
    CHECK(bad == 0, "reduce %s %s %lldx%lld (+%lld): %lld rows wrong (%s)", names[op], cute_dtype_name(d), (long long)sc.m,
          (long long)sc.n, (long long)sc.pad, (long long)bad, first);
    free(xv), free(got);
    tk_free(&x), tk_free(&out);
}

/* the same over the first dimension (cutec_reduce_cols): each column against float64 */
static void one_col(cutec_rows *lib, cute_backend *be, cute_dtype d, shape_case sc, cutec_reduce_op op)
{
    tmat x, out;
    tk_init(&x, be, d, 2, sc.m, sc.n, sc.n + sc.pad, 8), tk_init(&out, be, CUTE_F32, 1, sc.n, 1, 1, 0);
    if (op == CUTEC_REDUCE_PROD) near_one(&x);
    char err[1024] = "", first[256] = "";
    cute_status s = cutec_reduce_cols(lib, &out.arg, &x.arg, op, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "reduce_cols %s %s %lldx%lld: %s", names[op], cute_dtype_name(d), (long long)sc.m, (long long)sc.n,
          err);
    double *xv = tk_get(&x), *got = tk_get(&out), *col = malloc((size_t)sc.m * sizeof *col);
    int64_t bad = 0;
    for (int64_t j = 0; s == CUTE_OK && j < sc.n; j++) {
        for (int64_t r = 0; r < sc.m; r++) col[r] = xv[r * sc.n + j];
        double scale, want = rows_ref_reduce(col, sc.m, op, &scale);
        if (rows_ref_reduce_close(got[j], want, scale, op, sc.m)) continue;
        if (!bad++) snprintf(first, sizeof first, "column %lld: got %.9g want %.9g", (long long)j, got[j], want);
    }
    CHECK(bad == 0, "reduce_cols %s %s %lldx%lld (+%lld): %lld columns wrong (%s)", names[op], cute_dtype_name(d),
          (long long)sc.m, (long long)sc.n, (long long)sc.pad, (long long)bad, first);
    free(xv), free(got), free(col);
    tk_free(&x), tk_free(&out);
}

/* the norms' backward's second pass (rows_colsum) over `rows` partial rows of f32, as
 * CUTEC_ROWS_TRIAL sets it (no-sumlanes: 8 lanes, not lanes sized to the rows), launched as
 * a dependent (pdl) or not, each column against float64 */
static void one_colsum(cutec_rows *lib, cute_backend *be, int64_t rows, int64_t n, const char *trial, bool pdl)
{
    tmat x, out;
    setenv("CUTEC_ROWS_TRIAL", trial, 1);
    tk_init(&x, be, CUTE_F32, 2, rows, n, n, 8), tk_init(&out, be, CUTE_F32, 1, n, 1, 1, 0);
    char err[1024] = "", first[256] = "";
    rows_lib_lock(lib);
    cute_status s = rows_colsum(lib, &x.buf, 0, rows, &out.arg, pdl, NULL, err, sizeof err);
    rows_lib_unlock(lib);
    CHECK(s == CUTE_OK, "colsum %s %lldx%lld: %s", trial, (long long)rows, (long long)n, err);
    double *xv = tk_get(&x), *got = tk_get(&out), *col = malloc((size_t)rows * sizeof *col);
    int64_t bad = 0;
    for (int64_t j = 0; s == CUTE_OK && j < n; j++) {
        for (int64_t r = 0; r < rows; r++) col[r] = xv[r * n + j];
        double scale, want = rows_ref_reduce(col, rows, CUTEC_REDUCE_SUM, &scale);
        if (rows_ref_reduce_close(got[j], want, scale, CUTEC_REDUCE_SUM, rows)) continue;
        if (!bad++) snprintf(first, sizeof first, "column %lld: got %.9g want %.9g", (long long)j, got[j], want);
    }
    CHECK(bad == 0, "colsum %s %lldx%lld: %lld columns wrong (%s)", trial, (long long)rows, (long long)n, (long long)bad, first);
    free(xv), free(got), free(col);
    tk_free(&x), tk_free(&out);
    unsetenv("CUTEC_ROWS_TRIAL");
}

/* reduce_cols' misuses: the output's length and type, a non-matrix, an op outside the enum */
static void misuse_cols(cutec_rows *lib, cute_backend *be)
{
    tmat x, short_out, out16;
    tk_init(&x, be, CUTE_BF16, 2, 4, 100, 100, 8), tk_init(&short_out, be, CUTE_F32, 1, 99, 1, 1, 0);
    tk_init(&out16, be, CUTE_BF16, 1, 100, 1, 1, 0);
    char err[1024] = "";
    cute_status s = cutec_reduce_cols(lib, &short_out.arg, &x.arg, CUTEC_REDUCE_SUM, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "99 elements, not 100"), "a short output: %s", s ? err : "accepted");
    s = cutec_reduce_cols(lib, &out16.arg, &x.arg, CUTEC_REDUCE_SUM, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "out must be f32"), "a bf16 output: %s", s ? err : "accepted");
    s = cutec_reduce_cols(lib, &short_out.arg, &short_out.arg, CUTEC_REDUCE_MAX, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "x must be a matrix"), "a vector as x: %s", s ? err : "accepted");
    s = cutec_reduce_cols(lib, &short_out.arg, &x.arg, (cutec_reduce_op)9, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "cutec_reduce_op"), "op 9: %s", s ? err : "accepted");
    tk_free(&x), tk_free(&short_out), tk_free(&out16);
}

/* an output that is not (M) f32, and an op outside the enum: refused, saying what */
static void misuse(cutec_rows *lib, cute_backend *be)
{
    tmat x, out16, out;
    tk_init(&x, be, CUTE_BF16, 2, 4, 100, 100, 8), tk_init(&out16, be, CUTE_BF16, 1, 4, 1, 1, 0);
    tk_init(&out, be, CUTE_F32, 1, 4, 1, 1, 0);
    char err[1024] = "";
    cute_status s = cutec_reduce_rows(lib, &out16.arg, &x.arg, CUTEC_REDUCE_SUM, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "out must be f32"), "a bf16 output: %s", s ? err : "accepted");
    s = cutec_reduce_rows(lib, &out.arg, &x.arg, (cutec_reduce_op)7, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "cutec_reduce_op"), "op 7: %s", s ? err : "accepted");
    s = cutec_reduce_rows(lib, &x.arg, &x.arg, CUTEC_REDUCE_MAX, NULL, err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "out"), "a matrix as the output: %s", s ? err : "accepted");
    tk_free(&x), tk_free(&out16), tk_free(&out);
}

int main(void)
{
    cute_runtime *rt;
    char err[256];
    cutec_rows *lib = tk_begin("interp", &rt, err, sizeof err);
    CHECK(lib != NULL, "interpreter: %s", err);
    if (!lib) return CHECK_DONE("reduce_test");
    cute_backend *be = cute_runtime_backend(rt);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    const shape_case small[] = {{7, 1003, 5}, {3, 1, 0}, {5, 33, 3}, {2, 4097, 0}};
    for (int op = 0; op < 5; op++)
        for (size_t k = 0; k < sizeof small / sizeof *small; k++) one(lib, be, dts[(op + k) % 3], small[k], (cutec_reduce_op)op);
    one(lib, be, CUTE_BF16, (shape_case){2, 33000, 0}, CUTEC_REDUCE_SUM);  /* staged in shared memory */
    one(lib, be, CUTE_F16, (shape_case){3, 70000, 8}, CUTEC_REDUCE_MAX);   /* a cluster's blocks, padded */
    one(lib, be, CUTE_F32, (shape_case){2, 65537, 0}, CUTEC_REDUCE_MIN);   /* one element in the last block */
    one(lib, be, CUTE_BF16, (shape_case){2, 70000, 0}, CUTEC_REDUCE_PROD);
    cute_runtime_set_target_arch(rt, "sm_80");                             /* walked in chunks */
    one(lib, be, CUTE_BF16, (shape_case){2, 70000, 8}, CUTEC_REDUCE_MEAN);
    misuse(lib, be);
    /* over the first dimension: one launch (few rows), row splits and a second pass (tall),
     * 16-byte accesses where the row allows, a padded row stride, a ragged last tile */
    cute_runtime_set_target_arch(rt, NULL);
    const shape_case cols[] = {{5, 1, 0}, {1000, 70, 0}, {129, 520, 8}, {2000, 24, 0}, {333, 37, 3}};
    for (int op = 0; op < 5; op++)
        for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) one_col(lib, be, dts[(op + k) % 3], cols[k], (cutec_reduce_op)op);
    /* 16-bit inputs in one launch: 8 rows' loads in flight (a ragged last turn) */
    one_col(lib, be, CUTE_BF16, (shape_case){77, 520, 8}, CUTEC_REDUCE_SUM);
    one_col(lib, be, CUTE_F16, (shape_case){70, 4100, 0}, CUTEC_REDUCE_MAX);
    misuse_cols(lib, be);
    /* the column sums' pass, its lanes sized to its rows (sumlanes, the default): 261 partial
     * rows (32 lanes of 32 threads, two turns, the second ragged), 30 (4 lanes of 64), 7 (one
     * lane of 256); a ragged last column tile; the 8 lanes before (no-sumlanes); launched as a
     * dependent (sm_90's griddepcontrol) */
    cute_runtime_set_target_arch(rt, "sm_90a");
    one_colsum(lib, be, 261, 1003, "0", false);
    one_colsum(lib, be, 30, 300, "0", true);
    one_colsum(lib, be, 7, 520, "0", false);
    one_colsum(lib, be, 30, 300, "no-sumlanes", true);
    tk_end(lib, rt);
    return CHECK_DONE("reduce_test");
}
