/* Pictures of layouts: the text grid is CuTe's print_layout character for character (the
 * expected grids below are worked out by hand from L(m,n)); SVG and LaTeX are well formed
 * and draw exactly one cell per tile position; TV pictures show each owner once and make
 * overlaps ('*') and holes ('.') visible. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/notation.h"
#include "cutec/render.h"

typedef int (*render_fn)(cute_alg *, FILE *, const cute_layout *);
typedef int (*render_tv_fn)(cute_alg *, FILE *, const cute_layout *, const cute_tuple *);

/* What a renderer wrote, as one malloc'd string (NULL: the renderer returned -1). */
static char *render_str(cute_alg *c, render_fn fn, const cute_layout *L)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = fn(c, f, L);
    fclose(f);
    if (rc == 0) return buf;
    CHECK(len == 0, "a failed render wrote %zu bytes", len);
    free(buf);
    return NULL;
}

static char *render_tv_str(cute_alg *c, render_tv_fn fn, const cute_layout *tv,
                           const cute_tuple *tile)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = fn(c, f, tv, tile);
    fclose(f);
    if (rc == 0) return buf;
    CHECK(len == 0, "a failed render wrote %zu bytes", len);
    free(buf);
    return NULL;
}

/* printable even when a render failed (gcc rejects a NULL %s) */
static const char *shown(const char *s)
{
    return s ? s : "(nothing)";
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void check_text(const char *layout, const char *want)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = cute_layout_parse(&c, layout);
    char *got = render_str(&c, cute_render_text, &L);
    CHECK(got != NULL, "render_text %s failed: %s", layout, c.error);
    if (got) CHECK(strcmp(got, want) == 0, "render_text %s:\n%s\nwant:\n%s", layout, got, want);
    free(got);
}

/* print_layout's grid: cells sized by num_digits(cosize), "%2d  " row labels */
static void test_text_grids(void)
{
    check_text("(4,2):(1,4)", "(4,2):(1,4)\n"
                              "      0   1 \n"
                              "    +---+---+\n"
                              " 0  | 0 | 4 |\n"
                              "    +---+---+\n"
                              " 1  | 1 | 5 |\n"
                              "    +---+---+\n"
                              " 2  | 2 | 6 |\n"
                              "    +---+---+\n"
                              " 3  | 3 | 7 |\n"
                              "    +---+---+\n");
    check_text("(2,3):(3,1)", "(2,3):(3,1)\n"
                              "      0   1   2 \n"
                              "    +---+---+---+\n"
                              " 0  | 0 | 1 | 2 |\n"
                              "    +---+---+---+\n"
                              " 1  | 3 | 4 | 5 |\n"
                              "    +---+---+---+\n");
    /* cosize 10: CuTe gives two digits although every value has one */
    check_text("(2,5):(5,1)", "(2,5):(5,1)\n"
                              "       0    1    2    3    4 \n"
                              "    +----+----+----+----+----+\n"
                              " 0  |  0 |  1 |  2 |  3 |  4 |\n"
                              "    +----+----+----+----+----+\n"
                              " 1  |  5 |  6 |  7 |  8 |  9 |\n"
                              "    +----+----+----+----+----+\n");
    /* nested mode 0: m splits over (2,2) colexicographically */
    check_text("((2,2),2):((1,4),2)", "((2,2),2):((1,4),2)\n"
                                      "      0   1 \n"
                                      "    +---+---+\n"
                                      " 0  | 0 | 2 |\n"
                                      "    +---+---+\n"
                                      " 1  | 1 | 3 |\n"
                                      "    +---+---+\n"
                                      " 2  | 4 | 6 |\n"
                                      "    +---+---+\n"
                                      " 3  | 5 | 7 |\n"
                                      "    +---+---+\n");
}

/* rank 1 is one column; rank 3 is (mode 0, modes 1-2 as one colexicographic mode);
 * negative offsets widen the cells instead of breaking the columns */
static void test_text_ranks(void)
{
    check_text("8:2", "8:2\n"
                      "       0 \n"
                      "    +----+\n"
                      " 0  |  0 |\n"
                      "    +----+\n"
                      " 1  |  2 |\n"
                      "    +----+\n"
                      " 2  |  4 |\n"
                      "    +----+\n"
                      " 3  |  6 |\n"
                      "    +----+\n"
                      " 4  |  8 |\n"
                      "    +----+\n"
                      " 5  | 10 |\n"
                      "    +----+\n"
                      " 6  | 12 |\n"
                      "    +----+\n"
                      " 7  | 14 |\n"
                      "    +----+\n");
    check_text("(2,2,2):(1,4,2)", "(2,2,2):(1,4,2)\n"
                                  "      0   1   2   3 \n"
                                  "    +---+---+---+---+\n"
                                  " 0  | 0 | 4 | 2 | 6 |\n"
                                  "    +---+---+---+---+\n"
                                  " 1  | 1 | 5 | 3 | 7 |\n"
                                  "    +---+---+---+---+\n");
    check_text("(2,2):(-1,2)", "(2,2):(-1,2)\n"
                               "       0    1 \n"
                               "    +----+----+\n"
                               " 0  |  0 |  2 |\n"
                               "    +----+----+\n"
                               " 1  | -1 |  1 |\n"
                               "    +----+----+\n");
    /* column indices past 9 keep the cell width */
    check_text("(1,11):(0,1)", "(1,11):(0,1)\n"
                               "       0    1    2    3    4    5    6    7    8    9   10 \n"
                               "    +----+----+----+----+----+----+----+----+----+----+----+\n"
                               " 0  |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |  8 |  9 | 10 |\n"
                               "    +----+----+----+----+----+----+----+----+----+----+----+\n");
}

/* dynamic shapes or strides, basis strides and poison are refused and nothing is written */
static void test_errors(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_tuple sh[2] = {cute_tuple_int(cute_i(4)), cute_tuple_int((cute_int){7, 1})};
    cute_tuple st[2] = {cute_tuple_int(cute_i(1)), cute_tuple_int(cute_i(4))};
    cute_layout dyn = {cute_tuple_of(&c, 2, sh), cute_tuple_of(&c, 2, st)};
    render_fn fns[3] = {cute_render_text, cute_render_svg, cute_render_latex};
    for (int k = 0; k < 3; k++) {
        cute_alg_clear(&c);
        CHECK(render_str(&c, fns[k], &dyn) == NULL, "renderer %d drew a dynamic shape", k);
        CHECK(strstr(c.error, "render: shape must be static") != NULL, "error: %s", c.error);
    }
    cute_alg_clear(&c);
    cute_tuple sh2[2] = {sh[0], sh[0]}, st2[2] = {st[0], sh[1]}; /* (4,4):(1,?) */
    cute_layout dst = {cute_tuple_of(&c, 2, sh2), cute_tuple_of(&c, 2, st2)};
    CHECK(render_str(&c, cute_render_text, &dst) == NULL, "drew a dynamic stride");
    CHECK(strstr(c.error, "render: stride must be static") != NULL, "error: %s", c.error);

    cute_alg_clear(&c);
    cute_layout id = cute_layout_parse(&c, "(2,2):(1@0,1@1)");
    CHECK(render_str(&c, cute_render_text, &id) == NULL, "drew basis strides as offsets");
    CHECK(strstr(c.error, "basis") != NULL, "error: %s", c.error);

    cute_alg_clear(&c);
    cute_layout poison = cute_layout_poison();
    CHECK(render_str(&c, cute_render_svg, &poison) == NULL, "drew poison");
    CHECK(strstr(c.error, "poison") != NULL, "error: %s", c.error);
}

/* Tags balance (<?...?> skipped, <x/> closes itself) and there is one root, <svg>. */
static bool xml_balanced(const char *s)
{
    char stack[32][16];
    int depth = 0, roots = 0;
    for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        const char *end = strchr(p, '>');
        if (!end) return false;
        if (p[1] == '?') continue;
        bool closing = p[1] == '/', selfclose = end[-1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strcspn(name, " />");
        if (len == 0 || len >= sizeof stack[0]) return false;
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != len ||
                strncmp(stack[depth - 1], name, len) != 0)
                return false;
            depth--;
        } else if (!selfclose) {
            if (depth == 0) roots++;
            if (depth == 32) return false;
            memcpy(stack[depth], name, len);
            stack[depth++][len] = '\0';
        }
    }
    return depth == 0 && roots == 1 && strstr(s, "<svg ") != NULL;
}

static void check_svg(const char *layout, int cells, int indices)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = cute_layout_parse(&c, layout);
    char *svg = render_str(&c, cute_render_svg, &L);
    CHECK(svg != NULL, "render_svg %s failed: %s", layout, c.error);
    if (!svg) return;
    CHECK(xml_balanced(svg), "unbalanced SVG for %s:\n%s", layout, svg);
    CHECK(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\"") != NULL, "no xmlns");
    CHECK(count(svg, "<rect ") == cells, "%s: %d rects, want %d", layout, count(svg, "<rect "),
          cells);
    CHECK(count(svg, "<text ") == cells + indices, "%s: %d texts, want %d", layout,
          count(svg, "<text "), cells + indices);
    free(svg);
}

static void check_latex(const char *layout, int cells, int indices)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = cute_layout_parse(&c, layout);
    char *tex = render_str(&c, cute_render_latex, &L);
    CHECK(tex != NULL, "render_latex %s failed: %s", layout, c.error);
    if (!tex) return;
    CHECK(strstr(tex, "\\documentclass[convert]{standalone}\n\\usepackage{tikz}") != NULL,
          "no standalone tikz preamble");
    CHECK(count(tex, "\\begin{document}") == 1 && count(tex, "\\end{document}") == 1,
          "document not opened and closed once");
    CHECK(count(tex, "\\node[fill=") == cells, "%s: %d cell nodes, want %d", layout,
          count(tex, "\\node[fill="), cells);
    CHECK(count(tex, "\\node at") == indices, "%s: %d index nodes", layout,
          count(tex, "\\node at"));
    CHECK(count(tex, "{") == count(tex, "}"), "unbalanced braces");
    free(tex);
}

static void test_svg_latex(void)
{
    check_svg("(4,2):(1,4)", 8, 6);
    check_svg("(2,2,2):(1,4,2)", 8, 6);
    check_svg("8:2", 8, 9);
    check_svg("(8,8):(8,1)", 64, 16);
    check_latex("(4,2):(1,4)", 8, 6);
    check_latex("8:2", 8, 9);
    /* offsets shade by offset mod 8, like CuTe's TikzColor_BWx8 */
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout L = cute_layout_parse(&c, "(2,2):(1,9)");
    char *tex = render_str(&c, cute_render_latex, &L);
    CHECK(tex && strstr(tex, "\\node[fill=off1] at (0,1) {9};"), "offset 9 not shaded as 1");
    CHECK(tex && strstr(tex, "\\node[fill=off2] at (1,1) {10};"), "offset 10 not shaded as 2");
    free(tex);
}

/* CuTe DSL make_layout_tv(thr=(4,2):(2,1), val=(1,2)): thread t = (t0,t1) with t0 = t%2 the
 * thread column, t1 = t/2 its row, owns tile row t1, columns 2*t0 + v.  Written out:
 * ((2,4),2):((8,1),4) over the (4,4) tile. */
static const char *const tv_small = "((2,4),2):((8,1),4)";
static const char *const tv_small_text = "((2,4),2):((8,1),4)\n"
                                         "         0      1      2      3 \n"
                                         "    +------+------+------+------+\n"
                                         " 0  | T0V0 | T0V1 | T1V0 | T1V1 |\n"
                                         "    +------+------+------+------+\n"
                                         " 1  | T2V0 | T2V1 | T3V0 | T3V1 |\n"
                                         "    +------+------+------+------+\n"
                                         " 2  | T4V0 | T4V1 | T5V0 | T5V1 |\n"
                                         "    +------+------+------+------+\n"
                                         " 3  | T6V0 | T6V1 | T7V0 | T7V1 |\n"
                                         "    +------+------+------+------+\n";

static void test_tv_text(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout tv = cute_layout_parse(&c, tv_small);
    cute_tuple tile = cute_tuple_parse(&c, "(4,4)");
    char *got = render_tv_str(&c, cute_render_tv_text, &tv, &tile);
    CHECK(got && strcmp(got, tv_small_text) == 0, "tv text:\n%s\nerror: %s", shown(got), c.error);
    CHECK(got && count(got, "*") == 0 && count(got, ".") == 0, "overlap or hole drawn");
    free(got);

    /* the same map through basis strides (tv composed with an identity layout, the form
     * CuTe's print_latex_tv takes): coordinates (m,n) instead of indices */
    cute_layout crd = cute_layout_parse(&c, "((2,4),2):((2@1,1@0),1@1)");
    got = render_tv_str(&c, cute_render_tv_text, &crd, &tile);
    const char *body = strchr(tv_small_text, '\n');
    CHECK(got && strcmp(strchr(got, '\n'), body) == 0, "basis tv:\n%s\nerror: %s", shown(got),
          c.error);
    free(got);
}

/* (4,2):(1,0): both values of thread t land on (t,0), column 1 is never written */
static void test_tv_overlap(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout tv = cute_layout_parse(&c, "(4,2):(1,0)");
    cute_tuple tile = cute_tuple_parse(&c, "(4,2)");
    char *got = render_tv_str(&c, cute_render_tv_text, &tv, &tile);
    CHECK(got && strcmp(got, "(4,2):(1,0)\n"
                             "          0       1 \n"
                             "    +-------+-------+\n"
                             " 0  | T0V0* |     . |\n"
                             "    +-------+-------+\n"
                             " 1  | T1V0* |     . |\n"
                             "    +-------+-------+\n"
                             " 2  | T2V0* |     . |\n"
                             "    +-------+-------+\n"
                             " 3  | T3V0* |     . |\n"
                             "    +-------+-------+\n") == 0,
          "overlap text:\n%s\nerror: %s", shown(got), c.error);
    free(got);
    char *svg = render_tv_str(&c, cute_render_tv_svg, &tv, &tile);
    CHECK(svg && xml_balanced(svg) && count(svg, "<rect ") == 8, "overlap svg");
    CHECK(svg && count(svg, "stroke=\"red\"") == 4 && count(svg, ">.</text>") == 4,
          "overlaps or holes not marked in svg");
    free(svg);
    char *tex = render_tv_str(&c, cute_render_tv_latex, &tv, &tile);
    CHECK(tex && count(tex, "\\node[fill=") == 8 && count(tex, "color=red") == 4, "overlap latex");
    free(tex);
}

static void test_tv_pictures(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout tv = cute_layout_parse(&c, tv_small);
    cute_tuple tile = cute_tuple_parse(&c, "(4,4)");
    char *svg = render_tv_str(&c, cute_render_tv_svg, &tv, &tile);
    CHECK(svg && xml_balanced(svg), "tv svg unbalanced: %s", c.error);
    CHECK(svg && count(svg, "<rect ") == 16, "tv svg: want 16 rects");
    /* each owner once: T5 twice (V0, V1), V1 8 times, no overlap marks */
    CHECK(svg && count(svg, ">T5</text>") == 2 && count(svg, ">V1</text>") == 8, "tv svg owners");
    CHECK(svg && count(svg, "stroke=\"red\"") == 0, "tv svg marks an overlap");
    free(svg);
    char *tex = render_tv_str(&c, cute_render_tv_latex, &tv, &tile);
    CHECK(tex && count(tex, "\\node[fill=thr") == 16, "tv latex: want 16 owned cells");
    CHECK(tex && strstr(tex, "\\node[fill=thr5] at (2,3) {\\shortstack{T5 \\\\ V1}};"),
          "tv latex: T5V1 not at (2,3)");
    free(tex);

    /* a rank-1 tile is one column; a target past the tile is an error */
    cute_layout col = cute_layout_parse(&c, "(2,2):(2,1)");
    cute_tuple four = cute_tuple_parse(&c, "4");
    char *got = render_tv_str(&c, cute_render_tv_text, &col, &four);
    CHECK(got && strstr(got, " 1  | T0V1 |\n") && strstr(got, " 2  | T1V0 |\n"), "rank-1 tile:\n%s",
          shown(got));
    free(got);
    cute_tuple small = cute_tuple_parse(&c, "(2,1)");
    CHECK(render_tv_str(&c, cute_render_tv_text, &col, &small) == NULL, "drew outside");
    CHECK(strstr(c.error, "outside the tile") != NULL, "error: %s", c.error);
}

/* make_layout_tv's own result: the hand-written TV above, and the CuTe DSL elementwise
 * example (4,32):(32,1) x (4,4):(4,1), whose 16x128 tile every (t,v) covers exactly once */
static void test_make_layout_tv(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_layout thr = cute_layout_parse(&c, "(4,2):(2,1)"),
                val = cute_layout_or_shape_parse(&c, "(1,2)");
    cute_tuple tile;
    cute_layout tv = cute_make_layout_tv(&c, &thr, &val, &tile);
    char *got = render_tv_str(&c, cute_render_tv_text, &tv, &tile);
    CHECK(got && strcmp(strchr(got, '\n'), strchr(tv_small_text, '\n')) == 0,
          "make_layout_tv text:\n%s\nerror: %s", shown(got), c.error);
    free(got);

    thr = cute_layout_parse(&c, "(4,32):(32,1)");
    val = cute_layout_parse(&c, "(4,4):(4,1)");
    tv = cute_make_layout_tv(&c, &thr, &val, &tile);
    got = render_tv_str(&c, cute_render_tv_text, &tv, &tile);
    CHECK(got && count(got, "V") == 16 * 128 && !strchr(got, '*') && !strstr(got, " . "),
          "16x128 tile not covered once: %s", c.error);
    CHECK(got && strstr(got, " 0  |    T0V0 |    T0V1 |    T0V2 |    T0V3 |    T1V0 |"),
          "row 0: thread 0 then 1, values row-major");
    free(got);
    char *svg = render_tv_str(&c, cute_render_tv_svg, &tv, &tile);
    CHECK(svg && xml_balanced(svg) && count(svg, "<rect ") == 16 * 128, "16x128 svg");
    free(svg);
}

int main(void)
{
    test_text_grids();
    test_text_ranks();
    test_errors();
    test_svg_latex();
    test_tv_text();
    test_tv_overlap();
    test_tv_pictures();
    test_make_layout_tv();
    return CHECK_DONE("render");
}
