/* The grouped GEMM (hopper_grouped.c, grouped_call.c) against the float64 reference
 * (gemm_ref) on fresh gaussian inputs, every C poisoned (NaN where beta is 0):
 *  - on the interpreter, every check on: groups of different sizes in one launch (odd M, an
 *    empty group, K shorter than a k-tile, partial edge tiles), more tiles than the
 *    interpreter's 2 resident blocks so that each block crosses groups and its producer
 *    retargets its maps (and reuses its ring of map slots); bf16, f16, e4m3 inputs; C row- and
 *    column-major, of bf16, f16, f32; leading dimensions wider than the extents; through
 *    cute_gemm_grouped_compile with small tiles and through cutec_gemm_grouped;
 *  - a producer that retargets its maps without the release fence: reported;
 *  - what the call refuses, named with the group: a misaligned leading dimension, mismatched
 *    shapes, another dtype than group 0's;
 *  - the Blackwell form on an sm_100 target (interpreter, and compiled for sm_100a);
 *  - on an sm_90 GPU (else skipped, visibly): an MoE shape, sampled. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;

enum { MAX_GROUPS = 16 };

typedef struct gproblem {
    int64_t M, N, K;
} gproblem;

typedef struct gcase {
    cute_dtype d, cd;
    int cmajor;            /* C: 1 row-major, 0 column-major */
    double alpha, beta;
    cute_gemm_tiling tile; /* zero: the plan's (then through cutec_gemm_grouped) */
    int n;
    gproblem g[MAX_GROUPS];
} gcase;

typedef gtk_operand operand;

/* a rows x cols operand with `pad` elements of leading dimension beyond its extent */
static bool make(cute_backend *b, operand *x, cute_dtype d, int64_t rows, int64_t cols, int major, int64_t pad,
                 bool nan)
{
    return gtk_make(b, x, d, rows, cols, major, pad, nan, &seed);
}
#define arg gtk_arg

typedef struct gdata {
    operand A[MAX_GROUPS], B[MAX_GROUPS], C[MAX_GROUPS];
    cute_gemm_group groups[MAX_GROUPS];
} gdata;

static bool make_all(cute_backend *b, const gcase *k, gdata *D)
{
    bool ok = true;
    for (int i = 0; i < k->n; i++) {
        const gproblem *g = &k->g[i];
        int64_t pad = 16 * (i % 2); /* every other group's rows are wider than its extent */
        ok = ok && make(b, &D->A[i], k->d, g->M, g->K, 1, pad * 2, false) && make(b, &D->B[i], k->d, g->N, g->K, 1, pad, false) &&
             make(b, &D->C[i], k->cd, g->M, g->N, k->cmajor, pad, k->beta == 0);
        D->groups[i] = (cute_gemm_group){arg(&D->A[i], k->d), arg(&D->B[i], k->d), arg(&D->C[i], k->cd)};
    }
    return ok;
}

static void free_all(cute_backend *b, const gcase *k, gdata *D)
{
    for (int i = 0; i < k->n; i++) {
        operand *all[3] = {&D->A[i], &D->B[i], &D->C[i]};
        for (int j = 0; j < 3; j++) b->vt->free(b->self, &all[j]->dev), free(all[j]->host);
    }
}

/* elements of group i off the reference (a sample of 2048 when many) */
static int64_t wrong(cute_backend *b, const gcase *k, gdata *D, int i, double *worst)
{
    const gproblem *g = &k->g[i];
    operand *A = &D->A[i], *B = &D->B[i], *C = &D->C[i];
    size_t bytes = (size_t)(C->ld * (C->major ? C->rows : C->cols) * cute_dtype_bytes(k->cd));
    void *got = malloc(bytes + 1);
    if (b->vt->download(b->self, got, &C->dev, 0, bytes) != CUTE_OK) return free(got), -1;
    gemm_ref_problem p = {{A->host, A->ld, A->major}, {B->host, B->ld, B->major}, {C->host, C->ld, C->major}, k->d, k->cd,
                          {0, 0, 0}, g->M, g->N, g->K, 1, k->alpha, k->beta};
    int64_t bad = gtk_wrong(&p, got, 1 << 14, 2048, &seed, worst);
    free(got);
    return bad;
}

/* the kernel compiled with k's tile (broken as asked), called on the rows and a workspace */
static cute_status call_compiled(cute_runtime *rt, const gcase *k, gdata *D, unsigned broken, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = k->d, .c_dtype = k->cd, .major = {1, 1, k->cmajor},
                            .align_bytes = 16, .tiling = k->tile};
    const cute_fn *f = gemm_grouped_compile_broken(rt, &cfg, broken, why, n);
    if (!f) return CUTE_ERR_COMPILE;
    int64_t rows[MAX_GROUPS * CUTE_GEMM_GROUP_WORDS];
    cute_status s = CUTE_OK;
    for (int i = 0; i < k->n && s == CUTE_OK; i++)
        s = cute_gemm_group_row(&cfg, &D->groups[i], rows + i * CUTE_GEMM_GROUP_WORDS, why, n);
    size_t wbytes = cute_gemm_grouped_workspace(rt), rbytes = sizeof(int64_t) * CUTE_GEMM_GROUP_WORDS * (size_t)k->n;
    cute_buffer rb = {0}, wb = {0};
    if (s == CUTE_OK && (s = b->vt->alloc(b->self, rbytes, &rb)) == CUTE_OK)
        s = b->vt->upload(b->self, &rb, 0, rows, rbytes);
    if (s == CUTE_OK) s = b->vt->alloc(b->self, wbytes, &wb);
    int64_t rs[2] = {CUTE_GEMM_GROUP_WORDS, k->n}, rst[2] = {1, CUTE_GEMM_GROUP_WORDS}, ws[1] = {(int64_t)wbytes}, wst[1] = {1};
    cute_call_arg args[8] = {D->groups[0].A, D->groups[0].B, D->groups[0].C, cute_call_tensor(&rb, 0, CUTE_I64, 2, rs, rst),
                             cute_call_tensor(&wb, 0, CUTE_U8, 1, ws, wst), cute_call_float(k->alpha),
                             cute_call_float(k->beta), cute_call_int(k->n)};
    if (s == CUTE_OK) s = cute_call(f, NULL, 8, args, why, n);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, n, "%s", b->vt->error(b->self));
    if (rb.ptr) b->vt->free(b->self, &rb);
    if (wb.ptr) b->vt->free(b->self, &wb);
    cute_fn_free(f);
    return s;
}

/* one run: the status, and the elements off the reference over all groups in *bad */
static cute_status run(cute_runtime *rt, const gcase *k, unsigned broken, int64_t *bad, char *why, size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    gdata *D = calloc(1, sizeof *D);
    *bad = -1, why[0] = 0;
    cute_status s = D && make_all(b, k, D) ? CUTE_OK : CUTE_ERR_OOM;
    if (s == CUTE_OK && k->tile.bm) s = call_compiled(rt, k, D, broken, why, n);
    else if (s == CUTE_OK) {
        cute_gemm_lib *lib = cute_gemm_lib_new(rt);
        s = cutec_gemm_grouped(lib, D->groups, k->n, k->alpha, k->beta, NULL, why, n);
        cute_gemm_lib_free(lib);
    }
    double worst = 0;
    for (int i = 0; s == CUTE_OK && i < k->n; i++) *bad = (*bad < 0 ? 0 : *bad) + wrong(b, k, D, i, &worst);
    if (s == CUTE_OK && *bad) snprintf(why, n, "%lld wrong, worst relative error %g", (long long)*bad, worst);
    if (D) free_all(b, k, D);
    free(D);
    return s;
}

static void correct(cute_runtime *rt, const gcase *k, const char *where)
{
    char why[4096];
    int64_t bad;
    cute_status s = run(rt, k, 0, &bad, why, sizeof why);
    CHECK(s == CUTE_OK && bad == 0, "%s grouped %s->%s, %d groups, C %s-major, tile %dx%d: %s %s", where,
          cute_dtype_name(k->d), cute_dtype_name(k->cd), k->n, k->cmajor ? "row" : "column", k->tile.bm, k->tile.bn,
          cute_status_name(s), why);
}

/* the producer's maps retargeted without the release fence: the interpreter's report */
static void unfenced(cute_runtime *rt, int bm)
{
    gcase k = {CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {.bm = bm, .bn = 64, .stages = 2}, 2, {{64, 64, 64}, {72, 64, 64}}};
    char why[4096];
    int64_t bad;
    cute_status s = run(rt, &k, GEMM_BREAK_MAP_FENCE, &bad, why, sizeof why);
    printf("a map retargeted without its release fence: %.600s\n", why);
    CHECK(s != CUTE_OK && strstr(why, "without the writer's fence.proxy.tensormap::generic.release") &&
              strstr(why, "hopper.c"),
          "the unfenced map is reported at the TMA load: %s %s", cute_status_name(s), why);
}

/* what the call refuses, naming the group and the operand */
static void refused(cute_runtime *rt)
{
    cute_backend *b = cute_runtime_backend(rt);
    gcase k = {CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 2, {{64, 64, 64}, {72, 64, 64}}};
    gdata *D = calloc(1, sizeof *D);
    CHECK(D && make_all(b, &k, D), "operands made");
    if (!D) return;
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    char why[1024];
    D->groups[1].A.stride[0] = 68; /* 136 bytes: not whole 16 bytes */
    cute_status s = cutec_gemm_grouped(lib, D->groups, 2, 1.0, 0.0, NULL, why, sizeof why);
    CHECK(s == CUTE_ERR_INVALID && strstr(why, "group 1: A") && strstr(why, "16-byte"), "misaligned: %s", why);
    D->groups[1].A.stride[0] = D->A[1].ld, D->groups[1].B.shape[1] = 56;
    s = cutec_gemm_grouped(lib, D->groups, 2, 1.0, 0.0, NULL, why, sizeof why);
    CHECK(s == CUTE_ERR_INVALID && strstr(why, "group 1") && strstr(why, "one product"), "shapes: %s", why);
    D->groups[1].B.shape[1] = 64, D->groups[1].C.dtype = CUTE_F32;
    s = cutec_gemm_grouped(lib, D->groups, 2, 1.0, 0.0, NULL, why, sizeof why);
    CHECK(s == CUTE_ERR_INVALID && strstr(why, "group 1: C is f32"), "dtype: %s", why);
    s = cutec_gemm_grouped(lib, D->groups, 0, 1.0, 0.0, NULL, why, sizeof why);
    CHECK(s == CUTE_ERR_INVALID && strstr(why, "0 groups"), "no groups: %s", why);
    cute_gemm_lib_free(lib);
    free_all(b, &k, D);
    free(D);
}

/* the kernel NVRTC compiles for sm_90a (no GPU needed): registers, no spills, and the rows
 * of the map updates in its PTX */
static void compiles(cute_runtime *rt, cute_dtype d)
{
    cute_nvrtc *nv;
    char err[2048], *code = NULL;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the grouped kernel was not compiled for sm_90a");
        return;
    }
    cute_nvrtc_close(nv);
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = d, .c_dtype = CUTE_BF16, .major = {1, 1, 1},
                            .align_bytes = 16};
    const cute_fn *f = cute_gemm_grouped_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "grouped %s for sm_90a: %s", cute_dtype_name(d), err);
    if (f && cute_fn_code(f, "usage", "sm_90a", &code, err, sizeof err) == CUTE_OK) {
        const char *used = strstr(code, "Used ");
        printf("  grouped %s sm_90a: %.60s\n", cute_dtype_name(d), used ? used : code);
        CHECK(strstr(code, "Used ") && strstr(code, " 0 bytes spill stores"), "grouped %s spills:\n%s",
              cute_dtype_name(d), code);
    } else {
        CHECK(false, "grouped %s: no ptxas report: %s", cute_dtype_name(d), err);
    }
    free(code), code = NULL;
    if (f && cute_fn_code(f, "ptx", "sm_90a", &code, err, sizeof err) == CUTE_OK)
        CHECK(strstr(code, "tensormap.replace.tile.global_address") && strstr(code, "fence.proxy.tensormap::generic.acquire"),
              "grouped %s: the PTX updates no map", cute_dtype_name(d));
    free(code);
    cute_fn_free(f);
    cute_runtime_set_target_arch(rt, NULL);
}

/* the Blackwell form on an sm_100 target (the same walk and TMA producer, the tcgen05 MMA and
 * T2R epilogue warps): k's 16-bit cases with 128-row tiles, the unfenced map, fp8 refused,
 * and the kernel compiled for sm_100a (ptxas: no spills) */
static void blackwell(cute_runtime *rt, const gcase *k, size_t n)
{
    cute_runtime_set_target_arch(rt, "sm_100a");
    for (size_t i = 0; i < n; i++) {
        if (k[i].d == CUTE_E4M3) continue;
        gcase b = k[i];
        if (b.tile.bm) b.tile.bm = 128;
        correct(rt, &b, "interp sm_100a");
    }
    unfenced(rt, 128);
    char err[2048], *code = NULL;
    cute_gemm_config cfg = {.dtype = CUTE_E4M3, .c_dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16};
    const cute_fn *f = cute_gemm_grouped_compile(rt, &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "on sm_100 it takes f16 and bf16"), "fp8 grouped on sm_100: %s", err);
    cfg.dtype = CUTE_BF16;
    f = cute_gemm_grouped_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "grouped bf16 for sm_100a: %s", err);
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the Blackwell grouped kernel was not compiled for sm_100a");
    } else {
        cute_nvrtc_close(nv);
        bool ok = f && cute_fn_code(f, "ptx", "sm_100a", &code, err, sizeof err) == CUTE_OK;
        CHECK(ok && strstr(code, "tensormap.replace.tile.global_address") && strstr(code, "tcgen05.mma"),
              "grouped sm_100a PTX: %s", ok ? "no map update or tcgen05.mma" : err);
        free(code), code = NULL;
        ok = f && cute_fn_code(f, "usage", "sm_100a", &code, err, sizeof err) == CUTE_OK;
        CHECK(ok && strstr(code, " 0 bytes spill stores"), "grouped sm_100a spills: %s", ok ? code : err);
        free(code);
    }
    cute_fn_free(f);
    cute_runtime_set_target_arch(rt, NULL);
}

static void interp(void)
{
    cute_runtime *rt = gtk_interp();
    if (!rt) return;
    static const gcase k[] = {
        /* 2 + 0 + 3 + 1 + 2 tiles of 64 x 64 on 2 blocks: each crosses groups; an empty group;
         * K of 8 (under one k-tile) */
        {CUTE_BF16, CUTE_BF16, 1, 1.5, 0.0, {.bm = 64, .bn = 64, .stages = 2}, 5,
         {{72, 64, 200}, {0, 64, 64}, {5, 136, 64}, {64, 8, 8}, {130, 48, 136}}},
        /* 9 groups on 2 blocks: the ring of 9 map slots wraps */
        {CUTE_F16, CUTE_F32, 1, 1.0, -0.5, {.bm = 64, .bn = 64, .stages = 2}, 11,
         {{9, 64, 72}, {17, 64, 64}, {33, 16, 128}, {64, 64, 64}, {3, 40, 64}, {70, 64, 8}, {1, 64, 64}, {64, 24, 72},
          {65, 64, 64}, {7, 8, 16}, {40, 64, 200}}},
        /* fp8: k-tiles of 128; C column-major (M in whole 16 bytes) */
        {CUTE_E4M3, CUTE_BF16, 0, 0.5, 0.0, {.bm = 64, .bn = 64, .stages = 2}, 3, {{72, 64, 144}, {32, 128, 256}, {8, 64, 32}}},
        /* the library's call, its default 128 x 256 tile */
        {CUTE_BF16, CUTE_F32, 1, 1.0, 0.5, {0}, 2, {{136, 200, 72}, {7, 256, 64}}},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) correct(rt, &k[i], "interp");
    unfenced(rt, 64);
    refused(rt);
    compiles(rt, CUTE_BF16);
    compiles(rt, CUTE_E4M3);
    blackwell(rt, k, sizeof k / sizeof k[0]);
    cute_runtime_free(rt);
}

/* on an sm_90 GPU: an MoE shape (experts of varied tokens, N = K = 1024), sampled */
static void gpu(void)
{
    cute_runtime *rt = gtk_sm90();
    if (!rt) {
        SKIP("no sm_90 GPU: the grouped GEMM ran on the interpreter only");
        return;
    }
    gcase k = {CUTE_BF16, CUTE_BF16, 1, 1.0, 0.0, {0}, 8, {{0}}};
    static const int64_t tokens[8] = {1000, 17, 513, 0, 256, 2049, 1, 777};
    for (int i = 0; i < 8; i++) k.g[i] = (gproblem){tokens[i], 1024, 1024};
    correct(rt, &k, "cuda");
    k.d = CUTE_E4M3;
    correct(rt, &k, "cuda");
    cute_runtime_free(rt);
}

int main(void)
{
    seed = check_seed("grouped_test");
    interp();
    gpu();
    return CHECK_DONE("grouped_test");
}
