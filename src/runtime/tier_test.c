/* The background queue of tiered compiles (tier.h), on the host: jobs run once each, in
 * order, on a worker that ends when the queue drains and comes back for the next job; a
 * failure is handed out once by tier_wait (named by its job) and, never asked for, printed
 * when the queue is freed; every job is released, failed or not.  And the swap as the CUDA
 * backend does it (cuda_backend.c: an atomic pointer from the first form to the final one,
 * stored with release once the final form is whole): threads that read it while a job
 * swaps see one whole form or the other, never a half-written one, and the final one once
 * tier_wait returned.  A process forked while a job runs does not wait for it.  A pool of
 * workers runs jobs side by side, never more than its size, each once. */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tier.h"

typedef struct counter {
    atomic_int started, runs, releases;
    int order[64];
    atomic_int next;
} counter;

typedef struct job_arg {
    counter *c;
    int id;
    cute_status result;
    int sleep_us;
} job_arg;

static cute_status run(void *user, char *err, size_t n)
{
    job_arg *a = user;
    atomic_fetch_add(&a->c->started, 1);
    if (a->sleep_us) usleep((useconds_t)a->sleep_us);
    atomic_fetch_add(&a->c->runs, 1);
    int at = atomic_fetch_add(&a->c->next, 1);
    if (at < 64) a->c->order[at] = a->id;
    if (a->result != CUTE_OK) snprintf(err, n, "job %d refused", a->id);
    return a->result;
}

static void release(void *user)
{
    job_arg *a = user;
    atomic_fetch_add(&a->c->releases, 1);
}

static void order_and_release(void)
{
    tier_queue *q = tier_queue_new(1);
    CHECK(q != NULL, "a queue");
    counter c = {0};
    job_arg a[8];
    for (int i = 0; i < 8; i++) {
        a[i] = (job_arg){&c, i, CUTE_OK, i == 0 ? 20000 : 0};
        CHECK(tier_start(q, "job", run, release, &a[i]) == CUTE_OK, "job %d queued", i);
    }
    char err[256];
    CHECK(tier_wait(q, err, sizeof err) == CUTE_OK && !err[0], "eight jobs: no failure, got '%s'", err);
    CHECK(tier_pending(q) == 0, "nothing pending after the wait: %d", tier_pending(q));
    CHECK(atomic_load(&c.runs) == 8 && atomic_load(&c.releases) == 8, "each ran and was released once: %d, %d",
          atomic_load(&c.runs), atomic_load(&c.releases));
    bool in_order = true;
    for (int i = 0; i < 8; i++) in_order &= c.order[i] == i;
    CHECK(in_order, "jobs ran in the order queued (the first one slept 20 ms)");
    /* the worker ended with the queue empty; a later job starts another */
    usleep(1000);
    job_arg late = {&c, 8, CUTE_OK, 0};
    CHECK(tier_start(q, "late", run, release, &late) == CUTE_OK, "a job after the drain");
    CHECK(tier_wait(q, err, sizeof err) == CUTE_OK && atomic_load(&c.runs) == 9, "it ran: %d", atomic_load(&c.runs));
    tier_queue_free(q);
    CHECK(atomic_load(&c.releases) == 9, "released: %d", atomic_load(&c.releases));
}

static void failure_handed_out_once(void)
{
    tier_queue *q = tier_queue_new(1);
    counter c = {0};
    job_arg a[3] = {{&c, 0, CUTE_OK, 0}, {&c, 1, CUTE_ERR_COMPILE, 0}, {&c, 2, CUTE_ERR_OOM, 0}};
    tier_start(q, "NVRTC's form of kernel k0", run, release, &a[0]);
    tier_start(q, "NVRTC's form of kernel k1", run, release, &a[1]);
    tier_start(q, "NVRTC's form of kernel k2", run, release, &a[2]);
    char err[256];
    cute_status s = tier_wait(q, err, sizeof err);
    CHECK(s == CUTE_ERR_COMPILE, "the first failure's status: %s", cute_status_name(s));
    CHECK(strstr(err, "kernel k1: job 1 refused") != NULL, "named by its job, with its reason: '%s'", err);
    CHECK(atomic_load(&c.releases) == 3, "failed jobs are released too: %d", atomic_load(&c.releases));
    CHECK(tier_wait(q, err, sizeof err) == CUTE_OK && !err[0], "handed out once: then OK, got '%s'", err);
    tier_queue_free(q);
}

/* a failure nobody waited for: tier_queue_free prints it (stderr, caught in a file) */
static void failure_never_lost(void)
{
    char path[] = "/tmp/cutec-tier-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "a temporary file");
    if (fd < 0) return;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    tier_queue *q = tier_queue_new(1);
    counter c = {0};
    job_arg a = {&c, 5, CUTE_ERR_COMPILE, 0};
    tier_start(q, "NVRTC's form of kernel lost", run, release, &a);
    tier_queue_free(q); /* waits, then reports */
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *text = check_read_file(path);
    CHECK(text && strstr(text, "cutec: a background compile failed") && strstr(text, "kernel lost: job 5 refused"),
          "the unasked failure printed: '%s'", text ? text : "(nothing)");
    free(text);
    close(fd);
    unlink(path);
}

/* the swap: two forms, each two fields written before the pointer is published */
typedef struct form {
    int a, b; /* a whole form has b == 2 * a */
} form;

typedef struct swap {
    form forms[2];
    form *_Atomic code;
    atomic_bool stop;
    atomic_long bad, seen_final;
} swap;

static void *reader(void *arg)
{
    swap *s = arg;
    while (!atomic_load(&s->stop)) {
        form *f = atomic_load_explicit(&s->code, memory_order_acquire);
        if (f->b != 2 * f->a) atomic_fetch_add(&s->bad, 1);
        if (f == &s->forms[1]) atomic_fetch_add(&s->seen_final, 1);
    }
    return NULL;
}

static cute_status swap_in(void *user, char *err, size_t n)
{
    swap *s = user;
    (void)err, (void)n;
    usleep(5000); /* "NVRTC" */
    s->forms[1].a = 21;
    s->forms[1].b = 42;
    atomic_store_explicit(&s->code, &s->forms[1], memory_order_release);
    return CUTE_OK;
}

static void swap_under_readers(void)
{
    for (int round = 0; round < 20; round++) {
        swap s = {.forms = {{1, 2}, {0, 0}}};
        s.code = &s.forms[0];
        pthread_t t[4];
        for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, reader, &s);
        tier_queue *q = tier_queue_new(1);
        tier_start(q, "swap", swap_in, NULL, &s);
        char err[64];
        tier_wait(q, err, sizeof err);
        form *now = atomic_load_explicit(&s.code, memory_order_acquire);
        CHECK(now == &s.forms[1] && now->a == 21 && now->b == 42, "round %d: the final form after the wait", round);
        usleep(200);
        atomic_store(&s.stop, true);
        for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
        tier_queue_free(q);
        CHECK(atomic_load(&s.bad) == 0, "round %d: %ld reads saw a half-written form", round, atomic_load(&s.bad));
    }
}

/* jobs queued from several threads at once: each runs once (one worker, then four) */
typedef struct starter {
    tier_queue *q;
    counter *c;
    job_arg a[16];
} starter;

static void *start_many(void *arg)
{
    starter *st = arg;
    for (int i = 0; i < 16; i++) {
        st->a[i] = (job_arg){st->c, i, CUTE_OK, i % 5 == 0 ? 100 : 0};
        tier_start(st->q, "many", run, release, &st->a[i]);
    }
    return NULL;
}

static void threads_queue_at_once(int workers)
{
    tier_queue *q = tier_queue_new(workers);
    counter c = {0};
    static starter st[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) st[i].q = q, st[i].c = &c, pthread_create(&t[i], NULL, start_many, &st[i]);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    char err[64];
    CHECK(tier_wait(q, err, sizeof err) == CUTE_OK, "64 jobs from 4 threads: %s", err);
    CHECK(atomic_load(&c.runs) == 64 && atomic_load(&c.releases) == 64, "each ran once: %d runs, %d releases",
          atomic_load(&c.runs), atomic_load(&c.releases));
    tier_queue_free(q);
}

/* a process forked while a job runs has no worker: its waits and its exit do not hang */
static void fork_does_not_hang(void)
{
    tier_queue *q = tier_queue_new(1);
    counter c = {0};
    job_arg a = {&c, 0, CUTE_OK, 300000};
    tier_start(q, "slow", run, release, &a);
    /* forked while the worker holds the job (not while it is queued): the child must still
     * reach it through the queue, or its exit would report the parent's job as leaked */
    for (int ms = 0; ms < 5000 && !atomic_load(&c.started); ms++) usleep(1000);
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(5); /* a hang dies of SIGALRM */
        char err[64];
        tier_wait(q, err, sizeof err);
        exit(0); /* the atexit handler waits for live queues: not for this one */
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exited at once (status %d)", st);
    char err[64];
    CHECK(tier_wait(q, err, sizeof err) == CUTE_OK && atomic_load(&c.runs) == 1, "the parent's job ran");
    tier_queue_free(q);
}

/* a pool: up to `threads` jobs at once, never more; each runs and is released once; a
 * failure handed out once, as with one worker */
typedef struct overlap {
    atomic_int now, most, runs;
} overlap;

static cute_status overlapping(void *user, char *err, size_t n)
{
    overlap *o = user;
    int at = atomic_fetch_add(&o->now, 1) + 1;
    for (int m = atomic_load(&o->most); at > m && !atomic_compare_exchange_weak(&o->most, &m, at);) {
    }
    usleep(30000);
    atomic_fetch_sub(&o->now, 1);
    bool fail = atomic_fetch_add(&o->runs, 1) == 5;
    if (fail) snprintf(err, n, "the sixth job refused");
    return fail ? CUTE_ERR_COMPILE : CUTE_OK;
}

static void pool_runs_side_by_side(void)
{
    for (int threads = 1; threads <= 4; threads += 3) {
        tier_queue *q = tier_queue_new(threads);
        overlap o = {0};
        for (int i = 0; i < 12; i++) tier_start(q, "pooled", overlapping, NULL, &o);
        char err[256];
        cute_status s = tier_wait(q, err, sizeof err);
        CHECK(s == CUTE_ERR_COMPILE && strstr(err, "pooled: the sixth job refused"), "%d workers: the failure: %s '%s'",
              threads, cute_status_name(s), err);
        CHECK(tier_wait(q, err, sizeof err) == CUTE_OK, "%d workers: handed out once", threads);
        CHECK(atomic_load(&o.runs) == 12 && tier_pending(q) == 0, "%d workers: 12 jobs ran: %d", threads,
              atomic_load(&o.runs));
        int most = atomic_load(&o.most);
        CHECK(threads == 1 ? most == 1 : most >= 2 && most <= threads, "%d workers: %d jobs at once at most", threads,
              most);
        /* drained: the workers ended; later jobs start them again */
        usleep(2000);
        for (int i = 0; i < 3; i++) tier_start(q, "pooled", overlapping, NULL, &o);
        CHECK(tier_wait(q, err, sizeof err) == CUTE_OK && atomic_load(&o.runs) == 15, "%d workers: after the drain: %d",
              threads, atomic_load(&o.runs));
        tier_queue_free(q);
    }
    tier_queue *q = tier_queue_new(99); /* clamped: still a queue that runs its jobs */
    counter c = {0};
    job_arg a = {&c, 0, CUTE_OK, 0};
    CHECK(q && tier_start(q, "clamped", run, release, &a) == CUTE_OK, "a queue asked for 99 workers");
    tier_queue_free(q);
    CHECK(atomic_load(&c.releases) == 1, "its job ran and was released");
}

int main(void)
{
    order_and_release();
    failure_handed_out_once();
    failure_never_lost();
    swap_under_readers();
    threads_queue_at_once(1);
    threads_queue_at_once(4);
    fork_does_not_hang();
    pool_runs_side_by_side();
    CHECK(tier_wait(NULL, NULL, 0) == CUTE_OK && tier_pending(NULL) == 0, "no queue: nothing to wait for");
    return CHECK_DONE("tier_test");
}
