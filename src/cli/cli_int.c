/* The CLI's one integer parser: a whole decimal number in a range, or a message saying why
 * not.  Nothing is wrapped, clamped or half-read ("8x", "99999999999999999999", " 7" and
 * "0x10" are all refused). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

bool cli_int(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why, size_t n)
{
    char *end;
    bool digits = s && ((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9'));
    errno = 0;
    long long v = digits ? strtoll(s, &end, 10) : 0;
    if (!digits || *end)
        return snprintf(why, n, "\"%s\" is not a decimal integer", s ? s : ""), false;
    if (errno == ERANGE || v < lo || v > hi)
        return snprintf(why, n, "%s is out of range (%lld to %lld)", s, (long long)lo,
                        (long long)hi), false;
    *out = v;
    return true;
}

static bool parse_only;
void cli_parse_only_set(bool on) { parse_only = on; }
bool cli_parse_only(void) { return parse_only; }

bool cli_dims(const char *s, int max, int64_t hi, int64_t *dims, int *ndims, char *why, size_t n)
{
    char piece[32];
    int64_t product = 1;
    *ndims = 0;
    for (const char *p = s;; p++) {
        size_t len = 0;
        while (p[len] && p[len] != 'x') len++;
        if (*ndims == max)
            return snprintf(why, n, "\"%s\" has more than %d extents", s, max), false;
        if (len == 0 || len >= sizeof piece)
            return snprintf(why, n, "\"%s\" is not extents like 64x128", s), false;
        snprintf(piece, sizeof piece, "%.*s", (int)len, p);
        if (!cli_int(piece, 0, hi, &dims[*ndims], why, n)) return false;
        if (__builtin_mul_overflow(product, dims[(*ndims)++], &product) || product > hi)
            return snprintf(why, n, "\"%s\" has more than %lld elements", s, (long long)hi), false;
        p += len;
        if (!*p) return true;
    }
}
