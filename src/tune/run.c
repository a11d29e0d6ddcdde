/* cute_tune_run: the points worth trying, built and checked on worker threads, then timed
 * one by one on the caller's thread (timings must not overlap), and the fastest right one.
 *
 * Within the budget, points nearest the default come first: those differing from point 0
 * (every parameter's first value, the library's default) in fewer parameters, then in space
 * order, so a small budget tries the default and its neighbours rather than one corner. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cutec/tune.h"

/* the work the workers share: the next candidate to take, under the lock */
typedef struct pool {
    const cute_tuner *t;
    cute_tune_result *r;
    cute_tune_result **finished; /* in the order they finished: the progress reports them */
    int count, next, done;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a candidate finished, or a worker gave up */
    int failed_workers;
    char err[512];
} pool;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* build and check one candidate on this worker */
static void build_one(const cute_tuner *t, void *w, cute_tune_result *r)
{
    double t0 = now_ms();
    r->stat = -1;
    if (t->build(t->user, w, r->point, r->why, sizeof r->why) != CUTE_OK)
        r->state = CUTE_TUNE_FAILED;
    else if (t->check && t->check(t->user, w, r->point, &r->stat, r->why, sizeof r->why) != CUTE_OK)
        r->state = CUTE_TUNE_WRONG;
    else
        r->state = CUTE_TUNE_CHECKED;
    r->build_ms = now_ms() - t0;
}

static void *worker(void *arg)
{
    pool *p = arg;
    const cute_tuner *t = p->t;
    char err[512] = "";
    void *w = t->worker_new ? t->worker_new(t->user, err, sizeof err) : NULL;
    pthread_mutex_lock(&p->lock);
    if (t->worker_new && !w) {
        p->failed_workers++;
        snprintf(p->err, sizeof p->err, "a tuning worker: %.480s", err);
        pthread_cond_signal(&p->changed);
        pthread_mutex_unlock(&p->lock);
        return NULL;
    }
    while (p->next < p->count) {
        cute_tune_result *r = &p->r[p->next++];
        pthread_mutex_unlock(&p->lock);
        build_one(t, w, r);
        pthread_mutex_lock(&p->lock);
        p->finished[p->done++] = r;
        pthread_cond_signal(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    if (w && t->worker_free) t->worker_free(t->user, w);
    return NULL;
}

/* how many parameters of point i differ from point 0's */
static int distance(const cute_tune_space *s, const int *point)
{
    int d = 0;
    for (int k = 0; k < s->nparams; k++) d += point[k] != s->param[k].values[0];
    return d;
}

static int by_distance_then_index(const void *x, const void *y)
{
    const cute_tune_result *a = x, *b = y;
    int da = (int)a->build_ms, db = (int)b->build_ms; /* the distance, parked there while sorting */
    if (da != db) return da - db;
    return (a->index > b->index) - (a->index < b->index);
}

static int by_index(const void *x, const void *y)
{
    const cute_tune_result *a = x, *b = y;
    return (a->index > b->index) - (a->index < b->index);
}

/* every valid point (skipped ones after them), the first `budget` valid ones nearest the
 * default first; *tried: how many to build */
static cute_tune_result *enumerate(const cute_tuner *t, int budget, int *count, int *tried)
{
    int64_t size = cute_tune_space_size(t->space);
    if (size > 1 << 20) size = 1 << 20; /* a table, not a search of billions */
    cute_tune_result *r = calloc((size_t)(size ? size : 1), sizeof *r);
    if (!r) return NULL;
    int valid = 0, skipped = 0;
    for (int64_t i = 0; i < size; i++) {
        cute_tune_result x = {.index = i, .stat = -1};
        cute_tune_space_point(t->space, i, x.point);
        bool ok = !t->valid || t->valid(t->user, x.point, x.why, sizeof x.why);
        x.state = ok ? CUTE_TUNE_CHECKED : CUTE_TUNE_SKIPPED;
        x.build_ms = ok ? distance(t->space, x.point) : 0; /* parked there for the sort */
        if (ok) r[valid++] = x;
        else r[size - 1 - skipped++] = x;
    }
    qsort(r, (size_t)valid, sizeof *r, by_distance_then_index);
    *tried = budget > 0 && budget < valid ? budget : valid;
    for (int i = 0; i < valid; i++) r[i].build_ms = 0;
    /* the valid points not tried are dropped; the skipped ones follow the tried */
    memmove(r + *tried, r + valid, (size_t)skipped * sizeof *r);
    *count = *tried + skipped;
    return r;
}

static void report(const cute_tuner *t, const char *phase, int done, int total, const cute_tune_result *last)
{
    if (!t->progress) return;
    cute_tune_progress p = {phase, done, total, last};
    t->progress(t->user, &p);
}

/* the tried candidates r[0 .. tried) built and checked on `jobs` threads; the caller's
 * thread reports progress as they finish */
static cute_status build_all(const cute_tuner *t, cute_tune_result *r, int tried, int jobs, char *err, size_t n)
{
    pool p = {.t = t, .r = r, .count = tried, .finished = calloc((size_t)tried, sizeof(cute_tune_result *))};
    if (!p.finished) return snprintf(err, n, "tune: out of memory"), CUTE_ERR_OOM;
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    if (jobs > tried) jobs = tried;
    pthread_t th[256];
    int started = 0;
    for (; started < jobs && started < 256; started++)
        if (pthread_create(&th[started], NULL, worker, &p)) break;
    pthread_mutex_lock(&p.lock);
    for (int seen = 0; started && seen < tried && p.failed_workers < started;) {
        while (p.done == seen && p.failed_workers < started) pthread_cond_wait(&p.changed, &p.lock);
        for (; seen < p.done; seen++) {
            const cute_tune_result *last = p.finished[seen];
            pthread_mutex_unlock(&p.lock); /* the workers go on while it is shown */
            report(t, "build", seen + 1, tried, last);
            pthread_mutex_lock(&p.lock);
        }
    }
    pthread_mutex_unlock(&p.lock);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.lock);
    free(p.finished);
    if (!started) return snprintf(err, n, "tune: no worker thread could be started"), CUTE_ERR_OOM;
    if (p.done < tried) return snprintf(err, n, "tune: %s", p.err), CUTE_ERR_UNSUPPORTED;
    return CUTE_OK;
}

/* the right ones timed, one after another; the index of the fastest, or -1 */
static int time_all(const cute_tuner *t, cute_tune_result *r, int tried)
{
    int right = 0, done = 0, best = -1;
    for (int i = 0; i < tried; i++) right += r[i].state == CUTE_TUNE_CHECKED;
    for (int i = 0; i < tried && t->time; i++) {
        if (r[i].state != CUTE_TUNE_CHECKED) continue;
        double ms = t->time(t->user, r[i].point, r[i].why, sizeof r[i].why);
        r[i].state = ms > 0 ? CUTE_TUNE_TIMED : CUTE_TUNE_UNTIMED;
        r[i].ms = ms > 0 ? ms : 0;
        if (ms > 0 && (best < 0 || ms < r[best].ms)) best = i;
        report(t, "time", ++done, right, &r[i]);
    }
    return best;
}

cute_status cute_tune_run(const cute_tuner *t, const cute_tune_opts *o, cute_tune_result **results, int *count,
                          int *best, char *err, size_t n)
{
    *results = NULL, *count = 0, *best = -1;
    if (!t || !t->space || !t->build || cute_tune_space_size(t->space) < 1)
        return snprintf(err, n, "tune: no space or no builder"), CUTE_ERR_INVALID;
    int tried = 0, jobs = o && o->jobs > 0 ? o->jobs : 1;
    cute_tune_result *r = enumerate(t, o ? o->budget : 0, count, &tried);
    if (!r) return snprintf(err, n, "tune: out of memory"), CUTE_ERR_OOM;
    cute_status s = tried ? build_all(t, r, tried, jobs, err, n) : CUTE_OK;
    if (s != CUTE_OK) return free(r), *count = 0, s;
    int b = time_all(t, r, tried);
    int64_t best_index = b >= 0 ? r[b].index : -1;
    qsort(r, (size_t)*count, sizeof *r, by_index);
    for (int i = 0; i < *count; i++)
        if (r[i].index == best_index) *best = i;
    *results = r;
    return CUTE_OK;
}
