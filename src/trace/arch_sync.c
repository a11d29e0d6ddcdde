/* cutec/sync.h: the sm_90 synchronization rows as DSL calls.  Each checks its operands
 * (a barrier is a shared pointer, counts are integers) and the target's sm at the user's
 * call site, then appends its row. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "ctx_internal.h"
#include "cutec/inst.h"
#include "cutec/sync.h"

bool ctx_row_ok(cute_ctx *c, cute_inst row, const char *call)
{
    if (!ctx_ok(c)) return false;
    const cute_inst_info *I = cute_inst_info_of(row);
    int sm = cute_ctx_arch(c);
    if (sm && sm < I->arch)
        return cute_ctx_fail(c, "%s (%s) needs sm_%d; the target is sm_%d", call, I->mnemonic, I->arch, sm);
    return true;
}

bool ctx_smem_operand(cute_ctx *c, cute_val p, const char *call, const char *what)
{
    if (!ctx_usable(c, p, what)) return false;
    if (p.t.dtype != CUTE_PTR || p.t.space != CUTE_SMEM)
        return cute_ctx_fail(c, "%s: %s must be a shared-memory pointer", call, what);
    return true;
}

bool ctx_u32_operand(cute_ctx *c, cute_val v, const char *call, const char *what, cute_vreg *out)
{
    if (!ctx_usable(c, v, what)) return false;
    if (v.t.lanes > 1 || !cute_dtype_is_int((cute_dtype)v.t.dtype) || v.t.dtype == CUTE_I1)
        return cute_ctx_fail(c, "%s: %s must be an integer", call, what);
    *out = v.t.dtype == CUTE_U32 ? v.r : cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_U32), v.r, 0, 0);
    return true;
}

static void emit(cute_ctx *c, cute_inst row, const cute_vreg *in, int nin, int64_t imm)
{
    cute_ir_inst_op(&c->b, row, NULL, 0, in, nin, imm);
}

/* a row with one u32 result */
static cute_val emit_get(cute_ctx *c, cute_inst row, const cute_vreg *in, int nin)
{
    cute_vreg out = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), "r", false);
    cute_ir_inst_op(&c->b, row, &out, 1, in, nin, 0);
    return ctx_val(c, out);
}

static void bare(cute_ctx *c, cute_inst row, const char *call)
{
    if (ctx_row_ok(c, row, call)) emit(c, row, NULL, 0, 0);
}

/* a row of (bar, value) */
static void bar_value(cute_ctx *c, cute_inst row, cute_val bar, cute_val v, const char *call, const char *what)
{
    cute_vreg in[2];
    if (ctx_row_ok(c, row, call) && ctx_smem_operand(c, bar, call, "the mbarrier") && ctx_u32_operand(c, v, call, what, &in[1])) {
        in[0] = bar.r;
        emit(c, row, in, 2, 0);
    }
}

void cute_mbarrier_init(cute_ctx *c, cute_val bar, cute_val count)
{
    bar_value(c, CUTE_INST_MBARRIER_INIT, bar, count, "cute_mbarrier_init", "the count");
}

void cute_mbarrier_init_fence(cute_ctx *c) { bare(c, CUTE_INST_FENCE_MBARRIER_INIT, "cute_mbarrier_init_fence"); }

void cute_mbarrier_arrive(cute_ctx *c, cute_val bar)
{
    if (ctx_row_ok(c, CUTE_INST_MBARRIER_ARRIVE, "cute_mbarrier_arrive") && ctx_smem_operand(c, bar, "cute_mbarrier_arrive", "the mbarrier"))
        emit(c, CUTE_INST_MBARRIER_ARRIVE, &bar.r, 1, 0);
}

static void arrive_remote(cute_ctx *c, cute_inst row, cute_val bar, cute_val rank, const char *call)
{
    cute_val a = cute_mapa(c, bar, rank);
    if (ctx_row_ok(c, row, call)) emit(c, row, &a.r, 1, 0);
}

void cute_mbarrier_arrive_cluster(cute_ctx *c, cute_val bar, cute_val rank)
{
    arrive_remote(c, CUTE_INST_MBARRIER_ARRIVE_CLUSTER, bar, rank, "cute_mbarrier_arrive_cluster");
}

void cute_mbarrier_arrive_cluster_cta(cute_ctx *c, cute_val bar, cute_val rank)
{
    arrive_remote(c, CUTE_INST_MBARRIER_ARRIVE_CLUSTER_CTA, bar, rank, "cute_mbarrier_arrive_cluster_cta");
}

void cute_mbarrier_arrive_and_expect_tx(cute_ctx *c, cute_val bar, cute_val bytes)
{
    bar_value(c, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX, bar, bytes, "cute_mbarrier_arrive_and_expect_tx", "the bytes");
}

void cute_mbarrier_expect_tx(cute_ctx *c, cute_val bar, cute_val bytes)
{
    bar_value(c, CUTE_INST_MBARRIER_EXPECT_TX, bar, bytes, "cute_mbarrier_expect_tx", "the bytes");
}

/* done (i1) = row(bar, phase) */
static cute_val wait_row(cute_ctx *c, cute_inst row, cute_val bar, cute_val phase, const char *call)
{
    cute_vreg in[2];
    cute_val none = {0, cute_type_of(CUTE_I1), 0};
    if (!ctx_row_ok(c, row, call) || !ctx_smem_operand(c, bar, call, "the mbarrier") || !ctx_u32_operand(c, phase, call, "the phase", &in[1]))
        return none;
    in[0] = bar.r;
    cute_val done = emit_get(c, row, in, 2);
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I1), done.r, 0, 0));
}

cute_val cute_mbarrier_try_wait(cute_ctx *c, cute_val bar, cute_val phase)
{
    return wait_row(c, CUTE_INST_MBARRIER_TRY_WAIT_PARITY, bar, phase, "cute_mbarrier_try_wait");
}

cute_val cute_mbarrier_test_wait(cute_ctx *c, cute_val bar, cute_val phase)
{
    return wait_row(c, CUTE_INST_MBARRIER_TEST_WAIT_PARITY, bar, phase, "cute_mbarrier_test_wait");
}

void cute_mbarrier_wait(cute_ctx *c, cute_val bar, cute_val phase)
{
    if (!ctx_row_ok(c, CUTE_INST_MBARRIER_TRY_WAIT_PARITY, "cute_mbarrier_wait")) return;
    cute__while_begin(c);
    cute_val done = cute_mbarrier_try_wait(c, bar, phase);
    cute__while_cond(c, cute_val_unop(c, CUTE_OP_NOT, done));
    cute__body_once(c); /* the body: empty */
    cute__body_once(c);
}

void cute_fence_proxy_async(cute_ctx *c) { bare(c, CUTE_INST_FENCE_PROXY_ASYNC, "cute_fence_proxy_async"); }

void cute_fence_proxy_async_shared_cta(cute_ctx *c)
{
    bare(c, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA, "cute_fence_proxy_async_shared_cta");
}

static void named(cute_ctx *c, cute_inst row, int id, int threads, const char *call)
{
    if (!ctx_row_ok(c, row, call)) return;
    if (id < 0 || id > 15 || threads <= 0 || threads % 32 || threads > 1024) {
        cute_ctx_fail(c, "%s(%d, %d): the id must be in 0..15 and the threads a multiple of 32 up to 1024",
                      call, id, threads);
        return;
    }
    cute_vreg in[2] = {cute_ir_const_int(&c->b, CUTE_U32, id), cute_ir_const_int(&c->b, CUTE_U32, threads)};
    emit(c, row, in, 2, 0);
}

void cute_named_barrier_sync(cute_ctx *c, int id, int threads)
{
    named(c, CUTE_INST_BAR_SYNC, id, threads, "cute_named_barrier_sync");
}

void cute_named_barrier_arrive(cute_ctx *c, int id, int threads)
{
    named(c, CUTE_INST_BAR_ARRIVE, id, threads, "cute_named_barrier_arrive");
}

cute_val cute_elect_one(cute_ctx *c)
{
    if (!ctx_row_ok(c, CUTE_INST_ELECT_SYNC, "cute_elect_one")) return (cute_val){0, cute_type_of(CUTE_I1), 0};
    cute_val leader = emit_get(c, CUTE_INST_ELECT_SYNC, NULL, 0);
    return ctx_val(c, cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_I1), leader.r, 0, 0));
}

static void setmaxnreg(cute_ctx *c, cute_inst row, int regs, const char *call)
{
    if (!ctx_row_ok(c, row, call)) return;
    if (regs < 24 || regs > 256 || regs % 8) {
        cute_ctx_fail(c, "%s(%d): the register count must be in 24..256, a multiple of 8", call, regs);
        return;
    }
    emit(c, row, NULL, 0, regs);
}

void cute_setmaxregister_increase(cute_ctx *c, int regs)
{
    setmaxnreg(c, CUTE_INST_SETMAXNREG_INC, regs, "cute_setmaxregister_increase");
}

void cute_setmaxregister_decrease(cute_ctx *c, int regs)
{
    setmaxnreg(c, CUTE_INST_SETMAXNREG_DEC, regs, "cute_setmaxregister_decrease");
}

static cute_val sreg(cute_ctx *c, cute_inst row, const char *call)
{
    if (!ctx_row_ok(c, row, call)) return (cute_val){0, cute_type_of(CUTE_U32), 0};
    return emit_get(c, row, NULL, 0);
}

/* the row of dimension dim among three consecutive rows x, y, z */
static cute_val sreg_dim(cute_ctx *c, cute_inst x, int dim, const char *call)
{
    if (dim < 0 || dim > 2) {
        cute_ctx_fail(c, "%s(%d): the dimension must be 0, 1 or 2", call, dim);
        return (cute_val){0, cute_type_of(CUTE_U32), 0};
    }
    return sreg(c, (cute_inst)(x + dim), call);
}

cute_val cute_block_idx_in_cluster(cute_ctx *c) { return sreg(c, CUTE_INST_CLUSTER_CTARANK, "cute_block_idx_in_cluster"); }
cute_val cute_cluster_size(cute_ctx *c) { return sreg(c, CUTE_INST_CLUSTER_NCTARANK, "cute_cluster_size"); }
cute_val cute_block_in_cluster_idx(cute_ctx *c, int dim)
{
    return sreg_dim(c, CUTE_INST_CLUSTER_CTAID_X, dim, "cute_block_in_cluster_idx");
}
cute_val cute_cluster_dim(cute_ctx *c, int dim) { return sreg_dim(c, CUTE_INST_CLUSTER_NCTAID_X, dim, "cute_cluster_dim"); }
cute_val cute_cluster_idx(cute_ctx *c, int dim) { return sreg_dim(c, CUTE_INST_CLUSTERID_X, dim, "cute_cluster_idx"); }
cute_val cute_cluster_grid_dim(cute_ctx *c, int dim)
{
    return sreg_dim(c, CUTE_INST_NCLUSTERID_X, dim, "cute_cluster_grid_dim");
}

cute_val cute_mapa(cute_ctx *c, cute_val p, cute_val rank)
{
    cute_vreg in[2];
    cute_val none = {0, cute_type_of(CUTE_U32), 0};
    if (!ctx_row_ok(c, CUTE_INST_MAPA, "cute_mapa") || !ctx_smem_operand(c, p, "cute_mapa", "the pointer") ||
        !ctx_u32_operand(c, rank, "cute_mapa", "the rank", &in[1]))
        return none;
    in[0] = cute_ir_op(&c->b, CUTE_OP_CVT, cute_type_of(CUTE_U32), p.r, 0, 0);
    return emit_get(c, CUTE_INST_MAPA, in, 2);
}

cute_val cute_ld_shared_cluster_u32(cute_ctx *c, cute_val addr)
{
    cute_vreg a;
    if (!ctx_row_ok(c, CUTE_INST_LD_SHARED_CLUSTER_U32, "cute_ld_shared_cluster_u32") ||
        !ctx_u32_operand(c, addr, "cute_ld_shared_cluster_u32", "the address", &a))
        return (cute_val){0, cute_type_of(CUTE_U32), 0};
    return emit_get(c, CUTE_INST_LD_SHARED_CLUSTER_U32, &a, 1);
}

/* a store's value operand: 32 bits (any type but a pointer); false after a diagnostic */
static bool value_32bits(cute_ctx *c, cute_val v, const char *call, cute_vreg *r)
{
    if (!ctx_usable(c, v, "the value")) return false;
    if (cute_dtype_bits((cute_dtype)v.t.dtype) * (v.t.lanes ? v.t.lanes : 1) != 32 || v.t.dtype == CUTE_PTR) {
        cute_ctx_fail(c, "%s: the value must have 32 bits", call);
        return false;
    }
    *r = v.r;
    return true;
}

void cute_st_shared_cluster_u32(cute_ctx *c, cute_val addr, cute_val v)
{
    cute_vreg in[2];
    const char *call = "cute_st_shared_cluster_u32";
    if (!ctx_row_ok(c, CUTE_INST_ST_SHARED_CLUSTER_U32, call) || !ctx_u32_operand(c, addr, call, "the address", &in[0]) ||
        !value_32bits(c, v, call, &in[1]))
        return;
    emit(c, CUTE_INST_ST_SHARED_CLUSTER_U32, in, 2, 0);
}

void cute_st_async_u32(cute_ctx *c, cute_val addr, cute_val v, cute_val bar)
{
    cute_vreg in[3];
    const char *call = "cute_st_async_u32";
    if (!ctx_row_ok(c, CUTE_INST_ST_ASYNC_U32, call) || !ctx_u32_operand(c, addr, call, "the address", &in[0]) ||
        !value_32bits(c, v, call, &in[1]) || !ctx_u32_operand(c, bar, call, "the mbarrier's address", &in[2]))
        return;
    emit(c, CUTE_INST_ST_ASYNC_U32, in, 3, 0);
}

void cute_cluster_arrive(cute_ctx *c) { bare(c, CUTE_INST_BARRIER_CLUSTER_ARRIVE, "cute_cluster_arrive"); }
void cute_cluster_arrive_relaxed(cute_ctx *c)
{
    bare(c, CUTE_INST_BARRIER_CLUSTER_ARRIVE_RELAXED, "cute_cluster_arrive_relaxed");
}
void cute_cluster_wait(cute_ctx *c) { bare(c, CUTE_INST_BARRIER_CLUSTER_WAIT, "cute_cluster_wait"); }
void cute_syncwarp(cute_ctx *c) { bare(c, CUTE_INST_BAR_WARP_SYNC, "cute_syncwarp"); }
void cute_griddepcontrol_wait(cute_ctx *c) { bare(c, CUTE_INST_GRIDDEPCONTROL_WAIT, "cute_griddepcontrol_wait"); }
void cute_fence_acq_rel_gpu(cute_ctx *c) { bare(c, CUTE_INST_FENCE_ACQ_REL_GPU, "cute_fence_acq_rel_gpu"); }
void cute_griddepcontrol_launch_dependents(cute_ctx *c)
{
    bare(c, CUTE_INST_GRIDDEPCONTROL_LAUNCH_DEPENDENTS, "cute_griddepcontrol_launch_dependents");
}

void cute_cp_async_bulk_g2s(cute_ctx *c, cute_val dst, cute_val src, cute_val bytes, cute_val bar)
{
    const char *call = "cute_cp_async_bulk_g2s";
    cute_vreg in[4];
    if (!ctx_row_ok(c, CUTE_INST_CP_ASYNC_BULK_G2S, call) || !ctx_smem_operand(c, dst, call, "the destination") ||
        !ctx_smem_operand(c, bar, call, "the mbarrier") || !ctx_usable(c, src, "the source") ||
        !ctx_u32_operand(c, bytes, call, "the bytes", &in[2]))
        return;
    if (src.t.dtype != CUTE_PTR || src.t.space != CUTE_GMEM) {
        cute_ctx_fail(c, "%s: the source must be a global pointer", call);
        return;
    }
    in[0] = dst.r, in[1] = src.r, in[3] = bar.r;
    emit(c, CUTE_INST_CP_ASYNC_BULK_G2S, in, 4, 0);
}

void cute_cp_async_bulk_s2g(cute_ctx *c, cute_val dst, cute_val src, cute_val bytes)
{
    const char *call = "cute_cp_async_bulk_s2g";
    cute_vreg in[3];
    if (!ctx_row_ok(c, CUTE_INST_CP_ASYNC_BULK_S2G, call) || !ctx_smem_operand(c, src, call, "the source") ||
        !ctx_usable(c, dst, "the destination") || !ctx_u32_operand(c, bytes, call, "the bytes", &in[2]))
        return;
    if (dst.t.dtype != CUTE_PTR || dst.t.space != CUTE_GMEM) {
        cute_ctx_fail(c, "%s: the destination must be a global pointer", call);
        return;
    }
    in[0] = dst.r, in[1] = src.r;
    emit(c, CUTE_INST_CP_ASYNC_BULK_S2G, in, 3, 0);
}

void cute_cp_async_bulk_commit_group(cute_ctx *c)
{
    bare(c, CUTE_INST_CP_ASYNC_BULK_COMMIT_GROUP, "cute_cp_async_bulk_commit_group");
}

void cute_cp_async_bulk_wait_group_read(cute_ctx *c, int n)
{
    if (!ctx_row_ok(c, CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP_READ, "cute_cp_async_bulk_wait_group_read")) return;
    if (n < 0 || n > 63) {
        cute_ctx_fail(c, "cute_cp_async_bulk_wait_group_read(%d): n must be in 0..63", n);
        return;
    }
    emit(c, CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP_READ, NULL, 0, n);
}
