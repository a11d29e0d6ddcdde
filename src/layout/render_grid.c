/* Building the grid a picture draws: checks, sizes, evaluation, and cell labels. */
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "layout_internal.h"
#include "render_grid.h"

int render_digits(int64_t x)
{
    int d = 1;
    for (; x >= 10; x /= 10) d++;
    return d;
}

/* static shape and stride: pictures are of values, not of launch-time unknowns */
static bool static_layout(cute_alg *c, const cute_layout *L, const char *what)
{
    if (!layout_inputs_ok(c, "render", 1, &L)) return false;
    char buf[1024];
    if (!cute_tuple_is_static(&L->shape))
        return cute_alg_fail(c, "render: shape must be static, %s is %s", what,
                             layout_text(L, buf, sizeof buf));
    if (!cute_tuple_is_static(&L->stride))
        return cute_alg_fail(c, "render: stride must be static, %s is %s", what,
                             layout_text(L, buf, sizeof buf));
    return true;
}

/* size of mode 0, and of all later modes together (an int shape is one mode) */
static void split_sizes(cute_alg *c, const cute_tuple *shape, int64_t *first, int64_t *rest)
{
    cute_tuple m0 = cute_tuple_get(shape, 0);
    *first = cute_tuple_product(c, &m0).v;
    cute_int r = cute_i(1);
    for (int i = 1; i < cute_tuple_rank(shape); i++) {
        cute_tuple mi = cute_tuple_get(shape, i);
        r = cute_mul(c, r, cute_tuple_product(c, &mi));
    }
    *rest = r.v;
}

static int grid_alloc(cute_alg *c, render_grid *g, int64_t M, int64_t N)
{
    g->M = M;
    g->N = N;
    g->cell = NULL;
    if (c->failed) return -1;
    /* rows and columns are bounded on their own too: an empty grid still draws its
     * header of N column numbers */
    if (M < 0 || N < 0 || M > RENDER_MAX_CELLS || N > RENDER_MAX_CELLS ||
        (M > 0 && N > RENDER_MAX_CELLS / M)) {
        cute_alg_fail(c, "render: a picture of %lld x %lld cells is too large (at most %d)",
                      (long long)M, (long long)N, RENDER_MAX_CELLS);
        return -1;
    }
    /* calloc(0) may return NULL, which is not a failure */
    g->cell = calloc((size_t)(M * N > 0 ? M * N : 1), sizeof *g->cell);
    if (!g->cell) {
        cute_alg_fail(c, "render: out of memory for %lld cells", (long long)(M * N));
        return -1;
    }
    return 0;
}

int render_grid_layout(cute_alg *c, const cute_layout *L, render_grid *g)
{
    memset(g, 0, sizeof *g);
    if (!static_layout(c, L, "the layout")) return -1;
    if (cute_layout_has_basis(L)) {
        cute_alg_fail(c, "render: basis strides (an identity layout) have no offsets to draw");
        return -1;
    }
    int64_t M, N;
    split_sizes(c, &L->shape, &M, &N);
    if (grid_alloc(c, g, M, N) < 0) return -1;
    /* the 1-D index m + n*M splits colexicographically into (m, n split over the rest):
     * the (mode 0, rest) grouping without building it */
    for (int64_t i = 0; i < M * N && !c->failed; i++) {
        g->cell[i].a = cute_layout_eval(c, L, cute_i(i)).v;
        g->cell[i].claims = 1;
    }
    g->min_digits = render_digits(cute_cosize(c, L).v);
    cute_layout_str(L, g->title, sizeof g->title);
    if (c->failed) render_grid_free(g);
    return c->failed ? -1 : 0;
}

int render_grid_composed(cute_alg *c, const cute_composed *S, render_grid *g)
{
    if (!cute_is_static(S->offset)) {
        cute_alg_fail(c, "render: the offset of a swizzled layout must be static");
        memset(g, 0, sizeof *g);
        return -1;
    }
    if (render_grid_layout(c, &S->layout, g) < 0) return -1;
    int64_t most = 0;
    for (int64_t i = 0; i < g->M * g->N; i++) {
        g->cell[i].a = cute_swizzle_apply(S->sw, S->offset.v + g->cell[i].a);
        if (g->cell[i].a > most) most = g->cell[i].a;
    }
    g->min_digits = render_digits(most + 1);
    cute_composed_str(S, g->title, sizeof g->title);
    return 0;
}

static bool tile_ok(cute_alg *c, const cute_tuple *tile)
{
    if (c->failed) return false;
    if (cute_tuple_is_poison(tile))
        return cute_alg_fail(c, "render: the tile is poison (the result of an earlier error)");
    char buf[1024];
    cute_tuple_str(tile, buf, sizeof buf);
    if (!cute_tuple_is_static(tile) || cute_tuple_has_underscore(tile))
        return cute_alg_fail(c, "render: tile shape must be static, got %s", buf);
    if (cute_tuple_rank(tile) > 2)
        return cute_alg_fail(c, "render: the tile must be (M,N) or M, got %s", buf);
    return true;
}

/* The tile coordinate (m,n) as the tile's column-major index, or -1 outside the tile. */
static int64_t tile_index(int64_t m, int64_t n, const render_grid *g)
{
    if (m < 0 || m >= g->M || n < 0 || n >= g->N) return -1;
    return m + n * g->M;
}

/* Where tv sends its 1-D index i.  Basis strides (tv composed with an identity layout, as
 * CuTe's print_latex_tv takes it) give the coordinate (m,n); integer strides the index. */
static int64_t tv_target(cute_alg *c, const cute_layout *tv, int64_t i, const render_grid *g)
{
    if (!cute_layout_has_basis(tv)) {
        int64_t idx = cute_layout_eval(c, tv, cute_i(i)).v;
        return idx >= 0 && idx < g->M * g->N ? idx : -1;
    }
    cute_tuple crd = cute_layout_eval_basis(c, tv, cute_i(i));
    if (c->failed) return -1;
    if (cute_tuple_is_int(&crd)) return tile_index(crd.leaf[0].v, 0, g);
    if (crd.nleaves != cute_tuple_rank(&crd) || crd.nleaves > 2) return -1;
    return tile_index(crd.leaf[0].v, crd.nleaves > 1 ? crd.leaf[1].v : 0, g);
}

static void tv_claim(render_cell *cell, int64_t t, int64_t v)
{
    if (cell->claims++ == 0) {
        cell->a = t;
        cell->b = v;
    }
}

/* Every (t,v), thread-major like CuTe's print_latex_tv: the first owner keeps the cell. */
static int tv_fill(cute_alg *c, const cute_layout *tv, int64_t T, int64_t V, render_grid *g)
{
    for (int64_t t = 0; t < T; t++) {
        for (int64_t v = 0; v < V; v++) {
            int64_t idx = tv_target(c, tv, t + v * T, g);
            if (c->failed) return -1;
            if (idx < 0) {
                cute_alg_fail(c, "render: tv(%lld,%lld) lies outside the tile (%lld,%lld)",
                              (long long)t, (long long)v, (long long)g->M, (long long)g->N);
                return -1;
            }
            tv_claim(&g->cell[idx], t, v);
        }
    }
    return 0;
}

int render_grid_tv(cute_alg *c, const cute_layout *tv, const cute_tuple *tile, render_grid *g)
{
    memset(g, 0, sizeof *g);
    g->tv = true;
    if (!tile_ok(c, tile) || !static_layout(c, tv, "the TV layout")) return -1;
    int64_t M, N, T, V;
    split_sizes(c, tile, &M, &N);
    split_sizes(c, &tv->shape, &T, &V);
    if (!c->failed && (T < 0 || V < 0 || T > RENDER_MAX_CELLS || V > RENDER_MAX_CELLS ||
                       (T > 0 && V > RENDER_MAX_CELLS / T))) {
        cute_alg_fail(c, "render: a TV layout of %lld x %lld entries is too large (at most %d)",
                      (long long)T, (long long)V, RENDER_MAX_CELLS);
        return -1;
    }
    if (grid_alloc(c, g, M, N) < 0 || tv_fill(c, tv, T, V, g) < 0) {
        render_grid_free(g);
        return -1;
    }
    g->min_digits = 1;
    cute_layout_str(tv, g->title, sizeof g->title);
    return 0;
}

void render_grid_free(render_grid *g)
{
    free(g->cell);
    g->cell = NULL;
}

int render_color(const render_grid *g, const render_cell *cell)
{
    int64_t k = cell->a % RENDER_PALETTE;
    (void)g;
    return (int)(k < 0 ? k + RENDER_PALETTE : k); /* negative offsets cycle too */
}

int render_label(const render_grid *g, const render_cell *cell, char *buf, size_t n)
{
    if (!g->tv) return snprintf(buf, n, "%lld", (long long)cell->a);
    if (cell->claims == 0) return snprintf(buf, n, ".");
    return snprintf(buf, n, "T%lldV%lld%s", (long long)cell->a, (long long)cell->b,
                    cell->claims > 1 ? "*" : "");
}

int render_label_width(const render_grid *g)
{
    int w = (int)g->min_digits;
    char buf[64];
    for (int64_t i = 0; i < g->M * g->N; i++) {
        int k = render_label(g, &g->cell[i], buf, sizeof buf);
        if (k > w) w = k;
    }
    return w;
}

int render_flush(cute_alg *c, FILE *f)
{
    if (fflush(f) != 0 || ferror(f)) {
        cute_alg_fail(c, "render: could not write the picture");
        return -1;
    }
    return 0;
}

int render_finish(cute_alg *c, FILE *f, render_grid *g)
{
    render_grid_free(g);
    return render_flush(c, f);
}

/* cell (m,n) moves to (n,m) */
static int grid_transpose(cute_alg *c, render_grid *g)
{
    render_grid t = *g;
    if (grid_alloc(c, &t, g->N, g->M) < 0) return -1;
    for (int64_t m = 0; m < g->M; m++)
        for (int64_t n = 0; n < g->N; n++) t.cell[n + m * t.M] = *render_at(g, m, n);
    free(g->cell);
    *g = t;
    return 0;
}

int render_grid_panel(cute_alg *c, const cute_render_panel *p, render_grid *g)
{
    /* far-off panels would overflow the pictures' int coordinates */
    if (p->row < -RENDER_MAX_CELLS || p->row > RENDER_MAX_CELLS || p->col < -RENDER_MAX_CELLS ||
        p->col > RENDER_MAX_CELLS) {
        memset(g, 0, sizeof *g);
        cute_alg_fail(c, "render: panel %s sits too far out (%lld,%lld)", p->name ? p->name : "",
                      (long long)p->row, (long long)p->col);
        return -1;
    }
    if (render_grid_tv(c, p->tv, &p->tile, g) < 0) return -1;
    if (p->transpose && grid_transpose(c, g) < 0) {
        render_grid_free(g);
        return -1;
    }
    for (int64_t i = 0; p->shared && i < g->M * g->N; i++)
        if (g->cell[i].claims > 1) g->cell[i].claims = 1;
    return 0;
}

int cute_render_panels(cute_alg *c, FILE *f, cute_render_format fmt, const char *title,
                       const cute_render_panel *panels, int n)
{
    if (c->failed) return -1;
    if (n < 1 || n > CUTE_RENDER_MAX_PANELS) {
        cute_alg_fail(c, "render: %d panels (1 to %d)", n, CUTE_RENDER_MAX_PANELS);
        return -1;
    }
    render_grid g[CUTE_RENDER_MAX_PANELS];
    int built = 0;
    while (built < n && render_grid_panel(c, &panels[built], &g[built]) == 0) built++;
    if (built == n) {
        title = title ? title : "";
        if (fmt == CUTE_RENDER_SVG)
            render_svg_panels(f, title, g, panels, n);
        else if (fmt == CUTE_RENDER_LATEX)
            render_latex_panels(f, title, g, panels, n);
        else
            render_text_panels(f, title, g, panels, n);
    }
    for (int i = 0; i < built; i++) render_grid_free(&g[i]);
    return built == n ? render_flush(c, f) : -1;
}
