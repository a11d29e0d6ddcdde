/* PRINTF: C's format language applied to IR values, one thread at a time (thread order
 * within an instruction).  Each conversion takes the next operand and prints it according
 * to the conversion, whatever the length modifier says: d/i as a signed integer, u/o/x/X
 * as an unsigned one (a signed operand keeps its width: -1 as i32 is ffffffff), c as a
 * character, f/e/g/a as a double (f16, bf16, f32 widen exactly, as the GPU's printf
 * promotes them), p as an address.  An integer printed with a float conversion is
 * converted, and the reverse truncates.  A vector operand prints its lanes in braces.  A
 * conversion without an operand is printed as written; %s prints "(string)" (the IR has
 * no strings). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

void interp_out_append(ictx *X, const char *s, size_t n)
{
    if (X->outn + n > X->outc) {
        size_t nc = X->outc ? X->outc * 2 : 1024;
        while (nc < X->outn + n) nc *= 2;
        char *p = realloc(X->out, nc);
        if (!p) {
            X->oom = X->stop = true;
            return;
        }
        X->out = p;
        X->outc = nc;
    }
    memcpy(X->out + X->outn, s, n);
    X->outn += n;
}

static int64_t as_int(islot v, int dt)
{
    if (cute_dtype_is_float((cute_dtype)dt) || cute_dtype_is_narrow_float((cute_dtype)dt)) {
        double f = interp_slot_f64(v, dt);
        return f != f ? 0 : f >= 9.2e18 ? INT64_MAX : f <= -9.2e18 ? INT64_MIN : (int64_t)f;
    }
    switch (dt) {
    case CUTE_I8: return v.i8;
    case CUTE_I16: return v.i16;
    case CUTE_I32: return v.i32;
    case CUTE_I64: return v.i64;
    case CUTE_I1:
    case CUTE_U8: return v.u8;
    case CUTE_U16: return v.u16;
    case CUTE_U32: return v.u32;
    default: return (int64_t)v.u64;
    }
}

/* the operand's bits at its width, for %u %x %o */
static uint64_t as_uint(islot v, int dt)
{
    if (cute_dtype_is_float((cute_dtype)dt) || cute_dtype_is_narrow_float((cute_dtype)dt))
        return (uint64_t)as_int(v, dt);
    int bits = cute_dtype_bits((cute_dtype)dt);
    uint64_t u = (uint64_t)as_int(v, dt);
    return bits >= 64 ? u : u & ((1ull << bits) - 1);
}

/* one conversion of one lane: spec is "%<flags,width,precision>" without length or type */
static void convert(ictx *X, const char *spec, char conv, islot v, int dt)
{
    char fmt[64], buf[512];
    int n;
    switch (conv) {
    case 'd': case 'i':
        snprintf(fmt, sizeof fmt, "%sll%c", spec, conv);
        n = snprintf(buf, sizeof buf, fmt, (long long)as_int(v, dt));
        break;
    case 'u': case 'o': case 'x': case 'X':
        snprintf(fmt, sizeof fmt, "%sll%c", spec, conv);
        n = snprintf(buf, sizeof buf, fmt, (unsigned long long)as_uint(v, dt));
        break;
    case 'c':
        snprintf(fmt, sizeof fmt, "%sc", spec);
        n = snprintf(buf, sizeof buf, fmt, (int)as_int(v, dt));
        break;
    case 'p':
        n = snprintf(buf, sizeof buf, "0x%" PRIx64, v.u64);
        break;
    case 's':
        n = snprintf(buf, sizeof buf, "(string)");
        break;
    default: /* f F e E g G a A */
        snprintf(fmt, sizeof fmt, "%s%c", spec, conv);
        n = snprintf(buf, sizeof buf, fmt, interp_slot_f64(v, dt));
        break;
    }
    if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
    if (n > 0) interp_out_append(X, buf, (size_t)n);
}

void interp_printf_thread(ictx *X, const dinst *d, uint32_t t)
{
    const char *s = d->str;
    uint32_t k = 0;
    while (*s) {
        const char *pct = strchr(s, '%');
        if (!pct) {
            interp_out_append(X, s, strlen(s));
            break;
        }
        interp_out_append(X, s, (size_t)(pct - s));
        if (pct[1] == '%') {
            interp_out_append(X, "%", 1);
            s = pct + 2;
            continue;
        }
        /* %[flags][width][.precision][length]conversion */
        const char *p = pct + 1;
        p += strspn(p, "-+ #0");
        p += strspn(p, "0123456789");
        if (*p == '.') p++, p += strspn(p, "0123456789");
        size_t speclen = (size_t)(p - pct);
        p += strspn(p, "hlLqjzt");
        char conv = *p;
        if (!conv || !strchr("diuoxXcpsfFeEgGaA", conv) || k >= d->nvar || speclen >= 32) {
            size_t len = conv ? (size_t)(p + 1 - pct) : (size_t)(p - pct);
            interp_out_append(X, pct, len); /* not ours to print: as written */
            s = pct + len;
            continue;
        }
        char spec[32];
        memcpy(spec, pct, speclen);
        spec[speclen] = 0;
        cute_type ty = d->vtype[k];
        uint32_t slot = d->var[k++], lanes = ty.lanes ? ty.lanes : 1;
        if (lanes > 1) interp_out_append(X, "{", 1);
        for (uint32_t l = 0; l < lanes; l++) {
            if (l) interp_out_append(X, ", ", 2);
            convert(X, spec, conv, REG(X, slot + l)[t], ty.dtype);
        }
        if (lanes > 1) interp_out_append(X, "}", 1);
        s = p + 1;
    }
}
