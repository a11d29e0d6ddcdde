/* The CUTEC_* variables cutec reads, and a warning for any other CUTEC_* name in the
 * environment: a variable of a form that was measured, lost and deleted, or a misspelt one,
 * would otherwise be ignored without a word, and a benchmark run under it would time the
 * default under the form's name (the same reason env_choice.h refuses a bad value).
 *
 * The lowest layer, like env_choice.h: it depends on nothing of cutec. */
#ifndef CUTEC_ENV_KNOWN_H
#define CUTEC_ENV_KNOWN_H

#include <stdbool.h>
#include <stddef.h>

extern const char *const cute_env_known_names[]; /* sorted (strcmp) */
extern const size_t cute_env_known_count;

bool cute_env_is_known(const char *name);

/* the known name nearest to name (fewest single-character edits, at most 3), or NULL */
const char *cute_env_nearest(const char *name);

/* Once per process: for each CUTEC_* name in the environment that cutec does not read, one line
 * on stderr, "cutec: CUTEC_X is set, but cutec reads no such variable (did you mean CUTEC_Y?);
 * ignored".  The backends' constructors and the CLI call it; cheap after the first call. */
void cute_env_warn_unknown(void);

/* the same check now, into out (the lines joined, "" if none): for tests; returns the count */
int cute_env_unknown_report(char *out, size_t n);

#endif
