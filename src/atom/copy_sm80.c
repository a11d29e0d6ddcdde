/* The emitters of ldmatrix, stmatrix and cp.async, and cp.async's groups. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_rows.h"
#include "trace/ctx_internal.h"

void ldsm_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
               cute_vreg pred)
{
    (void)src, (void)dst, (void)pred;
    cute_ctx_fail(c, "%s: not emitted yet", atom->name);
}

void stsm_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
               cute_vreg pred)
{
    (void)src, (void)dst, (void)pred;
    cute_ctx_fail(c, "%s: not emitted yet", atom->name);
}

void cp_async_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
                   cute_vreg pred)
{
    (void)src, (void)dst, (void)pred;
    cute_ctx_fail(c, "%s: not emitted yet", atom->name);
}

void cute_cp_async_commit_group(cute_ctx *c) { cute_ctx_fail(c, "cp.async: not emitted yet"); }
void cute_cp_async_wait_group(cute_ctx *c, int n) { (void)n; cute_ctx_fail(c, "cp.async: not emitted yet"); }
void cute_cp_async_wait_all(cute_ctx *c) { cute_ctx_fail(c, "cp.async: not emitted yet"); }
