/* show_atom.c — `cutec show atom NAME [--dtype T] [--svg FILE]` and `cutec show atom list`:
 * an atom's table row, one `Field: value` per line, its layouts in CuTe notation as CuTe's
 * traits write them (copy layouts in bits; --dtype T adds them in elements of T, as
 * Copy_Atom<Traits, T> holds them).  --svg draws the atom: an MMA atom as a TiledMMA of
 * one atom (C, A left, B above), a copy atom as its source and destination, one 16-byte
 * row per line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/render_atoms.h"

static void print_row(const cute_atom_info *r)
{
    printf("%s\n", r->name);
    if (r->dsl[0]) printf("CuTe DSL: %s\n", r->dsl);
    printf("Instruction: %s\n", r->inst);
    if (r->min_arch)
        printf("Arch: sm_%d+\n", r->min_arch);
    else
        printf("Arch: any\n");
    printf("Scope: %s\nPredication: %s\nAsync: %s\n",
           cute_atom_scope_name((cute_atom_scope)r->traits.scope),
           cute_atom_pred_name((cute_atom_pred)r->traits.pred), r->traits.async ? "yes" : "no");
    if (r->mma) printf("Types (D,A,B,C): %s\n", r->types);
    for (int i = 0; i < 6 && r->field_name[i] && r->field[i]; i++) {
        bool val_id = !strcmp(r->field_name[i], "ValID"); /* a tensor-memory copy's */
        printf("%s: %s%s\n", r->field_name[i], r->field[i],
               val_id ? "  (logical bit -> tensor-memory bit address; a lane is 2^21)" : !r->mma && i > 0 ? "  (bits)" : "");
    }
}

/* the copy layouts in elements of d */
static bool print_elements(cute_alg *c, const cute_atom_info *r, cute_dtype d)
{
    cute_copy_atom a;
    if (!cute_copy_atom_named(c, r->name, d, &a)) return false;
    const cute_layout *L[3] = {&a.src_tv, &a.dst_tv, &a.ref_tv};
    for (int i = 0; i < 3; i++) {
        char buf[512];
        cute_layout_str(L[i], buf, sizeof buf);
        printf("%s: %s  (%s elements)\n", r->field_name[i + 1], buf, cute_dtype_name(d));
    }
    return true;
}

static int list(void)
{
    printf("%-38s %-6s %-9s %-10s %s\n", "atom", "arch", "scope", "predicate", "async");
    for (int i = 0; i < cute_atom_count(); i++) {
        cute_atom_info r = cute_atom_info_at(i);
        char arch[16];
        snprintf(arch, sizeof arch, r.min_arch ? "sm_%d" : "any", r.min_arch);
        printf("%-38s %-6s %-9s %-10s %s\n", r.name, arch,
               cute_atom_scope_name((cute_atom_scope)r.traits.scope),
               cute_atom_pred_name((cute_atom_pred)r.traits.pred), r.traits.async ? "yes" : "no");
    }
    return fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
}

/* an MMA row as an atom with layouts only (a picture needs no types) */
static int draw_mma(cute_alg *c, const cute_atom_info *r, FILE *f)
{
    cute_mma_atom a;
    memset(&a, 0, sizeof a);
    cute_tuple mnk = cute_tuple_parse(c, r->field[0]);
    a.name = r->name;
    a.m = mnk.leaf[0].v, a.n = mnk.leaf[1].v, a.k = mnk.leaf[2].v;
    a.thr_id = cute_layout_parse(c, r->field[1]);
    a.a_tv = cute_layout_parse(c, r->field[2]);
    a.b_tv = cute_layout_parse(c, r->field[3]);
    a.c_tv = cute_layout_parse(c, r->field[4]);
    cute_layout one = cute_layout_parse(c, "(1,1,1):(0,0,0)");
    cute_tiled_mma t = cute_make_tiled_mma(c, &a, &one, NULL, NULL, NULL);
    return c->failed ? -1 : cute_render_tiled_mma(c, &t, CUTE_RENDER_SVG, f);
}

/* a copy atom in elements of d: the atom's elements drawn 16 bytes to a row */
static int draw_copy(cute_alg *c, const cute_atom_info *r, cute_dtype d, FILE *f)
{
    cute_copy_atom a;
    if (!cute_copy_atom_named(c, r->name, d, &a)) return -1;
    int64_t total = cute_cosize(c, &a.ref_tv).v, row = 16 / cute_dtype_bytes(d);
    if (row > total || row < 1) row = total;
    int64_t t[2] = {row, total / row};
    cute_render_panel p[2] = {
        {.name = "S",
         .heading = "source",
         .tv = &a.src_tv,
         .tile = cute_tuple_ints(c, 2, t),
         .transpose = true,
         .shared = true,
         .indices = true},
        {.name = "D",
         .heading = "destination",
         .tv = &a.dst_tv,
         .tile = cute_tuple_ints(c, 2, t),
         .transpose = true,
         .shared = true,
         .indices = true,
         .col = row + 2},
    };
    char title[256];
    snprintf(title, sizeof title, "%s of %s", r->name, cute_dtype_name(d));
    return cute_render_panels(c, f, CUTE_RENDER_SVG, title, p, 2);
}

static int draw(cute_alg *c, const cute_atom_info *r, cute_dtype d, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        return fprintf(stderr, "cutec show atom: cannot write %s: %s\n", path, strerror(errno)),
               CLI_FAIL;
    int rc = r->mma ? draw_mma(c, r, f) : draw_copy(c, r, d, f);
    if (f != stdout && fclose(f) != 0) rc = -1;
    if (rc == 0) return CLI_OK;
    fprintf(stderr, "cutec show atom: %s: %s\n", path, c->failed ? c->error : strerror(errno));
    return CLI_FAIL;
}

static int usage(void)
{
    fputs("usage: cutec show atom NAME [--dtype T] [--svg FILE]   (CuTe's name, e.g. "
          "SM75_U32x4_LDSM_N)\n"
          "       cutec show atom list\n",
          stderr);
    return CLI_USAGE;
}

/* argv[0] is "atom" */
int cmd_show_atom(int argc, char **argv)
{
    if (argc < 2) return usage();
    if (!strcmp(argv[1], "list") && argc == 2) return list();
    const char *dtype = NULL, *svg = NULL;
    for (int k = 2; k < argc; k += 2) {
        const char **slot = !strcmp(argv[k], "--dtype") ? &dtype
                            : !strcmp(argv[k], "--svg") ? &svg
                                                        : NULL;
        if (!slot || k + 1 >= argc || *slot) return usage();
        *slot = argv[k + 1];
    }
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_atom_info r;
    if (!cute_atom_info_find(argv[1], &r)) {
        cute_mma_atom m;
        cute_mma_atom_named(&c, argv[1], &m); /* its message names the nearest atoms */
        fprintf(stderr, "cutec show atom: %s\n", c.error);
        return CLI_USAGE;
    }
    cute_dtype d = CUTE_F16;
    if (dtype && !cute_dtype_parse(dtype, &d))
        return fprintf(stderr, "cutec show atom: --dtype \"%s\": not a type\n", dtype), CLI_USAGE;
    if (dtype && r.mma)
        return fprintf(stderr, "cutec show atom: --dtype is for copy atoms (an MMA atom's types "
                               "are its own)\n"),
               CLI_USAGE;
    print_row(&r);
    if (dtype && !print_elements(&c, &r, d))
        return fprintf(stderr, "cutec show atom: %s\n", c.error), CLI_USAGE;
    if (fflush(stdout) != 0) return CLI_FAIL;
    return svg ? draw(&c, &r, d, svg) : CLI_OK;
}
