/* cutec/peer.h — memory that every GPU of a group reaches, and kernels that push tiles to
 * a peer and signal it (docs/peer.md).
 *
 * Host side: cute_peer_alloc gives each rank a buffer of the same size on its own device
 * ("symmetric memory", as PyTorch and NVSHMEM call it), mapped through the driver's
 * virtual-memory API so that every rank's kernels and copies reach every rank's buffer: the
 * tensor of a peer rank is a cute_call_arg on that rank's buffer, passed to a kernel of
 * another rank.  On the interpreter the ranks are emulated devices of one interpreter
 * (the same runtime given for every rank), and cute_call_peers runs the ranks' kernels
 * together with the checks of docs/interpreter.md, across devices.
 *
 * Kernel side (trace time): a peer tile is written with any copy (cute_copy into the peer's
 * tensor) and published with a flag: cute_peer_signal stores a value to a u32 flag with
 * release semantics at system scope (st.release.sys.global), cute_peer_wait spins until
 * the flag is at least a value with acquire loads (ld.acquire.sys.global), so what the
 * signalling thread wrote before its signal is visible to the waiting thread after its wait.
 *
 *   cute_peer_buffers *p;
 *   cute_peer_alloc(2, rts, bytes, &p, err, sizeof err);
 *   const cute_buffer *mine = cute_peer_buffer(p, 0), *theirs = cute_peer_buffer(p, 1);
 */
#ifndef CUTEC_PEER_H
#define CUTEC_PEER_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"
#include "cutec/trace.h"

typedef struct cute_peer_buffers cute_peer_buffers;

/* `bytes` on the device of each of rts[0..nranks), each reachable from every rank's
 * device: CUDA runtimes on distinct devices (cuMemCreate / cuMemMap / cuMemSetAccess), or
 * one interpreter given nranks times (its emulated devices).  The memory starts zeroed.
 * CUTE_ERR_INVALID (mixed or repeated runtimes), CUTE_ERR_UNSUPPORTED (a driver without the
 * virtual-memory API), CUTE_ERR_OOM, with err. */
cute_status cute_peer_alloc(int nranks, cute_runtime *const *rts, size_t bytes,
                            cute_peer_buffers **out, char *err, size_t n);
void cute_peer_free(cute_peer_buffers *p);
int cute_peer_ranks(const cute_peer_buffers *p);
/* rank r's buffer (NULL outside 0..ranks-1): an address every rank may use */
const cute_buffer *cute_peer_buffer(const cute_peer_buffers *p, int rank);

/* Run fs[r] with args[r * nargs .. + nargs) for every rank r at once (streams: one a rank,
 * or NULL).  On GPUs each rank's call is enqueued on its own stream (cute_call); on the
 * interpreter (every fs[r] the same function of one interpreter runtime) the ranks run
 * together as emulated devices: their warps share one scheduler, so a rank may wait for
 * another's signal, a wait that can never end is a reported deadlock, and a load of bytes
 * another rank stored that no signal ordered before it is a reported race
 * (CUTE_CHECK_PEER_RACE).  The function must make one launch. */
cute_status cute_call_peers(const cute_fn *const *fs, int nranks, void *const *streams, int nargs,
                            const cute_call_arg *args, char *err, size_t n);

/* --- kernel side ---------------------------------------------------------------------- */
/* Store v (u32) to flag element `idx` of the u32 tensor `flags` with release semantics at
 * system scope: every write of this thread before it (to any GPU's memory) is visible to a
 * thread that reads the value with an acquire.  Call it from one thread, after a barrier
 * that orders the block's writes of the tile before it. */
void cute_peer_signal(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v);
/* The release store alone, by every thread that runs it (no barrier): for a kernel whose
 * threads meet by other means (a named barrier of some warps) before one of them signals. */
void cute_peer_release(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v);
/* Spin until flag element `idx` of `flags` (u32) is at least v (unsigned), each read an
 * acquire at system scope, by every thread that runs it (each ordered after the release it
 * saw; no barrier, so one thread of a producer warp may wait alone). */
void cute_peer_wait(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v);
/* cute_peer_release and cute_peer_wait at GPU scope (st.release.gpu, ld.acquire.gpu): for a
 * flag between the blocks of one grid on one GPU (blocks adding to a sum in turn), where a
 * system-scope release's fence would wait for the whole system */
void cute_grid_flag_release(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v);
void cute_grid_flag_wait(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v);

#ifndef CUTEC_NO_SITE_MACROS /* each records the caller's file:line (trace.h) */
#define cute_peer_signal(c, ...) CUTE__CTX_AT((c), cute_peer_signal((c), __VA_ARGS__))
#define cute_peer_wait(c, ...) CUTE__CTX_AT((c), cute_peer_wait((c), __VA_ARGS__))
#define cute_peer_release(c, ...) CUTE__CTX_AT((c), cute_peer_release((c), __VA_ARGS__))
#define cute_grid_flag_release(c, ...) CUTE__CTX_AT((c), cute_grid_flag_release((c), __VA_ARGS__))
#define cute_grid_flag_wait(c, ...) CUTE__CTX_AT((c), cute_grid_flag_wait((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
