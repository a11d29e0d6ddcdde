/* The wgmma ceiling kernel (`cutec bench mma`'s wgmma rows): every row traces, its CUDA C
 * compiles through NVRTC for sm_90a with whole rounds of its wgmma (nothing folded away);
 * on the interpreter, one block of two warpgroups with constant operands (vary = 0) writes,
 * in every thread, the value the instruction count and the operands give (and one block of
 * one warpgroup, `cutec bench mma --warpgroups 1`).  A variant with
 * the shared tiles varied must not give that value (the operands are really read).  The
 * timing is the benchmark's, never the test's. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/nvrtc.h"
#include "kernels/wgmma_peak.h"

static const mma_peak_shape two_warpgroups = {256, 1, 2, 1}, one_warpgroup = {128, 1, 2, 1};

static void compiles(cute_nvrtc *nv, const mma_peak_row *row)
{
    char err[2048], *src = NULL;
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return;
    const cute_fn *f = wgmma_peak_compile(rt, row, &two_warpgroups, err, sizeof err);
    CHECK(f, "%s: %s", row->name, err);
    const cute_ir_func *k = f ? cute_fn_kernel(f, 0) : NULL;
    cute_status s = k ? cute_cuda_c_emit(&k, 1, &(cute_cuda_c_opts){.arch = "sm_90a"}, &src, err, sizeof err) : CUTE_ERR_INVALID;
    CHECK(s == CUTE_OK, "%s: CUDA C: %s", row->name, err);
    cute_nvrtc_output o;
    if (s == CUTE_OK && (s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_90a"}, &o)) == CUTE_OK) {
        const char *mn = cute_inst_info_of(row->inst)->mnemonic;
        int n = 0;
        for (const char *p = strstr(o.ptx, mn); p; p = strstr(p + 1, mn)) n++;
        CHECK(n > 0 && n % two_warpgroups.unroll == 0, "%s: %d x %s in the PTX", row->name, n, mn);
        cute_nvrtc_output_free(&o);
    } else if (src) {
        CHECK(false, "%s: NVRTC: %s", row->name, o.log);
    }
    free(src);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* one block of `shape`, ITERS iterations on the interpreter: every thread's sum */
static void runs_shaped(cute_runtime *rt, const mma_peak_row *row, uint32_t vary, mma_peak_shape shape)
{
    char err[2048];
    const cute_fn *f = wgmma_peak_compile(rt, row, &shape, err, sizeof err);
    CHECK(f, "%s on the interpreter: %s", row->name, err);
    if (!f) return;
    enum { ITERS = 2 };
    cute_backend *b = cute_runtime_backend(rt);
    size_t bytes = (size_t)shape.threads * 4;
    cute_buffer buf;
    void *host = malloc(bytes);
    if (!host || b->vt->alloc(b->self, bytes, &buf) != CUTE_OK) {
        CHECK(false, "memory");
        free(host);
        return;
    }
    memset(host, 0xFF, bytes); /* poison */
    b->vt->upload(b->self, &buf, 0, host, bytes);
    cute_call_arg args[5] = {cute_call_tensor(&buf, 0, row->acc, 2, (int64_t[]){shape.threads, 1}, (int64_t[]){1, shape.threads}),
                             cute_call_int(ITERS), cute_call_int(row->a_bits), cute_call_int(row->b_bits), cute_call_int(vary)};
    cute_status s = cute_call(f, NULL, 5, args, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", row->name, err, b->vt->error(b->self));
    double want = mma_peak_expected(row, &shape, ITERS);
    int off = 0;
    if (s == CUTE_OK && b->vt->download(b->self, host, &buf, 0, bytes) == CUTE_OK)
        for (int t = 0; t < shape.threads; t++) {
            double got = row->acc == CUTE_I32 ? ((int32_t *)host)[t] : ((float *)host)[t];
            off += got != want;
        }
    if (vary) CHECK(off > 0, "%s: varied operands gave the constant operands' result", row->name);
    else CHECK(off == 0, "%s: %d of %d threads did not write %g", row->name, off, shape.threads, want);
    b->vt->free(b->self, &buf);
    free(host);
    cute_fn_free(f);
}

static void runs(cute_runtime *rt, const mma_peak_row *row, uint32_t vary) { runs_shaped(rt, row, vary, two_warpgroups); }

int main(void)
{
    const mma_peak_row *rows;
    int n = wgmma_peak_rows(&rows);
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK) {
        for (int i = 0; i < n; i++) compiles(nv, &rows[i]);
        cute_nvrtc_close(nv);
    } else {
        SKIP("no NVRTC: the wgmma peak kernels were not compiled");
    }
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    for (int i = 0; i < n; i++) runs(rt, &rows[i], 0);
    runs(rt, &rows[0], rows[0].vary);
    runs_shaped(rt, &rows[0], 0, one_warpgroup);
    cute_runtime_free(rt);
    return CHECK_DONE("kernels wgmma_peak");
}
