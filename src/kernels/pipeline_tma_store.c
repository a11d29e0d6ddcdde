/* cutec/pipeline.h: PipelineTmaStore, the buffers a thread's TMA stores read out, counted in
 * that thread's bulk groups (no barriers: the groups are the thread's own). */
#define CUTEC_NO_SITE_MACROS /* the user's call site stays the site of what this emits */
#include "cutec/pipeline.h"
#include "cutec/sync.h"
#include "cutec/tma_copy.h"
#include "trace/ctx_internal.h"

/* the bulk-group wait's count is 0..63 (its row's immediate) */
enum { MOST_STAGES = 64 };

cute_pipeline_tma_store cute_pipeline_tma_store_create(cute_ctx *c, int stages)
{
    cute_pipeline_tma_store p = {stages};
    if (ctx_ok(c) && (stages < 1 || stages > MOST_STAGES))
        cute_ctx_fail(c, "cute_pipeline_tma_store_create: %d stages (1 to %d)", stages, MOST_STAGES);
    return p;
}

static bool usable(cute_ctx *c, const cute_pipeline_tma_store *p, const char *call)
{
    if (!ctx_ok(c)) return false;
    if (p->stages < 1 || p->stages > MOST_STAGES)
        return cute_ctx_fail(c, "%s: a TMA store pipeline of %d stages (not made by "
                             "cute_pipeline_tma_store_create?)", call, p->stages);
    return true;
}

void cute_pipeline_tma_store_producer_acquire(cute_ctx *c, const cute_pipeline_tma_store *p)
{
    if (usable(c, p, "cute_pipeline_tma_store_producer_acquire")) cute_tma_store_wait(c, p->stages - 1, true);
}

void cute_pipeline_tma_store_producer_commit(cute_ctx *c, const cute_pipeline_tma_store *p)
{
    if (usable(c, p, "cute_pipeline_tma_store_producer_commit")) cute_cp_async_bulk_commit_group(c);
}

void cute_pipeline_tma_store_producer_tail(cute_ctx *c, const cute_pipeline_tma_store *p)
{
    if (usable(c, p, "cute_pipeline_tma_store_producer_tail")) cute_tma_store_wait(c, 0, false);
}
