/* ops_query.c — evaluating a layout: eval, crd2idx, idx2crd, coord_of. */
#include "layout_ops.h"

/* L(crd) for a basis-stride (identity) layout: the coordinate it maps to, found through the
 * 1-D index of crd in L's shape */
static bool eval_basis_crd(cute_alg *c, const cute_layout *L, const cute_tuple *crd, op_out *out)
{
    cute_tuple compact = cute_tuple_compact_col_major(c, &L->shape);
    cute_int i = cute_crd2idx(c, crd, &L->shape, &compact);
    cute_tuple r = cute_layout_eval_basis(c, L, i);
    return out_tuple(c, out, &r);
}

LAYOUT_HANDLER(op_eval)
{
    (void)op;
    cute_layout L = arg_layout(c, argv[0]);
    if (argc == 1) return out_values(c, out, &L);
    cute_tuple crd = arg_tuple(c, argv[1]);
    if (c->failed) return false;
    if (cute_layout_has_basis(&L)) return eval_basis_crd(c, &L, &crd, out);
    return out_int(c, out, cute_layout_eval_crd(c, &L, &crd));
}

LAYOUT_HANDLER(op_crd2idx)
{
    (void)op, (void)argc;
    cute_tuple crd = arg_tuple(c, argv[0]);
    cute_layout L = arg_layout(c, argv[1]);
    if (c->failed) return false;
    return out_int(c, out, cute_crd2idx(c, &crd, &L.shape, &L.stride));
}

LAYOUT_HANDLER(op_idx2crd)
{
    (void)op, (void)argc;
    int64_t idx = arg_int(c, argv[0], "index");
    cute_tuple shape = arg_tuple(c, argv[1]);
    if (c->failed) return false;
    cute_tuple crd = cute_idx2crd(c, cute_i(idx), &shape);
    return out_tuple(c, out, &crd);
}

LAYOUT_HANDLER(op_coord_of)
{
    (void)op, (void)argc;
    cute_layout L = arg_layout(c, argv[0]);
    int64_t idx = arg_int(c, argv[1], "index");
    if (c->failed) return false;
    cute_tuple crd = cute_layout_coord_of(c, &L, cute_i(idx));
    return out_tuple(c, out, &crd);
}
