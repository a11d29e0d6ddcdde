/* Reductions across the lanes of a warp by shuffles: xor butterflies (every lane gets the
 * result) or shuffles down (the group's first lane does), over aligned groups of 1 to 32
 * lanes. */
#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/reduce.h"

static bool width_ok(cute_ctx *c, const cute_reducer *r, int width, const char *what)
{
    if (cute_ctx_failed(c)) return false;
    if (!r || r->arity < 1 || r->arity > CUTE_REDUCER_MAX_ARITY || (!r->combine && r->arity != 1))
        return cute_ctx_fail(c, "%s: a reducer of 1 to %d values (a combine function for more than one)",
                             what, CUTE_REDUCER_MAX_ARITY);
    if (width < 1 || width > 32 || (width & (width - 1)))
        return cute_ctx_fail(c, "%s over %d lanes: the width must be a power of two from 1 to 32 "
                                "(a divisor of the warp)", what, width);
    return true;
}

/* one step: every value from lane (lane mode offset), combined with this lane's */
static void step(cute_ctx *c, const cute_reducer *r, cute_val *v, int offset, cute_shfl mode)
{
    cute_val other[CUTE_REDUCER_MAX_ARITY];
    cute_val lane = cute_val_int(c, CUTE_I32, offset);
    for (int i = 0; i < r->arity; i++) other[i] = cute_val_shfl(c, v[i], lane, mode);
    cute_reducer_apply(c, r, v, other, v);
}

void cute_warp_allreduce(cute_ctx *c, const cute_reducer *r, cute_val *v, int width)
{
    if (!width_ok(c, r, width, "warp all-reduce")) return;
    for (int offset = width / 2; offset >= 1; offset /= 2) /* unrolled at trace time */
        step(c, r, v, offset, CUTE_SHFL_XOR);
}

/* lane g + i takes lane g + i + offset's value: lane g's chain covers g .. g + width - 1;
 * a lane past 31 reads itself (its result is not used) */
void cute_warp_reduce(cute_ctx *c, const cute_reducer *r, cute_val *v, int width)
{
    if (!width_ok(c, r, width, "warp reduce")) return;
    for (int offset = width / 2; offset >= 1; offset /= 2)
        step(c, r, v, offset, CUTE_SHFL_DOWN);
}
