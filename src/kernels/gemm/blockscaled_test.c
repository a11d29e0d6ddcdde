/* The Blackwell kernel's block-scaled GEMMs on the interpreter with an sm_100a target, against a
 * float64 decode of every element and scale: seed 001's NVFP4 (e2m1 A and B, ue4m3 scales per 16
 * of K) and MXFP8 (e4m3, ue8m0 per 32), both in CuTe's scale layout (cute_gemv_sf_index), random
 * codes and scales, C poisoned (NaN where beta is 0): tails in M and N, K's last scale atom alone
 * in its k-tile (NVFP4) or partly past K (MXFP8), C of f32 and bf16, row- and column-major,
 * through the compiled function and the library's entry points (cutec_gemm_nvfp4 / _mxfp8) with
 * their refusals; NVFP4, MXFP8 and MXFP4 also on the CTA pair (cta_group::2: each block's A rows'
 * scales and all of B's in its tensor memory, by the leader's tcgen05.cp.cta_group::2); each
 * compiled for sm_100a by NVRTC and ptxas.  No Blackwell has run them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "cutec/numeric.h"
#include "cutec/nvrtc.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed = 23;

typedef cute_status (*scaled_call)(cute_gemm_lib *, const cute_call_arg *, const cute_call_arg *, const cute_call_arg *,
                                   const cute_call_arg *, const cute_call_arg *, double, double, void *, char *, size_t);

/* a block-scaled kind: A's and B's type, the scales', K a scale covers, the library's entry */
typedef struct sc_kind {
    const char *name;
    cute_dtype d, sf;
    int vec;
    scaled_call call;
} sc_kind;

static const sc_kind NVFP4 = {"NVFP4", CUTE_E2M1, CUTE_UE4M3, 16, cutec_gemm_nvfp4};
static const sc_kind MXFP4 = {"MXFP4", CUTE_E2M1, CUTE_UE8M0, 32, cutec_gemm_mxfp4};
static const sc_kind MXFP8 = {"MXFP8", CUTE_E4M3, CUTE_UE8M0, 32, cutec_gemm_mxfp8};

/* an operand's codes and scales (gemm_ref's) and their device copies */
typedef struct sc_operand {
    gemm_bs_operand h;
    cute_buffer dc, ds;
} sc_operand;

static bool make(cute_backend *b, const sc_kind *kind, sc_operand *o, int64_t rows, int64_t K)
{
    o->dc.ptr = o->ds.ptr = NULL;
    if (!gemm_bs_make(&o->h, kind->d, kind->sf, rows, K, &seed)) return false;
    return b->vt->alloc(b->self, (size_t)o->h.bytes, &o->dc) == CUTE_OK &&
           b->vt->upload(b->self, &o->dc, 0, o->h.codes, (size_t)o->h.bytes) == CUTE_OK &&
           b->vt->alloc(b->self, (size_t)o->h.nsf, &o->ds) == CUTE_OK &&
           b->vt->upload(b->self, &o->ds, 0, o->h.scales, (size_t)o->h.nsf) == CUTE_OK;
}

static void release(cute_backend *b, sc_operand *o)
{
    b->vt->free(b->self, &o->dc), b->vt->free(b->self, &o->ds);
    gemm_bs_free(&o->h);
}

/* C's elements off alpha (A sfa)(B sfb)^T + beta C0 in float64 */
static int64_t wrong(const sc_operand *A, const sc_operand *B, const gtk_operand *C, cute_dtype cd, double alpha,
                     double beta, const void *got, double *worst)
{
    int64_t bad = 0;
    double tol = cd == CUTE_F32 ? 1e-6 : 1.0 / 128;
    for (int64_t m = 0; m < A->h.rows; m++)
        for (int64_t n = 0; n < B->h.rows; n++) {
            double mag, sum = gemm_bs_dot(&A->h, &B->h, m, n, &mag);
            int64_t at = C->major ? m * C->ld + n : n * C->ld + m;
            double c0 = beta == 0 ? 0 : ew_get(cd, C->host, at), want = alpha * sum + beta * c0;
            double err = fabs(ew_get(cd, got, at) - want) / (fabs(alpha) * mag + fabs(beta * c0) + 1e-30);
            if (!(err <= tol)) bad++;
            if (!(err <= *worst)) *worst = err;
        }
    return bad;
}

/* the library's refusals of a scale buffer one scale short and of an N-major B, each named */
static void refusals(const sc_kind *kind, cute_gemm_lib *lib, cute_call_arg *args, int64_t N, double alpha, double beta)
{
    char why[1024];
    args[5].shape[0]--;
    cute_status s = kind->call(lib, &args[0], &args[5], &args[1], &args[6], &args[2], alpha, beta, NULL, why, sizeof why);
    CHECK(s == CUTE_ERR_INVALID && strstr(why, "SFA must be") && strstr(why, "cute_gemv_sf_count"), "%s short SFA: %s",
          kind->name, why);
    args[5].shape[0]++, args[1].stride[0] = 1, args[1].stride[1] = N;
    s = kind->call(lib, &args[0], &args[5], &args[1], &args[6], &args[2], alpha, beta, NULL, why, sizeof why);
    CHECK(s == CUTE_ERR_INVALID && strstr(why, "B has stride"), "%s N-major B: %s", kind->name, why);
}

/* the compiled function called with args (the library's: SFA and SFB rank-1) as the library calls it */
static cute_status direct(const cute_fn *f, const cute_call_arg *args, int64_t M, int64_t N, int64_t K, int vec,
                          char *why, size_t n)
{
    cute_call_arg as[7];
    memcpy(as, args, sizeof as);
    as[5] = gemm_bw_sf_arg(&args[5], M, K, vec), as[6] = gemm_bw_sf_arg(&args[6], N, K, vec);
    return cute_call(f, NULL, 7, as, why, n);
}

/* one product against float64: the compiled function called directly, or through the library's
 * entry point (lib) */
static void one_case(cute_runtime *rt, const sc_kind *kind, cute_gemm_lib *lib, int64_t M, int64_t N, int64_t K,
                     cute_dtype cd, int cmajor, double alpha, double beta, bool pair)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = kind->d, .c_dtype = cd,
                            .major = {1, 1, cmajor}, .align_bytes = 16, .mx_scales = kind == &MXFP4,
                            .tiling = {.cluster_m = pair ? 2 : 0}}; /* 2: the CTA pair (cta_group::2) */
    if (lib) cute_gemm_lib_tiling(lib, &cfg.tiling);
    char why[4096] = "";
    const cute_fn *f = cute_gemm_compile(rt, &cfg, why, sizeof why);
    sc_operand A, B;
    gtk_operand C;
    bool ok = f && make(b, kind, &A, M, K) && make(b, kind, &B, N, K) &&
              gtk_make(b, &C, cd, M, N, cmajor, 0, beta == 0, &seed);
    cute_call_arg args[7] = {cute_call_tensor(&A.dc, 0, kind->d, 2, (int64_t[]){M, K}, (int64_t[]){K, 1}),
                             cute_call_tensor(&B.dc, 0, kind->d, 2, (int64_t[]){N, K}, (int64_t[]){K, 1}),
                             gtk_arg(&C, cd), cute_call_float(alpha), cute_call_float(beta),
                             cute_call_tensor(&A.ds, 0, kind->sf, 1, &A.h.nsf, (int64_t[]){1}),
                             cute_call_tensor(&B.ds, 0, kind->sf, 1, &B.h.nsf, (int64_t[]){1})};
    cute_status s = !ok ? CUTE_ERR_COMPILE
                    : lib ? kind->call(lib, &args[0], &args[5], &args[1], &args[6], &args[2], alpha, beta, NULL, why,
                                       sizeof why)
                          : direct(f, args, M, N, K, kind->vec, why, sizeof why);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, sizeof why, "%s", b->vt->error(b->self));
    size_t bytes = (size_t)(M * N * cute_dtype_bytes(cd));
    void *got = malloc(bytes);
    double worst = 0;
    int64_t bad = s == CUTE_OK && b->vt->download(b->self, got, &C.dev, 0, bytes) == CUTE_OK
                      ? wrong(&A, &B, &C, cd, alpha, beta, got, &worst) : -1;
    CHECK(s == CUTE_OK && bad == 0, "%s %lldx%lldx%lld -> %s (%s-major)%s%s: %s %s, %lld wrong, worst %g", kind->name,
          (long long)M, (long long)N, (long long)K, cute_dtype_name(cd), cmajor ? "row" : "column",
          lib ? " by the library" : "", pair ? " on the CTA pair" : "", cute_status_name(s), why, (long long)bad, worst);
    if (lib && ok) refusals(kind, lib, args, N, alpha, beta);
    if (ok) release(b, &A), release(b, &B);
    b->vt->free(b->self, &C.dev), free(C.host), free(got);
    cute_fn_free(f);
}

/* NVRTC and ptxas take the kernel for sm_100a (compile only, no GPU) with the kind's MMA (the CTA
 * pair's: and its scales' copies and TMA loads) */
static void compiles_for_sm100a(cute_runtime *rt, const sc_kind *kind, const char *mma, bool pair)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_BLACKWELL, .dtype = kind->d, .c_dtype = CUTE_BF16,
                            .major = {1, 1, 1}, .align_bytes = 16, .mx_scales = kind == &MXFP4,
                            .tiling = {.cluster_m = pair ? 2 : 0}};
    gtk_compiles_sm100a(rt, &cfg, mma, pair ? "tcgen05.cp.cta_group::2.32x128b.warpx4" : "tcgen05.cp");
}

int main(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter");
        return CHECK_DONE("gemm blockscaled_test");
    }
    cute_runtime_set_target_arch(rt, "sm_100a");
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    /* the CTA pair (its odd block's rows past M); K's 5th atom alone in the 2nd k-tile */
    one_case(rt, &NVFP4, NULL, 200, 136, 320, CUTE_F32, 1, 1.0, 0.0, true);
    one_case(rt, &NVFP4, lib, 136, 264, 256, CUTE_BF16, 0, 0.5, -1.0, false); /* 2 x 3 tiles on 2 blocks, beta */
    one_case(rt, &MXFP8, NULL, 200, 136, 160, CUTE_F32, 1, 1.0, 0.0, true);  /* the pair; K's 2nd atom a quarter used */
    one_case(rt, &MXFP8, lib, 136, 264, 288, CUTE_BF16, 0, 0.5, -1.0, false); /* 3 k-tiles, beta, column-major C */
    one_case(rt, &MXFP4, NULL, 200, 136, 288, CUTE_F32, 1, 1.0, 0.0, false);  /* K's 3rd atom a quarter used */
    one_case(rt, &MXFP4, lib, 136, 136, 512, CUTE_F16, 1, 0.5, -1.0, true);   /* the pair by the library's tiling */
    cute_gemm_lib_free(lib);
    compiles_for_sm100a(rt, &NVFP4, "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", false);
    compiles_for_sm100a(rt, &MXFP8, "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", false);
    compiles_for_sm100a(rt, &MXFP4, "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X", false);
    compiles_for_sm100a(rt, &NVFP4, "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X", true);
    cute_runtime_free(rt);
    return CHECK_DONE("gemm blockscaled_test");
}
