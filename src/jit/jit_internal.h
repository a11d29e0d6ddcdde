/* Internal: a compile in progress and its result. */
#ifndef CUTEC_JIT_INTERNAL_H
#define CUTEC_JIT_INTERNAL_H

#include "cutec/jit.h"
#include "cutec/symbolic.h"
#include "trace/ctx_internal.h"

/* Where a host symbol's value comes from at a call. */
typedef enum { SRC_SHAPE, SRC_STRIDE, SRC_INT } src_kind;
typedef struct host_sym {
    int sym;      /* the symbol's index in the context's symbolic backend */
    int arg;      /* the argument */
    int leaf;     /* SRC_SHAPE/SRC_STRIDE: which flat leaf */
    uint8_t kind; /* src_kind */
    int64_t div, lb;
} host_sym;

/* One leaf of a tensor spec: static (checked at a call) or a host symbol. */
typedef struct spec_leaf {
    bool dynamic;
    int64_t value; /* static */
    int hsym;      /* dynamic: index into host_syms; -1 for a derived stride */
    cute_int expr; /* a derived stride (compact specs): it must equal this expression */
} spec_leaf;

typedef struct arg_info {
    cute_arg_spec spec;
    int nleaves;
    spec_leaf shape[8], stride[8];
    cute_layout layout; /* the spec's layout, dynamic leaves as host symbols */
} arg_info;

/* A kernel parameter: a host symbol's value, an argument's pointer, or a float argument. */
typedef enum { P_SYM, P_PTR, P_FLOAT } param_kind;
typedef struct kparam {
    uint8_t kind;
    int index; /* P_SYM: host symbol's symbol index; P_PTR/P_FLOAT: the argument */
    cute_type type;
} kparam;

/* host symbol -> the kernel symbol standing for it in one launch */
typedef struct kmap_entry {
    int sym;
    cute_int k;
} kmap_entry;
#define MAX_KERNEL_SYMS 256

typedef struct launch_rec {
    int kernel;
    cute_int grid[3], block[3], smem; /* host expressions */
    kparam *params;
    int nparams, capparams;
    kmap_entry *map; /* MAX_KERNEL_SYMS entries while the kernel is traced */
    int nmap;
    const char *file;
    int line;
    /* the last call's evaluated launch (cute_fn_relaunch replays it) */
    cute_launch last_cfg;
    cute_launch_arg last_args[64];
    bool last_valid;
} launch_rec;

struct cute_fn {
    cute_runtime *rt;
    cute_ctx *c;
    cute_module *module;
    cute_ir_func **kernels;
    int nkernels;
    launch_rec *launches;
    int nlaunches;
    arg_info *args;
    int nargs;
    host_sym *hsyms;
    int nhsyms;
    int64_t *values; /* per symbol index, filled at each call */
    int nvalues;
    launch_rec *cur; /* the launch being traced */
    char err[1024];
};

/* call_extent.c: does a non-empty tensor argument of esize-byte elements lie inside its
 * buffer?  (overflow-checked: a size whose arithmetic overflows does not) */
bool cute__arg_inside_buffer(const cute_call_arg *x, int esize);

/* code.c: CUTEC_KEEP's files for a backend that does not compile CUDA itself */
void cute__fn_keep(const cute_fn *f);

struct cute_runtime {
    cute_backend b;
    char name[16];
};

#endif
