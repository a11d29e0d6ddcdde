/* Shared memory: the allocator and structs (offsets by C's rules, checked against values
 * worked out by hand), kernels that write shared tensors and read them back transposed,
 * swizzled tensors against a CPU model of the swizzle (and the vector widths the swizzle
 * allows), a kernel above 48 KB, and every misuse as an error at the user's line.  The
 * kernels run on the interpreter (which checks every shared access and flags reads of
 * bytes never written) and, when there is a GPU, on it too. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "tensor/tensor_internal.h"

static cute_tuple one(void) { return cute_tuple_int(cute_i(1)); }
static cute_tensor at1(cute_ctx *c, cute_tensor t, cute_int i) { return cute_tensor_slice(c, t, cute_tuple_int(i)); }
static cute_tensor at2(cute_ctx *c, cute_tensor t, cute_int i, cute_int j)
{
    return cute_tensor_slice(c, t, cute_tuple_fmt(cute_ctx_alg(c), "(%I,%I)", i, j));
}
static void put(cute_ctx *c, cute_tensor t, cute_val v) { cute_tensor_store(c, t, cute_ssa_scalar(c, v, one())); }
static cute_val get(cute_ctx *c, cute_tensor t) { return cute_ssa_get(c, cute_tensor_load(c, t), 0); }

/* --- running a compiled function on buffers --------------------------------------------- */

typedef struct buf {
    cute_buffer b;
    size_t bytes;
} buf;

static buf upload(cute_backend *be, const void *data, size_t bytes)
{
    buf x = {{0}, bytes};
    be->vt->alloc(be->self, bytes, &x.b);
    be->vt->upload(be->self, &x.b, 0, data, bytes);
    return x;
}

static cute_call_arg vec_arg(buf *x, cute_dtype d, int64_t n)
{
    int64_t shape[1] = {n}, stride[1] = {1};
    return cute_call_tensor(&x->b, 0, d, 1, shape, stride);
}

/* --- 1. two tensors and a struct; write, barrier, read back transposed ------------------ */

enum { T1_BYTES = 800 }; /* sA 256 @0, sB 256 @256, Storage 288 @512 */

static void transpose_kernel(cute_ctx *c, cute_tensor x, cute_tensor y, cute_tensor z)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int t = cute_thread_idx(c, 0);
    cute_int r = cute_mod(a, t, cute_i(8)), q = cute_div(a, t, cute_i(8));
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor sA = cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_parse(a, "(8,8):(1,8)"), 16);
    cute_tensor sB = cute_smem_alloc_tensor(c, &A, CUTE_I32, cute_layout_parse(a, "(8,8):(8,1)"), 4);
    cute_smem_struct S;
    cute_smem_struct_init(&S, "Storage");
    int scale = cute_smem_struct_scalar(c, &S, "scale", CUTE_F32);
    cute_smem_struct_barriers(c, &S, "bars", 2);
    int part = cute_smem_struct_array(c, &S, "part", CUTE_F32, 64, 16);
    cute_smem_storage st = cute_smem_struct_alloc(c, &A, &S);

    cute_val v = get(c, at1(c, x, t));
    put(c, at2(c, sA, r, q), v);
    put(c, at2(c, sB, r, q), cute_int_value(c, t, CUTE_I32));
    put(c, at1(c, cute_smem_field_tensor(c, st, part), t),
        cute_val_binop(c, CUTE_OP_MUL, v, cute_val_const(c, CUTE_F32, 3)));
    CUTE_IF(c, cute_int_eq(c, t, cute_i(0))) { put(c, cute_smem_field_tensor(c, st, scale), cute_val_const(c, CUTE_F32, 2)); }
    cute_barrier(c);
    cute_val s = get(c, cute_smem_field_tensor(c, st, scale));
    cute_val p = get(c, at1(c, cute_smem_field_tensor(c, st, part), cute_sub(a, cute_i(63), t)));
    put(c, at1(c, y, t), cute_val_fma(c, get(c, at2(c, sA, q, r)), s, p));
    put(c, at1(c, z, t), get(c, at2(c, sB, q, r)));
}

static void transpose_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(64)}};
    CUTE_LAUNCH(c, transpose_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

static void run_transpose(cute_runtime *rt, const char *where)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "64:1", 4), cute_spec_tensor(CUTE_F32, "64:1", 4),
                              cute_spec_tensor(CUTE_I32, "64:1", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "transpose", transpose_host, NULL, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", where, err);
    if (!f) return;
    CHECK(cute_fn_kernel(f, 0)->smem_bytes == T1_BYTES, "%s: the kernel uses %lld bytes, want %d", where,
          (long long)cute_fn_kernel(f, 0)->smem_bytes, T1_BYTES);
    float x[64], y[64];
    int32_t z[64];
    for (int i = 0; i < 64; i++) x[i] = (float)(i * 7 % 19) - 5, y[i] = -1, z[i] = -1;
    buf X = upload(be, x, sizeof x), Y = upload(be, y, sizeof y), Z = upload(be, z, sizeof z);
    cute_call_arg args[3] = {vec_arg(&X, CUTE_F32, 64), vec_arg(&Y, CUTE_F32, 64), vec_arg(&Z, CUTE_I32, 64)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
    be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s", where, cerr);
    be->vt->download(be->self, y, &Y.b, 0, sizeof y);
    be->vt->download(be->self, z, &Z.b, 0, sizeof z);
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        int src = (t % 8) * 8 + t / 8;
        bad += y[t] != x[src] * 2 + 3 * x[63 - t] || z[t] != src;
    }
    CHECK(bad == 0, "%s: %d of 64 transposed values wrong", where, bad);
    be->vt->free(be->self, &X.b), be->vt->free(be->self, &Y.b), be->vt->free(be->self, &Z.b);
    cute_fn_free(f);
}

/* --- 2. swizzled tensors against a CPU model ----------------------------------------------- */

typedef struct sw_case {
    cute_swizzle sw;
    int lanes; /* the widest shared store a 4-element row chunk may take */
} sw_case;

static void swizzle_kernel(cute_ctx *c, cute_tensor x, cute_tensor raw_out, cute_tensor rt_out)
{
    cute_alg *a = cute_ctx_alg(c);
    const sw_case *k = cute_ctx_user(c);
    cute_int t = cute_thread_idx(c, 0);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor sT = cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F32, k->sw, cute_layout_parse(a, "(16,32):(32,1)"), 16);
    cute_tensor raw = cute_make_tensor(c, sT.base, cute_layout_parse(a, "512:1"), sT.align);
    /* each thread moves one 1x4 row chunk: gmem -> swizzled smem */
    cute_tiler row4 = cute_tiler_parse(a, "(1,4)");
    cute_tuple mine = cute_tuple_fmt(a, "(_,(%I,%I))", cute_div(a, t, cute_i(8)), cute_mod(a, t, cute_i(8)));
    cute_ssa v = cute_tensor_load(c, cute_tensor_slice(c, cute_tensor_zipped_divide(c, x, &row4), mine));
    cute_tensor_store(c, cute_tensor_slice(c, cute_tensor_zipped_divide(c, sT, &row4), mine), v);
    cute_barrier(c);
    /* the bytes as they lie, 4 per thread */
    cute_tiler lin4 = cute_tiler_parse(a, "4:1");
    cute_tuple mine1 = cute_tuple_fmt(a, "(_,%I)", t);
    cute_tensor_store(c, cute_tensor_slice(c, cute_tensor_zipped_divide(c, raw_out, &lin4), mine1),
                      cute_tensor_load(c, cute_tensor_slice(c, cute_tensor_zipped_divide(c, raw, &lin4), mine1)));
    /* and back through the swizzle, down columns this time */
    cute_tiler col4 = cute_tiler_parse(a, "(4,1)");
    cute_tuple col = cute_tuple_fmt(a, "(_,(%I,%I))", cute_div(a, t, cute_i(32)), cute_mod(a, t, cute_i(32)));
    cute_tensor_store(c, cute_tensor_slice(c, cute_tensor_zipped_divide(c, rt_out, &col4), col),
                      cute_tensor_load(c, cute_tensor_slice(c, cute_tensor_zipped_divide(c, sT, &col4), col)));
}

static void swizzle_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(128)}};
    CUTE_LAUNCH(c, swizzle_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

/* the widest vector (lanes) among a kernel's shared stores */
static int widest_smem_store(const cute_ir_func *f, const cute_ir_block *blk)
{
    int w = 0;
    for (uint32_t i = 0; i < blk->n; i++) {
        const cute_ir_inst *in = &blk->inst[i];
        if (in->op == CUTE_OP_STORE && cute_ir_type(f, in->a[0]).space == CUTE_SMEM && in->type.lanes > w)
            w = in->type.lanes;
        for (int b = 0; b < 2; b++)
            if (in->body[b]) {
                int u = widest_smem_store(f, in->body[b]);
                w = u > w ? u : w;
            }
    }
    return w;
}

static void run_swizzle(cute_runtime *rt, const char *where, sw_case k)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "(16,32):(32,1)", 16), cute_spec_tensor(CUTE_F32, "512:1", 16),
                              cute_spec_tensor(CUTE_F32, "(16,32):(32,1)", 16)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "swizzle", swizzle_host, &k, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", where, err);
    if (!f) return;
    int lanes = widest_smem_store(cute_fn_kernel(f, 0), &cute_fn_kernel(f, 0)->body);
    CHECK(lanes == k.lanes, "%s: Sw<%d,%d,%d>: shared stores of %d lanes, want %d", where, k.sw.B, k.sw.M,
          k.sw.S, lanes, k.lanes);
    float x[512], raw[512], back[512];
    for (int i = 0; i < 512; i++) x[i] = (float)i + 0.5f, raw[i] = back[i] = -1;
    buf X = upload(be, x, sizeof x), R = upload(be, raw, sizeof raw), B = upload(be, back, sizeof back);
    cute_call_arg args[3] = {vec_arg(&X, CUTE_F32, 512), vec_arg(&R, CUTE_F32, 512), vec_arg(&B, CUTE_F32, 512)};
    int64_t shape[2] = {16, 32}, stride[2] = {32, 1};
    args[0] = cute_call_tensor(&X.b, 0, CUTE_F32, 2, shape, stride);
    args[2] = cute_call_tensor(&B.b, 0, CUTE_F32, 2, shape, stride);
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
    be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s", where, cerr);
    be->vt->download(be->self, raw, &R.b, 0, sizeof raw);
    be->vt->download(be->self, back, &B.b, 0, sizeof back);
    int bad_raw = 0, bad_back = 0;
    for (int i = 0; i < 512; i++) {
        bad_raw += raw[cute_swizzle_apply(k.sw, i)] != x[i]; /* element i lies at sw(i) */
        bad_back += back[i] != x[i];
    }
    CHECK(bad_raw == 0 && bad_back == 0, "%s: Sw<%d,%d,%d>: %d elements misplaced, %d wrong read back",
          where, k.sw.B, k.sw.M, k.sw.S, bad_raw, bad_back);
    be->vt->free(be->self, &X.b), be->vt->free(be->self, &R.b), be->vt->free(be->self, &B.b);
    cute_fn_free(f);
}

static const sw_case sw_cases[] = {
    {{3, 2, 3}, 4},  /* 2^M = 4 elements: 16-byte vectors survive */
    {{2, 1, 3}, 2},  /* 2^M = 2: pairs only */
    {{3, 0, 3}, 1},  /* M = 0: every element moves on its own */
    {{2, 2, -3}, 4}, /* S < 0: the field at M moves up */
    {{0, 0, 0}, 4},  /* no swizzle */
};

/* --- 3. a kernel above 48 KB; and one above what the device allows ----------------------- */

enum { BIG = 25600 }; /* f32: 102400 bytes */

static void big_kernel(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int t = cute_thread_idx(c, 0);
    int64_t n = *(const int64_t *)cute_ctx_user(c);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor s = cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_fmt(a, "%lld:1", (long long)n), 16);
    CUTE_FOR(c, k, cute_i(0), cute_i(n / 256))
    {
        cute_int i = cute_add(a, cute_mul(a, k, cute_i(256)), t);
        put(c, at1(c, s, i), get(c, at1(c, x, i)));
    }
    cute_barrier(c);
    CUTE_FOR(c, k, cute_i(0), cute_i(n / 256))
    {
        cute_int i = cute_add(a, cute_mul(a, k, cute_i(256)), t);
        put(c, at1(c, y, i), get(c, at1(c, s, cute_sub(a, cute_i(n - 1), i))));
    }
}

static void big_host(cute_ctx *c, const cute_arg *arg)
{
    /* the host asks for 1 KB; the kernel's 100 KB wins */
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(256)}, .smem_bytes = cute_i(1024)};
    CUTE_LAUNCH(c, big_kernel, cfg, arg[0].tensor, arg[1].tensor);
}

/* returns the call's status; *bad: wrong elements */
static cute_status run_big(cute_runtime *rt, int64_t n, int *bad, char *err, size_t errn)
{
    cute_backend *be = cute_runtime_backend(rt);
    char lay[32];
    snprintf(lay, sizeof lay, "%lld:1", (long long)n);
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, lay, 16), cute_spec_tensor(CUTE_F32, lay, 16)};
    const cute_fn *f = cute_compile(rt, "big", big_host, &n, 2, specs, err, errn);
    if (!f) return CUTE_ERR_INVALID;
    CHECK(cute_fn_kernel(f, 0)->smem_bytes == n * 4, "the kernel uses %lld bytes",
          (long long)cute_fn_kernel(f, 0)->smem_bytes);
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 1000), y[i] = -1;
    buf X = upload(be, x, (size_t)n * 4), Y = upload(be, y, (size_t)n * 4);
    cute_call_arg args[2] = {vec_arg(&X, CUTE_F32, n), vec_arg(&Y, CUTE_F32, n)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 2, args, cerr, sizeof cerr);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    snprintf(err, errn, "%s", cerr);
    be->vt->download(be->self, y, &Y.b, 0, (size_t)n * 4);
    *bad = 0;
    for (int64_t i = 0; i < n; i++) *bad += y[i] != x[n - 1 - i];
    be->vt->free(be->self, &X.b), be->vt->free(be->self, &Y.b);
    free(x), free(y);
    cute_fn_free(f);
    return s;
}

static void run_big_ok(cute_runtime *rt, const char *where)
{
    char err[1024];
    int bad = -1;
    cute_status s = run_big(rt, BIG, &bad, err, sizeof err);
    CHECK(s == CUTE_OK && bad == 0, "%s: 100 KB of shared memory: status %d, %d wrong: %s", where, s, bad, err);
}

/* --- 4. struct layouts, worked out by hand -------------------------------------------------- */

static void test_struct_layout(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_smem_struct S;
    cute_smem_struct_init(&S, "S");
    int f_u8 = cute_smem_struct_scalar(c, &S, "flag", CUTE_U8);
    int f_f64 = cute_smem_struct_scalar(c, &S, "acc", CUTE_F64);
    int f_bar = cute_smem_struct_barriers(c, &S, "full", 3);
    int f_h = cute_smem_struct_array(c, &S, "h", CUTE_F16, 5, 0);
    int f_t = cute_smem_struct_tensor(c, &S, "tile", CUTE_F32, cute_layout_parse(a, "(4,8):(8,1)"), 128, CUTE_SW_NONE);
    int f_i8 = cute_smem_struct_scalar(c, &S, "tail", CUTE_I8);
    int f_sw = cute_smem_struct_tensor(c, &S, "swz", CUTE_F16, cute_layout_parse(a, "(8,8):(8,1)"), 16, (cute_swizzle){3, 3, 3});
    int f_sw2 = cute_smem_struct_tensor(c, &S, "swz2", CUTE_F16, cute_layout_parse(a, "(8,8):(8,1)"), 16, (cute_swizzle){3, 4, 3});
    int f_sw3 = cute_smem_struct_tensor(c, &S, "swz3", CUTE_F16, cute_layout_parse(a, "(8,8):(8,1)"), 16, (cute_swizzle){1, 0, -6});
    int f_sw4 = cute_smem_struct_tensor(c, &S, "swz4", CUTE_F32, cute_layout_parse(a, "(3,4):(4,1)"), 4, (cute_swizzle){1, 2, 1});
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    struct { int field; int64_t offset, bytes; int align; } want[] = {
        {f_u8, 0, 1, 1},     {f_f64, 8, 8, 8},     {f_bar, 16, 24, 8}, {f_h, 40, 10, 2},
        {f_t, 128, 128, 128}, {f_i8, 256, 1, 1},    /* 8x8 halves under Sw<3,3,3>: 64 elements */
        {f_sw, 272, 128, 16}, /* Sw<3,4,3> keeps [0,64) in place: no room to add */
        {f_sw2, 400, 128, 16},
        {f_sw3, 528, 256, 16}, /* Sw<1,0,-6> moves odd x up by 64: [0,64) reaches 127 */
        {f_sw4, 784, 64, 4},   /* Sw<1,2,1> over [0,12): 8..11 move to 12..15 */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const cute_smem_field *f = want[i].field >= 0 ? &S.field[want[i].field] : NULL;
        CHECK(f && f->offset == want[i].offset && f->bytes == want[i].bytes && f->align == want[i].align,
              "field %zu (%s): offset %lld bytes %lld align %d, want %lld %lld %d", i, f ? f->name : "?",
              f ? (long long)f->offset : -1, f ? (long long)f->bytes : -1, f ? f->align : -1,
              (long long)want[i].offset, (long long)want[i].bytes, want[i].align);
    }
    CHECK(S.size == 896 && S.align == 128, "sizeof %lld (want 896), align %d (want 128)", (long long)S.size, S.align);
    CHECK(cute_smem_struct_find(&S, "tail") == f_i8 && cute_smem_struct_find(&S, "nope") == -1, "find by name");
    /* an empty struct has size 0, align 1, like a C struct with no members would */
    cute_smem_struct E;
    cute_smem_struct_init(&E, "E");
    CHECK(E.size == 0 && E.align == 1 && E.nfields == 0, "empty struct");
    /* accessors inside a kernel: the struct placed after a 100-byte allocation lands at 128 */
    cute_kernel_begin(c, "k");
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_bytes(c, &A, 100, 1);
    cute_smem_storage st = cute_smem_struct_alloc(c, &A, &S);
    cute_tensor tile = cute_smem_field_tensor(c, st, f_t), swz = cute_smem_field_tensor(c, st, f_sw);
    cute_tensor h = cute_smem_field_tensor(c, st, f_h);
    cute_val bars = cute_smem_field_ptr(c, st, f_bar);
    char s1[256], s2[256], s3[256];
    cute_tensor_str(c, tile, s1, sizeof s1), cute_tensor_str(c, swz, s2, sizeof s2), cute_tensor_str(c, h, s3, sizeof s3);
    CHECK(st.offset == 128, "the struct at %lld, want 128", (long long)st.offset);
    CHECK_STR(s1, "tensor<ptr<f32, smem, align<16>> o (4,8):(8,1)>");
    CHECK_STR(s2, "tensor<ptr<f16, smem, align<16>> o S<3,3,3> o 0 o (8,8):(8,1)>");
    CHECK_STR(s3, "tensor<ptr<f16, smem, align<8>> o 5:1>"); /* 128 + 40 = 168: 8-aligned */
    CHECK(bars.t.dtype == CUTE_PTR && bars.t.pointee == CUTE_U64 && bars.t.space == CUTE_SMEM, "barrier pointer type");
    CHECK(A.first == 0 && A.bytes == 128 + 896, "allocator: first %lld bytes %lld", (long long)A.first, (long long)A.bytes);
    cute_ir_func *k = cute_kernel_end(c);
    CHECK(k && k->smem_bytes == 128 + 896, "kernel total %lld", k ? (long long)k->smem_bytes : -1);
    cute_ir_func_free(k);
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    cute_ctx_free(c);
}

/* an overlay starts at its base's first allocation; the kernel's total grows only where the
 * overlay outgrows what lies under it */
static void test_overlay(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_bytes(c, &A, 100, 1);
    cute_val p1 = cute_smem_alloc_bytes(c, &A, 1000, 128); /* at 128 */
    cute_smem_allocator O = cute_smem_allocator_overlay(c, &A);
    cute_smem_alloc_bytes(c, &O, 600, 16);
    CHECK(O.first == 0 && O.bytes == 600, "overlay: first %lld bytes %lld", (long long)O.first, (long long)O.bytes);
    cute_smem_alloc_bytes(c, &O, 900, 1024); /* at 1024 .. 1924: past A's 1128 */
    CHECK(O.first == 0 && O.bytes == 1924, "overlay grown: bytes %lld", (long long)O.bytes);
    cute_val p3 = cute_smem_alloc_bytes(c, &A, 8, 8); /* A goes on after the pool's end: 1928 */
    cute_ir_func *k = cute_kernel_end(c);
    CHECK(p1.r && p3.r && k && k->smem_bytes == 1936, "kernel total %lld (want 1936)", k ? (long long)k->smem_bytes : -1);
    cute_ir_func_free(k);
    CHECK(!cute_ctx_failed(c), "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_smem_allocator E = cute_smem_allocator_new(c);
    cute_smem_allocator_overlay(c, &E);
    CHECK(cute_ctx_failed(c) && strstr(cute_ctx_error(c), "must have allocated"), "overlay of an empty allocator: %s", cute_ctx_error(c));
    cute_ir_func_free(cute_kernel_end(c));
    cute_ctx_free(c);
}

/* the atoms' chunk access (a run proven contiguous before the swizzle) splits into the
 * pieces the swizzle keeps whole */
static void test_chunk_split(void)
{
    int want[3] = {4, 2, 1};
    cute_swizzle sws[3] = {{3, 2, 3}, {2, 1, 3}, {3, 0, 3}};
    for (int k = 0; k < 3; k++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        cute_smem_allocator A = cute_smem_allocator_new(c);
        cute_tensor s = cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F32, sws[k], cute_layout_parse(cute_ctx_alg(c), "64:1"), 16);
        cute_vreg regs[8]; /* indexed by element: the chunk is elements 4..7 */
        for (int i = 0; i < 8; i++) regs[i] = cute_val_const(c, CUTE_F32, i).r;
        tensor_access_chunk(c, &s, 4, 4, false, regs, false);
        cute_ir_func *f = cute_kernel_end(c);
        int lanes = f ? widest_smem_store(f, &f->body) : -1;
        CHECK(f != NULL, "%s", cute_ctx_error(c));
        CHECK(lanes == want[k], "Sw<%d,%d,%d>: a 4-element chunk stored %d at a time, want %d", sws[k].B, sws[k].M,
              sws[k].S, lanes, want[k]);
        cute_ir_func_free(f);
        cute_ctx_free(c);
    }
}

/* --- 5. misuse: a clear error at the user's line -------------------------------------------- */

typedef void (*misuse_fn)(cute_ctx *c);
static void bad_align(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "8:1"), 24);
}
static void bad_align_bytes(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_bytes(c, &A, 64, 0);
}
static void bad_dynamic(cute_ctx *c)
{
    cute_int n = cute_param_int(c, "n", 8, 1);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_fmt(cute_ctx_alg(c), "(8,%I):(1,8)", n), 16);
}
static void bad_too_big(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "(256,300):(1,256)"), 16);
}
static void bad_in_loop(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    CUTE_FOR(c, i, cute_i(0), cute_i(4)) { (void)i, cute_smem_alloc_bytes(c, &A, 16, 16); }
}
static void bad_other_kernel(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_ir_func_free(cute_kernel_end(c));
    cute_kernel_begin(c, "k2");
    cute_smem_alloc_bytes(c, &A, 16, 16);
}
static void bad_swizzle(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F32, (cute_swizzle){3, 2, 1}, cute_layout_parse(cute_ctx_alg(c), "64:1"), 16);
}
static void bad_field(cute_ctx *c)
{
    cute_smem_struct S;
    cute_smem_struct_init(&S, "S");
    cute_smem_struct_scalar(c, &S, "a", CUTE_F32);
    cute_smem_struct_array(c, &S, "a", CUTE_F32, 4, 0);
}
static void bad_negative(cute_ctx *c)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "(4,4):(1,-4)"), 16);
}

static void test_misuse(void)
{
    struct { const char *what, *needle; misuse_fn fn; } cases[] = {
        {"alignment 24", "power of two", bad_align},
        {"alignment 0", "power of two", bad_align_bytes},
        {"dynamic layout", "static layout", bad_dynamic},
        {"256 KB", "more shared memory than any GPU", bad_too_big},
        {"inside a loop", "top level", bad_in_loop},
        {"another kernel's allocator", "not made in this kernel", bad_other_kernel},
        {"swizzle |S| < B", "not valid", bad_swizzle},
        {"a field twice", "has a field a", bad_field},
        {"negative stride", "non-negative", bad_negative},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "k");
        cases[i].fn(c);
        cute_ir_func *k = cute_kernel_end(c);
        const char *e = cute_ctx_error(c);
        CHECK(!k && cute_ctx_failed(c) && strstr(e, cases[i].needle) && strstr(e, "smem_test.c:"),
              "%s: '%s'", cases[i].what, e);
        cute_ir_func_free(k);
        cute_ctx_free(c);
    }
}

/* --- main ----------------------------------------------------------------------------------- */

static void run_all(cute_runtime *rt, const char *where)
{
    run_transpose(rt, where);
    for (size_t i = 0; i < sizeof sw_cases / sizeof *sw_cases; i++) run_swizzle(rt, where, sw_cases[i]);
    run_big_ok(rt, where);
}

int main(void)
{
    test_struct_layout();
    test_misuse();
    test_chunk_split();
    test_overlay();
    char err[1024];
    cute_backend ib;
    cute_interp_opts o = {.threads = 2};
    if (cute_interp_new(&o, &ib) == CUTE_OK) {
        cute_runtime *rt = cute_runtime_wrap(ib);
        run_all(rt, "interp");
        cute_runtime_free(rt);
    } else {
        CHECK(false, "no interpreter");
    }
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        run_all(rt, "cuda");
        /* 240 KB: under the trace-time ceiling, over the H200's 227 KB: refused at the call */
        int bad;
        cute_status s = run_big(rt, 61440, &bad, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && strstr(err, "allows"), "240 KB on the GPU: status %d: %s", s, err);
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: shared-memory kernels (and the 100 KB opt-in) ran on the interpreter only");
    }
    return CHECK_DONE("smem_test");
}
