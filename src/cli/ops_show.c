/* ops_show.c — pictures: `show` (a layout's notation and grid) and `show-tv` (the
 * thread/value picture of make_layout_tv), each optionally also drawn to an SVG or LaTeX
 * file.  The text goes into the op's output like any result; the file is a side effect. */
#include "layout_ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/notation.h"
#include "cutec/render.h"

typedef struct picture_opts {
    const char *file; /* NULL: text only */
    bool latex;       /* else SVG */
    char *pos[2];     /* the positional arguments */
    int npos;
} picture_opts;

/* split argv into positional arguments and one --svg/--latex FILE */
static bool read_picture_opts(cute_alg *c, int argc, char **argv, int npos, picture_opts *o)
{
    *o = (picture_opts){0};
    for (int k = 0; k < argc; k++) {
        bool svg = strcmp(argv[k], "--svg") == 0, latex = strcmp(argv[k], "--latex") == 0;
        if (svg || latex) {
            if (o->file) return cute_alg_fail(c, "only one of --svg FILE, --latex FILE");
            if (k + 1 >= argc) return cute_alg_fail(c, "%s needs a FILE", argv[k]);
            o->file = argv[++k];
            o->latex = latex;
        } else if (o->npos < npos) {
            o->pos[o->npos++] = argv[k];
        } else {
            return cute_alg_fail(c, "unexpected argument \"%s\"", argv[k]);
        }
    }
    if (o->npos != npos) return cute_alg_fail(c, "expected %d layout arguments", npos);
    return true;
}

/* what a renderer draws: a layout, a swizzled layout, or a TV layout over a tile */
typedef struct picture {
    const cute_layout *L;
    const cute_tuple *tile;  /* non-NULL: a TV picture */
    const cute_composed *sw; /* non-NULL: a swizzled layout picture (L unused) */
} picture;

enum { PIC_TEXT, PIC_SVG, PIC_LATEX };

static int render(cute_alg *c, FILE *f, const picture *p, int kind)
{
    if (p->sw) {
        if (kind == PIC_SVG) return cute_render_composed_svg(c, f, p->sw);
        if (kind == PIC_LATEX) return cute_render_composed_latex(c, f, p->sw);
        return cute_render_composed_text(c, f, p->sw);
    }
    if (p->tile) {
        if (kind == PIC_SVG) return cute_render_tv_svg(c, f, p->L, p->tile);
        if (kind == PIC_LATEX) return cute_render_tv_latex(c, f, p->L, p->tile);
        return cute_render_tv_text(c, f, p->L, p->tile);
    }
    if (kind == PIC_SVG) return cute_render_svg(c, f, p->L);
    if (kind == PIC_LATEX) return cute_render_latex(c, f, p->L);
    return cute_render_text(c, f, p->L);
}

/* the text picture, appended to out (renderers write to a FILE, so give them a memory one) */
static bool render_text(cute_alg *c, const picture *p, op_out *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return cute_alg_fail(c, "open_memstream: %s", strerror(errno));
    int rc = render(c, f, p, PIC_TEXT);
    fclose(f);
    if (rc == 0 && !c->failed) sb_putn(&out->text, buf, len);
    free(buf);
    /* the grid ends with a newline, and so will the CLI's line; keep one */
    if (out->text.len && out->text.p[out->text.len - 1] == '\n') out->text.p[--out->text.len] = 0;
    return rc == 0 && !c->failed;
}

static bool render_file(cute_alg *c, const picture *p, const picture_opts *o)
{
    FILE *f = fopen(o->file, "w");
    if (!f) return cute_alg_fail(c, "cannot write %s: %s", o->file, strerror(errno));
    int rc = render(c, f, p, o->latex ? PIC_LATEX : PIC_SVG);
    if (fclose(f) != 0 && rc == 0)
        return cute_alg_fail(c, "cannot write %s: %s", o->file, strerror(errno));
    return rc == 0 && !c->failed;
}

/* the text picture starts with the layout's notation, as CuTe's print_layout does */
static bool show_picture(cute_alg *c, const picture *p, const picture_opts *o, op_out *out)
{
    if (!render_text(c, p, out)) return false;
    return !o->file || render_file(c, p, o);
}

LAYOUT_HANDLER(op_show)
{
    (void)op;
    picture_opts o;
    if (!read_picture_opts(c, argc, argv, 1, &o)) return false;
    if (strncmp(o.pos[0], "Sw<", 3) == 0) { /* a swizzled layout, "Sw<B,M,S> o L" */
        cute_composed S = cute_composed_parse(c, o.pos[0]);
        if (c->failed) return false;
        picture p = {NULL, NULL, &S};
        return show_picture(c, &p, &o, out);
    }
    cute_layout L = arg_layout(c, o.pos[0]);
    if (c->failed) return false;
    picture p = {&L, NULL, NULL};
    return show_picture(c, &p, &o, out);
}

LAYOUT_HANDLER(op_show_tv)
{
    (void)op;
    picture_opts o;
    if (!read_picture_opts(c, argc, argv, 2, &o)) return false;
    cute_layout thr = arg_layout(c, o.pos[0]), val = arg_layout(c, o.pos[1]);
    cute_tuple tile = cute_tuple_poison();
    cute_layout tv = cute_make_layout_tv(c, &thr, &val, &tile);
    if (c->failed) return false;
    sb_put(&out->text, "tiler ");
    out_tuple(c, out, &tile);
    sb_put(&out->text, "\n");
    picture p = {&tv, &tile, NULL};
    return show_picture(c, &p, &o, out);
}
