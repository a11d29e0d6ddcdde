/* cutec/sync.h through the public API, on the interpreter: warp 0 spins on a shared flag
 * that warp 1 sets (the case the lockstep interpreter could not run: it spun to the step
 * budget); a producer warp and a consumer warp through an mbarrier and a bulk copy; misuse
 * reported at the call site; the CUDA C of every call compiles for sm_90a. */
#include <stdlib.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/interp.h"
#include "cutec/nvrtc.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tensor.h"

static cute_backend be;

/* element i of the u32 array behind tensor t, as a pointer */
static cute_val at(cute_ctx *c, cute_tensor t, cute_int i) { return cute_tensor_ptr(c, t, i); }

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

/* out[t] = 42 for warp 0 (after warp 1 set the flag), 7 for warp 1 */
static cute_ir_func *flag_kernel(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "flag");
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor out = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_parse(a, "64:1"), 4);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val flag = cute_smem_alloc_array(c, &A, CUTE_U32, 1, 4);
    cute_tensor flag_t = cute_make_tensor(c, flag, cute_layout_parse(a, "1:0"), 4);
    cute_int t = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_eq(c, t, cute_i(0))) {
        cute_tensor_store(c, flag_t, cute_ssa_fill(c, CUTE_U32, flag_t.layout.shape, 0));
    }
    cute_barrier(c);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) {
        cute_val v = cute_val_var(c, u32(c, 0));
        CUTE_WHILE(c, cute_val_cmp(c, CUTE_OP_EQ, v, u32(c, 0))) {
            cute_val_assign(c, v, cute_val_atomic(c, flag, u32(c, 0), CUTE_ATOMIC_ADD));
        }
        cute_val_atomic(c, at(c, out, t), v, CUTE_ATOMIC_EXCH);
    }
    CUTE_ELSE(c) {
        CUTE_IF(c, cute_int_eq(c, t, cute_i(32))) { cute_val_atomic(c, flag, u32(c, 42), CUTE_ATOMIC_EXCH); }
        cute_val_atomic(c, at(c, out, t), u32(c, 7), CUTE_ATOMIC_EXCH);
    }
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* warp 1's elected lane copies src[0..64) into shared memory by a bulk copy completing on an
 * mbarrier; warp 0 waits on it and writes out[t] = stage[t] + 1 */
static cute_ir_func *bulk_kernel(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "bulk");
    cute_alg *a = cute_ctx_alg(c);
    cute_val src = cute_param_ptr(c, "src", CUTE_U32);
    cute_tensor out = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_parse(a, "64:1"), 4);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val bar = cute_smem_alloc_array(c, &A, CUTE_U64, 1, 8);
    cute_val stage = cute_smem_alloc_array(c, &A, CUTE_U32, 64, 16);
    cute_tensor st = cute_make_tensor(c, stage, cute_layout_parse(a, "64:1"), 16);
    cute_int t = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_eq(c, t, cute_i(0))) {
        cute_mbarrier_init(c, bar, u32(c, 1));
        cute_mbarrier_init_fence(c);
    }
    cute_barrier(c);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) {
        cute_mbarrier_wait(c, bar, u32(c, 0));
        cute_val v = cute_val_atomic(c, at(c, st, t), u32(c, 0), CUTE_ATOMIC_ADD);
        cute_val_atomic(c, at(c, out, t), cute_val_binop(c, CUTE_OP_ADD, v, u32(c, 1)), CUTE_ATOMIC_EXCH);
    }
    CUTE_ELSE(c) {
        CUTE_IF(c, cute_elect_one(c)) {
            cute_mbarrier_arrive_and_expect_tx(c, bar, u32(c, 256));
            cute_cp_async_bulk_g2s(c, stage, src, u32(c, 256), bar);
        }
    }
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* run f (1 block of 64 threads) with params (src,) out; out downloaded */
static bool run(cute_ir_func *f, const uint32_t *src, uint32_t *out)
{
    cute_module *m = NULL;
    const char *log = NULL;
    bool ok = f && be.vt->compile(be.self, &f, 1, &m, &log) == CUTE_OK;
    CHECK(ok, "compile: %s", log ? log : "");
    if (!ok) return false;
    cute_buffer bs, bo;
    be.vt->alloc(be.self, 256, &bs), be.vt->alloc(be.self, 256, &bo);
    if (src) be.vt->upload(be.self, &bs, 0, src, 256);
    cute_launch_arg args[2] = {{.type = cute_type_ptr(CUTE_U32, CUTE_GMEM), .buf = &bs},
                               {.type = cute_type_ptr(CUTE_U32, CUTE_GMEM), .buf = &bo}};
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {64, 1, 1}};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, src ? args : args + 1, src ? 2 : 1);
    CHECK(s == CUTE_OK, "%s: %s", f->name, be.vt->error(be.self));
    be.vt->download(be.self, out, &bo, 0, 256);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s == CUTE_OK;
}

static void kernels(void)
{
    uint32_t src[64], out[64];
    cute_ir_func *f = flag_kernel();
    if (run(f, NULL, out)) {
        int bad = 0;
        for (int t = 0; t < 64; t++) bad += out[t] != (t < 32 ? 42u : 7u);
        CHECK(bad == 0, "flag: %d of 64 wrong", bad);
    }
    cute_ir_func_free(f);
    for (int i = 0; i < 64; i++) src[i] = (uint32_t)rand();
    f = bulk_kernel();
    if (run(f, src, out)) {
        int bad = 0;
        for (int t = 0; t < 32; t++) bad += out[t] != src[t] + 1;
        CHECK(bad == 0, "bulk: %d of 32 wrong", bad);
    }
    cute_ir_func_free(f);
}

/* misuse: the diagnostic names the call and its line */
static void misuse(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "bad");
    cute_val g = cute_param_ptr(c, "g", CUTE_U64);
    int line = __LINE__ + 1;
    cute_mbarrier_init(c, g, cute_val_int(c, CUTE_U32, 1));
    char want[160];
    snprintf(want, sizeof want, "arch_sync_test.c:%d: cute_mbarrier_init: the mbarrier must be a shared-memory pointer", line);
    CHECK(strstr(cute_ctx_error(c), want), "%s", cute_ctx_error(c));
    cute_ctx_free(c);

    c = cute_ctx_new();
    cute_kernel_begin(c, "bad");
    line = __LINE__ + 1;
    cute_setmaxregister_increase(c, 20);
    snprintf(want, sizeof want, "arch_sync_test.c:%d: cute_setmaxregister_increase(20): the register count", line);
    CHECK(strstr(cute_ctx_error(c), want), "%s", cute_ctx_error(c));
    cute_ctx_free(c);

    c = cute_ctx_new();
    cute_ctx_target_arch(c, 80);
    cute_kernel_begin(c, "bad");
    line = __LINE__ + 1;
    cute_val e = cute_elect_one(c);
    (void)e;
    snprintf(want, sizeof want, "arch_sync_test.c:%d: cute_elect_one (elect.sync) needs sm_90; the target is sm_80", line);
    CHECK(strstr(cute_ctx_error(c), want), "%s", cute_ctx_error(c));
    cute_ctx_free(c);
}

/* the C of both kernels compiles for sm_90a */
static void compiles(void)
{
    char err[512], *src = NULL;
    cute_ir_func *k[2] = {flag_kernel(), bulk_kernel()};
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)k, 2, &(cute_cuda_c_opts){.arch = "sm_90a"}, &src, err, sizeof err);
    CHECK(s == CUTE_OK, "emit: %s", err);
    cute_nvrtc *nv;
    if (s == CUTE_OK && cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK) {
        cute_nvrtc_output o = {0};
        CHECK(cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_90a"}, &o) == CUTE_OK, "%s", o.log);
        cute_nvrtc_output_free(&o);
        cute_nvrtc_close(nv);
    }
    free(src);
    cute_ir_func_free(k[0]), cute_ir_func_free(k[1]);
}

int main(void)
{
    CHECK(cute_interp_new(&(cute_interp_opts){.threads = 1}, &be) == CUTE_OK, "interp");
    srand(5);
    kernels();
    misuse();
    compiles();
    be.vt->destroy(be.self);
    return CHECK_DONE("trace arch_sync");
}
