/* oracle_check.c — `cutec layout check FILE.jsonl...`: read each file whole, check it line
 * by line (oracle_case.c), and count per family.  Everything goes to stdout so that the
 * last line is always the total. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "oracle_check.h"

/* families are few (the oracle's, plus markers for bad lines); a linear list in order of
 * first appearance is enough */
typedef struct family_count {
    const char *name; /* static */
    long passed, failed;
} family_count;

typedef struct tally {
    family_count *fam;
    int n, cap;
    long passed, failed;
} tally;

static family_count *tally_family(tally *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->fam[i].name, name) == 0) return &t->fam[i];
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        family_count *f = realloc(t->fam, (size_t)cap * sizeof *f);
        if (!f) {
            fputs("cutec: out of memory\n", stderr);
            exit(CLI_FAIL);
        }
        t->fam = f;
        t->cap = cap;
    }
    family_count *f = &t->fam[t->n++];
    *f = (family_count){name, 0, 0};
    return f;
}

static void tally_add(tally *t, const char *family, bool ok)
{
    family_count *f = tally_family(t, family);
    if (ok)
        f->passed++, t->passed++;
    else
        f->failed++, t->failed++;
}

static bool read_file(const char *path, strbuf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(b, chunk, n);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

static bool is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
    return true;
}

static void check_line(const char *path, long lineno, const char *s, size_t n, json_object *o,
                       tally *t)
{
    char err[256];
    if (!json_parse_object(o, s, n, err, sizeof err)) {
        printf("FAIL %s:%ld: malformed JSON: %s\n", path, lineno, err);
        tally_add(t, "(malformed)", false);
        return;
    }
    strbuf why;
    sb_init(&why);
    bool ok = oracle_case_run(o, &why);
    if (!ok) {
        const json_value *id = json_get(o, "id");
        printf("FAIL %s:%ld %s: %s\n", path, lineno,
               id && id->kind == JSON_STRING ? id->s : "(no id)", sb_str(&why));
    }
    tally_add(t, oracle_case_family(o), ok);
    sb_free(&why);
}

static void check_file(const char *path, json_object *o, tally *t)
{
    strbuf text;
    sb_init(&text);
    if (!read_file(path, &text)) {
        printf("FAIL %s: cannot read: %s\n", path, strerror(errno));
        tally_add(t, "(unreadable)", false);
        return sb_free(&text);
    }
    const char *s = sb_str(&text), *end = s + text.len;
    for (long lineno = 1; s < end; lineno++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (!is_blank(s, n)) check_line(path, lineno, s, n, o, t);
        s += n + 1;
    }
    sb_free(&text);
}

int oracle_check_main(int nfiles, char **files)
{
    if (nfiles == 0) {
        fputs("usage: cutec layout check FILE.jsonl...\n", stderr);
        return CLI_USAGE;
    }
    tally t = {0};
    json_object o;
    json_object_init(&o);
    for (int i = 0; i < nfiles; i++) check_file(files[i], &o, &t);
    json_object_free(&o);
    for (int i = 0; i < t.n; i++)
        printf("%s: %ld passed, %ld failed\n", t.fam[i].name, t.fam[i].passed, t.fam[i].failed);
    printf("%ld passed, %ld failed\n", t.passed, t.failed);
    free(t.fam);
    return t.failed ? CLI_FAIL : CLI_OK;
}
