/* json.h — a small JSON reader for one object per line (the oracle's .jsonl files).
 *
 * It reads exactly one object and keeps its top-level members whose values the oracle
 * uses: strings, integers, booleans, null and arrays of integers.  Anything else (nested
 * objects, other arrays, fractional numbers) is validated, then kept as JSON_OTHER.  Every
 * malformed input -- truncated text, bad escapes, integers beyond int64, nesting deeper
 * than JSON_MAX_DEPTH -- is an error with a column, never a crash.
 */
#ifndef CUTEC_CLI_JSON_H
#define CUTEC_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64

typedef enum {
    JSON_NULL,
    JSON_BOOL,      /* i is 0 or 1 */
    JSON_INT,       /* i */
    JSON_STRING,    /* s, decoded UTF-8, NUL-terminated (\u0000 is rejected) */
    JSON_INT_ARRAY, /* ints[0..n) */
    JSON_OTHER,     /* well-formed, but not a kind we keep */
} json_kind;

typedef struct json_value {
    json_kind kind;
    int64_t i;
    const char *s;
    const int64_t *ints;
    int n;
} json_value;

typedef struct json_member {
    const char *key;
    json_value value;
} json_member;

/* A parsed object.  Its storage is reused by the next parse into the same object, so
 * values stay valid only until then. */
typedef struct json_object {
    int n;
    json_member *members;
    /* storage, sized from the input length before parsing so that pointers never move */
    char *chars;
    int64_t *ints;
    size_t chars_cap, ints_cap, members_cap;
} json_object;

void json_object_init(json_object *o);
void json_object_free(json_object *o);
/* Parse text[0..len) as one object (surrounding whitespace allowed).  On error returns
 * false and writes "column N: what" into err. */
bool json_parse_object(json_object *o, const char *text, size_t len, char *err,
                                size_t errn);
/* the first member named key, or NULL */
const json_value *json_get(const json_object *o, const char *key);

#endif
