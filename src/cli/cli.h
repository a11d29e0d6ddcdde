/* cli.h — the `cutec` command: exit codes and the commands main() dispatches to. */
#ifndef CUTEC_CLI_H
#define CUTEC_CLI_H

enum {
    CLI_OK = 0,    /* the command did what was asked */
    CLI_FAIL = 1,  /* it ran, and the answer is an error (bad layout, failed check, I/O) */
    CLI_USAGE = 2, /* the command line itself is wrong */
};

/* A command gets its own argv: argv[0] is the command's name. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cmd_layout(int argc, char **argv); /* layout_cmd.c */
int cmd_cache(int argc, char **argv);  /* cache_cmd.c */
int cmd_compile(int argc, char **argv); /* ew_cmd.c: cutec compile elementwise ... */
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_jit(void); /* jit_bench.c: compile and call costs */
int cmd_bench_tiers(int argc, char **argv); /* tier_bench.c: tiered cold compiles, the final tier's speed */
int cmd_show(int argc, char **argv); /* show_cmd.c: cutec show tiled-mma|tiled-copy ... */
int cmd_show_atom(int argc, char **argv); /* show_atom.c: cutec show atom NAME|list */
int cmd_run_gemm(int argc, char **argv);   /* gemm_cmd.c: cutec run gemm ... */
int cmd_bench_gemm(int argc, char **argv); /* gemm_cmd.c: cutec bench gemm ... */
int cmd_bench_mma(int argc, char **argv);  /* mma_bench.c: cutec bench mma ... */
/* rows_cmd.c: cutec compile|run|bench softmax|log-softmax|rmsnorm|layernorm|cross-entropy */
#include <stdbool.h>
bool cli_rows_op(const char *name);
int cmd_compile_rows(int argc, char **argv);
int cmd_run_rows(int argc, char **argv);
int cmd_bench_rows(int argc, char **argv);
int cmd_gemv(int argc, char **argv); /* gemv_cmd.c: cutec compile|run|bench gemv ... */
int cmd_attention(int argc, char **argv); /* attention_cmd.c: cutec compile|run|bench attention */
int cmd_hstu(int argc, char **argv);      /* hstu_cmd.c: cutec compile|run|bench hstu */
/* comm_bench.c: cutec bench all-reduce|reduce-scatter|all-gather (NCCL over this host's GPUs) */
bool cli_comm_op(const char *name);
int cmd_bench_comm(int argc, char **argv);
/* tp_bench.c, tp_model.c: cutec bench tp-gemm, cutec model tp-gemm (tensor-parallel GEMM) */
int cmd_bench_tp(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_tune(int argc, char **argv); /* tune_cmd.c: cutec tune gemm|elementwise */

/* cli_opts.c: whether an argument asks for help (help, --help, -h) */
bool cli_is_help(const char *s);
/* cli_int.c: the one integer parser of the CLI.  A whole decimal in [lo, hi] into *out, or
 * false and why (naming the text) in why[n]: nothing is wrapped, clamped or half-read. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
bool cli_int(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why, size_t n);
/* "AxBxC": 1 to max extents, each in [0, hi], whose product is at most hi too */
bool cli_dims(const char *s, int max, int64_t hi, int64_t *dims, int *ndims, char *why, size_t n);
/* Commands that run, compile or touch the cache return after checking their arguments
 * (CLI_OK, or CLI_USAGE with the message) when this is set: the CLI's fuzz target. */
void cli_parse_only_set(bool on);
bool cli_parse_only(void);

/* interp_cap.c: true on a GPU, or where the interpreter would take at most a few minutes for
 * work units of a kernel of this kind; else false and the message on stderr (prefixed
 * "cutec CMD: "), naming the time and the way out */
typedef struct cute_runtime cute_runtime;
/* what a kind of kernel gets through on the interpreter (interp_cap.c's table: a rate a second
 * and the unit of work) */
typedef enum cli_interp_kind {
    CLI_INTERP_ATTENTION, /* multiply-adds of the attention kernels (fwd, bwd, HSTU) */
    CLI_INTERP_DECODE,    /* multiply-adds of attention's decode path */
    CLI_INTERP_GEMM,      /* multiply-adds of the GEMM kernels (plain, grouped, block-scaled) */
    CLI_INTERP_GEMV,      /* multiply-adds of the GEMV kernels */
    CLI_INTERP_ROWS,      /* elements of the row kernels */
    CLI_INTERP_ELEMENTWISE, /* elements of the elementwise kernels */
} cli_interp_kind;
bool cli_interp_fits(const char *cmd, const cute_runtime *rt, double work, cli_interp_kind kind);

/* CPU time of the process and wall time, in ms (compile_timing.c) */
typedef struct cli_clock {
    double cpu_ms, wall_ms;
} cli_clock;
cli_clock cli_clock_now(void);
cli_clock cli_clock_since(cli_clock t0);

/* emit.c: print a compiled function's first kernel as ir | cuda | ptx | sass (no GPU), or
 * `time`: where its cold compile goes, phase by phase; trace: the time its compile took */
struct cute_fn;
int cli_emit_kernel(const struct cute_fn *f, const char *emit, const char *arch, cli_clock trace);
/* the same for a library kernel: compile(rt, cfg) on the interpreter's runtime targeting
 * arch (no GPU), then cli_emit_kernel; `kernel` names it in messages */
struct cute_runtime;
typedef const struct cute_fn *(*cli_compile_fn)(struct cute_runtime *rt, const void *cfg, char *err,
                                                size_t n);
/* cli_opts.c: the options of every kernel command; cli_kernel_option takes option k with
 * value v when it is one of them (*ok: whether v is good, why in why[n]) */
typedef struct cli_kernel_opts {
    int iters;
    const char *emit, *arch, *backend;
} cli_kernel_opts;
bool cli_kernel_option(cli_kernel_opts *o, const char *k, const char *v, bool *ok, char *why, size_t n);
/* --arch's value: a target's name (cute_cuda_arch_sm: sm_XX from sm_70, sm_XXa from sm_90a,
 * sm_XXf from sm_100f), not a portable one from sm_90 on (sm_90: wgmma's kernels do not
 * compile for it); else false, why in why[n] naming the names to use */
bool cli_arch(const char *v, char *why, size_t n);
/* CUTEC_ARCH's value by the same rule (unset or empty: true); why is "CUTEC_ARCH=v: ..."
 * (main refuses it for the commands that compile) */
bool cli_env_arch(char *why, size_t n);
int cli_emit_compiled(const char *kernel, cli_compile_fn compile, const void *cfg, const char *emit,
                      const char *arch);
/* compile_timing.c: the phases of f's cold compile for arch (an sm_XX) after tracing */
int cli_compile_timing(const struct cute_fn *f, const char *arch, cli_clock trace, cli_clock verify);
/* --emit's value: itself when it names a form (ir, cuda, ptx, sass, usage, time, export),
 * "cuda" when not given, NULL when unknown */
const char *cli_emit_form(const char *emit);
/* export_cmd.c: `cutec export`, and the kernel written where it asked (--emit export) */
int cmd_export(int argc, char **argv);
int cli_export_kernel(const struct cute_fn *f);
int cmd_compile_gemm(int argc, char **argv); /* gemm_compile_cmd.c: cutec compile gemm ... */
/* gemm_cmd.c: BLAS's layout letters ("tn", "ntt") as the unit-stride mode of A, B, C */
#include <stdbool.h>
bool cli_gemm_layout_majors(const char *letters, int major[3]);

#endif
