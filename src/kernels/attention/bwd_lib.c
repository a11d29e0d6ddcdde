/* cutec_attention_bwd: the forward's checks of Q, K, V, O, the LSE and the scale, then dO and
 * the gradients shaped as what they are gradients of and delta shaped as the LSE; the
 * configuration compiled once per library (lib.c) and called. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "env/env_choice.h"
#include "kernels/attention/attention_bwd.h"
#include "kernels/attention/attention_decode.h"

/* t (named `name`) shaped as `like` */
static bool same_shape(const cute_call_arg *t, const char *name, const cute_call_arg *like, const char *like_name,
                       cute_dtype d, char *err, size_t n)
{
    if (!attn_operand_ok(t, name, d, err, n)) return false;
    for (int m = 0; m < 4; m++)
        if (t->shape[m] != like->shape[m])
            return snprintf(err, n, "attention backward: %s must be shaped as %s (mode %d: %lld, %s %lld)", name,
                            like_name, m, (long long)t->shape[m], like_name, (long long)like->shape[m]), false;
    return true;
}

static bool bwd_ok(const cute_call_arg *const t[10], double scale, char *err, size_t n)
{
    if (!t[5]) return snprintf(err, n, "attention backward: no lse (the forward's, (B, H, Sq) f32)"), false;
    if (!attn_call_ok(t, t[5], scale, err, n)) return false;
    if (!t[9] || t[9]->kind != CUTE_ARG_TENSOR || t[9]->ndim != 3 || t[9]->dtype != CUTE_F32)
        return snprintf(err, n, "attention backward: delta is not an f32 (B, H, Sq) tensor"), false;
    for (int m = 0; m < 3; m++)
        if (t[9]->shape[m] != t[5]->shape[m])
            return snprintf(err, n, "attention backward: delta must be shaped as lse (mode %d: %lld, lse %lld)", m,
                            (long long)t[9]->shape[m], (long long)t[5]->shape[m]), false;
    cute_dtype d = (cute_dtype)t[0]->dtype;
    if (!attn_bwd_head_dim_ok(t[0]->shape[3]))
        return snprintf(err, n, "attention backward: head dim %lld (%s)", (long long)t[0]->shape[3],
                        ATTN_BWD_HEAD_DIMS), false;
    return same_shape(t[4], "dO", t[0], "Q", d, err, n) && same_shape(t[6], "dQ", t[0], "Q", d, err, n) &&
           same_shape(t[7], "dK", t[1], "K", d, err, n) && same_shape(t[8], "dV", t[1], "K", d, err, n);
}

/* the form CUTEC_ATTN_BWD_FORM asks for (the kernels read it when the library compiles; an
 * unknown value fails that compile) */
static int bwd_form(bool causal)
{
    char why[256];
    return cute_env_choice_err("CUTEC_ATTN_BWD_FORM", ATTN_BWD_FORMS, attn_bwd_form_default(causal), why, sizeof why);
}

/* The library's workspace (into *ws, which the arguments point at: the caller's, alive
 * through the call) as the two arguments the kernels take (attention_bwd.h): dQ's f32 sums, a
 * chunk of 64 x D a (64-query tile, head, batch), then the chunks' counts; the Hopper kernels
 * with dQ fused read them, the others take one chunk and one count they leave be */
static cute_status workspace(cute_attention_lib *lib, const cute_call_arg *Q, bool causal, cute_buffer *ws,
                             cute_call_arg out[2], char *err, size_t n)
{
    bool all = attn_bwd_fuses(bwd_form(causal), Q->shape[3]);
    int64_t B = all ? Q->shape[0] : 1, H = all ? Q->shape[2] : 1, D = Q->shape[3];
    int64_t Mt = all ? (Q->shape[1] + 63) / 64 : 1;
    int64_t chunks = B * H * Mt, chunk = 64 * D;
    size_t acc = (size_t)(chunks * chunk) * 4, bytes = acc + (size_t)(B * H * Mt) * 4;
    if (attn_lib_workspace(lib, bytes, ws, err, n) != CUTE_OK)
        return snprintf(err, n, "attention backward: a workspace of %zu bytes", bytes), CUTE_ERR_OOM;
    int64_t shape[5] = {256, D / 4, Mt, H, B};
    int64_t stride[5] = {1, 256, chunk, chunk * shape[2], chunk * shape[2] * shape[3]};
    out[0] = cute_call_tensor(ws, 0, CUTE_F32, 5, shape, stride);
    out[1] = cute_call_tensor(ws, acc, CUTE_U32, 3, (int64_t[]){B, H, Mt}, (int64_t[]){H * Mt, Mt, 1});
    return CUTE_OK;
}

cute_status cutec_attention_bwd(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *dO,
                                const cute_call_arg *lse, const cute_call_arg *dQ, const cute_call_arg *dK,
                                const cute_call_arg *dV, const cute_call_arg *delta, double scale, bool causal,
                                void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "attention backward: no library"), CUTE_ERR_INVALID;
    const cute_call_arg *t[10] = {Q, K, V, O, dO, lse, dQ, dK, dV, delta};
    if (!bwd_ok(t, scale, err, n)) return CUTE_ERR_INVALID;
    if (Q->shape[0] == 0 || Q->shape[1] == 0 || Q->shape[2] == 0) return CUTE_OK;
    cute_attention_config cfg = {.dtype = (cute_dtype)Q->dtype, .head_dim = (int)Q->shape[3], .causal = causal, .lse = true};
    const cute_fn *f = attn_lib_bwd_fn(lib, &cfg, err, n);
    if (!f) return CUTE_ERR_COMPILE;
    double s = scale > 0 ? scale : 1.0 / sqrt((double)Q->shape[3]);
    cute_buffer buf;
    cute_call_arg ws[2];
    if (workspace(lib, Q, causal, &buf, ws, err, n) != CUTE_OK) return CUTE_ERR_OOM;
    cute_call_arg args[ATTN_BWD_NARGS] = {*Q, *K, *V, *O, *dO, *lse, *dQ, *dK, *dV, *delta,
                                          cute_call_float(s * 1.4426950408889634), cute_call_float(s), ws[0], ws[1]};
    char why[4096];
    cute_status st = cute_call(f, stream, ATTN_BWD_NARGS, args, why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "attention backward: %s", why);
    return st;
}
