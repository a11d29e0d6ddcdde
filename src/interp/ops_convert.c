/* CVT and BITCAST.
 *
 * CVT: integers to integers as C converts (truncation modulo 2^width, sign or zero
 * extension); to i1 is "!= 0"; integers to floats round to nearest even; floats to
 * integers truncate toward zero and saturate (NaN gives 0), as PTX cvt.rzi does; floats to
 * floats round to nearest even (f16/bf16 exactly as cvt.rn); the narrow floats (tf32,
 * float8, float4, scales) as include/cutec/numeric.h says (PTX cvt with .satfinite).
 * Vectors convert lane by lane.  BITCAST reinterprets the bytes (little-endian lanes, as in
 * memory); a 4-bit lane is a nibble, the first in the low half of its byte. */
#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"

/* --- integer to integer: one loop per pair ---------------------------------------------- */

#define ITYPES_A(X, ...) X(i8, int8_t, __VA_ARGS__) X(i16, int16_t, __VA_ARGS__)           \
    X(i32, int32_t, __VA_ARGS__) X(i64, int64_t, __VA_ARGS__) X(u8, uint8_t, __VA_ARGS__)   \
    X(u16, uint16_t, __VA_ARGS__) X(u32, uint32_t, __VA_ARGS__) X(u64, uint64_t, __VA_ARGS__)
#define ITYPES_B(X) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t) X(i64, int64_t)          \
    X(u8, uint8_t) X(u16, uint16_t) X(u32, uint32_t) X(u64, uint64_t)

#define CVT_LOOP(NAME, SM, DM, EXPR)                                                     \
    static void NAME(ictx *X, const dinst *d, const imask *m)                            \
    {                                                                                    \
        for (uint32_t l = 0; l < d->lanes; l++) {                                        \
            islot *D = REG(X, d->d + l);                                                 \
            const islot *A = REG(X, d->a[0] + l);                                        \
            EACH(X, m, t, { D[t].DM = (EXPR(A[t].SM)); });                               \
        }                                                                                \
    }

#define CVT_II(DM, DT, SM, ST) CVT_LOOP(cvt_##SM##_##DM, SM, DM, (DT))
#define CVT_TO(SM, ST) ITYPES_A(CVT_II, SM, ST)
ITYPES_B(CVT_TO)

#define NONZERO(x) ((x) != 0)
#define CVT_TO_I1(SM, ST) CVT_LOOP(cvt_##SM##_i1, SM, u8, (uint8_t)NONZERO)
ITYPES_B(CVT_TO_I1)
#define CVT_FROM_I1(DM, DT) CVT_LOOP(cvt_i1_##DM, u8, DM, (DT))
ITYPES_B(CVT_FROM_I1)

/* the common float conversions */
static inline float nan32(void)
{
    uint32_t b = 0x7fffffffu;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static inline float narrow(double x) { return x != x ? nan32() : (float)x; }
#define WIDE(x) ((double)(x))
CVT_LOOP(cvt_f32_f64, f32, f64, WIDE)
CVT_LOOP(cvt_f64_f32, f64, f32, narrow)
CVT_LOOP(cvt_f16_f32, u16, f32, cute_f16_to_f32)
CVT_LOOP(cvt_bf16_f32, u16, f32, cute_bf16_to_f32)
CVT_LOOP(cvt_f32_f16, f32, u16, cute_f32_to_f16)
CVT_LOOP(cvt_f32_bf16, f32, u16, cute_f32_to_bf16)
#define SAME_BITS(x) (x)
CVT_LOOP(cvt_tf32_f32, u32, u32, SAME_BITS) /* a tf32 is an f32 (NaNs keep their bits) */
#define F32_OF(x) ((float)(x))
CVT_LOOP(cvt_i32_f32, i32, f32, F32_OF)
CVT_LOOP(cvt_i64_f32, i64, f32, F32_OF)
CVT_LOOP(cvt_u32_f32, u32, f32, F32_OF)

/* --- everything else: through a wide value ---------------------------------------------- */

typedef struct cval {
    int kind; /* 0 signed integer (and i1), 1 unsigned (and pointers), 2 float, 3 f64 */
    int64_t i;
    uint64_t u;
    double f;
} cval;

static cval read_val(islot s, int dt)
{
    switch (dt) {
    case CUTE_I1: return (cval){0, s.u8, 0, 0};
    case CUTE_I8: return (cval){0, s.i8, 0, 0};
    case CUTE_I16: return (cval){0, s.i16, 0, 0};
    case CUTE_I32: return (cval){0, s.i32, 0, 0};
    case CUTE_I64: return (cval){0, s.i64, 0, 0};
    case CUTE_U8: return (cval){1, 0, s.u8, 0};
    case CUTE_U16: return (cval){1, 0, s.u16, 0};
    case CUTE_U32: return (cval){1, 0, s.u32, 0};
    case CUTE_U64:
    case CUTE_PTR: return (cval){1, 0, s.u64, 0};
    case CUTE_F16: return (cval){2, 0, 0, cute_f16_to_f32(s.u16)};
    case CUTE_BF16: return (cval){2, 0, 0, cute_bf16_to_f32(s.u16)};
    case CUTE_F32: return (cval){2, 0, 0, s.f32};
    case CUTE_F64: return (cval){3, 0, 0, s.f64};
    default: return (cval){2, 0, 0, interp_slot_f64(s, dt)}; /* narrow floats: exact in f32 */
    }
}

/* truncate toward zero, saturating to `bits` (signed) */
static int64_t sat_signed(double v, int bits)
{
    double lim = ldexp(1.0, bits - 1);
    if (v != v) return 0;
    if (v <= -lim) return bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    if (v >= lim) return bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    return (int64_t)v;
}

static uint64_t sat_unsigned(double v, int bits)
{
    double lim = ldexp(1.0, bits);
    if (v != v || v <= 0) return 0;
    if (v >= lim) return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    return (uint64_t)v;
}

static int64_t as_signed(cval v, int bits)
{
    return v.kind >= 2 ? sat_signed(v.f, bits) : v.kind == 1 ? (int64_t)v.u : v.i;
}
static uint64_t as_unsigned(cval v, int bits)
{
    return v.kind >= 2 ? sat_unsigned(v.f, bits) : v.kind == 1 ? v.u : (uint64_t)v.i;
}
static uint16_t as_small(cval v, int small)
{
    /* from f64 directly (cvt.rn.f16.f64); from narrower floats through their exact f32 */
    if (v.kind == 3) return small ? cute_f64_to_bf16(v.f) : cute_f64_to_f16(v.f);
    if (v.kind == 2) return small ? cute_f32_to_bf16((float)v.f) : cute_f32_to_f16((float)v.f);
    return interp_small_from_int(small, v.kind ? (int64_t)v.u : v.i, v.kind == 1);
}

static void write_val(islot *s, int dt, cval v)
{
    switch (dt) {
    case CUTE_I1: s->u8 = v.kind >= 2 ? v.f != 0 : v.kind ? v.u != 0 : v.i != 0; break;
    case CUTE_I8: s->i8 = (int8_t)as_signed(v, 8); break;
    case CUTE_I16: s->i16 = (int16_t)as_signed(v, 16); break;
    case CUTE_I32: s->i32 = (int32_t)as_signed(v, 32); break;
    case CUTE_I64: s->i64 = as_signed(v, 64); break;
    case CUTE_U8: s->u8 = (uint8_t)as_unsigned(v, 8); break;
    case CUTE_U16: s->u16 = (uint16_t)as_unsigned(v, 16); break;
    case CUTE_U32: s->u32 = (uint32_t)as_unsigned(v, 32); break;
    case CUTE_U64:
    case CUTE_PTR: s->u64 = as_unsigned(v, 64); break;
    case CUTE_F16: s->u16 = as_small(v, 0); break;
    case CUTE_BF16: s->u16 = as_small(v, 1); break;
    case CUTE_F32:
        s->f32 = v.kind >= 2 ? narrow(v.f) : v.kind ? (float)v.u : (float)v.i;
        break;
    case CUTE_F64: s->f64 = v.kind >= 2 ? v.f : v.kind ? (double)v.u : (double)v.i; break;
    default: s->u64 = cute_narrow_encode((cute_dtype)dt, v.f); break; /* a narrow float */
    }
}

static void cvt_generic(ictx *X, const dinst *d, const imask *m)
{
    for (uint32_t l = 0; l < d->lanes; l++) {
        islot *D = REG(X, d->d + l);
        const islot *A = REG(X, d->a[0] + l);
        EACH(X, m, t, { write_val(&D[t], d->dt, read_val(A[t], d->sdt)); });
    }
}

/* --- BITCAST ------------------------------------------------------------------------------ */

/* the low n bytes of a slot (n <= 8) */
static uint64_t low_bytes(uint64_t v, int n)
{
    return n >= 8 ? v : v & ((UINT64_C(1) << (8 * n)) - 1);
}

static void bitcast(ictx *X, const dinst *d, const imask *m)
{
    int sb = cute_dtype_bytes((cute_dtype)d->sdt), db = cute_dtype_bytes((cute_dtype)d->dt);
    if (sb * (int)d->slanes <= 8 && db * (int)d->lanes <= 8) { /* a word at most (most casts): shifts */
        EACH(X, m, t, {
            uint64_t w = 0;
            for (uint32_t l = 0; l < d->slanes; l++) w |= low_bytes(REG(X, d->a[0] + l)[t].u64, sb) << (8 * sb * l);
            for (uint32_t l = 0; l < d->lanes; l++) {
                islot v = {.u64 = low_bytes(w >> (8 * db * l), db)};
                if (d->dt == CUTE_I1) v.u8 &= 1;
                REG(X, d->d + l)[t] = v;
            }
        });
        return;
    }
    uint8_t bytes[256 * 8];
    EACH(X, m, t, {
        for (uint32_t l = 0; l < d->slanes; l++)
            memcpy(bytes + l * sb, &REG(X, d->a[0] + l)[t], (size_t)sb);
        for (uint32_t l = 0; l < d->lanes; l++) {
            islot v = {0};
            memcpy(&v, bytes + l * db, (size_t)db);
            if (d->dt == CUTE_I1) v.u8 &= 1;
            REG(X, d->d + l)[t] = v;
        }
    });
}

/* a side of 4-bit lanes (e2m1): the lanes' bits in order, lane 0 lowest (element 0 in the
 * low nibble of its byte, as CuTe packs it) */
static void bitcast_bits(ictx *X, const dinst *d, const imask *m)
{
    int sbits = cute_dtype_bits((cute_dtype)d->sdt), dbits = cute_dtype_bits((cute_dtype)d->dt);
    uint8_t bit[256 * 64];
    EACH(X, m, t, {
        uint32_t n = 0;
        for (uint32_t l = 0; l < d->slanes; l++)
            for (int k = 0; k < sbits; k++) bit[n++] = (uint8_t)(REG(X, d->a[0] + l)[t].u64 >> k & 1);
        n = 0;
        for (uint32_t l = 0; l < d->lanes; l++) {
            islot v = {0};
            for (int k = 0; k < dbits; k++) v.u64 |= (uint64_t)bit[n++] << k;
            REG(X, d->d + l)[t] = v;
        }
    });
}

/* --- the table --------------------------------------------------------------------------- */

#define ROW(SM, ST) [CUTE_I8] = cvt_##SM##_i8, [CUTE_I16] = cvt_##SM##_i16,                   \
    [CUTE_I32] = cvt_##SM##_i32, [CUTE_I64] = cvt_##SM##_i64, [CUTE_U8] = cvt_##SM##_u8,      \
    [CUTE_U16] = cvt_##SM##_u16, [CUTE_U32] = cvt_##SM##_u32, [CUTE_U64] = cvt_##SM##_u64,    \
    [CUTE_I1] = cvt_##SM##_i1
static const iop_fn fast[CUTE_NDTYPES][CUTE_NDTYPES] = {
    [CUTE_I8] = {ROW(i8, x)},
    [CUTE_I16] = {ROW(i16, x)},
    [CUTE_I32] = {ROW(i32, x), [CUTE_F32] = cvt_i32_f32},
    [CUTE_I64] = {ROW(i64, x), [CUTE_F32] = cvt_i64_f32},
    [CUTE_U8] = {ROW(u8, x)},
    [CUTE_U16] = {ROW(u16, x)},
    [CUTE_U32] = {ROW(u32, x), [CUTE_F32] = cvt_u32_f32},
    [CUTE_U64] = {ROW(u64, x)},
    [CUTE_I1] = {[CUTE_I8] = cvt_i1_i8, [CUTE_I16] = cvt_i1_i16, [CUTE_I32] = cvt_i1_i32,
                 [CUTE_I64] = cvt_i1_i64, [CUTE_U8] = cvt_i1_u8, [CUTE_U16] = cvt_i1_u16,
                 [CUTE_U32] = cvt_i1_u32, [CUTE_U64] = cvt_i1_u64},
    [CUTE_F32] = {[CUTE_F64] = cvt_f32_f64, [CUTE_F16] = cvt_f32_f16, [CUTE_BF16] = cvt_f32_bf16},
    [CUTE_F64] = {[CUTE_F32] = cvt_f64_f32},
    [CUTE_F16] = {[CUTE_F32] = cvt_f16_f32},
    [CUTE_BF16] = {[CUTE_F32] = cvt_bf16_f32},
    [CUTE_TF32] = {[CUTE_F32] = cvt_tf32_f32},
};

iop_fn interp_pick_convert(const dinst *d, const char **why)
{
    if (d->op == CUTE_OP_BITCAST) {
        if (d->slanes * cute_dtype_bits((cute_dtype)d->sdt) > 256 * 64) {
            *why = "bitcasts of values over 2 KiB";
            return NULL;
        }
        bool sub = d->sdt == CUTE_E2M1 || d->dt == CUTE_E2M1;
        return sub ? bitcast_bits : bitcast;
    }
    if (d->lanes != d->slanes) {
        *why = "conversions between vectors of different lengths";
        return NULL;
    }
    if (d->sdt == CUTE_VOID || d->dt == CUTE_VOID) {
        *why = "conversions of void";
        return NULL;
    }
    iop_fn f = fast[d->sdt][d->dt];
    return f ? f : cvt_generic;
}
