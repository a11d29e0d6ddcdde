/* Text of the CUDA C emitter: the growable buffer, names of types and registers,
 * constants, and the host-side f16/bf16 rounding constants need. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_c_internal.h"

/* --- text ---------------------------------------------------------------------------- */

static bool reserve(cc_buf *b, size_t n)
{
    if (b->oom) return false;
    if (b->len + n + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void cc_puts(cc_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(b, n)) return;
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static void vprint(cc_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !reserve(b, (size_t)n)) return;
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void cc_printf(cc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint(b, fmt, ap);
    va_end(ap);
}

void cc_line(cc_fn *e, const char *fmt, ...)
{
    cc_printf(e->out, "%*s", 4 * e->indent, "");
    va_list ap;
    va_start(ap, fmt);
    vprint(e->out, fmt, ap);
    va_end(ap);
    cc_puts(e->out, "\n");
}

bool cc_fail(cc_fn *e, cute_status s, const char *fmt, ...)
{
    cc_module *m = e->m;
    if (m->failed) return false;
    m->failed = s;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const cute_ir_inst *in = e->in;
    if (m->errn && in)
        snprintf(m->err, m->errn, "cuda_c: kernel %s: %s:%d: %s: %s", e->f->name,
                 in->file ? in->file : "?", in->line, cute_op_name((cute_op)in->op), msg);
    else if (m->errn)
        snprintf(m->err, m->errn, "cuda_c: kernel %s: %s", e->f ? e->f->name : "?", msg);
    return false;
}

/* a C string literal: printable ASCII as is, the rest escaped (octal, 3 digits, so a
 * following digit cannot extend it) */
void cc_c_string(cc_buf *b, const char *s)
{
    cc_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            cc_printf(b, "\\%c", c);
        else if (c == '\n')
            cc_puts(b, "\\n");
        else if (c == '\t')
            cc_puts(b, "\\t");
        else if (c < 32 || c > 126)
            cc_printf(b, "\\%03o", c);
        else if (c == '?' && s[1] == '?')
            cc_puts(b, "?\"\""); /* no trigraph */
        else
            cc_printf(b, "%c", c);
    }
    cc_puts(b, "\"");
}

/* --- types and names ----------------------------------------------------------------- */

const char *cc_scalar_name(cute_dtype d)
{
    static const char *names[CUTE_NDTYPES] = {
        [CUTE_VOID] = "void", [CUTE_I1] = "bool", [CUTE_I8] = "i8",   [CUTE_I16] = "i16",
        [CUTE_I32] = "i32",   [CUTE_I64] = "i64", [CUTE_U8] = "u8",   [CUTE_U16] = "u16",
        [CUTE_U32] = "u32",   [CUTE_U64] = "u64", [CUTE_F16] = "f16", [CUTE_BF16] = "bf16",
        [CUTE_F32] = "f32",   [CUTE_F64] = "f64", [CUTE_PTR] = NULL,
        [CUTE_TF32] = "tf32", [CUTE_E4M3] = "e4m3", [CUTE_E5M2] = "e5m2", [CUTE_E2M1] = "e2m1",
        [CUTE_UE8M0] = "ue8m0", [CUTE_UE4M3] = "ue4m3",
        [CUTE_TMAP] = "cute_tmap",
    };
    return (unsigned)d < CUTE_NDTYPES ? names[d] : NULL;
}

bool cc_is_16f(cute_dtype d)
{
    return d == CUTE_F16 || d == CUTE_BF16;
}
bool cc_pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

int cc_vec_align(cute_type t)
{
    int bytes = cute_dtype_bytes((cute_dtype)t.dtype) * t.lanes;
    if (bytes > 16) return 16;
    return cc_pow2(bytes) ? bytes : cute_dtype_bytes((cute_dtype)t.dtype);
}

static void note_scalar(cc_fn *e, cute_dtype d)
{
    if (d == CUTE_TMAP) e->m->needs |= NEED_TMAP;
    if (d == CUTE_F16) e->m->needs |= NEED_F16;
    if (d == CUTE_BF16) e->m->needs |= NEED_BF16;
    e->m->needs |= cc_narrow_need(d);
}

bool cc_is_smem_ptr(cute_type t)
{
    return t.dtype == CUTE_PTR && t.space == CUTE_SMEM;
}

/* the C pointer type "T *" of a pointer type, whatever its space */
static const char *pointer_type(cc_fn *e, cute_type t, char *buf)
{
    const char *p = cc_scalar_name((cute_dtype)t.pointee);
    if (!p || t.pointee == CUTE_VOID) p = "u8"; /* untyped bytes */
    note_scalar(e, (cute_dtype)t.pointee);
    snprintf(buf, CC_NAME, "%s *", p);
    return buf;
}

const char *cc_ptr(cc_fn *e, cute_vreg r, char *buf)
{
    char x[CC_NAME], tb[CC_NAME];
    cute_type t = cute_ir_type(e->f, r);
    cc_reg(e, r, x);
    if (!cc_is_smem_ptr(t)) return strcpy(buf, x);
    snprintf(buf, CC_EXPR, "((%s)__cvta_shared_to_generic(%s))", pointer_type(e, t, tb), x);
    return buf;
}

const char *cc_ptr_cast(cc_fn *e, cute_vreg r, cute_type to, char *buf)
{
    char x[CC_NAME], tb[CC_NAME];
    cute_type from = cute_ir_type(e->f, r);
    const char *ty = cc_type(e, to, tb);
    cc_reg(e, r, x);
    if (!ty) return NULL;
    bool int_from = from.dtype != CUTE_PTR, int_to = to.dtype != CUTE_PTR;
    if ((cc_is_smem_ptr(from) && (cc_is_smem_ptr(to) || int_to)) || (int_from && cc_is_smem_ptr(to)))
        snprintf(buf, CC_EXPR, "(%s)%s", ty, x); /* the shared-window address, both ways */
    else if (cc_is_smem_ptr(from)) /* to a global (generic) pointer */
        snprintf(buf, CC_EXPR, "(%s)__cvta_shared_to_generic(%s)", ty, x);
    else if (cc_is_smem_ptr(to))
        snprintf(buf, CC_EXPR, "(u32)__cvta_generic_to_shared((const void *)%s)", x);
    else
        snprintf(buf, CC_EXPR, "(%s)%s", ty, x);
    return buf;
}

const char *cc_type(cc_fn *e, cute_type t, char *buf)
{
    if (cc_is_smem_ptr(t)) {
        note_scalar(e, (cute_dtype)t.pointee);
        return strcpy(buf, "u32");
    }
    if (t.dtype == CUTE_PTR) return pointer_type(e, t, buf);
    const char *s = cc_scalar_name((cute_dtype)t.dtype);
    if (!s || t.dtype == CUTE_VOID || t.lanes == 0) {
        cc_fail(e, CUTE_ERR_UNSUPPORTED, "no C type for dtype %d x%d", t.dtype, t.lanes);
        return NULL;
    }
    note_scalar(e, (cute_dtype)t.dtype);
    if (t.lanes == 1) return s;
    e->m->vec[t.dtype][t.lanes] = 1;
    snprintf(buf, CC_NAME, "%sx%d", s, t.lanes);
    return buf;
}

const char *cc_reg(const cc_fn *e, cute_vreg r, char *buf)
{
    if (cc_fold_text(e, r, buf)) return buf;
    const char *hint = r < e->f->nvregs ? e->f->vregs[r].name : NULL;
    int n = snprintf(buf, CC_NAME, "r%u", r);
    if (hint && *hint) {
        buf[n++] = '_';
        for (int k = 0; hint[k] && k < 24; k++) {
            char c = hint[k];
            bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            buf[n++] = ok ? c : '_';
        }
        buf[n] = 0;
    }
    return buf;
}

const char *cc_opnd(const cc_fn *e, cute_vreg r, int lane, char *buf)
{
    cc_reg(e, r, buf);
    if (lane >= 0) snprintf(buf + strlen(buf), CC_NAME - strlen(buf), ".v[%d]", lane);
    return buf;
}

const char *cc_def(cc_fn *e, cute_vreg r, char *buf)
{
    char t[CC_NAME], name[CC_NAME];
    cc_reg(e, r, name);
    if (e->f->vregs[r].mutable_) {
        snprintf(buf, CC_NAME, "%s = ", name);
        return buf;
    }
    const char *ty = cc_type(e, e->f->vregs[r].type, t);
    snprintf(buf, CC_NAME, "%s%s%s = ", ty ? ty : "?", ty && ty[strlen(ty) - 1] == '*' ? "" : " ",
             name);
    return buf;
}

void cc_decl(cc_fn *e, cute_vreg r)
{
    char folded[CC_NAME];
    if (e->f->vregs[r].mutable_ || cc_fold_text(e, r, folded)) return; /* declared elsewhere */
    char t[CC_NAME], name[CC_NAME];
    const char *ty = cc_type(e, e->f->vregs[r].type, t);
    if (ty) cc_line(e, "%s%s%s;", ty, ty[strlen(ty) - 1] == '*' ? "" : " ", cc_reg(e, r, name));
}

const char *cc_to_f32(cc_fn *e, cute_dtype d, const char *x, char *buf)
{
    if (cute_dtype_is_narrow_float(d)) {
        note_scalar(e, d);
        snprintf(buf, CC_NAME, "cute_%s_f32(%s)", cc_scalar_name(d), x);
        return buf;
    }
    if (!cc_is_16f(d)) return x;
    note_scalar(e, d);
    snprintf(buf, CC_NAME, "%s(%s)", d == CUTE_F16 ? "cute_h2f" : "cute_bf2f", x);
    return buf;
}

const char *cc_from_f32(cc_fn *e, cute_dtype d, const char *x, char *buf)
{
    if (!cc_is_16f(d)) return x;
    note_scalar(e, d);
    snprintf(buf, CC_EXPR, "%s(%s)", d == CUTE_F16 ? "cute_f2h" : "cute_f2bf", x);
    return buf;
}

/* --- f16 / bf16 bits ----------------------------------------------------------------- */

/* d rounded to nearest even in a binary format of `ebits` exponent and `mbits` fraction
 * bits (IEEE layout, subnormals, infinities); one rounding, straight from the double */
static unsigned short small_float_bits(double d, int ebits, int mbits, unsigned short qnan)
{
    unsigned sign = signbit(d) ? 1u << (ebits + mbits) : 0;
    int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    unsigned inf = ((1u << ebits) - 1) << mbits;
    if (isnan(d)) return (unsigned short)(sign | qnan);
    double a = fabs(d);
    if (isinf(a)) return (unsigned short)(sign | inf);
    if (a == 0) return (unsigned short)sign;
    int e;
    frexp(a, &e);                           /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1 < emin ? emin : e - 1;  /* the exponent of a's quantum */
    double n = rint(ldexp(a, mbits - exp)); /* a in quanta 2^(exp - mbits), rounded */
    if (n >= ldexp(1, mbits + 1)) {         /* rounded up to the next binade */
        n /= 2;
        exp++;
    }
    if (exp > bias) return (unsigned short)(sign | inf);
    if (n < ldexp(1, mbits)) return (unsigned short)(sign | (unsigned)n); /* subnormal */
    unsigned bits = ((unsigned)(exp + bias) << mbits) | ((unsigned)n - (1u << mbits));
    return (unsigned short)(sign | bits);
}

unsigned short cute_f16_bits(double d)
{
    return small_float_bits(d, 5, 10, 0x7e00);
}
unsigned short cute_bf16_bits(double d)
{
    return small_float_bits(d, 8, 7, 0x7fc0);
}

/* --- constants ----------------------------------------------------------------------- */

/* the shortest decimal that reads back as v (at float or double precision) */
static void shortest(char *buf, double v, bool single)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, 40, "%.*g", p, v);
        if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    if (!strpbrk(buf, ".en")) strcat(buf, ".0");
}

static const char *float_const(cute_dtype d, double v, char *buf)
{
    char num[48];
    if (d == CUTE_F16 || d == CUTE_BF16) {
        unsigned bits = d == CUTE_F16 ? cute_f16_bits(v) : cute_bf16_bits(v);
        snprintf(buf, CC_NAME, "%s{0x%04x}", d == CUTE_F16 ? "f16" : "bf16", bits);
    } else if (d == CUTE_F32) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        if (!isfinite(f)) {
            snprintf(buf, CC_NAME, "__uint_as_float(0x%08xu)", u);
        } else {
            shortest(num, f, true);
            snprintf(buf, CC_NAME, "%sf", num);
        }
    } else {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        if (!isfinite(v)) {
            snprintf(buf, CC_NAME, "__longlong_as_double(0x%016llxLL)", (unsigned long long)u);
        } else {
            shortest(num, v, false);
            snprintf(buf, CC_NAME, "%s", num);
        }
    }
    return buf;
}

const char *cc_const(cc_fn *e, cute_type t, int64_t imm, char *buf)
{
    cute_dtype d = (cute_dtype)t.dtype;
    if (t.lanes != 1 || d == CUTE_PTR || d == CUTE_VOID) {
        cc_fail(e, CUTE_ERR_UNSUPPORTED, "a constant must be a numeric scalar");
        return NULL;
    }
    if (cute_dtype_is_float(d)) {
        double v;
        memcpy(&v, &imm, sizeof v);
        if (cc_is_16f(d)) note_scalar(e, d);
        return float_const(d, v, buf);
    }
    if (cute_dtype_is_narrow_float(d)) { /* imm is the code */
        note_scalar(e, d);
        snprintf(buf, CC_NAME, "%s{0x%llxu}", cc_scalar_name(d), (unsigned long long)imm);
        return buf;
    }
    switch (d) {
    case CUTE_I1:
        return imm ? "true" : "false";
    case CUTE_I8:
        snprintf(buf, CC_NAME, "(i8)%d", (int8_t)imm);
        break;
    case CUTE_I16:
        snprintf(buf, CC_NAME, "(i16)%d", (int16_t)imm);
        break;
    case CUTE_U8:
        snprintf(buf, CC_NAME, "(u8)%u", (uint8_t)imm);
        break;
    case CUTE_U16:
        snprintf(buf, CC_NAME, "(u16)%u", (uint16_t)imm);
        break;
    case CUTE_U32:
        snprintf(buf, CC_NAME, "%uu", (uint32_t)imm);
        break;
    case CUTE_U64:
        snprintf(buf, CC_NAME, "%lluull", (unsigned long long)imm);
        break;
    case CUTE_I32:
        if ((int32_t)imm == INT32_MIN) return "(-2147483647 - 1)";
        snprintf(buf, CC_NAME, "%d", (int32_t)imm);
        break;
    default: /* i64 */
        if (imm == INT64_MIN) return "(-9223372036854775807ll - 1)";
        snprintf(buf, CC_NAME, "%lldll", (long long)imm);
        break;
    }
    return buf;
}
