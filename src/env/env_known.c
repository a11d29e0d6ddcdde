/* Unknown CUTEC_* variables in the environment, named (env_known.h) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_known.h"

extern char **environ;

static int by_name(const void *key, const void *elem) { return strcmp(key, *(const char *const *)elem); }

bool cute_env_is_known(const char *name)
{
    return bsearch(name, cute_env_known_names, cute_env_known_count, sizeof *cute_env_known_names, by_name);
}

/* single-character insertions, deletions and substitutions from a to b, or limit + 1 once past it */
static int edits(const char *a, const char *b, int limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > lb + (size_t)limit || lb > la + (size_t)limit || lb >= 128) return limit + 1;
    int row[128];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v) v = up + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            diag = up, row[j] = v;
            if (v < best) best = v;
        }
        if (best > limit) return limit + 1;
    }
    return row[lb];
}

const char *cute_env_nearest(const char *name)
{
    const char *best = NULL;
    int best_d = 4;
    for (size_t i = 0; i < cute_env_known_count; i++) {
        int d = edits(name, cute_env_known_names[i], best_d - 1);
        if (d < best_d) best_d = d, best = cute_env_known_names[i];
    }
    return best;
}

int cute_env_unknown_report(char *out, size_t n)
{
    int count = 0;
    size_t used = 0;
    if (n) out[0] = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "CUTEC_", 6)) continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        char name[128];
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, *e, len), name[len] = 0;
        if (cute_env_is_known(name)) continue;
        const char *near = cute_env_nearest(name);
        char hint[160] = "";
        if (near) snprintf(hint, sizeof hint, " (did you mean %s?)", near);
        int w = snprintf(out + used, n > used ? n - used : 0,
                         "cutec: %s is set, but cutec reads no such variable%s; ignored (docs/dsl.md lists them)\n",
                         name, hint);
        if (w > 0 && n) used = used + (size_t)w < n ? used + (size_t)w : n - 1; /* (truncated: full) */
        count++;
    }
    return count;
}

static void warn_now(void)
{
    char text[4096];
    if (cute_env_unknown_report(text, sizeof text)) fputs(text, stderr);
}

void cute_env_warn_unknown(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, warn_now);
}
