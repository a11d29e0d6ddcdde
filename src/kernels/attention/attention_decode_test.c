/* Attention decode (cutec_attention_decode) against the float64 reference: one query row a
 * sequence, grouped-query (1 to 16 query heads a KV head), key lengths that end inside a
 * tile, several splits (the library's choice and forced counts, one split a tile), Q and O
 * in SDPA's transposed memory, f16 and bf16, head dims 64 and 128; every element of O and
 * the LSE, the outputs poisoned first.  On the interpreter, and on a GPU where there is one
 * (a 32k KV cache).  Beside them: the calls decode refuses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/attention.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/attention/attention_testbuf.h"

static uint64_t seed;

typedef struct dec_case {
    int64_t B, Sk, H, G, D;
    bool sdpa;
    int splits; /* 0: the library's choice */
    cute_dtype d;
} dec_case;

static int64_t check(const dec_case *k, const attn_ref_problem *p, const buf *o, const buf *lse, const int64_t sq[4],
                     double *worst)
{
    double *want = malloc((size_t)k->D * 2 * sizeof *want), *mag = want + k->D, l;
    int64_t bad = 0;
    for (int64_t b = 0; b < k->B; b++)
        for (int64_t h = 0; h < k->H; h++) {
            attn_ref_row(p, b, 0, h, want, mag, &l);
            for (int64_t d = 0; d < k->D; d++) {
                double got = o->wide[b * sq[0] + h * sq[2] + d];
                bad += !attn_ref_close(got, want[d], mag[d], k->d == CUTE_BF16);
                if (!(fabs(got - want[d]) <= *worst)) *worst = fabs(got - want[d]);
            }
            if (lse) bad += !(fabs(lse->wide[b * k->H + h] - l) <= 1e-4 * (1 + fabs(l)));
        }
    free(want);
    return bad;
}

static void run_case(cute_attention_lib *lib, cute_backend *b, const void *one, const char *backend)
{
    const dec_case *k = one;
    char what[200], err[2048];
    snprintf(what, sizeof what, "%s %s B%lld Sk%lld H%lld G%lld D%lld splits %d%s", backend, cute_dtype_name(k->d),
             (long long)k->B, (long long)k->Sk, (long long)k->H, (long long)k->G, (long long)k->D, k->splits,
             k->sdpa ? " sdpa-layout" : "");
    int64_t sq[4], sk[4];
    strides(1, k->H, k->D, k->sdpa, sq);
    strides(k->Sk, k->G, k->D, false, sk);
    buf q, kk, v, o, lse;
    make(b, &q, k->d, (size_t)(k->B * k->H * k->D), false, &seed);
    make(b, &kk, k->d, (size_t)(k->B * k->Sk * k->G * k->D), false, &seed);
    make(b, &v, k->d, kk.n, false, &seed);
    make(b, &o, k->d, q.n, true, &seed);
    make(b, &lse, CUTE_F32, (size_t)(k->B * k->H), true, &seed);
    cute_call_arg aq = cute_call_tensor(&q.dev, 0, k->d, 4, (int64_t[]){k->B, 1, k->H, k->D}, sq);
    cute_call_arg ak = cute_call_tensor(&kk.dev, 0, k->d, 4, (int64_t[]){k->B, k->Sk, k->G, k->D}, sk);
    cute_call_arg av = cute_call_tensor(&v.dev, 0, k->d, 4, (int64_t[]){k->B, k->Sk, k->G, k->D}, sk);
    cute_call_arg ao = cute_call_tensor(&o.dev, 0, k->d, 4, (int64_t[]){k->B, 1, k->H, k->D}, sq);
    cute_call_arg al = cute_call_tensor(&lse.dev, 0, CUTE_F32, 3, (int64_t[]){k->B, k->H, 1}, (int64_t[]){k->H, 1, 1});
    cute_attention_lib_decode_splits(lib, k->splits);
    bool with_lse = k->splits != 3; /* one case asks for no LSE: the splits' are still combined */
    cute_status s = cutec_attention_decode(lib, &aq, &ak, &av, &ao, with_lse ? &al : NULL, 0, NULL, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    if (s == CUTE_OK) {
        fetch(b, &o), fetch(b, &lse);
        attn_ref_problem p = {k->B, 1, k->Sk, k->H, k->G, k->D, false, 1 / sqrt((double)k->D),
                              {q.wide, {sq[0], sq[1], sq[2], 1}}, {kk.wide, {sk[0], sk[1], sk[2], 1}},
                              {v.wide, {sk[0], sk[1], sk[2], 1}}};
        double worst = 0;
        int64_t bad = check(k, &p, &o, with_lse ? &lse : NULL, sq, &worst);
        printf("  %s: worst |O - O_ref| %.3g\n", what, worst);
        CHECK(bad == 0, "%s: %lld wrong elements of O and the LSE", what, (long long)bad);
    }
    buf *all[5] = {&q, &kk, &v, &o, &lse};
    for (int i = 0; i < 5; i++) drop(b, all[i]);
}

static void misuse(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    cute_buffer none = {0};
    int64_t st[4] = {2 * 32 * 64, 32 * 64, 64, 1};
    cute_call_arg q2 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 4, 64}, st);
    cute_call_arg q32 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 1, 32, 64}, st);
    cute_call_arg k1 = cute_call_tensor(&none, 0, CUTE_BF16, 4, (int64_t[]){1, 2, 1, 64}, st);
    cute_status s = cutec_attention_decode(lib, &q2, &k1, &k1, &q2, NULL, 0, NULL, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "Q has 2 rows a sequence (decode takes one)"), "%s", err);
    s = cutec_attention_decode(lib, &q32, &k1, &k1, &q32, NULL, 0, NULL, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "32 query heads a key/value head (at most 16)"), "%s", err);
    CHECK(!cute_attention_lib_decode_splits(lib, -1), "a negative split count accepted");
    cute_attention_lib_free(lib);
    cute_runtime_free(rt);
}

int main(void)
{
    seed = check_seed("attention_decode_test");
    misuse();
    static const dec_case small[] = {
        {2, 300, 8, 2, 128, true, 0, CUTE_BF16},
        {1, 1000, 4, 4, 64, false, 3, CUTE_F16},
        {1, 130, 16, 1, 64, true, 100, CUTE_BF16},
        {1, 37, 6, 2, 128, false, 1, CUTE_F16},
    };
    ATTN_TEST_ON("interp", "attention decode", small);
    static const dec_case gpu[] = {
        {8, 32768, 32, 8, 128, true, 0, CUTE_BF16},
        {2, 5000, 32, 32, 128, false, 0, CUTE_F16},
        {3, 777, 16, 2, 64, true, 7, CUTE_BF16},
    };
    ATTN_TEST_ON("cuda", "attention decode", gpu);
    return CHECK_DONE("attention_decode_test");
}
