/* cute_asm and cute_smem_addr: operands in any order become the ASM op's in-outs, outputs,
 * inputs with the text renumbered, immediates in the text, a guard as a predicate; the C
 * compiles through NVRTC (packed f16x2 operands, a shared address, 70 operands); misuse is
 * a diagnostic at the call site; the interpreter refuses inline PTX naming it and the line;
 * a shared pointer's address is its shared-window offset in the interpreter and the u32
 * itself in the C. */
#include <stdlib.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/interp.h"
#include "cutec/nvrtc.h"
#include "cutec/smem.h"
#include "cutec/trace.h"

static cute_nvrtc *nv;

static char *emit(cute_ir_func *f)
{
    char err[512], *src = NULL;
    CHECK(cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_90a"}, &src, err,
                           sizeof err) == CUTE_OK,
          "emit: %s", err);
    return src;
}

static void compiles(const char *src, const char *what)
{
    if (!nv || !src) return;
    cute_nvrtc_output o;
    cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_90a"}, &o);
    CHECK(s == CUTE_OK, "%s: %s", what, o.log);
    if (s != CUTE_OK && getenv("CUTEC_TEST_VERBOSE")) fputs(src, stderr);
    cute_nvrtc_output_free(&o);
}

/* every kind of operand, listed out of order */
static void kinds(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "kinds");
    cute_val out = cute_param_ptr(c, "out", CUTE_F32);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val s = cute_smem_alloc_array(c, &A, CUTE_F32, 64, 16);
    cute_val h2 = cute_val_bitcast(c, cute_val_int(c, CUTE_U32, 0x3c003c00), cute_type_vec(CUTE_F16, 2));
    cute_val acc = cute_val_var(c, cute_val_int(c, CUTE_U32, 5));
    cute_val p = cute_val_cmp(c, CUTE_OP_LT, cute_int_value(c, cute_thread_idx(c, 0), CUTE_I32),
                              cute_val_int(c, CUTE_I32, 16));
    cute_asm_operand ops[] = {
        {.kind = CUTE_ASM_IN, .v = h2},      {.kind = CUTE_ASM_OUT, .type = cute_type_of(CUTE_F32)},
        {.kind = CUTE_ASM_IMM, .imm = 7},    {.kind = CUTE_ASM_INOUT, .v = acc},
        {.kind = CUTE_ASM_IN, .v = s},       {.kind = CUTE_ASM_GUARD, .v = p},
    };
    CHECK(cute_asm(c, "ld.shared.f32 %1, [%4+%2]; add.u32 %3, %3, %0;", ops, 6, 0), "%s", cute_ctx_error(c));
    cute_val v = cute_val_binop(c, CUTE_OP_ADD, ops[1].v, cute_val_cvt(c, acc, CUTE_F32));
    cute_asm_operand st[] = {{.kind = CUTE_ASM_IN, .v = out}, {.kind = CUTE_ASM_IN, .v = v}};
    CHECK(cute_asm(c, "st.global.f32 [%0], %1;", st, 2, 0), "%s", cute_ctx_error(c));
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    char *ir = f ? cute_ir_text(f) : NULL;
    /* in-out %3 -> %0, output %1 -> %1, inputs %0 -> %2, %4 -> %3, guard -> %4; 7 written in */
    CHECK(ir && strstr(ir, "ASM \"{ .reg .pred asm_guard; setp.ne.b32 asm_guard, %4, 0; @asm_guard ld.shared.f32 %1, "
                           "[%3+7]; add.u32 %0, %0, %2; }\""),
          "%s", ir);
    free(ir);
    char *src = f ? emit(f) : NULL;
    CHECK(src && strstr(src, ": \"+r\"(") && strstr(src, "\"=f\"(") && strstr(src, "\"r\"(cute_bitcast<u32>("),
          "constraints: %s", src);
    if (getenv("CUTEC_TEST_VERBOSE")) fputs(src, stderr);
    compiles(src, "every kind");
    free(src);
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

/* 70 operands in one statement (wgmma's accumulators are 128) */
static void many(void)
{
    enum { N = 70 };
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "many");
    cute_val out = cute_param_ptr(c, "out", CUTE_F32);
    cute_asm_operand ops[N];
    char text[N * 40] = "", *t = text;
    for (int k = 0; k < N; k++) {
        ops[k] = (cute_asm_operand){.kind = CUTE_ASM_INOUT, .v = cute_val_var(c, cute_val_const(c, CUTE_F32, k))};
        t += sprintf(t, "add.f32 %%%d, %%%d, 0f3F800000; ", k, k);
    }
    CHECK(cute_asm(c, text, ops, N, CUTE_ASM_NO_MEMORY), "%s", cute_ctx_error(c));
    cute_val sum = cute_val_const(c, CUTE_F32, 0);
    for (int k = 0; k < N; k++) sum = cute_val_binop(c, CUTE_OP_ADD, sum, ops[k].v);
    cute_asm_operand st[] = {{.kind = CUTE_ASM_IN, .v = out}, {.kind = CUTE_ASM_IN, .v = sum}};
    cute_asm(c, "st.global.f32 [%0], %1;", st, 2, 0);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    char *src = f ? emit(f) : NULL;
    const char *stmt = src ? strstr(src, "%69, %69, 0f3F800000") : NULL, *eol = stmt ? strchr(stmt, '\n') : NULL;
    CHECK(stmt && eol && strstr(stmt, "\"+f\"("), "70 in-outs: %s", src ? src : "no source");
    CHECK(stmt && eol && (!strstr(stmt, "memory") || strstr(stmt, "memory") > eol), "no memory clobber when asked");
    compiles(src, "70 operands");
    free(src);
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

/* each misuse, reported at its line */
static void misuse(void)
{
    struct { cute_asm_operand op; const char *text, *msg; } bad[] = {
        {{.kind = CUTE_ASM_IMM, .imm = 1}, "mov.u32 %r, %3;", "%3 names no operand (1 given)"},
        {{.kind = CUTE_ASM_INOUT}, "x %0;", "in-out operand 0 must be a variable"},
        {{.kind = CUTE_ASM_GUARD}, "x;", "one guard, an i1 predicate"},
        {{.kind = CUTE_ASM_OUT, .type = {CUTE_F32, 4, 0, 0}}, "x %0;", "operand 0 of type f32x4 (registers of 8 to 64 bits)"},
    };
    for (int q = 0; q < 4; q++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "bad");
        if (bad[q].op.kind != CUTE_ASM_IMM && bad[q].op.kind != CUTE_ASM_OUT)
            bad[q].op.v = cute_val_int(c, CUTE_U32, 3);
        int line = __LINE__ + 1;
        CHECK(!cute_asm(c, bad[q].text, &bad[q].op, 1, 0), "%s refused", bad[q].text);
        char where[64];
        snprintf(where, sizeof where, "asm_test.c:%d: cute_asm: ", line);
        CHECK(strstr(cute_ctx_error(c), where) && strstr(cute_ctx_error(c), bad[q].msg), "%s", cute_ctx_error(c));
        cute_ctx_free(c);
    }
}

/* an in-out operand is read: one whose body has ended is refused, as any use would be */
static void inout_scope(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "scope");
    cute_val v = {0};
    CUTE_IF(c, cute_int_lt(c, cute_thread_idx(c, 0), cute_i(4))) { v = cute_val_var(c, cute_val_int(c, CUTE_U32, 1)); }
    cute_asm_operand o = {.kind = CUTE_ASM_INOUT, .v = v};
    cute_asm(c, "add.u32 %0, %0, 1;", &o, 1, 0);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(!f && strstr(cute_ctx_error(c), "asm_test.c:"), "an in-out past its body: %s", cute_ctx_error(c));
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

/* the interpreter: the shared-window address of a pointer is its offset; inline PTX refused */
static void interpreter(void)
{
    cute_backend be;
    CHECK(cute_interp_new(&(cute_interp_opts){.threads = 1}, &be) == CUTE_OK, "interp");
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "addr");
    cute_val out = cute_param_ptr(c, "out", CUTE_U32);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_bytes(c, &A, 200, 16);
    cute_val s = cute_smem_alloc_array(c, &A, CUTE_F32, 8, 16); /* at byte 208 */
    cute_val a = cute_smem_addr(c, s);
    cute_val_atomic(c, out, a, CUTE_ATOMIC_EXCH); /* a store of a u32 */
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s", cute_ctx_error(c));
    char *src = f ? emit(f) : NULL;
    CHECK(src && strstr(src, "(u32)r"), "the C's u32 itself: %s", src);
    free(src);
    cute_module *m = NULL;
    const char *log = NULL;
    cute_buffer b;
    be.vt->alloc(be.self, 4, &b);
    CHECK(f && be.vt->compile(be.self, &f, 1, &m, &log) == CUTE_OK, "compile: %s", log);
    cute_launch_arg arg = {.type = cute_type_ptr(CUTE_U32, CUTE_GMEM), .buf = &b};
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
    uint32_t got = 0;
    CHECK(m && be.vt->launch(be.self, m, 0, &cfg, &arg, 1) == CUTE_OK, "%s", be.vt->error(be.self));
    be.vt->download(be.self, &got, &b, 0, 4);
    CHECK(got == 208, "the address: %u", got);
    be.vt->module_free(be.self, m);
    cute_ir_func_free(f);
    cute_ctx_free(c);

    c = cute_ctx_new();
    cute_kernel_begin(c, "ptx");
    cute_asm_operand o = {.kind = CUTE_ASM_OUT, .type = cute_type_of(CUTE_U32)};
    int line = __LINE__ + 1;
    cute_asm(c, "mov.u32 %0, %%globaltimer_lo;", &o, 1, 0);
    f = cute_kernel_end(c);
    m = NULL;
    CHECK(f && be.vt->compile(be.self, &f, 1, &m, &log) == CUTE_ERR_UNSUPPORTED && !m, "refused");
    char want[160];
    snprintf(want, sizeof want, "asm_test.c:%d: not supported in the interpreter: inline PTX `mov.u32 %%0, %%%%globaltimer_lo;`", line);
    CHECK(log && strstr(log, want), "%s", log);
    cute_ir_func_free(f);
    cute_ctx_free(c);
    be.vt->free(be.self, &b);
    be.vt->destroy(be.self);

    /* traced for the interpreter (cute_compile on an interpreter runtime): refused at the call */
    c = cute_ctx_new();
    cute_ctx_target_interp(c, true);
    cute_kernel_begin(c, "ptx");
    CHECK(cute_ctx_on_interp(c), "on the interpreter");
    line = __LINE__ + 1;
    CHECK(!cute_asm(c, "mov.u32 %0, %%globaltimer_lo;", &o, 1, 0), "refused at trace time");
    snprintf(want, sizeof want, "asm_test.c:%d: cute_asm: the interpreter runs the instruction table's rows", line);
    CHECK(strstr(cute_ctx_error(c), want) && strstr(cute_ctx_error(c), "`mov.u32 %0, %%globaltimer_lo;`"), "%s",
          cute_ctx_error(c));
    cute_ctx_free(c);
}

int main(void)
{
    char err[512];
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        nv = NULL;
        SKIP("no NVRTC: the C is not compiled");
    }
    kinds();
    many();
    misuse();
    inout_scope();
    interpreter();
    cute_nvrtc_close(nv);
    return CHECK_DONE("trace/asm");
}
