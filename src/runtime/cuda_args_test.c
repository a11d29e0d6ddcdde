/* Launch-argument packing (cuda_args.h), no GPU: every parameter type lands in its slot in
 * its width, f16/bf16 round to nearest even, and each kind of wrong argument is refused
 * with a message naming it. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "runtime/cuda_args.h"

static void test_narrow(void)
{
    static const struct {
        double x;
        uint16_t f16, bf16;
    } v[] = {
        {0.0, 0x0000, 0x0000},
        {-0.0, 0x8000, 0x8000},
        {1.0, 0x3c00, 0x3f80},
        {-2.0, 0xc000, 0xc000},
        {0.1, 0x2e66, 0x3dcd},
        {3.0, 0x4200, 0x4040},
        {65504.0, 0x7bff, 0x4780},
        {65520.0, 0x7c00, 0x4780},                /* f16: halfway to the next binade: inf */
        {6.103515625e-05, 0x0400, 0x3880},        /* the smallest normal f16 */
        {5.960464477539063e-08, 0x0001, 0x3380},  /* the smallest subnormal f16 */
        {2.9802322387695312e-08, 0x0000, 0x3300}, /* half of it: ties to even, 0 */
        {4.470348358154297e-08, 0x0001, 0x3340},  /* 1.5 of half: rounds up to 1 ulp */
        {1.0009765625, 0x3c01, 0x3f80},           /* 1 + 2^-10 */
        {1.00048828125, 0x3c00, 0x3f80},          /* 1 + 2^-11: a tie, to even */
        {1.00146484375, 0x3c02, 0x3f80},          /* 1 + 3*2^-11: a tie, to even (up) */
        {1.00390625, 0x3c04, 0x3f80},             /* 1 + 2^-8: bf16's tie, to even */
        {1.01171875, 0x3c0c, 0x3f82},             /* 1 + 3*2^-8: bf16's tie, up */
        {3.4028234663852886e38, 0x7c00, 0x7f80},  /* FLT_MAX: bf16 rounds up to inf */
        {1e300, 0x7c00, 0x7f80},
        {1e-300, 0x0000, 0x0000},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        CHECK(cute_f16_bits(v[i].x) == v[i].f16, "f16(%g) = %04x, want %04x", v[i].x,
              cute_f16_bits(v[i].x), v[i].f16);
        CHECK(cute_bf16_bits(v[i].x) == v[i].bf16, "bf16(%g) = %04x, want %04x", v[i].x,
              cute_bf16_bits(v[i].x), v[i].bf16);
    }
    CHECK(cute_f16_bits(INFINITY) == 0x7c00 && cute_f16_bits(-INFINITY) == 0xfc00, "f16 inf");
    CHECK((cute_f16_bits(NAN) & 0x7e00) == 0x7e00, "f16 NaN is quiet: %04x", cute_f16_bits(NAN));
    CHECK((cute_bf16_bits(NAN) & 0x7fc0) == 0x7fc0, "bf16 NaN: %04x", cute_bf16_bits(NAN));
}

static cute_launch_arg iarg(cute_dtype d, int64_t v)
{
    cute_launch_arg a = {.type = cute_type_of(d)};
    a.v.i = v;
    return a;
}

static cute_launch_arg farg(cute_dtype d, double v)
{
    cute_launch_arg a = {.type = cute_type_of(d)};
    a.v.f = v;
    return a;
}

static void test_pack(void)
{
    cute_buffer buf = {.ptr = (void *)(uintptr_t)0x7f0000001000ull, .bytes = 4096, .id = 7};
    cute_type params[] = {
        cute_type_ptr(CUTE_F32, CUTE_GMEM),
        cute_type_of(CUTE_I1),
        cute_type_of(CUTE_I8),
        cute_type_of(CUTE_U16),
        cute_type_of(CUTE_I32),
        cute_type_of(CUTE_U32),
        cute_type_of(CUTE_I64),
        cute_type_of(CUTE_U64),
        cute_type_of(CUTE_F16),
        cute_type_of(CUTE_BF16),
        cute_type_of(CUTE_F32),
        cute_type_of(CUTE_F64),
    };
    enum { N = sizeof params / sizeof params[0] };
    cute_launch_arg args[N] = {
        {.type = params[0], .buf = &buf, .offset = 256},
        iarg(CUTE_I1, 1),
        iarg(CUTE_I8, -5),
        iarg(CUTE_U16, 65535),
        iarg(CUTE_I32, -123456),
        iarg(CUTE_U32, 4000000000ll),
        iarg(CUTE_I64, -(1ll << 40)),
        iarg(CUTE_U64, -1), /* 2^64 - 1 arrives as -1 */
        farg(CUTE_F16, 1.0),
        farg(CUTE_BF16, -2.0),
        farg(CUTE_F32, 0.5),
        farg(CUTE_F64, 0.1),
    };
    uint64_t slots[N];
    void *ptrs[N];
    char err[256] = "";
    memset(slots, 0xAB, sizeof slots);
    CHECK(cuda_pack_args(params, N, args, N, slots, ptrs, err, sizeof err) == CUTE_OK, "%s", err);
    for (int i = 0; i < N; i++) CHECK(ptrs[i] == &slots[i], "ptrs[%d] points at its slot", i);
    uint64_t p;
    memcpy(&p, ptrs[0], 8);
    CHECK(p == 0x7f0000001100ull, "pointer + offset: %llx", (unsigned long long)p);
    CHECK(*(uint8_t *)ptrs[1] == 1, "bool");
    CHECK(*(int8_t *)ptrs[2] == -5, "i8");
    CHECK(*(uint16_t *)ptrs[3] == 65535, "u16");
    CHECK(*(int32_t *)ptrs[4] == -123456, "i32");
    CHECK(*(uint32_t *)ptrs[5] == 4000000000u, "u32");
    CHECK(*(int64_t *)ptrs[6] == -(1ll << 40), "i64");
    CHECK(*(uint64_t *)ptrs[7] == UINT64_MAX, "u64");
    CHECK(*(uint16_t *)ptrs[8] == 0x3c00, "f16");
    CHECK(*(uint16_t *)ptrs[9] == 0xc000, "bf16");
    CHECK(*(float *)ptrs[10] == 0.5f, "f32");
    CHECK(*(double *)ptrs[11] == 0.1, "f64");
    /* the bytes past a narrow value are zero, not the slot's old contents */
    CHECK(slots[2] == (uint8_t)-5 && slots[4] == (uint32_t)-123456, "narrow slots zero-filled");

    /* an offset at the very end is a valid (one-past-the-end) pointer */
    args[0].offset = 4096;
    CHECK(cuda_pack_args(params, N, args, N, slots, ptrs, err, sizeof err) == CUTE_OK, "end");
}

/* one parameter, one argument: the packing must fail with a message containing want */
static void refused(cute_type param, cute_launch_arg arg, const char *want)
{
    uint64_t slot;
    void *ptr;
    char err[256] = "";
    cute_status s = cuda_pack_args(&param, 1, &arg, 1, &slot, &ptr, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, want), "want \"%s\", got %d \"%s\"", want, s, err);
}

static void test_refused(void)
{
    cute_buffer buf = {.ptr = (void *)(uintptr_t)0x1000, .bytes = 64, .id = 3};
    cute_type pf32 = cute_type_ptr(CUTE_F32, CUTE_GMEM);
    refused(pf32, (cute_launch_arg){.type = pf32, .buf = &buf, .offset = 65}, "past the end");
    refused(pf32, (cute_launch_arg){.type = pf32}, "no buffer");
    refused(pf32, iarg(CUTE_I64, 0), "the kernel takes ptr<f32,gmem>, the launch gave i64");
    cute_type pf16 = cute_type_ptr(CUTE_F16, CUTE_GMEM);
    refused(pf32, (cute_launch_arg){.type = pf16, .buf = &buf}, "launch gave ptr<f16,gmem>");
    cute_type smem = cute_type_ptr(CUTE_F32, CUTE_SMEM);
    refused(smem, (cute_launch_arg){.type = smem, .buf = &buf}, "shared-memory pointer");
    refused(cute_type_of(CUTE_I32), iarg(CUTE_I32, 1ll << 31), "does not fit");
    refused(cute_type_of(CUTE_I32), iarg(CUTE_I32, -(1ll << 31) - 1), "does not fit");
    refused(cute_type_of(CUTE_U8), iarg(CUTE_U8, -1), "does not fit");
    refused(cute_type_of(CUTE_U32), iarg(CUTE_U32, 1ll << 32), "does not fit");
    refused(cute_type_of(CUTE_I1), iarg(CUTE_I1, 2), "does not fit");
    cute_type v4 = cute_type_vec(CUTE_F32, 4);
    refused(v4, (cute_launch_arg){.type = v4}, "vector");
    refused(cute_type_of(CUTE_VOID), (cute_launch_arg){.type = cute_type_of(CUTE_VOID)},
            "cannot be a kernel parameter");

    cute_type two[2] = {cute_type_of(CUTE_I32), cute_type_of(CUTE_I32)};
    cute_launch_arg one = iarg(CUTE_I32, 1);
    uint64_t slots[2];
    void *ptrs[2];
    char err[256];
    CHECK(cuda_pack_args(two, 2, &one, 1, slots, ptrs, err, sizeof err) == CUTE_ERR_INVALID &&
              strstr(err, "takes 2 arguments, the launch gave 1"),
          "count: %s", err);
}

int main(void)
{
    test_narrow();
    test_pack();
    test_refused();
    return CHECK_DONE("cuda_args_test");
}
