/* The register banks of a cubin's FFMAs, read from the instruction bits (no disassembler):
 * how many FFMAs read two source registers of one bank that the reuse cache does not supply.
 * Such an FFMA needs a second register-file read cycle; in an FMA-bound loop the count
 * follows the speed (the pipelined SGEMM: 78 of the main loop's 1,024 at 94.9% of cuBLAS,
 * 265 at 86.7% and 378 at 80.5% on an H100, bench/RESULTS.md).
 *
 * The encoding, as cuobjdump -sass shows it for sm_90a (checked against its output on
 * recorded words by ffma_banks_test, and on whole SGEMM cubins; other architectures are
 * not checked): 16-byte instructions; bits 0-11 the opcode (0x223: FFMA with four
 * register operands, 0x947: BRA), 16-23 Rd, 24-31 Ra, 32-39 Rb, 64-71 Rc (255 is RZ), bits
 * 122-124 the reuse flags of Ra, Rb, Rc; a BRA's target is the next instruction plus 4 x
 * (64 x the signed bits 32-63, plus bits 16-23).  The bank of Rn is taken as n mod 4, and
 * n mod 2 is counted too (microbenchmark papers on Volta and later describe two banks; on
 * Hopper both counts followed the measured speed). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jit_internal.h"
#include "runtime/cubin_text.h"

/* one FFMA's (two words) conflicts into c */
static void count_ffma(uint64_t lo, uint64_t hi, cute_ffma_banks *c)
{
    int reg[3] = {(int)(lo >> 24 & 0xff), (int)(lo >> 32 & 0xff), (int)(hi & 0xff)};
    int read[3], nread = 0;
    for (int i = 0; i < 3; i++)
        if (reg[i] != 255 && !(hi >> (58 + i) & 1)) read[nread++] = reg[i];
    bool same4 = false, same2 = false;
    for (int i = 0; i < nread; i++)
        for (int j = i + 1; j < nread; j++)
            if (read[i] != read[j]) same4 |= read[i] % 4 == read[j] % 4, same2 |= read[i] % 2 == read[j] % 2;
    c->ffma++, c->conflicts4 += same4, c->conflicts2 += same2;
}

/* the longest backward branch of a text section: its loop [*from, *to) in instructions */
static void longest_loop(const unsigned char *text, size_t n, size_t *from, size_t *to)
{
    *from = *to = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = cubin_word(text, i, 0);
        if ((lo & 0xfff) != 0x947) continue;
        int64_t words = (int64_t)(int32_t)(uint32_t)(lo >> 32) * 64 + (int64_t)(lo >> 16 & 0xff);
        int64_t target = (int64_t)i + 1 + words / 4;
        if (words < 0 && target >= 0 && (size_t)target <= i && i + 1 - (size_t)target > *to - *from)
            *from = (size_t)target, *to = i + 1;
    }
}

static void count_section(unsigned char *text, size_t bytes, void *user)
{
    cute_ffma_bank_report *r = user;
    r->kernels++;
    size_t n = bytes / 16, from, to;
    longest_loop(text, n, &from, &to);
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = cubin_word(text, i, 0), hi = cubin_word(text, i, 1);
        if (!sass_is_ffma(lo)) continue;
        count_ffma(lo, hi, &r->kernel);
        if (i >= from && i < to) count_ffma(lo, hi, &r->loop);
    }
}

bool cute__ffma_banks(const void *cubin, size_t len, cute_ffma_bank_report *r, char *err, size_t n)
{
    memset(r, 0, sizeof *r);
    char why[128];
    /* (read only: the walk hands out writable sections for ffma_rewrite.c) */
    bool ok = cubin_text_sections((unsigned char *)(uintptr_t)cubin, len, count_section, r, why, sizeof why);
    if (!ok) snprintf(err, n, "ffma banks: %s", why);
    return ok;
}
