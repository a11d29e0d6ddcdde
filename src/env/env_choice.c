/* CUTEC_* settings with a closed set of values (env_choice.h) */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"

/* the index of the word v in "a|b|c", or -1 */
static int choice_index(const char *choices, const char *v)
{
    size_t n = strlen(v);
    int i = 0;
    for (const char *p = choices;; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, v, n)) return i;
        if (!bar) return -1;
        p = bar + 1;
    }
}

int cute_env_choice_err(const char *name, const char *choices, int dflt, char *err, size_t errn)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    int i = choice_index(choices, v);
    if (i < 0 && errn) snprintf(err, errn, "%s=%s: not one of %s", name, v, choices);
    return i;
}

int cute_env_int_err(const char *name, long lo, long hi, long dflt, long *out, char *err, size_t errn)
{
    const char *v = getenv(name);
    *out = dflt;
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (*end || errno || x < lo || x > hi) {
        if (errn) snprintf(err, errn, "%s=%s: not an integer in [%ld, %ld]", name, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* once per variable and process: the names warned about so far (a handful at most) */
void cute_env_warn_once(const char *name, const char *msg, const char *instead)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const char *warned[32];
    static int nwarned;
    bool say = true;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nwarned && say; i++) say = strcmp(warned[i], name) != 0;
    if (say && nwarned < 32) warned[nwarned++] = name; /* the callers' names are literals */
    pthread_mutex_unlock(&lock);
    if (say) fprintf(stderr, "cutec: %s; using %s\n", msg, instead);
}

/* the i-th word of "a|b|c" into out */
static void choice_word(const char *choices, int i, char *out, size_t n)
{
    const char *p = choices;
    for (; i > 0 && strchr(p, '|'); i--) p = strchr(p, '|') + 1;
    size_t len = strcspn(p, "|");
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

int cute_env_choice_warn(const char *name, const char *choices, int dflt)
{
    char err[256], instead[64];
    int i = cute_env_choice_err(name, choices, dflt, err, sizeof err);
    if (i >= 0) return i;
    choice_word(choices, dflt, instead, sizeof instead);
    cute_env_warn_once(name, err, instead);
    return dflt;
}

long cute_env_int_warn(const char *name, long lo, long hi, long dflt)
{
    char err[256], instead[32];
    long x;
    if (!cute_env_int_err(name, lo, hi, dflt, &x, err, sizeof err)) return x;
    snprintf(instead, sizeof instead, "%ld", dflt);
    cute_env_warn_once(name, err, instead);
    return dflt;
}

void cute_env_warn_diag(const char *name)
{
    char msg[160];
    snprintf(msg, sizeof msg, "%s=%s is a diagnostic: the kernels compiled under it compute wrong results by design",
             name, getenv(name) ? getenv(name) : "");
    cute_env_warn_once(name, msg, "it all the same");
}
