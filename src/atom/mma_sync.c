/* The mma.sync emitter: one warp-collective instruction per atom. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_rows.h"
#include "trace/ctx_internal.h"

void mma_sync_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A,
                   cute_tensor B, cute_tensor C)
{
    (void)D, (void)A, (void)B, (void)C;
    cute_ctx_fail(c, "%s: mma.sync is not emitted yet", atom->name);
}
