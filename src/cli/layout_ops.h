/* layout_ops.h — the ops of `cutec layout`, as one table.
 *
 * Every op reads its arguments as text (CuTe notation or decimal ints) and writes its
 * answer into an op_out: the CLI prints it, the oracle checker compares it.  Errors go
 * through the algebra context (c->failed, c->error), parse errors included, so a handler
 * never prints and never exits.
 *
 * Most ops are one algebra call with a common signature; those use a generic runner
 * (op_run_*) and name the library function in the table.  The rest have a handler.
 */
#ifndef CUTEC_CLI_LAYOUT_OPS_H
#define CUTEC_CLI_LAYOUT_OPS_H

#include "cutec/layout.h"
#include "strbuf.h"

/* big enough for any layout of CUTE_MAX_LEAVES leaves */
#define LAYOUT_TEXT_MAX 4096

typedef struct op_out {
    strbuf text;     /* the result: a layout, tuple or int in notation; values space-separated */
    bool has_offset; /* slice, local_tile, local_partition: the offset, printed after */
    cute_tuple offset; /* an int, or a coordinate for identity layouts */
} op_out;

struct layout_op;
typedef bool (*layout_op_fn)(const struct layout_op *op, cute_alg *c, int argc, char **argv,
                             op_out *out);

typedef struct layout_op {
    const char *name;
    int min_args, max_args; /* max_args -1: no limit */
    const char *usage;      /* the arguments, e.g. "A TILER" */
    const char *summary;
    layout_op_fn run;
    union { /* the library function of a generic runner */
        cute_layout (*l)(cute_alg *, const cute_layout *);
        cute_layout (*ll)(cute_alg *, const cute_layout *, const cute_layout *);
        cute_layout (*lt)(cute_alg *, const cute_layout *, const cute_tiler *);
        cute_layout (*ln)(cute_alg *, const cute_layout *, int64_t);
        cute_layout (*s)(cute_alg *, cute_tuple);
        cute_int (*l_int)(cute_alg *, const cute_layout *);
        cute_int (*ll_int)(cute_alg *, const cute_layout *, const cute_layout *);
        int (*l_count)(const cute_layout *);
    } fn;
} layout_op;

extern const layout_op layout_ops[];
extern const int layout_nops;
const layout_op *layout_op_find(const char *name);

void op_out_init(op_out *o);
void op_out_free(op_out *o);

/* --- argument parsing (ops_args.c): errors land in c ------------------------------- */
/* a layout, or a plain shape meaning make_layout(shape) */
cute_layout arg_layout(cute_alg *c, const char *text);
cute_tuple arg_tuple(cute_alg *c, const char *text);
cute_tiler arg_tiler(cute_alg *c, const char *text);
/* a decimal int64; `what` names it in the error */
int64_t arg_int(cute_alg *c, const char *text, const char *what);

/* --- results (ops_args.c): false when c failed ------------------------------------- */
bool out_layout(cute_alg *c, op_out *o, const cute_layout *L);
bool out_tuple(cute_alg *c, op_out *o, const cute_tuple *t);
bool out_int(cute_alg *c, op_out *o, cute_int x);
/* the values L(0..size-1), space-separated (coordinates for basis-stride layouts) */
bool out_values(cute_alg *c, op_out *o, const cute_layout *L);

/* --- generic runners (ops_generic.c) ----------------------------------------------- */
bool op_run_l(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_ll(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_lt(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_ln(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_s(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_l_int(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_ll_int(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);
bool op_run_l_count(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out);

/* --- handlers: one per op that is not a single call of a common signature ----------- */
#define LAYOUT_HANDLER(name)                                                                       \
    bool name(const layout_op *op, cute_alg *c, int argc, char **argv, op_out *out)
LAYOUT_HANDLER(op_show); /* ops_show.c */
LAYOUT_HANDLER(op_show_tv);
LAYOUT_HANDLER(op_eval); /* ops_query.c */
LAYOUT_HANDLER(op_crd2idx);
LAYOUT_HANDLER(op_idx2crd);
LAYOUT_HANDLER(op_coord_of);
LAYOUT_HANDLER(op_coalesce); /* ops_algebra.c */
LAYOUT_HANDLER(op_filter);
LAYOUT_HANDLER(op_complement);
LAYOUT_HANDLER(op_tile_to_shape);
LAYOUT_HANDLER(op_recast);
LAYOUT_HANDLER(op_slice); /* ops_slice.c */
LAYOUT_HANDLER(op_dice);
LAYOUT_HANDLER(op_local_tile);
LAYOUT_HANDLER(op_local_partition);
LAYOUT_HANDLER(op_make_layout_tv);
LAYOUT_HANDLER(op_make_ordered_layout); /* ops_modes.c */
LAYOUT_HANDLER(op_get);
LAYOUT_HANDLER(op_select);
LAYOUT_HANDLER(op_group_modes);
LAYOUT_HANDLER(op_swizzle); /* ops_swizzle.c */
LAYOUT_HANDLER(op_swizzle_layout);

#endif
