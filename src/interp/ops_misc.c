/* Moves, selection, vector lanes, special registers, constants, pointers, printf. */
#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"

static void mov(ictx *X, const dinst *d, const imask *m)
{
    for (uint32_t l = 0; l < d->lanes; l++) {
        islot *D = REG(X, d->d + l);
        const islot *A = REG(X, d->a[0] + l);
        EACH(X, m, t, { D[t] = A[t]; });
    }
}

static void select_(ictx *X, const dinst *d, const imask *m)
{
    const islot *C = REG(X, d->a[0]);
    for (uint32_t l = 0; l < d->lanes; l++) {
        islot *D = REG(X, d->d + l);
        const islot *A = REG(X, d->a[1] + l), *B = REG(X, d->a[2] + l);
        EACH(X, m, t, { D[t] = C[t].u8 ? A[t] : B[t]; });
    }
}

static void extract(ictx *X, const dinst *d, const imask *m)
{
    islot *D = REG(X, d->d);
    const islot *A = REG(X, d->a[0] + (uint32_t)d->imm);
    EACH(X, m, t, { D[t] = A[t]; });
}

static void insert(ictx *X, const dinst *d, const imask *m)
{
    for (uint32_t l = 0; l < d->lanes; l++) {
        islot *D = REG(X, d->d + l);
        const islot *A = l == (uint32_t)d->imm ? REG(X, d->a[1]) : REG(X, d->a[0] + l);
        EACH(X, m, t, { D[t] = A[t]; });
    }
}

/* the value of special register s for thread t of the block */
static int32_t sreg_value(const ictx *X, int s, uint32_t t)
{
    const ilaunch *L = X->L;
    switch (s) {
    case CUTE_SREG_TID_X: return (int32_t)L->tid[0][t];
    case CUTE_SREG_TID_Y: return (int32_t)L->tid[1][t];
    case CUTE_SREG_TID_Z: return (int32_t)L->tid[2][t];
    case CUTE_SREG_CTAID_X: return (int32_t)X->ctaid[0];
    case CUTE_SREG_CTAID_Y: return (int32_t)X->ctaid[1];
    case CUTE_SREG_CTAID_Z: return (int32_t)X->ctaid[2];
    case CUTE_SREG_NTID_X: return (int32_t)L->block.x;
    case CUTE_SREG_NTID_Y: return (int32_t)L->block.y;
    case CUTE_SREG_NTID_Z: return (int32_t)L->block.z;
    case CUTE_SREG_NCTAID_X: return (int32_t)L->grid.x;
    case CUTE_SREG_NCTAID_Y: return (int32_t)L->grid.y;
    case CUTE_SREG_NCTAID_Z: return (int32_t)L->grid.z;
    case CUTE_SREG_LANEID: return (int32_t)(t % 32);
    default: return (int32_t)(t / 32); /* warpid */
    }
}

static void sreg(ictx *X, const dinst *d, const imask *m)
{
    islot *D = REG(X, d->d);
    int s = (int)d->imm;
    if (s == CUTE_SREG_TID_X || s == CUTE_SREG_TID_Y || s == CUTE_SREG_TID_Z) {
        const uint32_t *tid = X->L->tid[s - CUTE_SREG_TID_X];
        EACH(X, m, t, { D[t].i32 = (int32_t)tid[t]; });
        return;
    }
    EACH(X, m, t, { D[t].i32 = sreg_value(X, s, t); });
}

void interp_store_const(islot *s, int dtype, int64_t imm)
{
    double f;
    memcpy(&f, &imm, sizeof f);
    memset(s, 0, sizeof *s);
    switch (dtype) {
    case CUTE_I1: s->u8 = imm != 0; break;
    case CUTE_I8: s->i8 = (int8_t)imm; break;
    case CUTE_I16: s->i16 = (int16_t)imm; break;
    case CUTE_I32: s->i32 = (int32_t)imm; break;
    case CUTE_U8: s->u8 = (uint8_t)imm; break;
    case CUTE_U16: s->u16 = (uint16_t)imm; break;
    case CUTE_U32: s->u32 = (uint32_t)imm; break;
    case CUTE_F16: s->u16 = f != f ? 0x7fff : cute_f64_to_f16(f); break;
    case CUTE_BF16: s->u16 = f != f ? 0x7fff : cute_f64_to_bf16(f); break;
    case CUTE_F32: s->f32 = (float)f; break;
    case CUTE_F64: s->f64 = f; break;
    default: s->i64 = imm; break; /* i64, u64, pointers; a narrow float's code */
    }
}

/* a constant assigned to a mutable register: executed in place, not hoisted */
static void const_(ictx *X, const dinst *d, const imask *m)
{
    islot v;
    interp_store_const(&v, d->dt, d->imm);
    for (uint32_t l = 0; l < d->lanes; l++) {
        islot *D = REG(X, d->d + l);
        EACH(X, m, t, { D[t] = v; });
    }
}

/* --- pointers ------------------------------------------------------------------------------ */

static void ptr_add_i64(ictx *X, const dinst *d, const imask *m)
{
    islot *D = REG(X, d->d);
    const islot *A = REG(X, d->a[0]), *B = REG(X, d->a[1]);
    uint64_t es = (uint64_t)d->esize;
    EACH(X, m, t, { D[t].u64 = A[t].u64 + (uint64_t)B[t].i64 * es; });
}

static void ptr_add_i32(ictx *X, const dinst *d, const imask *m)
{
    islot *D = REG(X, d->d);
    const islot *A = REG(X, d->a[0]), *B = REG(X, d->a[1]);
    uint64_t es = (uint64_t)d->esize;
    EACH(X, m, t, { D[t].u64 = A[t].u64 + (uint64_t)(int64_t)B[t].i32 * es; });
}

static int64_t int_of(islot s, int dt)
{
    switch (dt) {
    case CUTE_I8: return s.i8;
    case CUTE_I16: return s.i16;
    case CUTE_I32: return s.i32;
    case CUTE_U8: return s.u8;
    case CUTE_U16: return s.u16;
    case CUTE_U32: return s.u32;
    default: return s.i64;
    }
}

static void ptr_add(ictx *X, const dinst *d, const imask *m)
{
    islot *D = REG(X, d->d);
    const islot *A = REG(X, d->a[0]), *B = REG(X, d->a[1]);
    uint64_t es = (uint64_t)d->esize;
    int dt = (int)d->imm2; /* the offset's dtype */
    EACH(X, m, t, { D[t].u64 = A[t].u64 + (uint64_t)int_of(B[t], dt) * es; });
}

/* a shared-memory pointer is a byte offset into the block's shared memory */
static void smem_ptr(ictx *X, const dinst *d, const imask *m)
{
    islot *D = REG(X, d->d);
    EACH(X, m, t, { D[t].u64 = (uint64_t)d->imm; });
}

static void printf_(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, { interp_printf_thread(X, d, t); });
}

iop_fn interp_pick_misc(const dinst *d, const char **why)
{
    switch (d->op) {
    case CUTE_OP_CONST: return const_;
    case CUTE_OP_MOV: return mov;
    case CUTE_OP_SELECT: return select_;
    case CUTE_OP_EXTRACT: return extract;
    case CUTE_OP_INSERT: return insert;
    case CUTE_OP_SREG: return sreg;
    case CUTE_OP_SMEM_PTR: return smem_ptr;
    case CUTE_OP_PRINTF: return printf_;
    case CUTE_OP_PTR_ADD:
        if (d->imm2 == CUTE_I64 || d->imm2 == CUTE_U64) return ptr_add_i64;
        if (d->imm2 == CUTE_I32) return ptr_add_i32;
        return ptr_add;
    default: *why = "this op"; return NULL;
    }
}
