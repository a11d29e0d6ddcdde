/* LaTeX pictures: a standalone TikZ document in the form of CuTe's print_latex
 * (include/cute/util/print_latex.hpp): one filled \node per cell, then a grid, then the row
 * and column indices.  x points down the rows and y along the columns, as in CuTe, so the
 * node of cell (m,n) sits at (m,n).
 *
 * Layouts are shaded by offset with CuTe's 8 greys, TV layouts by thread with its 8 pastels;
 * both palettes are \definecolor'd once in the preamble.  A cell claimed twice gets a red
 * frame and a '*'; a cell no thread owns stays white with a '.'.
 */
#include "render_grid.h"

/* TikzColor_BWx8: black!00, 40, 20, 60, 10, 50, 30, 70 as grey levels */
static const char *const tex_greys[RENDER_PALETTE] = {"1.00", "0.60", "0.80", "0.40",
                                                      "0.90", "0.50", "0.70", "0.30"};
/* TikzColor_TV */
static const char *const tex_threads[RENDER_PALETTE] = {
    "175,175,255", "175,255,175", "255,255,175", "255,175,175",
    "210,210,255", "210,255,210", "255,255,210", "255,210,210",
};

static void tex_preamble(FILE *f, bool tv)
{
    fputs("\\documentclass[convert]{standalone}\n\\usepackage{tikz}\n\n", f);
    for (int k = 0; k < RENDER_PALETTE; k++) {
        if (tv)
            fprintf(f, "\\definecolor{thr%d}{RGB}{%s}\n", k, tex_threads[k]);
        else
            fprintf(f, "\\definecolor{off%d}{gray}{%s}\n", k, tex_greys[k]);
    }
    fputs("\n\\begin{document}\n"
          "\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},"
          "every node/.style={minimum size=1cm, outer sep=0pt}]\n\n",
          f);
}

static void tex_open(FILE *f, const render_grid *g)
{
    fprintf(f, "%% %s: %s\n", g->tv ? "Layout TV" : "Layout", g->title);
    tex_preamble(f, g->tv);
}

static void tex_close(FILE *f)
{
    fputs("\\end{tikzpicture}\n\\end{document}\n", f);
}

/* (r0,c0): where the grid's cell (0,0) sits in the picture */
static void tex_cell(FILE *f, const render_grid *g, int64_t m, int64_t n, int64_t r0, int64_t c0)
{
    const render_cell *cell = render_at(g, m, n);
    long long lm = (long long)(r0 + m), ln = (long long)(c0 + n);
    if (!g->tv)
        fprintf(f, "\\node[fill=off%d] at (%lld,%lld) {%lld};\n", render_color(g, cell), lm, ln,
                (long long)cell->a);
    else if (cell->claims == 0)
        fprintf(f, "\\node[fill=white] at (%lld,%lld) {.};\n", lm, ln);
    else
        fprintf(f, "\\node[fill=thr%d] at (%lld,%lld) {\\shortstack{T%lld \\\\ V%lld%s}};\n",
                render_color(g, cell), lm, ln, (long long)cell->a, (long long)cell->b,
                cell->claims > 1 ? "*" : "");
}

/* drawn after the grid so the grid's lines do not cover them */
static void tex_overlaps(FILE *f, const render_grid *g, int64_t r0, int64_t c0)
{
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t m = 0; m < g->M; m++)
            if (g->tv && render_at(g, m, n)->claims > 1)
                fprintf(f,
                        "\\draw[color=red,very thick,shift={(-0.5,-0.5)}] (%lld,%lld) "
                        "rectangle (%lld,%lld);\n",
                        (long long)(r0 + m), (long long)(c0 + n), (long long)(r0 + m + 1),
                        (long long)(c0 + n + 1));
}

/* row indices in the column left of the grid, column indices in the row above */
static void tex_indices(FILE *f, const render_grid *g, int64_t r0, int64_t c0)
{
    for (int64_t m = 0; m < g->M; m++)
        fprintf(f, "\\node at (%lld,%lld) {\\Large{\\texttt{%lld}}};\n", (long long)(r0 + m),
                (long long)(c0 - 1), (long long)m);
    for (int64_t n = 0; n < g->N; n++)
        fprintf(f, "\\node at (%lld,%lld) {\\Large{\\texttt{%lld}}};\n", (long long)(r0 - 1),
                (long long)(c0 + n), (long long)n);
}

/* the cells, the grid over them, the overlap frames, then the indices */
static void tex_grid(FILE *f, const render_grid *g, int64_t r0, int64_t c0, bool indices)
{
    for (int64_t m = 0; m < g->M; m++)
        for (int64_t n = 0; n < g->N; n++) tex_cell(f, g, m, n, r0, c0);
    fprintf(f, "\\draw[color=black,thick,shift={(-0.5,-0.5)}] (%lld,%lld) grid (%lld,%lld);\n",
            (long long)r0, (long long)c0, (long long)(r0 + g->M), (long long)(c0 + g->N));
    tex_overlaps(f, g, r0, c0);
    fputc('\n', f);
    if (indices) tex_indices(f, g, r0, c0);
}

static int tex_write(cute_alg *c, FILE *f, render_grid *g)
{
    tex_open(f, g);
    tex_grid(f, g, 0, 0, true);
    tex_close(f);
    return render_finish(c, f, g);
}

/* CuTe's print_latex of a TiledMMA / TiledCopy: every panel in one tikzpicture, each with
 * its name (bold) in the corner cell up and left of it */
void render_latex_panels(FILE *f, const char *title, const render_grid *g,
                         const cute_render_panel *p, int n)
{
    fprintf(f, "%% %s\n", title);
    for (int i = 0; i < n; i++) fprintf(f, "%% %s: %s\n", p[i].name ? p[i].name : "", g[i].title);
    tex_preamble(f, true);
    for (int i = 0; i < n; i++) {
        tex_grid(f, &g[i], p[i].row, p[i].col, p[i].indices);
        if (p[i].name)
            fprintf(f, "\\node at (%lld,%lld) {\\Large{\\textbf{%s}}};\n",
                    (long long)(p[i].row - 1), (long long)(p[i].col - 1), p[i].name);
        fputc('\n', f);
    }
    tex_close(f);
}

int cute_render_latex(cute_alg *c, FILE *f, const cute_layout *L)
{
    render_grid g;
    if (render_grid_layout(c, L, &g) < 0) return -1;
    return tex_write(c, f, &g);
}

int cute_render_tv_latex(cute_alg *c, FILE *f, const cute_layout *tv, const cute_tuple *tile)
{
    render_grid g;
    if (render_grid_tv(c, tv, tile, &g) < 0) return -1;
    return tex_write(c, f, &g);
}

int cute_render_composed_latex(cute_alg *c, FILE *f, const cute_composed *S)
{
    render_grid g;
    if (render_grid_composed(c, S, &g) < 0) return -1;
    return tex_write(c, f, &g);
}
