/* The tuner's parameter space: named parameters, each a list of values, and the points of
 * their product in mixed radix (the first parameter the slowest, so point 0 is every
 * parameter's first value). */
#include <stdio.h>
#include <string.h>

#include "cutec/tune.h"

bool cute_tune_space_add(cute_tune_space *s, const char *name, int nvalues, const int *values,
                         const char *const *labels)
{
    if (!s || !name || s->nparams >= CUTE_TUNE_MAX_PARAMS || nvalues < 1 || nvalues > CUTE_TUNE_MAX_VALUES)
        return false;
    cute_tune_param *p = &s->param[s->nparams++];
    memset(p, 0, sizeof *p);
    p->name = name, p->nvalues = nvalues;
    for (int i = 0; i < nvalues; i++) p->values[i] = values[i], p->labels[i] = labels ? labels[i] : NULL;
    return true;
}

int64_t cute_tune_space_size(const cute_tune_space *s)
{
    if (!s || s->nparams < 1) return 0;
    int64_t size = 1;
    for (int i = 0; i < s->nparams; i++) size *= s->param[i].nvalues; /* at most 16^8 */
    return size;
}

bool cute_tune_space_point(const cute_tune_space *s, int64_t i, int *values)
{
    if (i < 0 || i >= cute_tune_space_size(s)) return false;
    for (int k = s->nparams - 1; k >= 0; k--) { /* the last parameter the fastest */
        const cute_tune_param *p = &s->param[k];
        values[k] = p->values[i % p->nvalues];
        i /= p->nvalues;
    }
    return true;
}

/* the label of value v of p, or v itself */
static const char *label_of(const cute_tune_param *p, int v, char *buf, size_t n)
{
    for (int i = 0; i < p->nvalues; i++)
        if (p->values[i] == v && p->labels[i]) return p->labels[i];
    snprintf(buf, n, "%d", v);
    return buf;
}

void cute_tune_point_text(const cute_tune_space *s, const int *values, char *out, size_t n)
{
    size_t len = 0;
    if (n) out[0] = 0;
    for (int k = 0; k < s->nparams && len < n; k++) {
        char buf[24];
        int w = snprintf(out + len, n - len, "%s%s=%s", k ? " " : "", s->param[k].name,
                         label_of(&s->param[k], values[k], buf, sizeof buf));
        if (w < 0) break;
        len += (size_t)w;
    }
}

const char *cute_tune_state_name(cute_tune_state s)
{
    static const char *const names[] = {"skipped", "failed", "wrong", "checked", "timed", "untimed"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}
