/* Element types: every name parses back to its type, the narrow floats' other spellings
 * (PTX's, CuTe DSL's class names), their widths, which conversions exist, and that the
 * verifier keeps arithmetic off the narrow floats while letting them move and convert. */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "cutec/ir.h"

static void names(void)
{
    int bad = 0;
    for (int d = 1; d < CUTE_PTR; d++) {
        cute_dtype back = CUTE_VOID;
        bad += !cute_dtype_parse(cute_dtype_name((cute_dtype)d), &back) || back != (cute_dtype)d;
    }
    CHECK(bad == 0, "%d dtype names do not parse back", bad);
    static const struct { const char *name; cute_dtype d; int bits; } want[] = {
        {"tf32", CUTE_TF32, 32},          {"f8E4M3FN", CUTE_E4M3, 8}, {"f8E5M2", CUTE_E5M2, 8},
        {"f4E2M1FN", CUTE_E2M1, 4},       {"f8E8M0FNU", CUTE_UE8M0, 8}, {"ue4m3", CUTE_UE4M3, 8},
        {"e4m3", CUTE_E4M3, 8},           {"e5m2", CUTE_E5M2, 8},     {"e2m1", CUTE_E2M1, 4},
        {"ue8m0", CUTE_UE8M0, 8},         {"Float8E4M3FN", CUTE_E4M3, 8},
        {"Float8E5M2", CUTE_E5M2, 8},     {"Float4E2M1FN", CUTE_E2M1, 4},
        {"Float8E8M0FNU", CUTE_UE8M0, 8}, {"TFloat32", CUTE_TF32, 32}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        cute_dtype d = CUTE_VOID;
        CHECK(cute_dtype_parse(want[i].name, &d) && d == want[i].d, "%s parses", want[i].name);
        CHECK(cute_dtype_bits(d) == want[i].bits, "%s: %d bits", want[i].name, cute_dtype_bits(d));
        CHECK(cute_dtype_is_narrow_float(d) && !cute_dtype_is_float(d) && !cute_dtype_is_int(d),
              "%s is a narrow float only", want[i].name);
    }
    cute_dtype d;
    CHECK(!cute_dtype_parse("e4m3fn", &d) && !cute_dtype_parse("ptr", &d), "unknown names");
    CHECK_STR(cute_dtype_name(CUTE_E4M3), "f8E4M3FN");
    char buf[32];
    cute_type_str(cute_type_ptr(CUTE_E2M1, CUTE_GMEM), buf, sizeof buf);
    CHECK_STR(buf, "ptr<f4E2M1FN,gmem>");
}

static void conversions(void)
{
    CHECK(cute_cvt_supported(CUTE_E4M3, CUTE_F32) && cute_cvt_supported(CUTE_BF16, CUTE_E2M1) &&
              cute_cvt_supported(CUTE_F64, CUTE_UE8M0) && cute_cvt_supported(CUTE_TF32, CUTE_F16),
          "narrow <-> f16/bf16/f32/f64");
    CHECK(!cute_cvt_supported(CUTE_E4M3, CUTE_I32) && !cute_cvt_supported(CUTE_U8, CUTE_E5M2) &&
              !cute_cvt_supported(CUTE_E4M3, CUTE_E5M2) && !cute_cvt_supported(CUTE_I1, CUTE_TF32),
          "not to or from integers, nor between narrow floats");
    CHECK(cute_cvt_supported(CUTE_I32, CUTE_F32) && cute_cvt_supported(CUTE_E4M3, CUTE_E4M3),
          "the others as before");
}

/* a kernel k(p: pointer to d) that begins with x = *p (1-byte aligned) */
static cute_ir_func *load_kernel(cute_ir_builder *b, cute_dtype d, cute_vreg *p, cute_vreg *x)
{
    cute_ir_func *f = cute_ir_func_new("k");
    cute_ir_builder_init(b, f);
    *p = cute_ir_add_param(f, cute_type_ptr(d, CUTE_GMEM), "p");
    *x = cute_ir_op(b, CUTE_OP_LOAD, cute_type_of(d), *p, 0, 0);
    b->last->imm = 1;
    return f;
}

static int verified(cute_ir_func *f, char *err, size_t n)
{
    int rc = cute_ir_verify(f, err, n);
    cute_ir_func_free(f);
    return rc;
}

/* x of type d moved, stored back, then op (0: none) on x, x or CVT of x to `to` */
static int verify(cute_dtype d, cute_op op, cute_dtype to, char *err, size_t n)
{
    cute_ir_builder b;
    cute_vreg p, x;
    cute_ir_func *f = load_kernel(&b, d, &p, &x);
    cute_vreg y = cute_ir_new_vreg(f, cute_type_of(d), "y", true);
    cute_ir_mov(&b, y, x);
    cute_ir_op_void(&b, CUTE_OP_STORE, cute_type_of(d), p, y, 0, 1);
    if (op == CUTE_OP_CVT) cute_ir_op(&b, CUTE_OP_CVT, cute_type_of(to), x, 0, 0);
    else if (op) cute_ir_op(&b, op, cute_type_of(d), x, x, 0);
    return verified(f, err, n);
}

/* e2m1 moves as bytes: a u8 loaded and BITCAST to two lanes (and, wrongly, loaded through
 * a pointer to e2m1) */
static int verify_packed(bool direct, char *err, size_t n)
{
    cute_ir_builder b;
    cute_vreg p, x;
    cute_ir_func *f = load_kernel(&b, CUTE_U8, &p, &x);
    cute_vreg two = cute_ir_op(&b, CUTE_OP_BITCAST, cute_type_vec(CUTE_E2M1, 2), x, 0, 0);
    cute_vreg e = cute_ir_op(&b, CUTE_OP_EXTRACT, cute_type_of(CUTE_E2M1), two, 0, 0);
    b.last->imm = 1;
    cute_ir_op(&b, CUTE_OP_CVT, cute_type_of(CUTE_F16), e, 0, 0);
    if (direct) {
        cute_vreg q = cute_ir_op(&b, CUTE_OP_BITCAST, cute_type_ptr(CUTE_E2M1, CUTE_GMEM), p, 0, 0);
        cute_ir_op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_E2M1), q, 0, 0);
        b.last->imm = 1;
    }
    return verified(f, err, n);
}

static void verifier(void)
{
    char err[512] = "";
    CHECK(verify(CUTE_E4M3, 0, 0, err, sizeof err) == 0, "load, mov, store of e4m3: %s", err);
    CHECK(verify(CUTE_E5M2, CUTE_OP_CVT, CUTE_BF16, err, sizeof err) == 0, "e5m2 -> bf16: %s", err);
    CHECK(verify_packed(false, err, sizeof err) == 0, "u8 -> e2m1x2 -> f16: %s", err);
    CHECK(verify_packed(true, err, sizeof err) != 0 && strstr(err, "whole bytes"),
          "a load through a pointer to e2m1 refused: %s", err);
    CHECK(verify(CUTE_E4M3, CUTE_OP_ADD, 0, err, sizeof err) != 0 && strstr(err, "arithmetic"),
          "ADD on e4m3 refused: %s", err);
    CHECK(verify(CUTE_TF32, CUTE_OP_MUL, 0, err, sizeof err) != 0, "MUL on tf32 refused");
    CHECK(verify(CUTE_UE8M0, CUTE_OP_CVT, CUTE_I32, err, sizeof err) != 0 &&
              strstr(err, "no conversion from f8E8M0FNU to i32"),
          "CVT ue8m0 -> i32 refused: %s", err);
}

int main(void)
{
    names();
    conversions();
    verifier();
    return CHECK_DONE("ir dtype");
}
