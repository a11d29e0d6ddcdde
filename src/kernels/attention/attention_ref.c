/* The float64 attention reference (attention_ref.h). */
#include <math.h>
#include <stdlib.h>

#include "kernels/attention/attention_ref.h"


/* the keys row i sees: all, or (causal) 0..i */
static int64_t keys_seen(const attn_ref_problem *p, int64_t i)
{
    return p->causal && i + 1 < p->Sk ? i + 1 : p->Sk;
}

/* s[j - j0] = exp(scale q.k_j - max) for keys j0 .. j1 - 1; the sum of them; *m the max */
static double unnormalized(const attn_ref_problem *p, int64_t b, int64_t i, int64_t h, int64_t j0, int64_t j1,
                           double *s, double *m)
{
    int64_t hk = h / (p->H / p->G);
    double sum = 0;
    *m = -INFINITY;
    for (int64_t j = j0; j < j1; j++) {
        double dot = 0;
        for (int64_t d = 0; d < p->D; d++) dot += attn_ref_at(&p->q, b, i, h, d) * attn_ref_at(&p->k, b, j, hk, d);
        s[j - j0] = p->scale * dot;
        if (s[j - j0] > *m) *m = s[j - j0];
    }
    for (int64_t j = 0; j < j1 - j0; j++) sum += s[j] = exp(s[j] - *m);
    return sum;
}

void attn_ref_row(const attn_ref_problem *p, int64_t b, int64_t i, int64_t h, double *o, double *mag,
                  double *lse)
{
    attn_ref_row_window(p, NULL, b, i, h, o, mag, lse);
}

void attn_ref_row_window(const attn_ref_problem *p, const attn_ref_window *w, int64_t b, int64_t i, int64_t h,
                         double *o, double *mag, double *lse)
{
    int64_t hk = h / (p->H / p->G), j0 = 0, j1 = keys_seen(p, i);
    if (w && i - w->left > j0) j0 = i - w->left;
    if (w && i + w->right + 1 < j1) j1 = i + w->right + 1;
    if (j1 < j0) j1 = j0;
    double *s = malloc((size_t)(j1 > j0 ? j1 - j0 : 1) * sizeof *s), m;
    double sum = unnormalized(p, b, i, h, j0, j1, s, &m);
    /* keys outside, D inside: each key's V row read once, in order (D outside read V a
     * column at a time, a cache miss an element: minutes a bench row at 16k keys) */
    for (int64_t d = 0; d < p->D; d++) o[d] = mag[d] = 0;
    for (int64_t j = j0; j < j1; j++)
        for (int64_t d = 0; d < p->D; d++) {
            double v = attn_ref_at(&p->v, b, j, hk, d);
            o[d] += s[j - j0] * v, mag[d] += s[j - j0] * fabs(v);
        }
    for (int64_t d = 0; d < p->D; d++) o[d] = sum > 0 ? o[d] / sum : 0, mag[d] = sum > 0 ? mag[d] / sum : 0;
    *lse = m + log(sum); /* -inf for a row that sees no key */
    free(s);
}

bool attn_ref_close(double got, double want, double mag, bool bf16)
{
    double u = bf16 ? 0x1p-8 : 0x1p-11;
    return fabs(got - want) <= 2 * u * mag + u * fabs(want) + 1e-6;
}

/* the softmax probability of (query i, key j) from the given LSE: 0 for a key row i does not see */
static double prob(const attn_ref_problem *p, const attn_ref_given *f, int64_t b, int64_t i, int64_t h, int64_t j)
{
    if (j >= keys_seen(p, i)) return 0;
    int64_t hk = h / (p->H / p->G);
    double dot = 0;
    for (int64_t d = 0; d < p->D; d++) dot += attn_ref_at(&p->q, b, i, h, d) * attn_ref_at(&p->k, b, j, hk, d);
    return exp(p->scale * dot - f->lse[(b * p->H + h) * p->Sq + i]);
}

/* dS of (i, j) without the scale, P (dP - D) with D = dO_i . O_i; *size: what it is exact
 * to, P (|dP| + |D| + sum_d |dO_d O_d|) (D's terms each rounded with O) */
static double dscore(const attn_ref_problem *p, const attn_ref_given *f, int64_t b, int64_t i, int64_t h, int64_t j,
                     double pr, double *size)
{
    int64_t hk = h / (p->H / p->G);
    double dp = 0, dsum = 0, dabs = 0;
    for (int64_t d = 0; d < p->D; d++) {
        double g = attn_ref_at(&f->dout, b, i, h, d), o = attn_ref_at(&f->o, b, i, h, d);
        dp += g * attn_ref_at(&p->v, b, j, hk, d), dsum += g * o, dabs += fabs(g * o);
    }
    *size = pr * (fabs(dp) + fabs(dsum) + dabs);
    return pr * (dp - dsum);
}

void attn_ref_dq_row(const attn_ref_problem *p, const attn_ref_given *f, int64_t b, int64_t i, int64_t h, double *dq,
                     double *mq)
{
    int64_t hk = h / (p->H / p->G);
    for (int64_t d = 0; d < p->D; d++) dq[d] = mq[d] = 0;
    for (int64_t j = 0; j < keys_seen(p, i); j++) {
        double size, ds = dscore(p, f, b, i, h, j, prob(p, f, b, i, h, j), &size);
        for (int64_t d = 0; d < p->D; d++) {
            double kv = attn_ref_at(&p->k, b, j, hk, d);
            dq[d] += p->scale * ds * kv, mq[d] += p->scale * size * fabs(kv);
        }
    }
}

void attn_ref_dkv_row(const attn_ref_problem *p, const attn_ref_given *f, int64_t b, int64_t j, int64_t hk,
                      double *out[4])
{
    int64_t group = p->H / p->G;
    for (int m = 0; m < 4; m++)
        for (int64_t d = 0; d < p->D; d++) out[m][d] = 0;
    for (int64_t h = hk * group; h < (hk + 1) * group; h++)
        for (int64_t i = 0; i < p->Sq; i++) {
            double pr = prob(p, f, b, i, h, j), size;
            if (pr == 0) continue;
            double ds = dscore(p, f, b, i, h, j, pr, &size);
            for (int64_t d = 0; d < p->D; d++) {
                double qv = attn_ref_at(&p->q, b, i, h, d), g = attn_ref_at(&f->dout, b, i, h, d);
                out[0][d] += p->scale * ds * qv, out[1][d] += p->scale * size * fabs(qv);
                out[2][d] += pr * g, out[3][d] += pr * fabs(g);
            }
        }
}

bool attn_ref_close_grad(double got, double want, double mag, bool bf16)
{
    double u = bf16 ? 0x1p-8 : 0x1p-11;
    return fabs(got - want) <= 3 * u * mag + u * fabs(want) + 1e-5;
}
