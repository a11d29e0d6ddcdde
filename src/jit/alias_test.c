/* __restrict__ only where the call proves the pointers do not alias (issue 12 item 8d).
 * y = x + y called in place: with the default specs the kernel's pointers are __restrict__,
 * so an overlapping call is refused with a message (it used to run: undefined behaviour);
 * with `may_alias` the kernel has no __restrict__ and the in-place call is right.  Reading
 * one tensor through two arguments is no aliasing a kernel can break (nothing writes it).
 * The elementwise library compiles an in-place call's kernel without __restrict__. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"

enum { N = 96 };

/* z[i] = x[i] + y[i], one element per thread */
static void add_kernel(cute_ctx *c, cute_tensor x, cute_tensor y, cute_tensor z)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int i = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(32)), cute_thread_idx(c, 0));
    cute_tuple at = cute_tuple_int(i);
    cute_ssa s = cute_ssa_binop(c, CUTE_OP_ADD, cute_tensor_load(c, cute_tensor_slice(c, x, at)),
                                cute_tensor_load(c, cute_tensor_slice(c, y, at)));
    cute_tensor_store(c, cute_tensor_slice(c, z, at), s);
}

static void add_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(N / 32)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, add_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

static const cute_fn *compile_add(cute_runtime *rt, bool may_alias)
{
    cute_arg_spec s[3];
    for (int i = 0; i < 3; i++) s[i] = cute_spec_tensor(CUTE_F32, "96:1", 4);
    s[2].may_alias = may_alias;
    char err[1024];
    const cute_fn *f = cute_compile(rt, "add", add_host, NULL, 3, s, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    return f;
}

static bool has_restrict(const cute_fn *f)
{
    const cute_ir_func *k = cute_fn_kernel(f, 0);
    char *src = NULL, err[256];
    bool r = cute_cuda_c_emit(&k, 1, NULL, &src, err, sizeof err) == CUTE_OK && strstr(src, "__restrict__");
    free(src);
    return r;
}

static void in_place(cute_runtime *rt, uint64_t *seed)
{
    cute_backend *b = cute_runtime_backend(rt);
    float x[N], y[N], got[N];
    for (int i = 0; i < N; i++) x[i] = (float)ew_random(seed), y[i] = (float)ew_random(seed);
    cute_buffer X, Y;
    b->vt->alloc(b->self, sizeof x, &X), b->vt->alloc(b->self, sizeof y, &Y);
    int64_t shape[1] = {N}, unit[1] = {1};
    cute_call_arg ax = cute_call_tensor(&X, 0, CUTE_F32, 1, shape, unit);
    cute_call_arg ay = cute_call_tensor(&Y, 0, CUTE_F32, 1, shape, unit);
    for (int may_alias = 0; may_alias < 2; may_alias++) {
        b->vt->upload(b->self, &X, 0, x, sizeof x), b->vt->upload(b->self, &Y, 0, y, sizeof y);
        const cute_fn *f = compile_add(rt, may_alias);
        char err[1024] = "";
        if (!f) continue;
        CHECK(has_restrict(f) == !may_alias, "may_alias %d: __restrict__ %s", may_alias,
              has_restrict(f) ? "present" : "absent");
        cute_call_arg args[3] = {ax, ay, ay}; /* y = x + y */
        cute_status s = cute_call(f, NULL, 3, args, err, sizeof err);
        if (!may_alias) {
            CHECK(s == CUTE_ERR_INVALID && strstr(err, "arguments 1 and 2 share memory") &&
                      strstr(err, "may_alias"),
                  "an in-place call of a __restrict__ kernel is refused: %d %s", s, err);
            cute_call_arg twice[3] = {ax, ax, ay}; /* y = x + x: x is only read */
            s = cute_call(f, NULL, 3, twice, err, sizeof err);
            CHECK(s == CUTE_OK, "x read through two arguments: %s", err);
            b->vt->sync(b->self, NULL);
            b->vt->download(b->self, got, &Y, 0, sizeof got);
            int bad = 0;
            for (int i = 0; i < N; i++) bad += got[i] != x[i] + x[i];
            CHECK(bad == 0, "y = x + x: %d wrong", bad);
        } else {
            CHECK(s == CUTE_OK, "in place with may_alias: %s", err);
            b->vt->sync(b->self, NULL);
            b->vt->download(b->self, got, &Y, 0, sizeof got);
            int bad = 0;
            for (int i = 0; i < N; i++) bad += got[i] != x[i] + y[i];
            CHECK(bad == 0, "y = x + y in place: %d wrong", bad);
        }
        cute_fn_free(f);
    }
    b->vt->free(b->self, &X), b->vt->free(b->self, &Y);
}

/* the library: out = a + b with out == a, against the values before the call */
static void library_in_place(cute_runtime *rt, uint64_t *seed)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_ew_lib *lib = cute_ew_lib_new(rt);
    float a[N], bb[N], got[N];
    for (int i = 0; i < N; i++) a[i] = (float)ew_random(seed), bb[i] = (float)ew_random(seed);
    cute_buffer A, B;
    b->vt->alloc(b->self, sizeof a, &A), b->vt->alloc(b->self, sizeof bb, &B);
    b->vt->upload(b->self, &A, 0, a, sizeof a), b->vt->upload(b->self, &B, 0, bb, sizeof bb);
    int64_t shape[1] = {N}, unit[1] = {1};
    cute_call_arg ta = cute_call_tensor(&A, 0, CUTE_F32, 1, shape, unit);
    cute_call_arg tb = cute_call_tensor(&B, 0, CUTE_F32, 1, shape, unit);
    char err[1024];
    for (int place = 0; place < 2; place++) { /* the kernel the library compiles for each */
        cute_call_arg in[2] = {ta, tb}, out = place ? ta : tb;
        if (!place) out.buf = &A, out.offset = 0, in[0].buf = &B; /* out = b + b: no overlap */
        const cute_fn *f = cute_ew_compile(rt, "ew", cute_ew_op_expr, (void *)(intptr_t)CUTE_EW_ADD, 2, in,
                                     &out, NULL, err, sizeof err);
        CHECK(f && has_restrict(f) == !place, "%s: __restrict__ %s", place ? "in place" : "apart",
              f && has_restrict(f) ? "present" : "absent");
        cute_fn_free(f);
    }
    cute_status s = cute_ew(lib, CUTE_EW_ADD, &ta, &ta, &tb, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "a = a + b: %s", err);
    b->vt->download(b->self, got, &A, 0, sizeof got);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += got[i] != a[i] + bb[i];
    CHECK(bad == 0, "a = a + b in place: %d wrong", bad);
    b->vt->free(b->self, &A), b->vt->free(b->self, &B);
    cute_ew_lib_free(lib);
}

/* 4-bit elements share bytes: 2048 e2m1 values fill 1024 bytes, and a tensor right after
 * them does not overlap (counted as one byte each, they reached 1024 bytes into it) */
static void packed_spans(void)
{
    cute_buffer a = {(void *)(uintptr_t)0x10000, 1024, 0, 1}, b = {(void *)(uintptr_t)0x10400, 64, 0, 2};
    cute_call_arg x = cute_call_tensor(&a, 0, CUTE_E2M1, 1, (int64_t[]){2048}, (int64_t[]){1});
    cute_call_arg y = cute_call_tensor(&b, 0, CUTE_F32, 1, (int64_t[]){16}, (int64_t[]){1});
    CHECK(!cute_call_args_overlap(&x, &y), "e2m1 [0x10000, 0x10400) and f32 from 0x10400");
    x.shape[0] = 2049; /* half of byte 0x10400 */
    CHECK(cute_call_args_overlap(&x, &y), "2049 e2m1 values reach the byte at 0x10400");
}

int main(void)
{
    packed_spans();
    uint64_t seed = (uint64_t)time(NULL) | 1;
    printf("alias_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    static const char *const backends[] = {"interp", "cuda"};
    for (int k = 0; k < 2; k++) {
        char err[512];
        cute_runtime *rt;
        if (cute_runtime_new(backends[k], &rt, err, sizeof err) != CUTE_OK) {
            if (k) SKIP("no GPU: in-place calls ran on the interpreter only");
            else CHECK(false, "interpreter: %s", err);
            continue;
        }
        in_place(rt, &seed);
        library_in_place(rt, &seed);
        cute_runtime_free(rt);
    }
    return CHECK_DONE("alias_test");
}
