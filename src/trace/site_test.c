/* Diagnostics at the right place: a DSL call whose arguments contain other DSL calls is
 * reported at its own line (not at its last argument's); a layout or notation error, in a
 * kernel or in a host function, at the line of the operation that failed; a long bad
 * notation input still shows the reason. */
#include <stdlib.h>

#include "check.h"
#include "cutec/copy.h"
#include "cutec/notation.h"
#include "cutec/tensor.h"

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static bool at_line(const char *msg, int line)
{
    char want[64];
    snprintf(want, sizeof want, "site_test.c:%d:", line);
    return has(msg, want);
}

/* the outer call fails after its arguments (two calls on later lines) have run */
static void outer_call_at_its_line(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    int outer = __LINE__ + 1;
    cute_val sum = cute_val_binop(c, CUTE_OP_ADD,
                                  cute_val_const(c, CUTE_F32, 1.0),
                                  cute_val_int(c, CUTE_I32, 2));
    (void)sum;
    const char *e = cute_ctx_error(c);
    CHECK(at_line(e, outer) && has(e, "cute_val_cvt"), "%s", e);
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* an inner call that fails is reported at its own line */
static void inner_call_at_its_line(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_val one = cute_val_const(c, CUTE_F32, 1.0);
    int inner = __LINE__ + 2;
    cute_val r = cute_val_binop(c, CUTE_OP_ADD, one,
                                cute_val_unop(c, CUTE_OP_NOT, one));
    (void)r;
    const char *e = cute_ctx_error(c);
    CHECK(at_line(e, inner) && has(e, "NOT"), "%s", e);
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* instructions carry their own call's line, not the line of a call in their arguments */
static void instructions_at_their_call(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    int store = __LINE__ + 1;
    cute_val_atomic(c, p,
                    cute_val_const(c, CUTE_F32, 2.0), CUTE_ATOMIC_ADD);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "%s", cute_ctx_error(c));
    char *d = f ? cute_ir_text(f) : NULL;
    const char *line = d ? strstr(d, "ATOMIC") : NULL;
    char want[64];
    snprintf(want, sizeof want, "site_test.c:%d\n", store);
    CHECK(line && strstr(line, want) && strstr(line, want) < strchr(line, '\n'), "%s", d ? d : "");
    free(d);
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

/* a bad notation in a kernel, after other DSL calls: at its own line */
static void layout_error_in_kernel(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_int tid = cute_thread_idx(c, 0);
    (void)tid;
    int bad = __LINE__ + 1;
    cute_layout L = cute_layout_parse(a, "(4,8):(1");
    (void)L;
    const char *e = cute_ctx_error(c);
    CHECK(at_line(e, bad) && has(e, "expected"), "%s", e);
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* ... and in a host function, before any DSL call (it was "?:0") */
static void layout_error_on_the_host(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_layout A = cute_layout_parse(a, "(4,8):(8,1)");
    (void)A;
    int bad = __LINE__ + 1;
    cute_tuple t = cute_tuple_parse(a, "(4,");
    (void)t;
    const char *e = cute_ctx_error(c);
    CHECK(!has(e, "?:0") && at_line(e, bad), "%s", e);
    cute_ctx_free(c);
}

/* an atom-level operation (on the algebra) too */
static void tiled_copy_error_at_its_line(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_copy_atom u64 = cute_copy_atom_universal(a, CUTE_F64, 128);
    cute_layout thr = cute_layout_parse(a, "(3,1):(1,0)"), val = cute_layout_parse(a, "(1,1):(0,0)");
    int bad = __LINE__ + 1;
    cute_tiled_copy tc = cute_make_tiled_copy_tv(a, &u64, &thr, &val);
    (void)tc;
    const char *e = cute_ctx_error(c);
    CHECK(at_line(e, bad) && has(e, "do not divide"), "%s", e);
    cute_ctx_free(c);
}

/* a long bad input: the message keeps the reason */
static void long_notation_keeps_the_reason(void)
{
    cute_ctx *c = cute_ctx_new();
    size_t n = 3000;
    char *text = malloc(n + 8);
    text[0] = '(';
    for (size_t i = 1; i < n; i += 2) text[i] = '1', text[i + 1] = ',';
    strcpy(text + n, "x)");
    cute_tuple t = cute_tuple_parse(cute_ctx_alg(c), text);
    (void)t;
    const char *e = cute_ctx_error(c);
    CHECK(has(e, "expected") && has(e, "found 'x'") && has(e, "characters"), "%s", e);
    free(text);
    cute_ctx_free(c);
}

int main(void)
{
    outer_call_at_its_line();
    inner_call_at_its_line();
    instructions_at_their_call();
    layout_error_in_kernel();
    layout_error_on_the_host();
    tiled_copy_error_at_its_line();
    long_notation_keeps_the_reason();
    return CHECK_DONE("trace/site_test");
}
