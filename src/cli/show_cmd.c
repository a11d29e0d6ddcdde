/* show_cmd.c — `cutec show tiled-mma|tiled-copy OPTIONS`: pictures of which thread and
 * value own each element of a TiledMMA's A, B, C or a TiledCopy's source and destination.
 * The text form goes to stdout; --svg FILE / --latex FILE also draw the picture into FILE
 * ("-": to stdout instead of the text).
 *
 * The options are the command's only input, so anything wrong with them, including a
 * combination the algebra refuses, is a usage error (exit 2) that names the option; only
 * failing to write is exit 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/render_atoms.h"

/* a thread or value layout larger than this is a typo, not a picture anyone can read */
#define SHOW_MAX_SIZE (1 << 16)

/* the options of one subcommand: each "--name VALUE" lands in its slot */
enum {
    O_ATOM,
    O_DTYPE,
    O_ATOMS,
    O_PERM_M,
    O_PERM_N,
    O_PERM_K,
    O_BITS,
    O_THR,
    O_VAL,
    O_SVG,
    O_LATEX,
    O_COUNT
};
static const char *const opt_names[O_COUNT] = {"--atom",   "--dtype",  "--atoms", "--perm-m",
                                               "--perm-n", "--perm-k", "--bits",  "--thr",
                                               "--val",    "--svg",    "--latex"};

/* what the options built: one of the two */
typedef struct shown {
    bool mma;
    cute_tiled_mma m;
    cute_tiled_copy cp;
} shown;

typedef struct show_cmd {
    const char *name;  /* "tiled-mma" */
    const char *usage; /* its options */
    const char *summary;
    unsigned accepts; /* bit i: opt_names[i] is one of its options */
    bool (*build)(cute_alg *c, const char **v, shown *out); /* false: an error in c */
} show_cmd;

/* --- reading options: each failure says which option and what is wrong --------------- */

/* the error already in c, prefixed with the option and its text */
static bool opt_fail(cute_alg *c, int opt, const char *text)
{
    char why[sizeof c->error];
    snprintf(why, sizeof why, "%s", c->error);
    cute_alg_clear(c);
    return cute_alg_fail(c, "%s \"%s\": %s", opt_names[opt], text, why);
}

/* every leaf a static int in [1, SHOW_MAX_SIZE], and so is their product */
static bool small_static_shape(cute_alg *c, int opt, const char *text, const cute_tuple *shape)
{
    int64_t n = 1;
    for (int i = 0; i < shape->nleaves; i++) {
        cute_int s = shape->leaf[i];
        if (!cute_is_static(s))
            return cute_alg_fail(c, "%s \"%s\": must be static (no '?')", opt_names[opt], text);
        if (s.v < 1 || s.v > SHOW_MAX_SIZE || (n *= s.v) > SHOW_MAX_SIZE)
            return cute_alg_fail(c, "%s \"%s\": sizes must be 1 to %d in all", opt_names[opt], text,
                                 SHOW_MAX_SIZE);
    }
    return true;
}

/* a static layout of modest size (a plain shape means its compact layout) */
static bool opt_layout(cute_alg *c, int opt, const char *text, cute_layout *L)
{
    *L = cute_layout_or_shape_parse(c, text);
    if (c->failed) return opt_fail(c, opt, text);
    if (!cute_tuple_is_static(&L->stride))
        return cute_alg_fail(c, "%s \"%s\": must be static (no '?')", opt_names[opt], text);
    return small_static_shape(c, opt, text, &L->shape);
}

/* L numbers its elements 0..size-1, each once (`what`: "threads", "values") */
static bool one_to_one(cute_alg *c, int opt, const char *text, const cute_layout *L,
                       const char *what)
{
    int64_t n = cute_size(c, L).v;
    unsigned char *seen = calloc((size_t)n, 1);
    if (!seen) return cute_alg_fail(c, "out of memory");
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) {
        int64_t t = cute_layout_eval(c, L, cute_i(i)).v;
        ok = t >= 0 && t < n && !seen[t];
        if (ok) seen[t] = 1;
    }
    free(seen);
    if (!ok)
        return cute_alg_fail(c, "%s \"%s\": must number its %lld %s 0..%lld once each",
                             opt_names[opt], text, (long long)n, what, (long long)(n - 1));
    return true;
}

/* a thread or value layout: one-to-one, and of at most `rank` modes */
static bool opt_numbering(cute_alg *c, int opt, const char *text, int rank, const char *what,
                          cute_layout *L)
{
    if (!opt_layout(c, opt, text, L)) return false;
    if (cute_rank(L) > rank)
        return cute_alg_fail(c, "%s \"%s\": has rank %d (at most %d)", opt_names[opt], text,
                             cute_rank(L), rank);
    return one_to_one(c, opt, text, L, what);
}

/* a permutation of one mode: '_' (none), or a layout (or shape, or int) numbering
 * 0..size-1 once each */
static bool opt_perm(cute_alg *c, int opt, const char *text, cute_tiler *T, cute_layout *L)
{
    if (strcmp(text, "_") == 0) return *T = cute_tiler_underscore(), true;
    if (!opt_layout(c, opt, text, L) || !one_to_one(c, opt, text, L, "elements")) return false;
    *T = cute_tiler_layout(L);
    return true;
}

static bool opt_dtype(cute_alg *c, const char *text, cute_dtype *d)
{
    if (!text) return *d = CUTE_F32, true;
    if (!cute_dtype_parse(text, d))
        return cute_alg_fail(c, "--dtype \"%s\": not a type (f32, f16, bf16, f64, i32, ...)", text);
    return true;
}

/* an error of the algebra while building from valid-looking options */
static bool build_fail(cute_alg *c, const char *what)
{
    char why[sizeof c->error];
    snprintf(why, sizeof why, "%s", c->error);
    cute_alg_clear(c);
    return cute_alg_fail(c, "these options do not make a %s: %s", what, why);
}

/* --- tiled-mma ----------------------------------------------------------------------- */

/* each permuted mode must hold whole tiles of the atoms: atom size x threads along it */
static bool perm_fits(cute_alg *c, const cute_tiled_mma *t, const char *const *v)
{
    static const char mode[3] = {'M', 'N', 'K'};
    int64_t atom[3] = {t->atom.m, t->atom.n, t->atom.k};
    for (int i = 0; i < 3; i++) {
        if (!t->perm_given[i]) continue;
        cute_layout thr = cute_get(c, &t->thr_vmnk, i + 1);
        int64_t need = atom[i] * cute_size(c, &thr).v, size = cute_tiled_mma_tile_size(c, t, i).v;
        if (size % need != 0)
            return cute_alg_fail(c,
                                 "%s \"%s\": its size %lld is not a multiple of %lld, the %c "
                                 "extent of the atoms (%lld per atom x %lld threads)",
                                 opt_names[O_PERM_M + i], v[O_PERM_M + i], (long long)size,
                                 (long long)need, mode[i], (long long)atom[i],
                                 (long long)(need / atom[i]));
    }
    return true;
}

static bool build_mma(cute_alg *c, const char **v, shown *out)
{
    cute_tiled_mma *t = &out->m;
    out->mma = true;
    bool named = v[O_ATOM] && strcmp(v[O_ATOM], "fma") != 0;
    cute_mma_atom atom;
    if (named && !cute_mma_atom_named(c, v[O_ATOM], &atom)) return opt_fail(c, O_ATOM, v[O_ATOM]);
    if (named && v[O_DTYPE])
        return cute_alg_fail(c, "--dtype: only for --atom fma (%s has its own types)", v[O_ATOM]);
    cute_dtype d;
    cute_layout atoms;
    if (!opt_dtype(c, v[O_DTYPE], &d)) return false;
    if (!opt_numbering(c, O_ATOMS, v[O_ATOMS] ? v[O_ATOMS] : "(1,1,1)", 3, "threads", &atoms))
        return false;
    cute_tiler perm[3];
    cute_layout perm_layout[3];
    const cute_tiler *given[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!v[O_PERM_M + i]) continue;
        if (!opt_perm(c, O_PERM_M + i, v[O_PERM_M + i], &perm[i], &perm_layout[i])) return false;
        given[i] = &perm[i];
    }
    if (!named) atom = cute_mma_atom_universal(c, d);
    if (c->failed) return opt_fail(c, O_DTYPE, v[O_DTYPE] ? v[O_DTYPE] : "f32");
    *t = cute_make_tiled_mma(c, &atom, &atoms, given[0], given[1], given[2]);
    if (c->failed) return build_fail(c, "TiledMMA");
    return perm_fits(c, t, v);
}

/* --- tiled-copy ---------------------------------------------------------------------- */

static bool opt_bits(cute_alg *c, const char *text, int *bits)
{
    int64_t b = 0;
    char why[160];
    if (!cli_int(text, 8, 128, &b, why, sizeof why) ||
        (b != 8 && b != 16 && b != 32 && b != 64 && b != 128))
        return cute_alg_fail(c, "--bits \"%s\": must be 8, 16, 32, 64 or 128", text);
    *bits = (int)b;
    return true;
}

static bool build_copy(cute_alg *c, const char **v, shown *out)
{
    cute_tiled_copy *t = &out->cp;
    out->mma = false;
    const char *atom = v[O_ATOM] ? v[O_ATOM] : "universal";
    bool autovec = strcmp(atom, "autovec") == 0;
    if (!autovec && strcmp(atom, "universal") != 0)
        return cute_alg_fail(c, "--atom \"%s\": unknown copy atom (known: universal, autovec)",
                             atom);
    if (autovec && v[O_BITS])
        return cute_alg_fail(c, "--bits: only for --atom universal (autovec picks its own width)");
    cute_dtype d;
    int bits = 128;
    if (!opt_dtype(c, v[O_DTYPE], &d) || (v[O_BITS] && !opt_bits(c, v[O_BITS], &bits)))
        return false;
    if (!v[O_THR])
        return cute_alg_fail(c, "--thr: required (the thread layout, e.g. \"(32,8):(8,1)\")");
    cute_layout thr, val;
    /* pictures are of 2-D tiles */
    if (!opt_numbering(c, O_THR, v[O_THR], 2, "threads", &thr) ||
        !opt_numbering(c, O_VAL, v[O_VAL] ? v[O_VAL] : "1", 2, "values", &val))
        return false;
    cute_copy_atom a =
        autovec ? cute_copy_atom_autovec(c, d) : cute_copy_atom_universal(c, d, bits);
    if (c->failed) return opt_fail(c, O_BITS, v[O_BITS] ? v[O_BITS] : "128");
    *t = cute_make_tiled_copy_tv(c, &a, &thr, &val);
    return !c->failed || build_fail(c, "TiledCopy");
}

/* --- the command --------------------------------------------------------------------- */

#define BIT(o) (1u << (o))
static const show_cmd show_cmds[] = {
    {"tiled-mma",
     "[--atom fma|NAME] [--dtype f32] [--atoms \"(16,16,1):(16,1,0)\"] [--perm-m TILER]\n"
     "      [--perm-n TILER] [--perm-k TILER] [--svg FILE | --latex FILE]",
     "a TiledMMA: C, with A to its left and B (transposed) above it",
     BIT(O_ATOM) | BIT(O_DTYPE) | BIT(O_ATOMS) | BIT(O_PERM_M) | BIT(O_PERM_N) | BIT(O_PERM_K) |
         BIT(O_SVG) | BIT(O_LATEX),
     build_mma},
    {"tiled-copy",
     "[--atom universal|autovec] [--bits 128] [--dtype f32] --thr \"(32,8):(8,1)\"\n"
     "      [--val \"(4,1)\"] [--svg FILE | --latex FILE]",
     "a TiledCopy (make_tiled_copy_tv): its source and destination tiles",
     BIT(O_ATOM) | BIT(O_DTYPE) | BIT(O_BITS) | BIT(O_THR) | BIT(O_VAL) | BIT(O_SVG) | BIT(O_LATEX),
     build_copy},
};
static const int nshow_cmds = (int)(sizeof show_cmds / sizeof show_cmds[0]);

static void usage(FILE *f)
{
    fputs("usage: cutec show <what> OPTIONS   (who owns which element: T<thread> V<value>)\n", f);
    fputs("\n  atom: an atom's table row (CuTe's traits), or all of them\n"
          "    cutec show atom NAME [--dtype T] [--svg FILE]  |  cutec show atom list\n", f);
    for (int i = 0; i < nshow_cmds; i++)
        fprintf(f, "\n  %s: %s\n    cutec show %s %s\n", show_cmds[i].name, show_cmds[i].summary,
                show_cmds[i].name, show_cmds[i].usage);
    fputs("\nThe text form goes to stdout; --svg FILE or --latex FILE also draws the picture\n"
          "(FILE \"-\": to stdout, in place of the text).  Layouts are in CuTe notation.\n",
          f);
}

/* "--name VALUE" pairs into v[]; false with an error in c */
static bool read_opts(cute_alg *c, const show_cmd *cmd, int argc, char **argv, const char **v)
{
    for (int k = 0; k < argc; k++) {
        int o = 0;
        while (o < O_COUNT && strcmp(argv[k], opt_names[o]) != 0) o++;
        if (o == O_COUNT || !(cmd->accepts & BIT(o)))
            return cute_alg_fail(c, "unknown option \"%s\" (see cutec show help)", argv[k]);
        if (k + 1 >= argc) return cute_alg_fail(c, "%s needs a value", argv[k]);
        if (v[o]) return cute_alg_fail(c, "%s given twice", argv[k]);
        v[o] = argv[++k];
    }
    if (v[O_SVG] && v[O_LATEX]) return cute_alg_fail(c, "only one of --svg FILE, --latex FILE");
    return true;
}

/* the picture in memory (malloc'd, *len bytes), or NULL with an error in c: a picture that
 * cannot be drawn leaves no half-written output */
static char *draw(cute_alg *c, const shown *s, cute_render_format fmt, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return cute_alg_fail(c, "open_memstream: %s", strerror(errno)), NULL;
    int rc = s->mma ? cute_render_tiled_mma(c, &s->m, fmt, f)
                    : cute_render_tiled_copy(c, &s->cp, fmt, f);
    fclose(f);
    if (rc == 0 && !c->failed) return buf;
    free(buf);
    build_fail(c, "picture");
    return NULL;
}

static bool write_file(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fwrite(buf, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

static int run_show(const show_cmd *cmd, int argc, char **argv)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    const char *v[O_COUNT] = {0};
    shown s;
    memset(&s, 0, sizeof s);
    char *text = NULL, *pic = NULL;
    size_t ntext = 0, npic = 0;
    bool ok = read_opts(&c, cmd, argc, argv, v);
    const char *file = v[O_SVG] ? v[O_SVG] : v[O_LATEX];
    bool to_stdout = file && strcmp(file, "-") == 0; /* the picture in place of the text */
    if (ok && cmd->build(&c, v, &s)) {
        if (!to_stdout) text = draw(&c, &s, CUTE_RENDER_TEXT, &ntext);
        if (file && !c.failed)
            pic = draw(&c, &s, v[O_SVG] ? CUTE_RENDER_SVG : CUTE_RENDER_LATEX, &npic);
    }
    int rc = CLI_OK;
    if (c.failed) {
        fprintf(stderr, "cutec show %s: %s\n", cmd->name, c.error);
        rc = CLI_USAGE;
    } else {
        /* the file first: a path that cannot be written fails before any text is printed */
        if (pic && !to_stdout && !write_file(file, pic, npic)) {
            fprintf(stderr, "cutec show %s: cannot write %s: %s\n", cmd->name, file,
                    strerror(errno));
            rc = CLI_FAIL;
        } else {
            fwrite(to_stdout ? pic : text, 1, to_stdout ? npic : ntext, stdout);
            if (fflush(stdout) != 0) rc = CLI_FAIL;
        }
    }
    free(text);
    free(pic);
    return rc;
}

int cmd_show(int argc, char **argv)
{
    if (argc < 2) return usage(stderr), CLI_USAGE;
    const char *what = argv[1];
    if (!strcmp(what, "help") || !strcmp(what, "--help") || !strcmp(what, "-h"))
        return usage(stdout), CLI_OK;
    if (!strcmp(what, "atom")) return cmd_show_atom(argc - 1, argv + 1);
    for (int i = 0; i < nshow_cmds; i++)
        if (strcmp(what, show_cmds[i].name) == 0)
            return run_show(&show_cmds[i], argc - 2, argv + 2);
    fprintf(stderr, "cutec show: unknown picture \"%s\" (atom, tiled-mma, tiled-copy)\n\n", what);
    usage(stderr);
    return CLI_USAGE;
}
