/* Progress across a launch's workers.
 *
 * Each worker runs one cluster at a time (launch.c) and its warp scheduler (sched.c) calls
 * the cluster deadlocked when no warp of it can go on.  With several workers that is not
 * enough: a block may spin on a flag in global memory that a block of another worker will
 * write (ordered adds into one output, split-K semaphores, stream-K fixups, look-back
 * scans), so its loop repeats itself with nothing written in its own cluster and yet will
 * end.  So progress is counted launch-wide: a worker bumps `progress` when its cluster wrote
 * memory since it last did (at each of its scheduler's switches) and when a block retires;
 * a spin counts as idle only while that count stays put.  A cluster with nothing to run
 * waits here for the count to move, and the launch is stuck only when every worker still
 * taking clusters waits too: then each reports its deadlock.  Blocks start in linear order,
 * so a block waiting for an earlier one waits for one that is running or done; one waiting
 * for a later one that no worker has started holds its worker, and the report says how many
 * were not started (a GPU runs such a kernel only when every block is resident). */
#include "interp/interp_internal.h"

void interp_progress_init(ilaunch *L)
{
    atomic_init(&L->progress, 0);
    atomic_init(&L->stalled, 0);
    L->stalled_at = UINT64_MAX;
    atomic_init(&L->started, 0);
    L->active = 0; /* set with the workers (launch.c) */
    pthread_cond_init(&L->moved, NULL);
}

void interp_progress_free(ilaunch *L) { pthread_cond_destroy(&L->moved); }

uint64_t interp_progress_now(const ilaunch *L)
{
    return L->workers > 1 ? atomic_load((atomic_uint_least64_t *)&L->progress) : 0;
}

void interp_progress_bump(ilaunch *L)
{
    if (L->workers < 2) return;
    atomic_fetch_add(&L->progress, 1);
    /* a worker about to wait counts itself stalled before it looks at progress: one of the
     * two sees the other */
    if (atomic_load(&L->stalled) == 0) return;
    pthread_mutex_lock(&L->lock);
    pthread_cond_broadcast(&L->moved);
    pthread_mutex_unlock(&L->lock);
}

/* Only the workers stalled at the current progress count: one woken by a bump but not yet
 * running again must not make the others look stuck.  A stuck worker stays counted, so that
 * every other one stalled at that progress sees it stuck too (its report's block retires,
 * which moves progress on). */
bool interp_progress_await(ilaunch *L, uint64_t seen)
{
    if (L->workers < 2) return false;
    pthread_mutex_lock(&L->lock);
    if (atomic_load(&L->progress) != seen) { /* moved already: count nothing */
        pthread_mutex_unlock(&L->lock);
        return true;
    }
    if (L->stalled_at != seen) { /* the first to stall at this progress */
        L->stalled_at = seen;
        atomic_store(&L->stalled, 0);
    }
    atomic_fetch_add(&L->stalled, 1);
    pthread_cond_broadcast(&L->moved); /* the others may all be waiting now */
    while (atomic_load(&L->progress) == seen && atomic_load(&L->stalled) < L->active)
        pthread_cond_wait(&L->moved, &L->lock);
    bool moved = atomic_load(&L->progress) != seen;
    if (moved && L->stalled_at == seen) atomic_fetch_sub(&L->stalled, 1);
    pthread_mutex_unlock(&L->lock);
    return moved;
}

void interp_progress_leave(ilaunch *L)
{
    if (L->workers < 2) return;
    pthread_mutex_lock(&L->lock);
    L->active--;
    pthread_cond_broadcast(&L->moved);
    pthread_mutex_unlock(&L->lock);
}

uint64_t interp_progress_unstarted(const ilaunch *L)
{
    uint64_t size = (uint64_t)L->cluster.x * L->cluster.y * L->cluster.z, n = L->nblocks / size;
    return (n - atomic_load((atomic_uint_least64_t *)&L->started)) * size;
}
