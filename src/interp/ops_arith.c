/* Arithmetic, bitwise, comparison, selection and math ops: one function per (op, dtype),
 * each a loop over the active threads (and the lanes of vectors).
 *
 * Integers compute at their width in unsigned arithmetic, so signed overflow wraps (two's
 * complement); shifts by the width or more give 0 (or the sign for arithmetic right
 * shifts), as PTX's shl/shr clamp; INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0; division
 * by zero is a check.  f32 and f64 compute in float and double (IEEE, round to nearest);
 * f16 and bf16 widen exactly to f32, compute, and round back once.  f32 NaN results are the
 * canonical 0x7fffffff the GPU gives; f64 ones keep the host's (x86 and the H200 agree:
 * payloads propagate, 0/0 is 0xfff8000000000000). */
#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"

/* --- floats: NaN, min/max, the small formats ------------------------------------------ */

static inline float nan32(void)
{
    uint32_t b = 0x7fffffffu;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static inline float canon32(float x) { return x != x ? nan32() : x; }

static inline float h2f(uint16_t h) { return cute_f16_to_f32(h); }
static inline uint16_t f2h(float f) { return cute_f32_to_f16(f); }
static inline float b2f(uint16_t h) { return cute_bf16_to_f32(h); }
static inline uint16_t f2b(float f) { return cute_f32_to_bf16(f); }

/* --- loop shapes ---------------------------------------------------------------------- */

#define LOOP1(NAME, M, T, EXPR)                                                          \
    static void NAME(ictx *X, const dinst *d, const imask *m)                            \
    {                                                                                    \
        for (uint32_t l = 0; l < d->lanes; l++) {                                        \
            islot *D = REG(X, d->d + l);                                                 \
            const islot *A = REG(X, d->a[0] + l);                                        \
            EACH(X, m, t, {                                                              \
                T a = A[t].M;                                                            \
                D[t].M = (EXPR);                                                         \
            });                                                                          \
        }                                                                                \
    }

#define LOOP2(NAME, M, T, EXPR)                                                          \
    static void NAME(ictx *X, const dinst *d, const imask *m)                            \
    {                                                                                    \
        for (uint32_t l = 0; l < d->lanes; l++) {                                        \
            islot *D = REG(X, d->d + l);                                                 \
            const islot *A = REG(X, d->a[0] + l), *B = REG(X, d->a[1] + l);              \
            EACH(X, m, t, {                                                              \
                T a = A[t].M, b = B[t].M;                                                \
                D[t].M = (EXPR);                                                         \
            });                                                                          \
        }                                                                                \
    }

#define LOOP3(NAME, M, T, EXPR)                                                          \
    static void NAME(ictx *X, const dinst *d, const imask *m)                            \
    {                                                                                    \
        for (uint32_t l = 0; l < d->lanes; l++) {                                        \
            islot *D = REG(X, d->d + l);                                                 \
            const islot *A = REG(X, d->a[0] + l), *B = REG(X, d->a[1] + l),              \
                        *C = REG(X, d->a[2] + l);                                        \
            EACH(X, m, t, {                                                              \
                T a = A[t].M, b = B[t].M, c = C[t].M;                                    \
                D[t].M = (EXPR);                                                         \
            });                                                                          \
        }                                                                                \
    }

/* comparisons: operands of member M, result i1 */
#define LOOPCMP(NAME, M, T, CONV, OPR)                                                   \
    static void NAME(ictx *X, const dinst *d, const imask *m)                            \
    {                                                                                    \
        islot *D = REG(X, d->d);                                                         \
        const islot *A = REG(X, d->a[0]), *B = REG(X, d->a[1]);                          \
        EACH(X, m, t, {                                                                  \
            T a = A[t].M, b = B[t].M;                                                    \
            D[t].u8 = (uint8_t)(CONV(a) OPR CONV(b));                                    \
        });                                                                              \
    }

/* --- integers ------------------------------------------------------------------------- */

static void div_zero(ictx *X, const dinst *d, uint32_t t)
{
    interp_report(X, d, t, CUTE_CHECK_DIV_ZERO, 0, 0, 0, "integer %s by zero",
                  d->op == CUTE_OP_DIV ? "division" : "remainder");
}

/* signed: M member, T type, W unsigned wide type, BITS, MINV */
#define INT_SIGNED(X) X(i8, int8_t, uint32_t, 8, INT8_MIN) X(i16, int16_t, uint32_t, 16, INT16_MIN) \
    X(i32, int32_t, uint32_t, 32, INT32_MIN) X(i64, int64_t, uint64_t, 64, INT64_MIN)
#define INT_UNSIGNED(X) X(u8, uint8_t, uint32_t, 8, 0) X(u16, uint16_t, uint32_t, 16, 0) \
    X(u32, uint32_t, uint32_t, 32, 0) X(u64, uint64_t, uint64_t, 64, 0)

#define INT_COMMON(M, T, W, BITS, MINV)                                                  \
    LOOP2(add_##M, M, T, (T)((W)a + (W)b))                                               \
    LOOP2(sub_##M, M, T, (T)((W)a - (W)b))                                               \
    LOOP2(mul_##M, M, T, (T)((W)a * (W)b))                                               \
    LOOP3(fma_##M, M, T, (T)((W)a * (W)b + (W)c))                                        \
    LOOP2(min_##M, M, T, a < b ? a : b)                                                  \
    LOOP2(max_##M, M, T, a > b ? a : b)                                                  \
    LOOP2(and_##M, M, T, (T)(a & b))                                                     \
    LOOP2(or_##M, M, T, (T)(a | b))                                                      \
    LOOP2(xor_##M, M, T, (T)(a ^ b))                                                     \
    LOOP1(not_##M, M, T, (T)~(W)a)                                                       \
    LOOP1(neg_##M, M, T, (T)(0 - (W)a))                                                  \
    LOOP2(shl_##M, M, T, (W)b >= BITS ? (T)0 : (T)((W)a << (W)b))                        \
    LOOPCMP(eq_##M, M, T, , ==)                                                          \
    LOOPCMP(ne_##M, M, T, , !=)                                                          \
    LOOPCMP(lt_##M, M, T, , <)                                                           \
    LOOPCMP(le_##M, M, T, , <=)                                                          \
    LOOPCMP(gt_##M, M, T, , >)                                                           \
    LOOPCMP(ge_##M, M, T, , >=)

/* integer division and remainder: a zero divisor is a check report and gives 0 */
#define DIVLIKE(NAME, M, T, EXPR)                                                        \
    static void NAME(ictx *X, const dinst *d, const imask *m)                            \
    {                                                                                    \
        for (uint32_t l = 0; l < d->lanes; l++) {                                        \
            islot *D = REG(X, d->d + l);                                                 \
            const islot *A = REG(X, d->a[0] + l), *B = REG(X, d->a[1] + l);              \
            EACH(X, m, t, {                                                              \
                T a = A[t].M, b = B[t].M;                                                \
                if (b == 0) {                                                            \
                    div_zero(X, d, t);                                                   \
                    D[t].M = 0;                                                          \
                } else {                                                                 \
                    D[t].M = (EXPR);                                                     \
                }                                                                        \
            });                                                                          \
        }                                                                                \
    }

/* the shift amount is read as unsigned: a negative one is huge, so it clamps; MIN / -1
 * wraps to MIN (and MIN % -1 is 0) */
#define SIGNED_ONLY(M, T, W, BITS, MINV)                                                 \
    LOOP1(abs_##M, M, T, a < 0 ? (T)(0 - (W)a) : a)                                      \
    LOOP2(shr_##M, M, T, (W)b >= BITS ? (T)(a < 0 ? -1 : 0) : (T)(a >> (W)b))            \
    DIVLIKE(div_##M, M, T, b == -1 ? (T)(0 - (W)a) : (T)(a / b))                         \
    DIVLIKE(rem_##M, M, T, b == -1 ? (T)0 : (T)(a % b))

#define UNSIGNED_ONLY(M, T, W, BITS, MINV)                                               \
    LOOP1(abs_##M, M, T, a)                                                              \
    LOOP2(shr_##M, M, T, (W)b >= BITS ? (T)0 : (T)((W)a >> (W)b))                        \
    DIVLIKE(div_##M, M, T, (T)(a / b))                                                   \
    DIVLIKE(rem_##M, M, T, (T)(a % b))

INT_SIGNED(INT_COMMON)
INT_UNSIGNED(INT_COMMON)
INT_SIGNED(SIGNED_ONLY)
INT_UNSIGNED(UNSIGNED_ONLY)

/* i1 */
LOOP2(and_i1, u8, uint8_t, (uint8_t)(a & b))
LOOP2(or_i1, u8, uint8_t, (uint8_t)(a | b))
LOOP2(xor_i1, u8, uint8_t, (uint8_t)(a ^ b))
LOOP1(not_i1, u8, uint8_t, (uint8_t)(a ^ 1))
LOOPCMP(eq_i1, u8, uint8_t, , ==)
LOOPCMP(ne_i1, u8, uint8_t, , !=)
LOOPCMP(lt_i1, u8, uint8_t, , <)
LOOPCMP(le_i1, u8, uint8_t, , <=)
LOOPCMP(gt_i1, u8, uint8_t, , >)
LOOPCMP(ge_i1, u8, uint8_t, , >=)
/* pointers compare as addresses */
LOOPCMP(eq_ptr, u64, uint64_t, , ==)
LOOPCMP(ne_ptr, u64, uint64_t, , !=)
LOOPCMP(lt_ptr, u64, uint64_t, , <)
LOOPCMP(le_ptr, u64, uint64_t, , <=)
LOOPCMP(gt_ptr, u64, uint64_t, , >)
LOOPCMP(ge_ptr, u64, uint64_t, , >=)

/* --- floats ----------------------------------------------------------------------------
 * NAME suffix, member, C type, to-compute (widen), from-compute (round back), compute type */

#define FLOAT_OPS(S, M, T, TO, FROM, CT, FMA, CANON)                                     \
    LOOP2(add_##S, M, T, FROM(CANON((CT)TO(a) + (CT)TO(b))))                             \
    LOOP2(sub_##S, M, T, FROM(CANON((CT)TO(a) - (CT)TO(b))))                             \
    LOOP2(mul_##S, M, T, FROM(CANON((CT)TO(a) * (CT)TO(b))))                             \
    LOOP2(div_##S, M, T, FROM(CANON((CT)TO(a) / (CT)TO(b))))                             \
    LOOP3(fma_##S, M, T, FMA(a, b, c))                                                   \
    LOOP2(min_##S, M, T, FROM(CANON((CT)interp_fmin(TO(a), TO(b)))))                       \
    LOOP2(max_##S, M, T, FROM(CANON((CT)interp_fmax(TO(a), TO(b)))))                       \
    LOOPCMP(eq_##S, M, T, TO, ==)                                                        \
    LOOPCMP(ne_##S, M, T, TO, !=)                                                        \
    LOOPCMP(lt_##S, M, T, TO, <)                                                         \
    LOOPCMP(le_##S, M, T, TO, <=)                                                        \
    LOOPCMP(gt_##S, M, T, TO, >)                                                         \
    LOOPCMP(ge_##S, M, T, TO, >=)

#define ID(x) (x)
#define FMA_F32(a, b, c) canon32(fmaf(a, b, c))
#define FMA_F64(a, b, c) fma(a, b, c)
#define FMA_F16(a, b, c) interp_small_fma(0, h2f(a), h2f(b), h2f(c))
#define FMA_BF16(a, b, c) interp_small_fma(1, b2f(a), b2f(b), b2f(c))

FLOAT_OPS(f32, f32, float, ID, ID, float, FMA_F32, canon32)
FLOAT_OPS(f64, f64, double, ID, ID, double, FMA_F64, ID)
FLOAT_OPS(f16, u16, uint16_t, h2f, f2h, float, FMA_F16, ID)
FLOAT_OPS(bf16, u16, uint16_t, b2f, f2b, float, FMA_BF16, ID)

/* remainder: fmod is exact, so computing it in f32 and rounding back is exact too */
LOOP2(rem_f32, f32, float, canon32(fmodf(a, b)))
LOOP2(rem_f64, f64, double, fmod(a, b))
LOOP2(rem_f16, u16, uint16_t, f2h(fmodf(h2f(a), h2f(b))))
LOOP2(rem_bf16, u16, uint16_t, f2b(fmodf(b2f(a), b2f(b))))

/* sign manipulation is bitwise, as abs/neg are on the GPU (NaN payloads kept) */
LOOP1(abs_f32, u32, uint32_t, a & 0x7fffffffu)
LOOP1(neg_f32, u32, uint32_t, a ^ 0x80000000u)
LOOP1(abs_f64, u64, uint64_t, a & 0x7fffffffffffffffull)
LOOP1(neg_f64, u64, uint64_t, a ^ 0x8000000000000000ull)
LOOP1(abs_f16, u16, uint16_t, (uint16_t)(a & 0x7fffu))
LOOP1(neg_f16, u16, uint16_t, (uint16_t)(a ^ 0x8000u))
#define abs_bf16 abs_f16
#define neg_bf16 neg_f16

/* --- math functions (libm; f16/bf16 computed in f32) ------------------------------------ */

static float rsqrt32(float x) { return (float)(1.0 / sqrt((double)x)); }
static double rsqrt64(double x) { return 1.0 / sqrt(x); }

#define MATH1(OP, F32FN, F64FN)                                                          \
    LOOP1(OP##_f32, f32, float, canon32(F32FN(a)))                                       \
    LOOP1(OP##_f64, f64, double, F64FN(a))                                               \
    LOOP1(OP##_f16, u16, uint16_t, f2h(F32FN(h2f(a))))                                   \
    LOOP1(OP##_bf16, u16, uint16_t, f2b(F32FN(b2f(a))))
MATH1(exp, expf, exp)
MATH1(exp2, exp2f, exp2)
MATH1(log, logf, log)
MATH1(log2, log2f, log2)
MATH1(sqrt, sqrtf, sqrt)
MATH1(rsqrt, rsqrt32, rsqrt64)
MATH1(tanh, tanhf, tanh)
MATH1(sin, sinf, sin)
MATH1(cos, cosf, cos)
MATH1(erf, erff, erf)
LOOP2(pow_f32, f32, float, canon32(powf(a, b)))
LOOP2(pow_f64, f64, double, pow(a, b))
LOOP2(pow_f16, u16, uint16_t, f2h(powf(h2f(a), h2f(b))))
LOOP2(pow_bf16, u16, uint16_t, f2b(powf(b2f(a), b2f(b))))

/* --- the table --------------------------------------------------------------------------- */

#define INTS(op) [CUTE_I8] = op##_i8, [CUTE_I16] = op##_i16, [CUTE_I32] = op##_i32,          \
                 [CUTE_I64] = op##_i64, [CUTE_U8] = op##_u8, [CUTE_U16] = op##_u16,          \
                 [CUTE_U32] = op##_u32, [CUTE_U64] = op##_u64
#define FLOATS(op) [CUTE_F16] = op##_f16, [CUTE_BF16] = op##_bf16, [CUTE_F32] = op##_f32,    \
                   [CUTE_F64] = op##_f64
#define BOOL(op) [CUTE_I1] = op##_i1
#define PTR(op) [CUTE_PTR] = op##_ptr

static const iop_fn table[CUTE_OP_COUNT][CUTE_NDTYPES] = {
    [CUTE_OP_ADD] = {INTS(add), FLOATS(add)},
    [CUTE_OP_SUB] = {INTS(sub), FLOATS(sub)},
    [CUTE_OP_MUL] = {INTS(mul), FLOATS(mul)},
    [CUTE_OP_DIV] = {INTS(div), FLOATS(div)},
    [CUTE_OP_REM] = {INTS(rem), FLOATS(rem)},
    [CUTE_OP_FMA] = {INTS(fma), FLOATS(fma)},
    [CUTE_OP_MIN] = {INTS(min), FLOATS(min)},
    [CUTE_OP_MAX] = {INTS(max), FLOATS(max)},
    [CUTE_OP_ABS] = {INTS(abs), FLOATS(abs)},
    [CUTE_OP_NEG] = {INTS(neg), FLOATS(neg)},
    [CUTE_OP_SHL] = {INTS(shl)},
    [CUTE_OP_SHR] = {INTS(shr)},
    [CUTE_OP_AND] = {INTS(and), BOOL(and)},
    [CUTE_OP_OR] = {INTS(or), BOOL(or)},
    [CUTE_OP_XOR] = {INTS(xor), BOOL(xor)},
    [CUTE_OP_NOT] = {INTS(not), BOOL(not)},
    [CUTE_OP_EQ] = {INTS(eq), FLOATS(eq), BOOL(eq), PTR(eq)},
    [CUTE_OP_NE] = {INTS(ne), FLOATS(ne), BOOL(ne), PTR(ne)},
    [CUTE_OP_LT] = {INTS(lt), FLOATS(lt), BOOL(lt), PTR(lt)},
    [CUTE_OP_LE] = {INTS(le), FLOATS(le), BOOL(le), PTR(le)},
    [CUTE_OP_GT] = {INTS(gt), FLOATS(gt), BOOL(gt), PTR(gt)},
    [CUTE_OP_GE] = {INTS(ge), FLOATS(ge), BOOL(ge), PTR(ge)},
    [CUTE_OP_EXP] = {FLOATS(exp)},
    [CUTE_OP_EXP2] = {FLOATS(exp2)},
    [CUTE_OP_LOG] = {FLOATS(log)},
    [CUTE_OP_LOG2] = {FLOATS(log2)},
    [CUTE_OP_SQRT] = {FLOATS(sqrt)},
    [CUTE_OP_RSQRT] = {FLOATS(rsqrt)},
    [CUTE_OP_TANH] = {FLOATS(tanh)},
    [CUTE_OP_SIN] = {FLOATS(sin)},
    [CUTE_OP_COS] = {FLOATS(cos)},
    [CUTE_OP_ERF] = {FLOATS(erf)},
    [CUTE_OP_POW] = {FLOATS(pow)},
};

iop_fn interp_pick_arith(const dinst *d, const char **why)
{
    bool cmp = d->op >= CUTE_OP_EQ && d->op <= CUTE_OP_GE;
    int dt = cmp ? d->sdt : d->dt;
    if (cmp && d->slanes != 1) {
        *why = "comparisons of vectors";
        return NULL;
    }
    if (d->op >= CUTE_OP_COUNT || dt >= CUTE_NDTYPES) return NULL;
    iop_fn f = table[d->op][dt];
    if (!f) *why = "this operand type";
    return f;
}
