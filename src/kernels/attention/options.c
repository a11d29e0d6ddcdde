/* The checks of cute_attention_options (cutec_attention_fwd_options): the window's sizes,
 * and for packed sequences the offsets' tensors and the packed shapes. */
#include <stdio.h>

#include "kernels/attention/attention_internal.h"

bool attn_offsets_ok(const cute_call_arg *cu, const char *who, const char *name, char *err, size_t n)
{
    if (!cu || cu->kind != CUTE_ARG_TENSOR || cu->ndim != 1 || cu->dtype != CUTE_I32)
        return snprintf(err, n, "%s: %s is not a 1-D i32 tensor of B + 1 offsets", who, name), false;
    if (cu->shape[0] < 2 || (cu->stride[0] != 1))
        return snprintf(err, n, "%s: %s has %lld offsets with stride %lld (2 or more, contiguous)", who, name,
                        (long long)cu->shape[0], (long long)cu->stride[0]), false;
    return true;
}

static bool varlen_ok(const cute_call_arg *const t[4], const cute_attention_options *o, char *err, size_t n)
{
    if (!attn_offsets_ok(o->cu_seqlens_q, "attention", "cu_seqlens_q", err, n) ||
        !attn_offsets_ok(o->cu_seqlens_k, "attention", "cu_seqlens_k", err, n))
        return false;
    if (o->cu_seqlens_q->shape[0] != o->cu_seqlens_k->shape[0])
        return snprintf(err, n, "attention: cu_seqlens_q has %lld offsets, cu_seqlens_k %lld (one each a sequence, "
                        "and one more)", (long long)o->cu_seqlens_q->shape[0], (long long)o->cu_seqlens_k->shape[0]), false;
    if (t[0]->shape[0] != 1)
        return snprintf(err, n, "attention: packed sequences, but Q's batch mode is %lld (1: the rows of every "
                        "sequence in mode 1)", (long long)t[0]->shape[0]), false;
    if (o->max_seqlen_q < 1 || o->max_seqlen_q > t[0]->shape[1])
        return snprintf(err, n, "attention: max_seqlen_q %lld (1 to the %lld packed query rows)",
                        (long long)o->max_seqlen_q, (long long)t[0]->shape[1]), false;
    return true;
}

bool attn_options_ok(const cute_call_arg *const t[4], const cute_attention_options *o, char *err, size_t n)
{
    if (o->window && (o->window_left < 0 || o->window_right < 0 || o->window_left > (1 << 30) ||
                      o->window_right > (1 << 30)))
        return snprintf(err, n, "attention: window (%lld, %lld): sizes 0 to 2^30", (long long)o->window_left,
                        (long long)o->window_right), false;
    if (!o->cu_seqlens_q && !o->cu_seqlens_k) return true;
    if (!o->cu_seqlens_q || !o->cu_seqlens_k)
        return snprintf(err, n, "attention: %s without %s (packed sequences need both)",
                        o->cu_seqlens_q ? "cu_seqlens_q" : "cu_seqlens_k",
                        o->cu_seqlens_q ? "cu_seqlens_k" : "cu_seqlens_q"), false;
    return varlen_ok(t, o, err, n);
}
