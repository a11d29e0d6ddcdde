/* Trace-time proofs on atoms that CuTe DSL makes too: an atom runs only on an architecture
 * that has its instruction, and a tiled atom is used by exactly the threads it tiles. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "trace/ctx_internal.h"

bool atom_arch_ok(cute_ctx *c, int min_arch, const char *atom, const char *what)
{
    if (!min_arch || !c->target_sm || min_arch <= c->target_sm) return true;
    return cute_ctx_fail(c, "%s: %s needs sm_%d or newer; this compile targets sm_%d (the "
                            "device's, or CUTEC_ARCH): choose an atom the target has",
                         what, atom, min_arch, c->target_sm);
}

bool atom_threads_ok(cute_ctx *c, int64_t threads, const char *tiled, const char *what)
{
    if (!c->block_threads || threads == c->block_threads) return true;
    if (atom_threads_here(c) == threads) return true; /* the branch of a warp-specialized kernel */
    return cute_ctx_fail(c, "%s: the %s is made for %lld threads but the kernel is launched "
                            "with %lld threads per block (%s): make the block %lld threads, or "
                            "the %s's thread layout %lld",
                         what, tiled, (long long)threads, (long long)c->block_threads,
                         threads > c->block_threads ? "part of every tile would not be touched"
                                                    : "its threads would repeat the tile's work",
                         (long long)threads, tiled, (long long)c->block_threads);
}
