/* The CUDA C emitter's shared state and helpers (cutec/cuda_c.h is the public side).
 *   cuda_c_text.c   growable text, names of types and registers, constants, f16/bf16 bits
 *   cuda_c_prelude.c  the typedefs and helper functions a module needs, nothing more
 *   cuda_c_narrow.c the narrow floats (tf32, float8, float4, scales): types, conversions
 *   cuda_c_expr.c   value ops: arithmetic, comparisons, casts, math, vectors, sregs
 *   cuda_c_mem.c    memory, warps, atomics, printf, asm
 *   cuda_c_asm.c    asm statements: operands, constraints, clobbers
 *   cuda_c_inst.c   INST: a row of the instruction table as PTX
 *   cuda_c.c        kernels, blocks, control flow, the public entry
 */
#ifndef CUTEC_BACKEND_CUDA_C_INTERNAL_H
#define CUTEC_BACKEND_CUDA_C_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutec/cuda_c.h"
#include "cutec/ir.h"

/* Names are bounded by construction (r<id>_<24-char hint>.v[lane] < CC_NAME), expressions
 * by their few operands (< CC_EXPR); gcc cannot see it and warns of truncation that
 * snprintf would do safely anyway. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

typedef struct cc_buf {
    char *p;
    size_t len, cap;
    bool oom;
} cc_buf;

void cc_puts(cc_buf *b, const char *s);
void cc_printf(cc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* what the prelude must define, found while emitting the kernels */
enum {
    NEED_F16 = 1u << 0,     /* struct f16 and its conversions */
    NEED_BF16 = 1u << 1,    /* struct bf16 and its conversions */
    NEED_BITCAST = 1u << 2, /* cute_bitcast<T>(x) */
    NEED_SMEM = 1u << 3,    /* extern __shared__ cute_smem[] */
    NEED_LANEID = 1u << 4,  /* cute_laneid() */
    NEED_F2I = 1u << 5,     /* saturating float -> 8/16-bit integer conversions */
    NEED_RO = 1u << 6,      /* round-to-odd f32 from f64/i64/u64 (exact bf16 rounding) */
    NEED_APPROX = 1u << 7,  /* ex2/sqrt/rsqrt/tanh .approx helpers */
    NEED_CASLOOP = 1u << 8, /* the CAS-loop atomic macro */
    NEED_TMAP = 1u << 9,    /* struct cute_tmap (a CUtensorMap's bytes) */
    NEED_TF32 = 1u << 10,   /* the narrow floats: a struct and its f32 conversions each */
    NEED_E4M3 = 1u << 11,
    NEED_E5M2 = 1u << 12,
    NEED_E2M1 = 1u << 13,
    NEED_UE8M0 = 1u << 14,
    NEED_UE4M3 = 1u << 15,
    NEED_NARROW = NEED_TF32 | NEED_E4M3 | NEED_E5M2 | NEED_E2M1 | NEED_UE8M0 | NEED_UE4M3,
};

#define CC_MAX_LANES 256

/* one emit call: the module being generated */
typedef struct cc_module {
    const cute_cuda_c_opts *o;
    unsigned needs;
    uint8_t vec[CUTE_NDTYPES][CC_MAX_LANES]; /* vector types used */
    uint8_t atom[4][CUTE_NDTYPES];           /* CAS-loop atomic helpers used (cute_atomic) */
    int smem_align;                          /* the shared array's declared alignment */
    cc_buf body;                             /* the kernels' text */
    char *err;
    size_t errn;
    cute_status failed; /* CUTE_OK until the first error */
} cc_module;

/* one kernel being emitted */
typedef struct cc_fn {
    cc_module *m;
    const cute_ir_func *f;
    cc_buf *out;
    int indent;
    int cond_depth;         /* > 0: in a WHILE condition, where BREAK cannot be C break */
    const cute_ir_inst *in; /* the instruction being emitted (for messages) */
    const char *site_file;  /* the call site last announced */
    int site_line;
    struct cc_value *val;     /* per register: uses, folded text (cuda_c_fold.c) */
    struct cc_pending *pend;  /* a vector whose lanes wait for the INSERT after it */
    const cute_ir_block *bound_b; /* the statement of the next peeled FOR's bound (b's    */
    uint32_t bound_i;             /* instruction i), written after the copy: cc_fold_bound */
} cc_fn;

/* errors: the first one wins; returns false so callers can `return cc_fail(...)` */
bool cc_fail(cc_fn *e, cute_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* a line of the kernel at the current indentation */
void cc_line(cc_fn *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* names: buffers of CC_NAME bytes; expressions: CC_EXPR */
#define CC_NAME 96
#define CC_EXPR 640
const char *cc_scalar_name(cute_dtype d); /* "f32", "bool" */
/* the C type of t ("f32", "f16x8", "f32 *"), noting what the prelude needs; NULL (and a
 * failure) for a type C cannot hold */
const char *cc_type(cc_fn *e, cute_type t, char *buf);
/* Shared-memory pointers live in the generated C as u32 addresses in the shared window, not
 * as C pointers: NVRTC keeps C pointers to shared memory 64-bit, and the 64-bit address
 * arithmetic (IADD3/IADD3.X, LEA/LEA.HI.X pairs) cost the shared-memory GEMMs a fifth of
 * their k-loop; in u32, ptxas folds constant offsets into LDS/STS as [R+imm]. */
bool cc_is_smem_ptr(cute_type t);
/* pointer register r as a C expression of its pointer type ("r5", or
 * "((f32 *)__cvta_shared_to_generic(r5))" for shared memory; NVVM turns an access through
 * the latter into ld/st.shared on the 32-bit address); buf has CC_EXPR bytes */
const char *cc_ptr(cc_fn *e, cute_vreg r, char *buf);
/* register r (a pointer or an integer) as type `to` (a pointer or an integer), one of them
 * a pointer: a shared-memory pointer and an integer convert as the 32-bit shared-window
 * address (what PTX's shared-memory instructions take, in both backends); between a shared
 * and a global pointer through the generic address; NULL (and a failure) when `to` has no
 * C type */
const char *cc_ptr_cast(cc_fn *e, cute_vreg r, cute_type to, char *buf);
const char *cc_reg(const cc_fn *e, cute_vreg r, char *buf); /* "r5" or "r5_acc" */
/* register r, or its lane (lane >= 0) */
const char *cc_opnd(const cc_fn *e, cute_vreg r, int lane, char *buf);
/* the text that defines register r: "f32 r5 = " when it is new, "r5 = " when mutable */
const char *cc_def(cc_fn *e, cute_vreg r, char *buf);
/* declare register r (when not mutable) before code that assigns its lanes or outputs */
void cc_decl(cc_fn *e, cute_vreg r);
bool cc_is_16f(cute_dtype d); /* f16 or bf16 */
/* x (of dtype d) as f32: "cute_h2f(x)" for f16/bf16, "cute_e4m3_f32(x)" for a narrow float,
 * x otherwise */
const char *cc_to_f32(cc_fn *e, cute_dtype d, const char *x, char *buf);
/* an f32 expression rounded to d (f16/bf16), or x as is; buf has CC_EXPR bytes */
const char *cc_from_f32(cc_fn *e, cute_dtype d, const char *x, char *buf);
/* a constant of type t from CONST's imm */
const char *cc_const(cc_fn *e, cute_type t, int64_t imm, char *buf);
void cc_c_string(cc_buf *b, const char *s); /* a C string literal */
bool cc_pow2(int64_t x);
int cc_vec_align(cute_type t); /* the alignment of a vector register's struct */

/* value ops (cuda_c_expr.c) and the rest (cuda_c_mem.c): false after a failure */
bool cc_expr(cc_fn *e, const cute_ir_inst *in);
bool cc_mem(cc_fn *e, const cute_ir_inst *in);

/* an asm statement (cuda_c_asm.c): text with %k naming var[k]; outputs and in-outs come
 * first in var (GCC numbers them so); raw[k] (raw may be NULL): var[k] travels as its bits
 * in an integer register (an f32 as "r", not "f"); "memory" clobber when asked */
typedef enum { CC_ASM_OUT, CC_ASM_INOUT, CC_ASM_IN } cc_asm_dir;
bool cc_asm(cc_fn *e, const char *text, const cute_vreg *var, const cc_asm_dir *dir,
            const bool *raw, int n, bool memory);
/* "sm_90a", "sm_80", "compute_90": the number by cute_cuda_arch_sm's rule (a compute_ name
 * as its sm_ one), or 0 */
int cc_arch_number(const char *arch);
/* an INST op: its row's PTX (cuda_c_inst.c) */
bool cc_inst(cc_fn *e, const cute_ir_inst *in);
/* an INST's PTX statement, operands %0.. (outputs, then inputs), and its row; false when
 * the row does not exist or the text does not fit n */
struct cute_inst_info;
bool cc_inst_text(const cute_ir_inst *in, const struct cute_inst_info **row, char *buf, size_t n);

/* folding (cuda_c_fold.c): count each register's uses before a kernel, free after it;
 * cc_fold emits instruction i of b as a folded expression where it can (*done), else
 * leaves it to the caller; cc_fold_text: a folded register's expression, or NULL */
bool cc_fold_begin(cc_fn *e);
void cc_fold_end(cc_fn *e);
bool cc_fold(cc_fn *e, const cute_ir_block *b, uint32_t i, bool *done);
const char *cc_fold_text(const cc_fn *e, cute_vreg r, char *buf);
bool cc_fold_uses_one(const cc_fn *e, cute_vreg r); /* r is read exactly once */
/* whether instruction i of b is the bound of the CUTE_FOR_PEEL_FIRST loop right after it,
 * unread in the loop's body, that the copy cannot change (no load, no register that may be
 * assigned): the backend writes it after the copy, where a loop peeled by hand computes it */
bool cc_fold_bound(const cc_fn *e, const cute_ir_block *b, uint32_t i);
/* an IF that only computes an address and loads a scalar from global memory, as one
 * predicated ld (cuda_c_pred.c): cc_pred_at gives the index of the access in the
 * IF's body (-1: not such an IF); the caller emits what comes before it, then
 * cc_pred_access the access */
int cc_pred_at(const cc_fn *e, const cute_ir_inst *in);
bool cc_pred_access(cc_fn *e, const cute_ir_inst *in, int at);

/* the prelude for what m needs (cuda_c_prelude.c) */
void cc_prelude(cc_module *m, cc_buf *out);

/* the narrow floats (cuda_c_narrow.c): what type d needs (0 for the others), and the
 * prelude text of what `needs` asks for */
unsigned cc_narrow_need(cute_dtype d);
void cc_narrow_prelude(unsigned needs, cc_buf *out);
/* BITCAST between e2m1 lanes and u8 lanes (nibbles, the first low) */
bool cc_narrow_bitcast(cc_fn *e, const cute_ir_inst *in);

#endif
