/* INST under the interpreter: each row of the instruction table (ir_insts.def) runs its
 * emulation, named by the row's EMULATION column; operands are the op's registers, outputs
 * first (d->flags of them).  The emulations live beside this file: inst_mma.c (mma.sync),
 * inst_matrix.c (ldmatrix, stmatrix), inst_async.c (cp.async and its groups), mbarrier.c,
 * barrier.c (named and cluster barriers), inst_sync.c (the other sm_90 synchronization
 * rows), inst_wgmma.c (wgmma and its fence / commit / wait), inst_tma.c (TMA copies, bulk
 * groups, tensor-map updates), and the register conversions below. */
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

static void cvt_pack(ictx *X, const dinst *d, const imask *m);
static void cvt_e2m1x8(ictx *X, const dinst *d, const imask *m);
static void prmt(ictx *X, const dinst *d, const imask *m);
static void prmt_r(ictx *X, const dinst *d, const imask *m);
static void dp4a(ictx *X, const dinst *d, const imask *m);

#define MMA(M, N, K, D, A, B, C) {inst_mma, M, N, K, {E_##D, E_##A, E_##B, E_##C}, 0, 0}
#define MMA_VIA_F16(M, N, K, D, A, B, C) {inst_mma, M, N, K, {E_##D, E_##A, E_##B, E_##C}, 0, 1}
#define LDSM(n, t) {inst_ldmatrix, 0, 0, 0, {0, 0, 0, 0}, n, t}
#define STSM(n, t) {inst_stmatrix, 0, 0, 0, {0, 0, 0, 0}, n, t}
#define CPASYNC(bytes, zfill) {inst_cp_async, 0, 0, 0, {0, 0, 0, 0}, bytes, zfill}
#define CP_COMMIT {inst_cp_commit, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define CP_WAIT {inst_cp_wait, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define CP_WAIT_ALL {inst_cp_wait_all, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define CVT_PACK(T) {cvt_pack, 0, 0, 0, {E_##T, 0, 0, 0}, 0, 0}
#define CVT_E2M1X8 {cvt_e2m1x8, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define PRMT {prmt, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define PRMT_R {prmt_r, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define DP4A {dp4a, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define TMA_LOAD(rank, multicast) {inst_tma_load, 0, 0, 0, {0, 0, 0, 0}, rank, multicast}
#define TMA_STORE(rank, reduce) {inst_tma_store, 0, 0, 0, {0, 0, 0, 0}, rank, reduce}
#define TMA_PREFETCH(rank) {inst_tma_prefetch, 0, 0, 0, {0, 0, 0, 0}, rank, 0}
#define TMAP_PREFETCH {inst_tmap_prefetch, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define TMAP_REPLACE(field) {inst_tmap_replace, 0, 0, 0, {0, 0, 0, 0}, 0, field}
#define TMAP_FENCE(acquire) {inst_tmap_fence, 0, 0, 0, {0, 0, 0, 0}, 0, acquire}
#define TMAP_WORDS {inst_tmap_words, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define HALF2(OP, T) {inst_half2, 0, 0, 0, {E_##T, 0, 0, 0}, HALF2_##OP, 0}
#define MBAR(kind, cluster) {inst_mbarrier, 0, 0, 0, {0, 0, 0, 0}, kind, cluster}
#define SYNC(kind) {inst_sync, 0, 0, 0, {0, 0, 0, 0}, kind, 0}
#define NAMED_BAR(sync) {inst_named_barrier, 0, 0, 0, {0, 0, 0, 0}, 0, sync}
#define SREG90(which, dim) {inst_sreg90, 0, 0, 0, {0, 0, 0, 0}, which, dim}
#define PEER_FLAG(store) {inst_peer_flag, 0, 0, 0, {0, 0, 0, 0}, 0, store}
#define DSMEM(store) {inst_dsmem, 0, 0, 0, {0, 0, 0, 0}, 0, store}
#define CLUSTER_BAR(kind) {inst_cluster_barrier, 0, 0, 0, {0, 0, 0, 0}, kind, 0}
#define BULK_G2S {inst_bulk_g2s, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define L2_PREFETCH {inst_l2_prefetch, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define BULK_S2G {inst_bulk_s2g, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define BULK_COMMIT {inst_bulk_commit, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define BULK_WAIT_READ {inst_bulk_wait_read, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define WGMMA(N, K, D, A, B, rs) {inst_wgmma, 64, N, K, {E_##D, E_##A, E_##B, E_##D}, 0, rs}
#define WG_FENCE {inst_wgmma_sync, 0, 0, 0, {0, 0, 0, 0}, 0, 0}
#define WG_COMMIT {inst_wgmma_sync, 0, 0, 0, {0, 0, 0, 0}, 1, 0}
#define WG_WAIT {inst_wgmma_sync, 0, 0, 0, {0, 0, 0, 0}, 2, 0}
#define TC05(kind) {inst_tcgen05, 0, 0, 0, {0, 0, 0, 0}, kind, 0}
#define TC05_MMA(K, kind) {inst_tcgen05_mma, 0, 0, K, {0, 0, 0, 0}, kind, 0}
/* the CTA pair's rows (cta_group::2): flag 2 */
#define TC05_PAIR(kind) {inst_tcgen05, 0, 0, 0, {0, 0, 0, 0}, kind, 2}
#define TC05_MMA_PAIR(K, kind) {inst_tcgen05_mma_pair, 0, 0, K, {0, 0, 0, 0}, kind, 2}
#define TC05_MMA_SCALED(K, kind) {inst_tcgen05_mma_scaled, 0, 0, K, {0, 0, 0, 0}, kind, 0}
/* tcgen05.ld / st: m the shape (TC_LDST_*), k .pack::16b / .unpack::16b, num .xN, flag a store */
#define TC05_LDST(shape, n, store, pack) {inst_tcgen05_ldst, shape, 0, pack, {0, 0, 0, 0}, n, store}
/* tcgen05.cp: m rows of n 32-bit words, num copies of each, k which lanes they land in (TC_CP_*) */
#define TC05_CP(rows, cols, copies, map) {inst_tcgen05_cp, rows, cols, map, {0, 0, 0, 0}, copies, 0}
#define TC05_MMA_TS(K, kind) {inst_tcgen05_mma_ts, 0, 0, K, {0, 0, 0, 0}, kind, 0}
#define TC05_MMA_SCALED_PAIR(K, kind) {inst_tcgen05_mma_scaled, 0, 0, K, {0, 0, 0, 0}, kind, 2}
#define TC05_CP_PAIR(rows, cols, copies, map) {inst_tcgen05_cp, rows, cols, map, {0, 0, 0, 0}, copies, 2}

static const irow rows[CUTE_INST_COUNT] = {
#define X(id, mnemonic, tmpl, arch, flags, emu, meaning, ...) [CUTE_INST_##id] = emu,
#include "cutec/ir_insts.def"
#undef X
};

const irow *interp_inst_row(int64_t row)
{
    return row >= 0 && row < CUTE_INST_COUNT && rows[row].fn ? &rows[row] : NULL;
}

/* --- register access: 32 bits of a scalar or of a packed vector ---------------------------- */

uint32_t interp_get32(ictx *X, const dinst *d, uint32_t k, uint32_t t)
{
    cute_type ty = d->vtype[k];
    if (ty.lanes <= 1) return REG(X, d->var[k])[t].u32;
    int bits = 32 / ty.lanes;
    uint32_t v = 0, mask = bits == 32 ? ~0u : (1u << bits) - 1;
    for (int l = 0; l < ty.lanes; l++) v |= (REG(X, d->var[k] + (uint32_t)l)[t].u32 & mask) << (bits * l);
    return v;
}

void interp_put32(ictx *X, const dinst *d, uint32_t k, uint32_t t, uint32_t v)
{
    cute_type ty = d->vtype[k];
    if (ty.lanes <= 1) {
        REG(X, d->var[k])[t].u64 = v;
        return;
    }
    int bits = 32 / ty.lanes;
    uint32_t mask = (1u << bits) - 1;
    for (int l = 0; l < ty.lanes; l++) {
        islot *s = &REG(X, d->var[k] + (uint32_t)l)[t];
        uint32_t part = v >> (bits * l) & mask;
        s->u64 = 0;
        if (cute_dtype_is_signed((cute_dtype)ty.dtype)) /* the slot holds the sign-extended value */
            s->i64 = bits == 8 ? (int8_t)part : (int16_t)part;
        else
            s->u32 = part;
    }
}

/* an address operand: the shared offset or the host address */
uint64_t interp_addr(ictx *X, const dinst *d, uint32_t k, uint32_t t)
{
    return REG(X, d->var[k])[t].u64;
}

bool interp_whole_lanes(ictx *X, const dinst *d, const imask *m, uint32_t w0, uint32_t n)
{
    uint32_t nl = X->nthr - w0 < n ? X->nthr - w0 : n, on = 0;
    for (uint32_t i = 0; i < nl; i++) on += m->on[w0 + i];
    if (on == n) return true;
    if (on && checking(X, CUTE_CHECK_WARP_INACTIVE)) {
        uint32_t i = 0;
        while (i < nl && m->on[w0 + i]) i++;
        const cute_inst_info *I = cute_inst_info_of((cute_inst)d->imm2);
        interp_report(X, d, w0, CUTE_CHECK_WARP_INACTIVE, 0, 0, 0,
                      "%s is %s-collective: %u of %u lanes active (lane %u %s)",
                      I ? I->mnemonic : "?", n == 32 ? "warp" : "warpgroup", on, n, i,
                      i < nl ? "is not" : "does not exist");
    }
    return false;
}

bool interp_whole_warp(ictx *X, const dinst *d, const imask *m, uint32_t w0)
{
    return interp_whole_lanes(X, d, m, w0, 32);
}

/* cvt.rn.{f16x2,bf16x2}.f32 d, hi, lo */
static void cvt_pack(ictx *X, const dinst *d, const imask *m)
{
    bool bf = d->row->types[0] == E_BF16;
    EACH(X, m, t, {
        float hi = REG(X, d->var[1])[t].f32, lo = REG(X, d->var[2])[t].f32;
        uint32_t v = bf ? (uint32_t)cute_f32_to_bf16(hi) << 16 | cute_f32_to_bf16(lo)
                        : (uint32_t)cute_f32_to_f16(hi) << 16 | cute_f32_to_f16(lo);
        interp_put32(X, d, 0, t, v);
    });
}

/* the f16 of e2m1 code v (exact: every e2m1 is an f16, -0 included) */
static uint32_t e2m1_f16(uint32_t v) { return cute_f32_to_f16(cute_e2m1_to_f32((uint8_t)(v & 0xfu))); }

/* cvt.rn.f16x2.e2m1x2 on each byte j of a into d[j]: the low nibble to the low half */
static void cvt_e2m1x8(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, {
        uint32_t a = REG(X, d->var[4])[t].u32;
        for (uint32_t j = 0; j < 4; j++)
            interp_put32(X, d, j, t, e2m1_f16(a >> (8 * j + 4)) << 16 | e2m1_f16(a >> 8 * j));
    });
}

/* the four bytes prmt.b32 picks from the eight of b:a by the selector's low four nibbles
 * (PTX's default mode): byte i is byte (nibble i) & 7, or with the nibble's bit 3 set that
 * byte's sign bit in all 8 bits */
static uint32_t prmt_bytes(uint32_t a, uint32_t b, uint32_t sel)
{
    uint64_t ab = (uint64_t)b << 32 | a;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t n = sel >> (4 * i) & 0xf, byte = (uint32_t)(ab >> (8 * (n & 7))) & 0xff;
        if (n & 8) byte = byte & 0x80 ? 0xff : 0;
        v |= byte << (8 * i);
    }
    return v;
}

/* prmt.b32 d, a, b, sel with the selector an immediate */
static void prmt(ictx *X, const dinst *d, const imask *m)
{
    uint32_t sel = (uint32_t)d->imm;
    EACH(X, m, t, { interp_put32(X, d, 0, t, prmt_bytes(interp_get32(X, d, 1, t), interp_get32(X, d, 2, t), sel)); });
}

/* prmt.b32 d, a, b, sel with the selector a register */
static void prmt_r(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, {
        uint32_t v = prmt_bytes(interp_get32(X, d, 1, t), interp_get32(X, d, 2, t), interp_get32(X, d, 3, t));
        interp_put32(X, d, 0, t, v);
    });
}

/* dp4a.s32.s32 d, a, b, c: c plus the four products of signed bytes, wrapping at 32 bits */
static void dp4a(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, {
        uint32_t a = interp_get32(X, d, 1, t), b = interp_get32(X, d, 2, t), s = interp_get32(X, d, 3, t);
        for (int i = 0; i < 4; i++)
            s += (uint32_t)((int32_t)(int8_t)(a >> 8 * i) * (int32_t)(int8_t)(b >> 8 * i));
        interp_put32(X, d, 0, t, s);
    });
}
