/* The .text sections of a cubin (cubin_text.h): the ELF's section table, names looked up in
 * its section-name table.  The whole table is checked before any section is handed out, so a
 * rewrite never stops half done on a malformed file. */
#include <stdio.h>
#include <string.h>

#include "runtime/cubin_text.h"
#include "runtime/le_bytes.h"

enum { SHT_NOBITS = 8 }; /* a section with no bytes in the file (.bss, .nv.shared.*) */

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

uint64_t cubin_word(const unsigned char *text, size_t i, int high) { return le_get64(text + 16 * i + 8 * (high != 0)); }

bool cubin_arch_sm90(const char *arch) { return arch && (!strcmp(arch, "sm_90") || !strcmp(arch, "sm_90a")); }

bool sass_has_qgmma(const unsigned char *text, size_t bytes)
{
    for (size_t i = 0; i < bytes / 16; i++)
        if ((cubin_word(text, i, 0) & 0xfff) == 0x9f3) return true;
    return false;
}

void sass_ffma_runs(unsigned char *text, size_t bytes, size_t min,
                    void (*each)(unsigned char *text, size_t from, size_t len, void *user), void *user)
{
    size_t n = bytes / 16, from = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && sass_is_ffma(cubin_word(text, i, 0))) continue;
        if (i - from >= min) each(text, from, i - from, user);
        from = i + 1;
    }
}

typedef struct elf_view {
    unsigned char *b;
    size_t len;
    uint64_t shoff, shent, shnum, noff, nsize;
} elf_view;

/* section s's name, or NULL when it is not a string inside the name table */
static const char *section_name(const elf_view *e, const unsigned char *h)
{
    uint64_t name = le(h, 4);
    if (name >= e->nsize || !memchr(e->b + e->noff + name, 0, e->nsize - name)) return NULL;
    return (const char *)e->b + e->noff + name;
}

/* the header and section table: every section named, its bytes inside the file, a .text
 * section whole instructions; false with err at the first that is not */
static bool check_sections(elf_view *e, char *err, size_t n)
{
    unsigned char *b = e->b;
    if (e->len < 64 || memcmp(b, "\177ELF", 4) || b[4] != 2 || b[5] != 1)
        return snprintf(err, n, "cubin: not a 64-bit little-endian ELF"), false;
    e->shoff = le(b + 0x28, 8), e->shent = le(b + 0x3a, 2), e->shnum = le(b + 0x3c, 2);
    uint64_t strndx = le(b + 0x3e, 2);
    if (e->shent < 64 || strndx >= e->shnum || e->shoff > e->len || e->shnum > (e->len - e->shoff) / e->shent)
        return snprintf(err, n, "cubin: the section table is outside it"), false;
    const unsigned char *names = b + e->shoff + strndx * e->shent;
    e->noff = le(names + 24, 8), e->nsize = le(names + 32, 8);
    if (e->noff > e->len || e->nsize > e->len - e->noff) return snprintf(err, n, "cubin: bad section names"), false;
    for (uint64_t s = 1; s < e->shnum; s++) { /* (section 0 is the null section) */
        const unsigned char *h = b + e->shoff + s * e->shent;
        uint64_t type = le(h + 4, 4), off = le(h + 24, 8), size = le(h + 32, 8);
        const char *nm = section_name(e, h);
        if (!nm)
            return snprintf(err, n, "cubin: section %llu's name is outside the name table", (unsigned long long)s),
                   false;
        if (type != SHT_NOBITS && (off > e->len || size > e->len - off))
            return snprintf(err, n, "cubin: section %.64s is outside the file", nm), false;
        if (strncmp(nm, ".text.", 6)) continue;
        if (type == SHT_NOBITS || size % 16)
            return snprintf(err, n, "cubin: %.64s is not whole 16-byte instructions", nm), false;
    }
    return true;
}

bool cubin_text_sections(unsigned char *b, size_t len, void (*each)(unsigned char *text, size_t bytes, void *user),
                         void *user, char *err, size_t n)
{
    elf_view e = {.b = b, .len = len};
    if (!check_sections(&e, err, n)) return false;
    for (uint64_t s = 1; s < e.shnum; s++) {
        const unsigned char *h = b + e.shoff + s * e.shent;
        if (!strncmp(section_name(&e, h), ".text.", 6)) each(b + le(h + 24, 8), le(h + 32, 8), user);
    }
    return true;
}
