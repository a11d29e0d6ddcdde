/* The options every kernel command shares (--iters, --emit, --arch, --backend). */
#include <string.h>

#include "cli.h"

bool cli_kernel_option(cli_kernel_opts *o, const char *k, const char *v, bool *ok, char *why, size_t n)
{
    int64_t x = 0;
    if (!strcmp(k, "--iters"))
        *ok = cli_int(v, 1, 1000, &x, why, n), o->iters = (int)x;
    else if (!strcmp(k, "--emit"))
        o->emit = v, *ok = true;
    else if (!strcmp(k, "--arch"))
        o->arch = v, *ok = true;
    else if (!strcmp(k, "--backend"))
        o->backend = v, *ok = true;
    else
        return false;
    return true;
}
