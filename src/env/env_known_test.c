/* The table of CUTEC_* variables (env_known_names.c) against the sources that read them, and
 * the warning for a name not in it: sorted, no name missing (a literal "CUTEC_X" in src/ or
 * tests/, a quoted one in bench/ or python/, a name the test harness sets or reads), none left
 * over (each still read somewhere), each in docs/dsl.md; an unknown name in the environment named once, with the
 * known name nearest to it. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "check_stderr.h"
#include "env/env_known.h"

#define MAX_SEEN 512
static char *seen[MAX_SEEN];
static size_t n_seen;

static void note(const char *name, size_t len)
{
    for (size_t i = 0; i < n_seen; i++)
        if (strlen(seen[i]) == len && !strncmp(seen[i], name, len)) return;
    if (n_seen < MAX_SEEN) seen[n_seen++] = strndup(name, len);
}

/* the names in text: quoted ("CUTEC_X", 'CUTEC_X') or, for a shell script, set (CUTEC_X=) or read
 * ($CUTEC_X, ${CUTEC_X) */
static void names_in(const char *text, bool shell)
{
    for (const char *p = text; (p = strstr(p, "CUTEC_")); p++) {
        size_t len = 6;
        while ((p[len] >= 'A' && p[len] <= 'Z') || (p[len] >= '0' && p[len] <= '9') || p[len] == '_') len++;
        char q = p > text ? p[-1] : 0;
        bool quoted = (q == '"' || q == '\'') && p[len] == q;
        bool harness = shell && (p[len] == '=' || q == '$' || (q == '{' && p > text + 1 && p[-2] == '$'));
        if (len > 6 && (quoted || harness)) note(p, len);
        p += len - 1;
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) s[fread(s, 1, (size_t)n, f)] = 0;
    fclose(f);
    return s;
}

static bool ends(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* every .c, .h (or .py) file under dir */
static void scan(const char *dir, bool python)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st)) continue;
        if (S_ISDIR(st.st_mode)) {
            scan(path, python);
        } else if (python ? ends(path, ".py") : (ends(path, ".c") || ends(path, ".h"))) {
            if (ends(path, "env_known_names.c") || ends(path, "env_known_test.c")) continue; /* the table; these tests' names */
            char *s = slurp(path);
            if (s) names_in(s, false), free(s);
        }
    }
    closedir(d);
}

static void table_matches_sources(void)
{
    struct stat st;
    if (stat("src/env/env_known_names.c", &st)) {
        SKIP("not run from the repository's root: the sources to compare the table with are not here");
        return;
    }
    for (size_t i = 1; i < cute_env_known_count; i++)
        CHECK(strcmp(cute_env_known_names[i - 1], cute_env_known_names[i]) < 0, "sorted and once: %s before %s",
              cute_env_known_names[i - 1], cute_env_known_names[i]);
    scan("src", false), scan("tests", false), scan("bench", true), scan("python", true);
    const char *harness[] = {"scripts/run-tests.sh", "scripts/device-lanes.sh", ".ci/run"};
    for (size_t i = 0; i < sizeof harness / sizeof *harness; i++) {
        char *s = slurp(harness[i]);
        if (s) names_in(s, true), free(s);
    }
    CHECK(n_seen > 50 && n_seen < MAX_SEEN, "the sources name %zu variables", n_seen);
    for (size_t i = 0; i < n_seen; i++)
        CHECK(cute_env_is_known(seen[i]), "%s is read by the sources but not in src/env/env_known_names.c", seen[i]);
    for (size_t k = 0; k < cute_env_known_count; k++) {
        bool found = false;
        for (size_t i = 0; i < n_seen && !found; i++) found = !strcmp(seen[i], cute_env_known_names[k]);
        CHECK(found, "%s is in src/env/env_known_names.c but nothing reads it (delete its line)", cute_env_known_names[k]);
    }
    for (size_t i = 0; i < n_seen; i++) free(seen[i]);
    /* the warning sends the user to docs/dsl.md: every name is there */
    char *doc = slurp("docs/dsl.md");
    CHECK(doc, "docs/dsl.md read");
    for (size_t k = 0; doc && k < cute_env_known_count; k++) {
        char quoted[160];
        size_t len = (size_t)snprintf(quoted, sizeof quoted, "`%s", cute_env_known_names[k]);
        bool found = false; /* as `NAME` or `NAME=...` (not a longer name's start) */
        for (const char *at = doc; !found && (at = strstr(at, quoted)); at += len) found = at[len] == '`' || at[len] == '=';
        CHECK(found, "%s is not in docs/dsl.md's table of variables", cute_env_known_names[k]);
    }
    free(doc);
}

static void nearest(void)
{
    CHECK(cute_env_is_known("CUTEC_CACHE_DIR") && !cute_env_is_known("CUTEC_CACHE") && !cute_env_is_known("CUTEC_"),
          "known and not");
    const char *near = cute_env_nearest("CUTEC_GEMM_HOPER_RELEASE");
    CHECK(near && !strcmp(near, "CUTEC_GEMM_HOPPER_RELEASE"), "a letter left out: %s", near ? near : "(none)");
    near = cute_env_nearest("CUTEC_CACHEDIR");
    CHECK(near && !strcmp(near, "CUTEC_CACHE_DIR"), "an underscore left out: %s", near ? near : "(none)");
    CHECK(!cute_env_nearest("CUTEC_QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"),
          "nothing near a long stranger");
}

static void warning(void)
{
    char before[4096], after[4096];
    int n0 = cute_env_unknown_report(before, sizeof before); /* (whatever the caller's environment holds) */
    setenv("CUTEC_ATTN_BWD_FROM", "fused", 1);
    setenv("CUTEC_TIER", "1", 1); /* known: no word */
    int n1 = cute_env_unknown_report(after, sizeof after);
    CHECK(n1 == n0 + 1, "one more unknown: %d, %d", n0, n1);
    CHECK(strstr(after, "cutec: CUTEC_ATTN_BWD_FROM is set, but cutec reads no such variable (did you mean "
                        "CUTEC_ATTN_BWD_FORM?); ignored"),
          "%s", after);
    CHECK(!strstr(after, "CUTEC_TIER "), "a known name is not named: %s", after);
    check_stderr_begin();
    cute_env_warn_unknown();
    const char *first = check_stderr_end();
    CHECK(strstr(first, "CUTEC_ATTN_BWD_FROM is set"), "the warning on stderr: %s", first);
    check_stderr_begin();
    cute_env_warn_unknown();
    const char *second = check_stderr_end();
    CHECK(!*second, "once a process: %s", second);
    char tiny[8];
    CHECK(cute_env_unknown_report(tiny, sizeof tiny) == n1 && strlen(tiny) == 7, "a short buffer: cut, terminated");
    unsetenv("CUTEC_ATTN_BWD_FROM");
}

int main(void)
{
    table_matches_sources();
    nearest();
    warning();
    return CHECK_DONE("env_known_test");
}
