/* The library's closed-set CUTEC_* settings read through env_choice.h: each reader gives its
 * values, and a misspelled value warns once by name and gives the default (no reader here has
 * an error path of its own).  The interpreter's two settings that are not lists (a seed, a
 * thread) warn the same way.  CUTEC_PTX_OPT and CUTEC_NO_TUNE are read by static functions the
 * same way (cuda_backend.c, tuned.c); the helper's own test covers them.
 * The kernels' settings, read as they compile (kernels/kernel_env.h), and the row kernels'
 * (rows_env.c) refuse a misspelling with the same message instead: a compile on the
 * interpreter (or the rows' check) fails naming it, and the right values compile. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/ptx_internal.h"
#include "check.h"
#include "check_stderr.h"
#include "cutec/cache.h"
#include "cutec/attention.h"
#include "cutec/hstu.h"
#include "cutec/kernels.h"
#include "cutec/cuda_driver.h"
#include "cutec/interp.h"
#include "cutec/ptx.h"
#include "interp/interp_internal.h"
#include "kernels/rows/rows_internal.h"
#include "runtime/ffma_rewrite.h"

typedef int (*reader)(void);

static int ffma(void) { return (int)ffma_rewrite_from_env(); }
static int tiers(void) { return cute_ptx_wanted() ? -1 : cute_cuda_tiers_on(); }
static int tier_opt(void) { return cute_cuda_tier_opt_level(); }
static int late(void) { return px_late_wanted(); }
static int els(void) { return px_else_wanted(); }
static int sums(void) { return px_sums_wanted(); }
static int codegen(void) { return cute_ptx_wanted(); }
static int ptx_asm(void) { return (int)cute_ptx_assembler(); }
static int spawned(void) { return px_ptxas_spawned(); }
static int thp(void) { return px_ptxas_thp(); }

/* a fresh interpreter's try_wait (-2: false; else the seed) or traced thread (-1: none) */
static int interp_read(bool trace)
{
    cute_backend b;
    if (cute_interp_new(NULL, &b) != CUTE_OK) return -100;
    struct interp *B = b.self;
    int r = trace ? (B->trace_out ? (int)B->trace_thread.x : -1) : B->try_wait_false ? -2 : (int)B->try_wait_seed;
    b.vt->destroy(b.self);
    return r;
}
static int keep(void)
{
    cute_cache_opts o;
    cute_cache_opts_from_env(&o);
    return (int)o.keep;
}
static int no_cache(void)
{
    cute_cache_opts o;
    cute_cache_opts_from_env(&o);
    return o.disabled;
}
static int try_wait(void) { return interp_read(false); }
static int trace(void) { return interp_read(true); }

/* name=value gives want, silently */
static void good(const char *name, const char *value, reader r, int want)
{
    setenv(name, value, 1);
    check_stderr_begin();
    int got = r();
    const char *said = check_stderr_end();
    CHECK(got == want && !*said, "%s=%s: %d, want %d; said %s", name, value, got, want, said);
}

/* name=value gives the default dflt and one warning that names it */
static void bad(const char *name, const char *value, reader r, int dflt, const char *expected)
{
    char want[256];
    setenv(name, value, 1);
    check_stderr_begin();
    int got = r();
    const char *said = check_stderr_end();
    snprintf(want, sizeof want, "cutec: %s=%s: %s", name, value, expected);
    CHECK(got == dflt, "%s=%s: %d, want the default %d", name, value, got, dflt);
    CHECK(!strncmp(said, want, strlen(want)), "%s=%s said %s, want %s...", name, value, said, want);
    unsetenv(name);
}

/* the kernels' settings: 1 where a compile on the interpreter that reads them succeeds, else
 * 0 and its error in why */
static cute_runtime *rt;
static char why[1024];
static int compiled(const cute_fn *f)
{
    cute_fn_free(f);
    return f != NULL;
}
static int gemm_with(cute_gemm_scale_kind scale)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = scale ? CUTE_E4M3 : CUTE_BF16, .c_dtype = CUTE_BF16,
                            .major = {1, 1, 1}, .align_bytes = 16, .scale = scale};
    if (scale) cfg.tiling = (cute_gemm_tiling){.bm = 256, .bn = 128};
    return compiled(cute_gemm_compile(rt, &cfg, why, sizeof why));
}
static int gemm(void) { return gemm_with(CUTE_GEMM_SCALE_NONE); }
static int gemm_blockscaled(void) { return gemm_with(CUTE_GEMM_SCALE_BLOCK); }
static int attention(void)
{
    cute_attention_config cfg = {.variant = CUTE_ATTENTION_HOPPER, .dtype = CUTE_BF16, .head_dim = 128};
    return compiled(cute_attention_compile(rt, &cfg, why, sizeof why));
}
static int hstu(void)
{
    cute_hstu_config cfg = {.dtype = CUTE_BF16, .head_dim = 64};
    return compiled(cute_hstu_compile(rt, &cfg, why, sizeof why));
}
static int rows(void) { return rows_env_check(why, sizeof why) == CUTE_OK; }
static int unroll(void) { return rows_env(ROWS_ENV_COLS_UNROLL); }
static int rows_diag(void) { return rows_env_check(why, sizeof why) == CUTE_OK ? rows_env(ROWS_ENV_DIAG) : -1; }
static int trial_hex(void) { return rows_env_check(why, sizeof why) == CUTE_OK ? rows_trial("hex") : -1; }

/* name=value refused: reader r gives 0 and why says "name=value: expected" */
static void refused(const char *name, const char *value, reader r, const char *expected)
{
    char want[512];
    setenv(name, value, 1);
    why[0] = 0;
    int got = r();
    snprintf(want, sizeof want, "%s=%s: %s", name, value, expected);
    CHECK(!got && strstr(why, want), "%s=%s: %s, want %s", name, value, got ? "taken" : why, want);
    unsetenv(name);
}

static void kernels(void)
{
    char err[512];
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return;
    }
    cute_runtime_set_target_arch(rt, "sm_90a");
    good("CUTEC_GEMM_PDL", "early", gemm, 1);
    good("CUTEC_GEMM_PDL", "0", gemm, 1);
    refused("CUTEC_GEMM_PDL", "yes", gemm, "not one of 0|1|early");
    good("CUTEC_GEMM_HOPPER_RELEASE", "warp", gemm, 1);
    refused("CUTEC_GEMM_HOPPER_RELEASE", "warps", gemm, "not one of thread|warp");
    unsetenv("CUTEC_GEMM_HOPPER_RELEASE");
    const char *bs[][3] = {{"CUTEC_GEMM_BLOCKSCALE_ROWS", "shfl", "not one of own|shfl"},
                           {"CUTEC_GEMM_BLOCKSCALE_REGS", "232", "not one of 232|240"},
                           {"CUTEC_GEMM_BLOCKSCALE_HALVES", "1", "not one of 0|1"},
                           {"CUTEC_GEMM_BLOCKSCALE_TURNS", "late", "not one of 0|1|late"},
                           {"CUTEC_GEMM_BLOCKSCALE_SB", "lane", "not one of uniform|lane"}};
    for (int i = 0; i < (int)(sizeof bs / sizeof *bs); i++) {
        good(bs[i][0], bs[i][1], gemm_blockscaled, 1);
        refused(bs[i][0], "on", gemm_blockscaled, bs[i][2]);
    }
    good("CUTEC_ATTN_FWD_ORDER", "across", attention, 1);
    refused("CUTEC_ATTN_FWD_ORDER", "acros", attention, "not one of snake|across");
    good("CUTEC_ATTN_FWD_QSTAGES", "1", attention, 1);
    refused("CUTEC_ATTN_FWD_QSTAGES", "3", attention, "not one of 2|1");
    unsetenv("CUTEC_ATTN_FWD_QSTAGES");
    /* the Hopper forward's opt-in forms and diagnostics (hopper_plan.c): a value, a misspelt one */
    const char *fwd[][4] = {{"CUTEC_ATTN_FWD_JOIN", "1", "yes", "not one of 0|1"},
                            {"CUTEC_ATTN_FWD_WGU", "1", "on", "not one of 0|1"}};
    for (int i = 0; i < (int)(sizeof fwd / sizeof *fwd); i++) {
        good(fwd[i][0], fwd[i][1], attention, 1);
        refused(fwd[i][0], fwd[i][2], attention, fwd[i][3]);
        unsetenv(fwd[i][0]);
    }
    /* a diagnostic is taken, and says it is one (kernel_env_diag) */
    setenv("CUTEC_ATTN_FWD_DIAG", "noexp", 1);
    check_stderr_begin();
    int diag = attention();
    const char *said = check_stderr_end();
    CHECK(diag == 1 && strstr(said, "CUTEC_ATTN_FWD_DIAG=noexp is a diagnostic") && strstr(said, "wrong results by design"),
          "CUTEC_ATTN_FWD_DIAG=noexp: %d; said %s", diag, said);
    refused("CUTEC_ATTN_FWD_DIAG", "nosoft", attention, "not one of none|nosoftmax|norescale|noexp|nosum");
    unsetenv("CUTEC_ATTN_FWD_DIAG");
    good("CUTEC_HSTU_VARIANT", "sm80", hstu, 1);
    good("CUTEC_HSTU_BLOCK_M", "128", hstu, 1);
    refused("CUTEC_HSTU_BLOCK_M", "96", hstu, "not one of 64|128");
    refused("CUTEC_HSTU_VARIANT", "hoper", hstu, "not one of auto|sm80|hopper");
    cute_runtime_free(rt);
}

/* the row kernels' settings, refused by rows_env_check at the library's calls */
static void row_settings(void)
{
    const char *offs[] = {"CUTEC_ROWS_WORDS", "CUTEC_ROWS_PAIRS", "CUTEC_ROWS_HEX", "CUTEC_ROWS_SPLIT",
                          "CUTEC_ROWS_EARLY"};
    for (int i = 0; i < 5; i++) {
        good(offs[i], "0", rows, 1);
        refused(offs[i], "off", rows, "not one of 1|0");
    }
    good("CUTEC_COLS_UNROLL", "4", rows, 1);
    good("CUTEC_COLS_UNROLL", "4", unroll, 1);
    good("CUTEC_COLS_UNROLL", "8", unroll, 0);
    refused("CUTEC_COLS_UNROLL", "2", rows, "not one of 8|4");
    good("CUTEC_ROWS_DIAG", "nocols", rows_diag, 1); /* (a diagnostic: ln43's) */
    good("CUTEC_ROWS_DIAG", "none", rows_diag, 0);
    good("CUTEC_ROWS_DIAG", "cols0", rows_diag, 3);
    refused("CUTEC_ROWS_DIAG", "nocol", rows, "not one of none|nocols|nobias|cols0");
    unsetenv("CUTEC_ROWS_DIAG");
    good("CUTEC_ROWS_TRIAL", "wchain1,hex", trial_hex, 1);
    good("CUTEC_ROWS_TRIAL", "1", trial_hex, 1);
    good("CUTEC_ROWS_TRIAL", "ahead", trial_hex, 0);
    good("CUTEC_ROWS_TRIAL", "no-tail,ahead", rows, 1);
    refused("CUTEC_ROWS_TRIAL", "hex,split", rows, "split is not one of 0|1|ahead|hex|wchain1");
}

int main(void)
{
    unsetenv("CUTEC_CODEGEN");
    good("CUTEC_SASS_FFMA", "keep", ffma, FFMA_KEEP);
    good("CUTEC_SASS_FFMA", "nop", ffma, FFMA_NOP);
    good("CUTEC_SASS_FFMA", "reuse", ffma, FFMA_REUSE);
    good("CUTEC_SASS_FFMA", "", ffma, FFMA_REUSE);
    bad("CUTEC_SASS_FFMA", "resue", ffma, FFMA_REUSE, "not one of keep|reuse|nop; using reuse");

    good("CUTEC_TIER", "0", tiers, 0);
    good("CUTEC_TIER", "1", tiers, 1);
    int dflt = (unsetenv("CUTEC_TIER"), tiers());
    bad("CUTEC_TIER", "off", tiers, dflt, "not one of 0|1; using");

    good("CUTEC_TIER_OPT", "0", tier_opt, 0);
    good("CUTEC_TIER_OPT", "4", tier_opt, 4);
    dflt = (unsetenv("CUTEC_TIER_OPT"), tier_opt());
    bad("CUTEC_TIER_OPT", "-O3", tier_opt, dflt, "not an integer in [0, 4]; using");

    const char *names[] = {"CUTEC_PTX_LATE", "CUTEC_PTX_ELSE", "CUTEC_PTX_SUMS"};
    reader readers[] = {late, els, sums};
    for (int i = 0; i < 3; i++) {
        good(names[i], "0", readers[i], 0);
        good(names[i], "1", readers[i], 1);
        bad(names[i], "no", readers[i], 1, "not one of 0|1; using 1");
    }

    good("CUTEC_CODEGEN", "ptx", codegen, 1);
    good("CUTEC_CODEGEN", "cuda", codegen, 0);
    dflt = (unsetenv("CUTEC_CODEGEN"), codegen());
    bad("CUTEC_CODEGEN", "PTX", codegen, dflt, "not one of cuda|ptx; using");

    good("CUTEC_PTX_ASM", "driver", ptx_asm, CUTE_PTX_ASM_DRIVER);
    good("CUTEC_PTX_ASM", "ptxas", ptx_asm, CUTE_PTX_ASM_PTXAS);
    good("CUTEC_PTX_ASM", "nvjitlink", ptx_asm, CUTE_PTX_ASM_NVJITLINK);
    good("CUTEC_PTX_ASM", "loaddata", ptx_asm, CUTE_PTX_ASM_LOADDATA);
    bad("CUTEC_PTX_ASM", "nvJitLink", ptx_asm, CUTE_PTX_ASM_PTXAS,
        "not one of driver|ptxas|nvjitlink|loaddata; using ptxas");
    good("CUTEC_PTXAS_SPAWN", "0", spawned, 0);
    good("CUTEC_PTXAS_SPAWN", "1", spawned, 1);
    dflt = (unsetenv("CUTEC_PTXAS_SPAWN"), spawned());
    bad("CUTEC_PTXAS_SPAWN", "yes", spawned, dflt, "not one of 0|1; using");
    good("CUTEC_PTXAS_THP", "0", thp, 0);
    good("CUTEC_PTXAS_THP", "1", thp, 1);
    dflt = (unsetenv("CUTEC_PTXAS_THP"), thp());
    bad("CUTEC_PTXAS_THP", "on", thp, dflt, "not one of 0|1; using");

    good("CUTEC_KEEP", "ptx,sass", keep, CUTE_KEEP_PTX | CUTE_KEEP_SASS);
    bad("CUTEC_KEEP", "ptx,sas", keep, CUTE_KEEP_PTX, "sas is not one of src|cu|ptx|cubin|sass|all; using the words it knows");

    good("CUTEC_INTERP_TRY_WAIT", "false", try_wait, -2);
    good("CUTEC_INTERP_TRY_WAIT", "7", try_wait, 7);
    bad("CUTEC_INTERP_TRY_WAIT", "flase", try_wait, 0, "not false or a seed (an integer); using neither");
    good("CUTEC_INTERP_TRACE", "1,0,0:5,0,0", trace, 5);
    good("CUTEC_INTERP_TRACE", "0:3", trace, 3);
    bad("CUTEC_INTERP_TRACE", "0:3,1", trace, -1, "not bx,by,bz:tx,ty,tz or bx:tx; using no trace");
    good("CUTEC_NO_CACHE", "1", no_cache, 1);
    good("CUTEC_NO_CACHE", "0", no_cache, 0);
    unsetenv("CUTEC_NO_CACHE");

    kernels();
    row_settings();
    return CHECK_DONE("env_readers_test");
}
