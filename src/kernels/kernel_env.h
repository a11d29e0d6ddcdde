/* A kernel's reading of a closed-set CUTEC_* setting (env/env_choice.h) while it compiles: a
 * value not in the set fails the compile through cute_alg_fail with env_choice's message
 * ("CUTEC_X=value: not one of a|b|c"), never a silent default. */
#ifndef CUTEC_KERNEL_ENV_H
#define CUTEC_KERNEL_ENV_H

#include "cutec/int.h"
#include "env/env_choice.h"

/* the index of $name's value in choices, dflt when unset or empty; dflt after failing a when
 * it is none of them */
static inline int kernel_env_choice(cute_alg *a, const char *name, const char *choices, int dflt)
{
    char err[256];
    int i = cute_env_choice_err(name, choices, dflt, err, sizeof err);
    if (i < 0) cute_alg_fail(a, "%s", err);
    return i < 0 ? dflt : i;
}

/* a diagnostic's setting (CUTEC_*_DIAG: "none|..."): its index like kernel_env_choice, 0 (none)
 * by default; any other says once a process, on stderr, that the kernels compiled under it
 * compute wrong results by design (they time what is left of a kernel: docs/dsl.md), so that a
 * setting left in a shell is never silently wrong output */
static inline int kernel_env_diag(cute_alg *a, const char *name, const char *choices)
{
    int i = kernel_env_choice(a, name, choices, 0);
    if (i > 0) cute_env_warn_diag(name);
    return i;
}

#endif
