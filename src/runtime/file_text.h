/* A whole (small) file read into memory: what a tool the library runs (ptxas, cuobjdump)
 * wrote to a temporary file.  NUL-terminated (a text's end; a cubin's length in *len). */
#ifndef CUTEC_FILE_TEXT_H
#define CUTEC_FILE_TEXT_H

#include <stdio.h>
#include <stdlib.h>

/* malloc'd, NULL where the file cannot be read whole; *len its bytes (len may be NULL) */
static inline char *file_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) free(s), s = NULL;
    if (s) {
        s[n] = 0;
        if (len) *len = (size_t)n;
    }
    fclose(f);
    return s;
}

#endif
