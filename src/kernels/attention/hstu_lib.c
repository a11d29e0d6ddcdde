/* The HSTU attention library (cutec_hstu_attention): checks a call and names what is wrong in
 * words, compiles each configuration (dtype, head dim, causal, sigmoid) once per runtime
 * and calls it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutec/hstu.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/fn_cache.h"

struct cute_hstu_lib {
    cute_runtime *rt;
    pthread_mutex_t lock;
    fn_cache fns; /* cute_hstu_config keys */
};

static bool same(const void *x, const void *y)
{
    const cute_hstu_config *a = x, *b = y;
    return a->dtype == b->dtype && a->head_dim == b->head_dim && a->causal == b->causal &&
           a->fast_sigmoid == b->fast_sigmoid && a->jagged == b->jagged;
}

cute_hstu_lib *cute_hstu_lib_new(cute_runtime *rt)
{
    cute_hstu_lib *lib = calloc(1, sizeof *lib);
    if (!lib) return NULL;
    lib->rt = rt;
    pthread_mutex_init(&lib->lock, NULL);
    fn_cache_init(&lib->fns, sizeof(cute_hstu_config), same);
    return lib;
}

void cute_hstu_lib_free(cute_hstu_lib *lib)
{
    if (!lib) return;
    fn_cache_free(&lib->fns);
    pthread_mutex_destroy(&lib->lock);
    free(lib);
}

static const cute_fn *compile(cute_runtime *rt, const void *cfg, const void *user, char *err, size_t n)
{
    (void)user;
    return cute_hstu_compile(rt, cfg, err, n);
}

/* one of Q, K, V, O: the attention's own rules (rank 4, Q's dtype, D contiguous, strides
 * multiples of 8), its words prefixed */
static bool operand_ok(const cute_call_arg *t, const char *name, cute_dtype d, char *err, size_t n)
{
    char why[512];
    if (attn_operand_ok(t, name, d, why, sizeof why)) return true;
    return snprintf(err, n, "hstu %s", why), false;
}

/* RAB (B, H, Sq, Sk) of Q's dtype, Sk contiguous, the other strides multiples of 8 */
static bool rab_ok(const cute_call_arg *r, const int64_t want[4], cute_dtype d, char *err, size_t n)
{
    if (!r || r->kind != CUTE_ARG_TENSOR || r->ndim != 4)
        return snprintf(err, n, "hstu attention: RAB is not a (B, H, Sq, Sk) tensor"), false;
    if (r->dtype != d)
        return snprintf(err, n, "hstu attention: RAB is %s, Q %s (one dtype for every tensor)",
                        cute_dtype_name((cute_dtype)r->dtype), cute_dtype_name(d)), false;
    for (int m = 0; m < 4; m++)
        if (r->shape[m] != want[m])
            return snprintf(err, n, "hstu attention: RAB is (%lld, %lld, %lld, %lld) but (B, H, Sq, Sk) is "
                            "(%lld, %lld, %lld, %lld)", (long long)r->shape[0], (long long)r->shape[1], (long long)r->shape[2],
                            (long long)r->shape[3], (long long)want[0], (long long)want[1], (long long)want[2],
                            (long long)want[3]), false;
    if (r->shape[3] > 1 && r->stride[3] != 1)
        return snprintf(err, n, "hstu attention: RAB's keys have stride %lld (they must be contiguous)",
                        (long long)r->stride[3]), false;
    for (int m = 0; m < 3; m++)
        if (r->stride[m] % 8 || r->stride[m] < 0)
            return snprintf(err, n, "hstu attention: RAB's stride %d is %lld (a multiple of 8 elements: rows start "
                            "16 bytes aligned; pad Sk's rows)", m, (long long)r->stride[m]), false;
    return true;
}

static const char *const operand_names[4] = {"Q", "K", "V", "O"};

/* Q, K, V and O (t, each (B, S, H, D) or a jagged one's (1, T, H, D)): Q a tensor of f16 or
 * bf16, the four by the attention's rules in its dtype */
static bool operands_ok(const cute_call_arg *const t[4], char *err, size_t n)
{
    if (!t[0] || t[0]->kind != CUTE_ARG_TENSOR)
        return snprintf(err, n, "hstu attention: Q is not a (B, Sq, H, D) tensor"), false;
    cute_dtype d = (cute_dtype)t[0]->dtype;
    if (d != CUTE_F16 && d != CUTE_BF16)
        return snprintf(err, n, "hstu attention: Q is %s (f16 or bf16)", cute_dtype_name(d)), false;
    for (int i = 0; i < 4; i++)
        if (!operand_ok(t[i], operand_names[i], d, err, n)) return false;
    return true;
}

static bool head_dim_ok(int64_t D, char *err, size_t n)
{
    if (D == 64 || D == 128) return true;
    return snprintf(err, n, "hstu attention: head dim %lld (64 or 128)", (long long)D), false;
}

static bool call_ok(const cute_call_arg *const t[4], const cute_call_arg *rab, bool causal, char *err, size_t n)
{
    if (!operands_ok(t, err, n)) return false;
    cute_dtype d = (cute_dtype)t[0]->dtype;
    const int64_t *q = t[0]->shape, *k = t[1]->shape;
    for (int m = 0; m < 4; m++) {
        if (t[3]->shape[m] != q[m] || t[2]->shape[m] != k[m])
            return snprintf(err, n, "hstu attention: O must be shaped as Q and V as K (mode %d: O %lld, Q %lld, "
                            "V %lld, K %lld)", m, (long long)t[3]->shape[m], (long long)q[m], (long long)t[2]->shape[m],
                            (long long)k[m]), false;
        if (m != 1 && k[m] != q[m])
            return snprintf(err, n, "hstu attention: K is (B=%lld, Sk, H=%lld, D=%lld) but Q (B=%lld, Sq, H=%lld, "
                            "D=%lld)", (long long)k[0], (long long)k[2], (long long)k[3], (long long)q[0],
                            (long long)q[2], (long long)q[3]), false;
    }
    if (!head_dim_ok(q[3], err, n)) return false;
    if (k[1] == 0)
        return snprintf(err, n, "hstu attention: Sk = 0 (K and V hold no keys)"), false;
    if (causal && k[1] < q[1])
        return snprintf(err, n, "hstu attention: causal with Sk %lld < Sq %lld (top-left causal asks Sk >= Sq)",
                        (long long)k[1], (long long)q[1]), false;
    return rab_ok(rab, (const int64_t[4]){q[0], q[2], q[1], k[1]}, d, err, n);
}

/* compile (once) and call cfg's function on args */
static cute_status launch(cute_hstu_lib *lib, const cute_hstu_config *cfg, int nargs, const cute_call_arg *args,
                          void *stream, char *err, size_t n)
{
    pthread_mutex_lock(&lib->lock);
    const cute_fn *f = fn_cache_fn(&lib->fns, lib->rt, cfg, compile, NULL, "hstu attention", err, n);
    pthread_mutex_unlock(&lib->lock);
    if (!f) return CUTE_ERR_COMPILE;
    char why[4096];
    cute_status st = cute_call(f, stream, nargs, args, why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "hstu attention: %s", why);
    return st;
}

cute_status cutec_hstu_attention(cute_hstu_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                 const cute_call_arg *V, const cute_call_arg *RAB, const cute_call_arg *O, bool causal,
                                 bool fast_sigmoid, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "hstu attention: no library"), CUTE_ERR_INVALID;
    const cute_call_arg *t[4] = {Q, K, V, O};
    if (!call_ok(t, RAB, causal, err, n)) return CUTE_ERR_INVALID;
    if (Q->shape[0] == 0 || Q->shape[1] == 0 || Q->shape[2] == 0) return CUTE_OK;
    cute_hstu_config cfg = {.dtype = (cute_dtype)Q->dtype, .head_dim = (int)Q->shape[3], .causal = causal,
                            .fast_sigmoid = fast_sigmoid};
    cute_call_arg args[5] = {*Q, *K, *V, *RAB, *O};
    return launch(lib, &cfg, 5, args, stream, err, n);
}

/* --- jagged ------------------------------------------------------------------------------ */

/* one of Q, K, V, O: (T, H, D), seen as (1, T, H, D) */
static bool packed(const cute_call_arg *t, const char *name, cute_call_arg *as4, char *err, size_t n)
{
    if (!t || t->kind != CUTE_ARG_TENSOR || t->ndim != 3)
        return snprintf(err, n, "hstu attention: jagged %s is not a (T, H, D) tensor", name), false;
    *as4 = *t;
    as4->ndim = 4, as4->shape[0] = 1, as4->stride[0] = t->shape[0] * t->stride[0];
    for (int m = 0; m < 3; m++) as4->shape[m + 1] = t->shape[m], as4->stride[m + 1] = t->stride[m];
    return true;
}

/* host offsets: 0 first, T last, never decreasing, and the longest length from them where
 * max_len is 0; max_len 1 to RAB's N (rab_n) */
static bool offsets_ok(const cute_hstu_jagged *j, int64_t total, int64_t rab_n, int64_t *max_len, char *err, size_t n)
{
    const cute_call_arg *o = j->seq_offsets;
    *max_len = j->max_len;
    if (j->host_offsets) {
        const int32_t *h = j->host_offsets;
        int64_t longest = 0;
        if (h[0] != 0) return snprintf(err, n, "hstu attention: seq_offsets[0] is %d (0)", h[0]), false;
        for (int64_t b = 0; b + 1 < o->shape[0]; b++) {
            if (h[b + 1] < h[b])
                return snprintf(err, n, "hstu attention: seq_offsets decrease at %lld: %d then %d (never "
                                "decreasing)", (long long)b + 1, h[b], h[b + 1]), false;
            if (h[b + 1] - h[b] > longest) longest = h[b + 1] - h[b];
        }
        if (h[o->shape[0] - 1] != total)
            return snprintf(err, n, "hstu attention: seq_offsets end at %d but Q has %lld rows (the last offset "
                            "is T)", h[o->shape[0] - 1], (long long)total), false;
        if (!*max_len) *max_len = longest ? longest : 1;
        if (*max_len < longest)
            return snprintf(err, n, "hstu attention: max_len %lld but a sequence is %lld long", (long long)*max_len,
                            (long long)longest), false;
    }
    if (*max_len < 1 || *max_len > rab_n)
        return snprintf(err, n, "hstu attention: max_len %lld (1 to RAB's N = %lld, the longest sequence or more; 0 "
                        "with host_offsets: theirs)", (long long)*max_len, (long long)rab_n), false;
    return true;
}

/* RAB (B, H, N, N): the dense rules with Sq = Sk = N */
static bool jagged_rab_ok(const cute_call_arg *r, int64_t B, int64_t H, cute_dtype d, char *err, size_t n)
{
    if (r && r->kind == CUTE_ARG_TENSOR && r->ndim == 4 && r->shape[2] != r->shape[3])
        return snprintf(err, n, "hstu attention: jagged RAB is (%lld, %lld, %lld, %lld), not (B, H, N, N)",
                        (long long)r->shape[0], (long long)r->shape[1], (long long)r->shape[2],
                        (long long)r->shape[3]), false;
    int64_t N = r && r->kind == CUTE_ARG_TENSOR && r->ndim == 4 ? r->shape[2] : 0;
    return rab_ok(r, (const int64_t[4]){B, H, N, N}, d, err, n);
}

cute_status cutec_hstu_attention_jagged(cute_hstu_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                        const cute_call_arg *V, const cute_call_arg *RAB, const cute_call_arg *O,
                                        const cute_hstu_jagged *jagged, bool causal, bool fast_sigmoid, void *stream,
                                        char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "hstu attention: no library"), CUTE_ERR_INVALID;
    const cute_call_arg *in[4] = {Q, K, V, O};
    cute_call_arg args[7];
    const cute_call_arg *t[4] = {&args[0], &args[1], &args[2], &args[4]};
    for (int i = 0; i < 4; i++)
        if (!packed(in[i], operand_names[i], &args[i < 3 ? i : 4], err, n)) return CUTE_ERR_INVALID;
    if (!operands_ok(t, err, n)) return CUTE_ERR_INVALID;
    cute_dtype d = (cute_dtype)Q->dtype;
    for (int i = 1; i < 4; i++)
        for (int m = 1; m < 4; m++)
            if (t[i]->shape[m] != t[0]->shape[m])
                return snprintf(err, n, "hstu attention: jagged %s is (%lld, %lld, %lld) but Q (%lld, %lld, %lld) "
                                "(one shape (T, H, D) for all four)", operand_names[i], (long long)t[i]->shape[1],
                                (long long)t[i]->shape[2], (long long)t[i]->shape[3], (long long)t[0]->shape[1],
                                (long long)t[0]->shape[2], (long long)t[0]->shape[3]), CUTE_ERR_INVALID;
    int64_t T = Q->shape[0], H = Q->shape[1], max_len;
    if (!head_dim_ok(Q->shape[2], err, n)) return CUTE_ERR_INVALID;
    if (!attn_offsets_ok(jagged ? jagged->seq_offsets : NULL, "hstu attention", "seq_offsets", err, n) ||
        !jagged_rab_ok(RAB, jagged->seq_offsets->shape[0] - 1, H, d, err, n))
        return CUTE_ERR_INVALID;
    if (T == 0 || H == 0) return CUTE_OK; /* nothing to do (the header's promise), whatever max_len says */
    if (!offsets_ok(jagged, T, RAB->shape[2], &max_len, err, n)) return CUTE_ERR_INVALID;
    cute_hstu_config cfg = {.dtype = d, .head_dim = (int)Q->shape[2], .causal = causal, .fast_sigmoid = fast_sigmoid,
                            .jagged = true};
    args[3] = *RAB, args[5] = *jagged->seq_offsets, args[6] = cute_call_int(max_len);
    return launch(lib, &cfg, 7, args, stream, err, n);
}
