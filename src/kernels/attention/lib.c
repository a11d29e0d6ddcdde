/* The attention library (cutec_attention_fwd): checks a call and names what is wrong in
 * words, picks the configuration (dtype, head dim, causal, LSE or not), compiles each once
 * per runtime and calls it. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/attention/attention_bwd.h"
#include "kernels/attention/attention_decode.h"
#include "kernels/fn_cache.h"

static fn_cache_same same;

/* the lock guards the compiled configurations (fn_cache.h) */
struct cute_attention_lib {
    cute_runtime *rt;
    pthread_mutex_t lock;
    fn_cache fns; /* cute_attention_config keys */
    cute_attention_variant variant;
    int block_n, block_m;
    int grid; /* CUTE_ATTENTION_GRID_* */
    int kv_stages;
    fn_cache bwd; /* the backward's, likewise (bwd_lib.c) */
    fn_cache dec; /* decode's (decode_lib.c) */
    int decode_splits;    /* cute_attention_lib_decode_splits (0: the library's choice) */
    cute_buffer ws;       /* decode's workspace */
    size_t ws_bytes;
    cute_buffer *retired; /* smaller workspaces that kernels in flight may still use */
    int nretired;
};

cute_attention_lib *cute_attention_lib_new(cute_runtime *rt)
{
    cute_attention_lib *lib = calloc(1, sizeof *lib);
    if (!lib) return NULL;
    lib->rt = rt;
    pthread_mutex_init(&lib->lock, NULL);
    fn_cache_init(&lib->fns, sizeof(cute_attention_config), same);
    fn_cache_init(&lib->bwd, sizeof(cute_attention_config), same);
    fn_cache_init(&lib->dec, sizeof(cute_attention_config), same);
    return lib;
}

void cute_attention_lib_free(cute_attention_lib *lib)
{
    if (!lib) return;
    fn_cache_free(&lib->fns);
    fn_cache_free(&lib->bwd);
    fn_cache_free(&lib->dec);
    cute_backend *b = cute_runtime_backend(lib->rt);
    if (lib->ws_bytes) b->vt->free(b->self, &lib->ws);
    for (int i = 0; i < lib->nretired; i++) b->vt->free(b->self, &lib->retired[i]);
    free(lib->retired);
    pthread_mutex_destroy(&lib->lock);
    free(lib);
}

void cute_attention_lib_set_kernel(cute_attention_lib *lib, cute_attention_variant v, int block_n)
{
    if (lib) lib->variant = v, lib->block_n = block_n;
}

void cute_attention_lib_set_block_m(cute_attention_lib *lib, int block_m, int grid)
{
    if (lib) lib->block_m = block_m, lib->grid = grid;
}

void cute_attention_lib_set_kv_stages(cute_attention_lib *lib, int kv_stages)
{
    if (lib) lib->kv_stages = kv_stages;
}

static bool same(const void *x, const void *y)
{
    const cute_attention_config *a = x, *b = y;
    return a->dtype == b->dtype && a->head_dim == b->head_dim && a->causal == b->causal &&
           a->lse == b->lse && a->window == b->window && a->varlen == b->varlen &&
           (!a->window || (a->window_left == b->window_left && a->window_right == b->window_right)) &&
           a->variant == b->variant && a->block_n == b->block_n && a->block_m == b->block_m &&
           a->grid == b->grid && a->kv_stages == b->kv_stages;
}

static const cute_fn *compile(cute_runtime *rt, const void *cfg, const void *user, char *err, size_t n)
{
    (void)user;
    return cute_attention_compile(rt, cfg, err, n);
}

static const char *const names[] = {"Q", "K", "V", "O"};

static bool operand_ok(const cute_call_arg *t, int i, cute_dtype d, char *err, size_t n)
{
    return attn_operand_ok(t, names[i], d, err, n);
}

bool attn_operand_ok(const cute_call_arg *t, const char *name, cute_dtype d, char *err, size_t n)
{
    if (!t || t->kind != CUTE_ARG_TENSOR || t->ndim != 4)
        return snprintf(err, n, "attention: %s is not a (B, S, H, D) tensor", name), false;
    if (t->dtype != d)
        return snprintf(err, n, "attention: %s is %s, Q %s (one dtype for Q, K, V and O)", name,
                        cute_dtype_name((cute_dtype)t->dtype), cute_dtype_name(d)), false;
    if (t->shape[3] > 1 && t->stride[3] != 1)
        return snprintf(err, n, "attention: %s's head dim has stride %lld (it must be contiguous)",
                        name, (long long)t->stride[3]), false;
    for (int m = 0; m < 3; m++)
        if (t->stride[m] % 8 || t->stride[m] < 0)
            return snprintf(err, n, "attention: %s's stride %d is %lld (a multiple of 8 elements: "
                            "rows start 16 bytes aligned)", name, m, (long long)t->stride[m]), false;
    return true;
}

/* the shapes agree: Q and O (B,Sq,H,D), K and V (B,Sk,G,D), G divides H */
static bool shapes_ok(const cute_call_arg *const t[4], char *err, size_t n)
{
    const int64_t *q = t[0]->shape, *k = t[1]->shape;
    for (int m = 0; m < 4; m++)
        if (t[3]->shape[m] != q[m] || t[2]->shape[m] != k[m])
            return snprintf(err, n, "attention: O must be shaped as Q and V as K (mode %d: O %lld, Q "
                            "%lld, V %lld, K %lld)", m, (long long)t[3]->shape[m], (long long)q[m],
                            (long long)t[2]->shape[m], (long long)k[m]), false;
    if (k[0] != q[0] || k[3] != q[3])
        return snprintf(err, n, "attention: K is (B=%lld, Sk, G, D=%lld) but Q (B=%lld, Sq, H, D=%lld)",
                        (long long)k[0], (long long)k[3], (long long)q[0], (long long)q[3]), false;
    if (!attn_head_dim_ok(q[3]))
        return snprintf(err, n, "attention: head dim %lld (%s)", (long long)q[3], ATTN_HEAD_DIMS), false;
    for (int m = 0; m < 4; m++) /* the kernel addresses V with K's offsets (fwd_kernel.c) */
        if (t[2]->stride[m] != t[1]->stride[m] && k[m] > 1)
            return snprintf(err, n, "attention: V's strides must be K's (mode %d: V %lld, K %lld)", m,
                            (long long)t[2]->stride[m], (long long)t[1]->stride[m]), false;
    if (k[2] < 1 || q[2] % k[2])
        return snprintf(err, n, "attention: %lld key/value heads do not divide %lld query heads",
                        (long long)k[2], (long long)q[2]), false;
    if (k[1] < 1 && q[1] > 0 && q[0] > 0)
        return snprintf(err, n, "attention: no keys (Sk = 0): the softmax of nothing"), false;
    return true;
}

static bool lse_ok(const cute_call_arg *l, const cute_call_arg *q, char *err, size_t n)
{
    if (!l) return true;
    if (l->kind != CUTE_ARG_TENSOR || l->ndim != 3 || l->dtype != CUTE_F32)
        return snprintf(err, n, "attention: lse is not an f32 (B, H, Sq) tensor"), false;
    if (l->shape[0] != q->shape[0] || l->shape[1] != q->shape[2] || l->shape[2] != q->shape[1])
        return snprintf(err, n, "attention: lse is (%lld, %lld, %lld), not (B, H, Sq) = (%lld, %lld, %lld)",
                        (long long)l->shape[0], (long long)l->shape[1], (long long)l->shape[2],
                        (long long)q->shape[0], (long long)q->shape[2], (long long)q->shape[1]), false;
    return true;
}

bool attn_call_ok(const cute_call_arg *const t[4], const cute_call_arg *lse, double scale, char *err, size_t n)
{
    cute_dtype d = t[0] ? (cute_dtype)t[0]->dtype : CUTE_VOID;
    if (d != CUTE_F16 && d != CUTE_BF16)
        return snprintf(err, n, "attention: Q is %s (f16 or bf16)", t[0] ? cute_dtype_name(d) : "missing"), false;
    for (int i = 0; i < 4; i++)
        if (!operand_ok(t[i], i, d, err, n)) return false;
    if (!isfinite(scale) || scale < 0)
        return snprintf(err, n, "attention: softmax scale %g (finite, > 0; 0 for 1/sqrt(D))", scale), false;
    return shapes_ok(t, err, n) && lse_ok(lse, t[0], err, n);
}

static const cute_fn *fn_for(cute_attention_lib *lib, const cute_attention_config *cfg, char *err, size_t n)
{
    pthread_mutex_lock(&lib->lock);
    const cute_fn *fn = fn_cache_fn(&lib->fns, lib->rt, cfg, compile, NULL, "attention", err, n);
    pthread_mutex_unlock(&lib->lock);
    return fn;
}

static const cute_fn *compile_bwd(cute_runtime *rt, const void *cfg, const void *user, char *err, size_t n)
{
    (void)user;
    return cute_attention_bwd_compile(rt, cfg, err, n);
}

const cute_fn *attn_lib_bwd_fn(cute_attention_lib *lib, const cute_attention_config *cfg, char *err, size_t n)
{
    cute_attention_config k = *cfg; /* the library's kernel choice (cute_attention_lib_set_kernel), resolved */
    k.variant = lib->variant;
    k.variant = attn_variant(lib->rt, &k);
    pthread_mutex_lock(&lib->lock);
    const cute_fn *fn = fn_cache_fn(&lib->bwd, lib->rt, &k, compile_bwd, NULL, "attention backward", err, n);
    pthread_mutex_unlock(&lib->lock);
    return fn;
}

cute_status cutec_attention_fwd(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *lse,
                                double scale, bool causal, void *stream, char *err, size_t n)
{
    cute_attention_options opt = {.scale = scale, .causal = causal};
    return cutec_attention_fwd_options(lib, Q, K, V, O, lse, &opt, stream, err, n);
}

cute_status cutec_attention_fwd_options(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                        const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *lse,
                                        const cute_attention_options *opt, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib || !opt) return snprintf(err, n, "attention: no %s", lib ? "options" : "library"), CUTE_ERR_INVALID;
    const cute_call_arg *t[4] = {Q, K, V, O};
    if (!attn_call_ok(t, lse, opt->scale, err, n) || !attn_options_ok(t, opt, err, n)) return CUTE_ERR_INVALID;
    if (Q->shape[0] == 0 || Q->shape[1] == 0 || Q->shape[2] == 0) return CUTE_OK;
    cute_attention_config cfg = {.dtype = (cute_dtype)Q->dtype, .head_dim = (int)Q->shape[3], .causal = opt->causal,
                                 .lse = lse != NULL, .window = opt->window, .window_left = (int)opt->window_left,
                                 .window_right = (int)opt->window_right, .varlen = opt->cu_seqlens_q != NULL,
                                 .variant = lib->variant, .block_n = lib->block_n, .block_m = lib->block_m,
                                 .grid = lib->grid, .kv_stages = lib->kv_stages};
    cfg.variant = attn_variant(lib->rt, &cfg);
    const cute_fn *f = fn_for(lib, &cfg, err, n);
    if (!f) return CUTE_ERR_COMPILE;
    double s = opt->scale > 0 ? opt->scale : 1.0 / sqrt((double)Q->shape[3]);
    cute_call_arg args[ATTN_VARLEN_NARGS] = {*Q, *K, *V, *O, cute_call_float(s * 1.4426950408889634)};
    int nargs = 5;
    if (cfg.varlen)
        args[nargs++] = *opt->cu_seqlens_q, args[nargs++] = *opt->cu_seqlens_k,
        args[nargs++] = cute_call_int(opt->max_seqlen_q);
    if (lse) args[nargs++] = *lse;
    char why[4096];
    cute_status st = cute_call(f, stream, nargs, args, why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "attention: %s", why);
    return st;
}

static const cute_fn *compile_decode(cute_runtime *rt, const void *cfg, const void *user, char *err, size_t n)
{
    (void)user;
    return cute_attention_decode_compile(rt, cfg, err, n);
}

const cute_fn *attn_lib_decode_fn(cute_attention_lib *lib, const cute_attention_config *cfg, char *err, size_t n)
{
    pthread_mutex_lock(&lib->lock);
    const cute_fn *fn = fn_cache_fn(&lib->dec, lib->rt, cfg, compile_decode, NULL, "attention decode", err, n);
    pthread_mutex_unlock(&lib->lock);
    return fn;
}

bool cute_attention_lib_decode_splits(cute_attention_lib *lib, int splits)
{
    if (!lib || splits < 0) return false;
    pthread_mutex_lock(&lib->lock);
    lib->decode_splits = splits;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

int attn_lib_splits(cute_attention_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    int s = lib->decode_splits;
    pthread_mutex_unlock(&lib->lock);
    return s;
}

/* grows the workspace (lock held); the smaller one is kept until the library is freed, as
 * kernels in flight may still use it */
static cute_status grow(cute_attention_lib *lib, size_t bytes)
{
    cute_backend *b = cute_runtime_backend(lib->rt);
    cute_buffer fresh;
    cute_buffer *r = realloc(lib->retired, (size_t)(lib->nretired + 1) * sizeof *r);
    if (!r) return CUTE_ERR_OOM;
    lib->retired = r;
    cute_status s = b->vt->alloc(b->self, bytes, &fresh);
    if (s != CUTE_OK) return s;
    if (lib->ws_bytes) lib->retired[lib->nretired++] = lib->ws;
    lib->ws = fresh, lib->ws_bytes = bytes;
    return CUTE_OK;
}

cute_status attn_lib_workspace(cute_attention_lib *lib, size_t bytes, cute_buffer *ws, char *err, size_t n)
{
    pthread_mutex_lock(&lib->lock);
    cute_status s = bytes > lib->ws_bytes ? grow(lib, bytes) : CUTE_OK;
    *ws = lib->ws;
    pthread_mutex_unlock(&lib->lock);
    if (s != CUTE_OK) snprintf(err, n, "attention decode: a workspace of %zu bytes: %s", bytes, cute_status_name(s));
    return s;
}

cute_runtime *attn_lib_runtime(const cute_attention_lib *lib)
{
    return lib->rt;
}
