/* Jagged HSTU attention (cutec_hstu_attention_jagged) against the float64 reference: on the
 * interpreter at odd lengths (a length-0 and a length-1 sequence, lengths ending mid-tile and
 * on a tile's end, a two-tile one), causal and not, f16 and bf16, head dims 64 and 128, the
 * fast sigmoid, RAB padded past the longest sequence; every row of O, poisoned first; on a
 * GPU, where there is one, at moderate lengths; the Hopper kernel (CUTEC_HSTU_VARIANT=hopper)
 * likewise, on the interpreter traced for sm_90a and on an sm_90 GPU.  Beside them: the
 * misuses the library refuses (host offsets checked, shapes, the dtype, the head dim), and
 * bad device offsets (unchecked) running without a fault. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/hstu.h"
#include "kernels/attention/attention_testbuf.h"
#include "kernels/attention/hstu_ref.h"
#include "kernels/attention/hstu_testkit.h"

static uint64_t seed;

enum { MAX_SEQS = 8 };

typedef struct jagged_case {
    int nseq;
    int32_t len[MAX_SEQS];
    int64_t H, D, pad; /* pad: RAB's N past the longest */
    bool causal, fast;
    cute_dtype d;
} jagged_case;

/* the case's tensors: Q, K, V, O (T, H, D) compact, RAB (B, H, N, N) with rows padded to 8,
 * the offsets in device memory */
typedef struct jagged_call {
    buf q, k, v, r, o, off;
    int32_t host[MAX_SEQS + 1];
    int64_t T, N, sr[4];
    cute_call_arg a[6]; /* Q, K, V, RAB, O, offsets */
} jagged_call;

static void jagged_make(cute_backend *b, const jagged_case *k, jagged_call *c)
{
    int32_t longest = 0;
    c->host[0] = 0;
    for (int s = 0; s < k->nseq; s++) {
        c->host[s + 1] = c->host[s] + k->len[s];
        if (k->len[s] > longest) longest = k->len[s];
    }
    c->T = c->host[k->nseq], c->N = longest + k->pad;
    int64_t row = (c->N + 7) / 8 * 8, T1 = c->T ? c->T : 1, qs[3] = {k->H * k->D, k->D, 1};
    c->sr[3] = 1, c->sr[2] = row, c->sr[1] = c->N * row, c->sr[0] = k->H * c->N * row;
    buf *qkv[] = {&c->q, &c->k, &c->v};
    for (int i = 0; i < 3; i++) make(b, qkv[i], k->d, (size_t)(T1 * k->H * k->D), false, &seed);
    make(b, &c->r, k->d, (size_t)(k->nseq * c->sr[0]), false, &seed);
    make(b, &c->o, k->d, (size_t)(T1 * k->H * k->D), true, &seed);
    make(b, &c->off, CUTE_F32, (size_t)(k->nseq + 1), false, &seed); /* 4-byte room, overwritten */
    b->vt->upload(b->self, &c->off.dev, 0, c->host, (size_t)(k->nseq + 1) * sizeof(int32_t));
    buf *t[] = {&c->q, &c->k, &c->v, NULL, &c->o};
    for (int i = 0; i < 5; i++)
        if (t[i]) c->a[i] = cute_call_tensor(&t[i]->dev, 0, k->d, 3, (int64_t[]){c->T, k->H, k->D}, qs);
    c->a[3] = cute_call_tensor(&c->r.dev, 0, k->d, 4, (int64_t[]){k->nseq, k->H, c->N, c->N}, c->sr);
    c->a[5] = cute_call_tensor(&c->off.dev, 0, CUTE_I32, 1, (int64_t[]){k->nseq + 1}, (int64_t[]){1});
}

static void jagged_drop(cute_backend *b, jagged_call *c)
{
    buf *all[] = {&c->q, &c->k, &c->v, &c->r, &c->o, &c->off};
    for (int i = 0; i < 6; i++) drop(b, all[i]);
}

static cute_status jagged_run(cute_hstu_lib *lib, jagged_call *c, const cute_hstu_jagged *j, bool causal, bool fast,
                              char *err, size_t n)
{
    return cutec_hstu_attention_jagged(lib, &c->a[0], &c->a[1], &c->a[2], &c->a[3], &c->a[4], j, causal, fast, NULL,
                                       err, n);
}

/* every row of O against the reference */
static void jagged_check(cute_backend *b, const jagged_case *k, jagged_call *c, const char *what)
{
    fetch(b, &c->o);
    int64_t H = k->H, D = k->D, bad = 0;
    hstu_ref_problem p = {k->nseq, 0, 0, H, D, k->causal, {c->q.wide, {0, H * D, D, 1}},
                          {c->k.wide, {0, H * D, D, 1}}, {c->v.wide, {0, H * D, D, 1}},
                          {c->r.wide, {c->sr[0], c->sr[1], c->sr[2], 1}}, c->host};
    double *want = malloc((size_t)D * 3 * sizeof(double)), *mag = want + D, worst = 0;
    for (int s = 0; s < k->nseq; s++)
        for (int64_t i = 0; i < k->len[s]; i++)
            for (int64_t h = 0; h < H; h++) {
                hstu_ref_row(&p, s, i, h, want, mag);
                for (int64_t d = 0; d < D; d++) {
                    double got = ew_get(k->d, c->o.host, ((c->host[s] + i) * H + h) * D + d);
                    bad += !hstu_ref_close(got, want[d], mag[d], mag[D + d], k->d == CUTE_BF16, k->fast);
                    if (!(fabs(got - want[d]) <= worst)) worst = fabs(got - want[d]);
                }
            }
    CHECK(bad == 0, "%s: %lld of %lld elements of O wrong (worst |err| %g)", what, (long long)bad,
          (long long)(c->T * H * D), worst);
    free(want);
}

static void run_case(cute_hstu_lib *lib, cute_backend *b, const void *kase, const char *backend)
{
    const jagged_case *k = kase;
    jagged_call c;
    jagged_make(b, k, &c);
    char what[256], err[1024];
    int at = snprintf(what, sizeof what, "%s %s H%lld D%lld%s%s N+%lld lengths", backend, cute_dtype_name(k->d),
                      (long long)k->H, (long long)k->D, k->causal ? " causal" : "", k->fast ? " fast" : "",
                      (long long)k->pad);
    for (int s = 0; s < k->nseq && at < (int)sizeof what - 12; s++)
        at += snprintf(what + at, sizeof what - (size_t)at, " %d", k->len[s]);
    /* max_len from the host offsets, or given (as a caller without them gives it) */
    cute_hstu_jagged j = {&c.a[5], k->nseq & 1 ? c.host : NULL, k->nseq & 1 ? 0 : c.N};
    cute_status s = jagged_run(lib, &c, &j, k->causal, k->fast, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s", what, err);
    if (s == CUTE_OK) jagged_check(b, k, &c, what);
    jagged_drop(b, &c);
}

static void run_on(const char *backend, const jagged_case *cases, int n)
{
    hstu_test_run_on(backend, "jagged hstu attention", run_case, cases, sizeof cases[0], n);
}

/* a call refused with words naming `want` */
static void refused(cute_hstu_lib *lib, jagged_call *c, const cute_hstu_jagged *j, const char *want)
{
    char err[512] = "";
    hstu_test_refused(jagged_run(lib, c, j, false, false, err, sizeof err), err, want);
}

static void misuse(void)
{
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_hstu_lib *lib = cute_hstu_lib_new(rt);
    cute_backend *b = cute_runtime_backend(rt);
    static const jagged_case k = {3, {5, 0, 9}, 1, 64, 0, false, false, CUTE_F16};
    jagged_call c;
    jagged_make(b, &k, &c);
    int32_t h[4] = {0, 5, 5, 14};
    cute_hstu_jagged j = {&c.a[5], h, 0};
    h[2] = 4, refused(lib, &c, &j, "seq_offsets decrease at 2: 5 then 4");
    h[2] = 5, h[3] = 13, refused(lib, &c, &j, "seq_offsets end at 13 but Q has 14 rows");
    h[3] = 14, h[0] = -1, refused(lib, &c, &j, "seq_offsets[0] is -1 (0)");
    h[0] = 0, j.max_len = 8, refused(lib, &c, &j, "max_len 8 but a sequence is 9 long");
    j.host_offsets = NULL, j.max_len = 0, refused(lib, &c, &j, "max_len 0 (1 to RAB's N = 9");
    j.max_len = 10, refused(lib, &c, &j, "max_len 10 (1 to RAB's N = 9");
    j.max_len = 9;
    cute_call_arg keep = c.a[5];
    c.a[5].dtype = CUTE_I64, refused(lib, &c, &j, "seq_offsets is not a 1-D i32 tensor");
    c.a[5] = keep, c.a[5].stride[0] = 2, refused(lib, &c, &j, "seq_offsets has 4 offsets with stride 2");
    c.a[5] = keep, keep = c.a[3];
    c.a[3].shape[3] = 10, refused(lib, &c, &j, "jagged RAB is (3, 1, 9, 10), not (B, H, N, N)");
    c.a[3].shape[3] = 9, c.a[3].shape[0] = 2;
    refused(lib, &c, &j, "RAB is (2, 1, 9, 9) but (B, H, Sq, Sk) is (3, 1, 9, 9)");
    c.a[3] = keep, keep = c.a[0];
    c.a[0].ndim = 4, refused(lib, &c, &j, "jagged Q is not a (T, H, D) tensor");
    c.a[0] = keep, c.a[0].shape[0] = 13, refused(lib, &c, &j, "jagged K is (14, 1, 64) but Q (13, 1, 64)");
    c.a[0] = keep, c.a[0].dtype = CUTE_F32, refused(lib, &c, &j, "Q is f32 (f16 or bf16)");
    c.a[0] = keep;
    cute_call_arg was[6]; /* Q, K, V and O at head dim 96, one shape */
    memcpy(was, c.a, sizeof was);
    for (int i = 0; i < 5; i++)
        if (i != 3) c.a[i].shape[2] = 96, c.a[i].stride[0] = 96;
    refused(lib, &c, &j, "head dim 96 (64 or 128)");
    memcpy(c.a, was, sizeof was);
    j.seq_offsets = NULL, refused(lib, &c, &j, "seq_offsets is not");
    j.seq_offsets = &c.a[5];
    /* bad device offsets (unchecked: no host copy) give wrong rows, never a fault */
    int32_t wild[4] = {3, -7, 0, 400};
    b->vt->upload(b->self, &c.off.dev, 0, wild, sizeof wild);
    CHECK(jagged_run(lib, &c, &j, true, false, err, sizeof err) == CUTE_OK && b->vt->sync(b->self, NULL) == CUTE_OK,
          "bad device offsets: %s", err);
    jagged_drop(b, &c);
    cute_hstu_lib_free(lib);
    cute_runtime_free(rt);
}

int main(void)
{
    seed = check_seed("hstu_jagged_test");
    static const jagged_case small[] = {
        {5, {0, 70, 1, 130, 33}, 2, 64, 6, true, false, CUTE_BF16}, /* empty, one row, mid-tile, two tiles */
        {4, {1, 65, 0, 40}, 1, 128, 0, false, true, CUTE_F16},       /* fast; max_len given */
        {3, {64, 0, 127}, 1, 64, 3, false, false, CUTE_BF16},        /* a tile's end exactly */
        {2, {0, 0}, 1, 64, 1, true, false, CUTE_F16},                /* every sequence empty: T = 0 */
    };
    run_on("interp", small, (int)(sizeof small / sizeof small[0]));
    misuse();
    static const jagged_case moderate[] = {
        {6, {300, 0, 1, 129, 513, 64}, 2, 128, 5, true, false, CUTE_BF16},
        {3, {777, 1, 250}, 2, 64, 0, false, true, CUTE_F16},
    };
    run_on("cuda", moderate, (int)(sizeof moderate / sizeof moderate[0]));
    /* the Hopper kernel (CUTEC_HSTU_VARIANT=hopper, read as the library compiles): 128-row Q
     * tiles, TMA boxes running into the next sequence's rows, which only the mask keeps out
     * when not causal (one small case: each block costs the interpreter ~35 ms here) */
    static const jagged_case hopper_small[] = {
        {2, {9, 130}, 1, 64, 2, false, false, CUTE_BF16}, /* a block past the first's end; 2 rows in a tile */
    };
    setenv("CUTEC_HSTU_VARIANT", "hopper", 1);
    run_on("interp", hopper_small, (int)(sizeof hopper_small / sizeof hopper_small[0]));
    run_on("cuda", moderate, (int)(sizeof moderate / sizeof moderate[0]));
    unsetenv("CUTEC_HSTU_VARIANT");
    return CHECK_DONE("hstu_jagged_test");
}
