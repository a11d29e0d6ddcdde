/* A torch script's figures for a bench's reference column: `python3 bench/<script> ARGS`,
 * one process for all the bench's shapes (cli_torch.c; gemm_bench.c, gemm_grouped.c,
 * rows_cmd.c, attention_cmd.c, attention_decode_cmd.c, hstu_cmd.c). */
#ifndef CUTEC_CLI_TORCH_H
#define CUTEC_CLI_TORCH_H

typedef struct cli_torch {
    char **line; /* the figure lines, in order, without their newlines */
    int n;
} cli_torch;

/* Runs `python3 SCRIPT ARGS 2>&1` from the current folder, SCRIPT $env's file where env names
 * a variable that is set (env may be NULL), else `script`, and returns the lines it printed
 * that start with `prefix` (its figures, "torch "); the caller reads them.  Its '#' lines (the
 * version, a figure not taken and why) are printed as they come.  Where it printed no figure
 * and no '#' line saying "skipped", one line says so, the same for every bench:
 * "# WHAT: skipped: no figure from SCRIPT (exit N; python3 or torch missing, or run from
 * elsewhere than the repository root)" (exit 0, a script that prints nothing such as the
 * scripts' /dev/null: "(exit 0)" alone).  Free with cli_torch_free. */
cli_torch cli_torch_lines(const char *what, const char *env, const char *script, const char *prefix, const char *args);
void cli_torch_free(cli_torch *t);

#endif
