/* cutec/ir.h — the kernel IR: typed virtual registers, one op table (ir_ops.def),
 * structured control flow (FOR/IF/WHILE with nested blocks), a builder, a verifier and a
 * text form.  Backends (CUDA C, the interpreter) see only this.
 *
 * A function owns everything it points to (an arena freed with it).  Registers are numbered
 * from 1; 0 means "none".  A register is defined once, except a `mutable` one, which MOV
 * may assign again (the loop-carried values of traced loops).  Every instruction records
 * the user's call site (file:line) so diagnostics and dumps can point at it.
 */
#ifndef CUTEC_IR_H
#define CUTEC_IR_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    CUTE_VOID,
    CUTE_I1,
    CUTE_I8,
    CUTE_I16,
    CUTE_I32,
    CUTE_I64,
    CUTE_U8,
    CUTE_U16,
    CUTE_U32,
    CUTE_U64,
    CUTE_F16,
    CUTE_BF16,
    CUTE_F32,
    CUTE_F64,
    /* storage-only number types (include/cutec/numeric.h): loaded, stored and converted
     * (CVT to and from f16/bf16/f32/f64), no arithmetic of their own */
    CUTE_TF32,  /* an f32 bit pattern whose 13 low fraction bits are zero */
    CUTE_E4M3,  /* float8 e4m3 "FN": no infinity, NaN 0x7f/0xff, max 448 */
    CUTE_E5M2,  /* float8 e5m2: IEEE-like, max 57344 */
    CUTE_E2M1,  /* float4 e2m1: 4 bits, two per byte (element 0 in the low nibble) */
    CUTE_UE8M0, /* unsigned power-of-two scale 2^(e-127), NaN 0xff */
    CUTE_UE4M3, /* unsigned e4m3 scale (7 bits in a byte, the top bit zero) */
    CUTE_PTR,
    CUTE_TMAP, /* a TMA descriptor (CUtensorMap): 128 opaque bytes, 64-byte aligned, passed
                  by value as a kernel parameter (__grid_constant__); only its address is used */
    CUTE_NDTYPES
} cute_dtype;

typedef enum { CUTE_GMEM, CUTE_SMEM } cute_space;

/* A value's type: a scalar, a vector of `lanes` scalars, or a pointer to `pointee` in
 * `space`. */
typedef struct cute_type {
    uint8_t dtype;
    uint8_t lanes;   /* 1 for scalars and pointers */
    uint8_t pointee; /* CUTE_PTR: the element type */
    uint8_t space;   /* CUTE_PTR: cute_space */
} cute_type;

static inline cute_type cute_type_of(cute_dtype d) { return (cute_type){(uint8_t)d, 1, 0, 0}; }
static inline cute_type cute_type_vec(cute_dtype d, int lanes)
{
    return (cute_type){(uint8_t)d, (uint8_t)lanes, 0, 0};
}
static inline cute_type cute_type_ptr(cute_dtype pointee, cute_space s)
{
    return (cute_type){CUTE_PTR, 1, (uint8_t)pointee, (uint8_t)s};
}
bool cute_type_eq(cute_type a, cute_type b);
int cute_dtype_bits(cute_dtype d); /* 1 for i1, 64 for pointers */
static inline int cute_dtype_bytes(cute_dtype d) { return (cute_dtype_bits(d) + 7) / 8; }
const char *cute_dtype_name(cute_dtype d); /* "f16", "i32", ... */
bool cute_dtype_parse(const char *name, cute_dtype *out);
bool cute_dtype_is_float(cute_dtype d); /* f16, bf16, f32, f64: the types arithmetic runs in */
bool cute_dtype_is_narrow_float(cute_dtype d); /* tf32, e4m3, e5m2, e2m1, ue8m0, ue4m3 */
/* elements narrower than a byte, packed in memory (e2m1: two per byte, element 0 in the low
 * nibble); cute_dtype_bytes gives 1 for them, the byte that holds two */
bool cute_dtype_is_packed(cute_dtype d);
/* false where CVT has no meaning for a narrow float: it converts only to and from f16, bf16,
 * f32 and f64 (true for every pair without a narrow float) */
bool cute_cvt_supported(cute_dtype from, cute_dtype to);
bool cute_dtype_is_int(cute_dtype d); /* i1 is not an int */
bool cute_dtype_is_signed(cute_dtype d);
/* the values an integer type narrower than 64 bits holds (i1: 0 and 1); false for the
 * 64-bit types and non-integers */
bool cute_dtype_int_range(cute_dtype d, int64_t *lo, int64_t *hi);
/* "f16x8", "ptr<f32,gmem>" */
int cute_type_str(cute_type t, char *buf, size_t n);

typedef enum {
#define X(name, nargs, cls, group, meaning) CUTE_OP_##name,
#include "cutec/ir_ops.def"
#undef X
    CUTE_OP_COUNT
} cute_op;

/* the families backends route ops by (the GROUP column of ir_ops.def) */
typedef enum {
    CUTE_GROUP_VALUE, CUTE_GROUP_MOVE, CUTE_GROUP_SPECIAL, CUTE_GROUP_CONVERT,
    CUTE_GROUP_ADDRESS, CUTE_GROUP_MEMORY, CUTE_GROUP_SYNC, CUTE_GROUP_WARP,
    CUTE_GROUP_PRINT, CUTE_GROUP_INST, CUTE_GROUP_ASM, CUTE_GROUP_CONTROL,
    CUTE_GROUP_COUNT
} cute_op_group;

const char *cute_op_name(cute_op op);
cute_op_group cute_op_group_of(cute_op op);
const char *cute_op_meaning(cute_op op);
int cute_op_nargs(cute_op op); /* -1: variable */

typedef enum {
    CUTE_SREG_TID_X, CUTE_SREG_TID_Y, CUTE_SREG_TID_Z,
    CUTE_SREG_CTAID_X, CUTE_SREG_CTAID_Y, CUTE_SREG_CTAID_Z,
    CUTE_SREG_NTID_X, CUTE_SREG_NTID_Y, CUTE_SREG_NTID_Z,
    CUTE_SREG_NCTAID_X, CUTE_SREG_NCTAID_Y, CUTE_SREG_NCTAID_Z,
    CUTE_SREG_LANEID, CUTE_SREG_WARPID,
    CUTE_SREG_COUNT
} cute_sreg;
typedef enum { CUTE_SHFL_IDX, CUTE_SHFL_UP, CUTE_SHFL_DOWN, CUTE_SHFL_XOR } cute_shfl;
typedef enum { CUTE_VOTE_ANY, CUTE_VOTE_ALL, CUTE_VOTE_BALLOT } cute_vote;
typedef enum { CUTE_ATOMIC_ADD, CUTE_ATOMIC_MIN, CUTE_ATOMIC_MAX, CUTE_ATOMIC_EXCH } cute_atomic;
const char *cute_sreg_name(cute_sreg s); /* "tid.x" */

/* A FOR's unroll hint: the first iteration apart, for a loop that runs at least once (the
 * kernel's promise: a loop with no iteration is wrong under it in CUDA C).  The CUDA C
 * backend writes the body once with the variable bound to lo (a constant there: NVCC folds
 * what tests it), then the loop from lo + step; the PTX backend and the interpreter run the
 * loop as it is (one copy of the body for ptxas: a first tier's compile time).  The verifier
 * refuses it over a body with a BREAK of the loop's, and any other negative unroll. */
#define CUTE_FOR_PEEL_FIRST (-1)

#define CUTE_IR_FAST 1u      /* MATH ops: fast approximate variant */
#define CUTE_IR_ASM_PURE 2u  /* ASM: reads and writes no memory (no "memory" clobber) */

typedef uint32_t cute_vreg;
typedef struct cute_ir_block cute_ir_block;

typedef struct cute_ir_inst {
    uint16_t op;    /* cute_op */
    uint16_t flags; /* CUTE_IR_FAST, CUTE_IR_ASM_PURE; INST: how many of var are outputs */
    cute_type type; /* the result type; STORE: the stored type; CAST: the target */
    cute_vreg dst;  /* 0: no result */
    cute_vreg a[3];
    int64_t imm, imm2;
    const char *str;  /* PRINTF format, ASM text */
    cute_vreg *var;   /* PRINTF/ASM/INST operands, WHILE condition */
    uint32_t nvar;
    cute_ir_block *body[2];
    const char *file; /* the user's call site */
    int line;
} cute_ir_inst;

struct cute_ir_block {
    cute_ir_inst *inst;
    uint32_t n, cap;
};

typedef struct cute_ir_vreg_info {
    cute_type type;
    const char *name; /* a hint for dumps and generated code; may be NULL */
    bool mutable_;    /* MOV may assign it after its definition */
    bool param;       /* a function parameter */
} cute_ir_vreg_info;

typedef struct cute_ir_arena cute_ir_arena;

typedef struct cute_ir_func {
    const char *name;
    cute_ir_block body;
    cute_ir_vreg_info *vregs; /* [0] unused */
    uint32_t nvregs, vcap;
    cute_vreg *params;
    uint32_t nparams, pcap;
    int64_t smem_bytes;     /* dynamic shared memory the kernel uses */
    int smem_align;         /* the alignment its shared allocations ask of the base (0: 16) */
    int max_threads;        /* __launch_bounds__ when > 0 */
    bool noalias;           /* no memory is reached through two pointer parameters (the
                               JIT proves it at each call): CUDA C gives them __restrict__ */
    int min_blocks;         /* ... and its blocks-per-SM hint when > 0 */
    bool reaches_buffers;   /* reaches memory through pointers it reads from memory (a grouped
                               GEMM's per-group tensors): the interpreter admits every live
                               buffer of its backend, not only the arguments' */
    int cluster_dims[3];    /* __cluster_dims__ when all > 0: blocks per cluster, fixed */
    cute_ir_arena *arena;
} cute_ir_func;

cute_ir_func *cute_ir_func_new(const char *name); /* NULL when out of memory */
void cute_ir_func_free(cute_ir_func *f);
/* memory that lives as long as f (strings, operand lists) */
void *cute_ir_alloc(cute_ir_func *f, size_t n);
const char *cute_ir_strdup(cute_ir_func *f, const char *s);

cute_vreg cute_ir_new_vreg(cute_ir_func *f, cute_type t, const char *name, bool mutable_);
cute_vreg cute_ir_add_param(cute_ir_func *f, cute_type t, const char *name);
static inline cute_type cute_ir_type(const cute_ir_func *f, cute_vreg v) { return f->vregs[v].type; }

/* --- building ----------------------------------------------------------------------- */
/* The builder appends to the innermost open block.  Control-flow ops open their bodies;
 * cute_ir_end closes one.  Out of memory marks the builder failed (check `oom`). */
#define CUTE_IR_MAX_DEPTH 64
typedef struct cute_ir_builder {
    cute_ir_func *f;
    cute_ir_block *stack[CUTE_IR_MAX_DEPTH];
    cute_ir_inst *owner[CUTE_IR_MAX_DEPTH]; /* the FOR/IF/WHILE whose body is open */
    int depth;
    const char *file; /* call site given to the next instructions */
    int line;
    bool oom;
    cute_ir_inst *last;   /* the instruction appended last */
    cute_ir_inst scratch; /* takes the writes after out-of-memory */
} cute_ir_builder;

void cute_ir_builder_init(cute_ir_builder *b, cute_ir_func *f);
/* append an instruction (zeroed but for op, site); the pointer is valid until the next
 * append to the same block */
cute_ir_inst *cute_ir_append(cute_ir_builder *b, cute_op op);
/* an op with a result of type t and up to three operands */
cute_vreg cute_ir_op(cute_ir_builder *b, cute_op op, cute_type t, cute_vreg a0, cute_vreg a1,
                     cute_vreg a2);
/* an op without a result */
void cute_ir_op_void(cute_ir_builder *b, cute_op op, cute_type t, cute_vreg a0, cute_vreg a1,
                     cute_vreg a2, int64_t imm);
/* an op whose operands are in var (PRINTF: the format str and its arguments; ASM: the PTX
 * str, the outputs then the inputs, imm of them outputs (set imm2 on b->last for in-outs));
 * str and var are copied */
void cute_ir_varop(cute_ir_builder *b, cute_op op, const char *str, const cute_vreg *var, int n,
                   int64_t imm);
cute_vreg cute_ir_const_int(cute_ir_builder *b, cute_dtype d, int64_t v);
cute_vreg cute_ir_const_float(cute_ir_builder *b, cute_dtype d, double v);
cute_vreg cute_ir_sreg(cute_ir_builder *b, cute_sreg s);
void cute_ir_mov(cute_ir_builder *b, cute_vreg dst, cute_vreg src);
/* open body[0] of a FOR over var in [lo, hi) by step; unroll: 0 none, 1 full, n by n, or
 * CUTE_FOR_PEEL_FIRST */
void cute_ir_for(cute_ir_builder *b, cute_vreg var, cute_vreg lo, cute_vreg hi, int64_t step,
                 int unroll);
/* whether loop body b has a BREAK that leaves that loop (one under an IF; a nested loop's
 * BREAKs are its own) */
bool cute_ir_breaks(const cute_ir_block *b);
void cute_ir_if(cute_ir_builder *b, cute_vreg cond); /* opens the then-body */
void cute_ir_else(cute_ir_builder *b);               /* switches to the else-body */
/* open the else-body of the IF that is the last instruction of the current block (for
 * tracers that close the then-body before they know an else follows) */
void cute_ir_reopen_else(cute_ir_builder *b);
/* WHILE: opens the condition block; cute_ir_while_body(cond) switches to the body */
void cute_ir_while(cute_ir_builder *b);
void cute_ir_while_body(cute_ir_builder *b, cute_vreg cond);
void cute_ir_end(cute_ir_builder *b); /* closes the innermost body */

/* --- checking and printing ---------------------------------------------------------- */
/* 0 when f is well formed; else -1 with the first problem (and its call site) in err, or
 * CUTE_IR_VERIFY_MISUSE when the IR is well formed but breaks a rule of the instructions'
 * use that the user's kernel decides (wgmma without the wgmma.fence or wait_group the PTX
 * ISA asks for) */
#define CUTE_IR_VERIFY_MISUSE (-2)
int cute_ir_verify(const cute_ir_func *f, char *err, size_t n);
/* the text form: one instruction per line, bodies indented */
void cute_ir_dump(FILE *out, const cute_ir_func *f);
/* the same text in a malloc'd string (the caller frees it); NULL when out of memory */
char *cute_ir_text(const cute_ir_func *f);

CUTE_API_END
#endif
