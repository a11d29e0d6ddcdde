/* The narrow floats in generated CUDA C: tf32, e4m3, e5m2, e2m1, ue8m0, ue4m3 as structs of
 * their code, each with a conversion to and from f32 (every other conversion goes through
 * f32, exactly: f16/bf16 widen exactly, f64 narrows to f32 rounding to odd first).  The PTX
 * cvt does the work where the target has it (tf32 sm_80; e4m3, e5m2, ue4m3 sm_89; e2m1,
 * ue8m0 sm_100a/sm_120a); elsewhere the software of cuda_c_narrow_sw.h gives the same bits
 * (narrow_sw_test.c checks it against include/cutec/numeric.h).  Widening e5m2 and ue8m0
 * is a shift on every target (e5m2 is an f16's top byte, ue8m0 an f32's exponent).
 * A 4-bit e2m1 lives in the low nibble of its byte; BITCAST packs and unpacks nibbles. */
#include "cuda_c_internal.h"
#include "cuda_c_narrow_sw.h"

/* the names the software uses for the bit casts */
static const char common[] =
    "#define cute_f2u __float_as_uint\n"
    "#define cute_u2f __uint_as_float\n"
    "#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM101_ALL) || "
    "defined(__CUDA_ARCH_FEAT_SM103_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL) || "
    "defined(__CUDA_ARCH_FEAT_SM121_ALL)\n"
    "#define CUTE_FP4_CVT 1 /* cvt with e2m1x2 and ue8m0x2 */\n"
    "#endif\n" CC_STR(CC_SW_ROUND) "\n" CC_STR(CC_SW_WIDEN) "\n";

static const char tf32[] =
    "struct tf32 { u32 bits; };\n"
    "CUTE_DEV f32 cute_tf32_f32(tf32 v) { return __uint_as_float(v.bits); }\n"
    "#if __CUDA_ARCH__ >= 800\n"
    "CUTE_DEV tf32 cute_f32_tf32(f32 x) { tf32 r; asm(\"cvt.rna.tf32.f32 %0, %1;\" : "
    "\"=r\"(r.bits) : \"f\"(x)); return r; }\n"
    "#else\n" CC_STR(CC_SW_TF32) "\n"
    "CUTE_DEV tf32 cute_f32_tf32(f32 x) { return tf32{cute_f2u(cute_sw_tf32(x))}; }\n"
    "#endif\n";

static const char e4m3[] =
    "struct e4m3 { u8 bits; };\n"
    "CUTE_DEV f32 cute_e4m3_f32(e4m3 v)\n"
    "{\n"
    "#if __CUDA_ARCH__ >= 890\n"
    "    u32 h2;\n"
    "    f32 f;\n"
    "    asm(\"cvt.rn.f16x2.e4m3x2 %0, %1;\" : \"=r\"(h2) : \"h\"((u16)v.bits));\n"
    "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"((u16)h2));\n"
    "    return f;\n"
    "#else\n"
    "    return cute_sw_widen(v.bits, 4, 3, 1);\n"
    "#endif\n"
    "}\n"
    "CUTE_DEV e4m3 cute_f32_e4m3(f32 x)\n"
    "{\n"
    "#if __CUDA_ARCH__ >= 890\n"
    "    u16 r;\n"
    "    asm(\"cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\" : \"=h\"(r) : \"f\"(0.0f), \"f\"(x));\n"
    "    return e4m3{(u8)r};\n"
    "#else\n"
    "    return e4m3{(u8)cute_sw_round(x, 4, 3, 0x7eu, 0x7fu)};\n"
    "#endif\n"
    "}\n";

static const char e5m2[] =
    "struct e5m2 { u8 bits; };\n"
    "CUTE_DEV f32 cute_e5m2_f32(e5m2 v) { f32 f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : "
    "\"h\"((u16)(v.bits << 8))); return f; }\n"
    "CUTE_DEV e5m2 cute_f32_e5m2(f32 x)\n"
    "{\n"
    "#if __CUDA_ARCH__ >= 890\n"
    "    u16 r;\n"
    "    asm(\"cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;\" : \"=h\"(r) : \"f\"(0.0f), \"f\"(x));\n"
    "    return e5m2{(u8)r};\n"
    "#else\n"
    "    return e5m2{(u8)cute_sw_round(x, 5, 2, 0x7bu, 0x7fu)};\n"
    "#endif\n"
    "}\n";

static const char e2m1[] =
    "struct e2m1 { u8 bits; };\n"
    "CUTE_DEV f32 cute_e2m1_f32(e2m1 v)\n"
    "{\n"
    "#ifdef CUTE_FP4_CVT\n"
    "    u32 h2;\n"
    "    f32 f;\n"
    "    asm(\"{ .reg .b8 b0, b1; mov.b16 {b0, b1}, %1; cvt.rn.f16x2.e2m1x2 %0, b0; }\" : "
    "\"=r\"(h2) : \"h\"((u16)(v.bits & 0xfu)));\n"
    "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"((u16)h2));\n"
    "    return f;\n"
    "#else\n"
    "    return cute_sw_widen(v.bits & 0xfu, 2, 1, 0);\n"
    "#endif\n"
    "}\n"
    "CUTE_DEV e2m1 cute_f32_e2m1(f32 x)\n"
    "{\n"
    "#ifdef CUTE_FP4_CVT\n"
    "    u16 r;\n"
    "    asm(\"{ .reg .b8 b; cvt.rn.satfinite.e2m1x2.f32 b, %1, %2; mov.b16 %0, {b, b}; }\" : "
    "\"=h\"(r) : \"f\"(0.0f), \"f\"(x));\n"
    "    return e2m1{(u8)(r & 0xfu)};\n"
    "#else\n"
    "    return e2m1{(u8)cute_sw_round(x, 2, 1, 0x7u, 0x7u)};\n"
    "#endif\n"
    "}\n";

static const char ue8m0[] =
    "struct ue8m0 { u8 bits; };\n" CC_STR(CC_SW_UE8M0_F32) "\n"
    "CUTE_DEV f32 cute_ue8m0_f32(ue8m0 v) { return cute_sw_ue8m0_f32(v.bits); }\n"
    "#ifdef CUTE_FP4_CVT\n"
    "CUTE_DEV ue8m0 cute_f32_ue8m0(f32 x) { u16 r; asm(\"cvt.rp.satfinite.ue8m0x2.f32 %0, %1, "
    "%2;\" : \"=h\"(r) : \"f\"(0.0f), \"f\"(x)); return ue8m0{(u8)r}; }\n"
    "#else\n" CC_STR(CC_SW_UE8M0) "\n"
    "CUTE_DEV ue8m0 cute_f32_ue8m0(f32 x) { return ue8m0{(u8)cute_sw_ue8m0(x)}; }\n"
    "#endif\n";

/* e4m3 with .relu; the top bit cleared, so that -0 gives the code 0 whatever .relu does */
static const char ue4m3[] =
    "struct ue4m3 { u8 bits; };\n"
    "CUTE_DEV f32 cute_ue4m3_f32(ue4m3 v) { return cute_e4m3_f32(e4m3{(u8)(v.bits & 0x7fu)}); }\n"
    "CUTE_DEV ue4m3 cute_f32_ue4m3(f32 x)\n"
    "{\n"
    "#if __CUDA_ARCH__ >= 890\n"
    "    u16 r;\n"
    "    asm(\"cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;\" : \"=h\"(r) : \"f\"(0.0f), \"f\"(x));\n"
    "    return ue4m3{(u8)(r & 0x7fu)};\n"
    "#else\n"
    "    u32 u = cute_f2u(x);\n"
    "    if ((u & 0x7fffffffu) > 0x7f800000u) return ue4m3{0x7f};\n"
    "    return ue4m3{(u8)(u >> 31 ? 0u : cute_sw_round(x, 4, 3, 0x7eu, 0x7fu))};\n"
    "#endif\n"
    "}\n";

unsigned cc_narrow_need(cute_dtype d)
{
    switch (d) {
    case CUTE_TF32: return NEED_TF32;
    case CUTE_E4M3: return NEED_E4M3;
    case CUTE_E5M2: return NEED_E5M2;
    case CUTE_E2M1: return NEED_E2M1;
    case CUTE_UE8M0: return NEED_UE8M0;
    case CUTE_UE4M3: return NEED_UE4M3 | NEED_E4M3; /* its widening is e4m3's */
    default: return 0;
    }
}

void cc_narrow_prelude(unsigned needs, cc_buf *out)
{
    static const struct {
        unsigned need;
        const char *text;
    } types[] = {{NEED_TF32, tf32}, {NEED_E4M3, e4m3}, {NEED_E5M2, e5m2},
                 {NEED_E2M1, e2m1}, {NEED_UE8M0, ue8m0}, {NEED_UE4M3, ue4m3}};
    if (!(needs & NEED_NARROW)) return;
    cc_puts(out, common);
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (needs & types[i].need) cc_puts(out, types[i].text);
}

/* e2m1 lanes <-> u8 lanes: lane j of the e2m1 side is nibble j % 2 of byte j / 2 */
bool cc_narrow_bitcast(cc_fn *e, const cute_ir_inst *in)
{
    cute_type s = cute_ir_type(e->f, in->a[0]), t = in->type;
    bool unpack = s.dtype == CUTE_U8;
    if ((unpack ? t.dtype : s.dtype) != CUTE_E2M1 || (unpack ? s.dtype : t.dtype) != CUTE_U8)
        return cc_fail(e, CUTE_ERR_UNSUPPORTED, "BITCAST of e2m1 lanes to or from anything but u8 lanes");
    char tb[CC_NAME];
    if (!cc_type(e, t, tb)) return false;
    cc_decl(e, in->dst);
    int bytes = (unpack ? t.lanes : s.lanes) / 2;
    for (int k = 0; k < bytes; k++) {
        char b[CC_NAME], lo[CC_NAME], hi[CC_NAME];
        cc_opnd(e, unpack ? in->a[0] : in->dst, bytes > 1 ? k : -1, b);
        cc_opnd(e, unpack ? in->dst : in->a[0], 2 * k, lo);
        cc_opnd(e, unpack ? in->dst : in->a[0], 2 * k + 1, hi);
        if (unpack) {
            cc_line(e, "%s = e2m1{(u8)(%s & 0xfu)};", lo, b);
            cc_line(e, "%s = e2m1{(u8)(%s >> 4)};", hi, b);
        } else {
            cc_line(e, "%s = (u8)((%s.bits & 0xfu) | (%s.bits << 4));", b, lo, hi);
        }
    }
    return true;
}
