/* Index divisions by powers of two (lower.c): a quotient or remainder of a value proven
 * nonnegative lowers to a shift or a mask, where a signed division costs a fix-up for
 * negative values (five instructions on 64 bits: the NVFP4 GEMV's scale addresses); a
 * value that may be negative keeps the division; an exact quotient (a multiple of the
 * divisor by its divisibility) is a shift whatever its sign.  Each case counts the IR's ops
 * and checks the values on the interpreter against C's own arithmetic.  And cute_int_now:
 * a division computed once where the tracer would emit it in each scope that uses it. */
#include <stdlib.h>

#include "check.h"
#include "ir_count.h"
#include "check_interp.h"
#include "cutec/jit.h"
#include "cutec/trace.h"

/* the ops one index expression lowers to */
typedef struct lowered {
    int div, rem, shr, and_;
} lowered;

static lowered lower_one(cute_int (*expr)(cute_alg *, cute_int), int64_t div, int64_t lo)
{
    lowered l = {0};
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_int x = cute_param_int(c, "x", div, lo);
    cute_int_index(c, expr(cute_ctx_alg(c), x));
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "the kernel verifies: %s", cute_ctx_error(c));
    if (f)
        l = (lowered){ir_count_ops(&f->body, CUTE_OP_DIV), ir_count_ops(&f->body, CUTE_OP_REM),
                      ir_count_ops(&f->body, CUTE_OP_SHR), ir_count_ops(&f->body, CUTE_OP_AND)};
    cute_ir_func_free(f);
    cute_ctx_free(c);
    return l;
}

static cute_int div16(cute_alg *a, cute_int x) { return cute_div(a, x, cute_i(16)); }
static cute_int mod16(cute_alg *a, cute_int x) { return cute_mod(a, x, cute_i(16)); }
static cute_int div12(cute_alg *a, cute_int x) { return cute_div(a, x, cute_i(12)); }

static void lowering(void)
{
    lowered l = lower_one(div16, 1, 0);
    CHECK(l.div == 0 && l.shr == 1, "x / 16, x >= 0: %d DIV, %d SHR (want a shift)", l.div, l.shr);
    l = lower_one(mod16, 1, 0);
    CHECK(l.rem == 0 && l.and_ == 1, "x %% 16, x >= 0: %d REM, %d AND (want a mask)", l.rem, l.and_);
    l = lower_one(div16, 1, INT64_MIN);
    CHECK(l.div == 1 && l.shr == 0, "x / 16, x of any sign: %d DIV, %d SHR (want the division)",
          l.div, l.shr);
    l = lower_one(mod16, 1, INT64_MIN);
    CHECK(l.rem == 1, "x %% 16, x of any sign: %d REM (want the remainder)", l.rem);
    l = lower_one(div12, 1, 0);
    CHECK(l.div == 1, "x / 12: %d DIV (not a power of two)", l.div);
    l = lower_one(div16, 16, INT64_MIN);
    CHECK(l.div == 0 && l.shr == 1, "x / 16, x a multiple of 16 of any sign: %d DIV, %d SHR", l.div, l.shr);
}

/* out = (x / 16, x % 16, y / 16, y % 16, z / 16) for the arguments (nonnegative) x, y - 100
 * (of either sign) and z - 160 (a multiple of 16 of either sign) */
static void kernel(cute_ctx *c, cute_tensor out, cute_int x, cute_int y, cute_int z)
{
    cute_alg *a = cute_ctx_alg(c);
    y = cute_sub(a, y, cute_i(100)), z = cute_sub(a, z, cute_i(160));
    cute_int v[5] = {cute_div(a, x, cute_i(16)), cute_mod(a, x, cute_i(16)), cute_div(a, y, cute_i(16)),
                     cute_mod(a, y, cute_i(16)), cute_div(a, z, cute_i(16))};
    for (int i = 0; i < 5; i++)
        cute_tensor_store(c, cute_tensor_slice(c, out, CUTE_CRD(i)),
                          cute_ssa_scalar(c, cute_int_value(c, v[i], CUTE_I64), cute_tuple_int(cute_i(1))));
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(1)}};
    CUTE_LAUNCH(c, kernel, cfg, arg[0].tensor, arg[1].i, arg[2].i, arg[3].i);
}

static void values(void)
{
    char err[1024];
    cute_runtime *rt = check_interp();
    if (!rt) return;
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[4] = {cute_spec_tensor(CUTE_I64, "5:1", 8), cute_spec_int("?"),
                              cute_spec_int("?"), cute_spec_int("?{div=16}")};
    const cute_fn *f = cute_compile(rt, "index_div", host, NULL, 4, specs, err, sizeof err);
    CHECK(f != NULL, "index_div compiles: %s", err);
    int64_t cases[3][3] = {{37, 63, 112}, {4096 + 15, 99, 160}, {0, 84, 320}};
    for (int t = 0; f && t < 3; t++) {
        int64_t *k = cases[t], out[5] = {-7, -7, -7, -7, -7};
        cute_buffer B;
        be->vt->alloc(be->self, sizeof out, &B), be->vt->upload(be->self, &B, 0, out, sizeof out);
        cute_call_arg args[4] = {cute_call_tensor(&B, 0, CUTE_I64, 1, (int64_t[]){5}, (int64_t[]){1}),
                                 cute_call_int(k[0]), cute_call_int(k[1]), cute_call_int(k[2])};
        cute_status s = cute_call(f, NULL, 4, args, err, sizeof err);
        if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
        CHECK(s == CUTE_OK, "index_div runs: %s", err);
        be->vt->download(be->self, out, &B, 0, sizeof out);
        int64_t y = k[1] - 100, want[5] = {k[0] / 16, k[0] % 16, y / 16, y % 16, (k[2] - 160) / 16};
        for (int i = 0; i < 5; i++)
            CHECK(out[i] == want[i], "x=%lld y=%lld z=%lld: value %d is %lld, want %lld", (long long)k[0],
                  (long long)k[1], (long long)k[2], i, (long long)out[i], (long long)want[i]);
        be->vt->free(be->self, &B);
    }
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* A quotient used inside a loop and after it: the tracer emits an expression once per
 * scope that uses it (twice here); cute_int_now computes it once, before the loop, and the
 * value keeps the quotient's range (x / 7 < 2^31 / 7: times 7 still in 32 bits). */
static void computed_once(void)
{
    for (int now = 0; now < 2; now++) {
        cute_ctx *c = cute_ctx_new();
        cute_index_bound(c, INT32_MAX);
        cute_kernel_begin(c, "k");
        cute_alg *a = cute_ctx_alg(c);
        cute_int x = cute_param_int(c, "x", 1, 0), d = cute_param_int(c, "d", 1, 1);
        cute_int q = cute_div(a, x, d), q7 = cute_div(a, x, cute_i(7));
        if (now) q = cute_int_now(c, q), q7 = cute_int_now(c, q7);
        CUTE_FOR(c, i, cute_i(0), x) cute_int_index(c, cute_add(a, q, i));
        cute_int_index(c, cute_mul(a, q, cute_i(3)));
        cute_dtype w = (cute_dtype)cute_int_index(c, cute_mul(a, q7, cute_i(7))).t.dtype;
        cute_ir_func *f = cute_kernel_end(c);
        CHECK(f != NULL, "the kernel verifies: %s", cute_ctx_error(c));
        int divs = f ? ir_count_ops(&f->body, CUTE_OP_DIV) : -1, want = now ? 2 : 3;
        CHECK(divs == want, "%s: %d DIVs (want %d: x / d %s, x / 7 once)", now ? "cute_int_now" : "left to the tracer",
              divs, want, now ? "once" : "in the loop and after it");
        CHECK(w == CUTE_I32, "(x / 7) * 7 in 32 bits%s", now ? " after cute_int_now" : "");
        cute_ir_func_free(f);
        cute_ctx_free(c);
    }
}

int main(void)
{
    lowering();
    computed_once();
    values();
    return CHECK_DONE("index_div_test");
}
