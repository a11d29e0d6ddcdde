/* plot.h — a benchmark as an SVG line chart (`cutec bench ... --plot FILE.svg`): one line
 * per kernel (and the reference) of a rate against the problem size, sizes on a log2 axis,
 * the ceiling as a dashed horizontal line.  No GPU needed to draw (cli/plot_test). */
#ifndef CUTEC_CLI_PLOT_H
#define CUTEC_CLI_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#define PLOT_MAX_SERIES 12
#define PLOT_MAX_POINTS 16

typedef struct plot_series {
    char name[48];
    bool reference; /* drawn dashed-free in grey: what we compare with */
    int n;
    double x[PLOT_MAX_POINTS], y[PLOT_MAX_POINTS];
} plot_series;

typedef struct plot {
    char title[160], x_label[48], y_label[48];
    plot_series series[PLOT_MAX_SERIES];
    int nseries;
    double ceiling;         /* <= 0: none */
    char ceiling_label[64];
} plot;

/* one point of the series called name (made on first use); false when full or the point
 * cannot be drawn (x <= 0 on the log axis, y not finite) */
bool plot_add(plot *p, const char *name, bool reference, double x, double y);
/* the chart as an SVG document; false (and why, in err) when there is nothing to draw */
bool plot_svg(const plot *p, FILE *f, char *err, size_t n);
/* plot_svg into the file at path; a message on stderr naming the path when it fails */
bool plot_write(const plot *p, const char *path);

/* "size 4096: cublas (3/8)" on stderr, rewritten in place, when stderr is a terminal (long
 * benchmarks); plot_progress_done() clears the line */
void plot_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void plot_progress_done(void);

#endif
