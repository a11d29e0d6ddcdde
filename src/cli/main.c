/* main.c — `cutec <command> ...`: one table of commands, each with its own argv.
 * Later commands (compile, run, bench, cache) are one row each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "env/env_known.h"

typedef struct command {
    const char *name;
    const char *args;
    const char *summary;
    cli_command_fn run;
} command;

static int cmd_help(int argc, char **argv);

static const command commands[] = {
    {"layout", "<op> ARGS...", "the layout algebra: evaluate, draw, check oracle files",
     cmd_layout},
    {"cache", "list|size|clear|path", "the JIT cache (docs/cache.md)", cmd_cache},
    {"compile", "KERNEL OPTIONS",
     "what cutec generates for a kernel: --emit ir|cuda|ptx|sass|time (no GPU)", cmd_compile},
    {"export", "KERNEL OPTIONS", "cubins + a C launcher needing only the CUDA driver (gemm, gemv, elementwise)",
     cmd_export},
    {"run", "KERNEL OPTIONS", "run a kernel, verify it, time it (KERNEL: elementwise, gemm, softmax, ...)", cmd_run},
    {"bench", "KERNEL|mma|jit|tiers", "benchmark table against a device copy / cuBLAS / PyTorch / the mma ceiling", cmd_bench},
    {"tune", "gemm|elementwise OPTIONS", "search a kernel's configurations: compile in parallel, check, time, keep the "
     "fastest (docs/tune.md)", cmd_tune},
    {"model", "tp-gemm OPTIONS", "tensor-parallel GEMM on more GPUs and hosts, from bandwidths and latencies (docs/peer.md)",
     cmd_model},
    {"show", "atom|tiled-mma|tiled-copy", "pictures: which thread and value own each element", cmd_show},
    {"help", "[COMMAND]", "this list, or a command's own help", cmd_help},
};
static const int ncommands = (int)(sizeof commands / sizeof commands[0]);

static const command *find_command(const char *name)
{
    for (int i = 0; i < ncommands; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static void print_usage(FILE *f)
{
    fputs("usage: cutec <command> ARGS...\n\ncommands:\n", f);
    for (int i = 0; i < ncommands; i++)
        fprintf(f, "  %-8s %-26s %s\n", commands[i].name, commands[i].args, commands[i].summary);
    fputs("\n`cutec <command> help` explains a command.\n", f);
}

/* `cutec help layout` is `cutec layout help` */
static int cmd_help(int argc, char **argv)
{
    if (argc < 2) return print_usage(stdout), CLI_OK;
    const command *cmd = find_command(argv[1]);
    if (!cmd || cmd->run == cmd_help) {
        fprintf(stderr, "cutec help: unknown command \"%s\"\n", argv[1]);
        return CLI_USAGE;
    }
    char *sub[] = {(char *)cmd->name, "help", NULL};
    return cmd->run(2, sub);
}

/* `--codegen ptx` anywhere (any command that compiles) is CUTEC_CODEGEN=ptx: the PTX
 * backend's code generator (docs/ptx_backend.md); it leaves argv */
static int take_codegen(int argc, char **argv)
{
    int k = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--codegen") && i + 1 < argc) {
            setenv("CUTEC_CODEGEN", argv[++i], 1);
            continue;
        }
        argv[k++] = argv[i];
    }
    argv[k] = NULL;
    return k;
}

/* Commands that time kernels time the final tier: they compile NVRTC's module directly
 * (CUTEC_TIER=0) unless the environment says otherwise (docs/compile_time.md, "Tiers") */
static void final_tier_for_timing(const char *command)
{
    static const char *timing[] = {"bench", "run", "tune"};
    for (size_t i = 0; i < sizeof timing / sizeof *timing; i++)
        if (!strcmp(command, timing[i])) setenv("CUTEC_TIER", "0", 0);
}

/* the commands that compile kernels, for CUTEC_ARCH's target as for --arch's */
static bool compiles(const char *command)
{
    static const char *compiling[] = {"compile", "export", "run", "bench", "tune"};
    for (size_t i = 0; i < sizeof compiling / sizeof *compiling; i++)
        if (!strcmp(command, compiling[i])) return true;
    return false;
}

int main(int argc, char **argv)
{
    char why[640];
    cute_env_warn_unknown();
    argc = take_codegen(argc, argv);
    if (argc < 2) return print_usage(stderr), CLI_USAGE;
    const char *name = argv[1];
    final_tier_for_timing(name);
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) return cmd_help(1, argv + 1);
    const command *cmd = find_command(name);
    if (!cmd) {
        fprintf(stderr, "cutec: unknown command \"%s\"\n\n", name);
        print_usage(stderr);
        return CLI_USAGE;
    }
    if (compiles(name) && !cli_env_arch(why, sizeof why)) return fprintf(stderr, "cutec %s: %s\n", name, why), CLI_USAGE;
    return cmd->run(argc - 1, argv + 1);
}
