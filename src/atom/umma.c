/* cutec/umma.h: the one-CTA sm_100 MMA atoms at any M and N, and cute_umma_gemm (CuTe's
 * cute::gemm over SM100_MMA_*_SS: one tcgen05.mma per K of the atom, each operand's
 * descriptor read off its shared layout as wgmma's is, plus the sm_100 version bit). */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "atom/atom_rows.h"
#include "cutec/notation.h"
#include "cutec/umma.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

/* the block-scaled kind of an atom's name, or -1 for a dense atom */
static int scaled_kind(const char *name)
{
    return strstr(name, "MXF4NVF4") ? CUTE_TCGEN05_MXF4NVF4
           : strstr(name, "MXF4")   ? CUTE_TCGEN05_MXF4
           : strstr(name, "MXF8")   ? CUTE_TCGEN05_MXF8F6F4
                                    : -1;
}

/* the row's family takes A and B of type ab */
static bool family_takes(const atom_row *r, cute_dtype ab)
{
    int kind = scaled_kind(r->info.name);
    if (strstr(r->info.name, "F16BF16")) return ab == CUTE_F16 || ab == CUTE_BF16;
    if (strstr(r->info.name, "TF32")) return ab == CUTE_TF32;
    if (kind == CUTE_TCGEN05_MXF4 || kind == CUTE_TCGEN05_MXF4NVF4) return ab == CUTE_E2M1;
    return strstr(r->info.name, "F8F6F4") && (ab == CUTE_E4M3 || ab == CUTE_E5M2);
}

/* the CTA pair's atom (CuTe's 2x1SM layouts): M 256 over the two blocks, each holding M / 2
 * rows of A and of D and N / 2 rows of B */
static bool pair_atom(cute_alg *c, const atom_row *r, cute_dtype ab, int m, int n, cute_mma_atom *out)
{
    if (!family_takes(r, ab))
        return cute_alg_fail(c, "cute_umma_atom: %s does not take %s operands", r->info.name, cute_dtype_name(ab));
    if (m != 256 || n < 32 || n > 256 || n % 32)
        return cute_alg_fail(c, "cute_umma_atom: %s of %d x %d (M 256 over the pair; N a multiple of 32 up to 256, "
                             "N / 2 rows of B a block)", r->info.name, m, n);
    int k = r->mnk[2], hm = m / 2, hn = n / 2;
    *out = (cute_mma_atom){.name = r->info.name, .a_type = (uint8_t)ab, .b_type = (uint8_t)ab,
                           .c_type = CUTE_F32, .m = m, .n = n, .k = k, .min_arch = 100, .traits = r->info.traits,
                           .emit = umma_refuse_emit};
    out->thr_id = cute_layout_parse(c, "2:1");
    out->a_tv = cute_layout_fmt(c, "(2,(%d,%d)):(%d,(1,%d))", hm, k, hm, m);
    out->b_tv = cute_layout_fmt(c, "(2,(%d,%d)):(%d,(1,%d))", hn, k, hn, n);
    out->c_tv = cute_layout_fmt(c, "(2,(%d,%d)):(%d,(1,%d))", hm, n, hm, m);
    return !c->failed;
}

/* the rows of A (which 'A') or B an atom's operand tile holds in one block: the CTA pair's
 * atoms split M and N over the two blocks */
static int64_t block_rows(const cute_mma_atom *atom, char which)
{
    int64_t rows = which == 'A' ? atom->m : atom->n;
    return atom->thr_id.shape.leaf[0].v == 2 ? rows / 2 : rows; /* ThrID 2:1 */
}

bool cute_umma_atom(cute_alg *c, const char *name, cute_dtype ab, int m, int n, cute_mma_atom *out)
{
    memset(out, 0, sizeof *out);
    const atom_row *r = name ? atom_row_find(name) : NULL;
    bool scaled = r && scaled_kind(r->info.name) >= 0, pair = r && r->mnk[0] == 256;
    if (!r || (r->kind != ROW_UMMA_SS && r->kind != ROW_UMMA_TS) || (pair && r->kind == ROW_UMMA_TS))
        return cute_alg_fail(c, "cute_umma_atom: \"%s\" is not an SM100_MMA atom cutec issues "
                             "(SM100_MMA_F16BF16_SS, SM100_MMA_TF32_SS, SM100_MMA_F8F6F4_SS, SM100_MMA_MXF8F6F4_SS, "
                             "SM100_MMA_MXF4_SS, SM100_MMA_MXF4NVF4_SS, the CTA pair's _2x1SM_SS of each, and one "
                             "block's SM100_MMA_F16BF16_TS, SM100_MMA_TF32_TS)", name ? name : "(null)");
    if (pair) return pair_atom(c, r, ab, m, n, out);
    if (scaled && (m != 128 || n % 16))
        return cute_alg_fail(c, "cute_umma_atom: %s of %d x %d (a block-scaled atom of one block is M 128, never 64 (the "
                             "PTX ISA's and CuTe's shape); N a multiple of 16 up to 256)", name, m, n);
    if (!family_takes(r, ab))
        return cute_alg_fail(c, "cute_umma_atom: %s does not take %s operands", name, cute_dtype_name(ab));
    if ((m != 64 && m != 128) || n < 8 || n > 256 || n % (m == 128 ? 16 : 8))
        return cute_alg_fail(c, "cute_umma_atom: %s of %d x %d (M 64 or 128; N a multiple of 8 (M 64) or 16 "
                             "(M 128) up to 256)", name, m, n);
    int k = r->mnk[2];
    *out = (cute_mma_atom){.name = r->info.name, .a_type = (uint8_t)ab, .b_type = (uint8_t)ab,
                           .c_type = CUTE_F32, .m = m, .n = n, .k = k, .min_arch = 100, .traits = r->info.traits,
                           .emit = umma_refuse_emit};
    out->thr_id = cute_layout_parse(c, "1:0");
    out->a_tv = cute_layout_fmt(c, "(1,(%d,%d)):(0,(1,%d))", m, k, m);
    out->b_tv = cute_layout_fmt(c, "(1,(%d,%d)):(0,(1,%d))", n, k, n);
    out->c_tv = cute_layout_fmt(c, "(1,(%d,%d)):(0,(1,%d))", m, n, m);
    return !c->failed;
}

/* operand t: a static (rows, K) shared tile, K a multiple of k */
static bool operand_ok(cute_ctx *c, const cute_mma_atom *atom, cute_tensor t, char which, int64_t rows)
{
    cute_alg *a = &c->alg;
    cute_layout r = cute_get(a, &t.layout, 0), k = cute_get(a, &t.layout, 1);
    cute_int nr = cute_size(a, &r), nk = cute_size(a, &k);
    if (t.kind == CUTE_TENSOR_SMEM && t.dtype == atom->a_type && cute_rank(&t.layout) == 2 && cute_is_static(nr) &&
        cute_is_static(nk) && nr.v == rows && nk.v % atom->k == 0)
        return true;
    char got[256];
    cute_layout_str(&t.layout, got, sizeof got);
    return cute_ctx_fail(c, "cute_umma_gemm: %s: operand %c must be a shared %s tile of (%lld, a multiple of %lld); "
                         "got %s %s", atom->name, which, cute_dtype_name((cute_dtype)atom->a_type), (long long)rows,
                         (long long)atom->k, t.kind == CUTE_TENSOR_SMEM ? cute_dtype_name((cute_dtype)t.dtype)
                                                                        : "a tensor not in shared memory", got);
}

/* k-block i of a (rows, K) tile: (rows, atom K) */
static cute_tensor kblock(cute_ctx *c, const cute_mma_atom *atom, cute_tensor t, int64_t rows, int64_t i)
{
    cute_alg *a = &c->alg;
    return cute_tensor_local_tile(c, t, cute_tuple_fmt(a, "(%lld,%lld)", (long long)rows, (long long)atom->k),
                                  cute_tuple_fmt(a, "(0,%lld)", (long long)i), NULL);
}

/* an sm_100 descriptor: wgmma's (the same fields, the swizzle one bit up in 61-63 reads the
 * same) with version 1 in bits 46-47 */
static cute_val descriptor(cute_ctx *c, const cute_mma_atom *atom, cute_tensor t, char which, cute_major *major)
{
    cute_vreg d = atom_smem_descriptor(c, atom->name, t, which, major);
    if (!d) return (cute_val){0, cute_type_of(CUTE_U64), 0};
    return cute_val_binop(c, CUTE_OP_OR, ctx_val(c, d), cute_val_int(c, CUTE_U64, (int64_t)(1ull << 46)));
}

/* an _SS atom's A is a shared tile, a _TS atom's lies in tensor memory */
static bool ts_atom(const cute_mma_atom *atom)
{
    const atom_row *r = atom->name ? atom_row_find(atom->name) : NULL;
    return r && r->kind == ROW_UMMA_TS;
}

void cute_umma_gemm(cute_ctx *c, const cute_mma_atom *atom, cute_val d, cute_tensor A, cute_tensor B,
                    cute_val accumulate)
{
    static const char what[] = "cute_umma_gemm";
    if (!ctx_ok(c) || !tensor_usable(c, &A, what) || !tensor_usable(c, &B, what)) return;
    if (atom->emit != umma_refuse_emit || scaled_kind(atom->name) >= 0 || ts_atom(atom)) {
        cute_ctx_fail(c, "%s: %s is not a dense sm_100 MMA atom of A in shared memory (cute_umma_atom; the "
                      "block-scaled ones: cute_umma_gemm_scaled; A in tensor memory: cute_umma_gemm_ts)", what,
                      atom->name);
        return;
    }
    int64_t ra = block_rows(atom, 'A'), rb = block_rows(atom, 'B');
    if (!atom_arch_ok(c, atom->min_arch, atom->name, what) || !operand_ok(c, atom, A, 'A', ra) ||
        !operand_ok(c, atom, B, 'B', rb))
        return;
    cute_layout k = cute_get(&c->alg, &A.layout, 1);
    int64_t blocks = cute_size(&c->alg, &k).v / atom->k;
    for (int64_t i = 0; i < blocks && ctx_ok(c); i++) {
        cute_major ma, mb;
        cute_val da = descriptor(c, atom, kblock(c, atom, A, ra, i), 'A', &ma);
        cute_val db = descriptor(c, atom, kblock(c, atom, B, rb, i), 'B', &mb);
        if (!da.r || !db.r) return;
        uint32_t idesc = cute_tcgen05_idesc(c, (cute_dtype)atom->a_type, (cute_dtype)atom->b_type, (int)atom->m,
                                            (int)atom->n, ma == CUTE_MAJOR_MN, mb == CUTE_MAJOR_MN);
        cute_tcgen05_mma(c, (cute_dtype)atom->a_type, d, da, db, idesc, i ? cute_val_int(c, CUTE_U32, 1) : accumulate);
    }
}

void cute_umma_gemm_ts(cute_ctx *c, const cute_mma_atom *atom, cute_val d, cute_val a_tmem, cute_tensor B,
                       cute_val accumulate)
{
    static const char what[] = "cute_umma_gemm_ts";
    if (!ctx_ok(c) || !tensor_usable(c, &B, what)) return;
    if (atom->emit != umma_refuse_emit || !ts_atom(atom)) {
        cute_ctx_fail(c, "%s: %s is not an sm_100 MMA atom of A in tensor memory (SM100_MMA_F16BF16_TS, "
                      "SM100_MMA_TF32_TS through cute_umma_atom)", what, atom->name ? atom->name : "(none)");
        return;
    }
    if (!atom_arch_ok(c, atom->min_arch, atom->name, what) || !operand_ok(c, atom, B, 'B', atom->n)) return;
    cute_layout k = cute_get(&c->alg, &B.layout, 1);
    int64_t blocks = cute_size(&c->alg, &k).v / atom->k;
    int cols = (int)atom->k * cute_dtype_bits((cute_dtype)atom->a_type) / 32; /* A's columns a K of the atom */
    for (int64_t i = 0; i < blocks && ctx_ok(c); i++) {
        cute_major mb;
        cute_val db = descriptor(c, atom, kblock(c, atom, B, atom->n, i), 'B', &mb);
        if (!db.r) return;
        uint32_t idesc = cute_tcgen05_idesc(c, (cute_dtype)atom->a_type, (cute_dtype)atom->b_type, (int)atom->m,
                                            (int)atom->n, false, mb == CUTE_MAJOR_MN);
        cute_val a = cute_val_binop(c, CUTE_OP_ADD, a_tmem, cute_val_int(c, CUTE_U32, i * cols));
        cute_tcgen05_mma_ts(c, (cute_dtype)atom->a_type, d, a, db, idesc, i ? cute_val_int(c, CUTE_U32, 1) : accumulate);
    }
}

/* --- the block-scaled atoms: MXF8F6F4 (MXFP8), MXF4 (MXFP4), MXF4NVF4 (NVFP4) ------------- */

/* operand t of a 4-bit atom: a static (rows, 32 k) tile of its e2m1 as bytes (u8) */
static bool bytes_ok(cute_ctx *c, const cute_mma_atom *atom, cute_tensor t, char which, int64_t rows)
{
    cute_alg *a = &c->alg;
    cute_layout r = cute_get(a, &t.layout, 0), k = cute_get(a, &t.layout, 1);
    cute_int nr = cute_size(a, &r), nk = cute_size(a, &k);
    if (t.kind == CUTE_TENSOR_SMEM && t.dtype == CUTE_U8 && cute_rank(&t.layout) == 2 && cute_is_static(nr) &&
        cute_is_static(nk) && nr.v == rows && nk.v % (atom->k / 2) == 0)
        return true;
    return cute_ctx_fail(c, "cute_umma_gemm_scaled: %s: operand %c must be a shared tile of its e2m1 as bytes (u8), "
                         "(%lld, a multiple of %lld bytes)", atom->name, which, (long long)rows,
                         (long long)atom->k / 2);
}

/* the instruction of k-block i: its descriptors, idesc with the scale ids, the scales' columns */
static void scaled_block(cute_ctx *c, const cute_mma_atom *atom, const cute_mma_atom *tiles, int kind, cute_val d,
                         cute_tensor A, cute_tensor B, cute_val sfa, cute_val sfb, cute_val accumulate, int64_t i)
{
    cute_major ma, mb;
    cute_val da = descriptor(c, atom, kblock(c, tiles, A, block_rows(atom, 'A'), i), 'A', &ma);
    cute_val db = descriptor(c, atom, kblock(c, tiles, B, block_rows(atom, 'B'), i), 'B', &mb);
    if (!da.r || !db.r) return;
    /* a 32-bit word of 4 scales a row serves `per_word` instructions: then the next word's
     * SfKMajorAtoms, 4 columns for each 128 rows (where cute_umma_copy_scales puts them) */
    int per_word = kind == CUTE_TCGEN05_MXF8F6F4 ? 4 : kind == CUTE_TCGEN05_MXF4 ? 2 : 1;
    int id = (int)(i % per_word) * (4 / per_word);
    int64_t word = i / per_word;
    uint32_t idesc = cute_tcgen05_idesc_scaled(c, (cute_tcgen05_scaled_kind)kind, (cute_dtype)atom->a_type,
                                               (cute_dtype)atom->b_type, (int)atom->m, (int)atom->n,
                                               ma == CUTE_MAJOR_MN, mb == CUTE_MAJOR_MN, id, id);
    /* a block's tensor memory holds the scales of its rows of A (128 for the CTA pair) and of all of B's */
    int64_t a_cols = 4 * ((block_rows(atom, 'A') + 127) / 128), b_cols = 4 * ((atom->n + 127) / 128);
    cute_val a_sf = cute_val_binop(c, CUTE_OP_ADD, sfa, cute_val_int(c, CUTE_U32, word * a_cols));
    cute_val b_sf = cute_val_binop(c, CUTE_OP_ADD, sfb, cute_val_int(c, CUTE_U32, word * b_cols));
    cute_tcgen05_mma_scaled(c, (cute_tcgen05_scaled_kind)kind, d, da, db, idesc, a_sf, b_sf,
                            i ? cute_val_int(c, CUTE_U32, 1) : accumulate);
}

void cute_umma_gemm_scaled(cute_ctx *c, const cute_mma_atom *atom, cute_val d, cute_tensor A, cute_tensor B,
                           cute_val sfa, cute_val sfb, cute_val accumulate)
{
    static const char what[] = "cute_umma_gemm_scaled";
    if (!ctx_ok(c) || !tensor_usable(c, &A, what) || !tensor_usable(c, &B, what)) return;
    int kind = atom->emit == umma_refuse_emit ? scaled_kind(atom->name) : -1;
    if (kind < 0) {
        cute_ctx_fail(c, "%s: %s is not a block-scaled sm_100 MMA atom (SM100_MMA_MXF8F6F4_SS, SM100_MMA_MXF4_SS, "
                      "SM100_MMA_MXF4NVF4_SS or their CTA pair's _2x1SM_SS, through cute_umma_atom)", what, atom->name);
        return;
    }
    bool fp4 = atom->a_type == CUTE_E2M1;
    if (!atom_arch_ok(c, atom->min_arch, atom->name, what)) return;
    int64_t ra = block_rows(atom, 'A'), rb = block_rows(atom, 'B');
    if (fp4 ? !bytes_ok(c, atom, A, 'A', ra) || !bytes_ok(c, atom, B, 'B', rb)
            : !operand_ok(c, atom, A, 'A', ra) || !operand_ok(c, atom, B, 'B', rb))
        return;
    cute_mma_atom tiles = *atom; /* a k-block of the operand tiles: 4-bit ones are tiles of bytes */
    if (fp4) tiles.k = atom->k / 2, tiles.a_type = tiles.b_type = CUTE_U8;
    cute_layout k = cute_get(&c->alg, &A.layout, 1);
    int64_t blocks = cute_size(&c->alg, &k).v / tiles.k;
    for (int64_t i = 0; i < blocks && ctx_ok(c); i++)
        scaled_block(c, atom, &tiles, kind, d, A, B, sfa, sfb, accumulate, i);
}

void cute_umma_copy_scales(cute_ctx *c, cute_val taddr, cute_tensor sf)
{
    static const char what[] = "cute_umma_copy_scales";
    if (!ctx_ok(c) || !tensor_usable(c, &sf, what)) return;
    cute_int n = cute_size(&c->alg, &sf.layout);
    if (sf.kind != CUTE_TENSOR_SMEM || cute_dtype_bytes((cute_dtype)sf.dtype) != 1 || !cute_is_static(n) ||
        n.v % 512 || cute_rank(&sf.layout) != 1) {
        cute_ctx_fail(c, "%s: the scales must be a shared rank-1 tile of bytes, whole 512-byte SfKMajorAtoms", what);
        return;
    }
    for (int64_t j = 0; j < n.v / 512 && ctx_ok(c); j++) {
        /* an atom's 32 rows of 16 bytes: K-major, no swizzle, 8-row groups 128 bytes apart */
        cute_val p = cute_tensor_ptr(c, sf, cute_i(512 * j));
        cute_val desc = cute_tcgen05_smem_desc(c, p, 0, 128, 0);
        cute_val at = cute_val_binop(c, CUTE_OP_ADD, taddr, cute_val_int(c, CUTE_U32, 4 * j));
        cute_tcgen05_cp(c, CUTE_TCGEN05_CP_32x128b_WARPX4, at, desc);
    }
}

void umma_refuse_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A, cute_tensor B,
                      cute_tensor C)
{
    (void)D, (void)A, (void)B, (void)C;
    cute_ctx_fail(c, "%s: an sm_100 MMA reads shared memory and writes tensor memory, one thread issuing it: "
                     "call cute_umma_gemm (cutec/umma.h), not cute_gemm", atom->name);
}

void tmem_copy_refuse_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst, cute_vreg pred)
{
    (void)src, (void)dst, (void)pred;
    cute_ctx_fail(c, "%s: tensor memory is reached through cute_tmem_copy / cute_utccp_copy (cutec/umma.h), "
                     "not cute_copy", atom->name);
}

/* atom's row when it is a tensor-memory copy of kind want (or, with want ROW_TMEM_LOAD, an R2T
 * too); NULL after a diagnostic naming call */
static const atom_row *tmem_row(cute_ctx *c, const cute_copy_atom *atom, bool cp, const char *call)
{
    const atom_row *r = atom && atom->name ? atom_row_find(atom->name) : NULL;
    bool ok = r && (cp ? r->kind == ROW_UTCCP : r->kind == ROW_TMEM_LOAD || r->kind == ROW_TMEM_STORE);
    if (!ok)
        cute_ctx_fail(c, "%s: %s is not %s atom (%s)", call, atom && atom->name ? atom->name : "(no atom)",
                      cp ? "an S2T" : "a T2R / R2T", cp ? "SM100_UTCCP_*" : "SM100_TMEM_LOAD_* / SM100_TMEM_STORE_*");
    return ok && atom_arch_ok(c, atom->min_arch, atom->name, call) ? r : NULL;
}

void cute_tmem_copy(cute_ctx *c, const cute_copy_atom *atom, cute_val taddr, cute_val *regs)
{
    static const char call[] = "cute_tmem_copy";
    const atom_row *r = ctx_ok(c) ? tmem_row(c, atom, false, call) : NULL;
    if (!r) return;
    cute_tmem_shape shape = (cute_tmem_shape)r->mnk[0];
    int num = r->mnk[1], split = shape == CUTE_TMEM_16x32bx2 ? num << r->mnk[2] : 0; /* CuTe's half_split */
    if (r->kind == ROW_TMEM_LOAD) cute_tmem_load(c, shape, num, r->mnk[2], taddr, split, regs);
    else cute_tmem_store(c, shape, num, r->mnk[2], taddr, split, regs);
}

void cute_utccp_copy(cute_ctx *c, const cute_copy_atom *atom, cute_val taddr, cute_val s_desc)
{
    static const char call[] = "cute_utccp_copy";
    const atom_row *r = ctx_ok(c) ? tmem_row(c, atom, true, call) : NULL;
    if (!r) return;
    if (r->mnk[1] == 2 && c->tc05_group != 2) {
        cute_ctx_fail(c, "%s: %s is the CTA pair's (cta_group::2): cute_tcgen05_cta_group(c, 2) first", call, atom->name);
        return;
    }
    if (r->mnk[1] == 1 && c->tc05_group == 2) {
        cute_ctx_fail(c, "%s: %s is one block's (cta_group::1), in a kernel of the CTA pair: use its _2cta atom", call,
                      atom->name);
        return;
    }
    cute_tcgen05_cp(c, (cute_tcgen05_cp_shape)r->mnk[0], taddr, s_desc);
}
