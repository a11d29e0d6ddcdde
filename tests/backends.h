/* Run a test on the interpreter and, when there is a GPU, on the CUDA backend; without one
 * the GPU half is a visible skip naming `what` ran on the interpreter only. */
#ifndef CUTEC_TESTS_BACKENDS_H
#define CUTEC_TESTS_BACKENDS_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/jit.h"

static inline void check_on_backends(void (*run)(cute_runtime *rt, const char *where), const char *what)
{
    cute_backend ib;
    if (cute_interp_new(NULL, &ib) == CUTE_OK) {
        cute_runtime *rt = cute_runtime_wrap(ib);
        run(rt, "interp");
        cute_runtime_free(rt);
    } else {
        CHECK(0, "no interpreter");
    }
    char err[512], why[600];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        run(rt, "cuda");
        cute_runtime_free(rt);
    } else {
        snprintf(why, sizeof why, "no GPU: %s ran on the interpreter only", what);
        SKIP(why);
    }
}

/* run(rt, where, d, seed) for f16 and then bf16 on `backend` ("interp", "cuda"); without it a
 * visible skip naming `what` */
typedef void half_types_run(cute_runtime *rt, const char *where, cute_dtype d, uint64_t *seed);
static inline void check_half_types(const char *backend, const char *where, uint64_t *seed, half_types_run *run,
                                    const char *what)
{
    char err[512], why[600];
    cute_runtime *rt;
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        snprintf(why, sizeof why, "no GPU: %s ran on the interpreter only", what);
        SKIP(why);
        return;
    }
    run(rt, where, CUTE_F16, seed);
    run(rt, where, CUTE_BF16, seed);
    cute_runtime_free(rt);
}

/* an interpreter whose kernels print into a string: begin, compile and call through rt,
 * read printing_text, end */
typedef struct printing {
    FILE *out;
    char *text;
    size_t len;
    cute_runtime *rt;
    cute_backend be;
} printing;

static inline int printing_begin(printing *p)
{
    p->text = NULL, p->len = 0, p->rt = NULL;
    p->out = open_memstream(&p->text, &p->len);
    cute_interp_opts o = {.printf_out = p->out};
    if (!p->out || cute_interp_new(&o, &p->be) != CUTE_OK) {
        CHECK(0, "no interpreter printing to memory");
        return 0;
    }
    p->rt = cute_runtime_wrap(p->be);
    return 1;
}

static inline const char *printing_text(printing *p)
{
    fflush(p->out);
    return p->text ? p->text : "";
}

static inline void printing_end(printing *p)
{
    if (p->rt) cute_runtime_free(p->rt);
    if (p->out) fclose(p->out);
    free(p->text);
}

#endif
