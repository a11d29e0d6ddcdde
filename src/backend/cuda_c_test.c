/* The CUDA C backend, compile-only (no GPU needed): IR built by hand -> verified -> CUDA C
 * -> NVRTC for sm_80 and sm_90a (and sm_75, the bf16 fallbacks); a golden source; the
 * SASS of a vectorized f16 add.
 *   CUTEC_UPDATE_GOLDEN=1  rewrites the goldens (src/backend/testdata/) from the output
 *   CUTEC_CUOBJDUMP=path   the cuobjdump to use (else /usr/local/cuda/bin, then PATH)
 * Without NVRTC the compile checks are skipped, visibly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/ir.h"
#include "cutec/nvrtc.h"

#define T(d) cute_type_of(CUTE_##d)
#define GPTR(d) cute_type_ptr(CUTE_##d, CUTE_GMEM)
#define AT(b) ((b)->file = "cuda_c_test.c", (b)->line = __LINE__)

static const cute_dtype numeric[] = {CUTE_I1,   CUTE_I8,  CUTE_I16, CUTE_I32, CUTE_I64,
                                     CUTE_U8,   CUTE_U16, CUTE_U32, CUTE_U64, CUTE_F16,
                                     CUTE_BF16, CUTE_F32, CUTE_F64};
#define NNUM (int)(sizeof numeric / sizeof numeric[0])

static cute_vreg op(cute_ir_builder *b, cute_op o, cute_type t, cute_vreg a0, cute_vreg a1,
                    cute_vreg a2, int64_t imm)
{
    cute_vreg r = cute_ir_op(b, o, t, a0, a1, a2);
    b->last->imm = imm;
    return r;
}

/* PRINTF / ASM: operands defined before, listed in v */

/* blockIdx.x * blockDim.x + threadIdx.x */
static cute_vreg global_index(cute_ir_builder *b)
{
    cute_vreg bid = cute_ir_sreg(b, CUTE_SREG_CTAID_X), bdim = cute_ir_sreg(b, CUTE_SREG_NTID_X);
    cute_vreg tid = cute_ir_sreg(b, CUTE_SREG_TID_X);
    return cute_ir_op(b, CUTE_OP_FMA, T(I32), bid, bdim, tid);
}

/* element k of the byte buffer raw, seen as dtype d */
static cute_vreg elem_ptr(cute_ir_builder *b, cute_vreg raw, cute_dtype d, int k)
{
    cute_vreg p = cute_ir_op(b, CUTE_OP_BITCAST, cute_type_ptr(d, CUTE_GMEM), raw, 0, 0);
    return cute_ir_op(b, CUTE_OP_PTR_ADD, cute_type_ptr(d, CUTE_GMEM), p,
                      cute_ir_const_int(b, CUTE_I32, k), 0);
}

static cute_vreg load_as(cute_ir_builder *b, cute_vreg raw, cute_type t, int k)
{
    int bytes = cute_dtype_bytes((cute_dtype)t.dtype) * t.lanes;
    int align = 1;
    while (align < bytes) align *= 2;
    return op(b, CUTE_OP_LOAD, t, elem_ptr(b, raw, (cute_dtype)t.dtype, k), 0, 0, align);
}

static void store_as(cute_ir_builder *b, cute_vreg raw, cute_vreg v, int k)
{
    cute_type t = cute_ir_type(b->f, v);
    int bytes = cute_dtype_bytes((cute_dtype)t.dtype) * t.lanes;
    int align = 1;
    while (align < bytes) align *= 2;
    cute_ir_op_void(b, CUTE_OP_STORE, t, elem_ptr(b, raw, (cute_dtype)t.dtype, k), v, 0, align);
}

/* --- the kernels ------------------------------------------------------------------------ */

/* C[8i..8i+8) = A + B in f16: one 16-byte load per operand, per-lane CVT/ADD, one store */
static cute_ir_func *f16_add(void)
{
    cute_ir_func *f = cute_ir_func_new("f16_add");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    f->max_threads = 128;
    cute_vreg A = cute_ir_add_param(f, GPTR(F16), "A"), B = cute_ir_add_param(f, GPTR(F16), "B");
    cute_vreg C = cute_ir_add_param(f, GPTR(F16), "C");
    cute_vreg i = cute_ir_op(&b, CUTE_OP_MUL, T(I32), global_index(&b),
                             cute_ir_const_int(&b, CUTE_I32, 8), 0);
    cute_type v8 = cute_type_vec(CUTE_F16, 8);
    cute_vreg pa = cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F16), A, i, 0);
    cute_vreg pb = cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F16), B, i, 0);
    cute_vreg pc = cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F16), C, i, 0);
    cute_vreg va = op(&b, CUTE_OP_LOAD, v8, pa, 0, 0, 16),
              vb = op(&b, CUTE_OP_LOAD, v8, pb, 0, 0, 16);
    cute_vreg vc = va;
    for (int l = 0; l < 8; l++) {
        cute_vreg x = op(&b, CUTE_OP_EXTRACT, T(F16), va, 0, 0, l);
        cute_vreg y = op(&b, CUTE_OP_EXTRACT, T(F16), vb, 0, 0, l);
        cute_vreg s =
            cute_ir_op(&b, CUTE_OP_ADD, T(F32), cute_ir_op(&b, CUTE_OP_CVT, T(F32), x, 0, 0),
                       cute_ir_op(&b, CUTE_OP_CVT, T(F32), y, 0, 0), 0);
        vc = op(&b, CUTE_OP_INSERT, v8, vc, cute_ir_op(&b, CUTE_OP_CVT, T(F16), s, 0, 0), 0, l);
    }
    cute_ir_op_void(&b, CUTE_OP_STORE, v8, pc, vc, 0, 16);
    return f;
}

/* y[i] = a * x[i] + y[i] when i < n, else a small loop: the golden kernel (fixed sites) */
static cute_ir_func *axpy(void)
{
    cute_ir_func *f = cute_ir_func_new("axpy");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    b.file = "axpy.c", b.line = 3;
    cute_vreg x = cute_ir_add_param(f, GPTR(F32), "x"), y = cute_ir_add_param(f, GPTR(F32), "y");
    cute_vreg a = cute_ir_add_param(f, T(F32), "a"), n = cute_ir_add_param(f, T(I32), "n");
    cute_vreg i = global_index(&b);
    b.line = 4;
    cute_ir_if(&b, cute_ir_op(&b, CUTE_OP_LT, T(I1), i, n, 0));
    b.line = 5;
    cute_vreg px = cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F32), x, i, 0);
    cute_vreg py = cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(F32), y, i, 0);
    cute_vreg r = cute_ir_op(&b, CUTE_OP_FMA, T(F32), a, op(&b, CUTE_OP_LOAD, T(F32), px, 0, 0, 4),
                             op(&b, CUTE_OP_LOAD, T(F32), py, 0, 0, 4));
    cute_ir_op_void(&b, CUTE_OP_STORE, T(F32), py, r, 0, 4);
    cute_ir_else(&b);
    b.line = 7;
    cute_vreg s = cute_ir_new_vreg(f, T(F32), "sum", true);
    cute_ir_mov(&b, s, cute_ir_const_float(&b, CUTE_F32, 0.5));
    cute_vreg k = cute_ir_new_vreg(f, T(I32), "k", false);
    cute_ir_for(&b, k, cute_ir_const_int(&b, CUTE_I32, 0), n, 2, 4);
    b.line = 8;
    cute_ir_mov(&b, s, cute_ir_op(&b, CUTE_OP_EXP, T(F32), s, 0, 0));
    cute_ir_end(&b);
    b.line = 9;
    cute_ir_op_void(&b, CUTE_OP_STORE, T(F32), y, s, 0, 4);
    cute_ir_end(&b);
    return f;
}

/* loops (four unroll hints, a mutable loop variable), WHILE with BREAK, IF/ELSE, RETURN */
static void everything_flow(cute_ir_builder *b, cute_vreg X, cute_vreg Y, cute_vreg n,
                            cute_vreg acc)
{
    AT(b);
    cute_vreg zero = cute_ir_const_int(b, CUTE_I32, 0);
    /* none, full, by 4, mutable variable, peeled, peeled with a mutable variable */
    for (int form = 0; form < 6; form++) {
        bool mut = form == 3 || form == 5;
        int unroll = form >= 4 ? CUTE_FOR_PEEL_FIRST : form == 2 ? 4 : form == 1;
        cute_vreg k = cute_ir_new_vreg(b->f, T(I32), "k", mut);
        cute_ir_for(b, k, zero, n, mut ? 2 : 1, unroll);
        cute_vreg x = op(b, CUTE_OP_LOAD, T(F32),
                         cute_ir_op(b, CUTE_OP_PTR_ADD, GPTR(F32), X, k, 0), 0, 0, 4);
        cute_ir_mov(b, acc, cute_ir_op(b, CUTE_OP_ADD, T(F32), acc, x, 0));
        cute_ir_end(b);
    }
    cute_vreg j = cute_ir_new_vreg(b->f, T(I32), "j", true);
    cute_ir_mov(b, j, zero);
    AT(b);
    cute_ir_while(b); /* while (j < n) { j += 1; if (j == 5) break; } */
    cute_ir_while_body(b, cute_ir_op(b, CUTE_OP_LT, T(I1), j, n, 0));
    cute_ir_mov(b, j, cute_ir_op(b, CUTE_OP_ADD, T(I32), j, cute_ir_const_int(b, CUTE_I32, 1), 0));
    cute_ir_if(b, cute_ir_op(b, CUTE_OP_EQ, T(I1), j, cute_ir_const_int(b, CUTE_I32, 5), 0));
    cute_ir_op_void(b, CUTE_OP_BREAK, T(VOID), 0, 0, 0, 0);
    cute_ir_end(b);
    cute_ir_end(b);
    AT(b);
    cute_ir_if(b, cute_ir_op(b, CUTE_OP_GT, T(I1), j, n, 0));
    cute_ir_mov(b, acc, cute_ir_op(b, CUTE_OP_NEG, T(F32), acc, 0, 0));
    cute_ir_else(b);
    cute_ir_op_void(b, CUTE_OP_STORE, T(F32), Y, acc, 0, 4);
    cute_ir_op_void(b, CUTE_OP_RETURN, T(VOID), 0, 0, 0, 0);
    cute_ir_end(b);
}

/* shuffles of every mode and width (and a pointer), votes, SELECT, an atomic */
static void everything_warp(cute_ir_builder *b, cute_vreg Y, cute_vreg acc)
{
    AT(b);
    cute_vreg lane = cute_ir_const_int(b, CUTE_I32, 3);
    static const cute_dtype types[] = {CUTE_I32, CUTE_U32, CUTE_F32, CUTE_I64, CUTE_U64, CUTE_F64};
    for (int mode = 0; mode < 4; mode++)
        for (int t = 0; t < 6; t++) {
            cute_vreg v = cute_ir_op(b, CUTE_OP_CVT, cute_type_of(types[t]), acc, 0, 0);
            cute_vreg s = op(b, CUTE_OP_SHFL, cute_type_of(types[t]), v, lane, 0, mode);
            cute_ir_mov(b, acc,
                        cute_ir_op(b, CUTE_OP_ADD, T(F32), acc,
                                   cute_ir_op(b, CUTE_OP_CVT, T(F32), s, 0, 0), 0));
        }
    cute_vreg ps = op(b, CUTE_OP_SHFL, GPTR(F32), Y, lane, 0, CUTE_SHFL_IDX);
    cute_vreg pred = cute_ir_op(b, CUTE_OP_GT, T(I1), acc, cute_ir_const_float(b, CUTE_F32, 0), 0);
    cute_vreg any = op(b, CUTE_OP_VOTE, T(I1), pred, 0, 0, CUTE_VOTE_ANY);
    cute_vreg all = op(b, CUTE_OP_VOTE, T(I1), pred, 0, 0, CUTE_VOTE_ALL);
    cute_vreg ballot = op(b, CUTE_OP_VOTE, T(U32), pred, 0, 0, CUTE_VOTE_BALLOT);
    cute_vreg both = cute_ir_op(b, CUTE_OP_AND, T(I1), any, all, 0);
    cute_vreg sel = cute_ir_op(b, CUTE_OP_SELECT, T(F32), both, acc,
                               cute_ir_op(b, CUTE_OP_CVT, T(F32), ballot, 0, 0));
    cute_ir_mov(b, acc, op(b, CUTE_OP_ATOMIC, T(F32), ps, sel, 0, CUTE_ATOMIC_ADD));
}

/* printf, asm with operands of every constraint (and temporaries), shared memory */
static void everything_io(cute_ir_builder *b, cute_vreg Y, cute_vreg acc)
{
    AT(b);
    cute_ir_func *f = b->f;
    cute_vreg h = cute_ir_const_float(b, CUTE_F16, 1.5), t1 = cute_ir_const_int(b, CUTE_I1, 1);
    cute_vreg u = cute_ir_const_int(b, CUTE_U64, -1), c8 = cute_ir_const_int(b, CUTE_U8, 200);
    cute_vreg tid = cute_ir_sreg(b, CUTE_SREG_TID_X);
    cute_ir_varop(b, CUTE_OP_PRINTF, "tid %d acc %f h %f p %d u %llu c %u \"q\"?\?=\t\\\n",
                  (cute_vreg[]){tid, acc, h, t1, u, c8}, 6, 0);
    cute_vreg o1 = cute_ir_new_vreg(f, T(F32), "sum", false);
    cute_ir_varop(b, CUTE_OP_ASM, "add.f32 %0, %1, %2;", (cute_vreg[]){o1, acc, acc}, 3, 1);
    cute_vreg o2 = cute_ir_new_vreg(f, GPTR(F32), NULL, false);
    cute_ir_varop(b, CUTE_OP_ASM, "mov.b64 %0, %1;", (cute_vreg[]){o2, Y}, 2, 1);
    cute_vreg o3 = cute_ir_new_vreg(f, T(I1), NULL, false);
    cute_ir_varop(b, CUTE_OP_ASM, "{ .reg .pred p; setp.ne.u32 p, %1, 0; selp.u32 %0, 1, 0, p; }",
                  (cute_vreg[]){o3, t1}, 2, 1);
    cute_vreg o4 = cute_ir_new_vreg(f, T(U8), NULL, false),
              o5 = cute_ir_new_vreg(f, T(F16), NULL, false);
    cute_ir_varop(b, CUTE_OP_ASM, "mov.b16 %0, %2; mov.b16 %1, %3;", (cute_vreg[]){o4, o5, c8, h},
                  4, 2);
    cute_vreg o6 = cute_ir_new_vreg(f, T(F64), NULL, false),
              o7 = cute_ir_new_vreg(f, T(I64), NULL, true);
    cute_ir_varop(b, CUTE_OP_ASM, "cvt.f64.f32 %0, %2; mov.b64 %1, %3;",
                  (cute_vreg[]){o6, o7, o1, u}, 4, 2);
    cute_ir_varop(b, CUTE_OP_ASM, "membar.gl;", NULL, 0, 0);
    cute_ir_varop(b, CUTE_OP_ASM, "st.global.f32 [%0], %1;", (cute_vreg[]){o2, o1}, 2, 0);
    cute_vreg any =
        cute_ir_op(b, CUTE_OP_OR, T(I1), o3, cute_ir_op(b, CUTE_OP_EQ, T(I1), o4, c8, 0), 0);
    cute_vreg w = cute_ir_op(b, CUTE_OP_SELECT, T(F64), any, o6,
                             cute_ir_op(b, CUTE_OP_CVT, T(F64), o7, 0, 0));
    cute_ir_mov(b, acc, cute_ir_op(b, CUTE_OP_CVT, T(F32), w, 0, 0));
    /* shared memory: each thread writes its slot, a barrier, then reads its neighbour's */
    cute_type sp = cute_type_ptr(CUTE_F32, CUTE_SMEM);
    cute_vreg base = op(b, CUTE_OP_SMEM_PTR, sp, 0, 0, 0, 16);
    cute_ir_op_void(b, CUTE_OP_STORE, T(F32), cute_ir_op(b, CUTE_OP_PTR_ADD, sp, base, tid, 0), acc,
                    0, 4);
    cute_ir_op_void(b, CUTE_OP_BARRIER, T(VOID), 0, 0, 0, 0);
    cute_vreg next = cute_ir_op(b, CUTE_OP_XOR, T(I32), tid, cute_ir_const_int(b, CUTE_I32, 1), 0);
    cute_vreg nb =
        op(b, CUTE_OP_LOAD, T(F32), cute_ir_op(b, CUTE_OP_PTR_ADD, sp, base, next, 0), 0, 0, 4);
    cute_ir_mov(b, acc, cute_ir_op(b, CUTE_OP_ADD, T(F32), acc, nb, 0));
}

/* every SREG, every f32 MATH op (precise and fast), bitcasts, EXTRACT/INSERT */
static void everything_values(cute_ir_builder *b, cute_vreg Y, cute_vreg acc)
{
    AT(b);
    cute_vreg sum = cute_ir_const_int(b, CUTE_I32, 0);
    for (int s = 0; s < CUTE_SREG_COUNT; s++)
        sum = cute_ir_op(b, CUTE_OP_ADD, T(I32), sum, cute_ir_sreg(b, (cute_sreg)s), 0);
    cute_ir_mov(
        b, acc,
        cute_ir_op(b, CUTE_OP_ADD, T(F32), acc, cute_ir_op(b, CUTE_OP_CVT, T(F32), sum, 0, 0), 0));
    for (int fast = 0; fast < 2; fast++)
        for (int o = CUTE_OP_EXP; o <= CUTE_OP_POW; o++) {
            cute_vreg r = cute_ir_op(b, (cute_op)o, T(F32), acc, o == CUTE_OP_POW ? acc : 0, 0);
            b->last->flags = fast ? CUTE_IR_FAST : 0;
            cute_ir_mov(b, acc, r);
        }
    cute_vreg bits = cute_ir_op(b, CUTE_OP_BITCAST, T(U32), acc, 0, 0);
    cute_vreg h2 = cute_ir_op(b, CUTE_OP_BITCAST, cute_type_vec(CUTE_F16, 2), bits, 0, 0);
    cute_vreg h = op(b, CUTE_OP_EXTRACT, T(F16), h2, 0, 0, 1);
    cute_vreg hb = cute_ir_op(b, CUTE_OP_BITCAST, T(U16), h, 0, 0);
    cute_vreg bf = cute_ir_op(b, CUTE_OP_BITCAST, T(BF16), hb, 0, 0);
    cute_vreg b2 =
        op(b, CUTE_OP_INSERT, cute_type_vec(CUTE_BF16, 2),
           cute_ir_op(b, CUTE_OP_BITCAST, cute_type_vec(CUTE_BF16, 2), bits, 0, 0), bf, 0, 0);
    cute_vreg back = cute_ir_op(b, CUTE_OP_BITCAST, T(F32), b2, 0, 0);
    cute_vreg d = cute_ir_op(b, CUTE_OP_BITCAST, T(I64),
                             cute_ir_op(b, CUTE_OP_CVT, T(F64), back, 0, 0), 0, 0);
    cute_vreg p = cute_ir_op(b, CUTE_OP_BITCAST, GPTR(F32),
                             cute_ir_op(b, CUTE_OP_BITCAST, T(U64), Y, 0, 0), 0, 0);
    cute_vreg v4 = load_as(b, cute_ir_op(b, CUTE_OP_BITCAST, GPTR(U8), p, 0, 0),
                           cute_type_vec(CUTE_F32, 4), 0);
    cute_vreg e2 = op(b, CUTE_OP_EXTRACT, T(F32), v4, 0, 0, 2);
    cute_ir_mov(
        b, acc,
        cute_ir_op(b, CUTE_OP_ADD, T(F32), e2, cute_ir_op(b, CUTE_OP_CVT, T(F32), d, 0, 0), 0));
}

static cute_ir_func *everything(void)
{
    cute_ir_func *f = cute_ir_func_new("everything");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    f->smem_bytes = 1024;
    f->max_threads = 256;
    cute_vreg X = cute_ir_add_param(f, GPTR(F32), "X"), Y = cute_ir_add_param(f, GPTR(F32), "Y");
    cute_vreg n = cute_ir_add_param(f, T(I32), "n");
    cute_vreg acc = cute_ir_new_vreg(f, T(F32), "acc", true);
    cute_ir_mov(&b, acc, cute_ir_const_float(&b, CUTE_F32, 0));
    everything_values(&b, Y, acc);
    everything_warp(&b, Y, acc);
    everything_io(&b, Y, acc);
    everything_flow(&b, X, Y, n, acc);
    AT(&b);
    cute_ir_op_void(&b, CUTE_OP_STORE, T(F32), Y, acc, 0, 4);
    return f;
}

/* CVT from every numeric type to every other, values loaded so nothing folds */
static cute_ir_func *cvt_all(void)
{
    cute_ir_func *f = cute_ir_func_new("cvt_all");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg in = cute_ir_add_param(f, GPTR(U8), "in"),
              out = cute_ir_add_param(f, GPTR(U8), "out");
    for (int s = 0; s < NNUM; s++) {
        cute_vreg x = load_as(&b, in, cute_type_of(numeric[s]), s);
        for (int t = 0; t < NNUM; t++)
            store_as(&b, out, cute_ir_op(&b, CUTE_OP_CVT, cute_type_of(numeric[t]), x, 0, 0),
                     s * NNUM + t);
    }
    /* lane by lane, and pointers to and from integers */
    cute_vreg v = load_as(&b, in, cute_type_vec(CUTE_I8, 4), 0);
    store_as(&b, out, cute_ir_op(&b, CUTE_OP_CVT, cute_type_vec(CUTE_BF16, 4), v, 0, 0), 0);
    cute_vreg addr = cute_ir_op(&b, CUTE_OP_CVT, T(U64), in, 0, 0);
    cute_vreg p = cute_ir_op(&b, CUTE_OP_CVT, GPTR(F32), addr, 0, 0);
    store_as(&b, out, cute_ir_op(&b, CUTE_OP_CVT, T(I64), p, 0, 0), 1);
    return f;
}

/* does the CUDA C backend give op a meaning on dtype d (else it must refuse it)? */
static bool arith_defined(cute_op o, cute_dtype d)
{
    bool cmp = o >= CUTE_OP_EQ && o <= CUTE_OP_GE, math = o >= CUTE_OP_EXP && o <= CUTE_OP_POW;
    bool bits = o >= CUTE_OP_SHL && o <= CUTE_OP_NOT;
    if (d == CUTE_I1)
        return o == CUTE_OP_AND || o == CUTE_OP_OR || o == CUTE_OP_XOR || o == CUTE_OP_NOT ||
               o == CUTE_OP_MIN || o == CUTE_OP_MAX || o == CUTE_OP_EQ || o == CUTE_OP_NE;
    if (cute_dtype_is_float(d)) return !bits;
    return !math || cmp;
}

static bool arith_op(cute_op o)
{
    return (o >= CUTE_OP_ADD && o <= CUTE_OP_NOT) || (o >= CUTE_OP_EQ && o <= CUTE_OP_GE) ||
           (o >= CUTE_OP_EXP && o <= CUTE_OP_POW);
}

/* op on a type: result of the op's class */
static cute_vreg apply(cute_ir_builder *b, cute_op o, cute_type t, cute_vreg x, cute_vreg y,
                       unsigned flags)
{
    bool cmp = o >= CUTE_OP_EQ && o <= CUTE_OP_GE;
    int n = cute_op_nargs(o);
    cute_vreg r = cute_ir_op(b, o, cmp ? T(I1) : t, x, n > 1 ? y : 0, n > 2 ? x : 0);
    b->last->flags = (uint16_t)flags;
    return r;
}

/* every arithmetic, comparison and math op on every type that has it; vectors lane-wise */
static cute_ir_func *arith_all(void)
{
    cute_ir_func *f = cute_ir_func_new("arith_all");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg in = cute_ir_add_param(f, GPTR(U8), "in"),
              out = cute_ir_add_param(f, GPTR(U8), "out");
    int k = 0;
    for (int s = 0; s < NNUM; s++) {
        cute_type t = cute_type_of(numeric[s]);
        cute_vreg x = load_as(&b, in, t, 2 * s), y = load_as(&b, in, t, 2 * s + 1);
        for (int o = 0; o < CUTE_OP_COUNT; o++)
            for (int fast = 0; fast < 2; fast++) {
                if (!arith_op((cute_op)o) || !arith_defined((cute_op)o, numeric[s])) continue;
                if (fast && !(o >= CUTE_OP_EXP && o <= CUTE_OP_POW)) continue;
                store_as(&b, out, apply(&b, (cute_op)o, t, x, y, fast ? CUTE_IR_FAST : 0), k++);
            }
    }
    static const cute_dtype vt[] = {CUTE_F16, CUTE_BF16, CUTE_F32, CUTE_I8, CUTE_U16};
    for (int s = 0; s < 5; s++) {
        cute_type t = cute_type_vec(vt[s], 4);
        cute_vreg x = load_as(&b, in, t, 0);
        cute_vreg r = apply(&b, CUTE_OP_FMA, t, x, apply(&b, CUTE_OP_NEG, t, x, 0, 0), 0);
        if (cute_dtype_is_float(vt[s])) r = apply(&b, CUTE_OP_EXP, t, r, 0, CUTE_IR_FAST);
        store_as(&b, out,
                 cute_ir_op(&b, CUTE_OP_SELECT, t, cute_ir_const_int(&b, CUTE_I1, 1), r, x), 0);
    }
    return f;
}

/* every atomic mode (and CAS) on every 16/32/64-bit type */
static cute_ir_func *atomics_all(void)
{
    static const cute_dtype types[] = {CUTE_I16, CUTE_U16, CUTE_I32,  CUTE_U32, CUTE_I64,
                                       CUTE_U64, CUTE_F16, CUTE_BF16, CUTE_F32, CUTE_F64};
    cute_ir_func *f = cute_ir_func_new("atomics_all");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg in = cute_ir_add_param(f, GPTR(U8), "in"),
              mem = cute_ir_add_param(f, GPTR(U8), "mem");
    for (int s = 0; s < 10; s++) {
        cute_type t = cute_type_of(types[s]);
        cute_vreg x = load_as(&b, in, t, s), p = elem_ptr(&b, mem, types[s], s);
        for (int mode = 0; mode < 4; mode++) x = op(&b, CUTE_OP_ATOMIC, t, p, x, 0, mode);
        x = cute_ir_op(&b, CUTE_OP_ATOMIC_CAS, t, p, x, load_as(&b, in, t, s + 1));
        store_as(&b, in, x, s);
    }
    /* on shared memory too */
    f->smem_bytes = 64;
    cute_vreg sp = op(&b, CUTE_OP_SMEM_PTR, cute_type_ptr(CUTE_I32, CUTE_SMEM), 0, 0, 0, 0);
    op(&b, CUTE_OP_ATOMIC, T(I32), sp, cute_ir_const_int(&b, CUTE_I32, 1), 0, CUTE_ATOMIC_ADD);
    return f;
}

/* loads and stores of 1..16 bytes, whole and lane by lane, global and shared */
static cute_ir_func *vec_mem(void)
{
    cute_ir_func *f = cute_ir_func_new("vec_mem");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    f->smem_bytes = 256;
    cute_vreg in = cute_ir_add_param(f, GPTR(U8), "in"),
              out = cute_ir_add_param(f, GPTR(U8), "out");
    static const struct {
        cute_dtype d;
        int lanes;
    } vs[] = {{CUTE_F32, 2}, {CUTE_F32, 4},  {CUTE_I8, 4}, {CUTE_U8, 3},  {CUTE_F16, 2},
              {CUTE_F64, 2}, {CUTE_BF16, 4}, {CUTE_I1, 2}, {CUTE_U64, 2}, {CUTE_F32, 3}};
    cute_vreg smem = op(&b, CUTE_OP_SMEM_PTR, cute_type_ptr(CUTE_U8, CUTE_SMEM), 0, 0, 0, 0);
    for (int i = 0; i < (int)(sizeof vs / sizeof vs[0]); i++) {
        cute_type t = cute_type_vec(vs[i].d, vs[i].lanes);
        cute_vreg v = load_as(&b, in, t, 0);
        store_as(&b, out, v, 0);
        cute_type sp = cute_type_ptr(vs[i].d, CUTE_SMEM);
        cute_vreg p = cute_ir_op(&b, CUTE_OP_BITCAST, sp, smem, 0, 0);
        cute_ir_op_void(&b, CUTE_OP_STORE, t, p, v, 0, 16);
        cute_vreg w = op(&b, CUTE_OP_LOAD, t, p, 0, 0, 16);
        store_as(&b, out, w, 1);
    }
    return f;
}

/* --- helpers ---------------------------------------------------------------------------- */

static char *emit(cute_ir_func *const *k, int n, const cute_cuda_c_opts *o)
{
    char err[512], *src = NULL;
    for (int i = 0; i < n; i++) {
        int v = cute_ir_verify(k[i], err, sizeof err);
        CHECK(v == 0, "%s", err);
        if (v) cute_ir_dump(stderr, k[i]);
    }
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)k, n, o, &src, err, sizeof err);
    CHECK(s == CUTE_OK && src, "emit: %s", err);
    return src;
}

/* compile src for arch; the output (caller frees) or NULL after a failed check */
static bool compile(cute_nvrtc *nv, const char *src, const char *arch, bool lineinfo,
                    cute_nvrtc_output *o)
{
    cute_status s =
        cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = arch, .lineinfo = lineinfo}, o);
    CHECK(s == CUTE_OK && o->cubin_size > 0 && o->ptx_size > 0, "%s: status %d, log:\n%s", arch,
          (int)s, o->log);
    if (s != CUTE_OK && getenv("CUTEC_TEST_VERBOSE")) fprintf(stderr, "%s\n", src);
    return s == CUTE_OK;
}

/* --- the tests -------------------------------------------------------------------------- */

static void test_bits(void)
{
    CHECK(cute_f16_bits(1.0) == 0x3c00, "%04x", cute_f16_bits(1.0));
    CHECK(cute_f16_bits(65504) == 0x7bff, "max");
    CHECK(cute_f16_bits(65519.99) == 0x7bff && cute_f16_bits(65520) == 0x7c00, "overflow tie");
    CHECK(cute_f16_bits(ldexp(1, -24)) == 0x0001, "smallest subnormal");
    CHECK(cute_f16_bits(ldexp(1, -25)) == 0x0000, "tie to even: 0");
    CHECK(cute_f16_bits(ldexp(3, -25)) == 0x0002, "tie to even: 2");
    CHECK(cute_f16_bits(ldexp(1023, -24)) == 0x03ff, "largest subnormal");
    CHECK(cute_f16_bits(ldexp(2047, -25)) == 0x0400, "rounds up to the smallest normal");
    CHECK(cute_f16_bits(-0.0) == 0x8000 && cute_f16_bits(-2) == 0xc000, "signs");
    CHECK(cute_f16_bits(0.1) == 0x2e66 && cute_f16_bits(1.0 / 3) == 0x3555, "0.1, 1/3");
    CHECK(cute_f16_bits(NAN) == 0x7e00 && cute_f16_bits(-INFINITY) == 0xfc00, "nan, -inf");
    CHECK(cute_bf16_bits(1.0) == 0x3f80 && cute_bf16_bits(0.1) == 0x3dcd, "bf16 1, 0.1");
    /* 1 + 2^-8 + 2^-30 is above the bf16 midpoint; through f32 it would be a tie (-> 1.0) */
    CHECK(cute_bf16_bits(1 + ldexp(1, -8) + ldexp(1, -30)) == 0x3f81, "one rounding");
    CHECK(cute_bf16_bits(1 + ldexp(1, -8)) == 0x3f80, "tie to even");
    CHECK(cute_bf16_bits(3.4e38) == 0x7f80 && cute_bf16_bits(3.38e38) == 0x7f7e, "bf16 top");
    CHECK(cute_bf16_bits(ldexp(1, -133)) == 0x0001 && cute_bf16_bits(NAN) == 0x7fc0, "bf16 sub");
    size_t size, align;
    cute_cuda_c_param_abi(cute_type_vec(CUTE_F32, 3), &size, &align);
    CHECK(size == 12 && align == 4, "f32x3: %zu %zu", size, align);
    cute_cuda_c_param_abi(cute_type_vec(CUTE_F16, 8), &size, &align);
    CHECK(size == 16 && align == 16, "f16x8: %zu %zu", size, align);
    cute_cuda_c_param_abi(GPTR(F16), &size, &align);
    CHECK(size == 8 && align == 8, "ptr");
}

/* the emitted source of axpy, against testdata/axpy.cu */
/* __restrict__ only on the pointers of a kernel that says they never alias */
static void test_restrict(void)
{
    cute_ir_func *k = axpy();
    char *src = emit(&k, 1, NULL);
    CHECK(src && strstr(src, "f32 *r1_x, f32 *r2_y") && !strstr(src, "__restrict__"),
          "pointers that may alias: no __restrict__:\n%s", src ? src : "");
    free(src);
    k->noalias = true;
    src = emit(&k, 1, &(cute_cuda_c_opts){.no_restrict = true});
    CHECK(src && !strstr(src, "__restrict__"), "no_restrict drops it from a noalias kernel");
    free(src);
    cute_ir_func_free(k);
}

static void test_golden(void)
{
    const char *path = "src/backend/testdata/axpy.cu";
    cute_ir_func *k = axpy();
    k->noalias = true;
    char *src = emit(&k, 1, NULL);
    if (src && getenv("CUTEC_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs(src, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
        fprintf(stderr, "rewrote %s\n", path);
    }
    char *want = check_read_file(path);
    if (!want) {
        SKIP("src/backend/testdata/axpy.cu not found (run from the repository root)");
    } else if (src) {
        CHECK(strcmp(src, want) == 0, "%s differs from the emitted source:\n%s", path, src);
    }
    free(want);
    free(src);
    cute_ir_func_free(k);
}

static void refuses(cute_ir_func *f, cute_status want, const char *what, const char *arch)
{
    char err[512], *src = NULL;
    cute_cuda_c_opts o = {.arch = arch};
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &o, &src, err, sizeof err);
    CHECK(s == want && !src && strstr(err, what), "%s: status %d: %s", what, (int)s, err);
    free(src);
    cute_ir_func_free(f);
}

/* CUTE_FOR_PEEL_FIRST: the body once with the variable a constant (k == 0 there, a
 * branch NVCC folds), then the loop from lo + step, the bound's statement between them (the
 * body does not read it; read after the loop too); the verifier and the backend refuse it
 * over a BREAK of the loop's, the verifier an unroll below it */
static void test_peel(void)
{
    cute_ir_func *f = cute_ir_func_new("peel");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg y = cute_ir_add_param(f, GPTR(I32), "y"), n = cute_ir_add_param(f, T(I32), "n");
    cute_vreg k = cute_ir_new_vreg(f, T(I32), "k", false);
    cute_vreg lo = cute_ir_const_int(&b, CUTE_I32, 3);
    cute_vreg hi = cute_ir_op(&b, CUTE_OP_MUL, T(I32), n, cute_ir_const_int(&b, CUTE_I32, 4), 0);
    cute_ir_for(&b, k, lo, hi, 2, CUTE_FOR_PEEL_FIRST);
    uint32_t at = f->body.n - 1; /* the FOR */
    cute_ir_if(&b, cute_ir_op(&b, CUTE_OP_EQ, T(I1), k, cute_ir_const_int(&b, CUTE_I32, 3), 0));
    cute_ir_op_void(&b, CUTE_OP_STORE, T(I32), cute_ir_op(&b, CUTE_OP_PTR_ADD, GPTR(I32), y, k, 0),
                    k, 0, 4);
    cute_ir_end(&b);
    cute_ir_end(&b);
    cute_ir_op_void(&b, CUTE_OP_STORE, T(I32), y, hi, 0, 4);
    char err[512], want[3][64];
    cute_ir_func *one[] = {f};
    char *src = emit(one, 1, &(cute_cuda_c_opts){.arch = "sm_90a"});
    snprintf(want[0], sizeof want[0], "const i32 r%u_k = 3;", k);
    snprintf(want[1], sizeof want[1], " r%u = ", hi);
    snprintf(want[2], sizeof want[2], "for (i32 r%u_k = 3 + 2; r%u_k < r%u;", k, k, hi);
    const char *copy = src ? strstr(src, want[0]) : NULL, *bound = src ? strstr(src, want[1]) : NULL;
    const char *loop = src ? strstr(src, want[2]) : NULL;
    CHECK(copy && bound && loop && copy < bound && bound < loop && !strstr(loop + 1, want[0]),
          "the body once at k = 3, the bound, then the loop from 5:\n%s", src ? src : "");
    free(src);

    f->body.inst[at].imm = -2;
    CHECK(cute_ir_verify(f, err, sizeof err) != 0 && strstr(err, "unroll -2"), "unroll -2: %s",
          err);
    cute_ir_func_free(f);

    f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    n = cute_ir_add_param(f, T(I32), "n"), k = cute_ir_new_vreg(f, T(I32), "k", false);
    cute_ir_for(&b, k, n, n, 1, CUTE_FOR_PEEL_FIRST);
    cute_ir_if(&b, cute_ir_const_int(&b, CUTE_I1, 1));
    cute_ir_op_void(&b, CUTE_OP_BREAK, T(VOID), 0, 0, 0, 0);
    cute_ir_end(&b);
    cute_ir_end(&b);
    CHECK(cute_ir_verify(f, err, sizeof err) != 0 && strstr(err, "with a BREAK of its own"),
          "BREAK: %s", err);
    refuses(f, CUTE_ERR_INVALID, "with a BREAK of its own", NULL);
}

/* what C cannot express is an error naming the kernel and site, not bad code */
static void test_refusals(void)
{
    cute_ir_builder b;
    cute_ir_func *f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg t = cute_ir_const_int(&b, CUTE_I1, 1);
    cute_ir_op(&b, CUTE_OP_ADD, T(I1), t, t, 0);
    refuses(f, CUTE_ERR_UNSUPPORTED, "ADD: not defined on i1", NULL);

    f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg p = cute_ir_add_param(f, GPTR(I8), "p");
    op(&b, CUTE_OP_ATOMIC, T(I8), p, cute_ir_const_int(&b, CUTE_I8, 1), 0, CUTE_ATOMIC_ADD);
    refuses(f, CUTE_ERR_UNSUPPORTED, "no atomics on i8", NULL);

    f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg x = cute_ir_add_param(f, T(F32), "x");
    cute_ir_op(&b, CUTE_OP_AND, T(F32), x, x, 0);
    refuses(f, CUTE_ERR_UNSUPPORTED, "AND: not defined on f32", NULL);

    f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg n = cute_ir_add_param(f, T(I32), "n"), k = cute_ir_new_vreg(f, T(I32), "k", false);
    cute_ir_for(&b, k, n, n, 1, 0);
    cute_ir_while(&b);
    cute_ir_op_void(&b, CUTE_OP_BREAK, T(VOID), 0, 0, 0, 0);
    cute_ir_while_body(&b, cute_ir_const_int(&b, CUTE_I1, 1));
    cute_ir_end(&b);
    cute_ir_end(&b);
    refuses(f, CUTE_ERR_UNSUPPORTED, "BREAK in a WHILE condition", NULL);

    f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_vreg v = cute_ir_add_param(f, cute_type_vec(CUTE_F32, 4), "v");
    cute_vreg o = cute_ir_new_vreg(f, T(F32), NULL, false);
    cute_ir_varop(&b, CUTE_OP_ASM, "mov.b32 %0, %1;", (cute_vreg[]){o, v}, 2, 1);
    refuses(f, CUTE_ERR_UNSUPPORTED, "an asm operand of type f32x4 (16, 32 or 64 bits)", NULL);

    f = cute_ir_func_new("bad");
    cute_ir_builder_init(&b, f);
    AT(&b);
    cute_ir_add_param(f, cute_type_ptr(CUTE_F32, CUTE_SMEM), "s");
    refuses(f, CUTE_ERR_UNSUPPORTED, "parameter 0 points to shared memory", NULL);

    refuses(cute_ir_func_new("not-an-identifier"), CUTE_ERR_INVALID, "not a C identifier", NULL);
    refuses(cute_ir_func_new("ok"), CUTE_ERR_INVALID, "arch sm_60", "sm_60");
    refuses(cute_ir_func_new("ok"), CUTE_ERR_INVALID, "arch gfx90a", "gfx90a");
    /* the target's name by cute_cuda_arch_sm's rule: no 'a' below sm_90, no leading 0 */
    refuses(cute_ir_func_new("ok"), CUTE_ERR_INVALID, "arch sm_80a", "sm_80a");
    refuses(cute_ir_func_new("ok"), CUTE_ERR_INVALID, "arch sm_99999999999", "sm_99999999999");
    cute_ir_func *two[2] = {cute_ir_func_new("same"), cute_ir_func_new("same")};
    char err[256], *src;
    CHECK(cute_cuda_c_emit((const cute_ir_func *const *)two, 2, NULL, &src, err, sizeof err) ==
                  CUTE_ERR_INVALID &&
              strstr(err, "two kernels"),
          "%s", err);
    cute_ir_func_free(two[0]);
    cute_ir_func_free(two[1]);
}

/* a cuobjdump: $CUTEC_CUOBJDUMP, /usr/local/cuda/bin, or on PATH; NULL if none */
static const char *find_cuobjdump(void)
{
    const char *env = getenv("CUTEC_CUOBJDUMP");
    if (env && access(env, X_OK) == 0) return env;
    if (access("/usr/local/cuda/bin/cuobjdump", X_OK) == 0) return "/usr/local/cuda/bin/cuobjdump";
    if (system("command -v cuobjdump >/dev/null 2>&1") == 0) return "cuobjdump";
    return NULL;
}

/* what `tool -sass` prints for a cubin (malloc'd; NULL if it could not run); *ok: it
 * exited 0 */
static char *sass_of(const char *tool, const void *cubin, size_t n, bool *ok)
{
    char path[] = "/tmp/cutec_sass_XXXXXX";
    int fd = mkstemp(path);
    *ok = false;
    if (fd < 0) return NULL;
    bool written = write(fd, cubin, n) == (ssize_t)n;
    close(fd);
    char cmd[600], *out = NULL;
    snprintf(cmd, sizeof cmd, "'%s' -sass '%s' 2>&1", tool, path);
    FILE *p = written ? popen(cmd, "r") : NULL;
    if (p) {
        size_t len = 0, cap = 1 << 16, got;
        out = malloc(cap);
        while (out && (got = fread(out + len, 1, cap - len - 1, p)) > 0) {
            len += got;
            char *more = len + 1 == cap ? realloc(out, cap *= 2) : out;
            if (!more) free(out);
            out = more;
        }
        if (out) out[len] = 0;
        *ok = pclose(p) == 0 && out;
    }
    unlink(path);
    return out;
}

/* f16_add moves 16 bytes per access: PTX ld/st .v4, SASS LDG.E.128 / STG.E.128 */
static void test_f16_vector(cute_nvrtc *nv)
{
    cute_ir_func *k = f16_add();
    char *src = emit(&k, 1, NULL);
    const char *tool = find_cuobjdump();
    for (int a = 0; src && a < 2; a++) {
        const char *arch = a ? "sm_90a" : "sm_80";
        cute_nvrtc_output o;
        if (compile(nv, src, arch, false, &o)) {
            CHECK(strstr(o.ptx, "ld.global.nc.v4.u32") || strstr(o.ptx, "ld.global.v4.u32") ||
                      strstr(o.ptx, "ld.global.nc.v4.b32"),
                  "%s: no 16-byte load in the PTX:\n%s", arch, o.ptx);
            CHECK(strstr(o.ptx, "st.global.v4.u32") || strstr(o.ptx, "st.global.v4.b32"),
                  "%s: no 16-byte store in the PTX", arch);
            bool ran = false;
            char *sass = tool ? sass_of(tool, o.cubin, o.cubin_size, &ran) : NULL;
            if (!tool) {
                if (a == 0) SKIP("no cuobjdump (set CUTEC_CUOBJDUMP): SASS not inspected");
            } else if (!ran && sass && strstr(sass, "nvdisasm")) {
                if (a == 0) SKIP("cuobjdump without nvdisasm: SASS not inspected");
            } else {
                const char *text = sass ? sass : "(none)";
                CHECK(ran, "%s -sass failed: %s", tool, text);
                /* sm_80/90: LDG.E.128.CONSTANT (read-only path) and STG.E.128 */
                CHECK(strstr(text, "LDG.E.128"), "%s: no LDG.E.128:\n%s", arch, text);
                CHECK(strstr(text, "STG.E.128"), "%s: no STG.E.128:\n%s", arch, text);
                if (getenv("CUTEC_TEST_VERBOSE")) fputs(text, stderr);
            }
            free(sass);
        }
        cute_nvrtc_output_free(&o);
    }
    free(src);
    cute_ir_func_free(k);
}

/* every test kernel in one module, compiled for each arch; #line and -lineinfo */
static void test_compile(cute_nvrtc *nv)
{
    cute_ir_func *k[] = {f16_add(),   axpy(),        everything(), cvt_all(),
                         arith_all(), atomics_all(), vec_mem()};
    int n = (int)(sizeof k / sizeof k[0]);
    char *src = emit(k, n, &(cute_cuda_c_opts){.arch = "sm_90a"});
    static const char *archs[] = {"sm_80", "sm_90a", "sm_75"};
    for (int a = 0; src && a < 3; a++) {
        cute_nvrtc_output o;
        /* shared-memory pointers are u32 in the C; NVVM must still see shared accesses */
        if (compile(nv, src, archs[a], false, &o))
            CHECK(strstr(o.ptx, "ld.shared.") && strstr(o.ptx, "st.shared.") &&
                      strstr(o.ptx, "atom.shared."),
                  "%s: shared-memory accesses became generic", archs[a]);
        cute_nvrtc_output_free(&o);
    }
    if (src && getenv("CUTEC_TEST_VERBOSE")) fputs(src, stderr);
    free(src);
    /* #line directives carry the user's call sites into -lineinfo */
    src = emit(&k[1], 1, &(cute_cuda_c_opts){.line_directives = true});
    cute_nvrtc_output o;
    if (src && compile(nv, src, "sm_90a", true, &o))
        CHECK(strstr(o.ptx, "axpy.c") && strstr(o.ptx, ".loc"), "no axpy.c line info in the PTX");
    if (src) cute_nvrtc_output_free(&o);
    free(src);
    for (int i = 0; i < n; i++) cute_ir_func_free(k[i]);
}

static void test_nvrtc(cute_nvrtc *nv)
{
    int major, minor;
    cute_nvrtc_version(nv, &major, &minor);
    CHECK(major >= 11, "NVRTC %d.%d from %s", major, minor, cute_nvrtc_path(nv));
    cute_nvrtc_output o;
    cute_status s = cute_nvrtc_compile(nv, "__global__ void k() { undefined_thing(); }",
                                       &(cute_nvrtc_opts){.arch = "sm_90a"}, &o);
    CHECK(s == CUTE_ERR_COMPILE && o.log && strstr(o.log, "undefined_thing"), "log: %s", o.log);
    cute_nvrtc_output_free(&o);
    s = cute_nvrtc_compile(nv, "__global__ void k() {}", &(cute_nvrtc_opts){.arch = "compute_90"},
                           &o);
    CHECK(s == CUTE_OK && o.ptx && !o.cubin, "compute_90: PTX only (status %d)", (int)s);
    cute_nvrtc_output_free(&o);
    s = cute_nvrtc_compile(nv, "__global__ void k() {}", &(cute_nvrtc_opts){.arch = "sm_1"}, &o);
    /* a target NVRTC does not list is refused before the compile, in words (nvrtc.c's arch_unknown) */
    CHECK(s == CUTE_ERR_UNSUPPORTED && o.log && strstr(o.log, "does not compile for sm_1"),
          "a bad arch is refused with a log naming it: status %d, %s", (int)s, o.log ? o.log : "(no log)");
    cute_nvrtc_output_free(&o);
    /* an sm_ name that is no target's (cute_cuda_arch_sm) likewise, its words beside NVRTC's list */
    static const char *const no_target[] = {"sm_", "sm_x", "sm_99999999999", "sm_80a"};
    for (int i = 0; i < 4; i++) {
        s = cute_nvrtc_compile(nv, "__global__ void k() {}", &(cute_nvrtc_opts){.arch = no_target[i]}, &o);
        CHECK(s == CUTE_ERR_UNSUPPORTED && o.log && strstr(o.log, "does not compile for") &&
                  strstr(o.log, "is not a target"),
              "%s: status %d, %s", no_target[i], (int)s, o.log ? o.log : "(no log)");
        cute_nvrtc_output_free(&o);
    }
    /* $CUTEC_NVRTC_OPTIONS joins every compile's options: ptxas's level, or a bad one refused */
    setenv("CUTEC_NVRTC_OPTIONS", " --ptxas-options=-O2\t-lineinfo ", 1);
    s = cute_nvrtc_compile(nv, "__global__ void k(int *p) { *p = 1; }", &(cute_nvrtc_opts){.arch = "sm_90a"}, &o);
    CHECK(s == CUTE_OK && o.cubin, "CUTEC_NVRTC_OPTIONS with -O2 and -lineinfo: %s", o.log);
    CHECK(o.ptx && strstr(o.ptx, ".loc"), "-lineinfo from the environment reached NVRTC (no .loc in the PTX)");
    cute_nvrtc_output_free(&o);
    setenv("CUTEC_NVRTC_OPTIONS", "--no-such-option", 1);
    s = cute_nvrtc_compile(nv, "__global__ void k() {}", &(cute_nvrtc_opts){.arch = "sm_90a"}, &o);
    CHECK(s == CUTE_ERR_COMPILE && o.log && strstr(o.log, "no-such-option"), "a bad option: %s", o.log);
    cute_nvrtc_output_free(&o);
    unsetenv("CUTEC_NVRTC_OPTIONS");
    char err[256];
    cute_nvrtc *none;
    CHECK(cute_nvrtc_open(&none, "/nonexistent/libnvrtc.so", err, sizeof err) ==
                  CUTE_ERR_NO_NVRTC &&
              !none && strstr(err, "NVRTC not found"),
          "%s", err);
}

int main(void)
{
    test_bits();
    test_golden();
    test_restrict();
    test_refusals();
    test_peel();
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no NVRTC, nothing compiled: %s", err);
        SKIP(why);
    } else {
        test_nvrtc(nv);
        test_f16_vector(nv);
        test_compile(nv);
        cute_nvrtc_close(nv);
    }
    return CHECK_DONE("backend/cuda_c");
}
