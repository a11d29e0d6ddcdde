/* cute_prefetch_l2: prefetch.global.L2 as a DSL call, a hint that brings the cache line
 * holding an address into L2 ahead of the loads that read it (the NVFP4 GEMV's next k-tile). */
#define CUTEC_NO_SITE_MACROS /* this file defines the function itself */
#include "ctx_internal.h"
#include "cutec/inst.h"

void cute_prefetch_l2(cute_ctx *c, cute_val p)
{
    const char *call = "cute_prefetch_l2";
    if (!ctx_row_ok(c, CUTE_INST_PREFETCH_GLOBAL_L2, call) || !ctx_usable(c, p, "the address")) return;
    if (p.t.dtype != CUTE_PTR || p.t.space != CUTE_GMEM) {
        cute_ctx_fail(c, "%s: the address must be a global-memory pointer", call);
        return;
    }
    cute_ir_inst_op(&c->b, CUTE_INST_PREFETCH_GLOBAL_L2, NULL, 0, &p.r, 1, 0);
}
