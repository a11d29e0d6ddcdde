/* SVG pictures: one rect and its text per cell, row and column indices outside the grid.
 *
 * Colours are CuTe's (include/cute/util/print_svg.hpp): 8 greys by offset for layouts, 8
 * pastels by thread for TV layouts.  Cells claimed twice get a red border and a '*'; cells
 * no thread owns stay white with a '.'.
 */
#include <stdint.h>
#include <string.h>

#include "render_grid.h"

static const char *const svg_greys[RENDER_PALETTE] = {
    "255,255,255", "230,230,230", "205,205,205", "180,180,180",
    "155,155,155", "130,130,130", "105,105,105", "80,80,80",
};
static const char *const svg_threads[RENDER_PALETTE] = {
    "175,175,255", "175,255,175", "255,255,175", "255,175,175",
    "210,210,255", "210,255,210", "255,255,210", "255,210,210",
};

enum { SVG_PAD = 4, SVG_CHAR = 8, SVG_LABEL_ROW = 24 };

typedef struct svg_frame {
    int cw, ch; /* cell width and height */
    int x0, y0; /* top-left corner of cell (0,0): after the index column and row */
    int width, height;
} svg_frame;

/* The text of a cell as one line (an offset, or '.' for a cell no thread owns) or two
 * ("T3" over "V1", '*' marking a cell claimed twice, as CuTe's print_svg draws owners).
 * Returns the number of lines. */
static int svg_lines(const render_grid *g, const render_cell *cell, char *l1, char *l2, size_t n)
{
    if (!g->tv || cell->claims == 0) {
        render_label(g, cell, l1, n);
        return 1;
    }
    snprintf(l1, n, "T%lld", (long long)cell->a);
    snprintf(l2, n, "V%lld%s", (long long)cell->b, cell->claims > 1 ? "*" : "");
    return 2;
}

/* the longest line of any cell, in characters */
static int svg_chars(const render_grid *g)
{
    int w = (int)g->min_digits;
    char l1[64], l2[64];
    for (int64_t i = 0; i < g->M * g->N; i++) {
        int k = svg_lines(g, &g->cell[i], l1, l2, sizeof l1);
        int len = (int)strlen(l1);
        if (k == 2 && (int)strlen(l2) > len) len = (int)strlen(l2);
        if (len > w) w = len;
    }
    return w;
}

static svg_frame svg_frame_of(const render_grid *g)
{
    svg_frame fr;
    fr.cw = svg_chars(g) * SVG_CHAR + 12;
    if (fr.cw < 32) fr.cw = 32;
    fr.ch = g->tv ? 40 : 32;
    fr.x0 = SVG_PAD + render_digits(g->M > 0 ? g->M - 1 : 0) * SVG_CHAR + 12;
    fr.y0 = SVG_PAD + SVG_LABEL_ROW;
    fr.width = fr.x0 + (int)g->N * fr.cw + SVG_PAD;
    fr.height = fr.y0 + (int)g->M * fr.ch + SVG_PAD;
    return fr;
}

static void svg_head(FILE *f, int width, int height)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\">\n",
            width, height, width, height);
}

static void svg_group(FILE *f)
{
    fputs("<g font-family=\"monospace\" font-size=\"12\" text-anchor=\"middle\" "
          "dominant-baseline=\"central\">\n",
          f);
}

static void svg_open(FILE *f, const render_grid *g, const svg_frame *fr)
{
    svg_head(f, fr->width, fr->height);
    /* the title is notation: digits and ()[],:@-?{}=_ only, nothing XML needs escaped */
    fprintf(f, "<title>%s</title>\n", g->title);
    svg_group(f);
}

/* text with XML's special characters escaped (titles and names are free text) */
static void svg_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '<'   ? "&lt;"
                        : *s == '>' ? "&gt;"
                        : *s == '&' ? "&amp;"
                        : *s == '"' ? "&quot;"
                                    : NULL;
        if (e)
            fputs(e, f);
        else
            fputc(*s, f);
    }
}

static void svg_rect(FILE *f, int x, int y, const svg_frame *fr, const char *rgb, bool dup)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%s)\" ", x, y, fr->cw,
            fr->ch, rgb);
    fputs(dup ? "stroke=\"red\" stroke-width=\"3\"/>\n" : "stroke=\"black\"/>\n", f);
}

static void svg_text(FILE *f, int x, int y, const char *text)
{
    fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y, text);
}

static const char *svg_fill(const render_grid *g, const render_cell *cell)
{
    if (!g->tv) return svg_greys[render_color(g, cell)];
    return cell->claims ? svg_threads[render_color(g, cell)] : "255,255,255";
}

static void svg_cell(FILE *f, const render_grid *g, int64_t m, int64_t n, const svg_frame *fr)
{
    const render_cell *cell = render_at(g, m, n);
    int x = fr->x0 + (int)n * fr->cw, y = fr->y0 + (int)m * fr->ch, cx = x + fr->cw / 2;
    char l1[64], l2[64];
    svg_rect(f, x, y, fr, svg_fill(g, cell), g->tv && cell->claims > 1);
    if (svg_lines(g, cell, l1, l2, sizeof l1) == 1) {
        svg_text(f, cx, y + fr->ch / 2, l1);
    } else {
        svg_text(f, cx, y + fr->ch / 4 + 2, l1);
        svg_text(f, cx, y + 3 * fr->ch / 4 - 2, l2);
    }
}

/* row indices left of the grid (centred on x = ix), column indices above it (on y = iy),
 * in grey */
static void svg_indices(FILE *f, const render_grid *g, const svg_frame *fr, int ix, int iy)
{
    for (int64_t m = 0; m < g->M; m++)
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"gray\">%lld</text>\n", ix,
                fr->y0 + (int)m * fr->ch + fr->ch / 2, (long long)m);
    for (int64_t n = 0; n < g->N; n++)
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"gray\">%lld</text>\n",
                fr->x0 + (int)n * fr->cw + fr->cw / 2, iy, (long long)n);
}

static void svg_cells(FILE *f, const render_grid *g, const svg_frame *fr)
{
    for (int64_t m = 0; m < g->M; m++)
        for (int64_t n = 0; n < g->N; n++) svg_cell(f, g, m, n, fr);
}

static int svg_write(cute_alg *c, FILE *f, render_grid *g)
{
    svg_frame fr = svg_frame_of(g);
    svg_open(f, g, &fr);
    svg_cells(f, g, &fr);
    svg_indices(f, g, &fr, fr.x0 / 2, SVG_PAD + SVG_LABEL_ROW / 2);
    fputs("</g>\n</svg>\n", f);
    return render_finish(c, f, g);
}

/* --- pictures of several panels: one cell size for all, positions in cells ----------- */

/* the cells the picture spans, [r0,r1) x [c0,c1): every panel with its index row and
 * column (where its name sits in the corner) */
static void svg_span(const render_grid *g, const cute_render_panel *p, int n, int64_t span[4])
{
    span[0] = span[2] = INT64_MAX;
    span[1] = span[3] = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int64_t r0 = p[i].row - 1, r1 = p[i].row + g[i].M, c0 = p[i].col - 1,
                c1 = p[i].col + g[i].N;
        if (r0 < span[0]) span[0] = r0;
        if (r1 > span[1]) span[1] = r1;
        if (c0 < span[2]) span[2] = c0;
        if (c1 > span[3]) span[3] = c1;
    }
}

void render_svg_panels(FILE *f, const char *title, const render_grid *g, const cute_render_panel *p,
                       int n)
{
    svg_frame fr = {.cw = 32, .ch = 40};
    for (int i = 0; i < n; i++) {
        int cw = svg_chars(&g[i]) * SVG_CHAR + 12;
        if (cw > fr.cw) fr.cw = cw;
    }
    int64_t span[4];
    svg_span(g, p, n, span);
    svg_head(f, 2 * SVG_PAD + (int)(span[3] - span[2]) * fr.cw,
             2 * SVG_PAD + (int)(span[1] - span[0]) * fr.ch);
    fputs("<title>", f);
    svg_escaped(f, title);
    fputs("</title>\n", f);
    svg_group(f);
    for (int i = 0; i < n; i++) {
        svg_frame at = fr;
        at.x0 = SVG_PAD + (int)(p[i].col - span[2]) * fr.cw;
        at.y0 = SVG_PAD + (int)(p[i].row - span[0]) * fr.ch;
        svg_cells(f, &g[i], &at);
        if (p[i].indices) svg_indices(f, &g[i], &at, at.x0 - fr.cw / 2, at.y0 - fr.ch / 2);
        if (p[i].name) {
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">",
                    at.x0 - fr.cw / 2, at.y0 - fr.ch / 2);
            svg_escaped(f, p[i].name);
            fputs("</text>\n", f);
        }
    }
    fputs("</g>\n</svg>\n", f);
}

int cute_render_svg(cute_alg *c, FILE *f, const cute_layout *L)
{
    render_grid g;
    if (render_grid_layout(c, L, &g) < 0) return -1;
    return svg_write(c, f, &g);
}

int cute_render_tv_svg(cute_alg *c, FILE *f, const cute_layout *tv, const cute_tuple *tile)
{
    render_grid g;
    if (render_grid_tv(c, tv, tile, &g) < 0) return -1;
    return svg_write(c, f, &g);
}

int cute_render_composed_svg(cute_alg *c, FILE *f, const cute_composed *S)
{
    render_grid g;
    if (render_grid_composed(c, S, &g) < 0) return -1;
    return svg_write(c, f, &g);
}
