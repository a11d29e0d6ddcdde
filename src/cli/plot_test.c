/* The benchmark chart: every measured point is a marker where the axes put it (sizes on a
 * log2 axis, rates from 0 up), each series is in the legend, names are escaped, the ceiling
 * is a dashed line at its height, and nothing to draw is an error, not an empty picture. */
#include <math.h>

#include "check.h"
#include "cli/plot.h"

/* the chart as a string (malloc'd) */
static char *svg_of(const plot *p, bool *ok)
{
    char *text = NULL, err[160];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    *ok = plot_svg(p, f, err, sizeof err);
    fclose(f);
    return text;
}

static void points_where_the_axes_say(void)
{
    plot p = {.title = "bf16 <gemm> & co", .x_label = "M=N=K", .y_label = "TFLOP/s",
              .ceiling = 600, .ceiling_label = "mma.sync ceiling"};
    CHECK(plot_add(&p, "tensorop", false, 1024, 100) && plot_add(&p, "tensorop", false, 4096, 400),
          "points added");
    CHECK(plot_add(&p, "cublas", true, 1024, 200) && plot_add(&p, "cublas", true, 4096, 500), "ref");
    CHECK(!plot_add(&p, "bad", false, 0, 1) && !plot_add(&p, "bad", false, 8, NAN), "undrawable points");
    CHECK(p.nseries == 2, "%d series", p.nseries);
    bool ok;
    char *s = svg_of(&p, &ok);
    CHECK(ok && s, "drawn");
    /* x: 1024 and 4096 at the plot's left and right edges (70 and 760-190); y: the top is
     * the nice number above 600 * 1.08 = 648, which is 700 (steps of 100) */
    CHECK(strstr(s, "points=\"70.0,") && strstr(s, " 570.0,"), "x positions");
    double y400 = 40 + (460 - 40 - 60) * (1 - 400.0 / 700);
    char want[64];
    snprintf(want, sizeof want, "570.0,%.1f", y400);
    CHECK(strstr(s, want) != NULL, "tensorop at 4096 is at (570, %.1f)", y400);
    snprintf(want, sizeof want, "y1=\"%.1f\"", 40 + 360 * (1 - 600.0 / 700));
    CHECK(strstr(s, "stroke-dasharray") && strstr(s, want), "the ceiling at 600");
    CHECK(strstr(s, ">tensorop</text>") && strstr(s, ">cublas</text>") &&
          strstr(s, ">mma.sync ceiling</text>"), "legend");
    CHECK(strstr(s, "bf16 &lt;gemm&gt; &amp; co") && !strstr(s, "<gemm>"), "escaped title");
    free(s);
}

static void nothing_to_draw(void)
{
    plot p = {.title = "empty"};
    char err[160];
    FILE *f = fopen("/dev/null", "w");
    CHECK(!plot_svg(&p, f, err, sizeof err) && strstr(err, "no point"), "%s", err);
    fclose(f);
    CHECK(!plot_write(&p, "/nonexistent-dir/x.svg"), "an unwritable path fails");
}

static void series_fill_up(void)
{
    plot p = {0};
    char name[16];
    for (int i = 0; i < PLOT_MAX_SERIES; i++) {
        snprintf(name, sizeof name, "s%d", i);
        plot_add(&p, name, false, 2, 1);
    }
    CHECK(!plot_add(&p, "one more", false, 2, 1), "no thirteenth series");
    for (int i = 1; i < PLOT_MAX_POINTS; i++) plot_add(&p, "s0", false, 2 << i, 1);
    CHECK(!plot_add(&p, "s0", false, 3, 1) && p.series[0].n == PLOT_MAX_POINTS, "full series");
}

int main(void)
{
    points_where_the_axes_say();
    nothing_to_draw();
    series_fill_up();
    return CHECK_DONE("plot_test");
}
