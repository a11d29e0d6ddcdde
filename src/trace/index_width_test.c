/* Index integers are lowered in 32 bits exactly where every value computed on the way is
 * proven to fit (DESIGN.md: "by proven bounds, never by silent truncation"): the ranges
 * come from the special registers (what a launch allows), cute_index_bound on the
 * arguments, and loop bounds.  Each case checks the width chosen and, at the edge of the
 * proof, that one more unit flips it to 64 bits. */
#include <stdlib.h>

#include "check.h"
#include "cutec/notation.h"
#include "cutec/trace.h"

static cute_dtype width(cute_ctx *c, cute_int x) { return (cute_dtype)cute_int_index(c, x).t.dtype; }

static cute_ir_func *end(cute_ctx *c)
{
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "the kernel verifies: %s", cute_ctx_error(c));
    return f;
}

/* thread and block indices: 32 bits while the launch bounds what they can reach */
static void special_registers(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0), bid = cute_block_idx(c, 0);
    CHECK(width(c, cute_add(a, cute_mul(a, tid, cute_i(4)), cute_i(3))) == CUTE_I32, "tid*4+3 in i32");
    /* with no launch known, blockIdx.x may reach 2^31 - 2: times 2 it does not fit */
    CHECK(width(c, bid) == CUTE_I32, "blockIdx.x alone in i32");
    CHECK(width(c, cute_mul(a, bid, cute_i(2))) == CUTE_I64, "blockIdx.x * 2 in i64");
    cute_ir_func_free(end(c));

    /* a launch of at most 1000 blocks of 256 threads */
    cute_kernel_begin(c, "k2");
    cute_kernel_launch_extents(c, (int64_t[]){1000, 1, 1}, (int64_t[]){256, 1, 1});
    bid = cute_block_idx(c, 0), tid = cute_thread_idx(c, 0);
    CHECK(width(c, cute_add(a, cute_mul(a, bid, cute_i(2149633)), tid)) == CUTE_I32,
          "999 * 2149633 + 255 fits");
    CHECK(width(c, cute_add(a, cute_mul(a, bid, cute_i(2149634)), tid)) == CUTE_I64,
          "999 * 2149634 + 255 does not");
    cute_ir_func_free(end(c));
    cute_ctx_free(c);
}

/* kernel parameters: unbounded (i64) unless the host promised a bound */
static void bounded_arguments(void)
{
    for (int64_t bound = 46340; bound <= 46341; bound++) {
        cute_ctx *c = cute_ctx_new();
        cute_index_bound(c, bound);
        cute_kernel_begin(c, "k");
        cute_alg *a = cute_ctx_alg(c);
        cute_int x = cute_param_int(c, "x", 1, 0), y = cute_param_int(c, "y", 1, INT64_MIN);
        /* 46340^2 = 2147395600 fits in an int32, 46341^2 does not */
        cute_dtype want = bound == 46340 ? CUTE_I32 : CUTE_I64;
        CHECK(width(c, cute_mul(a, x, y)) == want, "x*y under bound %lld", (long long)bound);
        CHECK(width(c, x) == CUTE_I32 && width(c, y) == CUTE_I32, "x and y alone in i32");
        cute_ir_func_free(end(c));
        cute_ctx_free(c);
    }
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_int x = cute_param_int(c, "x", 1, 0);
    CHECK(width(c, x) == CUTE_I64, "an unbounded parameter stays i64");
    /* converting to a narrower type on request is still possible, explicitly */
    CHECK(cute_int_value(c, x, CUTE_I32).t.dtype == CUTE_I32, "cute_int_value converts");
    cute_ir_func_free(end(c));
    cute_index_bound(c, 0);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), "1 to 2^31 - 1"), "bound 0 refused: %s",
          cute_ctx_error(c));
    cute_ctx_free(c);
    c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_index_bound(c, 100);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), "host function"),
          "a bound inside a kernel refused: %s", cute_ctx_error(c));
    cute_ctx_free(c);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* a loop's variable is an i32 when its bounds are, and carries their range */
static void loops(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_index_bound(c, 1 << 20);
    cute_kernel_begin(c, "k");
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = cute_param_int(c, "n", 1, 1);
    cute_val out = cute_param_ptr(c, "out", CUTE_F32);
    (void)out;
    CUTE_FOR(c, i, cute_i(0), n) {
        CHECK(width(c, cute_mul(a, i, cute_i(2048))) == CUTE_I32, "i < 2^20: i*2048 fits");
        CHECK(width(c, cute_mul(a, i, cute_i(2049))) == CUTE_I64, "i*2049 may pass 2^31");
    }
    /* n as an i64 is the parameter itself, not a round trip through the loop's i32 */
    cute_int_value(c, n, CUTE_I64);
    cute_ir_func *f = end(c);
    if (f) {
        char *buf = cute_ir_text(f);
        CHECK(count(buf, "i32 = MUL") == 1 && count(buf, "i64 = MUL") == 1 &&
                  count(buf, "i64 = CVT %1") == 0,
              "one i32 product, one i64 product, no round trip:\n%s", buf);
        free(buf);
        cute_ir_func_free(f);
    }
    cute_ctx_free(c);
}

/* an unbounded (i64) loop variable's kt % 2 fits: computed in 64 bits (a mask: kt >= 0),
 * narrowed once, and the stage offset around it stays 32-bit (the pipelined GEMM's 64-bit
 * kernels) */
static void narrowed_atoms(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_kernel_launch_extents(c, (int64_t[]){1000, 1, 1}, (int64_t[]){256, 1, 1});
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = cute_param_int(c, "n", 1, 1), tid = cute_thread_idx(c, 0);
    CUTE_FOR(c, kt, cute_i(0), n) {
        CHECK(width(c, kt) == CUTE_I64, "the variable of an unbounded loop is i64");
        cute_int stage = cute_add(a, cute_mul(a, cute_mod(a, kt, cute_i(2)), cute_i(2048)), cute_mul(a, tid, cute_i(4)));
        CHECK(width(c, stage) == CUTE_I32, "(kt %% 2) * 2048 + tid * 4 in i32");
        CHECK(width(c, cute_add(a, kt, tid)) == CUTE_I64, "kt + tid stays i64");
    }
    cute_ir_func *f = end(c);
    if (f) {
        char *buf = cute_ir_text(f);
        CHECK(count(buf, "i64 = AND") == 1 && count(buf, "= REM") == 0 && count(buf, "i32 = CVT") >= 1 &&
                  count(buf, "i32 = MUL") >= 1,
              "kt %% 2 in i64, narrowed, the rest in i32:\n%s", buf);
        free(buf);
        cute_ir_func_free(f);
    }
    cute_ctx_free(c);
}

int main(void)
{
    special_registers();
    bounded_arguments();
    loops();
    narrowed_atoms();
    return CHECK_DONE("index_width_test");
}
