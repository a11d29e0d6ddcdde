/* Inline PTX (the ASM op): the few instructions the interpreter emulates, recognised by
 * their text; anything else fails compile with "not supported in the interpreter: ...". */
#include <ctype.h>
#include <string.h>

#include "interp/interp_internal.h"

struct iasm {
    const char *name;
    iop_fn fn;
};

const iasm *interp_asm_match(const char *ptx, const cute_type *types, uint32_t n, uint32_t nout,
                             const char **why)
{
    (void)ptx, (void)types, (void)n, (void)nout;
    *why = "no emulation of this instruction";
    return NULL;
}

iop_fn interp_asm_fn(const iasm *a) { return a->fn; }

bool cute_interp_supports_asm(const char *ptx)
{
    const char *why;
    return ptx && interp_asm_match(ptx, NULL, 0, 0, &why) != NULL;
}
