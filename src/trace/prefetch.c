/* cute_prefetch_l2 / cute_prefetch_l1: prefetch.global.L2 / .L1 as DSL calls, hints that bring
 * the cache line holding an address into L2 (the NVFP4 GEMV's next k-tile) or into the SM's L1
 * (the rows kernels' next chunk of columns) ahead of the loads that read it. */
#define CUTEC_NO_SITE_MACROS /* this file defines the functions itself */
#include "ctx_internal.h"
#include "cutec/inst.h"

static void prefetch(cute_ctx *c, cute_val p, int inst, const char *call)
{
    if (!ctx_row_ok(c, inst, call) || !ctx_usable(c, p, "the address")) return;
    if (p.t.dtype != CUTE_PTR || p.t.space != CUTE_GMEM) {
        cute_ctx_fail(c, "%s: the address must be a global-memory pointer", call);
        return;
    }
    cute_ir_inst_op(&c->b, inst, NULL, 0, &p.r, 1, 0);
}

void cute_prefetch_l2(cute_ctx *c, cute_val p) { prefetch(c, p, CUTE_INST_PREFETCH_GLOBAL_L2, "cute_prefetch_l2"); }

void cute_prefetch_l1(cute_ctx *c, cute_val p) { prefetch(c, p, CUTE_INST_PREFETCH_GLOBAL_L1, "cute_prefetch_l1"); }
