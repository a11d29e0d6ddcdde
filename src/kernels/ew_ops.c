/* The library's elementwise ops as TensorSSA expressions, and a per-runtime table of the
 * functions compiled for them. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/kernels.h"
#include "kernels/fn_cache.h"

static const char *const names[CUTE_EW_COUNT] = {"add", "sub",  "mul",  "div", "max",
                                                 "min", "relu", "gelu", "silu", "exp",
                                                 "neg", "abs",  "cast"};

const char *cute_ew_op_name(cute_ew_op op) { return (unsigned)op < CUTE_EW_COUNT ? names[op] : "?"; }

bool cute_ew_op_parse(const char *name, cute_ew_op *out)
{
    for (int i = 0; i < CUTE_EW_COUNT; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (cute_ew_op)i;
            return true;
        }
    return false;
}

int cute_ew_op_arity(cute_ew_op op) { return op <= CUTE_EW_MIN ? 2 : 1; }

/* f16/bf16 are computed in f32 and rounded once at the store */
static cute_ssa widen(cute_ctx *c, cute_ssa x)
{
    if (x.dtype == CUTE_F16 || x.dtype == CUTE_BF16) return cute_ssa_cvt(c, x, CUTE_F32);
    return x;
}

static cute_ssa k(cute_ctx *c, const cute_ssa *like, double v)
{
    return cute_ssa_fill(c, (cute_dtype)like->dtype, like->shape, v);
}

cute_ssa cute_ew_op_expr(cute_ctx *c, const cute_ssa *in, int nin, void *user)
{
    cute_ew_op op = (cute_ew_op)(intptr_t)user;
    (void)nin;
    static const cute_op binops[] = {CUTE_OP_ADD, CUTE_OP_SUB, CUTE_OP_MUL,
                                     CUTE_OP_DIV, CUTE_OP_MAX, CUTE_OP_MIN};
    cute_ssa x = op == CUTE_EW_CAST ? in[0] : widen(c, in[0]);
    switch (op) {
    case CUTE_EW_ADD:
    case CUTE_EW_SUB:
    case CUTE_EW_MUL:
    case CUTE_EW_DIV:
    case CUTE_EW_MAX:
    case CUTE_EW_MIN: return cute_ssa_binop(c, binops[op], x, widen(c, in[1]));
    case CUTE_EW_RELU: return cute_ssa_binop(c, CUTE_OP_MAX, x, k(c, &x, 0.0));
    case CUTE_EW_GELU: { /* 0.5 x (1 + erf(x / sqrt 2)) */
        cute_ssa e = cute_ssa_unop(c, CUTE_OP_ERF, cute_ssa_binop(c, CUTE_OP_MUL, x, k(c, &x, 0.70710678118654752440)));
        cute_ssa h = cute_ssa_binop(c, CUTE_OP_MUL, x, k(c, &x, 0.5));
        return cute_ssa_binop(c, CUTE_OP_MUL, h, cute_ssa_binop(c, CUTE_OP_ADD, e, k(c, &x, 1.0)));
    }
    case CUTE_EW_SILU: { /* x / (1 + exp(-x)) */
        cute_ssa e = cute_ssa_unop(c, CUTE_OP_EXP, cute_ssa_unop(c, CUTE_OP_NEG, x));
        return cute_ssa_binop(c, CUTE_OP_DIV, x, cute_ssa_binop(c, CUTE_OP_ADD, e, k(c, &x, 1.0)));
    }
    case CUTE_EW_EXP: return cute_ssa_unop(c, CUTE_OP_EXP, x);
    case CUTE_EW_NEG: return cute_ssa_unop(c, CUTE_OP_NEG, x);
    case CUTE_EW_ABS: return cute_ssa_unop(c, CUTE_OP_ABS, x);
    case CUTE_EW_CAST:
    case CUTE_EW_COUNT: break;
    }
    return x; /* cast: the store converts */
}

/* --- the table ------------------------------------------------------------------------- */

/* Shared by threads: the lock guards the table; a compiled function is called unlocked. */
struct cute_ew_lib {
    cute_runtime *rt;
    pthread_mutex_t lock;
    fn_cache fns; /* key_of's strings */
};

cute_ew_lib *cute_ew_lib_new(cute_runtime *rt)
{
    cute_ew_lib *lib = calloc(1, sizeof *lib);
    if (!lib) return NULL;
    lib->rt = rt;
    fn_cache_init(&lib->fns, 0, NULL);
    pthread_mutex_init(&lib->lock, NULL);
    return lib;
}

void cute_ew_lib_free(cute_ew_lib *lib)
{
    if (!lib) return;
    fn_cache_free(&lib->fns);
    pthread_mutex_destroy(&lib->lock);
    free(lib);
}

/* what decides the compiled code: op, dtypes, rank, which arguments are compact, which
 * strides are 1, how aligned each data pointer is, and whether the output overlaps an input
 * (an in-place call: no __restrict__) */
static void key_of(char *key, size_t n, cute_ew_op op, int nin, const cute_call_arg *args)
{
    bool in_place = false;
    for (int i = 0; i < nin; i++) in_place |= cute_call_args_overlap(&args[nin], &args[i]);
    int len = snprintf(key, n, "%s%s", names[op], in_place ? "|in-place" : "");
    for (int i = 0; i <= nin; i++) {
        const cute_call_arg *x = &args[i];
        int align = cute_call_arg_alignment(x, 16);
        len += snprintf(key + len, n - (size_t)len, "|%s%d%c%d", cute_dtype_name((cute_dtype)x->dtype),
                        x->ndim, cute_call_arg_row_major(x) ? 'c' : 's', align);
        for (int d = 0; d < x->ndim && !cute_call_arg_row_major(x); d++)
            len += snprintf(key + len, n - (size_t)len, "%c", x->stride[d] == 1 ? '1' : '?');
    }
}

/* what compiling an op's key needs: the op and the call's arguments (inputs, then out) */
typedef struct ew_request {
    cute_ew_op op;
    int nin;
    const cute_call_arg *args;
} ew_request;

/* fn_cache_compile: the op of an ew_request */
static const cute_fn *compile_op(cute_runtime *rt, const void *key, const void *request,
                                 char *err, size_t n)
{
    const ew_request *r = request;
    (void)key;
    char name[32];
    snprintf(name, sizeof name, "ew_%s", names[r->op]);
    return cute_ew_compile(rt, name, cute_ew_op_expr, (void *)(intptr_t)r->op, r->nin, r->args,
                           &r->args[r->nin], NULL, err, n);
}

cute_status cute_ew(cute_ew_lib *lib, cute_ew_op op, const cute_call_arg *out,
                    const cute_call_arg *a, const cute_call_arg *b, void *stream, char *err,
                    size_t n)
{
    char scratch[512];
    if (!err) err = scratch, n = sizeof scratch;
    if ((unsigned)op >= CUTE_EW_COUNT) {
        snprintf(err, n, "elementwise: unknown op %d", op);
        return CUTE_ERR_INVALID;
    }
    if (!lib || !a || !out) {
        snprintf(err, n, "elementwise %s: %s is NULL", names[op], !lib ? "the library" : !a ? "a" : "out");
        return CUTE_ERR_INVALID;
    }
    int nin = cute_ew_op_arity(op);
    cute_call_arg args[3] = {*a, nin > 1 && b ? *b : *a, *out};
    if (nin > 1 && !b) {
        snprintf(err, n, "elementwise %s: needs two inputs", names[op]);
        return CUTE_ERR_INVALID;
    }
    args[nin] = *out;
    for (int i = 0; i <= nin; i++) {
        if (args[i].kind != CUTE_ARG_TENSOR || !args[i].buf || args[i].ndim < 1 || args[i].ndim > 4) {
            snprintf(err, n, "elementwise %s: argument %d must be a tensor of rank 1 to 4",
                     names[op], i);
            return CUTE_ERR_INVALID;
        }
        if (args[i].ndim != out->ndim || memcmp(args[i].shape, out->shape, sizeof(int64_t) * (size_t)out->ndim)) {
            snprintf(err, n, "elementwise %s: argument %d's shape differs from the output's",
                     names[op], i);
            return CUTE_ERR_INVALID;
        }
        if (op != CUTE_EW_CAST && args[i].dtype != out->dtype) {
            snprintf(err, n, "elementwise %s: argument %d is %s, the output %s (use cast)",
                     names[op], i, cute_dtype_name((cute_dtype)args[i].dtype),
                     cute_dtype_name((cute_dtype)out->dtype));
            return CUTE_ERR_INVALID;
        }
    }
    char key[128];
    key_of(key, sizeof key, op, nin, args);
    pthread_mutex_lock(&lib->lock);
    ew_request r = {op, nin, args};
    const cute_fn *fn = fn_cache_fn(&lib->fns, lib->rt, key, compile_op, &r, "elementwise", err, n);
    pthread_mutex_unlock(&lib->lock);
    if (!fn) return CUTE_ERR_COMPILE;
    char why[1024]; /* cute_call's message names the argument by number: the op says whose */
    cute_status st = cute_ew_call(fn, stream, nin, args, &args[nin], why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "elementwise %s: %s", names[op], why);
    return st;
}
