/* cutec/render_atoms.h — pictures of a TiledMMA and a TiledCopy: who owns which element.
 *
 * A TiledMMA is drawn as CuTe's print_latex draws it: C (M x N) with A (M x K) to its left
 * and B above it, transposed (K rows x N columns), so that A's rows line up with C's rows
 * and B's columns with C's columns.  A TiledCopy is drawn as its source tile and its
 * destination tile side by side.  Each cell says which thread and value own it ("T17 V0"),
 * coloured by thread.  Formats: a text form (a title line, then a TV text grid per operand
 * under a heading), SVG, and a standalone LaTeX/TikZ document.  Output is a function of the
 * TiledMMA / TiledCopy alone.  Both return 0, or -1 with an error in c (nothing written).
 */
#ifndef CUTEC_RENDER_ATOMS_H
#define CUTEC_RENDER_ATOMS_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdio.h>

#include "cutec/copy.h"
#include "cutec/render.h"

int cute_render_tiled_mma(cute_alg *c, const cute_tiled_mma *t, cute_render_format fmt, FILE *f);
int cute_render_tiled_copy(cute_alg *c, const cute_tiled_copy *t, cute_render_format fmt, FILE *f);

CUTE_API_END
#endif
