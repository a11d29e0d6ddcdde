/* Memory, warp collectives, atomics, printf and inline PTX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_c_internal.h"

#define FULL "0xffffffffu"

/* --- loads and stores ----------------------------------------------------------------- */

/* a vector whose size is 4, 8 or 16 bytes moves as one access of its aligned struct;
 * others move lane by lane */
static bool whole(cute_type t)
{
    int bytes = cute_dtype_bytes((cute_dtype)t.dtype) * t.lanes;
    return t.lanes == 1 || (cc_pow2(bytes) && bytes <= 16);
}

static bool load(cc_fn *e, const cute_ir_inst *in)
{
    char p[CC_EXPR], def[CC_NAME], tb[CC_NAME], d[CC_NAME];
    cute_type t = in->type;
    const char *ty = cc_type(e, t, tb);
    if (!ty) return false;
    cc_ptr(e, in->a[0], p);
    if (t.lanes == 1) {
        cc_line(e, "%s*%s;", cc_def(e, in->dst, def), p);
    } else if (whole(t)) {
        cc_line(e, "%s*(const %s *)%s;", cc_def(e, in->dst, def), ty, p);
    } else {
        cc_decl(e, in->dst);
        for (int l = 0; l < t.lanes; l++)
            cc_line(e, "%s = %s[%d];", cc_opnd(e, in->dst, l, d), p, l);
    }
    return true;
}

/* An 8- or 16-byte vector of 8- or 16-bit lanes stored to global memory leaves as one
 * st.global.v2/v4 of its 32-bit words.  Written as a C assignment, NVVM splits the struct
 * into u16/v2.u16 pieces and, where the address comes from run-time strides, does not merge
 * them again (4 to 7 stores per vector under 64-bit indices), so the width the IR says was
 * not the width the GPU did.  Vectors of 32- and 64-bit lanes stay C assignments: NVVM keeps
 * those whole (st.global.v4.f32 in every GEMM epilogue), and the asm would cost ptxas
 * registers there (the pipelined SGEMM spilled 64 bytes more).  "memory": no other access
 * moves across it. */
static bool global_vector_store(cc_fn *e, const cute_ir_inst *in, cute_type t, const char *p)
{
    int lane = cute_dtype_bytes((cute_dtype)t.dtype), bytes = lane * t.lanes;
    if (t.lanes == 1 || lane >= 4 || (bytes != 8 && bytes != 16) ||
        cc_is_smem_ptr(cute_ir_type(e->f, in->a[0])))
        return false;
    int n = bytes / 4;
    cute_type wt = cute_type_vec(CUTE_U32, n);
    char tb[CC_NAME], v[CC_NAME], ops[CC_EXPR];
    const char *ty = cc_type(e, wt, tb);
    if (!ty) return false;
    e->m->needs |= NEED_BITCAST;
    int k = snprintf(ops, sizeof ops, "\"l\"(%s)", p);
    for (int i = 0; i < n; i++) k += snprintf(ops + k, sizeof ops - k, ", \"r\"(w.v[%d])", i);
    cc_line(e, "{ %s w = cute_bitcast<%s>(%s); asm volatile(\"st.global.v%d.b32 [%%0], {%s};\" :: %s : \"memory\"); }",
            ty, ty, cc_reg(e, in->a[1], v), n, n == 2 ? "%1, %2" : "%1, %2, %3, %4", ops);
    return true;
}

/* A 32-bit scalar stored to shared memory is one st.shared.b32 on its window address.  As a
 * C assignment through __cvta_shared_to_generic NVVM got the same st.shared.f32 (and ptxas
 * the same SASS), but spent a tenth of the step-5 GEMM's optimizer time on its 128
 * accumulator stores (docs/compile_time.md).  "memory": no other access moves across it. */
static bool shared_scalar_store(cc_fn *e, const cute_ir_inst *in, cute_type t)
{
    bool f = t.dtype == CUTE_F32, i = t.dtype == CUTE_I32 || t.dtype == CUTE_U32;
    if (t.lanes != 1 || (!f && !i) || !cc_is_smem_ptr(cute_ir_type(e->f, in->a[0]))) return false;
    char a[CC_NAME], v[CC_NAME];
    cc_line(e, "asm volatile(\"st.shared.b32 [%%0], %%1;\" :: \"r\"(%s), \"%s\"(%s) : \"memory\");",
            cc_reg(e, in->a[0], a), f ? "f" : "r", cc_reg(e, in->a[1], v));
    return true;
}

static bool store(cc_fn *e, const cute_ir_inst *in)
{
    char p[CC_EXPR], v[CC_NAME], tb[CC_NAME];
    cute_type t = cute_ir_type(e->f, in->a[1]);
    const char *ty = cc_type(e, t, tb);
    if (!ty) return false;
    if (shared_scalar_store(e, in, t)) return true;
    cc_ptr(e, in->a[0], p);
    if (global_vector_store(e, in, t, p)) return true;
    if (t.lanes == 1) {
        cc_line(e, "*%s = %s;", p, cc_reg(e, in->a[1], v));
    } else if (whole(t)) {
        cc_line(e, "*(%s *)%s = %s;", ty, p, cc_reg(e, in->a[1], v));
    } else {
        for (int l = 0; l < t.lanes; l++)
            cc_line(e, "%s[%d] = %s;", p, l, cc_opnd(e, in->a[1], l, v));
    }
    return true;
}

/* offsets count elements; a shared-memory pointer (u32 bytes) scales them itself */
static bool ptr_add(cc_fn *e, const cute_ir_inst *in)
{
    char def[CC_NAME], a[CC_NAME], b[CC_NAME];
    cute_type t = in->type;
    cc_def(e, in->dst, def);
    cc_reg(e, in->a[0], a);
    cc_reg(e, in->a[1], b);
    if (!cc_is_smem_ptr(t)) {
        cc_line(e, "%s%s + %s;", def, a, b);
        return true;
    }
    int size = t.pointee == CUTE_VOID ? 1 : cute_dtype_bytes((cute_dtype)t.pointee);
    cc_line(e, "%s%s + (u32)%s * %du;", def, a, b, size);
    return true;
}

/* --- warps ---------------------------------------------------------------------------- */

static bool shfl(cc_fn *e, const cute_ir_inst *in)
{
    static const char *fn[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                               "__shfl_xor_sync"};
    char a[CC_NAME], l[CC_NAME], def[CC_NAME], tb[CC_NAME];
    if (in->imm < 0 || in->imm > 3)
        return cc_fail(e, CUTE_ERR_INVALID, "no shuffle mode %lld", (long long)in->imm);
    cute_type t = in->type;
    int bits = cute_dtype_bits((cute_dtype)t.dtype);
    if (t.lanes != 1 || (bits != 32 && bits != 64) || cc_is_16f((cute_dtype)t.dtype))
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "shuffles 32- or 64-bit scalars");
    cc_reg(e, in->a[0], a);
    cc_reg(e, in->a[1], l);
    const char *lane_cast = in->imm == CUTE_SHFL_UP || in->imm == CUTE_SHFL_DOWN ? "(u32)" : "";
    if (t.dtype == CUTE_PTR && !cc_is_smem_ptr(t)) /* a C pointer moves as its 64 bits */
        cc_line(e, "%s(%s)%s(" FULL ", (u64)%s, %s%s);", cc_def(e, in->dst, def), cc_type(e, t, tb),
                fn[in->imm], a, lane_cast, l);
    else
        cc_line(e, "%s%s(" FULL ", %s, %s%s);", cc_def(e, in->dst, def), fn[in->imm], a, lane_cast,
                l);
    return true;
}

static bool vote(cc_fn *e, const cute_ir_inst *in)
{
    char a[CC_NAME], def[CC_NAME];
    cc_reg(e, in->a[0], a);
    cc_def(e, in->dst, def);
    switch (in->imm) {
    case CUTE_VOTE_ANY:
        cc_line(e, "%s__any_sync(" FULL ", %s) != 0;", def, a);
        return true;
    case CUTE_VOTE_ALL:
        cc_line(e, "%s__all_sync(" FULL ", %s) != 0;", def, a);
        return true;
    case CUTE_VOTE_BALLOT:
        cc_line(e, "%s__ballot_sync(" FULL ", %s);", def, a);
        return true;
    default:
        return cc_fail(e, CUTE_ERR_INVALID, "no vote mode %lld", (long long)in->imm);
    }
}

/* --- atomics -------------------------------------------------------------------------- */

/* the CUDA atomic taking d directly, or NULL (then: through its bits, or a CAS loop) */
static const char *native_atomic(cute_atomic mode, cute_dtype d)
{
    static const char *fn[] = {"atomicAdd", "atomicMin", "atomicMax", "atomicExch"};
    bool i32 = d == CUTE_I32 || d == CUTE_U32, u64 = d == CUTE_U64;
    switch (mode) {
    case CUTE_ATOMIC_ADD:
        return i32 || u64 || d == CUTE_F32 || d == CUTE_F64 ? fn[mode] : NULL;
    case CUTE_ATOMIC_MIN:
    case CUTE_ATOMIC_MAX:
        return i32 || u64 || d == CUTE_I64 ? fn[mode] : NULL;
    default:
        return i32 || u64 || d == CUTE_F32 ? fn[mode] : NULL;
    }
}

static const char *bits_of(cute_dtype d)
{
    int n = cute_dtype_bits(d);
    return n == 16 ? "u16" : n == 32 ? "u32" : "u64";
}

/* x of dtype d as its bits (into), or bits back to d (out of) */
static void to_bits(cc_fn *e, cute_dtype d, const char *x, char *out)
{
    if (cute_dtype_is_float(d)) {
        e->m->needs |= NEED_BITCAST;
        snprintf(out, CC_EXPR, "cute_bitcast<%s>(%s)", bits_of(d), x);
    } else {
        snprintf(out, CC_EXPR, "(%s)%s", bits_of(d), x);
    }
}

static void from_bits(cc_fn *e, cute_dtype d, const char *x, char *out)
{
    if (cute_dtype_is_float(d)) {
        e->m->needs |= NEED_BITCAST;
        snprintf(out, CC_EXPR, "cute_bitcast<%s>(%s)", cc_scalar_name(d), x);
    } else {
        snprintf(out, CC_EXPR, "(%s)%s", cc_scalar_name(d), x);
    }
}

static bool atomic_ok(cc_fn *e, cute_dtype d)
{
    int bits = cute_dtype_bits(d);
    if (d == CUTE_I1 || d == CUTE_PTR || (bits != 16 && bits != 32 && bits != 64))
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "no atomics on %s (16, 32 or 64-bit numbers)",
                       cute_dtype_name(d));
    return true;
}

static bool atomic(cc_fn *e, const cute_ir_inst *in)
{
    static const char *modes[] = {"add", "min", "max", "exch"};
    cute_dtype d = (cute_dtype)in->type.dtype;
    if (in->imm < 0 || in->imm > 3)
        return cc_fail(e, CUTE_ERR_INVALID, "no atomic mode %lld", (long long)in->imm);
    if (in->type.lanes != 1) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "atomics on vectors");
    if (!atomic_ok(e, d)) return false;
    cute_atomic mode = (cute_atomic)in->imm;
    char p[CC_EXPR], v[CC_NAME], def[CC_NAME], vb[CC_EXPR], call[CC_EXPR * 2], back[CC_EXPR * 3];
    cc_ptr(e, in->a[0], p);
    cc_reg(e, in->a[1], v);
    const char *fn = native_atomic(mode, d);
    if (fn) {
        cc_line(e, "%s%s(%s, %s);", cc_def(e, in->dst, def), fn, p, v);
    } else if ((mode == CUTE_ATOMIC_ADD && d == CUTE_I64) ||
               (mode == CUTE_ATOMIC_EXCH && cute_dtype_bits(d) == 64)) {
        /* two's complement add, and exchange, are the same on the bits */
        to_bits(e, d, v, vb);
        snprintf(call, sizeof call, "%s((u64 *)%s, %s)", mode ? "atomicExch" : "atomicAdd", p, vb);
        from_bits(e, d, call, back);
        cc_line(e, "%s%s;", cc_def(e, in->dst, def), back);
    } else { /* a helper: native f16/bf16 add, else a CAS loop */
        e->m->atom[mode][d] = 1;
        cc_line(e, "%scute_atomic_%s_%s(%s, %s);", cc_def(e, in->dst, def), modes[mode],
                cc_scalar_name(d), p, v);
    }
    return true;
}

static bool atomic_cas(cc_fn *e, const cute_ir_inst *in)
{
    cute_dtype d = (cute_dtype)in->type.dtype;
    if (in->type.lanes != 1) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "atomics on vectors");
    if (!atomic_ok(e, d)) return false;
    char p[CC_EXPR], c[CC_NAME], v[CC_NAME], def[CC_NAME];
    cc_ptr(e, in->a[0], p);
    cc_reg(e, in->a[1], c);
    cc_reg(e, in->a[2], v);
    if (d == CUTE_I32 || d == CUTE_U32 || d == CUTE_U64 || d == CUTE_U16) {
        cc_line(e, "%satomicCAS(%s, %s, %s);", cc_def(e, in->dst, def), p, c, v);
        return true;
    }
    /* on the bits: a float compares equal when its bits do */
    char cb[CC_EXPR], vb[CC_EXPR], call[CC_EXPR * 4], back[CC_EXPR * 4 + 32];
    to_bits(e, d, c, cb);
    to_bits(e, d, v, vb);
    snprintf(call, sizeof call, "atomicCAS((%s *)%s, %s, %s)", bits_of(d), p, cb, vb);
    from_bits(e, d, call, back);
    cc_line(e, "%s%s;", cc_def(e, in->dst, def), back);
    return true;
}

/* --- printf and asm ------------------------------------------------------------------- */

static bool print(cc_fn *e, const cute_ir_inst *in)
{
    cc_buf *o = e->out;
    cc_printf(o, "%*sprintf(", 4 * e->indent, "");
    cc_c_string(o, in->str);
    for (uint32_t k = 0; k < in->nvar; k++) {
        cute_type t = cute_ir_type(e->f, in->var[k]);
        cute_dtype d = (cute_dtype)t.dtype;
        char x[CC_EXPR], w[CC_NAME];
        cc_ptr(e, in->var[k], x); /* the register itself, unless a shared-memory pointer */
        if (t.lanes != 1) return cc_fail(e, CUTE_ERR_UNSUPPORTED, "prints a vector");
        /* what C varargs would do, and f16/bf16 as their value */
        if (cute_dtype_is_float(d) || cute_dtype_is_narrow_float(d))
            cc_printf(o, ", (f64)%s", cc_to_f32(e, d, x, w));
        else if (d == CUTE_I1 || d == CUTE_I8 || d == CUTE_I16)
            cc_printf(o, ", (i32)%s", x);
        else if (d == CUTE_U8 || d == CUTE_U16)
            cc_printf(o, ", (u32)%s", x);
        else
            cc_printf(o, ", %s", x);
    }
    cc_puts(o, ");\n");
    return true;
}

/* ASM: in-outs ("+"), outputs ("="), inputs, as the op lists them; "memory" unless pure */
static bool inline_asm(cc_fn *e, const cute_ir_inst *in)
{
    cc_asm_dir *dir = malloc((in->nvar ? in->nvar : 1) * sizeof *dir);
    if (!dir) return cc_fail(e, CUTE_ERR_OOM, "out of memory");
    for (uint32_t k = 0; k < in->nvar; k++)
        dir[k] = k < (uint32_t)in->imm2 ? CC_ASM_INOUT : k < (uint32_t)in->imm ? CC_ASM_OUT : CC_ASM_IN;
    bool ok = cc_asm(e, in->str, in->var, dir, NULL, (int)in->nvar, !(in->flags & CUTE_IR_ASM_PURE));
    free(dir);
    return ok;
}

bool cc_mem(cc_fn *e, const cute_ir_inst *in)
{
    char def[CC_NAME], tb[CC_NAME];
    switch ((cute_op)in->op) {
    case CUTE_OP_PTR_ADD:
        return ptr_add(e, in);
    case CUTE_OP_LOAD:
        return load(e, in);
    case CUTE_OP_STORE:
        return store(e, in);
    case CUTE_OP_SMEM_PTR: {
        const char *ty = cc_type(e, in->type, tb);
        if (!ty) return false;
        e->m->needs |= NEED_SMEM;
        if (e->f->smem_align > e->m->smem_align) e->m->smem_align = e->f->smem_align;
        cc_line(e, "%s(%s)__cvta_generic_to_shared(cute_smem) + %lldu;", cc_def(e, in->dst, def),
                ty, (long long)in->imm);
        return true;
    }
    case CUTE_OP_BARRIER:
        cc_line(e, "__syncthreads();");
        return true;
    case CUTE_OP_SHFL:
        return shfl(e, in);
    case CUTE_OP_VOTE:
        return vote(e, in);
    case CUTE_OP_ATOMIC:
        return atomic(e, in);
    case CUTE_OP_ATOMIC_CAS:
        return atomic_cas(e, in);
    case CUTE_OP_PRINTF:
        return print(e, in);
    case CUTE_OP_ASM:
        return inline_asm(e, in);
    default:
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "no C for this op");
    }
}
