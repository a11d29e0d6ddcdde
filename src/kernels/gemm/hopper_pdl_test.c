/* The Hopper GEMM as a programmatic dependent launch (CUTEC_GEMM_PDL=1, hopper.c): a chain of
 * GEMMs launched back to back on one stream, X' = alpha X W_i^T, ping-ponging between two
 * buffers, so each link reads what the one before wrote (its wait must come before its
 * first read) and writes what the one before read (and before its first write).  The links
 * mix the schedules (cooperative, ping-pong, a 2x1 cluster); once with the next grid let in
 * after the last loads (CUTEC_GEMM_PDL=1), once right after the wait (early).  Checked against a float64
 * chain on the host (each step rounded to the GEMM's bf16 C, as the GPU's is), the second
 * buffer poisoned (NaN) first.
 *  - the kernel's CUDA C: griddepcontrol.wait before the first TMA load, launch_dependents
 *    after it (early: between the two); neither without PDL;
 *  - the interpreter (grids in order: the instructions are no-ops) at a small size;
 *  - on an sm_90 GPU (else skipped): 512 x 512 x 512, 8 blocks on 132 SMs, so each next
 *    grid starts on free SMs as soon as the blocks before let it in: a missing wait reads
 *    stale X (the 2048^3 GEMM's PDL is checked by device-pdl.sh's bench rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;
enum { LINKS = 4 };

/* the links' tilings, in turn */
static const cute_gemm_tiling forms[3] = {
    {0},
    {.schedule = CUTE_GEMM_SCHEDULE_PINGPONG},
    {.cluster_m = 2, .cluster_n = 1},
};

static cute_gemm_config config(cute_gemm_tiling t)
{
    return (cute_gemm_config){.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .c_dtype = CUTE_BF16,
                              .major = {1, 1, 1}, .align_bytes = 16, .tiling = t};
}

/* f's kernel compiled with CUTEC_GEMM_PDL=pdl ("0", "1", "early"), NULL and why in err where not */
static const cute_fn *compile(cute_runtime *rt, cute_gemm_tiling t, const char *pdl, char *err, size_t n)
{
    setenv("CUTEC_GEMM_PDL", pdl, 1);
    cute_gemm_config cfg = config(t);
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, n);
    unsetenv("CUTEC_GEMM_PDL");
    return f;
}

/* the wait before the first TMA load and launch_dependents after it (early: before it), in
 * the CUDA C (none of either without PDL); a setting other than 1, early or 0 refused by name */
static void code(cute_runtime *rt)
{
    char err[2048] = "", *src = NULL;
    for (int early = 0; early < 2; early++) {
        const cute_fn *f = compile(rt, forms[0], early ? "early" : "1", err, sizeof err);
        CHECK(f && cute_fn_code(f, "cuda", NULL, &src, err, sizeof err) == CUTE_OK, "PDL's kernel: %s", err);
        if (src) {
            const char *wait = strstr(src, "griddepcontrol.wait"), *load = strstr(src, "cp.async.bulk.tensor"),
                       *let = strstr(src, "griddepcontrol.launch_dependents");
            bool order = early ? wait < let && let < load : wait < load && load < let;
            CHECK(wait && load && let && order && !strstr(let + 1, "griddepcontrol.launch_dependents"),
                  "%s: wait %p, first load %p, launch_dependents %p (once)", early ? "early" : "1", (const void *)wait,
                  (const void *)load, (const void *)let);
        }
        free(src), src = NULL;
        cute_fn_free(f);
    }
    const cute_fn *f = compile(rt, forms[0], "0", err, sizeof err);
    CHECK(f && cute_fn_code(f, "cuda", NULL, &src, err, sizeof err) == CUTE_OK && !strstr(src, "griddepcontrol"),
          "without PDL: %s", f ? "griddepcontrol in the kernel" : err);
    free(src);
    cute_fn_free(f);
    f = compile(rt, forms[0], "yes", err, sizeof err);
    CHECK(!f && strstr(err, "CUTEC_GEMM_PDL=yes: not one of 0|1|early"), "CUTEC_GEMM_PDL=yes: %s", f ? "taken" : err);
    cute_fn_free(f);
}

/* one link's float64 reference, rounded to bf16: Y = alpha X W^T (M x N, row-major) */
static void reference(const gtk_operand *X, const gtk_operand *W, double alpha, void *Y)
{
    gemm_ref_problem p = {{X->host, X->ld, 1}, {W->host, W->ld, 1}, {Y, X->ld, 1}, CUTE_BF16, CUTE_BF16,
                          {0, 0, 0}, X->rows, W->rows, W->cols, 1, alpha, 0.0};
    for (int64_t m = 0; m < X->rows; m++)
        for (int64_t n = 0; n < W->rows; n++) {
            double mag;
            ew_set(CUTE_BF16, Y, m * X->ld + n, gemm_ref_value(&p, m, n, 0, &mag));
        }
}

/* the chain of `links` GEMMs of (M, N) x (N, N) on rt, launched back to back with PDL, the
 * last result against the float64 chain */
static void chain(cute_runtime *rt, int64_t M, int64_t N, int links, const cute_gemm_tiling *t, const char *pdl,
                  const char *where)
{
    cute_backend *b = cute_runtime_backend(rt);
    char err[4096] = "";
    const cute_fn *f[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) f[i] = compile(rt, t[i], pdl, err, sizeof err);
    CHECK(f[0] && f[1] && f[2], "%s: PDL's kernels: %s", where, err);
    gtk_operand X[2], W[LINKS];
    bool ok = gtk_make(b, &X[0], CUTE_BF16, M, N, 1, 0, false, &seed) &&
              gtk_make(b, &X[1], CUTE_BF16, M, N, 1, 0, true, &seed);
    for (int i = 0; i < links; i++) ok = ok && gtk_make(b, &W[i], CUTE_BF16, N, N, 1, 0, false, &seed);
    double alpha = 1.0 / sqrt((double)N); /* the values keep their scale down the chain */
    cute_status s = ok && f[0] && f[1] && f[2] ? CUTE_OK : CUTE_ERR_OOM;
    for (int i = 0; i < links && s == CUTE_OK; i++) {
        cute_call_arg args[5] = {gtk_arg(&X[i % 2], CUTE_BF16), gtk_arg(&W[i], CUTE_BF16),
                                 gtk_arg(&X[(i + 1) % 2], CUTE_BF16), cute_call_float(alpha), cute_call_float(0.0)};
        s = cute_call(f[i % 3], NULL, 5, args, err, sizeof err); /* no sync between the links */
    }
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !err[0]) snprintf(err, sizeof err, "%s", b->vt->error(b->self));
    size_t bytes = (size_t)(M * N) * 2;
    void *got = malloc(bytes), *ref[2] = {malloc(bytes), malloc(bytes)};
    int64_t bad = -1;
    double worst = 0;
    if (s == CUTE_OK && b->vt->download(b->self, got, &X[links % 2].dev, 0, bytes) == CUTE_OK) {
        /* the host's chain up to the last link's input, then the last link against float64 */
        gtk_operand in = X[0];
        for (int i = 0; i + 1 < links; i++) {
            reference(&in, &W[i], alpha, ref[i % 2]);
            in.host = ref[i % 2];
        }
        gemm_ref_problem p = {{in.host, N, 1}, {W[links - 1].host, N, 1}, {got, N, 1}, CUTE_BF16, CUTE_BF16,
                              {0, 0, 0}, M, N, N, 1, alpha, 0.0};
        bad = gtk_wrong(&p, got, 1 << 16, 1 << 14, &seed, &worst);
    }
    CHECK(s == CUTE_OK && bad == 0, "%s: a chain of %d GEMMs %lldx%lldx%lld, CUTEC_GEMM_PDL=%s: %s %s, %lld wrong "
          "(worst %g)", where, links, (long long)M, (long long)N, (long long)N, pdl, cute_status_name(s), err,
          (long long)bad, worst);
    for (int i = 0; i < 2; i++) b->vt->free(b->self, &X[i].dev), free(X[i].host), free(ref[i]);
    for (int i = 0; i < links; i++) b->vt->free(b->self, &W[i].dev), free(W[i].host);
    free(got);
    for (int i = 0; i < 3; i++) cute_fn_free(f[i]);
}

static void interp(void)
{
    cute_runtime *rt = gtk_interp();
    if (!rt) return;
    code(rt);
    /* 64 x 64 tiles, 2 stages: 3 M tiles (one clipped), 2 N tiles and 2 k-tiles a link */
    const cute_gemm_tiling small[3] = {
        {.bm = 64, .bn = 64, .stages = 2},
        {.bm = 64, .bn = 64, .stages = 2, .schedule = CUTE_GEMM_SCHEDULE_PINGPONG},
        {.bm = 64, .bn = 64, .stages = 2, .cluster_m = 2, .cluster_n = 1},
    };
    chain(rt, 136, 128, 3, small, "1", "interp");
    chain(rt, 136, 128, 3, small, "early", "interp");
    cute_runtime_free(rt);
}

static void gpu(void)
{
    cute_runtime *rt = gtk_sm90();
    if (!rt) {
        SKIP("no sm_90 GPU: the chain of PDL GEMMs ran on the interpreter only");
        return;
    }
    chain(rt, 512, 512, LINKS, forms, "1", "cuda");
    chain(rt, 512, 512, LINKS, forms, "early", "cuda");
    cute_runtime_free(rt);
}

int main(void) { return gtk_main("hopper_pdl_test", &seed, interp, gpu); }
