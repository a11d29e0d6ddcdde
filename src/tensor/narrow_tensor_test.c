/* Tensors of the narrow floats: printed types, 8-bit tensors loaded and stored 16 bytes at a
 * time like any other, e2m1 packed two to a byte (element 0 in the low nibble) moving in
 * whole bytes, recast between e2m1 and u8, predicated byte-wise tails, print_tensor, and
 * the trace-time errors: an e2m1 access that is not whole bytes, an e2m1 element's address,
 * arithmetic on a narrow type.  Kernels run on the interpreter, checked against numeric.h,
 * and on a GPU when there is one. */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "check.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/numeric.h"
#include "cutec/smem.h"

static char sbuf[2][1024];
static const char *tstr(cute_ctx *c, cute_tensor t, int k)
{
    cute_tensor_str(c, t, sbuf[k], sizeof sbuf[k]);
    return sbuf[k];
}

/* --- trace time ----------------------------------------------------------------------------- */

static void test_types_and_ir(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_tensor q = cute_make_tensor(c, cute_param_ptr(c, "q", CUTE_E4M3), cute_layout_parse(a, "(16,8):(1,16)"), 16);
    cute_tensor f4 = cute_make_tensor(c, cute_param_ptr(c, "f", CUTE_E2M1), cute_layout_parse(a, "(32,8):(1,32)"), 16);
    CHECK_STR(tstr(c, q, 0), "tensor<ptr<f8E4M3FN, gmem, align<16>> o (16,8):(1,16)>");
    CHECK_STR(tstr(c, f4, 0), "tensor<ptr<f4E2M1FN, gmem, align<16>> o (32,8):(1,32)>");
    cute_tensor u = cute_tensor_recast(c, f4, CUTE_U8);
    CHECK_STR(tstr(c, u, 0), "tensor<ptr<u8, gmem, align<16>> o (16,8):(1,16)>");
    CHECK_STR(tstr(c, cute_tensor_recast(c, u, CUTE_E2M1), 1), tstr(c, f4, 0));
    cute_tensor_store(c, q, cute_ssa_cvt(c, cute_tensor_load(c, q), CUTE_E4M3));
    cute_tensor_store(c, f4, cute_tensor_load(c, f4));
    /* narrow to narrow, and integers, go through f32 / f64 (the IR's CVT takes floats only) */
    cute_val e = cute_ssa_get(c, cute_tensor_load(c, q), 0);
    cute_val five = cute_val_cvt(c, cute_val_cvt(c, e, CUTE_E5M2), CUTE_I32);
    cute_val_cvt(c, five, CUTE_UE8M0);
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    cute_ir_func *f = cute_kernel_end(c);
    char *ir = f ? cute_ir_text(f) : NULL;
    /* 16 bytes per access: 16 e4m3, 32 e2m1 as 16 bytes */
    CHECK(ir && strstr(ir, "f8E4M3FNx16 = LOAD") && strstr(ir, "STORE") && strstr(ir, "u8x16 = LOAD") &&
              strstr(ir, "f4E2M1FNx32 = BITCAST") && strstr(ir, "f8E5M2 = CVT") && strstr(ir, "f64 = CVT"),
          "vector accesses:\n%s", ir ? ir : "");
    free(ir);
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

/* a kernel body that must fail at trace time with `want` in the message */
static void refuses(void (*body)(cute_ctx *, cute_alg *), const char *want)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    body(c, cute_ctx_alg(c));
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), want) && strstr(cute_ctx_error(c), "narrow_tensor_test.c:"),
          "want '%s' at the call site: '%s'", want, cute_ctx_failed(c) ? cute_ctx_error(c) : "(no error)");
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

static cute_tensor e2m1_tensor(cute_ctx *c, cute_alg *a, const char *layout)
{
    return cute_make_tensor(c, cute_param_ptr(c, "f", CUTE_E2M1), cute_layout_parse(a, layout), 16);
}

static void odd_element_store(cute_ctx *c, cute_alg *a)
{
    cute_tensor t = CUTE_SLICE(c, e2m1_tensor(c, a, "(32):(1)"), 3);
    cute_tensor_store(c, t, cute_ssa_fill(c, CUTE_E2M1, cute_tuple_int(cute_i(1)), 1.0));
}
static void strided_load(cute_ctx *c, cute_alg *a) { cute_tensor_load(c, e2m1_tensor(c, a, "(16):(2)")); }
static void element_address(cute_ctx *c, cute_alg *a)
{
    cute_tensor_ptr(c, e2m1_tensor(c, a, "(16):(1)"), cute_i(2));
}
static void fp8_add(cute_ctx *c, cute_alg *a)
{
    cute_tensor t = cute_make_tensor(c, cute_param_ptr(c, "q", CUTE_E5M2), cute_layout_parse(a, "(16):(1)"), 16);
    cute_ssa v = cute_tensor_load(c, t);
    cute_ssa_binop(c, CUTE_OP_ADD, v, v);
}

static void test_errors(void)
{
    refuses(odd_element_store, "a store of 1 f4E2M1FN element at element offset 3");
    refuses(strided_load, "whole bytes");
    refuses(element_address, "has no address of its own");
    refuses(fp8_add, "ADD on f8E5M2");
}

/* --- running -------------------------------------------------------------------------------- */

/* x: 8 columns of 32 f32 (mode 0 contiguous, as whole-tensor loads vectorize along it).
 * q = e4m3(x), back = f32(q); f4 = e2m1(x) packed; f4back = f32(f4 read back, through
 * shared memory); bytes = f4
 * recast to u8 and copied; tail: the first `n` elements of column 0 of x as e2m1,
 * predicated (the rest of the column untouched) */
static void narrow_kernel(cute_ctx *c, cute_tensor x, cute_tensor q, cute_tensor back, cute_tensor f4,
                          cute_tensor f4back, cute_tensor bytes, cute_tensor tail, cute_int n)
{
    cute_smem_allocator A = cute_smem_allocator_new(c); /* 256 e2m1: 128 bytes */
    cute_tensor s4 = cute_smem_alloc_tensor(c, &A, CUTE_E2M1, f4.layout, 16);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_ssa v = cute_tensor_load(c, x);
        cute_tensor_store(c, q, cute_ssa_cvt(c, v, CUTE_E4M3));
        cute_tensor_store(c, back, cute_ssa_cvt(c, cute_tensor_load(c, q), CUTE_F32));
        cute_tensor_store(c, f4, cute_ssa_cvt(c, v, CUTE_E2M1));
        cute_tensor_store(c, s4, cute_tensor_load(c, f4));
        cute_tensor_store(c, f4back, cute_ssa_cvt(c, cute_tensor_load(c, s4), CUTE_F32));
        cute_tensor_store(c, bytes, cute_tensor_load(c, cute_tensor_recast(c, f4, CUTE_U8)));
        cute_tensor row = CUTE_SLICE(c, x, CUTE_ALL, 0), trow = CUTE_SLICE(c, tail, CUTE_ALL, 0);
        cute_tensor id = cute_make_identity_tensor(c, cute_tuple_int(cute_i(32)));
        cute_ssa pred = cute_elem_less(c, id, cute_tuple_int(n));
        cute_tensor_store_if(c, trow, cute_ssa_cvt(c, cute_tensor_load(c, row), CUTE_E2M1), pred);
    }
}

static void narrow_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, narrow_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor, arg[4].tensor,
                arg[5].tensor, arg[6].tensor, arg[7].i);
}

typedef struct bufs {
    cute_buffer x, q, back, f4, f4back, bytes, tail;
} bufs;

static void run_narrow(cute_runtime *rt, const char *where)
{
    cute_backend *be = cute_runtime_backend(rt);
    const char *rm = "(32,8):(1,32)";
    cute_arg_spec specs[8] = {cute_spec_tensor(CUTE_F32, rm, 16),  cute_spec_tensor(CUTE_E4M3, rm, 16),
                              cute_spec_tensor(CUTE_F32, rm, 16),  cute_spec_tensor(CUTE_E2M1, rm, 16),
                              cute_spec_tensor(CUTE_F32, rm, 16),  cute_spec_tensor(CUTE_U8, "(16,8):(1,16)", 16),
                              cute_spec_tensor(CUTE_E2M1, rm, 16), cute_spec_int("?{div=2}")};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "narrow", narrow_host, NULL, 8, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", where, err);
    if (!f) return;
    CHECK(cute_fn_kernel(f, 0)->smem_bytes == 128, "%s: 256 e2m1 take %lld bytes of shared memory, want 128",
          where, (long long)cute_fn_kernel(f, 0)->smem_bytes);
    float x[256], back[256], f4back[256];
    uint8_t q[256], f4[128], bytes[128], tail[128];
    uint32_t r = 99;
    for (int i = 0; i < 256; i++) {
        r = r * 1664525u + 1013904223u;
        x[i] = (float)((int)(r >> 20) - 2048) / 256.0f; /* +-8, past e2m1's 6 */
    }
    memset(tail, 0x5a, sizeof tail);
    bufs B;
    cute_buffer *all[7] = {&B.x, &B.q, &B.back, &B.f4, &B.f4back, &B.bytes, &B.tail};
    size_t size[7] = {sizeof x, sizeof q, sizeof back, sizeof f4, sizeof f4back, sizeof bytes, sizeof tail};
    for (int i = 0; i < 7; i++) {
        be->vt->alloc(be->self, size[i], all[i]);
        void *poison = malloc(size[i]);
        memset(poison, 0xa5, size[i]);
        be->vt->upload(be->self, all[i], 0, i == 0 ? (void *)x : i == 6 ? (void *)tail : poison, size[i]);
        free(poison);
    }
    int64_t s2[2] = {32, 8}, d2[2] = {1, 32}, sb[2] = {16, 8}, db[2] = {1, 16};
    cute_call_arg args[8] = {
        cute_call_tensor(&B.x, 0, CUTE_F32, 2, s2, d2),       cute_call_tensor(&B.q, 0, CUTE_E4M3, 2, s2, d2),
        cute_call_tensor(&B.back, 0, CUTE_F32, 2, s2, d2),    cute_call_tensor(&B.f4, 0, CUTE_E2M1, 2, s2, d2),
        cute_call_tensor(&B.f4back, 0, CUTE_F32, 2, s2, d2),  cute_call_tensor(&B.bytes, 0, CUTE_U8, 2, sb, db),
        cute_call_tensor(&B.tail, 0, CUTE_E2M1, 2, s2, d2),   cute_call_int(10)};
    cute_status s = cute_call(f, NULL, 8, args, err, sizeof err);
    be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s", where, err);
    void *host[7] = {x, q, back, f4, f4back, bytes, tail};
    for (int i = 1; i < 7; i++) be->vt->download(be->self, host[i], all[i], 0, size[i]);
    int bad[5] = {0};
    for (int i = 0; i < 256; i++) {
        uint8_t w4 = cute_f32_to_e2m1(x[i]), got4 = (uint8_t)(f4[i / 2] >> (i % 2 * 4) & 0xf);
        bad[0] += q[i] != cute_f32_to_e4m3(x[i]) || back[i] != cute_e4m3_to_f32(q[i]);
        bad[1] += got4 != w4; /* element 0 of each byte in its low nibble */
        bad[2] += f4back[i] != cute_e2m1_to_f32(w4);
    }
    for (int b = 0; b < 128; b++) bad[3] += bytes[b] != f4[b];
    for (int b = 0; b < 16; b++) /* column 0: 10 elements = 5 bytes written, the rest as it was */
        bad[4] += tail[b] != (b < 5 ? (uint8_t)(cute_f32_to_e2m1(x[2 * b]) | cute_f32_to_e2m1(x[2 * b + 1]) << 4) : 0x5a);
    CHECK(!bad[0], "%s: e4m3 codes or values: %d wrong", where, bad[0]);
    CHECK(!bad[1] && !bad[2], "%s: e2m1 nibbles %d, values %d wrong", where, bad[1], bad[2]);
    CHECK(!bad[3], "%s: e2m1 recast to u8: %d bytes wrong", where, bad[3]);
    CHECK(!bad[4], "%s: the predicated e2m1 tail: %d bytes wrong", where, bad[4]);
    for (int i = 0; i < 7; i++) be->vt->free(be->self, all[i]);
    cute_fn_free(f);
}

/* --- print_tensor ----------------------------------------------------------------------------- */

static void print_kernel(cute_ctx *c, cute_tensor q, cute_tensor f4)
{
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_print_tensor(c, q);
        cute_print_tensor(c, f4);
    }
}

static void print_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, print_kernel, cfg, arg[0].tensor, arg[1].tensor);
}

static void test_print(void)
{
    printing P;
    if (!printing_begin(&P)) {
        printing_end(&P);
        return;
    }
    cute_backend be = P.be;
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_E4M3, "(2,2):(2,1)", 4), cute_spec_tensor(CUTE_E2M1, "(4):(1)", 2)};
    char err[1024];
    const cute_fn *f = cute_compile(P.rt, "print", print_host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (f) {
        uint8_t q[4] = {0x38, 0xc0, 0x7e, 0x01}, f4[2] = {0x2f, 0x7a}; /* 1 -2 448 2^-9; -6 1 -1 6 */
        cute_buffer Q, F;
        be.vt->alloc(be.self, 4, &Q), be.vt->alloc(be.self, 2, &F);
        be.vt->upload(be.self, &Q, 0, q, 4), be.vt->upload(be.self, &F, 0, f4, 2);
        int64_t s2[2] = {2, 2}, d2[2] = {2, 1}, s1[1] = {4}, d1[1] = {1};
        cute_call_arg args[2] = {cute_call_tensor(&Q, 0, CUTE_E4M3, 2, s2, d2), cute_call_tensor(&F, 0, CUTE_E2M1, 1, s1, d1)};
        CHECK(cute_call(f, NULL, 2, args, err, sizeof err) == CUTE_OK, "%s", err);
        CHECK_STR(printing_text(&P), "tensor<ptr<f8E4M3FN, gmem, align<4>> o (2,2):(2,1)>\n"
                                    "       [[ 1.000000,  -2.000000, ],\n"
                                    "        [ 448.000000,  0.001953, ]]\n"
                                    "tensor<ptr<f4E2M1FN, gmem, align<2>> o (4):(1)>\n"
                                    "       [ -6.000000, ],\n"
                                    "       [ 1.000000, ],\n"
                                    "       [ -1.000000, ],\n"
                                    "       [ 6.000000, ]\n");
        be.vt->free(be.self, &Q), be.vt->free(be.self, &F);
        cute_fn_free(f);
    }
    printing_end(&P);
}

/* DLPack's codes: 10 float8_e4m3fn, 12 float8_e5m2, 14 float8_e8m0fnu, 17 float4_e2m1fn */
static void test_dlpack(void)
{
    uint8_t data[8];
    cute_buffer buf = {data, sizeof data, 0, 1};
    int64_t shape[1] = {8};
    static const struct { uint8_t code, bits; cute_dtype d; } map[] = {
        {10, 8, CUTE_E4M3}, {12, 8, CUTE_E5M2}, {14, 8, CUTE_UE8M0}, {17, 4, CUTE_E2M1}};
    char err[256];
    for (int i = 0; i < 4; i++) {
        cute_dlpack_tensor t = {data, {1, 0}, 1, {map[i].code, map[i].bits, 1}, shape, NULL, 0};
        cute_call_arg a;
        CHECK(cute_call_dlpack(&t, &buf, &a, err, sizeof err) && a.dtype == map[i].d, "code %d: %s", map[i].code, err);
    }
    cute_dlpack_tensor bad = {data, {1, 0}, 1, {17, 8, 1}, shape, NULL, 0}; /* e2m1 is 4 bits */
    cute_call_arg a;
    CHECK(!cute_call_dlpack(&bad, &buf, &a, err, sizeof err), "float4_e2m1fn of 8 bits refused");
}

int main(void)
{
    test_types_and_ir();
    test_dlpack();
    test_errors();
    test_print();
    check_on_backends(run_narrow, "the narrow-float tensor kernel");
    return CHECK_DONE("tensor narrow");
}
