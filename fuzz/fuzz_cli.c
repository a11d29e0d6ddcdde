/* A libFuzzer target for the CLI's argument parsing.
 *
 * The input is a command line, one argument per line (split at '\n' or NUL, at most 24):
 *   layout|show|run|bench|compile|cache|tune ARGS...   a command and its arguments
 *   int TEXT | dims TEXT                           cli_int / cli_dims alone
 * Commands that run, compile or touch the cache stop after checking their arguments
 * (cli_parse_only), so every input is fast and harmless; arguments that name files to
 * write or read (--svg, --latex, layout check) are dropped.  Beyond "no crash, no UB, no
 * leak": an exit code is CLI_OK, CLI_FAIL or CLI_USAGE, and cli_int either refuses with a
 * reason or gives a value in range that prints back as the text. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 2048
#define MAX_ARGS 24

/* file-writing or file-reading arguments: never passed on */
static bool dropped(const char *a)
{
    return strstr(a, "svg") || strstr(a, "latex") || !strcmp(a, "check");
}

static void check_int(const char *text)
{
    char why[160] = "", back[32];
    int64_t v = 0;
    if (!cli_int(text, -1000, INT64_MAX, &v, why, sizeof why)) {
        if (!why[0]) abort(); /* a refusal always says why */
        return;
    }
    snprintf(back, sizeof back, "%" PRId64, v);
    if (v < -1000 || (strcmp(back, text) && text[0] != '0' && strncmp(text, "-0", 2))) abort();
}

static void check_dims(const char *text)
{
    char why[160] = "";
    int64_t dims[4], product = 1;
    int n = 0;
    if (!cli_dims(text, 4, (int64_t)1 << 40, dims, &n, why, sizeof why)) {
        if (!why[0]) abort();
        return;
    }
    for (int i = 0; i < n; i++) product *= dims[i]; /* within 2^40 each step: no overflow */
    if (n < 1 || n > 4 || product > (int64_t)1 << 40) abort();
}

static int run(int argc, char **argv)
{
    static const struct { const char *name; cli_command_fn fn; } cmds[] = {
        {"layout", cmd_layout}, {"show", cmd_show},       {"run", cmd_run},
        {"bench", cmd_bench},   {"compile", cmd_compile}, {"cache", cmd_cache}, {"tune", cmd_tune}};
    if (argc >= 2 && !strcmp(argv[0], "int")) return check_int(argv[1]), 0;
    if (argc >= 2 && !strcmp(argv[0], "dims")) return check_dims(argv[1]), 0;
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        if (!strcmp(argv[0], cmds[i].name)) {
            int rc = cmds[i].fn(argc, argv);
            if (rc != CLI_OK && rc != CLI_FAIL && rc != CLI_USAGE) abort();
        }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[MAX_INPUT + 1];
    if (size > MAX_INPUT) return 0;
    static bool quiet;
    if (!quiet) { /* the commands' own output is not what is checked */
        quiet = freopen("/dev/null", "w", stdout) != NULL;
        cli_parse_only_set(true);
    }
    memcpy(buf, data, size);
    buf[size] = 0;
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (char *p = buf, *end = buf + size; p <= end && argc < MAX_ARGS;) {
        size_t len = strcspn(p, "\n");
        p[len] = 0;
        if (!dropped(p)) argv[argc++] = p;
        p += len + 1;
    }
    argv[argc] = NULL;
    if (argc) run(argc, argv);
    return 0;
}
