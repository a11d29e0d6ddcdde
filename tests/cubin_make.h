/* A cubin made in a test from instruction words (jit/ffma_banks_test, runtime/ffma_rewrite_test):
 * an ELF64 with a section-name table and one ".text.k". */
#ifndef CUTEC_TESTS_CUBIN_MAKE_H
#define CUTEC_TESTS_CUBIN_MAKE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint64_t lo, hi; } word;

static void put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> 8 * i);
}

/* the cubin of n words into b (16 n + 320 bytes at most); its length */
static size_t make_cubin(unsigned char *b, const word *w, size_t n)
{
    static const char names[] = "\0.shstrtab\0.text.k";
    memset(b, 0, 64);
    memcpy(b, "\177ELF\2\1\1", 7);
    size_t text = 64, strs = text + 16 * n, shoff = (strs + sizeof names + 7) & ~(size_t)7;
    for (size_t i = 0; i < n; i++) put(b + text + 16 * i, w[i].lo, 8), put(b + text + 16 * i + 8, w[i].hi, 8);
    memcpy(b + strs, names, sizeof names);
    memset(b + shoff, 0, 3 * 64);
    unsigned char *sh1 = b + shoff + 64, *sh2 = b + shoff + 128;
    put(sh1, 1, 4), put(sh1 + 4, 3, 4), put(sh1 + 24, strs, 8), put(sh1 + 32, sizeof names, 8);
    put(sh2, 11, 4), put(sh2 + 4, 1, 4), put(sh2 + 24, text, 8), put(sh2 + 32, 16 * n, 8);
    put(b + 0x28, shoff, 8), put(b + 0x3a, 64, 2), put(b + 0x3c, 3, 2), put(b + 0x3e, 1, 2);
    return shoff + 3 * 64;
}

#endif
