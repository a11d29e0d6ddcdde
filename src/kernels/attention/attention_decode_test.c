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
    attn_fwd_call c; /* Q and O one row a sequence */
    attn_fwd_make(b, k->B, 1, k->Sk, k->H, k->G, k->D, k->sdpa, k->d, &seed, &c);
    cute_attention_lib_decode_splits(lib, k->splits);
    bool with_lse = k->splits != 3; /* one case asks for no LSE: the splits' are still combined */
    cute_status s = cutec_attention_decode(lib, &c.aq, &c.ak, &c.av, &c.ao, with_lse ? &c.al : NULL, 0, NULL, err,
                                           sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, err, b->vt->error(b->self));
    if (s == CUTE_OK) {
        fetch(b, &c.o), fetch(b, &c.lse);
        attn_ref_problem p = attn_fwd_problem(&c, false, 0);
        double worst = 0;
        int64_t bad = check(k, &p, &c.o, with_lse ? &c.lse : NULL, c.sq, &worst);
        printf("  %s: worst |O - O_ref| %.3g\n", what, worst);
        CHECK(bad == 0, "%s: %lld wrong elements of O and the LSE", what, (long long)bad);
    }
    attn_fwd_call_drop(b, &c);
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
    /* both kernels dependent launches (CUTEC_ATTN_DECODE_PDL=1; on the GPU calls back to
     * back, the check's poisoned outputs before them): forced splits and the library's, GQA
     * and MHA */
    static const dec_case pdl[] = {
        {2, 300, 8, 2, 128, true, 0, CUTE_BF16},
        {3, 197, 5, 5, 96, false, 3, CUTE_F16},
    };
    setenv("CUTEC_ATTN_DECODE_PDL", "1", 1);
    ATTN_TEST_ON("interp", "attention decode (both kernels dependent launches)", pdl);
    static const dec_case gpu[] = {
        {8, 32768, 32, 8, 128, true, 0, CUTE_BF16},
        {2, 5000, 32, 32, 128, false, 0, CUTE_F16},
        {3, 777, 16, 2, 64, true, 7, CUTE_BF16},
    };
    /* (the last two of gpu's cases) */
    attn_test_on("cuda", "attention decode (both kernels dependent launches)", run_case, gpu + 1, sizeof gpu[0], 2);
    unsetenv("CUTEC_ATTN_DECODE_PDL");
    ATTN_TEST_ON("cuda", "attention decode", gpu);
    return CHECK_DONE("attention_decode_test");
}
