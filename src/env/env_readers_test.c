/* The library's closed-set CUTEC_* settings read through env_choice.h: each reader gives its
 * values, and a misspelled value warns once by name and gives the default (no reader here has
 * an error path of its own).  The interpreter's two settings that are not lists (a seed, a
 * thread) warn the same way.  CUTEC_PTX_OPT, CUTEC_PTX_ASM and CUTEC_NO_TUNE are read by
 * static functions the same way (cuda_backend.c, tuned.c); the helper's own test covers them. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/ptx_internal.h"
#include "check.h"
#include "check_stderr.h"
#include "cutec/cache.h"
#include "cutec/cuda_driver.h"
#include "cutec/interp.h"
#include "cutec/ptx.h"
#include "interp/interp_internal.h"
#include "runtime/ffma_rewrite.h"

typedef int (*reader)(void);

static int ffma(void) { return (int)ffma_rewrite_from_env(); }
static int tiers(void) { return cute_ptx_wanted() ? -1 : cute_cuda_tiers_on(); }
static int tier_opt(void) { return cute_cuda_tier_opt_level(); }
static int late(void) { return px_late_wanted(); }
static int els(void) { return px_else_wanted(); }
static int sums(void) { return px_sums_wanted(); }
static int codegen(void) { return cute_ptx_wanted(); }

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

    good("CUTEC_KEEP", "ptx,sass", keep, CUTE_KEEP_PTX | CUTE_KEEP_SASS);
    bad("CUTEC_KEEP", "ptx,sas", keep, CUTE_KEEP_PTX, "sas is not one of src|cu|ptx|cubin|sass|all; using the words it knows");

    good("CUTEC_INTERP_TRY_WAIT", "false", try_wait, -2);
    good("CUTEC_INTERP_TRY_WAIT", "7", try_wait, 7);
    bad("CUTEC_INTERP_TRY_WAIT", "flase", try_wait, 0, "not false or a seed (an integer); using neither");
    good("CUTEC_INTERP_TRACE", "1,0,0:5,0,0", trace, 5);
    good("CUTEC_INTERP_TRACE", "0:3", trace, 3);
    bad("CUTEC_INTERP_TRACE", "0:3,1", trace, -1, "not bx,by,bz:tx,ty,tz or bx:tx; using no trace");
    return CHECK_DONE("env_readers_test");
}
