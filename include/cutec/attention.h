/* cutec/attention.h — attention forward, FlashAttention 2 on SM80 instructions
 * (docs/attention.md).
 *
 *   O(b,i,h,:) = sum_j softmax_j(scale * Q(b,i,h,:) . K(b,j,hk,:)) V(b,j,hk,:)
 *   LSE(b,h,i) = log sum_j exp(scale * Q(b,i,h,:) . K(b,j,hk,:))      (natural log)
 *
 * with hk = h / (H / G) (grouped-query: G key/value heads shared by H query heads; G = H
 * is plain multi-head, G = 1 multi-query).  Tensors are (B, S, H, D) as PyTorch SDPA's
 * (B, H, S, D) inputs are after a transpose: any strides, D contiguous.  Causal masking is
 * SDPA's is_causal (top-left: query i sees keys j <= i).  f16 or bf16, head dim 64, 128 or 256,
 * f32 accumulation; any sequence lengths (Sq for Q and O, Sk for K and V).
 */
#ifndef CUTEC_ATTENTION_H
#define CUTEC_ATTENTION_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

/* Which kernel: AUTO picks the Hopper one on sm_90 and the SM80 one elsewhere. */
typedef enum {
    CUTE_ATTENTION_AUTO,
    CUTE_ATTENTION_SM80,   /* FlashAttention 2: mma.sync, ldmatrix, cp.async (sm_80 and later) */
    CUTE_ATTENTION_HOPPER, /* FlashAttention 3: TMA, wgmma, warp-specialized (sm_90) */
} cute_attention_variant;

typedef struct cute_attention_config {
    cute_dtype dtype; /* Q, K, V and O: CUTE_F16 or CUTE_BF16 */
    int head_dim;     /* D: 64, 128 or 256 */
    bool causal;      /* SDPA's is_causal (top-left) */
    bool lse;         /* also write the log-sum-exp (B, H, Sq), f32 */
    cute_attention_variant variant; /* AUTO (0) unless a kernel is wanted */
    int block_n;      /* keys a tile of the Hopper kernel: a multiple of 16, 64 to 256 that fits
                         2 stages in shared memory (0: its choice, 176 at head dim 128
                         non-causal, 128 at 64 and causal 128, 64 at 256) */
} cute_attention_config;

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

/* O = attention(Q, K, V).  Q, O (B,Sq,H,D); K, V (B,Sk,G,D), G dividing H; lse (B,H,Sq) f32
 * or NULL; scale 0 means 1/sqrt(D).  A malformed call is CUTE_ERR_INVALID with the reason
 * in err; Sq = 0 or B = 0 does nothing; Sk = 0 is refused (the softmax of no keys). */
cute_status cutec_attention_fwd(cute_attention_lib *lib, const cute_call_arg *Q,
                                const cute_call_arg *K, const cute_call_arg *V,
                                const cute_call_arg *O, const cute_call_arg *lse, double scale,
                                bool causal, void *stream, char *err, size_t n);

CUTE_API_END
#endif
