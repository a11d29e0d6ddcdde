/* json.c — the JSON reader of json.h.
 *
 * Storage is sized from the input length before parsing (decoded strings are never longer
 * than their source, an integer takes at least two characters of an array, a member at
 * least four), so pointers handed out during a parse never move.  Values we do not keep
 * are parsed for validity and their storage rolled back.
 */
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jparser {
    const char *start, *p, *end;
    json_object *o;
    size_t nchars, nints;
    char *err;
    size_t errn;
    bool failed;
} jparser;

static bool parse_value(jparser *j, json_value *v, int depth);

static bool jfail(jparser *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool jfail(jparser *j, const char *fmt, ...)
{
    if (j->failed) return false;
    j->failed = true;
    if (!j->errn) return false;
    int n = snprintf(j->err, j->errn, "column %zu: ", (size_t)(j->p - j->start) + 1);
    if (n < 0 || (size_t)n >= j->errn) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err + n, j->errn - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static void skip_ws(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool put_char(jparser *j, char ch)
{
    if (j->nchars >= j->o->chars_cap) return jfail(j, "internal: string storage exhausted");
    j->o->chars[j->nchars++] = ch;
    return true;
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* the 4 hex digits after "\u" (j->p is at the 'u') */
static bool read_hex4(jparser *j, unsigned *cp)
{
    if (j->end - j->p < 5) return jfail(j, "truncated \\u escape");
    *cp = 0;
    for (int k = 1; k <= 4; k++) {
        int d = hex_digit(j->p[k]);
        if (d < 0) return jfail(j, "bad hex digit in \\u escape");
        *cp = *cp * 16 + (unsigned)d;
    }
    j->p += 5;
    return true;
}

static bool put_utf8(jparser *j, unsigned cp)
{
    if (cp < 0x80) return put_char(j, (char)cp);
    if (cp < 0x800)
        return put_char(j, (char)(0xC0 | (cp >> 6))) && put_char(j, (char)(0x80 | (cp & 0x3F)));
    if (cp < 0x10000)
        return put_char(j, (char)(0xE0 | (cp >> 12))) &&
               put_char(j, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
               put_char(j, (char)(0x80 | (cp & 0x3F)));
    return put_char(j, (char)(0xF0 | (cp >> 18))) &&
           put_char(j, (char)(0x80 | ((cp >> 12) & 0x3F))) &&
           put_char(j, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
           put_char(j, (char)(0x80 | (cp & 0x3F)));
}

/* \uXXXX, joining a UTF-16 surrogate pair (j->p is at the 'u') */
static bool read_unicode_escape(jparser *j)
{
    unsigned cp;
    if (!read_hex4(j, &cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return jfail(j, "lone low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned lo;
        if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
            return jfail(j, "high surrogate without its low half");
        j->p++;
        if (!read_hex4(j, &lo)) return false;
        if (lo < 0xDC00 || lo > 0xDFFF) return jfail(j, "bad low surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    /* strings are handed out as C strings, so an embedded NUL would silently cut them */
    if (cp == 0) return jfail(j, "\\u0000 is not supported");
    return put_utf8(j, cp);
}

/* the escape after a backslash (j->p is at the character after it) */
static bool read_escape(jparser *j)
{
    if (j->p >= j->end) return jfail(j, "truncated escape");
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = *j->p ? strchr(from, *j->p) : NULL;
    if (k) {
        j->p++;
        return put_char(j, to[k - from]);
    }
    if (*j->p == 'u') return read_unicode_escape(j);
    return jfail(j, "bad escape '\\%c'", *j->p);
}

/* a string (j->p is at the opening quote); *out points at its decoded copy */
static bool parse_string(jparser *j, const char **out)
{
    size_t first = j->nchars;
    j->p++;
    for (;;) {
        if (j->p >= j->end) return jfail(j, "unterminated string");
        unsigned char ch = (unsigned char)*j->p;
        if (ch == '"') break;
        if (ch < 0x20) return jfail(j, "control character 0x%02x in string", ch);
        if (ch == '\\') {
            j->p++;
            if (!read_escape(j)) return false;
        } else {
            j->p++;
            if (!put_char(j, (char)ch)) return false;
        }
    }
    j->p++;
    if (!put_char(j, 0)) return false;
    *out = j->o->chars + first;
    return true;
}

static bool is_digit(const jparser *j)
{
    return j->p < j->end && *j->p >= '0' && *j->p <= '9';
}

/* digits after a '.' or an exponent mark: at least one */
static bool skip_digits(jparser *j, const char *what)
{
    if (!is_digit(j)) return jfail(j, "expected a digit in the %s", what);
    while (is_digit(j)) j->p++;
    return true;
}

/* a number: JSON_INT when it has no fraction or exponent (it must then fit int64), else
 * JSON_OTHER */
static bool parse_number(jparser *j, json_value *v)
{
    bool neg = j->p < j->end && *j->p == '-';
    if (neg) j->p++;
    if (!is_digit(j)) return jfail(j, "expected a digit");
    uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool overflow = false;
    if (*j->p == '0') {
        j->p++;
        if (is_digit(j)) return jfail(j, "leading zero in a number");
    } else {
        for (; is_digit(j); j->p++) {
            unsigned d = (unsigned)(*j->p - '0');
            if (mag > (limit - d) / 10)
                overflow = true;
            else
                mag = mag * 10 + d;
        }
    }
    bool fraction = j->p < j->end && *j->p == '.';
    if (fraction && (j->p++, !skip_digits(j, "fraction"))) return false;
    bool exponent = j->p < j->end && (*j->p == 'e' || *j->p == 'E');
    if (exponent) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!skip_digits(j, "exponent")) return false;
    }
    if (fraction || exponent) {
        v->kind = JSON_OTHER;
        return true;
    }
    if (overflow) return jfail(j, "integer out of the 64-bit range");
    v->kind = JSON_INT;
    v->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return true;
}

static bool parse_literal(jparser *j, const char *word, json_kind kind, int64_t i, json_value *v)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return jfail(j, "unexpected character '%c'", *j->p);
    j->p += n;
    v->kind = kind;
    v->i = i;
    return true;
}

/* an array (j->p at '['): JSON_INT_ARRAY when every element is an int, else JSON_OTHER */
static bool parse_array(jparser *j, json_value *v, int depth)
{
    size_t base = j->nints, chars = j->nchars;
    int count = 0;
    bool all_ints = true;
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        *v = (json_value){.kind = JSON_INT_ARRAY, .ints = j->o->ints + base};
        return true;
    }
    for (;;) {
        json_value e = {0};
        if (!parse_value(j, &e, depth)) return false;
        j->nints = base + (size_t)count; /* drop what a nested array stored */
        j->nchars = chars;
        if (e.kind != JSON_INT) all_ints = false;
        if (all_ints) {
            if (j->nints >= j->o->ints_cap) return jfail(j, "internal: int storage exhausted");
            j->o->ints[j->nints++] = e.i;
            count++;
        }
        skip_ws(j);
        if (j->p >= j->end) return jfail(j, "unterminated array");
        if (*j->p == ']') break;
        if (*j->p != ',') return jfail(j, "expected ',' or ']' in array");
        j->p++;
    }
    j->p++;
    if (!all_ints) {
        j->nints = base;
        *v = (json_value){.kind = JSON_OTHER};
        return true;
    }
    *v = (json_value){.kind = JSON_INT_ARRAY, .ints = j->o->ints + base, .n = count};
    return true;
}

static bool add_member(jparser *j, const char *key, json_value v)
{
    json_object *o = j->o;
    if ((size_t)o->n >= o->members_cap) return jfail(j, "internal: member storage exhausted");
    o->members[o->n++] = (json_member){key, v};
    return true;
}

/* the members of an object (j->p at '{'); kept as o's members only when `keep` */
static bool parse_members(jparser *j, int depth, bool keep)
{
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == '}') return j->p++, true;
    for (;;) {
        size_t chars = j->nchars, ints = j->nints;
        const char *key;
        skip_ws(j);
        if (j->p >= j->end) return jfail(j, "unterminated object");
        if (*j->p != '"') return jfail(j, "expected a string key");
        if (!parse_string(j, &key)) return false;
        skip_ws(j);
        if (j->p >= j->end || *j->p != ':') return jfail(j, "expected ':' after a key");
        j->p++;
        json_value v = {0};
        if (!parse_value(j, &v, depth)) return false;
        if (keep && !add_member(j, key, v)) return false;
        if (!keep) j->nchars = chars, j->nints = ints;
        skip_ws(j);
        if (j->p >= j->end) return jfail(j, "unterminated object");
        if (*j->p == '}') break;
        if (*j->p != ',') return jfail(j, "expected ',' or '}' in object");
        j->p++;
    }
    j->p++;
    return true;
}

static bool parse_value(jparser *j, json_value *v, int depth)
{
    skip_ws(j);
    if (j->p >= j->end) return jfail(j, "unexpected end of input");
    if (depth >= JSON_MAX_DEPTH) return jfail(j, "nesting deeper than %d", JSON_MAX_DEPTH);
    switch (*j->p) {
    case '"':
        v->kind = JSON_STRING;
        return parse_string(j, &v->s);
    case '[':
        return parse_array(j, v, depth + 1);
    case '{':
        v->kind = JSON_OTHER;
        return parse_members(j, depth + 1, false);
    case 't':
        return parse_literal(j, "true", JSON_BOOL, 1, v);
    case 'f':
        return parse_literal(j, "false", JSON_BOOL, 0, v);
    case 'n':
        return parse_literal(j, "null", JSON_NULL, 0, v);
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) return parse_number(j, v);
        if ((unsigned char)*j->p < 0x20 || (unsigned char)*j->p >= 0x7f)
            return jfail(j, "unexpected byte 0x%02x", (unsigned char)*j->p);
        return jfail(j, "unexpected character '%c'", *j->p);
    }
}

void json_object_init(json_object *o)
{
    *o = (json_object){0};
}

void json_object_free(json_object *o)
{
    free(o->members);
    free(o->chars);
    free(o->ints);
    json_object_init(o);
}

/* grow *p to hold n elements of size sz; false when out of memory */
static bool reserve(void **p, size_t *cap, size_t n, size_t sz)
{
    if (*cap >= n) return true;
    void *q = realloc(*p, n * sz);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

static bool reserve_for(json_object *o, size_t len)
{
    void *chars = o->chars, *ints = o->ints, *members = o->members;
    bool ok = reserve(&chars, &o->chars_cap, len + 1, 1);
    o->chars = chars;
    ok = ok && reserve(&ints, &o->ints_cap, len / 2 + 2, sizeof(int64_t));
    o->ints = ints;
    ok = ok && reserve(&members, &o->members_cap, len / 4 + 2, sizeof(json_member));
    o->members = members;
    return ok;
}

bool json_parse_object(json_object *o, const char *text, size_t len, char *err,
                                size_t errn)
{
    jparser j = {text, text, text + len, o, 0, 0, err, errn, false};
    if (errn) err[0] = 0;
    o->n = 0;
    if (!reserve_for(o, len)) return jfail(&j, "out of memory");
    skip_ws(&j);
    if (j.p >= j.end || *j.p != '{') return jfail(&j, "expected '{'");
    if (!parse_members(&j, 1, true)) return false;
    skip_ws(&j);
    if (j.p != j.end) return jfail(&j, "trailing characters after the object");
    return true;
}

const json_value *json_get(const json_object *o, const char *key)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->members[i].key, key) == 0) return &o->members[i].value;
    return NULL;
}
