/* The CUDA C backend on a GPU: what the generated code computes is what cutec/cuda_c.h says.
 *  - CVT from every numeric type to every other on edge values (saturation, NaN, ties,
 *    overflow, one rounding to bf16 from f64 and wide integers), against a host reference;
 *  - the 16-byte f16 add, against f16(f32(a) + f32(b));
 *  - atomics by CAS loops (16-bit, float min/max) and natively, CAS; 64-bit shuffles,
 *    laneid and warpid in a 96-thread block;
 *  - shared-memory pointers (u32 in the C) through shuffles, casts, selects, comparisons,
 *    asm operands, atomics and generic access;
 *  - 64-bit DIV and REM by powers of two, other constants and registers, of both signs.
 * Skips, visibly, without a driver, a device or NVRTC (the compile-only checks are in
 * cuda_c_test.c).  With CUTEC_CODEGEN=ptx the same checks run on the PTX backend's module
 * (cutec/ptx.h) through the driver's JIT, all but the CAS-loop atomics, which it leaves to
 * CUDA C (without a GPU: the toolkit's ptxas assembles it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/ir.h"
#include "cutec/nvrtc.h"
#include "cutec/cuda_driver.h"
#include "cutec/ptx.h"

#define T(d) cute_type_of(CUTE_##d)
#define GPTR(d) cute_type_ptr(CUTE_##d, CUTE_GMEM)
#define AT(b) ((b)->file = "cuda_c_gpu_test.c", (b)->line = __LINE__)

static const cute_dtype num[] = {CUTE_I1,   CUTE_I8,  CUTE_I16, CUTE_I32, CUTE_I64,
                                 CUTE_U8,   CUTE_U16, CUTE_U32, CUTE_U64, CUTE_F16,
                                 CUTE_BF16, CUTE_F32, CUTE_F64};
#define NN 13

static cute_vreg op(cute_ir_builder *b, cute_op o, cute_type t, cute_vreg a0, cute_vreg a1,
                    cute_vreg a2, int64_t imm)
{
    cute_vreg r = cute_ir_op(b, o, t, a0, a1, a2);
    b->last->imm = imm;
    return r;
}

static cute_vreg at(cute_ir_builder *b, cute_vreg p, int k)
{
    return cute_ir_op(b, CUTE_OP_PTR_ADD, cute_ir_type(b->f, p), p,
                      cute_ir_const_int(b, CUTE_I32, k), 0);
}

/* --- kernels ----------------------------------------------------------------------------- */

/* conv_<s>(in, out, n): x = in[i] as s; out region t (n * 8 bytes each) [i] = CVT(x) to t */
static cute_ir_func *conv_kernel(int s)
{
    char name[32];
    snprintf(name, sizeof name, "conv_%s", cute_dtype_name(num[s]));
    cute_ir_func *f = cute_ir_func_new(name);
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg in = cute_ir_add_param(f, GPTR(U8), "in"),
              out = cute_ir_add_param(f, GPTR(U8), "out");
    cute_vreg n = cute_ir_add_param(f, T(I32), "n");
    cute_vreg i = cute_ir_op(&b, CUTE_OP_FMA, T(I32), cute_ir_sreg(&b, CUTE_SREG_CTAID_X),
                             cute_ir_sreg(&b, CUTE_SREG_NTID_X), cute_ir_sreg(&b, CUTE_SREG_TID_X));
    cute_ir_if(&b, cute_ir_op(&b, CUTE_OP_LT, T(I1), i, n, 0));
    cute_type sp = cute_type_ptr(num[s], CUTE_GMEM);
    cute_vreg pin =
        cute_ir_op(&b, CUTE_OP_PTR_ADD, sp, cute_ir_op(&b, CUTE_OP_BITCAST, sp, in, 0, 0), i, 0);
    cute_vreg x = op(&b, CUTE_OP_LOAD, cute_type_of(num[s]), pin, 0, 0, cute_dtype_bytes(num[s]));
    for (int t = 0; t < NN; t++) {
        cute_type tp = cute_type_ptr(num[t], CUTE_GMEM);
        cute_vreg off =
            cute_ir_op(&b, CUTE_OP_MUL, T(I32), n, cute_ir_const_int(&b, CUTE_I32, 8 * t), 0);
        cute_vreg base = cute_ir_op(&b, CUTE_OP_BITCAST, tp,
                                    cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(U8), out, off, 0), 0, 0);
        cute_vreg y = cute_ir_op(&b, CUTE_OP_CVT, cute_type_of(num[t]), x, 0, 0);
        cute_ir_op_void(&b, CUTE_OP_STORE, cute_type_of(num[t]),
                        cute_ir_op(&b, CUTE_OP_PTR_ADD, tp, base, i, 0), y, 0,
                        cute_dtype_bytes(num[t]));
    }
    cute_ir_end(&b);
    return f;
}

static const cute_dtype atom_types[] = {CUTE_I16, CUTE_U16, CUTE_F16, CUTE_BF16,
                                        CUTE_F32, CUTE_F64, CUTE_I64, CUTE_I32};

/* 256 threads on 32-byte slots per type: [0] += 1, [1] = min(tid), [2] = max(tid),
 * [3]: thread 7 swaps 0 -> 7 */
static cute_ir_func *atomic_kernel(void)
{
    cute_ir_func *f = cute_ir_func_new("atoms");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg mem = cute_ir_add_param(f, GPTR(U8), "mem");
    cute_vreg tid = cute_ir_sreg(&b, CUTE_SREG_TID_X);
    for (int k = 0; k < 8; k++) {
        cute_type t = cute_type_of(atom_types[k]), tp = cute_type_ptr(atom_types[k], CUTE_GMEM);
        cute_vreg p = cute_ir_op(&b, CUTE_OP_BITCAST, tp, at(&b, mem, 32 * k), 0, 0);
        cute_vreg v = cute_ir_op(&b, CUTE_OP_CVT, t, tid, 0, 0);
        cute_vreg one = cute_ir_op(&b, CUTE_OP_CVT, t, cute_ir_const_int(&b, CUTE_I32, 1), 0, 0);
        op(&b, CUTE_OP_ATOMIC, t, p, one, 0, CUTE_ATOMIC_ADD);
        op(&b, CUTE_OP_ATOMIC, t, at(&b, p, 1), v, 0, CUTE_ATOMIC_MIN);
        op(&b, CUTE_OP_ATOMIC, t, at(&b, p, 2), v, 0, CUTE_ATOMIC_MAX);
        cute_vreg zero = cute_ir_op(&b, CUTE_OP_CVT, t, cute_ir_const_int(&b, CUTE_I32, 0), 0, 0);
        cute_vreg p3 = at(&b, p, 3);
        cute_ir_if(&b,
                   cute_ir_op(&b, CUTE_OP_EQ, T(I1), tid, cute_ir_const_int(&b, CUTE_I32, 7), 0));
        cute_ir_op(&b, CUTE_OP_ATOMIC_CAS, t, p3, zero, v);
        cute_ir_end(&b);
    }
    return f;
}

/* out[tid] = shfl_xor(tid << 40 | tid, 5) + laneid << 20 + warpid << 30 */
static cute_ir_func *shfl_kernel(void)
{
    cute_ir_func *f = cute_ir_func_new("shfl64");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg out = cute_ir_add_param(f, GPTR(U64), "out");
    cute_vreg tid = cute_ir_sreg(&b, CUTE_SREG_TID_X);
    cute_vreg t64 = cute_ir_op(&b, CUTE_OP_CVT, T(U64), tid, 0, 0);
    cute_vreg c40 = cute_ir_const_int(&b, CUTE_U64, 40), c20 = cute_ir_const_int(&b, CUTE_U64, 20);
    cute_vreg c30 = cute_ir_const_int(&b, CUTE_U64, 30);
    cute_vreg v = cute_ir_op(&b, CUTE_OP_OR, T(U64),
                             cute_ir_op(&b, CUTE_OP_SHL, T(U64), t64, c40, 0), t64, 0);
    cute_vreg s =
        op(&b, CUTE_OP_SHFL, T(U64), v, cute_ir_const_int(&b, CUTE_I32, 5), 0, CUTE_SHFL_XOR);
    cute_vreg lane = cute_ir_op(&b, CUTE_OP_CVT, T(U64), cute_ir_sreg(&b, CUTE_SREG_LANEID), 0, 0);
    cute_vreg warp = cute_ir_op(&b, CUTE_OP_CVT, T(U64), cute_ir_sreg(&b, CUTE_SREG_WARPID), 0, 0);
    cute_vreg r = cute_ir_op(&b, CUTE_OP_ADD, T(U64), s,
                             cute_ir_op(&b, CUTE_OP_SHL, T(U64), lane, c20, 0), 0);
    r = cute_ir_op(&b, CUTE_OP_ADD, T(U64), r, cute_ir_op(&b, CUTE_OP_SHL, T(U64), warp, c30, 0),
                   0);
    cute_ir_op_void(&b, CUTE_OP_STORE, T(U64),
                    cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(U64), out, tid, 0), r, 0, 8);
    return f;
}

/* Shared-memory pointers, which the C holds as 32-bit shared-window addresses, through
 * every op that takes one.  64 threads; v[i] = 1.5 i + 0.25 at float i of shared memory
 * (i < 128); out[9 t + j] (u32) for thread t: j = 0 load(shfl_xor(p, 1)), 1 load(p via u64
 * + 4 bytes), 2 load(bitcast to u32), 3 load(t odd ? p : p + 2 (i64)), 4 the comparisons
 * (p == p) | (p < p + 1) << 1 | (p != p) << 2, 5 asm ld.shared through p (asm gets the 32-bit
 * shared-window address), 6 load(asm mov.b32 of p, + 3),
 * 7 the smem counter after 64 atomic adds, 8 load(p as a generic pointer); p = &v[t]. */
static cute_ir_func *smem_ptr_kernel(void)
{
    cute_ir_func *f = cute_ir_func_new("smem_ptrs");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    f->smem_bytes = 1024;
    cute_vreg out = cute_ir_add_param(f, GPTR(U32), "out");
    cute_type sf = cute_type_ptr(CUTE_F32, CUTE_SMEM), su = cute_type_ptr(CUTE_U32, CUTE_SMEM);
    cute_vreg tid = cute_ir_sreg(&b, CUTE_SREG_TID_X);
    cute_vreg base = op(&b, CUTE_OP_SMEM_PTR, sf, 0, 0, 0, 0);
    cute_vreg p = cute_ir_op(&b, CUTE_OP_PTR_ADD, sf, base, tid, 0);
    cute_vreg c64 = cute_ir_const_int(&b, CUTE_I32, 64);
    for (int half = 0; half < 2; half++) {
        cute_vreg i = half ? cute_ir_op(&b, CUTE_OP_ADD, T(I32), tid, c64, 0) : tid;
        cute_vreg v = cute_ir_op(
            &b, CUTE_OP_FMA, T(F32), cute_ir_op(&b, CUTE_OP_CVT, T(F32), i, 0, 0),
            cute_ir_const_float(&b, CUTE_F32, 1.5), cute_ir_const_float(&b, CUTE_F32, 0.25));
        cute_ir_op_void(&b, CUTE_OP_STORE, T(F32), cute_ir_op(&b, CUTE_OP_PTR_ADD, sf, base, i, 0),
                        v, 0, 4);
    }
    cute_vreg counter = op(&b, CUTE_OP_SMEM_PTR, su, 0, 0, 0, 768);
    cute_ir_if(&b, cute_ir_op(&b, CUTE_OP_EQ, T(I1), tid, cute_ir_const_int(&b, CUTE_I32, 0), 0));
    cute_ir_op_void(&b, CUTE_OP_STORE, T(U32), counter, cute_ir_const_int(&b, CUTE_U32, 0), 0, 4);
    cute_ir_end(&b);
    cute_ir_op_void(&b, CUTE_OP_BARRIER, T(VOID), 0, 0, 0, 0);
    op(&b, CUTE_OP_ATOMIC, T(U32), counter, cute_ir_const_int(&b, CUTE_U32, 1), 0, CUTE_ATOMIC_ADD);
    cute_vreg r[9];
    cute_vreg q = op(&b, CUTE_OP_SHFL, sf, p, cute_ir_const_int(&b, CUTE_I32, 1), 0, CUTE_SHFL_XOR);
    r[0] = op(&b, CUTE_OP_LOAD, T(F32), q, 0, 0, 4);
    cute_vreg a = cute_ir_op(&b, CUTE_OP_ADD, T(U64), cute_ir_op(&b, CUTE_OP_CVT, T(U64), p, 0, 0),
                             cute_ir_const_int(&b, CUTE_U64, 4), 0);
    r[1] = op(&b, CUTE_OP_LOAD, T(F32), cute_ir_op(&b, CUTE_OP_CVT, sf, a, 0, 0), 0, 0, 4);
    r[2] = op(&b, CUTE_OP_LOAD, T(U32), cute_ir_op(&b, CUTE_OP_BITCAST, su, p, 0, 0), 0, 0, 4);
    cute_vreg odd =
        cute_ir_op(&b, CUTE_OP_NE, T(I1),
                   cute_ir_op(&b, CUTE_OP_AND, T(I32), tid, cute_ir_const_int(&b, CUTE_I32, 1), 0),
                   cute_ir_const_int(&b, CUTE_I32, 0), 0);
    cute_vreg p2 = cute_ir_op(&b, CUTE_OP_PTR_ADD, sf, p, cute_ir_const_int(&b, CUTE_I64, 2), 0);
    r[3] = op(&b, CUTE_OP_LOAD, T(F32), cute_ir_op(&b, CUTE_OP_SELECT, sf, odd, p, p2), 0, 0, 4);
    cute_vreg p1 = cute_ir_op(&b, CUTE_OP_PTR_ADD, sf, p, cute_ir_const_int(&b, CUTE_I32, 1), 0);
    cute_vreg bits[3] = {cute_ir_op(&b, CUTE_OP_EQ, T(I1), p, p, 0),
                         cute_ir_op(&b, CUTE_OP_LT, T(I1), p, p1, 0),
                         cute_ir_op(&b, CUTE_OP_NE, T(I1), p, p, 0)};
    r[4] = cute_ir_const_int(&b, CUTE_U32, 0);
    for (int k = 0; k < 3; k++)
        r[4] = cute_ir_op(&b, CUTE_OP_OR, T(U32), r[4],
                          cute_ir_op(&b, CUTE_OP_SHL, T(U32),
                                     cute_ir_op(&b, CUTE_OP_CVT, T(U32), bits[k], 0, 0),
                                     cute_ir_const_int(&b, CUTE_U32, k), 0),
                          0);
    r[5] = cute_ir_new_vreg(f, T(F32), "viaasm", false);
    cute_ir_varop(&b, CUTE_OP_ASM, "ld.shared.f32 %0, [%1];", (cute_vreg[]){r[5], p}, 2, 1);
    cute_vreg moved = cute_ir_new_vreg(f, sf, "moved", false);
    cute_ir_varop(&b, CUTE_OP_ASM, "mov.b32 %0, %1;", (cute_vreg[]){moved, p}, 2, 1);
    r[6] = op(&b, CUTE_OP_LOAD, T(F32),
              cute_ir_op(&b, CUTE_OP_PTR_ADD, sf, moved, cute_ir_const_int(&b, CUTE_I32, 3), 0), 0,
              0, 4);
    cute_ir_op_void(&b, CUTE_OP_BARRIER, T(VOID), 0, 0, 0, 0);
    r[7] = op(&b, CUTE_OP_LOAD, T(U32), counter, 0, 0, 4);
    r[8] =
        op(&b, CUTE_OP_LOAD, T(F32), cute_ir_op(&b, CUTE_OP_BITCAST, GPTR(F32), p, 0, 0), 0, 0, 4);
    cute_vreg row = cute_ir_op(&b, CUTE_OP_MUL, T(I32), tid, cute_ir_const_int(&b, CUTE_I32, 9), 0);
    for (int j = 0; j < 9; j++) {
        cute_vreg x = cute_ir_type(f, r[j]).dtype == CUTE_U32
                          ? r[j]
                          : cute_ir_op(&b, CUTE_OP_BITCAST, T(U32), r[j], 0, 0);
        cute_ir_op_void(&b, CUTE_OP_STORE, T(U32),
                        at(&b, cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(U32), out, row, 0), j), x, 0,
                        4);
    }
    return f;
}

/* C[8i..8i+8) = A + B in f16, one 16-byte access per operand */
static cute_ir_func *f16_add_kernel(void)
{
    cute_ir_func *f = cute_ir_func_new("f16_add");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg A = cute_ir_add_param(f, GPTR(F16), "A"), B = cute_ir_add_param(f, GPTR(F16), "B");
    cute_vreg C = cute_ir_add_param(f, GPTR(F16), "C");
    cute_vreg i = cute_ir_op(&b, CUTE_OP_MUL, T(I32), cute_ir_sreg(&b, CUTE_SREG_TID_X),
                             cute_ir_const_int(&b, CUTE_I32, 8), 0);
    cute_type v8 = cute_type_vec(CUTE_F16, 8);
    cute_vreg va =
        op(&b, CUTE_OP_LOAD, v8, cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F16), A, i, 0), 0, 0, 16);
    cute_vreg vb =
        op(&b, CUTE_OP_LOAD, v8, cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F16), B, i, 0), 0, 0, 16);
    cute_vreg vc = cute_ir_op(&b, CUTE_OP_ADD, v8, va, vb, 0); /* lane-wise, in f32 */
    cute_ir_op_void(&b, CUTE_OP_STORE, v8, cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F16), C, i, 0), vc,
                    0, 16);
    return f;
}

/* 64-bit division as C: divide(in, out) for 64 threads, x = in[2t] and y = in[2t + 1] (i64),
 * n = t * 1000003 (i64, never negative); out[14 t + j] = x / 4, x % 4, x / 128, x % 128,
 * x / 3, x % 3, x / y, x % y, n / 8, n % 8, n / 7, n % 7, (u64) x / 3, (u64) x % (u64) y
 * (the PTX backend's shifts, biased shifts, 32-bit bypass and unsigned forms: ptx_divide.c) */
enum { NDIV = 14 };
static cute_ir_func *divide_kernel(void)
{
    cute_ir_func *f = cute_ir_func_new("divide");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg in = cute_ir_add_param(f, GPTR(I64), "in"), out = cute_ir_add_param(f, GPTR(I64), "out");
    cute_vreg tid = cute_ir_sreg(&b, CUTE_SREG_TID_X);
    cute_vreg t2 = cute_ir_op(&b, CUTE_OP_MUL, T(I32), tid, cute_ir_const_int(&b, CUTE_I32, 2), 0);
    cute_vreg x = op(&b, CUTE_OP_LOAD, T(I64), cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(I64), in, t2, 0), 0, 0, 8);
    cute_vreg y = op(&b, CUTE_OP_LOAD, T(I64), at(&b, cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(I64), in, t2, 0), 1),
                     0, 0, 8);
    cute_vreg n = cute_ir_op(&b, CUTE_OP_MUL, T(I64), cute_ir_op(&b, CUTE_OP_CVT, T(I64), tid, 0, 0),
                             cute_ir_const_int(&b, CUTE_I64, 1000003), 0);
    cute_vreg ux = cute_ir_op(&b, CUTE_OP_BITCAST, T(U64), x, 0, 0), uy = cute_ir_op(&b, CUTE_OP_BITCAST, T(U64), y, 0, 0);
    cute_vreg c4 = cute_ir_const_int(&b, CUTE_I64, 4), c128 = cute_ir_const_int(&b, CUTE_I64, 128);
    cute_vreg c3 = cute_ir_const_int(&b, CUTE_I64, 3), c8 = cute_ir_const_int(&b, CUTE_I64, 8);
    cute_vreg c7 = cute_ir_const_int(&b, CUTE_I64, 7), u3 = cute_ir_const_int(&b, CUTE_U64, 3);
    cute_vreg r[NDIV] = {
        cute_ir_op(&b, CUTE_OP_DIV, T(I64), x, c4, 0),   cute_ir_op(&b, CUTE_OP_REM, T(I64), x, c4, 0),
        cute_ir_op(&b, CUTE_OP_DIV, T(I64), x, c128, 0), cute_ir_op(&b, CUTE_OP_REM, T(I64), x, c128, 0),
        cute_ir_op(&b, CUTE_OP_DIV, T(I64), x, c3, 0),   cute_ir_op(&b, CUTE_OP_REM, T(I64), x, c3, 0),
        cute_ir_op(&b, CUTE_OP_DIV, T(I64), x, y, 0),    cute_ir_op(&b, CUTE_OP_REM, T(I64), x, y, 0),
        cute_ir_op(&b, CUTE_OP_DIV, T(I64), n, c8, 0),   cute_ir_op(&b, CUTE_OP_REM, T(I64), n, c8, 0),
        cute_ir_op(&b, CUTE_OP_DIV, T(I64), n, c7, 0),   cute_ir_op(&b, CUTE_OP_REM, T(I64), n, c7, 0),
        cute_ir_op(&b, CUTE_OP_BITCAST, T(I64), cute_ir_op(&b, CUTE_OP_DIV, T(U64), ux, u3, 0), 0, 0),
        cute_ir_op(&b, CUTE_OP_BITCAST, T(I64), cute_ir_op(&b, CUTE_OP_REM, T(U64), ux, uy, 0), 0, 0)};
    cute_vreg o = cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(I64), out,
                             cute_ir_op(&b, CUTE_OP_MUL, T(I32), tid, cute_ir_const_int(&b, CUTE_I32, NDIV), 0), 0);
    for (int j = 0; j < NDIV; j++) cute_ir_op_void(&b, CUTE_OP_STORE, T(I64), at(&b, o, j), r[j], 0, 8);
    return f;
}

/* --- the host reference of CVT ---------------------------------------------------------- */

typedef struct value {
    bool isf, uns; /* a float (f), an unsigned 64-bit integer (u), else a signed one (i) */
    double f;
    int64_t i;
    uint64_t u;
} value;

static double decode16(unsigned bits, int ebits, int mbits)
{
    int e = (int)(bits >> mbits) & ((1 << ebits) - 1), m = (int)bits & ((1 << mbits) - 1);
    double s = (bits >> (ebits + mbits)) ? -1 : 1;
    int bias = (1 << (ebits - 1)) - 1;
    if (e == (1 << ebits) - 1) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp(m, 1 - bias - mbits);
    return s * ldexp(m + (1 << mbits), e - bias - mbits);
}

/* v (already of type d's value set) as d's bytes */
static void put(unsigned char *p, cute_dtype d, value v)
{
    uint64_t bits = v.uns ? v.u : (uint64_t)v.i;
    float f32 = (float)v.f;
    uint16_t h = d == CUTE_F16 ? cute_f16_bits(v.f) : cute_bf16_bits(v.f);
    if (d == CUTE_I1) bits = v.isf ? (v.f != 0 || isnan(v.f)) : bits != 0;
    if (cute_dtype_is_float(d)) {
        if (d == CUTE_F32)
            memcpy(p, &f32, 4);
        else if (d == CUTE_F64)
            memcpy(p, &v.f, 8);
        else
            memcpy(p, &h, 2);
    } else {
        memcpy(p, &bits, (size_t)cute_dtype_bytes(d)); /* little-endian: the low bytes */
    }
}

static value get(const unsigned char *p, cute_dtype d)
{
    value v = {0};
    uint64_t bits = 0;
    memcpy(&bits, p, (size_t)cute_dtype_bytes(d));
    int w = cute_dtype_bits(d);
    switch (d) {
    case CUTE_F16:
        v.isf = true, v.f = decode16((unsigned)bits, 5, 10);
        break;
    case CUTE_BF16:
        v.isf = true, v.f = decode16((unsigned)bits, 8, 7);
        break;
    case CUTE_F32: {
        float x;
        memcpy(&x, p, 4);
        v.isf = true, v.f = x;
        break;
    }
    case CUTE_F64:
        memcpy(&v.f, p, 8), v.isf = true;
        break;
    case CUTE_U64:
        v.uns = true, v.u = bits;
        break;
    default:
        if (cute_dtype_is_signed(d) && w < 64 && (bits >> (w - 1)) & 1) bits |= ~0ull << w;
        v.i = (int64_t)bits;
    }
    return v;
}

/* CVT: to nearest even once; float -> int truncates, saturates, NaN -> 0; int -> int wraps */
static value cvt(value v, cute_dtype t)
{
    value r = {0};
    if (t == CUTE_I1 || (!cute_dtype_is_float(t) && !v.isf))
        return v; /* put does != 0 and wrapping */
    if (cute_dtype_is_float(t)) {
        r.isf = true;
        if (v.isf)
            r.f = v.f; /* put rounds once, from the exact value */
        else if (t == CUTE_F32)
            r.f = v.uns ? (double)(float)v.u : (double)(float)v.i;
        else
            r.f = v.uns ? (double)v.u : (double)v.i; /* exact for the values used below */
        return r;
    }
    if (isnan(v.f)) return r;
    double x = trunc(v.f), lo = 0, hi;
    int w = cute_dtype_bits(t);
    if (cute_dtype_is_signed(t))
        lo = -ldexp(1, w - 1), hi = ldexp(1, w - 1) - 1;
    else
        hi = ldexp(1, w) - 1;
    if (x <= lo) x = lo;
    if (t == CUTE_U64) {
        r.uns = true, r.u = x >= ldexp(1, 64) ? UINT64_MAX : (uint64_t)x;
    } else if (t == CUTE_I64) {
        r.i = x >= ldexp(1, 63) ? INT64_MAX : (int64_t)x;
    } else {
        r.i = (int64_t)(x >= hi ? hi : x);
    }
    return r;
}

/* --- running ------------------------------------------------------------------------------ */

typedef struct gpu {
    cute_cuda *cu;
    void *module;
} gpu;

static bool launch(gpu *g, const char *name, uint32_t threads, uint32_t smem, void **params)
{
    void *fn = NULL;
    cute_status s = cute_cuda_module_function(g->cu, g->module, name, &fn);
    if (s == CUTE_OK)
        s = cute_cuda_launch(g->cu, fn, (cute_dim3){1, 1, 1}, (cute_dim3){threads, 1, 1}, smem,
                             NULL, params);
    if (s == CUTE_OK) s = cute_cuda_sync(g->cu);
    CHECK(s == CUTE_OK, "%s: %s", name, cute_cuda_error(g->cu));
    return s == CUTE_OK;
}

static const double fvals[] = {
    0,
    -0.0,
    1,
    -1,
    0.5,
    1.5,
    2.5,
    -2.5,
    127.9,
    128,
    -128.9,
    -129,
    255.9,
    256,
    300.7,
    -300.7,
    65504,
    65519,
    65520,
    70000,
    1e10,
    -1e10,
    3e9,
    1e20,
    -1e20,
    NAN,
    INFINITY,
    -INFINITY,
    1e-8,
    1.00390625 + 9.313225746154785e-10, /* 1 + 2^-8 + 2^-30: above a bf16 tie, a tie in f32 */
    33685505,
    0.1,
    1.0 / 3,
    5e-324,
    1e-40,
    3.4e38,
    1e300};
static const int64_t ivals[] = {0,
                                1,
                                -1,
                                2,
                                127,
                                -128,
                                255,
                                300,
                                -300,
                                32767,
                                -32768,
                                65535,
                                65541,
                                2147483647,
                                -2147483647 - 1,
                                33685505, /* 2^25 + 2^17 + 1: through f32, a bf16 tie */
                                1099511627777 + 4294967296, /* 2^40 + 2^32 + 1, likewise */
                                INT64_MAX,
                                INT64_MIN,
                                -1 /* read as u64: UINT64_MAX */,
                                65519,
                                65520,
                                4095,
                                16777217};
#define NF (int)(sizeof fvals / sizeof fvals[0])
#define NI (int)(sizeof ivals / sizeof ivals[0])

/* CVT from s: every value above, to every type, on the GPU and on the host */
static void check_conversions(gpu *g, int s, cute_devptr din, cute_devptr dout)
{
    bool sf = cute_dtype_is_float(num[s]);
    int n = sf ? NF : NI, sz = cute_dtype_bytes(num[s]);
    unsigned char in[64 * 8], out[NN * 64 * 8];
    value src[64];
    for (int i = 0; i < n; i++) {
        value v = {.isf = sf, .f = sf ? fvals[i] : 0, .i = sf ? 0 : ivals[i]};
        if (!sf && i == 19) v.uns = true, v.u = UINT64_MAX, v.i = 0;
        unsigned char slot[8] = {0};
        put(slot, num[s], v);
        memcpy(in + i * sz, slot, (size_t)sz);
        src[i] = get(slot, num[s]);
    }
    cute_cuda_copy_htod(g->cu, din, in, (size_t)(n * sz));
    cute_cuda_memset8(g->cu, dout, 0, sizeof out);
    char name[32];
    snprintf(name, sizeof name, "conv_%s", cute_dtype_name(num[s]));
    int n32 = n;
    if (!launch(g, name, 64, 0, (void *[]){&din, &dout, &n32})) return;
    cute_cuda_copy_dtoh(g->cu, out, dout, sizeof out);
    for (int t = 0; t < NN; t++) {
        int tz = cute_dtype_bytes(num[t]), bad = 0;
        for (int i = 0; i < n; i++) {
            unsigned char want[8] = {0};
            const unsigned char *got = out + t * n * 8 + i * tz;
            put(want, num[t], cvt(src[i], num[t]));
            value gv = get(got, num[t]), wv = get(want, num[t]);
            bool nan = gv.isf && isnan(gv.f) && isnan(wv.f); /* any NaN is a NaN */
            if (memcmp(got, want, (size_t)tz) == 0 || nan) continue;
            if (bad++ == 0) {
                uint64_t a = 0, b = 0, x = 0;
                memcpy(&a, got, (size_t)tz), memcpy(&b, want, (size_t)tz);
                memcpy(&x, in + i * sz, (size_t)sz);
                fprintf(stderr, "CVT %s -> %s of %#llx: got %#llx, want %#llx\n",
                        cute_dtype_name(num[s]), cute_dtype_name(num[t]), (unsigned long long)x,
                        (unsigned long long)a, (unsigned long long)b);
            }
        }
        CHECK(bad == 0, "CVT %s -> %s: %d of %d values wrong", cute_dtype_name(num[s]),
              cute_dtype_name(num[t]), bad, n);
    }
}

static void check_atomics(gpu *g, cute_devptr dm)
{
    unsigned char m[256] = {0};
    /* the min slots start high */
    int16_t i16 = 0x7fff;
    uint16_t f16 = 0x7bff, bf16 = 0x7f7f;
    float f32 = 1e30f;
    double f64 = 1e300;
    int64_t i64 = 1ll << 60;
    int32_t i32 = 1 << 30;
    memcpy(m + 2, &i16, 2), memcpy(m + 32 + 2, &i16, 2), memcpy(m + 64 + 2, &f16, 2);
    memcpy(m + 96 + 2, &bf16, 2), memcpy(m + 128 + 4, &f32, 4), memcpy(m + 160 + 8, &f64, 8);
    memcpy(m + 192 + 8, &i64, 8), memcpy(m + 224 + 4, &i32, 4);
    cute_cuda_copy_htod(g->cu, dm, m, sizeof m);
    if (!launch(g, "atoms", 256, 0, (void *[]){&dm})) return;
    cute_cuda_copy_dtoh(g->cu, m, dm, sizeof m);
    for (int k = 0; k < 8; k++) {
        cute_dtype d = atom_types[k];
        int z = cute_dtype_bytes(d);
        double got[4];
        for (int q = 0; q < 4; q++) {
            value v = get(m + 32 * k + q * z, d);
            got[q] = v.isf ? v.f : (double)v.i;
        }
        CHECK(got[0] == 256 && got[1] == 0 && got[2] == 255 && got[3] == 7,
              "atomics on %s: add %g min %g max %g cas %g (want 256 0 255 7)", cute_dtype_name(d),
              got[0], got[1], got[2], got[3]);
    }
}

static void check_shuffles(gpu *g, cute_devptr ds)
{
    uint64_t h[96];
    if (!launch(g, "shfl64", 96, 0, (void *[]){&ds})) return;
    cute_cuda_copy_dtoh(g->cu, h, ds, sizeof h);
    int bad = 0;
    for (uint64_t t = 0; t < 96; t++) {
        uint64_t src = t ^ 5, want = (src << 40 | src) + ((t % 32) << 20) + ((t / 32) << 30);
        bad += h[t] != want;
    }
    CHECK(bad == 0, "64-bit shuffle, laneid, warpid: %d of 96 wrong", bad);
}

static void check_smem_pointers(gpu *g, cute_devptr dout)
{
    uint32_t h[64 * 9];
    memset(h, 0xff, sizeof h);
    cute_cuda_copy_htod(g->cu, dout, h, sizeof h); /* poison */
    if (!launch(g, "smem_ptrs", 64, 1024, (void *[]){&dout})) return;
    cute_cuda_copy_dtoh(g->cu, h, dout, sizeof h);
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        float want[9] = {1.5f * (float)(t ^ 1) + 0.25f,
                         1.5f * (float)(t + 1) + 0.25f,
                         1.5f * (float)t + 0.25f,
                         1.5f * (float)(t % 2 ? t : t + 2) + 0.25f,
                         0,
                         1.5f * (float)t + 0.25f,
                         1.5f * (float)(t + 3) + 0.25f,
                         0,
                         1.5f * (float)t + 0.25f};
        for (int j = 0; j < 9; j++) {
            uint32_t w;
            memcpy(&w, &want[j], 4);
            if (j == 4) w = 3;
            if (j == 7) w = 64;
            if (h[9 * t + j] != w) {
                if (bad++ < 4)
                    fprintf(stderr, "  thread %d value %d: %08x, want %08x\n", t, j, h[9 * t + j],
                            w);
            }
        }
    }
    CHECK(bad == 0, "shared-memory pointers: %d of %d wrong", bad, 64 * 9);
}

static void check_divide(gpu *g, cute_devptr din, cute_devptr dout)
{
    int64_t in[128], out[64 * NDIV];
    for (int t = 0; t < 64; t++) {
        int64_t x = ivals[t % NI], y = ivals[(t * 7 + 3) % NI];
        if (t >= NI) x = -x / 3 + t; /* more of both signs */
        if (y == 0 || (y == -1 && x == INT64_MIN)) y = t + 2; /* C leaves those undefined */
        in[2 * t] = x, in[2 * t + 1] = y;
    }
    cute_cuda_copy_htod(g->cu, din, in, sizeof in);
    if (!launch(g, "divide", 64, 0, (void *[]){&din, &dout})) return;
    cute_cuda_copy_dtoh(g->cu, out, dout, sizeof out);
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        int64_t x = in[2 * t], y = in[2 * t + 1], n = (int64_t)t * 1000003;
        uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        int64_t want[NDIV] = {x / 4, x % 4, x / 128, x % 128, x / 3, x % 3, x / y, x % y,
                              n / 8, n % 8, n / 7, n % 7, (int64_t)(ux / 3), (int64_t)(ux % uy)};
        for (int j = 0; j < NDIV; j++)
            if (out[NDIV * t + j] != want[j] && bad++ < 4)
                printf("  divide: thread %d op %d: x %lld y %lld: %lld, not %lld\n", t, j, (long long)x,
                       (long long)y, (long long)out[NDIV * t + j], (long long)want[j]);
    }
    CHECK(bad == 0, "64-bit division: %d of %d wrong", bad, 64 * NDIV);
}

static void check_f16_add(gpu *g, cute_devptr da, cute_devptr db, cute_devptr dc)
{
    uint16_t a[512], b[512], c[512];
    uint32_t x = 12345;
    for (int i = 0; i < 512; i++) {
        x = x * 1664525u + 1013904223u;
        a[i] = cute_f16_bits(ldexp((double)(x >> 8 & 0xffff) - 32768, -(int)(x >> 28)));
        b[i] = cute_f16_bits(ldexp((double)(x & 0xfff) - 2048, -(int)(x >> 24 & 7)));
    }
    cute_cuda_copy_htod(g->cu, da, a, sizeof a);
    cute_cuda_copy_htod(g->cu, db, b, sizeof b);
    if (!launch(g, "f16_add", 64, 0, (void *[]){&da, &db, &dc})) return;
    cute_cuda_copy_dtoh(g->cu, c, dc, sizeof c);
    int bad = 0;
    for (int i = 0; i < 512; i++) {
        float s = (float)decode16(a[i], 5, 10) + (float)decode16(b[i], 5, 10);
        bad += c[i] != cute_f16_bits(s);
    }
    CHECK(bad == 0, "f16 add: %d of 512 wrong", bad);
}

enum { NK = NN + 5 };

/* every kernel of the test, emitted and compiled for arch; false after a failed check */
static bool build(cute_nvrtc *nv, const char *arch, cute_ir_func **k, char **src,
                  cute_nvrtc_output *o)
{
    for (int s = 0; s < NN; s++) k[s] = conv_kernel(s);
    k[NN] = atomic_kernel(), k[NN + 1] = shfl_kernel(), k[NN + 2] = f16_add_kernel();
    k[NN + 3] = smem_ptr_kernel(), k[NN + 4] = divide_kernel();
    char err[512];
    bool ok = true;
    for (int i = 0; i < NK && ok; i++) {
        ok = cute_ir_verify(k[i], err, sizeof err) == 0;
        CHECK(ok, "%s", err);
    }
    cute_cuda_c_opts eo = {.arch = arch};
    if (ok && cute_ptx_wanted()) { /* every kernel but the atomics (k[NN]) */
        const cute_ir_func *pk[NK - 1];
        for (int i = 0, n = 0; i < NK; i++)
            if (i != NN) pk[n++] = k[i];
        ok = cute_ptx_emit(pk, NK - 1, &(cute_ptx_opts){.arch = arch}, src, err, sizeof err) == CUTE_OK;
        CHECK(ok, "PTX: %s", err);
        return ok;
    }
    if (ok)
        ok = cute_cuda_c_emit((const cute_ir_func *const *)k, NK, &eo, src, err, sizeof err) ==
             CUTE_OK;
    CHECK(ok, "emit: %s", err);
    if (ok) ok = cute_nvrtc_compile(nv, *src, &(cute_nvrtc_opts){.arch = arch}, o) == CUTE_OK;
    CHECK(ok, "compile for %s: %s", arch, o->log);
    return ok;
}

static void run(cute_cuda *cu, cute_nvrtc *nv)
{
    const cute_device_info *d = cute_cuda_device(cu);
    cute_ir_func *k[NK];
    char *src = NULL;
    cute_nvrtc_output o = {0};
    bool ok = build(nv, d->arch, k, &src, &o);
    gpu g = {cu, NULL};
    bool ptx = cute_ptx_wanted();
    if (ok && ptx) { /* the driver's JIT: o.cubin as NVRTC's would be */
        char info[2048];
        ok = cute_cuda_link_ptx(cu, src, 3, &o.cubin, &o.cubin_size, info, sizeof info) == CUTE_OK;
        CHECK(ok, "the driver's JIT: %s", cute_cuda_error(cu));
    }
    if (ok) ok = cute_cuda_module_load(cu, o.cubin, &g.module) == CUTE_OK;
    CHECK(ok, "module load: %s", cute_cuda_error(cu));
    cute_devptr b[4] = {0};
    for (int i = 0; ok && i < 4; i++) ok = cute_cuda_alloc(cu, 64 * 8 * (NN > NDIV ? NN : NDIV), &b[i]) == CUTE_OK;
    if (ok) {
        printf("%s (%s), %s %s\n", d->name, d->arch, ptx ? "the PTX backend, the driver's JIT; not NVRTC" : "NVRTC",
               cute_nvrtc_path(nv));
        for (int s = 0; s < NN; s++) check_conversions(&g, s, b[0], b[1]);
        if (ptx)
            SKIP("the atomics: CAS loops are the CUDA C backend's");
        else
            check_atomics(&g, b[0]);
        check_shuffles(&g, b[0]);
        check_f16_add(&g, b[0], b[1], b[2]);
        check_smem_pointers(&g, b[3]);
        check_divide(&g, b[0], b[1]);
    }
    for (int i = 0; i < 4; i++)
        if (b[i]) cute_cuda_free(cu, b[i]);
    if (g.module) cute_cuda_module_unload(cu, g.module);
    cute_nvrtc_output_free(&o);
    free(src);
    for (int i = 0; i < NK; i++) cute_ir_func_free(k[i]);
}

int main(void)
{
    char err[512], why[600];
    cute_cuda *cu = NULL;
    cute_nvrtc *nv = NULL;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        snprintf(why, sizeof why, "no NVRTC: %s", err);
        SKIP(why);
    } else if (cute_cuda_open(NULL, &cu, err, sizeof err) != CUTE_OK) {
        /* no GPU: the kernels still compile (for sm_90a), they just do not run */
        cute_ir_func *k[NK];
        char *src = NULL;
        cute_nvrtc_output o = {0};
        if (build(nv, "sm_90a", k, &src, &o) && cute_ptx_wanted()) {
            char *log = NULL;
            cute_status s = cute_ptx_assemble(src, "sm_90a", 3, NULL, NULL, &log, NULL, err, sizeof err);
            CHECK(s == CUTE_OK || s == CUTE_ERR_NO_DRIVER, "ptxas: %s", err);
            free(log);
        }
        cute_nvrtc_output_free(&o);
        free(src);
        for (int i = 0; i < NK; i++) cute_ir_func_free(k[i]);
        snprintf(why, sizeof why, "no GPU, compiled only: %s", err);
        SKIP(why);
    } else {
        run(cu, nv);
    }
    cute_nvrtc_close(nv);
    cute_cuda_close(cu);
    return CHECK_DONE("backend/cuda_c_gpu");
}
