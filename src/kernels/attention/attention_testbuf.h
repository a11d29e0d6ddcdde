/* The attention tests' tensors (attention_test.c, attention_bwd_test.c, the decode, varlen,
 * HSTU and Blackwell tests): host values, their exact widening to double, the device buffer;
 * random or poisoned; and a forward call's five. */
#ifndef CUTEC_ATTENTION_TESTBUF_H
#define CUTEC_ATTENTION_TESTBUF_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/attention.h"
#include "cutec/backend.h"
#include "cutec/cuda_driver.h"
#include "cutec/nvrtc.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/ew_ref.h"

typedef struct buf {
    cute_dtype d;
    size_t n;
    void *host;
    double *wide;
    cute_buffer dev;
} buf;

/* n elements of d: random (ew_random), or poisoned (all ones bits: NaN in every float type) */
static inline void make(cute_backend *b, buf *x, cute_dtype d, size_t n, bool poison, uint64_t *seed)
{
    x->d = d, x->n = n;
    size_t es = (size_t)cute_dtype_bytes(d);
    x->host = malloc(n * es);
    x->wide = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        if (poison)
            memset((char *)x->host + i * es, 0xff, es);
        else
            ew_set(d, x->host, (int64_t)i, ew_random(seed));
        x->wide[i] = ew_get(d, x->host, (int64_t)i);
    }
    b->vt->alloc(b->self, n * es, &x->dev);
    b->vt->upload(b->self, &x->dev, 0, x->host, n * es);
}

static inline void drop(cute_backend *b, buf *x)
{
    b->vt->free(b->self, &x->dev);
    free(x->host), free(x->wide);
}

/* the device's values back into host and wide */
static inline void fetch(cute_backend *b, buf *x)
{
    b->vt->download(b->self, x->host, &x->dev, 0, x->n * (size_t)cute_dtype_bytes(x->d));
    for (size_t i = 0; i < x->n; i++) x->wide[i] = ew_get(x->d, x->host, (int64_t)i);
}

/* (B, S, heads, D) strides: compact, or (sdpa) of memory laid out (B, heads, S, D) */
static inline void strides(int64_t S, int64_t heads, int64_t D, bool sdpa, int64_t st[4])
{
    st[0] = S * heads * D, st[3] = 1;
    st[1] = sdpa ? D : heads * D;
    st[2] = sdpa ? S * D : D;
}

/* The five tensors of a forward-like call (attn_fwd_make): Q, K and V fresh gaussian, O and the
 * LSE poisoned; Q and O (B, Sq, H, D) (in SDPA's memory layout where sdpa), K and V
 * (B, Sk, G, D), the LSE (B, H, Sq); their call arguments; attn_fwd_problem is the float64
 * reference's problem over the same inputs.  attn_fwd_call_drop frees the buffers. */
typedef struct attn_fwd_call {
    buf q, k, v, o, lse;
    int64_t B, Sq, Sk, H, G, D;
    int64_t sq[4], sk[4];
    cute_call_arg aq, ak, av, ao, al;
    attn_ref_problem p; /* attn_fwd_test_call's, after a good call */
} attn_fwd_call;

static inline void attn_fwd_make(cute_backend *b, int64_t B, int64_t Sq, int64_t Sk, int64_t H, int64_t G, int64_t D,
                                 bool sdpa, cute_dtype d, uint64_t *seed, attn_fwd_call *c)
{
    c->B = B, c->Sq = Sq, c->Sk = Sk, c->H = H, c->G = G, c->D = D;
    strides(Sq, H, D, sdpa, c->sq);
    strides(Sk, G, D, false, c->sk);
    make(b, &c->q, d, (size_t)(B * Sq * H * D), false, seed);
    make(b, &c->k, d, (size_t)(B * Sk * G * D), false, seed);
    make(b, &c->v, d, (size_t)(B * Sk * G * D), false, seed);
    make(b, &c->o, d, c->q.n, true, seed);
    make(b, &c->lse, CUTE_F32, (size_t)(B * H * Sq), true, seed);
    c->aq = cute_call_tensor(&c->q.dev, 0, d, 4, (int64_t[]){B, Sq, H, D}, c->sq);
    c->ak = cute_call_tensor(&c->k.dev, 0, d, 4, (int64_t[]){B, Sk, G, D}, c->sk);
    c->av = cute_call_tensor(&c->v.dev, 0, d, 4, (int64_t[]){B, Sk, G, D}, c->sk);
    c->ao = cute_call_tensor(&c->o.dev, 0, d, 4, (int64_t[]){B, Sq, H, D}, c->sq);
    c->al = cute_call_tensor(&c->lse.dev, 0, CUTE_F32, 3, (int64_t[]){B, H, Sq}, (int64_t[]){H * Sq, Sq, 1});
}

/* the reference's problem over c's inputs (scale 0: 1 / sqrt(D)) */
static inline attn_ref_problem attn_fwd_problem(const attn_fwd_call *c, bool causal, double scale)
{
    return (attn_ref_problem){c->B, c->Sq, c->Sk, c->H, c->G, c->D, causal, scale > 0 ? scale : 1 / sqrt((double)c->D),
                              {c->q.wide, {c->sq[0], c->sq[1], c->sq[2], c->sq[3]}},
                              {c->k.wide, {c->sk[0], c->sk[1], c->sk[2], c->sk[3]}},
                              {c->v.wide, {c->sk[0], c->sk[1], c->sk[2], c->sk[3]}}};
}

/* One forward call of cutec_attention_fwd on attn_fwd_make's tensors.  After a good call O and
 * the LSE are on the host (not widened) and c->p is the reference's problem. */
static inline cute_status attn_fwd_test_call(cute_attention_lib *lib, cute_backend *b, int64_t B, int64_t Sq,
                                             int64_t Sk, int64_t H, int64_t G, int64_t D, bool causal, bool sdpa,
                                             cute_dtype d, double scale, uint64_t *seed, attn_fwd_call *c,
                                             char *err, size_t n)
{
    attn_fwd_make(b, B, Sq, Sk, H, G, D, sdpa, d, seed, c);
    cute_status s = cutec_attention_fwd(lib, &c->aq, &c->ak, &c->av, &c->ao, &c->al, scale, causal, NULL, err, n);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK) return s;
    b->vt->download(b->self, c->o.host, &c->o.dev, 0, c->o.n * (size_t)cute_dtype_bytes(d));
    b->vt->download(b->self, c->lse.host, &c->lse.dev, 0, c->lse.n * sizeof(float));
    c->p = attn_fwd_problem(c, causal, scale);
    return CUTE_OK;
}

static inline void attn_fwd_call_drop(cute_backend *b, attn_fwd_call *c)
{
    buf *all[5] = {&c->q, &c->k, &c->v, &c->o, &c->lse};
    for (int i = 0; i < 5; i++) drop(b, all[i]);
}

/* each of n cases (case_bytes apart) through run on a fresh library of the backend, or a
 * visible skip (`what`) where the backend cannot start (no GPU) */
typedef void attn_test_run(cute_attention_lib *lib, cute_backend *b, const void *one, const char *backend);
static inline void attn_test_on(const char *backend, const char *what, attn_test_run *run, const void *cases,
                                size_t case_bytes, int n)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        printf("%s: %s\n", backend, err);
        printf("no GPU: %s ran on the interpreter only\n", what);
        SKIP("no GPU");
        return;
    }
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    for (int i = 0; i < n && check_sweep_runs(i); i++) run(lib, cute_runtime_backend(rt), (const char *)cases + (size_t)i * case_bytes, backend);
    cute_attention_lib_free(lib);
    cute_runtime_free(rt);
}

/* the ptxas report (--emit usage) of cfg compiled by `compile` for arch, in *report (the
 * caller frees it); false (and a skip) where NVRTC is not installed */
typedef const cute_fn *attn_test_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err, size_t n);
static inline bool attn_test_usage(attn_test_compile *compile, const cute_attention_config *cfg, const char *arch,
                                   char **report)
{
    char err[2048];
    cute_nvrtc *nv;
    *report = NULL;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: a register report was not made");
        return false;
    }
    cute_nvrtc_close(nv);
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_runtime_set_target_arch(rt, arch);
    const cute_fn *f = compile(rt, cfg, err, sizeof err);
    cute_status s = f ? cute_fn_code(f, "usage", arch, report, err, sizeof err) : CUTE_ERR_COMPILE;
    CHECK(s == CUTE_OK, "d%d %s: %s", cfg->head_dim, arch, err);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return s == CUTE_OK;
}

/* The first accumulator a wgmma at s writes, as the CUDA C names it ("+f"(r262_f)) */
static inline size_t attn_test_wgmma_acc(const char *s, const char **acc)
{
    const char *a = strstr(s, "\"+f\"(");
    const char *e = a ? strchr(a, ')') : NULL;
    *acc = a;
    return e ? (size_t)(e - a) : 0;
}

/* The wgmma chains of cfg's kernels (CUDA C for sm_90a, which needs no NVRTC) that a
 * wgmma.fence splits: a fence between two wgmmas of one batch on the same accumulators.
 * ptxas makes each of those wgmmas a group of its own, so that a wait_group 1 after the
 * batch (the softmax overlapping P V; the next step's dS overlapping the products) waits
 * for all of it but its last instruction.  -1: no code. */
static inline int attn_test_split_chains(attn_test_compile *compile, const cute_attention_config *cfg)
{
    char err[2048], *src = NULL;
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    cute_runtime_set_target_arch(rt, "sm_90a");
    const cute_fn *f = compile(rt, cfg, err, sizeof err);
    cute_status st = f ? cute_fn_code(f, "cuda", "sm_90a", &src, err, sizeof err) : CUTE_ERR_COMPILE;
    CHECK(st == CUTE_OK, "d%d: %s", cfg->head_dim, err);
    int split = st == CUTE_OK ? 0 : -1;
    const char *acc = NULL;
    size_t len = 0;
    bool fenced = false;
    for (const char *s = src; s && (s = strstr(s, "wgmma.")); s += 6) {
        if (!strncmp(s, "wgmma.commit_group", 18)) acc = NULL, fenced = false;
        else if (!strncmp(s, "wgmma.fence", 11)) fenced = acc != NULL;
        else if (!strncmp(s, "wgmma.mma_async", 15)) {
            const char *a;
            size_t n = attn_test_wgmma_acc(s, &a);
            split += fenced && acc && n == len && !strncmp(a, acc, n);
            acc = a, len = n, fenced = false;
        }
    }
    free(src);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return split;
}

/* whether a case asking for `wanted` runs on backend b: the Hopper kernels only on an sm_90
 * GPU (or the interpreter); elsewhere a visible skip naming `what` */
static inline bool attn_test_hopper_here(cute_backend *b, cute_attention_variant wanted, const char *what)
{
    cute_cuda *cu = cute_cuda_backend_driver(b);
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    if (wanted != CUTE_ATTENTION_HOPPER || !d || d->cc_major == 9) return true;
    char why[160];
    snprintf(why, sizeof why, "not an sm_90 GPU: %s ran on the interpreter only", what);
    SKIP(why);
    return false;
}

/* a static array of cases through the file's run_case */
#define ATTN_TEST_ON(backend, what, cases) \
    attn_test_on(backend, what, run_case, cases, sizeof cases[0], (int)(sizeof cases / sizeof cases[0]))

#endif
