/* The block-scaled GEMM's promotion FFMAs rewritten in the cubin after ptxas
 * (CUTEC_SASS_FFMA=reuse|nop; opt-in, bench/RESULTS.md fp8g).
 *
 * Why: a warpgroup promotes a k-tile's partial sums by runs of 51-62 FFMAs (sum += partial
 * x scale) while the tensor core runs the next batches.  Measured on an H200 (session 33's
 * mid pass, 4096x7168x16384): with the FFMAs issued as NOPs ("nop", results wrong) the
 * kernel ran 12.8% faster, so the FFMAs cost that beside the wgmmas although a NOP takes the
 * same issue slot; making every FFMA yield (DeepGEMM's README's rewrite, which drops the
 * reuse flags) ran 2.1 points of cuBLAS slower, two cycles between them 3.4 slower: the
 * more register-file reads, the slower, as if the FFMAs' operand reads contended with the
 * wgmmas' accumulators.  ptxas writes every other FFMA of a run yielding and the others
 * keeping the scale's register in the reuse cache; "reuse" makes none yield and each keep
 * its scale (Rb) for the next FFMA where that one reads the same register, about a fifth
 * fewer register reads a run.
 *
 * The control bits of an sm_90 instruction, the high 64-bit word (as published
 * microbenchmark studies of Volta and later decode them, and as this library's cubins read:
 * ptxas writes the yield bit set on most instructions): bits 41-44 the stall cycles, 45 the
 * yield bit (set: stay on the warp; clear: yield), 46-48 and 49-51 the write and read
 * scoreboards, 52-57 the wait mask, 58-60 the reuse flags of Ra, Rb, Rc (ffma_banks.c reads
 * them so); an FFMA's Rb is bits 32-39 of the low word.  A reused operand is only read from
 * the cache by the warp's very next instruction in the same slot, so the flag is set only
 * between two FFMAs of a run that read the same Rb, neither yielding.  A NOP keeps the
 * FFMA's control bits. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "runtime/cubin_text.h"
#include "runtime/ffma_rewrite.h"
#include "runtime/le_bytes.h"

enum { YIELD_BIT = 45, REUSE_B = 59 };
static const uint64_t NOP_LO = 0x7918;                /* NOP's opcode, no operands */
static const uint64_t CONTROL = 0x1ffffull << 41;     /* bits 41-57 */

ffma_rewrite ffma_rewrite_from_env(void)
{
    /* the words in the enum's order */
    return (ffma_rewrite)cute_env_choice_warn("CUTEC_SASS_FFMA", "keep|reuse|nop", FFMA_REUSE);
}

static int rb(uint64_t lo) { return (int)(lo >> 32 & 0xff); }

/* FFMA j of the run [from, to) rewritten */
static void rewrite_one(unsigned char *text, size_t j, size_t to, ffma_rewrite r)
{
    uint64_t lo = cubin_word(text, j, 0), hi = cubin_word(text, j, 1);
    if (r == FFMA_NOP) {
        le_put64(text + 16 * j, NOP_LO);
        hi &= CONTROL;
    } else {
        bool keep = j + 1 < to && rb(cubin_word(text, j + 1, 0)) == rb(lo) && rb(lo) != 255;
        hi = (hi | 1ull << YIELD_BIT) & ~(1ull << REUSE_B);
        if (keep) hi |= 1ull << REUSE_B;
    }
    le_put64(text + 16 * j + 8, hi);
}

typedef struct run_patch {
    ffma_rewrite r;
    long changed;
} run_patch;

static void rewrite_run(unsigned char *text, size_t from, size_t len, void *user)
{
    run_patch *p = user;
    for (size_t j = from; j < from + len; j++) rewrite_one(text, j, from + len, p->r), p->changed++;
}

/* the runs of a kernel with fp8 wgmmas (others, such as the FMA-bound SGEMM, are left alone) */
static void rewrite_section(unsigned char *text, size_t bytes, void *user)
{
    if (sass_has_qgmma(text, bytes)) sass_ffma_runs(text, bytes, FFMA_RUN_MIN, rewrite_run, user);
}

long ffma_rewrite_cubin(void *cubin, size_t len, ffma_rewrite r, char *err, size_t n)
{
    run_patch p = {r, 0};
    if (r == FFMA_KEEP) return 0;
    return cubin_text_sections(cubin, len, rewrite_section, &p, err, n) ? p.changed : -1;
}
