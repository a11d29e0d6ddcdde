/* Stream-K in the SM80 GEMM (CUTE_GEMM_SCHEDULE_STREAMK on tensorop / tensorop_smem;
 * multistage.c's streamk_kernel, streamk.c's gemm_streamk_make_all) against the float64
 * reference, fresh inputs, C poisoned (NaN) where beta is 0:
 *  - on the interpreter (sm_80 target; 4 blocks: 2 resident, two an SM), through the library
 *    (its workspace), at odd sizes with M, N and K tails: s8 -> s32 exactly (the partials
 *    kept in s32), alpha and beta, every layout of A and B, bf16 / f16 / tf32, step 4
 *    (tensorop) and step 5 (tensorop_smem); tiles that divide by the blocks (every tile
 *    whole) and fewer tiles than blocks;
 *  - that the runs met in the fixup (with no partials added C goes wrong), the flags back at
 *    0 after a call, and a finisher that does not wait caught (it leaves them raised);
 *  - what it refuses, named: a batch, a fused epilogue;
 *  - on a GPU (else skipped, visibly): s8 at 4096^3 (3.88 waves of 128 x 128 tiles) sampled,
 *    and odd sizes. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"
#include "kernels/gemm/gemm_testkit.h"

static uint64_t seed;
enum { SK = CUTE_GEMM_SCHEDULE_STREAMK };

typedef struct skcase {
    int64_t M, N, K;
    cute_dtype in, out;
    int major_a, major_b; /* 1: K-major */
    double alpha, beta;
    cute_gemm_variant v;
    cute_gemm_tiling tile;
    const char *what;
} skcase;

typedef struct operands {
    gtk_operand A, B, C;
} operands;

static bool make_all(cute_backend *b, const skcase *k, operands *o)
{
    return gtk_make(b, &o->A, k->in, k->M, k->K, k->major_a, 0, false, &seed) &&
           gtk_make(b, &o->B, k->in, k->N, k->K, k->major_b, 0, false, &seed) &&
           gtk_make(b, &o->C, k->out, k->M, k->N, 1, 0, k->beta == 0, &seed);
}

static void free_all(cute_backend *b, operands *o)
{
    gtk_operand *all[3] = {&o->A, &o->B, &o->C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
}

/* C's elements off the reference: all of them when few, else a sample */
static int64_t check_c(cute_backend *b, const skcase *k, const operands *o, char *why, size_t n)
{
    size_t bytes = (size_t)(k->M * k->N * cute_dtype_bytes(k->out));
    void *got = malloc(bytes);
    double worst = 0;
    int64_t bad = -1;
    gemm_ref_problem p = {{o->A.host, o->A.ld, k->major_a}, {o->B.host, o->B.ld, k->major_b}, {o->C.host, o->C.ld, 1},
                          k->in, k->out, {0, 0, 0}, k->M, k->N, k->K, 1, k->alpha, k->beta};
    if (b->vt->download(b->self, got, &o->C.dev, 0, bytes) == CUTE_OK) bad = gtk_wrong(&p, got, 1 << 16, 4096, &seed, &worst);
    if (bad > 0) snprintf(why, n, "%lld wrong, worst relative error %g", (long long)bad, worst);
    free(got);
    return bad;
}

static cute_call_arg arg_c(const skcase *k, const operands *o) { return gtk_arg(&o->C, k->out); }

/* the case through the library (its stream-K workspace), checked */
static void through_lib(cute_runtime *rt, const skcase *k)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    operands o;
    char why[4096] = "";
    bool ok = lib && make_all(b, k, &o) && cute_gemm_lib_tiling(lib, &k->tile);
    cute_call_arg A = gtk_arg(&o.A, k->in), B = gtk_arg(&o.B, k->in), C = arg_c(k, &o);
    cute_status s = ok ? cutec_gemm(lib, k->v, &A, &B, &C, k->alpha, k->beta, NULL, why, sizeof why) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    int64_t bad = s == CUTE_OK ? check_c(b, k, &o, why, sizeof why) : -1;
    CHECK(s == CUTE_OK && bad == 0, "SM80 stream-K %s: %s %lldx%lldx%lld -> %s, tile %dx%dx%d: %s %s", k->what,
          cute_dtype_name(k->in), (long long)k->M, (long long)k->N, (long long)k->K, cute_dtype_name(k->out),
          k->tile.bm, k->tile.bn, k->tile.bk, cute_status_name(s), why);
    free_all(b, &o);
    cute_gemm_lib_free(lib);
}

/* One direct call of the kernel broken as asked, with a workspace of its own: its status,
 * *bad C's elements off the reference, *raised the flags left up after it */
static cute_status run_broken(cute_runtime *rt, const skcase *k, unsigned how, int64_t *bad, int *raised, char *why,
                              size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_config cfg = {.variant = k->v, .dtype = k->in, .c_dtype = k->out, .major = {k->major_a, k->major_b, 1},
                            .align_bytes = 4, .tiling = k->tile}; /* (K = 300 bytes a row of s8) */
    *bad = -1, *raised = -1, why[0] = 0;
    const cute_fn *f = gemm_compile_broken(rt, &cfg, how, why, n);
    if (!f) return CUTE_ERR_COMPILE;
    int blocks = 2 * gemm_resident_blocks(rt, 1, 128);
    cute_dtype wd = gemm_streamk_acc_dtype(k->in);
    size_t flags_at, bytes = gemm_streamk_workspace_of((int64_t)k->tile.bm * k->tile.bn, cute_dtype_bytes(wd), blocks,
                                                       &flags_at);
    int64_t row = GEMM_STREAMK_SM80_ROW, rows = (int64_t)(flags_at / (size_t)cute_dtype_bytes(wd)) / row;
    operands o;
    gtk_streamk_ws ws = {0};
    bool ok = make_all(b, k, &o) && gtk_streamk_ws_make(b, &ws, bytes, flags_at, blocks);
    cute_call_arg args[8] = {gtk_arg(&o.A, k->in), gtk_arg(&o.B, k->in), arg_c(k, &o), cute_call_float(k->alpha),
                             cute_call_float(k->beta), /* the vector, unused: A's first element (as lib.c) */
                             cute_call_tensor(&o.A.dev, 0, k->out, 1, (int64_t[]){1}, (int64_t[]){1}),
                             cute_call_tensor(&ws.dev, 0, wd, 2, (int64_t[]){row, rows}, (int64_t[]){1, row}),
                             gtk_streamk_flags_arg(&ws)};
    cute_status s = ok ? cute_call(f, NULL, 8, args, why, n) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s == CUTE_OK) *bad = check_c(b, k, &o, why, n), *raised = gtk_streamk_raised(b, &ws);
    free_all(b, &o);
    gtk_streamk_ws_free(b, &ws);
    cute_fn_free(f);
    return s;
}

#define S8_TILE {.bm = 64, .bn = 64, .bk = 64, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = SK}
#define BF_TILE {.bm = 64, .bn = 64, .bk = 32, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = SK}

/* 5 x 3 tiles of 64 x 64, 5 k-tiles each, on 4 blocks: runs of 18.75 k-tiles, so tiles
 * 3, 7 and 11 are split between two blocks */
static const skcase split = {257, 129, 300, CUTE_I8, CUTE_I32, 1, 1, 2, -1, CUTE_GEMM_TENSOROP_SMEM, S8_TILE, "split"};

static void broken_all(cute_runtime *rt)
{
    char why[4096];
    int64_t bad;
    int raised;
    cute_status s = run_broken(rt, &split, 0, &bad, &raised, why, sizeof why);
    CHECK(s == CUTE_OK && bad == 0 && raised == 0, "SM80 stream-K: the sound kernel: %d flags raised, %lld wrong: %s %s",
          raised, (long long)bad, cute_status_name(s), why);
    s = run_broken(rt, &split, GEMM_BREAK_FIXUP_WAIT, &bad, &raised, why, sizeof why);
    CHECK(s == CUTE_OK && raised > 0, "SM80 stream-K: a finisher that does not wait leaves the flags down (%d raised): %s",
          raised, why);
    s = run_broken(rt, &split, GEMM_BREAK_FIXUP_ADD, &bad, &raised, why, sizeof why);
    printf("SM80 stream-K, a finisher adding no partials: %s, %s\n", cute_status_name(s), why);
    CHECK(s == CUTE_OK && bad > 0, "SM80 stream-K: a finisher that adds no partials went unseen (%lld wrong)",
          (long long)bad);
}

static void refused(cute_runtime *rt)
{
    cute_gemm_config base = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_I8, .c_dtype = CUTE_I32,
                             .major = {1, 1, 1}, .align_bytes = 16, .tiling = S8_TILE};
    cute_gemm_config batched = base, fused = base;
    batched.batched = true;
    fused.dtype = CUTE_BF16, fused.c_dtype = CUTE_BF16, fused.tiling = (cute_gemm_tiling)BF_TILE;
    fused.epilogue.act = CUTE_GEMM_ACT_RELU;
    const cute_gemm_config *r[] = {&batched, &fused};
    const char *want[] = {"stream-K schedule runs unbatched", "fused epilogue"};
    for (int i = 0; i < 2; i++) {
        char why[1024] = "";
        const cute_fn *f = cute_gemm_compile(rt, r[i], why, sizeof why);
        CHECK(!f && strstr(why, want[i]), "SM80 stream-K refusal: wanted \"%s\", got \"%s\"", want[i], why);
        cute_fn_free(f);
    }
}

static void interp(void)
{
    cute_runtime *rt = gtk_interp();
    if (!rt) return;
    cute_runtime_set_target_arch(rt, "sm_80");
    static const skcase k[] = {
        split,
        {130, 260, 129, CUTE_I8, CUTE_I32, 0, 0, 1, 1, CUTE_GEMM_TENSOROP_SMEM, S8_TILE, "nn, beta 1"},
        {200, 70, 520, CUTE_I8, CUTE_I32, 1, 0, -3, 0, CUTE_GEMM_TENSOROP, S8_TILE, "tensorop, tn"},
        {300, 270, 200, CUTE_BF16, CUTE_F32, 1, 1, 1.5, -0.5, CUTE_GEMM_TENSOROP_SMEM, BF_TILE, "bf16 -> f32"},
        {190, 150, 333, CUTE_F16, CUTE_F16, 0, 1, 1, 0.5, CUTE_GEMM_TENSOROP_SMEM, BF_TILE, "f16"},
        {150, 190, 100, CUTE_TF32, CUTE_F32, 1, 1, 1, 0, CUTE_GEMM_TENSOROP_SMEM,
         {.bm = 64, .bn = 64, .bk = 16, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = SK}, "tf32"},
        /* 4 tiles on 4 blocks (none left over: every tile whole), and 2 tiles (fewer) */
        {128, 128, 300, CUTE_I8, CUTE_I32, 1, 1, 1, 0, CUTE_GEMM_TENSOROP_SMEM, S8_TILE, "tiles = blocks"},
        {100, 64, 300, CUTE_I8, CUTE_I32, 1, 1, 1, 0, CUTE_GEMM_TENSOROP_SMEM, S8_TILE, "fewer tiles than blocks"},
        /* the library's s8 tiling at 4096^3 (3 x 3 tiles, 4 k-tiles with a tail) */
        {300, 260, 400, CUTE_I8, CUTE_I32, 1, 1, 3, -2, CUTE_GEMM_TENSOROP_SMEM,
         {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = SK}, "128x128x128"},
        /* (one byte of A and of B: the stand-in vector is not A's first element) */
        {1, 1, 1, CUTE_I8, CUTE_I32, 1, 0, 2, -1, CUTE_GEMM_TENSOROP_SMEM, S8_TILE, "1 x 1 x 1"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) through_lib(rt, &k[i]);
    broken_all(rt);
    refused(rt);
    cute_runtime_free(rt);
}

static void gpu(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: SM80 stream-K ran on the interpreter only");
        return;
    }
    static const skcase k[] = {
        {4096, 4096, 4096, CUTE_I8, CUTE_I32, 1, 1, 1, 0, CUTE_GEMM_TENSOROP_SMEM,
         {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = SK}, "3.88 waves"},
        {2049, 1030, 777, CUTE_I8, CUTE_I32, 1, 0, 3, -2, CUTE_GEMM_TENSOROP_SMEM,
         {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2, .schedule = SK}, "odd sizes"},
        {1021, 1000, 2000, CUTE_BF16, CUTE_BF16, 1, 1, 1.5, -0.5, CUTE_GEMM_TENSOROP_SMEM, {.schedule = SK}, "bf16"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) through_lib(rt, &k[i]);
    cute_runtime_free(rt);
}

int main(void)
{
    return gtk_main("streamk_sm80_test", &seed, interp, gpu);
}
