/* RMSNorm and LayerNorm, forward (weight, bias, residual add, saved statistics; or none of
 * them) and backward (dx, and dw, db summed over the rows by the second pass), on the
 * interpreter against the float64 reference: odd row lengths, padded rows, the 16-byte
 * path, a forward row longer than one tile; fresh random inputs, poisoned outputs. */
#include <string.h>

#include "cutec/interp.h"
#include "kernels/rows/rows_ref.h"
#include "kernels/rows/rows_testkit.h"

typedef struct shape_case {
    int64_t m, n, pad;
} shape_case;

static const shape_case cases[] = {{7, 1003, 5}, {3, 1, 0}, {5, 33, 3}, {2, 4097, 0}, {21, 4096, 8}};

static void check_vals(const char *what, const char *name, cute_dtype d, shape_case sc, const tmat *t, const double *want,
                       int64_t cnt, double floor)
{
    double *got = tk_get(t);
    char first[256] = "";
    int64_t bad = tk_compare(got, want, cnt, tk_tol(t->d), floor, first, sizeof first);
    int64_t pad = tk_padding_written(t);
    CHECK(bad == 0 && pad == 0, "%s %s %s %lldx%lld (+%lld): %lld of %lld wrong (%s), %lld padding writes", what, name,
          cute_dtype_name(d), (long long)sc.m, (long long)sc.n, (long long)sc.pad, (long long)bad, (long long)cnt, first,
          (long long)pad);
    free(got);
}

typedef struct norm_bufs {
    tmat x, res, w, b, y, h, mean, rstd;
} norm_bufs;

/* the forward's optional tensors a case gives (bias and mean: LayerNorm's) */
enum { GIVE_RES = 1, GIVE_W = 2, GIVE_B = 4, GIVE_STATS = 8, GIVE_ALL = 15 };

/* shift: added to x (rows whose mean dwarfs their spread) */
static void forward_giving(cutec_rows *lib, cute_backend *be, bool layer, cute_dtype d, shape_case sc, int give,
                           double shift)
{
    bool res_on = give & GIVE_RES, w_on = give & GIVE_W, b_on = layer && (give & GIVE_B);
    bool st_on = give & GIVE_STATS;
    int64_t ld = sc.n + sc.pad, mn = sc.m * sc.n;
    norm_bufs B;
    tk_init(&B.x, be, d, 2, sc.m, sc.n, ld, 6), tk_init(&B.res, be, d, 2, sc.m, sc.n, ld, 2);
    if (shift) tk_shift(&B.x, shift);
    tk_init(&B.w, be, d, 1, sc.n, 1, 1, 4), tk_init(&B.b, be, d, 1, sc.n, 1, 1, 2);
    tk_init(&B.y, be, d, 2, sc.m, sc.n, ld, 0), tk_init(&B.h, be, d, 2, sc.m, sc.n, ld, 0);
    tk_init(&B.mean, be, CUTE_F32, 1, sc.m, 1, 1, 0), tk_init(&B.rstd, be, CUTE_F32, 1, sc.m, 1, 1, 0);
    cutec_norm_args a = {&B.x.arg, res_on ? &B.res.arg : NULL, w_on ? &B.w.arg : NULL, b_on ? &B.b.arg : NULL,
                         &B.y.arg, res_on ? &B.h.arg : NULL, st_on && layer ? &B.mean.arg : NULL,
                         st_on ? &B.rstd.arg : NULL, 1e-5};
    char err[1024] = "";
    cute_status s = layer ? cutec_layernorm(lib, &a, NULL, err, sizeof err) : cutec_rmsnorm(lib, &a, NULL, err, sizeof err);
    const char *name = layer ? "layernorm" : "rmsnorm";
    CHECK(s == CUTE_OK, "%s %s %lldx%lld: %s", name, cute_dtype_name(d), (long long)sc.m, (long long)sc.n, err);
    double *x = tk_get(&B.x), *res = res_on ? tk_get(&B.res) : NULL, *w = w_on ? tk_get(&B.w) : NULL;
    double *b = b_on ? tk_get(&B.b) : NULL;
    double *y = malloc(sizeof(double) * (size_t)mn * 2), *h = y + mn, *st = malloc(sizeof(double) * (size_t)sc.m * 2);
    if (layer)
        rows_ref_layernorm(x, res, w, b, 1e-5, y, h, st, st + sc.m, sc.m, sc.n);
    else
        rows_ref_rmsnorm(x, res, w, 1e-5, y, h, st + sc.m, sc.m, sc.n);
    if (s == CUTE_OK) {
        /* a shifted row's mean is rounded to f32 (2^-24 of the shift), which moves y by
         * about 1e-4; E[x^2] - E[x]^2 would move it by percents */
        check_vals("forward y", name, d, sc, &B.y, y, mn, shift ? 16 : 1);
        if (res_on) check_vals("forward residual_out", name, d, sc, &B.h, h, mn, 1);
        if (st_on) check_vals("forward rstd", name, d, sc, &B.rstd, st + sc.m, sc.m, 0);
        if (st_on && layer) check_vals("forward mean", name, d, sc, &B.mean, st, sc.m, 1);
    }
    free(x), free(res), free(w), free(b), free(y), free(st);
    tmat *all = &B.x;
    for (int i = 0; i < 8; i++) tk_free(&all[i]);
}

static void forward(cutec_rows *lib, cute_backend *be, bool layer, cute_dtype d, shape_case sc, bool full, double shift)
{
    forward_giving(lib, be, layer, d, sc, full ? GIVE_ALL : 0, shift);
}

typedef struct grad_bufs {
    tmat x, w, y, mean, rstd, dy, dx, dw, db;
} grad_bufs;

/* the forward saves the statistics the backward takes; the reference takes the same;
 * shift: added to x (rows whose mean dwarfs their spread) */
static void backward_shifted(cutec_rows *lib, cute_backend *be, bool layer, cute_dtype d, shape_case sc, bool full,
                             double shift)
{
    int64_t ld = sc.n + sc.pad, mn = sc.m * sc.n;
    grad_bufs B;
    tk_init(&B.x, be, d, 2, sc.m, sc.n, ld, 6), tk_init(&B.w, be, d, 1, sc.n, 1, 1, 4);
    tk_init(&B.y, be, d, 2, sc.m, sc.n, ld, 0), tk_init(&B.mean, be, CUTE_F32, 1, sc.m, 1, 1, 0);
    tk_init(&B.rstd, be, CUTE_F32, 1, sc.m, 1, 1, 0), tk_init(&B.dy, be, d, 2, sc.m, sc.n, ld, 2);
    tk_init(&B.dx, be, d, 2, sc.m, sc.n, ld, 0), tk_init(&B.dw, be, d, 1, sc.n, 1, 1, 0);
    tk_init(&B.db, be, d, 1, sc.n, 1, 1, 0);
    if (shift) tk_shift(&B.x, shift);
    const cute_call_arg *w = full ? &B.w.arg : NULL;
    cutec_norm_args f = {&B.x.arg, NULL, w, NULL, &B.y.arg, NULL, layer ? &B.mean.arg : NULL, &B.rstd.arg, 1e-5};
    cutec_norm_grad_args g = {&B.dy.arg, &B.x.arg, w, layer ? &B.mean.arg : NULL, &B.rstd.arg, &B.dx.arg,
                              full ? &B.dw.arg : NULL, full && layer ? &B.db.arg : NULL};
    char err[1024] = "";
    const char *name = layer ? "layernorm backward" : "rmsnorm backward";
    cute_status s = layer ? cutec_layernorm(lib, &f, NULL, err, sizeof err) : cutec_rmsnorm(lib, &f, NULL, err, sizeof err);
    if (s == CUTE_OK && sc.n > 1) tk_vary_rows(&B.rstd); /* (rows of 1: rstd 1/sqrt(eps), dx near f16's overflow) */
    if (s == CUTE_OK && sc.n > 1 && layer) tk_vary_rows(&B.mean);
    if (s == CUTE_OK)
        s = layer ? cutec_layernorm_backward(lib, &g, NULL, err, sizeof err) : cutec_rmsnorm_backward(lib, &g, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "%s %s %lldx%lld: %s", name, cute_dtype_name(d), (long long)sc.m, (long long)sc.n, err);
    double *x = tk_get(&B.x), *wv = full ? tk_get(&B.w) : NULL, *dy = tk_get(&B.dy), *rstd = tk_get(&B.rstd);
    double *mean = layer ? tk_get(&B.mean) : NULL;
    double *dx = malloc(sizeof(double) * (size_t)mn), *dw = malloc(sizeof(double) * (size_t)sc.n * 2), *db = dw + sc.n;
    if (layer)
        rows_ref_layernorm_backward(dy, x, wv, mean, rstd, dx, dw, db, sc.m, sc.n);
    else
        rows_ref_rmsnorm_backward(dy, x, wv, rstd, dx, dw, sc.m, sc.n);
    if (s == CUTE_OK) {
        /* dx is rstd (w dy - the row's means' terms): terms of rstd |w dy| cancel, so its
         * rounding error scales with them, not with dx (a row of 1: dx 0 from terms of 300) */
        double terms = 0;
        for (int64_t r = 0; r < sc.m; r++)
            for (int64_t j = 0; j < sc.n; j++)
                terms = fmax(terms, rstd[r] * fabs((wv ? wv[j] : 1) * dy[r * sc.n + j]));
        check_vals("dx", name, d, (shape_case){sc.m, sc.n, sc.pad}, &B.dx, dx, mn, fmax(4, 2 * terms));
        if (full) check_vals("dweight", name, d, sc, &B.dw, dw, sc.n, 2 * sqrt((double)sc.m));
        if (full && layer) check_vals("dbias", name, d, sc, &B.db, db, sc.n, 2 * sqrt((double)sc.m));
    }
    free(x), free(wv), free(dy), free(rstd), free(mean), free(dx), free(dw);
    tmat *all = &B.x;
    for (int i = 0; i < 9; i++) tk_free(&all[i]);
}

static void backward(cutec_rows *lib, cute_backend *be, bool layer, cute_dtype d, shape_case sc, bool full)
{
    backward_shifted(lib, be, layer, d, sc, full, 0);
}

int main(void)
{
    cute_runtime *rt;
    char err[256];
    cutec_rows *lib = tk_begin("interp", &rt, err, sizeof err);
    CHECK(lib != NULL, "interpreter: %s", err);
    if (!lib) return CHECK_DONE("norms_test");
    cute_backend *be = cute_runtime_backend(rt);
    const cute_dtype dts[] = {CUTE_F32, CUTE_F16, CUTE_BF16};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int d = 0; d < 3; d++)
            for (int layer = 0; layer < 2; layer++) {
                forward(lib, be, layer, dts[d], cases[k], true, 0);
                forward(lib, be, layer, dts[d], cases[k], k % 2 == 0, 0);
                backward(lib, be, layer, dts[d], cases[k], true);
                if (k == 1) backward(lib, be, layer, dts[d], cases[k], false);
            }
    forward(lib, be, false, CUTE_BF16, (shape_case){2, 33000, 0}, true, 0); /* staged */
    /* LayerNorm's two sums about the row's first h over a staged row (the residual's first
     * element in the shift too) */
    forward(lib, be, true, CUTE_BF16, (shape_case){2, 33000, 8}, true, 0);
    forward(lib, be, true, CUTE_F16, (shape_case){3, 24576, 8}, false, 3000);
    forward(lib, be, true, CUTE_F16, (shape_case){3, 24576, 8}, true, 3000);
    /* a mean 3000 times the spread: E[x^2] - E[x]^2 would cancel to noise (the shift's sums
     * lose a few bits) */
    forward(lib, be, true, CUTE_F32, (shape_case){3, 4097, 0}, false, 3000);
    /* rows split over a cluster's blocks: statistics (Chan's merge too) through distributed
     * shared memory; backward with dw and db kept in each block's registers over its rows */
    forward(lib, be, true, CUTE_F32, (shape_case){2, 33000, 0}, true, 0);
    forward(lib, be, true, CUTE_F32, (shape_case){2, 33000, 0}, false, 3000);
    forward(lib, be, false, CUTE_BF16, (shape_case){3, 70000, 8}, true, 0);
    /* LayerNorm's shifted sums over a cluster's staged parts (one exchange; a mean 3000 times
     * the spread), bf16 read as words */
    forward(lib, be, true, CUTE_BF16, (shape_case){3, 70000, 8}, false, 3000);
    /* the trial (CUTEC_ROWS_TRIAL=1): a cluster's first write chunk with its weight and bias
     * loaded before the staged wait; parts that end inside a chunk (70000, 65544), a residual,
     * f16 and f32, a mean 3000 times the spread; rows held in registers (21x4096 padded; f16
     * 7x1003 without weight) and staged (2x33000), where it does not apply */
    setenv("CUTEC_ROWS_TRIAL", "ahead", 1);
    forward(lib, be, true, CUTE_BF16, (shape_case){3, 70000, 8}, true, 3000);
    forward(lib, be, true, CUTE_BF16, (shape_case){2, 65544, 0}, true, 0);
    forward(lib, be, true, CUTE_F16, (shape_case){2, 70000, 8}, true, 3000);
    forward(lib, be, true, CUTE_F32, (shape_case){2, 40008, 0}, true, 3000);
    forward(lib, be, true, CUTE_BF16, (shape_case){21, 4096, 8}, true, 3000);
    forward(lib, be, true, CUTE_F16, (shape_case){7, 1003, 5}, false, 3000);
    forward(lib, be, true, CUTE_BF16, (shape_case){2, 33000, 8}, true, 0);
    /* lnf's cluster parts (rows_compile.c's hex_parts, split_parts): LayerNorm's forward over
     * 32 KB parts of 128 threads (clusters of 5 to 13 here) copied chunk by chunk (the last part
     * fewer) but the last, read from global memory in both passes (ln41's tail: parts that end
     * inside a chunk or before their last one), RMSNorm's over 64 KB parts (under hex: below); then both norms under
     * CUTEC_ROWS_HEX=0 (64 KB parts, LayerNorm's copied chunk by chunk) and with
     * CUTEC_ROWS_SPLIT=0 too (the part copied at once).  A mutation of split's that copied the
     * first chunk into every buffer failed every row, and one that waited for none read
     * unwritten shared memory */
    unsetenv("CUTEC_ROWS_TRIAL");
    for (int t = 0; t < 3; t++) {
        if (t >= 1) setenv("CUTEC_ROWS_HEX", "0", 1);
        if (t == 2) setenv("CUTEC_ROWS_SPLIT", "0", 1);
        forward(lib, be, true, CUTE_BF16, (shape_case){3, 70000, 8}, true, 3000);
        forward(lib, be, true, CUTE_BF16, (shape_case){2, 65544, 0}, true, 0);
        forward(lib, be, true, CUTE_F16, (shape_case){2, 100000, 8}, true, 3000);
        forward(lib, be, true, CUTE_F32, (shape_case){2, 40008, 0}, true, 3000);
        forward(lib, be, true, CUTE_BF16, (shape_case){2, 70000, 0}, false, 0);
        forward(lib, be, false, CUTE_BF16, (shape_case){3, 70000, 8}, true, 0);
        forward(lib, be, false, CUTE_F32, (shape_case){2, 40008, 0}, true, 0);
    }
    unsetenv("CUTEC_ROWS_HEX"), unsetenv("CUTEC_ROWS_SPLIT");
    /* ln41's tail under a weight alone (rows35's wchain writes those parts: its last chunk too
     * from global memory; read from the staging buffers, it took shared memory past them, and
     * wrong values with a residual), with saved statistics (the backward's forward), a
     * residual, f16 and f32, a mean 3000 times the spread */
    forward_giving(lib, be, true, CUTE_BF16, (shape_case){3, 131080, 0}, GIVE_W | GIVE_STATS, 0);
    forward_giving(lib, be, true, CUTE_F16, (shape_case){2, 70000, 8}, GIVE_RES | GIVE_W, 3000);
    forward_giving(lib, be, true, CUTE_F32, (shape_case){2, 32768, 0}, GIVE_W, 0);
    /* (the six staged parts before ln41's tail: CUTEC_ROWS_TRIAL=no-tail) */
    setenv("CUTEC_ROWS_TRIAL", "no-tail", 1);
    forward(lib, be, true, CUTE_BF16, (shape_case){3, 70000, 8}, true, 3000);
    unsetenv("CUTEC_ROWS_TRIAL");
    /* rows35's wchain (RMSNorm's cluster parts written with each chunk's weight a chunk ahead,
     * the default: the cases above) over hex's parts; parts that end inside a chunk, with and
     * without weight, a mean 1000 times the spread.  A mutation issuing each chunk's weight two
     * chunks ahead failed (140,385 wrong at bf16 3x70000) */
    setenv("CUTEC_ROWS_TRIAL", "hex", 1);
    forward(lib, be, false, CUTE_BF16, (shape_case){3, 70000, 8}, true, 0);
    forward(lib, be, false, CUTE_BF16, (shape_case){2, 65544, 0}, true, 1000);
    forward(lib, be, false, CUTE_F16, (shape_case){2, 100000, 8}, false, 0);
    forward(lib, be, false, CUTE_F16, (shape_case){2, 100000, 8}, true, 1000);
    forward(lib, be, false, CUTE_F32, (shape_case){2, 40008, 0}, true, 0);
    forward(lib, be, false, CUTE_BF16, (shape_case){3, 262152, 0}, true, 0);
    /* wchain1: the same write for rows one block stages (2x33000 padded, f16 3x16392 with
     * and without weight, a mean 1000 times the spread) */
    setenv("CUTEC_ROWS_TRIAL", "wchain1", 1);
    forward(lib, be, false, CUTE_BF16, (shape_case){2, 33000, 8}, true, 0);
    forward(lib, be, false, CUTE_BF16, (shape_case){3, 32768, 0}, true, 1000);
    forward(lib, be, false, CUTE_F16, (shape_case){3, 16392, 8}, true, 0);
    forward(lib, be, false, CUTE_F16, (shape_case){3, 16392, 8}, false, 0);
    unsetenv("CUTEC_ROWS_TRIAL");
    /* ln39's hexrow (rows_compile.c's row_plan_choose): LayerNorm's row with weight and bias
     * that one block would stage, over a cluster of hex's parts (20000 with a residual: three,
     * the last part 3616 elements; f16 3x24576 above too); under CUTEC_ROWS_HEX=0 one block's */
    for (int t = 0; t < 2; t++) {
        if (t) setenv("CUTEC_ROWS_HEX", "0", 1);
        forward(lib, be, true, CUTE_BF16, (shape_case){2, 20000, 8}, true, 3000);
    }
    unsetenv("CUTEC_ROWS_HEX");
    /* ln39's row128 (the default): LayerNorm's rows held in registers a row a block of 128
     * threads (21x4096 padded, a residual, a mean 3000 times the spread; 7x2003 two rows a
     * block), and the blocks of 256 it replaced (CUTEC_ROWS_TRIAL=no-row128) */
    for (int t = 0; t < 2; t++) {
        if (t) setenv("CUTEC_ROWS_TRIAL", "no-row128", 1);
        forward(lib, be, true, CUTE_BF16, (shape_case){21, 4096, 8}, true, 3000);
        forward(lib, be, true, CUTE_F16, (shape_case){7, 2003, 5}, true, 0);
    }
    unsetenv("CUTEC_ROWS_TRIAL");
    /* a residual at 262144: hex's 32 KB parts would take 32 blocks, so 64 KB parts of 256
     * threads (rows_compile.c's cluster_stage), copied chunk by chunk */
    forward(lib, be, true, CUTE_BF16, (shape_case){2, 262144, 0}, true, 0);
    setenv("CUTEC_ROWS_TRIAL", "ahead", 1);
    backward(lib, be, false, CUTE_BF16, (shape_case){3, 20001, 0}, true);
    backward(lib, be, true, CUTE_F32, (shape_case){5, 40000, 3}, true);
    /* (these two also without rows40's slim, the default: the cluster exchange's slots of 4
     * values and 2 stages, CUTEC_ROWS_TRIAL=no-slim; slim's, sized to the op's one stage and
     * its one or two values, are every other case's, row after row by parity: with one value
     * for LayerNorm's two, 4x70000's exchange wrote past the block's shared memory) */
    setenv("CUTEC_ROWS_TRIAL", "ahead,no-slim", 1);
    backward(lib, be, true, CUTE_BF16, (shape_case){4, 70000, 8}, true);
    /* four staging buffers, seven rows: each buffer filled and released twice */
    backward(lib, be, false, CUTE_BF16, (shape_case){7, 33000, 8}, true);
    setenv("CUTEC_ROWS_TRIAL", "ahead", 1);
    /* a 1024-thread tile of the row a block (9 blocks, the last one 8 elements), walked by 512
     * threads in tiles with column sums of their own, in registers (RMSNorm's dw: two tiles,
     * LayerNorm's dw and db: four; the last block's past the row's end), three buffers, the
     * pipelined exchange, seven rows through them; padded rows, f16 and f32, rows whose mean
     * is 3000 times their spread; clusters of 16 whose last part is 8 elements short (its
     * last tile 8184 or 4088); an odd stride (no 16-byte access: not staged).  (The default's
     * 7x131080, 262136 (RMSNorm's four rows: its third buffer's refill) and f16 3x131080
     * without weight are lnb's default form below: the same plans) */
    backward_shifted(lib, be, true, CUTE_BF16, (shape_case){4, 131080, 0}, true, 3000);
    backward_shifted(lib, be, false, CUTE_F16, (shape_case){4, 131080, 8}, true, 3000);
    backward(lib, be, true, CUTE_F32, (shape_case){3, 131080, 4}, true);
    backward(lib, be, true, CUTE_BF16, (shape_case){3, 131080, 3}, true);
    /* lnb's forms of the backward (the defaults: lean, idx32, wf32, nopred, wstage; xfma
     * LayerNorm's for 16-bit inputs, lean's passes for f32) on every plan: rows in registers
     * (odd lengths, padded, one element), staged in one block (4096: four buffers, rows past
     * the matrix in a block's last turn), clusters of 8 and 9 staged parts with the pipelined
     * exchange (7x33000: each buffer filled and released twice), 1024-thread parts in tiles
     * (131080, 262136: nopred and wstage; the interpreter holds one cluster of them, so a row
     * past the matrix there is the GPU check's), rows whose mean is 3000 times their spread,
     * no weight; idx32 within 2^15 and past it; wf32 where the weight is staged (4096, 32760,
     * 33000; f32 and no weight: not) */
    for (int layer = 0; layer < 2; layer++) {
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
            for (int d = 0; d < 3; d++) backward(lib, be, layer, dts[d], cases[k], k != 1 || d != 2);
        backward(lib, be, layer, CUTE_BF16, (shape_case){47, 4096, 8}, true);
        backward(lib, be, layer, CUTE_BF16, (shape_case){39, 8000, 0}, true);
        backward(lib, be, layer, CUTE_BF16, (shape_case){7, 32760, 8}, true);
        backward(lib, be, layer, CUTE_F16, (shape_case){9, 4096, 8}, true);
        backward(lib, be, layer, CUTE_F32, (shape_case){3, 16380, 4}, true);
        backward(lib, be, layer, CUTE_BF16, (shape_case){4, 70000, 8}, true);
        /* the 1024-thread parts (nopred's and wstage's) */
        backward(lib, be, layer, CUTE_BF16, (shape_case){7, 131080, 8}, true);
        backward(lib, be, layer, CUTE_BF16, (shape_case){layer ? 3 : 4, 262136, 8}, true);
        backward_shifted(lib, be, layer, CUTE_BF16, (shape_case){2, 262144, 0}, true, 3000);
        backward(lib, be, layer, CUTE_F16, (shape_case){3, 131080, 0}, false);
        backward(lib, be, layer, CUTE_BF16, (shape_case){7, 33000, 8}, true);
        backward(lib, be, layer, CUTE_BF16, (shape_case){5, 20001, 0}, true);
        backward(lib, be, layer, CUTE_F16, (shape_case){3, 33000, 0}, false);
        backward(lib, be, layer, CUTE_F32, (shape_case){3, 20004, 4}, true);
        backward_shifted(lib, be, layer, CUTE_BF16, (shape_case){4, 33000, 0}, true, 3000);
        /* (f16 LayerNorm's dx there passes f16's range: bf16) */
        backward_shifted(lib, be, layer, layer ? CUTE_BF16 : CUTE_F16, (shape_case){5, 4096, 8}, true, 3000);
    }
    /* nb41's forms (the defaults, every case above: the column sums' pass with its lanes
     * sized to the partial rows, one lane of 256 threads here, the interpreter's 8 blocks,
     * reduce_test takes 261, 30 and 7 rows; the pass as the row kernel's dependent and the row
     * kernel as the dependent of the kernel before it, but on clusters of two blocks an SM),
     * and without them (no-sumlanes, no-sumpdl, no-rowpdl): rows staged in one block (47 rows
     * over 8 blocks), a cluster's parts, 1024-thread parts, rows in registers */
    setenv("CUTEC_ROWS_TRIAL", "no-sumlanes,no-sumpdl,no-rowpdl", 1);
    backward(lib, be, true, CUTE_BF16, (shape_case){47, 4104, 8}, true);
    backward(lib, be, false, CUTE_F16, (shape_case){9, 32776, 0}, true);
    backward(lib, be, true, CUTE_BF16, (shape_case){3, 131080, 0}, true);
    backward(lib, be, true, CUTE_F32, (shape_case){7, 1003, 5}, true);
    unsetenv("CUTEC_ROWS_TRIAL");
    /* before sm_90: rows walked in chunks; dw and db by a pass of their own (its dx pass in
     * the lean form, and LayerNorm's 16-bit one in xfma's) */
    cute_runtime_set_target_arch(rt, "sm_80");
    forward(lib, be, true, CUTE_F32, (shape_case){2, 33000, 0}, false, 3000);
    backward(lib, be, false, CUTE_BF16, (shape_case){3, 20001, 0}, true);
    backward(lib, be, true, CUTE_F32, (shape_case){5, 40000, 3}, true);
    backward(lib, be, true, CUTE_BF16, (shape_case){3, 20001, 0}, true);
    tk_end(lib, rt);
    return CHECK_DONE("norms_test");
}
