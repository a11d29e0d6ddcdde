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

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

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

static bool is_ffma(uint64_t lo) { return (lo & 0xfff) == 0x223; }

/* the longest backward branch of a text section: its loop [*from, *to) in instructions */
static void longest_loop(const unsigned char *text, size_t n, size_t *from, size_t *to)
{
    *from = *to = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = le(text + 16 * i, 8);
        if ((lo & 0xfff) != 0x947) continue;
        int64_t words = (int64_t)(int32_t)(uint32_t)(lo >> 32) * 64 + (int64_t)(lo >> 16 & 0xff);
        int64_t target = (int64_t)i + 1 + words / 4;
        if (words < 0 && target >= 0 && (size_t)target <= i && i + 1 - (size_t)target > *to - *from)
            *from = (size_t)target, *to = i + 1;
    }
}

static void count_section(const unsigned char *text, size_t bytes, cute_ffma_bank_report *r)
{
    size_t n = bytes / 16, from, to;
    longest_loop(text, n, &from, &to);
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = le(text + 16 * i, 8), hi = le(text + 16 * i + 8, 8);
        if (!is_ffma(lo)) continue;
        count_ffma(lo, hi, &r->kernel);
        if (i >= from && i < to) count_ffma(lo, hi, &r->loop);
    }
}

bool cute__ffma_banks(const void *cubin, size_t len, cute_ffma_bank_report *r, char *err, size_t n)
{
    const unsigned char *b = cubin;
    memset(r, 0, sizeof *r);
    if (len < 64 || memcmp(b, "\177ELF", 4) || b[4] != 2 || b[5] != 1)
        return snprintf(err, n, "ffma banks: not a 64-bit little-endian ELF cubin"), false;
    uint64_t shoff = le(b + 0x28, 8), shent = le(b + 0x3a, 2), shnum = le(b + 0x3c, 2), strndx = le(b + 0x3e, 2);
    if (shent < 64 || strndx >= shnum || shoff > len || shnum > (len - shoff) / shent)
        return snprintf(err, n, "ffma banks: the cubin's section table is outside it"), false;
    const unsigned char *names = b + shoff + strndx * shent;
    uint64_t noff = le(names + 24, 8), nsize = le(names + 32, 8);
    if (noff > len || nsize > len - noff) return snprintf(err, n, "ffma banks: bad section names"), false;
    for (uint64_t s = 0; s < shnum; s++) {
        const unsigned char *h = b + shoff + s * shent;
        uint64_t name = le(h, 4), off = le(h + 24, 8), size = le(h + 32, 8);
        if (name >= nsize || off > len || size > len - off) continue;
        const char *nm = (const char *)b + noff + name;
        if (memchr(nm, 0, nsize - name) && !strncmp(nm, ".text.", 6)) count_section(b + off, size, r), r->kernels++;
    }
    if (!r->kernels) return snprintf(err, n, "ffma banks: the cubin has no .text section"), false;
    return true;
}
