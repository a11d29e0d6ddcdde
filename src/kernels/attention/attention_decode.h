/* Internal: the decode path (decode.c, decode_lib.c). */
#ifndef CUTEC_ATTENTION_DECODE_H
#define CUTEC_ATTENTION_DECODE_H

#include "kernels/attention/attention_internal.h"

/* the compiled function's arguments, in order: Q and O seen as (B, H/G, G, D) (the group's
 * heads as rows), K, V (B,Sk,G,D), the LSE seen as (B, G, H/G) f32 (always written: a
 * workspace slot when the caller wants none), the workspace's O_s (S, B, H/G, G, D) and LSE_s (S, B, G, H/G) f32 compact, the
 * key tiles of a split (S = ceil(tiles / chunk)), the scale times log2(e) */
enum {
    ATTN_DEC_Q, ATTN_DEC_K, ATTN_DEC_V, ATTN_DEC_O, ATTN_DEC_L, ATTN_DEC_OS, ATTN_DEC_LS, ATTN_DEC_CHUNK,
    ATTN_DEC_SCALE_LOG2, ATTN_DEC_NARGS
};

/* lib.c: the library's compiled decode configurations; the splits
 * cute_attention_lib_decode_splits asked for (0: none); its workspace, of at least `bytes`;
 * its runtime */
const cute_fn *attn_lib_decode_fn(cute_attention_lib *lib, const cute_attention_config *cfg, char *err, size_t n);
int attn_lib_splits(cute_attention_lib *lib);
cute_status attn_lib_workspace(cute_attention_lib *lib, size_t bytes, cute_buffer *ws, char *err, size_t n);
cute_runtime *attn_lib_runtime(const cute_attention_lib *lib);

#endif
