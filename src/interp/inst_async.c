/* cp.async under the interpreter: copies in flight.  A cp.async reads its global source when
 * it is issued but its data lands in shared memory only at the cp.async.wait_group (or
 * wait_all) that covers its group, as on the GPU, where nothing says it has landed before.
 * Until then its destination bytes are marked pending: any shared access to them (a read
 * by the issuing thread before its wait, by another thread after a barrier, a store over
 * them) is reported with both sites, the access's and the copy's; a copy still pending
 * when the block ends is reported at its site.  Groups are per thread: commit_group closes
 * the thread's open copies into its next group; wait_group N lands all but its N newest
 * committed groups; wait_all commits, then lands everything. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

static bool add_copy(ictx *X, const icopy *c)
{
    if (!interp_grow(X, (void **)&X->copies, X->ncopies, &X->ccopies, sizeof *X->copies, 256)) return false;
    X->copies[X->ncopies++] = *c;
    for (uint32_t i = 0; i < c->bytes; i++)
        if (X->pending[c->dst + i] < UINT8_MAX) X->pending[c->dst + i]++;
    return true;
}

/* operands: dst (shared), src (global), [src-size] */
void inst_cp_async(ictx *X, const dinst *d, const imask *m)
{
    uint32_t bytes = (uint32_t)d->row->num;
    if (X->banks) interp_banks_operand(X, d, m, 0, bytes); /* its shared writes */
    EACH(X, m, t, {
        icopy c = {interp_addr(X, d, 0, t), t, X->groups ? X->groups[t] : 0, bytes, d, {0}};
        uint64_t src = interp_addr(X, d, 1, t);
        uint32_t n = d->row->flag ? interp_get32(X, d, 2, t) : bytes;
        if (n > bytes) n = bytes; /* PTX: src-size larger than cp-size is undefined; clamp */
        if (!interp_sbounds(X, d, t, c.dst, bytes, bytes, 1)) continue;
        if (n && !interp_gcheck(X, d, t, src, n, bytes, 0)) continue;
        if (n) memcpy(c.data, (const void *)(uintptr_t)src, n);
        if (!add_copy(X, &c)) return;
    });
}

void inst_cp_commit(ictx *X, const dinst *d, const imask *m)
{
    (void)d;
    if (X->groups) EACH(X, m, t, { X->groups[t]++; });
}

/* land the copies of the threads of m in groups below limit[t] (in issue order) */
static void land(ictx *X, const imask *m, const uint32_t *limit)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < X->ncopies; i++) {
        icopy c = X->copies[i];
        if (c.tid < m->lo || c.tid >= m->hi || !m->on[c.tid] || c.group >= limit[c.tid]) {
            X->copies[keep++] = c;
            continue;
        }
        for (uint32_t b = 0; b < c.bytes; b++)
            if (X->pending[c.dst + b] < UINT8_MAX) X->pending[c.dst + b]--;
        if (interp_scheck(X, c.site, c.tid, c.dst, c.bytes, c.bytes, 1))
            memcpy(X->smem + c.dst, c.data, c.bytes);
    }
    X->ncopies = keep;
}

static void wait_groups(ictx *X, const imask *m, int64_t newest)
{
    uint32_t *limit = malloc(X->nthr * sizeof *limit);
    if (!limit) {
        X->oom = X->stop = true;
        return;
    }
    for (uint32_t t = 0; t < X->nthr; t++)
        limit[t] = (int64_t)X->groups[t] > newest ? X->groups[t] - (uint32_t)newest : 0;
    land(X, m, limit);
    free(limit);
}

void inst_cp_wait(ictx *X, const dinst *d, const imask *m)
{
    if (X->ncopies) wait_groups(X, m, d->imm);
}

void inst_cp_wait_all(ictx *X, const dinst *d, const imask *m)
{
    inst_cp_commit(X, d, m);
    if (X->ncopies) wait_groups(X, m, 0);
}

void interp_async_block_end(ictx *X)
{
    if (!X->groups) return; /* no shared memory: no copies */
    memset(X->groups, 0, X->nthr * sizeof *X->groups);
    if (!X->ncopies) return;
    for (uint32_t i = 0; i < X->ncopies && !X->stop; i++) {
        const icopy *c = &X->copies[i];
        if (!checking(X, CUTE_CHECK_ASYNC_COPY)) break;
        interp_report(X, c->site, c->tid, CUTE_CHECK_ASYNC_COPY, 0, (int64_t)c->dst, c->bytes,
                      "this copy of %u bytes to shared bytes [%" PRIu64 ",%" PRIu64 ") is still "
                      "pending when the kernel ends: no cp.async.wait_group or wait_all after it "
                      "covers its group",
                      c->bytes, c->dst, c->dst + c->bytes);
    }
    X->ncopies = 0;
    memset(X->pending, 0, X->L->smem);
}
