/* `cutec run gemm --dtype nvfp4|mxfp4|mxfp8`: the block-scaled GEMMs (cutec_gemm_nvfp4: e2m1 A and
 * B with a ue4m3 scale per 16 of K; cutec_gemm_mxfp4: e2m1 with ue8m0 per 32; cutec_gemm_mxfp8:
 * e4m3 with ue8m0 per 32; K-major, the scales in CuTe's layout; the Blackwell kernel, so an sm_100
 * target: the interpreter with --arch sm_100a, or a Blackwell GPU) on fresh codes and scales,
 * every element checked against the float64 decode (gemm_ref_blockscaled.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gemm_cli.h"
#include "kernels/ew_ref.h"

static const gemm_bs_kind KINDS[] = {
    {"nvfp4", CUTE_E2M1, CUTE_UE4M3, 16, "mxf4nvf4 .block_scale .scale_vec::4X", "e2m1, a ue4m3 scale per 16 of K",
     cutec_gemm_nvfp4},
    {"mxfp4", CUTE_E2M1, CUTE_UE8M0, 32, "mxf4 .block_scale .scale_vec::2X", "e2m1, a ue8m0 scale per 32 of K",
     cutec_gemm_mxfp4},
    {"mxfp8", CUTE_E4M3, CUTE_UE8M0, 32, "mxf8f6f4 .block_scale", "e4m3, a ue8m0 scale per 32 of K", cutec_gemm_mxfp8},
};

const gemm_bs_kind *gemm_bs_kind_named(const char *name)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        if (!strcmp(name, KINDS[i].name)) return &KINDS[i];
    return NULL;
}

bool gemm_bs_arch_ok(const char *cmd, const gemm_bs_kind *k, int arch)
{
    if (arch == 100) return true; /* tcgen05: sm_100a (sm_120 has none) */
    fprintf(stderr, "cutec %s gemm: --dtype %s is a Blackwell block-scaled kind (tcgen05.mma .kind::%s): it needs "
            "an sm_100 target (--arch sm_100a; the interpreter runs it), not sm_%d\n", cmd, k->name, k->inst, arch);
    return false;
}

void gemm_bs_config(const gemm_bs_kind *k, cute_gemm_config *cfg)
{
    cfg->variant = CUTE_GEMM_BLACKWELL, cfg->dtype = k->d, cfg->major[0] = cfg->major[1] = 1;
    cfg->mx_scales = k->d == CUTE_E2M1 && k->sf == CUTE_UE8M0;
}

/* an operand's codes and scales on the host (gemm_ref's) and the device */
typedef struct mx_operand {
    gemm_bs_operand h;
    cute_buffer dc, ds;
} mx_operand;

static bool mx_make(cute_backend *b, const gemm_bs_kind *k, mx_operand *o, int64_t rows, int64_t K, uint64_t *state)
{
    return gemm_bs_make(&o->h, k->d, k->sf, rows, K, state) &&
           b->vt->alloc(b->self, (size_t)o->h.bytes, &o->dc) == CUTE_OK &&
           b->vt->upload(b->self, &o->dc, 0, o->h.codes, (size_t)o->h.bytes) == CUTE_OK &&
           b->vt->alloc(b->self, (size_t)o->h.nsf, &o->ds) == CUTE_OK &&
           b->vt->upload(b->self, &o->ds, 0, o->h.scales, (size_t)o->h.nsf) == CUTE_OK;
}

static void mx_drop(cute_backend *b, mx_operand *o)
{
    if (o->dc.ptr) b->vt->free(b->self, &o->dc);
    if (o->ds.ptr) b->vt->free(b->self, &o->ds);
    gemm_bs_free(&o->h);
}

/* every element of got (C: row-major unless layout's third letter says column) against float64;
 * *overflows: the elements past an f16 C's range, which C holds as the infinity of their sign
 * (the MX kinds' codes reach 448 times 2^3: an f16 C overflows where f32 and bf16 do not) */
static void mx_check(const gemm_opts *o, const mx_operand *A, const mx_operand *B, const void *c0, const void *got,
                     bool row, double tol, gemm_verdict *v, int64_t *overflows)
{
    *v = (gemm_verdict){0};
    *overflows = 0;
    for (int64_t m = 0; m < o->m; m++)
        for (int64_t n = 0; n < o->n; n++) {
            int64_t at = row ? m * o->n + n : n * o->m + m;
            double mag, c = o->beta == 0 ? 0 : ew_get(o->out, c0, at);
            double want = o->alpha * gemm_bs_dot(&A->h, &B->h, m, n, &mag) + o->beta * c, g = ew_get(o->out, got, at);
            if (o->out == CUTE_F16 && fabs(want) >= 65520.0) /* rounds to f16's infinity */
                want = copysign(INFINITY, want), ++*overflows;
            double err = g == want ? 0 : gemm_ref_error(g, want, fabs(o->alpha) * mag + fabs(o->beta * c));
            v->checked++;
            if (!(err <= tol)) v->bad++;
            if (!(err <= v->worst)) v->worst = err, v->wm = m, v->wn = n, v->got = g, v->want = want;
        }
}

/* C's fresh values (the reference reads them where beta is not 0), uploaded */
static bool mx_c(cute_backend *b, const gemm_opts *o, void *c0, cute_buffer *dev, uint64_t *state)
{
    size_t bytes = (size_t)(o->m * o->n * cute_dtype_bytes(o->out));
    gemm_ref_fill(o->out, c0, o->m * o->n, state);
    return b->vt->alloc(b->self, bytes, dev) == CUTE_OK && b->vt->upload(b->self, dev, 0, c0, bytes) == CUTE_OK;
}

static int mx_call(const gemm_opts *o, cute_runtime *rt, mx_operand *A, mx_operand *B, void *c0, void *got)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    if (lib) cute_gemm_lib_tiling(lib, &o->tiling); /* --cluster 2x1: the CTA pair */
    uint64_t state = o->seed * 2 + 1;
    bool row = o->layout[2] != 'n';
    cute_buffer dc = {0};
    char err[2048] = "";
    int rc = CLI_FAIL;
    const gemm_bs_kind *k = o->bs;
    if (!lib || !mx_make(b, k, A, o->m, o->k, &state) || !mx_make(b, k, B, o->n, o->k, &state) ||
        !mx_c(b, o, c0, &dc, &state)) {
        fprintf(stderr, "cutec run gemm: out of memory\n");
    } else {
        cute_call_arg a = cute_call_tensor(&A->dc, 0, k->d, 2, (int64_t[]){o->m, o->k}, (int64_t[]){o->k, 1});
        cute_call_arg bb = cute_call_tensor(&B->dc, 0, k->d, 2, (int64_t[]){o->n, o->k}, (int64_t[]){o->k, 1});
        cute_call_arg c = cute_call_tensor(&dc, 0, o->out, 2, (int64_t[]){o->m, o->n},
                                           row ? (int64_t[]){o->n, 1} : (int64_t[]){1, o->m});
        cute_call_arg sa = cute_call_tensor(&A->ds, 0, k->sf, 1, &A->h.nsf, (int64_t[]){1});
        cute_call_arg sb = cute_call_tensor(&B->ds, 0, k->sf, 1, &B->h.nsf, (int64_t[]){1});
        cute_status s = k->entry(lib, &a, &sa, &bb, &sb, &c, o->alpha, o->beta, NULL, err, sizeof err);
        if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
        if (s == CUTE_OK) s = b->vt->download(b->self, got, &dc, 0, (size_t)(o->m * o->n * cute_dtype_bytes(o->out)));
        if (s != CUTE_OK) fprintf(stderr, "cutec run gemm: %s\n", err[0] ? err : b->vt->error(b->self));
        rc = s == CUTE_OK ? CLI_OK : CLI_FAIL;
        if (rc == CLI_OK) printf("kernel: blackwell (%s: tcgen05.mma .kind::%s)\n", k->name, k->inst);
    }
    if (dc.ptr) b->vt->free(b->self, &dc);
    cute_gemm_lib_free(lib);
    return rc;
}

int gemm_mx_run(const gemm_opts *given)
{
    gemm_opts scaled = *given, *o = &scaled;
    /* an f16 C holds 65504 at most, the MX codes reach 448 x 2^3 a factor: unless told, alpha takes
     * 2^-12 so that C's values fit */
    if (o->out == CUTE_F16 && !o->alpha_given) o->alpha = ldexp(o->alpha, -12);
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(o->backend, &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", err);
        return CLI_FAIL;
    }
    if (!cli_interp_fits("run gemm", rt, (double)o->m * (double)o->n * (double)o->k * (double)o->l, CLI_INTERP_GEMM))
        return cute_runtime_free(rt), CLI_USAGE;
    cute_runtime_set_target_arch(rt, o->arch);
    const gemm_bs_kind *k = o->bs;
    if (!gemm_bs_arch_ok("run", k, cute_runtime_target_arch(rt))) {
        cute_runtime_free(rt);
        return CLI_USAGE;
    }
    printf("gemm %s (%s) -> %s M=%lld N=%lld K=%lld, A and B K-major, C %s-major, "
           "alpha %g, beta %g\nbackend %s, seed %llu\n", k->name, k->what, cli_gemm_dtype_name(o->out), (long long)o->m,
           (long long)o->n,
           (long long)o->k, o->layout[2] != 'n' ? "row" : "column", o->alpha, o->beta, cute_runtime_backend_name(rt),
           (unsigned long long)o->seed);
    mx_operand A = {0}, B = {0};
    size_t bytes = (size_t)(o->m * o->n * cute_dtype_bytes(o->out));
    void *c0 = malloc(bytes + 1), *got = malloc(bytes + 1);
    int rc = c0 && got ? mx_call(o, rt, &A, &B, c0, got) : CLI_FAIL;
    if (rc == CLI_OK) {
        gemm_verdict v;
        double tol = o->out == CUTE_F32 ? 1e-6 : gemm_ref_tolerance(CUTE_E4M3, o->out); /* C's rounding */
        int64_t overflows;
        mx_check(o, &A, &B, c0, got, o->layout[2] != 'n', tol, &v, &overflows);
        if (overflows) printf("%lld elements past f16's range: the reference is their infinity\n", (long long)overflows);
        gemm_verdict_print(&v, tol);
        rc = v.bad == 0 ? CLI_OK : CLI_FAIL;
    }
    cute_backend *b = cute_runtime_backend(rt);
    mx_drop(b, &A), mx_drop(b, &B);
    free(c0), free(got);
    cute_runtime_free(rt);
    return rc;
}
