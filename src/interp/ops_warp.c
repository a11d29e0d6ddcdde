/* Warp-collective ops: SHFL and VOTE over the 32-lane warps of a block (lane = linear
 * thread index % 32; a block whose size is not a multiple of 32 ends with a partial warp).
 *
 * SHFL follows __shfl_*_sync with a full mask and width 32: idx reads lane (b & 31); up
 * reads lane - b and down lane + b, keeping the own value when that is outside the warp;
 * xor reads lane ^ b, keeping the own value when that is outside.  Reading a lane that is
 * not active (diverged away, exited, or past the end of a partial warp) is undefined on the
 * GPU: here it is a check (CUTE_CHECK_WARP_INACTIVE).
 * VOTE counts the active lanes only: any / all of their predicates, and ballot's bit i set
 * when lane i is active with a true predicate (inactive lanes give 0, as __ballot_sync). */
#include "interp/interp_internal.h"

static void shfl(ictx *X, const dinst *d, const imask *m)
{
    const islot *A = REG(X, d->a[0]), *B = REG(X, d->a[1]);
    islot *D = REG(X, d->d), got[32];
    const uint8_t *on = m->on;
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) {
        uint32_t nl = X->nthr - w0 < 32 ? X->nthr - w0 : 32;
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t t = w0 + i;
            if (!on[t]) continue;
            uint32_t b = B[t].u32, src;
            switch (d->imm) {
            case CUTE_SHFL_IDX: src = b & 31; break;
            case CUTE_SHFL_UP: src = b > i ? i : i - b; break;
            case CUTE_SHFL_DOWN: src = b >= 32 - i ? i : i + b; break;
            default: src = (i ^ b) >= 32 ? i : i ^ b; break;
            }
            if (src >= nl || !on[w0 + src]) {
                if (checking(X, CUTE_CHECK_WARP_INACTIVE))
                    interp_report(X, d, t, CUTE_CHECK_WARP_INACTIVE, 0, 0, 0,
                                  "shuffle reads lane %u of warp %u, which %s", src, w0 / 32,
                                  src >= nl ? "does not exist (a partial warp)"
                                            : "is not active here");
                if (src >= nl) src = i;
            }
            got[i] = A[w0 + src];
        }
        for (uint32_t i = 0; i < nl; i++)
            if (on[w0 + i]) D[w0 + i] = got[i];
    }
}

static void vote(ictx *X, const dinst *d, const imask *m)
{
    const islot *A = REG(X, d->a[0]);
    islot *D = REG(X, d->d);
    const uint8_t *on = m->on;
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) {
        uint32_t nl = X->nthr - w0 < 32 ? X->nthr - w0 : 32, ballot = 0, active = 0;
        for (uint32_t i = 0; i < nl; i++)
            if (on[w0 + i]) {
                active |= 1u << i;
                if (A[w0 + i].u8) ballot |= 1u << i;
            }
        if (!active) continue;
        for (uint32_t i = 0; i < nl; i++) {
            if (!on[w0 + i]) continue;
            islot *r = &D[w0 + i];
            r->u64 = 0;
            if (d->imm == CUTE_VOTE_BALLOT)
                r->u32 = ballot;
            else if (d->imm == CUTE_VOTE_ANY)
                r->u8 = ballot != 0;
            else
                r->u8 = ballot == active;
        }
    }
}

iop_fn interp_pick_warp(const dinst *d, const char **why)
{
    if (d->op == CUTE_OP_SHFL && d->imm >= CUTE_SHFL_IDX && d->imm <= CUTE_SHFL_XOR) return shfl;
    if (d->op == CUTE_OP_VOTE && d->imm >= CUTE_VOTE_ANY && d->imm <= CUTE_VOTE_BALLOT) return vote;
    *why = "this warp operation mode";
    return NULL;
}
