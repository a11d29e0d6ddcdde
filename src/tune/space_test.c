/* The tuner's space (cutec/tune.h): its points are every combination of the values, each
 * once, in mixed radix with the first parameter the slowest; point 0 is every first value;
 * the text prints labels.  And cute_tune_run's rules, with a tuner whose numbers are known:
 * `valid` skips, the budget takes the points nearest the default, a wrong candidate is
 * never chosen however fast, the fastest right one is. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cutec/tune.h"

static cute_tune_space three(void)
{
    cute_tune_space s;
    memset(&s, 0, sizeof s);
    static const int a[] = {7, 3}, b[] = {10, 20, 30}, c[] = {1, 2, 4, 8};
    static const char *const al[] = {"seven", "three"};
    cute_tune_space_add(&s, "a", 2, a, al);
    cute_tune_space_add(&s, "b", 3, b, NULL);
    cute_tune_space_add(&s, "c", 4, c, NULL);
    return s;
}

static void test_space(void)
{
    cute_tune_space s = three();
    CHECK(cute_tune_space_size(&s) == 24, "size %lld", (long long)cute_tune_space_size(&s));
    int seen[2][3][4] = {{{0}}}, v[CUTE_TUNE_MAX_PARAMS];
    for (int64_t i = 0; i < 24; i++) {
        CHECK(cute_tune_space_point(&s, i, v), "point %lld", (long long)i);
        int ia = v[0] == 3, ib = v[1] / 10 - 1, ic = v[2] == 1 ? 0 : v[2] == 2 ? 1 : v[2] == 4 ? 2 : 3;
        seen[ia][ib][ic]++;
        CHECK(i == (ia * 3 + ib) * 4 + ic, "point %lld is (%d,%d,%d): the first parameter the slowest", (long long)i,
              v[0], v[1], v[2]);
    }
    int once = 0;
    for (int i = 0; i < 24; i++) once += ((int *)seen)[i] == 1;
    CHECK(once == 24, "%d of 24 combinations exactly once", once);
    CHECK(!cute_tune_space_point(&s, 24, v) && !cute_tune_space_point(&s, -1, v), "out of range");
    char text[128];
    cute_tune_space_point(&s, 0, v);
    cute_tune_point_text(&s, v, text, sizeof text);
    CHECK_STR(text, "a=seven b=10 c=1");
    cute_tune_space_point(&s, 23, v);
    cute_tune_point_text(&s, v, text, sizeof text);
    CHECK_STR(text, "a=three b=30 c=8");
    int many[CUTE_TUNE_MAX_VALUES + 1] = {0};
    CHECK(!cute_tune_space_add(&s, "d", CUTE_TUNE_MAX_VALUES + 1, many, NULL) && !cute_tune_space_add(&s, "e", 0, many, NULL),
          "value counts out of range refused");
    for (int k = s.nparams; k < CUTE_TUNE_MAX_PARAMS; k++) cute_tune_space_add(&s, "f", 1, many, NULL);
    CHECK(!cute_tune_space_add(&s, "g", 1, many, NULL), "a full space refuses more");
}

/* the fake kernel: time = a + b + c; a point with c == 1 is "wrong" (and the fastest);
 * b == 30 is not valid; b == 20 and c == 8 fails to build */
static bool fake_valid(void *user, const int *p, char *why, size_t n)
{
    (void)user;
    return p[1] == 30 ? (snprintf(why, n, "b 30 refused"), false) : true;
}

static cute_status fake_build(void *user, void *w, const int *p, char *why, size_t n)
{
    (void)user, (void)w;
    return p[1] == 20 && p[2] == 8 ? (snprintf(why, n, "no build"), CUTE_ERR_COMPILE) : CUTE_OK;
}

static cute_status fake_check(void *user, void *w, const int *p, double *stat, char *why, size_t n)
{
    (void)user, (void)w, (void)stat;
    return p[2] == 1 ? (snprintf(why, n, "wrong"), CUTE_ERR_CHECK) : CUTE_OK;
}

static double fake_time(void *user, const int *p, char *why, size_t n)
{
    (void)user, (void)why, (void)n;
    return p[0] + p[1] + p[2];
}

static void test_run(void)
{
    cute_tune_space s = three();
    cute_tuner t = {.space = &s, .valid = fake_valid, .build = fake_build, .check = fake_check, .time = fake_time};
    cute_tune_result *r;
    int count, best;
    char err[256];
    CHECK(cute_tune_run(&t, &(cute_tune_opts){.jobs = 3}, &r, &count, &best, err, sizeof err) == CUTE_OK, "%s", err);
    CHECK(count == 24, "every point has a row (%d)", count);
    int skipped = 0, wrong = 0, failed = 0;
    for (int i = 0; i < count; i++) {
        skipped += r[i].state == CUTE_TUNE_SKIPPED, wrong += r[i].state == CUTE_TUNE_WRONG;
        failed += r[i].state == CUTE_TUNE_FAILED;
        CHECK(r[i].index == i, "rows in space order");
    }
    CHECK(skipped == 8 && wrong == 4 && failed == 2, "skipped %d wrong %d failed %d", skipped, wrong, failed);
    CHECK(best >= 0 && r[best].point[0] == 3 && r[best].point[1] == 10 && r[best].point[2] == 2 && r[best].ms == 15,
          "the fastest right point (3,10,2), not a wrong one (c = 1)");
    free(r);
    /* a budget of 4: point 0 and the points differing from it in one parameter, in order */
    CHECK(cute_tune_run(&t, &(cute_tune_opts){.jobs = 2, .budget = 4}, &r, &count, &best, err, sizeof err) == CUTE_OK,
          "%s", err);
    int tried = 0, far = 0;
    for (int i = 0; i < count; i++)
        if (r[i].state != CUTE_TUNE_SKIPPED) {
            tried++;
            far += (r[i].point[0] != 7) + (r[i].point[1] != 10) + (r[i].point[2] != 1) > 1;
        }
    CHECK(tried == 4 && far == 0, "%d tried, %d of them two parameters from the default", tried, far);
    free(r);
}

int main(void)
{
    test_space();
    test_run();
    return CHECK_DONE("tune/space_test");
}
