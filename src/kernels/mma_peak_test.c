/* The mma.sync ceiling kernel (`cutec bench mma`): every row traces, and its CUDA C compiles
 * through NVRTC for the row's architecture with whole rounds of chains x unroll of the row's
 * mma instructions (nothing folded away); on the interpreter, a tiny
 * launch with constant operands (vary = 0) writes the value the instruction count and the
 * operands give, in every thread.  The timing is the benchmark's, never the test's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/interp.h"
#include "cutec/nvrtc.h"
#include "kernels/mma_peak.h"

static const mma_peak_shape shape = {64, 3, 2, 0};

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static const char *arch_of(const mma_peak_row *row)
{
    return row->arch >= 90 ? "sm_90a" : row->arch >= 89 ? "sm_89" : "sm_80";
}

/* the row's kernel through CUDA C and NVRTC: its mma instructions in the PTX */
static void compiles(cute_nvrtc *nv, const mma_peak_row *row, const cute_fn *f)
{
    char err[1024], *src = NULL;
    const cute_ir_func *k = cute_fn_kernel(f, 0);
    cute_status s = cute_cuda_c_emit(&k, 1, &(cute_cuda_c_opts){.arch = arch_of(row)}, &src, err, sizeof err);
    CHECK(s == CUTE_OK, "%s: CUDA C: %s", row->name, err);
    if (s != CUTE_OK) return;
    cute_nvrtc_output o;
    s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = arch_of(row)}, &o);
    CHECK(s == CUTE_OK, "%s: NVRTC: %s", row->name, o.log);
    if (s == CUTE_OK) {
        const char *mnemonic = cute_inst_info_of(row->inst)->mnemonic;
        int n = count(o.ptx, mnemonic);
        /* NVRTC may unroll the dynamic loop further: whole rounds of chains x unroll */
        CHECK(n > 0 && n % (shape.chains * shape.unroll) == 0, "%s: %d x %s in the PTX, want a multiple of %d",
              row->name, n, mnemonic, shape.chains * shape.unroll);
        cute_nvrtc_output_free(&o);
    }
    free(src);
}

/* a tiny run on the interpreter: 2 blocks, 3 iterations, constant operands */
static void runs(cute_runtime *rt, const mma_peak_row *row)
{
    char err[1024];
    const cute_fn *f = mma_peak_compile(rt, row, &shape, err, sizeof err);
    if (!f && strstr(err, "not supported in the interpreter")) {
        char why[1200];
        snprintf(why, sizeof why, "%s on the interpreter: %s", row->name, err);
        SKIP(why);
        return;
    }
    CHECK(f, "%s on the interpreter: %s", row->name, err);
    if (!f) return;
    cute_backend *b = cute_runtime_backend(rt);
    enum { BLOCKS = 2, ITERS = 3 };
    int64_t n = (int64_t)shape.threads * BLOCKS;
    size_t bytes = (size_t)n * (size_t)cute_dtype_bytes(row->acc);
    cute_buffer buf;
    if (b->vt->alloc(b->self, bytes, &buf) != CUTE_OK) {
        CHECK(false, "memory");
        return;
    }
    void *host = malloc(bytes);
    memset(host, 0xFF, bytes); /* poison: NaN / -1 */
    b->vt->upload(b->self, &buf, 0, host, bytes);
    cute_call_arg args[5] = {cute_call_tensor(&buf, 0, row->acc, 2, (int64_t[]){shape.threads, BLOCKS},
                                              (int64_t[]){1, shape.threads}),
                             cute_call_int(ITERS), cute_call_int(row->a_bits), cute_call_int(row->b_bits),
                             cute_call_int(0)};
    cute_status s = cute_call(f, NULL, 5, args, err, sizeof err);
    {
        CHECK(s == CUTE_OK && b->vt->sync(b->self, NULL) == CUTE_OK, "%s: %s", row->name, err);
        b->vt->download(b->self, host, &buf, 0, bytes);
        double want = mma_peak_expected(row, &shape, ITERS);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += !(fabs((row->acc == CUTE_F64   ? ((double *)host)[i]
                           : row->acc == CUTE_I32 ? (double)((int32_t *)host)[i]
                                                  : (double)((float *)host)[i]) - want) == 0);
        CHECK(bad == 0, "%s: %lld of %lld threads did not write %g", row->name, (long long)bad, (long long)n, want);
    }
    free(host);
    b->vt->free(b->self, &buf);
    cute_fn_free(f);
}

/* A backend that only keeps the traced kernels: the CUDA C checks need no interpreter that
 * can run INST (its other entries are the interpreter's). */
static cute_status keep_only(void *self, cute_ir_func *const *kernels, int n, cute_module **out, const char **log)
{
    (void)self, (void)kernels, (void)n, (void)log;
    *out = NULL;
    return CUTE_OK;
}
static void keep_nothing(void *self, cute_module *m) { (void)self, (void)m; }

static cute_runtime *trace_runtime(cute_backend_vtable *vt)
{
    cute_backend b;
    if (cute_interp_new(NULL, &b) != CUTE_OK) return NULL;
    *vt = *b.vt;
    vt->compile = keep_only, vt->module_free = keep_nothing;
    b.vt = vt;
    return cute_runtime_wrap(b);
}

int main(void)
{
    char err[1024];
    cute_runtime *rt, *traced;
    cute_backend_vtable vt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK || !(traced = trace_runtime(&vt))) {
        CHECK(false, "no interpreter: %s", err);
        return CHECK_DONE("mma_peak_test");
    }
    cute_nvrtc *nv = NULL;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        char why[1100];
        snprintf(why, sizeof why, "no NVRTC, the mma peak kernels were not compiled: %s", err);
        SKIP(why);
        nv = NULL;
    }
    const mma_peak_row *rows;
    int nrows = mma_peak_rows(&rows);
    for (int r = 0; r < nrows; r++) {
        const cute_fn *f = mma_peak_compile(traced, &rows[r], &shape, err, sizeof err);
        CHECK(f, "%s: %s", rows[r].name, err);
        if (f && nv) compiles(nv, &rows[r], f);
        cute_fn_free(f);
        runs(rt, &rows[r]);
    }
    if (nv) cute_nvrtc_close(nv);
    cute_runtime_free(traced);
    cute_runtime_free(rt);
    return CHECK_DONE("mma_peak_test");
}
