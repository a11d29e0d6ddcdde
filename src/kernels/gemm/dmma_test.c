/* The f64 GEMM on Hopper's DMMA (sm_90a tiling: m16n8k8, 2 x 2 warps of 64 x 32) reads its
 * fragments from K-major shared tiles 16 bytes at a time (8 with read_bytes 8) without bank
 * conflicts (plan_multistage.c's f64_perms).  On the interpreter, with the sm_90a plan: every element
 * of odd-sized and full-tile products in every majors combination against float64; the
 * main loop's shared-memory loads conflict-free (bank counts); and, where NVRTC is, no
 * scalar f64 shared load left in the PTX (the vectors the plan promises). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "layout_gen.h" /* gen_seed */
#include "cutec/interp.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

static uint64_t seed;

typedef struct mat {
    int64_t rows, cols, ld;
    int major;
    double *host;
    cute_buffer dev;
} mat;

/* rows x cols, unit stride in `major`; fill: NAN (C with beta 0) or fresh values */
static void make(cute_backend *b, mat *x, int64_t rows, int64_t cols, int major, bool nan)
{
    x->rows = rows, x->cols = cols, x->major = major, x->ld = major == 0 ? rows : cols;
    size_t n = (size_t)(rows * cols);
    x->host = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) x->host[i] = nan ? NAN : ew_random(&seed);
    b->vt->alloc(b->self, n * sizeof(double), &x->dev);
    b->vt->upload(b->self, &x->dev, 0, x->host, n * sizeof(double));
}

static cute_call_arg arg(const mat *x)
{
    int64_t shape[2] = {x->rows, x->cols};
    int64_t stride[2] = {x->major == 0 ? 1 : x->ld, x->major == 0 ? x->ld : 1};
    return cute_call_tensor(&x->dev, 0, CUTE_F64, 2, shape, stride);
}

/* C = 1.5 A B^T + beta C with the library (AUTO: the sm_90a DMMA kernel), every element
 * checked against float64 */
static void product(cute_gemm_lib *lib, cute_backend *b, int64_t M, int64_t N, int64_t K, const int major[3],
                    double beta)
{
    char what[128], err[2048] = "";
    snprintf(what, sizeof what, "f64 %lldx%lldx%lld majors %d%d%d beta %g", (long long)M, (long long)N,
             (long long)K, major[0], major[1], major[2], beta);
    mat A, B, C;
    make(b, &A, M, K, major[0], false), make(b, &B, N, K, major[1], false), make(b, &C, M, N, major[2], beta == 0);
    cute_call_arg a = arg(&A), bb = arg(&B), c = arg(&C);
    cute_status s = cutec_gemm(lib, CUTE_GEMM_AUTO, &a, &bb, &c, 1.5, beta, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    double *got = malloc((size_t)(M * N) * sizeof(double));
    if (s == CUTE_OK) b->vt->download(b->self, got, &C.dev, 0, (size_t)(M * N) * sizeof(double));
    gemm_ref_operand rA = {A.host, A.ld, A.major}, rB = {B.host, B.ld, B.major}, rC = {C.host, C.ld, C.major};
    int64_t bad = 0;
    for (int64_t m = 0; m < M && s == CUTE_OK; m++)
        for (int64_t n = 0; n < N; n++) {
            double mag, ref = gemm_ref_element(CUTE_F64, &rA, &rB, &rC, K, m, n, 1.5, beta, &mag);
            if (!(gemm_ref_error(got[gemm_ref_at(&rC, m, n)], ref, mag) <= 1e-12)) bad++;
        }
    CHECK(bad == 0, "%s: %lld of %lld elements wrong", what, (long long)bad, (long long)(M * N));
    mat *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
}

/* the last launch's main-loop loads (multistage.c's LOAD sites): as many wavefronts as ideal */
static void loads_conflict_free(cute_backend *b)
{
    int n, loads = 0;
    const cute_interp_bank_site *site = cute_interp_bank_sites(*b, &n);
    for (int i = 0; i < n; i++) {
        if (!site[i].file || !strstr(site[i].file, "multistage.c") || strcmp(site[i].op, "LOAD")) continue;
        loads++;
        CHECK(site[i].wavefronts == site[i].ideal, "multistage.c:%d: %llu wavefronts for an ideal %llu",
              site[i].line, (unsigned long long)site[i].wavefronts, (unsigned long long)site[i].ideal);
    }
    CHECK(loads == 2, "%d main-loop load sites counted (want A's and B's)", loads);
}

/* a read width for a dtype whose fragments come another way is refused, saying why */
static void read_width_refused(cute_runtime *rt)
{
    char err[2048] = "";
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_BF16, .major = {1, 1, 0},
                            .align_bytes = 16, .tiling = {.read_bytes = 8}};
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "read_bytes 8: only f64"), "bf16 with read_bytes 8: %s", f ? "compiled" : err);
    cute_fn_free(f);
}

/* the tn kernel's PTX: f64 shared loads only as v2 vectors */
static void vector_loads(cute_runtime *rt)
{
    char err[2048];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the f64 kernel's PTX was not inspected");
        return;
    }
    cute_nvrtc_close(nv);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_F64, .major = {1, 1, 0},
                            .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND};
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "f64 tn: %s", err);
    char *ptx = NULL;
    if (f && cute_fn_code(f, "ptx", "sm_90a", &ptx, err, sizeof err) == CUTE_OK) {
        int scalar = 0, vec = 0;
        for (const char *p = strstr(ptx, "ld.shared."); p; p = strstr(p + 1, "ld.shared.")) {
            scalar += !strncmp(p, "ld.shared.f64", 13);
            vec += !strncmp(p, "ld.shared.v2.f64", 16);
        }
        CHECK(scalar == 0 && vec > 0, "f64 tn PTX: %d scalar and %d v2 f64 shared loads (want 0 and some)", scalar, vec);
    } else {
        CHECK(false, "f64 tn: no PTX: %s", err);
    }
    free(ptx);
    cute_fn_free(f);
}

int main(void)
{
    seed = gen_seed("dmma_test");
    cute_interp_opts opts = {.bank_conflicts = true};
    cute_backend be;
    CHECK(cute_interp_new(&opts, &be) == CUTE_OK, "interpreter");
    cute_runtime *rt = check_failed ? NULL : cute_runtime_wrap(be);
    if (!rt) return CHECK_DONE("dmma_test");
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    product(lib, b, 128, 64, 48, (int[]){1, 1, 0}, 0.0); /* one full tile, three k-tiles */
    loads_conflict_free(b);
    /* 8-byte reads, each value straight into its DMMA register: conflict-free as well */
    cute_gemm_lib_tiling(lib, &(cute_gemm_tiling){.read_bytes = 8});
    product(lib, b, 128, 64, 48, (int[]){1, 1, 0}, 0.0);
    loads_conflict_free(b);
    product(lib, b, 129, 67, 33, (int[]){1, 1, 1}, -0.5);
    cute_gemm_lib_tiling(lib, NULL);
    CHECK(!cute_gemm_lib_tiling(lib, &(cute_gemm_tiling){.read_bytes = 4}), "read_bytes 4 accepted (8 or 16)");
    read_width_refused(rt);
    for (int mj = 0; mj < 8; mj++) /* the odd shape, every majors combination */
        product(lib, b, 129, 67, 33, (int[]){mj & 1, (mj >> 1) & 1, (mj >> 2) & 1}, mj % 2 ? -0.5 : 0.0);
    cute_gemm_lib_free(lib);
    vector_loads(rt);
    cute_runtime_free(rt);
    return CHECK_DONE("dmma_test");
}
