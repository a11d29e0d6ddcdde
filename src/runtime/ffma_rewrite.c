/* The block-scaled GEMM's promotion FFMAs rewritten in the cubin after ptxas, for timing
 * experiments (CUTEC_SASS_FFMA=yield|stall<n>|nop; opt-in, bench/RESULTS.md fp8g).
 *
 * Why: a warpgroup promotes a k-tile's partial sums by a run of 64 FFMAs, a warp of it on
 * each scheduler beside a warp of the other warpgroup, whose next wgmmas keep the tensor
 * core fed.  The measured k-tile is the tensor time plus about both warpgroups' promotions
 * one after the other, as if the tensor core waited while the FFMAs issued.  DeepGEMM
 * rewrites the yield bits of its FFMAs for 10%+ (its README); ptxas of CUDA 13 already
 * writes them so (every other FFMA of a run yields, the others reuse the scale's register),
 * so "yield" (every one yields) and "stall<n>" (n cycles between a warp's FFMAs: the
 * register file's ports and the issue slots left to the other warp and the tensor core)
 * test the rest of that idea, and "nop" (the FFMAs issued as NOPs: the loop's cost without
 * their register traffic, results wrong) measures what they cost at all.
 *
 * The control bits of an sm_90 instruction, the high 64-bit word (as published
 * microbenchmark studies of Volta and later decode them, and as every instruction in this
 * library's cubins reads: ptxas writes stall 1 and the yield bit set on most): bits 41-44
 * the stall cycles, 45 the yield bit (set: stay on the warp; clear: yield), 46-48 and 49-51
 * the write and read scoreboards, 52-57 the wait mask, 58-61 the reuse flags.  A rewritten
 * FFMA keeps its scoreboards and wait mask and drops its reuse flags (a warp that gives way
 * may find its reuse cache taken by the other's operands); a NOP keeps the FFMA's control
 * bits.  What is computed changes only for "nop". */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cubin_text.h"
#include "runtime/ffma_rewrite.h"
#include "runtime/le_bytes.h"

enum { STALL_LO = 41, YIELD_BIT = 45, REUSE_LO = 58 };
static const uint64_t NOP_LO = 0x7918;      /* NOP's opcode, no operands */
static const uint64_t CONTROL = 0x1ffffull << 41; /* bits 41-57 */

ffma_rewrite ffma_rewrite_from_env(void)
{
    const char *v = getenv("CUTEC_SASS_FFMA");
    ffma_rewrite r = {FFMA_KEEP, 0};
    if (!v) return r;
    if (!strcmp(v, "yield")) r.kind = FFMA_YIELD;
    else if (!strcmp(v, "nop")) r.kind = FFMA_NOP;
    else if (!strncmp(v, "stall", 5)) {
        char *end;
        long n = strtol(v + 5, &end, 10);
        if (v[5] && !*end && n >= 1 && n <= 15) r.kind = FFMA_STALL, r.stall = (int)n;
    }
    return r;
}

typedef struct run_patch {
    ffma_rewrite r;
    long changed;
} run_patch;

static void rewrite_one(unsigned char *text, size_t i, ffma_rewrite r)
{
    uint64_t hi = cubin_word(text, i, 1) & ~(0xfull << REUSE_LO);
    if (r.kind == FFMA_YIELD) hi &= ~(1ull << YIELD_BIT);
    if (r.kind == FFMA_STALL) hi = (hi & ~(0xfull << STALL_LO)) | (uint64_t)r.stall << STALL_LO;
    if (r.kind == FFMA_NOP) {
        le_put64(text + 16 * i, NOP_LO);
        hi &= CONTROL;
    }
    le_put64(text + 16 * i + 8, hi);
}

/* QGMMA from shared-memory descriptors (as in QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR20]) */
static bool is_qgmma(uint64_t lo) { return (lo & 0xfff) == 0x9f3; }

/* the runs of a kernel with fp8 wgmmas (others, such as the FMA-bound SGEMM, are left alone) */
static void rewrite_section(unsigned char *text, size_t bytes, void *user)
{
    run_patch *p = user;
    size_t n = bytes / 16, from = 0, q = 0;
    while (q < n && !is_qgmma(cubin_word(text, q, 0))) q++;
    if (q == n) return;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && sass_is_ffma(cubin_word(text, i, 0))) continue;
        for (size_t j = from; i - from >= FFMA_RUN_MIN && j < i; j++) rewrite_one(text, j, p->r), p->changed++;
        from = i + 1;
    }
}

long ffma_rewrite_cubin(void *cubin, size_t len, ffma_rewrite r)
{
    run_patch p = {r, 0};
    char err[128];
    if (r.kind == FFMA_KEEP) return 0;
    return cubin_text_sections(cubin, len, rewrite_section, &p, err, sizeof err) ? p.changed : -1;
}
