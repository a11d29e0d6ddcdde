/* Folding in the CUDA C backend (cuda_c_fold.c, cuda_c_pred.c), compile-only: IR built by
 * hand, the statements it must and must not become, and NVRTC's word on the result (skipped,
 * visibly, without NVRTC); and the size of the step-5 GEMM's CUDA C (issue 13's cold
 * compile: docs/compile_time.md).  The kernels run on the GPU through every GPU test of the
 * library, which all go through this emitter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/inst.h"
#include "cutec/ir.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "cutec/runtime.h"

#define T(d) cute_type_of(CUTE_##d)
#define GPTR(d) cute_type_ptr(CUTE_##d, CUTE_GMEM)

typedef struct regs {
    cute_vreg scaled, late, bound, packed, acc0, loaded;
} regs;

static void store(cute_ir_builder *b, cute_vreg p, cute_vreg v, int align)
{
    cute_ir_op_void(b, CUTE_OP_STORE, cute_ir_type(b->f, v), p, v, 0, align);
}

/* out[i] = f32(i * 4 + 1): the constant a literal, the chain one expression */
static void scalar_chain(cute_ir_builder *b, cute_vreg out, cute_vreg i, regs *r)
{
    cute_vreg k = cute_ir_const_int(b, CUTE_I32, 4);
    r->scaled = cute_ir_op(b, CUTE_OP_MUL, T(I32), i, k, 0);
    cute_vreg s = cute_ir_op(b, CUTE_OP_ADD, T(I32), r->scaled, cute_ir_const_int(b, CUTE_I32, 1), 0);
    store(b, cute_ir_op(b, CUTE_OP_PTR_ADD, GPTR(F32), out, i, 0), cute_ir_op(b, CUTE_OP_CVT, T(F32), s, 0, 0), 4);
}

/* x = m + 2 read before m changes, used after: x must stay a statement */
static void mutable_read(cute_ir_builder *b, cute_vreg out, regs *r)
{
    cute_vreg m = cute_ir_new_vreg(b->f, T(F32), "m", true);
    cute_ir_mov(b, m, cute_ir_const_float(b, CUTE_F32, 1.0));
    r->late = cute_ir_op(b, CUTE_OP_ADD, T(F32), m, cute_ir_const_float(b, CUTE_F32, 2.0), 0);
    cute_ir_mov(b, m, cute_ir_const_float(b, CUTE_F32, 5.0));
    store(b, out, r->late, 4);
    store(b, out, m, 4);
}

/* a loop bound is evaluated per iteration: it stays a statement */
static void loop_bound(cute_ir_builder *b, cute_vreg out, cute_vreg n, regs *r)
{
    r->bound = cute_ir_op(b, CUTE_OP_MUL, T(I32), n, cute_ir_const_int(b, CUTE_I32, 2), 0);
    cute_vreg k = cute_ir_new_vreg(b->f, T(I32), "k", false);
    cute_ir_for(b, k, cute_ir_const_int(b, CUTE_I32, 0), r->bound, 1, 0);
    store(b, cute_ir_op(b, CUTE_OP_PTR_ADD, GPTR(F32), out, k, 0), cute_ir_const_float(b, CUTE_F32, 0.0), 4);
    cute_ir_end(b);
}

/* a bf16x2 packed lane by lane (CONST then INSERTs): one brace initializer */
static cute_vreg pack2(cute_ir_builder *b, cute_vreg lo, cute_vreg hi)
{
    cute_type v2 = cute_type_vec(CUTE_BF16, 2);
    cute_vreg z = cute_ir_op(b, CUTE_OP_CONST, v2, 0, 0, 0);
    cute_vreg x = cute_ir_op(b, CUTE_OP_INSERT, v2, z, lo, 0);
    cute_vreg y = cute_ir_op(b, CUTE_OP_INSERT, v2, x, hi, 0);
    b->last->imm = 1;
    return y;
}

/* acc += A B on one mma.sync: its outputs written straight into the accumulators */
static void mma(cute_ir_builder *b, cute_vreg out, cute_vreg in, regs *r)
{
    cute_vreg e0 = cute_ir_op(b, CUTE_OP_LOAD, T(BF16), in, 0, 0), acc[4], d[4], ops[10];
    b->last->imm = 2;
    for (int k = 0; k < 4; k++) {
        acc[k] = cute_ir_new_vreg(b->f, T(F32), "acc", true);
        cute_ir_mov(b, acc[k], cute_ir_const_float(b, CUTE_F32, 0.0));
        d[k] = cute_ir_new_vreg(b->f, T(F32), NULL, false);
    }
    r->acc0 = acc[0];
    for (int k = 0; k < 6; k++) ops[k] = pack2(b, e0, e0);
    r->packed = ops[5];
    for (int k = 0; k < 4; k++) ops[6 + k] = acc[k];
    cute_ir_inst_op(b, CUTE_INST_MMA_16x8x16_F32BF16BF16F32, d, 4, ops, 10, 0);
    for (int k = 0; k < 4; k++) cute_ir_mov(b, acc[k], d[k]);
    for (int k = 0; k < 4; k++) store(b, cute_ir_op(b, CUTE_OP_PTR_ADD, GPTR(F32), out, cute_ir_const_int(b, CUTE_I32, k), 0), acc[k], 4);
}

/* if (i < n) v = in[i]: one predicated load */
static void pred_load(cute_ir_builder *b, cute_vreg in, cute_vreg i, cute_vreg n, regs *r)
{
    cute_vreg v = cute_ir_new_vreg(b->f, T(BF16), "v", true);
    cute_ir_mov(b, v, cute_ir_const_float(b, CUTE_BF16, 0.0));
    cute_vreg p = cute_ir_op(b, CUTE_OP_PTR_ADD, GPTR(BF16), in, i, 0);
    cute_ir_if(b, cute_ir_op(b, CUTE_OP_LT, T(I1), i, n, 0));
    r->loaded = cute_ir_op(b, CUTE_OP_LOAD, T(BF16), p, 0, 0);
    b->last->imm = 2;
    cute_ir_mov(b, v, r->loaded);
    cute_ir_end(b);
    store(b, p, v, 2);
}

static cute_ir_func *kernel(regs *r)
{
    cute_ir_func *f = cute_ir_func_new("fold");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    b.file = "cuda_c_fold_test.c";
    cute_vreg out = cute_ir_add_param(f, GPTR(F32), "out"), in = cute_ir_add_param(f, GPTR(BF16), "in");
    cute_vreg n = cute_ir_add_param(f, T(I32), "n"), i = cute_ir_sreg(&b, CUTE_SREG_TID_X);
    scalar_chain(&b, out, i, r);
    mutable_read(&b, out, r);
    loop_bound(&b, out, n, r);
    mma(&b, out, in, r);
    pred_load(&b, in, i, n, r);
    return f;
}

static bool has(const char *src, const char *fmt, unsigned reg)
{
    char s[64];
    snprintf(s, sizeof s, fmt, reg);
    return strstr(src, s) != NULL;
}

static void check_text(const char *src, const regs *r)
{
    CHECK(!strstr(src, "i32 r") || !strstr(src, " = 4;"), "the constant 4 is a literal at its use");
    CHECK(!has(src, "i32 r%u = ", r->scaled), "i * 4 folded into its one use:\n%s", src);
    CHECK(has(src, "f32 r%u = ", r->late), "m + 2 kept: m changes before its use");
    CHECK(has(src, "i32 r%u = ", r->bound), "a loop bound kept: the loop evaluates it each time");
    CHECK(has(src, "bf16x2 r%u = {{", r->packed), "a bf16x2 packed in one initializer");
    CHECK(!strstr(src, ".v[0] = ") && !strstr(src, ".v[1] = "), "no lane-by-lane stores");
    CHECK(has(src, "\"=f\"(r%u_acc)", r->acc0), "the mma writes its accumulator itself:\n%s", src);
    CHECK(strstr(src, "@p ld.global.b16") && !has(src, "bf16 r%u = ", r->loaded),
          "the load under the IF is one predicated ld:\n%s", src);
}

/* the CUDA C of the library's GEMM kernel for cfg on sm_90a (malloc'd), or NULL */
static char *gemm_source(cute_gemm_config cfg)
{
    cute_runtime *rt;
    char err[2048], *src = NULL;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "%s", err);
    cute_runtime_set_target_arch(rt, "sm_90a");
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f, "%s", err);
    const cute_ir_func *k = f ? cute_fn_kernel(f, 0) : NULL;
    if (k && cute_cuda_c_emit(&k, 1, NULL, &src, err, sizeof err) != CUTE_OK) src = NULL;
    CHECK(!k || src, "emit: %s", err);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return src;
}

static int count(const char *src, const char *what)
{
    int n = 0;
    for (const char *p = src; (p = strstr(p, what)) != NULL; p++) n++;
    return n;
}

/* The step-5 GEMM (bf16, tensorop_smem), as `cutec compile gemm --dtype bf16` makes it:
 * 16,642 lines of CUDA C before folding (its 128 reads of C under beta each a C if), 3,658
 * folded with its epilogue unrolled, 1,515 with the epilogue's way out a loop over runs of
 * C (kernels/gemm/epilogue_smem.c): NVRTC's time grows with the lines (docs/compile_time.md).
 * That is the f32 C tile (sm_80's one form; CUTEC_GEMM_SM80_STSM=0 on sm_90).  sm_90's
 * default since session 43 adds the stmatrix C tile at beta 0 beside it (a branch on beta):
 * 3,615 lines, the first tier's module ~150 ms of CPU against ~108 and NVRTC's ~456 against
 * ~378 on this machine, for +0.4 to +0.6 points at 4096^3 (bench/RESULTS.md, sm80_43) */
#define STEP5_LINES_BEFORE 16642
#define STEP5_LINES_BUDGET 2000
#define STEP5_STSM_LINES_BUDGET 4000
static void step5_size_form(const char *stsm, int budget)
{
    setenv("CUTEC_GEMM_SM80_STSM", stsm, 1);
    char *src = gemm_source((cute_gemm_config){.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_BF16,
                                               .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND});
    unsetenv("CUTEC_GEMM_SM80_STSM");
    if (!src) return;
    int lines = count(src, "\n"), mmas = count(src, "mma.sync.aligned"), nstsm = count(src, "stmatrix");
    /* the accumulators' way into shared memory: st.shared on the window address, not a C
     * store through a generic pointer NVVM spent a tenth of its time on (the f32 tile: beta's
     * way in both forms) */
    int sts = count(src, "st.shared.b32 [%0], %1;");
    CHECK(sts == 128, "STSM=%s: %d accumulator stores as st.shared.b32 (want 128)", stsm, sts);
    CHECK((nstsm > 0) == (*stsm == '1'), "STSM=%s: %d stmatrix in the CUDA C", stsm, nstsm);
    CHECK(lines <= budget, "STSM=%s: %d lines of CUDA C (at most %d)", stsm, lines, budget);
    /* the main loop is unrolled over a k-tile: 4 k-blocks of 4 x 8 atoms per warp */
    CHECK(mmas == 128, "STSM=%s: %d mma.sync (want 128)", stsm, mmas);
    printf("cuda_c_fold_test: step-5 GEMM, CUTEC_GEMM_SM80_STSM=%s: %d lines of CUDA C (%d before)\n", stsm, lines,
           STEP5_LINES_BEFORE);
    free(src);
}

static void step5_size(void)
{
    step5_size_form("0", STEP5_LINES_BUDGET);
    step5_size_form("1", STEP5_STSM_LINES_BUDGET);
}

/* The Hopper kernel's epilogue reads C under beta by TMA, a group's boxes at a time (the first
 * group's under the main loop: docs/gemm.md), not element by element: no load of C through a
 * register's address is left, and the 64-bit index arithmetic of the 128 element addresses it
 * once had (105 statements NVVM spent a fifth of its time reassociating, then 45 written per
 * fragment: docs/compile_time.md) stays gone. */
#define HOPPER_I64_BUDGET 60
static void hopper_addresses(void)
{
    char *src = gemm_source((cute_gemm_config){.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 0, 0},
                                               .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND});
    if (!src) return;
    int i64s = count(src, "i64 r"), loads = count(src, "ld.global"), tma_in = count(src, "cp.async.bulk.tensor.2d.shared::cluster.global");
    CHECK(loads == 0, "%d loads of C element by element (want 0: C by TMA)", loads);
    CHECK(tma_in > 2, "%d TMA loads (A, B and C's boxes)", tma_in);
    CHECK(i64s <= HOPPER_I64_BUDGET, "%d statements of 64-bit index arithmetic (at most %d)", i64s,
          HOPPER_I64_BUDGET);
    free(src);
}

int main(void)
{
    regs r;
    cute_ir_func *f = kernel(&r);
    char err[1024], *src = NULL;
    CHECK(cute_ir_verify(f, err, sizeof err) == 0, "%s", err);
    const cute_ir_func *k = f;
    CHECK(cute_cuda_c_emit(&k, 1, NULL, &src, err, sizeof err) == CUTE_OK, "%s", err);
    if (src) check_text(src, &r);
    if (src && getenv("CUTEC_FOLD_DUMP")) fputs(src, stdout);
    cute_nvrtc *nv;
    if (!src || cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the folded kernel not compiled");
    } else {
        cute_nvrtc_output o;
        cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_80"}, &o);
        CHECK(s == CUTE_OK, "NVRTC: %s\n%s", o.log, src);
        cute_nvrtc_output_free(&o);
        cute_nvrtc_close(nv);
    }
    free(src);
    cute_ir_func_free(f);
    step5_size();
    hopper_addresses();
    return CHECK_DONE("backend/cuda_c_fold");
}
