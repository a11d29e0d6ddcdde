/* `cutec tune`'s shared parts (tune_cmd.c) and its kernels (tune_gemm.c, tune_ew.c). */
#ifndef CUTEC_CLI_TUNE_CLI_H
#define CUTEC_CLI_TUNE_CLI_H

#include "cutec/kernels.h"
#include "cutec/tune.h"

#define TUNE_MAX_SHAPES 16

typedef struct tune_opts {
    const char *kernel;          /* "gemm", "elementwise" */
    cute_dtype in, out;          /* out CUTE_VOID: the input's default */
    char layout[4];              /* gemm: BLAS's letters */
    int64_t shapes[TUNE_MAX_SHAPES][3]; /* gemm: M, N, K; elementwise: the element count */
    int nshapes;
    cute_ew_op op;               /* elementwise */
    const char *arch;            /* --interp: the target (default sm_90a) */
    const char *file;            /* the tuning file (NULL: cute_tune_db_path) */
    int budget, jobs, iters;
    bool interp;                 /* check on the interpreter at a small size, time nothing */
    uint64_t seed;
} tune_opts;

/* What every kernel's tuning context starts with: the progress bar's state.  The kernels'
 * tuner callbacks get their context as `user`, and tune_progress (the tuner's progress
 * callback) reads this first member of it. */
typedef struct tune_ui {
    const cute_tune_space *space;
    bool tty;
    double t0;
} tune_ui;
void tune_progress(void *user, const cute_tune_progress *p);

/* One tuning run of a shape: cute_tune_run with o's jobs and budget, the table (rate: the
 * kernel's rate for ms, in unit), and the fastest right point into point, its time into *ms
 * (0 when nothing was timed).  CLI_OK, or CLI_FAIL when the run could not go or no
 * candidate was right. */
int tune_shape(const tune_opts *o, const cute_tuner *t, double (*rate)(void *user, double ms), const char *unit,
               int *point, double *ms);
/* the entries made into the tuning file (o->file, else the default), said on stdout */
int tune_store(const tune_opts *o, const cute_tune_entry *e, int count);
/* --interp's compile: f's kernels compiled for arch by NVRTC (in the calling thread), the
 * spill-store bytes of ptxas's report into *bytes; else why */
cute_status tune_spill_bytes(const cute_fn *f, const char *arch, double *bytes, char *why, size_t n);
/* milliseconds now (the monotonic clock) */
double tune_now_ms(void);

int tune_gemm(const tune_opts *o);        /* tune_gemm.c */
int tune_elementwise(const tune_opts *o); /* tune_ew.c */

#endif
