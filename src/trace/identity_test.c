/* Run-time values have an identity: the kernel that made them, the scope (loop or if body)
 * that defined them and the call site.  Using one in another kernel, or after its body has
 * ended, is a diagnostic at the user's line naming where the value was defined and the fix;
 * never a silently wrong register, never "internal". */
#include <stdlib.h>

#include "check.h"
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

/* a TensorSSA made in a loop body, stored after it; one of another kernel */
static void tensor_ssa_identity(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor t = cute_make_tensor(c, p, cute_layout_parse(a, "4:1"), 16);
    cute_ssa v = cute_ssa_fill(c, CUTE_F32, cute_tuple_parse(a, "4"), 1.0);
    CUTE_FOR(c, i, cute_i(0), cute_i(2)) {
        v = cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, t), v);
        (void)i;
    }
    int use = __LINE__ + 1;
    cute_tensor_store(c, t, v);
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "CUTE_FOR") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);

    c = cute_ctx_new();
    a = cute_ctx_alg(c);
    cute_kernel_begin(c, "maker");
    cute_ssa old = cute_ssa_fill(c, CUTE_F32, cute_tuple_parse(a, "4"), 7.0);
    CHECK(end(c)[0] == 0, "%s", cute_ctx_error(c));
    cute_kernel_begin(c, "user");
    p = cute_param_ptr(c, "p", CUTE_F32);
    t = cute_make_tensor(c, p, cute_layout_parse(a, "4:1"), 16);
    use = __LINE__ + 1;
    cute_tensor_store(c, t, old);
    e = end(c);
    CHECK(at_line(e, use) && has(e, "kernel 'maker'") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* register tensors: first written in a loop body and read after it; one of another kernel */
static void register_tensor_identity(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor g = cute_make_tensor(c, p, cute_layout_parse(a, "4:1"), 16);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "4:1"));
    CUTE_FOR(c, i, cute_i(0), cute_i(2)) {
        cute_tensor_store(c, r, cute_tensor_load(c, g));
        (void)i;
    }
    int use = __LINE__ + 1;
    cute_tensor_store(c, g, cute_tensor_load(c, r));
    const char *e = end(c);
    CHECK(at_line(e, use) && has(e, "CUTE_FOR") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);

    c = cute_ctx_new();
    a = cute_ctx_alg(c);
    cute_kernel_begin(c, "maker");
    cute_tensor old = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "4:1"));
    cute_tensor_store(c, old, cute_ssa_fill(c, CUTE_F32, cute_tuple_parse(a, "4"), 7.0));
    CHECK(end(c)[0] == 0, "%s", cute_ctx_error(c));
    cute_kernel_begin(c, "user");
    p = cute_param_ptr(c, "p", CUTE_F32);
    g = cute_make_tensor(c, p, cute_layout_parse(a, "4:1"), 16);
    use = __LINE__ + 1;
    cute_tensor_store(c, g, cute_tensor_load(c, old));
    e = end(c);
    CHECK(at_line(e, use) && has(e, "kernel 'maker'") && !has(e, "internal"), "%s", e);
    cute_ctx_free(c);
}

/* a register read before anything was written to it */
static void register_never_written(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor g = cute_make_tensor(c, p, cute_layout_parse(a, "4:1"), 16);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "4:1"));
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
    tensor_ssa_identity();
    register_tensor_identity();
    register_never_written();
    return CHECK_DONE("trace/identity_test");
}
