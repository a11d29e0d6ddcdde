/* The row kernels' CUTEC_* settings (docs/dsl.md's table), read through env/env_choice.h.
 * Their readers sit deep in the plan, without an error path, so the library's calls
 * (rows_run, the column sums) first refuse a value that is none of a setting's
 * (rows_env_check): the readers then see a value of the set or the default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_choice.h"
#include "kernels/rows/rows_internal.h"

/* by rows_env_setting: each setting's values, its default first */
static const struct {
    const char *name, *choices;
} SETTINGS[ROWS_ENV_COUNT] = {
    [ROWS_ENV_WORDS] = {"CUTEC_ROWS_WORDS", "1|0"},
    [ROWS_ENV_PAIRS] = {"CUTEC_ROWS_PAIRS", "1|0"},
    [ROWS_ENV_HEX] = {"CUTEC_ROWS_HEX", "1|0"},
    [ROWS_ENV_SPLIT] = {"CUTEC_ROWS_SPLIT", "1|0"},
    [ROWS_ENV_EARLY] = {"CUTEC_ROWS_EARLY", "1|0"},
    [ROWS_ENV_COLS_UNROLL] = {"CUTEC_COLS_UNROLL", "8|4"},
    [ROWS_ENV_DIAG] = {"CUTEC_ROWS_DIAG", "none|nocols|nobias|cols0"},
};

/* CUTEC_ROWS_TRIAL's names beside 0 (none) and 1 (every one): rows_trial's callers, and eight
 * defaults left out as no-NAME (row_lnb_form): ln39's row128, lnb's idx32 and wf32, rows40's
 * slim, ln41's tail, nb41's sumlanes, sumpdl and rowpdl */
static const char *const TRIALS = "ahead|hex|wchain1|no-row128|no-idx32|no-wf32|no-slim|no-tail|no-sumlanes|no-sumpdl|no-rowpdl";

int rows_env(rows_env_setting s)
{
    int i = cute_env_choice_err(SETTINGS[s].name, SETTINGS[s].choices, 0, NULL, 0);
    return i < 0 ? 0 : i;
}

/* whether word (n characters) is one of list's words, separated by sep */
static bool word_in(const char *list, char sep, const char *word, size_t n)
{
    for (const char *p = list;;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, word, n)) return true;
        if (!end) return false;
        p = end + 1;
    }
}

bool rows_trial(const char *name)
{
    const char *t = getenv("CUTEC_ROWS_TRIAL");
    if (!t || !*t || !strcmp(t, "0")) return false;
    return !strcmp(t, "1") || word_in(t, ',', name, strlen(name));
}

cute_status rows_env_check(char *err, size_t n)
{
    char why[256];
    for (int s = 0; s < ROWS_ENV_COUNT; s++)
        if (cute_env_choice_err(SETTINGS[s].name, SETTINGS[s].choices, 0, why, sizeof why) < 0)
            return snprintf(err, n, "rows: %s", why), CUTE_ERR_INVALID;
    const char *t = getenv("CUTEC_ROWS_TRIAL");
    if (!t || !*t || !strcmp(t, "0") || !strcmp(t, "1")) return CUTE_OK;
    for (const char *p = t;;) {
        size_t len = strcspn(p, ",");
        if (!word_in(TRIALS, '|', p, len))
            return snprintf(err, n, "rows: CUTEC_ROWS_TRIAL=%.64s: %.*s is not one of 0|1|%s (a list: a,b)", t,
                            (int)(len < 32 ? len : 32), p, TRIALS),
                   CUTE_ERR_INVALID;
        if (!p[len]) return CUTE_OK;
        p += len + 1;
    }
}
