/* The mma.sync ceiling kernel (see mma_peak.h): traced with the DSL, the mma instructions
 * from the instruction table (cute_ir_inst_op), the operand registers from the row's
 * signature. */
#include <stdio.h>
#include <string.h>

#include "kernels/mma_peak.h"
#include "trace/ctx_internal.h"

/* vary: fraction bits of every element packed in a register (f16x2: 10 + 10, bf16x2: 7 + 7,
 * tf32: the 10 that tf32 keeps, e4m3x4: 3 each, s8x4: all), so values stay finite and of
 * one magnitude; f64: the low 16 bits of the integers the registers hold */
static const mma_peak_row rows[] = {
    {"bf16", CUTE_INST_MMA_16x8x16_F32BF16BF16F32, CUTE_F32, 16, 8, 16, 80, 0x007F007Fu, 1.5, 0.5,
     0x3FC03FC0u, 0x3F003F00u},
    {"f16", CUTE_INST_MMA_16x8x16_F32F16F16F32, CUTE_F32, 16, 8, 16, 80, 0x03FF03FFu, 1.5, 0.5,
     0x3E003E00u, 0x38003800u},
    {"tf32", CUTE_INST_MMA_16x8x8_F32TF32TF32F32, CUTE_F32, 16, 8, 8, 80, 0x007FE000u, 1.5, 0.5,
     0x3FC00000u, 0x3F000000u},
    {"s8", CUTE_INST_MMA_16x8x32_S32S8S8S32, CUTE_I32, 16, 8, 32, 80, 0xFFFFFFFFu, 3, -2,
     0x03030303u, 0xFEFEFEFEu},
    {"e4m3", CUTE_INST_MMA_16x8x32_F32E4M3E4M3F32, CUTE_F32, 16, 8, 32, 89, 0x07070707u, 1.5, 0.5,
     0x3C3C3C3Cu, 0x30303030u},
    /* what the library's fp8 GEMM runs on sm_90 (ir_insts.def: f16 steps into C) */
    {"e4m3 via f16", CUTE_INST_MMA_16x8x32_F32E4M3E4M3F32_VIA_F16, CUTE_F32, 16, 8, 32, 89, 0x07070707u, 1.5,
     0.5, 0x3C3C3C3Cu, 0x30303030u},
    {"f64 m8n8k4", CUTE_INST_MMA_8x8x4_F64F64F64F64, CUTE_F64, 8, 8, 4, 80, 0xFFFFu, 3, 5, 3, 5},
    {"f64 m16n8k4", CUTE_INST_MMA_16x8x4_F64F64F64F64, CUTE_F64, 16, 8, 4, 90, 0xFFFFu, 3, 5, 3, 5},
    {"f64 m16n8k8", CUTE_INST_MMA_16x8x8_F64F64F64F64, CUTE_F64, 16, 8, 8, 90, 0xFFFFu, 3, 5, 3, 5},
    {"f64 m16n8k16", CUTE_INST_MMA_16x8x16_F64F64F64F64, CUTE_F64, 16, 8, 16, 90, 0xFFFFu, 3, 5, 3, 5},
};

int mma_peak_rows(const mma_peak_row **out)
{
    *out = rows;
    return (int)(sizeof rows / sizeof rows[0]);
}

double mma_peak_flops(const mma_peak_row *row) { return 2.0 * row->m * row->n * row->k; }

/* the registers of the row's group `name` (0 if none) */
static int group_count(const cute_inst_info *I, const char *name)
{
    for (int g = 0; g < I->ngroups; g++)
        if (!strcmp(I->groups[g].name, name)) return I->groups[g].count;
    return 0;
}

double mma_peak_expected(const mma_peak_row *row, const mma_peak_shape *s, int64_t iters)
{
    const cute_inst_info *I = cute_inst_info_of(row->inst);
    return (double)s->chains * group_count(I, "d") * (double)iters * s->unroll * row->k * row->a * row->b;
}

typedef struct peak_plan {
    const mma_peak_row *row;
    mma_peak_shape shape;
} peak_plan;

/* operand register j of a thread: bits ^ (hash(thread, j) & vary), as the group's class
 * needs it (B32: the u32 itself; F64: the integer as f64) */
static cute_val operand(cute_ctx *c, cute_val bits, cute_val hash, cute_val vary, int j, bool f64)
{
    cute_val salt = cute_val_binop(c, CUTE_OP_ADD, hash, cute_val_int(c, CUTE_U32, (int64_t)(0x85EBCA6Bu * (uint32_t)(j + 1))));
    cute_val x = cute_val_binop(c, CUTE_OP_XOR, bits, cute_val_binop(c, CUTE_OP_AND, salt, vary));
    return f64 ? cute_val_cvt(c, x, CUTE_F64) : x;
}

/* the row's instruction, emulated from others where the target lacks it (fp8 on sm_90) */
static bool maybe_emulated(const mma_peak_row *row) { return row->arch == 89; }

/* An emulated row's operands change every round and every chain: ab[j] = base[j] ^ (flip &
 * hash(step)), flip the lowest varied bit of each element.  With operands fixed for the
 * whole loop, or shared by the chains, ptxas hoists or shares what it can: sm_90's fp8
 * mma.sync, which it emulates as HMMAs from zero plus FADDs into the accumulators, became
 * FADDs alone (a 1,475 TFLOP/s "ceiling", twice the f16 one).  A native row's mma depends
 * on its accumulator, so nothing of it can be hoisted: its operands stay fixed, as varying
 * them costs issue slots the instruction would use (bf16 measured 530 TFLOP/s varied, 630
 * fixed, on the H200) */
static void vary_operands(cute_ctx *c, const peak_plan *p, const cute_val *base, cute_vreg *ab, int nab,
                          cute_val flip, cute_val step)
{
    if (p->row->acc == CUTE_F64 || !maybe_emulated(p->row)) return;
    cute_val h = cute_val_binop(c, CUTE_OP_MUL, step, cute_val_int(c, CUTE_U32, 0x9E3779B9));
    cute_val m = cute_val_binop(c, CUTE_OP_AND, flip, h);
    for (int j = 0; j < nab; j++) ab[j] = cute_val_binop(c, CUTE_OP_XOR, base[j], m).r;
}

/* one round (number `round`): every chain's accumulator D = A B + D, D both the row's C input
 * and its output */
static void round_of_mmas(cute_ctx *c, const peak_plan *p, const cute_val *base, int nab, cute_val flip,
                          cute_val round, cute_val *acc, int nacc)
{
    cute_vreg ab[48], in[64], out[16];
    bool per_chain = maybe_emulated(p->row);
    for (int ch = 0; ch < p->shape.chains; ch++) {
        if (ch == 0 || per_chain) {
            cute_val step = cute_val_binop(c, CUTE_OP_ADD, cute_val_binop(c, CUTE_OP_MUL, round,
                                           cute_val_int(c, CUTE_U32, p->shape.chains)), cute_val_int(c, CUTE_U32, ch));
            for (int j = 0; j < nab; j++) ab[j] = base[j].r;
            vary_operands(c, p, base, ab, nab, flip, step);
        }
        for (int i = 0; i < nacc; i++) out[i] = acc[ch * nacc + i].r;
        memcpy(in, ab, (size_t)nab * sizeof *in);
        memcpy(in + nab, out, (size_t)nacc * sizeof *in);
        cute_ctx_site(c, __FILE__, __LINE__);
        if (ctx_ok(c)) cute_ir_inst_op(&c->b, p->row->inst, out, nacc, in, nab + nacc, 0);
    }
}

static void peak_kernel(cute_ctx *c, cute_tensor out, cute_int iters, cute_int a_bits, cute_int b_bits,
                        cute_int vary)
{
    const peak_plan *p = cute_ctx_user(c);
    const cute_inst_info *I = cute_inst_info_of(p->row->inst);
    cute_alg *a = cute_ctx_alg(c);
    int na = group_count(I, "a"), nb = group_count(I, "b"), nacc = group_count(I, "d");
    bool f64 = p->row->acc == CUTE_F64;
    cute_kernel_min_blocks(c, p->shape.blocks_per_sm);
    cute_int gid = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(p->shape.threads)), cute_thread_idx(c, 0));
    cute_val hash = cute_val_binop(c, CUTE_OP_MUL, cute_int_value(c, gid, CUTE_U32), cute_val_int(c, CUTE_U32, 0x9E3779B1));
    cute_val v = cute_int_value(c, vary, CUTE_U32), abits = cute_int_value(c, a_bits, CUTE_U32),
             bbits = cute_int_value(c, b_bits, CUTE_U32);
    cute_val base[48];
    for (int j = 0; j < na + nb; j++) base[j] = operand(c, j < na ? abits : bbits, hash, v, j, f64);
    cute_val flip = cute_val_binop(c, CUTE_OP_AND, v, cute_val_int(c, CUTE_U32, 0x01010101));
    cute_val acc[16 * 8];
    cute_val zero = f64 ? cute_val_const(c, CUTE_F64, 0) : p->row->acc == CUTE_I32 ? cute_val_int(c, CUTE_I32, 0)
                                                                                   : cute_val_const(c, CUTE_F32, 0);
    for (int i = 0; i < p->shape.chains * nacc; i++) acc[i] = cute_val_var(c, zero);
    CUTE_FOR(c, it, cute_i(0), iters) {
        cute_val first = cute_int_value(c, cute_mul(a, it, cute_i(p->shape.unroll)), CUTE_U32);
        for (int u = 0; u < p->shape.unroll; u++)
            round_of_mmas(c, p, base, na + nb, flip, cute_val_binop(c, CUTE_OP_ADD, first, cute_val_int(c, CUTE_U32, u)),
                          acc, nacc);
    }
    cute_val sum = acc[0];
    for (int i = 1; i < p->shape.chains * nacc; i++) sum = cute_val_binop(c, CUTE_OP_ADD, sum, acc[i]);
    /* out[gid]: the slice moves the iterator there, a 1:1 layout is the one element */
    cute_tensor mine = cute_tensor_slice(c, out, cute_tuple_int(gid));
    mine.layout = cute_make_layout(a, cute_tuple_int(cute_i(1)));
    cute_tensor_store(c, mine, cute_ssa_scalar(c, sum, cute_tuple_int(cute_i(1))));
}

cute_launch_cfg mma_peak_launch(cute_ctx *c, cute_tensor *out, int threads)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout mode1 = cute_get(a, &out->layout, 1);
    cute_int blocks = cute_size(a, &mode1);
    out->layout = cute_make_layout(a, cute_tuple_int(cute_size(a, &out->layout)));
    return (cute_launch_cfg){.grid = {blocks}, .block = {cute_i(threads)}, .smem_bytes = cute_i(0)};
}

static void peak_host(cute_ctx *c, const cute_arg *args)
{
    const peak_plan *p = cute_ctx_user(c);
    cute_tensor out = args[0].tensor;
    cute_launch_cfg cfg = mma_peak_launch(c, &out, p->shape.threads);
    CUTE_LAUNCH(c, peak_kernel, cfg, out, args[1].i, args[2].i, args[3].i, args[4].i);
}

const cute_fn *mma_peak_compile(cute_runtime *rt, const mma_peak_row *row, const mma_peak_shape *s,
                          char *err, size_t n)
{
    const cute_inst_info *I = cute_inst_info_of(row->inst);
    if (s->chains < 1 || s->chains * group_count(I, "d") > 16 * 8 || s->unroll < 1 || s->threads % 32) {
        snprintf(err, n, "mma peak: chains %d, unroll %d, threads %d", s->chains, s->unroll, s->threads);
        return NULL;
    }
    peak_plan p = {row, *s};
    char shape[64], name[64];
    snprintf(shape, sizeof shape, "(%d,?)", s->threads);
    snprintf(name, sizeof name, "mma_peak_%s", I->id);
    cute_arg_spec specs[5] = {cute_spec_tensor_compact(row->acc, shape, false, cute_dtype_bytes(row->acc)),
                              cute_spec_int("?"), cute_spec_int("?"), cute_spec_int("?"), cute_spec_int("?")};
    return cute_compile(rt, name, peak_host, &p, 5, specs, err, n);
}
