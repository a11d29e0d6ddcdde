/* The float64 reference of HSTU attention (cutec/hstu.h) on the CPU, one query row at a time
 * (hstu_test.c and `cutec run hstu`). */
#ifndef CUTEC_HSTU_REF_H
#define CUTEC_HSTU_REF_H

#include "kernels/attention/attention_ref.h"

typedef struct hstu_ref_problem {
    int64_t B, Sq, Sk, H, D;
    bool causal;             /* query i sees keys j <= i */
    attn_ref_tensor q, k, v; /* (B, S, H, D) */
    attn_ref_tensor rab;     /* (B, H, Sq, Sk) */
    const int32_t *offsets;  /* NULL, or jagged: B + 1 offsets; q, k, v (1, T, H, D), sequence
                                b's rows offsets[b] on, Sq = Sk = its length; rab (B, H, N, N) */
} hstu_ref_problem;

/* Row (b, i, h) (jagged: row i of sequence b): o[D] = sum_j silu(s_j) v_j, s_j = q_i . k_j + rab_ij; mag[D] the sum of
 * |silu(s_j) v_jd| (what P's rounding to the dtype is relative to) and mag[D + d] the sum of
 * |s_j v_jd| (what the fast sigmoid's error is relative to): mag holds 2 D. */
void hstu_ref_row(const hstu_ref_problem *p, int64_t b, int64_t i, int64_t h, double *o, double *mag);

/* got within the rounding a correct kernel makes: each P term rounded to the dtype (u = 2^-8
 * bf16, 2^-11 f16), O rounded once; with the fast sigmoid (tanh.approx within 2^-10.9 of
 * tanh) a term's P within 2^-11 |s| more.  mag, smag: hstu_ref_row's mag[d], mag[D + d]. */
bool hstu_ref_close(double got, double want, double mag, double smag, bool bf16, bool fast);

#endif
