/* Internal: the tracing context. */
#ifndef CUTEC_CTX_INTERNAL_H
#define CUTEC_CTX_INTERNAL_H

#include <stdarg.h>

#include "cutec/inst.h"
#include "cutec/symbolic.h"
#include "cutec/trace.h"

/* An open body of FOR/IF/WHILE (or the kernel's top level): what lives in it dies with it. */
typedef struct scope {
    uint32_t id;
    bool entered;           /* for the block macros' run-once protocol */
    int kind;               /* SCOPE_* */
} scope;
enum { SCOPE_TOP, SCOPE_FOR, SCOPE_IF, SCOPE_ELSE, SCOPE_WHILE_COND, SCOPE_WHILE };

/* A symbol of the arithmetic stands for an IR value bound in some scope. */
typedef struct binding {
    cute_vreg reg;  /* i32 or i64 */
    uint32_t scope; /* the scope id that defined it */
} binding;

/* Where a register got its value: the scope and call site of its first definition (a
 * mutable register: its first assignment).  scope 0: no value yet. */
typedef struct origin {
    uint32_t scope;
    uint8_t kind; /* SCOPE_* of that scope, for messages */
    const char *file;
    int line;
} origin;

/* The lowering memo: a symbolic expression already emitted, in a scope still open. */
typedef struct memo_entry {
    int64_t key, key2; /* what was lowered (lower.c says) */
    cute_vreg reg;
    uint32_t scope;
    uint8_t kind; /* what and in which width (lower.c) */
} memo_entry;

struct cute_ctx {
    cute_alg alg;
    cute_symbolic *sym;
    char error[1200];

    cute_ir_func *fn; /* the kernel being traced (NULL outside one) */
    cute_ir_builder b;
    scope scopes[CUTE_IR_MAX_DEPTH];
    int depth;
    uint32_t next_scope;
    struct {
        cute_ir_block *blk; /* where the IF whose then-body just closed lives */
        uint32_t index;
        bool valid;
    } last_if;

    cute_int sreg_sym[CUTE_SREG_COUNT]; /* the symbol of each special register read */
    void *jit; /* the compile in progress (jit layer), when a host function runs */
    void *user; /* cute_ctx_user */
    binding *bind;
    uint32_t nbind, capbind;
    memo_entry *memo;
    uint32_t nmemo, capmemo; /* open addressing, capmemo a power of two */
    /* cute_index_bound: dynamic integers of the arguments lie in [-bound, bound] (0: none) */
    int64_t index_bound;
    /* the largest grid and block the kernel being traced is launched with (0: the hardware's) */
    int64_t grid_max[3], block_max[3];
    int64_t block_threads; /* cute_kernel_block_threads (0: not known) */
    int target_sm;         /* cute_ctx_target_arch (0: not known) */
    bool target_interp;    /* cute_ctx_target_interp: the kernels will run on the interpreter */
    /* the kernel's tcgen05 cta_group (cute_tcgen05_cta_group: 1 or 2); tc05_used: a tcgen05
     * call has been traced in it (the group is fixed from then on) */
    int tc05_group;
    bool tc05_used;

    /* identity (origin.c): the serial of the kernel being traced (1, 2, ...; 0 outside one)
     * and the names of the kernels traced so far, by serial */
    uint32_t kernel;
    char **kernel_names;
    origin *orig; /* per register of the kernel being traced */
    uint32_t caporig;
    struct {
        cute_ir_block *blk; /* the block whose instructions from n on are not checked yet */
        uint32_t n;
        scope in; /* the scope they are appended in */
    } walk;
};

bool ctx_ok(cute_ctx *c);            /* not failed, and inside a kernel */
/* IF / ELSE / end for library code, with the tracer's scopes kept in step */
void ctx_open_if(cute_ctx *c, cute_vreg cond);
void ctx_open_else(cute_ctx *c);
void ctx_close(cute_ctx *c);
bool ctx_alive(cute_ctx *c);         /* not failed (host or kernel) */
bool scope_open(const cute_ctx *c, uint32_t id);
void ctx_bind(cute_ctx *c, cute_int sym, cute_vreg reg);
cute_val ctx_val(cute_ctx *c, cute_vreg r);
/* operands of instruction rows as DSL calls (arch_sync.c): the row may be used on this
 * target; p is a shared-memory pointer; v an integer, as the u32 a row takes (*out); each
 * false after a diagnostic naming the call and the operand */
bool ctx_row_ok(cute_ctx *c, cute_inst row, const char *call);
bool ctx_smem_operand(cute_ctx *c, cute_val p, const char *call, const char *what);
bool ctx_u32_operand(cute_ctx *c, cute_val v, const char *call, const char *what, cute_vreg *out);
/* identity (origin.c).  ctx_walk checks the instructions appended since its last call
 * (each operand defined, in a scope still open) and records their results' origins; the
 * tracer calls it whenever the scope or the call site changes.  ctx_usable: v is a value
 * of the kernel being traced (what: "the first operand"). */
void ctx_walk(cute_ctx *c);
void ctx_walk_reset(cute_ctx *c);
void ctx_define_in_scope(cute_ctx *c, cute_vreg r); /* a loop variable: the body's */
bool ctx_usable(cute_ctx *c, cute_val v, const char *what);
/* kernel serial k's identity check for aggregates (TensorSSA, register tensors) */
bool ctx_same_kernel(cute_ctx *c, uint32_t kernel, const char *what);
/* report a misuse at call site `at` (cute_ctx_fail: at the current one) */
bool ctx_vfail_at(cute_ctx *c, cute_site at, const char *fmt, va_list ap);
/* report a misuse at another call site than the current one */
bool ctx_fail_at(cute_ctx *c, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* index integers (lower.c): the width x is computed in (32 where proven to fit, else 64),
 * and x lowered in width w (32 only where ctx_index_width says so) */
int ctx_index_width(cute_ctx *c, cute_int x);
cute_vreg ctx_lower(cute_ctx *c, cute_int x, int w);
/* a pure op (no side effect) on registers, or an integer constant, emitted once per open
 * scope: a later request in a scope where the first result is visible gets that result
 * (ops on mutable registers are always emitted anew) */
cute_vreg ctx_pure_op(cute_ctx *c, cute_op op, cute_type t, cute_vreg a, cute_vreg b);
cute_vreg ctx_const_int(cute_ctx *c, cute_dtype d, int64_t v);
cute_vreg ctx_const(cute_ctx *c, cute_type t, int64_t bits); /* CONST's imm: every lane */
/* the address of element `off` of the memory at `base`: base + off, with off's constant
 * term added last, so that the elements of a chunk share one pointer and differ by an
 * immediate */
cute_vreg ctx_ptr_add(cute_ctx *c, cute_val base, cute_int off);
/* emit the immediate ctx_ptr_add will add for `off` now, in the current scope (where the
 * scopes opened after it, one per element of a predicated chunk, all find it) */
void ctx_hoist_offset(cute_ctx *c, cute_int off);

#endif
