/* cutec/attention.h — attention forward (FlashAttention 2 on SM80 instructions; on sm_90,
 * FlashAttention 3's TMA and wgmma kernel), backward and decode (docs/attention.md).
 *
 *   O(b,i,h,:) = sum_j softmax_j(scale * Q(b,i,h,:) . K(b,j,hk,:)) V(b,j,hk,:)
 *   LSE(b,h,i) = log sum_j exp(scale * Q(b,i,h,:) . K(b,j,hk,:))      (natural log)
 *
 * with hk = h / (H / G) (grouped-query: G key/value heads shared by H query heads; G = H
 * is plain multi-head, G = 1 multi-query).  Tensors are (B, S, H, D) as PyTorch SDPA's
 * (B, H, S, D) inputs are after a transpose: any strides, D contiguous.  Causal masking is
 * SDPA's is_causal (top-left: query i sees keys j <= i).  f16 or bf16, head dim a multiple of 32
 * from 32 to 256 (the backward: to 128; the Hopper forward: 64 and up, AUTO giving 32 to
 * the SM80 kernels on every card), f32 accumulation; any sequence lengths (Sq for Q and O, Sk for K and V).
 */
#ifndef CUTEC_ATTENTION_H
#define CUTEC_ATTENTION_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

/* Which kernel: AUTO picks the Hopper one on sm_90, the Blackwell one on sm_100 (where it
 * takes the configuration) and the SM80 one elsewhere. */
typedef enum {
    CUTE_ATTENTION_AUTO,
    CUTE_ATTENTION_SM80,   /* FlashAttention 2: mma.sync, ldmatrix, cp.async (sm_80 and later) */
    CUTE_ATTENTION_HOPPER, /* FlashAttention 3: TMA, wgmma, warp-specialized (sm_90) */
    CUTE_ATTENTION_BLACKWELL, /* the forward by tcgen05 into tensor memory (sm_100a; emulated only) */
} cute_attention_variant;

typedef struct cute_attention_config {
    cute_dtype dtype; /* Q, K, V and O: CUTE_F16 or CUTE_BF16 */
    int head_dim;     /* D: a multiple of 32 from 32 to 256 (the Hopper forward: 64 and up) */
    bool causal;      /* SDPA's is_causal (top-left) */
    bool lse;         /* also write the log-sum-exp (B, H, Sq), f32 */
    /* a sliding window: query i sees keys i - window_left .. i + window_right (with causal,
     * at most i); FlashAttention's window_size */
    bool window;
    int window_left, window_right;
    bool varlen;      /* packed sequences: cu_seqlens (cutec_attention_fwd_options) */
    cute_attention_variant variant; /* AUTO (0) unless a kernel is wanted (the Hopper kernel
                                       takes neither windows nor packed sequences) */
    int block_n;      /* keys a tile of the Hopper kernel: a multiple of 16, 64 to 256 that fits
                         2 stages in shared memory (0: its choice, 160 at head dim 128
                         non-causal, 128 at 64 and causal 128, 80 at 256 non-causal and 64
                         causal); the SM80
                         forward's keys a softmax step: 64 or 32 (two steps a 64-key tile) */
    int block_m;      /* query rows a tile of the Hopper forward, 64 a consumer warpgroup: 128
                         or 192 (at head dims 64 and 128; 80-key tiles at 128) (0: its choice,
                         192 at head dim 64 non-causal, else 128) */
    int kv_stages;    /* the SM80 forward's K and V tiles: 1 (0: the default) or 2 (both loaded a
                         tile ahead, one barrier a tile; 96 KB of shared memory at head dim 128:
                         two blocks an SM on sm_90, one on sm_80's 164 KB) */
    int grid;         /* the Hopper forward's grid (CUTE_ATTENTION_GRID_*): 0, its choice (the
                         persistent grid at head dims 64 and 128, a block a tile at 256) */
} cute_attention_config;
/* a block a (Q tile, head, batch), or a block an SM walking the tiles (the next tile's loads
 * under this one's epilogue) */
enum { CUTE_ATTENTION_GRID_AUTO, CUTE_ATTENTION_GRID_TILES, CUTE_ATTENTION_GRID_PERSISTENT };

/* Compile one configuration.  The function's arguments: Q (B,Sq,H,D), K (B,Sk,G,D),
 * V (B,Sk,G,D), O (B,Sq,H,D), every stride but D's a multiple of 8 elements and the data
 * 16-byte aligned; scale_log2 (f32: the softmax scale times log2(e)); with cfg->lse, then
 * LSE (B,H,Sq) f32.  NULL and the reason in err for a configuration it cannot take. */
const cute_fn *cute_attention_compile(cute_runtime *rt, const cute_attention_config *cfg,
                                      char *err, size_t n);

/* The library: checks calls, compiles each configuration once per runtime.  One library
 * may be shared by threads (a lock guards its table). */
typedef struct cute_attention_lib cute_attention_lib;
cute_attention_lib *cute_attention_lib_new(cute_runtime *rt);
void cute_attention_lib_free(cute_attention_lib *lib);
/* The kernel the library's calls use from now on (AUTO, the default: by the target) and its
 * key tile (block_n, cute_attention_config's; 0, the default: the kernel's choice). */
void cute_attention_lib_set_kernel(cute_attention_lib *lib, cute_attention_variant v, int block_n);
/* ... and the Hopper forward's query tile (block_m, cute_attention_config's; 0: its choice)
 * and grid (CUTE_ATTENTION_GRID_*; 0: its choice) */
void cute_attention_lib_set_block_m(cute_attention_lib *lib, int block_m, int grid);
/* ... and the SM80 forward's K and V stages (kv_stages, cute_attention_config's; 0: one) */
void cute_attention_lib_set_kv_stages(cute_attention_lib *lib, int kv_stages);

/* O = attention(Q, K, V).  Q, O (B,Sq,H,D); K, V (B,Sk,G,D), G dividing H; lse (B,H,Sq) f32
 * or NULL; scale 0 means 1/sqrt(D).  A malformed call is CUTE_ERR_INVALID with the reason
 * in err; Sq = 0 or B = 0 does nothing; Sk = 0 is refused (the softmax of no keys). */
cute_status cutec_attention_fwd(cute_attention_lib *lib, const cute_call_arg *Q,
                                const cute_call_arg *K, const cute_call_arg *V,
                                const cute_call_arg *O, const cute_call_arg *lse, double scale,
                                bool causal, void *stream, char *err, size_t n);

/* The forward's options beyond cutec_attention_fwd's (which is this with scale and causal
 * only). */
typedef struct cute_attention_options {
    double scale; /* 0: 1/sqrt(D) */
    bool causal;
    /* a sliding window: query i sees keys i - window_left .. i + window_right (with causal,
     * at most i); sizes 0 or more, at most 2^30 */
    bool window;
    int64_t window_left, window_right;
    /* packed sequences (FlashAttention's varlen): Q and O (1, total_q, H, D), K and V
     * (1, total_k, G, D), lse (1, H, total_q); cu_seqlens_q and cu_seqlens_k (B + 1) i32
     * contiguous: sequence b's query rows are cu_seqlens_q[b] .. cu_seqlens_q[b+1] - 1 and its
     * keys likewise (offsets read on the device: the library cannot check them; the kernel
     * clamps them into the packed rows); max_seqlen_q >= the longest query sequence.  NULL:
     * every batch entry is one sequence of the tensors' lengths. */
    const cute_call_arg *cu_seqlens_q, *cu_seqlens_k;
    int64_t max_seqlen_q;
} cute_attention_options;
cute_status cutec_attention_fwd_options(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                        const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *lse,
                                        const cute_attention_options *opt, void *stream, char *err, size_t n);

/* The backward (FlashAttention 2's, SM80 instructions; docs/attention.md): from the forward's
 * inputs, its O and LSE and the gradient dO of O,
 *
 *   dQ, dK, dV = the gradients of Q, K, V      (grouped-query: dK, dV summed over the group)
 *   delta(b,h,i) = sum_d dO(b,i,h,d) O(b,i,h,d)  (FlashAttention's softmax_d, f32)
 *
 * dQ, dO shaped as Q; dK, dV as K; lse and delta (B, H, Sq) f32; the strides' rules are the
 * forward's (dO and the gradients any strides of their own).  Head dims 64 and 128.
 * Deterministic: every sum is made by one thread in one fixed order.  A malformed call is
 * CUTE_ERR_INVALID with the reason in err. */
const cute_fn *cute_attention_bwd_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err,
                                          size_t n);
cute_status cutec_attention_bwd(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *dO,
                                const cute_call_arg *lse, const cute_call_arg *dQ, const cute_call_arg *dK,
                                const cute_call_arg *dV, const cute_call_arg *delta, double scale, bool causal,
                                void *stream, char *err, size_t n);

/* Decode (flash-decoding; docs/attention.md): one query row a sequence against a long KV
 * cache, Q and O (B, 1, H, D), K and V (B, Sk, G, D), lse (B, H, 1) f32 or NULL, not causal
 * (the row sees every key).  Split over the keys (splits chosen from the device's SM count,
 * or cute_attention_lib_decode_splits) and combined in split order.  The splits' partial
 * results live in a workspace the library owns: calls that share a library must run on one
 * stream.  H / G at most 16. */
const cute_fn *cute_attention_decode_compile(cute_runtime *rt, const cute_attention_config *cfg, char *err,
                                             size_t n);
cute_status cutec_attention_decode(cute_attention_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                   const cute_call_arg *V, const cute_call_arg *O, const cute_call_arg *lse,
                                   double scale, void *stream, char *err, size_t n);
/* the splits of later decode calls (0: the library's choice); false for a negative count */
bool cute_attention_lib_decode_splits(cute_attention_lib *lib, int splits);

CUTE_API_END
#endif
