/* The options every kernel command shares (--iters, --emit, --arch, --backend). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/cuda_arch.h"

bool cli_arch(const char *v, char *why, size_t n)
{
    /* a name cute_cuda_arch_sm takes and says nothing of: a portable target (sm_90) is refused,
     * its 'a' named */
    return cute_cuda_arch_sm(v, why, n) && !why[0];
}

bool cli_env_arch(char *why, size_t n)
{
    const char *v = getenv("CUTEC_ARCH");
    char one[512];
    if (!v || !*v || cli_arch(v, one, sizeof one)) return true;
    return snprintf(why, n, "CUTEC_ARCH=%s: %s", v, one), false;
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
