/* A torch script's figure lines for a bench (cli_torch.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli_torch.h"

/* line (its newline dropped) appended to t; false when out of memory */
static bool keep(cli_torch *t, const char *line)
{
    char **more = realloc(t->line, (size_t)(t->n + 1) * sizeof *more), *copy = strdup(line);
    if (more) t->line = more;
    if (!more || !copy) return free(copy), false;
    copy[strcspn(copy, "\n")] = 0;
    t->line[t->n++] = copy;
    return true;
}

cli_torch cli_torch_lines(const char *what, const char *env, const char *script, const char *prefix, const char *args)
{
    cli_torch t = {NULL, 0};
    const char *set = env ? getenv(env) : NULL;
    if (set) script = set;
    size_t n = strlen(script) + strlen(args) + 32;
    char *cmd = malloc(n), *line = NULL;
    if (!cmd) return printf("# %s: skipped: out of memory\n", what), t;
    snprintf(cmd, n, "python3 %s %s 2>&1", script, args);
    FILE *f = popen(cmd, "r");
    free(cmd);
    if (!f) return printf("# %s: skipped: popen failed\n", what), t;
    size_t cap = 0, plen = strlen(prefix);
    bool said = false, whole = true;
    while (getline(&line, &cap, f) > 0) {
        if (!strncmp(line, prefix, plen)) whole = whole && keep(&t, line);
        else if (line[0] == '#') printf("%s", line), said = said || strstr(line, "skipped");
    }
    free(line);
    int rc = pclose(f);
    if (!whole) printf("# %s: out of memory: some figures not read\n", what);
    else if (!t.n && !said) {
        int code = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : rc; /* (0: a script that prints nothing, /dev/null) */
        printf("# %s: skipped: no figure from %s (exit %d%s)\n", what, script, code,
               code ? "; python3 or torch missing, or run from elsewhere than the repository root" : "");
    }
    return t;
}

void cli_torch_free(cli_torch *t)
{
    for (int i = 0; i < t->n; i++) free(t->line[i]);
    free(t->line);
    t->line = NULL, t->n = 0;
}
