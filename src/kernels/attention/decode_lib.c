/* cutec_attention_decode: the forward's checks and decode's own (one query row, at most 16
 * query heads a KV head), the split count, the workspace, and the call with Q, O and the LSE
 * seen with the group's heads as rows (decode.c). */
#include <math.h>
#include <stdio.h>

#include "cutec/cuda_driver.h"
#include "kernels/attention/attention_internal.h"
#include "kernels/attention/attention_decode.h"

static bool decode_ok(const cute_call_arg *const t[4], const cute_call_arg *lse, double scale, char *err, size_t n)
{
    if (!attn_call_ok(t, lse, scale, err, n)) return false;
    if (t[0]->shape[1] != 1)
        return snprintf(err, n, "attention decode: Q has %lld rows a sequence (decode takes one)",
                        (long long)t[0]->shape[1]), false;
    if (t[0]->shape[2] / t[1]->shape[2] > 16)
        return snprintf(err, n, "attention decode: %lld query heads a key/value head (at most 16)",
                        (long long)(t[0]->shape[2] / t[1]->shape[2])), false;
    return true;
}

/* the split kernel's blocks an SM holds: its shared memory's share (the driver keeps 1 KB a
 * block), at most 32 */
static int64_t blocks_per_sm(const cute_fn *f, const cute_device_info *d)
{
    int64_t n = d->smem_per_sm / (cute_fn_kernel(f, 0)->smem_bytes + 1024);
    return n < 1 ? 1 : n > 32 ? 32 : n;
}

/* the share of the block slots of its waves that a grid of n blocks fills, r resident at once */
static double filled(int64_t n, int64_t r)
{
    return (double)n / (double)((n + r - 1) / r * r);
}

/* The splits (at most one a key tile, and about two waves of blocks) whose grid of B G
 * splits blocks best fills its waves of resident blocks; a split more only where it fills
 * 1% more.  About 8 blocks an SM before: 1.4 to 1.6 waves at the shapes, the last a
 * third to a half empty.  Where the B G rows' blocks alone cover every SM, the count (to the
 * nearest, where it is 2 or more: B G up to 2.7 SMs) that gives about 4 blocks an SM (64 KB
 * of loads in flight), not a whole wave of 6:
 * H200, 8x32x32768 d128 MHA, session 42's final pass in turns, 2 splits (512 blocks) 4,492 /
 * 4,487 GB/s against 3's (768) 4,426 / 4,423, x1.0147; 1 split (256) x0.787.  (8 KV heads,
 * 64 rows' blocks, keep 12 splits: 102.5% of the copy, untimed against fewer.) */
static int64_t choose_splits(cute_attention_lib *lib, const cute_fn *f, int asked, int64_t B, int64_t G, int64_t tiles)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(attn_lib_runtime(lib)));
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    int64_t r = d ? d->sm_count * blocks_per_sm(f, d) : 4 * 8, best = 1;
    if (asked) return asked < tiles ? asked : tiles;
    int64_t near4 = d && B * G >= d->sm_count ? (8 * d->sm_count + B * G) / (2 * B * G) : 0; /* 4 SMs / (B G) */
    if (near4 >= 2) return near4 < tiles ? near4 : tiles;
    for (int64_t s = 2; s <= tiles && s <= 2 * r / (B * G) + 1; s++)
        if (filled(B * G * s, r) > filled(B * G * best, r) + 0.01) best = s;
    return best;
}

/* x (B, 1, H, D) seen as (B, H/G, G, D): row r of KV head g is query head g H/G + r */
static cute_call_arg grouped(const cute_call_arg *x, int64_t G)
{
    int64_t group = x->shape[2] / G, s = x->shape[2] > 1 ? x->stride[2] : x->shape[3];
    return cute_call_tensor(x->buf, x->offset, (cute_dtype)x->dtype, 4, (int64_t[]){x->shape[0], group, G, x->shape[3]},
                            (int64_t[]){x->stride[0], s, group * s, 1});
}

/* the LSE (B, H, 1) seen as (B, G, H/G) */
static cute_call_arg grouped_lse(const cute_call_arg *l, int64_t G)
{
    int64_t group = l->shape[1] / G;
    return cute_call_tensor(l->buf, l->offset, CUTE_F32, 3, (int64_t[]){l->shape[0], G, group},
                            (int64_t[]){l->stride[0], group * l->stride[1], l->stride[1]});
}

cute_status cutec_attention_decode(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                   const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *lse,
                                   double scale, void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "attention decode: no library"), CUTE_ERR_INVALID;
    const cute_call_arg *t[4] = {Q, K, V, O};
    if (!decode_ok(t, lse, scale, err, n)) return CUTE_ERR_INVALID;
    int64_t B = Q->shape[0], H = Q->shape[2], G = K->shape[2], D = Q->shape[3], group = H / G;
    if (B == 0 || H == 0) return CUTE_OK;
    cute_attention_config cfg = {.dtype = (cute_dtype)Q->dtype, .head_dim = (int)D, .causal = false, .lse = true};
    const cute_fn *f = attn_lib_decode_fn(lib, &cfg, err, n);
    if (!f) return CUTE_ERR_COMPILE;
    cute_buffer ws;
    int64_t tiles = (K->shape[1] + 63) / 64, splits = choose_splits(lib, f, attn_lib_splits(lib), B, G, tiles);
    int64_t chunk = (tiles + splits - 1) / splits, S = (tiles + chunk - 1) / chunk;
    size_t os = (size_t)(S * B * H * D) * 4, ls = os + (size_t)(S * B * H) * 4; /* O_s, LSE_s, then a spare LSE */
    cute_status st = attn_lib_workspace(lib, ls + (size_t)(B * H) * 4, &ws, err, n);
    if (st != CUTE_OK) return st;
    cute_call_arg args[ATTN_DEC_NARGS] = {
        grouped(Q, G), *K, *V, grouped(O, G),
        lse ? grouped_lse(lse, G) : cute_call_tensor(&ws, ls, CUTE_F32, 3, (int64_t[]){B, G, group}, (int64_t[]){H, group, 1}),
        cute_call_tensor(&ws, 0, CUTE_F32, 5, (int64_t[]){S, B, group, G, D}, (int64_t[]){B * H * D, H * D, G * D, D, 1}),
        cute_call_tensor(&ws, os, CUTE_F32, 4, (int64_t[]){S, B, G, group}, (int64_t[]){B * H, H, group, 1}),
        cute_call_int(chunk), cute_call_float((scale > 0 ? scale : 1.0 / sqrt((double)D)) * 1.4426950408889634)};
    char why[4096];
    st = cute_call(f, stream, ATTN_DEC_NARGS, args, why, sizeof why);
    if (st != CUTE_OK) snprintf(err, n, "attention decode: %s", why);
    return st;
}
