/* layout_cmd.c — `cutec layout`: run one op of the table, print its result; `help` lists
 * the ops; `check` runs oracle files (oracle_check.c). */
#include "cutec/notation.h"
#include "cutec/symbolic.h"
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "layout_ops.h"
#include "oracle_check.h"

static void print_op_usage(FILE *f, const layout_op *op)
{
    fprintf(f, "usage: cutec layout %s %s\n  %s\n", op->name, op->usage, op->summary);
}

static void print_ops(FILE *f)
{
    fputs("usage: cutec layout <op> ARGS...\n"
          "Layouts, shapes, coordinates and tilers are in CuTe notation, e.g. (4,8):(1,4);\n"
          "a plain shape (4,8) stands for its compact layout.  Quote them in the shell.\n\n",
          f);
    for (int i = 0; i < layout_nops; i++) {
        const layout_op *op = &layout_ops[i];
        fprintf(f, "  %-22s %-36s %s\n", op->name, op->usage, op->summary);
    }
    fprintf(f, "  %-22s %-36s %s\n", "check", "FILE.jsonl...",
            "run oracle test vectors, print failures");
    fprintf(f, "  %-22s %-36s %s\n", "help", "[OP]", "this list, or one op's usage");
}

static void print_result(const op_out *out)
{
    fputs(sb_str(&out->text), stdout);
    if (out->has_offset) {
        char buf[64];
        cute_tuple_str(&out->offset, buf, sizeof buf);
        printf(" offset %s", buf);
    }
    putchar('\n');
}

/* run op on args with a fresh context; errors go to stderr as "cutec layout: why" (the
 * library's messages start with the op's name).  '?' leaves become symbols of a symbolic
 * backend, so the algebra on dynamic layouts can be tried from the shell. */
static int run_op(const layout_op *op, int argc, char **argv)
{
    cute_symbolic *sym = cute_symbolic_new();
    if (!sym) {
        fprintf(stderr, "cutec layout: out of memory\n");
        return CLI_FAIL;
    }
    cute_alg c;
    cute_symbolic_bind(sym, &c);
    op_out out;
    op_out_init(&out);
    bool ok = op->run(op, &c, argc, argv, &out) && !c.failed;
    if (ok)
        print_result(&out);
    else
        fprintf(stderr, "cutec layout: %s\n", c.error[0] ? c.error : "failed");
    op_out_free(&out);
    cute_symbolic_free(sym);
    return ok ? CLI_OK : CLI_FAIL;
}

static int help(int argc, char **argv)
{
    if (argc == 0) return print_ops(stdout), CLI_OK;
    const layout_op *op = layout_op_find(argv[0]);
    if (!op) {
        fprintf(stderr, "cutec layout help: unknown op \"%s\"\n", argv[0]);
        return CLI_USAGE;
    }
    print_op_usage(stdout, op);
    return CLI_OK;
}

int cmd_layout(int argc, char **argv)
{
    if (argc < 2) return print_ops(stderr), CLI_USAGE;
    const char *name = argv[1];
    int n = argc - 2;
    char **args = argv + 2;
    if (cli_is_help(name)) return help(n, args);
    if (strcmp(name, "check") == 0) return oracle_check_main(n, args);
    const layout_op *op = layout_op_find(name);
    if (!op) {
        fprintf(stderr, "cutec layout: unknown op \"%s\" (cutec layout help lists them)\n", name);
        return CLI_USAGE;
    }
    if (n == 1 && cli_is_help(args[0])) return print_op_usage(stdout, op), CLI_OK;
    if (n < op->min_args || (op->max_args >= 0 && n > op->max_args)) {
        print_op_usage(stderr, op);
        return CLI_USAGE;
    }
    return run_op(op, n, args);
}
