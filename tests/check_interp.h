/* A test's interpreter runtime: check_interp() returns one, or NULL after a failed CHECK
 * saying why (the test then ends with CHECK_DONE). */
#ifndef CUTEC_CHECK_INTERP_H
#define CUTEC_CHECK_INTERP_H

#include "check.h"
#include "cutec/jit.h"

static inline cute_runtime *check_interp(void)
{
    char err[512];
    cute_runtime *rt = NULL;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return NULL;
    }
    return rt;
}

#endif
