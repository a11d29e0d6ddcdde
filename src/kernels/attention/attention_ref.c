/* The float64 attention reference (attention_ref.h). */
#include <math.h>
#include <stdlib.h>

#include "kernels/attention/attention_ref.h"

static double at(const attn_ref_tensor *t, int64_t b, int64_t s, int64_t h, int64_t d)
{
    return t->v[b * t->stride[0] + s * t->stride[1] + h * t->stride[2] + d * t->stride[3]];
}

/* the keys row i sees: all, or (causal) 0..i */
static int64_t keys_seen(const attn_ref_problem *p, int64_t i)
{
    return p->causal && i + 1 < p->Sk ? i + 1 : p->Sk;
}

void attn_ref_row(const attn_ref_problem *p, int64_t b, int64_t i, int64_t h, double *o, double *mag,
                  double *lse)
{
    int64_t hk = h / (p->H / p->G), n = keys_seen(p, i);
    double *s = malloc((size_t)(n ? n : 1) * sizeof *s), m = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; j++) {
        double dot = 0;
        for (int64_t d = 0; d < p->D; d++) dot += at(&p->q, b, i, h, d) * at(&p->k, b, j, hk, d);
        s[j] = p->scale * dot;
        if (s[j] > m) m = s[j];
    }
    for (int64_t j = 0; j < n; j++) sum += s[j] = exp(s[j] - m);
    for (int64_t d = 0; d < p->D; d++) {
        double acc = 0, abs_acc = 0;
        for (int64_t j = 0; j < n; j++) {
            double v = at(&p->v, b, j, hk, d);
            acc += s[j] * v, abs_acc += s[j] * fabs(v);
        }
        o[d] = acc / sum, mag[d] = abs_acc / sum;
    }
    *lse = m + log(sum);
    free(s);
}

bool attn_ref_close(double got, double want, double mag, bool bf16)
{
    double u = bf16 ? 0x1p-8 : 0x1p-11;
    return fabs(got - want) <= 2 * u * mag + u * fabs(want) + 1e-6;
}
