/* Element types and the op table's names. */
#include <string.h>

#include "cutec/ir.h"

static const struct {
    const char *name;
    int bits;
} dtypes[CUTE_NDTYPES] = {
    [CUTE_VOID] = {"void", 0}, [CUTE_I1] = {"i1", 1},     [CUTE_I8] = {"i8", 8},
    [CUTE_I16] = {"i16", 16},  [CUTE_I32] = {"i32", 32},  [CUTE_I64] = {"i64", 64},
    [CUTE_U8] = {"u8", 8},     [CUTE_U16] = {"u16", 16},  [CUTE_U32] = {"u32", 32},
    [CUTE_U64] = {"u64", 64},  [CUTE_F16] = {"f16", 16},  [CUTE_BF16] = {"bf16", 16},
    [CUTE_F32] = {"f32", 32},  [CUTE_F64] = {"f64", 64},  [CUTE_PTR] = {"ptr", 64},
    /* the narrow floats under the names CuTe DSL prints (its MLIR element types); ue4m3 has
     * none there (CuTe DSL passes such scales as Float8E4M3FN) */
    [CUTE_TF32] = {"tf32", 32},      [CUTE_E4M3] = {"f8E4M3FN", 8}, [CUTE_E5M2] = {"f8E5M2", 8},
    [CUTE_E2M1] = {"f4E2M1FN", 4},   [CUTE_UE8M0] = {"f8E8M0FNU", 8}, [CUTE_UE4M3] = {"ue4m3", 8},
    [CUTE_TMAP] = {"tmap", 1024},
};

/* other spellings a user may write: the PTX names and CuTe DSL's class names */
static const struct {
    const char *name;
    cute_dtype d;
} aliases[] = {
    {"e4m3", CUTE_E4M3},           {"e5m2", CUTE_E5M2},           {"e2m1", CUTE_E2M1},
    {"ue8m0", CUTE_UE8M0},         {"TFloat32", CUTE_TF32},       {"Float8E4M3FN", CUTE_E4M3},
    {"Float8E5M2", CUTE_E5M2},     {"Float4E2M1FN", CUTE_E2M1},   {"Float8E8M0FNU", CUTE_UE8M0},
};

int cute_dtype_bits(cute_dtype d) { return (unsigned)d < CUTE_NDTYPES ? dtypes[d].bits : 0; }
const char *cute_dtype_name(cute_dtype d)
{
    return (unsigned)d < CUTE_NDTYPES ? dtypes[d].name : "?";
}

bool cute_dtype_parse(const char *name, cute_dtype *out)
{
    for (int d = 1; d < CUTE_PTR; d++)
        if (strcmp(name, dtypes[d].name) == 0) {
            *out = (cute_dtype)d;
            return true;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(name, aliases[i].name) == 0) {
            *out = aliases[i].d;
            return true;
        }
    return false;
}

bool cute_dtype_is_float(cute_dtype d)
{
    return d == CUTE_F16 || d == CUTE_BF16 || d == CUTE_F32 || d == CUTE_F64;
}
bool cute_dtype_is_narrow_float(cute_dtype d) { return d >= CUTE_TF32 && d <= CUTE_UE4M3; }
bool cute_dtype_is_packed(cute_dtype d) { return d == CUTE_E2M1; }
bool cute_cvt_supported(cute_dtype from, cute_dtype to)
{
    bool nf = cute_dtype_is_narrow_float(from), nt = cute_dtype_is_narrow_float(to);
    if (nf && nt) return from == to;
    if (nf) return cute_dtype_is_float(to);
    return !nt || cute_dtype_is_float(from);
}
bool cute_dtype_is_int(cute_dtype d) { return d >= CUTE_I8 && d <= CUTE_U64; }
bool cute_dtype_is_signed(cute_dtype d) { return d >= CUTE_I8 && d <= CUTE_I64; }

bool cute_dtype_int_range(cute_dtype d, int64_t *lo, int64_t *hi)
{
    switch (d) {
    case CUTE_I1: *lo = 0, *hi = 1; return true;
    case CUTE_I8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case CUTE_I16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case CUTE_I32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    case CUTE_U8: *lo = 0, *hi = UINT8_MAX; return true;
    case CUTE_U16: *lo = 0, *hi = UINT16_MAX; return true;
    case CUTE_U32: *lo = 0, *hi = UINT32_MAX; return true;
    default: return false;
    }
}

bool cute_type_eq(cute_type a, cute_type b)
{
    if (a.dtype != b.dtype || a.lanes != b.lanes) return false;
    return a.dtype != CUTE_PTR || (a.pointee == b.pointee && a.space == b.space);
}

int cute_type_str(cute_type t, char *buf, size_t n)
{
    if (t.dtype == CUTE_PTR)
        return snprintf(buf, n, "ptr<%s,%s>", cute_dtype_name(t.pointee),
                        t.space == CUTE_SMEM ? "smem" : "gmem");
    if (t.lanes > 1) return snprintf(buf, n, "%sx%d", cute_dtype_name(t.dtype), t.lanes);
    return snprintf(buf, n, "%s", cute_dtype_name(t.dtype));
}

static const struct {
    const char *name, *meaning;
    int nargs;
} ops[CUTE_OP_COUNT] = {
#define X(name, nargs, cls, meaning) [CUTE_OP_##name] = {#name, meaning, nargs},
#include "cutec/ir_ops.def"
#undef X
};

const char *cute_op_name(cute_op op) { return (unsigned)op < CUTE_OP_COUNT ? ops[op].name : "?"; }
const char *cute_op_meaning(cute_op op)
{
    return (unsigned)op < CUTE_OP_COUNT ? ops[op].meaning : "?";
}
int cute_op_nargs(cute_op op) { return (unsigned)op < CUTE_OP_COUNT ? ops[op].nargs : 0; }

const char *cute_sreg_name(cute_sreg s)
{
    static const char *names[CUTE_SREG_COUNT] = {
        "tid.x",   "tid.y",   "tid.z",    "ctaid.x",  "ctaid.y",  "ctaid.z", "ntid.x",
        "ntid.y",  "ntid.z",  "nctaid.x", "nctaid.y", "nctaid.z", "laneid",  "warpid"};
    return (unsigned)s < CUTE_SREG_COUNT ? names[s] : "?";
}
