/* The wgmma emitter (CuTe's SM90 MMA_Atom::call with its GMMA descriptors) and the
 * warpgroup's fence / commit / wait (CuTe's warpgroup_arrive, warpgroup_commit_batch,
 * warpgroup_wait<N>).  A shared operand's descriptor comes from its layout
 * (cutec/gmma_desc.h): K- or MN-major, the swizzle, LBO and SBO, and the start address
 * from the tensor's base and offset; the accumulators are the D fragment's registers,
 * read and written by the instruction (C is copied into them first when it is another
 * fragment). */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "atom/atom_rows.h"
#include "cutec/atom_table.h"
#include "cutec/gmma_desc.h"
#include "env/env_choice.h"
#include "trace/ctx_internal.h"

enum { WG_MAX_ACC = 128 };

/* the tile's first element, from a base aligned as the swizzle needs, must lie in the first
 * row of the swizzle's pattern (bits 7 and up that the swizzle reads clear), on a 16-byte
 * chunk: the descriptor's base offset is then 0 */
static bool start_aligned(cute_ctx *c, const char *name, const cute_tensor *t, const cute_gmma_desc *g, char which)
{
    int bytes = cute_dtype_bytes((cute_dtype)t->dtype);
    int64_t W = g->layout_type == CUTE_GMMA_INTERLEAVE ? 1 : g->align / 128, period = W == 1 ? 16 : g->align;
    bool ok;
    if (cute_is_static(t->offset)) {
        int64_t off = t->offset.v * bytes + g->start;
        ok = off % 16 == 0 && ((off >> 7) & (W - 1)) == 0;
    } else {
        ok = (t->offset.div * bytes) % period == 0 && g->start % 16 == 0 && ((g->start >> 7) & (W - 1)) == 0;
    }
    if (!ok)
        cute_ctx_fail(c, "%s: operand %c starts %s shared memory where a wgmma descriptor cannot begin: on a "
                         "16-byte chunk of its swizzle pattern's first row (offsets a multiple of %lld bytes "
                         "apart)",
                      name, which, cute_is_static(t->offset) ? "at a place in" : "at an offset into",
                      (long long)period);
    return ok;
}

/* CUTEC_WGMMA_DESC=each: every wgmma's descriptor built from its operand's address; =stage:
 * the low word of the tensor's base built once (the same value for every k-block and stage:
 * one register outside the loops), the offset's 16-byte units added to it, the high word a
 * constant (CuTe's DescriptorIterator).  Unset, the atom's own choice (desc_stage: the Hopper
 * attention forward's at head dim 256 non-causal; each elsewhere).  Read when the kernel is
 * traced; a value that is neither fails c (false). */
static bool desc_per_stage(cute_ctx *c, bool dflt)
{
    char err[160];
    int i = cute_env_choice_err("CUTEC_WGMMA_DESC", "each|stage", dflt ? 1 : 0, err, sizeof err);
    if (i < 0) cute_ctx_fail(c, "%s", err);
    return i == 1;
}

/* the descriptor's start address field: a shared address in 16-byte units, 14 bits */
static cute_val start_units(cute_ctx *c, cute_val addr)
{
    return cute_val_binop(c, CUTE_OP_AND, cute_val_binop(c, CUTE_OP_SHR, addr, cute_val_int(c, CUTE_U32, 4)),
                          cute_val_int(c, CUTE_U32, 0x3fff));
}

/* the per-stage form's descriptor of t: start_aligned has made offset * bytes a multiple of
 * 16 with the swizzle's bits clear, so base + offset is the address the default's form
 * reads (below 256 KB of shared memory the 14-bit start never carries into LBO) */
static cute_vreg stage_descriptor(cute_ctx *c, cute_tensor t, uint64_t bits)
{
    cute_tensor base = t;
    base.offset = cute_i(0);
    cute_val addr = cute_smem_addr(c, cute_tensor_ptr(c, base, cute_i(0)));
    cute_val lo = cute_val_binop(c, CUTE_OP_OR, start_units(c, addr),
                                 cute_val_int(c, CUTE_U32, (int64_t)(bits & 0xffffffffu)));
    int bytes = cute_dtype_bytes((cute_dtype)t.dtype);
    cute_int units = cute_div(&c->alg, cute_mul(&c->alg, t.offset, cute_i(bytes)), cute_i(16));
    if (!cute_is_static(units) || units.v != 0)
        lo = cute_val_binop(c, CUTE_OP_ADD, lo, cute_int_value(c, units, CUTE_U32));
    return cute_val_binop(c, CUTE_OP_OR, cute_val_cvt(c, lo, CUTE_U64),
                          cute_val_int(c, CUTE_U64, (int64_t)(bits & ~(uint64_t)0xffffffffu))).r;
}

static cute_vreg smem_descriptor(cute_ctx *c, const char *name, bool stage_dflt, cute_tensor t, char which,
                                 cute_major *major)
{
    if (t.kind != CUTE_TENSOR_SMEM)
        return cute_ctx_fail(c, "%s: operand %c is read from shared memory: it must be a shared tensor", name,
                             which), 0;
    cute_gmma_desc g;
    cute_layout L = t.layout, v = cute_get(&c->alg, &L, 0);
    if (cute_rank(&L) == 1 && cute_rank(&v) == 2) L = v; /* cute_gemm's values: ((MN,K)) */
    if (!cute_gmma_desc_make(&c->alg, (cute_dtype)t.dtype, t.sw, &L, &g)) return 0;
    /* the base: a swizzled shared tensor is placed aligned to its swizzle's period
     * (cute_smem_alloc_tensor_swizzled), which for a GMMA swizzle is g.align (1024 bytes for
     * SW128); the recognizer has checked that the swizzle is the layout's */
    if (!start_aligned(c, name, &t, &g, which)) return 0;
    *major = g.major;
    uint64_t bits = cute_gmma_desc_bits(&g, 0);
    bool stage = desc_per_stage(c, stage_dflt);
    if (c->alg.failed) return 0;
    if (stage) return stage_descriptor(c, t, bits);
    cute_val addr = cute_smem_addr(c, cute_tensor_ptr(c, t, cute_i(0)));
    cute_val d = cute_val_binop(c, CUTE_OP_OR, cute_val_cvt(c, start_units(c, addr), CUTE_U64),
                                cute_val_int(c, CUTE_U64, (int64_t)bits));
    return d.r;
}

cute_vreg atom_smem_descriptor(cute_ctx *c, const char *name, cute_tensor t, char which, cute_major *major)
{
    return smem_descriptor(c, name, false, t, which, major);
}

/* the accumulators: D's registers, holding C's values first when C is another fragment;
 * true when it moved any (c failed: a misuse) */
static bool accumulators(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor C, int n, cute_vreg *d)
{
    cute_vreg cc[WG_MAX_ACC];
    cute_int sz = cute_size(&c->alg, &D.layout), szc = cute_size(&c->alg, &C.layout);
    if (!cute_is_static(sz) || sz.v != n || !cute_is_static(szc) || szc.v != n)
        return cute_ctx_fail(c, "%s: the accumulator fragments hold %lld and %lld values per thread; the atom "
                                "takes %d",
                             atom->name, (long long)sz.v, (long long)szc.v, n);
    if (!atom_rmem_read(c, &D, n, d, atom->name) || !atom_rmem_read(c, &C, n, cc, atom->name)) return false;
    for (int i = 0; i < n; i++) /* the instruction writes D's own registers */
        if (!c->fn->vregs[d[i]].mutable_)
            return cute_ctx_fail(c, "%s: the accumulator fragment D must be registers of %s (a fragment of "
                                    "its own, cute_make_fragment_C)",
                                 atom->name, cute_dtype_name((cute_dtype)atom->c_type));
    bool moved = false;
    for (int i = 0; i < n; i++)
        if (cc[i] != d[i]) cute_ir_mov(&c->b, d[i], cc[i]), moved = true;
    return moved;
}

/* A of an RS atom: the thread's values packed into the instruction's 4 registers; *wrote:
 * whether that wrote registers (a packed fragment whose words are A's is read in place) */
static bool a_registers(cute_ctx *c, const cute_mma_atom *atom, cute_tensor A, cute_vreg *in, bool *wrote)
{
    cute_dtype d = (cute_dtype)atom->a_type;
    int n = 4 * atom_vals_per_reg(d);
    cute_int sz = cute_size(&c->alg, &A.layout);
    if (!cute_is_static(sz) || sz.v != n)
        return cute_ctx_fail(c, "%s: operand A holds %lld values per thread; the atom takes %d", atom->name,
                             (long long)sz.v, n);
    *wrote = !atom_operand_in_place(c, d, &A, n, in) && !atom_words_in_place(c, d, &A, n, in);
    return !*wrote || atom_operand_in(c, d, &A, n, in, atom->name);
}

bool atom_takes_zero_d(const cute_mma_atom *atom) { return atom->emit == wgmma_emit; }

static cute_inst wgmma_row(cute_ctx *c, const cute_mma_atom *atom)
{
    const atom_row *r = atom_row_find(atom->name);
    const char *id = r ? atom_wgmma_inst_id(r) : NULL;
    cute_inst row = id ? cute_inst_lookup(id) : CUTE_INST_COUNT;
    if (row == CUTE_INST_COUNT) cute_ctx_fail(c, "%s: no wgmma instruction row", atom->name);
    else if (atom->c_type == CUTE_F16)
        cute_ctx_fail(c, "%s: f16 accumulators (f16x2 registers) are not emitted from fragments yet; the "
                         "F32 atoms are", atom->name), row = CUTE_INST_COUNT;
    return row;
}

void wgmma_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A, cute_tensor B,
                cute_tensor C)
{
    cute_inst row = wgmma_row(c, atom);
    if (row == CUTE_INST_COUNT || !atom_check_converged(c, atom->name)) return;
    const cute_inst_info *I = cute_inst_info_of(row);
    bool rs = !strcmp(I->groups[1].name, "a"); /* A in registers, not a descriptor */
    cute_vreg d[WG_MAX_ACC], in[6];
    cute_major ma = CUTE_MAJOR_K, mb = CUTE_MAJOR_K;
    int nin = 0;
    /* registers the emitter itself writes (C into D, A packed) are fenced here, after the
     * caller's cute_warpgroup_arrive: the PTX ISA orders register writes before a wgmma
     * that reads them only through wgmma.fence.  Only those: a fence between the wgmmas
     * of one batch makes ptxas close a group at each (one HGMMA a group), so that a
     * wait_group N after the batch waits for all but N of its instructions. */
    bool wrote = accumulators(c, atom, D, C, I->nout, d), packed = false;
    if (c->alg.failed) return;
    bool stage = atom->desc_stage;
    if (rs ? !a_registers(c, atom, A, in, &packed) : !(in[0] = smem_descriptor(c, atom->name, stage, A, 'A', &ma)))
        return;
    if (wrote || packed) cute_ir_inst_op(&c->b, CUTE_INST_WGMMA_FENCE, NULL, 0, NULL, 0, 0);
    nin = rs ? 4 : 1;
    if (!(in[nin++] = smem_descriptor(c, atom->name, stage, B, 'B', &mb))) return;
    bool sixteen = cute_dtype_bytes((cute_dtype)atom->a_type) == 2;
    if (!sixteen && (ma == CUTE_MAJOR_MN || mb == CUTE_MAJOR_MN)) {
        cute_ctx_fail(c, "%s: operand %c is MN-major in shared memory; wgmma transposes only 16-bit types, so %s "
                         "operands must be K-major",
                      atom->name, ma == CUTE_MAJOR_MN ? 'A' : 'B', cute_dtype_name((cute_dtype)atom->a_type));
        return;
    }
    in[nin++] = cute_val_int(c, CUTE_I32, atom->zero_d ? 0 : 1).r; /* scale-d: D = A B + D, or 0: D = A B */
    int64_t imm = (ma == CUTE_MAJOR_MN ? CUTE_WGMMA_TNSP_A : 0) | (mb == CUTE_MAJOR_MN ? CUTE_WGMMA_TNSP_B : 0);
    cute_ir_inst_op(&c->b, row, d, I->nout, in, nin, imm);
}

/* --- the warpgroup's ordering: every thread of the warpgroup, converged --------------------- */

static void warpgroup_op(cute_ctx *c, cute_inst row, int64_t n, const char *what)
{
    if (!ctx_ok(c) || !atom_check_converged(c, what)) return;
    cute_ir_inst_op(&c->b, row, NULL, 0, NULL, 0, n);
}

void cute_warpgroup_arrive(cute_ctx *c)
{
    warpgroup_op(c, CUTE_INST_WGMMA_FENCE, 0, "cute_warpgroup_arrive");
}

void cute_warpgroup_commit_batch(cute_ctx *c)
{
    warpgroup_op(c, CUTE_INST_WGMMA_COMMIT_GROUP, 0, "cute_warpgroup_commit_batch");
}

void cute_warpgroup_wait(cute_ctx *c, int n)
{
    if (n < 0) {
        cute_ctx_fail(c, "cute_warpgroup_wait(%d): at most n wgmma groups left in flight, n >= 0", n);
        return;
    }
    warpgroup_op(c, CUTE_INST_WGMMA_WAIT_GROUP, n, "cute_warpgroup_wait");
}
