/* Tensors: the printed type against CuTe DSL's forms, coordinates built with CUTE_CRD and
 * CUTE_ALL, register tensors like others, recast and domain_offset (by their layouts and
 * by running them), and cute_print_tensor's output on the interpreter, matched against
 * the rows CuTe DSL's print_tensor prints. */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "check.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/smem.h"

static char sbuf[4][1024];
static const char *tstr(cute_ctx *c, cute_tensor t, int k)
{
    cute_tensor_str(c, t, sbuf[k], sizeof sbuf[k]);
    return sbuf[k];
}
static const char *tupstr(cute_tuple t, int k)
{
    cute_tuple_str(&t, sbuf[k], sizeof sbuf[k]);
    return sbuf[k];
}
static const char *laystr(cute_layout L, int k)
{
    cute_layout_str(&L, sbuf[k], sizeof sbuf[k]);
    return sbuf[k];
}

/* --- printed types ----------------------------------------------------------------------- */

static void test_type_strings(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_int n = cute_param_int(c, "n", 1, 1), s = cute_param_int(c, "s", 1, 1);
    cute_layout L = cute_layout_fmt(a, "(128,8,%I):(1,%I,%I)", n, s, s);
    cute_tensor g16 = cute_make_tensor(c, p, L, 16), g4 = cute_make_tensor(c, p, L, 4);
    CHECK_STR(tstr(c, g16, 0), "tensor<ptr<f32, gmem, align<16>> o (128,8,?):(1,?,?)>");
    /* the element's own alignment is not printed, as CuTe DSL does not */
    CHECK_STR(tstr(c, g4, 0), "tensor<ptr<f32, gmem> o (128,8,?):(1,?,?)>");
    /* the iterator's alignment after a slice: offset 1 -> 4 bytes, offset 2 -> 8 */
    cute_tensor col = cute_tensor_slice(c, cute_make_tensor(c, p, cute_layout_parse(a, "(4,8):(1,4)"), 16),
                                        cute_tuple_parse(a, "(_,1)"));
    CHECK_STR(tstr(c, col, 0), "tensor<ptr<f32, gmem, align<16>> o (4):(1)>");
    CHECK_STR(tstr(c, cute_tensor_domain_offset(c, col, cute_tuple_int(cute_i(1))), 0), "tensor<ptr<f32, gmem> o (4):(1)>");
    CHECK_STR(tstr(c, cute_tensor_domain_offset(c, col, cute_tuple_int(cute_i(2))), 0), "tensor<ptr<f32, gmem, align<8>> o (4):(1)>");
    /* registers: CuTe DSL allocates them 32-byte aligned */
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "(1,(4,2),8):(0,(1,4),8)"));
    CHECK_STR(tstr(c, r, 0), "tensor<ptr<f32, rmem, align<32>> o (1,(4,2),8):(0,(1,4),8)>");
    CHECK_STR(tstr(c, cute_tensor_slice(c, r, cute_tuple_parse(a, "(0,_,1)")), 0),
              "tensor<ptr<f32, rmem, align<32>> o ((4,2)):((1,4))>");
    CHECK_STR(tstr(c, cute_tensor_slice(c, r, cute_tuple_parse(a, "(0,1,_)")), 0), "tensor<ptr<f32, rmem> o (8):(8)>");
    /* identity tensors: base coordinate o basis strides */
    cute_tensor id = cute_make_identity_tensor(c, cute_tuple_parse(a, "(4,8)"));
    CHECK_STR(tstr(c, id, 0), "tensor<(0,0) o (4,8):(1@0,1@1)>");
    CHECK_STR(tstr(c, cute_tensor_domain_offset(c, id, cute_tuple_parse(a, "(1,2)")), 0), "tensor<(1,2) o (4,8):(1@0,1@1)>");
    CHECK_STR(tstr(c, cute_tensor_slice(c, id, cute_tuple_parse(a, "(_,3)")), 0), "tensor<(0,3) o (4):(1@0)>");
    /* shared, swizzled: the composed form */
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor sw = cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F16, (cute_swizzle){3, 3, 3},
                                                     cute_layout_parse(a, "(8,64):(64,1)"), 128);
    CHECK_STR(tstr(c, sw, 0), "tensor<ptr<f16, smem, align<16>> o S<3,3,3> o 0 o (8,64):(64,1)>");
    CHECK_STR(tstr(c, cute_tensor_slice(c, sw, cute_tuple_parse(a, "(2,_)")), 0),
              "tensor<ptr<f16, smem, align<16>> o S<3,3,3> o 128 o (64):(1)>");
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* --- CUTE_CRD, CUTE_ALL, CUTE_SLICE -------------------------------------------------------- */

static void test_crd(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    long five = 5;
    unsigned two = 2;
    CHECK_STR(tupstr(CUTE_CRD(CUTE_ALL, CUTE_ALL, 3), 0), "(_,_,3)");
    CHECK_STR(tupstr(CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), five), 0), "((_,_),5)");
    CHECK_STR(tupstr(CUTE_CRD(c, CUTE_ALL, cute_i(2)), 0), "(_,2)"); /* a leading context is ignored */
    CHECK_STR(tupstr(CUTE_CRD(7), 0), "7");
    CHECK_STR(tupstr(CUTE_CRD(CUTE_ALL), 0), "_");
    CHECK_STR(tupstr(CUTE_CRD(two, (long long)-1, cute_tuple_parse(a, "(1,_)")), 0), "(2,-1,(1,_))");
    CHECK_STR(tupstr(CUTE_CRD(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 0), "(1,2,3,4,5,6,7,8,9,10,11,12)");
    cute_tuple big = CUTE_CRD(~0ull, 1);
    CHECK(cute_tuple_is_poison(&big), "a coordinate past INT64_MAX is poison");

    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_int kt = cute_param_int(c, "kt", 1, 0);
    CHECK_STR(tupstr(CUTE_CRD(CUTE_ALL, kt), 0), "(_,?)");
    cute_tensor g = cute_make_tensor(c, p, cute_layout_parse(a, "(8,4,16):(1,8,32)"), 16);
    cute_tensor s1 = CUTE_SLICE(c, g, CUTE_ALL, CUTE_ALL, 3);
    cute_tensor s2 = cute_tensor_slice(c, g, cute_tuple_parse(a, "(_,_,3)"));
    CHECK_STR(laystr(s1.layout, 0), laystr(s2.layout, 1));
    CHECK(cute_is_const(s1.offset, 96) && cute_is_const(s2.offset, 96), "offset 96");
    cute_tensor s3 = CUTE_SLICE(c, g, CUTE_ALL, 1, kt);
    CHECK_STR(laystr(s3.layout, 0), "(8):(1)");
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* --- rmem_tensor_like, recast, domain_offset (trace time) --------------------------------- */

static void test_views(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor g = cute_make_tensor(c, p, cute_layout_parse(a, "(4,8):(8,1)"), 16);
    cute_tensor r1 = cute_make_rmem_tensor_like(c, g);
    cute_tensor r2 = cute_make_rmem_tensor_like(c, g, CUTE_F16);
    CHECK(r1.kind == CUTE_TENSOR_RMEM && r1.dtype == CUTE_F32 && r2.dtype == CUTE_F16, "dtypes %d %d", r1.dtype, r2.dtype);
    CHECK_STR(laystr(r2.layout, 0), "(4,8):(1,4)");
    /* recast: layouts as cute_recast gives them, pointer retyped */
    cute_tensor h = cute_tensor_recast(c, g, CUTE_F16);
    CHECK_STR(tstr(c, h, 0), "tensor<ptr<f16, gmem, align<16>> o (4,16):(16,1)>");
    CHECK(h.base.t.pointee == CUTE_F16, "pointer retyped");
    cute_tensor d = cute_tensor_recast(c, h, CUTE_F64);
    CHECK_STR(tstr(c, d, 0), "tensor<ptr<f64, gmem, align<16>> o (4,4):(4,1)>");
    /* an offset of 3 floats is 6 halves, but not a whole number of doubles */
    cute_tensor g3 = cute_tensor_domain_offset(c, g, cute_tuple_parse(a, "(0,3)"));
    CHECK(cute_is_const(cute_tensor_recast(c, g3, CUTE_F16).offset, 6), "offset rescaled");
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    /* a swizzle's M moves with the element size */
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor sw = cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F32, (cute_swizzle){3, 2, 3},
                                                     cute_layout_parse(a, "(8,32):(32,1)"), 16);
    cute_tensor sw16 = cute_tensor_recast(c, sw, CUTE_F16), sw64 = cute_tensor_recast(c, sw, CUTE_U64);
    CHECK(sw16.sw.M == 3 && sw64.sw.M == 1, "recast swizzle M %d %d", sw16.sw.M, sw64.sw.M);
    /* registers: same width only */
    cute_tensor ri = cute_tensor_recast(c, r1, CUTE_I32);
    CHECK(ri.dtype == CUTE_I32 && ri.regs == r1.regs, "registers reinterpreted in place");
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    cute_tensor_recast(c, r1, CUTE_F16);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), "same width") && strstr(cute_ctx_error(c), "tensor_test.c:"),
          "f32 registers as f16: '%s'", cute_ctx_error(c));
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);

    /* the offset must stay whole */
    c = cute_ctx_new();
    a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    p = cute_param_ptr(c, "p", CUTE_F32);
    g = cute_make_tensor(c, p, cute_layout_parse(a, "(4,8):(8,1)"), 16);
    cute_tensor_recast(c, cute_tensor_domain_offset(c, g, cute_tuple_parse(a, "(0,3)")), CUTE_F64);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), "multiple of 2"), "'%s'", cute_ctx_error(c));
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
    /* the alignment must cover the new element */
    c = cute_ctx_new();
    a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor_recast(c, cute_make_tensor(c, p, cute_layout_parse(a, "8:1"), 4), CUTE_F64);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), "aligned"), "'%s'", cute_ctx_error(c));
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* --- running them ------------------------------------------------------------------------- */

/* x: 32 f32 (4,8):(8,1).  bits[i] = the bits of x[i] through a recast of registers and of the
 * global tensor; shifted[i] = x at domain_offset (1,2) */
static void views_kernel(cute_ctx *c, cute_tensor x, cute_tensor bits, cute_tensor bits2, cute_tensor shifted)
{
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_tensor r = cute_make_rmem_tensor_like(c, x);
        cute_tensor_store(c, r, cute_tensor_load(c, x));
        cute_tensor_store(c, bits, cute_tensor_load(c, cute_tensor_recast(c, r, CUTE_U32)));
        cute_tensor_store(c, bits2, cute_tensor_load(c, cute_tensor_recast(c, x, CUTE_U32)));
        /* and written through the recast registers, read back as floats */
        cute_tensor ru = cute_tensor_recast(c, r, CUTE_U32);
        cute_tensor_store(c, ru, cute_tensor_load(c, bits2));
        cute_tensor off = cute_tensor_domain_offset(c, x, CUTE_CRD(1, 2));
        cute_tiler T = cute_tiler_parse(cute_ctx_alg(c), "(2,3)");
        cute_tensor_store(c, shifted, cute_tensor_load(c, cute_tensor_compose(c, off, &T)));
    }
}

static void views_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, views_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor);
}

static void run_views(cute_runtime *rt, const char *where)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[4] = {cute_spec_tensor(CUTE_F32, "(4,8):(8,1)", 16), cute_spec_tensor(CUTE_U32, "(4,8):(8,1)", 16),
                              cute_spec_tensor(CUTE_U32, "(4,8):(8,1)", 16), cute_spec_tensor(CUTE_F32, "(2,3):(3,1)", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "views", views_host, NULL, 4, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", where, err);
    if (!f) return;
    float x[32], sh[6];
    uint32_t b1[32], b2[32];
    for (int i = 0; i < 32; i++) x[i] = (float)i * 1.25f - 7, b1[i] = b2[i] = 0;
    cute_buffer X, B1, B2, S;
    be->vt->alloc(be->self, sizeof x, &X), be->vt->alloc(be->self, sizeof b1, &B1);
    be->vt->alloc(be->self, sizeof b2, &B2), be->vt->alloc(be->self, sizeof sh, &S);
    be->vt->upload(be->self, &X, 0, x, sizeof x);
    int64_t sh48[2] = {4, 8}, st48[2] = {8, 1}, sh23[2] = {2, 3}, st23[2] = {3, 1};
    cute_call_arg args[4] = {cute_call_tensor(&X, 0, CUTE_F32, 2, sh48, st48), cute_call_tensor(&B1, 0, CUTE_U32, 2, sh48, st48),
                             cute_call_tensor(&B2, 0, CUTE_U32, 2, sh48, st48), cute_call_tensor(&S, 0, CUTE_F32, 2, sh23, st23)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 4, args, cerr, sizeof cerr);
    be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s", where, cerr);
    be->vt->download(be->self, b1, &B1, 0, sizeof b1), be->vt->download(be->self, b2, &B2, 0, sizeof b2);
    be->vt->download(be->self, sh, &S, 0, sizeof sh);
    int bad = 0;
    for (int i = 0; i < 32; i++) {
        uint32_t w;
        memcpy(&w, &x[i], 4);
        bad += b1[i] != w || b2[i] != w;
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) bad += sh[i * 3 + j] != x[(1 + i) * 8 + 2 + j];
    CHECK(bad == 0, "%s: %d recast or offset values wrong", where, bad);
    be->vt->free(be->self, &X), be->vt->free(be->self, &B1), be->vt->free(be->self, &B2), be->vt->free(be->self, &S);
    cute_fn_free(f);
}

/* --- cute_print_tensor -------------------------------------------------------------------- */

static void print_kernel(cute_ctx *c, cute_tensor x3, cute_tensor x2, cute_tensor xi)
{
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_print_tensor(c, x3);
        cute_print_tensor(c, x2);
        cute_print_tensor(c, CUTE_SLICE(c, x2, CUTE_ALL, 0)); /* rank 1 */
        cute_tensor r = cute_make_rmem_tensor_like(c, xi);
        cute_tensor_store(c, r, cute_tensor_load(c, xi));
        cute_print_tensor(c, r);
        cute_print_tensor(c, cute_make_identity_tensor(c, cute_tuple_parse(cute_ctx_alg(c), "(2,(2,2))")));
    }
}

static void print_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, print_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

static const char print_want[] =
    /* CuTe DSL's notebook prints exactly these rows for np.arange(24).reshape(4,3,2) */
    "tensor<ptr<f32, gmem> o (4,3,2):(6,2,1)>\n"
    "       [[[ 0.000000,  2.000000,  4.000000, ],\n"
    "         [ 6.000000,  8.000000,  10.000000, ],\n"
    "         [ 12.000000,  14.000000,  16.000000, ],\n"
    "         [ 18.000000,  20.000000,  22.000000, ]],\n"
    "\n"
    "        [[ 1.000000,  3.000000,  5.000000, ],\n"
    "         [ 7.000000,  9.000000,  11.000000, ],\n"
    "         [ 13.000000,  15.000000,  17.000000, ],\n"
    "         [ 19.000000,  21.000000,  23.000000, ]]]\n"
    "tensor<ptr<f32, gmem, align<16>> o (4,3):(3,1)>\n"
    "       [[ 0.000000,  1.000000,  2.000000, ],\n"
    "        [ 3.000000,  4.000000,  5.000000, ],\n"
    "        [ 6.000000,  7.000000,  8.000000, ],\n"
    "        [ 9.000000,  10.000000,  11.000000, ]]\n"
    "tensor<ptr<f32, gmem, align<16>> o (4):(3)>\n"
    "       [ 0.000000, ],\n"
    "       [ 3.000000, ],\n"
    "       [ 6.000000, ],\n"
    "       [ 9.000000, ]\n"
    "tensor<ptr<i32, rmem, align<32>> o (2,3):(1,2)>\n"
    "       [[ -1,  2,  -3, ],\n"
    "        [ 4,  -5,  6, ]]\n"
    "tensor<(0,(0,0)) o (2,(2,2)):(1@0,(1@0@1,1@1@1))>\n"
    "       [[ (0,(0,0)),  (0,(1,0)),  (0,(0,1)),  (0,(1,1)), ],\n"
    "        [ (1,(0,0)),  (1,(1,0)),  (1,(0,1)),  (1,(1,1)), ]]\n";

static void test_print(void)
{
    printing P;
    if (!printing_begin(&P)) {
        printing_end(&P);
        return;
    }
    cute_backend be = P.be;
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "(4,3,2):(6,2,1)", 4), cute_spec_tensor(CUTE_F32, "(4,3):(3,1)", 16),
                              cute_spec_tensor(CUTE_I32, "(2,3):(3,1)", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(P.rt, "print", print_host, NULL, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (f) {
        float x[24];
        int32_t rm[6] = {-1, 2, -3, 4, -5, 6};
        for (int i = 0; i < 24; i++) x[i] = (float)i;
        cute_buffer X, I;
        be.vt->alloc(be.self, sizeof x, &X), be.vt->alloc(be.self, sizeof rm, &I);
        be.vt->upload(be.self, &X, 0, x, sizeof x), be.vt->upload(be.self, &I, 0, rm, sizeof rm);
        int64_t s3[3] = {4, 3, 2}, d3[3] = {6, 2, 1}, s2[2] = {4, 3}, d2[2] = {3, 1}, si[2] = {2, 3}, di[2] = {3, 1};
        cute_call_arg args[3] = {cute_call_tensor(&X, 0, CUTE_F32, 3, s3, d3), cute_call_tensor(&X, 0, CUTE_F32, 2, s2, d2),
                                 cute_call_tensor(&I, 0, CUTE_I32, 2, si, di)};
        char cerr[1024];
        cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
        CHECK(s == CUTE_OK, "%s", cerr);
        CHECK_STR(printing_text(&P), print_want);
        be.vt->free(be.self, &X), be.vt->free(be.self, &I);
        cute_fn_free(f);
    }
    printing_end(&P);
}

int main(void)
{
    test_type_strings();
    test_crd();
    test_views();
    test_print();
    check_on_backends(run_views, "recast and domain_offset kernels");
    return CHECK_DONE("tensor_test");
}
