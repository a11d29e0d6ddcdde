/* Check reports: one per (check, instruction) in a block, counting the further threads that
 * fail the same way there.  The first report stops the block (and the launch) unless the
 * options ask to keep going. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

static const char *names[CUTE_CHECK_COUNT] = {
    [CUTE_CHECK_GLOBAL_BOUNDS] = "out-of-bounds global access",
    [CUTE_CHECK_SHARED_BOUNDS] = "out-of-bounds shared access",
    [CUTE_CHECK_UNINIT_SHARED] = "uninitialized shared read",
    [CUTE_CHECK_SHARED_RACE] = "shared-memory race",
    [CUTE_CHECK_GLOBAL_RACE] = "global-memory race",
    [CUTE_CHECK_PEER_RACE] = "peer-memory race",
    [CUTE_CHECK_DIVERGENT_BARRIER] = "divergent barrier",
    [CUTE_CHECK_MISALIGNED] = "misaligned access",
    [CUTE_CHECK_STEP_BUDGET] = "step budget exceeded",
    [CUTE_CHECK_DIV_ZERO] = "integer division by zero",
    [CUTE_CHECK_WARP_INACTIVE] = "inactive lane in a warp-collective op",
    [CUTE_CHECK_UNSUPPORTED] = "not supported in the interpreter",
    [CUTE_CHECK_ASYNC_COPY] = "asynchronous copy not waited for",
    [CUTE_CHECK_TMA] = "bad TMA operand",
    [CUTE_CHECK_DEADLOCK] = "deadlock",
    [CUTE_CHECK_SYNC_MISUSE] = "synchronization misuse",
    [CUTE_CHECK_TMEM] = "tensor-memory misuse",
};

const char *interp_op_name(const dinst *d)
{
    if (!d) return "?";
    if (d->op != CUTE_OP_INST) return cute_op_name((cute_op)d->op);
    const cute_inst_info *I = cute_inst_info_of((cute_inst)d->imm2);
    return I ? I->mnemonic : "?";
}

const char *cute_interp_check_name(cute_interp_check k)
{
    return (unsigned)k < CUTE_CHECK_COUNT ? names[k] : "?";
}

void interp_thread_dim3(const ictx *X, uint32_t t, cute_dim3 *out)
{
    const ilaunch *L = X->L;
    *out = (cute_dim3){L->tid[0][t], L->tid[1][t], L->tid[2][t]};
}

const char *interp_site(const dinst *d, char *buf, size_t n)
{
    if (d && d->file)
        snprintf(buf, n, "%s:%d", d->file, d->line);
    else
        snprintf(buf, n, "?");
    return buf;
}

bool interp_report(ictx *X, const dinst *d, uint32_t t, cute_interp_check kind,
                   uint64_t buffer, int64_t offset, uint32_t bytes, const char *fmt, ...)
{
    /* a deadlock is one finding: every waiting warp of it is reported, whatever the limit */
    bool each = kind == CUTE_CHECK_DEADLOCK;
    for (int i = 0; i < X->nreps && !each; i++)
        if (X->rep_inst[i] == d && X->reps[i].kind == kind) {
            X->reps[i].more++;
            return false;
        }
    int limit = X->L->max_reports > 1 ? X->L->max_reports : 1;
    if (X->nreps >= limit && !each) {
        X->stop = true;
        return false;
    }
    if (X->nreps == X->creps) {
        int nc = X->creps ? X->creps * 2 : 4;
        cute_interp_report *r = realloc(X->reps, (size_t)nc * sizeof *r);
        const dinst **ri = r ? realloc(X->rep_inst, (size_t)nc * sizeof *ri) : NULL;
        if (r) X->reps = r;
        if (!ri) {
            X->oom = X->stop = true;
            return false;
        }
        X->rep_inst = ri;
        X->creps = nc;
    }
    cute_interp_report *r = &X->reps[X->nreps];
    X->rep_inst[X->nreps++] = d;
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->block = (cute_dim3){X->ctaid[0], X->ctaid[1], X->ctaid[2]};
    if (t != UINT32_MAX) interp_thread_dim3(X, t, &r->thread);
    r->op = interp_op_name(d);
    r->file = d ? d->file : NULL;
    r->line = d ? d->line : 0;
    r->buffer = buffer;
    r->offset = offset;
    r->bytes = bytes;
    char detail[400], site[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    char rank[24] = "";
    if (X->group) snprintf(rank, sizeof rank, "rank %u ", X->grank);
    int len = snprintf(r->msg, sizeof r->msg, "%s: %sblock (%u,%u,%u) thread (%u,%u,%u): %s at %s: %s",
             names[kind], rank, r->block.x, r->block.y, r->block.z, r->thread.x, r->thread.y,
             r->thread.z, r->op, interp_site(d, site, sizeof site), detail);
    if (len >= (int)sizeof r->msg) memcpy(r->msg + sizeof r->msg - 4, "...", 4); /* cut */
    if (X->L->max_reports <= 1 || X->nreps >= limit || kind == CUTE_CHECK_STEP_BUDGET)
        X->stop = true;
    return false;
}
