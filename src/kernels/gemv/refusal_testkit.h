/* The GEMV tests' refused calls (gemv_test.c, blockscaled_test.c): a scratch buffer and a
 * library to aim malformed calls at, and the check that a call was refused with the
 * operand named. */
#ifndef CUTEC_GEMV_REFUSAL_TESTKIT_H
#define CUTEC_GEMV_REFUSAL_TESTKIT_H

#include <string.h>

#include "check.h"
#include "cutec/gemv.h"

typedef struct refusal_kit {
    cute_backend *b;
    cute_buffer buf; /* 64 KB: room for every operand of the malformed calls */
    cute_gemv_lib *lib;
} refusal_kit;

static inline refusal_kit refusal_kit_new(cute_runtime *rt)
{
    refusal_kit k = {.b = cute_runtime_backend(rt)};
    CHECK(k.b->vt->alloc(k.b->self, 1 << 16, &k.buf) == CUTE_OK, "alloc");
    k.lib = cute_gemv_lib_new(rt);
    return k;
}

static inline void refusal_kit_free(refusal_kit *k)
{
    cute_gemv_lib_free(k->lib);
    k->b->vt->free(k->b->self, &k->buf);
}

/* the call `what` answered s and err: INVALID, with `word` in the message */
static inline void check_refused(const char *what, cute_status s, const char *err, const char *word)
{
    CHECK(s == CUTE_ERR_INVALID && strstr(err, word), "%s: %s (%s), want \"%s\"", what,
          cute_status_name(s), err, word);
}

#endif
