/* Reading a CUTEC_* setting whose values are a closed set (a word of "a|b|c", or an integer
 * in [lo, hi]): unset or empty means the default; anything else that is not one of the values
 * is an error that names the variable, the value and what was expected, never a silent default
 * (a misspelled opt-in would otherwise benchmark the default under the opt-in's name).
 *
 * The lowest layer: it depends on nothing of cutec, so every folder may include it.  A reader
 * with an error path (a kernel's compile, a backend) takes the message from the _err forms; a
 * reader without one uses the _warn forms: one warning on stderr per variable and process that
 * says which value is used instead. */
#ifndef CUTEC_ENV_CHOICE_H
#define CUTEC_ENV_CHOICE_H

#include <stddef.h>

/* the index of $name's value in choices ("keep|reuse|nop": 0, 1, 2), dflt when unset or
 * empty, -1 (and "CUTEC_X=value: not one of a|b|c" in err) when it is none of them */
int cute_env_choice_err(const char *name, const char *choices, int dflt, char *err, size_t errn);

/* $name as an integer in [lo, hi], dflt when unset or empty; 0, or -1 with "CUTEC_X=value:
 * not an integer in [lo, hi]" in err (*out is then dflt) */
int cute_env_int_err(const char *name, long lo, long hi, long dflt, long *out, char *err, size_t errn);

/* the same where the reader has no error path: a bad value warns once and gives dflt */
int cute_env_choice_warn(const char *name, const char *choices, int dflt);
long cute_env_int_warn(const char *name, long lo, long hi, long dflt);

/* for a setting whose values are not a list (a seed, a coordinate): "cutec: msg; using
 * instead" on stderr, once per name and process (name a string literal) */
void cute_env_warn_once(const char *name, const char *msg, const char *instead);

/* a diagnostic's setting in force (CUTEC_*_DIAG and the like: kernels wrong by design, so
 * that a bench times what is left): "cutec: NAME=VALUE is a diagnostic: the kernels compiled
 * under it compute wrong results by design; using it all the same", once per name and process */
void cute_env_warn_diag(const char *name);

#endif
