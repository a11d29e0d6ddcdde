/* The Hopper GEMM's flags between GPUs (cutec_gemm_peer, docs/peer.md): a tile of C waits
 * for a flag before the producer loads it, and signals one once its stores have landed, so
 * that a tensor-parallel GEMM overlaps its communication in the kernel, with no event or
 * host round trip between its pieces.
 *
 * Flag (i, j) of a u32 (ceil(M/64), ceil(N/64)) tensor stands for C's 64 x 64 block (i, j);
 * a tile uses the flag of its first block.  The waiting tile's producer (one thread) spins
 * with system-scope acquires, then orders its TMA loads after them (fence.proxy.async); the
 * consumers that read C (beta) are ordered after it by the stage's barrier.  A tile is
 * signalled one main loop late, after the next tile's main loop (or the drain, for the last):
 * its TMA stores, to another GPU's memory perhaps, had that long to land instead of stalling
 * the consumers.  Then the store issuers wait for them to complete (not only to be read out
 * of shared memory), the consumers meet, and one of them stores the value with a
 * system-scope release.  The cooperative schedule only (the ping-pong warpgroups share the
 * epilogue's barrier in turns).  With a mirror (cfg.peer_mirror) the TMA-store epilogue
 * stores each box of C twice, to C and to the mirror (hopper_store.c), before the signal. */
#include "cutec/notation.h"
#include "cutec/peer.h"
#include "cutec/sync.h"
#include "cutec/tma_copy.h"
#include "kernels/gemm/gemm_internal.h"

/* the consumers' meeting before a flag: a named barrier of its own, 256 threads.  Not 1 or 2,
 * where each cooperative warpgroup meets its own 128 (hopper_store.c): one id used with two
 * thread counts is an illegal instruction on the GPU (it was, on two H200s).  Flags run in
 * the cooperative schedule only, so the ping-pong turns' 2..5 are not in such a kernel. */
enum { WARPGROUP = 128, PEER_BARRIER = 3 };

/* tile (tm, tn)'s flag: a rank-0 view of element (tm bm / 64, tn bn / 64) */
static cute_tensor flag_of(cute_ctx *c, const gemm_plan *p, cute_tensor flags, cute_int tm, cute_int tn)
{
    cute_alg *a = cute_ctx_alg(c);
    if (p->bm % CUTE_GEMM_FLAG_ROWS || p->bn % CUTE_GEMM_FLAG_COLS)
        cute_ctx_fail(c, "gemm peer flags: tiles of %lld x %lld (whole 64 x 64 blocks needed)", (long long)p->bm,
                      (long long)p->bn);
    cute_int i = cute_mul(a, tm, cute_i(p->bm / CUTE_GEMM_FLAG_ROWS));
    cute_int j = cute_mul(a, tn, cute_i(p->bn / CUTE_GEMM_FLAG_COLS));
    return cute_tensor_slice(c, flags, cute_tuple_fmt(a, "(%I,%I)", i, j));
}

static cute_val nonzero(cute_ctx *c, cute_int v) { return cute_int_lt(c, cute_i(0), v); }

static bool cooperative(cute_ctx *c, const gemm_plan *p)
{
    if (p->pingpong) cute_ctx_fail(c, "gemm peer flags: the cooperative schedule only (ping-pong asked)");
    return !p->pingpong;
}

cute_tensor gemm_peer_mirror(cute_ctx *c, const gemm_plan *p, const cute_arg *arg)
{
    if (!p->cfg.peer_mirror) return arg[2].tensor;
    if (!p->tma_store)
        cute_ctx_fail(c, "gemm peer: a mirror of C is stored by the TMA-store epilogue (a 16-bit C in tiles of whole "
                      "64-column blocks, c_store not ST)");
    return arg[9].tensor;
}

void gemm_peer_wait(cute_ctx *c, const gemm_plan *p, const gemm_peer *f, cute_int tm, cute_int tn)
{
    if (!p->cfg.peer_flags || !cooperative(c, p)) return;
    CUTE_IF(c, nonzero(c, f->wait_value)) {
        cute_peer_wait(c, flag_of(c, p, f->wait, tm, tn), cute_i(0), f->wait_value);
        cute_fence_proxy_async(c); /* the TMA loads (the async proxy) after the acquire */
    }
}

cute_tensor gemm_peer_signal_flag(cute_ctx *c, const gemm_plan *p, const gemm_peer *f, cute_int tm, cute_int tn)
{
    return p->cfg.peer_flags ? flag_of(c, p, f->signal, tm, tn) : f->signal;
}

void gemm_peer_signal(cute_ctx *c, const gemm_plan *p, const gemm_peer *f, cute_int tid, cute_val when, cute_tensor flag)
{
    if (!p->cfg.peer_flags || !cooperative(c, p)) return;
    cute_alg *a = cute_ctx_alg(c);
    int threads = WARPGROUP * p->consumers;
    cute_val first = cute_int_eq(c, tid, cute_i(0));
    CUTE_IF(c, cute_val_binop(c, CUTE_OP_AND, nonzero(c, f->signal_value), when)) {
        /* each warpgroup's store issuer (its thread 0): its stores have landed */
        if (p->tma_store) {
            CUTE_IF(c, cute_int_eq(c, cute_mod(a, tid, cute_i(WARPGROUP)), cute_i(0))) {
                cute_tma_store_wait(c, 0, false);
                cute_fence_proxy_async(c);
            }
        }
        cute_named_barrier_sync(c, PEER_BARRIER, threads); /* every consumer's stores of the tile */
        CUTE_IF(c, first) cute_peer_release(c, flag, cute_i(0), f->signal_value);
    }
}
