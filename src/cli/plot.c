/* The benchmark chart (plot.h): a plain SVG of lines, markers, axes and a legend. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cli/plot.h"

enum { W = 760, H = 460, LEFT = 70, RIGHT = 190, TOP = 40, BOTTOM = 60 };

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

bool plot_add(plot *p, const char *name, bool reference, double x, double y)
{
    if (!(x > 0) || !isfinite(x) || !isfinite(y)) return false;
    plot_series *s = NULL;
    for (int i = 0; i < p->nseries && !s; i++)
        if (!strcmp(p->series[i].name, name)) s = &p->series[i];
    if (!s && p->nseries == PLOT_MAX_SERIES) return false;
    if (!s) {
        s = &p->series[p->nseries++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", name);
        s->reference = reference;
    }
    if (s->n == PLOT_MAX_POINTS) return false;
    s->x[s->n] = x, s->y[s->n++] = y;
    return true;
}

/* text with &, <, > and quotes as entities */
static void put_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
                      : *s == '"' ? "&quot;" : NULL;
        if (e) fputs(e, f);
        else fputc(*s, f);
    }
}

typedef struct frame {
    double x0, x1, y1; /* log2 of the smallest and largest size; the top of the y axis */
} frame;

static double px(const frame *fr, double x)
{
    double span = fr->x1 > fr->x0 ? fr->x1 - fr->x0 : 1;
    return LEFT + (W - LEFT - RIGHT) * (fr->x1 > fr->x0 ? (log2(x) - fr->x0) / span : 0.5);
}
static double py(const frame *fr, double y) { return TOP + (H - TOP - BOTTOM) * (1 - y / fr->y1); }

/* a round step near a fifth of the range: 1, 2 or 5 times a power of ten */
static double nice_step(double range)
{
    double raw = range / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static bool frame_of(const plot *p, frame *fr)
{
    int points = 0;
    fr->x0 = INFINITY, fr->x1 = -INFINITY, fr->y1 = p->ceiling > 0 ? p->ceiling : 0;
    for (int i = 0; i < p->nseries; i++)
        for (int k = 0; k < p->series[i].n; k++, points++) {
            fr->x0 = fmin(fr->x0, log2(p->series[i].x[k])), fr->x1 = fmax(fr->x1, log2(p->series[i].x[k]));
            fr->y1 = fmax(fr->y1, p->series[i].y[k]);
        }
    if (!points) return false;
    double step = nice_step(fr->y1 > 0 ? fr->y1 * 1.08 : 1);
    fr->y1 = step * ceil((fr->y1 > 0 ? fr->y1 * 1.08 : 1) / step);
    return true;
}

static void axes(const plot *p, const frame *fr, FILE *f)
{
    double step = nice_step(fr->y1);
    fprintf(f, "<g font-family=\"sans-serif\" font-size=\"12\" fill=\"#333\">\n");
    for (double y = 0; y <= fr->y1 + step / 2; y += step)
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                LEFT, py(fr, y), W - RIGHT, py(fr, y), LEFT - 6, py(fr, y) + 4, y);
    for (int i = 0; i < p->nseries; i++) /* a tick at every size measured */
        for (int k = 0; k < p->series[i].n; k++)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
                    px(fr, p->series[i].x[k]), H - BOTTOM + 18, p->series[i].x[k]);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT,
            H - BOTTOM, W - RIGHT, H - BOTTOM);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (LEFT + W - RIGHT) / 2, H - 18);
    put_text(f, p->x_label);
    fprintf(f, " (log scale)</text>\n<text transform=\"translate(18,%d) rotate(-90)\" "
               "text-anchor=\"middle\">", (TOP + H - BOTTOM) / 2);
    put_text(f, p->y_label);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"24\" font-size=\"15\">", LEFT);
    put_text(f, p->title);
    fputs("</text>\n</g>\n", f);
}

static void series(const plot_series *s, const char *color, const frame *fr, int row, FILE *f)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
    for (int k = 0; k < s->n; k++) fprintf(f, "%s%.1f,%.1f", k ? " " : "", px(fr, s->x[k]), py(fr, s->y[k]));
    fputs("\"/>\n", f);
    for (int k = 0; k < s->n; k++)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", px(fr, s->x[k]),
                py(fr, s->y[k]), color);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\">", W - RIGHT + 16, TOP + 10 + 20 * row, color,
            W - RIGHT + 36, TOP + 15 + 20 * row);
    put_text(f, s->name);
    fputs("</text>\n", f);
}

bool plot_svg(const plot *p, FILE *f, char *err, size_t n)
{
    frame fr;
    if (!frame_of(p, &fr)) return snprintf(err, n, "no point to plot (nothing was measured)"), false;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H);
    axes(p, &fr, f);
    int row = 0, color = 0;
    for (int i = 0; i < p->nseries; i++, row++)
        series(&p->series[i], p->series[i].reference ? "#555555" : palette[color++ % 10], &fr, row, f);
    if (p->ceiling > 0) {
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\" "
                   "stroke-dasharray=\"6,4\"/>\n<text x=\"%d\" y=\"%.1f\" font-family=\"sans-serif\" "
                   "font-size=\"12\">", LEFT, py(&fr, p->ceiling), W - RIGHT, py(&fr, p->ceiling),
                W - RIGHT + 16, py(&fr, p->ceiling) + 4);
        put_text(f, p->ceiling_label[0] ? p->ceiling_label : "ceiling");
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
    return true;
}

bool plot_write(const plot *p, const char *path)
{
    char err[160];
    FILE *f = fopen(path, "w");
    bool ok = f && plot_svg(p, f, err, sizeof err);
    if (f && fclose(f) != 0) ok = false, snprintf(err, sizeof err, "write failed");
    if (!f) snprintf(err, sizeof err, "cannot open it for writing");
    if (!ok) fprintf(stderr, "cutec: --plot %s: %s\n", path, err);
    return ok;
}

void plot_progress(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO)) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K  ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void plot_progress_done(void)
{
    if (isatty(STDERR_FILENO)) fputs("\r\033[K", stderr), fflush(stderr);
}
