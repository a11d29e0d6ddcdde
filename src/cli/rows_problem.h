/* One row-reduction problem for `cutec run|bench|compile softmax|rmsnorm|layernorm|
 * cross-entropy|sum|mean|amax|amin|prod`: its buffers (gaussian inputs, poisoned outputs), the call, the check of
 * sampled rows against the float64 reference, and the bytes the op must move. */
#ifndef CUTEC_CLI_ROWS_PROBLEM_H
#define CUTEC_CLI_ROWS_PROBLEM_H

#include "cutec/row_kernels.h"

typedef enum {
    RP_SOFTMAX, RP_LOG_SOFTMAX, RP_RMSNORM, RP_LAYERNORM, RP_XENT,
    RP_SUM, RP_MEAN, RP_AMAX, RP_AMIN, RP_PROD, /* cutec_reduce_rows, in cutec_reduce_op's order */
    RP_COUNT
} rp_op;
/* the plain reductions */
static inline bool rp_op_reduce(rp_op op) { return op >= RP_SUM && op <= RP_PROD; }

typedef struct rp_buf {
    cute_buffer b;
    cute_call_arg arg;
    void *host; /* the inputs' values; outputs: read back by rp_check */
    size_t bytes;
} rp_buf;

typedef struct rows_problem {
    rp_op op;
    bool backward;
    bool columns; /* a plain reduction over the first dimension (out (N)): cutec_reduce_cols */
    cute_dtype d;
    int64_t m, n;
    cute_backend *be;
    cutec_rows *lib;
    /* x: the input (logits); x2: dy; y: the output (dx, dlogits); w, b: weight, bias;
     * mean, rstd, loss, lse, out (a reduction's): per row; labels: i64; dw, db: (N) */
#define RP_BUFS 14
    rp_buf x, x2, y, w, b, mean, rstd, loss, lse, out, labels, dw, db;
    rp_buf fy; /* softmax's forward output, which its backward takes */
    char err[2048];
} rows_problem;

/* an empty problem (no buffers yet) */
void rp_init(rows_problem *p, rp_op op, bool backward, cute_dtype d, int64_t m, int64_t n, cute_backend *be,
             cutec_rows *lib);
const char *rp_op_name(rp_op op);
bool rp_op_parse(const char *s, rp_op *op);
/* allocate and fill; backward problems run the forward once for what the backward takes.
 * fake: buffers that are never touched (cutec compile traces with them) */
bool rp_setup(rows_problem *p, bool fake);
/* the op (its backward when p->backward; cross-entropy's backward is fused with it) */
cute_status rp_call(rows_problem *p);
/* wrong values on up to 4 sampled rows (and dw, db over every row when all_rows) */
int64_t rp_check(rows_problem *p, bool all_rows, char *first, size_t n);
/* the bytes the op must read and write */
double rp_bytes(const rows_problem *p);
void rp_free(rows_problem *p);

#endif
