/* DeepGEMM's yield interleave of FFMA runs, applied to a cubin (CUTEC_SASS_FFMA_YIELD=1).
 *
 * Why: in the block-scaled fp8 GEMM a consumer warpgroup promotes each k-tile's partial sums
 * with runs of 51-62 FFMAs (sum += partial x scale) while the other warpgroup should be
 * issuing its wgmmas; DeepGEMM's README credits 10%+ on its kernels to letting the warp
 * scheduler switch warps in the first part of such a run (deep_gemm/jit/interleave_ffma.py
 * read for the rule's facts).  ptxas already alternates yielding and reuse-keeping FFMAs in
 * the runs (bench/RESULTS.md, fp8g); the pass changes the reuse-keeping FFMA that starts
 * each Rb's chain.
 *
 * The bits (sm_90, ffma_rewrite.c has the layout): an instruction is two little-endian
 * words; FFMA R, R, R, R has opcode 0x223 in the low word's bits 0-11, Rb in its bits
 * 32-39; the high word's bit 59 is Rb's reuse flag and bit 45 the yield bit (ptxas sets it
 * where the warp may stay; clear: the scheduler may switch).  DeepGEMM counts runs in lines
 * of cuobjdump's listing (two a instruction): its "16 lines" and "9/16 of the lines rounded
 * down to even" are 8 instructions and (18 n / 16) / 2 of n. */
#include <stdio.h>
#include <stdlib.h>

#include "env/env_choice.h"
#include "runtime/cubin_text.h"
#include "runtime/ffma_rewrite.h"
#include "runtime/ffma_yield.h"
#include "runtime/le_bytes.h"

static const uint64_t FLIP = 1ull << 59 | 1ull << 45; /* Rb's reuse flag and the yield bit */

/* off unless asked: session 38's mid pass (H200) measured block scales 1.010 / 1.007 of the
 * default at 4096x7168x16384 / 8192^3, under the 2% that makes it the default
 * (scripts/device-fp8y.sh decides; its flip is this line) */
static const int yield_by_default = 0;

bool ffma_yield_from_env(void)
{
    return cute_env_choice_warn("CUTEC_SASS_FFMA_YIELD", "0|1", yield_by_default) == 1;
}

static int rb(uint64_t lo) { return (int)(lo >> 32 & 0xff); }

/* the rule on the run of FFMAs [from, from + len); the FFMAs changed */
static long yield_run(unsigned char *text, size_t from, size_t len)
{
    bool seen[256] = {false}, last_kept = false;
    int last_rb = -1;
    long changed = 0;
    for (size_t j = from; j < from + (18 * len / 16) / 2; j++) {
        uint64_t hi = cubin_word(text, j, 1);
        int r = rb(cubin_word(text, j, 0));
        bool kept = hi >> 59 & 1;
        if (kept && (!seen[r] || (last_kept && r == last_rb))) {
            le_put64(text + 16 * j + 8, hi ^ FLIP);
            kept = false, changed++;
        }
        seen[r] = true, last_kept = kept, last_rb = r;
    }
    return changed;
}

static void yield_one_run(unsigned char *text, size_t from, size_t len, void *user)
{
    *(long *)user += yield_run(text, from, len);
}

/* the runs of a kernel with fp8 wgmmas, as ffma_rewrite.c chooses them (the block-scaled GEMM's
 * promotions; attention's two runs of 8+ and the SGEMM's are left alone) */
static void yield_section(unsigned char *text, size_t bytes, void *user)
{
    if (sass_has_qgmma(text, bytes)) sass_ffma_runs(text, bytes, FFMA_YIELD_RUN_MIN, yield_one_run, user);
}

long ffma_yield_cubin(void *cubin, size_t len, char *err, size_t n)
{
    long changed = 0;
    return cubin_text_sections(cubin, len, yield_section, &changed, err, n) ? changed : -1;
}

size_t ffma_key_text(char *s, size_t n)
{
    const char *ffma = getenv("CUTEC_SASS_FFMA");
    int at = 0;
    if (n) s[0] = '\0';
    if (ffma_rewrite_from_env() != FFMA_KEEP) at = snprintf(s, n, "\nffma %.16s", ffma ? ffma : "");
    if (ffma_yield_from_env() && at >= 0 && (size_t)at < n) at += snprintf(s + at, n - (size_t)at, "\nffma-yield qgmma");
    return at < 0 ? 0 : (size_t)at < n ? (size_t)at : n - 1;
}
