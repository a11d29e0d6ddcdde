/* The cards of docs/cards.md: for each architecture a user may bring (a T4's sm_75 to an RTX
 * 50's sm_120), what the library's AUTO compiles, traced on the interpreter for that target
 * (cute_runtime_set_target_arch, as `--arch` does): the kernel it takes, and that kernel's
 * shared memory within what a block of that architecture may have
 * (cute_cuda_arch_smem_per_block), fp8's mma.sync native where the card has it; or the
 * refusal, whose message names what the target lacks.  Trace only: nothing runs (the cards' own
 * runs are the GPU suite's). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/attention.h"
#include "cutec/cuda_driver.h"
#include "cutec/hstu.h"
#include "cutec/ir.h"
#include "cutec/kernels.h"
#include "cutec/row_kernels.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/rows/rows_lib.h"

typedef struct card {
    const char *name, *arch;
    int sm;
} card;

static const card cards[] = {
    {"T4", "sm_75", 75},          {"A100", "sm_80", 80},  {"A10", "sm_86", 86},
    {"L4", "sm_89", 89},          {"H200", "sm_90a", 90}, {"B200", "sm_100a", 100},
    {"RTX 5090", "sm_120a", 120},
};
enum { NCARDS = sizeof cards / sizeof cards[0] };

/* the largest dynamic shared memory of f's kernels */
static int64_t smem_of(const cute_fn *f)
{
    int64_t most = 0;
    for (int i = 0; i < cute_fn_kernel_count(f); i++)
        if (cute_fn_kernel(f, i)->smem_bytes > most) most = cute_fn_kernel(f, i)->smem_bytes;
    return most;
}

/* f (NULL: refused, why) on card c is what was wanted: a kernel whose name holds `want` (a
 * variant's or kernel's name) where `kernel`, else a refusal whose words hold it; a kernel
 * fits c's shared memory */
static void expect(const card *c, const char *what, const cute_fn *f, const char *got,
                   const char *why, const char *want, bool kernel)
{
    int64_t room = cute_cuda_arch_smem_per_block(c->sm);
    CHECK(kernel ? f && strstr(got, want) : !f && strstr(why, want), "%s (%s), %s: want the %s \"%s\", got %s: %s",
          c->name, c->arch, what, kernel ? "kernel" : "refusal", want, f ? "kernel" : "refusal", f ? got : why);
    if (f)
        CHECK(smem_of(f) <= room,
              "%s (%s), %s: %s takes %lld bytes of shared memory a block; the card has %lld",
              c->name, c->arch, what, got, (long long)smem_of(f), (long long)room);
}

/* AUTO's GEMM for dtype d as the library compiles it for a large call (4096^3): the first of
 * the target's variants that compiles, with its tiling on that target */
static void gemm_case(cute_runtime *rt, const card *c, cute_dtype d, const char *want)
{
    cute_gemm_config cfg = {.dtype = d,
                            .c_dtype = d == CUTE_E4M3 ? CUTE_F32 : CUTE_VOID,
                            .major = {1, 1, 0},
                            .align_bytes = 16};
    cute_gemm_variant order[CUTE_GEMM_VARIANT_COUNT];
    int count = cute_gemm_auto_variants_for(d, c->sm, order);
    const cute_fn *f = NULL;
    char why[2048] = "", one[1024];
    size_t len = 0;
    for (int i = 0; i < count && !f; i++) {
        cfg.variant = order[i];
        cfg.tiling = cute_gemm_library_tiling(order[i], &cfg, (const int64_t[]){4096, 4096, 4096}, 1, c->sm);
        f = cute_gemm_compile(rt, &cfg, one, sizeof one);
        if (!f && len < sizeof why)
            len += (size_t)snprintf(why + len, sizeof why - len, "%s; ", one);
    }
    char what[64];
    snprintf(what, sizeof what, "gemm %s", cute_dtype_name(d));
    /* the table's refusals start "no " */
    expect(c, what, f, f ? cute_gemm_variant_name(cfg.variant) : "", why, want, strncmp(want, "no ", 3) != 0);
    if (f && d == CUTE_E4M3) {
        /* fp8's mma.sync: native from sm_89 on, but as f16 steps on sm_90 (plan_multistage.c) */
        char *src = NULL;
        const char *inst = c->sm == 90 ? "row.col.f32.f16.f16.f32" : "row.col.f32.e4m3.e4m3.f32";
        CHECK(cute_fn_code(f, "cuda", c->arch, &src, one, sizeof one) == CUTE_OK && strstr(src, inst),
              "%s (%s): e4m3's mma.sync is not %s (%s)", c->name, c->arch, inst, src ? "" : one);
        free(src);
    }
    cute_fn_free(f);
}

/* AUTO's attention, bf16 at head dim 128: the forward's kernel (attn_variant: the backward
 * takes the forward's rule); with traced, the forward, backward (causal), decode and HSTU
 * (causal) each traced on the target, or refused in words naming what it lacks: on the T4
 * and on the RTX 50, whose 99 KB a block is the least the SM80 kernels meet (CI's time; the
 * Hopper and Blackwell kernels are planned for their 227 KB) */
static void attention_case(cute_runtime *rt, const card *c, cute_attention_variant v, bool traced)
{
    static const char *const names[] = {"auto", "sm80", "hopper", "blackwell"};
    cute_attention_config cfg = {.dtype = CUTE_BF16, .head_dim = 128};
    cute_attention_config causal = {.dtype = CUTE_BF16, .head_dim = 128, .causal = true};
    cute_hstu_config hstu = {.dtype = CUTE_BF16, .head_dim = 128, .causal = true};
    cute_attention_variant got = attn_variant(rt, &cfg);
    CHECK(got == v, "%s (%s): attention's AUTO takes %s, want %s", c->name, c->arch, names[got],
          names[v]);
    const char *what[4] = {"attention forward", "attention backward", "attention decode", "hstu"};
    for (int i = 0; traced && i < 4; i++) {
        char why[1024] = "";
        const cute_fn *f = i == 0   ? cute_attention_compile(rt, &cfg, why, sizeof why)
                           : i == 1 ? cute_attention_bwd_compile(rt, &causal, why, sizeof why)
                           : i == 2 ? cute_attention_decode_compile(rt, &cfg, why, sizeof why)
                                    : cute_hstu_compile(rt, &hstu, why, sizeof why);
        expect(c, what[i], f, f ? cute_fn_kernel(f, 0)->name : "", why, c->sm < 80 ? "needs sm_80" : "",
               c->sm >= 80);
        cute_fn_free(f);
    }
}

/* RMSNorm's backward with dweight over rows of n bf16 (a row too long for one block's
 * registers: staged in shared memory, split over a cluster where the target has them),
 * traced without a run (rows_lib_dry_run) */
static void rows_case(cute_runtime *rt, const card *c, int64_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer buf;
    int64_t rows = 2, bytes = rows * n * 2;
    if (b->vt->alloc(b->self, (size_t)(3 * bytes + 4 * n + 64), &buf) != CUTE_OK) {
        CHECK(false, "alloc");
        return;
    }
    cute_call_arg dy =
        cute_call_tensor(&buf, 0, CUTE_BF16, 2, (int64_t[]){rows, n}, (int64_t[]){n, 1});
    cute_call_arg x = cute_call_tensor(&buf, (size_t)bytes, CUTE_BF16, 2, (int64_t[]){rows, n},
                                       (int64_t[]){n, 1});
    cute_call_arg dx = cute_call_tensor(&buf, (size_t)(2 * bytes), CUTE_BF16, 2,
                                        (int64_t[]){rows, n}, (int64_t[]){n, 1});
    cute_call_arg w =
        cute_call_tensor(&buf, (size_t)(3 * bytes), CUTE_BF16, 1, (int64_t[]){n}, (int64_t[]){1});
    cute_call_arg dw = cute_call_tensor(&buf, (size_t)(3 * bytes + 2 * n), CUTE_BF16, 1,
                                        (int64_t[]){n}, (int64_t[]){1});
    cute_call_arg rstd = cute_call_tensor(&buf, (size_t)(3 * bytes + 4 * n), CUTE_F32, 1,
                                          (int64_t[]){rows}, (int64_t[]){1});
    cutec_rows *lib = cutec_rows_new(rt);
    rows_lib_dry_run(lib, true);
    char why[1024] = "", what[64];
    cutec_norm_grad_args a = {
        .dy = &dy, .x = &x, .weight = &w, .rstd = &rstd, .dx = &dx, .dweight = &dw};
    cute_status s = cutec_rmsnorm_backward(lib, &a, NULL, why, sizeof why);
    const cute_fn *f = s == CUTE_OK ? rows_lib_last(lib) : NULL;
    snprintf(what, sizeof what, "rmsnorm backward, rows of %lld", (long long)n);
    expect(c, what, f, "rows", why, "rows", true);
    cutec_rows_free(lib);
    b->vt->free(b->self, &buf);
}

/* the table of docs/cards.md, a row a card: each entry's kernel, or a word of its refusal */
static const struct {
    const char *bf16, *e4m3, *f32;
    cute_attention_variant attention;
    bool traced; /* attention_case's */
} want[NCARDS] = {
    {"no tensor-core tiling for bf16 on sm_75", "no tensor-core tiling", "pipelined",
     CUTE_ATTENTION_SM80, true},
    {"tensorop_smem", "no tensor-core tiling for f8E4M3FN on sm_80", "pipelined",
     CUTE_ATTENTION_SM80, false},
    {"tensorop_smem", "no tensor-core tiling", "pipelined", CUTE_ATTENTION_SM80, false},
    {"tensorop_smem", "tensorop_smem", "pipelined", CUTE_ATTENTION_SM80, false},
    {"hopper", "tensorop_smem", "pipelined", CUTE_ATTENTION_HOPPER, false},
    {"blackwell", "tensorop_smem", "pipelined", CUTE_ATTENTION_BLACKWELL, false},
    {"tensorop_smem", "tensorop_smem", "pipelined", CUTE_ATTENTION_SM80, true},
};

/* A kernel planned past a card's shared memory is refused when it compiles for that card,
 * in words, not at its launch there: the SM80 GEMM's 256x128 tile (144 KB) for an sm_86 */
static void too_big(cute_runtime *rt)
{
    cute_runtime_set_target_arch(rt, "sm_86");
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM,
                            .dtype = CUTE_BF16,
                            .major = {1, 1, 0},
                            .align_bytes = 16,
                            .tiling = {.bm = 256, .bn = 128}};
    char why[1024] = "";
    const cute_fn *f = cute_gemm_compile(rt, &cfg, why, sizeof why);
    CHECK(!f && strstr(why, "147456 bytes of shared memory a block") &&
              strstr(why, "sm_86 allows 101376"),
          "a 144 KB kernel for sm_86: %s", f ? "compiled" : why);
    cute_runtime_set_target_arch(rt, "sm_80"); /* 163 KB: it fits */
    cute_fn_free(f);
    f = cute_gemm_compile(rt, &cfg, why, sizeof why);
    CHECK(f != NULL, "the same for sm_80: %s", why);
    /* the bytes the library's tiling weighs against a card's (gemm_tensorop_default_smem) are
     * this default's own, as planned */
    CHECK(f && smem_of(f) == gemm_tensorop_default_smem(CUTE_BF16, 80) &&
              gemm_tensorop_default_smem(CUTE_BF16, 86) == 147456,
          "the SM80 default's shared memory: planned %lld, gemm_tensorop_default_smem %lld",
          f ? (long long)smem_of(f) : -1LL, (long long)gemm_tensorop_default_smem(CUTE_BF16, 80));
    cute_fn_free(f);
}

/* The driver's shared-memory table against the CUDA programming guide's (KB a block / an SM):
 * every architecture NVRTC 13 compiles for, and sm_101 (CUDA 12's name for sm_110) */
static void smem_table(void)
{
    static const struct {
        int sm, block_kb, sm_kb;
    } t[] = {{75, 64, 64},    {80, 163, 164},  {86, 99, 100},   {87, 163, 164},  {89, 99, 100},
             {90, 227, 228},  {100, 227, 228}, {101, 227, 228}, {103, 227, 228}, {110, 227, 228},
             {120, 99, 100},  {121, 99, 100},  {70, 96, 96},    {60, 0, 0},      {130, 0, 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        CHECK(cute_cuda_arch_smem_per_block(t[i].sm) == t[i].block_kb * 1024 &&
                  cute_cuda_arch_smem_per_sm(t[i].sm) == t[i].sm_kb * 1024,
              "sm_%d: %d / %d bytes a block / an SM, want %d / %d KB", t[i].sm, cute_cuda_arch_smem_per_block(t[i].sm),
              cute_cuda_arch_smem_per_sm(t[i].sm), t[i].block_kb, t[i].sm_kb);
}

int main(void)
{
    smem_table();
    char err[256];
    for (int i = 0; i < NCARDS; i++) {
        cute_runtime *rt = NULL;
        if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
            CHECK(false, "interpreter: %s", err);
            break;
        }
        char driver[16]; /* the arch the driver names the card's capability by */
        cute_cuda_arch_name(cards[i].sm / 10, cards[i].sm % 10, driver, sizeof driver);
        CHECK(!strcmp(driver, cards[i].arch), "%s: the driver's arch %s, the table's %s",
              cards[i].name, driver, cards[i].arch);
        cute_runtime_set_target_arch(rt, cards[i].arch);
        gemm_case(rt, &cards[i], CUTE_BF16, want[i].bf16);
        /* f16 takes bf16's kernels from sm_80 on, its own rows within them (sm_90's 4 stages of
         * 192 KB stop short of sm_120's 99 KB block) */
        if (cards[i].sm >= 80) gemm_case(rt, &cards[i], CUTE_F16, want[i].bf16);
        gemm_case(rt, &cards[i], CUTE_E4M3, want[i].e4m3);
        gemm_case(rt, &cards[i], CUTE_F32, want[i].f32);
        attention_case(rt, &cards[i], want[i].attention, want[i].traced);
        rows_case(rt, &cards[i], 200000);
        if (i == NCARDS - 1) too_big(rt);
        cute_runtime_free(rt);
    }
    return CHECK_DONE("cards_test");
}
