/* cutec/peer.h's kernel side: a flag between GPUs, signalled with a system-scope release
 * and waited for with system-scope acquires (the instruction table's ST_RELEASE_SYS_U32 and
 * LD_ACQUIRE_SYS_U32), so that a tile stored into a peer's memory before the signal is
 * visible to the peer's threads after their wait; and the same between the blocks of one
 * grid at GPU scope (ST_RELEASE_GPU_U32, LD_ACQUIRE_GPU_U32: no system-wide fence). */
#define CUTEC_NO_SITE_MACROS /* this file defines the functions themselves */
#include "trace/ctx_internal.h"
#include "cutec/inst.h"
#include "cutec/peer.h"
#include "cutec/tensor.h"

/* the address of flag element idx, or false after a misuse reported at the call site */
static bool flag_address(cute_ctx *c, cute_tensor flags, cute_int idx, cute_inst row, const char *call,
                         cute_vreg *out)
{
    if (!ctx_row_ok(c, row, call)) return false;
    if (flags.kind != CUTE_TENSOR_GMEM || flags.dtype != CUTE_U32) {
        char type[256];
        cute_tensor_str(c, flags, type, sizeof type);
        return cute_ctx_fail(c, "%s: the flags must be a u32 tensor in global memory, not %s", call, type);
    }
    cute_val p = cute_tensor_ptr(c, flags, idx);
    if (!ctx_ok(c)) return false;
    *out = p.r;
    return true;
}

/* the release store (row: of the scope) of v to flag element idx by every thread that runs it */
static void release_at(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v, const char *call, cute_inst row)
{
    cute_vreg in[2];
    if (!flag_address(c, flags, idx, row, call, &in[0])) return;
    in[1] = cute_int_value(c, v, CUTE_U32).r;
    cute_ir_inst_op(&c->b, row, NULL, 0, in, 2, 0);
}

static void release(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v, const char *call)
{
    release_at(c, flags, idx, v, call, CUTE_INST_ST_RELEASE_SYS_U32);
}

void cute_peer_release(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v)
{
    release(c, flags, idx, v, "cute_peer_release");
}

void cute_grid_flag_release(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v)
{
    release_at(c, flags, idx, v, "cute_grid_flag_release", CUTE_INST_ST_RELEASE_GPU_U32);
}

void cute_peer_signal(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v)
{
    cute_barrier(c); /* the block's stores of the tile come before thread 0's release */
    cute_val first = cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0));
    for (int d = 1; d < 3; d++)
        first = cute_val_binop(c, CUTE_OP_AND, first, cute_int_eq(c, cute_thread_idx(c, d), cute_i(0)));
    cute__if_begin(c, first); /* not CUTE_IF: the ops keep the caller's site */
    while (cute__body_once(c)) release(c, flags, idx, v, "cute_peer_signal");
}

static cute_val load_acquire(cute_ctx *c, cute_vreg addr, cute_inst row)
{
    cute_vreg out = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), "flag", false);
    cute_ir_inst_op(&c->b, row, &out, 1, &addr, 1, 0);
    return ctx_val(c, out);
}

static void wait_at(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v, const char *call, cute_inst row)
{
    cute_vreg addr;
    if (!flag_address(c, flags, idx, row, call, &addr)) return;
    cute_val want = cute_int_value(c, v, CUTE_U32);
    /* each thread spins on its own acquire, so each is ordered after the release it saw
     * (not CUTE_WHILE: the loop keeps the caller's site) */
    cute__while_begin(c);
    cute__while_cond(c, cute_val_cmp(c, CUTE_OP_LT, load_acquire(c, addr, row), want));
    while (cute__body_once(c)) {
    }
}

void cute_peer_wait(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v)
{
    wait_at(c, flags, idx, v, "cute_peer_wait", CUTE_INST_LD_ACQUIRE_SYS_U32);
}

void cute_grid_flag_wait(cute_ctx *c, cute_tensor flags, cute_int idx, cute_int v)
{
    wait_at(c, flags, idx, v, "cute_grid_flag_wait", CUTE_INST_LD_ACQUIRE_GPU_U32);
}
