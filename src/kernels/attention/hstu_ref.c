/* HSTU attention's float64 reference (hstu_ref.h). */
#include <math.h>

#include "kernels/attention/hstu_ref.h"

void hstu_ref_row(const hstu_ref_problem *p, int64_t b, int64_t i, int64_t h, double *o, double *mag)
{
    for (int64_t d = 0; d < 2 * p->D; d++) mag[d] = 0;
    for (int64_t d = 0; d < p->D; d++) o[d] = 0;
    int64_t qb = b, r0 = 0, sk = p->Sk; /* Q's and K's batch, the first row, the keys */
    if (p->offsets) qb = 0, r0 = p->offsets[b], sk = p->offsets[b + 1] - r0;
    int64_t keys = p->causal && i + 1 < sk ? i + 1 : sk;
    for (int64_t j = 0; j < keys; j++) {
        double s = attn_ref_at(&p->rab, b, h, i, j);
        for (int64_t d = 0; d < p->D; d++)
            s += attn_ref_at(&p->q, qb, r0 + i, h, d) * attn_ref_at(&p->k, qb, r0 + j, h, d);
        double silu = s / (1 + exp(-s));
        for (int64_t d = 0; d < p->D; d++) {
            double v = attn_ref_at(&p->v, qb, r0 + j, h, d);
            o[d] += silu * v;
            mag[d] += fabs(silu * v);
            mag[p->D + d] += fabs(s * v);
        }
    }
}

bool hstu_ref_close(double got, double want, double mag, double smag, bool bf16, bool fast)
{
    double u = bf16 ? 0x1p-8 : 0x1p-11;
    return fabs(got - want) <= 2 * u * mag + u * fabs(want) + (fast ? 0x1p-11 * smag : 0) + 1e-6;
}
