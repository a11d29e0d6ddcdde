/* Messages name functions that exist: every cute_* name inside a string literal of the
 * library's sources (its diagnostics) is declared in a public header.  (The CUDA C backend's
 * strings are generated code, with helper names of their own: not messages.)  Runs from the
 * repository root, as `make test` runs every test. */
#include <ctype.h>
#include <glob.h>
#include <stdbool.h>

#include "check.h"

static char *headers; /* every public header, concatenated */

static char *read_all(const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return NULL;
    size_t n = 0;
    char *all = calloc(1, 1);
    for (size_t i = 0; i < g.gl_pathc && all; i++) {
        char *s = check_read_file(g.gl_pathv[i]);
        size_t k = s ? strlen(s) : 0;
        char *grown = realloc(all, n + k + 2);
        if (grown) memcpy(grown + n, s ? s : "", k), n += k, grown[n++] = '\n', grown[n] = 0;
        else free(all);
        all = grown;
        free(s);
    }
    globfree(&g);
    return all;
}

/* is `name` a whole word of the headers? */
static bool declared(const char *name)
{
    size_t n = strlen(name);
    for (const char *p = headers; (p = strstr(p, name)); p += n)
        if ((p == headers || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return true;
    return false;
}

/* the cute_* names in the string literals of one source */
static void check_source(const char *path)
{
    char *s = check_read_file(path);
    if (!s) return;
    bool in_string = false;
    for (char *p = s; *p; p++) {
        if (!in_string && p[0] == '/' && p[1] == '*') { /* comments are not messages */
            char *e = strstr(p + 2, "*/");
            if (!e) break;
            p = e + 1;
            continue;
        }
        if (!in_string && p[0] == '/' && p[1] == '/') {
            while (p[1] && p[1] != '\n') p++;
            continue;
        }
        if (!in_string && p[0] == '\'' && p[1] == '\\' && p[2] && p[3] == '\'') { p += 3; continue; }
        if (!in_string && p[0] == '\'' && p[1] && p[2] == '\'') { p += 2; continue; } /* '"' */
        if (*p == '\\' && in_string && p[1]) { p++; continue; }
        if (*p == '"') { in_string = !in_string; continue; }
        if (!in_string || strncmp(p, "cute_", 5) || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
            continue;
        char name[96];
        size_t n = 0;
        while ((isalnum((unsigned char)p[n]) || p[n] == '_') && n + 1 < sizeof name) name[n] = p[n], n++;
        name[n] = 0;
        CHECK(declared(name), "%s: a message names %s, which no public header declares", path, name);
        p += n - 1;
    }
    free(s);
}

int main(void)
{
    headers = read_all("include/cutec/*.h");
    if (!headers) {
        SKIP("no include/cutec here (run from the repository root)");
        return CHECK_DONE("trace/message_names_test");
    }
    const char *patterns[] = {"src/*/*.c", "src/*/*/*.c"};
    for (int k = 0; k < 2; k++) {
        glob_t g;
        if (glob(patterns[k], 0, NULL, &g) != 0) continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *p = g.gl_pathv[i];
            if (strstr(p, "_test.c") || !strncmp(p, "src/backend/", 12)) continue;
            check_source(p);
        }
        globfree(&g);
    }
    free(headers);
    return CHECK_DONE("trace/message_names_test");
}
