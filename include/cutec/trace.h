/* cutec/trace.h — the DSL surface: a context that traces C into IR.
 *
 * Staging (DESIGN.md, "The one idea"): what is known while the C program runs is static and
 * folds away; what is known only at launch is dynamic and becomes IR.
 *
 *  - cute_int (int.h) is the index integer.  A dynamic one is an exact symbolic expression
 *    over launch-time unknowns (kernel parameters, thread indices, loop variables), so the
 *    layout algebra proves what it can about it (divisibility, equality, bounds) and the
 *    tracer emits IR only when a value is used, once per scope.
 *  - cute_val is any other run-time value (floats, data loaded from memory, predicates):
 *    an IR register and its type.
 *
 * Every DSL call records the user's file:line (the macros pass it), so a misuse is a
 * diagnostic pointing at the user's line; after the first one the context is failed and
 * later calls are harmless no-ops.  Nothing aborts.
 */
#ifndef CUTEC_TRACE_H
#define CUTEC_TRACE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/ir.h"
#include "cutec/layout.h"

typedef struct cute_ctx cute_ctx;

/* A run-time value: an IR register of the kernel being traced.  `kernel` is the serial of
 * the kernel that made it: a value belongs to that kernel only (a register number means
 * another register elsewhere), and each call checks it.  Where the register got its value
 * (the loop or if body, the call site) the context records, so a value used after its body
 * has ended is reported with both lines. */
typedef struct cute_val {
    cute_vreg r;
    cute_type t;
    uint32_t kernel;
} cute_val;

/* --- the context ------------------------------------------------------------------ */
cute_ctx *cute_ctx_new(void);
void cute_ctx_free(cute_ctx *c);
/* the algebra context every layout op takes (its dynamic ints are this tracer's) */
cute_alg *cute_ctx_alg(cute_ctx *c);
/* the pointer given to cute_compile, for host functions and kernels that need one */
void *cute_ctx_user(const cute_ctx *c);
bool cute_ctx_failed(const cute_ctx *c);
const char *cute_ctx_error(const cute_ctx *c); /* "file:line: message" */
/* report a misuse at the current call site; returns false */
bool cute_ctx_fail(cute_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the call site for the next operations (the macros below set it) */
void cute_ctx_site(cute_ctx *c, const char *file, int line);

/* The site macros (below, and in the other headers) wrap each DSL call in CUTE__CTX_AT: the
 * call's site holds from when its arguments have been evaluated until it returns, so a call
 * whose arguments contain other DSL calls is reported at its own line, and each inner call
 * at its own.  (GCC and Clang; other compilers, or CUTEC_SITES_BEFORE_ARGS, get the site set
 * before the arguments.) */
typedef struct cute_ctx_scope {
    cute_ctx *c;
    cute_site_scope s;
} cute_ctx_scope;
cute_ctx_scope cute__ctx_enter(cute_ctx *c, const char *file, int line);
void cute__ctx_leave(cute_ctx_scope *s);
#if defined(__GNUC__) && !defined(CUTEC_SITES_BEFORE_ARGS)
#define CUTE__CTX_AT(c, call)                                                               \
    __extension__({                                                                         \
        cute_ctx_scope cute__cs __attribute__((cleanup(cute__ctx_leave), unused)) =         \
            cute__ctx_enter((c), __FILE__, __LINE__);                                       \
        call;                                                                               \
    })
#define CUTE__ALG_AT(a, call)                                                               \
    __extension__({                                                                         \
        cute_site_scope cute__as __attribute__((cleanup(cute__site_leave), unused)) =       \
            cute__site_enter((a), __FILE__, __LINE__);                                      \
        call;                                                                               \
    })
#else
#define CUTE__CTX_AT(c, call) (cute_ctx_site((c), __FILE__, __LINE__), call)
#define CUTE__ALG_AT(a, call) (cute_alg_site((a), __FILE__, __LINE__), call)
#endif

/* Begin tracing a kernel into a fresh IR function (the context owns it until taken). */
bool cute_kernel_begin(cute_ctx *c, const char *name);
/* Finish it: verify; on success the function is handed to the caller, else NULL. */
cute_ir_func *cute_kernel_end(cute_ctx *c);

/* a kernel parameter: an index integer (lower bound and divisor known) or a pointer */
cute_int cute_param_int(cute_ctx *c, const char *name, int64_t div, int64_t lower_bound);
cute_val cute_param_ptr(cute_ctx *c, const char *name, cute_dtype pointee);

/* --- index integers in kernels ------------------------------------------------------ */
cute_int cute_thread_idx(cute_ctx *c, int dim); /* threadIdx.{x,y,z} */
cute_int cute_block_idx(cute_ctx *c, int dim);
cute_int cute_block_dim(cute_ctx *c, int dim);
cute_int cute_grid_dim(cute_ctx *c, int dim);
cute_int cute_lane_idx(cute_ctx *c);
cute_int cute_warp_idx(cute_ctx *c);
/* the IR value of an index integer (emitted now, in the current scope), as type d */
cute_val cute_int_value(cute_ctx *c, cute_int x, cute_dtype d);
/* ... in the width its proven range allows: i32 where every value computed on the way
 * fits (see cute_index_bound), else i64 -- for offsets and comparisons */
cute_val cute_int_index(cute_ctx *c, cute_int x);
/* Promise that every dynamic integer of the arguments (extents, strides, integer scalars)
 * lies in [-bound, bound].  Call it in a host function before its launches.  Each call of
 * the compiled function checks the promise and refuses, naming the value, an argument that
 * breaks it.  With these ranges (and the launch's grid and block, which follow from them)
 * the tracer proves most index arithmetic fits in 32 bits and emits it so; what it cannot
 * prove stays 64-bit.  bound: 1 to 2^31 - 1. */
void cute_index_bound(cute_ctx *c, int64_t bound);
int64_t cute_ctx_index_bound(const cute_ctx *c); /* the bound given (0: none) */
/* the largest grid and block a kernel is launched with (the jit layer sets them from the
 * launch recipe before tracing the kernel; 0: the hardware's limits); the special
 * registers' ranges follow from them */
void cute_kernel_launch_extents(cute_ctx *c, const int64_t grid_max[3], const int64_t block_max[3]);
/* The compile target's SM version (80 for sm_80, 90 for sm_90a; 0: not known, nothing is
 * refused): an atom whose minimum architecture is above it is refused at its first use.
 * cute_compile sets it from its runtime (the device's; on the interpreter, CUTEC_ARCH). */
void cute_ctx_target_arch(cute_ctx *c, int sm);
int cute_ctx_arch(const cute_ctx *c);
/* Whether the kernels traced will run on the interpreter (cute_compile sets it from its
 * runtime).  The interpreter runs every row of the instruction table but no inline PTX:
 * cute_asm then fails at trace time, and a kernel may choose another path with
 * cute_ctx_on_interp. */
void cute_ctx_target_interp(cute_ctx *c, bool interp);
bool cute_ctx_on_interp(const cute_ctx *c);
/* the threads of a block of the kernel being traced when its launch's block is static (0:
 * not known; the jit layer sets it after cute_kernel_begin).  A TiledCopy or TiledMMA whose
 * thread count differs is refused at its first partition: with fewer threads than it
 * expects, part of every tile would silently not be moved or computed. */
void cute_kernel_block_threads(cute_ctx *c, int64_t threads);
int64_t cute_ctx_block_threads(const cute_ctx *c);
/* a run-time integer as an index integer (a fresh unknown bound to v) */
cute_int cute_int_from_val(cute_ctx *c, cute_val v, int64_t lower_bound);
/* x computed now, in the current scope, as a fresh index integer bound to that value, with
 * x's proven range (not its divisibility): later uses read the register, where x itself
 * would be emitted again at each use in a scope opened later (a loop's body, or what
 * follows a loop) -- a loop-invariant division, say, out of the loop */
cute_int cute_int_now(cute_ctx *c, cute_int x);
/* ... and declared now but computed later: an index integer with x's proven range, read
 * from *var, which cute_int_assign(c, *var, x) sets where x is computed (in a scope opened
 * later: the integer is read after that scope has ended).  Static x: x itself, and
 * cute_int_assign does nothing. */
cute_int cute_int_var(cute_ctx *c, cute_int x, cute_val *var);
void cute_int_assign(cute_ctx *c, cute_val var, cute_int x);
/* conditions on index integers, as predicates */
cute_val cute_int_lt(cute_ctx *c, cute_int a, cute_int b);
cute_val cute_int_eq(cute_ctx *c, cute_int a, cute_int b);

/* --- run-time values ---------------------------------------------------------------- */
cute_val cute_val_const(cute_ctx *c, cute_dtype d, double v);
cute_val cute_val_int(cute_ctx *c, cute_dtype d, int64_t v);
cute_val cute_val_binop(cute_ctx *c, cute_op op, cute_val a, cute_val b); /* ADD..XOR, MIN, MAX */
cute_val cute_val_unop(cute_ctx *c, cute_op op, cute_val a);              /* NEG, ABS, NOT, math */
cute_val cute_val_fma(cute_ctx *c, cute_val a, cute_val b, cute_val d);
cute_val cute_val_cmp(cute_ctx *c, cute_op op, cute_val a, cute_val b);   /* EQ..GE -> i1 */
cute_val cute_val_select(cute_ctx *c, cute_val p, cute_val a, cute_val b);
cute_val cute_val_cvt(cute_ctx *c, cute_val a, cute_dtype d);
cute_val cute_val_bitcast(cute_ctx *c, cute_val a, cute_type t);
/* a math function (EXP..ERF) in its fast, approximate form (CUDA's __expf and friends) */
cute_val cute_val_fast(cute_ctx *c, cute_op op, cute_val a);
/* warps: v from lane `lane` (mode: cute_shfl idx/up/down/xor; 32- or 64-bit values), and
 * votes on an i1 (any/all give i1, ballot u32) */
cute_val cute_val_shfl(cute_ctx *c, cute_val v, cute_val lane, cute_shfl mode);
cute_val cute_val_vote(cute_ctx *c, cute_val pred, cute_vote mode);
/* byte instructions on 32-bit integer words: prmt.b32 with a register selector (u32: byte i
 * is byte (nibble i of sel) & 7 of the table hi:lo, or with the nibble's bit 3 set 0x00 or
 * 0xff by that byte's sign bit: a lookup of four 3-bit indices in 8 bytes), and dp4a.s32.s32
 * (i32: acc plus the dot product of a's and b's four signed bytes) */
cute_val cute_val_prmt(cute_ctx *c, cute_val lo, cute_val hi, cute_val sel);
cute_val cute_val_dp4a(cute_ctx *c, cute_val a, cute_val b, cute_val acc);
/* a hint: bring the cache line holding global address p into L2 (prefetch.global.L2);
 * nothing moves to the thread */
void cute_prefetch_l2(cute_ctx *c, cute_val p);
/* an atomic read-modify-write through a pointer; returns the old value */
cute_val cute_val_atomic(cute_ctx *c, cute_val ptr, cute_val v, cute_atomic op);
/* a mutable variable (loop-carried state), and assignment to it */
cute_val cute_val_var(cute_ctx *c, cute_val init);
void cute_val_assign(cute_ctx *c, cute_val var, cute_val v);

/* --- control flow (block macros; see CUTE_FOR etc. below) --------------------------- */
cute_int cute__for_begin(cute_ctx *c, cute_int lo, cute_int hi, int64_t step, int unroll);
bool cute__body_once(cute_ctx *c); /* true the first time, then closes the body */
void cute__if_begin(cute_ctx *c, cute_val pred);
void cute__else_begin(cute_ctx *c);
void cute__while_begin(cute_ctx *c);
void cute__while_cond(cute_ctx *c, cute_val pred);
void cute_barrier(cute_ctx *c);
/* ask the compiler to keep this kernel's registers low enough for blocks_per_sm resident
 * blocks (the second argument of __launch_bounds__; 0: no request) */
void cute_kernel_min_blocks(cute_ctx *c, int blocks_per_sm);
/* the kernel reaches tensors through pointers it reads from memory (a device array of
 * per-group pointers): on the interpreter every live buffer is then accessible to it, each
 * still bounds- and race-checked; otherwise only the launch's arguments are */
void cute_kernel_reaches_buffers(cute_ctx *c);
void cute_printf(cute_ctx *c, const char *fmt, int n, const cute_val *args);

/* --- shared-memory addresses and inline PTX ------------------------------------------ */
/* The 32-bit shared-window address of a shared-memory pointer (what PTX's shared-memory
 * instructions take: ldmatrix, cp.async, mbarrier, TMA), as a u32: the same meaning in both
 * backends (the interpreter's window starts at the block's shared memory). */
cute_val cute_smem_addr(cute_ctx *c, cute_val smem_ptr);

/* Inline PTX, for what the instruction table (cutec/inst.h) lacks.  %k in the text names
 * operand k (%% is a literal %).  Operand kinds:
 *   CUTE_ASM_IN     v is read.  Its type says how it travels: f32 "f", f64 "d", 16/32/64-bit
 *                   integers "h"/"r"/"l", 8-bit integers in a 16-bit register, i1 as a u32 0/1,
 *                   packed vectors (f16x2, bf16x2, i8x4, f32x2 ...) as their bits; a ptr<T,smem>
 *                   as its 32-bit shared-window address, a ptr<T,gmem> as its 64-bit address.
 *   CUTE_ASM_OUT    a new register of `type`, written (cute_asm sets v).
 *   CUTE_ASM_INOUT  v, a variable (cute_val_var), read and written (tied, "+").
 *   CUTE_ASM_IMM    imm, written into the text as a number.
 *   CUTE_ASM_GUARD  v (i1) guards the instruction: it runs where v is true (one guard; the
 *                   text should be one instruction).
 * Any number of operands.  The asm statement has a "memory" clobber unless flags has
 * CUTE_ASM_NO_MEMORY.  The interpreter does not run inline PTX: compiling such a kernel for
 * it fails, naming the text and this call site.  False after a misuse (reported). */
typedef enum { CUTE_ASM_IN, CUTE_ASM_OUT, CUTE_ASM_INOUT, CUTE_ASM_IMM, CUTE_ASM_GUARD } cute_asm_kind;
typedef struct cute_asm_operand {
    cute_asm_kind kind;
    cute_val v;     /* IN, INOUT, GUARD: the value; OUT: set by cute_asm */
    cute_type type; /* OUT: the register's type */
    int64_t imm;    /* IMM */
} cute_asm_operand;
#define CUTE_ASM_NO_MEMORY 1u
bool cute_asm(cute_ctx *c, const char *ptx, cute_asm_operand *ops, int n, unsigned flags);

/* CUTE_FOR(c, i, lo, hi) { ... }: a dynamic loop; i is a cute_int (a plain C for loop is
 * the trace-time, unrolled one).  CUTE_IF(c, p) { ... } CUTE_ELSE(c) { ... }.
 * CUTE_WHILE(c, cond-expression-of-type-cute_val) { ... }: cond is traced each iteration. */
#define CUTE_FOR(c, i, lo, hi)                                                              \
    for (cute_int i = CUTE__CTX_AT((c), cute__for_begin((c), (lo), (hi), 1, 0));             \
         cute__body_once(c);)
#define CUTE_FOR_STEP(c, i, lo, hi, step, unroll)                                           \
    for (cute_int i = CUTE__CTX_AT((c), cute__for_begin((c), (lo), (hi), (step), (unroll)));  \
         cute__body_once(c);)
#define CUTE_IF(c, pred)                                                                    \
    for (CUTE__CTX_AT((c), cute__if_begin((c), (pred))); cute__body_once(c);)
#define CUTE_ELSE(c) for (CUTE__CTX_AT((c), cute__else_begin(c)); cute__body_once(c);)
#define CUTE_WHILE(c, cond)                                                                 \
    for (CUTE__CTX_AT((c), cute__while_begin(c)), CUTE__CTX_AT((c), cute__while_cond((c), (cond))); \
         cute__body_once(c);)

/* Any other call (e.g. a layout op on the context's algebra) can record its site:
 * CUTE_AT(c, cute_composition(cute_ctx_alg(c), &A, &T)) */
#define CUTE_AT(c, call) CUTE__CTX_AT((c), (call))

/* Each DSL call records the caller's file:line: these macros wrap the functions of the
 * same name (a function-like macro does not expand inside itself, so the call inside is
 * the function).  Define CUTEC_NO_SITE_MACROS to call the functions directly. */
#ifndef CUTEC_NO_SITE_MACROS
#define cute_param_int(c, ...) CUTE__CTX_AT((c), cute_param_int((c), __VA_ARGS__))
#define cute_param_ptr(c, ...) CUTE__CTX_AT((c), cute_param_ptr((c), __VA_ARGS__))
#define cute_thread_idx(c, ...) CUTE__CTX_AT((c), cute_thread_idx((c), __VA_ARGS__))
#define cute_block_idx(c, ...) CUTE__CTX_AT((c), cute_block_idx((c), __VA_ARGS__))
#define cute_block_dim(c, ...) CUTE__CTX_AT((c), cute_block_dim((c), __VA_ARGS__))
#define cute_grid_dim(c, ...) CUTE__CTX_AT((c), cute_grid_dim((c), __VA_ARGS__))
#define cute_lane_idx(c) CUTE__CTX_AT((c), cute_lane_idx(c))
#define cute_warp_idx(c) CUTE__CTX_AT((c), cute_warp_idx(c))
#define cute_int_value(c, ...) CUTE__CTX_AT((c), cute_int_value((c), __VA_ARGS__))
#define cute_int_index(c, ...) CUTE__CTX_AT((c), cute_int_index((c), __VA_ARGS__))
#define cute_int_from_val(c, ...) CUTE__CTX_AT((c), cute_int_from_val((c), __VA_ARGS__))
#define cute_int_now(c, ...) CUTE__CTX_AT((c), cute_int_now((c), __VA_ARGS__))
#define cute_int_var(c, ...) CUTE__CTX_AT((c), cute_int_var((c), __VA_ARGS__))
#define cute_int_assign(c, ...) CUTE__CTX_AT((c), cute_int_assign((c), __VA_ARGS__))
#define cute_int_lt(c, ...) CUTE__CTX_AT((c), cute_int_lt((c), __VA_ARGS__))
#define cute_int_eq(c, ...) CUTE__CTX_AT((c), cute_int_eq((c), __VA_ARGS__))
#define cute_val_const(c, ...) CUTE__CTX_AT((c), cute_val_const((c), __VA_ARGS__))
#define cute_val_int(c, ...) CUTE__CTX_AT((c), cute_val_int((c), __VA_ARGS__))
#define cute_val_binop(c, ...) CUTE__CTX_AT((c), cute_val_binop((c), __VA_ARGS__))
#define cute_val_unop(c, ...) CUTE__CTX_AT((c), cute_val_unop((c), __VA_ARGS__))
#define cute_val_fma(c, ...) CUTE__CTX_AT((c), cute_val_fma((c), __VA_ARGS__))
#define cute_val_cmp(c, ...) CUTE__CTX_AT((c), cute_val_cmp((c), __VA_ARGS__))
#define cute_val_select(c, ...) CUTE__CTX_AT((c), cute_val_select((c), __VA_ARGS__))
#define cute_val_cvt(c, ...) CUTE__CTX_AT((c), cute_val_cvt((c), __VA_ARGS__))
#define cute_val_bitcast(c, ...) CUTE__CTX_AT((c), cute_val_bitcast((c), __VA_ARGS__))
#define cute_val_fast(c, ...) CUTE__CTX_AT((c), cute_val_fast((c), __VA_ARGS__))
#define cute_val_shfl(c, ...) CUTE__CTX_AT((c), cute_val_shfl((c), __VA_ARGS__))
#define cute_val_vote(c, ...) CUTE__CTX_AT((c), cute_val_vote((c), __VA_ARGS__))
#define cute_val_prmt(c, ...) CUTE__CTX_AT((c), cute_val_prmt((c), __VA_ARGS__))
#define cute_val_dp4a(c, ...) CUTE__CTX_AT((c), cute_val_dp4a((c), __VA_ARGS__))
#define cute_prefetch_l2(c, ...) CUTE__CTX_AT((c), cute_prefetch_l2((c), __VA_ARGS__))
#define cute_val_atomic(c, ...) CUTE__CTX_AT((c), cute_val_atomic((c), __VA_ARGS__))
#define cute_val_var(c, ...) CUTE__CTX_AT((c), cute_val_var((c), __VA_ARGS__))
#define cute_val_assign(c, ...) CUTE__CTX_AT((c), cute_val_assign((c), __VA_ARGS__))
#define cute_barrier(c) CUTE__CTX_AT((c), cute_barrier(c))
#define cute_printf(c, ...) CUTE__CTX_AT((c), cute_printf((c), __VA_ARGS__))
#define cute_smem_addr(c, ...) CUTE__CTX_AT((c), cute_smem_addr((c), __VA_ARGS__))
#define cute_asm(c, ...) CUTE__CTX_AT((c), cute_asm((c), __VA_ARGS__))
#define cute_kernel_begin(c, ...) CUTE__CTX_AT((c), cute_kernel_begin((c), __VA_ARGS__))
#define cute_kernel_end(c) CUTE__CTX_AT((c), cute_kernel_end(c))
#endif

#ifndef CUTEC_NO_SITE_MACROS
#include "cutec/layout_sites.h"
#endif

CUTE_API_END
#endif
