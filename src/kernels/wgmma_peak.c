/* The wgmma ceiling kernel (see wgmma_peak.h), traced with the DSL: the shared tiles by
 * CuTe's GMMA atom, the instruction by its atom's emitter (descriptors from the tiles). */
#include <stdio.h>
#include <string.h>

#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"
#include "kernels/wgmma_peak.h"
#include "trace/ctx_internal.h"

/* vary as mma_peak.c's: fraction bits of the element in the word's low bits */
static const mma_peak_row rows[] = {
    {"wgmma bf16", CUTE_INST_WGMMA_64x256x16_F32BF16BF16_SS, CUTE_F32, 64, 256, 16, 90, 0x007Fu, 1.5, 0.5,
     0x3FC0u, 0x3F00u},
    {"wgmma f16", CUTE_INST_WGMMA_64x256x16_F32F16F16_SS, CUTE_F32, 64, 256, 16, 90, 0x03FFu, 1.5, 0.5, 0x3E00u,
     0x3800u},
    {"wgmma tf32", CUTE_INST_WGMMA_64x256x8_F32TF32TF32_SS, CUTE_F32, 64, 256, 8, 90, 0x007FE000u, 1.5, 0.5,
     0x3FC00000u, 0x3F000000u},
    {"wgmma e4m3", CUTE_INST_WGMMA_64x256x32_F32E4M3E4M3_SS, CUTE_F32, 64, 256, 32, 90, 0x07u, 1.5, 0.5, 0x3Cu,
     0x30u},
    {"wgmma s8", CUTE_INST_WGMMA_64x256x32_S32S8S8_SS, CUTE_I32, 64, 256, 32, 90, 0xFFu, 3, -2, 0x03u, 0xFEu},
};

/* the CuTe atom of a row: SM90_64x256xK_<types>_SS[_TN] from its instruction's id */
static void atom_name(const mma_peak_row *row, char *buf, size_t n)
{
    const char *id = cute_inst_info_of(row->inst)->id; /* WGMMA_64x256x16_F32BF16BF16_SS */
    snprintf(buf, n, "SM90_%s%s", id + 6, row->k == 16 ? "" : "_TN");
}

int wgmma_peak_rows(const mma_peak_row **out)
{
    *out = rows;
    return (int)(sizeof rows / sizeof rows[0]);
}

typedef struct wg_plan {
    const mma_peak_row *row;
    mma_peak_shape shape;
    cute_mma_atom atom;
} wg_plan;

/* a (rows, K) operand tile of d, K-major with the 128-byte swizzle, every element
 * bits ^ (hash(thread, element) & vary) in its low bits */
static cute_tensor filled_tile(cute_ctx *c, cute_smem_allocator *al, cute_dtype d, int rows, int K, cute_val bits,
                               cute_val hash, cute_val vary, int threads)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_composed L = cute_smem_layout_gmma_tile(a, "Layout_K_SW128_Atom", d, rows, K);
    cute_tensor t = cute_smem_alloc_tensor_composed(c, al, d, L, 16);
    char block[32];
    snprintf(block, sizeof block, "(%d,%d)", rows, K);
    cute_tiler first = cute_tiler_parse(a, block);
    t.layout = cute_composition(a, &t.layout, &first);
    int per = rows * K / threads, bits_of = cute_dtype_bits(d);
    cute_layout by = cute_layout_fmt(a, "(%d,%d):(%d,1)", threads, per, per);
    cute_tiler T = cute_tiler_layout(&by);
    cute_tensor mine = t;
    mine.layout = cute_composition(a, &t.layout, &T);
    mine = CUTE_SLICE(c, mine, cute_thread_idx(c, 0), CUTE_ALL);
    cute_dtype carrier = bits_of == 8 ? CUTE_U8 : bits_of == 16 ? CUTE_U16 : CUTE_U32;
    for (int j = 0; j < per; j++) {
        cute_val salt = cute_val_binop(c, CUTE_OP_ADD, hash, cute_val_int(c, CUTE_U32, (int64_t)(0x85EBCA6Bu * (uint32_t)(j + 1))));
        cute_val w = cute_val_binop(c, CUTE_OP_XOR, bits, cute_val_binop(c, CUTE_OP_AND, salt, vary));
        cute_val e = cute_val_bitcast(c, cute_val_cvt(c, w, carrier), cute_type_of(d));
        cute_tensor one = cute_tensor_slice(c, mine, cute_tuple_int(cute_i(j)));
        one.layout = cute_make_layout(a, cute_tuple_int(cute_i(1)));
        cute_tensor_store(c, one, cute_ssa_scalar(c, e, cute_tuple_int(cute_i(1))));
    }
    return t;
}

/* the accumulators' sum into out[gid] */
static void write_sum(cute_ctx *c, cute_tensor out, cute_int gid, cute_tensor acc, int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_type t = cute_type_of((cute_dtype)acc.dtype);
    cute_val sum = {acc.regs[0], t, acc.kernel};
    for (int i = 1; i < n; i++) sum = cute_val_binop(c, CUTE_OP_ADD, sum, (cute_val){acc.regs[i], t, acc.kernel});
    cute_tensor mine = cute_tensor_slice(c, out, cute_tuple_int(gid));
    mine.layout = cute_make_layout(a, cute_tuple_int(cute_i(1)));
    cute_tensor_store(c, mine, cute_ssa_scalar(c, sum, cute_tuple_int(cute_i(1))));
}

static void wg_peak_kernel(cute_ctx *c, cute_tensor out, cute_int iters, cute_int a_bits, cute_int b_bits,
                           cute_int vary)
{
    const wg_plan *p = cute_ctx_user(c);
    const cute_mma_atom *m = &p->atom;
    cute_alg *a = cute_ctx_alg(c);
    int threads = p->shape.threads, nacc = m->n / 2;
    cute_int gid = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(threads)), cute_thread_idx(c, 0));
    cute_val hash = cute_val_binop(c, CUTE_OP_MUL, cute_int_value(c, gid, CUTE_U32), cute_val_int(c, CUTE_U32, 0x9E3779B1));
    cute_val v = cute_int_value(c, vary, CUTE_U32);
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_tensor sA = filled_tile(c, &al, (cute_dtype)m->a_type, 64, m->k, cute_int_value(c, a_bits, CUTE_U32), hash, v,
                                 threads);
    cute_tensor sB = filled_tile(c, &al, (cute_dtype)m->b_type, m->n, m->k, cute_int_value(c, b_bits, CUTE_U32), hash,
                                 v, threads);
    cute_fence_proxy_async_shared_cta(c); /* the generic proxy's writes, read by the async proxy */
    cute_barrier(c);
    cute_tensor acc = cute_make_rmem_tensor(c, (cute_dtype)m->c_type, cute_layout_fmt(a, "%d:1", nacc));
    cute_fill(c, acc, 0);
    CUTE_FOR(c, it, cute_i(0), iters) {
        (void)it;
        cute_warpgroup_arrive(c); /* as CUTLASS's mainloop: the accumulators' moves ordered */
        for (int u = 0; u < p->shape.unroll; u++) m->emit(c, m, acc, sA, sB, acc);
        cute_warpgroup_commit_batch(c);
        cute_warpgroup_wait(c, 1); /* the group before this one has finished */
    }
    cute_warpgroup_wait(c, 0);
    write_sum(c, out, gid, acc, nacc);
}

static void wg_peak_host(cute_ctx *c, const cute_arg *args)
{
    const wg_plan *p = cute_ctx_user(c);
    cute_tensor out = args[0].tensor;
    cute_launch_cfg cfg = mma_peak_launch(c, &out, p->shape.threads);
    CUTE_LAUNCH(c, wg_peak_kernel, cfg, out, args[1].i, args[2].i, args[3].i, args[4].i);
}

const cute_fn *wgmma_peak_compile(cute_runtime *rt, const mma_peak_row *row, const mma_peak_shape *s, char *err,
                                  size_t n)
{
    if (s->chains != 1 || s->unroll < 1 || s->threads % 128 || s->threads < 128) {
        snprintf(err, n, "wgmma peak: chains %d (must be 1), unroll %d, threads %d (whole warpgroups)", s->chains,
                 s->unroll, s->threads);
        return NULL;
    }
    wg_plan p = {row, *s, {0}};
    char name[64];
    atom_name(row, name, sizeof name);
    cute_alg a;
    cute_alg_init(&a, NULL);
    if (!cute_mma_atom_named(&a, name, &p.atom)) {
        snprintf(err, n, "wgmma peak: %s", a.error);
        return NULL;
    }
    char shape[64];
    snprintf(shape, sizeof shape, "(%d,?)", s->threads);
    snprintf(name, sizeof name, "wgmma_peak_%s", cute_inst_info_of(row->inst)->id);
    cute_arg_spec specs[5] = {cute_spec_tensor_compact(row->acc, shape, false, cute_dtype_bytes(row->acc)),
                              cute_spec_int("?"), cute_spec_int("?"), cute_spec_int("?"), cute_spec_int("?")};
    return cute_compile(rt, name, wg_peak_host, &p, 5, specs, err, n);
}
