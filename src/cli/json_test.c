/* json_test.c — the JSON reader: what it keeps, and that every malformed input is an error
 * with a column, never a crash.

 */
#include "json.h"

#include <stdlib.h>

#include "check.h"

static json_object obj;
static char err[256];

static bool parse(const char *s)
{
    return json_parse_object(&obj, s, strlen(s), err, sizeof err);
}

/* a malformed input: an error whose message mentions `what` */
static void check_error(const char *s, const char *what)
{
    bool ok = parse(s);
    CHECK(!ok, "accepted malformed %s", s);
    CHECK(strstr(err, what) != NULL, "error for %s is \"%s\", want \"%s\"", s, err, what);
    CHECK(strncmp(err, "column ", 7) == 0, "error for %s has no column: %s", s, err);
}

static void test_oracle_line(void)
{
    const char *line = "{\"op\":\"slice\",\"coord\":\"(_,2)\",\"layout\":\"(3,(2,4)):(1,(3,6))\","
                       "\"result\":\"(3):(1)\",\"offset\":6,\"error\":false,\"src\":\"doc\"}";
    CHECK(parse(line), "%s", err);
    CHECK(obj.n == 7, "%d members", obj.n);
    const json_value *v = json_get(&obj, "coord");
    CHECK(v && v->kind == JSON_STRING && strcmp(v->s, "(_,2)") == 0, "coord");
    v = json_get(&obj, "offset");
    CHECK(v && v->kind == JSON_INT && v->i == 6, "offset");
    v = json_get(&obj, "error");
    CHECK(v && v->kind == JSON_BOOL && v->i == 0, "error");
    CHECK(json_get(&obj, "missing") == NULL, "missing key");
}

static void test_int_arrays(void)
{
    CHECK(parse(" { \"values\" : [ 0 , -1, 9223372036854775807, -9223372036854775808 ] } "), "%s",
          err);
    const json_value *v = json_get(&obj, "values");
    CHECK(v && v->kind == JSON_INT_ARRAY && v->n == 4, "values");
    CHECK(v && v->n == 4 && v->ints[1] == -1 && v->ints[2] == INT64_MAX && v->ints[3] == INT64_MIN,
          "values' ints");
    CHECK(parse("{\"a\":[],\"b\":[1,[2,3],4],\"c\":[5,6]}"), "%s", err);
    v = json_get(&obj, "a");
    CHECK(v && v->kind == JSON_INT_ARRAY && v->n == 0, "empty array is an int array");
    v = json_get(&obj, "b");
    CHECK(v && v->kind == JSON_OTHER, "nested array is other");
    v = json_get(&obj, "c");
    CHECK(v && v->kind == JSON_INT_ARRAY && v->n == 2 && v->ints[0] == 5 && v->ints[1] == 6,
          "an array after a skipped one keeps its own ints");
}

static void test_skipped_values(void)
{
    CHECK(parse("{\"x\":{\"y\":[1,{\"z\":\"w\"}],\"q\":null},\"f\":1.5e3,\"n\":null,\"s\":\"ok\"}"),
          "%s", err);
    const json_value *v = json_get(&obj, "x");
    CHECK(v && v->kind == JSON_OTHER, "nested object");
    v = json_get(&obj, "f");
    CHECK(v && v->kind == JSON_OTHER, "fraction is other");
    v = json_get(&obj, "n");
    CHECK(v && v->kind == JSON_NULL, "null");
    v = json_get(&obj, "s");
    CHECK(v && v->kind == JSON_STRING && strcmp(v->s, "ok") == 0, "string after skipped");
    CHECK(parse("{}") && obj.n == 0, "empty object");
}

static void test_escapes(void)
{
    CHECK(parse("{\"s\":\"a\\\"b\\\\c\\/d\\n\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"}"), "%s", err);
    const json_value *v = json_get(&obj, "s");
    const char *want = "a\"b\\c/d\n\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    CHECK(v && v->kind == JSON_STRING && strcmp(v->s, want) == 0, "decoded escapes");
    CHECK(parse("{\"k\\u0065y\":1}") && json_get(&obj, "key"), "escaped key");
}

static void test_malformed(void)
{
    check_error("", "expected '{'");
    check_error("[1,2]", "expected '{'");
    check_error("{\"op\":\"slice", "unterminated string");
    check_error("{\"op\":\"a\\", "truncated escape");
    check_error("{\"op\":\"a\\x\"}", "bad escape");
    check_error("{\"op\":\"\\u12\"}", "\\u escape");
    check_error("{\"op\":\"\\u12g4\"}", "bad hex digit");
    check_error("{\"op\":\"\\ud83d\"}", "surrogate");
    check_error("{\"op\":\"\\ude00\"}", "surrogate");
    check_error("{\"op\":\"\\u0000\"}", "\\u0000");
    check_error("{\"op\":\"a\tb\"}", "control character");
    check_error("{\"n\":99999999999999999999}", "64-bit range");
    check_error("{\"n\":9223372036854775808}", "64-bit range");
    check_error("{\"n\":-9223372036854775809}", "64-bit range");
    check_error("{\"n\":[1,99999999999999999999999]}", "64-bit range");
    check_error("{\"n\":012}", "leading zero");
    check_error("{\"n\":-}", "expected a digit");
    check_error("{\"n\":1.}", "fraction");
    check_error("{\"n\":1e}", "exponent");
    check_error("{\"n\":[1,2}", "expected ',' or ']'");
    check_error("{\"n\":[1,]}", "unexpected character");
    check_error("{\"n\":[1,2", "unterminated array");
    check_error("{\"a\":1,}", "expected a string key");
    check_error("{\"a\" 1}", "expected ':'");
    check_error("{\"a\":1", "unterminated object");
    check_error("{\"a\":tru}", "unexpected character");
    check_error("{\"a\":1} x", "trailing characters");
    check_error("{\"a\":1}{}", "trailing characters");
    check_error("{a:1}", "expected a string key");
    check_error("{\"a\":\x01}", "unexpected byte");
}

/* nesting is bounded, however deep the input goes */
static void test_deep_nesting(void)
{
    enum { N = 100000 };
    char *s = malloc(2 * N + 16);
    if (!s) {
        SKIP("no memory for the nesting test");
        return;
    }
    size_t k = 0;
    k += (size_t)sprintf(s, "{\"a\":");
    for (int i = 0; i < N; i++) s[k++] = '[';
    for (int i = 0; i < N; i++) s[k++] = ']';
    s[k++] = '}';
    s[k] = 0;
    CHECK(!json_parse_object(&obj, s, k, err, sizeof err), "deep nesting accepted");
    CHECK(strstr(err, "nesting deeper") != NULL, "deep nesting: %s", err);
    free(s);
    char ok[2 * (JSON_MAX_DEPTH - 2) + 16];
    k = (size_t)sprintf(ok, "{\"a\":");
    for (int i = 0; i < JSON_MAX_DEPTH - 2; i++) ok[k++] = '[';
    for (int i = 0; i < JSON_MAX_DEPTH - 2; i++) ok[k++] = ']';
    ok[k++] = '}';
    CHECK(json_parse_object(&obj, ok, k, err, sizeof err), "nesting within the limit: %s", err);
}

/* every prefix of a valid line is handled (an error, no crash), and so is a NUL inside */
static void test_truncations(void)
{
    const char *line =
        "{\"op\":\"eval\",\"values\":[0,-12,3],\"s\":\"\\u00e9\\n\",\"o\":{\"x\":[]}}";
    size_t n = strlen(line);
    int errors = 0;
    for (size_t k = 0; k < n; k++) errors += !json_parse_object(&obj, line, k, err, sizeof err);
    CHECK(errors == (int)n, "%d of %zu truncations rejected", errors, n);
    CHECK(json_parse_object(&obj, line, n, err, sizeof err), "full line: %s", err);
    const char with_nul[] = "{\"a\":\"x\0y\"}";
    CHECK(!json_parse_object(&obj, with_nul, sizeof with_nul - 1, err, sizeof err),
          "NUL in string");
    CHECK(!json_parse_object(&obj, "{\"a\":", 5, err, 0), "no room for the message is fine");
    CHECK(json_parse_object(&obj, "{\"a\":1}", 7, NULL, 0), "NULL err buffer when it parses");
}

int main(void)
{
    json_object_init(&obj);
    test_oracle_line();
    test_int_arrays();
    test_skipped_values();
    test_escapes();
    test_malformed();
    test_deep_nesting();
    test_truncations();
    json_object_free(&obj);
    return CHECK_DONE("json");
}
