/* cutec/tune.h — the autotuner: any kernel with parameters (docs/tune.md).
 *
 * A tuner is a parameter space (named parameters, each a list of integer values), and four
 * callbacks of the kernel's: whether a point is worth trying (cheap, serial), a builder and
 * a checker (run together on J worker threads, each with state of its own: its runtime, its
 * inputs), and a timer (serial, on the calling thread, so timings do not overlap).  A
 * candidate whose check fails is reported and never chosen.  The result of a tuning
 * persists in a small text file beside the JIT cache (the tuning file, below), keyed by the
 * card and a text of the kernel's, and the library reads it back (cutec_gemm does).
 *
 * Seed 003's autotuned elementwise example, and CuTe DSL's autotune_jit, do the same in
 * Python: a dict of parameter lists, compile each, check, benchmark, keep the fastest. */
#ifndef CUTEC_TUNE_H
#define CUTEC_TUNE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutec/jit.h"

enum { CUTE_TUNE_MAX_PARAMS = 8, CUTE_TUNE_MAX_VALUES = 16 };

/* one parameter: its name and values (labels[i], when given, prints value i: "128x256") */
typedef struct cute_tune_param {
    const char *name;
    int nvalues;
    int values[CUTE_TUNE_MAX_VALUES];
    const char *labels[CUTE_TUNE_MAX_VALUES];
} cute_tune_param;

/* The space: every combination of the parameters' values.  Point i of the space takes the
 * values of i in mixed radix, the first parameter the slowest: point 0 is every
 * parameter's first value (put the library's default first). */
typedef struct cute_tune_space {
    int nparams;
    cute_tune_param param[CUTE_TUNE_MAX_PARAMS];
} cute_tune_space;

/* add a parameter (false: the space is full, or nvalues outside 1..CUTE_TUNE_MAX_VALUES) */
bool cute_tune_space_add(cute_tune_space *s, const char *name, int nvalues, const int *values,
                         const char *const *labels);
int64_t cute_tune_space_size(const cute_tune_space *s);
/* point i's value of each parameter into values[nparams] (false: i out of range) */
bool cute_tune_space_point(const cute_tune_space *s, int64_t i, int *values);
/* "tile=128x256 stages=4": each parameter's name=label (or value), n bytes */
void cute_tune_point_text(const cute_tune_space *s, const int *values, char *out, size_t n);

/* what became of a candidate */
typedef enum {
    CUTE_TUNE_SKIPPED,   /* refused by `valid` (a tile that does not fit, known broken) */
    CUTE_TUNE_FAILED,    /* the builder failed (the compiler, the plan) */
    CUTE_TUNE_WRONG,     /* built, but its result was wrong: never chosen */
    CUTE_TUNE_CHECKED,   /* right; not timed (no timer, or the budget of timings spent) */
    CUTE_TUNE_TIMED,     /* right and timed */
    CUTE_TUNE_UNTIMED,   /* right, but the timer failed */
} cute_tune_state;
const char *cute_tune_state_name(cute_tune_state s); /* "skipped", "failed", "wrong", ... */

typedef struct cute_tune_result {
    int64_t index;                 /* its point in the space */
    int point[CUTE_TUNE_MAX_PARAMS];
    cute_tune_state state;
    double build_ms;               /* wall time of build + check on its worker */
    double ms;                     /* the timer's (CUTE_TUNE_TIMED) */
    double stat;                   /* the checker's number for the table (e.g. spills); -1 none */
    char why[256];                 /* skipped, failed, wrong: why */
} cute_tune_result;

/* where the run is, for a progress bar: done of total in the phase ("build", "time") */
typedef struct cute_tune_progress {
    const char *phase;
    int done, total;
    const cute_tune_result *last; /* the candidate just finished */
} cute_tune_progress;

typedef struct cute_tuner {
    const cute_tune_space *space;
    void *user;
    /* cheap and serial: false (why in why) skips the point; NULL: every point */
    bool (*valid)(void *user, const int *point, char *why, size_t n);
    /* a worker's state (its runtime, inputs), made on its thread; NULL: none needed.  A
     * worker that cannot be made fails the run with err. */
    void *(*worker_new)(void *user, char *err, size_t n);
    void (*worker_free)(void *user, void *worker);
    /* build the candidate on the worker (compile): CUTE_OK, else why */
    cute_status (*build)(void *user, void *worker, const int *point, char *why, size_t n);
    /* run it and compare with the reference: CUTE_OK when right, else why (*stat: a number
     * for the table, e.g. spill bytes; leave -1 for none) */
    cute_status (*check)(void *user, void *worker, const int *point, double *stat, char *why, size_t n);
    /* milliseconds of one call (median), on the calling thread; NULL: no timing.  < 0 on
     * failure, why in why. */
    double (*time)(void *user, const int *point, char *why, size_t n);
    /* after each candidate of each phase (on the calling thread); NULL: none */
    void (*progress)(void *user, const cute_tune_progress *p);
} cute_tuner;

typedef struct cute_tune_opts {
    int jobs;   /* worker threads (0: 1) */
    int budget; /* at most this many candidates built (the first valid points); 0: all */
} cute_tune_opts;

/* Enumerate the space, drop the points `valid` refuses, build and check the first `budget`
 * of the rest on `jobs` threads, then time the right ones one by one.  *results (malloc'd,
 * the caller frees) gets one row per point tried, in space order; *best the index in it of
 * the fastest right one, -1 when none was timed.  Not OK only when the run itself could
 * not go (a worker not made, out of memory), with err. */
cute_status cute_tune_run(const cute_tuner *t, const cute_tune_opts *o, cute_tune_result **results, int *count,
                          int *best, char *err, size_t n);

/* --- the tuning file ------------------------------------------------------------------
 * Text, versioned: the line "cutec-tune 1", then one entry a line of five tab-separated
 * fields: card name, SM count, key, configuration, milliseconds ("#" lines and blank lines
 * are comments).  Keys and configurations are the kernel's own words ("gemm bf16>bf16 tnn
 * 4096x4096x4096", "variant=hopper tile=128x256x64 ...").  Written whole to a temporary
 * file and renamed (a reader sees the old file or the new one), under a lock (two tuners
 * at once both keep their entries).  A file that is not one of these is refused with its
 * name, line and what is wrong; it is never half-used. */
typedef struct cute_tune_entry {
    char card[128]; /* the device's name ("NVIDIA H200"; "interp sm_90" on the interpreter) */
    int sms;        /* its SM count (0 on the interpreter) */
    char key[256];
    char config[512];
    double ms;      /* the tuned time (> 0) */
} cute_tune_entry;

typedef struct cute_tune_db cute_tune_db;
/* the file's path: $CUTEC_TUNE_FILE, else tune.txt in the JIT cache's directory
 * (cute_cache_default_dir); false when there is none */
bool cute_tune_db_path(char *buf, size_t n);
/* an empty table (NULL: out of memory) */
cute_tune_db *cute_tune_db_new(void);
/* the file at path (a missing file: an empty table, OK); CUTE_ERR_INVALID with "path:line:
 * what" for a file that is not a tuning file of this version */
cute_status cute_tune_db_load(const char *path, cute_tune_db **out, char *err, size_t n);
/* the same from text (name: for messages) */
cute_status cute_tune_db_parse(const char *text, size_t len, const char *name, cute_tune_db **out, char *err,
                               size_t n);
void cute_tune_db_free(cute_tune_db *db);
int cute_tune_db_count(const cute_tune_db *db);
const cute_tune_entry *cute_tune_db_at(const cute_tune_db *db, int i);
/* the entry of (card, sms, key), or NULL; *line its line in the file when not NULL */
const cute_tune_entry *cute_tune_db_find(const cute_tune_db *db, const char *card, int sms, const char *key,
                                         int *line);
/* add e, or replace the entry of its (card, sms, key); CUTE_ERR_INVALID when a field is
 * empty, too long, holds a tab or a newline, or ms is not > 0 */
cute_status cute_tune_db_put(cute_tune_db *db, const cute_tune_entry *e, char *err, size_t n);
/* the table as the file's text (malloc'd) */
char *cute_tune_db_text(const cute_tune_db *db);
/* Merge entries into the file at path: under the file's lock, read it again, put each,
 * write it whole atomically (mode 0600; the folder made 0700).  A corrupt file there is
 * not overwritten: CUTE_ERR_INVALID naming it. */
cute_status cute_tune_db_store(const char *path, const cute_tune_entry *e, int count, char *err, size_t n);

/* the card a runtime runs on, as the tuning file names it: the GPU's name and SM count, or
 * "interp sm_XX" and 0 on the interpreter */
void cute_tune_card(cute_runtime *rt, char *name, size_t n, int *sms);

CUTE_API_END
#endif
