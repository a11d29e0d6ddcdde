/* The background work of a tiered compile (tier.h): a queue of jobs, a pool of worker
 * threads while there is work, the first failure kept until someone asks for it. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tier.h"

typedef struct job {
    char what[96];
    tier_run_fn run;
    tier_release_fn release;
    void *user;
    struct job *next;
} job;

/* a worker's slot: its thread, from its start until it is joined */
enum { SLOT_FREE, SLOT_RUNNING, SLOT_ENDED /* returned or returning: join it */ };

struct tier_queue {
    pthread_mutex_t lock;
    pthread_cond_t done; /* signalled as each job ends */
    job *head, *tail;
    job *running; /* taken by a worker, not yet ended: held here so that a forked child, whose
                   * copy has no workers, still reaches them (no false leak at its exit) */
    int pending; /* queued or running */
    int threads; /* the most workers at once */
    int workers; /* running: each clears its slot as its last act under the lock */
    pthread_t thread[TIER_MAX_THREADS];
    int slot[TIER_MAX_THREADS];
    pid_t pid; /* the process whose workers they are: a fork's child has none to wait for */
    cute_status failed; /* the first failure not handed out by tier_wait, or CUTE_OK */
    char why[1024];
    tier_queue *next_live; /* the process's live queues, waited for at exit */
};

/* The process's live queues: exit() must not run NVRTC's destructors while a worker is
 * inside NVRTC, so an atexit handler (registered after NVRTC was loaded: it runs first)
 * waits for them.  The one global state here, for that reason only. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static tier_queue *live;
static bool at_exit_registered;

/* the jobs' end, under q->lock; in a forked child (no worker there) they never end: not waited */
static void wait_jobs(tier_queue *q)
{
    while (q->pending && q->pid == getpid()) pthread_cond_wait(&q->done, &q->lock);
}

static void report(tier_queue *q)
{
    if (q->failed != CUTE_OK) fprintf(stderr, "cutec: a background compile failed (never asked for): %s\n", q->why);
    q->failed = CUTE_OK;
}

static void wait_all_at_exit(void)
{
    pthread_mutex_lock(&live_lock);
    for (tier_queue *q = live; q; q = q->next_live) {
        pthread_mutex_lock(&q->lock);
        wait_jobs(q);
        report(q);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_unlock(&live_lock);
}

tier_queue *tier_queue_new(int threads)
{
    tier_queue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->threads = threads < 1 ? 1 : threads > TIER_MAX_THREADS ? TIER_MAX_THREADS : threads;
    q->pid = getpid();
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->done, NULL);
    pthread_mutex_lock(&live_lock);
    q->next_live = live, live = q;
    pthread_mutex_unlock(&live_lock);
    return q;
}

static void *worker(void *arg)
{
    tier_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    while (q->head) {
        job *j = q->head;
        q->head = j->next;
        if (!q->head) q->tail = NULL;
        j->next = q->running, q->running = j;
        pthread_mutex_unlock(&q->lock);
        char why[sizeof q->why - sizeof j->what - 8] = "";
        cute_status s = j->run(j->user, why, sizeof why);
        if (j->release) j->release(j->user);
        pthread_mutex_lock(&q->lock);
        if (s != CUTE_OK && q->failed == CUTE_OK) {
            q->failed = s;
            snprintf(q->why, sizeof q->why, "%s: %s", j->what, why[0] ? why : cute_status_name(s));
        }
        job **at = &q->running;
        while (*at != j) at = &(*at)->next;
        *at = j->next;
        free(j);
        q->pending--;
        pthread_cond_broadcast(&q->done);
    }
    for (int i = 0; i < q->threads; i++)
        if (q->slot[i] == SLOT_RUNNING && pthread_equal(q->thread[i], pthread_self())) q->slot[i] = SLOT_ENDED;
    q->workers--;
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

/* one more worker if the jobs, this one counted, outnumber them and the pool has room
 * (under q->lock); an ended worker's slot is joined first.  False: none could start. */
static bool add_worker(tier_queue *q)
{
    if (q->pid != getpid()) {
        if (q->pending > 1) return true; /* a forked child: its parent's jobs never end here */
        for (int i = 0; i < q->threads; i++) q->slot[i] = SLOT_FREE; /* the parent's threads */
        q->workers = 0, q->pid = getpid();
    }
    if (q->workers >= q->threads || q->workers >= q->pending) return true;
    for (int i = 0; i < q->threads; i++) {
        if (q->slot[i] == SLOT_RUNNING) continue;
        if (q->slot[i] == SLOT_ENDED) pthread_join(q->thread[i], NULL), q->slot[i] = SLOT_FREE;
        if (pthread_create(&q->thread[i], NULL, worker, q) != 0) return q->workers > 0;
        q->slot[i] = SLOT_RUNNING, q->workers++;
        return true;
    }
    return true;
}

cute_status tier_start(tier_queue *q, const char *what, tier_run_fn run, tier_release_fn release, void *user)
{
    job *j = calloc(1, sizeof *j);
    if (!j) return CUTE_ERR_OOM;
    snprintf(j->what, sizeof j->what, "%s", what ? what : "a module");
    j->run = run, j->release = release, j->user = user;
    pthread_mutex_lock(&live_lock); /* before the first worker: NVRTC is loaded by now */
    if (!at_exit_registered) at_exit_registered = atexit(wait_all_at_exit) == 0;
    pthread_mutex_unlock(&live_lock);
    pthread_mutex_lock(&q->lock);
    q->pending++;
    bool queued = add_worker(q); /* the new worker waits for the lock: the job is linked first */
    if (queued) {
        if (q->tail) q->tail->next = j;
        else q->head = j;
        q->tail = j;
    } else {
        q->pending--;
    }
    pthread_mutex_unlock(&q->lock);
    if (!queued) free(j);
    return queued ? CUTE_OK : CUTE_ERR_OOM;
}

cute_status tier_wait(tier_queue *q, char *err, size_t errn)
{
    if (errn) err[0] = 0;
    if (!q) return CUTE_OK;
    pthread_mutex_lock(&q->lock);
    wait_jobs(q);
    cute_status s = q->failed;
    if (s != CUTE_OK && errn) snprintf(err, errn, "%s", q->why);
    q->failed = CUTE_OK;
    pthread_mutex_unlock(&q->lock);
    return s;
}

int tier_pending(tier_queue *q)
{
    if (!q) return 0;
    pthread_mutex_lock(&q->lock);
    int n = q->pending;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void tier_queue_free(tier_queue *q)
{
    if (!q) return;
    pthread_mutex_lock(&live_lock);
    for (tier_queue **p = &live; *p; p = &(*p)->next_live)
        if (*p == q) {
            *p = q->next_live;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    pthread_mutex_lock(&q->lock);
    wait_jobs(q);
    report(q);
    int started = 0; /* every worker returns now that the jobs are done: join them */
    pthread_t thread[TIER_MAX_THREADS];
    for (int i = 0; i < q->threads && q->pid == getpid(); i++)
        if (q->slot[i] != SLOT_FREE) thread[started++] = q->thread[i];
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < started; i++) pthread_join(thread[i], NULL);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->done);
    free(q);
}
