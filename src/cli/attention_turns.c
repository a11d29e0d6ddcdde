/* `cutec run attention --turns`'s forms: the CUTEC_* settings each form's library is compiled
 * and called under, read from the option's text, set and restored around its turns (the
 * forward's and backward's run_turns, attention_cmd.c; decode's, attention_decode_cmd.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/attention_cli.h"
#include "cli/gpu_timing.h"

static bool turn_parse(turn_form *f, const char *text, size_t len)
{
    if (len >= sizeof f->text) return false;
    memcpy(f->text, text, len), f->text[len] = 0;
    char *save = NULL;
    for (char *t = strtok_r(f->text, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (f->n == TURN_SETTINGS || !eq || strncmp(t, "CUTEC_", 6) != 0) return false;
        *eq = 0, f->name[f->n] = t, f->value[f->n++] = eq + 1;
    }
    return f->n > 0;
}

/* --turns' text into forms[1..] (forms[0]: the default); false where it is not forms of
 * CUTEC_NAME=VALUE settings */
bool turns_parse(const char *text, turn_form forms[TURN_FORMS], int *nf)
{
    memset(forms, 0, TURN_FORMS * sizeof *forms);
    *nf = 1;
    for (const char *t = text; *t; ++*nf) {
        size_t len = strcspn(t, "/");
        if (*nf == TURN_FORMS || !turn_parse(&forms[*nf], t, len)) return false;
        t += len + (t[len] == '/');
    }
    return *nf > 1;
}

/* a form's settings set (on), or the values before them restored */
static void turn_env(turn_form *f, bool on)
{
    for (int i = 0; i < f->n; i++) {
        if (on) {
            const char *v = getenv(f->name[i]);
            f->old[i] = v ? strdup(v) : NULL;
            setenv(f->name[i], f->value[i], 1);
        } else {
            if (f->old[i]) setenv(f->name[i], f->old[i], 1);
            else unsetenv(f->name[i]);
            free(f->old[i]), f->old[i] = NULL;
        }
    }
}

/* "default", or the form's settings as NAME=VALUE,... */
static void turn_label(const turn_form *f, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s", f->n ? "" : "default");
    for (int i = 0; i < f->n && len >= 0 && (size_t)len < n; i++)
        len += snprintf(buf + len, n - (size_t)len, "%s%s=%s", i ? "," : "", f->name[i], f->value[i]);
}


/* a diagnostic form (a CUTEC_*_DIAG setting other than none): wrong by design, timed all the
 * same */
static bool turn_diagnostic(const turn_form *f)
{
    for (int i = 0; i < f->n; i++) {
        size_t len = strlen(f->name[i]);
        if (len > 5 && !strcmp(f->name[i] + len - 5, "_DIAG") && strcmp(f->value[i], "none")) return true;
    }
    return false;
}

/* ", verified ..." or ", FAILED ..." of a form's first (checked) call */
static void turn_checked(const turn_form *f, int64_t bad, int64_t rows)
{
    const char *how = !bad                 ? "verified against float64"
                      : turn_diagnostic(f) ? "wrong by design (a diagnostic)"
                                           : "FAILED";
    printf(", %s (%lld wrong in %lld rows)", how, (long long)bad, (long long)rows);
}

/* ", MHZ MHz, W W, clock events 0xN" of a timing (nothing without the card's figures) */
static void turn_load(const gpu_load *l)
{
    if (l->mhz > 0) printf(", %.0f MHz, %.0f W, clock events 0x%llx", l->mhz, l->watts, l->events);
}

int turns_run(const char *text, int rounds, const char *what, const turn_ops *ops)
{
    turn_form forms[TURN_FORMS];
    int nf, rc = CLI_OK;
    if (!turns_parse(text, forms, &nf)) return CLI_USAGE; /* (refused as the options were read) */
    char label[600];
    for (int r = 0; r < (rounds ? rounds : 2) && rc == CLI_OK; r++)
        for (int k = 0; k < nf && rc == CLI_OK; k++) {
            turn_form *f = &forms[r % 2 ? nf - 1 - k : k];
            turn_label(f, label, sizeof label);
            turn_env(f, true);
            bool first = !f->lib;
            if (first) f->lib = ops->lib_new(ops->user);
            int64_t bad = 0, rows = 0;
            double ms = -2;
            gpu_load load = {0, 0, 0};
            if (first)
                ms = ops->checked(ops->user, f->lib, &bad, &rows);
            else if (!ops->rest || ops->rest(ops->user)) { /* the rest before the sampler: not its figures */
                gpu_load_sampler *s = gpu_load_start(ops->cu);
                ms = ops->timed(ops->user, f->lib);
                load = gpu_load_stop(s);
            }
            turn_env(f, false);
            printf("turn %d %s: attention %s", r + 1, label, what);
            if (first && ms > -2) turn_checked(f, bad, rows);
            if (ms >= 0) printf(", %.4f ms, %.1f %s", ms, ops->per_ms / ms, ops->unit);
            turn_load(&load);
            printf("%s\n", ms <= -2 ? ": failed" : "");
            fflush(stdout);
            if (ms <= -2 || (bad && !turn_diagnostic(f))) rc = CLI_FAIL;
        }
    for (int k = 0; k < nf; k++) cute_attention_lib_free(forms[k].lib);
    return rc;
}
