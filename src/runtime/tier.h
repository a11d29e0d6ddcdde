/* tier.h — the background work of a tiered compile (docs/compile_time.md, "Tiers").
 *
 * A cold miss of the CUDA backend returns the PTX backend's module at once and builds the
 * NVRTC one here, on threads of their own; a job's run() builds the final form and swaps it
 * in.  A queue runs its jobs on a pool of up to `threads` workers, started as jobs come and
 * ended when the queue is empty; jobs start in the order queued (one worker: one at a
 * time, in order).  A failed job's message is kept until tier_wait hands it out, or,
 * never asked for, printed to stderr when the queue is freed: never lost.  Before the
 * process exits (exit() would run NVRTC's destructors under a compile), every live queue
 * is waited for. */
#ifndef CUTEC_RUNTIME_TIER_H
#define CUTEC_RUNTIME_TIER_H

#include <stddef.h>

#include "cutec/backend.h" /* cute_status */

typedef struct tier_queue tier_queue;

/* the work: build the final form and swap it in (on the worker thread); a failure says
 * why into err.  release(user) follows, whatever run returned. */
typedef cute_status (*tier_run_fn)(void *user, char *err, size_t errn);
typedef void (*tier_release_fn)(void *user);

/* threads: the most workers at once (at least 1, at most TIER_MAX_THREADS) */
#define TIER_MAX_THREADS 16
tier_queue *tier_queue_new(int threads);
/* waits for its jobs; prints a failure nobody asked for (stderr, "cutec: ...") */
void tier_queue_free(tier_queue *q);
/* queue a job; what = its name in messages ("kernel gemm_kernel_0").  Without a thread
 * (CUTE_ERR_OOM, or pthread_create failed) nothing runs: the caller still owns user. */
cute_status tier_start(tier_queue *q, const char *what, tier_run_fn run, tier_release_fn release,
                       void *user);
/* Wait until every job queued so far is done.  The first failure not yet handed out
 * (its message in err, "<what>: <why>"), else CUTE_OK. */
cute_status tier_wait(tier_queue *q, char *err, size_t errn);
/* jobs queued and not yet done */
int tier_pending(tier_queue *q);

#endif
