/* complement, right_inverse, left_inverse: layouts built by walking modes in stride order. */
#include "layout_internal.h"

/* Indices of m's modes sorted by stride with CuTe's exchange sort (which decides the tie
 * order of non-injective inputs).  Strides must be comparable: an error otherwise. */
static bool sort_by_stride(cute_alg *c, const mode_list *m, int *idx, const char *op)
{
    for (int i = 0; i < m->n; i++) idx[i] = i;
    for (int i = 0; i < m->n; i++) {
        if (m->b[i])
            return cute_alg_fail(c, "%s: basis strides (an identity layout) are not supported",
                                 op);
        for (int j = i + 1; j < m->n; j++) {
            cute_truth lt = cute_int_cmp(c, CUTE_CMP_LT, m->d[idx[j]], m->d[idx[i]]);
            if (lt == CUTE_UNKNOWN) {
                return cute_alg_fail(c, "%s: cannot order strides %s and %s at trace time (a "
                                        "static or provably ordered stride is required)",
                                     op, ITXT(m->d[idx[j]]), ITXT(m->d[idx[i]]));
            }
            if (lt == CUTE_TRUE) {
                int t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
            }
        }
    }
    return true;
}

/* The flat modes of coalesce(L).  These algorithms read the coalesced form itself (its
 * modes, their order, the last one), so a form that the launch-time values could change is
 * an error when `exact`. */
static bool coalesced_modes(cute_alg *c, const cute_layout *L, mode_list *out, bool exact,
                            const char *op)
{
    mode_list in;
    modes_of(L, &in);
    if (modes_coalesce(c, &in, out, false) > 0 && exact) {
        char b[1024];
        return cute_alg_fail(c, "%s: cannot decide at trace time how %s coalesces (a mode may "
                                "have size 1 or two modes may merge at launch; a static value "
                                "is required)", op, layout_text(L, b, sizeof b));
    }
    if (out->n == 0) modes_push(c, out, cute_i(1), cute_i(0), 0, "coalesce");
    return !c->failed;
}

cute_layout cute_complement(cute_alg *c, const cute_layout *L, const cute_tuple *cotarget)
{
    if (!layout_inputs_ok(c, "complement", 1, &L)) return cute_layout_poison();
    if (cute_tuple_is_poison(cotarget) || cute_tuple_has_underscore(cotarget)) {
        cute_alg_fail(c, "complement: malformed cotarget");
        return cute_layout_poison();
    }
    cute_layout Z = cute_filter_zeros(c, L);
    mode_list f, out = {0};
    int idx[CUTE_MAX_LEAVES];
    if (c->failed || !coalesced_modes(c, &Z, &f, true, "complement") ||
        !sort_by_stride(c, &f, idx, "complement"))
        return cute_layout_poison();
    if (f.n == 1 && cute_is_const(f.s[0], 1) && cute_is_const(f.d[0], 0)) {
        cute_tuple size = cute_tuple_int(cute_tuple_product(c, cotarget));
        return cute_make_layout(c, size);
    }
    cute_int stride = cute_i(1);
    for (int k = 0; k < f.n && !c->failed; k++) {
        cute_int d = f.d[idx[k]], s = f.s[idx[k]];
        cute_int gap = cute_div(c, d, stride);
        if (cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, gap, cute_i(0)), "complement",
                                 "a mode's stride falls below the span of the modes before it")) {
            char b[1024];
            cute_alg_fail_form(c, !cute_tuple_is_static(&L->shape) || !cute_tuple_is_static(&L->stride),
                               "complement: Non-injective Layout detected in complement: %s "
                             "(stride %s overlaps the span %s of the smaller strides)",
                          layout_text(L, b, sizeof b), ITXT(d), ITXT(stride));
            return cute_layout_poison();
        }
        modes_push(c, &out, gap, stride, 0, "complement");
        stride = cute_mul(c, d, s);
    }
    cute_tuple rest = cute_tuple_shape_ceil_div(c, cotarget, stride);
    modes_push(c, &out, cute_tuple_product(c, &rest), stride, 0, "complement");
    cute_layout R = modes_layout(c, &out, true, "complement");
    return cute_coalesce(c, &R);
}

cute_layout cute_complement_default(cute_alg *c, const cute_layout *L)
{
    cute_layout F = cute_filter(c, L);
    cute_tuple cot = cute_tuple_int(cute_cosize(c, &F));
    return cute_complement(c, L, &cot);
}

/* column-major prefix products of m's shapes: the domain stride of each mode */
static void domain_strides(cute_alg *c, const mode_list *m, cute_int *pre)
{
    cute_int p = cute_i(1);
    for (int i = 0; i < m->n; i++) {
        pre[i] = p;
        p = cute_mul(c, p, m->s[i]);
    }
}

cute_layout cute_right_inverse(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "right_inverse", 1, &L)) return cute_layout_poison();
    mode_list m, out = {0};
    int idx[CUTE_MAX_LEAVES];
    cute_int pre[CUTE_MAX_LEAVES];
    /* exact: which modes merge decides which strides continue the image (CuTe's answer for
     * (2,8,4):(2,4,1) is 4:16 since 2:2 and 8:4 merge; unmerged they would give (4,8):(16,2)),
     * so a form the launch-time values could change is refused, never guessed */
    if (!coalesced_modes(c, L, &m, true, "right_inverse") ||
        !sort_by_stride(c, &m, idx, "right_inverse"))
        return cute_layout_poison();
    domain_strides(c, &m, pre);
    modes_push(c, &out, cute_i(1), cute_i(0), 0, "right_inverse");
    cute_int curr = cute_i(1);
    for (int k = 0; k < m.n && !c->failed; k++) {
        int i = idx[k];
        /* modes whose stride does not continue the image are skipped, not a stop */
        if (!cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, m.d[i], curr), "right_inverse",
                                  "a stride continues the image of the smaller ones"))
            continue;
        modes_push(c, &out, m.s[i], pre[i], 0, "right_inverse");
        curr = cute_mul(c, m.s[i], m.d[i]);
    }
    cute_layout R = modes_layout(c, &out, true, "right_inverse");
    return cute_coalesce(c, &R);
}

cute_layout cute_left_inverse(cute_alg *c, const cute_layout *L)
{
    if (!layout_inputs_ok(c, "left_inverse", 1, &L)) return cute_layout_poison();
    mode_list m, out = {0};
    int idx[CUTE_MAX_LEAVES];
    cute_int pre[CUTE_MAX_LEAVES];
    if (!coalesced_modes(c, L, &m, true, "left_inverse") ||
        !sort_by_stride(c, &m, idx, "left_inverse"))
        return cute_layout_poison();
    domain_strides(c, &m, pre);
    cute_int span = cute_i(1); /* product of the shapes appended so far */
    cute_int stride = cute_i(0);
    for (int k = 0; k < m.n && !c->failed; k++) {
        int i = idx[k];
        if (cute_decide_required(c, cute_int_cmp(c, CUTE_CMP_EQ, m.d[i], cute_i(0)),
                                 "left_inverse", "a stride is 0"))
            continue;
        if (!cute_assume(c, cute_int_cmp(c, CUTE_CMP_DIVIDES, span, m.d[i]))) {
            char b[1024];
            cute_alg_fail(c, "left_inverse: Left inverse divisibility condition: in %s, stride "
                             "%s is not a multiple of %s", layout_text(L, b, sizeof b),
                          ITXT(m.d[i]), ITXT(span));
            return cute_layout_poison();
        }
        cute_int shape = cute_div(c, m.d[i], span);
        modes_push(c, &out, shape, stride, 0, "left_inverse");
        span = cute_mul(c, span, shape);
        stride = pre[i];
    }
    modes_push(c, &out, m.s[idx[m.n - 1]], stride, 0, "left_inverse");
    cute_layout R = modes_layout(c, &out, true, "left_inverse");
    return cute_coalesce(c, &R);
}
