/* What a call writes to stderr, for tests of warnings: check_stderr_begin() sends stderr to a
 * temporary file, check_stderr_end() puts it back and returns what was written (static). */
#ifndef CUTEC_CHECK_STDERR_H
#define CUTEC_CHECK_STDERR_H

#include <stdio.h>
#include <unistd.h>

static int check_stderr_saved = -1;
static FILE *check_stderr_tmp;

static inline void check_stderr_begin(void)
{
    fflush(stderr);
    check_stderr_tmp = tmpfile();
    check_stderr_saved = dup(2);
    if (check_stderr_tmp) dup2(fileno(check_stderr_tmp), 2);
}

static inline const char *check_stderr_end(void)
{
    static char text[4096];
    fflush(stderr);
    dup2(check_stderr_saved, 2);
    close(check_stderr_saved);
    text[0] = 0;
    if (!check_stderr_tmp) return text;
    rewind(check_stderr_tmp);
    size_t n = fread(text, 1, sizeof text - 1, check_stderr_tmp);
    text[n] = 0;
    fclose(check_stderr_tmp);
    return text;
}

#endif
