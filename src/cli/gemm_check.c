/* The CLI's checks of a GEMM result against the float64 reference: every element on every
 * CPU core (`cutec run gemm`), or a random sample (`cutec bench gemm`). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/gemm_cli.h"
#include "kernels/ew_ref.h"

static void judge(gemm_verdict *v, double got, double ref, double mag, double tol, int64_t m,
                  int64_t n, int64_t l)
{
    double e = gemm_ref_error(got, ref, mag);
    if (e != e) e = INFINITY; /* NaN never passes */
    v->checked++;
    if (!(e <= tol)) v->bad++;
    if (e > v->worst || v->checked == 1)
        v->worst = e, v->wm = m, v->wn = n, v->wl = l, v->got = got, v->want = ref;
}

static void merge(gemm_verdict *into, const gemm_verdict *v)
{
    into->checked += v->checked, into->bad += v->bad;
    if (v->checked && (v->worst > into->worst || into->checked == v->checked)) {
        into->worst = v->worst, into->wm = v->wm, into->wn = v->wn, into->wl = v->wl;
        into->got = v->got, into->want = v->want;
    }
}

/* the full check: the rows (l, m) of C split over threads; A and B converted to
 * K-contiguous float64 rows first so that the inner loop is a plain dot product */
typedef struct ref_job {
    const gemm_ref_problem *r;
    const double *a, *b; /* (M,K,L) and (N,K,L), K contiguous */
    const void *got;     /* C after the kernel (host copy, C's layout) */
    const gemm_problem *p; /* its fused epilogue */
    double tol;
    int64_t r0, r1;      /* rows l * M + m */
    gemm_verdict v;
} ref_job;

static void ref_row(ref_job *j, int64_t n0, int64_t row)
{
    const gemm_ref_problem *r = j->r;
    int64_t l = row / r->M, m = row % r->M, K = r->K;
    const double *ar = j->a + row * K;
    for (int64_t n = n0; n < n0 + 32 && n < r->N; n++) {
        const double *br = j->b + (l * r->N + n) * K;
        double s = 0, t = 0;
        if (j->p->scale) s = gemm_problem_scaled_dot(j->p, ar, br, m, n, &t);
        for (int64_t k = 0; k < K && !j->p->scale; k++) {
            double x = ar[k] * br[k];
            s += x, t += fabs(x);
        }
        int64_t at = gemm_ref_at_l(r, 2, m, n, l);
        double c = r->beta == 0 ? 0 : ew_get(r->out, r->C0.data, at);
        double ref = r->alpha * s + r->beta * c, mag = fabs(r->alpha) * t + fabs(r->beta * c);
        ref = gemm_problem_out(j->p, gemm_problem_fused_ref(j->p, m, n, ref, &mag), &mag);
        if (j->p->dual) ref = gemm_problem_swiglu_ref(j->p, r->alpha, r->beta, m, n, l, &mag);
        judge(&j->v, ew_get(r->out, j->got, at), ref, mag, j->tol, m, n, l);
    }
}

static void *ref_rows(void *arg)
{
    ref_job *j = arg;
    /* 32 rows of B at a time: they stay in cache while the rows of A pass */
    for (int64_t n0 = 0; n0 < j->r->N; n0 += 32)
        for (int64_t row = j->r0; row < j->r1; row++) ref_row(j, n0, row);
    return NULL;
}

/* operand `which` (0 A, 1 B) as float64 rows (l * rows + i) of K elements */
static double *k_rows(const gemm_ref_problem *r, int which, int64_t rows)
{
    const void *data = which == 0 ? r->A.data : r->B.data;
    double *d = malloc(sizeof(double) * (size_t)(rows * r->K * r->L + 1));
    if (!d) return NULL;
    for (int64_t l = 0; l < r->L; l++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t k = 0; k < r->K; k++)
                d[(l * rows + i) * r->K + k] = ew_get(r->in, data, gemm_ref_at_l(r, which, i, k, l));
    return d;
}

bool gemm_check_all(const gemm_problem *p, const void *got, double alpha, double beta,
                    double tol, gemm_verdict *out)
{
    memset(out, 0, sizeof *out);
    gemm_ref_problem r = gemm_problem_ref(p, alpha, beta);
    double *a = k_rows(&r, 0, r.M), *b = k_rows(&r, 1, r.N);
    int64_t rows = r.M * r.L;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
    if (rows < nt) nt = rows > 0 ? (int)rows : 1;
    ref_job jobs[64];
    pthread_t th[64];
    bool ok = a && b, started[64] = {false};
    for (int t = 0; t < nt && ok; t++) {
        jobs[t] = (ref_job){&r, a, b, got, p, tol, rows * t / nt, rows * (t + 1) / nt, {0}};
        /* the last share, or one no thread could be started for, runs here */
        if (t < nt - 1) started[t] = pthread_create(&th[t], NULL, ref_rows, &jobs[t]) == 0;
        if (!started[t]) ref_rows(&jobs[t]);
    }
    for (int t = 0; t < nt && ok; t++)
        if (started[t]) pthread_join(th[t], NULL);
    for (int t = 0; t < nt && ok; t++) merge(out, &jobs[t].v);
    free(a), free(b);
    return ok;
}

void gemm_check_sample(const gemm_problem *p, const void *got, double alpha, double beta,
                       double tol, uint64_t seed, int samples, gemm_verdict *v)
{
    memset(v, 0, sizeof *v);
    gemm_ref_problem r = gemm_problem_ref(p, alpha, beta);
    uint64_t s = seed | 1;
    for (int i = 0; i < samples; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int64_t m = (int64_t)(s % (uint64_t)p->m), n = (int64_t)((s >> 24) % (uint64_t)p->n);
        int64_t l = (int64_t)((s >> 48) % (uint64_t)p->l);
        double mag, ref = gemm_ref_value(&r, m, n, l, &mag);
        ref = gemm_problem_fused_ref(p, m, n, ref, &mag);
        if (p->scale) ref = gemm_problem_scaled_value(p, alpha, beta, m, n, &mag);
        if (p->dual) ref = gemm_problem_swiglu_ref(p, alpha, beta, m, n, l, &mag);
        judge(v, ew_get(p->out, got, gemm_ref_at_l(&r, 2, m, n, l)), ref, mag, tol, m, n, l);
    }
}

void gemm_verdict_print(const gemm_verdict *v, double tol)
{
    if (v->bad == 0)
        printf("verified: %lld elements, max error %.2g (tolerance %g, relative to the sum of |terms|)\n",
               (long long)v->checked, v->worst, tol);
    else
        printf("FAILED: %lld of %lld elements wrong, max error %.3g at (m,n,l) = (%lld,%lld,%lld): got %.17g, "
               "want %.17g\n", (long long)v->bad, (long long)v->checked, v->worst, (long long)v->wm,
               (long long)v->wn, (long long)v->wl, v->got, v->want);
}
