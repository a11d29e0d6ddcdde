/* The grid every picture draws: evaluated once, then written as text, SVG or LaTeX.
 *
 * Building the grid does all the checking and evaluation, so a failed render writes nothing.
 */
#ifndef CUTEC_RENDER_GRID_H
#define CUTEC_RENDER_GRID_H

#include <stdio.h>

#include "cutec/render.h"

/* Pictures larger than this are refused: nobody reads them, and each cell costs memory. */
#define RENDER_MAX_CELLS (1 << 20)
/* The palettes cycle with this period (CuTe's 8 greys and 8 thread colours). */
#define RENDER_PALETTE 8

typedef struct render_cell {
    int64_t a;      /* layout: the offset L(m,n).  TV: the first owner's thread */
    int64_t b;      /* TV: the first owner's value index */
    int32_t claims; /* TV: how many (t,v) land here (0: empty, > 1: overlap).  Layout: 1 */
} render_cell;

typedef struct render_grid {
    bool tv;            /* a TV picture (cells name owners) or a layout picture (offsets) */
    int64_t M, N;       /* rows, columns */
    int64_t min_digits; /* layout: cells are at least this wide (CuTe: digits of cosize) */
    render_cell *cell;  /* M*N cells, column-major: cell[m + n*M] */
    char title[2048];   /* the drawn layout in notation */
} render_grid;

/* L(m,n) for every cell.  @pre L static, no basis strides.  Rank 1 is one column, rank > 2
 * is (mode 0, the rest).  Returns 0, or -1 with an error in c. */
int render_grid_layout(cute_alg *c, const cute_layout *L, render_grid *g);
/* sw(offset + L(m,n)) for every cell of a swizzled layout.  @pre as render_grid_layout */
int render_grid_composed(cute_alg *c, const cute_composed *S, render_grid *g);
/* the owners of every cell of `tile` under tv.  Returns 0, or -1 with an error in c. */
int render_grid_tv(cute_alg *c, const cute_layout *tv, const cute_tuple *tile, render_grid *g);
void render_grid_free(render_grid *g);

static inline const render_cell *render_at(const render_grid *g, int64_t m, int64_t n)
{
    return &g->cell[m + n * g->M];
}

/* CuTe's num_digits: decimal digits of x >= 0 (print_layout sizes cells by cosize's) */
int render_digits(int64_t x);
/* palette slot of a cell: the offset (layout) or the thread (TV), mod the period */
int render_color(const render_grid *g, const render_cell *cell);
/* the text of a cell: "12"; "T3V1", "T3V1*" when claimed twice, "." when empty */
int render_label(const render_grid *g, const render_cell *cell, char *buf, size_t n);
/* the widest label of the grid (at least min_digits) */
int render_label_width(const render_grid *g);

/* 0 when every write reached f, else -1 with an error in c */
int render_flush(cute_alg *c, FILE *f);
/* frees g, then render_flush */
int render_finish(cute_alg *c, FILE *f, render_grid *g);

/* --- pictures of several panels (cute_render_panels) -------------------------------- */
/* the panel's grid, transposed and with overlaps accepted as it asks */
int render_grid_panel(cute_alg *c, const cute_render_panel *p, render_grid *g);
/* The writers of a panel picture: g[i] is panels[i]'s grid.  They only write; the caller
 * built the grids (so a failure writes nothing) and frees them. */
void render_text_panels(FILE *f, const char *title, const render_grid *g,
                        const cute_render_panel *p, int n);
void render_svg_panels(FILE *f, const char *title, const render_grid *g, const cute_render_panel *p,
                       int n);
void render_latex_panels(FILE *f, const char *title, const render_grid *g,
                         const cute_render_panel *p, int n);

#endif
