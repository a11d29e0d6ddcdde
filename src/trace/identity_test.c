/* Run-time values have an identity: the kernel that made them, the scope (loop or if body)
 * that defined them and the call site.  Using one in another kernel, or after its body has
 * ended, is a diagnostic at the user's line naming where the value was defined and the fix;
 * never a silently wrong register, never "internal". */
#include <stdlib.h>

#include "check.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/tensor.h"

/* the error, or "" when the kernel traced cleanly (the function is freed) */
static const char *end(cute_ctx *c)
{
    cute_ir_func *f = cute_kernel_end(c);
    cute_ir_func_free(f);
    return cute_ctx_error(c);
}

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* the line of this file that a message points at ("identity_test.c:NN:") */
static bool at_line(const char *msg, int line)
{
    char want[64];
    snprintf(want, sizeof want, "identity_test.c:%d:", line);
    return has(msg, want);
}

/* a value made in one kernel, used in the next: it named some other register there */
static void value_from_another_kernel(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "first");
    cute_val seven = cute_val_int(c, CUTE_I32, 7);
    CHECK(end(c)[0] == 0, "%s", cute_ctx_error(c));
    cute_kernel_begin(c, "second");
    cute_val five = cute_val_int(c, CUTE_I32, 5);
    int line = __LINE__ + 1;
    cute_val sum = cute_val_binop(c, CUTE_OP_ADD, five, seven);
    (void)sum;
    const char *e = end(c);
    CHECK(has(e, "kernel 'first'") && at_line(e, line) && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* a value defined in a loop body, used after the loop */
static void value_after_its_loop(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_val out = cute_param_ptr(c, "out", CUTE_F32);
    cute_val inner = cute_val_const(c, CUTE_F32, 0.0);
    int def = 0;
    CUTE_FOR(c, i, cute_i(0), cute_i(4)) {
        def = __LINE__ + 1;
        inner = cute_val_const(c, CUTE_F32, 3.0);
        (void)i;
    }
    int use = __LINE__ + 1;
    cute_val twice = cute_val_binop(c, CUTE_OP_ADD, inner, inner);
    cute_val_atomic(c, out, twice, CUTE_ATOMIC_ADD);
    const char *e = end(c);
    char defsite[64];
    snprintf(defsite, sizeof defsite, "identity_test.c:%d", def);
    CHECK(at_line(e, use) && has(e, defsite) && has(e, "CUTE_FOR") && has(e, "cute_val_var") &&
              !has(e, "internal"),
          "%s", e);
    cute_ctx_free(c);
}

/* the same through an if body, with a value computed from the loop's own values */
static void value_after_its_if(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_val p = cute_int_lt(c, cute_thread_idx(c, 0), cute_i(3));
    cute_val x = cute_val_int(c, CUTE_I32, 1);
    CUTE_IF(c, p) { x = cute_val_binop(c, CUTE_OP_MUL, x, x); }
    int use = __LINE__ + 1;
    cute_val y = cute_val_cvt(c, x, CUTE_F32);
    (void)y;
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "CUTE_IF") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* a variable made before the loop carries the value out: no error */
static void variable_carries_it_out(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_val out = cute_param_ptr(c, "out", CUTE_F32);
    cute_val acc = cute_val_var(c, cute_val_const(c, CUTE_F32, 0.0));
    CUTE_FOR(c, i, cute_i(0), cute_i(4)) {
        cute_val_assign(c, acc, cute_val_binop(c, CUTE_OP_ADD, acc, cute_val_const(c, CUTE_F32, 1.0)));
        (void)i;
    }
    cute_val_atomic(c, out, acc, CUTE_ATOMIC_ADD);
    CHECK(end(c)[0] == 0, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
}

/* a global tensor of 4 f32 over a fresh kernel parameter */
static cute_tensor param_tensor(cute_ctx *c)
{
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    return cute_make_tensor(c, p, cute_layout_parse(cute_ctx_alg(c), "4:1"), 16);
}

/* a TensorSSA made in a loop body, stored after it */
static void tensor_ssa_after_its_loop(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_tensor t = param_tensor(c);
    cute_ssa v = cute_ssa_fill(c, CUTE_F32, cute_tuple_parse(cute_ctx_alg(c), "4"), 1.0);
    CUTE_FOR(c, i, cute_i(0), cute_i(2)) {
        v = cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, t), v);
        (void)i;
    }
    int use = __LINE__ + 1;
    cute_tensor_store(c, t, v);
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "CUTE_FOR") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* a register tensor first written in a loop body and read after it */
static void register_tensor_after_its_loop(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_tensor g = param_tensor(c);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "4:1"));
    CUTE_FOR(c, i, cute_i(0), cute_i(2)) {
        cute_tensor_store(c, r, cute_tensor_load(c, g));
        (void)i;
    }
    int use = __LINE__ + 1;
    cute_tensor_store(c, g, cute_tensor_load(c, r));
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "CUTE_FOR") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* a TensorSSA, or a register tensor holding it, made in kernel 'maker' and stored by the
 * next kernel: its registers are another kernel's */
static void aggregate_from_another_kernel(bool registers)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "maker");
    cute_ssa seven = cute_ssa_fill(c, CUTE_F32, cute_tuple_parse(a, "4"), 7.0);
    cute_tensor old = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "4:1"));
    cute_tensor_store(c, old, seven);
    CHECK(end(c)[0] == 0, "%s", cute_ctx_error(c));
    cute_kernel_begin(c, "user");
    cute_tensor g = param_tensor(c);
    int use = __LINE__ + 1;
    cute_tensor_store(c, g, registers ? cute_tensor_load(c, old) : seven);
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "kernel 'maker'") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* The report, through the JIT: a value kept from one launch's kernel and stored by the
 * next one's (it stored another register there: 7 where 5 was given) */
static cute_val kept;

static void store_seven(cute_ctx *c, cute_tensor out)
{
    kept = cute_val_const(c, CUTE_F32, 7.0);
    cute_tensor_store(c, out, cute_ssa_scalar(c, kept, cute_tuple_parse(cute_ctx_alg(c), "4")));
}

static int kept_line;
static void store_kept(cute_ctx *c, cute_tensor out)
{
    cute_val five = cute_val_const(c, CUTE_F32, 5.0);
    (void)five;
    kept_line = __LINE__ + 1;
    cute_tensor_store(c, out, cute_ssa_scalar(c, kept, cute_tuple_parse(cute_ctx_alg(c), "4")));
}

static void two_launches(cute_ctx *c, const cute_arg *args)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(1)}};
    CUTE_LAUNCH(c, store_seven, cfg, args[0].tensor);
    CUTE_LAUNCH(c, store_kept, cfg, args[0].tensor);
}

static void value_kept_across_launches(void)
{
    cute_runtime *rt = NULL;
    char err[1024];
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter runtime");
        return;
    }
    cute_arg_spec spec = cute_spec_tensor(CUTE_F32, "4:1", 16);
    const cute_fn *f = cute_compile(rt, "kept", two_launches, NULL, 1, &spec, err, sizeof err);
    CHECK(!f && has(err, "belongs to kernel 'store_seven_0'") && at_line(err, kept_line) &&
              !has(err, "internal"),
          "%s", f ? "compiled" : err);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* a register read before anything was written to it */
static void register_never_written(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_tensor g = param_tensor(c);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "4:1"));
    int use = __LINE__ + 1;
    cute_tensor_store(c, g, cute_tensor_load(c, r));
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "never") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

int main(void)
{
    value_from_another_kernel();
    value_after_its_loop();
    value_after_its_if();
    variable_carries_it_out();
    tensor_ssa_after_its_loop();
    register_tensor_after_its_loop();
    aggregate_from_another_kernel(false);
    aggregate_from_another_kernel(true);
    register_never_written();
    value_kept_across_launches();
    return CHECK_DONE("trace/identity_test");
}
