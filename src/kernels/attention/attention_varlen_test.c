/* The forward's options (cutec_attention_fwd_options) against the float64 reference: head
 * dims past 64, 128 and 256 (32 to 224), causal over sequences of unequal tile counts, sliding
 * windows (left and right, with and without causal, rows that see no key: O = 0 and LSE =
 * -inf) and packed sequences (cu_seqlens: lengths that end inside tiles, an empty sequence,
 * Sq != Sk per sequence, grouped-query, windows on top), every row of O and the LSE, on the
 * interpreter and, where there is one, the GPU; and the options the library refuses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/attention.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/attention/attention_testbuf.h"

static uint64_t seed;

enum { MAXSEQ = 4 };

typedef struct opt_case {
    int nseq;                          /* 0: one (B,S,H,D) batch of B = 1 sequence, fixed lengths */
    int64_t lq[MAXSEQ], lk[MAXSEQ];    /* the sequences' lengths */
    int64_t H, G, D;
    bool causal, window;
    int64_t left, right;
    cute_dtype d;
} opt_case;

static int64_t total(const int64_t *len, int n)
{
    int64_t t = 0;
    for (int i = 0; i < n; i++) t += len[i];
    return t;
}

/* every row of sequence s (rows q0.., keys k0..) against the reference */
static int64_t check_seq(const opt_case *k, const buf *q, const buf *kk, const buf *v, const buf *o, const buf *lse,
                         int64_t q0, int64_t k0, int s, double *worst)
{
    int64_t tq = total(k->lq, k->nseq ? k->nseq : 1), sq[4] = {0, k->H * k->D, k->D, 1}, sk[4] = {0, k->G * k->D, k->D, 1};
    attn_ref_problem p = {1, k->lq[s], k->lk[s], k->H, k->G, k->D, k->causal, 1 / sqrt((double)k->D),
                          {q->wide + q0 * sq[1], {sq[0], sq[1], sq[2], 1}}, {kk->wide + k0 * sk[1], {sk[0], sk[1], sk[2], 1}},
                          {v->wide + k0 * sk[1], {sk[0], sk[1], sk[2], 1}}};
    attn_ref_window w = {k->left, k->right};
    double want[256], mag[256], l;
    int64_t bad = 0;
    for (int64_t i = 0; i < k->lq[s]; i++)
        for (int64_t h = 0; h < k->H; h++) {
            attn_ref_row_window(&p, k->window ? &w : NULL, 0, i, h, want, mag, &l);
            for (int64_t d = 0; d < k->D; d++) {
                double got = o->wide[(q0 + i) * sq[1] + h * sq[2] + d];
                bad += !attn_ref_close(got, want[d], mag[d], k->d == CUTE_BF16);
                if (!(fabs(got - want[d]) <= *worst)) *worst = fabs(got - want[d]);
            }
            double gl = lse->wide[h * tq + q0 + i];
            bad += isinf(l) ? !(isinf(gl) && gl < 0) : !(fabs(gl - l) <= 1e-4 * (1 + fabs(l)));
        }
    return bad;
}

/* the offsets of the lengths, (n + 1) i32, on the device */
static cute_call_arg offsets(cute_backend *b, cute_buffer *dev, const int64_t *len, int n)
{
    int32_t cu[MAXSEQ + 1] = {0};
    for (int i = 0; i < n; i++) cu[i + 1] = cu[i] + (int32_t)len[i];
    b->vt->alloc(b->self, sizeof cu, dev);
    b->vt->upload(b->self, dev, 0, cu, sizeof cu);
    return cute_call_tensor(dev, 0, CUTE_I32, 1, (int64_t[]){n + 1}, (int64_t[]){1});
}

static void run_case(cute_attention_lib *lib, cute_backend *b, const void *one, const char *backend)
{
    const opt_case *k = one;
    char what[200], err[2048];
    int n = k->nseq ? k->nseq : 1;
    int64_t tq = total(k->lq, n), tk = total(k->lk, n), maxq = 0;
    for (int i = 0; i < n; i++) maxq = k->lq[i] > maxq ? k->lq[i] : maxq;
    snprintf(what, sizeof what, "%s %s %d sequence(s) of %lld/%lld rows H%lld G%lld D%lld%s window %s(%lld, %lld)",
             backend, cute_dtype_name(k->d), n, (long long)tq, (long long)tk, (long long)k->H, (long long)k->G,
             (long long)k->D, k->causal ? " causal" : "", k->window ? "" : "off ", (long long)k->left, (long long)k->right);
    attn_fwd_call c; /* the sequences packed in one of B = 1 */
    attn_fwd_make(b, 1, tq, tk, k->H, k->G, k->D, false, k->d, &seed, &c);
    cute_buffer cuq = {0}, cuk = {0};
    cute_call_arg acq = offsets(b, &cuq, k->lq, n), ack = offsets(b, &cuk, k->lk, n);
    cute_attention_options opt = {.causal = k->causal, .window = k->window, .window_left = k->left,
                                  .window_right = k->right, .max_seqlen_q = maxq};
    if (k->nseq) opt.cu_seqlens_q = &acq, opt.cu_seqlens_k = &ack;
    cute_status s = cutec_attention_fwd_options(lib, &c.aq, &c.ak, &c.av, &c.ao, &c.al, &opt, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    if (s == CUTE_OK) {
        fetch(b, &c.o), fetch(b, &c.lse);
        double worst = 0;
        int64_t bad = 0, q0 = 0, k0 = 0;
        for (int i = 0; i < n; q0 += k->lq[i], k0 += k->lk[i], i++) bad += check_seq(k, &c.q, &c.k, &c.v, &c.o, &c.lse, q0, k0, i, &worst);
        printf("  %s: worst |O - O_ref| %.3g\n", what, worst);
        CHECK(bad == 0, "%s: %lld wrong elements of O and the LSE", what, (long long)bad);
    }
    b->vt->free(b->self, &cuq), b->vt->free(b->self, &cuk);
    attn_fwd_call_drop(b, &c);
}

/* options the library refuses, each with the message that names the problem */
static void misuse(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    cute_buffer none = {0};
    int64_t st[4] = {2 * 4 * 64, 4 * 64, 64, 1};
    cute_call_arg q1 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, st);
    cute_call_arg q2 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){2, 2, 4, 64}, st);
    cute_call_arg cu = cute_call_tensor(&none, 0, CUTE_I32, 1, (int64_t[]){3}, (int64_t[]){1});
    cute_call_arg cu64 = cute_call_tensor(&none, 0, CUTE_I64, 1, (int64_t[]){3}, (int64_t[]){1});
    static const struct {
        int which;
        const char *says;
    } cases[] = {
        {0, "window (-1, 4): sizes 0 to 2^30"}, {1, "cu_seqlens_q without cu_seqlens_k"},
        {2, "Q's batch mode is 2"}, {3, "cu_seqlens_k is not a 1-D i32 tensor"}, {4, "max_seqlen_q 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = cases[i].which;
        cute_attention_options opt = {.window = w == 0, .window_left = -1, .window_right = 4, .max_seqlen_q = w == 4 ? 0 : 2};
        if (w > 0) opt.cu_seqlens_q = &cu, opt.cu_seqlens_k = w == 1 ? NULL : w == 3 ? &cu64 : &cu;
        const cute_call_arg *Q = w == 2 ? &q2 : &q1;
        cute_status s = cutec_attention_fwd_options(lib, Q, Q, Q, Q, NULL, &opt, NULL, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && strstr(err, cases[i].says), "case %d: %s (want \"%s\")", w, err, cases[i].says);
    }
    cute_attention_lib_free(lib);
    cute_runtime_free(rt);
}

int main(void)
{
    seed = check_seed("attention_varlen_test");
    misuse();
    static const opt_case small[] = {
        {0, {150}, {150}, 2, 1, 64, false, true, 20, 5, CUTE_BF16},
        {0, {130}, {130}, 2, 2, 128, true, true, 70, 9, CUTE_F16},
        {0, {100}, {37}, 2, 2, 64, false, true, 10, 3, CUTE_BF16},
        {3, {37, 0, 70}, {50, 10, 70}, 4, 2, 128, true, false, 0, 0, CUTE_BF16},
        {2, {70, 45}, {20, 130}, 2, 1, 64, false, false, 0, 0, CUTE_F16},
        {2, {66, 9}, {80, 9}, 2, 2, 64, false, true, 16, 40, CUTE_BF16},
        /* head dims other than 64, 128 and 256 (the SM80 kernel on every card): plain, causal
         * over packed sequences, windowed */
        {0, {70}, {70}, 2, 1, 96, false, false, 0, 0, CUTE_BF16},
        {2, {45, 70}, {45, 80}, 2, 2, 192, true, false, 0, 0, CUTE_F16},
        {0, {65}, {100}, 2, 2, 32, false, true, 12, 7, CUTE_BF16},
        {0, {40}, {40}, 1, 1, 224, true, false, 0, 0, CUTE_BF16},
        /* causal over sequences of unequal tile counts: the blocks past the shorter one's end
         * take its Q tile 0 in the longest-first order, and once wrote zeros over it */
        {2, {45, 170}, {45, 170}, 1, 1, 64, true, false, 0, 0, CUTE_F16},
    };
    ATTN_TEST_ON("interp", "the forward's options", small);
    static const opt_case gpu[] = {
        {0, {2000}, {2000}, 8, 2, 128, true, true, 256, 0, CUTE_BF16},
        {4, {1000, 1, 777, 513}, {1000, 300, 2049, 513}, 4, 4, 64, true, false, 0, 0, CUTE_F16},
        {3, {300, 700, 129}, {300, 700, 129}, 8, 1, 128, false, true, 100, 100, CUTE_BF16},
        {0, {1500}, {1500}, 8, 2, 96, true, false, 0, 0, CUTE_BF16},
        {2, {1000, 333}, {1000, 777}, 4, 4, 192, false, false, 0, 0, CUTE_F16},
    };
    ATTN_TEST_ON("cuda", "the forward's options", gpu);
    return CHECK_DONE("attention_varlen_test");
}
