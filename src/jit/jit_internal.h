/* Internal: a compile in progress, its result (a cute_fn, immutable once made) and the
 * frame of one call (everything a call computes, on the caller's stack).
 *
 * Like Lua's global_State / lua_State: the cute_fn is what all calls share and none writes;
 * a call_frame belongs to one call.  The tracing context lives only while cute_compile runs:
 * the launch recipes are compiled into a launch program (program.c) that needs none of it. */
#ifndef CUTEC_JIT_INTERNAL_H
#define CUTEC_JIT_INTERNAL_H

#include <pthread.h>

#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "cutec/symbolic.h"
#include "trace/ctx_internal.h"

/* Where a host value (a dynamic leaf of the specs) comes from at a call.  Its index in
 * cute_fn.hsyms is its slot in a call's values. */
typedef enum { SRC_SHAPE, SRC_STRIDE, SRC_INT } src_kind;
typedef struct host_sym {
    int sym;      /* the symbol's index in the tracing context (compile time only) */
    int arg;      /* the argument */
    int leaf;     /* SRC_SHAPE/SRC_STRIDE: which flat leaf */
    uint8_t kind; /* src_kind */
    int64_t div, lb;
} host_sym;

/* One leaf of a tensor spec: static (checked at a call), a host value, or derived. */
typedef struct spec_leaf {
    bool dynamic;
    int64_t value; /* static */
    int hsym;      /* dynamic: index into hsyms; -1 for a derived stride */
    cute_int expr; /* a derived stride (compact specs), while compiling ... */
    int step;      /* ... and the launch-program step that computes it */
} spec_leaf;

typedef struct arg_info {
    cute_arg_spec spec;
    int nleaves;
    spec_leaf shape[8], stride[8];
    bool written;       /* a tensor some kernel stores to (alias.c) */
} arg_info;

/* --- the launch program (program.c) ----------------------------------------------------
 * Every value a call needs from its arguments (grids, blocks, clusters, shared bytes,
 * derived strides) is one step of a flat straight-line program over the host values.
 * Each step's result is a register numbered like the step; a call runs the steps in order
 * into its frame.  Shared sub-expressions are computed once. */
typedef enum {
    LP_CONST, /* k */
    LP_VALUE, /* the host value in slot a */
    LP_OP,    /* op(reg a, reg b), cute_int_apply semantics */
    LP_EXACT, /* reg a / k, which must divide it (the symbolic form promised so) */
} lp_kind;
typedef struct lp_step {
    uint8_t kind, op;
    int32_t a, b;
    int64_t k;
} lp_step;

#define LP_MAX_STEPS 512 /* a call's registers live on its stack */

/* what a step's value is for, to name it when a call cannot compute it */
typedef struct lp_root {
    int end;  /* the root's steps end before this one */
    int line; /* a launch's line; 0 for an argument's */
} lp_root;

typedef struct launch_prog {
    lp_step *steps;
    int nsteps, cap;
    lp_root *roots;
    int nroots, caproots;
    char (*names)[48]; /* roots' descriptions: "the grid", "argument 0: stride 1" */
    uint32_t *memo_atom; /* while compiling: the step of each atom compiled so far */
    int *memo_step;
    int nmemo, capmemo;
} launch_prog;

/* --- kernels and their launches -------------------------------------------------------- */
/* A kernel parameter: a host value, an argument's pointer, or a float argument. */
typedef enum { P_SYM, P_PTR, P_FLOAT, P_OPAQUE } param_kind;
typedef struct kparam {
    uint8_t kind;
    int index; /* P_SYM: the host value's slot (a symbol index while tracing); P_PTR/P_FLOAT:
                  the argument; P_OPAQUE: the function's opaque parameter */
    cute_type type;
} kparam;

/* host symbol -> the kernel symbol standing for it in one launch (while tracing) */
typedef struct kmap_entry {
    int sym;
    cute_int k;
} kmap_entry;
#define MAX_KERNEL_SYMS 256
#define MAX_PARAMS 64   /* kernel parameters of one launch */
#define MAX_LAUNCHES 8  /* launches of one compiled function */
#define MAX_OPAQUE 8    /* opaque parameters of one compiled function */
#define OPAQUE_BYTES 128

/* an opaque parameter and how a call builds it */
typedef struct opaque_rec {
    cute_opaque_build build;
    void *user;
    cute_tma_map_spec tma; /* cute_host_tma_map's maps: their recipe (user points here) */
} opaque_rec;

typedef struct launch_rec {
    int kernel;
    cute_int grid[3], block[3], smem, cluster[3]; /* host expressions (compile time) ... */
    int grid_step[3], block_step[3], smem_step, cluster_step[3]; /* ... and their steps */
    bool has_cluster;
    bool pdl; /* cute_launch_cfg.pdl */
    kparam *params;
    int nparams, capparams;
    kmap_entry *map; /* MAX_KERNEL_SYMS entries while the kernel is traced */
    int nmap;
    const char *file;
    int line;
} launch_rec;

struct cute_fn {
    char name[64]; /* cute_compile's */
    cute_runtime *rt;
    cute_ctx *c; /* the tracing context: NULL once cute_compile returns */
    cute_module *module;
    cute_ir_func **kernels;
    int nkernels;
    launch_rec *launches;
    int nlaunches;
    arg_info *args;
    int nargs;
    host_sym *hsyms;
    int nhsyms;
    int64_t index_bound; /* cute_index_bound: host values lie in [-bound, bound] (0: none) */
    launch_prog prog;
    opaque_rec opaques[MAX_OPAQUE];
    int nopaques;
    launch_rec *cur; /* the launch being traced */
    bool noalias;    /* no spec may alias: the kernels' pointers are __restrict__ */
};

/* --- one call ---------------------------------------------------------------------------- */
#define MAX_VALUES 128 /* host values of one function */

struct cute_call_frame {
    /* the opaque parameters' bytes (CUtensorMap asks 64-byte alignment; CUDA 13's header
     * declares 128), built by the prepare step; launch arguments point here */
    _Alignas(128) unsigned char opaque[MAX_OPAQUE][OPAQUE_BYTES];
    const cute_fn *fn;          /* what it was prepared for */
    int64_t values[MAX_VALUES]; /* by host-value slot */
    int64_t regs[LP_MAX_STEPS]; /* the launch program's registers */
    int nlaunch;                /* launches prepared (those with work) */
    int rec[MAX_LAUNCHES];      /* which launch_rec each is */
    cute_launch cfg[MAX_LAUNCHES];
    cute_launch_arg args[MAX_LAUNCHES][MAX_PARAMS];
    char *err; /* the call's message buffer (the caller's) */
    size_t errn;
};

/* program.c */
bool lp_compile_int(launch_prog *p, cute_ctx *c, const cute_fn *f, cute_int x, int *step);
bool lp_close_root(launch_prog *p, const char *what, int line);
void lp_done_compiling(launch_prog *p);
void lp_free(launch_prog *p);
/* run every step into regs (LP_MAX_STEPS of them): -1, or the step that failed and why */
int lp_run(const launch_prog *p, const int64_t *values, int64_t *regs, const char **why);
/* "launch at line 12: the grid (x) cannot be evaluated: <why>" for a failed step */
void lp_describe_failure(const launch_prog *p, int step, const char *why, char *buf, size_t n);

/* call_extent.c: does a non-empty tensor argument of ebits-bit elements lie inside its
 * buffer?  (overflow-checked: a size whose arithmetic overflows does not) */
bool cute__arg_inside_buffer(const cute_call_arg *x, int ebits);

/* code.c: CUTEC_KEEP's files for a backend that does not compile CUDA itself */
void cute__fn_keep(const cute_fn *f);

struct cute_runtime {
    cute_backend b;
    const cute_backend_info *info; /* its row of the registry (NULL: a backend of a test's) */
    char name[16];
    int target_sm; /* what compiles target (cute_ctx_target_arch); 0: not known */
};

/* call.c: DLPack's type code and bits of a dtype; false for one DLPack has no code for */
bool cute__dtype_dlpack(cute_dtype d, int *code, int *bits);
/* code.c: the CUDA C of f's kernels for arch, and NVRTC's output for it (usage: ptxas's
 * resource report in out->log) */
cute_status cute__fn_cuda_source(const cute_fn *f, const char *arch, char **src, char *err,
                                 size_t n);
cute_status cute__nvrtc_of(const char *src, const char *arch, bool usage, cute_nvrtc_output *out,
                           char *err, size_t n);

/* ffma_banks.c: a cubin's FFMAs with two source registers of one bank not supplied by the
 * reuse cache (bank = register number mod 4, and mod 2), in every kernel and in each
 * kernel's longest loop (its longest backward branch) */
typedef struct cute_ffma_banks {
    long ffma, conflicts4, conflicts2;
} cute_ffma_banks;
typedef struct cute_ffma_bank_report {
    int kernels;
    cute_ffma_banks kernel, loop;
} cute_ffma_bank_report;
bool cute__ffma_banks(const void *cubin, size_t len, cute_ffma_bank_report *r, char *err, size_t n);

/* backends.c: the registry's names, "cuda, interp" */
void cute__backend_names(char *buf, size_t n);
/* the CUDA backend on device `device` (the registry's "cuda" row opens device 0) */
cute_status cute__open_cuda_device(int device, cute_backend *b, char *err, size_t n);

/* alias.c: after tracing, which tensors the kernels write and whether their pointers are
 * __restrict__ (sets each kernel's noalias); at a call, refuse arguments that break it */
void jit_mark_aliasing(cute_fn *f);
cute_status jit_check_alias(const cute_fn *f, struct cute_call_frame *fr, int nargs,
                            const cute_call_arg *args);

#endif
