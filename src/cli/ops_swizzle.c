/* ops_swizzle.c — swizzle values: Swizzle<B,M,S> over 0..N-1, or over a layout's image. */
#include "layout_ops.h"

/* the limit on N: the values are printed, so this is a guard against typos */
#define MAX_SWIZZLE_VALUES (1 << 24)

static cute_swizzle arg_swizzle(cute_alg *c, char **argv)
{
    int64_t b = arg_int(c, argv[0], "B"), m = arg_int(c, argv[1], "M");
    int64_t s = arg_int(c, argv[2], "S");
    cute_swizzle sw = {0, 0, 0};
    if (c->failed) return sw;
    /* range-check before narrowing to int; the library checks the rest */
    if (b < 0 || b > 62 || m < 0 || m > 62 || s < -62 || s > 62) {
        cute_alg_fail(c, "Swizzle<%lld,%lld,%lld>: out of range", (long long)b, (long long)m,
                      (long long)s);
        return sw;
    }
    sw = (cute_swizzle){(int)b, (int)m, (int)s};
    if (!cute_swizzle_valid(sw) || sw.B + sw.M + (sw.S < 0 ? -sw.S : sw.S) > 62)
        cute_alg_fail(c, "Swizzle<%d,%d,%d>: needs B >= 0, M >= 0, |S| >= B", sw.B, sw.M, sw.S);
    return sw;
}

static void put_value(op_out *out, int64_t i, int64_t v)
{
    sb_printf(&out->text, i ? " %lld" : "%lld", (long long)v);
}

LAYOUT_HANDLER(op_swizzle)
{
    (void)op, (void)argc;
    cute_swizzle sw = arg_swizzle(c, argv);
    int64_t n = arg_int(c, argv[3], "N");
    if (!c->failed && (n < 0 || n > MAX_SWIZZLE_VALUES))
        cute_alg_fail(c, "swizzle: N = %lld is out of range", (long long)n);
    if (c->failed) return false;
    for (int64_t i = 0; i < n; i++) put_value(out, i, cute_swizzle_apply(sw, i));
    return true;
}

LAYOUT_HANDLER(op_swizzle_layout)
{
    (void)op, (void)argc;
    cute_swizzle sw = arg_swizzle(c, argv);
    cute_layout L = arg_layout(c, argv[3]);
    cute_int n = cute_size(c, &L);
    if (!c->failed && (!cute_is_static(n) || n.v > MAX_SWIZZLE_VALUES))
        cute_alg_fail(c, "swizzle_layout: too many values");
    for (int64_t i = 0; !c->failed && i < n.v; i++) {
        cute_int x = cute_layout_eval(c, &L, cute_i(i));
        if (!c->failed) put_value(out, i, cute_swizzle_apply(sw, x.v));
    }
    return !c->failed;
}
