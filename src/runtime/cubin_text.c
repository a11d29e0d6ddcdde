/* The .text sections of a cubin (cubin_text.h): the ELF's section table, names looked up in
 * its section-name table; a section whose bounds or name leave the file is skipped. */
#include <stdio.h>
#include <string.h>

#include "runtime/cubin_text.h"
#include "runtime/le_bytes.h"

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

uint64_t cubin_word(const unsigned char *text, size_t i, int high) { return le_get64(text + 16 * i + 8 * (high != 0)); }

bool cubin_text_sections(unsigned char *b, size_t len, void (*each)(unsigned char *text, size_t bytes, void *user),
                         void *user, char *err, size_t n)
{
    if (len < 64 || memcmp(b, "\177ELF", 4) || b[4] != 2 || b[5] != 1)
        return snprintf(err, n, "cubin: not a 64-bit little-endian ELF"), false;
    uint64_t shoff = le(b + 0x28, 8), shent = le(b + 0x3a, 2), shnum = le(b + 0x3c, 2), strndx = le(b + 0x3e, 2);
    if (shent < 64 || strndx >= shnum || shoff > len || shnum > (len - shoff) / shent)
        return snprintf(err, n, "cubin: the section table is outside it"), false;
    const unsigned char *names = b + shoff + strndx * shent;
    uint64_t noff = le(names + 24, 8), nsize = le(names + 32, 8);
    if (noff > len || nsize > len - noff) return snprintf(err, n, "cubin: bad section names"), false;
    int texts = 0;
    for (uint64_t s = 0; s < shnum; s++) {
        const unsigned char *h = b + shoff + s * shent;
        uint64_t name = le(h, 4), off = le(h + 24, 8), size = le(h + 32, 8);
        if (name >= nsize || off > len || size > len - off) continue;
        const char *nm = (const char *)b + noff + name;
        if (memchr(nm, 0, nsize - name) && !strncmp(nm, ".text.", 6)) each(b + off, size, user), texts++;
    }
    if (!texts) return snprintf(err, n, "cubin: no .text section"), false;
    return true;
}
