/* Text pictures: CuTe's print_layout grid, character for character.
 *
 * CuTe (include/cute/layout.hpp, print_layout) sizes every cell for num_digits(cosize) and
 * writes: the layout, a row of column indices, then per row a rule and "%2d  | v | v |",
 * and a closing rule.  TV pictures use the same grid with owner labels ("T3V1").
 */
#include "render_grid.h"

/* "    +---+---+": one '+' and w+2 dashes per column */
static void text_rule(FILE *f, int64_t N, int w)
{
    fputs("    ", f);
    for (int64_t n = 0; n < N; n++) {
        fputc('+', f);
        for (int i = 0; i < w + 2; i++) fputc('-', f);
    }
    fputs("+\n", f);
}

static void text_header(FILE *f, int64_t N, int w)
{
    fputs("    ", f);
    for (int64_t n = 0; n < N; n++) fprintf(f, "  %*lld ", w, (long long)n);
    fputc('\n', f);
}

static void text_row(FILE *f, const render_grid *g, int64_t m, int w)
{
    char label[64];
    fprintf(f, "%2lld  ", (long long)m);
    for (int64_t n = 0; n < g->N; n++) {
        render_label(g, render_at(g, m, n), label, sizeof label);
        fprintf(f, "| %*s ", w, label);
    }
    fputs("|\n", f);
}

static void text_grid(FILE *f, const render_grid *g)
{
    int w = render_label_width(g);
    fprintf(f, "%s\n", g->title);
    text_header(f, g->N, w);
    for (int64_t m = 0; m < g->M; m++) {
        text_rule(f, g->N, w);
        text_row(f, g, m, w);
    }
    text_rule(f, g->N, w);
}

static int text_write(cute_alg *c, FILE *f, render_grid *g)
{
    text_grid(f, g);
    return render_finish(c, f, g);
}

/* the title, then per panel a blank line, its heading and its grid */
void render_text_panels(FILE *f, const char *title, const render_grid *g,
                        const cute_render_panel *p, int n)
{
    fprintf(f, "%s\n", title);
    for (int i = 0; i < n; i++) {
        fprintf(f, "\n%s\n", p[i].heading ? p[i].heading : p[i].name ? p[i].name : "");
        text_grid(f, &g[i]);
    }
}

int cute_render_text(cute_alg *c, FILE *f, const cute_layout *L)
{
    render_grid g;
    if (render_grid_layout(c, L, &g) < 0) return -1;
    return text_write(c, f, &g);
}

int cute_render_tv_text(cute_alg *c, FILE *f, const cute_layout *tv, const cute_tuple *tile)
{
    render_grid g;
    if (render_grid_tv(c, tv, tile, &g) < 0) return -1;
    return text_write(c, f, &g);
}

int cute_render_composed_text(cute_alg *c, FILE *f, const cute_composed *S)
{
    render_grid g;
    if (render_grid_composed(c, S, &g) < 0) return -1;
    return text_write(c, f, &g);
}
