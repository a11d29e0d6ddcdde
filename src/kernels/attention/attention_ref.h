/* The float64 reference of attention forward on the CPU, one query row at a time (the tests
 * and `cutec run attention` check every row, or a sample of rows at large sizes). */
#ifndef CUTEC_ATTENTION_REF_H
#define CUTEC_ATTENTION_REF_H

#include <stdbool.h>
#include <stdint.h>

/* a (B, S, heads, D) tensor of the inputs' values, widened exactly, with element strides */
typedef struct attn_ref_tensor {
    const double *v;
    int64_t stride[4];
} attn_ref_tensor;

/* element (a, b, c, d) of a tensor by its strides */
static inline double attn_ref_at(const attn_ref_tensor *t, int64_t a, int64_t b, int64_t c, int64_t d)
{
    return t->v[a * t->stride[0] + b * t->stride[1] + c * t->stride[2] + d * t->stride[3]];
}

typedef struct attn_ref_problem {
    int64_t B, Sq, Sk, H, G, D;
    bool causal; /* top-left: query i sees keys j <= i */
    double scale;
    attn_ref_tensor q, k, v;
} attn_ref_problem;

/* Row (b, i, h): o[D] the output, mag[D] = sum_j p_j |v_jd| (what the rounding of P and of
 * the accumulation is relative to), *lse the natural log of sum_j exp(scale q.k_j). */
void attn_ref_row(const attn_ref_problem *p, int64_t b, int64_t i, int64_t h, double *o, double *mag,
                  double *lse);

/* Row (b, i, h) with a sliding window (NULL: none): keys i - left .. i + right (and causal's);
 * a row that sees no key has O = 0 and LSE = -inf */
typedef struct attn_ref_window {
    int64_t left, right;
} attn_ref_window;
void attn_ref_row_window(const attn_ref_problem *p, const attn_ref_window *w, int64_t b, int64_t i, int64_t h,
                         double *o, double *mag, double *lse);

/* |got - want| within the rounding a correct f16/bf16 kernel makes: P rounded to the dtype
 * (u = 2^-8 bf16, 2^-11 f16) on each term, O rounded once to the dtype */
bool attn_ref_close(double got, double want, double mag, bool bf16);

/* What the backward is given beside the problem: dO, O (B, Sq, H, D) and the forward's LSE
 * (B, H, Sq) compact, natural log.  P comes from the LSE and D = rowsum(dO O) from this O,
 * as the kernels compute them, so a row is checked at the cost of one row of S (dQ) or
 * one column (dK, dV). */
typedef struct attn_ref_given {
    attn_ref_tensor dout, o;
    const double *lse;
} attn_ref_given;

/* dQ of query row (b, i, h) and each element's magnitude (the sum of its terms' absolute
 * values, what the rounding of P, dS and O to the dtype is relative to) */
void attn_ref_dq_row(const attn_ref_problem *p, const attn_ref_given *f, int64_t b, int64_t i, int64_t h, double *dq,
                     double *mq);
/* dK, its magnitude, dV, its magnitude (out[0..3], D each) of key row (b, j, hk): summed
 * over every query row of every head of the group */
void attn_ref_dkv_row(const attn_ref_problem *p, const attn_ref_given *f, int64_t b, int64_t j, int64_t hk,
                      double *out[4]);

/* a gradient within the rounding a correct f16/bf16 backward makes: P and dS rounded to the
 * dtype before their products, D from O rounded to it */
bool attn_ref_close_grad(double got, double want, double mag, bool bf16);

#endif
