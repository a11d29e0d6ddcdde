/* ops_modes.c — making layouts and moving modes: make_ordered_layout, get, select,
 * group_modes (the one-call ones run generically from the table). */
#include "layout_ops.h"

LAYOUT_HANDLER(op_make_ordered_layout)
{
    (void)op, (void)argc;
    cute_tuple shape = arg_tuple(c, argv[0]);
    cute_tuple order = arg_tuple(c, argv[1]);
    if (c->failed) return false;
    cute_layout R = cute_make_ordered_layout(c, shape, order);
    return out_layout(c, out, &R);
}

/* a mode index; the library checks it against the rank, we only keep it an int */
static int arg_mode(cute_alg *c, const char *text, const char *what)
{
    int64_t v = arg_int(c, text, what);
    if (!c->failed && (v < -CUTE_MAX_RANK || v > CUTE_MAX_RANK))
        cute_alg_fail(c, "%s %lld: no such mode", what, (long long)v);
    return (int)v;
}

LAYOUT_HANDLER(op_get)
{
    (void)op, (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    int i = arg_mode(c, argv[1], "mode");
    if (c->failed) return false;
    cute_layout R = cute_get(c, &L, i);
    return out_layout(c, out, &R);
}

LAYOUT_HANDLER(op_select)
{
    (void)op;
    cute_layout L = arg_layout(c, argv[0]);
    int modes[CUTE_MAX_RANK];
    int n = argc - 1;
    if (n > CUTE_MAX_RANK) return cute_alg_fail(c, "select: at most %d modes", CUTE_MAX_RANK);
    for (int k = 0; k < n; k++) modes[k] = arg_mode(c, argv[k + 1], "mode");
    if (c->failed) return false;
    cute_layout R = cute_select(c, &L, n, modes);
    return out_layout(c, out, &R);
}

LAYOUT_HANDLER(op_group_modes)
{
    (void)op, (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    int begin = arg_mode(c, argv[1], "BEGIN");
    int end = arg_mode(c, argv[2], "END");
    if (c->failed) return false;
    cute_layout R = cute_group_modes(c, &L, begin, end);
    return out_layout(c, out, &R);
}
