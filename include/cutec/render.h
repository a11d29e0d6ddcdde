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

#endif
