/* Stream-K's fixup (streamk.c divides the work): a piece that leaves its tile unfinished
 * writes its accumulators to its block's workspace slot and raises the block's flag; the
 * piece that finishes the tile (a tile spans at most two runs) waits for the flag of the
 * block below, lowers it again (so the next kernel finds it down) and starts its
 * accumulators from that block's partial instead of zeros, its wgmmas adding on: no second
 * set of registers for the partial beside the accumulators (added after the main loop, it
 * made ptxas spill 556 bytes, in the main loop too).  A slot holds each consumer thread's accumulators in runs of 4 floats, the threads'
 * runs side by side, so a warp's 16-byte stores and loads of one run are 512 contiguous
 * bytes; the finishing piece's
 * threads hold the same elements of the tile as the writers' did (one MMA partition), so no
 * coordinate of C is needed.  Publication as CUTLASS's stream-K does it: every consumer
 * stores, the consumers meet, one thread stores the flag with release semantics; one thread
 * waits with acquires, the consumers meet, every one loads. */
#include "cutec/notation.h"
#include "cutec/peer.h"
#include "cutec/sync.h"
#include "kernels/gemm/gemm_internal.h"

/* the consumers' meeting (the SM80 kernel's: all its threads): the 256-thread barrier of the cooperative consumers (hopper_peer.c's;
 * the two never share a kernel: stream-K refuses flags between GPUs) */
enum { WARPGROUP = 128, FIXUP_BARRIER = 3, VEC = 4 };

/* (the SM80 kernel has no consumer warpgroups: all its threads hold accumulators) */
static int consumer_threads(const gemm_plan *p) { return p->consumers ? WARPGROUP * p->consumers : p->threads; }

/* block u's slot as thread tid sees it, shaped as its accumulators acc: runs of VEC floats
 * (16 bytes), the threads' runs side by side (a warp's 512 contiguous bytes) */
static cute_tensor slot(cute_ctx *c, const gemm_plan *p, cute_tensor ws, cute_int tid, cute_int u, cute_tensor acc)
{
    cute_alg *a = cute_ctx_alg(c);
    long long frag = cute_size(a, &acc.layout).v, threads = consumer_threads(p), v = frag % VEC ? 1 : VEC;
    cute_layout slots = cute_layout_fmt(a, "((%lld,%lld),%lld,%I):((1,%lld),%lld,%lld)", v, frag / v, threads,
                                        cute_grid_dim(c, 0), v * threads, v, frag * threads);
    cute_tiler by_slot = cute_tiler_layout(&slots);
    cute_tensor mine = cute_tensor_slice(c, cute_tensor_compose(c, ws, &by_slot), cute_tuple_fmt(a, "(_,%I,%I)", tid, u));
    cute_layout like = cute_make_layout_like(a, &acc.layout);
    cute_tiler as_acc = cute_tiler_layout(&like);
    return cute_tensor_compose(c, mine, &as_acc);
}

/* acc = part where `when`, else 0, a run (16 bytes) at a time */
enum { CHUNK = VEC }; /* (a run of the slot: one shape on both sides) */
static void load_slot(cute_ctx *c, cute_tensor acc, cute_tensor part, cute_val when)
{
    cute_alg *a = cute_ctx_alg(c);
    int64_t n = cute_size(a, &acc.layout).v, chunk = n % CHUNK ? 1 : CHUNK;
    cute_layout flat = cute_layout_fmt(a, "(%lld,%lld):(1,%lld)", (long long)chunk, (long long)(n / chunk),
                                       (long long)chunk);
    cute_tiler by_chunk = cute_tiler_layout(&flat);
    cute_tensor x = cute_tensor_compose(c, acc, &by_chunk), y = cute_tensor_compose(c, part, &by_chunk);
    cute_ssa pred = cute_ssa_scalar(c, when, cute_tuple_fmt(a, "(%lld)", (long long)chunk));
    for (int64_t j = 0; j < n / chunk; j++) {
        cute_tuple at = cute_tuple_fmt(a, "(_,%lld)", (long long)j);
        cute_tensor_store(c, cute_tensor_slice(c, x, at), cute_tensor_load_if(c, cute_tensor_slice(c, y, at), pred, 0.0));
    }
}

static void consumers_meet(cute_ctx *c, const gemm_plan *p)
{
    cute_named_barrier_sync(c, FIXUP_BARRIER, consumer_threads(p));
}

void gemm_streamk_store_partial(cute_ctx *c, const gemm_plan *p, cute_tensor ws, cute_tensor flags, cute_int tid,
                                cute_tensor acc)
{
    cute_int me = cute_block_idx(c, 0);
    cute_tensor_store(c, slot(c, p, ws, tid, me, acc), cute_tensor_load(c, acc));
    consumers_meet(c, p); /* every consumer's stores of the slot before the flag */
    CUTE_IF(c, cute_int_eq(c, tid, cute_i(0))) cute_peer_release(c, flags, me, cute_i(1));
}

void gemm_streamk_start_from_partial(cute_ctx *c, const gemm_plan *p, cute_tensor ws, cute_tensor flags, cute_int tid,
                                     cute_tensor acc, cute_int first)
{
    cute_int me = cute_block_idx(c, 0), below = cute_sub(cute_ctx_alg(c), me, cute_i(1));
    cute_val some = cute_int_lt(c, first, me);
    CUTE_IF(c, some) {
        if (!(p->broken & GEMM_BREAK_FIXUP_WAIT)) {
            CUTE_IF(c, cute_int_eq(c, tid, cute_i(0))) {
                cute_peer_wait(c, flags, below, cute_i(1));
                cute_peer_release(c, flags, below, cute_i(0)); /* down for the next kernel */
            }
        }
        consumers_meet(c, p); /* the loads after the acquire */
    }
    if (p->broken & GEMM_BREAK_FIXUP_ADD) some = cute_val_int(c, CUTE_I1, 0);
    load_slot(c, acc, slot(c, p, ws, tid, below, acc), some);
}
