/* Pictures of TiledMMAs and TiledCopies.
 *  - a small TiledMMA and TiledCopy in all three formats against golden files
 *    (src/atom/testdata/; CUTEC_UPDATE_GOLDEN=1 rewrites them from the output);
 *  - seed 002's TiledMMA: every cell of the text form's C, A and B grids names the owner
 *    that the thread partitions give (the first thread, in order, for the shared A and B),
 *    e.g. C (4,4) is T17 V0; the SVG and LaTeX forms draw one cell per element;
 *  - a TiledCopy's source and destination grids likewise against its partitions;
 *  - a failed context draws nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/notation.h"
#include "cutec/render_atoms.h"

static const char *const ext[3] = {"txt", "svg", "tex"};

/* what a render wrote (malloc'd), or NULL when it returned -1 (then it must write nothing) */
static char *draw(cute_alg *c, const cute_tiled_mma *m, const cute_tiled_copy *cp,
                  cute_render_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = m ? cute_render_tiled_mma(c, m, fmt, f) : cute_render_tiled_copy(c, cp, fmt, f);
    fclose(f);
    if (rc == 0) return buf;
    CHECK(len == 0, "a failed render wrote %zu bytes", len);
    free(buf);
    return NULL;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void golden(const char *got, const char *name, int fmt)
{
    char path[256];
    snprintf(path, sizeof path, "src/atom/testdata/%s.%s", name, ext[fmt]);
    if (got && getenv("CUTEC_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
        fprintf(stderr, "rewrote %s\n", path);
    }
    char *want = check_read_file(path);
    if (!want)
        SKIP("a golden file is missing (run from the repository root)");
    else
        CHECK(got && strcmp(got, want) == 0, "%s differs from the picture:\n%s", path,
              got ? got : "(nothing)");
    free(want);
}

/* --- owners from the partitions ----------------------------------------------------- */

typedef struct owners {
    int64_t rows, cols;
    int64_t *thr, *val; /* rows*cols, row-major; -1: nobody */
} owners;

static owners owners_new(int64_t rows, int64_t cols)
{
    owners o = {rows, cols, malloc((size_t)(rows * cols) * sizeof(int64_t)),
                malloc((size_t)(rows * cols) * sizeof(int64_t))};
    for (int64_t i = 0; i < rows * cols; i++) o.thr[i] = o.val[i] = -1;
    return o;
}

static void owners_free(owners *o)
{
    free(o->thr);
    free(o->val);
}

/* thread thr's values of a compact tile (M x N, column-major), in order, each claiming its
 * cell unless an earlier (thread, value) has: the renderers' first-owner rule.  transpose:
 * the grid is N x M. */
static void claim(owners *o, int64_t thr, const cute_layout *P, int64_t off, int64_t M,
                  bool transpose, cute_alg *c)
{
    int64_t n = cute_size(c, P).v;
    for (int64_t v = 0; v < n; v++) {
        int64_t idx = off + cute_layout_eval(c, P, cute_i(v)).v, m = idx % M, k = idx / M;
        int64_t r = transpose ? k : m, col = transpose ? m : k;
        if (r < 0 || r >= o->rows || col < 0 || col >= o->cols) continue;
        int64_t at = r * o->cols + col;
        if (o->thr[at] < 0) o->thr[at] = thr, o->val[at] = v;
    }
}

static owners mma_owners(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op)
{
    static const int modes[3][2] = {{0, 2}, {1, 2}, {0, 1}};
    int64_t M = cute_tiled_mma_tile_size(c, t, modes[op][0]).v;
    int64_t N = cute_tiled_mma_tile_size(c, t, modes[op][1]).v;
    int64_t shape[2] = {M, N};
    cute_layout tile = cute_make_layout(c, cute_tuple_ints(c, 2, shape));
    bool transpose = op == CUTE_MMA_B;
    owners o = transpose ? owners_new(N, M) : owners_new(M, N);
    for (int64_t thr = 0; thr < cute_tiled_mma_threads(t) && !c->failed; thr++) {
        cute_tuple off;
        cute_layout P = cute_tiled_mma_partition(c, t, op, cute_i(thr), &tile, &off);
        claim(&o, thr, &P, off.leaf[0].v, M, transpose, c);
    }
    return o;
}

static owners copy_owners(cute_alg *c, const cute_tiled_copy *t, bool src)
{
    cute_tuple shape = cute_tiled_copy_tile_shape(c, t);
    int64_t M = shape.leaf[0].v, N = shape.leaf[1].v;
    cute_layout tile = cute_make_layout(c, shape);
    owners o = owners_new(M, N);
    for (int64_t thr = 0; thr < cute_tiled_copy_threads(t) && !c->failed; thr++) {
        cute_tuple off;
        cute_layout P = cute_tiled_copy_partition(c, t, src, cute_i(thr), &tile, &off);
        claim(&o, thr, &P, off.leaf[0].v, M, false, c);
    }
    return o;
}

/* --- the text form ------------------------------------------------------------------ */

/* the cells of the text grid under `heading`: how many differ from o (-1: no such grid) */
static int64_t text_differs(const char *text, const char *heading, const owners *o)
{
    const char *p = strstr(text, heading);
    if (!p) return -1;
    int64_t bad = 0, rows = 0;
    for (p = strchr(p, '\n'); p && p[1] && p[1] != '\n'; p = strchr(p + 1, '\n')) {
        long long r;
        int used = 0; /* stays 0 unless the whole "row  |" matched */
        if (sscanf(p + 1, "%lld |%n", &r, &used) != 1 || used == 0) continue; /* not a row */
        const char *q = p + 1 + used;
        for (int64_t col = 0; col < o->cols; col++) {
            long long t, v;
            int n;
            if (sscanf(q, " T%lldV%lld |%n", &t, &v, &n) != 2) return bad + o->cols - col;
            q += n;
            int64_t at = r * o->cols + col;
            bad += r >= o->rows || t != o->thr[at] || v != o->val[at];
        }
        rows++;
    }
    return bad + (rows != o->rows ? o->rows * o->cols : 0);
}

static const char *cell(const owners *o, int64_t r, int64_t col, char *buf)
{
    int64_t at = r * o->cols + col;
    sprintf(buf, "T%lldV%lld", (long long)o->thr[at], (long long)o->val[at]);
    return buf;
}

/* UniversalFMA<f32> tiled by `atoms`, M and N permuted by `perm` (NULL: none) */
static cute_tiled_mma fma_mma(cute_alg *c, const char *atoms, const char *perm)
{
    cute_mma_atom fma = cute_mma_atom_universal(c, CUTE_F32);
    cute_layout al = cute_layout_parse(c, atoms);
    cute_tiler p = perm ? cute_tiler_parse(c, perm) : cute_tiler_underscore();
    return cute_make_tiled_mma(c, &fma, &al, perm ? &p : NULL, perm ? &p : NULL, NULL);
}

/* --- the tests ---------------------------------------------------------------------- */

static void small_goldens(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_tiled_mma t = fma_mma(&c, "(2,2):(2,1)", NULL);
    cute_copy_atom u64 = cute_copy_atom_universal(&c, CUTE_F32, 64);
    cute_layout thr = cute_layout_parse(&c, "(2,2):(2,1)"),
                val = cute_layout_parse(&c, "(1,2):(1,1)");
    cute_tiled_copy tc = cute_make_tiled_copy_tv(&c, &u64, &thr, &val);
    CHECK(!c.failed, "small TiledMMA and TiledCopy: %s", c.error);
    for (int fmt = 0; fmt < 3; fmt++) {
        char *m = draw(&c, &t, NULL, (cute_render_format)fmt);
        golden(m, "tiled_mma_2x2", fmt);
        char *cp = draw(&c, NULL, &tc, (cute_render_format)fmt);
        golden(cp, "tiled_copy_2x2", fmt);
        /* deterministic: the same picture twice */
        char *again = draw(&c, &t, NULL, (cute_render_format)fmt);
        CHECK(m && again && strcmp(m, again) == 0, "the %s picture is the same twice", ext[fmt]);
        free(m);
        free(cp);
        free(again);
    }
}

static void seed_002(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_tiled_mma t = fma_mma(&c, "(16,16,1):(16,1,0)", "(16,4):(4,1)");
    char *text = draw(&c, &t, NULL, CUTE_RENDER_TEXT);
    CHECK(text != NULL, "seed 002 draws: %s", c.error);
    if (!text) return;
    const char *title =
        "TiledMMA UniversalFMA<f32>: 256 threads, ThrLayoutVMNK (1,16,16,1):(0,16,1,0), "
        "PermutationMNK ((16,4):(4,1),(16,4):(4,1),_), tile (M,N,K) = (64,64,1)\n";
    CHECK(strncmp(text, title, strlen(title)) == 0,
          "the title names the atom, threads, tile: %.200s", text);
    static const char *const heads[3] = {
        "A (M x K = 64 x 1)", "B (K x N = 1 x 64, drawn transposed)", "C (M x N = 64 x 64)"};
    char buf[64];
    for (int op = 0; op < 3; op++) {
        owners o = mma_owners(&c, &t, (cute_mma_operand)op);
        CHECK(text_differs(text, heads[op], &o) == 0, "%s: every cell names its partition's owner",
              heads[op]);
        if (op == CUTE_MMA_C) {
            /* thread 17 is (m 1, n 1): the permutation puts its first value at (4,4) */
            CHECK_STR(cell(&o, 4, 4, buf), "T17V0");
            CHECK_STR(cell(&o, 5, 4, buf), "T17V1");
            CHECK_STR(cell(&o, 4, 5, buf), "T17V4");
            CHECK_STR(cell(&o, 0, 0, buf), "T0V0");
            CHECK_STR(cell(&o, 63, 63, buf), "T255V15");
        } else {
            /* A row 4 and B column 4 are first owned by thread 16 and thread 1 */
            CHECK_STR(cell(&o, op == CUTE_MMA_A ? 4 : 0, op == CUTE_MMA_A ? 0 : 4, buf),
                      op == CUTE_MMA_A ? "T16V0" : "T1V0");
        }
        owners_free(&o);
    }
    free(text);
    char *svg = draw(&c, &t, NULL, CUTE_RENDER_SVG);
    CHECK(svg && count(svg, "<rect") == 64 * 64 + 64 + 64, "SVG: one rect per element of C, A, B");
    CHECK(svg && strstr(svg, "<title>TiledMMA UniversalFMA&lt;f32&gt;: 256 threads"),
          "SVG: the title, escaped");
    CHECK(svg && count(svg, "font-weight=\"bold\"") == 3, "SVG: the names C, A, B");
    free(svg);
    char *tex = draw(&c, &t, NULL, CUTE_RENDER_LATEX);
    CHECK(tex && count(tex, "\\node[fill=thr") == 64 * 64 + 64 + 64,
          "LaTeX: one node per element of C, A, B");
    CHECK(tex && count(tex, "grid") == 3 && strstr(tex, "(-2,0) grid (-1,64)") &&
              strstr(tex, "(0,-2) grid (64,-1)"),
          "LaTeX: A left of C and B above it, as CuTe places them");
    free(tex);
}

static void copy_against_partitions(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_copy_atom u128 = cute_copy_atom_universal(&c, CUTE_F32, 128);
    cute_layout thr = cute_layout_parse(&c, "(32,8):(8,1)"),
                val = cute_layout_parse(&c, "(4,1):(1,0)");
    cute_tiled_copy tc = cute_make_tiled_copy_tv(&c, &u128, &thr, &val);
    char *text = draw(&c, NULL, &tc, CUTE_RENDER_TEXT);
    CHECK(text != NULL, "a 32x8 thread TiledCopy draws: %s", c.error);
    if (!text) return;
    CHECK(strstr(text, "S (source, tile (128,8))") && strstr(text, "D (destination, tile (128,8))"),
          "headings name the tile");
    for (int src = 1; src >= 0; src--) {
        owners o = copy_owners(&c, &tc, src);
        CHECK(text_differs(text, src ? "S (source" : "D (destination", &o) == 0,
              "%s: every cell names its partition's owner", src ? "source" : "destination");
        char buf[64];
        /* threads are row-major over (32,8): thread 1 holds column 1, thread 8 the second
         * block of 4 rows */
        CHECK_STR(cell(&o, 0, 1, buf), "T1V0");
        CHECK_STR(cell(&o, 4, 0, buf), "T8V0");
        CHECK_STR(cell(&o, 7, 0, buf), "T8V3");
        owners_free(&o);
    }
    free(text);
}

static void failures(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_tiled_mma t = fma_mma(&c, "(2,2):(2,1)", NULL);
    cute_alg_fail(&c, "an earlier error");
    CHECK(draw(&c, &t, NULL, CUTE_RENDER_SVG) == NULL, "a failed context draws nothing");
    CHECK(strcmp(c.error, "an earlier error") == 0, "and keeps its first error: %s", c.error);
    /* a TiledMMA too large to draw is refused, nothing written */
    cute_alg_init(&c, NULL);
    cute_tiled_mma tb = fma_mma(&c, "(2048,1024):(1,2048)", NULL);
    CHECK(draw(&c, &tb, NULL, CUTE_RENDER_TEXT) == NULL && strstr(c.error, "too large"),
          "a 2048x1024 C is refused: %s", c.error);
    /* the panel renderer refuses no panels, and a panel too far out, writing nothing */
    cute_alg_init(&c, NULL);
    cute_layout tv = cute_layout_parse(&c, "(2,2):(1,2)");
    int64_t two[2] = {2, 2};
    cute_render_panel p = {"X", "X", &tv, cute_tuple_ints(&c, 2, two), false, false, true, 0, 0};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(cute_render_panels(&c, f, CUTE_RENDER_SVG, "t", &p, 0) < 0, "no panels: refused");
    cute_alg_init(&c, NULL);
    p.row = (int64_t)1 << 40;
    CHECK(cute_render_panels(&c, f, CUTE_RENDER_SVG, "t", &p, 1) < 0 && strstr(c.error, "too far"),
          "a panel far out: refused (%s)", c.error);
    fclose(f);
    CHECK(len == 0, "and nothing written (%zu bytes)", len);
    free(buf);
}

int main(void)
{
    small_goldens();
    seed_002();
    copy_against_partitions();
    failures();
    return CHECK_DONE("render_atoms_test");
}
