/* The tracer: control flow becomes structured IR, index integers are emitted once per scope,
 * the algebra proves facts about kernel values, and misuse is a diagnostic with the user's
 * line, never an abort. */
#include <stdlib.h>

#include "check.h"
#include "cutec/notation.h"
#include "cutec/trace.h"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* a kernel with every control structure; the IR verifies and reads as expected */
static void control_flow(void)
{
    cute_ctx *c = cute_ctx_new();
    CHECK(cute_kernel_begin(c, "k"), "%s", cute_ctx_error(c));
    cute_int n = cute_param_int(c, "n", 8, 0);
    cute_val out = cute_param_ptr(c, "out", CUTE_F32);
    (void)out;
    cute_int tid = cute_thread_idx(c, 0);
    cute_val acc = cute_val_var(c, cute_val_const(c, CUTE_F32, 0.0));
    CUTE_FOR(c, i, cute_i(0), n) {
        CUTE_IF(c, cute_int_lt(c, i, tid)) {
            cute_val_assign(c, acc, cute_val_binop(c, CUTE_OP_ADD, acc, cute_val_const(c, CUTE_F32, 1.0)));
        }
        CUTE_ELSE(c) {
            cute_val_assign(c, acc, cute_val_binop(c, CUTE_OP_MUL, acc, cute_val_const(c, CUTE_F32, 2.0)));
        }
    }
    cute_val k = cute_val_var(c, cute_val_int(c, CUTE_I32, 0));
    CUTE_WHILE(c, cute_val_cmp(c, CUTE_OP_LT, k, cute_val_int(c, CUTE_I32, 10))) {
        cute_val_assign(c, k, cute_val_binop(c, CUTE_OP_ADD, k, cute_val_int(c, CUTE_I32, 3)));
    }
    cute_barrier(c);
    cute_printf(c, "acc %f\n", 1, (cute_val[]){cute_val_cvt(c, acc, CUTE_F64)});
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "%s", cute_ctx_error(c));
    if (f) {
        char *d = cute_ir_text(f);
        CHECK(count(d, "FOR ") == 1 && count(d, "IF ") == 1 && count(d, "ELSE") == 1 &&
                  count(d, "WHILE") == 1 && count(d, "BARRIER") == 1 && count(d, "PRINTF") == 1,
              "%s", d);
        CHECK(count(d, "trace_test.c:") > 5, "call sites recorded:\n%s", d);
        if (getenv("CUTEC_PRINT_IR")) fputs(d, stderr);
        free(d);
        cute_ir_func_free(f);
    }
    cute_ctx_free(c);
}

/* the algebra on kernel values: a dynamic layout coalesces by proof; an index expression
 * is emitted once per scope */
static void index_algebra(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_alg *a = cute_ctx_alg(c);
    cute_int m = cute_param_int(c, "M", 16, 1);
    cute_layout L = cute_layout_fmt(a, "(%I,4):(1,%I)", m, m);
    cute_layout R = cute_coalesce(a, &L);
    char buf[256];
    cute_layout_str(&R, buf, sizeof buf);
    CHECK_STR(buf, "?{div=64}:1");
    cute_int tid = cute_thread_idx(c, 0);
    cute_int off = cute_layout_eval(a, &L, cute_add(a, tid, cute_i(5)));
    cute_val v1 = cute_int_value(c, off, CUTE_I64), v2 = cute_int_value(c, off, CUTE_I64);
    CHECK(v1.r == v2.r, "the same expression is emitted once");
    /* tid == tid is decided at trace time: a constant predicate */
    cute_val p = cute_int_eq(c, cute_thread_idx(c, 0), tid);
    (void)p;
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "%s", cute_ctx_error(c));
    if (f) {
        char *d = cute_ir_text(f);
        CHECK(count(d, "SREG") == 1, "one read of tid.x:\n%s", d);
        CHECK(count(d, "= EQ") == 0, "the predicate folded:\n%s", d);
        free(d);
        cute_ir_func_free(f);
    }
    cute_ctx_free(c);
}

/* the left operand of the LT that defines r */
static cute_vreg lt_lhs(const cute_ir_func *f, cute_vreg r)
{
    for (uint32_t i = 0; i < f->body.n; i++)
        if (f->body.inst[i].dst == r && f->body.inst[i].op == CUTE_OP_LT) return f->body.inst[i].a[0];
    return 0;
}

/* x + r < M is x < M when x and M are multiples of d > r: a 4-vector's bounds checks are one
 * compare; nothing of the kind without the divisibility */
static void vector_bounds_checks(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = cute_param_int(c, "M", 4, 1), K = cute_param_int(c, "K", 1, 1);
    cute_int x = cute_mul(a, cute_thread_idx(c, 0), cute_i(4)), y = cute_mul(a, cute_thread_idx(c, 0), cute_i(2));
    cute_vreg m[4], k[2], h[2];
    for (int r = 0; r < 4; r++) m[r] = cute_int_lt(c, cute_add(a, x, cute_i(r)), M).r;
    for (int r = 0; r < 2; r++) k[r] = cute_int_lt(c, cute_add(a, x, cute_i(3 * r)), K).r;
    for (int r = 0; r < 2; r++) h[r] = cute_int_lt(c, cute_add(a, y, cute_i(r + 1)), M).r;
    cute_val five = cute_int_lt(c, cute_add(a, x, cute_i(5)), M);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "%s", cute_ctx_error(c));
    if (f) {
        for (int r = 1; r < 4; r++)
            CHECK(lt_lhs(f, m[r]) && lt_lhs(f, m[r]) == lt_lhs(f, m[0]), "4 tid + %d < M is 4 tid < M", r);
        CHECK(lt_lhs(f, k[1]) != lt_lhs(f, k[0]), "K has no divisor: 4 tid + 3 < K stays");
        CHECK(lt_lhs(f, h[1]) != lt_lhs(f, h[0]), "2 tid + 1 and 2 tid + 2 are different checks");
        CHECK(lt_lhs(f, five.r) != lt_lhs(f, m[0]), "4 tid + 5 < M is 4 tid + 4 < M, not 4 tid < M");
        cute_ir_func_free(f);
    }
    cute_ctx_free(c);
}

/* misuse: each is a message with this file's line, and the context survives */
static void expect(cute_ctx *c, const char *needle, int line)
{
    char site[64];
    snprintf(site, sizeof site, "trace_test.c:%d", line);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), needle) && strstr(cute_ctx_error(c), site),
          "want '%s' at %s, got '%s'", needle, site, cute_ctx_error(c));
}

static void misuse(void)
{
    {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        cute_val x = cute_val_const(c, CUTE_F32, 1), y = cute_val_int(c, CUTE_I32, 2);
        int line = __LINE__ + 1;
        CUTE_AT(c, cute_val_binop(c, CUTE_OP_ADD, x, y));
        expect(c, "types differ", line);
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
    {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        cute_int inner = cute_i(0);
        CUTE_FOR(c, i, cute_i(0), cute_i(4)) { inner = cute_mul(cute_ctx_alg(c), i, cute_i(2)); }
        int line = __LINE__ + 1;
        CUTE_AT(c, cute_int_value(c, inner, CUTE_I64));
        expect(c, "has ended", line);
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
    {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k1");
        cute_int n1 = cute_param_int(c, "n1", 1, 0);
        cute_ir_func_free(cute_kernel_end(c));
        cute_kernel_begin(c, "k2");
        int line = __LINE__ + 1;
        CUTE_AT(c, cute_int_value(c, n1, CUTE_I64));
        expect(c, "another kernel", line);
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
    {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        int line = __LINE__ + 1;
        CUTE_ELSE(c) {}
        expect(c, "CUTE_ELSE", line);
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
    {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        cute_val f = cute_val_const(c, CUTE_F32, 1);
        int line = __LINE__ + 1;
        CUTE_IF(c, f) {}
        expect(c, "i1 predicate", line);
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
    {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        cute_layout L = cute_layout_parse(cute_ctx_alg(c), "(8,8):(8,1)");
        cute_tiler T = cute_tiler_parse(cute_ctx_alg(c), "4:3");
        int line = __LINE__ + 1;
        CUTE_AT(c, cute_composition(cute_ctx_alg(c), &L, &T));
        expect(c, "Shape Divisibility", line);
        CHECK(cute_kernel_end(c) == NULL, "a failed trace gives no kernel");
        cute_ctx_free(c);
    }
}

int main(void)
{
    control_flow();
    index_algebra();
    vector_bounds_checks();
    misuse();
    return CHECK_DONE("trace_test");
}
