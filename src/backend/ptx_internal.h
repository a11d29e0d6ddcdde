/* The PTX emitter's shared state and helpers (cutec/ptx.h is the public side).
 *   ptx.c        the module, kernels and their parameters, registers, control flow
 *   ptx_value.c  value ops: constants, arithmetic, comparisons, selects, conversions, math
 *   ptx_divide.c integer division by a constant, 64-bit division
 *   ptx_range.c  the integer registers that are never negative
 *   ptx_sink.c   predicates computed at the IF they condition
 *   ptx_facts.c  what an IF's branch knows of its condition (dead branches not written)
 *   ptx_hoist.c  loop-invariant values out of FOR loops
 *   ptx_late.c   lanes and widenings written where they are read (opt-in)
 *   ptx_else.c   an IF's else branch (values only) first, then the branch (opt-in)
 *   ptx_counter.c remainders of a loop's variable as counters that wrap (opt-in)
 *   ptx_readonly.c the global pointers whose loads may take the read-only path
 *   ptx_mem.c    memory (ld/st by the pointer's space, vectors), warps, atomics, ASM, INST
 * Every IR register is one PTX register per lane, named by its class and number (%f12,
 * %rd7_3 for lane 3); 8-bit integers (and the 8-bit narrow floats) live in 16-bit
 * registers, sign- or zero-extended as their type says; a shared-memory pointer is its
 * 32-bit shared-window address, a global one its 64-bit address.  Temporaries are numbered
 * registers of their own (%xr5), declared once at the top of the kernel. */
#ifndef CUTEC_BACKEND_PTX_INTERNAL_H
#define CUTEC_BACKEND_PTX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_c_internal.h" /* cc_buf, cc_puts, cc_printf */
#include "cutec/ir.h"
#include "cutec/ptx.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* register classes */
typedef enum { PX_PRED, PX_B16, PX_B32, PX_F32, PX_B64, PX_F64, PX_NCLASS } px_class;

#define PX_NAME 48
#define PX_TEXT 4096

/* an integer ADD tree of a loop's body written as (the sum of its invariant leaves, computed
 * before the loop) + its variant leaves (ptx_hoist.c) */
enum { PX_SUM_MAX = 8 };
typedef struct px_sum {
    char invariant[PX_NAME]; /* the register holding the invariant leaves' sum */
    cute_vreg var[PX_SUM_MAX];
    int nvar;
} px_sum;

/* a loop's remainder kept as a counter: register r, wrapping at d (ptx_counter.c) */
typedef struct px_counter {
    cute_vreg r;
    int64_t d;
} px_counter;

typedef struct px_fn {
    const cute_ir_func *f;
    const cute_ptx_opts *o;
    int sm;                 /* the arch's number */
    cc_buf *out;            /* the body */
    const cute_ir_inst *in; /* the instruction being emitted (for messages) */
    uint32_t ntemp[PX_NCLASS];
    uint32_t nlabel;
    uint32_t loop_end[CUTE_IR_MAX_DEPTH]; /* the label BREAK jumps to, innermost last */
    int nloop;
    int cond_depth;       /* > 0: inside a WHILE condition */
    bool generic_global;  /* a shared pointer becomes a global one somewhere: generic ld/st */
    bool uses_smem;
    const struct cute_ir_inst **cdef; /* per register: the CONST that defines it, or NULL */
    bool *readonly;       /* per register: a global pointer into memory nothing writes (ld.nc) */
    bool *nonneg;         /* per register: an integer never negative (ptx_range.c) */
    const struct cute_ir_inst **sunk; /* per register: its definition, emitted at its IF (ptx_sink.c) */
    const struct cute_ir_inst **pdef; /* per i1 register defined once: its definition */
    int8_t *known;        /* per i1 register: 1 known true here (ptx_facts.c) */
    cute_vreg falses[65]; /* conditions known false here, innermost last */
    int nfalse;
    uint32_t *stamp;      /* per register: the last loop found to define it (ptx_hoist.c) */
    uint32_t nstamp;
    bool *hoisted;        /* per register: its definition was emitted before its loop */
    uint32_t *uses;       /* per register: how many operands name it (ptx_hoist.c's sums) */
    const struct cute_ir_inst **folded; /* per register: its ADD, folded into the sum that reads it */
    uint32_t *sum_at;     /* per register: 1 + its index in sums (an ADD written as a sum), or 0 */
    struct px_sum *sums;
    uint32_t nsums, capsums;
    bool *counter;        /* per register: a REM kept as a counter by its loop (ptx_counter.c) */
    uint32_t *mentions;   /* per register: how often the kernel names it (ptx_else.c), or NULL */
    uint32_t *late_def;   /* per register: 1 + the index in its block of its deferred definition (ptx_late.c) */
    uint32_t *late_reads; /* per mutable register: how many deferred instructions read it */
    char *err;
    size_t errn;
    cute_status failed;
} px_fn;

bool px_fail(px_fn *e, cute_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void px_line(px_fn *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

px_class px_class_of(cute_type t); /* of one lane */
/* register r (lane >= 0: that lane of a vector; -1 a scalar) */
const char *px_reg(const px_fn *e, cute_vreg r, int lane, char *buf);
/* register r as a source operand: a scalar constant's literal (ptxas then folds it into
 * the instruction, strength-reduces a division by it, folds an address offset), else
 * px_reg; not for f16/bf16 (px_to_f32 widens their constants) nor i1 */
const char *px_opnd(const px_fn *e, cute_vreg r, int lane, char *buf);
/* the constant that defines r (a scalar CONST), or NULL */
const struct cute_ir_inst *px_const(const px_fn *e, cute_vreg r);
/* a new temporary of class c */
const char *px_temp(px_fn *e, px_class c, char *buf);
uint32_t px_label(px_fn *e);

/* PTX type names of a dtype: "s32", "u16", "f32"; bits "b32"; for 8-bit types in a 16-bit
 * register the 16-bit type (the value is kept extended) */
const char *px_arith_type(cute_dtype d);
const char *px_bits_type(px_class c);
bool px_is_16f(cute_dtype d);
bool px_is_smem_ptr(cute_type t);

/* lane `lane` of r as f32 (f16/bf16 widened into a temporary); out names the register */
const char *px_to_f32(px_fn *e, cute_vreg r, int lane, char *out);
/* an f32 register rounded into dst (f16/bf16) or moved */
void px_from_f32(px_fn *e, cute_dtype d, const char *dst, const char *f32);

/* the 32-bit words of a value (a vector's lanes packed, a 64-bit lane split) and back:
 * words[] get names of registers of class PX_B32 (n words = bytes / 4, at least 1) */
bool px_pack32(px_fn *e, cute_vreg r, char words[][PX_NAME], int *n);
bool px_unpack32(px_fn *e, cute_vreg r, char words[][PX_NAME], int n);

/* which global pointers of f reach only memory the kernel never writes (a noalias kernel's
 * inputs): ld.global.nc for their loads, as NVVM gave the CUDA C path (ptx_readonly.c);
 * NULL when none or out of memory */
bool *px_readonly(const cute_ir_func *f);
/* which integer registers of f never hold a negative value (ptx_range.c); NULL when out of
 * memory */
bool *px_nonneg(const cute_ir_func *f);
/* per i1 register: the definition to emit at the IF that is its one use instead of where
 * it is (ptx_sink.c); NULL when out of memory */
const struct cute_ir_inst **px_sink(const cute_ir_func *f);
/* an IF branch's knowledge of its conditions (ptx_facts.c): the definitions of the i1
 * registers defined once; whether c is known true (1), false (-1) or not (0) here; assume
 * c is value (1 or -1) inside a branch (saved: room for PX_FACTS registers; the count it
 * returns goes to px_forget after the branch) */
enum { PX_FACTS = 65 };
const struct cute_ir_inst **px_pred_defs(const cute_ir_func *f);
int px_known(const px_fn *e, cute_vreg c);
int px_assume(px_fn *e, cute_vreg c, int value, cute_vreg *saved);
void px_forget(px_fn *e, const cute_vreg *saved, int k);
/* emit (through `emit`, instruction i of a block) the loop-invariant values at the top of
 * FOR `loop`'s body, before it, and mark them hoisted (ptx_hoist.c); false after a failure */
bool px_hoist(px_fn *e, const cute_ir_inst *loop, bool (*emit)(px_fn *, const cute_ir_block *, uint32_t));
/* whether CUTEC_PTX_SUMS=1 asks for ptx_hoist.c's invariant sums */
bool px_sums_wanted(void);
/* an ADD px_hoist rewrote as a sum (e->sum_at[in->dst] set): its invariant part + its variant leaves */
bool px_sum_emit(px_fn *e, const cute_ir_inst *in);
/* how many operands of the block (at any depth) name each register, added to uses[] */
void px_count_uses(const cute_ir_block *b, uint32_t *uses);
/* FOR `loop` (from lo, a CONST or NULL)'s remainders of its variable kept as counters: their
 * first values written (before the loop), up to max into out; how many (ptx_counter.c) */
int px_counters(px_fn *e, const cute_ir_inst *loop, const struct cute_ir_inst *lo, px_counter *out, int max);
/* the counters' step at the end of a trip */
void px_counters_step(px_fn *e, const px_counter *c, int n);
/* whether CUTEC_PTX_ELSE=1 asks for ptx_else.c's form */
bool px_else_wanted(void);
void px_count_mentions(const cute_ir_block *b, uint32_t *n);
/* whether IF `in` may be written as its else branch, then `@!p bra` over its then branch
 * (ptx_else.c); call it under the else branch's assumption (px_assume(c, -1)) */
bool px_else_first(px_fn *e, const cute_ir_inst *in);
/* b->inst[i] a LOAD whose vector goes (through a BITCAST) to a mutable register's MOV and
 * nowhere else: that register, which the load may write itself (ptx_else.c), else 0 */
cute_vreg px_load_into(const px_fn *e, const cute_ir_block *b, uint32_t i);
/* whether b->inst[i] is the BITCAST or MOV of such a load (written by the load) */
bool px_load_folded(const px_fn *e, const cute_ir_block *b, uint32_t i);
/* whether CUTEC_PTX_LATE=1 asks for ptx_late.c's order */
bool px_late_wanted(void);
/* emit block b through `emit` (instruction i), its lanes, bitcasts, moves and widenings
 * deferred to the instruction that reads them (ptx_late.c); `skip`: instructions emitted
 * elsewhere (hoisted, sunk); false after a failure */
bool px_late_block(px_fn *e, const cute_ir_block *b, bool (*skip)(const px_fn *, const cute_ir_block *, uint32_t),
                   bool (*emit)(px_fn *, const cute_ir_block *, uint32_t));
bool px_value(px_fn *e, const cute_ir_inst *in); /* ptx_value.c */
/* DIV/REM of a 32-bit integer by a constant as multiplies and shifts (ptx_divide.c); false:
 * not such an op (the caller writes div/rem) */
bool px_divide_const(px_fn *e, const cute_ir_inst *in);
bool px_mem(px_fn *e, const cute_ir_inst *in);   /* ptx_mem.c */
bool px_inst(px_fn *e, const cute_ir_inst *in);  /* ptx_mem.c */

/* whether the ptxas binary starts through posix_spawn (CUTEC_PTXAS_SPAWN=1) or fork (0), and
 * with its malloc on transparent huge pages (CUTEC_PTXAS_THP=1) */
bool px_ptxas_spawned(void);
bool px_ptxas_thp(void);
/* ptxas inside the process through libnvJitLink (ptx_nvjitlink.c; CUTEC_PTX_ASM=nvjitlink):
 * whether the library loads (id: which one), and cute_ptx_assemble's work done by it (*cpu_ms
 * the calling thread's) */
bool px_nvjitlink_found(char *id, size_t n);
cute_status px_nvjitlink_assemble(const char *ptx, const char *arch, int opt, void **cubin, size_t *cubin_len,
                                  char **log, double *cpu_ms, char *err, size_t errn);

#endif
