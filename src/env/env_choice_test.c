/* The closed-set CUTEC_* readers (env_choice.c): each value of the set, unset and empty (the
 * default), misspellings refused by name, integers in and out of range, one warning per
 * variable. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_stderr.h"
#include "env/env_choice.h"

static void choices(void)
{
    char err[128] = "";
    const char *words[] = {"keep", "reuse", "nop"};
    unsetenv("CUTEC_TEST_CHOICE");
    CHECK(cute_env_choice_err("CUTEC_TEST_CHOICE", "keep|reuse|nop", 1, err, sizeof err) == 1, "unset: the default");
    setenv("CUTEC_TEST_CHOICE", "", 1);
    CHECK(cute_env_choice_err("CUTEC_TEST_CHOICE", "keep|reuse|nop", 2, err, sizeof err) == 2, "empty: the default");
    for (int i = 0; i < 3; i++) {
        setenv("CUTEC_TEST_CHOICE", words[i], 1);
        CHECK(cute_env_choice_err("CUTEC_TEST_CHOICE", "keep|reuse|nop", 1, err, sizeof err) == i, "%s", words[i]);
    }
    const char *bad[] = {"resue", "re", "reuses", "keep|reuse", "|", "NOP"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[128];
        setenv("CUTEC_TEST_CHOICE", bad[i], 1);
        err[0] = 0;
        CHECK(cute_env_choice_err("CUTEC_TEST_CHOICE", "keep|reuse|nop", 1, err, sizeof err) == -1, "%s", bad[i]);
        snprintf(want, sizeof want, "CUTEC_TEST_CHOICE=%s: not one of keep|reuse|nop", bad[i]);
        CHECK_STR(err, want);
    }
}

static void integers(void)
{
    char err[128] = "";
    long x = -7;
    unsetenv("CUTEC_TEST_INT");
    CHECK(cute_env_int_err("CUTEC_TEST_INT", 0, 4, 3, &x, err, sizeof err) == 0 && x == 3, "unset: %ld", x);
    const char *good[] = {"0", "4", "2"};
    for (int i = 0; i < 3; i++) {
        setenv("CUTEC_TEST_INT", good[i], 1);
        CHECK(cute_env_int_err("CUTEC_TEST_INT", 0, 4, 3, &x, err, sizeof err) == 0 && x == atol(good[i]), "%s", good[i]);
    }
    const char *bad[] = {"5", "-1", "2x", "O", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[128];
        setenv("CUTEC_TEST_INT", bad[i], 1);
        CHECK(cute_env_int_err("CUTEC_TEST_INT", 0, 4, 3, &x, err, sizeof err) == -1 && x == 3, "%s", bad[i]);
        snprintf(want, sizeof want, "CUTEC_TEST_INT=%s: not an integer in [0, 4]", bad[i]);
        CHECK_STR(err, want);
    }
}

/* a bad value warns once per variable, names the value used, and gives the default */
static void warnings(void)
{
    setenv("CUTEC_TEST_WARN", "resue", 1);
    check_stderr_begin();
    int a = cute_env_choice_warn("CUTEC_TEST_WARN", "keep|reuse|nop", 1);
    int b = cute_env_choice_warn("CUTEC_TEST_WARN", "keep|reuse|nop", 1);
    const char *said = check_stderr_end();
    CHECK(a == 1 && b == 1, "%d %d", a, b);
    CHECK_STR(said, "cutec: CUTEC_TEST_WARN=resue: not one of keep|reuse|nop; using reuse\n");

    setenv("CUTEC_TEST_WARN_INT", "9", 1);
    check_stderr_begin();
    long x = cute_env_int_warn("CUTEC_TEST_WARN_INT", 0, 4, 3);
    said = check_stderr_end();
    CHECK(x == 3, "%ld", x);
    CHECK_STR(said, "cutec: CUTEC_TEST_WARN_INT=9: not an integer in [0, 4]; using 3\n");

    setenv("CUTEC_TEST_WARN_INT", "1", 1);
    check_stderr_begin();
    x = cute_env_int_warn("CUTEC_TEST_WARN_INT", 0, 4, 3);
    said = check_stderr_end();
    CHECK(x == 1 && !*said, "%ld %s", x, said);
}

int main(void)
{
    choices();
    integers();
    warnings();
    return CHECK_DONE("env_choice_test");
}
