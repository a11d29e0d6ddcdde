/* 8-bit GEMMs whose A or B is M- or N-major (nt, tt, nn) read their fragments by
 * ldmatrix.trans of byte pairs and prmt (SM75_U8x16_LDSM_T_PRMT_A/B, plan_multistage.c),
 * not byte by byte.  On the interpreter with the sm_90a plan (s8 on IMMA, e4m3 and e5m2 on
 * the _VIA_F16 rows): every element of an odd-sized product in each layout against the
 * float64 reference (s8 exact); a full tile's main-loop shared loads conflict-free (bank
 * counts: Swizzle<3,4,4> on lines of 16 k); and, where NVRTC is, the PTX reads no single
 * bytes from shared memory but ldmatrix.trans and prmt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "layout_gen.h" /* gen_seed */
#include "cutec/interp.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "kernels/gemm/gemm_ref.h"

static uint64_t seed;

typedef struct mat {
    int64_t rows, cols;
    int major;
    cute_dtype d;
    void *host;
    cute_buffer dev;
} mat;

static void make(cute_backend *b, mat *x, cute_dtype d, int64_t rows, int64_t cols, int major)
{
    x->rows = rows, x->cols = cols, x->major = major, x->d = d;
    size_t bytes = (size_t)(rows * cols) * (size_t)cute_dtype_bytes(d);
    x->host = malloc(bytes);
    gemm_ref_fill(d, x->host, rows * cols, &seed);
    b->vt->alloc(b->self, bytes, &x->dev);
    b->vt->upload(b->self, &x->dev, 0, x->host, bytes);
}

static int64_t ld(const mat *x)
{
    return x->major == 0 ? x->rows : x->cols;
}

static cute_call_arg arg(const mat *x)
{
    int64_t shape[2] = {x->rows, x->cols};
    int64_t stride[2] = {x->major == 0 ? 1 : ld(x), x->major == 0 ? ld(x) : 1};
    return cute_call_tensor(&x->dev, 0, x->d, 2, shape, stride);
}

/* C = alpha A B^T + beta C through the library (AUTO: tensorop_smem), every element checked */
static void product(cute_gemm_lib *lib, cute_backend *b, cute_dtype d, cute_dtype cd, int64_t M, int64_t N,
                    int64_t K, int ma, int mb, double beta)
{
    char what[160], err[2048] = "";
    snprintf(what, sizeof what, "%s -> %s %lldx%lldx%lld %c%c", cute_dtype_name(d), cute_dtype_name(cd),
             (long long)M, (long long)N, (long long)K, ma ? 't' : 'n', mb ? 'n' : 't');
    mat A, B, C;
    make(b, &A, d, M, K, ma), make(b, &B, d, N, K, mb), make(b, &C, cd, M, N, 0);
    double alpha = gemm_ref_integral(d) ? 3 : 1.5;
    gemm_ref_problem p = {{A.host, ld(&A), ma}, {B.host, ld(&B), mb}, {C.host, M, 0}, d, cd, {0, 0, 0}, M, N, K, 1,
                          alpha, beta};
    cute_call_arg a = arg(&A), bb = arg(&B), c = arg(&C);
    cute_status s = cutec_gemm(lib, CUTE_GEMM_AUTO, &a, &bb, &c, alpha, beta, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    size_t bytes = (size_t)(M * N) * (size_t)cute_dtype_bytes(cd);
    void *got = malloc(bytes);
    memset(got, 0xff, bytes);
    if (s == CUTE_OK) b->vt->download(b->self, got, &C.dev, 0, bytes);
    double worst;
    int64_t bad = s == CUTE_OK ? gemm_ref_check(&p, got, gemm_ref_tolerance(d, cd), &worst) : 0;
    CHECK(bad == 0, "%s: %lld of %lld elements wrong (worst %g)", what, (long long)bad, (long long)(M * N), worst);
    mat *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
}

/* the last launch's main-loop loads (multistage.c's LOAD sites): as many wavefronts as ideal */
static void loads_conflict_free(cute_backend *b, const char *what)
{
    int n, loads = 0;
    const cute_interp_bank_site *site = cute_interp_bank_sites(*b, &n);
    for (int i = 0; i < n; i++) {
        if (!site[i].file || !strstr(site[i].file, "multistage.c") || !strstr(site[i].op, "ldmatrix")) continue;
        loads++;
        CHECK(site[i].wavefronts == site[i].ideal, "%s: multistage.c:%d: %llu wavefronts for an ideal %llu", what,
              site[i].line, (unsigned long long)site[i].wavefronts, (unsigned long long)site[i].ideal);
    }
    CHECK(loads == 2, "%s: %d main-loop ldmatrix sites counted (want A's and B's)", what, loads);
}

/* the nt kernel's PTX: no 8-bit shared loads; ldmatrix.trans and prmt */
static void ptx_reads(cute_runtime *rt, cute_dtype d)
{
    char err[2048];
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = d, .major = {0, 0, 0}, .align_bytes = 16,
                            .index_bound = CUTE_GEMM_INDEX_BOUND};
    const cute_dtype *outs;
    int nouts;
    gemm_ref_out_dtypes(d, &outs, &nouts);
    cfg.c_dtype = outs[0];
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "%s nt: %s", cute_dtype_name(d), err);
    char *ptx = NULL;
    if (f && cute_fn_code(f, "ptx", "sm_90a", &ptx, err, sizeof err) == CUTE_OK) {
        int bytes = 0, trans = 0, prmt = 0;
        for (const char *p = strstr(ptx, "ld.shared."); p; p = strstr(p + 1, "ld.shared."))
            bytes += !strncmp(p, "ld.shared.u8", 12) || !strncmp(p, "ld.shared.s8", 12) || !strncmp(p, "ld.shared.b8", 12);
        for (const char *p = strstr(ptx, "ldmatrix"); p; p = strstr(p + 1, "ldmatrix")) trans += !!strstr(p, ".trans") && strstr(p, ".trans") < strchr(p, ';');
        for (const char *p = strstr(ptx, "prmt.b32"); p; p = strstr(p + 1, "prmt.b32")) prmt++;
        CHECK(bytes == 0 && trans > 0 && prmt > 0, "%s nt PTX: %d byte loads from shared memory (want 0), %d "
              "ldmatrix.trans and %d prmt (want some)", cute_dtype_name(d), bytes, trans, prmt);
    } else {
        CHECK(false, "%s nt: no PTX: %s", cute_dtype_name(d), err);
    }
    free(ptx);
    cute_fn_free(f);
}

int main(void)
{
    seed = gen_seed("mn8_test");
    cute_interp_opts opts = {.bank_conflicts = true};
    cute_backend be;
    CHECK(cute_interp_new(&opts, &be) == CUTE_OK, "interpreter");
    cute_runtime *rt = check_failed ? NULL : cute_runtime_wrap(be);
    if (!rt) return CHECK_DONE("mn8_test");
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    static const int mn[3][2] = {{0, 0}, {1, 0}, {0, 1}}; /* nt, tt, nn */
    static const cute_dtype in[3] = {CUTE_I8, CUTE_E4M3, CUTE_E5M2}, out[3] = {CUTE_I32, CUTE_F32, CUTE_BF16};
    for (int i = 0; i < 3; i++) {
        /* one full 256 x 128 tile of two k-tiles: the reads counted */
        product(lib, b, in[i], out[i], 256, 128, 256, mn[i][0], mn[i][1], 0.0);
        loads_conflict_free(b, cute_dtype_name(in[i]));
        for (int l = 0; l < 3; l++) /* the odd shape, every layout */
            product(lib, b, in[i], out[i], 129, 67, 33 + 32 * l, mn[l][0], mn[l][1], l == 1 ? 0.0 : -2.0);
    }
    cute_gemm_lib_free(lib);
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK) {
        cute_nvrtc_close(nv);
        ptx_reads(rt, CUTE_I8);
        ptx_reads(rt, CUTE_E4M3);
    } else {
        SKIP("no NVRTC: the kernels' PTX was not inspected");
    }
    cute_runtime_free(rt);
    return CHECK_DONE("mn8_test");
}
