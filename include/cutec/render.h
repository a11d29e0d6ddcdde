/* cutec/render.h — pictures of layouts: CuTe's print_layout text grid, SVG and LaTeX.
 *
 * A layout picture shows a rank-2 layout (rank-1: one column; higher ranks are grouped as
 * (mode 0, rest)) as a grid: cell (m,n) holds L(m,n), colored by offset.  A TV picture shows
 * a thread-value layout over a tile: for a TV layout tv (thread, value) -> index into the
 * tile's shape (the `tiler` of make_layout_tv), each cell of the tile shows which thread and
 * value own it ("T3 V1"), colored by thread, as CuTe's print_latex draws a TiledCopy.
 * All writers return 0 on success, or -1 with an error in c.
 */
#ifndef CUTEC_RENDER_H
#define CUTEC_RENDER_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdio.h>

#include "cutec/layout.h"

int cute_render_text(cute_alg *c, FILE *f, const cute_layout *L);
int cute_render_svg(cute_alg *c, FILE *f, const cute_layout *L);
int cute_render_latex(cute_alg *c, FILE *f, const cute_layout *L);

/* a swizzled layout: each cell holds sw(offset + L(m,n)) */
int cute_render_composed_text(cute_alg *c, FILE *f, const cute_composed *S);
int cute_render_composed_svg(cute_alg *c, FILE *f, const cute_composed *S);
int cute_render_composed_latex(cute_alg *c, FILE *f, const cute_composed *S);

/* tile: the (M,N) shape of the tile; tv: (thread, value) -> column-major index in tile */
int cute_render_tv_text(cute_alg *c, FILE *f, const cute_layout *tv, const cute_tuple *tile);
int cute_render_tv_svg(cute_alg *c, FILE *f, const cute_layout *tv, const cute_tuple *tile);
int cute_render_tv_latex(cute_alg *c, FILE *f, const cute_layout *tv, const cute_tuple *tile);

/* --- pictures of several TV grids ----------------------------------------------------
 * A TiledMMA's C, A and B, or a TiledCopy's source and destination, drawn as one picture
 * (CuTe's print_latex of a TiledMMA / TiledCopy): each panel is a TV grid whose cell (0,0)
 * sits at cell (row, col) of the picture; its row indices go in the column left of it,
 * its column indices in the row above, its name in the corner cell between them.  The
 * text form writes the title, then each panel's heading and TV text grid in turn. */
typedef enum { CUTE_RENDER_TEXT, CUTE_RENDER_SVG, CUTE_RENDER_LATEX } cute_render_format;

#define CUTE_RENDER_MAX_PANELS 4

typedef struct cute_render_panel {
    const char *name;      /* short, drawn in the corner: "A", "S" */
    const char *heading;   /* the text form's line above the grid: "A (M x K) = (2 x 1)" */
    const cute_layout *tv; /* (thread, value) -> column-major index in tile */
    cute_tuple tile;       /* (M,N) */
    bool transpose;        /* draw the tile as N rows x M columns (CuTe draws B (N,K) as K x N) */
    bool shared;           /* several owners per element are expected (an MMA's A and B): the
                            * first owner is shown, without the overlap mark '*' */
    bool indices;          /* draw row and column indices */
    int64_t row, col;      /* where the panel's cell (0,0) sits, in cells (may be negative) */
} cute_render_panel;

/* title: one line (the text form's first line, the SVG <title>, a LaTeX comment) */
int cute_render_panels(cute_alg *c, FILE *f, cute_render_format fmt, const char *title,
                       const cute_render_panel *panels, int n);

CUTE_API_END
#endif
