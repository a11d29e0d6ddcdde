/* The pieces the two backward kernels share: their plan (the forward's, with 64 x 64 tiles
 * of S), the per-row (or per-column) values they read beside S (the LSE and D = rowsum(dO O)),
 * and the step from the scores to the gradients of S:
 *
 *   P = exp2(S scale log2(e) - LSE log2(e))     (the forward's softmax, recomputed)
 *   dS = P (dP - D)                              (dP = dO V^T; dS without the scale)
 *
 * dQ kernel: S is (query rows, key columns), the values are per row.  dK/dV kernel: it
 * computes S^T (key rows, query columns), the values are per column. */
#include "cutec/notation.h"
#include "kernels/attention/attention_bwd.h"

bool attn_bwd_plan_make(cute_alg *a, const cute_attention_config *cfg, attn_plan *p)
{
    cute_attention_config c = *cfg;
    c.lse = true;
    if (!attn_bwd_head_dim_ok(cfg->head_dim))
        return cute_alg_fail(a, "attention backward: head dim %d (%s)", cfg->head_dim, ATTN_BWD_HEAD_DIMS);
    /* both kernels keep two (64, D) tiles resident and stream two, with two f32 (64, D)
     * accumulators a block at most (dK and dV): 64-row tiles everywhere */
    return attn_plan_sized(a, &c, p, 64, 4);
}

/* element 0 of a tensor, as a one-element tensor */
static cute_tensor first_of(cute_ctx *c, cute_tensor t)
{
    cute_layout first = cute_layout_parse(cute_ctx_alg(c), "1:0");
    cute_tiler one = cute_tiler_layout(&first);
    return cute_tensor_compose(c, t, &one);
}

/* line i's value of g (the first element of row or column i of the thread), 0 outside bound */
static cute_val line_value(cute_ctx *c, cute_tensor G, cute_tensor C, cute_tuple bound, bool by_row, double mul, int i)
{
    cute_tensor gi = first_of(c, by_row ? CUTE_SLICE(c, G, i, CUTE_ALL) : CUTE_SLICE(c, G, CUTE_ALL, i));
    cute_tensor ci = first_of(c, by_row ? CUTE_SLICE(c, C, i, CUTE_ALL) : CUTE_SLICE(c, C, CUTE_ALL, i));
    cute_ssa v = cute_tensor_load_if(c, gi, cute_elem_less(c, ci, bound), 0.0);
    return cute_val_binop(c, CUTE_OP_MUL, cute_ssa_get(c, v, 0), cute_val_const(c, CUTE_F32, mul));
}

/* line i's value of g times mul, read whatever the line's coordinate (coords NULL: g holds
 * 0 outside the bound), else as line_value */
static cute_val line_value_at(cute_ctx *c, cute_tensor G, const cute_tensor *coords, cute_tuple bound, bool by_row,
                              double mul, int i)
{
    if (coords) return line_value(c, G, attn_rowcol(c, *coords), bound, by_row, mul, i);
    cute_tensor gi = first_of(c, by_row ? CUTE_SLICE(c, G, i, CUTE_ALL) : CUTE_SLICE(c, G, CUTE_ALL, i));
    cute_val v = cute_ssa_get(c, cute_tensor_load(c, gi), 0);
    return mul == 1.0 ? v : cute_val_binop(c, CUTE_OP_MUL, v, cute_val_const(c, CUTE_F32, mul));
}

static int lines_of(cute_ctx *c, cute_tensor G, bool by_row)
{
    cute_layout lines = cute_get(cute_ctx_alg(c), &G.layout, by_row ? 0 : 1);
    return (int)cute_size(cute_ctx_alg(c), &lines).v;
}

void attn_bwd_line_values(cute_ctx *c, cute_tensor g, cute_tensor coords, cute_tuple bound, bool by_row,
                          double mul, cute_val *out, int *n)
{
    cute_tensor G = attn_rowcol(c, g), C = attn_rowcol(c, coords);
    *n = lines_of(c, G, by_row);
    for (int i = 0; i < *n; i++) out[i] = line_value(c, G, C, bound, by_row, mul, i);
}

static cute_tensor line_of(cute_ctx *c, cute_tensor t, int i, bool by_row)
{
    return by_row ? CUTE_SLICE(c, t, i, CUTE_ALL) : CUTE_SLICE(c, t, CUTE_ALL, i);
}

/* line i of S: P = exp2(S scale_log2 - lse2) in place */
static void line_probs(cute_ctx *c, cute_tensor S, int i, bool by_row, cute_val lse2, cute_val scale_log2)
{
    cute_tensor si = line_of(c, S, i, by_row);
    cute_ssa s = cute_tensor_load(c, si);
    cute_tensor_store(c, si, cute_ssa_fast(c, CUTE_OP_EXP2,
                                           cute_ssa_fma(c, s, cute_ssa_scalar(c, scale_log2, s.shape),
                                                        cute_ssa_scalar(c, cute_val_unop(c, CUTE_OP_NEG, lse2), s.shape))));
}

/* line i of P and dP: dS = P (dP - dsum) in place of dP */
static void line_dsoft(cute_ctx *c, cute_tensor P, cute_tensor dP, int i, bool by_row, cute_val dsum)
{
    cute_tensor di = line_of(c, dP, i, by_row);
    cute_ssa p = cute_tensor_load(c, line_of(c, P, i, by_row));
    cute_ssa dp = cute_ssa_binop(c, CUTE_OP_SUB, cute_tensor_load(c, di), cute_ssa_scalar(c, dsum, p.shape));
    cute_tensor_store(c, di, cute_ssa_binop(c, CUTE_OP_MUL, p, dp));
}

/* line i of S and dP: P, then dS */
static void line_grads(cute_ctx *c, cute_tensor S, cute_tensor dP, int i, bool by_row, cute_val lse2, cute_val dsum,
                       cute_val scale_log2)
{
    line_probs(c, S, i, by_row, lse2, scale_log2);
    line_dsoft(c, S, dP, i, by_row, dsum);
}

void attn_bwd_grads(cute_ctx *c, cute_tensor acc_s, cute_tensor acc_dp, const cute_val *lse2, const cute_val *dsum,
                    int n, bool by_row, cute_val scale_log2)
{
    cute_tensor S = attn_rowcol(c, acc_s), dP = attn_rowcol(c, acc_dp);
    for (int i = 0; i < n; i++) line_grads(c, S, dP, i, by_row, lse2[i], dsum[i], scale_log2); /* unrolled */
}

void attn_bwd_grads_loading(cute_ctx *c, cute_tensor acc_s, cute_tensor acc_dp, cute_tensor gl, cute_tensor gd,
                            cute_tensor coords, cute_tuple bound, bool by_row, cute_val scale_log2)
{
    cute_tensor S = attn_rowcol(c, acc_s), dP = attn_rowcol(c, acc_dp);
    cute_tensor L = attn_rowcol(c, gl), D = attn_rowcol(c, gd), C = attn_rowcol(c, coords);
    for (int i = 0; i < lines_of(c, L, by_row); i++) {
        cute_val lse2 = line_value(c, L, C, bound, by_row, 1.4426950408889634, i);
        line_grads(c, S, dP, i, by_row, lse2, line_value(c, D, C, bound, by_row, 1.0, i), scale_log2);
    }
}

void attn_bwd_probs_loading(cute_ctx *c, cute_tensor acc_s, cute_tensor gl, const cute_tensor *coords,
                            cute_tuple bound, bool by_row, cute_val scale_log2)
{
    cute_tensor S = attn_rowcol(c, acc_s), L = attn_rowcol(c, gl);
    double mul = coords ? 1.4426950408889634 : 1.0; /* (a staged copy: log2 units) */
    for (int i = 0; i < lines_of(c, L, by_row); i++)
        line_probs(c, S, i, by_row, line_value_at(c, L, coords, bound, by_row, mul, i), scale_log2);
}

void attn_bwd_dsoft_loading(cute_ctx *c, cute_tensor acc_p, cute_tensor acc_dp, cute_tensor gd,
                            const cute_tensor *coords, cute_tuple bound, bool by_row)
{
    cute_tensor P = attn_rowcol(c, acc_p), dP = attn_rowcol(c, acc_dp), D = attn_rowcol(c, gd);
    for (int i = 0; i < lines_of(c, D, by_row); i++)
        line_dsoft(c, P, dP, i, by_row, line_value_at(c, D, coords, bound, by_row, 1.0, i));
}

void attn_bwd_store(cute_ctx *c, const attn_plan *p, cute_thr_mma thr, cute_tensor acc, const cute_val *scale,
                    cute_tensor g, cute_tensor coords, cute_int rows)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_ssa v = cute_tensor_load(c, acc);
    if (scale) v = cute_ssa_binop(c, CUTE_OP_MUL, v, cute_ssa_scalar(c, *scale, v.shape));
    cute_ssa in = cute_elem_less(c, cute_partition_C(c, thr, coords), cute_tuple_fmt(a, "(%I,%lld)", rows, (long long)p->d));
    cute_tensor_store_if(c, cute_partition_C(c, thr, g), cute_ssa_cvt(c, v, p->cfg.dtype), in);
}

cute_tensor attn_bwd_rows_tile(cute_ctx *c, const attn_plan *p, cute_tensor m, cute_int b, cute_int h, cute_int at,
                               int64_t rows)
{
    cute_tuple t = cute_tuple_fmt(cute_ctx_alg(c), "(%lld,%lld)", (long long)rows, (long long)p->d);
    return cute_tensor_local_tile(c, CUTE_SLICE(c, m, b, CUTE_ALL, h, CUTE_ALL), t, CUTE_CRD(at, 0), NULL);
}
