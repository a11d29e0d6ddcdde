/* The tuning file's table: parsed strictly (a file that is not a tuning file of this version
 * is refused with its name, line and what is wrong, never half-used), looked up by (card,
 * SMs, key), printed back as text.  tune_file.c reads and writes the file itself. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/tune.h"
#include "tune/tune_internal.h"

struct cute_tune_db {
    cute_tune_entry *e;
    int *line; /* each entry's line in the file it came from (0: added since) */
    int n, cap;
};

cute_tune_db *cute_tune_db_new(void)
{
    return calloc(1, sizeof(cute_tune_db));
}

void cute_tune_db_free(cute_tune_db *db)
{
    if (!db) return;
    free(db->e), free(db->line), free(db);
}

int cute_tune_db_count(const cute_tune_db *db)
{
    return db ? db->n : 0;
}

const cute_tune_entry *cute_tune_db_at(const cute_tune_db *db, int i)
{
    return db && i >= 0 && i < db->n ? &db->e[i] : NULL;
}

static int find(const cute_tune_db *db, const char *card, int sms, const char *key)
{
    for (int i = 0; db && i < db->n; i++)
        if (db->e[i].sms == sms && !strcmp(db->e[i].card, card) && !strcmp(db->e[i].key, key)) return i;
    return -1;
}

const cute_tune_entry *cute_tune_db_find(const cute_tune_db *db, const char *card, int sms, const char *key,
                                         int *line)
{
    int i = card && key ? find(db, card, sms, key) : -1;
    if (line) *line = i >= 0 ? db->line[i] : 0;
    return i >= 0 ? &db->e[i] : NULL;
}

/* a field fit for the file: not empty, shorter than its buffer, no tab or control byte */
static const char *field_fault(const char *s, size_t size)
{
    size_t len = strnlen(s, size);
    if (len == 0) return "is empty";
    if (len >= size) return "is too long";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return "holds a tab or a control character";
    return NULL;
}

static cute_status fault(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return CUTE_ERR_INVALID;
}

static cute_status entry_ok(const cute_tune_entry *e, char *err, size_t n)
{
    static const char *const names[] = {"card", "key", "configuration"};
    const char *fields[] = {e->card, e->key, e->config};
    size_t sizes[] = {sizeof e->card, sizeof e->key, sizeof e->config};
    for (int i = 0; i < 3; i++) {
        const char *why = field_fault(fields[i], sizes[i]);
        if (why) return fault(err, n, "the %s %s", names[i], why);
    }
    if (e->sms < 0 || e->sms > TUNE_MAX_SMS) return fault(err, n, "the SM count %d is not 0 to %d", e->sms, TUNE_MAX_SMS);
    if (!(e->ms >= 1e-9 && e->ms <= 1e9)) return fault(err, n, "the time %g ms is not 1e-9 to 1e9", e->ms);
    return CUTE_OK;
}

/* add or replace; line: where it came from */
static cute_status put_at(cute_tune_db *db, const cute_tune_entry *e, int line, char *err, size_t n)
{
    cute_status s = entry_ok(e, err, n);
    if (s != CUTE_OK) return s;
    int i = find(db, e->card, e->sms, e->key);
    if (i < 0 && db->n == db->cap) {
        int cap = db->cap ? 2 * db->cap : 16;
        cute_tune_entry *ne = realloc(db->e, (size_t)cap * sizeof *ne);
        if (ne) db->e = ne;
        int *nl = ne ? realloc(db->line, (size_t)cap * sizeof *nl) : NULL;
        if (nl) db->line = nl;
        if (!ne || !nl) return fault(err, n, "out of memory");
        db->cap = cap;
    }
    if (i < 0) i = db->n++;
    db->e[i] = *e, db->line[i] = line;
    return CUTE_OK;
}

cute_status cute_tune_db_put(cute_tune_db *db, const cute_tune_entry *e, char *err, size_t n)
{
    if (!db || !e) return fault(err, n, "tune: no table or no entry");
    return put_at(db, e, 0, err, n);
}

/* a whole decimal 0..TUNE_MAX_SMS */
static bool parse_sms(const char *s, int *out)
{
    long v = 0;
    if (!*s || strlen(s) > 7) return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (*p - '0');
    }
    *out = (int)v;
    return v <= TUNE_MAX_SMS;
}

static bool parse_ms(const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == ' ' || *s == '+' || *s == '-') return false;
    *out = strtod(s, &end);
    return !*end && errno == 0 && isfinite(*out) && *out > 0;
}

/* copy a field into dst (size bytes); false when it does not fit */
static bool take(char *dst, size_t size, const char *src)
{
    size_t len = strlen(src);
    if (len >= size) return false;
    memcpy(dst, src, len + 1);
    return true;
}

/* one entry line (NUL-terminated, no newline) into db */
static cute_status parse_entry(cute_tune_db *db, char *line, const char *name, int no, char *err, size_t n)
{
    char *f[5];
    int k = 1;
    f[0] = line;
    for (char *p = line; (p = strchr(p, '\t')); k++) {
        if (k == 5) return fault(err, n, "%s:%d: more than five tab-separated fields", name, no);
        *p++ = 0, f[k] = p;
    }
    if (k != 5) return fault(err, n, "%s:%d: %d tab-separated fields (card, SMs, key, configuration, ms)", name, no, k);
    cute_tune_entry e;
    memset(&e, 0, sizeof e);
    if (!take(e.card, sizeof e.card, f[0]) || !take(e.key, sizeof e.key, f[2]) ||
        !take(e.config, sizeof e.config, f[3]))
        return fault(err, n, "%s:%d: a field is too long", name, no);
    if (!parse_sms(f[1], &e.sms))
        return fault(err, n, "%s:%d: the SM count \"%.16s\" is not a whole number 0 to %d", name, no, f[1], TUNE_MAX_SMS);
    if (!parse_ms(f[4], &e.ms)) return fault(err, n, "%s:%d: the time \"%.32s\" is not a positive number of ms", name, no, f[4]);
    char why[160];
    if (put_at(db, &e, no, why, sizeof why) != CUTE_OK) return fault(err, n, "%s:%d: %s", name, no, why);
    return CUTE_OK;
}

/* the first line: this format and version, or why not */
static cute_status check_header(const char *line, const char *name, char *err, size_t n)
{
    if (!strcmp(line, TUNE_HEADER)) return CUTE_OK;
    if (!strncmp(line, "cutec-tune ", 11))
        return fault(err, n, "%s:1: a tuning file of version \"%.16s\" (this cutec reads \"" TUNE_HEADER "\"): "
                     "tune again, or remove the file", name, line + 11);
    return fault(err, n, "%s:1: not a cutec tuning file (the first line is not \"" TUNE_HEADER "\")", name);
}

/* one line of the text (len bytes at s, no newline) */
static cute_status parse_line(cute_tune_db *db, const char *s, size_t len, const char *name, int no, char *err,
                              size_t n)
{
    char line[TUNE_MAX_LINE + 1];
    if (len > TUNE_MAX_LINE) return fault(err, n, "%s:%d: a line of more than %d bytes", name, no, TUNE_MAX_LINE);
    if (memchr(s, 0, len)) return fault(err, n, "%s:%d: a NUL byte (not a text file)", name, no);
    memcpy(line, s, len), line[len] = 0;
    if (no == 1) return check_header(line, name, err, n);
    if (len == 0 || line[0] == '#') return CUTE_OK;
    return parse_entry(db, line, name, no, err, n);
}

cute_status cute_tune_db_parse(const char *text, size_t len, const char *name, cute_tune_db **out, char *err,
                               size_t n)
{
    *out = NULL;
    name = name ? name : "tuning file";
    if (len == 0) return fault(err, n, "%s: empty (not a cutec tuning file)", name);
    cute_tune_db *db = cute_tune_db_new();
    if (!db) return fault(err, n, "out of memory");
    int no = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        cute_status s = parse_line(db, text + at, end - at, name, ++no, err, n);
        if (s != CUTE_OK) return cute_tune_db_free(db), s;
        at = end + 1;
    }
    *out = db;
    return CUTE_OK;
}

char *cute_tune_db_text(const cute_tune_db *db)
{
    size_t cap = 128 + (size_t)cute_tune_db_count(db) * (TUNE_MAX_LINE + 2), len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    len += (size_t)snprintf(s, cap, TUNE_HEADER "\n# card\tSMs\tkey\tconfiguration\tms (cutec tune; docs/tune.md)\n");
    for (int i = 0; i < cute_tune_db_count(db); i++) {
        const cute_tune_entry *e = &db->e[i];
        len += (size_t)snprintf(s + len, cap - len, "%s\t%d\t%s\t%s\t%.9g\n", e->card, e->sms, e->key, e->config, e->ms);
    }
    return s;
}
