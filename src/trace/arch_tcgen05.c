/* cutec/tcgen05.h: the sm_100a tcgen05 rows as DSL calls.  The instruction descriptor's
 * fields are CUTLASS's UMMA::InstrDescriptor (docs/blackwell.md); the shared-memory
 * descriptor is wgmma's plus version 1 in bits 46-47 and the swizzle in bits 61-63. */
#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"
#include "cutec/inst.h"
#include "cutec/tcgen05.h"

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

static void emit(cute_ctx *c, cute_inst row, const cute_vreg *in, int nin)
{
    cute_ir_inst_op(&c->b, row, NULL, 0, in, nin, 0);
}

void cute_tcgen05_cta_group(cute_ctx *c, int group)
{
    if (!ctx_ok(c)) return;
    if (group != 1 && group != 2) {
        cute_ctx_fail(c, "cute_tcgen05_cta_group: group %d (1: one block, 2: the CTA pair)", group);
        return;
    }
    if (c->tc05_used && group != c->tc05_group) {
        cute_ctx_fail(c, "cute_tcgen05_cta_group(%d) after tcgen05 calls of cta_group::%d: a kernel uses one "
                      "cta_group for all its tcgen05 instructions (PTX ISA); set it before the first", group,
                      c->tc05_group);
        return;
    }
    c->tc05_group = group;
}

/* the row of the kernel's cta_group (one: cta_group::1's, pair: ::2's); marks the group used */
static cute_inst grouped(cute_ctx *c, cute_inst one, cute_inst pair)
{
    c->tc05_used = true;
    return c->tc05_group == 2 ? pair : one;
}

static bool columns_ok(cute_ctx *c, int ncols, const char *call)
{
    if (ncols >= 32 && ncols <= 512 && !(ncols & (ncols - 1))) return true;
    return cute_ctx_fail(c, "%s: %d columns (a power of two in 32..512)", call, ncols);
}

void cute_tmem_alloc(cute_ctx *c, cute_val dst, int ncols)
{
    static const char call[] = "cute_tmem_alloc";
    cute_inst row = grouped(c, CUTE_INST_TCGEN05_ALLOC, CUTE_INST_TCGEN05_ALLOC_2SM);
    if (ctx_row_ok(c, row, call) && ctx_smem_operand(c, dst, call, "the address slot") && columns_ok(c, ncols, call))
        emit(c, row, (cute_vreg[]){dst.r, u32(c, ncols).r}, 2);
}

void cute_tmem_dealloc(cute_ctx *c, cute_val taddr, int ncols)
{
    static const char call[] = "cute_tmem_dealloc";
    cute_inst row = grouped(c, CUTE_INST_TCGEN05_DEALLOC, CUTE_INST_TCGEN05_DEALLOC_2SM);
    cute_vreg a;
    if (ctx_row_ok(c, row, call) && ctx_u32_operand(c, taddr, call, "the address", &a) && columns_ok(c, ncols, call))
        emit(c, row, (cute_vreg[]){a, u32(c, ncols).r}, 2);
}

static void bare(cute_ctx *c, cute_inst row, const char *call)
{
    if (ctx_row_ok(c, row, call)) emit(c, row, NULL, 0);
}

void cute_tmem_relinquish_alloc_permit(cute_ctx *c)
{
    bare(c, grouped(c, CUTE_INST_TCGEN05_RELINQUISH_ALLOC_PERMIT, CUTE_INST_TCGEN05_RELINQUISH_ALLOC_PERMIT_2SM),
         "cute_tmem_relinquish_alloc_permit");
}
void cute_tcgen05_fence_before_thread_sync(cute_ctx *c)
{
    bare(c, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC, "cute_tcgen05_fence_before_thread_sync");
}
void cute_tcgen05_fence_after_thread_sync(cute_ctx *c)
{
    bare(c, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC, "cute_tcgen05_fence_after_thread_sync");
}
void cute_tcgen05_wait_ld(cute_ctx *c) { bare(c, CUTE_INST_TCGEN05_WAIT_LD, "cute_tcgen05_wait_ld"); }
void cute_tcgen05_wait_st(cute_ctx *c) { bare(c, CUTE_INST_TCGEN05_WAIT_ST, "cute_tcgen05_wait_st"); }

void cute_tcgen05_commit(cute_ctx *c, cute_val bar)
{
    static const char call[] = "cute_tcgen05_commit";
    cute_vreg a;
    if (!ctx_ok(c)) return;
    if (grouped(c, 0, 1)) { /* the pair's: an mbarrier of either block, by its shared::cluster address */
        if (ctx_row_ok(c, CUTE_INST_TCGEN05_COMMIT_2SM, call) &&
            ctx_u32_operand(c, bar, call, "the mbarrier's shared::cluster address (cute_mapa; the CTA pair's "
                            "commit, or cute_tcgen05_commit_multicast)", &a))
            emit(c, CUTE_INST_TCGEN05_COMMIT_2SM, &a, 1);
        return;
    }
    if (ctx_row_ok(c, CUTE_INST_TCGEN05_COMMIT, call) && ctx_smem_operand(c, bar, call, "the mbarrier"))
        emit(c, CUTE_INST_TCGEN05_COMMIT, &bar.r, 1);
}

void cute_tcgen05_commit_multicast(cute_ctx *c, cute_val bar, cute_val cta_mask)
{
    static const char call[] = "cute_tcgen05_commit_multicast";
    if (!ctx_ok(c)) return;
    if (!grouped(c, 0, 1)) {
        cute_ctx_fail(c, "%s: the CTA pair's commit (cute_tcgen05_cta_group(c, 2) first); one block's commit is "
                      "cute_tcgen05_commit", call);
        return;
    }
    if (!ctx_row_ok(c, CUTE_INST_TCGEN05_COMMIT_2SM_MULTICAST, call) || !ctx_smem_operand(c, bar, call, "the mbarrier") ||
        !ctx_usable(c, cta_mask, "the mask"))
        return;
    if (cute_dtype_is_float(cta_mask.t.dtype) || cute_dtype_is_narrow_float(cta_mask.t.dtype) || cta_mask.t.lanes > 1) {
        cute_ctx_fail(c, "%s: the mask must be an integer (a bit per block of the cluster)", call);
        return;
    }
    cute_val mask16 = cute_val_cvt(c, cta_mask, CUTE_U16);
    emit(c, CUTE_INST_TCGEN05_COMMIT_2SM_MULTICAST, (cute_vreg[]){bar.r, mask16.r}, 2);
}

/* a type's format code in the descriptor, or -1 */
static int format_of(cute_dtype t)
{
    switch (t) {
    case CUTE_F16: case CUTE_E4M3: return 0;
    case CUTE_BF16: case CUTE_E5M2: return 1;
    case CUTE_TF32: return 2;
    default: return -1;
    }
}

uint32_t cute_tcgen05_idesc(cute_ctx *c, cute_dtype a, cute_dtype b, int m, int n, bool a_mn_major, bool b_mn_major)
{
    if (!ctx_ok(c)) return 0;
    int fa = format_of(a), fb = format_of(b);
    if (fa < 0 || fb < 0 || (cute_dtype_bits(a) == 8) != (cute_dtype_bits(b) == 8) || (a == CUTE_TF32) != (b == CUTE_TF32)) {
        cute_ctx_fail(c, "cute_tcgen05_idesc: A %s, B %s: no tcgen05.mma kind takes them (f16/bf16, tf32, e4m3/e5m2)",
                      cute_dtype_name(a), cute_dtype_name(b));
        return 0;
    }
    if ((m != 64 && m != 128 && m != 256) || n < 8 || n > 256 || n % (m == 64 ? 8 : 16)) {
        cute_ctx_fail(c, "cute_tcgen05_idesc: M %d, N %d (M 64, 128, or 256 for the CTA pair; N a multiple of 8 "
                      "(M 64) or 16 up to 256)", m, n);
        return 0;
    }
    return 1u << 4 | (uint32_t)fa << 7 | (uint32_t)fb << 10 | (uint32_t)a_mn_major << 15 |
           (uint32_t)b_mn_major << 16 | (uint32_t)(n >> 3) << 17 | (uint32_t)(m >> 4) << 24;
}

uint32_t cute_tcgen05_idesc_formats(cute_ctx *c, uint32_t idesc, cute_tcgen05_format a, cute_tcgen05_format b)
{
    static const char call[] = "cute_tcgen05_idesc_formats";
    bool ok_a = (unsigned)a <= 5 && a != 2, ok_b = (unsigned)b <= 5 && b != 2;
    if (!ctx_ok(c)) return 0;
    if (!idesc || (idesc >> 7 & 7) > 1 || (idesc >> 10 & 7) > 1) { /* e4m3 / e5m2 codes: f8f6f4's, mxf8f6f4's */
        cute_ctx_fail(c, "%s: idesc 0x%x is not kind::f8f6f4's or mxf8f6f4's (cute_tcgen05_idesc or "
                      "cute_tcgen05_idesc_scaled of e4m3 / e5m2 operands)", call, idesc);
        return 0;
    }
    if (!ok_a || !ok_b) {
        cute_ctx_fail(c, "%s: formats %d (A), %d (B): CUTE_TCGEN05_E4M3 0, E5M2 1, E2M3 3, E3M2 4 or E2M1 5", call,
                      (int)a, (int)b);
        return 0;
    }
    return (idesc & ~(63u << 7)) | (uint32_t)a << 7 | (uint32_t)b << 10;
}

cute_val cute_tcgen05_smem_desc(cute_ctx *c, cute_val p, int lbo, int sbo, int swizzle_bytes)
{
    static const char call[] = "cute_tcgen05_smem_desc";
    cute_val none = {0, cute_type_of(CUTE_U64), 0};
    int mode = swizzle_bytes == 0 ? 0 : swizzle_bytes == 32 ? 6 : swizzle_bytes == 64 ? 4 : swizzle_bytes == 128 ? 2 : -1;
    if (!ctx_smem_operand(c, p, call, "the operand")) return none;
    if (mode < 0 || lbo < 0 || sbo < 0 || lbo % 16 || sbo % 16 || lbo >> 18 || sbo >> 18) {
        cute_ctx_fail(c, "%s: LBO %d, SBO %d, swizzle %d (offsets multiples of 16 below 2^18; swizzle 0, 32, 64, 128)",
                      call, lbo, sbo, swizzle_bytes);
        return none;
    }
    uint64_t fixed = (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | 1ull << 46 | (uint64_t)mode << 61;
    cute_val addr = ctx_val(c, cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_U32), p.r, 0, 0));
    cute_val start = cute_val_cvt(c, cute_val_binop(c, CUTE_OP_AND, cute_val_binop(c, CUTE_OP_SHR, addr, u32(c, 4)),
                                                    u32(c, 0x3fff)), CUTE_U64);
    return cute_val_binop(c, CUTE_OP_OR, start, cute_val_int(c, CUTE_U64, (int64_t)fixed));
}

/* an MMA's A and B descriptors (u64 values) and idesc (nonzero) into in[1..3]; false after
 * the failure, naming the call and where idesc comes from */
static bool mma_descriptors(cute_ctx *c, cute_val a_desc, cute_val b_desc, uint32_t idesc, const char *call,
                            const char *idesc_from, cute_vreg *in)
{
    if (!ctx_usable(c, a_desc, "A's descriptor") || !ctx_usable(c, b_desc, "B's descriptor")) return false;
    if (a_desc.t.dtype != CUTE_U64 || b_desc.t.dtype != CUTE_U64 || !idesc)
        return cute_ctx_fail(c, "%s: the descriptors must be u64 values (cute_tcgen05_smem_desc) and idesc nonzero "
                             "(%s)", call, idesc_from);
    in[1] = a_desc.r, in[2] = b_desc.r, in[3] = u32(c, idesc).r;
    return true;
}

/* idesc's M fits the kernel's cta_group: 256 the CTA pair's only (the pair may issue 128) */
static bool group_fits_m(cute_ctx *c, uint32_t idesc, const char *call)
{
    int m = (int)(idesc >> 24 & 31) << 4;
    if (!ctx_ok(c) || !idesc || (c->tc05_group == 2) == (m == 256) || (c->tc05_group == 2 && m == 128)) return true;
    return cute_ctx_fail(c, "%s: idesc's M %d with cta_group::%d (M 256 is the CTA pair's: cute_tcgen05_cta_group(c, "
                         "2); one block's M is 64 or 128)", call, m, c->tc05_group);
}

void cute_tcgen05_mma(cute_ctx *c, cute_dtype a_type, cute_val d, cute_val a_desc, cute_val b_desc, uint32_t idesc,
                      cute_val accumulate)
{
    static const char call[] = "cute_tcgen05_mma";
    bool tf32 = a_type == CUTE_TF32, f8 = cute_dtype_bits(a_type) == 8 || a_type == CUTE_E2M1;
    cute_inst row = tf32 ? grouped(c, CUTE_INST_TCGEN05_MMA_TF32, CUTE_INST_TCGEN05_MMA_TF32_2SM)
                    : f8 ? grouped(c, CUTE_INST_TCGEN05_MMA_F8F6F4, CUTE_INST_TCGEN05_MMA_F8F6F4_2SM)
                         : grouped(c, CUTE_INST_TCGEN05_MMA_F16, CUTE_INST_TCGEN05_MMA_F16_2SM);
    cute_vreg in[5];
    if (!group_fits_m(c, idesc, call) || !ctx_row_ok(c, row, call) || !ctx_u32_operand(c, d, call, "D's address", &in[0]) ||
        !ctx_u32_operand(c, accumulate, call, "accumulate", &in[4]))
        return;
    if (mma_descriptors(c, a_desc, b_desc, idesc, call, "cute_tcgen05_idesc", in)) emit(c, row, in, 5);
}

void cute_tcgen05_mma_ts(cute_ctx *c, cute_dtype a_type, cute_val d, cute_val a_tmem, cute_val b_desc, uint32_t idesc,
                         cute_val accumulate)
{
    static const char call[] = "cute_tcgen05_mma_ts";
    cute_inst row = a_type == CUTE_TF32 ? CUTE_INST_TCGEN05_MMA_TF32_TS : CUTE_INST_TCGEN05_MMA_F16_TS;
    cute_vreg in[5];
    if (!ctx_ok(c)) return;
    if ((a_type != CUTE_F16 && a_type != CUTE_BF16 && a_type != CUTE_TF32) || grouped(c, 0, 1) || (idesc >> 15 & 1)) {
        cute_ctx_fail(c, "%s: A %s%s%s: the _TS form takes a K-major f16, bf16 or tf32 A of one block (the CTA "
                      "pair's is not written)", call, cute_dtype_name(a_type), c->tc05_group == 2 ? ", cta_group::2" : "",
                      idesc >> 15 & 1 ? ", MN-major in idesc" : "");
        return;
    }
    if (!group_fits_m(c, idesc, call) || !ctx_row_ok(c, row, call) ||
        !ctx_u32_operand(c, d, call, "D's address", &in[0]) || !ctx_u32_operand(c, a_tmem, call, "A's address", &in[1]) ||
        !ctx_u32_operand(c, accumulate, call, "accumulate", &in[4]))
        return;
    if (!ctx_usable(c, b_desc, "B's descriptor")) return;
    if (b_desc.t.dtype != CUTE_U64 || !idesc) {
        cute_ctx_fail(c, "%s: B's descriptor must be a u64 value (cute_tcgen05_smem_desc) and idesc nonzero "
                      "(cute_tcgen05_idesc)", call);
        return;
    }
    in[2] = b_desc.r, in[3] = u32(c, idesc).r;
    emit(c, row, in, 5);
}

/* the block-scaled kinds: their instruction rows, names, K and the scale ids they allow */
static const struct {
    cute_inst row, pair; /* cta_group::1's, ::2's */
    const char *name;
    int ids; /* scale-factor ids 0, step, ..: 4 / the scales an instruction reads a row */
} scaled_kinds[] = {
    [CUTE_TCGEN05_MXF8F6F4] = {CUTE_INST_TCGEN05_MMA_MXF8F6F4, CUTE_INST_TCGEN05_MMA_MXF8F6F4_2SM, "mxf8f6f4 (MXFP8)", 4},
    [CUTE_TCGEN05_MXF4] = {CUTE_INST_TCGEN05_MMA_MXF4, CUTE_INST_TCGEN05_MMA_MXF4_2SM, "mxf4 (MXFP4)", 2},
    [CUTE_TCGEN05_MXF4NVF4] = {CUTE_INST_TCGEN05_MMA_MXF4NVF4, CUTE_INST_TCGEN05_MMA_MXF4NVF4_2SM, "mxf4nvf4 (NVFP4)", 1},
};

static bool scaled_kind_ok(cute_ctx *c, cute_tcgen05_scaled_kind kind, const char *call)
{
    if ((unsigned)kind <= CUTE_TCGEN05_MXF4NVF4) return true;
    return cute_ctx_fail(c, "%s: kind %d is not a block-scaled tcgen05.mma kind (CUTE_TCGEN05_MXF8F6F4, _MXF4, "
                         "_MXF4NVF4)", call, (int)kind);
}

/* A's or B's format code of the kind, or -1: e4m3 0 / e5m2 1 (mxf8f6f4), e2m1 1 (the 4-bit kinds) */
static int scaled_format(cute_tcgen05_scaled_kind kind, cute_dtype t)
{
    if (kind != CUTE_TCGEN05_MXF8F6F4) return t == CUTE_E2M1 ? 1 : -1;
    return t == CUTE_E4M3 ? 0 : t == CUTE_E5M2 ? 1 : -1;
}

uint32_t cute_tcgen05_idesc_scaled(cute_ctx *c, cute_tcgen05_scaled_kind kind, cute_dtype a, cute_dtype b, int m,
                                   int n, bool a_mn_major, bool b_mn_major, int sfa_id, int sfb_id)
{
    static const char call[] = "cute_tcgen05_idesc_scaled";
    if (!ctx_ok(c) || !scaled_kind_ok(c, kind, call)) return 0;
    int fa = scaled_format(kind, a), fb = scaled_format(kind, b), step = 4 / scaled_kinds[kind].ids;
    if (fa < 0 || fb < 0 || (kind != CUTE_TCGEN05_MXF8F6F4 && (a_mn_major || b_mn_major))) {
        cute_ctx_fail(c, "%s: kind %s takes %s, not A %s%s and B %s%s", call, scaled_kinds[kind].name,
                      kind == CUTE_TCGEN05_MXF8F6F4 ? "e4m3 or e5m2 A and B" : "K-major e2m1 A and B",
                      cute_dtype_name(a), a_mn_major ? " (MN-major)" : "", cute_dtype_name(b),
                      b_mn_major ? " (MN-major)" : "");
        return 0;
    }
    if ((m != 128 && m != 256) || n < 16 || n > 256 || n % 16) {
        cute_ctx_fail(c, "%s: M %d, N %d (the block-scaled kinds take M 128 with one block and 256 with the CTA pair: "
                      "no M 64, which is the dense kinds' (CuTe's SM100_MMA_MXF*_SS assert M == 128); the pair's M 128 "
                      "of mxf4 / mxf4nvf4 is not emulated; N a multiple of 16 up to 256)", call, m, n);
        return 0;
    }
    if (sfa_id < 0 || sfb_id < 0 || sfa_id > 3 || sfb_id > 3 || sfa_id % step || sfb_id % step) {
        cute_ctx_fail(c, "%s: scale-factor ids %d (A), %d (B): kind %s takes %s", call, sfa_id, sfb_id,
                      scaled_kinds[kind].name, step == 4 ? "0 only" : step == 2 ? "0 or 2" : "0 to 3");
        return 0;
    }
    /* InstrDescriptorBlockScaled; bit 23: ue8m0 scales (the MX kinds), clear: ue4m3 (NVFP4) */
    return (uint32_t)sfb_id << 4 | (uint32_t)fa << 7 | (uint32_t)fb << 10 | (uint32_t)a_mn_major << 15 |
           (uint32_t)b_mn_major << 16 | (uint32_t)(n >> 3) << 17 | (uint32_t)(kind != CUTE_TCGEN05_MXF4NVF4) << 23 |
           (uint32_t)(m >> 4) << 24 | (uint32_t)sfa_id << 29;
}

void cute_tcgen05_mma_scaled(cute_ctx *c, cute_tcgen05_scaled_kind kind, cute_val d, cute_val a_desc,
                             cute_val b_desc, uint32_t idesc, cute_val sfa, cute_val sfb, cute_val accumulate)
{
    static const char call[] = "cute_tcgen05_mma_scaled";
    cute_vreg in[7];
    if (!ctx_ok(c) || !scaled_kind_ok(c, kind, call) || !group_fits_m(c, idesc, call)) return;
    cute_inst row = grouped(c, scaled_kinds[kind].row, scaled_kinds[kind].pair);
    if (!ctx_row_ok(c, row, call) || !ctx_u32_operand(c, d, call, "D's address", &in[0]) ||
        !ctx_u32_operand(c, sfa, call, "SFA's address", &in[4]) ||
        !ctx_u32_operand(c, sfb, call, "SFB's address", &in[5]) ||
        !ctx_u32_operand(c, accumulate, call, "accumulate", &in[6]))
        return;
    if (mma_descriptors(c, a_desc, b_desc, idesc, call, "cute_tcgen05_idesc_scaled", in)) emit(c, row, in, 7);
}

/* the tcgen05.cp rows of each shape: one block's, the CTA pair's */
static const cute_inst cp_rows[][2] = {
    [CUTE_TCGEN05_CP_128x256b] = {CUTE_INST_TCGEN05_CP_128x256b, CUTE_INST_TCGEN05_CP_128x256b_2SM},
    [CUTE_TCGEN05_CP_32x128b_WARPX4] = {CUTE_INST_TCGEN05_CP_32x128b_WARPX4, CUTE_INST_TCGEN05_CP_32x128b_WARPX4_2SM},
    [CUTE_TCGEN05_CP_128x128b] = {CUTE_INST_TCGEN05_CP_128x128b, CUTE_INST_TCGEN05_CP_128x128b_2SM},
    [CUTE_TCGEN05_CP_4x256b] = {CUTE_INST_TCGEN05_CP_4x256b, CUTE_INST_TCGEN05_CP_4x256b_2SM},
    [CUTE_TCGEN05_CP_64x128b_WARPX2_02_13] = {CUTE_INST_TCGEN05_CP_64x128b_WARPX2_02_13,
                                              CUTE_INST_TCGEN05_CP_64x128b_WARPX2_02_13_2SM},
    [CUTE_TCGEN05_CP_64x128b_WARPX2_01_23] = {CUTE_INST_TCGEN05_CP_64x128b_WARPX2_01_23,
                                              CUTE_INST_TCGEN05_CP_64x128b_WARPX2_01_23_2SM},
};

void cute_tcgen05_cp(cute_ctx *c, cute_tcgen05_cp_shape shape, cute_val taddr, cute_val s_desc)
{
    static const char call[] = "cute_tcgen05_cp";
    cute_vreg a;
    if ((unsigned)shape > CUTE_TCGEN05_CP_64x128b_WARPX2_01_23) {
        cute_ctx_fail(c, "%s: shape %d (CUTE_TCGEN05_CP_128x256b, _128x128b, _4x256b, _32x128b_WARPX4, "
                      "_64x128b_WARPX2_02_13 or _01_23)", call, (int)shape);
        return;
    }
    cute_inst row = grouped(c, cp_rows[shape][0], cp_rows[shape][1]);
    if (!ctx_row_ok(c, row, call) || !ctx_u32_operand(c, taddr, call, "the address", &a) ||
        !ctx_usable(c, s_desc, "the descriptor"))
        return;
    if (s_desc.t.dtype != CUTE_U64) {
        cute_ctx_fail(c, "%s: the descriptor must be a u64 value (cute_tcgen05_smem_desc)", call);
        return;
    }
    emit(c, row, (cute_vreg[]){a, s_desc.r}, 2);
}
