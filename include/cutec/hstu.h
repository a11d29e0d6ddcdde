/* cutec/hstu.h — HSTU attention (generative recommenders, arXiv 2402.17152; CuTe DSL's
 * ampere/hstu_attention.py), on the SM80 attention's machinery, and on sm_90 the Hopper
 * attention's (TMA, wgmma; docs/attention.md):
 *
 *   S(b,h,i,j) = Q(b,i,h,:) . K(b,j,h,:) + RAB(b,h,i,j)
 *   O(b,i,h,:) = sum_j silu(S(b,h,i,j)) V(b,j,h,:)        (causal: over keys j <= i only)
 *
 * no softmax and no scale: silu(x) = x sigmoid(x), each term rounded to the inputs' dtype
 * before its product with V, f32 accumulation, O stored once.  Q and O (B, Sq, H, D); K and V
 * (B, Sk, H, D); RAB (B, H, Sq, Sk), the relative attention bias;
 * every tensor of one dtype, f16 or bf16; head dim 64 or 128; every stride but the last a
 * multiple of 8 elements, the last 1, the data 16-byte aligned.  Causal is top-left (query i
 * sees keys j <= i) and asks Sk >= Sq.
 *
 * Jagged (the paper's packed batch, FlashAttention's varlen): B sequences of different
 * lengths, their rows concatenated: Q, K, V and O (T, H, D), T the total; seq_offsets (B + 1,
 * i32) puts sequence b at rows seq_offsets[b] .. seq_offsets[b+1] - 1, its queries attending to
 * its own keys (Sq = Sk = its length).  RAB is padded, as the paper's jagged kernels take it:
 * (B, H, N, N), N >= the longest sequence, sequence b's bias at RAB[b, h, 0:len, 0:len] (the
 * rest never read by the SM80 kernel; the Hopper one's TMA boxes may read it, never using
 * it).  Both kernels take it; on sm_90 AUTO takes the Hopper one for it (hstu.c's
 * auto_hopper_jagged, since it ran on an H200), CUTEC_HSTU_VARIANT=sm80 the SM80 one.
 */
#ifndef CUTEC_HSTU_H
#define CUTEC_HSTU_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

typedef struct cute_hstu_config {
    cute_dtype dtype;  /* CUTE_F16 or CUTE_BF16 */
    int head_dim;      /* 64 or 128 */
    bool causal;       /* keys j <= query i */
    bool fast_sigmoid; /* sigmoid(x) as 0.5 (1 + tanh.approx(x / 2)): one MUFU a score, not two
                          (ex2 and rsqrt), relative error about 2^-11 of |x| */
    bool jagged;       /* packed sequences: Q, K, V, O (1, T, H, D), then seq_offsets (B + 1,
                          i32, contiguous) and the longest length (an int) */
} cute_hstu_config;

/* Compile one configuration.  The function's arguments: Q, K, V (shapes above), RAB, O.  A
 * call of it checks each tensor's own rules (rank, dtype, strides, alignment); that the
 * shapes agree (RAB's with Q's and K's, O's with Q's) is cutec_hstu_attention's check.
 * NULL and the reason in err for a configuration it cannot take. */
const cute_fn *cute_hstu_compile(cute_runtime *rt, const cute_hstu_config *cfg, char *err, size_t n);

/* The library: checks calls, compiles each configuration once per runtime (a lock guards
 * its table, so threads may share one). */
typedef struct cute_hstu_lib cute_hstu_lib;
cute_hstu_lib *cute_hstu_lib_new(cute_runtime *rt);
void cute_hstu_lib_free(cute_hstu_lib *lib);

/* O = HSTU attention of Q, K, V and RAB.  A malformed call is CUTE_ERR_INVALID with the
 * reason in err; B, Sq or H = 0 does nothing; Sk = 0 is refused (K and V hold no keys). */
cute_status cutec_hstu_attention(cute_hstu_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                 const cute_call_arg *V, const cute_call_arg *RAB, const cute_call_arg *O, bool causal,
                                 bool fast_sigmoid, void *stream, char *err, size_t n);

/* The jagged batch's offsets.  seq_offsets is read on the device, where nothing checks it:
 * offsets must start at 0, never decrease and end at T; the kernel clamps each into [0, T] and
 * a sequence to N rows, so bad ones give wrong (or unwritten) rows, never a read or write
 * outside the tensors.  host_offsets (NULL, or the same B + 1 values in host memory) are
 * checked, a bad one refused with its index and values. */
typedef struct cute_hstu_jagged {
    const cute_call_arg *seq_offsets; /* (B + 1) i32, contiguous, in device memory */
    const int32_t *host_offsets;      /* NULL, or seq_offsets' values on the host */
    int64_t max_len;                  /* the longest sequence or more (1 to N); 0: from host_offsets */
} cute_hstu_jagged;

/* O = HSTU attention of the jagged batch: Q, K, V, O (T, H, D), RAB (B, H, N, N).  Checked
 * as cutec_hstu_attention's, and the offsets as above; T or H = 0 does nothing, as does a
 * sequence of length 0 (its rows are none). */
cute_status cutec_hstu_attention_jagged(cute_hstu_lib *lib, const cute_call_arg *Q, const cute_call_arg *K,
                                        const cute_call_arg *V, const cute_call_arg *RAB, const cute_call_arg *O,
                                        const cute_hstu_jagged *jagged, bool causal, bool fast_sigmoid, void *stream,
                                        char *err, size_t n);

CUTE_API_END
#endif
