/* `cutec export gemm|gemv|elementwise OPTIONS --out DIR [--name NAME] [--arch A[,B...]]`: the
 * kernel `cutec compile` would show, as cubins and a launcher that runs without cutec
 * (cute_export, docs/export.md).  The other options are `cutec compile`'s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/export.h"

#define MAX_ARCHS 8

/* where the export goes: set by cmd_export for the compile it runs (one per process) */
static struct {
    const char *dir, *name;
    char archs[256], first[32];
} target;

static int usage(void)
{
    fputs("usage: cutec export gemm|gemv|elementwise OPTIONS --out DIR [--name NAME]\n"
          "         [--arch sm_90a[,sm_80...]]\n"
          "  writes DIR/NAME.ARCH.cubin for each arch (default sm_90a), DIR/NAME.h and\n"
          "  DIR/NAME.c: a launcher that needs only the CUDA driver (cc NAME.c -lcuda).\n"
          "  NAME: a C identifier (default: the kernel's); OPTIONS: `cutec compile`'s, for\n"
          "  the kernel to export (`cutec compile gemm|gemv help`, `cutec compile help`)\n", stderr);
    return CLI_USAGE;
}

/* the kernel as files; what `--emit export` does (emit.c) */
int cli_export_kernel(const struct cute_fn *f)
{
    char err[4096], list[256], *save = NULL;
    const char *archs[MAX_ARCHS];
    int n = 0;
    snprintf(list, sizeof list, "%s", target.archs[0] ? target.archs : "sm_90a");
    for (char *a = strtok_r(list, ",", &save); a && n < MAX_ARCHS; a = strtok_r(NULL, ",", &save))
        archs[n++] = a;
    cute_export_opts o = {.dir = target.dir, .name = target.name, .archs = archs, .narchs = n};
    if (cute_export(f, &o, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec export: %s\n", err);
        return CLI_FAIL;
    }
    fprintf(stderr, "# wrote %s/%s.{h,c} and %d cubin(s)\n", o.dir ? o.dir : ".",
            o.name ? o.name : "(the kernel's name)", n);
    return CLI_OK;
}

/* `cutec export`'s own options into target; the rest into args (compile's); a message
 * and false for a bad one */
static bool split_options(int argc, char **argv, char **args, int *n)
{
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ours = !strcmp(k, "--out") || !strcmp(k, "--name");
        if (!strcmp(k, "--emit")) return fprintf(stderr, "cutec export: no --emit (it is export)\n"), false;
        if (ours && !v) return fprintf(stderr, "cutec export: %s needs a value\n", k), false;
        if (!strcmp(k, "--out")) target.dir = v, i++;
        else if (!strcmp(k, "--name")) target.name = v, i++;
        else args[(*n)++] = argv[i];
        if (!strcmp(k, "--arch") && v) snprintf(target.archs, sizeof target.archs, "%s", v);
    }
    if (!target.dir) return fprintf(stderr, "cutec export: --out DIR is needed\n"), false;
    return true;
}

int cmd_export(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) return usage();
    char **args = calloc((size_t)argc + 3, sizeof *args);
    int n = 0;
    if (!args) return CLI_FAIL;
    args[n++] = "compile";
    if (!split_options(argc, argv, args, &n)) return free(args), usage();
    /* the trace checks atoms against the first arch of a list */
    char *comma = strchr(target.archs, ',');
    for (int i = 0; comma && i + 1 < n; i++)
        if (!strcmp(args[i], "--arch")) {
            snprintf(target.first, sizeof target.first, "%.*s", (int)(comma - target.archs), target.archs);
            args[++i] = target.first;
        }
    args[n++] = "--emit", args[n++] = "export";
    int rc = cmd_compile(n, args);
    free(args);
    return rc;
}
