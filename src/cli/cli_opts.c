/* The options every kernel command shares (--iters, --emit, --arch, --backend). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_arch(const char *v, char *why, size_t n)
{
    char *end = NULL;
    long sm = !strncmp(v, "sm_", 3) && v[3] >= '0' && v[3] <= '9' ? strtol(v + 3, &end, 10) : 0;
    if (sm >= 90 && sm < 10000 && !*end) /* the portable target: no wgmma, tcgen05, e2m1 cvt */
        return snprintf(why, n, "\"%s\" is the portable target, without the instructions the library uses "
                        "there: --arch %sa, as the driver names the card (docs/cards.md)", v, v), false;
    if (sm >= 70 && sm < 10000 && (!*end || !strcmp(end, "a") || !strcmp(end, "f"))) return true;
    return snprintf(why, n, "\"%s\" is not a target like sm_80, sm_90a or sm_100a (sm_70 or newer)", v), false;
}

bool cli_kernel_option(cli_kernel_opts *o, const char *k, const char *v, bool *ok, char *why, size_t n)
{
    int64_t x = 0;
    if (!strcmp(k, "--iters"))
        *ok = cli_int(v, 1, 1000, &x, why, n), o->iters = (int)x;
    else if (!strcmp(k, "--emit"))
        o->emit = v, *ok = true;
    else if (!strcmp(k, "--arch"))
        o->arch = v, *ok = cli_arch(v, why, n);
    else if (!strcmp(k, "--backend"))
        o->backend = v, *ok = true;
    else
        return false;
    return true;
}

bool cli_is_help(const char *s)
{
    return strcmp(s, "help") == 0 || strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0;
}
